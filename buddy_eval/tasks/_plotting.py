"""Charts of a :class:`~buddy_eval.tasks._comparison.TaskComparison` (matplotlib only).

Every function takes the computed comparison plus ``ax=None``, draws on
``ax`` (a new figure sized for the data when None) and returns the Axes.
Nothing here computes a figure: the bars come from ``comparison.pairs``,
``comparison.unknowns`` and ``comparison.paired``. matplotlib is imported
inside the functions, so the command line never loads it. Artists carry a
``gid`` naming what they show (``"delta/jv-03"``, ``"unknown/B/max_cost_usd"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._phrases import MCNEMAR, NOT_READY, WILCOXON
from .._plot_base import (
    GAIN_COLOR,
    LOSS_COLOR,
    MUTED_COLOR,
    VERSION_COLORS,
    literal_axes,
    new_axes,
    offset_text,
)
from ..formatting import format_diff, format_p_value
from ._record_rules import CHECK_TYPES

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from ._views import TaskComparison

__all__ = ["RUN_COLORS", "plot_deltas", "plot_readiness", "plot_unknowns"]

#: Bar colours of run A and run B: those of the gate's baseline and candidate.
RUN_COLORS = VERSION_COLORS


def plot_deltas(comparison: TaskComparison, ax: Axes | None = None) -> Axes:
    """Per-task score delta (B minus A) of every golden task scored in both runs.

    One horizontal bar per pair in golden order: green when B scored higher,
    orange when lower, none for a tie (the task is still labelled). Pairs without a score on
    one side are not drawn (they are listed in the report).

    Parameters
    ----------
    comparison : TaskComparison
        What :func:`compare_runs` returned.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"delta/<golden_id>"`` (width = the delta).

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> ax = tasks.plot_deltas(cmp)
    >>> type(ax).__name__, ax.get_xlabel()
    ('Axes', 'score tutor-v2 minus score tutor-v1')
    """
    pairs = comparison.pairs[comparison.pairs["both_scored"]]
    ax = new_axes(ax, (7, max(2.5, 0.24 * len(pairs) + 1.2)))
    label_a, label_b = comparison.labels
    deltas = pairs["delta"].to_numpy(dtype=float)
    y = np.arange(len(pairs))
    colors = np.where(deltas > 0, GAIN_COLOR, np.where(deltas < 0, LOSS_COLOR, MUTED_COLOR))
    bars = ax.barh(y, deltas, color=colors, height=0.7)
    for bar, golden_id in zip(bars, pairs["golden_id"], strict=True):
        bar.set_gid(f"delta/{golden_id}")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, pairs["golden_id"].tolist(), fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-1.05, 1.05)
    ax.set_xlabel(f"score {label_b} minus score {label_a}")
    p = comparison.paired
    ax.set_title(
        f"Per-task score delta over {p.n} scored pairs: {label_b} higher {p.wins}, "
        f"equal {p.ties}, lower {p.losses}",
        fontsize=10,
    )
    return literal_axes(ax)


def plot_unknowns(comparison: TaskComparison, ax: Axes | None = None) -> Axes:
    """Unknown checks per check type and run (left out of every denominator).

    Grouped bars, one group per check type, labelled ``unknown / checks``.

    Parameters
    ----------
    comparison : TaskComparison
        What :func:`compare_runs` returned.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"unknown/<label>/<check type>"`` (height = the count).

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> ax = tasks.plot_unknowns(cmp)
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'Unknown checks per type (unknown / checks of that type)')
    """
    ax = new_axes(ax, (7, 3.2))
    table = comparison.unknowns
    x = np.arange(len(CHECK_TYPES))
    width = 0.38
    top = max(1, int(table["unknown"].max()) if len(table) else 1)
    for i, (label, color) in enumerate(zip(comparison.labels, RUN_COLORS, strict=True)):
        # count_unknowns gives every check type, in CHECK_TYPES order, for every run.
        rows = table[table["run"] == label]
        unknown, checks = rows["unknown"].to_numpy(), rows["checks"].to_numpy()
        bars = ax.bar(
            x + (i - 0.5) * width, unknown, width, color=color, label=f"{'AB'[i]} {label}"
        )
        for bar, kind, u, c in zip(bars, CHECK_TYPES, unknown, checks, strict=True):
            bar.set_gid(f"unknown/{label}/{kind}")
            centre = bar.get_x() + bar.get_width() / 2
            offset_text(ax, f"{u}/{c}", (centre, u), (0, 2), ha="center", fontsize=8)
    ax.set_xticks(x, CHECK_TYPES, fontsize=8)
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, top * 1.25 + 0.5)
    ax.set_ylabel("unknown checks")
    ax.set_title("Unknown checks per type (unknown / checks of that type)", fontsize=10)
    ax.legend(fontsize=8, frameon=False)
    return literal_axes(ax)


def plot_readiness(comparison: TaskComparison, ax: Axes | None = None) -> Axes:
    """Scored pairs against the minimum for a decision, with the verdict.

    A bar of the paired n, a dashed line at the minimum, and the verdict as
    the title: not ready (no significance computed), or ready with the
    Wilcoxon and McNemar p-values. It gives no advice on which run to use.

    Parameters
    ----------
    comparison : TaskComparison
        What :func:`compare_runs` returned.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The bar has ``gid`` ``"paired_n"``, the minimum's line ``"min_n"``.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> ax = tasks.plot_readiness(cmp)
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'ready for decision: mean delta -0.010, Wilcoxon p = 0.750, McNemar p = 1.000')
    """
    ax = new_axes(ax, (7, 1.9))
    p = comparison.paired
    color = GAIN_COLOR if p.ready_for_decision else LOSS_COLOR
    ax.barh([0], [p.n], color=color, height=0.5, gid="paired_n")
    ax.axvline(p.min_n, color="black", linestyle="--", linewidth=1, gid="min_n")
    ax.annotate(f"minimum {p.min_n}", (p.min_n, 0.32), ha="center", fontsize=8)
    offset_text(ax, f"n = {p.n}", (p.n, 0), (4, 0), va="center", fontsize=8)
    ax.set_xlim(0, max(p.n, p.min_n) * 1.2 + 1)
    ax.set_ylim(-0.5, 0.6)
    ax.set_yticks([])
    ax.set_xlabel("golden tasks scored in both runs")
    if p.ready_for_decision:
        verdict = (
            f"ready for decision: mean delta {format_diff(p.mean_delta, 3)}, {WILCOXON} p "
            f"{format_p_value(p.p_value)}, {MCNEMAR} p {format_p_value(p.mcnemar_p_value)}"
        )
    else:
        verdict = f"{NOT_READY} for decision: too few scored pairs, no significance computed"
    ax.set_title(verdict, fontsize=10)
    return literal_axes(ax)
