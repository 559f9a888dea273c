"""Exact tests, power and reading rule of buddy_eval.stats, checked against plain enumeration.

Every reference value here is computed from the definition in plain Python
(``fractions``, ``itertools``, ``math.comb``), never with scipy.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
from fractions import Fraction

import pytest

from buddy_eval._errors import InputError
from buddy_eval.stats import (
    DEFAULT_DISCORDANCE,
    MIN_PAIRED,
    READING_CODES,
    SIGNED_RANK_EXACT_MAX,
    PairedTable,
    holm,
    mcnemar_exact,
    mcnemar_exact_many,
    mcnemar_exact_power,
    noninferior,
    noninferiority_bound,
    paired_diff_interval,
    reading,
    required_paired_n,
    required_paired_n_exact,
    sign_test,
    signed_rank_test,
)
from buddy_eval.stats import _power as power
from buddy_eval.stats import _proportions as proportions
from tests import oracle


@pytest.fixture
def cached_z(monkeypatch):
    """Memoise the normal quantile (a pure function of the level) for the big loops."""
    monkeypatch.setattr(proportions, "_z", functools.lru_cache(maxsize=None)(proportions._z))


# --------------------------------------------------------------------------
# Reference implementations: the definitions, by brute force
# --------------------------------------------------------------------------


def brute_average_ranks(values):
    """Average 1-based ranks by comparing every pair: rank = #smaller + (#equal + 1) / 2."""
    smaller = [sum(1 for w in values if w < v) for v in values]
    equal = [sum(1 for w in values if w == v) for v in values]
    return [s + Fraction(e + 1, 2) for s, e in zip(smaller, equal, strict=True)]


def brute_signed_rank(deltas, zero_method="wilcox"):
    """(statistic, p) by listing all 2**m sign assignments with Fraction arithmetic."""
    deltas = [Fraction(d) for d in deltas]
    if zero_method == "wilcox":
        kept = [d for d in deltas if d != 0]
        ranks = brute_average_ranks([abs(d) for d in kept])
    else:
        all_ranks = brute_average_ranks([abs(d) for d in deltas])
        kept = [d for d in deltas if d != 0]
        ranks = [r for r, d in zip(all_ranks, deltas, strict=True) if d != 0]
    m = len(kept)
    if m == 0:
        return Fraction(0), Fraction(1)
    t_obs = sum((r for r, d in zip(ranks, kept, strict=True) if d > 0), Fraction(0))
    mean = sum(ranks, Fraction(0)) / 2
    extreme = 0
    for signs in itertools.product((0, 1), repeat=m):
        t = sum((r for r, s in zip(ranks, signs, strict=True) if s), Fraction(0))
        if abs(t - mean) >= abs(t_obs - mean):
            extreme += 1
    return t_obs, Fraction(extreme, 2**m)


def brute_binomial_two_sided(k, n):
    """min(1, 2 P(X <= min(k, n - k))), X ~ Binomial(n, 1/2), by summing the pmf."""
    if n == 0:
        return Fraction(1)
    low = min(k, n - k)
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(low + 1))
    return min(Fraction(1), 2 * tail)


# --------------------------------------------------------------------------
# Signed-rank test
# --------------------------------------------------------------------------


def test_signed_rank_five_ties_and_twenty_zeros_is_one_sixteenth():
    result = signed_rank_test([1] * 5 + [0] * 20)
    assert result.p_value == Fraction(1, 16)
    assert result.statistic == 15
    assert result.n_nonzero == 5
    assert result.zero_method == "wilcox"
    assert result.method == "exact (sign-flip enumeration)"
    assert not result.rejects  # 0.0625 is not below 0.05
    assert signed_rank_test([1] * 5 + [0] * 20, alpha=0.1).rejects


def test_signed_rank_all_zero_or_empty_gives_one():
    for deltas in ([], [0] * 7, [Fraction(0), 0.0, 0]):
        for zero_method in ("wilcox", "pratt"):
            result = signed_rank_test(deltas, zero_method=zero_method)
            assert result.p_value == 1.0
            assert result.n_nonzero == 0
            assert result.statistic == 0


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_signed_rank_matches_enumeration_on_random_small_vectors(zero_method):
    rng = random.Random(20240607)
    for _ in range(150):
        size = rng.randint(1, 10)
        # Small integer range: many ties and zeros.
        deltas = [rng.randint(-4, 4) for _ in range(size)]
        t_obs, p = brute_signed_rank(deltas, zero_method)
        result = signed_rank_test(deltas, zero_method=zero_method)
        assert result.statistic == t_obs, deltas
        assert result.p_value == float(p), deltas
        assert result.n_nonzero == sum(1 for d in deltas if d != 0)


def test_signed_rank_matches_enumeration_with_fractions_and_floats():
    rng = random.Random(7)
    for _ in range(60):
        size = rng.randint(1, 11)
        deltas = [Fraction(rng.randint(-6, 6), rng.choice([1, 2, 3])) for _ in range(size)]
        t_obs, p = brute_signed_rank(deltas)
        result = signed_rank_test(deltas)
        assert (result.statistic, result.p_value) == (t_obs, float(p)), deltas
        # Floats that are exactly the same numbers tie exactly the same way ...
        as_floats = [float(d) for d in deltas if d.denominator != 3]
        t_obs, p = brute_signed_rank(as_floats)
        assert signed_rank_test(as_floats).p_value == float(p), as_floats


def test_signed_rank_fraction_ties_are_exact():
    # 1/3 and 2/6 tie; 0.1 + 0.2 and 0.3 do not (they are different floats).
    tied = signed_rank_test([Fraction(1, 3), Fraction(2, 6), Fraction(-1, 1)])
    assert tied.statistic == Fraction(3, 1)  # ranks 1.5 + 1.5
    untied = signed_rank_test([0.1 + 0.2, 0.3, -1.0])
    assert untied.statistic == 3  # ranks 2 + 1 (0.3 < 0.1 + 0.2)


@pytest.mark.parametrize(
    "deltas",
    [
        [1, 1, -1, -1, 2, 2, 2, -3],  # several tie groups
        [2, 2, 2, 2, 2, 2, -2],  # one tie group
        [1, -1, 1, -1, 1, -1],  # symmetric: p = 1
        [3, 0, 0, -3, 3, 0, 5, 5, -5, 1],  # zeros and ties
        [0.5, 0.5, 1.5, -0.5, 2.5, 2.5, 2.5, 2.5],  # float half steps
    ],
)
def test_signed_rank_tie_patterns(deltas):
    for zero_method in ("wilcox", "pratt"):
        t_obs, p = brute_signed_rank(deltas, zero_method)
        result = signed_rank_test(deltas, zero_method=zero_method)
        assert result.statistic == t_obs
        assert result.p_value == float(p)


def test_signed_rank_symmetric_sample_has_p_one():
    assert signed_rank_test([1, -1, 2, -2, 3, -3]).p_value == 1.0


def test_signed_rank_exact_at_limit_and_normal_above():
    limit = SIGNED_RANK_EXACT_MAX
    assert limit >= 25
    at_limit = signed_rank_test([1] * limit)
    # All equal and positive: only the two all-same-sign assignments are as extreme.
    assert at_limit.method == "exact (sign-flip enumeration)"
    assert at_limit.p_value == float(Fraction(2, 2**limit))
    above = signed_rank_test(list(range(1, limit + 2)) + [-(limit + 2)])
    assert above.method == "normal approximation with tie correction, no continuity correction"
    m = limit + 2
    t = m * (m + 1) / 2 - m
    z = (t - m * (m + 1) / 4) / math.sqrt(m * (m + 1) * (2 * m + 1) / 24)
    assert above.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)


def test_signed_rank_normal_variance_is_tie_corrected():
    # 60 deltas: groups of 3 tied values, alternating signs within nothing.
    deltas = [(i // 3) + 1 for i in range(60)]
    deltas[0] = -deltas[0]
    deltas[-1] = -deltas[-1]
    result = signed_rank_test(deltas)
    m = 60
    ties = [3] * 20
    var = m * (m + 1) * (2 * m + 1) / 24 - sum(t**3 - t for t in ties) / 48
    ranks = brute_average_ranks([abs(d) for d in deltas])
    t_obs = float(sum(r for r, d in zip(ranks, deltas, strict=True) if d > 0))
    z = (t_obs - m * (m + 1) / 4) / math.sqrt(var)
    assert result.p_value == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)
    assert result.statistic == t_obs


def test_signed_rank_exact_limit_is_fast():
    import time

    rng = random.Random(3)
    deltas = [rng.choice([-1, 1]) * rng.randint(1, 1000) for _ in range(SIGNED_RANK_EXACT_MAX)]
    start = time.perf_counter()
    signed_rank_test(deltas)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"deltas": [1, "2"]}, "'2' at position 1"),
        ({"deltas": [1, float("nan")]}, "nan at position 1"),
        ({"deltas": [True]}, "True at position 0"),
        ({"deltas": [1], "alpha": 1.5}, "alpha must be"),
        ({"deltas": [1], "zero_method": "zsplit"}, "'zsplit'"),
    ],
)
def test_signed_rank_rejects_bad_input(kwargs, message):
    with pytest.raises(InputError, match=message):
        signed_rank_test(**kwargs)


# --------------------------------------------------------------------------
# Sign test
# --------------------------------------------------------------------------


def test_sign_test_matches_enumeration():
    for n in range(0, 41):
        for wins in range(0, n + 1):
            assert sign_test(wins, n - wins) == float(brute_binomial_two_sided(wins, n))


def test_sign_test_enumerates_outcomes_directly():
    # Independent of the min-tail formula: count the 2**n win/loss sequences
    # at least as unbalanced as the observed one.
    for n in range(0, 13):
        for wins in range(n + 1):
            extreme = sum(
                1
                for seq in itertools.product((0, 1), repeat=n)
                if abs(2 * sum(seq) - n) >= abs(2 * wins - n)
            )
            assert sign_test(wins, n - wins) == float(Fraction(extreme, 2**n))


@pytest.mark.parametrize("wins, losses", [(-1, 3), (1.5, 2), (True, 3)])
def test_sign_test_rejects_bad_counts(wins, losses):
    with pytest.raises(InputError, match="must be an integer"):
        sign_test(wins, losses)


# --------------------------------------------------------------------------
# Exact McNemar, one table and many
# --------------------------------------------------------------------------


def test_mcnemar_exact_matches_enumeration_on_every_small_table():
    proportions._MCNEMAR.clear()  # computed here, not remembered from another test
    for n in range(0, 61):
        for fixed in range(n + 1):
            expected = float(brute_binomial_two_sided(fixed, n))
            assert mcnemar_exact(fixed, n - fixed) == pytest.approx(expected, rel=1e-12, abs=0)


def test_mcnemar_exact_many_equals_the_one_table_function_exactly():
    rng = random.Random(20261205)
    fixed = [rng.randrange(0, 400) for _ in range(500)] + [0, 0, 7, 3000]
    regressed = [rng.randrange(0, 400) for _ in range(500)] + [0, 5, 7, 2950]
    proportions._MCNEMAR.clear()
    many = mcnemar_exact_many(fixed, regressed)
    assert many.dtype.kind == "f" and many.shape == (len(fixed),)
    proportions._MCNEMAR.clear()  # recompute one by one, without the remembered values
    one = [mcnemar_exact(f, r) for f, r in zip(fixed, regressed, strict=True)]
    assert many.tolist() == one
    assert many[-4] == 1.0 and many[-2] == 1.0  # no discordant pair; as many fixed as regressed
    assert mcnemar_exact_many([], []).tolist() == []


def _newcombe_with_fractions(a, b, c, d, z):
    """The paired interval as the docstring writes it, every share an exact Fraction."""
    n = a + b + c + d
    p1, p2 = Fraction(a + b, n), Fraction(a + c, n)

    def wilson(p):
        share, scale = float(p), 1 + z * z / n
        centre = (share + z * z / (2 * n)) / scale
        half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / scale
        return (
            0.0 if p == 0 else max(0.0, centre - half),
            1.0 if p == 1 else min(1.0, centre + half),
        )

    (l1, u1), (l2, u2) = wilson(p1), wilson(p2)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if margins == 0 or 0 <= cross <= Fraction(n, 2):
        phi = 0.0
    elif cross > Fraction(n, 2):
        phi = (cross - n / 2) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    f1, f2 = float(p1), float(p2)
    down = (f1 - l1) ** 2 - 2 * phi * (f1 - l1) * (u2 - f2) + (u2 - f2) ** 2
    up = (u1 - f1) ** 2 - 2 * phi * (u1 - f1) * (f2 - l2) + (f2 - l2) ** 2
    return (
        max(-1.0, f1 - f2 - math.sqrt(max(down, 0.0))),
        min(1.0, f1 - f2 + math.sqrt(max(up, 0.0))),
    ), (wilson(p1), wilson(p2))


def test_whole_counts_give_the_intervals_of_exact_fractions_bit_for_bit():
    # Whole counts take a shortcut (a share is a / n, no Fraction): the same floats.
    rng = random.Random(20261206)
    tables = [tuple(rng.randrange(0, k) for _ in range(4)) for k in (3, 12, 400, 10**6)]
    tables = [t for t in tables * 50 if sum(t)] + [(0, 0, 0, 5), (5, 0, 0, 0), (1, 0, 0, 0)]
    tables += [tuple(rng.randrange(0, 9) for _ in range(4)) for _ in range(3000)]
    for confidence in (0.95, 0.9, 0.99):
        z = proportions._z(confidence)
        for a, b, c, d in (t for t in tables if sum(t)):
            expected, (candidate, baseline) = _newcombe_with_fractions(a, b, c, d, z)
            assert paired_diff_interval(a, b, c, d, confidence) == expected
            n = a + b + c + d
            assert proportions.newcombe_score(Fraction(a + b), a + c, a, n, z) == expected
            assert proportions.wilson_interval(a + b, n, confidence) == candidate
            assert proportions.wilson_interval(a + c, n, confidence) == baseline


def test_mcnemar_exact_many_is_symmetric_and_exact_at_large_n():
    fixed, regressed = [10, 1000, 2000], [40, 1100, 2000]
    assert mcnemar_exact_many(fixed, regressed).tolist() == (
        mcnemar_exact_many(regressed, fixed).tolist()
    )
    expected = float(brute_binomial_two_sided(1000, 2100))
    assert mcnemar_exact_many([1000], [1100])[0] == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    "fixed, regressed, message",
    [
        ([1, 2], [1], "same length, got 2 and 1"),
        ([1.5], [1], "fixed must be integers >= 0, got 1.5"),
        ([1], [-3], "regressed must be integers >= 0, got -3"),
        ([True], [1], "fixed must be integers >= 0, got True"),
        (["4"], [1], "fixed must be integers >= 0, got '4'"),
    ],
)
def test_mcnemar_exact_many_rejects_bad_counts(fixed, regressed, message):
    with pytest.raises(InputError, match=re.escape(message)):
        mcnemar_exact_many(fixed, regressed)


# --------------------------------------------------------------------------
# Holm
# --------------------------------------------------------------------------


def test_holm_matches_definition_on_random_vectors():
    rng = random.Random(11)
    for _ in range(300):
        size = rng.randint(0, 12)
        ps = []
        for _ in range(size):
            kind = rng.random()
            if kind < 0.15:
                ps.append(None)
            elif kind < 0.3:
                ps.append(rng.choice([0.0, 1.0, 0.05, 0.01]))  # ties and ends
            else:
                ps.append(rng.random() ** 3)
        assert holm(ps) == oracle.holm(ps), ps


def test_holm_properties():
    ps = [0.2, 0.001, None, 0.04, 0.03, 0.5]
    adjusted = holm(ps)
    assert adjusted[2] is None
    pairs = [(p, a) for p, a in zip(ps, adjusted, strict=True) if p is not None]
    for p, a in pairs:
        assert p <= a <= 1
    for (p1, a1), (p2, a2) in itertools.product(pairs, repeat=2):
        if p1 <= p2:
            assert a1 <= a2
    assert holm([]) == []
    assert holm([None, None]) == [None, None]
    assert holm([0.03]) == [0.03]


@pytest.mark.parametrize("bad", [[0.1, 1.2], [-0.01], ["0.1"], [True]])
def test_holm_rejects_bad_p_values(bad):
    with pytest.raises(InputError, match="p_values must be numbers in"):
        holm(bad)


# --------------------------------------------------------------------------
# Exact McNemar power and sample size
# --------------------------------------------------------------------------


def brute_conditional_rejection(d, q, alpha):
    """P(the exact McNemar test rejects | d discordant), fixes ~ Binomial(d, q), exact."""
    alpha = Fraction(alpha)
    return sum(
        (
            math.comb(d, f) * q**f * (1 - q) ** (d - f)
            for f in range(d + 1)
            if brute_binomial_two_sided(f, d) < alpha
        ),
        Fraction(0),
    )


def brute_power_curve(n_max, p_fixed, p_regressed, alpha):
    """Exact power for n = 0..n_max: sum over d of P(D = d) P(reject | d), all Fractions."""
    psi = p_fixed + p_regressed
    q = p_fixed / psi
    rejection = [brute_conditional_rejection(d, q, alpha) for d in range(n_max + 1)]
    return [
        sum(
            (math.comb(n, d) * psi**d * (1 - psi) ** (n - d) * rejection[d] for d in range(n + 1)),
            Fraction(0),
        )
        for n in range(n_max + 1)
    ]


def test_exact_power_matches_enumeration():
    cases = [
        (Fraction(1, 10), Fraction(3, 10), Fraction(1, 20)),
        (Fraction(0), Fraction(1, 5), Fraction(1, 20)),
        (Fraction(1, 4), Fraction(1, 4), Fraction(1, 20)),  # no effect: power = size <= alpha
        (Fraction(1, 5), Fraction(4, 5), Fraction(1, 10)),
        (Fraction(3, 10), Fraction(1, 10), Fraction(1, 100)),  # gain: two-sided
    ]
    for p_fixed, p_regressed, alpha in cases:
        curve = brute_power_curve(40, p_fixed, p_regressed, alpha)
        for n in range(41):
            got = mcnemar_exact_power(n, float(p_fixed), float(p_regressed), float(alpha))
            assert got == pytest.approx(float(curve[n]), rel=1e-9, abs=1e-15), (n, p_fixed)
        if p_fixed == p_regressed:
            assert all(value <= alpha for value in curve)


def test_exact_power_is_symmetric_and_zero_without_discordance():
    assert mcnemar_exact_power(50, 0.1, 0.3) == pytest.approx(mcnemar_exact_power(50, 0.3, 0.1))
    assert mcnemar_exact_power(0, 0.1, 0.3) == 0.0
    assert mcnemar_exact_power(80, 0.0, 0.0) == 0.0
    # Five discordant pairs can never reach 2 / 2**5 < 0.05.
    assert mcnemar_exact_power(5, 0.0, 1.0) == 0.0
    assert mcnemar_exact_power(6, 0.0, 1.0) == 1.0


@pytest.mark.parametrize(
    "discordance, drop, power",
    [
        (Fraction(3, 5), Fraction(2, 5), Fraction(4, 5)),
        (Fraction(3, 10), Fraction(3, 10), Fraction(4, 5)),
        (Fraction(1, 10), Fraction(1, 4), Fraction(4, 5)),  # discordance floored at drop
        (Fraction(1, 2), Fraction(3, 10), Fraction(9, 10)),
        (Fraction(1), Fraction(3, 5), Fraction(11, 20)),  # sawtooth: see below
    ],
)
def test_required_n_exact_is_the_first_n_reaching_the_power(discordance, drop, power):
    n = required_paired_n_exact(float(discordance), float(drop), 0.05, float(power))
    psi = max(discordance, drop)
    curve = brute_power_curve(n, (psi - drop) / 2, (psi + drop) / 2, Fraction(1, 20))
    assert curve[n] >= power
    assert all(value < power for value in curve[:n])
    # No exact-vs-float ambiguity: every value is clear of the target.
    assert all(abs(value - power) > Fraction(1, 10**9) for value in curve)


def test_required_n_exact_documented_rule_under_sawtooth():
    # With every item discordant the power dips after each step of the
    # rejection region: n = 12 reaches 0.55, n = 13 falls back below it.
    drop, target = Fraction(3, 5), Fraction(11, 20)
    n = required_paired_n_exact(1.0, float(drop), 0.05, float(target))
    curve = brute_power_curve(n + 1, (1 - drop) / 2, (1 + drop) / 2, Fraction(1, 20))
    assert n == 12
    assert curve[n] >= target > curve[n + 1]


def test_required_n_exact_against_connor_and_defaults():
    for discordance in (0.0, 0.05, 0.1, 0.2, DEFAULT_DISCORDANCE):
        exact = required_paired_n_exact(discordance)
        connor = required_paired_n(discordance)
        # The exact conditional test is conservative: it needs a few more items.
        assert connor <= exact <= 1.15 * connor
        psi = max(discordance, 0.05)
        got = mcnemar_exact_power(exact, (psi - 0.05) / 2, (psi + 0.05) / 2)
        assert got >= 0.80
        assert mcnemar_exact_power(exact - 1, (psi - 0.05) / 2, (psi + 0.05) / 2) < 0.80
    assert 0.2 <= DEFAULT_DISCORDANCE <= 0.3
    assert MIN_PAIRED >= 1


def test_required_n_exact_is_fast():
    import time

    required_paired_n_exact(0.05)  # load scipy first
    start = time.perf_counter()
    required_paired_n_exact(0.2)
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: mcnemar_exact_power(-1, 0.1, 0.1), "n must be an integer"),
        (lambda: mcnemar_exact_power(10, 0.7, 0.4), "at most 1, got 0.7 \\+ 0.4"),
        (lambda: mcnemar_exact_power(10, -0.1, 0.4), "p_fixed must be a number in"),
        (lambda: mcnemar_exact_power(10, 0.1, 0.4, alpha=0), "alpha must be"),
        (lambda: required_paired_n_exact(1.5), "discordance must be a number in"),
        (lambda: required_paired_n_exact(0.2, drop=0), "drop must be"),
        (lambda: required_paired_n_exact(0.2, power=1), "power must be"),
    ],
)
def test_power_functions_reject_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()


# --------------------------------------------------------------------------
# Non-inferiority
# --------------------------------------------------------------------------


def small_tables(max_n):
    for n in range(max_n + 1):
        for a in range(n + 1):
            for b in range(n - a + 1):
                for c in range(n - a - b + 1):
                    yield PairedTable(a, b, c, n - a - b - c)


def test_noninferiority_bound_is_lower_end_of_the_1_minus_2alpha_interval(cached_z):
    rng = random.Random(5)
    tables = [t for t in small_tables(12) if t.n] + [
        PairedTable(*(rng.randint(0, 200) for _ in range(4))) for _ in range(200)
    ]
    for confidence in (0.95, 0.975, 0.9):
        alpha = 1 - confidence
        for table in tables:
            reference = paired_diff_interval(
                table.both_pass, table.fixed, table.regressed, table.both_fail, 1 - 2 * alpha
            )[0]
            assert noninferiority_bound(table, confidence) == pytest.approx(reference, abs=1e-12)
            # One-sided 95% is never further out than the two-sided 95% low end.
            assert noninferiority_bound(table, confidence) >= table.diff_interval(confidence)[0]


def test_noninferior_decision_flips_at_the_bound(cached_z):
    rng = random.Random(9)
    margins = [i / 100 for i in range(0, 100)]
    for _ in range(150):
        table = PairedTable(*(rng.randint(0, 60) for _ in range(4)))
        if table.n == 0:
            continue
        bound = paired_diff_interval(
            table.both_pass, table.fixed, table.regressed, table.both_fail, 1 - 2 * 0.05
        )[0]
        for margin in margins:
            if abs(bound + margin) > 1e-9:
                assert noninferior(table, margin) == (bound > -margin), (table, margin)
        if -1e-6 < bound < 0.98:
            # Just past the bound it holds; just short of it it does not.
            assert noninferior(table, max(0.0, -bound + 1e-6))
            if -bound - 1e-6 >= 0:
                assert not noninferior(table, -bound - 1e-6)


def test_noninferior_with_nothing_paired_and_bad_input():
    empty = PairedTable(0, 0, 0, 0)
    assert math.isnan(noninferiority_bound(empty))
    assert not noninferior(empty, 0.5)
    with pytest.raises(InputError, match="confidence must be a number strictly between 0.5"):
        noninferiority_bound(PairedTable(5, 1, 1, 5), 0.4)
    with pytest.raises(InputError, match="margin must be a number in"):
        noninferior(PairedTable(5, 1, 1, 5), -0.1)
    with pytest.raises(InputError, match="table must be a PairedTable"):
        noninferiority_bound((5, 1, 1, 5))


# --------------------------------------------------------------------------
# Reading rule
# --------------------------------------------------------------------------

TEXTS = {
    "gain": "gain: the interval is above 0 and the exact test rejects",
    "drop": "drop: the interval is below 0 and the exact test rejects",
    "unclear": "no clear change: the interval includes 0",
}
EXCLUDES_NO_REJECT = "borderline: the interval excludes 0 but the exact test does not reject"
REJECTS_INCLUDES = "borderline: the exact test rejects but the interval includes 0"


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_reading_never_contradicts_the_exact_test_on_every_small_table(alpha, cached_z):
    p_values = {}
    seen = set()
    for table in small_tables(30):
        if table.n == 0:
            continue
        key = (table.fixed, table.regressed)
        if key not in p_values:
            p_values[key] = mcnemar_exact(*key)
        p = p_values[key]
        low, high = paired_diff_interval(
            table.both_pass, table.fixed, table.regressed, table.both_fail, 1 - alpha
        )
        code, text = reading((low, high), p, alpha)
        assert code in READING_CODES
        if code == "gain":
            assert p < alpha and low > 0 and table.fixed > table.regressed
        if code == "drop":
            assert p < alpha and high < 0 and table.fixed < table.regressed
        excludes = low > 0 or high < 0
        rejects = p < alpha
        if excludes and rejects:
            assert code == ("gain" if low > 0 else "drop")
        elif excludes:
            assert (code, text) == ("borderline", EXCLUDES_NO_REJECT), table
        elif rejects:
            assert (code, text) == ("borderline", REJECTS_INCLUDES), table
        else:
            assert (code, text) == ("unclear", TEXTS["unclear"])
        if code in TEXTS:
            assert text == TEXTS[code]
        seen.add(text)
    # Both kinds of disagreement do occur at this size: the rule is needed.
    assert {EXCLUDES_NO_REJECT, TEXTS["gain"], TEXTS["drop"], TEXTS["unclear"]} <= seen


def test_reading_boundaries():
    assert reading((0.0, 0.2), 0.01)[1] == REJECTS_INCLUDES  # an end at 0 includes 0
    assert reading((-0.2, 0.0), 0.2)[0] == "unclear"
    assert reading((0.01, 0.2), 0.05)[1] == EXCLUDES_NO_REJECT  # p == alpha: no rejection
    assert reading((0.01, 0.2), 0.049)[0] == "gain"
    assert reading((-0.3, -0.01), 0.001)[0] == "drop"


@pytest.mark.parametrize(
    "args, message",
    [
        (((0.1,), 0.01), "diff_ci must be a \\(low, high\\) pair"),
        (((math.nan, 0.1), 0.01), "pair of numbers, got \\(nan, 0.1\\)"),
        (((0.2, 0.1), 0.01), "low <= high"),
        (((0.0, 0.1), 1.5), "p_value must be a number in \\[0, 1\\], got 1.5"),
        (((0.0, 0.1), None), "got None"),
    ],
)
def test_reading_rejects_bad_input(args, message):
    with pytest.raises(InputError, match=message):
        reading(*args)


def test_required_n_exact_does_not_depend_on_the_connor_start(monkeypatch):
    # Connor's n only sizes the precomputation: a far too small start grows it.
    expected = required_paired_n_exact(0.3)
    monkeypatch.setattr(power, "required_paired_n", lambda *args: 1)
    assert required_paired_n_exact(0.3) == expected
