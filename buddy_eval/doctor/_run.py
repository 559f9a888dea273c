"""Run every check that applies to a golden set, and order what they find."""

from __future__ import annotations

import os
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .._loading import EvalInput, load_golden_set
from ._diagnosis import Diagnosis, ordered
from ._keywords import keyword_findings
from ._outcomes import lenient_findings, outcome_findings
from ._sizes import size_findings
from ._table import Limits
from ._tasks import run_findings, task_findings

__all__ = ["diagnose_input", "diagnose_tasks", "evaluation_health"]

# Per evaluation, its golden set's findings: computed once, whoever asks first (the gate's
# views, or recording it in a ledger).
_HEALTH: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def evaluation_health(evaluation) -> Diagnosis:
    """The findings on an evaluation's own input at the default limits, computed once.

    The gate's health line and the findings a ledger records with the
    golden-set revision are this one diagnosis.
    """
    found = _HEALTH.get(evaluation)
    if found is None:
        # The evaluation has scored every version already: the doctor reads its grid.
        grid = evaluation._all_versions_grid
        found = _HEALTH[evaluation] = diagnose_data(evaluation.data, Limits(), grid=grid)
    return found


def diagnose_input(
    source, *, trials: bool = False, limits: Limits | None = None, ledger=None
) -> Diagnosis:
    """Every golden-set check, and the result checks over every version present.

    ``source`` is what :func:`buddy_eval.load` reads (or an :class:`EvalInput`);
    its ``RESULTS`` section may be left out.
    """
    limits = limits or Limits()
    data = source if isinstance(source, EvalInput) else load_golden_set(source, trials=trials)
    return diagnose_data(data, limits, ledger)


def diagnose_data(data: EvalInput, limits: Limits, ledger=None, grid=None) -> Diagnosis:
    """The findings on an input already loaded (what the gate's health summary reads).

    ``grid``: the input scored for every version it holds (an evaluation's
    grid), read instead of scoring the input again.
    """
    golden = data.golden_columns
    ids = golden.item_id
    is_answer = np.asarray(golden.is_answer, dtype=bool)
    findings = list(
        keyword_findings(
            ids.to_pylist(),
            is_answer.tolist(),
            golden.required_source.to_pylist(),
            [k or [] for k in golden.keywords.to_pylist()],
            limits,
        )
    )
    n_answer = int(is_answer.sum())
    thresholds = data.thresholds.as_dict()
    findings += size_findings(n_answer, len(is_answer) - n_answer, thresholds, limits)
    if len(data.result_columns):
        findings += lenient_findings(data, ids, limits)
    if len(data.result_columns) or ledger is not None:
        findings += outcome_findings(data, ids, ledger, grid)
    return Diagnosis(
        kind="golden set",
        source=data.source,
        n_items=len(golden),
        versions=tuple(data.versions),
        findings=ordered(findings),
    )


def _run_label(run, k: int) -> str:
    """A run's label: its own, its file's name, or ``run k``."""
    if hasattr(run, "label"):
        return str(run.label)
    if isinstance(run, (str, os.PathLike)):
        return Path(run).name or f"run {k}"
    return f"run {k}"


def diagnose_tasks(golden, runs: Sequence = ()) -> Diagnosis:
    """The golden-task checks, and with run records the tasks every run fails or passes.

    ``golden`` is what :func:`buddy_eval.tasks.load_golden` reads; ``runs``
    are paths (labelled by their file names), record lists (``run 1``, ``run 2``, ...) or
    :class:`~buddy_eval.tasks.RunRecords`.
    """
    from ..tasks._loading import load_golden, load_run

    golden = load_golden(golden)
    labels = [_run_label(run, k) for k, run in enumerate(runs, 1)]
    if len(set(labels)) < len(labels):
        labels = [f"run {k}" for k in range(1, len(labels) + 1)]
    loaded = [load_run(run, label) for run, label in zip(runs, labels, strict=True)]
    findings = [*task_findings(golden), *run_findings(golden, loaded)]
    return Diagnosis(
        kind="golden tasks",
        source=golden.source,
        n_items=len(golden.tasks),
        versions=tuple(run.label for run in loaded),
        findings=ordered(findings),
    )
