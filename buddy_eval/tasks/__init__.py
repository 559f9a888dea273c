"""Check-based golden tasks: score completed run records and compare two runs.

Golden tasks carry deterministic checks (``contains``, ``not_contains``,
``status_completed``, ``max_tokens``, ``max_cost_usd``). Records of two runs
that were already completed elsewhere are scored against them and compared
task by task; nothing here runs a task, calls a model or judges quality::

    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json",
    ...                          "data/run-a.example.json", "data/run-b.example.json",
    ...                          "tutor-v1", "tutor-v2")           # doctest: +SKIP
    >>> print(cmp.report())                                       # doctest: +SKIP

The layers: :mod:`.loading` (JSON to validated DataFrames), :mod:`.checks`
(one long table of check outcomes), :mod:`.scoring` (per task, per run),
:mod:`.comparison` (pairs, readiness, tests), :mod:`.report` (text and JSON),
:mod:`.plotting` (matplotlib charts, imported on demand).
"""

from .checks import OUTCOMES, evaluate_checks
from .comparison import (
    PairedSummary,
    TaskComparison,
    compare_runs,
    pair_tasks,
    summarize_pairs,
    wilcoxon_p_value,
)
from .loading import load_golden, load_run
from .record_rules import CHECK_TYPES, GoldenSet, RunRecords, build_golden, build_run
from .report import comparison_to_dict, format_comparison
from .scoring import count_unknowns, exact_mean, score_tasks, summarize_runs

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
    "score_tasks",
    "summarize_pairs",
    "summarize_runs",
    "wilcoxon_p_value",
]
