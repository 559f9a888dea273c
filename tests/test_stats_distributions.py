"""The distribution functions of buddy_eval.stats, checked against their definitions.

The reference values come from exact sums over the binomial terms with
``fractions``, from closed forms of the t distribution, from the defining
property of a quantile, and from the standard library's ``NormalDist`` —
never from scipy.
"""

from __future__ import annotations

import math
import statistics
import sys
from fractions import Fraction

import numpy as np
import pytest

from buddy_eval.stats._distributions import (
    beta_ppf,
    binom_cdf,
    binom_pmf,
    binom_sf,
    norm_ppf,
    t_ppf,
)


def exact_pmf(k: int, n: int, p: Fraction) -> Fraction:
    return math.comb(n, k) * p**k * (1 - p) ** (n - k) if 0 <= k <= n else Fraction(0)


def exact_cdf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((exact_pmf(i, n, p) for i in range(0, min(k, n) + 1)), Fraction(0))


@pytest.mark.parametrize("p", [Fraction(1, 2), Fraction(3, 10), Fraction(9, 10)])
def test_binomial_functions_match_exact_sums(p):
    for n in range(0, 41):
        for k in range(-2, n + 3):
            cdf, pmf = exact_cdf(k, n, p), exact_pmf(k, n, p)
            assert binom_pmf(k, n, float(p)) == pytest.approx(float(pmf), rel=1e-12, abs=1e-300)
            assert binom_cdf(k, n, float(p)) == pytest.approx(float(cdf), rel=1e-12, abs=1e-300)
            assert binom_sf(k, n, float(p)) == pytest.approx(float(1 - cdf), rel=1e-11, abs=1e-300)


def test_binomial_functions_outside_the_support():
    assert binom_cdf(-1, 5, 0.5) == 0.0 and binom_sf(-1, 5, 0.5) == 1.0
    assert binom_cdf(5, 5, 0.5) == 1.0 and binom_sf(5, 5, 0.5) == 0.0
    assert binom_cdf(9, 5, 0.5) == 1.0 and binom_sf(9, 5, 0.5) == 0.0
    assert binom_pmf(-1, 5, 0.5) == 0.0 and binom_pmf(6, 5, 0.5) == 0.0
    assert binom_pmf(5, 5, 0.5) == 1 / 32
    assert binom_cdf(0, 0, 0.5) == 1.0 and binom_pmf(0, 0, 0.5) == 1.0


def test_binomial_functions_are_element_wise():
    k = np.array([-1, 0, 3, 10, 12])
    n = np.array([10, 10, 10, 10, 10])
    cdf = binom_cdf(k, n, 0.5)
    assert isinstance(cdf, np.ndarray) and cdf.shape == (5,)
    assert cdf.tolist() == [binom_cdf(int(a), 10, 0.5) for a in k]
    assert binom_sf(k, n, 0.5).tolist() == [binom_sf(int(a), 10, 0.5) for a in k]
    assert isinstance(binom_cdf(3, 10, 0.5), float)


@pytest.mark.parametrize("q", [0.5, 0.8, 0.9, 0.95, 0.975, 0.99])
def test_beta_quantile_is_the_clopper_pearson_bound(q):
    # beta.ppf(q, x + 1, n - x) is the p at which P(Binomial(n, p) <= x) = 1 - q.
    for n in range(1, 31):
        for x in range(0, n):
            upper = float(beta_ppf(q, x + 1, n - x))
            assert 0.0 < upper < 1.0
            assert float(exact_cdf(x, n, Fraction(upper))) == pytest.approx(1 - q, abs=1e-10)


def test_t_quantile_closed_forms():
    for q in (0.6, 0.75, 0.9, 0.95, 0.975, 0.995):
        # df = 1 is the Cauchy distribution; df = 2 has F^-1(q) = (2q - 1) sqrt(2 / (4q(1 - q))).
        assert t_ppf(q, 1) == pytest.approx(math.tan(math.pi * (q - 0.5)), rel=1e-12)
        expected = (2 * q - 1) * math.sqrt(2 / (4 * q * (1 - q)))
        assert t_ppf(q, 2) == pytest.approx(expected, rel=1e-12)
        # Large df tends to the normal quantile.
        assert t_ppf(q, 10**7) == pytest.approx(statistics.NormalDist().inv_cdf(q), rel=1e-6)
    assert t_ppf(0.5, 7) == 0.0


def test_normal_quantile_matches_the_standard_library():
    normal = statistics.NormalDist()
    for q in (1e-10, 0.001, 0.025, 0.05, 0.5, 0.8, 0.95, 0.975, 0.999):
        assert norm_ppf(q) == pytest.approx(normal.inv_cdf(q), rel=1e-12, abs=1e-15)
    assert norm_ppf(0.975) == pytest.approx(1.959963984540054, rel=1e-15)


def test_scipy_stats_is_never_imported_by_the_statistics():
    import subprocess

    code = (
        "import sys\n"
        "from buddy_eval.stats import mcnemar_exact_many, required_paired_n, exact_upper_bound\n"
        "from buddy_eval.stats._checks import _z\n"
        "mcnemar_exact_many([3, 9], [9, 3]); required_paired_n(0.2, 0.05)\n"
        "exact_upper_bound(1, 40); _z(0.95)\n"
        "print('scipy.stats' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"
