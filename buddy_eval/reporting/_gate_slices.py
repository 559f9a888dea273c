"""The gate's slices in every view: one table of exact figures per (slice, metric), worded
once, read by ``--details`` (compact), the Markdown summary (the slices that changed first),
the HTML report (with the small-multiples chart), the notebook's :func:`slice_table`, and the
JSON ``slices`` object. Every figure is read from :attr:`buddy_eval.Evaluation.slices`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import TOO_FEW_TO_TELL, count_of, holm_across
from ..formatting import format_rate
from ._model import (
    DETAILS,
    HTML,
    MARKDOWN,
    Block,
    Bullet,
    Bullets,
    Figure,
    Paragraph,
    Section,
    Table,
    User,
)
from ._slice_table import SLICE_COLUMNS, SLICE_HOLM_METHOD, slice_reading, slice_rows_table

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = [
    "SLICE_COLUMNS",
    "SLICE_HOLM_METHOD",
    "slice_records",
    "slice_sections",
    "slices_table",
]


def _reading(m) -> str:
    return slice_reading(m.ready, m.reading)


def slice_records(evaluation: Evaluation) -> list[dict]:
    """One record per (slice, rate metric with an item in the slice), exact values, in
    slice then metric order; empty without slices."""
    figures = evaluation.slices
    if figures is None:
        return []
    rows = []
    for s in figures.slices:
        for m in s.paired.metrics:
            if not m.measured:
                continue
            rows.append(
                {
                    "slice": s.name,
                    "metric": m.metric,
                    "items": m.baseline.items,
                    "n_paired": m.n_paired,
                    "fixed": m.count("fixed"),
                    "regressed": m.count("regressed"),
                    "missing": m.missing,
                    "baseline_rate": m.baseline.gate,
                    "candidate_rate": m.candidate.gate,
                    "diff": m.diff,
                    "p_value": m.p_value if m.ready else None,
                    "p_value_holm_across_slices": s.p_holm_across_slices[m.metric],
                    "ready_for_decision": m.ready,
                    "reading": _reading(m),
                    "could_hide": s.could_hide[m.metric],
                }
            )
    return rows


def slices_table(evaluation: Evaluation, *, changed_first: bool = False) -> Table:
    """The compact per-(slice, metric) table; ``changed_first`` puts the slices with a
    fixed or regressed item first (keeping their order)."""
    return slice_rows_table(
        slice_records(evaluation),
        evaluation.baseline,
        evaluation.candidate,
        evaluation.settings.alpha,
        changed_first=changed_first,
    )


def _not_measured(evaluation: Evaluation) -> Bullets | None:
    """With the slice rule: the slices too small to tell, and the drop each could hide."""
    checks = [c for c in evaluation.decision.checks if c.kind == "slice" and not c.measured]
    if not checks:
        return None
    entries = []
    for check in checks:
        hidden = format_rate(check.hidden)
        entries.append(
            Bullet(
                (
                    ("slice ",),
                    (User(repr(check.slice)),),
                    (
                        f", {check.metric}: not measured, {TOO_FEW_TO_TELL}; it could hide a "
                        f"drop of up to {hidden} in the whole input's {check.metric}",
                    ),
                ),
                sep="",
            )
        )
    return Bullets(tuple(entries))


def _intro(evaluation: Evaluation) -> Paragraph:
    figures = evaluation.slices
    assert figures is not None
    settings = evaluation.settings
    n = len(figures.slices)
    rule = (
        f"the slice rule blocks a clear drop larger than {format_rate(settings.slice_margin)}"
        if settings.slice_rule == "drop"
        else "slices inform; they do not gate (--slice-rule drop gates on them)"
    )
    return Paragraph(
        (
            f"Slices: {count_of(n, 'slice')} of the golden items, paired as the whole input; "
            f"{holm_across('slices')}; a slice with "
            f"fewer than {count_of(settings.min_paired, 'paired item')}: {TOO_FEW_TO_TELL}; "
            f"{rule}.",
        )
    )


def slice_sections(evaluation: Evaluation, views) -> list[Section]:
    """The slices section of ``--details`` and of the summaries (none without slices)."""
    if evaluation.slices is None:
        return []
    hidden = _not_measured(evaluation)
    sections = []
    blocks: list[Block]
    if DETAILS in views:
        blocks = [_intro(evaluation), slices_table(evaluation)]
        blocks += [hidden] if hidden is not None else []
        sections.append(Section("slices_details", None, tuple(blocks), frozenset({DETAILS})))
    summary = frozenset(views) & {MARKDOWN, HTML}
    if summary:
        blocks = [_intro(evaluation), slices_table(evaluation, changed_first=True)]
        blocks += [hidden] if hidden is not None else []
        blocks.append(Figure("Slices: each slice's rates, baseline and candidate", "plot_slices"))
        sections.append(Section("slices", "Slices", tuple(blocks), frozenset(summary)))
    return sections
