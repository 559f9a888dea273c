"""What every chart of the gate, ``tasks`` and trials shares: colours, literal text, new axes.

Ids, labels and answers come from user input: an id such as ``$\\q$`` would be parsed as
mathtext (and crash the drawing) or typeset as TeX. Every text artist drawn from input
is therefore made literal with :data:`LITERAL`, and :func:`literal_axes` makes the tick
labels, title, axis labels, texts and legend of a finished Axes literal in one call.
matplotlib is imported inside the functions, so importing this module loads nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.legend import Legend

__all__ = [
    "GAIN_COLOR",
    "LITERAL",
    "LOSS_COLOR",
    "MUTED_COLOR",
    "VERSION_COLORS",
    "literal_axes",
    "literal_legend",
    "new_axes",
    "offset_text",
    "place_legend",
]

#: Keyword arguments that make a text artist literal: no mathtext, no TeX.
LITERAL: dict[str, Any] = {"parse_math": False, "usetex": False}
#: Bar colours of the two versions (or runs) compared: the older light, the newer dark.
VERSION_COLORS = ("#9db4d3", "#1f4e79")
#: What got better (fixed, higher score), what got worse, and what did not count.
GAIN_COLOR, LOSS_COLOR, MUTED_COLOR = "#1b9e77", "#d95f02", "#8c8c8c"


def literal_legend(legend: Legend | None) -> None:
    """Every text of ``legend`` (entries and title) drawn literally."""
    if legend is not None:
        for text in legend.get_texts():
            text.set(**LITERAL)
        legend.get_title().set(**LITERAL)


def literal_axes(ax: Axes, *, hide_spines: Sequence[str] = ()) -> Axes:
    """Tick labels, title, axis labels, texts and the legend of ``ax`` drawn literally.

    The spines named in ``hide_spines`` (``"top"``, ``"right"``, ...) are hidden. Returns ``ax``.
    """
    texts = [*ax.get_xticklabels(), *ax.get_yticklabels(), *ax.texts]
    for text in (*texts, ax.title, ax.xaxis.label, ax.yaxis.label):
        text.set(**LITERAL)
    literal_legend(ax.get_legend())
    for spine in hide_spines:
        ax.spines[spine].set_visible(False)
    return ax


def place_legend(ax: Axes, loc: str, anchor: tuple[float, float], **kwargs: Any) -> None:
    """A frameless legend of ``ax``, its ``loc`` corner at ``anchor`` (axes fraction).

    In 8 point type unless ``kwargs`` (passed to ``ax.legend``) say otherwise.
    """
    ax.legend(**{"fontsize": 8, **kwargs, "loc": loc, "bbox_to_anchor": anchor, "frameon": False})


def offset_text(
    ax: Axes, text: str, xy: tuple[float, float], offset: tuple[float, float], **kwargs: Any
) -> None:
    """``text`` drawn ``offset`` points (right, up) away from the data point ``xy``."""
    ax.annotate(text, xy, xytext=offset, textcoords="offset points", **kwargs)


def new_axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """``ax`` itself, or the Axes of a new constrained-layout figure of ``figsize`` inches."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=figsize, layout="constrained")
    return new
