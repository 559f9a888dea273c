"""The release decision: the candidate against the thresholds and the baseline."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ._errors import quoted
from ._phrases import NOT_MEASURED
from ._scoring import RATE_METRICS, Counts
from ._thresholds import Thresholds, decimal_text
from ._vocabulary import BLOCK, RELEASE

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CHECK_KINDS", "Check", "Decision", "REASON_ORDER", "decide", "exact_values"]

REASON_ORDER = (
    "correctness below threshold",
    "citation below threshold",
    "refusal below threshold",
    "integrity violations",
    "regression in correctness",
    "regression in citation",
    "regression in refusal",
)

#: The kinds of check a decision makes, in the order they are made.
CHECK_KINDS = ("threshold", "violations", "regression", "noninferiority", "slice")


@dataclass(frozen=True)
class Check:
    """One rule the decision applies to the candidate, with the values it compared.

    Attributes
    ----------
    kind : str
        ``threshold`` (the candidate's rate against its threshold),
        ``violations`` (the candidate's violations against none allowed),
        ``regression`` (the candidate's rate against the baseline's, exactly)
        or ``noninferiority`` (the lower confidence bound on the paired
        difference against ``-margin``).
    metric : str
        ``correctness``, ``citation``, ``refusal`` or ``violations``.
    candidate : Fraction or int or None
        The candidate's exact value (a rate, or a count of violations);
        None when the metric is not measured.
    reference : Fraction or int or float or None
        What it is compared with: the threshold, 0 allowed violations, the
        baseline's exact rate, or the margin (non-inferiority); None when
        not measured.
    blocks : bool
        The check fails: its :attr:`reason` is in the verdict.
    measured : bool
        False when the golden set has no item of the metric's type: the
        check is not made and never blocks.
    bound : float or None
        Non-inferiority only: the lower confidence bound on the paired
        difference (candidate minus baseline). Slice: the p-value
        Holm-adjusted across the slices within the metric.
    slice : str or None
        The slice gate only (kind ``slice``, with ``--slice-rule drop``): the
        slice checked for a clear drop; ``candidate`` is then the paired
        difference on it and ``reference`` the slice margin.
    hidden : Fraction or None
        The slice gate only, for a slice with too few paired items to tell
        (not measured): the largest drop of the whole input's rate it could
        hide.

    Examples
    --------
    >>> check = be.evaluate("data/example.txt").decision.blocking[0]
    >>> check.kind, check.metric, check.candidate, check.reference, check.blocks
    ('threshold', 'refusal', Fraction(0, 1), Fraction(1, 1), True)
    >>> check.name, check.reason
    ('refusal meets its threshold', 'refusal below threshold')
    """

    kind: str
    metric: str
    candidate: Fraction | int | None
    reference: Fraction | int | float | None
    blocks: bool
    measured: bool = True
    bound: float | None = None
    slice: str | None = None
    hidden: Fraction | None = None

    @property
    def reason(self) -> str:
        """The words of the verdict when this check blocks (the same text either way)."""
        if self.kind == "slice":
            return f"regression in {self.metric} on slice {quoted(self.slice)}"
        if self.kind == "threshold":
            return f"{self.metric} below threshold"
        if self.kind == "violations":
            return "integrity violations"
        if self.kind == "noninferiority":
            return f"regression in {self.metric} beyond margin {decimal_text(self.reference)}"
        return f"regression in {self.metric}"

    @property
    def name(self) -> str:
        """What is checked, in words: ``correctness meets its threshold``."""
        if self.kind == "slice":
            return f"no clear drop in {self.metric} on slice {quoted(self.slice)}"
        if self.kind == "threshold":
            return f"{self.metric} meets its threshold"
        if self.kind == "violations":
            return "no integrity violations"
        if self.kind == "noninferiority":
            return f"{self.metric} non-inferior within margin {decimal_text(self.reference)}"
        return f"no regression in {self.metric}"


@dataclass(frozen=True)
class Decision:
    """Whether the candidate may be released: every check made, and what blocks.

    Attributes
    ----------
    checks : tuple of Check
        Every check, in the fixed order of the verdict: thresholds
        (correctness, citation, refusal), violations, then regressions
        (correctness, citation, refusal). Views read these, never the text.

    Examples
    --------
    >>> decision = be.evaluate("data/example.txt").decision
    >>> decision.release
    False
    >>> decision.verdict
    'BLOCK: refusal below threshold; integrity violations; regression in refusal'
    >>> for check in decision.checks:
    ...     print(check.kind, check.metric, check.candidate, check.reference, check.blocks)
    threshold correctness 1 3/5 False
    threshold citation 1 3/5 False
    threshold refusal 0 1 True
    violations violations 1 0 True
    regression correctness 1 2/3 False
    regression citation 1 2/3 False
    regression refusal 0 1 True
    >>> decision.status("refusal"), decision.status("correctness")
    ('below threshold; regression', 'ok')
    """

    checks: tuple[Check, ...] = ()

    @property
    def release(self) -> bool:
        """True when no check blocks the release."""
        return not any(c.blocks for c in self.checks)

    @property
    def reasons(self) -> tuple[str, ...]:
        """The blocking reasons, in the fixed order of ``REASON_ORDER``."""
        return tuple(c.reason for c in self.checks if c.blocks)

    @property
    def blocking(self) -> tuple[Check, ...]:
        """The checks that block."""
        return tuple(c for c in self.checks if c.blocks)

    def blocks(self, metric: str, kind: str | None = None) -> bool:
        """Some check of ``metric`` (of ``kind``: ``threshold``, ``regression``, ...) blocks.

        ``kind="regression"`` also answers for the non-inferiority rule, which
        is how that rule decides a regression.
        """
        kinds = {kind} if kind != "regression" else {"regression", "noninferiority"}
        return any(
            c.blocks and c.metric == metric and (kind is None or c.kind in kinds)
            for c in self.checks
        )

    def status(self, metric: str, measured: bool = True) -> str:
        """What blocks the release on ``metric``, in the words every view shows.

        ``below threshold``, ``regression`` (the exact comparison or the
        non-inferiority rule), both joined by ``; ``, ``integrity
        violations``; else ``ok``, or ``not measured`` when the golden set
        has no item of the metric's type.
        """
        if metric == "violations":
            return "integrity violations" if self.blocks("violations") else "ok"
        found = [
            short
            for kind, short in (("threshold", "below threshold"), ("regression", "regression"))
            if self.blocks(metric, kind)
        ]
        return "; ".join(found) if found else ("ok" if measured else NOT_MEASURED)

    @property
    def verdict(self) -> str:
        """The canonical last line: ``RELEASE`` or ``BLOCK: reason; reason``."""
        return RELEASE if self.release else f"{BLOCK}: " + "; ".join(self.reasons)

    def __str__(self) -> str:
        return self.verdict


def exact_values(metrics: pd.DataFrame | Counts, version: str) -> dict[str, Fraction | int | None]:
    """One version's metrics as exact numbers.

    Parameters
    ----------
    metrics : pandas.DataFrame or Counts
        Output of :func:`buddy_eval._scoring.score_versions`, or the counts
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
    rows = metrics[metrics["version"] == version]
    numerators = dict(zip(rows["metric"].tolist(), rows["numerator"].tolist(), strict=True))
    denominators = dict(zip(rows["metric"].tolist(), rows["denominator"].tolist(), strict=True))
    values: dict[str, Fraction | int | None] = {}
    for metric in RATE_METRICS:
        num, den = int(numerators[metric]), int(denominators[metric])
        values[metric] = Fraction(num, den) if den else None
    values["violations"] = int(numerators["violations"])
    return values


def decide(
    metrics: pd.DataFrame | Counts,
    thresholds: Thresholds,
    baseline: str,
    candidate: str,
    *,
    noninferior: Mapping[str, bool | None] | None = None,
    margin: float | None = None,
    bounds: Mapping[str, float | None] | None = None,
    shared: Counts | None = None,
) -> Decision:
    """Decide whether ``candidate`` may replace ``baseline``.

    Every comparison is exact (fractions, not the printed figures): a metric
    meets its threshold when ``value >= threshold``; a regression is
    ``candidate < baseline``. An unmeasured metric (no item of its type) is
    never below threshold and never a regression.

    Parameters
    ----------
    metrics : pandas.DataFrame or Counts
        Output of :func:`buddy_eval._scoring.score_versions` (or the counts
        behind it) holding both labels.
    thresholds : Thresholds
    baseline, candidate : str
        Version labels.
    noninferior : mapping, optional
        The non-inferiority rule: per rate metric, whether the candidate was
        shown non-inferior within ``margin`` (None when not measured). A
        metric shown not non-inferior is then the regression
        (``regression in citation beyond margin 0.02``) instead of the exact
        "lower than the baseline" comparison.
    margin : float, optional
        The margin of the non-inferiority rule.
    bounds : mapping, optional
        Per rate metric, the lower confidence bound the non-inferiority
        reading used (kept on the check for the views).
    shared : Counts, optional
        Both versions' counts over the items they are compared on (a live
        baseline measured on fewer items): the regression checks read
        these, the thresholds and violations the candidate's full counts.
        None: ``metrics`` for both.

    Returns
    -------
    Decision
        Seven checks: three thresholds, violations, three regressions (or
        non-inferiority checks).
    """
    old, new = exact_values(metrics, baseline), exact_values(metrics, candidate)
    checks = []
    for m in RATE_METRICS:
        value, threshold = new[m], thresholds[m]
        checks.append(
            Check(
                "threshold",
                m,
                value,
                threshold if value is not None else None,
                blocks=value is not None and value < threshold,
                measured=value is not None,
            )
        )
    violations = int(new["violations"] or 0)
    checks.append(Check("violations", "violations", violations, 0, blocks=violations > 0))
    if shared is not None:
        old, new = exact_values(shared, baseline), exact_values(shared, candidate)
    for m in RATE_METRICS:
        new_value, old_value = new[m], old[m]
        measured = new_value is not None and old_value is not None
        lower = new_value is not None and old_value is not None and new_value < old_value
        if noninferior is None:
            checks.append(
                Check(
                    "regression",
                    m,
                    new_value,
                    old_value,
                    blocks=lower,
                    measured=measured,
                )
            )
        else:
            checks.append(
                Check(
                    "noninferiority",
                    m,
                    new[m],
                    margin,
                    blocks=measured and noninferior.get(m) is False,
                    measured=measured,
                    bound=None if bounds is None else bounds.get(m),
                )
            )
    return Decision(tuple(checks))
