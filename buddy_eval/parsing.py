"""Split the canonical text format into raw, line-numbered fields.

This module knows the layout of the file (BOM, line endings, comments, the
THRESHOLDS line, the golden section, the ``RESULTS`` marker, field splitting);
:mod:`buddy_eval.validation` knows what the fields may hold. The splitting is
done by pyarrow's compute kernels over all lines at once, so a file of a
million result lines never becomes a million Python lists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError

__all__ = [
    "Thresholds",
    "RawSections",
    "decode",
    "split_sections",
    "parse_thresholds",
    "threshold_value",
]

_FIELD_SEP = r"[ \t]+"
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
THRESHOLD_NAMES = ("correctness", "citation", "refusal")


@dataclass(frozen=True)
class Thresholds:
    """The three minimum rates the candidate must reach, as exact fractions.

    ``Fraction("0.6") == Fraction(3, 5)``, so a candidate at 3/5 meets a
    threshold written ``0.6`` exactly, with no float rounding involved.
    """

    correctness: Fraction
    citation: Fraction
    refusal: Fraction

    def __getitem__(self, metric: str) -> Fraction:
        if metric not in THRESHOLD_NAMES:
            raise KeyError(metric)
        return getattr(self, metric)

    def as_dict(self) -> dict[str, Fraction]:
        """The thresholds keyed by metric name, in report order."""
        return {name: getattr(self, name) for name in THRESHOLD_NAMES}


@dataclass(frozen=True)
class RawSections:
    """The input's lines, cut into sections and fields but not yet checked.

    ``golden`` has the string columns ``item_id``, ``item_type``,
    ``required_source``, ``keyword_field`` (everything after the third field);
    ``results`` has ``version``, ``item_id``, ``cited``, ``refused_flag``,
    ``answer`` (everything after the fourth field, possibly empty). Both carry
    ``line``, the 1-based line number in the file.
    """

    source: str
    thresholds: Thresholds
    golden: pa.Table
    results: pa.Table
    results_line: int


def decode(data: bytes, source: str) -> str:
    """Decode UTF-8 bytes strictly, dropping one leading byte-order mark."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be decoded as UTF-8",
            source=source,
            line=line,
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def threshold_value(name: str, value, source: str, line: int | None = None) -> Fraction:
    """One threshold as an exact fraction in [0, 1].

    Text must be a decimal number (``0.6``, ``1``, ``.75``); a Python number
    is taken at its shortest decimal form, so the float ``0.6`` means 3/5.
    """
    if isinstance(value, str):
        ok = _NUMBER.fullmatch(value) is not None
    else:
        ok = isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)
        ok = ok and value == value and value not in (float("inf"), float("-inf"))
    if not ok:
        raise InputError(
            f"{name} threshold must be a decimal number in [0, 1], got {value!r}",
            source=source,
            line=line,
        )
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if not 0 <= exact <= 1:
        raise InputError(
            f"{name} threshold must lie in [0, 1], got {value}", source=source, line=line
        )
    return exact


def parse_thresholds(fields: list[str], source: str, line: int) -> Thresholds:
    """Read ``THRESHOLDS c r f`` into exact fractions in [0, 1]."""
    expected = "expected 'THRESHOLDS <correctness> <citation> <refusal>'"
    if not fields or fields[0] != "THRESHOLDS":
        got = " ".join(fields)
        raise InputError(f"{expected} as the first line, got {got!r}", source=source, line=line)
    if len(fields) != 4:
        raise InputError(
            f"{expected} with exactly three numbers, got {len(fields) - 1}",
            source=source,
            line=line,
        )
    values = [
        threshold_value(name, text, source, line)
        for name, text in zip(THRESHOLD_NAMES, fields[1:], strict=True)
    ]
    return Thresholds(*values)


def _split(lines: pa.Array, max_splits: int) -> pa.Array:
    return pc.split_pattern_regex(lines, _FIELD_SEP, max_splits=max_splits)


def _first_short(fields: pa.Array, numbers: pa.Array, need: int) -> int | None:
    """Line number of the first line with fewer than ``need`` fields."""
    short = pc.less(pc.list_value_length(fields), need)
    if not pc.any(short).as_py():
        return None
    return numbers[pc.index(short, True).as_py()].as_py()


def _columns(fields: pa.Array, numbers: pa.Array, names: list[str]) -> pa.Table:
    columns = {"line": numbers}
    for i, name in enumerate(names):
        columns[name] = pc.list_element(fields, i)
    return pa.table(columns)


def split_sections(text: str, source: str) -> RawSections:
    """Cut decoded text into the thresholds, golden lines and result lines.

    Raises :class:`InputError` for a missing or malformed THRESHOLDS line, a
    golden or result line with fewer than four fields, and a missing
    ``RESULTS`` line, always naming the first offending line.
    """
    all_lines = pc.list_flatten(pc.split_pattern(pa.array([text], pa.large_string()), "\n"))
    trimmed = pc.utf8_trim(all_lines, " \t\r")
    keep = pc.and_(
        pc.greater(pc.utf8_length(trimmed), 0),
        pc.invert(pc.starts_with(trimmed, "#")),
    )
    positions = pc.indices_nonzero(keep)
    lines = pc.take(trimmed, positions)
    numbers = pc.add(positions, 1)
    if len(lines) == 0:
        raise InputError(
            "empty input: expected a first line 'THRESHOLDS <correctness> <citation> <refusal>'",
            source=source,
            line=1,
        )

    first = lines[0].as_py()
    thresholds = parse_thresholds(re.split(_FIELD_SEP, first), source, numbers[0].as_py())

    marker = pc.index(lines, "RESULTS", start=1).as_py()
    golden_end = len(lines) if marker < 0 else marker
    golden_fields = _split(lines[1:golden_end], 3)
    golden_numbers = numbers[1:golden_end]
    bad = _first_short(golden_fields, golden_numbers, 4)
    if bad is not None:
        got = len(re.split(_FIELD_SEP, trimmed[bad - 1].as_py()))
        hint = " (the section marker is 'RESULTS', upper case)" if got == 1 else ""
        raise InputError(
            "expected a golden item '<id> <ANSWER|REFUSE> <requiredSource> <keywords>' "
            f"with at least 4 fields, got {got}{hint}",
            source=source,
            line=bad,
        )
    if marker < 0:
        raise InputError(
            "no 'RESULTS' line: expected the golden items to be followed by a line "
            "'RESULTS' and the result lines",
            source=source,
            line=len(all_lines) - (1 if text.endswith("\n") else 0) or 1,
        )

    result_fields = _split(lines[marker + 1 :], 4)
    result_numbers = numbers[marker + 1 :]
    bad = _first_short(result_fields, result_numbers, 4)
    if bad is not None:
        got = len(re.split(_FIELD_SEP, trimmed[bad - 1].as_py()))
        raise InputError(
            "expected a result line '<version> <id> <cited> <Y|N> <answer ...>' "
            f"with at least 4 fields, got {got}",
            source=source,
            line=bad,
        )

    golden = _columns(
        golden_fields,
        golden_numbers,
        ["item_id", "item_type", "required_source", "keyword_field"],
    )
    results = _columns(
        result_fields,
        result_numbers,
        ["version", "item_id", "cited", "refused_flag"],
    )
    # A result line of exactly four fields has an empty answer: scatter the
    # fifth elements that exist over an array of empty strings.
    has_answer = pc.greater(pc.list_value_length(result_fields), 4)
    answer = pc.replace_with_mask(
        pa.array([""] * len(result_fields), pa.large_string()),
        has_answer,
        pc.list_flatten(pc.list_slice(result_fields, 4, 5)),
    )
    results = results.append_column("answer", answer)
    return RawSections(
        source=source,
        thresholds=thresholds,
        golden=golden,
        results=results,
        results_line=numbers[marker].as_py(),
    )
