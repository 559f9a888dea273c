"""Charts of a ledger's history: the rates over versions, and the items that changed.

Both take a :class:`~buddy_eval._ledger_views.History` (or a ledger path)
and ``ax=None``, and return the Axes. matplotlib is imported inside the functions.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from .._plot_base import LITERAL, literal_axes, new_axes
from .._vocabulary import RATE_METRICS
from ._history import HistoryResults, read_history

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_history", "plot_history_grid"]

_METRIC_COLORS = {"correctness": "#1f4e79", "citation": "#2e7d32", "refusal": "#8e24aa"}
_RELEASE_COLOR = "#555555"
_OVERRIDE_COLOR = "#b3261e"
#: Items the grid draws at most (the most unstable first).
GRID_MAX_ITEMS = 60


def _history(found: HistoryResults | str | os.PathLike[str]) -> HistoryResults:
    return found if isinstance(found, HistoryResults) else read_history(found, HistoryResults)


def plot_history(found: HistoryResults | str | os.PathLike[str], ax: Axes | None = None) -> Axes:
    """Correctness, citation and refusal over the versions, in recording order.

    A line per metric, broken where the golden set changed (a dashed
    vertical line marks the change: the rates on either side are not on the
    same measuring stick); dotted horizontal lines at the latest thresholds;
    a vertical band at every released version (red when a BLOCK was overridden).

    Parameters
    ----------
    found : History or path
        :func:`buddy_eval.history` of a ledger, or the ledger's path.
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        Lines have ``gid`` ``"rate/<metric>/<segment>"`` (segment 0, 1, ... per
        golden set run, y = the exact rates as floats, NaN when not measured),
        thresholds ``"threshold/<metric>"``, release marks ``"release/<version>"``,
        golden set changes ``"golden-change/<version>"``.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")
    >>> ax = be.plot_history(path)
    >>> type(ax).__name__, ax.get_title()
    ('Axes', 'rates over versions (bands: released; dashed: golden set changed)')
    >>> tmp.cleanup()
    """
    found = _history(found)
    versions = found.versions
    n = len(versions)
    ax = new_axes(ax, (max(6.0, 1.0 + 0.35 * n), 4.0))
    x = np.arange(n)
    changes = np.flatnonzero(versions["golden_changed"].to_numpy(dtype=bool))
    bounds = [0, *changes.tolist(), n]
    for metric in RATE_METRICS:
        values = versions[metric].to_numpy(dtype=float, na_value=np.nan)
        for segment, (start, end) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
            (line,) = ax.plot(
                x[start:end],
                values[start:end],
                marker="o",
                color=_METRIC_COLORS[metric],
                label=metric if segment == 0 else None,
            )
            line.set_gid(f"rate/{metric}/{segment}")
        if metric in found.thresholds:
            threshold = ax.axhline(
                float(found.thresholds[metric]),
                color=_METRIC_COLORS[metric],
                linestyle=":",
                linewidth=1,
            )
            threshold.set_gid(f"threshold/{metric}")
    for position in changes.tolist():
        mark = ax.axvline(position - 0.5, color="#000000", linestyle="--", linewidth=1)
        mark.set_gid(f"golden-change/{versions['version'].iloc[position]}")
    for position, row in enumerate(versions.to_dict("records")):
        if row["released"]:
            override = isinstance(row["override_reason"], str)
            band = ax.axvspan(
                position - 0.3,
                position + 0.3,
                alpha=0.15,
                color=_OVERRIDE_COLOR if override else _RELEASE_COLOR,
            )
            band.set_gid(f"release/{row['version']}")
    ax.set_xticks(x, versions["version"].tolist(), rotation=45, ha="right")
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("rate")
    ax.set_title("rates over versions (bands: released; dashed: golden set changed)", **LITERAL)
    if n:
        ax.legend(loc="lower left", fontsize="small")
    return literal_axes(ax)


def plot_history_grid(
    found: HistoryResults | str | os.PathLike[str],
    ax: Axes | None = None,
    *,
    max_items: int = GRID_MAX_ITEMS,
) -> Axes:
    """Items that changed outcome across versions, down; versions across: pass or fail.

    Only items whose outcome differs between versions holding them are drawn
    (the most flips first, at most ``max_items``); a cell is white where the
    version's golden set does not hold the item.

    Parameters
    ----------
    found : History or path
    ax : matplotlib.axes.Axes, optional
    max_items : int

    Returns
    -------
    matplotlib.axes.Axes
        One image (``gid`` ``"history-grid"``) whose array holds 1 (passed),
        0 (failed) or NaN (not held) per (item, version).

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> ax = be.plot_history_grid(be.history(path))
    >>> type(ax).__name__, ax.get_title()
    ('Axes', '2 items that changed (green: passed, red: failed)')
    >>> [label.get_text() for label in ax.get_yticklabels()]
    ['q3', 'q4']
    >>> tmp.cleanup()
    """
    from matplotlib.colors import ListedColormap

    found = _history(found)
    items = found.items
    labels = found.versions["version"].tolist()
    table = items.pivot_table(
        index="item_fingerprint",
        columns="version",
        values="passed",
        aggfunc="first",
        sort=False,
    )
    table = table.reindex(columns=labels).astype(float)
    held = table.notna().sum(axis=1)
    passes = table.sum(axis=1)
    changed = table[(passes > 0) & (passes < held)]
    flips = (changed.diff(axis=1).abs() > 0).sum(axis=1)
    order = flips.sort_values(ascending=False, kind="stable").index[:max_items]
    changed = changed.loc[order]
    names = dict(zip(items["item_fingerprint"], items["item_id"], strict=False))
    ax = new_axes(ax, (max(5.0, 1.5 + 0.4 * len(labels)), max(2.5, 1.0 + 0.22 * len(changed))))
    image = ax.imshow(
        changed.to_numpy(dtype=float),
        aspect="auto",
        interpolation="nearest",
        cmap=ListedColormap(["#d9534f", "#5cb85c"]),
        vmin=0,
        vmax=1,
    )
    image.set_gid("history-grid")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(np.arange(len(changed)), [names[fp] for fp in changed.index])
    ax.set_title(f"{len(changed)} items that changed (green: passed, red: failed)", **LITERAL)
    return literal_axes(ax)
