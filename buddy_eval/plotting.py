"""Charts of an evaluation, for notebooks and reports (matplotlib only).

Every function takes computed results (an :class:`~buddy_eval.Evaluation`, or
the comparison DataFrame of :mod:`buddy_eval.stats`) plus ``ax=None``, draws
on ``ax`` (a new figure sized for the data when None) and returns the Axes.
Nothing here computes a metric: the figures come from ``evaluation.metrics``,
``evaluation.items`` and :func:`buddy_eval.display.flipped_items`.

matplotlib is imported inside the functions, so importing this module (or
``buddy_eval``) does not load it and the command-line gate never does.

Artists carry a ``gid`` naming what they show (``"bar/NEW/correctness"``,
``"threshold/refusal"``, ...), so tests and scripts can find them.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .display import FLIP_CHECKS, flipped_items
from .errors import InputError
from .formatting import format_fraction
from .scoring import RATE_METRICS

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = [
    "GRID_CHECKS",
    "OUTCOMES",
    "OUTCOME_COLORS",
    "VERSION_COLORS",
    "item_grid_outcomes",
    "plot_changes",
    "plot_diff_intervals",
    "plot_item_grid",
    "plot_metrics",
]

#: Bar colours of the baseline and the candidate.
VERSION_COLORS = ("#9db4d3", "#1f4e79")
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

_FIXED_COLOR, _REGRESSED_COLOR = "#1b9e77", "#d95f02"
_NA_COLOR = "#8c8c8c"
_MAX_IDS_PER_BAR = 6
_NOTE_WIDTH = 110  # characters per line of a note under a row
_COMPARISON_COLUMNS = (
    "metric",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "ready_for_decision",
    "note",
)


def _axes(ax, figsize):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _verdict_word(evaluation) -> str:
    return "RELEASE" if evaluation.release else "BLOCK"


def plot_metrics(evaluation, ax: Axes | None = None) -> Axes:
    """Grouped bars of correctness, citation and refusal for both versions.

    Each metric gets a bar per version (baseline light, candidate dark) with
    its value written above it (rounded like the canonical report), and a
    dashed line at its threshold. A metric that is not measured (no item of
    its type) is drawn as an empty hatched outline labelled ``n/a``, never as
    a bar of height 0. The legend gives each version's violations and
    missing results; the title gives the verdict.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`buddy_eval.evaluate`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new 8 x 4.5 inch figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"bar/<version>/<metric>"`` (height = the exact
        value as a float; for ``n/a`` the outline spans the axis), their
        labels ``"label/<version>/<metric>"``, threshold lines
        ``"threshold/<metric>"``.
    """
    ax = _axes(ax, (8, 4.5))
    metrics = evaluation.metrics.set_index(["version", "metric"])
    versions = (evaluation.baseline, evaluation.candidate)
    x = np.arange(len(RATE_METRICS))
    width = 0.38
    na_drawn = False
    for j, version in enumerate(versions):
        offset = (j - 0.5) * width
        violations = int(metrics.loc[(version, "violations"), "numerator"])
        missing = int(metrics.loc[(version, "correctness"), "missing"]) + int(
            metrics.loc[(version, "refusal"), "missing"]
        )
        notes = [f"{violations} violation{'s' * (violations != 1)}"]
        if missing:
            notes.append(f"{missing} missing")
        label = f"{version} ({', '.join(notes)})"
        for i, metric in enumerate(RATE_METRICS):
            row = metrics.loc[(version, metric)]
            num, den = int(row["numerator"]), int(row["denominator"])
            xpos = x[i] + offset
            if den:
                (bar,) = ax.bar(
                    xpos, num / den, width, color=VERSION_COLORS[j], label=label if i == 0 else None
                )
                ax.text(
                    xpos,
                    num / den + 0.015,
                    format_fraction(Fraction(num, den)),
                    ha="center",
                    va="bottom",
                    fontsize=9,
                    # readable where a threshold line crosses it
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5, "alpha": 0.85},
                    zorder=3,
                    gid=f"label/{version}/{metric}",
                )
            else:
                (bar,) = ax.bar(
                    xpos,
                    1.0,
                    width,
                    fill=False,
                    hatch="///",
                    edgecolor=_NA_COLOR,
                    linewidth=0.8,
                    label="not measured" if not na_drawn else None,
                )
                na_drawn = True
                ax.text(
                    xpos,
                    0.5,
                    "n/a",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="#404040",
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
                    gid=f"label/{version}/{metric}",
                )
            bar.set_gid(f"bar/{version}/{metric}")
            if i == 0 and den == 0:
                # keep the version in the legend even when its first metric is n/a
                ax.bar(xpos, 0, 0, color=VERSION_COLORS[j], label=label)
    for i, metric in enumerate(RATE_METRICS):
        threshold = float(evaluation.thresholds[metric])
        ax.plot(
            [x[i] - width * 1.1, x[i] + width * 1.1],
            [threshold, threshold],
            color="black",
            linestyle="--",
            linewidth=1.2,
            label="threshold" if i == 0 else None,
            gid=f"threshold/{metric}",
        )
    ticks = [
        f"{metric}\n(threshold {format_fraction(evaluation.thresholds[metric])})"
        for metric in RATE_METRICS
    ]
    ax.set_xticks(x, ticks)
    ax.set_ylim(0, 1.12)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("rate")
    ax.set_title(
        f"{evaluation.baseline} \u2192 {evaluation.candidate}: {_verdict_word(evaluation)}"
    )
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=4, frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def item_grid_outcomes(evaluation, versions=None) -> pd.DataFrame:
    """The outcome of every check of every item, as drawn by :func:`plot_item_grid`.

    Parameters
    ----------
    evaluation : Evaluation
    versions : sequence of str, optional
        Version labels, default the baseline and the candidate.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``item_id`` (golden order), one column per (version,
        check) with check in ``correct``, ``cited``, ``refused``, holding one
        of :data:`OUTCOMES`: ``pass``; ``fail``; ``violation`` (a REFUSE item
        answered); ``missing`` (no result line); ``n/a`` (the check does not
        apply to the item's type).
    """
    versions = list((evaluation.baseline, evaluation.candidate) if versions is None else versions)
    unknown = [v for v in versions if v not in evaluation.items["version"].cat.categories]
    if unknown:
        raise InputError(f"unknown version label(s): {', '.join(map(repr, unknown))}")
    columns = {}
    items = evaluation.items
    for version in versions:
        rows = items[items["version"] == version].reset_index(drop=True)
        missing = rows["missing"].to_numpy(dtype=bool)
        for check, column in GRID_CHECKS.items():
            value = rows[column]
            applies = value.notna().to_numpy(dtype=bool)
            passed = value.fillna(False).to_numpy(dtype=bool)
            failed = "violation" if check == "refused" else "fail"
            out = np.where(passed, "pass", failed)
            out = np.where(missing, "missing", out)
            columns[(version, check)] = np.where(applies, out, "n/a")
        index = pd.Index(rows["item_id"], name="item_id")
    frame = pd.DataFrame(columns, index=index)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["version", "check"])
    return frame


def plot_item_grid(evaluation, ax: Axes | None = None, *, versions=None) -> Axes:
    """Items down, checks across: pass / fail / violation / missing per cell.

    Columns are ``correct``, ``cited`` and ``refused`` for each version
    (baseline first), separated by a white gap. ``correct`` and ``cited``
    apply to ANSWER items, ``refused`` to REFUSE items (an answered REFUSE
    item is a violation); other cells are ``n/a``. With ``ax=None`` the figure
    grows with the number of items up to 14 inches; item labels are thinned
    so they never overlap (every item labelled up to about 60 items).

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib.axes.Axes, optional
    versions : sequence of str, optional
        Version labels to show, default the baseline and the candidate.

    Returns
    -------
    matplotlib.axes.Axes
        Holds one image (``gid`` ``"item-grid"``) whose array holds the
        index of each cell's outcome in :data:`OUTCOMES`.
    """
    from matplotlib.colors import BoundaryNorm, ListedColormap
    from matplotlib.patches import Patch

    outcomes = item_grid_outcomes(evaluation, versions)
    n_items, n_cols = outcomes.shape
    n_checks = len(GRID_CHECKS)
    figsize = (2.6 + 0.75 * n_cols, min(14.0, max(3.0, 1.4 + 0.17 * n_items)))
    ax = _axes(ax, figsize)
    codes = np.vectorize(OUTCOMES.index, otypes=[int])(outcomes.to_numpy()) if n_items else None
    if codes is None:
        codes = np.zeros((0, n_cols), dtype=int)
    cmap = ListedColormap([OUTCOME_COLORS[o] for o in OUTCOMES])
    norm = BoundaryNorm(np.arange(len(OUTCOMES) + 1) - 0.5, len(OUTCOMES))
    ax.imshow(
        codes,
        cmap=cmap,
        norm=norm,
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
    for xpos in np.arange(n_checks, n_cols, n_checks) - 0.5:
        ax.axvline(xpos, color="white", linewidth=4)

    ax.xaxis.tick_top()
    labels = [f"{version}\n{check}" for version, check in outcomes.columns]
    ax.set_xticks(np.arange(n_cols), labels, fontsize=8)
    fontsize = 8 if n_items <= 60 else 7
    fig = ax.figure
    height_pt = ax.get_position().height * fig.get_figheight() * 72
    max_labels = max(1, int(height_pt / (fontsize * 1.35)))
    step = max(1, math.ceil(n_items / max_labels))
    rows = np.arange(0, n_items, step)
    ax.set_yticks(rows, [outcomes.index[i] for i in rows], fontsize=fontsize)
    ax.tick_params(length=0)
    ax.set_ylabel("item" if step == 1 else f"item (every {step}th labelled)")
    ax.set_xlim(-0.5, n_cols - 0.5)
    ax.set_ylim(n_items - 0.5, -0.5)
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [Patch(facecolor=OUTCOME_COLORS[o], edgecolor="#bdbdbd", label=o) for o in OUTCOMES]
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        frameon=False,
        fontsize=8,
        title="outcome",
        title_fontsize=8,
    )
    return ax


def _id_text(ids: list[str]) -> str:
    shown = ", ".join(ids[:_MAX_IDS_PER_BAR])
    more = len(ids) - _MAX_IDS_PER_BAR
    return f"{shown} +{more} more" if more > 0 else shown


def plot_changes(evaluation, ax: Axes | None = None) -> Axes:
    """Items that flipped between the versions, per metric.

    One row per metric: regressed items (passed in the baseline, fail in
    the candidate) as a bar to the left, fixed items as a bar to the right;
    each bar has its count at its end and its item ids under it (the first
    six, then ``+N more``). A golden item with no candidate result counts as
    failed, as in the metrics. The flipped items themselves are
    :func:`buddy_eval.display.flipped_items`.

    Parameters
    ----------
    evaluation : Evaluation
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Bars have ``gid`` ``"regressed/<metric>"`` (width = minus the count)
        and ``"fixed/<metric>"`` (width = the count); the counts and id lists
        are texts with ``gid`` ``"count/<change>/<metric>"`` and
        ``"ids/<change>/<metric>"``.
    """
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax = _axes(ax, (9, 3.6))
    flips = flipped_items(evaluation)
    y = np.arange(len(FLIP_CHECKS))
    biggest = max(1, int(flips.groupby(["metric", "change"], observed=False).size().max()))
    for i, metric in enumerate(FLIP_CHECKS):
        for change, sign, color in (
            ("regressed", -1, _REGRESSED_COLOR),
            ("fixed", 1, _FIXED_COLOR),
        ):
            ids = flips.loc[
                (flips["metric"] == metric) & (flips["change"] == change), "item_id"
            ].tolist()
            (bar,) = ax.barh(
                y[i] - 0.12, sign * len(ids), 0.42, color=color, label=change if i == 0 else None
            )
            bar.set_gid(f"{change}/{metric}")
            align = "left" if sign > 0 else "right"
            ax.text(
                sign * (len(ids) + biggest * 0.02),
                y[i] - 0.12,
                str(len(ids)),
                ha=align,
                va="center",
                fontsize=8,
                gid=f"count/{change}/{metric}",
            )
            if ids:
                # The ids go under the bar, from the zero line outwards.
                ax.text(
                    sign * biggest * 0.02,
                    y[i] + 0.26,
                    _id_text(ids),
                    ha=align,
                    va="center",
                    fontsize=7,
                    color="#404040",
                    gid=f"ids/{change}/{metric}",
                )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlim(-biggest * 1.15, biggest * 1.15)
    ax.set_ylim(len(FLIP_CHECKS) - 0.45, -0.55)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{abs(value):g}"))
    ax.set_yticks(y, list(FLIP_CHECKS))
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(
        f"\u2190 regressed (passed in {evaluation.baseline})    items    "
        f"fixed (pass in {evaluation.candidate}) \u2192"
    )
    if flips.empty:
        ax.text(0.5, 0.5, "no item changed", transform=ax.transAxes, ha="center", va="center")
    ax.set_title(f"Items that changed: {evaluation.baseline} \u2192 {evaluation.candidate}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    ax.spines[["top", "right", "left"]].set_visible(False)
    return ax


def _is_na(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def plot_diff_intervals(comparison: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Paired differences per metric with their intervals.

    Each metric is a row: the interval from ``diff_ci_low`` to
    ``diff_ci_high`` as a line, ``diff`` as a dot (filled when
    ``ready_for_decision``, hollow and grey otherwise) and the ``note``
    (wrapped) under it. A row whose ``diff`` is NA reads ``not computed``; a missing
    interval draws the dot alone. A vertical line marks 0 (no change).

    Parameters
    ----------
    comparison : pandas.DataFrame
        One row per metric with the columns ``metric``, ``diff``,
        ``diff_ci_low``, ``diff_ci_high`` (candidate minus baseline; NA where
        not computed), ``ready_for_decision`` (bool) and ``note`` (str or NA),
        as returned by :func:`buddy_eval.stats.compare`.
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
    """
    if not isinstance(comparison, pd.DataFrame):
        raise InputError(f"expected a comparison DataFrame, got {type(comparison).__name__}")
    absent = [c for c in _COMPARISON_COLUMNS if c not in comparison.columns]
    if absent:
        raise InputError(
            f"comparison DataFrame lacks column(s) {', '.join(map(repr, absent))}; "
            f"expected {', '.join(_COMPARISON_COLUMNS)}"
        )
    n = len(comparison)
    ax = _axes(ax, (8, 1.4 + 0.75 * max(n, 1)))
    rows = comparison.reset_index(drop=True)
    y = np.arange(n)
    shown_ready = shown_waiting = False
    for i, row in rows.iterrows():
        metric = str(row["metric"])
        ready = not _is_na(row["ready_for_decision"]) and bool(row["ready_for_decision"])
        color = VERSION_COLORS[1] if ready else _NA_COLOR
        note = "" if _is_na(row["note"]) else str(row["note"])
        if _is_na(row["diff"]):
            ax.text(
                0,
                y[i],
                "not computed",
                ha="center",
                va="center",
                fontsize=8,
                color="#404040",
                gid=f"na/{metric}",
            )
        else:
            diff = float(row["diff"])
            low, high = row["diff_ci_low"], row["diff_ci_high"]
            if not (_is_na(low) or _is_na(high)):
                ax.plot(
                    [float(low), float(high)],
                    [y[i], y[i]],
                    color=color,
                    linewidth=2.5,
                    solid_capstyle="butt",
                    gid=f"interval/{metric}",
                )
            if ready:
                label, shown_ready = (None if shown_ready else "ready for decision"), True
            else:
                label, shown_waiting = (None if shown_waiting else "not ready"), True
            ax.plot(
                [diff],
                [y[i]],
                marker="o",
                markersize=7,
                linestyle="none",
                color=color,
                markerfacecolor=color if ready else "white",
                label=label,
                gid=f"diff/{metric}",
            )
        if note:
            # Under the row, from the left edge: notes can be a sentence long.
            ax.text(
                0.01,
                y[i] + 0.32,
                textwrap.fill(note, _NOTE_WIDTH),
                transform=ax.get_yaxis_transform(),
                ha="left",
                va="center",
                fontsize=7,
                color="#404040",
                gid=f"note/{metric}",
            )
    ends = [0.0]
    for column in ("diff", "diff_ci_low", "diff_ci_high"):
        ends += [float(v) for v in rows[column] if not _is_na(v)]
    pad = max(0.05, (max(ends) - min(ends)) * 0.1)
    ax.set_xlim(min(ends) - pad, max(ends) + pad)
    ax.axvline(0, color="black", linewidth=0.8, linestyle=":")
    ax.set_yticks(y, [str(m) for m in rows["metric"]])
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(n - 0.4, -0.5)
    ax.set_xlabel("paired difference, candidate \u2212 baseline")
    ax.set_title("Paired differences with intervals")
    if shown_ready or shown_waiting:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return ax
