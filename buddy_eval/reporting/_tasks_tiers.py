"""The tasks comparison's tiers in its views: the per-tier table of ``--details`` (the
readable text) and of the Markdown summary, with the gate's slices table's columns and
wording (:mod:`._slice_table`). Every figure is read from
:attr:`buddy_eval.tasks.TaskComparison.tiers`; the JSON ``slices`` object is
:func:`._tasks_record.tiers_record`.

A table of one tier repeats the whole run, so the views show it only with two tiers
or more (the JSON always carries the ``slices`` object).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import TOO_FEW_TO_TELL, count_of, holm_across
from ._model import DETAILS, HTML, MARKDOWN, Paragraph, Section
from ._slice_table import slice_reading, slice_rows_table

if TYPE_CHECKING:
    from ..tasks._comparison import ComparisonResults

__all__ = ["MIN_TIERS_SHOWN", "tier_records", "tier_sections"]

#: The views show the per-tier table from this many tiers on.
MIN_TIERS_SHOWN = 2


def tier_records(comparison: ComparisonResults) -> list[dict]:
    """One record per (tier, metric), exact values, the keys of
    :data:`~._slice_table.SLICE_COLUMNS` (``slice`` holds the tier), in tier then
    metric order (``mean_score``, ``all_pass``)."""
    rows = []
    for tier in comparison.tiers.tiers:
        for m in tier.metrics:
            rows.append(
                {
                    "slice": tier.name,
                    "metric": m.metric,
                    "items": m.items,
                    "n_paired": m.n_paired,
                    "fixed": m.fixed,
                    "regressed": m.regressed,
                    "missing": m.missing,
                    "baseline_rate": m.baseline_rate,
                    "candidate_rate": m.candidate_rate,
                    "diff": m.diff,
                    "p_value": m.p_value,
                    "p_value_holm_across_slices": m.p_value_holm_across_slices,
                    "ready_for_decision": m.ready,
                    "reading": slice_reading(m.ready, m.reading),
                    "could_hide": m.could_hide,
                }
            )
    return rows


def _intro(comparison: ComparisonResults) -> Paragraph:
    n = len(comparison.tiers.tiers)
    min_paired = comparison.paired.min_n
    return Paragraph(
        (
            f"Tiers: {count_of(n, 'tier')} of the golden tasks, paired as the whole run; "
            f"{holm_across('tiers')}; a tier with fewer "
            f"than {count_of(min_paired, 'scored pair')}: {TOO_FEW_TO_TELL}; for mean_score, "
            "fixed and regressed count the tasks scored higher and lower; the rates are each "
            "run's over its scored tasks of the tier, the difference is over the paired tasks.",
        )
    )


def tier_sections(comparison: ComparisonResults, views) -> list[Section]:
    """The tiers section of the readable text and of the summaries (none below
    :data:`MIN_TIERS_SHOWN` tiers)."""
    if len(comparison.tiers.tiers) < MIN_TIERS_SHOWN:
        return []
    records = tier_records(comparison)
    a, b = comparison.labels
    alpha = comparison.settings.alpha
    sections = []
    if DETAILS in views:
        table = slice_rows_table(records, a, b, alpha)
        blocks = (_intro(comparison), table)
        sections.append(Section("tiers_details", None, blocks, frozenset({DETAILS})))
    summary = frozenset(views) & {MARKDOWN, HTML}
    if summary:
        table = slice_rows_table(records, a, b, alpha, changed_first=True)
        blocks = (_intro(comparison), table)
        sections.append(Section("tiers", "Tiers", blocks, frozenset(summary)))
    return sections
