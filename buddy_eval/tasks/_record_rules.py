"""Check golden tasks and run records field by field and build their DataFrames.

Every rule is written once, here. A broken definition fails loudly: the
:class:`~buddy_eval._errors.InputError` names the file, the task (or record),
the field, the value received (quoted, at most :data:`MAX_QUOTED_CHARS`
characters of it) and what is allowed, e.g.::

    golden.json: task 'loops-03', check 2 (max_tokens): field 'value' must be a
    non-negative integer, got true

Every string that is read must be valid Unicode text (a JSON escape such as
``"\\ud800"`` can smuggle in a lone surrogate, which cannot be written out);
identifiers (golden ids, task ids, run labels) must also hold no control
character (Unicode category Cc) and no line or paragraph separator (U+2028,
U+2029), so that they cannot break the report's lines or send terminal escapes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd

from .._errors import InputError
from ._json_input import MAX_NUMBER_CHARS, LongNumber, NonFinite

__all__ = [
    "CHECK_TYPES",
    "STRING_CHECKS",
    "CHECK_TYPE_DTYPE",
    "MAX_COST_USD",
    "MAX_QUOTED_CHARS",
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
MAX_COST_USD = 1_000_000_000
"""The largest ``max_cost_usd`` value accepted, in US dollars."""
MAX_QUOTED_CHARS = 60
"""At most this many characters of a received value are quoted in a message."""
_ONE_MICRO = Decimal("0.000001")
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NOT_IDENTIFIER = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_SEPARATORS = {"\u2028": "line separator", "\u2029": "paragraph separator"}
_VALUE_RULE = {
    "contains": "a non-empty string",
    "not_contains": "a non-empty string",
    "max_tokens": "a non-negative integer",
    "max_cost_usd": f"a number of US dollars from 0 to {MAX_COST_USD}",
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
        _check_label(label)
        records = self.records.copy()
        records["run"] = pd.Categorical([label] * len(records), categories=[label])
        return RunRecords(label=label, records=records, source=self.source)

    def __repr__(self) -> str:
        return (
            f"RunRecords(label={self.label!r}, source={self.source!r}, records={len(self.records)})"
        )


def _shorten(text: str, quote: bool) -> str:
    if len(text) <= MAX_QUOTED_CHARS:
        return repr(text) if quote else text
    head = text[: MAX_QUOTED_CHARS - 3]
    return f"{repr(head) if quote else head}... ({len(text) - len(head)} more characters)"


def describe(value) -> str:
    """A received value as the file wrote it, bounded for messages.

    Strings are quoted with :func:`repr` (so control characters and lone
    surrogates show as escapes); a string or number longer than
    :data:`MAX_QUOTED_CHARS` characters is cut to its first
    ``MAX_QUOTED_CHARS - 3``, followed by ``...`` and the count of the rest.

    >>> describe("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (43 more characters)"
    >>> describe(None), describe(True), describe([1]), describe("a\\nb")
    ('null', 'true', 'a list', "'a\\\\nb'")
    """
    if type(value) is str and len(value) <= MAX_QUOTED_CHARS:
        return repr(value)
    if isinstance(value, NonFinite):
        return value.text
    if isinstance(value, LongNumber):
        return _shorten(value.text, quote=False)
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return _shorten(value, quote=True)
    if _is_int(value) and int(value).bit_length() > 10_000:  # str() would refuse > 4300 digits
        return f"an integer of about {int(int(value).bit_length() * 0.30103)} digits"
    return _shorten(str(value), quote=False)


def _got(value) -> str:
    """``got VALUE`` for a message; a too long number also says what the limit is."""
    if isinstance(value, LongNumber):
        return f"got {describe(value)}, {value.why}"
    return f"got {describe(value)}"


def _text_problem(text: str, identifier: bool) -> str | None:
    """What makes ``text`` unacceptable (``contains ...``), or None when it is fine.

    A lone surrogate is never acceptable; in an identifier, neither is a
    control character nor a line or paragraph separator.
    """
    if not text.isascii():
        found = _SURROGATE.search(text)
        if found:
            return (
                f"contains a lone surrogate (\\u{ord(found.group()):04x}), which is not valid "
                f"Unicode text, at character {found.start() + 1} of {describe(text)}"
            )
    if identifier:
        found = _CONTROL.search(text)
        if found:
            kind = _SEPARATORS.get(found.group(), "control character")
            return (
                f"contains the {kind} U+{ord(found.group()):04X} at character "
                f"{found.start() + 1} of {describe(text)}; an identifier may not contain control "
                "characters (U+0000 to U+001F, U+007F to U+009F) or line separators (U+2028, "
                "U+2029)"
            )
    return None


def _check_text(text: str, field: str, where: str, source: str, identifier: bool = False):
    """Fail unless ``text`` is acceptable (see :func:`_text_problem`); quick when it is."""
    if identifier:
        if _NOT_IDENTIFIER.search(text) is None:
            return
    elif text.isascii() or _SURROGATE.search(text) is None:
        return
    _fail(where, f"field {field!r} {_text_problem(text, identifier)}", source)


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _count(value) -> int | None:
    """``value`` as a non-negative int64 count, or None when it is anything else."""
    if _is_int(value) and 0 <= value <= INT64_MAX:
        return int(value)
    return None


def _is_short_int(value) -> bool:
    """An integer of at most :data:`MAX_NUMBER_CHARS` digits (kept as text: ids and tiers)."""
    return _is_int(value) and abs(int(value)) < 10**MAX_NUMBER_CHARS


def _dollars(value) -> Decimal | None:
    """``value`` as an exact Decimal from 0 to :data:`MAX_COST_USD`, or None.

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
    if not isinstance(value, Decimal) or not value.is_finite() or not 0 <= value <= MAX_COST_USD:
        return None
    return value


def micros_limit(dollars: Decimal) -> int:
    """The largest integer ``usd_micros`` with ``usd_micros <= dollars x 1,000,000``, exactly.

    The time taken depends on the digits written, never on the exponent:
    below one micro-dollar the limit is 0 (``1e-9999999`` is answered at
    once), and from ``INT64_MAX / 1,000,000`` dollars up it is ``INT64_MAX``
    (every int64 ``usd_micros`` passes).

    Parameters
    ----------
    dollars : decimal.Decimal
        A finite, non-negative amount.

    Returns
    -------
    int

    >>> micros_limit(Decimal("0.02")), micros_limit(Decimal("0.0000015"))
    (20000, 1)
    >>> micros_limit(Decimal("1e-9999999")), micros_limit(Decimal("1e+9999999"))
    (0, 9223372036854775807)
    """
    if dollars < _ONE_MICRO:
        return 0
    if dollars >= Decimal(INT64_MAX) / MICROS_PER_USD:
        return INT64_MAX
    with localcontext() as context:
        # exact: the product has at most len(digits) + 7 significant digits
        context.prec = len(dollars.as_tuple().digits) + 7
        micros = (dollars * MICROS_PER_USD).to_integral_value(rounding=ROUND_FLOOR)
    return int(micros)


def _check_keys(obj: dict, where: str, source: str) -> None:
    duplicates = getattr(obj, "duplicate_keys", ())
    if duplicates:
        raise InputError(
            f"{where}: field {describe(duplicates[0])} is given more than once; each field may "
            "appear once",
            source=source,
        )


def _fail(where: str, message: str, source: str):
    raise InputError(f"{where}: {message}", source=source)


def _task_checks(checks, where: str, golden_id: str, source: str) -> list[dict]:
    if not isinstance(checks, list) or not checks:
        _fail(
            where,
            f"field 'checks' must be a non-empty list of checks, {_got(checks)}",
            source,
        )
    rows = []
    for index, check in enumerate(checks, 1):
        at = f"{where}, check {index}"
        if not isinstance(check, dict):
            _fail(at, f"expected an object {{type, value}}, {_got(check)}", source)
        _check_keys(check, at, source)
        if "type" not in check:
            _fail(at, f"missing field 'type' (one of {', '.join(CHECK_TYPES)})", source)
        kind = check["type"]
        if not isinstance(kind, str) or kind not in CHECK_TYPES:
            _fail(
                at,
                f"field 'type' must be one of {', '.join(CHECK_TYPES)}, {_got(kind)}",
                source,
            )
        at = f"{at} ({kind})"
        allowed = ("type",) if kind == "status_completed" else ("type", "value")
        extra = [k for k in check if k not in allowed]
        if extra:
            _fail(
                at,
                f"unexpected field {describe(extra[0])}; a {kind} check has only the fields "
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
                if ok:
                    _check_text(value, "value", at, source)
                row.update(value=value, text=value)
            elif kind == "max_tokens":
                ok = _count(value) is not None
                row.update(value=str(value), limit=_count(value))
            else:
                dollars = _dollars(value)
                ok = dollars is not None
                if dollars is not None:
                    row.update(value=str(dollars), limit=micros_limit(dollars))
            if not ok:
                _fail(at, f"field 'value' must be {_VALUE_RULE[kind]}, {_got(value)}", source)
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
        value; ``max_cost_usd`` takes 0 to :data:`MAX_COST_USD` dollars). No
        string may hold a lone surrogate, and ``id`` no control character or
        line separator. Other task fields (notes, sources) are ignored.
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
        missing field, a wrong type, a number longer than
        :data:`~buddy_eval.tasks._json_input.MAX_NUMBER_CHARS` characters, a
        cost limit out of range, an unknown check type, a lone surrogate, a
        control character in an id, a field given twice, or a duplicate id;
        the message names the task and the field and quotes the value
        boundedly.
    """
    if not isinstance(items, list):
        raise InputError(
            f"expected a JSON list of golden tasks {{id, prompt, tier, checks}}, {_got(items)}",
            source=source,
        )
    if not items:
        raise InputError("the list of golden tasks is empty; expected at least one", source=source)
    tasks: list = []
    checks: list = []
    first: dict[str, int] = {}
    for position, item in enumerate(items, 1):
        where = f"task #{position}"
        if not isinstance(item, dict):
            _fail(
                where,
                f"expected an object {{id, prompt, tier, checks}}, {_got(item)}",
                source,
            )
        golden_id = item.get("id")
        if "id" not in item:
            _fail(where, "missing field 'id' (a non-empty string)", source)
        if not isinstance(golden_id, str) or not golden_id.strip():
            _fail(where, f"field 'id' must be a non-empty string, {_got(golden_id)}", source)
        _check_text(golden_id, "id", where, source, identifier=True)
        where = f"task {describe(golden_id)}"
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
            _fail(where, f"field 'prompt' must be a non-empty string, {_got(prompt)}", source)
        _check_text(prompt, "prompt", where, source)
        if isinstance(tier, str) and tier.strip():
            _check_text(tier, "tier", where, source)
        elif not _is_short_int(tier):
            _fail(
                where,
                f"field 'tier' must be a non-empty string or an integer, {_got(tier)}",
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
            _check_text(value, field, where, source)
            return value
        _fail(where, f"field {field!r} must be a string or null, {_got(value)}", source)
    count = _count(value)
    if count is None:
        _fail(
            where,
            f"field {field!r} must be a non-negative integer or null, {_got(value)}",
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
        "not recorded". No string may hold a lone surrogate, and ``task_id``
        and ``golden_id`` no control character or line separator. Other
        fields are ignored.
    label : str
        The run's label: a non-empty string, no control character, no line
        separator.
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
        An invalid label, not a list, an empty list, a record that is not an
        object, a missing required field, a wrong type, a number longer than
        :data:`~buddy_eval.tasks._json_input.MAX_NUMBER_CHARS` characters, a
        lone surrogate, a control character in an identifier, a field given
        twice, a duplicate ``task_id``, or two records for the same
        ``golden_id``.
    """
    _check_label(label)
    if not isinstance(records, list):
        raise InputError(
            f"expected a JSON list of run records {{task_id, golden_id, status, ...}}, "
            f"{_got(records)}",
            source=source,
        )
    if not records:
        raise InputError(
            f"run {describe(label)} has no records; expected at least one", source=source
        )
    columns: dict[str, list] = {field: [] for field in RECORD_FIELDS}
    task_first: dict[str, tuple[int, str]] = {}
    golden_first: dict[str, tuple[int, str]] = {}
    for position, record in enumerate(records, 1):
        where = f"record #{position}"
        if not isinstance(record, dict):
            _fail(
                where,
                f"expected an object {{task_id, golden_id, ...}}, {_got(record)}",
                source,
            )
        if "task_id" not in record:
            _fail(where, "missing field 'task_id' (a non-empty string or an integer)", source)
        task_id = record["task_id"]
        if isinstance(task_id, str) and task_id.strip():
            _check_text(task_id, "task_id", where, source, identifier=True)
        elif not _is_short_int(task_id):
            _fail(
                where,
                f"field 'task_id' must be a non-empty string or an integer, {_got(task_id)}",
                source,
            )
        task_id = str(task_id)
        where = f"record #{position} (task_id {describe(task_id)})"
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
                f"field 'golden_id' must be a non-empty string, {_got(golden_id)}",
                source,
            )
        _check_text(golden_id, "golden_id", where, source, identifier=True)
        if not isinstance(status, str):
            _fail(where, f"field 'status' must be a string, {_got(status)}", source)
        _check_text(status, "status", where, source)
        if golden_id in golden_first:
            first_position, first_task = golden_first[golden_id]
            _fail(
                where,
                f"second record for golden task {describe(golden_id)} in run {describe(label)} "
                f"(first: record #{first_position}, task_id {describe(first_task)}); a run may "
                "hold one record per golden task",
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


def _check_label(label) -> None:
    if not isinstance(label, str) or not label.strip():
        raise InputError(f"a run label must be a non-empty string, {_got(label)}")
    problem = _text_problem(label, identifier=True)
    if problem:
        raise InputError(f"the run label {problem}")


def check_labels(labels: Sequence[str]) -> None:
    """Raise :class:`InputError` unless the run labels are valid and distinct.

    A label is a non-empty string holding no lone surrogate, no control
    character and no line separator (it is printed in the report's lines).
    """
    for label in labels:
        _check_label(label)
    if len(set(labels)) != len(labels):
        raise InputError(f"the two run labels must differ, got {describe(labels[0])} twice")
