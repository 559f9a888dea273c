"""Split the canonical text format into raw, line-numbered fields.

This module knows the layout of the file (BOM, line endings, comments, the
THRESHOLDS line, the golden section, the ``RESULTS`` marker, how many fields a
line has); :mod:`buddy_eval._input_rules` knows what the fields may hold. The
work on every line is done by :mod:`buddy_eval._kernels` (numpy and pyarrow
over the raw bytes, all lines at once), so a file of a million result lines
never becomes a million Python lists, and the answers are not even copied out
of the input's bytes (see :class:`~buddy_eval._kernels.Texts`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

import numpy as np

from . import _kernels as kernels
from ._errors import InputError, quoted
from ._thresholds import THRESHOLD_NAMES, Thresholds, threshold_value

__all__ = [
    "LEDGER_APPLICATION_ID",
    "RawSections",
    "decode",
    "refuse_a_database",
    "read_input_bytes",
    "split_sections",
    "split_bytes",
    "parse_thresholds",
]

_FIELD_SEP = r"[ \t]+"
_GOLDEN_FIELDS = ("item_id", "item_type", "required_source", "keyword_field")
_RESULT_FIELDS = ("version", "item_id", "cited", "refused_flag", "answer")
_COMMENT = ord("#")
_MARKER = b"RESULTS"
#: How the messages of two errors begin, for :func:`buddy_eval.load` to tell them apart.
EMPTY_INPUT = "empty input"
NO_RESULTS_LINE = "no 'RESULTS' line"


@dataclass(frozen=True)
class RawSections:
    """The input's lines, cut into sections and fields but not yet checked.

    ``golden`` maps ``item_id``, ``item_type``, ``required_source``,
    ``keyword_field`` (everything after the third field) to string arrays;
    ``results`` maps ``version``, ``item_id``, ``cited``, ``refused_flag`` to
    string arrays and ``answer`` (everything after the fourth field, possibly
    empty) to :class:`~buddy_eval._kernels.Texts` viewing the input bytes. Both
    map ``line`` to the 1-based line numbers in the file.
    """

    source: str
    thresholds: Thresholds
    golden: dict
    results: dict
    results_line: int


_KINDS = (
    (stat.S_ISDIR, "is a directory, expected a file"),
    (stat.S_ISCHR, "is a device, not a file; give a file, a pipe or - for standard input"),
    (stat.S_ISBLK, "is a device, not a file; give a file, a pipe or - for standard input"),
    (stat.S_ISSOCK, "is a socket, not a file"),
)


def _refuse_kind(mode: int, source: str, tty: bool = False) -> None:
    if tty:  # a terminal is a character device too: someone typing the input
        return
    for is_kind, message in _KINDS:
        if is_kind(mode):
            raise InputError(message, source=source)


def read_input_bytes(path: str | os.PathLike | None = None, what: str = "input file") -> bytes:
    """Read an input file (or standard input, for None) once, whole.

    A regular file, a FIFO and a process substitution (``<(cat x)``) are read
    alike, exactly once, so what is checked, scored, hashed and rendered is
    the same bytes. A directory, a device (``/dev/zero`` would be read until
    memory runs out) or a socket is refused at once; standard input may be a
    terminal.

    ``what`` names the file in messages (``cannot read input file: ...``).

    Raises
    ------
    InputError
        The file cannot be opened or read, or is not a file or a pipe.
    """
    import sys

    if path is None:
        source = "<stdin>"
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise InputError("standard input is closed; nothing to read", source="-")
        try:
            info = os.fstat(stream.fileno())
        except (OSError, ValueError, AttributeError):
            info = None
        if info is not None:
            _refuse_kind(info.st_mode, source, tty=stream.isatty())
        try:
            return stream.read()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", source=source) from None
    source = os.fspath(path)
    try:
        fd = os.open(source, os.O_RDONLY)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise InputError(f"cannot read {what}: {reason}", source=source) from None
    try:
        _refuse_kind(os.fstat(fd).st_mode, source)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(f"cannot read {what}: {exc.strerror}", source=source) from None


#: The first bytes of every SQLite database, and where its header keeps the
#: ``PRAGMA application_id`` that marks a buddy_eval ledger ("BELG").
_SQLITE_HEADER = b"SQLite format 3\x00"
_APPLICATION_ID_AT = slice(68, 72)
LEDGER_APPLICATION_ID = 0x42454C47


def refuse_a_database(data: bytes, source: str, expected: str = "the text input") -> None:
    """An SQLite file (a release ledger, as a rule) given where text is read: say what to run.

    Raises
    ------
    InputError
        ``data`` starts with the SQLite header.
    """
    if not data.startswith(_SQLITE_HEADER):
        return
    import shlex

    path = "PATH" if source in ("", "-") or source.startswith("<") else shlex.quote(source)
    if int.from_bytes(data[_APPLICATION_ID_AT], "big") == LEDGER_APPLICATION_ID:
        raise InputError(
            f"is a buddy_eval release ledger (an SQLite file), not {expected}: see what it "
            f"holds with `buddy-eval history --ledger {path}`, or give the text input and "
            f"`--ledger {path}` to the gate to record an evaluation in it",
            source=source,
        )
    raise InputError(f"is an SQLite database, not {expected}", source=source)


def decode(data: bytes, source: str, expected: str = "the text input") -> str:
    """Decode UTF-8 bytes strictly, dropping one leading byte-order mark.

    ``expected`` names what the bytes should have been, for the message given
    when they are an SQLite database.
    """
    refuse_a_database(data, source, expected)
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


def _other_format_hint(fields: list[str]) -> str:
    """Where a JSON or CSV file given as the text format belongs."""
    if fields and fields[0][:1] in ("{", "["):
        return (
            "; this looks like JSON: golden tasks and runs in JSON are read by "
            "`buddy-eval tasks --golden G.json --run-a A.json --run-b B.json`, tables by "
            "buddy_eval.from_frames"
        )
    if fields and "," in fields[0]:
        return (
            "; this looks like CSV: read the golden set and results with pandas and pass "
            "them to buddy_eval.from_frames, or write the text format (buddy-eval --help)"
        )
    return ""


def parse_thresholds(fields: list[str], source: str, line: int) -> Thresholds:
    """Read ``THRESHOLDS c r f`` into exact fractions in [0, 1]."""
    expected = "expected 'THRESHOLDS <correctness> <citation> <refusal>'"
    if not fields or fields[0] != "THRESHOLDS":
        got = " ".join(fields)
        raise InputError(
            f"{expected} as the first line, got {quoted(got)}{_other_format_hint(fields)}",
            source=source,
            line=line,
        )
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


def _short_field_count(data: bytes, cs: np.ndarray, ce: np.ndarray, i: int) -> int:
    return len(re.split(_FIELD_SEP, data[cs[i] : ce[i]].decode("utf-8")))


def split_sections(text: str, source: str) -> RawSections:
    """Cut decoded text into the thresholds, golden lines and result lines.

    Raises :class:`InputError` for a missing or malformed THRESHOLDS line, a
    golden or result line with fewer than four fields, and a missing
    ``RESULTS`` line, always naming the first offending line.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"not Unicode text: {text[exc.start]!r} (a lone surrogate) has no UTF-8 encoding",
            source=source,
            line=text.count("\n", 0, exc.start) + 1,
        ) from None
    return split_bytes(data, source, bom=False)


def split_bytes(data: bytes, source: str, *, bom: bool = True) -> RawSections:
    """:func:`split_sections` on UTF-8 bytes: checked, a leading BOM dropped.

    The bytes are never decoded as a whole: line and field boundaries are
    found on the raw buffer (the separators are ASCII, so a cut there never
    splits a character) by :func:`~buddy_eval._kernels.split_lines` and
    :func:`~buddy_eval._kernels.split_fields`, and each column is gathered once
    from the buffer.

    Raises :class:`InputError` at the first problem it meets, checking in this
    order: UTF-8, THRESHOLDS, golden lines' field counts, the ``RESULTS``
    line, result lines' field counts. An earlier line may still break a field
    rule (:mod:`buddy_eval._input_rules`): :func:`buddy_eval.load` looks there
    before reporting.
    """
    refuse_a_database(data, source)
    if bom and not kernels.is_utf8(data):
        decode(data, source)
        raise AssertionError("decode raises for every invalid input")  # pragma: no cover
    start = 3 if bom and data.startswith(b"\xef\xbb\xbf") else 0
    starts, ends = kernels.split_lines(data, start)
    n_lines = len(starts)
    # Blank lines and comments are skipped everywhere.
    lead = kernels.first_byte(data, starts, ends)
    kept = np.flatnonzero((lead >= 0) & (lead != _COMMENT))
    del lead
    if len(kept) == 0:
        raise InputError(
            f"{EMPTY_INPUT}: expected a first line 'THRESHOLDS <correctness> <citation> <refusal>'",
            source=source,
            line=1,
        )
    cs, ce = starts[kept], ends[kept]
    numbers = kept + 1
    del starts, ends, kept

    first = data[cs[0] : ce[0]].decode("utf-8")
    thresholds = parse_thresholds(re.split(_FIELD_SEP, first), source, int(numbers[0]))

    found = kernels.find_line(data, cs[1:], ce[1:], _MARKER)
    marker = found + 1 if found >= 0 else -1
    golden_end = len(cs) if marker < 0 else marker

    g_cs, g_ce = cs[1:golden_end], ce[1:golden_end]
    r_cs, r_ce = cs[marker + 1 :], ce[marker + 1 :]

    def cut_results():
        if marker < 0:
            return None, None
        return kernels.split_fields(data, r_cs, r_ce, len(_RESULT_FIELDS), view_last=True)

    # The two sections are cut at once; errors are still raised in file order.
    (results, r_found), (golden, g_found) = kernels.in_parallel(
        cut_results, lambda: kernels.split_fields(data, g_cs, g_ce, len(_GOLDEN_FIELDS))
    )
    short = np.flatnonzero(g_found < 3)
    if len(short):
        got = _short_field_count(data, g_cs, g_ce, short[0])
        first_field = data[g_cs[short[0]] : g_ce[short[0]]].strip(b" \t\r")
        is_marker = got == 1 and first_field.lower() == b"results"
        hint = " (the section marker is 'RESULTS', upper case)" if is_marker else ""
        raise InputError(
            "expected a golden item '<id> <ANSWER|REFUSE> <requiredSource> <keywords>' "
            f"with at least 4 fields, got {got}{hint}",
            source=source,
            line=int(numbers[1 + short[0]]),
        )
    if marker < 0:
        raise InputError(
            f"{NO_RESULTS_LINE}: expected the golden items to be followed by a line "
            "'RESULTS' and the result lines",
            source=source,
            line=n_lines - (1 if data.endswith(b"\n") else 0) or 1,
        )
    # A line of four fields: the fourth ends at the end of the line (where the
    # missing fourth run is taken to be), the answer is empty.
    short = np.flatnonzero(r_found < 3)
    if len(short):
        got = _short_field_count(data, r_cs, r_ce, short[0])
        raise InputError(
            "expected a result line '<version> <id> <cited> <Y|N> <answer ...>' "
            f"with at least 4 fields, got {got}",
            source=source,
            line=int(numbers[marker + 1 + short[0]]),
        )
    return RawSections(
        source=source,
        thresholds=thresholds,
        golden={"line": numbers[1:golden_end], **dict(zip(_GOLDEN_FIELDS, golden, strict=True))},
        results={
            "line": numbers[marker + 1 :],
            **dict(zip(_RESULT_FIELDS, results, strict=True)),
        },
        results_line=int(numbers[marker]),
    )
