"""The per-slice table every sliced view shows: one column set, one wording.

The gate's slices (:mod:`._gate_slices`) and the tasks comparison's tiers
(:mod:`._tasks_tiers`) each make one record per (slice, metric) with the keys
of :data:`SLICE_COLUMNS`; :func:`slice_rows_table` lays them out the same
way for ``--details``, the Markdown summary and the HTML report.
"""

from __future__ import annotations

from .._phrases import HOLM, TOO_FEW_TO_TELL
from ..formatting import format_diff, format_p_value, format_rate
from ._model import Cell, Column, Table, User

__all__ = ["SLICE_COLUMNS", "SLICE_HOLM_METHOD", "slice_reading", "slice_rows_table"]

#: How the p-values are adjusted across the slices (not the whole input's Holm across metrics).
SLICE_HOLM_METHOD = f"{HOLM} step-down across the slices with a p-value, within the metric"

#: The tidy columns of a per-(slice, metric) record, in order.
SLICE_COLUMNS = (
    "slice",
    "metric",
    "items",
    "n_paired",
    "fixed",
    "regressed",
    "missing",
    "baseline_rate",
    "candidate_rate",
    "diff",
    "p_value",
    "p_value_holm_across_slices",
    "ready_for_decision",
    "reading",
    "could_hide",
)


def slice_reading(ready: bool, reading: tuple[str, str] | None) -> str:
    """A slice's reading in words: the test and the interval together, or too few to tell."""
    if not ready or reading is None:
        return TOO_FEW_TO_TELL
    return reading[1]


def _changed(record: dict) -> bool:
    return bool(record["fixed"] or record["regressed"])


def slice_rows_table(
    records: list[dict],
    baseline: str,
    candidate: str,
    alpha: float,
    *,
    changed_first: bool = False,
) -> Table:
    """The compact per-(slice, metric) table of ``records`` (keys :data:`SLICE_COLUMNS`);
    ``changed_first`` puts the slices with a fixed or regressed item first (keeping their
    order)."""
    if changed_first:
        moved = {r["slice"] for r in records if _changed(r)}
        records = [r for r in records if r["slice"] in moved] + [
            r for r in records if r["slice"] not in moved
        ]
    rows = []
    for r in records:
        p = r["p_value_holm_across_slices"]
        rows.append(
            (
                User(r["slice"]),
                r["metric"],
                r["n_paired"],
                r["fixed"],
                r["regressed"],
                Cell(r["baseline_rate"], format_rate(r["baseline_rate"])),
                Cell(r["candidate_rate"], format_rate(r["candidate_rate"])),
                Cell(r["diff"], format_diff(r["diff"])),
                Cell(p, "-" if p is None else format_p_value(p, alpha).removeprefix("= ")),
                r["reading"],
            )
        )
    columns = (
        Column("slice", "slice"),
        Column("metric", "metric"),
        Column("n_paired", "paired"),
        Column("fixed", "fixed"),
        Column("regressed", "regressed"),
        Column("baseline_rate", User(baseline)),
        Column("candidate_rate", User(candidate)),
        Column("diff", "difference"),
        Column("p_value_holm_across_slices", f"{HOLM} p (slices)"),
        Column("reading", "reading"),
    )
    return Table(columns, tuple(rows))
