"""Repeated-trials intervals that use what the trials show, valid where samples are small.

Each item ``i`` of ``m`` has ``n_i`` trials of which ``k_i`` pass; its rate is
``x_i = k_i / n_i`` (baseline) or ``y_i`` (candidate), and a version's rate
is the mean of its item rates. The items are the units (the trials of one item
are not independent), but an item with many trials is measured more
precisely than a single pass or fail: the spread of the item rates shows how
precisely. The intervals here use that spread, by the **effective sample
size** of Korn & Graubard (1998), and fall back to the variance bound
``p(1-p)/m`` wherever the spread cannot be trusted.

**One version** (:func:`trials_rate_interval`): the Wilson score interval of
the mean rate ``p`` over ``n`` units, with::

    s2    = sample variance of the item rates (m - 1 in the denominator)
    n_eff = m * p * (1 - p) / s2 * (z / t[m-1])**2
    n     = min(max(n_eff, m), total trials)

``s2 / m`` is the variance of the mean rate estimated from the items, so the
Wilson interval at ``n_eff`` has that variance; the factor ``(z / t)**2``
(``t`` the same two-sided quantile of Student's t with ``m - 1`` degrees of
freedom) widens it for the uncertainty of ``s2``, as Korn & Graubard do. The
interval is never wider than the bound ``n = m`` (``p(1-p)`` bounds the
variance of any rate in [0, 1]) and never narrower than ``total trials``
independent outcomes would give.

**The paired difference** (:func:`paired_trials_interval`): Newcombe's hybrid
score interval (method 10) on the **fractional 2x2 table** of the item rates::

    a = sum(min(x_i, y_i))          both pass
    b = sum(max(y_i - x_i, 0))      fixed
    c = sum(max(x_i - y_i, 0))      regressed
    d = sum(min(1 - x_i, 1 - y_i))  both fail

With one trial per item this is the paired 2x2 table itself. Its phi
(Newcombe's, from ``ad - bc`` and the margins) measures how far the two
versions' rates move together: the correlation of the outcomes with one trial,
1 less Newcombe's continuity term when the rates agree item by item. Its
variance of the difference,
``u / m`` with ``u = (b + c) / m - ((b - c) / m)**2``, bounds the variance of
the mean item difference (``(y_i - x_i)**2 <= |y_i - x_i|``), as ``p(1-p)/m``
does for one version. It is computed at::

    s2_d  = sample variance of the item differences y_i - x_i
    n_eff = m * u / s2_d * (z / t[m-1])**2
    n     = min(max(n_eff, m), the smaller total of trials)

so that its variance is the one estimated from the item differences.

**Degenerate cases**, all at ``n = m`` (the variance bound, the single-trial
formulas): fewer than :data:`EFFECTIVE_MIN_ITEMS` items; fewer than
:data:`EFFECTIVE_MIN_COUNT` items' worth of passes or of failures
(``m * min(p, 1 - p)``, the smaller over both versions for the difference); a
mean rate of 0 or 1; no spread (``s2`` or ``s2_d`` is 0: every item has the same
rate, or the same difference). No interval has zero width: Wilson's ends always
differ, and the fractional table's phi is below 1. The thresholds come from the
simulation of ``benchmarks/trials_coverage.py`` (docs/statistics.md): with
fewer items, or a handful of failing items, the estimated spread undercovers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from numbers import Integral
from typing import Any

from .._errors import InputError
from .._phrases import NEWCOMBE_HYBRID, WILSON
from ._checks import _check_open_unit, _z
from ._proportions import newcombe_score, wilson_score

__all__ = [
    "BOUND_DIFF_METHOD",
    "BOUND_RATE_METHOD",
    "EFFECTIVE_DIFF_METHOD",
    "EFFECTIVE_MIN_COUNT",
    "EFFECTIVE_MIN_ITEMS",
    "EFFECTIVE_RATE_METHOD",
    "Interval",
    "PairedSums",
    "RateSums",
    "paired_interval_from_sums",
    "paired_trials_interval",
    "rate_interval_from_sums",
    "trials_rate_interval",
]

#: Items from which the repeated-trials intervals use the spread of the item
#: rates (the effective size); below it they keep the variance bound
#: ``p(1-p)/m``: with few items the spread is too uncertain (see
#: ``benchmarks/trials_coverage.py`` for the simulation behind the figure).
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import EFFECTIVE_MIN_ITEMS, trials_rate_interval
#: >>> EFFECTIVE_MIN_ITEMS
#: 50
#: >>> trials_rate_interval([(5, 4)] * 20 + [(5, 1)] * 20).method         # 40 items
#: 'Wilson score on the mean item rate, over the items (variance bound)'
#: >>> trials_rate_interval([(5, 4)] * 30 + [(5, 1)] * 30).method         # 60 items
#: 'Wilson score on the mean item rate, at the Korn-Graubard effective size'
EFFECTIVE_MIN_ITEMS = 50

#: Least ``m * min(p, 1 - p)`` (the items' worth of passes or of failures, whichever
#: is fewer) for which a version's interval uses the effective size: with fewer the
#: spread of the item rates rests on a handful of items and undercovers, as for
#: Korn and Graubard's small expected counts.
#:
#: Examples
#: --------
#: Sixty items, two of them with failures: 60 x (4/300) = 0.8 items' worth of
#: failures, too few for the spread of the item rates.
#:
#: >>> from buddy_eval.stats import EFFECTIVE_MIN_COUNT, trials_rate_interval
#: >>> EFFECTIVE_MIN_COUNT
#: 5
#: >>> trials_rate_interval([(5, 5)] * 58 + [(5, 3)] * 2).method
#: 'Wilson score on the mean item rate, over the items (variance bound)'
EFFECTIVE_MIN_COUNT = 5

_RATE = f"{WILSON} score on the mean item rate"
_DIFF = f"{NEWCOMBE_HYBRID} on the item rates' fractional 2x2 table"

#: The method names the intervals carry (:attr:`Interval.method`): a version's
#: interval over the items, with the variance bound (few items, or no spread).
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import BOUND_RATE_METHOD, trials_rate_interval
#: >>> trials_rate_interval([(5, 4)] * 20 + [(5, 1)] * 20).method == BOUND_RATE_METHOD
#: True
BOUND_RATE_METHOD = f"{_RATE}, over the items (variance bound)"
#: A version's interval at the Korn-Graubard effective size (:attr:`Interval.method`).
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import EFFECTIVE_RATE_METHOD, trials_rate_interval
#: >>> trials_rate_interval([(5, 4)] * 60 + [(5, 1)] * 60).method == EFFECTIVE_RATE_METHOD
#: True
EFFECTIVE_RATE_METHOD = f"{_RATE}, at the Korn-Graubard effective size"
#: A difference interval over the items, with the variance bound (:attr:`Interval.method`).
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import BOUND_DIFF_METHOD, paired_trials_interval
#: >>> paired_trials_interval([(5, 4, 5, 4)] * 20).method == BOUND_DIFF_METHOD
#: True
BOUND_DIFF_METHOD = f"{_DIFF}, over the items (variance bound)"
#: A difference interval at the Korn-Graubard effective size of the item differences
#: (:attr:`Interval.method`).
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import EFFECTIVE_DIFF_METHOD, paired_trials_interval
#: >>> items = [(5, 4, 5, 5), (5, 1, 5, 2), (5, 3, 5, 2), (5, 2, 5, 4)] * 25
#: >>> paired_trials_interval(items).method == EFFECTIVE_DIFF_METHOD
#: True
EFFECTIVE_DIFF_METHOD = f"{_DIFF}, at the Korn-Graubard effective size"


class Interval(tuple):
    """A ``(low, high)`` pair that names the method that produced it.

    It unpacks and compares as the plain tuple ``(low, high)``; the extra
    attributes say how it was computed.

    Attributes
    ----------
    method : str
        The method, in words (one of the ``*_METHOD`` constants of
        :mod:`buddy_eval.stats`).
    effective_n : float or None
        The number of units the Wilson intervals were computed over (the
        number of items when the variance bound is used); None when there is
        no interval.
    low, high : float
        The ends (``interval[0]``, ``interval[1]``).
    width : float
        ``high - low``.

    Examples
    --------
    >>> ci = trials_rate_interval([(5, 4)] * 60 + [(5, 1)] * 60)
    >>> low, high = ci
    >>> round(low, 3), round(high, 3), round(ci.width, 3)
    (0.446, 0.554, 0.108)
    >>> ci.method
    'Wilson score on the mean item rate, at the Korn-Graubard effective size'
    >>> round(ci.effective_n, 1)
    323.9
    """

    method: str
    effective_n: float | None

    def __new__(cls, low, high=None, method: str = "", effective_n: float | None = None):
        if high is None:  # Interval((low, high)): what tuple copies (dataclasses.asdict) call
            low, high = low
        self = super().__new__(cls, (low, high))
        self.method = method
        self.effective_n = effective_n
        return self

    def __getnewargs__(self):
        return (self[0], self[1], self.method, self.effective_n)

    @property
    def low(self) -> float:
        """The lower end, ``interval[0]``."""
        return self[0]

    @property
    def high(self) -> float:
        """The upper end, ``interval[1]``."""
        return self[1]

    @property
    def width(self) -> float:
        """``high - low``."""
        return self[1] - self[0]


@lru_cache(maxsize=4096)
def _kg_factor(m: int, confidence: float) -> float:
    """Korn and Graubard's degrees-of-freedom factor ``(z / t[m-1])**2`` at a two-sided level."""
    from ._distributions import t_ppf

    z = _z(confidence)
    return (z / float(t_ppf(1 - (1 - confidence) / 2, m - 1))) ** 2


@lru_cache(maxsize=64)
def _z_cached(confidence: float) -> float:
    return _z(confidence)


def effective_size(
    m: int, trials, unit_variance, spread, confidence: float, count=None
) -> int | float:
    """The ``n`` of the Wilson or Newcombe interval: ``m`` or the clipped effective size.

    ``unit_variance`` is ``p(1-p)`` (one version) or the fractional table's
    ``u`` (the difference); ``spread`` the sample variance of the item rates
    or differences; ``count`` the fewer of the passes and the failures, in
    items' worth (``m * min(p, 1 - p)``, the smaller over the two versions for
    a difference). ``m`` (an int) in every degenerate case.
    """
    if m < EFFECTIVE_MIN_ITEMS or unit_variance <= 0 or spread <= 0:
        return m
    if count is not None and count < EFFECTIVE_MIN_COUNT:
        return m
    n_eff = m * float(unit_variance) / float(spread) * _kg_factor(m, confidence)
    if n_eff <= m:
        return m
    return min(n_eff, float(trials))


@dataclass(frozen=True)
class RateSums:
    """Sufficient statistics of one version's item rates.

    Attributes
    ----------
    m : int
        Items.
    trials : int
        Trials over those items.
    total : Fraction or float
        Sum of the item rates.
    squares : Fraction or float
        Sum of the squared item rates.
    """

    m: int
    trials: int
    total: Any
    squares: Any

    @property
    def mean(self):
        return self.total / self.m

    @property
    def spread(self):
        """Sample variance of the item rates (0 for one item)."""
        if self.m < 2:
            return 0
        return (self.squares - self.total * self.total / self.m) / (self.m - 1)


@dataclass(frozen=True)
class PairedSums:
    """Sufficient statistics of the item rates of two versions on the same items.

    Attributes
    ----------
    m : int
        Items with trials in both versions.
    trials : int
        The smaller of the two versions' totals of trials over them.
    baseline, candidate : Fraction or float
        Sums of the baseline's and the candidate's item rates.
    both : Fraction or float
        ``sum(min(x_i, y_i))``: the fractional table's "both pass".
    diff_squares : Fraction or float
        ``sum((y_i - x_i)**2)``.
    """

    m: int
    trials: int
    baseline: Any
    candidate: Any
    both: Any
    diff_squares: Any

    @property
    def unit_variance(self):
        """``u = (b + c) / m - ((b - c) / m)**2`` of the fractional 2x2 table."""
        moved = self.baseline + self.candidate - 2 * self.both  # b + c = sum |y - x|
        net = self.candidate - self.baseline  # b - c
        return moved / self.m - (net / self.m) ** 2

    @property
    def spread(self):
        """Sample variance of the item differences (0 for one item)."""
        if self.m < 2:
            return 0
        net = self.candidate - self.baseline
        return (self.diff_squares - net * net / self.m) / (self.m - 1)


def rate_interval_from_sums(sums: RateSums, confidence: float = 0.95) -> Interval:
    """:func:`trials_rate_interval` from the sufficient statistics (floats allowed).

    Exact Fractions in give the same figures as the item lists; the
    simulations of ``benchmarks/trials_coverage.py`` pass floats.
    """
    if sums.m == 0:
        return Interval(math.nan, math.nan, BOUND_RATE_METHOD)
    p = sums.mean
    unit = p * (1 - p)
    count = min(sums.total, sums.m - sums.total)
    n = effective_size(sums.m, sums.trials, unit, sums.spread, confidence, count)
    method = BOUND_RATE_METHOD if n == sums.m else EFFECTIVE_RATE_METHOD
    if not isinstance(p, Fraction):
        p = Fraction(float(p))
    low, high = wilson_score(p, n, _z_cached(confidence))  # type: ignore[arg-type]
    return Interval(low, high, method, n)


def paired_interval_from_sums(sums: PairedSums, confidence: float = 0.95) -> Interval:
    """:func:`paired_trials_interval` from the sufficient statistics (floats allowed)."""
    m = sums.m
    if m == 0:
        return Interval(math.nan, math.nan, BOUND_DIFF_METHOD)
    z = _z_cached(confidence)
    count = min(sums.baseline, m - sums.baseline, sums.candidate, m - sums.candidate)
    n = effective_size(m, sums.trials, sums.unit_variance, sums.spread, confidence, count)
    if n == m:
        exact: list[Fraction | int] = [
            Fraction(v) if isinstance(v, (Integral, Fraction)) else Fraction(float(v))
            for v in (sums.candidate, sums.baseline, sums.both)
        ]
        low, high = newcombe_score(exact[0], exact[1], exact[2], m, z)
        return Interval(low, high, BOUND_DIFF_METHOD, m)
    # The same table scaled to n units: shares stay, Wilson and the continuity term use n.
    p1, p2 = float(sums.candidate) / m, float(sums.baseline) / m
    low, high = _newcombe_shares(p1, p2, float(sums.both) / m, n, z)
    return Interval(low, high, EFFECTIVE_DIFF_METHOD, n)


def _newcombe_shares(p1: float, p2: float, both: float, n: float, z: float) -> tuple[float, float]:
    """Newcombe's method 10 on a 2x2 table given as shares (a = both) over ``n`` units."""
    l1, u1 = wilson_score(Fraction(p1), n, z)  # type: ignore[arg-type]
    l2, u2 = wilson_score(Fraction(p2), n, z)  # type: ignore[arg-type]
    margins = p1 * (1 - p1) * p2 * (1 - p2)
    cross = both - p1 * p2  # (ad - bc) / n**2
    half = 1 / (2 * n)
    if margins <= 0 or 0 <= cross <= half:
        phi = 0.0
    elif cross > half:
        phi = (cross - half) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    phi = min(phi, 1.0)
    diff = p1 - p2
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return (max(-1.0, diff - math.sqrt(max(down, 0.0))), min(1.0, diff + math.sqrt(max(up, 0.0))))


def _check_counts(items, width: int, name: str) -> dict[tuple[int, ...], int]:
    """Distinct ``(n, k, ...)`` rows with their multiplicity; every ``n >= 1``, ``0 <= k <= n``."""
    try:
        rows = list(items)
    except TypeError:
        raise InputError(f"{name} must be a list of trial counts, got {items!r}") from None
    counted: dict[tuple[int, ...], int] = {}
    shape = "(n, k)" if width == 2 else "(n_baseline, k_baseline, n_candidate, k_candidate)"
    for index, row in enumerate(rows):
        try:
            values = tuple(row)
        except TypeError:
            values = ()
        ok = len(values) == width and all(
            not isinstance(v, bool) and isinstance(v, Integral) for v in values
        )
        if ok:
            values = tuple(int(v) for v in values)
            ok = all(values[j] >= 1 and 0 <= values[j + 1] <= values[j] for j in range(0, width, 2))
        if not ok:
            raise InputError(
                f"{name} must be {shape} rows of integers with n >= 1 and 0 <= k <= n, "
                f"got {row!r} at position {index}"
            )
        counted[values] = counted.get(values, 0) + 1
    return counted


def rate_sums(counted: dict[tuple[int, ...], int]) -> RateSums:
    """:class:`RateSums` of distinct ``(n, k)`` rows and their multiplicities, exact."""
    zero = Fraction(0)
    total = sum((Fraction(c * k, n) for (n, k), c in counted.items()), zero)
    squares = sum((Fraction(c * k * k, n * n) for (n, k), c in counted.items()), zero)
    m = sum(counted.values())
    trials = sum(c * n for (n, _), c in counted.items())
    return RateSums(m, trials, total, squares)


def paired_sums(counted: dict[tuple[int, ...], int]) -> PairedSums:
    """:class:`PairedSums` of distinct ``(n_b, k_b, n_c, k_c)`` rows and multiplicities, exact."""
    zero = Fraction(0)
    base = cand = both = squares = zero
    m = trials_b = trials_c = 0
    for (nb, kb, nc, kc), c in counted.items():
        x, y = Fraction(kb, nb), Fraction(kc, nc)
        base += c * x
        cand += c * y
        both += c * min(x, y)
        squares += c * (y - x) ** 2
        m += c
        trials_b += c * nb
        trials_c += c * nc
    return PairedSums(m, min(trials_b, trials_c), base, cand, both, squares)


def trials_rate_interval(items, confidence: float = 0.95) -> Interval:
    """Interval for a version's mean item rate from each item's trials.

    The Wilson score interval of the mean rate at the Korn-Graubard
    effective size (see the module notes): ``n = min(max(n_eff, m), total
    trials)`` with ``n_eff = m p(1-p) / s2 * (z / t[m-1])**2``, ``s2`` the
    sample variance of the item rates. With fewer than
    :data:`EFFECTIVE_MIN_ITEMS` items, a mean of 0 or 1, or no spread
    between the items, ``n = m``: the variance bound ``p(1-p)/m``, which with
    one trial per item *is* :func:`~buddy_eval.stats.wilson_interval` over
    the items.

    Parameters
    ----------
    items : iterable of (int, int)
        One ``(n, k)`` pair per item: trials (at least 1) and passing trials.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    Interval
        ``(low, high)`` in [0, 1] with ``method`` and ``effective_n``;
        ``(nan, nan)`` when there is no item.

    Examples
    --------
    Sixty items passing 4 of 5 trials, sixty passing 1 of 5: the spread
    between items is what the trials show, and the interval is narrower
    than the bound over 120 items.

    >>> ci = trials_rate_interval([(5, 4)] * 60 + [(5, 1)] * 60)
    >>> round(ci.low, 3), round(ci.high, 3), round(ci.effective_n, 1), ci.method.split(",")[1]
    (0.446, 0.554, 323.9, ' at the Korn-Graubard effective size')
    """
    confidence = _check_open_unit("confidence", confidence)
    return rate_interval_from_sums(rate_sums(_check_counts(items, 2, "items")), confidence)


def paired_trials_interval(items, confidence: float = 0.95) -> Interval:
    """Interval for the mean per-item rate difference (candidate minus baseline).

    Newcombe's hybrid score interval on the fractional 2x2 table of the item
    rates at the Korn-Graubard effective size of the item differences (see
    the module notes). With one trial per item, or fewer than
    :data:`EFFECTIVE_MIN_ITEMS` items, or no spread between the item
    differences, it is computed over the ``m`` items, where with one trial
    per item it *is* :func:`~buddy_eval.stats.paired_diff_interval`.

    Parameters
    ----------
    items : iterable of (int, int, int, int)
        One ``(n_baseline, k_baseline, n_candidate, k_candidate)`` row per
        item with trials in both versions.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    Interval
        ``(low, high)`` in [-1, 1] with ``method`` and ``effective_n``;
        ``(nan, nan)`` when there is no item.

    Examples
    --------
    400 items passing 4 of 5 trials in both versions: the items agree
    exactly, and the interval is the one of 320 items passing and 80 failing
    in both versions with one trial each.

    >>> ci = paired_trials_interval([(5, 4, 5, 4)] * 400)
    >>> round(ci.low, 4), round(ci.high, 4)
    (-0.0075, 0.0075)
    """
    confidence = _check_open_unit("confidence", confidence)
    return paired_interval_from_sums(paired_sums(_check_counts(items, 4, "items")), confidence)


@dataclass(frozen=True)
class IntervalOutlook:
    """What twice the items or twice the trials would do to a version's interval.

    Attributes
    ----------
    now : Interval
        The interval of the mean item rate (:func:`trials_rate_interval`).
    more_items : Interval
        The same at twice the items with the same trials per item, the mean
        rate and the spread of the item rates unchanged.
    more_trials : Interval or None
        The same items with twice the trials each: the spread of the item
        rates loses half its within-item part (one-way ANOVA,
        ``between + within * mean(1/n) / 2``). None when no item has two
        trials (the within-item variance cannot be estimated).

    Examples
    --------
    >>> plan = interval_outlook([(5, 4)] * 20 + [(5, 1)] * 20)
    >>> round(plan.now.low, 3), round(plan.now.high, 3)
    (0.352, 0.648)
    >>> round(plan.more_items.width, 3), round(plan.more_trials.width, 3)
    (0.134, 0.296)
    """

    now: Interval
    more_items: Interval
    more_trials: Interval | None


def _interval_at(m: int, trials, p: Fraction, spread, confidence: float) -> Interval:
    count = min(p, 1 - p) * m
    n = effective_size(m, trials, p * (1 - p), spread, confidence, count)
    method = BOUND_RATE_METHOD if n == m else EFFECTIVE_RATE_METHOD
    low, high = wilson_score(p, n, _z_cached(confidence))  # type: ignore[arg-type]
    return Interval(low, high, method, n)


def interval_outlook(items, confidence: float = 0.95) -> IntervalOutlook | None:
    """The interval of a version's mean item rate now, with twice the items, with twice the trials.

    The projections keep the mean rate and apply the rules of
    :func:`trials_rate_interval` to the projected design, so they say what
    the printed interval would become: below
    :data:`EFFECTIVE_MIN_ITEMS` items (or with no spread between the items)
    the interval is the variance bound over the items, which more trials do
    not change; twice the items always narrow it.

    Parameters
    ----------
    items : iterable of (int, int)
        One ``(n, k)`` pair per item: trials and passing trials.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    IntervalOutlook or None
        None when there is no item.

    Examples
    --------
    Forty items: the variance bound, which twice the items (80, past the rule)
    narrow and twice the trials leave as it is.

    >>> plan = interval_outlook([(5, 4)] * 20 + [(5, 1)] * 20)
    >>> [round(ci.width, 3) for ci in (plan.now, plan.more_items, plan.more_trials)]
    [0.296, 0.134, 0.296]
    """
    confidence = _check_open_unit("confidence", confidence)
    counted = _check_counts(items, 2, "items")
    return outlook_from_counts(counted, confidence) if counted else None


def outlook_from_counts(counted: dict[tuple[int, ...], int], confidence: float) -> IntervalOutlook:
    """:func:`interval_outlook` of distinct ``(n, k)`` rows and their multiplicities."""
    sums = rate_sums(counted)
    m, p, spread = sums.m, sums.mean, sums.spread
    now = _interval_at(m, sums.trials, p, spread, confidence)
    more_items = _interval_at(2 * m, 2 * sums.trials, p, spread, confidence)
    df_within = sum(c * (n - 1) for (n, _), c in counted.items())
    more_trials = None
    if df_within:
        zero = Fraction(0)
        within = sum((Fraction(c * k * (n - k), n) for (n, k), c in counted.items()), zero)
        within /= df_within
        noise = within * sum((Fraction(c, n) for (n, _), c in counted.items()), zero) / m
        between = max(zero, spread - noise)
        more_trials = _interval_at(m, 2 * sums.trials, p, between + noise / 2, confidence)
    return IntervalOutlook(now, more_items, more_trials)
