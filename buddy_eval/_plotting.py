r"""Charts of an evaluation, for notebooks and reports (matplotlib only).

Every function takes an :class:`~buddy_eval.Evaluation` (or anything
:func:`buddy_eval.evaluate` accepts: a path, an :class:`~buddy_eval.EvalInput`,
the input text, evaluated with the default labels ``OLD`` and ``NEW``) plus
``ax=None``, draws on ``ax`` (a new figure sized for the data when None) and
returns the Axes. Nothing here computes a metric: the figures come from
``evaluation.paired`` (counts and item ids, where an item with no result in a
version is ``missing``, never ``fixed`` or ``regressed``) and
``evaluation.items`` (the per-item grid).

Text from the data (item ids, version labels) is drawn literally: every text
artist has mathtext and TeX off (``parse_math=False``, ``usetex=False``), so
an id such as ``$\q$`` is shown as written instead of crashing the mathtext
parser.

matplotlib is imported inside the functions, so importing this module (or
``buddy_eval``) does not load it and the command-line gate never does.

Artists carry a ``gid`` naming what they show (``"bar/NEW/correctness"``,
``"threshold/refusal"``, ...), so tests and scripts can find them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from ._errors import InputError
from ._phrases import NOT_COMPUTED, NOT_READY, READY, verdict_word
from ._plot_base import (
    GAIN_COLOR,
    LOSS_COLOR,
    MUTED_COLOR,
    VERSION_COLORS,
    literal_axes,
    new_axes,
    offset_text,
    place_legend,
)
from ._vocabulary import ITEM_TYPE_OF, RATE_METRICS
from .formatting import format_count, format_fraction, format_id_list

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ._evaluation import Evaluation
    from ._loading import InputSource

__all__ = [
    "GRID_CHECKS",
    "GRID_MAX_ITEMS",
    "OUTCOMES",
    "OUTCOME_COLORS",
    "VERSION_COLORS",
    "item_grid_outcomes",
    "plot_changes",
    "plot_diff_intervals",
    "plot_item_grid",
    "plot_metrics",
    "plot_trial_rates",
]

#: Outcomes of one check in the per-item grid, in legend order.
OUTCOMES = ("pass", "fail", "violation", "missing", "n/a")
#: Cell colour of each outcome (colour-blind safe: teal / orange / dark red / greys).
OUTCOME_COLORS = {
    "pass": "#1b9e77",
    "fail": "#e6912e",
    "violation": "#a50026",
    "missing": "#8c8c8c",
    "n/a": "#f2f2f2",
}
#: Grid columns per version and the per-item column each one reads.
GRID_CHECKS = {"correct": "correct", "cited": "cited_ok", "refused": "refused_ok"}
#: The metric whose passes (per trial, with repeated trials) decide each check of the grid.
_CHECK_METRIC = {"correct": "correctness", "cited": "citation", "refused": "refusal"}

#: Above this many items :func:`plot_item_grid` draws counts per outcome per check
#: instead of one cell per item.
GRID_MAX_ITEMS = 200

#: The candidate's bar when its metric blocks the release (below threshold or regression).
_BLOCKING_COLOR = "#b3261e"
#: Why a candidate metric blocks, per kind of check of the decision.
_BLOCKS = {"threshold": "below threshold", "regression": "regression"}
#: A bar's value label: centred above it, on white where a threshold line crosses it.
_LABEL = {
    "ha": "center",
    "va": "bottom",
    "zorder": 3,
    "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 0.5, "alpha": 0.85},
}
#: The value label plain, or telling why the bar blocks the release (keyed by blocking).
_LABEL_STYLE: dict[bool, dict[str, Any]] = {
    False: {**_LABEL, "fontsize": 9, "color": "black", "fontweight": "normal"},
    True: {**_LABEL, "fontsize": 8, "color": _BLOCKING_COLOR, "fontweight": "bold"},
}
#: Notes and labels that only explain.
_GREY = "#404040"
_SIDES = ("baseline", "candidate")
#: One rate metric per golden item type (its items are that type's items).
_ONE_METRIC_PER_TYPE = tuple({ITEM_TYPE_OF[m]: m for m in reversed(RATE_METRICS)}.values())
_MAX_IDS_PER_BAR = 6
#: The two bars of a row of :func:`plot_changes`: change, direction, colour, count alignment.
_CHANGE_BARS = (("regressed", -1, LOSS_COLOR, "right"), ("fixed", 1, GAIN_COLOR, "left"))
_NOTE_WIDTH = 110  # characters per line of a note under a row
_COMPARISON_COLUMNS = (
    "metric",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "ready_for_decision",
    "note",
)


def _evaluation(evaluation: Evaluation | InputSource) -> Evaluation:
    """An Evaluation as is; anything else through :func:`buddy_eval.evaluate` with defaults."""
    from ._evaluation import evaluate
    from ._results import Results

    return evaluation if isinstance(evaluation, Results) else evaluate(evaluation)


def _outcome_legend(ax, outcomes, x: float, edgecolor=None) -> None:
    """The outcome colours as a legend right of the axes, drawn literally."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=OUTCOME_COLORS[o], edgecolor=edgecolor, label=o) for o in outcomes]
    place_legend(ax, "upper left", (x, 1.0), handles=handles, title="outcome", title_fontsize=8)


def _text(ax: Axes, xy: tuple[float, float], text: str, **kwargs: Any) -> None:
    """``text`` at ``xy``, vertically centred, in 7 point type unless ``kwargs`` say otherwise."""
    ax.text(*xy, text, **{"va": "center", "fontsize": 7, **kwargs})


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 103)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '103rd']
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def plot_metrics(evaluation: Evaluation | InputSource, ax: Axes | None = None) -> Axes:
    """Grouped bars of correctness, citation and refusal for both versions.

    Each metric gets a bar per version (baseline light, candidate dark) with
    its value written above it (rounded like the canonical report), and a
    dashed line at its threshold. A candidate bar whose metric blocks the
    release is red and its label says why (``below threshold``,
    ``regression``). A metric that is not measured (no item of its type) has
    no bar: its group reads ``n/a`` with the reason. The legend gives each
    version's violations and missing results; the title gives the verdict.

    Parameters
    ----------
    evaluation : Evaluation, EvalInput or path
        The result of :func:`buddy_eval.evaluate` (anything else is evaluated
        with the default labels).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new 8 x 4.5 inch figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"bar/<version>/<metric>"`` (height = the exact
        value as a float), their labels ``"label/<version>/<metric>"``,
        threshold lines ``"threshold/<metric>"``, the label of a metric that
        is not measured ``"na/<metric>"``.

    Examples
    --------
    >>> ax = be.plot_metrics(be.evaluate("data/example.txt"))
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'OLD → NEW: BLOCK')

    Into an Axes of your own figure:

    >>> import matplotlib.pyplot as plt
    >>> fig, (left, right) = plt.subplots(1, 2, figsize=(14, 4.5))
    >>> be.plot_metrics("data/example.txt", ax=left) is left
    True
    """
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ev = _evaluation(evaluation)
    ax = new_axes(ax, (8, 4.5))
    x = np.arange(len(RATE_METRICS))
    width = 0.38
    handles: list[Artist] = []
    for j, (version, side) in enumerate(zip((ev.baseline, ev.candidate), _SIDES, strict=True)):
        # golden items with no result for this version: one metric per item type
        missing = sum(getattr(ev.paired[m], side).missing for m in _ONE_METRIC_PER_TYPE)
        notes = [format_count(ev.paired.violations[j].violations, "violation")]
        notes += [f"{missing} missing"] if missing else []
        handles.append(Patch(color=VERSION_COLORS[j], label=f"{version} ({', '.join(notes)})"))
        for i, metric in enumerate(RATE_METRICS):
            rate = getattr(ev.paired[metric], side)
            if rate.gate is None:
                continue
            xpos = x[i] + (j - 0.5) * width
            # read from the decision's checks, never from the reasons' words
            blocking = [
                why for kind, why in _BLOCKS.items() if j and ev.decision.blocks(metric, kind)
            ]
            color = _BLOCKING_COLOR if blocking else VERSION_COLORS[j]
            ax.bar(xpos, float(rate.gate), width, color=color, gid=f"bar/{version}/{metric}")
            label = "\n".join([format_fraction(rate.gate), *blocking])
            style = _LABEL_STYLE[bool(blocking)]
            ax.text(xpos, float(rate.gate) + 0.015, label, gid=f"label/{version}/{metric}", **style)
    for i, metric in enumerate(RATE_METRICS):
        threshold = float(ev.thresholds[metric])
        span = [x[i] - width * 1.1, x[i] + width * 1.1]
        ax.plot(span, [threshold, threshold], "k--", linewidth=1.2, gid=f"threshold/{metric}")
        if not ev.paired[metric].measured:
            na = f"n/a\nno {ITEM_TYPE_OF[metric]} item"
            ax.text(
                x[i],
                0.12,
                na,
                ha="center",
                va="bottom",
                fontsize=9,
                color=_GREY,
                gid=f"na/{metric}",
            )
    handles.append(Line2D([], [], color="black", linestyle="--", label="threshold"))
    if any(bar.get_facecolor() == to_rgba(_BLOCKING_COLOR) for bar in ax.patches):
        handles.append(Patch(color=_BLOCKING_COLOR, label="blocks the release"))
    ticks = [f"{m}\n(threshold {format_fraction(ev.thresholds[m])})" for m in RATE_METRICS]
    ax.set_xticks(x, ticks)
    ax.set_ylim(0, 1.18)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("rate")
    ax.set_title(f"{ev.baseline} \u2192 {ev.candidate}: {verdict_word(ev.release)}")
    place_legend(ax, "upper center", (0.5, -0.18), handles=handles, ncol=4, fontsize=9)
    return literal_axes(ax, hide_spines=("top", "right"))


def item_grid_outcomes(evaluation, versions=None) -> pd.DataFrame:
    """The outcome of every check of every item, as drawn by :func:`plot_item_grid`.

    Parameters
    ----------
    evaluation : Evaluation, EvalInput or path
    versions : sequence of str, optional
        Version labels, default the baseline and the candidate.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``item_id`` (golden order), one column per (version,
        check) with check in ``correct``, ``cited``, ``refused``, holding one
        of :data:`OUTCOMES`: ``pass``; ``fail``; ``violation`` (a REFUSE item
        answered); ``missing`` (no result line); ``n/a`` (the check does not
        apply to the item's type). With repeated trials a cell is ``pass``
        when every trial of the item passes the check, else ``fail`` (for
        ``refused``: ``violation``, the item answered in at least one trial,
        as the gate counts violations).
    """
    ev = _evaluation(evaluation)
    grid = ev._all_versions_grid
    versions = list((ev.baseline, ev.candidate) if versions is None else versions)
    unknown = [v for v in versions if v not in grid.versions]
    if unknown:
        raise InputError(f"unknown version label(s): {', '.join(map(repr, unknown))}")
    shape = grid.row_of.shape
    # Per cell: the trials (one or none without repeated trials) and those passing each check.
    trials, passes = grid.trials.reshape(shape), grid.passes
    is_answer = grid.is_answer.reshape(shape)
    columns = {}
    for version in versions:
        v = grid.versions.index(version)
        n = trials[v]
        for check, metric in _CHECK_METRIC.items():
            k = passes[metric].reshape(shape)[v]
            # n/a (a check of the other item type) before missing, then pass when every trial does
            cases = [is_answer[v] == (check == "refused"), n == 0, k == n]
            failed = "violation" if check == "refused" else "fail"
            outcome = np.select(cases, ["n/a", "missing", "pass"], failed)
            columns[(version, check)] = outcome.astype(object)
    frame = pd.DataFrame(columns, index=pd.Index(ev.data.golden["item_id"], name="item_id"))
    frame.columns = pd.MultiIndex.from_tuples(list(columns), names=["version", "check"])
    return frame


def plot_item_grid(
    evaluation: Evaluation | InputSource,
    ax: Axes | None = None,
    *,
    versions: Sequence[str] | None = None,
    max_items: int = GRID_MAX_ITEMS,
) -> Axes:
    """Items down, checks across: pass / fail / violation / missing per cell.

    Columns are ``correct``, ``cited`` and ``refused`` for each version
    (baseline first), separated by a white gap. ``correct`` and ``cited``
    apply to ANSWER items, ``refused`` to REFUSE items (an answered REFUSE
    item is a violation); other cells are ``n/a``. With ``ax=None`` the figure
    grows with the number of items up to 14 inches; item labels are thinned
    so they never overlap (every item labelled up to about 60 items, then
    every 2nd, 3rd, ... as the axis label says).

    Above ``max_items`` items (default :data:`GRID_MAX_ITEMS`, 200) one cell
    per item would be thinner than a pixel, so the chart shows instead, per
    (version, check), one horizontal bar split into the number of items of
    each outcome (``n/a`` cells left out), with the counts written on it. The
    per-item outcomes stay available from :func:`item_grid_outcomes`.

    Parameters
    ----------
    evaluation : Evaluation, EvalInput or path
    ax : matplotlib.axes.Axes, optional
    versions : sequence of str, optional
        Version labels to show, default the baseline and the candidate.
    max_items : int
        The largest golden set drawn item by item.

    Returns
    -------
    matplotlib.axes.Axes
        Item by item: one image (``gid`` ``"item-grid"``) whose array holds
        the index of each cell's outcome in :data:`OUTCOMES`. Aggregated:
        bar segments with ``gid`` ``"count/<version>/<check>/<outcome>"``
        (width = the number of items).

    Examples
    --------
    >>> ax = be.plot_item_grid(be.evaluate("data/example.txt"))
    >>> type(ax).__name__, ax.get_ylabel(), [t.get_text() for t in ax.get_yticklabels()]
    ('Axes', 'item', ['q1', 'q2', 'q3', 'q4'])
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap

    outcomes = item_grid_outcomes(evaluation, versions)
    n_items, n_cols = outcomes.shape
    if n_items > max_items:
        return _plot_outcome_counts(outcomes, ax)
    ax = new_axes(ax, (2.6 + 0.75 * n_cols, min(14.0, max(3.0, 1.4 + 0.17 * n_items))))
    ax.imshow(
        np.vectorize(OUTCOMES.index, otypes=[int])(outcomes.to_numpy()),
        cmap=ListedColormap([OUTCOME_COLORS[o] for o in OUTCOMES]),
        norm=BoundaryNorm(np.arange(len(OUTCOMES) + 1) - 0.5, len(OUTCOMES)),
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, n_cols - 0.5, n_items - 0.5, -0.5),
        gid="item-grid",
    )
    # White gaps: thin between cells while they are big enough, thick between versions.
    if n_items <= 80:
        for y in np.arange(n_items + 1) - 0.5:
            ax.axhline(y, color="white", linewidth=0.6)
        for xpos in np.arange(n_cols + 1) - 0.5:
            ax.axvline(xpos, color="white", linewidth=0.6)
    for xpos in np.arange(len(GRID_CHECKS), n_cols, len(GRID_CHECKS)) - 0.5:
        ax.axvline(xpos, color="white", linewidth=4)

    ax.xaxis.tick_top()
    ax.set_xticks(np.arange(n_cols), outcomes.columns.map("\n".join), fontsize=8)
    fontsize = 8 if n_items <= 60 else 7
    fig = cast("Figure", ax.get_figure(root=True))
    height_pt = ax.get_position().height * fig.get_figheight() * 72
    max_labels = max(1, int(height_pt / (fontsize * 1.35)))
    step = max(1, math.ceil(n_items / max_labels))
    rows = np.arange(0, n_items, step)
    ax.set_yticks(rows, [outcomes.index[int(i)] for i in rows], fontsize=fontsize)
    ax.tick_params(length=0)
    ax.set_ylabel("item" if step == 1 else f"item (every {ordinal(step)} labelled)")
    ax.set_xlim(-0.5, n_cols - 0.5)
    ax.set_ylim(n_items - 0.5, -0.5)
    _outcome_legend(ax, OUTCOMES, 1.02, edgecolor="#bdbdbd")
    return literal_axes(ax, hide_spines=tuple(ax.spines))


def _plot_outcome_counts(outcomes: pd.DataFrame, ax) -> Axes:
    """The aggregated item grid: items per outcome for each (version, check)."""
    n_items, n_cols = outcomes.shape
    ax = new_axes(ax, (9, 1.6 + 0.45 * n_cols))
    shown = [o for o in OUTCOMES if o != "n/a"]
    columns = cast("list[tuple[str, str]]", list(outcomes.columns))
    for row, (version, check) in enumerate(columns):
        counts = outcomes[(version, check)].value_counts().reindex(shown, fill_value=0)
        total = max(1, counts.sum())
        left = 0
        for outcome, n in zip(shown, counts, strict=True):
            gid = f"count/{version}/{check}/{outcome}"
            ax.barh(row, n, 0.7, left=left, color=OUTCOME_COLORS[outcome], gid=gid)
            if n and n / total >= 0.06:
                color = "white" if outcome != "missing" else "black"
                _text(ax, (left + n / 2, row), f"{n:,}", ha="center", color=color)
            left += n
        if not counts.sum():
            _text(ax, (0, row), "  n/a: no item of this type")
    ax.set_yticks(np.arange(n_cols), [f"{v} {check}" for v, check in columns], fontsize=8)
    ax.set_ylim(n_cols - 0.5, -0.5)
    ax.set_xlabel("items (one bar per version and check; checks that do not apply left out)")
    ax.set_title(f"Outcomes of {n_items:,} items, counted per check")
    _outcome_legend(ax, shown, 1.01)
    return literal_axes(ax, hide_spines=("top", "right"))


def plot_changes(evaluation: Evaluation | InputSource, ax: Axes | None = None) -> Axes:
    """Items that flipped between the versions, per metric.

    One row per metric: regressed items (passed in the baseline, fail in
    the candidate) as a bar to the left, fixed items as a bar to the right;
    each bar has its count at its end and its item ids under it (the first
    six, then ``+N more``). Items with no result in a version are
    ``missing``: never drawn as fixed or regressed, they are named in grey
    at the right of their metric's row. With repeated trials each metric's
    label also counts its ``mixed`` items. Counts and ids are those of
    ``evaluation.paired`` (the :func:`buddy_eval.item_changes` table).

    Parameters
    ----------
    evaluation : Evaluation, EvalInput or path
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"regressed/<metric>"`` (width = minus the count)
        and ``"fixed/<metric>"`` (width = the count); the counts and id lists
        are texts with ``gid`` ``"count/<change>/<metric>"`` and
        ``"ids/<change>/<metric>"`` (``change`` also ``missing``).

    Examples
    --------
    >>> ax = be.plot_changes(be.evaluate("data/example.txt"))
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'Items that changed: OLD → NEW')
    """
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ev = _evaluation(evaluation)
    ax = new_axes(ax, (9, 3.6))
    metrics = ev.paired.metrics
    biggest = max(1, *(m.count(change) for m in metrics for change in ("fixed", "regressed")))
    pad = biggest * 0.02  # between a bar's end and its count, the zero line and its ids
    for i, m in enumerate(metrics):
        for change, sign, color, align in _CHANGE_BARS:
            ids = m.ids[change]
            n = len(ids)
            key = f"{change}/{m.metric}"
            ax.barh(
                i - 0.12, sign * n, 0.42, color=color, label=change if i == 0 else None, gid=key
            )
            _text(
                ax, (sign * (n + pad), i - 0.12), str(n), ha=align, fontsize=8, gid=f"count/{key}"
            )
            if ids:
                # The ids go under the bar, from the zero line outwards.
                ids_text = format_id_list(ids, _MAX_IDS_PER_BAR)
                _text(ax, (sign * pad, i + 0.26), ids_text, ha=align, color=_GREY, gid=f"ids/{key}")
        if m.missing:
            # At the right of the row, in grey: the count, and the ids under it.
            right = {"transform": ax.get_yaxis_transform(), "ha": "left", "color": MUTED_COLOR}
            count = f"{m.missing} missing (not paired)"
            _text(ax, (1.01, i - 0.12), count, gid=f"count/missing/{m.metric}", **right)
            ids_text = format_id_list(m.ids["missing"], _MAX_IDS_PER_BAR)
            _text(ax, (1.01, i + 0.2), ids_text, gid=f"ids/missing/{m.metric}", **right)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-biggest * 1.15, biggest * 1.15)
    ax.set_ylim(len(metrics) - 0.45, -0.55)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{abs(value):g}"))
    # With repeated trials the items whose rate moved too little to call are counted too.
    mixed = {m.metric: f"\n({m.count('mixed')} mixed)" for m in metrics if "mixed" in m.ids}
    ax.set_yticks(np.arange(len(metrics)), [m.metric + mixed.get(m.metric, "") for m in metrics])
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(
        f"\u2190 regressed (passed in {ev.baseline})    items    "
        f"fixed (pass in {ev.candidate}) \u2192"
    )
    if not any(m.count("fixed") or m.count("regressed") for m in metrics):
        ax.text(0.5, 0.5, "no item changed", transform=ax.transAxes, ha="center", va="center")
    ax.set_title(f"Items that changed: {ev.baseline} \u2192 {ev.candidate}")
    place_legend(ax, "upper center", (0.5, -0.22), ncol=2)
    return literal_axes(ax, hide_spines=("top", "right", "left"))


def plot_diff_intervals(comparison: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Paired differences per metric with their intervals.

    Each metric is a row: the interval from ``diff_ci_low`` to
    ``diff_ci_high`` as a line, ``diff`` as a dot (filled when
    ``ready_for_decision``, hollow and grey otherwise) and the ``note``
    (wrapped) under it. A row whose ``diff`` is NA reads ``not computed``; a missing
    interval draws the dot alone. A vertical line marks 0 (no change). With
    a ``diff_method`` column (as ``evaluation.comparison`` has), the title
    names the interval method of the ready metrics.

    Parameters
    ----------
    comparison : pandas.DataFrame, or Evaluation, EvalInput or path
        One row per metric with the columns ``metric``, ``diff``,
        ``diff_ci_low``, ``diff_ci_high`` (candidate minus baseline; NA where
        not computed), ``ready_for_decision`` (bool) and ``note`` (str or NA),
        as ``evaluation.comparison``; an evaluation (or an input, evaluated
        with the default labels) draws its ``comparison``.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Dots have ``gid`` ``"diff/<metric>"``, intervals
        ``"interval/<metric>"``, not-computed labels ``"na/<metric>"``, notes
        ``"note/<metric>"``.

    Raises
    ------
    InputError
        When ``comparison`` is not a DataFrame with those columns.

    Examples
    --------
    >>> ev = be.evaluate("data/sample_release.txt")
    >>> ax = be.plot_diff_intervals(ev.comparison)
    >>> type(ax).__name__, ax.get_xlabel()
    ('Axes', 'paired difference, candidate − baseline')
    """
    if isinstance(comparison, dict):
        raise InputError(f"expected a comparison DataFrame, got {type(comparison).__name__}")
    if not isinstance(comparison, pd.DataFrame):
        comparison = _evaluation(comparison).comparison
    absent = [c for c in _COMPARISON_COLUMNS if c not in comparison.columns]
    if absent:
        raise InputError(
            f"comparison DataFrame lacks column(s) {', '.join(map(repr, absent))}; "
            f"expected {', '.join(_COMPARISON_COLUMNS)}"
        )
    n = len(comparison)
    ax = new_axes(ax, (8, 1.4 + 0.75 * max(n, 1)))
    rows = comparison.reset_index(drop=True)
    labelled = set()  # readiness already in the legend
    for y, row in enumerate(rows.to_dict("records")):
        metric = str(row["metric"])
        ready = not pd.isna(row["ready_for_decision"]) and bool(row["ready_for_decision"])
        color = VERSION_COLORS[1] if ready else MUTED_COLOR
        if pd.isna(row["diff"]):
            _text(
                ax, (0, y), NOT_COMPUTED, ha="center", fontsize=8, color=_GREY, gid=f"na/{metric}"
            )
        else:
            low, high = row["diff_ci_low"], row["diff_ci_high"]
            if not (pd.isna(low) or pd.isna(high)):
                ax.plot(
                    [float(low), float(high)],
                    [y, y],
                    color=color,
                    linewidth=2.5,
                    solid_capstyle="butt",
                    gid=f"interval/{metric}",
                )
            label = None if ready in labelled else (READY if ready else NOT_READY)
            face = color if ready else "white"
            ax.plot(
                [float(row["diff"])],
                [y],
                "o",
                markersize=7,
                color=color,
                markerfacecolor=face,
                label=label,
                gid=f"diff/{metric}",
            )
            labelled.add(ready)
        note = "" if pd.isna(row["note"]) else str(row["note"])
        if note:
            # Under the row, from the left edge: notes can be a sentence long.
            text = textwrap.fill(note, _NOTE_WIDTH)
            left = {"transform": ax.get_yaxis_transform(), "ha": "left", "color": _GREY}
            _text(ax, (0.01, y + 0.32), text, gid=f"note/{metric}", **left)
    ends = [0.0]
    for column in ("diff", "diff_ci_low", "diff_ci_high"):
        ends += [float(v) for v in rows[column] if not pd.isna(v)]
    pad = max(0.05, (max(ends) - min(ends)) * 0.1)
    ax.set_xlim(min(ends) - pad, max(ends) + pad)
    ax.axvline(0, color="black", linewidth=0.8, linestyle=":")
    ax.set_yticks(np.arange(n), [str(m) for m in rows["metric"]])
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(n - 0.4, -0.5)
    ax.set_xlabel("paired difference, candidate \u2212 baseline")
    title = "Paired differences with intervals"
    if "diff_method" in rows.columns:  # named by the result, never assumed by the chart
        ready_rows = rows["ready_for_decision"].fillna(False).astype(bool)
        methods = [str(v) for v in rows.loc[ready_rows, "diff_method"].dropna().unique()]
        if len(methods) == 1:
            title += f"\n({methods[0]})"
    ax.set_title(title)
    if labelled:
        place_legend(ax, "upper left", (1.0, 1.0))
    return literal_axes(ax, hide_spines=("top", "right"))


#: Flaky items named on :func:`plot_trial_rates` before "and N more".
_MAX_NAMED_FLAKY = 8


def plot_trial_rates(
    evaluation: Evaluation | InputSource, ax: Axes | None = None, *, metric: str = "correctness"
) -> Axes:
    """Per-item pass rates over repeated trials: baseline (x) against candidate (y).

    One point per item with trials in both versions; flaky items (trials that
    disagree within a version) are highlighted and named. Points above the
    diagonal improved, points below it got worse. The legend sits under the
    axes, so it never covers a point. Reads
    :func:`buddy_eval.item_changes` only.

    Parameters
    ----------
    evaluation : Evaluation, EvalInput or path
        Loaded with repeated trials (``load(path, trials=True)``).
    ax : matplotlib.axes.Axes, optional
    metric : str
        ``correctness`` (default), ``citation`` or ``refusal``; by name, so
        every ``plot_*`` takes its data, then ``ax``.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InputError
        When ``metric`` is not a rate metric or the input has no repeated trials.

    Examples
    --------
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> ax = be.plot_trial_rates(ev, metric="refusal")
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'refusal: per-item pass rate over trials')
    """
    ev = _evaluation(evaluation)
    if metric not in RATE_METRICS:
        raise InputError(f"metric must be one of {', '.join(RATE_METRICS)}, got {metric!r}")
    changes = ev.item_changes()
    if "flaky" not in changes:
        raise InputError(
            "the evaluation has one result per item and version: no per-item trial rates "
            "(load the input with trials=True, or run buddy-eval --trials)"
        )
    rows = changes[(changes["metric"] == metric)].dropna(subset=["baseline_rate", "candidate_rate"])
    ax = new_axes(ax, (5.5, 6.0))
    # Rates take few values: a small fixed spread keeps equal points apart.
    spread = (np.arange(len(rows)) % 5 - 2) * 0.008
    x = rows["baseline_rate"].to_numpy(dtype=float) + spread
    y = rows["candidate_rate"].to_numpy(dtype=float) - spread
    flaky = rows["flaky"].to_numpy(dtype=bool)
    ax.plot([0, 1], [0, 1], color=MUTED_COLOR, linestyle="--", linewidth=1)
    consistent = f"consistent ({int((~flaky).sum())})"
    ax.scatter(x[~flaky], y[~flaky], color=VERSION_COLORS[1], alpha=0.6, label=consistent)
    ax.scatter(x[flaky], y[flaky], color=LOSS_COLOR, alpha=0.8, label=f"flaky ({flaky.sum()})")
    named = rows["item_id"][flaky].tolist()
    for item, px, py in zip(named[:_MAX_NAMED_FLAKY], x[flaky], y[flaky], strict=False):
        offset_text(ax, item, (px, py), (3, 3), fontsize=7)
    more = len(named) - _MAX_NAMED_FLAKY
    title = f"{metric}: per-item pass rate over trials"
    if more > 0:
        title += f"\n({more} more flaky items not named)"
    ax.set(
        xlim=(-0.05, 1.05),
        ylim=(-0.05, 1.05),
        xlabel=f"{ev.baseline} (baseline) rate",
        ylabel=f"{ev.candidate} (candidate) rate",
        title=title,
    )
    # Under the axes, never over a point, whatever the metric's rates.
    place_legend(ax, "upper center", (0.5, -0.13), ncol=2)
    return literal_axes(ax)
