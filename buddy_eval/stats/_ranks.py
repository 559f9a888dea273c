"""Exact tests on paired deltas and on many p-values at once: signed-rank, sign test, Holm."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real
from typing import cast

from .._errors import InputError
from ._checks import _check_count, _check_open_unit

#: Largest number of non-zero deltas for which :func:`signed_rank_test`
#: computes the exact null distribution; above it, the normal approximation.
#: The exact distribution costs one pass over at most ``m * (m + 1)`` doubled
#: rank sums per delta (about 130 000 integer additions at 50), so the limit
#: is about the approximation being good, not about cost.
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import SIGNED_RANK_EXACT_MAX, signed_rank_test
#: >>> signed_rank_test([1] * SIGNED_RANK_EXACT_MAX).method
#: 'exact (sign-flip enumeration)'
#: >>> signed_rank_test([1] * (SIGNED_RANK_EXACT_MAX + 1)).method
#: 'normal approximation with tie correction, no continuity correction'
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

    Examples
    --------
    Eight tasks, seven of them better in run B:

    >>> result = signed_rank_test([3, 1, 2, -1, 4, 2, 5, 1])
    >>> result.statistic, result.p_value, result.n_nonzero
    (Fraction(34, 1), 0.03125, 8)
    >>> result.method, result.rejects
    ('exact (sign-flip enumeration)', True)
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
        number = cast(float, value)
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= number <= 1:
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
