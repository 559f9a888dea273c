"""The paired-statistics core: exact tests, intervals and readiness, numbers in, numbers out.

These are the formulas both the release gate (:mod:`buddy_eval.paired`) and
the check-based task comparison (:mod:`buddy_eval.tasks.comparison`) use, so
a p-value, an interval or the readiness rule means the same thing in both:

- :class:`PairedTable`, the 2x2 table of two versions on the same items
  (both pass, fixed, regressed, both fail), and its exact difference;
- the **exact McNemar test** on the discordant pairs (:func:`mcnemar_exact`);
- the **Wilson score interval** of a rate (:func:`wilson_interval`) and
  **Newcombe's hybrid score interval** for a paired difference
  (:func:`paired_diff_interval`);
- **readiness**: :data:`MIN_PAIRED` pairs before a p-value or a difference
  interval is computed (:func:`is_ready`);
- a **sample-size hint** (:func:`required_paired_n`);
- exact one-sided **upper bounds** on a rate (:func:`exact_upper_bound`);
- the exact **Wilcoxon signed-rank** test on paired deltas
  (:func:`signed_rank_test`), the exact **sign test** (:func:`sign_test`) and
  **Holm** adjusted p-values (:func:`holm`);
- the exact **power** of the exact McNemar test and the smallest golden set
  that reaches a power (:func:`mcnemar_exact_power`,
  :func:`required_paired_n_exact`);
- **non-inferiority** (:func:`noninferiority_bound`, :func:`noninferior`);
- one **reading** of an interval and a p-value that never contradicts the
  exact test (:func:`reading`).

Everything returns unrounded numbers (ints, Fractions, floats); only the
views round, through :mod:`buddy_eval.formatting`. scipy is imported inside
the functions that need it, so importing this module costs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real

from .errors import InputError
from .vocabulary import MIN_PAIRED

__all__ = [
    "DEFAULT_DISCORDANCE",
    "MIN_PAIRED",
    "READING_CODES",
    "SIGNED_RANK_EXACT_MAX",
    "PairedTable",
    "SignedRankResult",
    "exact_upper_bound",
    "holm",
    "is_ready",
    "mcnemar_exact",
    "mcnemar_exact_power",
    "noninferior",
    "noninferiority_bound",
    "paired_diff_interval",
    "reading",
    "required_paired_n",
    "required_paired_n_exact",
    "sign_test",
    "signed_rank_test",
    "wilson_interval",
    "zero_event_upper_bound",
]


def is_ready(n_paired: int, min_paired: int = MIN_PAIRED) -> bool:
    """The readiness rule: enough pairs for a p-value and a difference interval."""
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


# --------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------


def _check_count(name: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_open_unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
        raise InputError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _z(confidence: float) -> float:
    """Two-sided standard normal quantile: 1.959964 for 95%."""
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - confidence) / 2))


# --------------------------------------------------------------------------
# Helpers: one formula each
# --------------------------------------------------------------------------


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
    z = _z(confidence)
    p = successes / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    # Clamp the rounding dust at the ends: 0/n must give exactly 0 as its low end.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
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

    Examples
    --------
    >>> round(mcnemar_exact(1, 9), 4)
    0.0215
    """
    fixed = _check_count("fixed", fixed)
    regressed = _check_count("regressed", regressed)
    if fixed + regressed == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(fixed, fixed + regressed, 0.5, alternative="two-sided").pvalue)


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
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, confidence)
    l2, u2 = wilson_interval(a + c, n, confidence)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    diff = p1 - p2
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
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

    Returns
    -------
    float
        The bound; NaN when ``n`` is 0.
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
    from scipy.stats import beta

    return float(beta.ppf(confidence, events + 1, n - events))


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
    if isinstance(discordance, bool) or not isinstance(discordance, Real):
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    if not 0 <= discordance <= 1:
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    drop = _check_open_unit("drop", drop)
    alpha = _check_open_unit("alpha", alpha)
    power = _check_open_unit("power", power)
    from scipy.stats import norm

    psi = max(float(discordance), drop)
    z_alpha = float(norm.ppf(1 - alpha / 2))
    z_beta = float(norm.ppf(power))
    n = (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(psi - drop**2)) ** 2 / drop**2
    # Guard against float dust (e.g. 154.0000000001 -> 155).
    return math.ceil(round(n, 9))


# --------------------------------------------------------------------------
# Exact tests on paired deltas and counts
# --------------------------------------------------------------------------

#: Largest number of non-zero deltas for which :func:`signed_rank_test`
#: computes the exact null distribution; above it, the normal approximation.
#: The exact distribution costs one pass over at most ``m * (m + 1)`` doubled
#: rank sums per delta (about 130 000 integer additions at 50), so the limit
#: is about the approximation being good, not about cost.
SIGNED_RANK_EXACT_MAX = 50

_ZERO_METHODS = ("wilcox", "pratt")


@dataclass(frozen=True)
class SignedRankResult:
    """The result of :func:`signed_rank_test`.

    Attributes
    ----------
    statistic : Fraction
        Sum of the ranks of the positive deltas (a multiple of 1/2 when
        there are ties).
    p_value : float
        Two-sided p-value (see :func:`signed_rank_test` for the definition).
    n_nonzero : int
        Non-zero deltas, the ones that are ranked and signed.
    method : str
        ``"exact (sign-flip enumeration)"`` or
        ``"normal approximation with tie correction, no continuity correction"``.
    zero_method : str
        ``"wilcox"`` or ``"pratt"``.
    alpha : float
        The significance level :attr:`rejects` uses.
    """

    statistic: Fraction
    p_value: float
    n_nonzero: int
    method: str
    zero_method: str
    alpha: float

    @property
    def rejects(self) -> bool:
        """The test rejects "no difference" at level :attr:`alpha`: ``p_value < alpha``."""
        return self.p_value < self.alpha


def _doubled_average_ranks(values: list) -> list[int]:
    """Twice the average rank (1-based) of each value, in input order.

    Ties are exact equality (``==``), so Fractions and ints tie exactly and
    floats tie only when they are the same number. Doubling keeps the
    half-ranks of even-sized tie groups integer.
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    doubled = [0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        # Positions start..end (0-based) hold ranks start+1..end+1; twice their mean:
        for position in range(start, end + 1):
            doubled[order[position]] = start + end + 2
        start = end + 1
    return doubled


def signed_rank_test(deltas, alpha: float = 0.05, zero_method: str = "wilcox") -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test on paired deltas, exact for small samples.

    The deltas are paired differences (candidate minus baseline, item by
    item). Zero deltas are handled by ``zero_method``:

    - ``"wilcox"`` (default): zero deltas are dropped before ranking
      (Wilcoxon 1945);
    - ``"pratt"``: the absolute values are ranked with the zeros included,
      then the zeros' ranks are dropped (Pratt 1959).

    The non-zero absolute deltas get **average ranks** for ties (ties are
    exact equality, ``==``). The statistic ``T`` is the sum of the ranks of
    the positive deltas. Under the null hypothesis (each delta's sign is
    positive or negative with probability 1/2, independently, given the
    absolute values) ``T`` has mean ``S/2``, ``S`` the sum of the ranks
    used, and the two-sided p-value is::

        p = P(|T - S/2| >= |t_obs - S/2|)

    under that sign-flip distribution, conditional on the observed ranks
    (and so on the tie pattern).

    - With at most :data:`SIGNED_RANK_EXACT_MAX` non-zero deltas the
      distribution is **exact**: all ``2**m`` sign assignments are counted
      by a dynamic program over the doubled ranks (integers even with
      half-ranks), so ``p`` is a ratio of integers, returned as the nearest
      float. ``method`` is ``"exact (sign-flip enumeration)"``.
    - Above it, the **normal approximation** ``z = (t_obs - S/2) / sqrt(V)``
      with the exact conditional variance ``V = sum(rank**2) / 4``, which
      for ``"wilcox"`` is the tie-corrected
      ``m(m+1)(2m+1)/24 - sum(t**3 - t)/48`` (``t`` the tie-group sizes);
      ``p = erfc(|z| / sqrt(2))``, **no continuity correction**. ``method``
      is ``"normal approximation with tie correction, no continuity
      correction"``.

    When every delta is zero there is nothing to rank: ``statistic`` 0,
    ``p_value`` 1.0.

    Parameters
    ----------
    deltas : iterable of real numbers
        Paired differences: ints, Fractions or finite floats.
    alpha : float
        Significance level for :attr:`SignedRankResult.rejects` (default 0.05).
    zero_method : {"wilcox", "pratt"}

    Returns
    -------
    SignedRankResult
        ``statistic``, ``p_value``, ``n_nonzero``, ``method``,
        ``zero_method``, ``alpha``; ``rejects`` is ``p_value < alpha``.

    Examples
    --------
    Five items improved by the same amount, twenty unchanged: only "all five
    up" and "all five down" are as extreme, so p = 2/32.

    >>> result = signed_rank_test([1] * 5 + [0] * 20)
    >>> result.p_value, result.n_nonzero, result.statistic
    (0.0625, 5, Fraction(15, 1))
    """
    alpha = _check_open_unit("alpha", alpha)
    if zero_method not in _ZERO_METHODS:
        raise InputError(f"zero_method must be one of {_ZERO_METHODS}, got {zero_method!r}")
    values = list(deltas)
    for index, value in enumerate(values):
        if (
            isinstance(value, bool)
            or not isinstance(value, Real)
            or (not isinstance(value, (Integral, Fraction)) and not math.isfinite(value))
        ):
            raise InputError(
                f"deltas must be finite real numbers, got {value!r} at position {index}"
            )
    if zero_method == "wilcox":
        values = [value for value in values if value != 0]
        doubled = _doubled_average_ranks([abs(value) for value in values])
    else:
        all_doubled = _doubled_average_ranks([abs(value) for value in values])
        kept = [i for i, value in enumerate(values) if value != 0]
        doubled = [all_doubled[i] for i in kept]
        values = [values[i] for i in kept]
    m = len(values)
    if m == 0:
        return SignedRankResult(
            Fraction(0), 1.0, 0, "exact (sign-flip enumeration)", zero_method, alpha
        )
    t2 = sum(rank for rank, value in zip(doubled, values, strict=True) if value > 0)
    s2 = sum(doubled)
    observed = abs(2 * t2 - s2)
    if m <= SIGNED_RANK_EXACT_MAX:
        # counts[s]: sign assignments whose doubled positive-rank sum is s.
        counts = [1]
        for rank in doubled:
            pad = [0] * rank
            counts = [a + b for a, b in zip(counts + pad, pad + counts, strict=True)]
        extreme = sum(c for s, c in enumerate(counts) if abs(2 * s - s2) >= observed)
        p_value = float(Fraction(extreme, 2**m))
        method = "exact (sign-flip enumeration)"
    else:
        z = observed / math.sqrt(sum(rank * rank for rank in doubled))
        p_value = min(1.0, math.erfc(z / math.sqrt(2)))
        method = "normal approximation with tie correction, no continuity correction"
    return SignedRankResult(Fraction(t2, 2), p_value, m, method, zero_method, alpha)


def _binomial_half_lower_tail(k: int, n: int) -> Fraction:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``, exact."""
    if k < 0:
        return Fraction(0)
    if k >= n:
        return Fraction(1)
    total, term = 1, 1
    for i in range(1, k + 1):
        term = term * (n - i + 1) // i
        total += term
    return Fraction(total, 2**n)


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test: wins against losses, ties left out.

    Under "no difference" each non-tied item is a win or a loss with
    probability 1/2, so ``wins ~ Binomial(wins + losses, 1/2)``, and::

        p = min(1, 2 * P(X <= min(wins, losses)))

    the same two-sided p-value as the exact McNemar test
    (:func:`mcnemar_exact`, fixed against regressed), computed here in exact
    integer arithmetic and returned as the nearest float.

    Parameters
    ----------
    wins, losses : int
        Items the candidate does better and worse on; ties are not counted.

    Returns
    -------
    float
        The p-value; 1.0 when there is neither a win nor a loss.

    Examples
    --------
    >>> sign_test(9, 1)
    0.021484375
    """
    wins = _check_count("wins", wins)
    losses = _check_count("losses", losses)
    n = wins + losses
    if n == 0:
        return 1.0
    return float(min(Fraction(1), 2 * _binomial_half_lower_tail(min(wins, losses), n)))


def holm(p_values) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values, in the input order.

    With the ``m`` p-values (``None`` entries left out) sorted ascending,
    ``p(1) <= ... <= p(m)``, the adjusted value of ``p(i)`` is the step-down
    (Holm 1979)::

        adjusted(i) = min(1, max over j <= i of (m - j + 1) * p(j))

    so adjusted values are monotone in the raw ones and never below them.
    Rejecting every hypothesis whose adjusted value is below ``alpha``
    controls the family-wise error rate at ``alpha``. ``None`` entries (a
    comparison without a p-value, e.g. not ready) pass through as ``None``
    and do not count in ``m``.

    Parameters
    ----------
    p_values : sequence of float or None
        Raw p-values in [0, 1].

    Returns
    -------
    list of float or None
        Adjusted p-values, same length and order as ``p_values``.

    Examples
    --------
    >>> holm([0.01, None, 0.04, 0.03])
    [0.03, None, 0.06, 0.06]
    """
    values = list(p_values)
    for index, value in enumerate(values):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value <= 1:
            raise InputError(
                f"p_values must be numbers in [0, 1] or None, got {value!r} at position {index}"
            )
    present = sorted((i for i, v in enumerate(values) if v is not None), key=values.__getitem__)
    m = len(present)
    adjusted: list[float | None] = [None] * len(values)
    running = 0.0
    for j, index in enumerate(present):
        running = max(running, float((m - j) * values[index]))
        adjusted[index] = min(1.0, running)
    return adjusted


# --------------------------------------------------------------------------
# Exact power and sample size of the exact McNemar test
# --------------------------------------------------------------------------

#: Planning discordance (share of items the two versions disagree on) for
#: :func:`required_paired_n_exact` when fewer than :data:`MIN_PAIRED` pairs
#: exist to estimate it. The items needed grow with the discordance (more
#: disagreement is more noise around the same net drop), so a high planning
#: value is the conservative one: 0.3 assumes that two versions of the same
#: assistant disagree on up to 30% of golden items, which errs toward asking
#: for more items; replace it with the observed discordance once
#: :data:`MIN_PAIRED` pairs exist.
DEFAULT_DISCORDANCE = 0.3


def _check_unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value <= 1:
        raise InputError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _mcnemar_critical_counts(d_max: int, alpha: float) -> list[int]:
    """Rejection region of the exact McNemar test for 0..d_max discordant pairs.

    Entry ``d`` is the largest ``k`` with ``2 * P(X <= k) < alpha`` for
    ``X ~ Binomial(d, 1/2)`` (the test rejects when ``min(fixed, regressed)
    <= k``), or -1 when no outcome rejects. Computed in exact integers:
    ``tail = sum(comb(d, i) for i <= k)`` rolls from ``d`` to ``d + 1`` by
    ``2 * tail - comb(d, k)``, and ``k`` never decreases with ``d``.
    """
    level = Fraction(alpha)
    num, den = level.numerator, level.denominator
    critical = [-1] * (d_max + 1)
    k, tail, term = -1, 0, 0  # tail = sum C(d, i) for i <= k; term = C(d, k)
    bound = num  # num * 2**d: the test is 2 * tail * den < bound
    for d in range(d_max + 1):
        if d > 0:
            bound <<= 1
            if k >= 0:
                tail = 2 * tail - term
                term = term * d // (d - k)  # C(d, k) from C(d - 1, k)
        while k + 1 <= d:  # Try k + 1: 2 * (tail + C(d, k + 1)) * den < num * 2**d?
            next_term = 1 if k < 0 else term * (d - k) // (k + 1)
            if 2 * (tail + next_term) * den >= bound:
                break
            k, tail, term = k + 1, tail + next_term, next_term
        critical[d] = k
    return critical


def _mcnemar_rejection_probabilities(d_max: int, p_fixed_given_discordant: float, alpha: float):
    """``P(exact McNemar rejects | d discordant pairs)`` for d = 0..d_max, as an array."""
    import numpy as np
    from scipy.stats import binom

    critical = np.array(_mcnemar_critical_counts(d_max, alpha))
    d = np.arange(d_max + 1)
    q = p_fixed_given_discordant
    # Reject when fixed <= k or regressed = d - fixed <= k (the two never overlap).
    return binom.cdf(critical, d, q) + binom.cdf(critical, d, 1 - q)


def _power_from(rejection, n: int, discordance: float) -> float:
    import numpy as np
    from scipy.stats import binom

    weights = binom.pmf(np.arange(n + 1), n, discordance)
    return float(min(1.0, weights @ rejection[: n + 1]))


def mcnemar_exact_power(n: int, p_fixed: float, p_regressed: float, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test.

    Each of ``n`` paired items is independently fixed with probability
    ``p_fixed``, regressed with probability ``p_regressed`` and concordant
    otherwise. The exact (conditional) McNemar test of :func:`mcnemar_exact`
    rejects at level ``alpha`` when its p-value is below ``alpha`` (strictly,
    as in :func:`reading`). The power is summed exactly over the number of
    discordant pairs ``D ~ Binomial(n, p_fixed + p_regressed)``::

        power = sum over d of P(D = d) * P(min(F, d - F) <= k(d))

    with ``F ~ Binomial(d, p_fixed / (p_fixed + p_regressed))`` the fixes
    among them and ``k(d)`` the largest count with
    ``2 * P(Binomial(d, 1/2) <= k(d)) < alpha``, found in exact integer
    arithmetic. The binomial probabilities are floats (scipy), so the power
    is exact up to rounding, not an approximation.

    Parameters
    ----------
    n : int
        Paired items.
    p_fixed, p_regressed : float
        Per-item probabilities of a fix and of a regression,
        ``p_fixed + p_regressed <= 1``.
    alpha : float
        Two-sided significance level (default 0.05).

    Returns
    -------
    float
        The probability that the test rejects; 0.0 when ``n`` is 0 or no
        item can be discordant.

    Examples
    --------
    >>> round(mcnemar_exact_power(100, 0.05, 0.20), 3)
    0.837
    """
    n = _check_count("n", n)
    p_fixed = _check_unit("p_fixed", p_fixed)
    p_regressed = _check_unit("p_regressed", p_regressed)
    alpha = _check_open_unit("alpha", alpha)
    discordance = p_fixed + p_regressed
    if discordance > 1 + 1e-12:
        raise InputError(
            f"p_fixed + p_regressed must be at most 1, got {p_fixed!r} + {p_regressed!r}"
        )
    discordance = min(discordance, 1.0)
    if n == 0 or discordance == 0:
        return 0.0
    rejection = _mcnemar_rejection_probabilities(n, p_fixed / discordance, alpha)
    return _power_from(rejection, n, discordance)


#: Probabilities of a discordant count below this are dropped from the
#: screening scan of :func:`required_paired_n_exact` (the mass lost over
#: 10**6 steps stays below 1e-24, far inside its 1e-9 screening margin).
_NEGLIGIBLE = 1e-30


def required_paired_n_exact(
    discordance: float, drop: float = 0.05, alpha: float = 0.05, power: float = 0.80
) -> int:
    """Smallest number of paired items whose exact McNemar power reaches ``power``.

    The exact counterpart of :func:`required_paired_n` (Connor's normal
    approximation). With ``psi = max(discordance, drop)`` (the discordance
    is floored at ``drop``, as there) the items are fixed with probability
    ``(psi - drop) / 2`` and regressed with probability ``(psi + drop) / 2``,
    so the expected difference is ``-drop``, and the power is
    :func:`mcnemar_exact_power`.

    The exact power is **not monotone in n**: it saw-tooths, because the
    rejection region of a discrete test grows in steps. The rule used here
    is **the smallest n whose power is at least ``power``**; a slightly
    larger n can fall back below the target by a little (the dips are
    small). Every n from 1 up is checked, so no smaller n reaches the
    target. Connor's n sizes the precomputation, and the scan is a cheap
    screening recursion over n (``P(D = d)`` for ``n + 1`` from ``n``, on the
    window of ``d`` where it is not negligible), confirmed by
    :func:`mcnemar_exact_power` at the candidate, so the search costs
    milliseconds for the default settings (about 0.1 s at a 0.01 drop).

    When fewer than :data:`MIN_PAIRED` pairs exist to estimate the
    discordance, pass :data:`DEFAULT_DISCORDANCE`.

    Parameters
    ----------
    discordance : float
        Share of discordant paired items, in [0, 1].
    drop : float
        Difference to detect (default 0.05).
    alpha : float
        Two-sided significance level (default 0.05).
    power : float
        Wanted power (default 0.80).

    Returns
    -------
    int
        The smallest ``n`` with ``mcnemar_exact_power(n, ...) >= power``.

    Examples
    --------
    >>> required_paired_n_exact(0.20) >= required_paired_n(0.20)
    True
    """
    if isinstance(discordance, bool) or not isinstance(discordance, Real):
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    if not 0 <= discordance <= 1:
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    drop = _check_open_unit("drop", drop)
    alpha = _check_open_unit("alpha", alpha)
    target = _check_open_unit("power", power)
    import numpy as np

    psi = max(float(discordance), drop)
    q = (psi - drop) / 2 / psi  # P(fixed | discordant); regressed: (psi + drop) / 2
    connor = required_paired_n(psi, drop, alpha, target)
    size = connor + connor // 4 + 64  # the exact n is a few % above Connor's; grown if not
    rejection = _mcnemar_rejection_probabilities(size, q, alpha)
    # P(D = d) for the current n, kept only on the window [low, low + len) where
    # it exceeds _NEGLIGIBLE: the scan costs O(sqrt(n)) per n instead of O(n).
    weights, low, n = np.ones(1), 0, 0
    while True:
        n += 1
        if n >= size:
            size *= 2
            rejection = _mcnemar_rejection_probabilities(size, q, alpha)
        grown = np.zeros(len(weights) + 1)
        grown[:-1] = (1 - psi) * weights
        grown[1:] += psi * weights
        kept = np.flatnonzero(grown > _NEGLIGIBLE)
        weights, low = grown[kept[0] : kept[-1] + 1], low + int(kept[0])
        # The recursion screens; the reported power is mcnemar_exact_power's own number.
        screened = weights @ rejection[low : low + len(weights)] >= target - 1e-9
        if screened and _power_from(rejection, n, psi) >= target:
            return n


# --------------------------------------------------------------------------
# Non-inferiority and the reading of a paired comparison
# --------------------------------------------------------------------------


def noninferiority_bound(table: PairedTable, confidence: float = 0.95) -> float:
    """One-sided lower confidence bound on the paired difference (candidate - baseline).

    The bound is the lower end of Newcombe's hybrid score interval
    (:func:`paired_diff_interval`) at two-sided level ``2 * confidence - 1``,
    i.e. ``1 - 2 * alpha`` with ``alpha = 1 - confidence``: the lower end of
    a ``(1 - 2 alpha)`` two-sided interval is a one-sided ``(1 - alpha)``
    lower bound (the usual construction for non-inferiority, e.g. the 90%
    interval for a one-sided 5% test). At the default 0.95 this is the lower
    end of the 90% interval.

    Parameters
    ----------
    table : PairedTable
    confidence : float
        One-sided confidence level, strictly between 0.5 and 1 (default 0.95).

    Returns
    -------
    float
        The lower bound, in [-1, 1]; NaN when nothing is paired.

    Examples
    --------
    >>> round(noninferiority_bound(PairedTable(59, 6, 16, 80)), 4)
    -0.1097
    """
    if not isinstance(table, PairedTable):
        raise InputError(f"table must be a PairedTable, got {table!r}")
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, Real)
        or not (0.5 < confidence < 1)
    ):
        raise InputError(
            f"confidence must be a number strictly between 0.5 and 1, got {confidence!r}"
        )
    two_sided = 1 - 2 * (1 - float(confidence))
    return table.diff_interval(two_sided)[0]


def noninferior(table: PairedTable, margin: float, confidence: float = 0.95) -> bool:
    """The candidate is shown non-inferior: the lower bound is above ``-margin``.

    Non-inferiority asks whether the candidate is at most ``margin`` worse
    than the baseline: it holds when :func:`noninferiority_bound` at
    ``confidence`` is strictly greater than ``-margin``. With nothing paired
    the bound is NaN and the answer is False (nothing shown).

    Parameters
    ----------
    table : PairedTable
    margin : float
        Largest acceptable drop, in [0, 1) (0.02: two percentage points).
    confidence : float
        One-sided confidence level (default 0.95).

    Returns
    -------
    bool

    Examples
    --------
    >>> noninferior(PairedTable(59, 6, 16, 80), margin=0.10)
    False
    >>> noninferior(PairedTable(59, 6, 16, 80), margin=0.15)
    True
    """
    if isinstance(margin, bool) or not isinstance(margin, Real) or not 0 <= margin < 1:
        raise InputError(f"margin must be a number in [0, 1), got {margin!r}")
    bound = noninferiority_bound(table, confidence)
    return not math.isnan(bound) and bound > -margin


#: The codes :func:`reading` returns.
READING_CODES = ("gain", "drop", "borderline", "unclear")


def reading(diff_ci: tuple[float, float], p_value: float, alpha: float = 0.05) -> tuple[str, str]:
    """One reading of a paired comparison that never contradicts the exact test.

    The difference interval (candidate - baseline, e.g.
    :func:`paired_diff_interval`) and the exact test's p-value (e.g.
    :func:`mcnemar_exact`) can disagree near the boundary, because the
    interval is a score interval and the test is exact. The reading only
    names a change when both agree:

    - ``("gain", "gain: the interval is above 0 and the exact test rejects")``
      when ``low > 0`` and ``p_value < alpha``;
    - ``("drop", "drop: the interval is below 0 and the exact test rejects")``
      when ``high < 0`` and ``p_value < alpha``;
    - ``("borderline", "borderline: the interval excludes 0 but the exact
      test does not reject")`` when the interval excludes 0 and
      ``p_value >= alpha``;
    - ``("borderline", "borderline: the exact test rejects but the interval
      includes 0")`` when ``p_value < alpha`` and the interval includes 0;
    - ``("unclear", "no clear change: the interval includes 0")`` otherwise.

    "Includes 0" counts an end exactly at 0. Call it once the comparison is
    ready (:func:`is_ready`): there is no reading of a missing interval.

    Parameters
    ----------
    diff_ci : tuple of float
        ``(low, high)`` interval of the difference, ``low <= high``.
    p_value : float
        Two-sided p-value of the exact test, in [0, 1].
    alpha : float
        Significance level (default 0.05); the test rejects when
        ``p_value < alpha``.

    Returns
    -------
    tuple of str
        ``(code, text)``, ``code`` one of :data:`READING_CODES`.

    Examples
    --------
    >>> reading((-0.1186, -0.0046), 0.0525)
    ('borderline', 'borderline: the interval excludes 0 but the exact test does not reject')
    """
    alpha = _check_open_unit("alpha", alpha)
    try:
        low, high = diff_ci
    except (TypeError, ValueError):
        raise InputError(f"diff_ci must be a (low, high) pair, got {diff_ci!r}") from None
    for value in (low, high):
        if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
            raise InputError(f"diff_ci must be a (low, high) pair of numbers, got {diff_ci!r}")
    if low > high:
        raise InputError(f"diff_ci must have low <= high, got {diff_ci!r}")
    if isinstance(p_value, bool) or not isinstance(p_value, Real) or not 0 <= p_value <= 1:
        raise InputError(f"p_value must be a number in [0, 1], got {p_value!r}")
    rejects = p_value < alpha
    if low > 0 or high < 0:
        if not rejects:
            return (
                "borderline",
                "borderline: the interval excludes 0 but the exact test does not reject",
            )
        if low > 0:
            return ("gain", "gain: the interval is above 0 and the exact test rejects")
        return ("drop", "drop: the interval is below 0 and the exact test rejects")
    if rejects:
        return ("borderline", "borderline: the exact test rejects but the interval includes 0")
    return ("unclear", "no clear change: the interval includes 0")


# --------------------------------------------------------------------------
# Repeated trials: items are the units
# --------------------------------------------------------------------------
#
# With repeated trials each golden item i is run n_i times per version and
# passes k_i of them; the gate's rate is the mean over items of k_i / n_i.
# Trials of one item are not independent (the same prompt, the same
# difficulty), so everything below treats the ITEMS as the units (clusters):
# per-item rates, per-item differences, item-level resampling.

__all__ += [
    "ITEM_FLIP_EXACT_MAX_CELLS",
    "ITEM_FLIP_MEET_MAX",
    "SE_TIE_TOLERANCE",
    "ItemDifferencesResult",
    "TrialPlan",
    "VarianceComponents",
    "item_variance_components",
    "mean_pass_at_k",
    "mean_pass_hat_k",
    "more_trials_or_items",
    "paired_item_differences_test",
    "paired_rate_interval",
    "pass_at_k",
    "pass_hat_k",
    "within_item_variance_share",
]


def _check_trials(n, c, k) -> tuple[int, int, int]:
    """Validate ``1 <= k <= n`` and ``0 <= c <= n`` for the pass@k estimators."""
    n = _check_count("n", n, minimum=1)
    c = _check_count("c", c)
    k = _check_count("k", k, minimum=1)
    if c > n:
        raise InputError(f"c (passing trials) must be at most n ({n}), got {c!r}")
    if k > n:
        raise InputError(f"k must be at most n ({n}), got {k!r}")
    return n, c, k


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased estimator of pass@k from ``n`` trials with ``c`` passes, exact.

    pass@k is the probability that at least one of ``k`` trials passes.
    Chen et al. (2021), "Evaluating Large Language Models Trained on Code"
    (the HumanEval paper), estimate it without bias from ``n >= k`` trials::

        pass@k = 1 - C(n - c, k) / C(n, k)

    the probability that ``k`` trials drawn without replacement from the
    ``n`` observed ones are not all failures. It is not ``1 - (1 - c/n)**k``,
    which is biased.

    Parameters
    ----------
    n : int
        Trials of the item, at least 1.
    c : int
        Passing trials, ``0 <= c <= n``.
    k : int
        Trials per attempt, ``1 <= k <= n``.

    Returns
    -------
    Fraction
        The estimate, in [0, 1]; ``c / n`` when ``k`` is 1.

    Examples
    --------
    >>> pass_at_k(5, 2, 2)
    Fraction(7, 10)
    """
    n, c, k = _check_trials(n, c, k)
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """Unbiased estimator of pass^k from ``n`` trials with ``c`` passes, exact.

    pass^k is the probability that ``k`` trials **all** pass: a consistency
    measure (Yao et al. 2024, "tau-bench"). Its unbiased estimator from
    ``n >= k`` trials is::

        pass^k = C(c, k) / C(n, k)

    the probability that ``k`` trials drawn without replacement from the
    ``n`` observed ones all pass.

    Parameters
    ----------
    n : int
        Trials of the item, at least 1.
    c : int
        Passing trials, ``0 <= c <= n``.
    k : int
        Trials per attempt, ``1 <= k <= n``.

    Returns
    -------
    Fraction
        The estimate, in [0, 1]; ``c / n`` when ``k`` is 1.

    Examples
    --------
    >>> pass_hat_k(5, 3, 2)
    Fraction(3, 10)
    """
    n, c, k = _check_trials(n, c, k)
    return Fraction(math.comb(c, k), math.comb(n, k))


def _mean_over_items(items, k, estimator) -> Fraction | None:
    k = _check_count("k", k, minimum=1)
    try:
        rows = list(items)
    except TypeError:
        raise InputError(f"items must be a list of (n, c) pairs, got {items!r}") from None
    counted: dict[tuple[int, int], int] = {}
    for index, item in enumerate(rows):
        try:
            n, c = item
        except (TypeError, ValueError):
            raise InputError(
                f"items must be (n, c) pairs, got {item!r} at position {index}"
            ) from None
        for value in (n, c):
            if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
                raise InputError(
                    f"items must be (n, c) pairs of integers with 0 <= c <= n, "
                    f"got {item!r} at position {index}"
                )
        if c > n:
            raise InputError(
                f"items must be (n, c) pairs with 0 <= c <= n, got {item!r} at position {index}"
            )
        if n >= k:
            key = (int(n), int(c))
            counted[key] = counted.get(key, 0) + 1
    used = sum(counted.values())
    if used == 0:
        return None
    # One estimator call per distinct (n, c): 10**5 items cost a pass over the list.
    total = sum(count * estimator(n, c, k) for (n, c), count in counted.items())
    return Fraction(total) / used


def mean_pass_at_k(items, k: int) -> Fraction | None:
    """Mean over items of :func:`pass_at_k`, exact.

    Items with fewer than ``k`` trials have no unbiased pass@k estimate and
    are **left out** of the mean (not counted as failures); the mean is over
    the items with ``n >= k``.

    Parameters
    ----------
    items : iterable of (int, int)
        One ``(n, c)`` pair per item: trials and passing trials,
        ``0 <= c <= n``.
    k : int
        Trials per attempt, at least 1.

    Returns
    -------
    Fraction or None
        The mean estimate; None when no item has ``k`` trials or more.

    Examples
    --------
    >>> mean_pass_at_k([(5, 2), (5, 0), (1, 1)], 2)
    Fraction(7, 20)
    """
    return _mean_over_items(items, k, pass_at_k)


def mean_pass_hat_k(items, k: int) -> Fraction | None:
    """Mean over items of :func:`pass_hat_k`, exact.

    Items with fewer than ``k`` trials are **left out** of the mean, as in
    :func:`mean_pass_at_k`.

    Parameters
    ----------
    items : iterable of (int, int)
        One ``(n, c)`` pair per item: trials and passing trials,
        ``0 <= c <= n``.
    k : int
        Trials per attempt, at least 1.

    Returns
    -------
    Fraction or None
        The mean estimate; None when no item has ``k`` trials or more.

    Examples
    --------
    >>> mean_pass_hat_k([(5, 3), (5, 5), (1, 1)], 2)
    Fraction(13, 20)
    """
    return _mean_over_items(items, k, pass_hat_k)


def _check_item_diffs(diffs) -> list:
    """Per-item rate differences: finite real numbers in [-1, 1], in a list."""
    try:
        values = list(diffs)
    except TypeError:
        raise InputError(f"diffs must be a list of numbers in [-1, 1], got {diffs!r}") from None
    for index, value in enumerate(values):
        kind = type(value)
        # Fast paths for the usual types (ABC checks cost a microsecond an item).
        if kind is Fraction or kind is int:
            if abs(value.numerator) <= value.denominator:
                continue
        elif kind is float:
            if -1.0 <= value <= 1.0:  # NaN fails the comparison
                continue
        elif (
            not isinstance(value, bool)
            and isinstance(value, Real)
            and (isinstance(value, (Integral, Fraction)) or math.isfinite(value))
            and -1 <= value <= 1
        ):
            continue
        raise InputError(
            f"diffs must be numbers in [-1, 1] (per-item rate differences), "
            f"got {value!r} at position {index}"
        )
    return values


#: Largest dynamic-program table, in cells (non-zero items times the scaled
#: total plus one), for which :func:`paired_item_differences_test` counts the
#: sign flips by a subset-sum DP: about 0.15 s at the limit. The table grows
#: with the square of the items: with rates spread evenly over five trials
#: per item (differences in steps of 1/5) about 1700 items stay exact, over
#: ten trials about 1200; versions that agree more go further.
ITEM_FLIP_EXACT_MAX_CELLS = 5_000_000

#: Non-zero items up to which :func:`paired_item_differences_test` counts the
#: ``2**m`` sign flips exactly by meeting in the middle when the DP table is
#: too large (differences with large denominators, e.g. mixed trial counts
#: or floats): two halves of at most ``2**15`` sums each.
ITEM_FLIP_MEET_MAX = 30

_FLIP_EXACT = "exact (sign-flip enumeration)"
_FLIP_NORMAL = "normal approximation, no continuity correction"


@dataclass(frozen=True)
class ItemDifferencesResult:
    """The result of :func:`paired_item_differences_test`.

    Attributes
    ----------
    statistic : Fraction or None
        Mean per-item difference (candidate minus baseline), exact for
        int and Fraction input; None when there is no item.
    p_value : float
        Two-sided sign-flip p-value.
    n_nonzero : int
        Items whose difference is not zero (the ones that are sign-flipped).
    n_items : int
        All items, zeros included.
    method : str
        ``"exact (sign-flip enumeration)"`` or
        ``"normal approximation, no continuity correction"``.
    alpha : float
        The significance level :attr:`rejects` uses.
    """

    statistic: Fraction | None
    p_value: float
    n_nonzero: int
    n_items: int
    method: str
    alpha: float

    @property
    def rejects(self) -> bool:
        """The test rejects "no difference" at level :attr:`alpha`: ``p_value < alpha``."""
        return self.p_value < self.alpha


def _ratio(value) -> tuple[int, int]:
    """``(numerator, denominator)`` of an int, Fraction or float, exact."""
    if isinstance(value, (Integral, Fraction)):
        return int(value.numerator), int(value.denominator)
    return float(value).as_integer_ratio()


def _flip_tail_dp(sizes: list[int], observed: int) -> int:
    """Sign assignments with ``|sum of signed sizes| >= observed``, by a subset-sum DP."""
    total = sum(sizes)
    counts = [1]  # counts[s]: subsets of the sizes seen so far whose sum is s
    for size in sorted(sizes):
        pad = [0] * size
        counts = [a + b for a, b in zip(counts + pad, pad + counts, strict=True)]
    # A subset summing to s (the positive signs) gives the signed sum 2s - total.
    return sum(c for s, c in enumerate(counts) if abs(2 * s - total) >= observed)


def _signed_sums(sizes: list[int]) -> list[int]:
    sums = [0]
    for size in sizes:
        sums = [s + size for s in sums] + [s - size for s in sums]
    return sums


def _flip_tail_meet(sizes: list[int], observed: int) -> int:
    """Sign assignments with ``|sum of signed sizes| >= observed``, by meeting in the middle."""
    import bisect

    if observed == 0:
        return 2 ** len(sizes)
    half = len(sizes) // 2
    left = _signed_sums(sizes[:half])
    right = sorted(_signed_sums(sizes[half:]))
    # The null distribution is symmetric: P(sum <= -t) = P(sum >= t), disjoint for t > 0.
    upper = sum(len(right) - bisect.bisect_left(right, observed - x) for x in left)
    return 2 * upper


def paired_item_differences_test(diffs, alpha: float = 0.05) -> ItemDifferencesResult:
    """Exact two-sided sign-flip permutation test on per-item rate differences.

    With repeated trials the items are the units: ``d_i = rate_candidate_i -
    rate_baseline_i``, each rate ``k_i / n_i`` over the item's trials. Under
    the null hypothesis "the two versions are exchangeable on every item"
    each ``d_i`` is as likely to be ``+|d_i|`` as ``-|d_i|``, independently
    across items (trials of one item are never split). The statistic is the
    sum of the ``d_i`` (equivalently their mean), and::

        p = P(|sum of eps_i * |d_i|| >= |sum of d_i|)

    over the ``2**m`` equally likely sign vectors ``eps`` of the ``m``
    non-zero differences (zeros flip to themselves and are left out).

    - The differences are scaled to integers by the lcm of their
      denominators (divided by the common gcd): rates ``k/n`` with a few
      trials per item give small integers. When the subset-sum table
      (``m`` times the scaled total plus one) has at most
      :data:`ITEM_FLIP_EXACT_MAX_CELLS` cells, the ``2**m`` sign vectors are
      counted by a **dynamic program** over the sums, in exact integers.
    - Otherwise, with at most :data:`ITEM_FLIP_MEET_MAX` non-zero items, all
      ``2**m`` signed sums are enumerated exactly by **meeting in the
      middle** (two halves, sorted, counted by bisection).
    - Otherwise the **normal approximation** ``z = |sum d_i| / sqrt(sum
      d_i**2)`` (the exact variance of the sign-flip sum),
      ``p = erfc(z / sqrt(2))``, no continuity correction; ``method`` says
      so. It is only reached with many items, where it is close.

    In both exact paths ``p`` is a ratio of integers returned as the nearest
    float and ``method`` is ``"exact (sign-flip enumeration)"``. Floats are
    taken at their exact binary value. When every difference is zero,
    ``p_value`` is 1.0.

    Parameters
    ----------
    diffs : iterable of real numbers
        Per-item differences in [-1, 1]: ints, Fractions (exact) or finite
        floats.
    alpha : float
        Significance level for :attr:`ItemDifferencesResult.rejects`
        (default 0.05).

    Returns
    -------
    ItemDifferencesResult
        ``statistic`` (exact mean difference), ``p_value``, ``n_nonzero``,
        ``n_items``, ``method``, ``alpha``; ``rejects`` is
        ``p_value < alpha``.

    Examples
    --------
    Six items each gained 1/3 (one more of three trials passes), four are
    unchanged: only "all six up" and "all six down" are as extreme.

    >>> result = paired_item_differences_test([Fraction(1, 3)] * 6 + [0] * 4)
    >>> result.statistic, result.p_value, result.n_nonzero, result.method
    (Fraction(1, 5), 0.03125, 6, 'exact (sign-flip enumeration)')
    """
    alpha = _check_open_unit("alpha", alpha)
    values = _check_item_diffs(diffs)
    ratios = [_ratio(value) for value in values if value != 0]
    m = len(ratios)
    if not values:
        return ItemDifferencesResult(None, 1.0, 0, 0, _FLIP_EXACT, alpha)
    if m == 0:
        return ItemDifferencesResult(Fraction(0), 1.0, 0, len(values), _FLIP_EXACT, alpha)
    scale = math.lcm(*{den for _, den in ratios})
    scaled = [num * (scale // den) for num, den in ratios]
    common = math.gcd(*scaled)
    scaled = [value // common for value in scaled]
    signed_total = sum(scaled)
    statistic = Fraction(signed_total * common, scale * len(values))
    sizes = [abs(value) for value in scaled]
    observed = abs(signed_total)
    if m * (sum(sizes) + 1) <= ITEM_FLIP_EXACT_MAX_CELLS:
        p_value = float(Fraction(_flip_tail_dp(sizes, observed), 2**m))
        method = _FLIP_EXACT
    elif m <= ITEM_FLIP_MEET_MAX:
        p_value = float(Fraction(_flip_tail_meet(sizes, observed), 2**m))
        method = _FLIP_EXACT
    else:
        # Ratios of huge integers: z from the exact sums, then one float.
        z = observed / math.sqrt(sum(size * size for size in sizes))
        p_value = min(1.0, math.erfc(z / math.sqrt(2)))
        method = _FLIP_NORMAL
    return ItemDifferencesResult(statistic, p_value, m, len(values), method, alpha)


def paired_rate_interval(diffs, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for the mean per-item difference, items as clusters.

    The method is the **paired t on per-item differences, items as
    clusters**. With repeated trials each item contributes one difference ``d_i =
    rate_candidate_i - rate_baseline_i`` however many trials it has, so the
    trials of an item (which are not independent) never count as separate
    observations. With ``m`` items, mean ``dbar`` and sample standard
    deviation ``s`` (``m - 1`` denominator)::

        dbar -/+ t[(1 + confidence) / 2, m - 1] * s / sqrt(m)

    the t quantile from :func:`scipy.stats.t.ppf`. Each item weighs the
    same, as in the gate's rate (the mean over items of ``k_i / n_i``).

    Parameters
    ----------
    diffs : iterable of real numbers
        Per-item differences in [-1, 1]: ints, Fractions or finite floats.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)``, clamped to [-1, 1]; ``(nan, nan)`` with fewer than
        2 items; ``(dbar, dbar)``, a degenerate interval, when every
        difference is the same (``s`` is 0: the items show no spread to
        estimate one from).

    Examples
    --------
    >>> low, high = paired_rate_interval([0, 0.5, 0.25, -0.25, 0.5])
    >>> round(low, 4), round(high, 4)
    (-0.2047, 0.6047)
    """
    confidence = _check_open_unit("confidence", confidence)
    values = _check_item_diffs(diffs)
    m = len(values)
    if m < 2:
        return (math.nan, math.nan)
    floats = [float(value) for value in values]
    mean = math.fsum(floats) / m
    if all(value == values[0] for value in values):
        mean = float(values[0])
        return (mean, mean)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in floats) / (m - 1))
    from scipy.stats import t

    half = float(t.ppf(1 - (1 - confidence) / 2, m - 1)) * sd / math.sqrt(m)
    return (max(-1.0, mean - half), min(1.0, mean + half))


@dataclass(frozen=True)
class VarianceComponents:
    """Within- and between-item variance of single-trial outcomes (one version).

    Attributes
    ----------
    within : float
        Variance of the trials of one item around its own rate (the pooled
        one-way ANOVA within-item mean square).
    between : float
        Variance of the items' true rates (the ANOVA estimate, floored at 0).
    n_items : int
        Items.
    trials_per_item : float
        Harmonic mean of the items' trial counts (their common count in a
        balanced design): the ``n`` of ``within / (m * n)``.
    """

    within: float
    between: float
    n_items: int
    trials_per_item: float

    @property
    def share(self) -> float | None:
        """``within / (within + between)`` in [0, 1]; None when both are 0."""
        total = self.within + self.between
        return self.within / total if total > 0 else None


def item_variance_components(trials) -> VarianceComponents | None:
    """One-way random-effects ANOVA of single-trial outcomes, items as groups.

    The two-stage model: item ``i`` has a true pass rate ``pi_i`` that varies
    across items with variance ``between``; each of its ``n_i`` trials passes
    with probability ``pi_i``, independently given ``pi_i``, with average
    variance ``within = E[pi (1 - pi)]``. With ``p_i = k_i / n_i`` the
    observed rates and ``m`` items, the moment (ANOVA) estimates are::

        within  = sum(n_i * p_i * (1 - p_i)) / sum(n_i - 1)
        between = max(0, var(p_i) - within * mean(1 / n_i))

    ``within`` is the pooled within-item mean square, the mean over items of
    ``p_i (1 - p_i) n_i / (n_i - 1)`` in a balanced design (the unbiased
    per-item variance, not the biased ``p_i (1 - p_i)``); ``var(p_i)`` is
    the sample variance (``m - 1`` denominator) of the item rates, which
    also holds the trial noise ``within / n_i``, so that part is taken out.
    Every item weighs the same, as in the gate's rate.

    Parameters
    ----------
    trials : iterable of sequences of 0/1
        One non-empty sequence of trial outcomes per item (ints 0/1 or
        bools), one version.

    Returns
    -------
    VarianceComponents or None
        None when there are fewer than 2 items or no item has 2 trials
        (``within`` or ``between`` cannot be estimated).

    Examples
    --------
    >>> parts = item_variance_components([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    >>> round(parts.within, 4), round(parts.between, 4), parts.trials_per_item
    (0.1111, 0.2222, 4.0)
    """
    try:
        rows = list(trials)
    except TypeError:
        raise InputError(f"trials must be a list of 0/1 lists, got {trials!r}") from None
    counted: dict[tuple[int, int], int] = {}
    for index, item in enumerate(rows):
        try:
            outcomes = set(item)
            n = len(item)
        except TypeError:
            raise InputError(
                f"trials must hold one list of 0/1 outcomes per item, got {item!r} "
                f"at position {index}"
            ) from None
        if n == 0 or not outcomes <= {0, 1}:
            raise InputError(
                f"trials must hold one non-empty list of 0/1 outcomes per item, "
                f"got {item!r} at position {index}"
            )
        key = (n, int(sum(item)))
        counted[key] = counted.get(key, 0) + 1
    m = sum(counted.values())
    df_within = sum(count * (n - 1) for (n, _), count in counted.items())
    if m < 2 or df_within == 0:
        return None
    # Exact in Fractions over the distinct (n, k) pairs, one float at the end.
    within = sum(Fraction(count * k * (n - k), n) for (n, k), count in counted.items()) / df_within
    mean_rate = sum(Fraction(count * k, n) for (n, k), count in counted.items()) / m
    var_rates = sum(
        count * (Fraction(k, n) - mean_rate) ** 2 for (n, k), count in counted.items()
    ) / (m - 1)
    mean_inverse = sum(Fraction(count, n) for (n, _), count in counted.items()) / m
    between = max(Fraction(0), var_rates - within * mean_inverse)
    return VarianceComponents(float(within), float(between), m, float(1 / mean_inverse))


def within_item_variance_share(trials) -> float | None:
    """Share of the variance of single-trial outcomes that is within items.

    ``within / (within + between)`` from :func:`item_variance_components`
    (one-way ANOVA, one version): one minus the intraclass correlation. Near
    1, an item's trials disagree as much as different items do (more trials
    per item help); near 0, items differ but each is consistent (only more
    items help).

    Parameters
    ----------
    trials : iterable of sequences of 0/1
        One non-empty sequence of trial outcomes per item.

    Returns
    -------
    float or None
        The share, in [0, 1]; None when it is undefined (fewer than 2
        items, no item with 2 trials, or no variance at all).

    Examples
    --------
    >>> round(within_item_variance_share([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]), 4)
    0.3333
    """
    parts = item_variance_components(trials)
    return None if parts is None else parts.share


#: Relative gap under which :func:`more_trials_or_items` calls doubling the
#: items and doubling the trials equally good: 1% of the standard error.
SE_TIE_TOLERANCE = 0.01


@dataclass(frozen=True)
class TrialPlan:
    """The result of :func:`more_trials_or_items`.

    Attributes
    ----------
    se_current : float
        Standard error of the mean rate now.
    se_more_items : float
        Projected standard error with twice the items, same trials per item.
    se_more_trials : float
        Projected standard error with the same items, twice the trials.
    recommendation : str
        ``"more items"`` or ``"either"``.
    text : str
        One line for a report.
    """

    se_current: float
    se_more_items: float
    se_more_trials: float
    recommendation: str
    text: str


def _check_variance(name: str, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or value < 0
    ):
        raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def more_trials_or_items(within_var, between_var, n_items, n_trials) -> TrialPlan:
    """Whether doubling the items or doubling the trials narrows the interval more.

    Under the two-stage model of :func:`item_variance_components` the
    variance of the mean rate over ``m`` items with ``n`` trials each is::

        var(mean) = between / m + within / (m * n)

    Doubling the items gives ``between / (2m) + within / (2mn)`` (half the
    variance); doubling the trials gives ``between / m + within / (2mn)``
    (only the within part halves). Both cost the same number of runs,
    ``2mn``. Doubling the items is never worse, so the answer is
    ``"more items"``, unless the two standard errors are within
    :data:`SE_TIE_TOLERANCE` of each other (``between`` is negligible next
    to ``within / n``): then ``"either"``, and more trials of the items
    already labelled do as well. "More trials" alone is never the better
    choice at the same number of runs; it is the choice only when no new
    item can be had.

    Parameters
    ----------
    within_var, between_var : float
        Variance components, >= 0 (e.g. from
        :func:`item_variance_components`).
    n_items : int
        Items ``m``, at least 1.
    n_trials : float
        Trials per item ``n``, at least 1 (the harmonic mean for unequal
        counts, :attr:`VarianceComponents.trials_per_item`).

    Returns
    -------
    TrialPlan
        ``se_current``, ``se_more_items``, ``se_more_trials``,
        ``recommendation`` and a one-line ``text``.

    Examples
    --------
    >>> plan = more_trials_or_items(0.1, 0.05, 50, 4)
    >>> plan.recommendation
    'more items'
    >>> plan.text
    'doubling items narrows the interval more than doubling trials (SE 0.027 vs 0.035)'
    """
    within = _check_variance("within_var", within_var)
    between = _check_variance("between_var", between_var)
    m = _check_count("n_items", n_items, minimum=1)
    if (
        isinstance(n_trials, bool)
        or not isinstance(n_trials, Real)
        or not math.isfinite(n_trials)
        or n_trials < 1
    ):
        raise InputError(f"n_trials must be a number >= 1, got {n_trials!r}")
    n = float(n_trials)
    se_current = math.sqrt(between / m + within / (m * n))
    se_items = math.sqrt(between / (2 * m) + within / (2 * m * n))
    se_trials = math.sqrt(between / m + within / (2 * m * n))
    if se_trials - se_items <= SE_TIE_TOLERANCE * se_items:
        recommendation = "either"
        text = (
            f"doubling items or trials narrows the interval about as much "
            f"(SE {se_items:.3f} vs {se_trials:.3f})"
        )
    else:
        recommendation = "more items"
        text = (
            f"doubling items narrows the interval more than doubling trials "
            f"(SE {se_items:.3f} vs {se_trials:.3f})"
        )
    return TrialPlan(se_current, se_items, se_trials, recommendation, text)
