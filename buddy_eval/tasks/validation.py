"""Check golden tasks and run records field by field and build their DataFrames.

Every rule is written once, here. A broken definition fails loudly: the
:class:`~buddy_eval.errors.InputError` names the file, the task (or record),
the field, the value received and what is allowed, e.g.::

    golden.json: task 'loops-03', check 2 (max_tokens): field 'value' must be a
    non-negative integer, got true
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd

from ..errors import InputError
from .json_input import NonFinite

__all__ = [
    "CHECK_TYPES",
    "STRING_CHECKS",
    "CHECK_TYPE_DTYPE",
    "GOLDEN_FIELDS",
    "RECORD_FIELDS",
    "GoldenSet",
    "RunRecords",
    "build_golden",
    "build_run",
    "check_labels",
    "describe",
    "micros_limit",
]

CHECK_TYPES = ("contains", "not_contains", "status_completed", "max_tokens", "max_cost_usd")
STRING_CHECKS = ("contains", "not_contains")
CHECK_TYPE_DTYPE = pd.CategoricalDtype(list(CHECK_TYPES))
GOLDEN_FIELDS = ("id", "prompt", "tier", "checks")
RECORD_FIELDS = (
    "task_id",
    "golden_id",
    "model",
    "status",
    "result_text",
    "total_tokens",
    "usd_micros",
    "unpriced_tokens",
)
INT64_MAX = 2**63 - 1
MICROS_PER_USD = 1_000_000
_VALUE_RULE = {
    "contains": "a non-empty string",
    "not_contains": "a non-empty string",
    "max_tokens": "a non-negative integer",
    "max_cost_usd": "a non-negative number of US dollars",
}


@dataclass(frozen=True, eq=False)
class GoldenSet:
    """A validated set of golden tasks.

    Attributes
    ----------
    tasks : pandas.DataFrame
        One row per task, in file order: ``golden_id`` (str), ``prompt``
        (str), ``tier`` (str), ``n_checks`` (int64), ``position`` (int64,
        1-based place in the file's list).
    checks : pandas.DataFrame
        One row per check, tasks in file order: ``golden_id`` (str),
        ``check_index`` (int64, 1-based within the task), ``check_type``
        (category of :data:`CHECK_TYPES`), ``value`` (str: the value as
        written; NA for ``status_completed``), ``text`` (str: the literal
        substring of a string check; NA otherwise), ``limit`` (Int64: the
        token limit of ``max_tokens``; for ``max_cost_usd`` the largest
        passing ``usd_micros``, floor(value x 1,000,000), exact; NA otherwise).
    source : str
        Where the tasks came from, for messages.
    """

    tasks: pd.DataFrame
    checks: pd.DataFrame
    source: str = "<golden tasks>"

    @property
    def ids(self) -> list[str]:
        """Golden ids in file order."""
        return self.tasks["golden_id"].tolist()

    def __repr__(self) -> str:
        return (
            f"GoldenSet(source={self.source!r}, tasks={len(self.tasks)}, checks={len(self.checks)})"
        )


@dataclass(frozen=True, eq=False)
class RunRecords:
    """The validated records of one run.

    Attributes
    ----------
    label : str
        The run's label (``--label-a``/``--label-b``).
    records : pandas.DataFrame
        One row per record, in file order: ``run`` (category: the label),
        ``task_id`` (str), ``golden_id`` (str), ``model`` (str, NA when
        absent), ``status`` (str), ``result_text`` (str, NA when absent or
        null), ``total_tokens``, ``usd_micros``, ``unpriced_tokens`` (Int64,
        NA when absent or null), ``position`` (int64, 1-based place in the
        file's list).
    source : str
        Where the records came from, for messages.
    """

    label: str
    records: pd.DataFrame
    source: str = "<run records>"

    def relabel(self, label: str) -> RunRecords:
        """The same records under another label (a new object; this one is unchanged)."""
        records = self.records.copy()
        records["run"] = pd.Categorical([label] * len(records), categories=[label])
        return RunRecords(label=label, records=records, source=self.source)

    def __repr__(self) -> str:
        return (
            f"RunRecords(label={self.label!r}, source={self.source!r}, records={len(self.records)})"
        )


def describe(value) -> str:
    """A received value as the file wrote it, shortened for messages."""
    if isinstance(value, NonFinite):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    return str(value)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _count(value) -> int | None:
    """``value`` as a non-negative int64 count, or None when it is anything else."""
    if _is_int(value) and 0 <= value <= INT64_MAX:
        return int(value)
    return None


def _dollars(value) -> Decimal | None:
    """``value`` as an exact, finite, non-negative Decimal, or None.

    JSON numbers arrive as int or Decimal; a Python float (from a list built
    in code) is read at its shortest decimal form, so ``0.02`` is two cents.
    """
    if isinstance(value, (NonFinite, bool, np.bool_)):
        return None
    if _is_int(value):
        value = Decimal(int(value))
    elif isinstance(value, (float, np.floating)):
        value = Decimal(repr(float(value)))
    elif isinstance(value, Fraction):
        return None
    if not isinstance(value, Decimal) or not value.is_finite() or value < 0:
        return None
    return value


def micros_limit(dollars: Decimal) -> int:
    """The largest integer ``usd_micros`` with ``usd_micros <= dollars x 1,000,000``, exactly.

    >>> micros_limit(Decimal("0.02")), micros_limit(Decimal("0.0000015"))
    (20000, 1)
    """
    if dollars >= Decimal(INT64_MAX) / MICROS_PER_USD:
        return INT64_MAX
    return math.floor(Fraction(dollars) * MICROS_PER_USD)


def _check_keys(obj: dict, where: str, source: str) -> None:
    duplicates = getattr(obj, "duplicate_keys", ())
    if duplicates:
        raise InputError(
            f"{where}: field {duplicates[0]!r} is given more than once; each field may appear once",
            source=source,
        )


def _fail(where: str, message: str, source: str):
    raise InputError(f"{where}: {message}", source=source)


def _task_checks(checks, where: str, golden_id: str, source: str) -> list[dict]:
    if not isinstance(checks, list) or not checks:
        _fail(
            where,
            f"field 'checks' must be a non-empty list of checks, got {describe(checks)}",
            source,
        )
    rows = []
    for index, check in enumerate(checks, 1):
        at = f"{where}, check {index}"
        if not isinstance(check, dict):
            _fail(at, f"expected an object {{type, value}}, got {describe(check)}", source)
        _check_keys(check, at, source)
        if "type" not in check:
            _fail(at, f"missing field 'type' (one of {', '.join(CHECK_TYPES)})", source)
        kind = check["type"]
        if not isinstance(kind, str) or kind not in CHECK_TYPES:
            _fail(
                at,
                f"field 'type' must be one of {', '.join(CHECK_TYPES)}, got {describe(kind)}",
                source,
            )
        at = f"{at} ({kind})"
        allowed = ("type",) if kind == "status_completed" else ("type", "value")
        extra = [k for k in check if k not in allowed]
        if extra:
            _fail(
                at,
                f"unexpected field {extra[0]!r}; a {kind} check has only the fields "
                f"{', '.join(allowed)}",
                source,
            )
        row = {"golden_id": golden_id, "check_index": index, "check_type": kind}
        row.update(value=None, text=None, limit=None)
        if kind != "status_completed":
            if "value" not in check:
                _fail(at, f"missing field 'value' ({_VALUE_RULE[kind]})", source)
            value = check["value"]
            if kind in STRING_CHECKS:
                ok = isinstance(value, str) and value != ""
                row.update(value=value, text=value)
            elif kind == "max_tokens":
                ok = _count(value) is not None
                row.update(value=str(value), limit=_count(value))
            else:
                dollars = _dollars(value)
                ok = dollars is not None
                if ok:
                    row.update(value=str(dollars), limit=micros_limit(dollars))
            if not ok:
                _fail(
                    at, f"field 'value' must be {_VALUE_RULE[kind]}, got {describe(value)}", source
                )
        rows.append(row)
    return rows


def build_golden(items, *, source: str = "<golden tasks>") -> GoldenSet:
    """Validate golden task definitions and build their DataFrames.

    Parameters
    ----------
    items : list of dict
        ``{id, prompt, tier, checks}`` objects as parsed from JSON. ``id`` and
        ``prompt`` are non-empty strings; ``tier`` a non-empty string or an
        integer (kept as text); ``checks`` a non-empty list of
        ``{"type": ..., "value": ...}`` objects (``status_completed`` takes no
        value). Other task fields (notes, sources) are ignored.
    source : str
        A name for messages.

    Returns
    -------
    GoldenSet
        ``tasks`` and ``checks`` DataFrames (columns listed on
        :class:`GoldenSet`). ``items`` is not modified.

    Raises
    ------
    InputError
        Not a list, an empty list, a task or check that is not an object, a
        missing field, a wrong type, an unknown check type, a field given
        twice, or a duplicate id; the message names the task and the field.
    """
    if not isinstance(items, list):
        raise InputError(
            f"expected a JSON list of golden tasks {{id, prompt, tier, checks}}, "
            f"got {describe(items)}",
            source=source,
        )
    if not items:
        raise InputError("the list of golden tasks is empty; expected at least one", source=source)
    tasks, checks, first = [], [], {}
    for position, item in enumerate(items, 1):
        where = f"task #{position}"
        if not isinstance(item, dict):
            _fail(
                where,
                f"expected an object {{id, prompt, tier, checks}}, got {describe(item)}",
                source,
            )
        golden_id = item.get("id")
        if "id" not in item:
            _fail(where, "missing field 'id' (a non-empty string)", source)
        if not isinstance(golden_id, str) or not golden_id.strip():
            _fail(
                where, f"field 'id' must be a non-empty string, got {describe(golden_id)}", source
            )
        where = f"task {golden_id!r}"
        if golden_id in first:
            _fail(
                f"{where} (#{position})",
                f"duplicate golden id (first defined as task #{first[golden_id]})",
                source,
            )
        first[golden_id] = position
        _check_keys(item, where, source)
        for field in GOLDEN_FIELDS[1:3]:
            if field not in item:
                _fail(where, f"missing field {field!r} (a non-empty string)", source)
        prompt, tier = item["prompt"], item["tier"]
        if not isinstance(prompt, str) or not prompt.strip():
            _fail(
                where, f"field 'prompt' must be a non-empty string, got {describe(prompt)}", source
            )
        if not ((isinstance(tier, str) and tier.strip()) or _is_int(tier)):
            _fail(
                where,
                f"field 'tier' must be a non-empty string or an integer, got {describe(tier)}",
                source,
            )
        if "checks" not in item:
            _fail(where, "missing field 'checks' (a non-empty list of checks)", source)
        rows = _task_checks(item["checks"], where, golden_id, source)
        checks.extend(rows)
        tasks.append((golden_id, prompt, str(tier), len(rows), position))

    ids, prompts, tiers, counts, positions = zip(*tasks, strict=True)
    task_frame = pd.DataFrame(
        {
            "golden_id": pd.Series(ids, dtype="str"),
            "prompt": pd.Series(prompts, dtype="str"),
            "tier": pd.Series(tiers, dtype="str"),
            "n_checks": np.asarray(counts, dtype=np.int64),
            "position": np.asarray(positions, dtype=np.int64),
        }
    )
    check_frame = pd.DataFrame(
        {
            "golden_id": pd.Series([c["golden_id"] for c in checks], dtype="str"),
            "check_index": np.asarray([c["check_index"] for c in checks], dtype=np.int64),
            "check_type": pd.Categorical([c["check_type"] for c in checks], dtype=CHECK_TYPE_DTYPE),
            "value": pd.Series([c["value"] for c in checks], dtype="str"),
            "text": pd.Series([c["text"] for c in checks], dtype="str"),
            "limit": pd.array([c["limit"] for c in checks], dtype="Int64"),
        }
    )
    return GoldenSet(tasks=task_frame, checks=check_frame, source=source)


def _record_field(record: dict, field: str, where: str, source: str):
    """One optional record field: the value, or None when absent or null."""
    value = record.get(field)
    if value is None:
        return None
    if field in ("model", "result_text"):
        if isinstance(value, str):
            return value
        _fail(where, f"field {field!r} must be a string or null, got {describe(value)}", source)
    count = _count(value)
    if count is None:
        _fail(
            where,
            f"field {field!r} must be a non-negative integer or null, got {describe(value)}",
            source,
        )
    return count


def build_run(records, *, label: str = "run", source: str = "<run records>") -> RunRecords:
    """Validate one run's records and build its DataFrame.

    Parameters
    ----------
    records : list of dict
        ``{task_id, golden_id, model, status, result_text, total_tokens,
        usd_micros, unpriced_tokens}`` objects as parsed from JSON.
        ``task_id`` (a non-empty string or an integer, kept as text),
        ``golden_id`` (a non-empty string) and ``status`` (a string) are
        required. ``model`` and ``result_text`` are strings, the three counts
        non-negative integers; each may be null or absent, which means
        "not recorded". Other fields are ignored.
    label : str
        The run's label.
    source : str
        A name for messages.

    Returns
    -------
    RunRecords
        The records DataFrame (columns listed on :class:`RunRecords`).
        ``records`` is not modified.

    Raises
    ------
    InputError
        Not a list, an empty list, a record that is not an object, a missing
        required field, a wrong type, a field given twice, a duplicate
        ``task_id``, or two records for the same ``golden_id``.
    """
    if not isinstance(records, list):
        raise InputError(
            f"expected a JSON list of run records {{task_id, golden_id, status, ...}}, "
            f"got {describe(records)}",
            source=source,
        )
    if not records:
        raise InputError(f"run {label!r} has no records; expected at least one", source=source)
    columns: dict[str, list] = {field: [] for field in RECORD_FIELDS}
    task_first: dict[str, tuple[int, str]] = {}
    golden_first: dict[str, tuple[int, str]] = {}
    for position, record in enumerate(records, 1):
        where = f"record #{position}"
        if not isinstance(record, dict):
            _fail(
                where,
                f"expected an object {{task_id, golden_id, ...}}, got {describe(record)}",
                source,
            )
        if "task_id" not in record:
            _fail(where, "missing field 'task_id' (a non-empty string or an integer)", source)
        task_id = record["task_id"]
        if not ((isinstance(task_id, str) and task_id.strip()) or _is_int(task_id)):
            _fail(
                where,
                "field 'task_id' must be a non-empty string or an integer, "
                f"got {describe(task_id)}",
                source,
            )
        task_id = str(task_id)
        where = f"record #{position} (task_id {task_id!r})"
        _check_keys(record, where, source)
        if task_id in task_first:
            _fail(
                where,
                f"duplicate task_id (first given in record #{task_first[task_id][0]}); "
                "each task record may appear once",
                source,
            )
        for field, rule in (("golden_id", "a non-empty string"), ("status", "a string")):
            if field not in record:
                _fail(where, f"missing field {field!r} ({rule})", source)
        golden_id, status = record["golden_id"], record["status"]
        if not isinstance(golden_id, str) or not golden_id.strip():
            _fail(
                where,
                f"field 'golden_id' must be a non-empty string, got {describe(golden_id)}",
                source,
            )
        if not isinstance(status, str):
            _fail(where, f"field 'status' must be a string, got {describe(status)}", source)
        if golden_id in golden_first:
            first_position, first_task = golden_first[golden_id]
            _fail(
                where,
                f"second record for golden task {golden_id!r} in run {label!r} (first: record "
                f"#{first_position}, task_id {first_task!r}); a run may hold one record per "
                "golden task",
                source,
            )
        task_first[task_id] = (position, golden_id)
        golden_first[golden_id] = (position, task_id)
        columns["task_id"].append(task_id)
        columns["golden_id"].append(golden_id)
        columns["status"].append(status)
        for field in ("model", "result_text", "total_tokens", "usd_micros", "unpriced_tokens"):
            columns[field].append(_record_field(record, field, where, source))

    n = len(records)
    frame = pd.DataFrame(
        {
            "run": pd.Categorical([label] * n, categories=[label]),
            **{f: pd.Series(columns[f], dtype="str") for f in RECORD_FIELDS[:5]},
            **{f: pd.array(columns[f], dtype="Int64") for f in RECORD_FIELDS[5:]},
            "position": np.arange(1, n + 1, dtype=np.int64),
        }
    )
    return RunRecords(label=label, records=frame, source=source)


def check_labels(labels: Sequence[str]) -> None:
    """Raise :class:`InputError` unless the run labels are non-empty and distinct."""
    for label in labels:
        if not isinstance(label, str) or not label.strip():
            raise InputError(f"a run label must be a non-empty string, got {describe(label)}")
    if len(set(labels)) != len(labels):
        raise InputError(f"the two run labels must differ, got {labels[0]!r} twice")
