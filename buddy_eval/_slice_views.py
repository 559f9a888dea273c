"""The notebook's views of the slices: a tidy table and a small-multiples chart.

Both read the one per-(slice, metric) record list of the report model
(:func:`buddy_eval.reporting._gate_slices.slice_records`), so the notebook,
``--details``, the Markdown summary and the JSON show the same figures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._errors import InputError
from .reporting._gate_slices import slice_records
from .reporting._slice_table import SLICE_COLUMNS

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

    from ._results import Results as Evaluation

__all__ = ["plot_slices", "slice_frame", "slice_table"]


def _records(evaluation: Evaluation) -> list[dict]:
    if getattr(evaluation, "slices", None) is None:
        raise InputError(
            "this evaluation has no slices: evaluate with slices=PATH, a DataFrame (id, slice) "
            "or a mapping from id to slice"
        )
    return slice_records(evaluation)


def slice_table(evaluation: Evaluation) -> pd.DataFrame:
    """One row per (slice, rate metric with an item in the slice): the paired figures.

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with slices (see :func:`buddy_eval.evaluate`).

    Returns
    -------
    pandas.DataFrame
        In slice order (as assigned, ``(none)`` last), then metric order:

        - ``slice`` (category), ``metric`` (category).
        - ``items`` (int64): the slice's golden items of the metric's type.
        - ``n_paired``, ``fixed``, ``regressed``, ``missing`` (int64): the
          paired counts on the slice.
        - ``baseline_rate``, ``candidate_rate`` (Float64): the gate's rates on
          the slice (a missing result counts as failed).
        - ``diff`` (Float64): candidate minus baseline over the paired items.
        - ``p_value`` (Float64): the exact paired test; NA when the slice has
          too few paired items.
        - ``p_value_holm_across_slices`` (Float64): ``p_value`` Holm-adjusted across
          the slices within the metric; NA when not ready.
        - ``ready_for_decision`` (bool).
        - ``reading`` (str): what the test and the interval say, or ``too few
          items to tell``.
        - ``could_hide`` (Float64): for a slice too small to tell, the largest
          drop of the whole input's rate it could hide; NA otherwise.

    Raises
    ------
    InputError
        The evaluation has no slices.

    Examples
    --------
    >>> slices = {"q1": "easy", "q2": "easy", "q3": "hard"}
    >>> ev = be.evaluate("data/example.txt", slices=slices)
    >>> be.slice_table(ev)[["slice", "metric", "n_paired", "fixed", "regressed", "reading"]]
        slice       metric  n_paired  fixed  regressed                reading
    0    easy  correctness         2      0          0  too few items to tell
    1    easy     citation         2      0          0  too few items to tell
    2    hard  correctness         1      1          0  too few items to tell
    3    hard     citation         1      1          0  too few items to tell
    4  (none)      refusal         1      0          1  too few items to tell
    """
    records = _records(evaluation)
    assert evaluation.slices is not None
    names = evaluation.slices.assignment.names
    return slice_frame(records, names, ("correctness", "citation", "refusal"))


def slice_frame(records: list[dict], names, metrics) -> pd.DataFrame:
    """The tidy per-(slice, metric) table of slice records (keys ``SLICE_COLUMNS``), typed:
    ``slice`` and ``metric`` categories in the order of ``names`` and ``metrics``; the gate's
    slices (:func:`slice_table`) and the tasks comparison's tiers share it."""
    import pandas as pd

    frame = pd.DataFrame(records, columns=list(SLICE_COLUMNS))
    floats = ("baseline_rate", "candidate_rate", "diff", "p_value", "p_value_holm_across_slices")
    for column in (*floats, "could_hide"):
        frame[column] = pd.array(
            [None if v is None else float(v) for v in frame[column]], dtype="Float64"
        )
    frame["slice"] = pd.Categorical(frame["slice"], categories=list(names))
    frame["metric"] = pd.Categorical(frame["metric"], categories=list(metrics))
    for column in ("items", "n_paired", "fixed", "regressed", "missing"):
        frame[column] = frame[column].astype("int64")
    frame["ready_for_decision"] = frame["ready_for_decision"].astype(bool)
    frame["reading"] = frame["reading"].astype("str")
    return frame


def plot_slices(evaluation: Evaluation, ax: Axes | None = None) -> Axes:
    """Small multiples: per rate metric a panel, per slice the baseline's and the
    candidate's rate joined by a line (a drop in the loss colour, a gain in the gain colour).

    Parameters
    ----------
    evaluation : Evaluation
        Evaluated with slices.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt", slices={"q1": "easy", "q3": "hard"})
    >>> ax = be.plot_slices(ev)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['easy', 'hard', '(none)']
    """
    from ._plot_base import (
        GAIN_COLOR,
        LOSS_COLOR,
        MUTED_COLOR,
        VERSION_COLORS,
        literal_axes,
        new_axes,
    )

    records = _records(evaluation)
    assert evaluation.slices is not None
    names = list(evaluation.slices.assignment.names)
    metrics = [
        m for m in ("correctness", "citation", "refusal") if any(r["metric"] == m for r in records)
    ]
    ax = new_axes(ax, (2.2 + 2.4 * max(len(metrics), 1), 1.2 + 0.3 * len(names)))
    width, gap = 1.0, 0.25
    row_of = {name: k for k, name in enumerate(names)}
    for panel, metric in enumerate(metrics):
        left = panel * (width + gap)
        ax.axvspan(left, left + width, color="#f4f4f4", zorder=0)
        ax.text(left + width / 2, -0.8, metric, ha="center", va="bottom", fontsize=9)
        for r in (r for r in records if r["metric"] == metric):
            y = row_of[r["slice"]]
            before, after = r["baseline_rate"], r["candidate_rate"]
            if before is None or after is None:
                continue
            x0, x1 = left + float(before) * width, left + float(after) * width
            colour = (
                MUTED_COLOR if after == before else GAIN_COLOR if after > before else LOSS_COLOR
            )
            ax.plot([x0, x1], [y, y], color=colour, linewidth=2, zorder=1)
            ax.scatter([x0], [y], color=VERSION_COLORS[0], zorder=2, s=24)
            ax.scatter([x1], [y], color=VERSION_COLORS[1], zorder=3, s=24)
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -1.0)
    ticks = [p * (width + gap) + f for p in range(len(metrics)) for f in (0.0, 0.5, 1.0)]
    ax.set_xticks(ticks, ["0", "0.5", "1"] * len(metrics), fontsize=7)
    ax.set_xlim(-0.05, max(len(metrics), 1) * (width + gap) - gap + 0.05)
    ax.set_title(
        f"Rate per slice: {evaluation.baseline} (light) to {evaluation.candidate} (dark)",
        fontsize=10,
    )
    return literal_axes(ax, hide_spines=("top", "right"))
