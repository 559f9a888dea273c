"""Non-inferiority and the one reading of an interval beside an exact test."""

from __future__ import annotations

import math
from numbers import Real

from .._errors import InputError
from ._checks import _check_open_unit
from ._proportions import PairedTable


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
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import READING_CODES, reading
#: >>> READING_CODES
#: ('gain', 'drop', 'borderline', 'unclear')
#: >>> reading((-0.1186, -0.0046), 0.0525)[0]
#: 'borderline'
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
        if type(value) is float and not math.isnan(value):  # the common case, no ABC check
            continue
        if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
            raise InputError(f"diff_ci must be a (low, high) pair of numbers, got {diff_ci!r}")
    if low > high:
        raise InputError(f"diff_ci must have low <= high, got {diff_ci!r}")
    plain = type(p_value) is float and 0 <= p_value <= 1  # the common case, no ABC check
    if not plain and (
        isinstance(p_value, bool) or not isinstance(p_value, Real) or not 0 <= p_value <= 1
    ):
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
