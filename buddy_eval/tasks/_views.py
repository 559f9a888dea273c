"""A tasks comparison and its views: :func:`compare_runs` and :class:`TaskComparison`.

:class:`TaskComparison` is the computed
:class:`~buddy_eval.tasks._comparison.ComparisonResults` plus the ways to look
at it: the readable text, the JSON object, the Markdown summary and the JUnit
report, each a view of one document (:func:`buddy_eval.reporting.tasks_document`).
The computed comparison never imports its views; this module sits above both.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._escaping import terminal_text
from .._slice_views import slice_frame
from ..reporting import render_junit, render_markdown, render_text, tasks_document
from ..reporting._tasks_tiers import tier_records
from ._comparison import ComparisonResults
from ._tiers import TIER_METRICS

if TYPE_CHECKING:
    import pandas as pd

    from .._paired_settings import Settings

__all__ = ["TaskComparison", "compare_runs", "comparison_to_dict", "format_comparison"]


class TaskComparison(ComparisonResults):
    """Run A and run B scored against the golden tasks, with their views. Build it with
    :func:`compare_runs`.

    Every figure is computed by
    :class:`~buddy_eval.tasks._comparison.ComparisonResults` (see its
    attributes); only the views round.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> cmp.labels, cmp.paired.n, cmp.paired.ready
    (('tutor-v1', 'tutor-v2'), 25, True)
    >>> cmp.missing
      golden_id      tier
    0     jv-29  advanced
    1     jv-30  standard
    >>> print(cmp.report().splitlines()[0])
    golden tasks: 31 with 99 checks (data/golden-tasks.example.json)
    >>> sorted(cmp.to_dict())
    ['format_version', 'golden', 'missing', 'paired', 'runs', 'slices', 'unpaired', 'warnings']
    >>> cmp.tier_table()[["slice", "metric", "n_paired", "fixed", "regressed", "diff"]]
          slice      metric  n_paired  fixed  regressed      diff
    0     basic  mean_score        15      3          0  0.061111
    1     basic    all_pass        15      3          0       0.2
    2  standard  mean_score         9      0          2 -0.074074
    3  standard    all_pass         9      0          2 -0.222222
    4  advanced  mean_score         1      0          1      -0.5
    5  advanced    all_pass         1      0          1      -1.0
    >>> print(cmp.markdown().splitlines()[0])
    ## Buddy golden tasks: tutor\\-v2 against tutor\\-v1
    """

    def report(self) -> str:
        """The readable comparison the command line prints (no trailing newline); user text
        (labels, ids, tiers) with every invisible character shown as an escape."""
        return render_text(tasks_document(self, {"details"}), escape=terminal_text)

    def to_dict(self) -> dict:
        """The JSON object of ``buddy-eval tasks --format json`` as Python values."""
        return dict(tasks_document(self, {"json"}).record)

    def to_json(self, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def markdown(self) -> str:
        """The Markdown summary (``--format markdown``, ``--markdown PATH``); ends in a newline."""
        return render_markdown(tasks_document(self, {"markdown"}))

    def junit(self) -> str:
        """The JUnit XML report (``--junit PATH``): run B's checks and the paired tasks."""
        return render_junit(tasks_document(self, {"junit"}))

    def tier_table(self) -> pd.DataFrame:
        """One row per (golden tier, metric): the tier's figures, as the gate's slice table.

        Returns
        -------
        pandas.DataFrame
            In tier order (each tier's first golden task), then metric order
            (``mean_score``, ``all_pass``); every tier, whatever its size:

            - ``slice`` (category): the tier; ``metric`` (category).
            - ``items`` (int64): the tier's golden tasks.
            - ``n_paired`` (int64): its tasks scored in both runs.
            - ``fixed``, ``regressed`` (int64): ``mean_score``: paired tasks
              scored higher, lower in run B; ``all_pass``: paired tasks whose
              every measured check passes in run B only, in run A only.
            - ``missing`` (int64): its tasks not scored in both runs.
            - ``baseline_rate``, ``candidate_rate`` (Float64): run A's and run
              B's figure over their scored tasks of the tier (mean score, share
              of tasks with every measured check passing); NA when none.
            - ``diff`` (Float64): B minus A over the paired tasks; NA when none.
            - ``p_value`` (Float64): the signed-rank (``mean_score``) or exact
              McNemar (``all_pass``) p-value; NA when too few pairs.
            - ``p_value_holm_across_slices`` (Float64): ``p_value`` Holm-adjusted
              across the tiers within the metric; NA when too few pairs.
            - ``ready_for_decision`` (bool).
            - ``reading`` (str): what the test and the interval say, or ``too
              few items to tell``.
            - ``could_hide`` (Float64): for a tier too small to tell, the
              largest drop of the whole run's paired difference it could hide;
              NA otherwise.
        """
        return slice_frame(tier_records(self), self.tiers.names, TIER_METRICS)

    def __repr__(self) -> str:
        a, b = self.labels
        return f"<TaskComparison {a} -> {b} over {self.golden.source}>\n{self.report()}"


def compare_runs(
    golden,
    run_a,
    run_b,
    label_a: str = "A",
    label_b: str = "B",
    *,
    min_n: int | None = None,
    settings: Settings | None = None,
) -> TaskComparison:
    """Score two runs' records against golden tasks and compare them.

    Parameters
    ----------
    golden : path, list of dict or GoldenSet
        Golden tasks (see :func:`~buddy_eval.tasks._loading.load_golden`).
    run_a, run_b : path, list of dict or RunRecords
        The two runs' records (see :func:`~buddy_eval.tasks._loading.load_run`).
    label_a, label_b : str
        Distinct, non-empty labels; deltas are B minus A.
    min_n : int, optional
        Scored pairs needed before the comparison is ready for a decision and
        a p-value is computed: the gate's ``Settings.min_paired`` under its older
        name (default 20). Give ``min_n`` or ``settings``, not both.
    settings : Settings, optional
        The gate's settings; ``settings.min_paired`` is the minimum above. The
        labels are the gate's baseline (A) and candidate (B): ``cmp.baseline``,
        ``cmp.candidate``, and ``cmp.paired.ready`` / ``cmp.paired.min_paired``
        are the gate's names for ``ready_for_decision`` / ``min_n``.

    Returns
    -------
    TaskComparison
        Every table and figure of the comparison; the inputs are not modified.

    Raises
    ------
    InputError
        Any input error of the loaders, equal or empty labels, or a task_id
        present in both runs.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> golden = [{"id": "g1", "prompt": "Print 42", "tier": "basic",
    ...            "checks": [{"type": "contains", "value": "42"},
    ...                       {"type": "max_tokens", "value": 100}]},
    ...           {"id": "g2", "prompt": "Explain a loop", "tier": "basic",
    ...            "checks": [{"type": "not_contains", "value": "TODO"}]}]
    >>> run_a = [{"task_id": "a1", "golden_id": "g1", "status": "completed",
    ...           "result_text": "print(42)"},
    ...          {"task_id": "a2", "golden_id": "g2", "status": "completed",
    ...           "result_text": "It repeats. TODO"}]
    >>> run_b = [{"task_id": "b1", "golden_id": "g1", "status": "completed",
    ...           "result_text": "print(42)", "total_tokens": 60},
    ...          {"task_id": "b2", "golden_id": "g2", "status": "completed",
    ...           "result_text": "It repeats."}]
    >>> print(tasks.compare_runs(golden, run_a, run_b, "A", "B").report())
    golden tasks: 2 with 3 checks (<golden tasks>)
    run A (A, <run records>): 2 golden tasks with a record
      mean score 0.500 over 2 scored tasks
      all measured checks pass: 1 of 2 scored (0.50); fully measured: 1 of 2
      unknown checks (in no denominator): 1 of 3 (max_tokens 1)
    run B (B, <run records>): 2 golden tasks with a record
      mean score 1.000 over 2 scored tasks
      all measured checks pass: 2 of 2 scored (1.00); fully measured: 2 of 2
      unknown checks (in no denominator): 0 of 3
    paired, B minus A: 2 golden tasks scored in both runs
      mean delta +0.500; B higher 1, equal 1, lower 0; fully measured in both: 1 of 2
      all measured checks pass: A only 0, B only 1, both 1, neither 0
      ready for decision: no (2 scored pairs, at least 20 needed); no significance computed
    unpaired: A only: none; B only: none
    missing from both runs: none
    """
    return TaskComparison.from_runs(
        golden, run_a, run_b, label_a, label_b, min_n=min_n, settings=settings
    )


def format_comparison(comparison: TaskComparison) -> str:
    """The readable comparison, without a trailing newline (:meth:`TaskComparison.report`).

    One block per run (tasks, mean score, all-pass count and rate beside the
    fully measured count, unknown checks per type), the paired block (n,
    mean delta B minus A, wins/ties/losses, readiness and, when ready, the
    p-values), then unpaired and missing golden tasks.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> text = tasks.format_comparison(cmp)
    >>> text == cmp.report()
    True
    >>> print("\\n".join(text.splitlines()[:5]))
    golden tasks: 31 with 99 checks (data/golden-tasks.example.json)
    run A (tutor-v1, data/run-a.example.json): 28 golden tasks with a record
      mean score 0.929 over 27 scored tasks; 1 with no measured check left out
      all measured checks pass: 23 of 27 scored (0.85); fully measured: 23 of 28
      unknown checks (in no denominator): 6 of 90 (max_tokens 3, max_cost_usd 3)
    """
    return comparison.report()


def comparison_to_dict(comparison: TaskComparison) -> dict:
    """The ``--json`` object (:meth:`TaskComparison.to_dict`).

    Returns
    -------
    dict
        ``golden`` (source, tasks, checks); ``runs`` keyed by label, each
        with ``run`` (A/B), ``source``, ``records``, ``excluded_records``,
        ``n``, ``scored_n``, ``unscored_n``, ``mean_score`` (null when no
        task is scored), ``all_pass_n``, ``all_pass_rate``,
        ``fully_measured_n``, ``checks`` (total/passed/failed/unknown),
        ``unknown_checks`` (a count), ``unknown_checks_by_type``, ``models``;
        ``paired`` with ``label_a``, ``label_b``, ``n``, ``present_n``,
        ``unscored``, ``mean_delta`` (B minus A; null when n is 0),
        ``wins``/``ties``/``losses`` (B against A), ``fully_measured_n``,
        ``all_pass`` (a_only/b_only/both/neither), ``ready_for_decision``,
        ``min_n``, ``p_value`` and ``mcnemar_p_value`` (null when not
        ready), ``test``, ``mcnemar_test``; ``unpaired`` (per label, the
        golden ids in that run only); ``missing`` (golden ids in neither);
        ``warnings``.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> found = tasks.comparison_to_dict(cmp)
    >>> found["paired"]["n"], found["paired"]["mean_delta"], found["paired"]["ready_for_decision"]
    (25, -0.01, True)
    >>> found["runs"]["tutor-v1"]["unknown_checks_by_type"]["max_tokens"], found["missing"]
    (3, ['jv-29', 'jv-30'])
    """
    return dict(tasks_document(comparison, {"json"}).record)
