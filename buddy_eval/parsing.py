"""Split the canonical text format into raw, line-numbered fields.

This module knows the layout of the file (BOM, line endings, comments, the
THRESHOLDS line, the golden section, the ``RESULTS`` marker, field splitting);
:mod:`buddy_eval.validation` knows what the fields may hold. The splitting is
done by numpy and pyarrow's compute kernels over all lines at once, so a file
of a million result lines never becomes a million Python lists; the answers
are not even copied out of the input's bytes (see :class:`~buddy_eval.columns.Texts`).
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .columns import Texts, index_type
from .errors import InputError

__all__ = [
    "Thresholds",
    "RawSections",
    "decode",
    "split_sections",
    "split_bytes",
    "parse_thresholds",
    "threshold_value",
    "strip_blanks",
]

_FIELD_SEP = r"[ \t]+"
_GOLDEN_FIELDS = ("item_id", "item_type", "required_source", "keyword_field")
_RESULT_FIELDS = ("version", "item_id", "cited", "refused_flag", "answer")
# ASCII digits only; an exponent of at most four digits keeps the exact
# fraction small (1e-99999999 would take minutes to build).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
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

    ``golden`` maps ``item_id``, ``item_type``, ``required_source``,
    ``keyword_field`` (everything after the third field) to string arrays;
    ``results`` maps ``version``, ``item_id``, ``cited``, ``refused_flag`` to
    string arrays and ``answer`` (everything after the fourth field, possibly
    empty) to :class:`~buddy_eval.columns.Texts` viewing the input bytes. Both
    map ``line`` to the 1-based line numbers in the file.
    """

    source: str
    thresholds: Thresholds
    golden: dict
    results: dict
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


def _is_trim(byte: np.ndarray) -> np.ndarray:
    return (byte == 32) | (byte == 9) | (byte == 13)


def _newlines(buf: np.ndarray) -> np.ndarray:
    """Positions of every ``\\n``, found in blocks so no file-sized temporary is made."""
    step, kind = 1 << 23, index_type(len(buf))
    parts = [
        (np.flatnonzero(buf[at : at + step] == 10) + at).astype(kind)
        for at in range(0, len(buf), step)
    ]
    return np.concatenate(parts) if parts else np.empty(0, kind)


def _line_contents(data: bytes, buf: np.ndarray, start: int):
    """Start and end of every line's content, trimmed of spaces, tabs and ``\\r``.

    Lines are what ``text.split("\\n")`` gives; line ``i`` has number ``i + 1``.
    The common cases (nothing to trim, or one ``\\r`` before the ``\\n``) are
    handled on whole arrays; only lines with blanks at either end go through
    ``bytes.strip``.
    """
    nl = _newlines(buf)
    starts = np.empty(len(nl) + 1, nl.dtype)
    starts[0] = start
    np.add(nl, 1, out=starts[1:])
    ends = np.empty(len(nl) + 1, nl.dtype)
    ends[:-1] = nl
    ends[-1] = len(buf)
    del nl
    if len(buf) == 0:
        return starts, ends
    nonempty = ends > starts
    last = buf[np.maximum(ends - 1, 0)]
    ends -= nonempty & (last == 13)
    nonempty = ends > starts
    first = buf[np.minimum(starts, len(buf) - 1)]
    last = buf[np.maximum(ends - 1, 0)]
    ragged = np.flatnonzero(nonempty & (_is_trim(first) | _is_trim(last)))
    for i in ragged.tolist():
        s, e = int(starts[i]), int(ends[i])
        line = data[s:e]
        stripped = line.lstrip(b" \t\r")
        s += len(line) - len(stripped)
        starts[i], ends[i] = s, s + len(stripped.rstrip(b" \t\r"))
    return starts, ends


def _strings_between(data: bytes, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """A string array over ``data`` (no copy) whose value ``2i`` is ``data[starts[i]:ends[i]]``.

    The ranges must be in order and not overlap; the odd values are the gaps
    between them.
    """
    if len(starts) == 0:
        return pa.array([], pa.string())
    small = index_type(len(data)) == np.int32
    offsets = np.empty(2 * len(starts), np.int32 if small else np.int64)
    offsets[0::2] = starts
    offsets[1::2] = ends
    kind = pa.StringArray if small else pa.LargeStringArray
    return kind.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))


def _first_blank(data: bytes, starts: np.ndarray, ends: np.ndarray, tabs: bool) -> np.ndarray:
    """Offset of the first space (or tab) in each ``data[starts[i]:ends[i]]``, -1 for none."""
    if len(starts) == 0:
        return np.empty(0, starts.dtype)
    texts = _strings_between(data, starts, ends)
    found = np.asarray(pc.find_substring(texts, " ").to_numpy(zero_copy_only=False))[0::2]
    if tabs:
        tab = np.asarray(pc.find_substring(texts, "\t").to_numpy(zero_copy_only=False))[0::2]
        found = np.where((tab >= 0) & ((found < 0) | (tab < found)), tab, found)
    return found.astype(starts.dtype)


def _split_fields(
    data: bytes, buf: np.ndarray, cs: np.ndarray, ce: np.ndarray, names, tabs, view_last=False
):
    """Cut each line ``[cs, ce)`` into ``len(names)`` fields at its first runs of blanks.

    Returns ``(columns, found)``: a string column per name, and per line the
    number of runs found (at most ``len(names) - 1``). The last field is the
    rest of the line; with fewer runs the missing fields are empty, at the end
    of the line. Each run is found by one substring search over all lines
    (pyarrow, on the buffer, no copy); runs of more than one blank, rare, are
    extended afterwards. Lines are trimmed, so a run never touches either end
    of its line. Each field is copied out as soon as its end is known, except
    the last one with ``view_last``: that is a :class:`Texts` view on ``data``.
    """
    n = len(cs)
    found = np.zeros(n, np.int8)
    columns = {}
    at = cs
    for name in names[:-1]:
        offset = _first_blank(data, at, ce, tabs)
        hit = offset >= 0
        start = at + offset
        np.copyto(start, ce, where=~hit)
        columns[name] = _gather(data, at, start)
        end = start + hit
        del offset, start
        # Lines without a blank have end == ce: nothing to skip.
        strip_blanks(buf, end, ce, right=False)
        found += hit
        at = end
    if view_last:
        columns[names[-1]] = Texts(_strings_between(data, at, ce), step=2)
    else:
        columns[names[-1]] = _gather(data, at, ce)
    return columns, found


def _gather(data: bytes, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """``data[starts[i]:ends[i]]`` for every ``i``, copied into one string array."""
    texts = _strings_between(data, starts, ends)
    return pc.take(texts, pa.array(np.arange(0, 2 * len(starts), 2)))


def strip_blanks(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, right: bool = True
) -> None:
    """Move each range ``[starts[i], ends[i])`` in place past its leading blanks.

    Blanks are spaces and tabs; with ``right`` the trailing ones are stripped too.
    """
    more = np.flatnonzero(starts < ends)
    while len(more):
        byte = data[starts[more]]
        more = more[(byte == 32) | (byte == 9)]
        starts[more] += 1
        more = more[starts[more] < ends[more]]
    more = np.flatnonzero(starts < ends) if right else ()
    while len(more):
        byte = data[ends[more] - 1]
        more = more[(byte == 32) | (byte == 9)]
        ends[more] -= 1
        more = more[starts[more] < ends[more]]


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
    found with numpy on the raw buffer (the separators are ASCII, so a cut
    there never splits a character), and each column is gathered once from
    the buffer by :func:`pyarrow.compute.take`.
    """
    if bom:
        _check_utf8(data, source)
    start = 3 if bom and data.startswith(b"\xef\xbb\xbf") else 0
    buf = np.frombuffer(data, np.uint8)
    starts, ends = _line_contents(data, buf, start)
    n_lines = len(starts)
    safe = np.minimum(starts, max(len(buf) - 1, 0))
    keep = ends > starts
    if len(buf):
        keep &= buf[safe] != 35
    kept = np.flatnonzero(keep)
    if len(kept) == 0:
        raise InputError(
            "empty input: expected a first line 'THRESHOLDS <correctness> <citation> <refusal>'",
            source=source,
            line=1,
        )
    cs, ce = starts[kept], ends[kept]
    numbers = kept + 1
    del starts, ends, keep, safe, kept

    first = data[cs[0] : ce[0]].decode("utf-8")
    thresholds = parse_thresholds(re.split(_FIELD_SEP, first), source, int(numbers[0]))

    marker = -1
    for i in np.flatnonzero((ce[1:] - cs[1:] == 7) & (buf[cs[1:]] == 82)).tolist():
        if data[cs[i + 1] : ce[i + 1]] == b"RESULTS":
            marker = i + 1
            break
    golden_end = len(cs) if marker < 0 else marker
    tabs = data.find(b"\t") >= 0

    g_cs, g_ce = cs[1:golden_end], ce[1:golden_end]
    r_cs, r_ce = cs[marker + 1 :], ce[marker + 1 :]
    # The two sections are cut on both cores (numpy and pyarrow release the
    # GIL); errors are still raised in file order.
    with ThreadPoolExecutor(2) as pool:
        golden_job = pool.submit(_split_fields, data, buf, g_cs, g_ce, _GOLDEN_FIELDS, tabs)
        if marker >= 0:
            results, r_found = _split_fields(
                data, buf, r_cs, r_ce, _RESULT_FIELDS, tabs, view_last=True
            )
        golden, g_found = golden_job.result()
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
            "no 'RESULTS' line: expected the golden items to be followed by a line "
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
        golden={"line": numbers[1:golden_end], **golden},
        results={"line": numbers[marker + 1 :], **results},
        results_line=int(numbers[marker]),
    )


def _check_utf8(data: bytes, source: str) -> None:
    """Raise :func:`decode`'s error unless ``data`` is UTF-8, without decoding it."""
    whole = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, len(data)], np.int64)), pa.py_buffer(data)
    )
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        decode(data, source)
        raise  # pragma: no cover - decode raises for every invalid input
