"""Per-task scores and per-run statistics from the check outcomes.

Scores stay exact where it matters: per-task counts are integers, and means
are computed as exact fractions (:func:`exact_mean`) before they become
floats, so equal scores are equal and rounding happens only in the report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from ._record_rules import CHECK_TYPE_DTYPE

__all__ = ["exact_mean", "score_tasks", "summarize_runs", "count_unknowns"]

#: Count column of :func:`score_tasks` -> the outcome it counts.
_OUTCOME_COUNTS = {"passed": "pass", "failed": "fail", "unknown": "unknown"}


def exact_mean(numerators, denominators) -> Fraction | None:
    """Mean of ``numerators[i] / denominators[i]`` as an exact fraction; None when empty.

    Examples
    --------
    The mean of 1/2 and 2/3:

    >>> from buddy_eval import tasks
    >>> tasks.exact_mean([1, 2], [2, 3])
    Fraction(7, 12)
    >>> tasks.exact_mean([], []) is None
    True
    """
    nums = np.asarray(numerators, dtype=np.int64).tolist()
    dens = np.asarray(denominators, dtype=np.int64).tolist()
    # Each distinct fraction is built once, however many tasks share it.
    counts = Counter(zip(nums, dens, strict=True))
    if not counts:
        return None
    return sum((Fraction(n, d) * c for (n, d), c in counts.items()), start=Fraction(0)) / len(nums)


def score_tasks(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Score every (run, task) from its check outcomes.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        Output of :func:`buddy_eval.tasks._checks.evaluate_checks`.

    Returns
    -------
    pandas.DataFrame
        One row per (run, golden task), in the order of ``outcomes``:

        - ``run`` (category), ``golden_id`` (str), ``task_id`` (str).
        - ``n_checks`` (int64): checks of the task.
        - ``passed``, ``failed``, ``unknown`` (int64): checks by outcome.
        - ``measured`` (int64): passed + failed; unknown checks are not in
          the denominator.
        - ``score`` (Float64): passed / measured; NA when no check was
          measured (the task has no score).
        - ``scored`` (bool): measured > 0.
        - ``all_pass`` (boolean): every measured check passed; NA when no
          check was measured (not vacuously true).
        - ``fully_measured`` (bool): no unknown check.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> scores = tasks.score_tasks(cmp.outcomes)
    >>> scores[["run", "golden_id", "passed", "failed", "unknown", "score", "all_pass"]].head(3)
            run golden_id  passed  failed  unknown  score  all_pass
    0  tutor-v1     jv-01       3       1        0   0.75     False
    1  tutor-v1     jv-02       3       0        0    1.0      True
    2  tutor-v1     jv-03       3       0        0    1.0      True

    A task whose every check is unknown has no score (not a score of 0):

    >>> scores.loc[~scores["scored"], ["run", "golden_id", "unknown", "score", "all_pass"]]
             run golden_id  unknown  score  all_pass
    27  tutor-v1     jv-31        2   <NA>      <NA>
    """
    outcome = outcomes["outcome"]
    flags = pd.DataFrame({k: (outcome == o).to_numpy(np.int64) for k, o in _OUTCOME_COUNTS.items()})
    keys = [outcomes[k].reset_index(drop=True) for k in ("run", "golden_id", "task_id")]
    counts = flags.groupby(keys, sort=False, observed=True).sum().reset_index()
    counts = counts.astype({"golden_id": "str", "task_id": "str", **dict.fromkeys(flags, "int64")})
    measured = counts["passed"] + counts["failed"]
    scored = (measured > 0).to_numpy(dtype=bool)
    all_pass = (counts["failed"] == 0).where(scored).astype("boolean")
    counts.insert(3, "n_checks", measured + counts["unknown"])
    return counts.assign(
        measured=measured,
        score=pd.array((counts["passed"] / measured.where(scored)).to_numpy(), dtype="Float64"),
        scored=scored,
        all_pass=all_pass,
        fully_measured=(counts["unknown"] == 0).to_numpy(dtype=bool),
    )


def _exact_run_summary(scores: pd.DataFrame, label: str) -> dict:
    """One run's row of :func:`summarize_runs`, its two rates exact.

    ``mean_score`` and ``all_pass_rate`` are Fractions (None when no task is
    scored), every other figure an int: the row the summary holds and the
    figures every view of the comparison rounds.
    """
    (summary,) = exact_run_summaries(scores, label, np.zeros(len(scores), dtype=np.int64), 1)
    return summary


def exact_run_summaries(scores: pd.DataFrame, label: str, codes, n_groups: int) -> list[dict]:
    """:func:`_exact_run_summary` of each group of the tasks at once (the whole run is one
    group): ``codes`` gives each row of ``scores`` its group, ``0 .. n_groups - 1``; every
    count by one pass over the run's rows."""
    run = (scores["run"] == label).to_numpy(bool)
    codes = np.asarray(codes, dtype=np.int64)[run]
    columns = ["passed", "measured", "failed", "unknown", "n_checks"]
    passed, measured, failed, unknown, n_checks = scores.loc[run, columns].to_numpy("int64").T
    scored = measured > 0

    def count(mask) -> list[int]:
        return np.bincount(codes[mask], minlength=n_groups).tolist()

    def total(values) -> list[int]:
        out = np.zeros(n_groups, dtype=np.int64)
        np.add.at(out, codes, values)
        return out.tolist()

    n, scored_n = count(slice(None)), count(scored)
    all_pass_n, fully_n = count(scored & (failed == 0)), count(unknown == 0)
    checks, passed_n, failed_n, unknown_n = (total(v) for v in (n_checks, passed, failed, unknown))
    order = np.argsort(codes[scored], kind="stable")
    bounds = np.searchsorted(codes[scored][order], np.arange(n_groups + 1))
    scored_passed, scored_measured = passed[scored][order], measured[scored][order]
    out = []
    for g in range(n_groups):
        part = slice(bounds[g], bounds[g + 1])
        out.append(
            {
                "n": n[g],
                "scored_n": scored_n[g],
                "unscored_n": n[g] - scored_n[g],
                "mean_score": exact_mean(scored_passed[part], scored_measured[part]),
                "all_pass_n": all_pass_n[g],
                "all_pass_rate": Fraction(all_pass_n[g], scored_n[g]) if scored_n[g] else None,
                "fully_measured_n": fully_n[g],
                "checks_n": checks[g],
                "passed_checks": passed_n[g],
                "failed_checks": failed_n[g],
                "unknown_checks": unknown_n[g],
            }
        )
    return out


def summarize_runs(scores: pd.DataFrame, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Per-run statistics from :func:`score_tasks`.

    Parameters
    ----------
    scores : pandas.DataFrame
        Output of :func:`score_tasks`.
    labels : sequence of str, optional
        Runs to report, in order (a run with no scored task gets a row of
        zeros). Default: the categories of ``scores["run"]``.

    Returns
    -------
    pandas.DataFrame
        One row per run:

        - ``run`` (category): the run label.
        - ``n`` (int64): golden tasks the run has a record for.
        - ``scored_n`` (int64): of those, tasks with at least one measured
          check; ``unscored_n`` (int64): tasks with none, counted apart.
        - ``mean_score`` (Float64): mean of the per-task scores over scored
          tasks (unscored tasks are left out, not counted as 0); NA when
          ``scored_n`` is 0.
        - ``all_pass_n`` (int64): scored tasks whose measured checks all passed.
        - ``all_pass_rate`` (Float64): all_pass_n / scored_n; NA when 0.
        - ``fully_measured_n`` (int64): tasks with no unknown check (read it
          beside every rate: all_pass is "all measured checks passed").
        - ``checks_n``, ``passed_checks``, ``failed_checks``,
          ``unknown_checks`` (int64): checks by outcome over all the run's tasks.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> summary = tasks.summarize_runs(cmp.scores)
    >>> summary[["run", "n", "scored_n", "mean_score", "all_pass_n", "fully_measured_n"]]
            run   n  scored_n  mean_score  all_pass_n  fully_measured_n
    0  tutor-v1  28        27    0.929012          23                23
    1  tutor-v2  27        27     0.95679          24                26
    """
    labels = list(scores["run"].cat.categories if labels is None else labels)
    return _summary_frame(labels, [_exact_run_summary(scores, run) for run in labels])


def _summary_frame(labels: list[str], rows: list[dict]) -> pd.DataFrame:
    """The :func:`summarize_runs` frame of the runs' exact rows (:func:`_exact_run_summary`)."""
    summary = pd.DataFrame([{"run": run, **row} for run, row in zip(labels, rows, strict=True)])
    dtypes = dict.fromkeys(summary.columns, "int64") | {"run": pd.CategoricalDtype(labels)}
    return summary.astype(dtypes | {"mean_score": "Float64", "all_pass_rate": "Float64"})


def count_unknowns(outcomes: pd.DataFrame, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Checks and unknown checks per (run, check type), zeros included.

    Returns
    -------
    pandas.DataFrame
        One row per (run, check type), runs in ``labels`` order, types in
        the fixed order contains, not_contains, status_completed,
        max_tokens, max_cost_usd:

        - ``run`` (category), ``check_type`` (category).
        - ``checks`` (int64): checks of that type evaluated for the run.
        - ``unknown`` (int64): of those, unknown (out of every denominator).
        - ``measured`` (int64): checks - unknown.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> table = tasks.count_unknowns(cmp.outcomes)
    >>> table[table["unknown"] > 0]
            run    check_type  checks  unknown  measured
    3  tutor-v1    max_tokens      19        3        16
    4  tutor-v1  max_cost_usd       9        3         6
    9  tutor-v2  max_cost_usd       9        1         8
    """
    labels = list(outcomes["run"].cat.categories if labels is None else labels)
    keys = {"run": pd.CategoricalDtype(labels), "check_type": CHECK_TYPE_DTYPE}
    table = outcomes[list(keys)].astype(str).astype(keys)
    table["checks"] = np.int64(1)
    table["unknown"] = (outcomes["outcome"] == "unknown").to_numpy(dtype=np.int64)
    table = table.groupby(list(keys), observed=False).sum().reset_index()
    table["measured"] = table["checks"] - table["unknown"]
    return table
