"""Checks of the golden set's size and thresholds: REFUSE items, zero thresholds, power."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from fractions import Fraction

from .._vocabulary import ITEM_TYPE_OF, RATE_METRICS
from . import _messages as say
from ._diagnosis import Finding
from ._table import Limits, check_named

__all__ = ["detectable_drop", "refuse_items_needed", "size_findings"]

#: Drops are searched in steps of this (the smallest detectable drop is printed to two places).
DROP_STEP = Fraction(1, 100)
#: A metric over at least this many times the items Connor's approximation says a drop of
#: ``max_detectable_drop`` needs is not searched (the exact number is a few per cent above
#: Connor's): its exact power at that drop is then far above any power asked for, and scipy
#: is not even loaded.
_PLENTY = 8


def refuse_items_needed(rate: Fraction, confidence: Fraction) -> int:
    """The fewest REFUSE items whose exact zero-violation bound lies below ``rate``.

    The one-sided Clopper-Pearson bound for 0 of n is ``1 - (1 - confidence)**(1/n)``
    (:func:`buddy_eval.stats.zero_event_upper_bound`); it is below ``rate`` exactly when
    ``(1 - rate)**n < 1 - confidence``, decided here in exact fractions.
    """
    n, kept, miss = 1, 1 - rate, 1 - confidence
    power = kept
    while power >= miss:
        n, power = n + 1, power * kept
    return n


def _power(n: int, drop: Fraction, limits: Limits) -> float:
    from ..stats import DEFAULT_DISCORDANCE, mcnemar_exact_power

    psi = max(DEFAULT_DISCORDANCE, float(drop))
    return mcnemar_exact_power(
        n, (psi - float(drop)) / 2, (psi + float(drop)) / 2, float(limits.alpha)
    )


def _connor(discordance: float, drop: Fraction, limits: Limits) -> float:
    """Connor's approximate paired sample size (as :func:`buddy_eval.stats.required_paired_n`),
    with the standard library's normal quantiles."""
    from statistics import NormalDist

    psi, d = max(discordance, float(drop)), float(drop)
    z_alpha = NormalDist().inv_cdf(1 - float(limits.alpha) / 2)
    z_beta = NormalDist().inv_cdf(float(limits.power))
    return (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(psi - d * d)) ** 2 / (d * d)


def detectable_drop(n: int, limits: Limits) -> Fraction | None:
    """The smallest drop (in hundredths) the exact McNemar test detects on ``n`` paired items.

    At the sample-size line's default discordance (:data:`buddy_eval.stats.DEFAULT_DISCORDANCE`,
    floored at the drop, as :func:`buddy_eval.stats.required_paired_n_exact` does), the
    power ``limits.power`` and the level ``limits.alpha``. A drop at or below
    ``limits.max_detectable_drop`` is not searched: that limit itself is returned when it is
    detected. None when no drop up to 1 is.
    """
    from ..stats import DEFAULT_DISCORDANCE

    limit = limits.max_detectable_drop
    if n >= _PLENTY * _connor(DEFAULT_DISCORDANCE, limit, limits):
        return limit
    if _power(n, limit, limits) >= limits.power:
        return limit
    step = (limit // DROP_STEP + 1) * DROP_STEP
    while step <= 1:
        if _power(n, step, limits) >= limits.power:
            return step
        step += DROP_STEP
    return None


def _finding(name: str, message: str) -> Finding:
    return Finding(name, check_named(name).severity, (), message)


def size_findings(
    n_answer: int, n_refuse: int, thresholds: Mapping[str, Fraction], limits: Limits
) -> Iterator[Finding]:
    """``few-refuse-items``, ``vacuous-threshold`` and ``underpowered``."""
    from ..stats import DEFAULT_DISCORDANCE

    needed = refuse_items_needed(limits.violation_rate, limits.refuse_confidence)
    if n_refuse < needed:
        from ..stats import zero_event_upper_bound

        bound = (
            zero_event_upper_bound(n_refuse, float(limits.refuse_confidence)) if n_refuse else 1.0
        )
        message = say.few_refuse_items(
            n_refuse, bound, needed, limits.violation_rate, limits.refuse_confidence
        )
        yield _finding("few-refuse-items", message)
    for metric in RATE_METRICS:
        if thresholds[metric] == 0:
            yield _finding("vacuous-threshold", say.vacuous_threshold(metric))
    for metric in RATE_METRICS:
        item_type = ITEM_TYPE_OF[metric]
        n = n_answer if item_type == "ANSWER" else n_refuse
        if n == 0:
            continue  # not measured: the metric is n/a, never judged
        drop = detectable_drop(n, limits)
        if drop is None or drop > limits.max_detectable_drop:
            discordance = max(Fraction(str(DEFAULT_DISCORDANCE)), drop or Fraction(0))
            message = say.underpowered(
                metric, n, item_type, drop, limits.max_detectable_drop, limits.power, discordance
            )
            yield _finding("underpowered", message)
