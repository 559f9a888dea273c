"""buddy_eval: the release gate for the Buddy teaching assistant.

Load an input, score two versions against a human-curated golden set, and
decide whether the candidate may be released::

    >>> import buddy_eval as be
    >>> ev = be.evaluate(be.load("data/example.txt"))     # doctest: +SKIP
    >>> print(ev.report())                                 # doctest: +SKIP
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers and editors; at run time every name loads on first use
    from ._decision import Decision
    from ._drilldown import trial_answers
    from ._errors import BuddyEvalError, CouldNotFinishError, InputError
    from ._evaluation import Evaluation, evaluate, report
    from ._loading import EvalInput, from_frames, load
    from ._notebook_views import (
        collapsible,
        flipped_items,
        format_comparison,
        format_metrics_table,
        format_source_table,
        format_trial_summary,
        metrics_table,
        source_table,
        trial_summary,
    )
    from ._paired import item_changes
    from ._paired_settings import Settings
    from ._plotting import (
        plot_changes,
        plot_diff_intervals,
        plot_item_grid,
        plot_metrics,
        plot_trial_rates,
    )
    from ._slice_views import plot_slices, slice_table
    from ._slices import SliceAssignment, assign_slices
    from ._thresholds import Thresholds
    from .formatting import Report
    # (the ledger's record, release, history and plots are left out: the ledger reads
    # __version__ from this package, and data flows one way)

# Every public name is loaded on first use (PEP 562): `import buddy_eval` costs
# next to nothing, the command line installs its signal handlers before pandas
# or pyarrow load, and the plain gate never imports matplotlib.
# name -> the submodule that defines it.
_LAZY = {
    "BuddyEvalError": "_errors",
    "CouldNotFinishError": "_errors",
    "InputError": "_errors",
    "Decision": "_decision",
    "Evaluation": "_evaluation",
    "evaluate": "_evaluation",
    "report": "_evaluation",
    "EvalInput": "_loading",
    "from_frames": "_loading",
    "load": "_loading",
    "Settings": "_paired_settings",
    "Thresholds": "_thresholds",
    "Report": "formatting",
    "item_changes": "_paired",
    "plot_metrics": "_plotting",
    "plot_item_grid": "_plotting",
    "plot_changes": "_plotting",
    "plot_diff_intervals": "_plotting",
    "plot_trial_rates": "_plotting",
    "trial_summary": "_notebook_views",
    "trial_answers": "_drilldown",
    "flipped_items": "_notebook_views",
    "metrics_table": "_notebook_views",
    "format_metrics_table": "_notebook_views",
    "collapsible": "_notebook_views",
    "format_comparison": "_notebook_views",
    "format_source_table": "_notebook_views",
    "format_trial_summary": "_notebook_views",
    "source_table": "_notebook_views",
    "record": "ledger._record",
    "release": "ledger._releases",
    "rollback": "ledger._releases",
    "history": "_ledger_views",
    "doctor": "doctor",  # bound at import below: the package of the same name loads first
    "plot_history": "ledger._plotting",
    "plot_history_grid": "ledger._plotting",
    "slice_table": "_slice_views",
    "plot_slices": "_slice_views",
    "assign_slices": "_slices",
    "SliceAssignment": "_slices",
}

__all__ = [
    "BuddyEvalError",
    "CouldNotFinishError",
    "Decision",
    "EvalInput",
    "Evaluation",
    "InputError",
    "Report",
    "Settings",
    "Thresholds",
    "evaluate",
    "collapsible",
    "doctor",
    "flipped_items",
    "format_comparison",
    "format_metrics_table",
    "format_source_table",
    "format_trial_summary",
    "from_frames",
    "history",
    "item_changes",
    "load",
    "metrics_table",
    "plot_changes",
    "plot_diff_intervals",
    "plot_history",
    "plot_history_grid",
    "plot_item_grid",
    "plot_metrics",
    "plot_trial_rates",
    "record",
    "release",
    "report",
    "rollback",
    "source_table",
    "trial_answers",
    "trial_summary",
    "slice_table",
    "plot_slices",
    "assign_slices",
    "SliceAssignment",
]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API only (tab completion shows what users need, not the submodules)."""
    return sorted([*__all__, "__version__"])


__version__ = "0.1.0"

# ``be.doctor`` and the package ``buddy_eval.doctor`` share a name. The package loads
# nothing heavy, so it is imported here: the name is the function from the start (a
# later import of the package would otherwise put the package in its place).
from .doctor import doctor  # noqa: E402
