"""Repeated trials: items are the units.

With repeated trials each golden item i is run n_i times per version and
passes k_i of them; the gate's rate is the mean over items of k_i / n_i.
Trials of one item are not independent (the same prompt, the same
difficulty), so everything here treats the ITEMS as the units (clusters):
per-item rates, per-item differences, item-level variance components. The
intervals that also use how precisely the trials measure each item (the
effective size) are in :mod:`._effective`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real
from typing import Any, cast

from .._errors import InputError
from ._checks import _check_count, _check_open_unit, _z
from ._effective import BOUND_DIFF_METHOD, BOUND_RATE_METHOD
from ._proportions import newcombe_score, wilson_score


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
        values: list[Any] = list(diffs)
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
            and -1 <= cast(float, value) <= 1
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
#:
#: Examples
#: --------
#: Differences in steps of 1/5: 2000 items stay exact, 2300 do not.
#:
#: >>> from fractions import Fraction
#: >>> from buddy_eval.stats import paired_item_differences_test
#: >>> steps = [Fraction(1, 5), Fraction(-1, 5)]
#: >>> paired_item_differences_test(steps * 1000).method
#: 'exact (sign-flip enumeration)'
#: >>> paired_item_differences_test(steps * 1150).method
#: 'normal approximation, no continuity correction'
ITEM_FLIP_EXACT_MAX_CELLS = 5_000_000

#: Non-zero items up to which :func:`paired_item_differences_test` counts the
#: ``2**m`` sign flips exactly by meeting in the middle when the DP table is
#: too large (differences with large denominators, e.g. mixed trial counts
#: or floats): two halves of at most ``2**15`` sums each.
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import ITEM_FLIP_MEET_MAX, paired_item_differences_test
#: >>> floats = [0.01 * k for k in range(1, 40)]
#: >>> paired_item_differences_test(floats[:ITEM_FLIP_MEET_MAX]).method
#: 'exact (sign-flip enumeration)'
#: >>> paired_item_differences_test(floats[: ITEM_FLIP_MEET_MAX + 1]).method
#: 'normal approximation, no continuity correction'
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

    Examples
    --------
    Six items each a third better in the candidate, four unchanged:

    >>> result = paired_item_differences_test([Fraction(1, 3)] * 6 + [0] * 4)
    >>> result.statistic, result.p_value, result.n_nonzero, result.n_items
    (Fraction(1, 5), 0.03125, 6, 10)
    >>> result.method, result.rejects
    ('exact (sign-flip enumeration)', True)
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
        # Ratios of huge integers: z**2 exactly as a Fraction, then one float (never a
        # float of a huge int: with many distinct trial counts the sizes outgrow floats).
        z = math.sqrt(Fraction(observed * observed, sum(size * size for size in sizes)))
        p_value = min(1.0, math.erfc(z / math.sqrt(2)))
        method = _FLIP_NORMAL
    return ItemDifferencesResult(statistic, p_value, m, len(values), method, alpha)


def _check_rates(rates, name: str) -> list[Fraction]:
    """Per-item rates: real numbers in [0, 1], as exact Fractions (floats at their binary value)."""
    try:
        values: list[Any] = list(rates)
    except TypeError:
        raise InputError(f"{name} must be a list of rates in [0, 1], got {rates!r}") from None
    exact = []
    for index, value in enumerate(values):
        if (
            not isinstance(value, bool)
            and isinstance(value, Real)
            and (isinstance(value, (Integral, Fraction)) or math.isfinite(value))
            and 0 <= cast(float, value) <= 1
        ):
            exact.append(value if isinstance(value, Fraction) else Fraction(cast(float, value)))
            continue
        raise InputError(
            f"{name} must be rates in [0, 1] (an item's passing share of its trials), "
            f"got {value!r} at position {index}"
        )
    return exact


#: How :func:`rate_interval` computes, in words.
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import RATE_INTERVAL_METHOD
#: >>> RATE_INTERVAL_METHOD
#: 'Wilson score on the mean item rate, over the items (variance bound)'
RATE_INTERVAL_METHOD = BOUND_RATE_METHOD
#: How :func:`paired_rates_interval` computes, in words.
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import PAIRED_RATES_INTERVAL_METHOD
#: >>> PAIRED_RATES_INTERVAL_METHOD
#: "Newcombe hybrid score on the item rates' fractional 2x2 table, over the items (variance bound)"
PAIRED_RATES_INTERVAL_METHOD = BOUND_DIFF_METHOD


def rate_interval(rates, confidence: float = 0.95) -> tuple[float, float]:
    """Interval for a version's mean item rate, items as the units.

    With repeated trials the gate's rate is the mean over ``m`` items of each
    item's passing share ``r_i = k_i / n_i``. Its interval is the **Wilson
    score interval with the mean rate as the observed share and the items as
    the units** (``n = m``)::

        p = mean(r_i);  (centre -/+ half) as in wilson_interval(p * m, m)

    This is the **variance bound**: ``p (1 - p) / m`` is an upper bound of
    the variance of the mean of ``m`` rates in [0, 1] (their spread
    ``var(r_i)`` is at most ``p (1 - p)``), so the interval is valid
    whatever the trials show, but it cannot use them: items measured over
    many trials carry more information than ``m`` single outcomes, and this
    interval ignores it. It never has zero width for ``m >= 1``, even when
    every item passes every trial, and with one trial per item (rates 0 or
    1) it *is* :func:`~buddy_eval.stats.wilson_interval` over the items.
    :func:`~buddy_eval.stats.trials_rate_interval` uses the trials (it needs
    their counts); it is this interval below
    :data:`~buddy_eval.stats.EFFECTIVE_MIN_ITEMS` items.

    Parameters
    ----------
    rates : iterable of real numbers
        Per-item rates in [0, 1]: ints, Fractions (exact) or finite floats.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)`` in [0, 1]; ``(nan, nan)`` when there is no item.

    Examples
    --------
    Ten items, every trial passing: the interval is the one of 10 of 10.

    >>> low, high = rate_interval([1] * 10)
    >>> round(low, 4), high
    (0.7225, 1.0)
    """
    confidence = _check_open_unit("confidence", confidence)
    values = _check_rates(rates, "rates")
    if not values:
        return (math.nan, math.nan)
    return wilson_score(sum(values, Fraction(0)) / len(values), len(values), _z(confidence))


def paired_rates_interval(
    baseline_rates, candidate_rates, confidence: float = 0.95
) -> tuple[float, float]:
    """Interval for the mean per-item rate difference (candidate minus baseline).

    **Newcombe's hybrid score interval on the fractional 2x2 table of the
    item rates, over the items** (the variance bound): each version's mean
    rate gets :func:`rate_interval` (Wilson over the ``m`` items) and the
    two are combined as in :func:`~buddy_eval.stats.paired_diff_interval`
    (Newcombe 1998, method 10) on the table of the item rates ``x_i``
    (baseline) and ``y_i`` (candidate)::

        a = sum(min(x_i, y_i))   b = sum(max(y_i - x_i, 0))
        c = sum(max(x_i - y_i, 0))   d = m - a - b - c
        A = a d - b c  ( = m * a - sum(x) * sum(y) )
        phi = (A - m/2) / sqrt(sum(y)(m - sum(y)) sum(x)(m - sum(x)))   if A > m/2
              0                                                        if 0 <= A <= m/2
              A / sqrt(...)                                            if A < 0

    With one trial per item this is the 2x2 table itself, so the interval
    *is* the single-trial Newcombe interval. Rates that agree item by item
    give ``b = c = 0`` and phi close to 1, as identical outcomes do with one
    trial; the table's variance of the difference bounds the variance of the
    mean item difference (``(y_i - x_i)**2 <= |y_i - x_i|``). ``A`` and the
    sums are exact. The interval never has zero width for ``m >= 1`` (the
    Wilson ends always differ and ``phi < 1``), so items that all agree
    (every trial passing in both versions) give an honest interval around
    0, not ``[0, 0]``. :func:`~buddy_eval.stats.paired_trials_interval`
    also uses the trial counts.

    Parameters
    ----------
    baseline_rates, candidate_rates : iterables of real numbers
        Per-item rates in [0, 1], the same items in the same order.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)`` in [-1, 1]; ``(nan, nan)`` when there is no item.

    Examples
    --------
    Twenty-five items, every trial passing in both versions:

    >>> low, high = paired_rates_interval([1] * 25, [1] * 25)
    >>> round(low, 4), round(high, 4)
    (-0.1332, 0.1332)
    """
    confidence = _check_open_unit("confidence", confidence)
    x = _check_rates(baseline_rates, "baseline_rates")
    y = _check_rates(candidate_rates, "candidate_rates")
    if len(x) != len(y):
        raise InputError(
            f"baseline_rates and candidate_rates must pair the same items, got {len(x)} "
            f"and {len(y)} rates"
        )
    if not x:
        return (math.nan, math.nan)
    both = sum((min(a, b) for a, b in zip(x, y, strict=True)), Fraction(0))
    return newcombe_score(sum(y, Fraction(0)), sum(x, Fraction(0)), both, len(x), _z(confidence))


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
    exact_within, exact_between : Fraction or None
        ``within`` and ``between`` exactly, when computed from whole trial
        counts (what :attr:`exact_share` reads); None otherwise.

    Examples
    --------
    Three items of four trials: one flaky (2 of 4), one always passing, one
    always failing.

    >>> parts = item_variance_components([[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]])
    >>> parts.exact_within, parts.exact_between, parts.n_items, parts.trials_per_item
    (Fraction(1, 9), Fraction(2, 9), 3, 4.0)
    >>> parts.exact_share
    Fraction(1, 3)
    """

    within: float
    between: float
    n_items: int
    trials_per_item: float
    exact_within: Fraction | None = None
    exact_between: Fraction | None = None

    @property
    def exact_share(self) -> Fraction | None:
        """``within / (within + between)`` exactly, in [0, 1]; None when both are 0."""
        within = Fraction(self.within) if self.exact_within is None else self.exact_within
        between = Fraction(self.between) if self.exact_between is None else self.exact_between
        total = within + between
        return within / total if total > 0 else None

    @property
    def share(self) -> float | None:
        """:attr:`exact_share` as a float."""
        share = self.exact_share
        return None if share is None else float(share)


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
    zero = Fraction(0)
    within = sum((Fraction(count * k * (n - k), n) for (n, k), count in counted.items()), zero)
    within /= df_within
    mean_rate = sum((Fraction(count * k, n) for (n, k), count in counted.items()), zero) / m
    var_rates = sum(
        (count * (Fraction(k, n) - mean_rate) ** 2 for (n, k), count in counted.items()), zero
    ) / (m - 1)
    mean_inverse = sum((Fraction(count, n) for (n, _), count in counted.items()), zero) / m
    between = max(zero, var_rates - within * mean_inverse)
    return VarianceComponents(
        float(within), float(between), m, float(1 / mean_inverse), within, between
    )


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
#:
#: Examples
#: --------
#: All the variance within items: twice the trials do what twice the items do.
#:
#: >>> from buddy_eval.stats import SE_TIE_TOLERANCE, more_trials_or_items
#: >>> plan = more_trials_or_items(0.25, 0.0, 50, 4)
#: >>> plan.se_more_items, plan.se_more_trials, plan.recommendation
#: (0.025, 0.025, 'either')
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

    The views word it (:func:`buddy_eval.formatting.format_trial_plan`),
    rounding the standard errors by the one rounding policy.

    Examples
    --------
    >>> plan = more_trials_or_items(0.1, 0.05, 50, 4)
    >>> plan.recommendation
    'more items'
    >>> round(plan.se_current, 4), round(plan.se_more_items, 4), round(plan.se_more_trials, 4)
    (0.0387, 0.0274, 0.0354)
    """

    se_current: float
    se_more_items: float
    se_more_trials: float
    recommendation: str


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
    """Whether doubling the items or doubling the trials lowers the standard error more.

    This is the two-stage model's standard error of the mean rate, not the
    printed interval: below :data:`~buddy_eval.stats.EFFECTIVE_MIN_ITEMS`
    items that interval is the variance bound, which more trials do not
    change; :func:`~buddy_eval.stats.interval_outlook` projects the printed
    interval itself (the ``next`` line).

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
        ``se_current``, ``se_more_items``, ``se_more_trials`` and
        ``recommendation``.

    Examples
    --------
    >>> plan = more_trials_or_items(0.1, 0.05, 50, 4)
    >>> plan.recommendation, round(plan.se_more_items, 4), round(plan.se_more_trials, 4)
    ('more items', 0.0274, 0.0354)
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
    tie = se_trials - se_items <= SE_TIE_TOLERANCE * se_items
    return TrialPlan(se_current, se_items, se_trials, "either" if tie else "more items")
