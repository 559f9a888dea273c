"""Paired proportions: the 2x2 table, exact McNemar, Wilson and Newcombe intervals, bounds.

The readiness rule lives here too: :data:`MIN_PAIRED` pairs before a p-value
or a difference interval is computed (:func:`is_ready`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._errors import InputError
from .._vocabulary import MIN_PAIRED
from ._checks import _check_count, _check_open_unit, _check_sample_size, _z


def is_ready(n_paired: int, min_paired: int = MIN_PAIRED) -> bool:
    """The readiness rule: enough pairs for a p-value and a difference interval.

    Parameters
    ----------
    n_paired : int
        Items with a result in both versions.
    min_paired : int
        Pairs needed (default :data:`MIN_PAIRED`, 20; ``--min-paired``).

    Returns
    -------
    bool

    Examples
    --------
    >>> is_ready(19), is_ready(20), is_ready(12, min_paired=10)
    (False, True, True)
    """
    return n_paired >= min_paired


@dataclass(frozen=True)
class PairedTable:
    """Two versions on the same items: the paired 2x2 table.

    Attributes
    ----------
    both_pass, fixed, regressed, both_fail : int
        Items both versions pass; the baseline fails and the candidate
        passes (fixed); the baseline passes and the candidate fails
        (regressed); both fail.

    Examples
    --------
    >>> table = PairedTable(both_pass=59, fixed=6, regressed=16, both_fail=80)
    >>> table.n, table.discordant, table.diff
    (161, 22, Fraction(-10, 161))
    >>> round(table.mcnemar(), 4)
    0.0525
    >>> low, high = table.diff_interval()
    >>> round(low, 4), round(high, 4)
    (-0.1186, -0.0046)
    """

    both_pass: int
    fixed: int
    regressed: int
    both_fail: int

    @property
    def n(self) -> int:
        """Paired items."""
        return self.both_pass + self.fixed + self.regressed + self.both_fail

    @property
    def discordant(self) -> int:
        """Items the two versions disagree on: fixed + regressed."""
        return self.fixed + self.regressed

    @property
    def diff(self) -> Fraction | None:
        """Candidate minus baseline rate over the paired items, exact; None when n is 0."""
        return Fraction(self.fixed - self.regressed, self.n) if self.n else None

    def mcnemar(self) -> float:
        """Exact two-sided McNemar p-value (:func:`mcnemar_exact`)."""
        return mcnemar_exact(self.fixed, self.regressed)

    def diff_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Newcombe's interval for :attr:`diff` (:func:`paired_diff_interval`)."""
        return paired_diff_interval(
            self.both_pass, self.fixed, self.regressed, self.both_fail, confidence
        )


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    The interval inverts the score test (Wilson 1927): it stays inside
    [0, 1], is not degenerate at 0/n or n/n, and keeps close to the nominal
    coverage for small n, unlike the textbook Wald interval ``p ± z·se``.

    Parameters
    ----------
    successes, n : int
        Observed successes and trials, ``0 <= successes <= n``.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when ``n`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval(8, 10)
    >>> round(low, 3), round(high, 3)
    (0.49, 0.943)
    """
    n = _check_count("n", n)
    successes = _check_count("successes", successes)
    if successes > n:
        raise InputError(f"successes ({successes}) cannot exceed n ({n})")
    confidence = _check_open_unit("confidence", confidence)
    if n == 0:
        return (math.nan, math.nan)
    # successes / n is float(Fraction(successes, n)): both are correctly rounded.
    return _wilson_ends(successes / n, n, z=_z(confidence), zero=successes == 0, one=successes == n)


def wilson_score(p: Fraction, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval of an observed share ``p`` (exact) over ``n`` units.

    The one formula behind :func:`wilson_interval` (``p = successes / n``)
    and the repeated-trials interval on a mean of item rates, where ``p`` is
    that mean and ``n`` the number of items. ``p`` of exactly 0 or 1 gives
    exactly 0 or 1 as that end.
    """
    return _wilson_ends(float(p), n, z, p == 0, p == 1)


def _wilson_ends(share: float, n: int, z: float, zero: bool, one: bool) -> tuple[float, float]:
    """:func:`wilson_score` of the share rounded to a float; ``zero`` and ``one`` say
    whether the exact share is 0 or 1."""
    scale = 1 + z * z / n
    centre = (share + z * z / (2 * n)) / scale
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / scale
    # Clamp the rounding dust at the ends: 0/n must give exactly 0 as its low end.
    low = 0.0 if zero else max(0.0, centre - half)
    high = 1.0 if one else min(1.0, centre + half)
    return (low, high)


def mcnemar_exact(fixed: int, regressed: int) -> float:
    """Two-sided exact McNemar test on the discordant pairs.

    Under the null hypothesis "baseline and candidate are equally good" each
    discordant item is equally likely to be a fix or a regression, so
    ``fixed ~ Binomial(fixed + regressed, 1/2)``; the p-value is the two-sided
    binomial test of :func:`scipy.stats.binomtest`. Concordant items (both
    pass, both fail) carry no information about the difference.

    Parameters
    ----------
    fixed, regressed : int
        Discordant pair counts.

    Returns
    -------
    float
        The p-value; 1.0 when there is no discordant pair.

    See Also
    --------
    mcnemar_exact_many : The same p-values for many tables in one call.

    Examples
    --------
    >>> round(mcnemar_exact(1, 9), 4)
    0.0215
    """
    fixed = _check_count("fixed", fixed)
    regressed = _check_count("regressed", regressed)
    key = (fixed, regressed)
    if key not in _MCNEMAR:
        mcnemar_exact_many([fixed], [regressed])
    return _MCNEMAR[key]


#: Exact McNemar p-values already computed, by (fixed, regressed): the whole input,
#: its sensitivity readings and every slice ask for many of the same ones.
_MCNEMAR: dict[tuple[int, int], float] = {}
_MCNEMAR_KEPT = 65_536


def mcnemar_exact_many(fixed, regressed) -> np.ndarray:
    """:func:`mcnemar_exact` of many tables at once, element-wise.

    The two-sided binomial test at 1/2 is symmetric, so its p-value is
    ``P(X <= m) + P(X >= n - m)`` with ``m = min(fixed, regressed)`` and
    ``n = fixed + regressed`` (1 when ``fixed == regressed``): the same two
    tail sums, in the same floating-point operations, that
    :func:`scipy.stats.binomtest` adds, for every table in one vectorised
    call. The p-values are remembered for :func:`mcnemar_exact`.

    Parameters
    ----------
    fixed, regressed : array-like of int
        Discordant pair counts, one pair per table.

    Returns
    -------
    numpy.ndarray of float
        One p-value per table; 1.0 for a table without discordant pairs.

    Examples
    --------
    >>> mcnemar_exact_many([1, 9, 0, 3], [9, 1, 0, 3]).round(4).tolist()
    [0.0215, 0.0215, 1.0, 1.0]
    """
    from ._distributions import binom_cdf, binom_sf

    f, r = _counts_array("fixed", fixed), _counts_array("regressed", regressed)
    if f.shape != r.shape:
        raise InputError(
            f"fixed and regressed must have the same length, got {len(f)} and {len(r)}"
        )
    n = f + r
    low = np.minimum(f, r)
    p = np.minimum(1.0, binom_cdf(low, n, 0.5) + binom_sf(n - low - 1, n, 0.5))
    p = np.where(f == r, 1.0, p)
    if len(_MCNEMAR) + f.size > _MCNEMAR_KEPT:
        _MCNEMAR.clear()
    _MCNEMAR.update(zip(zip(f.tolist(), r.tolist(), strict=True), p.tolist(), strict=True))
    return p


def _counts_array(name: str, values) -> np.ndarray:
    """``values`` as a flat int64 array of counts, or an InputError naming ``name``."""
    array = np.asarray(values).ravel()
    if array.size == 0:
        return array.astype(np.int64)
    if array.dtype.kind not in "iu" or int(array.min()) < 0:
        first = next(v for v in array.tolist() if type(v) is not int or v < 0)
        raise InputError(f"{name} must be integers >= 0, got {first!r}")
    return array.astype(np.int64)


def paired_diff_interval(
    both_pass: int, fixed: int, regressed: int, both_fail: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for a difference of paired proportions.

    The difference is candidate minus baseline, ``(fixed - regressed) / n``
    over the ``n`` paired items. This is method 10 of Newcombe (1998),
    "Improved confidence intervals for the difference between binomial
    proportions based on paired data", *Statistics in Medicine* 17:2635-2650,
    also called the square-and-add (MOVER) Wilson interval for paired data.
    With ``p1`` the candidate's and ``p2`` the baseline's paired rate,
    ``(l1, u1)`` and ``(l2, u2)`` their Wilson intervals, and
    ``D = p1 - p2``::

        low  = D - sqrt((p1 - l1)**2 - 2*phi*(p1 - l1)*(u2 - p2) + (u2 - p2)**2)
        high = D + sqrt((u1 - p1)**2 - 2*phi*(u1 - p1)*(p2 - l2) + (p2 - l2)**2)

    ``phi`` estimates the correlation between the two versions' outcomes
    from the 2x2 table (``a`` both pass, ``b`` fixed, ``c`` regressed, ``d``
    both fail)::

        A = a*d - b*c
        phi = (A - n/2) / sqrt((a+b)(c+d)(a+c)(b+d))   if A > n/2
              0                                         if 0 <= A <= n/2
              A / sqrt((a+b)(c+d)(a+c)(b+d))            if A < 0

    and ``phi = 0`` when any margin is empty, as in Newcombe (1998), in
    Newcombe & Altman's chapter of *Statistics with Confidence* (2nd ed.,
    2000) and in Fagerland, Lydersen & Laake, *Statistical Analysis of
    Contingency Tables* (2017, ch. 8). The interval has close to nominal
    coverage down to small n, stays inside [-1, 1] and is not degenerate when
    there is no discordant pair, unlike the Wald interval.

    Parameters
    ----------
    both_pass, fixed, regressed, both_fail : int
        The paired 2x2 table.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when nothing is paired.

    Examples
    --------
    Fagerland et al. (2017, ch. 8), complete response before and after
    consolidation therapy (Cavo et al. 2012): estimate -0.0621,
    95% CI -0.1186 to -0.0046.

    >>> low, high = paired_diff_interval(59, 6, 16, 80)
    >>> round(low, 4), round(high, 4)
    (-0.1186, -0.0046)
    """
    a = _check_count("both_pass", both_pass)
    b = _check_count("fixed", fixed)
    c = _check_count("regressed", regressed)
    d = _check_count("both_fail", both_fail)
    n = a + b + c + d
    if n == 0:
        return (math.nan, math.nan)
    # Sums of the candidate's and the baseline's outcomes, and of their products.
    return newcombe_score(a + b, a + c, a, n, _z(confidence))


def newcombe_score(
    candidate_sum: Fraction | int,
    baseline_sum: Fraction | int,
    product_sum: Fraction | int,
    n: int,
    z: float,
) -> tuple[float, float]:
    """Newcombe's hybrid score interval from the sums of paired outcomes in [0, 1].

    The one formula behind :func:`paired_diff_interval` (outcomes 0 or 1:
    ``candidate_sum = a + b``, ``baseline_sum = a + c``, ``product_sum = a``)
    and the repeated-trials interval on per-item rates. The cross term
    ``A = n * product_sum - candidate_sum * baseline_sum`` and the margins
    ``candidate_sum (n - candidate_sum) baseline_sum (n - baseline_sum)`` are
    exact; with 0/1 outcomes they are ``ad - bc`` and the 2x2 table's
    margins. Each version's interval is :func:`wilson_score` over ``n``.
    """
    # Each share as a float, correctly rounded (whole sums need no Fraction for it).
    f1 = candidate_sum / n if type(candidate_sum) is int else float(Fraction(candidate_sum, n))
    f2 = baseline_sum / n if type(baseline_sum) is int else float(Fraction(baseline_sum, n))
    l1, u1 = _wilson_ends(f1, n, z, candidate_sum == 0, candidate_sum == n)
    l2, u2 = _wilson_ends(f2, n, z, baseline_sum == 0, baseline_sum == n)
    margins = candidate_sum * (n - candidate_sum) * baseline_sum * (n - baseline_sum)
    cross = n * product_sum - candidate_sum * baseline_sum
    if margins == 0 or 0 <= 2 * cross <= n:
        phi = 0.0
    elif 2 * cross > n:
        phi = (float(cross) - n / 2) / math.sqrt(margins)
    else:
        phi = float(cross) / math.sqrt(margins)
    diff = f1 - f2
    down = (f1 - l1) ** 2 - 2 * phi * (f1 - l1) * (u2 - f2) + (u2 - f2) ** 2
    up = (u1 - f1) ** 2 - 2 * phi * (u1 - f1) * (f2 - l2) + (f2 - l2) ** 2
    return (max(-1.0, diff - math.sqrt(max(down, 0.0))), min(1.0, diff + math.sqrt(max(up, 0.0))))


def zero_event_upper_bound(n: int, confidence: float = 0.95) -> float:
    """Exact one-sided upper bound on a rate when 0 events were seen in n trials.

    The Clopper-Pearson bound for 0 of n solves ``(1 - p)**n = 1 - confidence``:
    ``1 - (1 - confidence)**(1/n)``. It is close to the "rule of three"
    ``3/n`` for large n. No violation seen in n items is not "no violation
    possible": the rate may be as high as this bound.

    Parameters
    ----------
    n : int
        Trials (REFUSE items with a result), at least 1.
    confidence : float
        One-sided confidence level (default 0.95).

    Returns
    -------
    float

    Examples
    --------
    >>> round(zero_event_upper_bound(30), 4)
    0.095
    """
    n = _check_count("n", n, minimum=1)
    confidence = _check_open_unit("confidence", confidence)
    return 1 - (1 - confidence) ** (1 / n)


def exact_upper_bound(events: int, n: int, confidence: float = 0.95) -> float:
    """Exact one-sided (Clopper-Pearson) upper bound on a rate after ``events`` of ``n``.

    The largest rate ``p`` with ``P(X <= events | n, p) >= 1 - confidence``:
    the ``confidence`` quantile of Beta(events + 1, n - events). For
    ``events == 0`` this is :func:`zero_event_upper_bound`, computed in closed
    form; for ``events == n`` it is 1.

    Parameters
    ----------
    events, n : int
        Observed events and trials, ``0 <= events <= n``.
    confidence : float
        One-sided confidence level (default 0.95).

    Returns
    -------
    float
        The bound; NaN when ``n`` is 0.

    Examples
    --------
    One violation in 200 REFUSE items: with 95% confidence, the violation rate
    is at most about 2.4%:

    >>> round(exact_upper_bound(1, 200), 4)
    0.0235
    >>> round(exact_upper_bound(0, 30), 4), exact_upper_bound(10, 10)
    (0.095, 1.0)
    """
    n = _check_count("n", n)
    events = _check_count("events", events)
    if events > n:
        raise InputError(f"events ({events}) cannot exceed n ({n})")
    confidence = _check_open_unit("confidence", confidence)
    if n == 0:
        return math.nan
    if events == 0:
        return zero_event_upper_bound(n, confidence)
    if events == n:
        return 1.0
    from ._distributions import beta_ppf

    return float(beta_ppf(confidence, events + 1, n - events))


def required_paired_n(
    discordance: float, drop: float = 0.05, alpha: float = 0.05, power: float = 0.80
) -> int:
    """Paired items needed to detect a drop of ``drop`` with McNemar's test.

    Connor (1987), "Sample size for testing differences in proportions for
    the paired-sample design", *Biometrics* 43:207-211::

        n = (z[1 - alpha/2] * sqrt(psi) + z[power] * sqrt(psi - drop**2))**2 / drop**2

    where ``psi`` is the proportion of discordant items (fixed + regressed
    over paired) expected between the two versions. A change of ``drop`` is
    only possible when ``psi >= drop`` (every discordant item would have to
    be a regression), so ``psi`` is floored at ``drop``: with zero (or very
    low) observed discordance the hint is the smallest golden set with which
    a drop of that size could ever be detected, a lower bound rather than an
    estimate.

    Parameters
    ----------
    discordance : float
        Observed share of discordant paired items, in [0, 1].
    drop : float
        Difference to detect (default 0.05, five percentage points).
    alpha : float
        Two-sided significance level (default 0.05).
    power : float
        Wanted power (default 0.80).

    Returns
    -------
    int
        Paired items needed, rounded up.

    Examples
    --------
    >>> required_paired_n(0.20)
    626
    >>> required_paired_n(0.0)
    155
    """
    discordance, drop, alpha, power = _check_sample_size(discordance, drop, alpha, power)
    from ._distributions import norm_ppf

    psi = max(float(discordance), drop)
    z_alpha = float(norm_ppf(1 - alpha / 2))
    z_beta = float(norm_ppf(power))
    n = (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(psi - drop**2)) ** 2 / drop**2
    # Guard against float dust (e.g. 154.0000000001 -> 155).
    return math.ceil(round(n, 9))
