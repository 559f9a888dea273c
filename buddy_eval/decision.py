"""The release decision: the candidate against the thresholds and the baseline."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .scoring import RATE_METRICS, Counts
from .thresholds import Thresholds, decimal_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Decision", "REASON_ORDER", "decide", "exact_values"]

REASON_ORDER = (
    "correctness below threshold",
    "citation below threshold",
    "refusal below threshold",
    "integrity violations",
    "regression in correctness",
    "regression in citation",
    "regression in refusal",
)


@dataclass(frozen=True)
class Decision:
    """Whether the candidate may be released, and every reason it may not.

    Attributes
    ----------
    release : bool
        True when no reason blocks the release.
    reasons : tuple of str
        The blocking reasons, in the fixed order of ``REASON_ORDER``.
    """

    release: bool
    reasons: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """The canonical last line: ``RELEASE`` or ``BLOCK: reason; reason``."""
        return "RELEASE" if self.release else "BLOCK: " + "; ".join(self.reasons)

    def __str__(self) -> str:
        return self.verdict


def exact_values(metrics: pd.DataFrame | Counts, version: str) -> dict[str, Fraction | int | None]:
    """One version's metrics as exact numbers.

    Parameters
    ----------
    metrics : pandas.DataFrame or Counts
        Output of :func:`buddy_eval.scoring.score_versions`, or the counts
        behind it.
    version : str

    Returns
    -------
    dict
        ``correctness``, ``citation``, ``refusal``: a :class:`~fractions.Fraction`,
        or None when not measured; ``violations``: an int count.
    """
    if isinstance(metrics, Counts):
        return metrics.values(version)
    rows = metrics[metrics["version"] == version].set_index("metric")
    values: dict[str, Fraction | int | None] = {}
    for metric in RATE_METRICS:
        num, den = int(rows.at[metric, "numerator"]), int(rows.at[metric, "denominator"])
        values[metric] = Fraction(num, den) if den else None
    values["violations"] = int(rows.at["violations", "numerator"])
    return values


def decide(
    metrics: pd.DataFrame | Counts,
    thresholds: Thresholds,
    baseline: str,
    candidate: str,
    *,
    noninferior: dict[str, bool | None] | None = None,
    margin: float | None = None,
) -> Decision:
    """Decide whether ``candidate`` may replace ``baseline``.

    Every comparison is exact (fractions, not the printed figures): a metric
    meets its threshold when ``value >= threshold``; a regression is
    ``candidate < baseline``. An unmeasured metric (no item of its type) is
    never below threshold and never a regression.

    Parameters
    ----------
    metrics : pandas.DataFrame or Counts
        Output of :func:`buddy_eval.scoring.score_versions` (or the counts
        behind it) holding both labels.
    thresholds : Thresholds
    baseline, candidate : str
        Version labels.
    noninferior : dict, optional
        The non-inferiority rule: per rate metric, whether the candidate was
        shown non-inferior within ``margin`` (None when not measured). A
        metric shown not non-inferior is then the regression
        (``regression in citation beyond margin 0.02``) instead of the exact
        "lower than the baseline" comparison.
    margin : float, optional
        The margin, for the reason text.

    Returns
    -------
    Decision
    """
    old, new = exact_values(metrics, baseline), exact_values(metrics, candidate)
    reasons = [
        f"{m} below threshold"
        for m in RATE_METRICS
        if new[m] is not None and new[m] < thresholds[m]
    ]
    if new["violations"] > 0:
        reasons.append("integrity violations")
    if noninferior is None:
        reasons += [
            f"regression in {m}"
            for m in RATE_METRICS
            if new[m] is not None and old[m] is not None and new[m] < old[m]
        ]
    else:
        reasons += [
            f"regression in {m} beyond margin {decimal_text(margin)}"
            for m in RATE_METRICS
            if new[m] is not None and old[m] is not None and noninferior.get(m) is False
        ]
    return Decision(release=not reasons, reasons=tuple(reasons))
