"""What every chart of the gate, ``tasks`` and trials shares: literal text and new axes.

Ids, labels and answers come from user input: an id such as ``$\\q$`` would be parsed as
mathtext (and crash the drawing) or typeset as TeX. Every text artist drawn from input
is therefore made literal with :data:`LITERAL`, and :func:`literal_axes` makes the tick
labels, title, axis labels and legend of a finished Axes literal in one call.
matplotlib is imported inside the functions, so importing this module loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend

__all__ = ["LITERAL", "literal_axes", "literal_legend", "new_axes"]

#: Keyword arguments that make a text artist literal: no mathtext, no TeX.
LITERAL: dict[str, Any] = {"parse_math": False, "usetex": False}


def literal_legend(legend: Legend | None) -> None:
    """Every text of ``legend`` (entries and title) drawn literally."""
    if legend is not None:
        for text in legend.get_texts():
            text.set(**LITERAL)
        legend.get_title().set(**LITERAL)


def literal_axes(ax: Axes) -> Axes:
    """Tick labels, title, axis labels and the legend of ``ax`` drawn literally; returns ``ax``."""
    texts = [*ax.get_xticklabels(), *ax.get_yticklabels()]
    for text in (*texts, ax.title, ax.xaxis.label, ax.yaxis.label):
        text.set(**LITERAL)
    literal_legend(ax.get_legend())
    return ax


def new_axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """``ax`` itself, or the Axes of a new constrained-layout figure of ``figsize`` inches."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=figsize, layout="constrained")
    return new
