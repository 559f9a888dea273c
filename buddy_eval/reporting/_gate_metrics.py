"""The gate's metrics section: each metric of both versions with what it is made of, the
candidate's threshold and what blocks the release on it (the HTML views).

The figures are read once from the evaluation (the paired core's gate rates
and counts, the per-item changes' trial counts, the decision's statuses) into
:class:`MetricFacts`; the notebook's ``metrics_table`` DataFrame and this
section are both made from them, so they cannot disagree. Every text is
worded here: a rate reads ``0.84 (27/32)`` (rounded from the exact value,
then the counts as counted, never reduced) or, with repeated trials,
``0.87 (32 items, 155 trials)``; a threshold is its exact value rounded once.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .._phrases import count_of
from ..formatting import format_rate
from ._model import HTML, Cell, Column, Section, Table, User

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = [
    "METRICS_TITLE",
    "MetricFacts",
    "metric_facts",
    "metrics_section",
    "rate_text",
    "threshold_text",
]

#: The title of the metrics table (the notebook shows it over the same table).
METRICS_TITLE = "Metrics against the thresholds"


@dataclass(frozen=True)
class MetricFacts:
    """One metric of both versions, as counted (baseline first in every pair).

    ``counts``: the results that pass (with repeated trials the passing
    trials; for ``violations`` the REFUSE items answered); ``items``: golden
    items of the metric's type; ``missing``: those with no result;
    ``trials``: the results (every trial) of those items; ``rates``: the
    gate's exact rates (None when not measured, and for ``violations``);
    ``threshold``: the exact threshold (None for ``violations``); ``status``:
    the decision's word for the metric.
    """

    metric: str
    counts: tuple[int, int]
    items: int
    missing: tuple[int, int]
    trials: tuple[int, int]
    rates: tuple[Fraction | None, Fraction | None]
    threshold: Fraction | None
    status: str


def metric_facts(evaluation: Evaluation) -> tuple[MetricFacts, ...]:
    """The four metrics (correctness, citation, refusal, violations), as counted."""
    paired, decision = evaluation.paired, evaluation.decision
    # per rate metric: trials and passing trials of the baseline, then of the candidate
    # (without repeated trials a trial is a result)
    trials = {c.metric: [int(a.sum()) for a in c.counts] for c in evaluation._changes}
    rows = []
    for m in paired.metrics:
        base_n, base_k, cand_n, cand_k = trials[m.metric]
        b, c = m.baseline, m.candidate
        rows.append(
            MetricFacts(
                m.metric,
                (base_k, cand_k),
                b.items,
                (b.missing, c.missing),
                (base_n, cand_n),
                (b.gate, c.gate),
                Fraction(evaluation.thresholds[m.metric]),
                decision.status(m.metric, m.measured),
            )
        )
    # violations: REFUSE items answered, over the refusal metric's items; a count, no rate
    refusal, (vb, vc) = paired["refusal"], paired.violations
    base_n, _, cand_n, _ = trials["refusal"]
    rows.append(
        MetricFacts(
            "violations",
            (vb.violations, vc.violations),
            refusal.baseline.items,
            (refusal.baseline.missing, refusal.candidate.missing),
            (base_n, cand_n),
            (None, None),
            None,
            decision.status("violations"),
        )
    )
    return tuple(rows)


def rate_text(
    metric: str, count: int, items: int, rate: Fraction | float | None, trials: int | None
) -> str:
    """How one version's figure on ``metric`` reads in the metrics table.

    ``trials`` is the version's trial count with repeated trials, None
    without: then the rate is ``count / items`` and the counts follow it as
    counted.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.reporting._gate_metrics import rate_text
    >>> rate_text("citation", 3825, 4000, Fraction(3825, 4000), None)
    '0.96 (3825/4000)'
    >>> rate_text("citation", 150, 32, Fraction(7, 8), 155)
    '0.88 (32 items, 155 trials)'
    >>> rate_text("violations", 1, 9, None, None), rate_text("refusal", 0, 0, None, None)
    ('1', 'n/a')
    """
    if metric == "violations":
        return str(count)
    if items == 0:
        return format_rate(None)
    if trials is not None:
        return f"{format_rate(rate)} ({count_of(items, 'item')}, {count_of(trials, 'trial')})"
    return f"{format_rate(Fraction(count, items))} ({count}/{items})"


def threshold_text(threshold: Fraction | None) -> str:
    """A threshold, its exact value rounded once; ``0`` (no violation allowed) for None.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.reporting._gate_metrics import threshold_text
    >>> threshold_text(Fraction("0.0049999999999999999999")), threshold_text(None)
    ('0.00', '0')
    """
    return "0" if threshold is None else format_rate(threshold)


def metrics_table_block(evaluation: Evaluation) -> Table:
    """The metrics table: one row per metric, exact values under their worded cells."""
    trials = evaluation.has_trials
    rows = []
    for f in metric_facts(evaluation):
        cells = []
        for k in (0, 1):
            made_of = f.trials[k] if trials else None
            text = rate_text(f.metric, f.counts[k], f.items, f.rates[k], made_of)
            cells.append(Cell(f.counts[k] if f.metric == "violations" else f.rates[k], text))
        threshold = Cell(f.threshold if f.threshold is not None else 0, threshold_text(f.threshold))
        rows.append((f.metric, *cells, threshold, f.status))
    columns = (
        Column("metric", "metric"),
        Column("baseline", User(f"{evaluation.baseline} (baseline)")),
        Column("candidate", User(f"{evaluation.candidate} (candidate)")),
        Column("threshold", "threshold"),
        Column("status", "status"),
    )
    return Table(columns, tuple(rows))


def metrics_section(evaluation: Evaluation, rates: Section) -> Section:
    """The HTML views' metrics section: the summary's ``rates`` section (the input's name,
    the compared items) with the metrics table in place of its rates table."""
    table = metrics_table_block(evaluation)
    blocks = tuple(table if isinstance(b, Table) else b for b in rates.blocks)
    return Section("metrics", METRICS_TITLE, blocks, frozenset({HTML}))
