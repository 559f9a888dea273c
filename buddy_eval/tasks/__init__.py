"""Check-based golden tasks: score completed run records and compare two runs.

Golden tasks carry deterministic checks (``contains``, ``not_contains``,
``status_completed``, ``max_tokens``, ``max_cost_usd``). Records of two runs
that were already completed elsewhere are scored against them and compared
task by task; nothing here runs a task, calls a model or judges quality::

    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json",
    ...                          "data/run-a.example.json", "data/run-b.example.json",
    ...                          "tutor-v1", "tutor-v2")
    >>> cmp.summary[["run", "n", "mean_score", "all_pass_n", "fully_measured_n"]]
            run   n  mean_score  all_pass_n  fully_measured_n
    0  tutor-v1  28    0.929012          23                23
    1  tutor-v2  27     0.95679          24                26
    >>> cmp.paired.mean_delta, cmp.paired.ready_for_decision
    (Fraction(-1, 100), True)

``print(cmp.report())`` prints what ``buddy-eval tasks`` prints.

The layers: :mod:`._loading` (JSON to validated DataFrames), :mod:`._checks`
(one long table of check outcomes), :mod:`._scoring` (per task, per run),
:mod:`._comparison` (pairs, readiness, tests), :mod:`._views` (the comparison with
its views: text, JSON, Markdown and JUnit, each rendered from one document of
:mod:`buddy_eval.reporting`), :mod:`._plotting` (matplotlib charts, imported on demand).
"""

from ._checks import OUTCOMES, evaluate_checks
from ._comparison import PairedSummary, pair_tasks, summarize_pairs, wilcoxon_p_value
from ._loading import load_golden, load_run
from ._record_rules import CHECK_TYPES, GoldenSet, RunRecords, build_golden, build_run
from ._scoring import count_unknowns, exact_mean, score_tasks, summarize_runs
from ._views import TaskComparison, compare_runs, comparison_to_dict, format_comparison

# The charts need matplotlib: loaded on first use (PEP 562), never by the command line.
_PLOTS = ("plot_deltas", "plot_readiness", "plot_unknowns")

__all__ = [
    "CHECK_TYPES",
    "OUTCOMES",
    "GoldenSet",
    "PairedSummary",
    "RunRecords",
    "TaskComparison",
    "build_golden",
    "build_run",
    "compare_runs",
    "comparison_to_dict",
    "count_unknowns",
    "evaluate_checks",
    "exact_mean",
    "format_comparison",
    "load_golden",
    "load_run",
    "pair_tasks",
    "plot_deltas",
    "plot_readiness",
    "plot_unknowns",
    "score_tasks",
    "summarize_pairs",
    "summarize_runs",
    "wilcoxon_p_value",
]


def __getattr__(name: str):
    if name in _PLOTS:
        from . import _plotting

        return getattr(_plotting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
