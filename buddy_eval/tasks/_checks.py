"""Evaluate every check of every run record at once.

The golden checks and the run records are joined into one long table, one row
per (run, golden task, check), and each check type is evaluated over the whole
table with column operations. A check passes, fails, or is unknown:

- ``contains`` / ``not_contains``: case-sensitive literal substring test on
  ``result_text``. An empty or missing ``result_text`` fails both (it is not
  unknown, and an empty answer does not pass ``not_contains``).
- ``status_completed``: ``status == "completed"`` exactly.
- ``max_tokens``: ``total_tokens <= value``; unknown when ``total_tokens`` is
  missing.
- ``max_cost_usd``: ``usd_micros <= value x 1,000,000`` compared exactly;
  unknown when ``usd_micros`` is missing or ``unpriced_tokens > 0``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._record_rules import RECORD_FIELDS, STRING_CHECKS

__all__ = ["OUTCOMES", "OUTCOME_DTYPE", "UNKNOWN_REASONS", "evaluate_checks"]

#: The outcomes of a check: an unknown check (a missing token count or cost)
#: is left out of every denominator and counted apart.
#:
#: Examples
#: --------
#: >>> from buddy_eval import tasks
#: >>> tasks.OUTCOMES
#: ('pass', 'fail', 'unknown')
#: >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
#: ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
#: >>> cmp.outcomes["outcome"].value_counts().to_dict()
#: {'pass': 160, 'fail': 9, 'unknown': 7}
OUTCOMES = ("pass", "fail", "unknown")
OUTCOME_DTYPE = pd.CategoricalDtype(list(OUTCOMES))
UNKNOWN_REASONS = ("total_tokens missing", "usd_micros missing", "unpriced_tokens > 0")

_CHECK_COLUMNS = ["golden_id", "check_index", "check_type", "value", "text", "limit"]


def evaluate_checks(checks: pd.DataFrame, records: pd.DataFrame) -> pd.DataFrame:
    """Outcome of every check for every record whose golden task is known.

    Parameters
    ----------
    checks : pandas.DataFrame
        :attr:`GoldenSet.checks <buddy_eval.tasks._record_rules.GoldenSet>`.
    records : pandas.DataFrame
        Run records (:attr:`RunRecords.records
        <buddy_eval.tasks._record_rules.RunRecords>`, or several runs'
        concatenated). Records whose ``golden_id`` has no checks are left out.

    Returns
    -------
    pandas.DataFrame
        One row per (record, check), records in input order, checks in task
        order; neither input is modified:

        - ``run`` (category): the run label.
        - ``golden_id`` (str), ``task_id`` (str).
        - ``check_index`` (int64): 1-based position of the check in its task.
        - ``check_type`` (category of the five check types).
        - ``value`` (str): the check's value as written; NA for
          ``status_completed``.
        - ``outcome`` (category ``pass``/``fail``/``unknown``).
        - ``unknown_reason`` (str): ``total_tokens missing``,
          ``usd_micros missing`` or ``unpriced_tokens > 0``; NA unless unknown.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> golden = tasks.build_golden([
    ...     {"id": "g1", "prompt": "Print 42", "tier": "basic",
    ...      "checks": [{"type": "contains", "value": "42"},
    ...                 {"type": "max_tokens", "value": 100}]},
    ...     {"id": "g2", "prompt": "Explain a loop", "tier": "basic",
    ...      "checks": [{"type": "status_completed"}, {"type": "not_contains", "value": "TODO"}]}])
    >>> run = tasks.build_run([
    ...     {"task_id": "a1", "golden_id": "g1", "status": "completed", "result_text": "print(42)"},
    ...     {"task_id": "a2", "golden_id": "g2", "status": "completed",
    ...      "result_text": "It repeats. TODO"}], label="A")
    >>> outcomes = tasks.evaluate_checks(golden.checks, run.records)
    >>> outcomes[["golden_id", "check_type", "outcome", "unknown_reason"]]
      golden_id        check_type  outcome        unknown_reason
    0        g1          contains     pass                   NaN
    1        g1        max_tokens  unknown  total_tokens missing
    2        g2  status_completed     pass                   NaN
    3        g2      not_contains     fail                   NaN
    """
    long = records[["run", "position", *RECORD_FIELDS]].merge(
        checks[_CHECK_COLUMNS], on="golden_id", how="inner", sort=False, validate="many_to_many"
    )
    long = long.sort_values(["run", "position", "check_index"], kind="stable", ignore_index=True)
    kind = long["check_type"].astype(str).to_numpy()

    # String checks: non-empty text required; the substring test only where it matters.
    text = long["result_text"]
    has_text = (text.notna() & (text.str.len() > 0)).to_numpy(dtype=bool)
    found = np.zeros(len(long), dtype=bool)
    probe = np.isin(kind, STRING_CHECKS) & has_text
    # Each row has its own pattern and no column kernel tests a column of strings
    # against a column of patterns: Python's ``in`` per row, literal and case-sensitive.
    found[probe] = [n in t for n, t in zip(long["text"][probe], text[probe], strict=True)]

    limit = long["limit"]
    tokens, usd, unpriced = long["total_tokens"], long["usd_micros"], long["unpriced_tokens"]
    passed = {
        "contains": has_text & found,
        "not_contains": has_text & ~found,
        "status_completed": (long["status"] == "completed").to_numpy(dtype=bool),
        "max_tokens": (tokens <= limit).fillna(False).to_numpy(dtype=bool),
        "max_cost_usd": (usd <= limit).fillna(False).to_numpy(dtype=bool),
    }
    tokens_missing = (kind == "max_tokens") & tokens.isna().to_numpy(dtype=bool)
    cost = kind == "max_cost_usd"
    usd_missing = cost & usd.isna().to_numpy(dtype=bool)
    partly_unpriced = cost & ~usd_missing & (unpriced > 0).fillna(False).to_numpy(dtype=bool)
    unknown = [tokens_missing, usd_missing, partly_unpriced]  # one per UNKNOWN_REASONS

    ok = np.select([kind == k for k in passed], list(passed.values()), default=False)
    outcome = np.where(tokens_missing | usd_missing | partly_unpriced, 2, np.where(ok, 0, 1))
    reason = np.select(unknown, list(UNKNOWN_REASONS), default=np.array(None, dtype=object))
    out = long[["run", "golden_id", "task_id", "check_index", "check_type", "value"]]
    return out.astype({"check_index": "int64"}).assign(
        outcome=pd.Categorical.from_codes(outcome, dtype=OUTCOME_DTYPE),
        unknown_reason=pd.Series(reason, dtype="str"),
    )
