"""Every trial's answer to an item, and why each failing trial failed.

:func:`trial_answers` is the drill-down behind the per-item views: the
change labels, the flaky items and the violations count whole items, this
lists each result line (each trial, with ``--trials``) of the baseline and
the candidate as the gate scored it (:func:`buddy_eval._scoring.score_rows`,
the same tests the rates count), violating answers first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._errors import InputError, quoted
from ._scoring import score_rows
from ._vocabulary import ITEM_TYPES
from .formatting import format_id_list

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    import pandas as pd


__all__ = ["TRIAL_ANSWER_COLUMNS", "trial_answers"]

TRIAL_ANSWER_COLUMNS = [
    "item_id",
    "item_type",
    "version",
    "trial",
    "passed",
    "violation",
    "why",
    "missed_keywords",
    "cited",
    "required_source",
    "refused",
    "answer",
    "line",
]


def _selected_items(evaluation, item_id) -> np.ndarray | None:
    """Golden rows of the requested ids (None: every item)."""
    if item_id is None:
        return None
    wanted = [item_id] if isinstance(item_id, str) else list(item_id)
    ids = evaluation.data.golden_columns.item_id.to_pylist()
    position = {i: k for k, i in enumerate(ids)}
    if unknown := [i for i in wanted if i not in position]:
        raise InputError(
            f"unknown item id {quoted(str(unknown[0]))}; the golden set has "
            f"{len(ids)} items ({format_id_list(ids, 5)})"
        )
    return np.array([position[i] for i in wanted], dtype=np.int64)


def _why(is_answer: bool, refused: bool, missed: list[str], cited_ok: bool, cited, required) -> str:
    """In words, why one trial fails the checks of its item; empty when it passes."""
    if not is_answer:
        return "" if refused else "answered a REFUSE item"
    if refused:
        return "refused an ANSWER item"
    parts = []
    if missed:
        parts.append("missed keywords: " + ", ".join(missed))
    if not cited_ok:
        parts.append(f"cited {cited}, not {required}")
    return "; ".join(parts)


def trial_answers(evaluation, item_id: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Every trial's answer in the baseline and the candidate, and why the failing ones fail.

    Without repeated trials each result line is trial 1. The outcomes are
    the gate's, row by row (what the rates, the change labels and the
    violation count add up): the per-item views count an item as passing
    when all of its trials pass, and as a violation when any trial answers
    a REFUSE item.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`buddy_eval.evaluate` (with or without trials).
    item_id : str or sequence of str, optional
        The golden item(s) to show; default every item.

    Returns
    -------
    pandas.DataFrame
        One row per result line of the baseline or the candidate for a
        golden item. Rows are ordered violations first, then the other
        failing trials, then the passing ones; within each, golden order,
        baseline before candidate, trial order:

        - ``item_id`` (str), ``item_type`` (category: ANSWER, REFUSE).
        - ``version`` (category: the baseline, then the candidate).
        - ``trial`` (int64): 1-based, in trial order.
        - ``passed`` (bool): every check of the item's type passes (ANSWER:
          correct and cited; REFUSE: refused).
        - ``violation`` (bool): a REFUSE item answered.
        - ``why`` (str): why the trial fails (``missed keywords: a, b``,
          ``cited L02, not L01``, ``refused an ANSWER item``, ``answered a
          REFUSE item``); empty when it passes.
        - ``missed_keywords`` (str): the keywords the answer lacks, joined
          by commas; empty for a REFUSE item.
        - ``cited`` (str): the cited source, ``-`` when it cited nothing.
        - ``required_source`` (str): ``-`` for a REFUSE item.
        - ``refused`` (bool): the answer is a refusal.
        - ``answer`` (str), ``line`` (int64): the answer text and its line.

    Raises
    ------
    InputError
        When an ``item_id`` is not a golden item.

    Examples
    --------
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> answers = be.trial_answers(ev, "r01")
    >>> answers[["version", "trial", "passed", "why"]].head(3)
      version  trial  passed                     why
    0     NEW      2   False  answered a REFUSE item
    1     NEW      4   False  answered a REFUSE item
    2     NEW      5   False  answered a REFUSE item
    >>> answers.groupby("version", observed=True)["passed"].sum()
    version
    OLD    5
    NEW    2
    Name: passed, dtype: int64
    """
    import pandas as pd
    import pyarrow as pa

    data = evaluation.data
    join, results, golden = data.join, data.result_columns, data.golden_columns
    wanted = _selected_items(evaluation, item_id)
    versions = [evaluation.baseline, evaluation.candidate]
    codes = [join.versions.index(v) for v in versions]
    keep = np.isin(join.version, codes) & (join.item >= 0)
    if wanted is not None:
        keep &= np.isin(join.item, wanted)
    rows = np.flatnonzero(keep)
    scored = score_rows(data, rows)
    item = scored["item"]
    is_answer = golden.is_answer[item]
    version = np.where(join.version[rows] == codes[0], 0, 1)
    trial = join.trial[rows] + 1 if join.trial is not None else np.ones(len(rows), np.int64)
    passed = np.where(is_answer, scored["correctness"] & scored["citation"], scored["refusal"])
    violation = scored["violations"]
    cited = results.cited.take(pa.array(rows, pa.int64())).to_pylist()
    required = golden.required_source.take(item).to_pylist() if len(rows) else []
    checks = (
        is_answer.tolist(),
        scored["refused"].tolist(),
        scored["missed"],
        scored["citation"].tolist(),
        [c or "nothing" for c in cited],
        required,
    )
    texts = {
        "item_id": golden.item_id.take(item).to_pylist(),
        "why": [_why(*one) for one in zip(*checks, strict=True)],
        "missed_keywords": [", ".join(m) for m in scored["missed"]],
        "cited": [c or "-" for c in cited],
        "required_source": [q if a else "-" for q, a in zip(required, checks[0], strict=True)],
        "answer": results.answer.take(rows.astype(np.int64), np.zeros(len(rows), bool)),
    }
    frame = pd.DataFrame(
        {
            **{name: pd.Series(values, dtype="str") for name, values in texts.items()},
            "item_type": pd.Categorical.from_codes(
                np.where(is_answer, 0, 1), dtype=pd.CategoricalDtype(list(ITEM_TYPES))
            ),
            "version": pd.Categorical.from_codes(version, dtype=pd.CategoricalDtype(versions)),
            "trial": trial.astype(np.int64),
            "passed": passed.astype(bool),
            "violation": violation.astype(bool),
            "refused": scored["refused"].astype(bool),
            "line": results.line[rows].astype(np.int64),
        },
        columns=TRIAL_ANSWER_COLUMNS,
    )
    rank = np.where(violation, 0, np.where(passed, 2, 1))
    order = np.lexsort((trial, version, item, rank))
    return frame.iloc[order].reset_index(drop=True)
