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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal, localcontext
from functools import partial
from typing import NamedTuple, NoReturn

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

#: The check types a golden task may hold, in the order every table lists them.
#:
#: Examples
#: --------
#: >>> from buddy_eval import tasks
#: >>> tasks.CHECK_TYPES
#: ('contains', 'not_contains', 'status_completed', 'max_tokens', 'max_cost_usd')
#: >>> golden = tasks.load_golden("data/golden-tasks.example.json")
#: >>> golden.checks["check_type"].value_counts(sort=False).tolist()  # in that order
#: [32, 6, 30, 21, 10]
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
_SEPARATORS = {"\u2028": "line separator", "\u2029": "paragraph separator"}
_NON_EMPTY = "a non-empty string"
_TEXT_OR_INT = "a non-empty string or an integer"
_CHECK_LIST = "a non-empty list of checks"
_ONE_OF_TYPES = f"one of {', '.join(CHECK_TYPES)}"
_VALUE_RULE = dict.fromkeys(STRING_CHECKS, _NON_EMPTY) | {
    "max_tokens": "a non-negative integer",
    "max_cost_usd": f"a number of US dollars from 0 to {MAX_COST_USD}",
}
_TEXT_OR_NULL = "a string or null"
_COUNT_OR_NULL = "a non-negative integer or null"


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

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> golden = tasks.load_golden("data/golden-tasks.example.json")
    >>> golden
    GoldenSet(source='data/golden-tasks.example.json', tasks=31, checks=99)
    >>> golden.ids[:3]
    ['jv-01', 'jv-02', 'jv-03']
    >>> golden.checks[["golden_id", "check_type", "value", "limit"]].head(4)
      golden_id        check_type value  limit
    0     jv-01          contains     3   <NA>
    1     jv-01      not_contains   3.5   <NA>
    2     jv-01  status_completed   NaN   <NA>
    3     jv-01        max_tokens   400    400
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

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> run = tasks.load_run("data/run-a.example.json", label="tutor-v1")
    >>> run
    RunRecords(label='tutor-v1', source='data/run-a.example.json', records=29)
    >>> run.records[["task_id", "golden_id", "status", "total_tokens"]].head(3)
      task_id golden_id     status  total_tokens
    0  a-0001     jv-01  completed           180
    1  a-0002     jv-02  completed           240
    2  a-0003     jv-03  completed           260
    >>> run.relabel("A").label
    'A'
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
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if _is_int(value) and int(value).bit_length() > 10_000:  # str() would refuse > 4300 digits
        return f"an integer of about {int(int(value).bit_length() * 0.30103)} digits"
    quote = isinstance(value, str)  # a number is shown as written, unquoted
    if isinstance(value, (NonFinite, LongNumber)):
        value = value.text
    text = value if quote else str(value)
    if len(text) <= MAX_QUOTED_CHARS:
        return repr(text) if quote else text
    head = text[: MAX_QUOTED_CHARS - 3]
    return f"{repr(head) if quote else head}... ({len(text) - len(head)} more characters)"


def _got(value) -> str:
    """``got VALUE`` for a message; a too long number also says what the limit is."""
    return f"got {describe(value)}" + (f", {value.why}" if isinstance(value, LongNumber) else "")


def _text_problem(text: str, identifier: bool) -> str | None:
    """What makes ``text`` unacceptable (``contains ...``), or None when it is fine.

    A lone surrogate is never acceptable; in an identifier, neither is a
    control character nor a line or paragraph separator.
    """
    found = None if text.isascii() else _SURROGATE.search(text)
    if found:
        return (
            f"contains a lone surrogate (\\u{ord(found.group()):04x}), which is not valid "
            f"Unicode text, at character {found.start() + 1} of {describe(text)}"
        )
    found = _CONTROL.search(text) if identifier else None
    if found:
        kind = _SEPARATORS.get(found.group(), "control character")
        return (
            f"contains the {kind} U+{ord(found.group()):04X} at character "
            f"{found.start() + 1} of {describe(text)}; an identifier may not contain control "
            "characters (U+0000 to U+001F, U+007F to U+009F) or line separators (U+2028, "
            "U+2029)"
        )
    return None


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _count(value) -> int | None:
    """``value`` as a non-negative int64 count, or None when it is anything else."""
    return int(value) if _is_int(value) and 0 <= value <= INT64_MAX else None


def _dollars(value) -> Decimal | None:
    """``value`` as an exact Decimal from 0 to :data:`MAX_COST_USD`, or None.

    JSON numbers arrive as int or Decimal; a Python float (from a list built
    in code) is read at its shortest decimal form, so ``0.02`` is two cents.
    Anything else (a bool, a fraction, ``NaN``) is None.
    """
    if _is_int(value):
        value = Decimal(int(value))
    elif isinstance(value, (float, np.floating)):
        value = Decimal(repr(float(value)))
    if isinstance(value, Decimal) and value.is_finite() and 0 <= value <= MAX_COST_USD:
        return value
    return None


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


class _Place(NamedTuple):
    """A place in a source (``task 'g1', check 2``); its messages start with it.

    ``where`` makes the words: they are only needed for a message, and quoting
    an id for every record of a large run would cost more than checking it.
    """

    where: Callable[[], str]
    source: str

    def fail(self, message: str) -> NoReturn:
        raise InputError(f"{self.where()}: {message}", source=self.source)

    def expect_object(self, value, fields: str) -> None:
        if not isinstance(value, dict):
            self.fail(f"expected an object {{{fields}}}, {_got(value)}")

    def require(self, obj: dict, **rules: str) -> None:
        """Fail on the first of the fields named that ``obj`` lacks, saying its rule."""
        for field, rule in rules.items():
            if field not in obj:
                self.fail(f"missing field {field!r} ({rule})")

    def unique_keys(self, obj: dict) -> None:
        """Fail when the file gave a field of ``obj`` more than once."""
        duplicates = getattr(obj, "duplicate_keys", ())
        if duplicates:
            self.fail(
                f"field {describe(duplicates[0])} is given more than once; each field may "
                "appear once"
            )

    def check_text(self, text: str, field: str, identifier: bool = False) -> None:
        """Fail unless ``text`` is acceptable (see :func:`_text_problem`)."""
        problem = None if text.isascii() and not identifier else _text_problem(text, identifier)
        if problem:
            self.fail(f"field {field!r} {problem}")


def _plain_identifier(value) -> bool:
    """A non-blank ASCII string with no control character: what nearly every id is."""
    return (
        type(value) is str
        and value.isascii()
        and value.strip() != ""
        and _CONTROL.search(value) is None
    )


def _quoted(template: str, *values) -> str:
    """``template`` with each value as :func:`describe` shows it (a number as written)."""
    return template.format(*map(describe, values))


def _within(place: _Place, more: str) -> str:
    """The words of a place inside ``place``."""
    return place.where() + more


def _non_empty(value) -> bool:
    return isinstance(value, str) and value.strip() != ""


# What each rule that a message states accepts.
_RULES = {
    _NON_EMPTY: _non_empty,
    # an integer of at most MAX_NUMBER_CHARS digits is kept as text (ids and tiers)
    _TEXT_OR_INT: lambda v: _non_empty(v) or (_is_int(v) and abs(int(v)) < 10**MAX_NUMBER_CHARS),
    "a string": lambda v: isinstance(v, str),
    _TEXT_OR_NULL: lambda v: v is None or isinstance(v, str),
    _COUNT_OR_NULL: lambda v: v is None or _count(v) is not None,
    _CHECK_LIST: lambda v: isinstance(v, list) and len(v) > 0,
    _ONE_OF_TYPES: lambda v: isinstance(v, str) and v in CHECK_TYPES,
}


_ABSENT = object()
_OPTIONAL_RECORD_FIELDS = (
    ("model", _TEXT_OR_NULL),
    ("result_text", _TEXT_OR_NULL),
    *((field, _COUNT_OR_NULL) for field in RECORD_FIELDS[5:]),
)


def _field(obj: dict, field: str, rule: str, at: _Place, identifier=False, required=True):
    """``obj[field]`` (None when absent and not ``required``) if it follows ``rule``.

    A string must also pass :meth:`_Place.check_text`.
    """
    value = obj.get(field, _ABSENT)
    if value is _ABSENT:
        if required:
            at.fail(f"missing field {field!r} ({rule})")
        value = None
    if not _RULES[rule](value):
        at.fail(f"field {field!r} must be {rule}, {_got(value)}")
    if isinstance(value, str):
        at.check_text(value, field, identifier)
    return value


def _check_value(kind: str, check: dict, at: _Place) -> tuple:
    """``(value, text, limit)`` of a check (see :class:`GoldenSet`); fail on an invalid value."""
    if kind == "status_completed":
        return None, None, None
    at.require(check, value=_VALUE_RULE[kind])
    value = check["value"]
    if kind in STRING_CHECKS and isinstance(value, str) and value:
        at.check_text(value, "value")
        return value, value, None
    if kind == "max_tokens" and _count(value) is not None:
        return str(value), None, _count(value)
    dollars = _dollars(value) if kind == "max_cost_usd" else None
    if dollars is None:
        at.fail(f"field 'value' must be {_VALUE_RULE[kind]}, {_got(value)}")
    return str(dollars), None, micros_limit(dollars)


def _task_checks(checks: list, task: _Place, golden_id: str) -> list[tuple]:
    rows = []
    for index, check in enumerate(checks, 1):
        at = _Place(partial(_within, task, f", check {index}"), task.source)
        at.expect_object(check, "type, value")
        at.unique_keys(check)
        kind = _field(check, "type", _ONE_OF_TYPES, at)
        at = _Place(partial(_within, at, f" ({kind})"), task.source)
        allowed = ("type",) if kind == "status_completed" else ("type", "value")
        extra = [k for k in check if k not in allowed]
        if extra:
            at.fail(
                f"unexpected field {describe(extra[0])}; a {kind} check has only the fields "
                f"{', '.join(allowed)}"
            )
        rows.append((golden_id, index, kind, *_check_value(kind, check, at)))
    return rows


def _check_list(value, what: str, empty: str, source: str) -> None:
    if not isinstance(value, list):
        raise InputError(f"expected a JSON list of {what}, {_got(value)}", source=source)
    if not value:
        raise InputError(f"{empty}; expected at least one", source=source)


def _frame(rows: list[tuple], dtypes: dict) -> pd.DataFrame:
    """``rows`` as a DataFrame: one column per ``dtypes`` entry (name: dtype), in order."""
    columns = zip(dtypes.items(), zip(*rows, strict=True), strict=True)
    return pd.DataFrame({name: pd.Series(list(v), dtype=dtype) for (name, dtype), v in columns})


_TASK_DTYPES = dict(golden_id="str", prompt="str", tier="str", n_checks=np.int64, position=np.int64)
_RECORD_DTYPES = dict.fromkeys(RECORD_FIELDS[:5], "str") | dict.fromkeys(RECORD_FIELDS[5:], "Int64")
_CHECK_DTYPES = {
    "golden_id": "str",
    "check_index": np.int64,
    "check_type": CHECK_TYPE_DTYPE,
    "value": "str",
    "text": "str",
    "limit": "Int64",
}


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

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> golden = tasks.build_golden([
    ...     {"id": "g1", "prompt": "Print 42", "tier": "basic",
    ...      "checks": [{"type": "contains", "value": "42"},
    ...                 {"type": "max_tokens", "value": 100}]},
    ...     {"id": "g2", "prompt": "Explain a loop", "tier": 2,
    ...      "checks": [{"type": "status_completed"}]}])
    >>> golden.tasks
      golden_id          prompt   tier  n_checks  position
    0        g1        Print 42  basic         2         1
    1        g2  Explain a loop      2         1         2
    >>> golden.checks[["golden_id", "check_index", "check_type", "limit"]]
      golden_id  check_index        check_type  limit
    0        g1            1          contains   <NA>
    1        g1            2        max_tokens    100
    2        g2            1  status_completed   <NA>
    >>> try:
    ...     tasks.build_golden([{"id": "g1", "prompt": "Print 42", "tier": "basic"}])
    ... except be.InputError as error:
    ...     print(error)
    <golden tasks>: task 'g1': missing field 'checks' (a non-empty list of checks)
    """
    what = "golden tasks {id, prompt, tier, checks}"
    _check_list(items, what, "the list of golden tasks is empty", source)
    tasks: list[tuple] = []
    checks: list[tuple] = []
    first: dict[str, int] = {}
    for position, item in enumerate(items, 1):
        at = _Place(partial(_quoted, "task #{}", position), source)
        at.expect_object(item, "id, prompt, tier, checks")
        golden_id = _field(item, "id", _NON_EMPTY, at, identifier=True)
        at = _Place(partial(_quoted, "task {}", golden_id), source)
        if first.setdefault(golden_id, position) != position:
            message = f"duplicate golden id (first defined as task #{first[golden_id]})"
            _Place(partial(_within, at, f" (#{position})"), source).fail(message)
        at.unique_keys(item)
        at.require(item, prompt=_NON_EMPTY, tier=_NON_EMPTY)
        prompt = _field(item, "prompt", _NON_EMPTY, at)
        tier = _field(item, "tier", _TEXT_OR_INT, at)
        rows = _task_checks(_field(item, "checks", _CHECK_LIST, at), at, golden_id)
        checks.extend(rows)
        tasks.append((golden_id, prompt, str(tier), len(rows), position))
    return GoldenSet(_frame(tasks, _TASK_DTYPES), _frame(checks, _CHECK_DTYPES), source)


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

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> run = tasks.build_run([
    ...     {"task_id": "a1", "golden_id": "g1", "status": "completed",
    ...      "result_text": "print(42)", "total_tokens": 60},
    ...     {"task_id": 2, "golden_id": "g2", "status": "failed"}], label="A")
    >>> run.records[["run", "task_id", "golden_id", "status", "result_text", "total_tokens"]]
      run task_id golden_id     status result_text  total_tokens
    0   A      a1        g1  completed   print(42)            60
    1   A       2        g2     failed         NaN          <NA>
    """
    _check_label(label)
    what = "run records {task_id, golden_id, status, ...}"
    _check_list(records, what, f"run {describe(label)} has no records", source)
    rows: list[tuple] = []
    task_first: dict[str, int] = {}
    golden_first: dict[str, tuple[int, str]] = {}
    for position, record in enumerate(records, 1):
        # Plain ids and strings (nearly every record of a large run) are accepted at once;
        # anything else goes through the rules, which word the message.
        raw = record.get("task_id") if isinstance(record, dict) else None
        if not _plain_identifier(raw):
            at = _Place(partial(_quoted, "record #{}", position), source)
            at.expect_object(record, "task_id, golden_id, ...")
            raw = _field(record, "task_id", _TEXT_OR_INT, at, identifier=True)
        task_id = str(raw)
        at = _Place(partial(_quoted, "record #{} (task_id {})", position, task_id), source)
        at.unique_keys(record)
        if task_first.setdefault(task_id, position) != position:
            at.fail(
                f"duplicate task_id (first given in record #{task_first[task_id]}); "
                "each task record may appear once"
            )
        golden_id, status = record.get("golden_id"), record.get("status")
        if not (_plain_identifier(golden_id) and type(status) is str and status.isascii()):
            at.require(record, golden_id=_NON_EMPTY, status="a string")
            golden_id = _field(record, "golden_id", _NON_EMPTY, at, identifier=True)
            status = _field(record, "status", "a string", at)
        first_position, first_task = golden_first.setdefault(golden_id, (position, task_id))
        if first_position != position:
            at.fail(
                f"second record for golden task {describe(golden_id)} in run {describe(label)} "
                f"(first: record #{first_position}, task_id {describe(first_task)}); a run may "
                "hold one record per golden task"
            )
        optional = []
        for field, rule in _OPTIONAL_RECORD_FIELDS:
            value = record.get(field)
            fine = value is None or (
                type(value) is int and 0 <= value <= INT64_MAX
                if rule is _COUNT_OR_NULL
                else type(value) is str and value.isascii()
            )
            optional.append(value if fine else _field(record, field, rule, at, required=False))
        model, *rest = optional
        rows.append((label, task_id, golden_id, model, status, *rest, position))
    dtypes = {"run": pd.CategoricalDtype([label]), **_RECORD_DTYPES, "position": np.int64}
    return RunRecords(label=label, records=_frame(rows, dtypes), source=source)


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
