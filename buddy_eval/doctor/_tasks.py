"""Checks of golden tasks: echoed values, contradictions, no content check, same prompt, and
with run records, tasks every run fails or every run passes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from . import _messages as say
from ._diagnosis import Finding
from ._table import check_named

if TYPE_CHECKING:
    from ..tasks._record_rules import GoldenSet, RunRecords

__all__ = ["run_findings", "task_findings"]


def _finding(name: str, ids, message: str) -> Finding:
    return Finding(name, check_named(name).severity, tuple(ids), message)


def task_findings(golden: GoldenSet) -> Iterator[Finding]:
    """``contradictory-checks``, ``echo-gameable``, ``no-content-check``, ``duplicate-prompt``."""
    tasks, checks = golden.tasks, golden.checks
    ids = tasks["golden_id"].tolist()
    prompts = dict(zip(ids, tasks["prompt"].tolist(), strict=True))
    contains: dict[str, list[str]] = {i: [] for i in ids}
    forbidden: dict[str, list[str]] = {i: [] for i in ids}
    kinds = checks["check_type"].astype(str).tolist()
    for task, kind, text in zip(
        checks["golden_id"].tolist(), kinds, checks["text"].tolist(), strict=True
    ):
        if kind == "contains":
            contains[task].append(text)
        elif kind == "not_contains":
            forbidden[task].append(text)
    for task in ids:
        pair = next(((n, c) for n in forbidden[task] for c in contains[task] if n in c), None)
        if pair is not None:
            yield _finding("contradictory-checks", (task,), say.contradictory_checks(task, *pair))
    for task in ids:
        echoed = next((c for c in contains[task] if c in prompts[task]), None)
        if echoed is not None:
            yield _finding("echo-gameable", (task,), say.echo_gameable(task, echoed))
    bare = [task for task in ids if not contains[task] and not forbidden[task]]
    if bare:
        yield _finding("no-content-check", bare, say.no_content_check(len(bare)))
    same: dict[str, list[str]] = {}
    for task in ids:
        same.setdefault(prompts[task], []).append(task)
    for members in same.values():
        if len(members) > 1:
            yield _finding("duplicate-prompt", members, say.duplicate_prompt(len(members)))


def run_findings(golden: GoldenSet, runs: Sequence[RunRecords]) -> Iterator[Finding]:
    """``unsolved`` and ``saturated`` over the runs: a task every run fails, or every run passes.

    A task passes in a run when every measured check of its record passed
    (``all_pass``); a run without a scored record for the task does not count.
    """
    import pandas as pd

    from ..tasks._checks import evaluate_checks
    from ..tasks._scoring import score_tasks
    from ._outcomes import outcome_ids

    if not runs:
        return
    labels = [run.label for run in runs]
    records = pd.concat([run.records for run in runs], ignore_index=True)
    records["run"] = pd.Categorical(records["run"].astype(str), categories=labels)
    records = records[records["golden_id"].isin(golden.tasks["golden_id"])]
    scores = score_tasks(evaluate_checks(golden.checks, records))
    scores = scores[scores["scored"]]
    ids = golden.ids
    position = pd.Index(ids).get_indexer(pd.Index(scores["golden_id"]))
    run = scores["run"].cat.codes.to_numpy()
    trials = np.zeros((len(labels), len(ids)), np.int64)
    passed = np.zeros_like(trials)
    trials[run, position] = 1
    passed[run, position] = scores["all_pass"].fillna(False).to_numpy(dtype=np.int64)
    found = outcome_ids(trials, passed)
    for name, wording in (("unsolved", say.unsolved), ("saturated", say.saturated)):
        if len(found[name]):
            names = [ids[k] for k in found[name].tolist()]
            yield _finding(name, names, wording(len(names), labels, "task"))
