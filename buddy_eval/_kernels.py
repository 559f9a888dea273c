"""How the gate is made fast: byte-level kernels behind a few plain functions.

The rules of the input format live in :mod:`buddy_eval._parsing` and
:mod:`buddy_eval._input_rules`, the scoring rules in :mod:`buddy_eval._scoring`;
they call the functions here for the work done on every line, field, keyword
or (answer, keyword) pair. Each kernel works on whole arrays at once (numpy
over the raw input bytes, pyarrow compute kernels, threads where numpy and
pyarrow release the GIL) and says in its docstring why it is fast and which
plain-Python ``*_reference`` function, defined beside it, it must equal.
``tests/test_kernels.py`` compares every kernel with its reference on
generated inputs.

This module knows nothing of golden items, versions or metrics, and imports
nothing from the package.

The kernels:

- :func:`split_lines`, :func:`first_byte`, :func:`find_line`: line contents
  of a buffer, trimmed; what a line starts with; a line equal to a text.
- :func:`split_fields`: the first fields of every line, cut at runs of blanks.
- :func:`split_keywords`: comma-separated lists, each piece stripped.
- :func:`split_csv_pairs`: the two columns of a plain two-column CSV.
- :func:`first_appearance_codes`, :func:`repeated`, :func:`seen_before`,
  :func:`occurrences`: hashing values once, finding duplicates among integer
  codes, numbering the repeats of each code.
- :func:`counts_per_slot`, :func:`sums_by_count`: rows per slot; per group,
  the cells of each count and the sum of their weights.
- :func:`contains_casefold`: ``word.casefold() in text.casefold()`` for many
  (text, word) pairs.
- :class:`Texts`: strings kept as a view on the input bytes.
- :func:`in_parallel`: two calls on the two cores.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "Texts",
    "contains_casefold",
    "contains_casefold_reference",
    "counts_per_slot",
    "counts_per_slot_reference",
    "find_line",
    "first_appearance_codes",
    "first_byte",
    "in_parallel",
    "index_type",
    "is_utf8",
    "occurrences",
    "occurrences_reference",
    "large_strings",
    "repeated",
    "seen_before",
    "split_csv_pairs",
    "split_csv_pairs_reference",
    "split_fields",
    "split_fields_reference",
    "split_keywords",
    "split_keywords_reference",
    "split_lines",
    "split_lines_reference",
    "strings",
    "sums_by_count",
    "sums_by_count_reference",
    "value_offsets",
]

_BLANKS = " \t"


# -- pyarrow string arrays and positions -------------------------------------


def strings(values) -> pa.Array:
    """One contiguous ``string`` or ``large_string`` array (other types are cast)."""
    if isinstance(values, pa.ChunkedArray):
        # combine_chunks copies even a single chunk.
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    if values.type in (pa.string(), pa.large_string()):
        return values
    return pc.cast(values, pa.large_string())


def large_strings(values) -> pa.Array:
    """One contiguous ``large_string`` array (what pandas' ``str`` dtype stores)."""
    return pc.cast(strings(values), pa.large_string())


def index_type(size: int) -> type[np.int32] | type[np.int64]:
    """int32 when every position and offset up to ``size`` fits in it, else int64.

    Half-size positions halve the memory (and the memory traffic) of every
    array of line and field boundaries below 2 GiB of input.
    """
    return np.int32 if size < 2**31 - 1 else np.int64


def value_offsets(values: pa.Array) -> np.ndarray:
    """The ``len(values) + 1`` value offsets of a string array (a view, no copy)."""
    width = np.int64 if values.type == pa.large_string() else np.int32
    return np.frombuffer(values.buffers()[1], width)[
        values.offset : values.offset + len(values) + 1
    ]


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


def _gather(data: bytes, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """``data[starts[i]:ends[i]]`` for every ``i``, copied into one string array."""
    texts = _strings_between(data, starts, ends)
    # 32-bit positions when they fit: half the fresh memory to touch.
    at = np.arange(0, 2 * len(starts), 2, dtype=index_type(2 * len(starts)))
    return pc.take(texts, pa.array(at))


@dataclass(frozen=True, eq=False)
class Texts:
    """``n`` strings stored as every ``step``-th value of a pyarrow string array.

    With ``step=2`` the array is a view on the input bytes whose even values
    are the texts and odd values the bytes between them (see
    :func:`split_fields`): the answers of a file are never copied out unless a
    DataFrame asks for them, and each kernel copies only the texts it tests.
    """

    values: pa.Array
    step: int = 1

    def __len__(self) -> int:
        return -(-len(self.values) // self.step)

    def take(self, rows: np.ndarray, missing: np.ndarray | None = None) -> pa.Array:
        """The texts at ``rows`` (a copy of just those); null where ``missing``."""
        rows = np.asarray(rows)
        at = rows.astype(index_type(len(self.values))) * self.step if self.step > 1 else rows
        return pc.take(self.values, pa.array(at, mask=missing))

    def column(self) -> pa.Array:
        """All texts as one ``large_string`` array."""
        if self.step == 1:
            return large_strings(self.values)
        return large_strings(self.take(np.arange(len(self), dtype=np.int64)))

    def non_ascii_rows(self) -> np.ndarray:
        """Positions of the texts holding a byte >= 0x80, found on the raw bytes.

        One comparison per byte, in blocks of 4 MiB; only the bytes found are
        mapped back to their texts (reference: ``[i for i, t in
        enumerate(texts) if not t.isascii()]``). Found once, then kept: the
        texts never change, and :func:`contains_casefold` asks once per call.
        """
        return self._non_ascii_rows

    @cached_property
    def _non_ascii_rows(self) -> np.ndarray:
        values = strings(self.values)
        data = values.buffers()[2]
        if len(values) == 0 or data is None:
            return np.empty(0, np.int64)
        offsets = value_offsets(values)
        raw = np.frombuffer(data, np.uint8)
        lo, hi, step = int(offsets[0]), int(offsets[-1]), 1 << 22
        hits = [
            np.flatnonzero(raw[at : min(at + step, hi)] >= 128) + at for at in range(lo, hi, step)
        ]
        if not hits:
            return np.empty(0, np.int64)
        where = np.unique(np.searchsorted(offsets, np.concatenate(hits), side="right") - 1)
        if self.step > 1:
            where = where[where % self.step == 0] // self.step
        return where.astype(np.int64)


def in_parallel(first, second):
    """``(first(), second())``, ``second`` run on another thread meanwhile.

    The gate's bulk work is numpy and pyarrow calls, which release the GIL, so
    two independent steps share the two cores. When ``first`` raises, its
    error is raised once ``second`` has finished.
    """
    with ThreadPoolExecutor(1) as pool:
        other = pool.submit(second)
        one = first()
        return one, other.result()


# -- bytes: UTF-8, lines and fields -------------------------------------------


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8, checked by pyarrow's validator without decoding it.

    Reference: ``data.decode("utf-8")`` does not raise.
    """
    whole = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, len(data)], np.int64)), pa.py_buffer(data)
    )
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


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


def split_lines(data: bytes, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every line's content in ``data[start:]``, trimmed of spaces, tabs, ``\\r``.

    Lines are what ``data[start:].split(b"\\n")`` gives; line ``i`` has number ``i + 1``;
    ``data[:start]`` (a byte-order mark) must hold no newline. Fast because the newlines are
    found by one numpy comparison over the buffer (in 8 MiB blocks) and the common cases
    (nothing to trim, or one ``\\r`` before the ``\\n``) are handled on whole arrays; only lines
    with blanks at either end go through ``bytes.strip``. Positions are int32 below 2 GiB
    (:func:`index_type`).

    Must equal :func:`split_lines_reference`.
    """
    buf = np.frombuffer(data, np.uint8)
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


def split_lines_reference(data: bytes, start: int = 0) -> list[bytes]:
    """The slow twin of :func:`split_lines`: each line's content, as bytes."""
    return [line.strip(b" \t\r") for line in data[start:].split(b"\n")]


def first_byte(data: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The first byte of every range ``data[starts[i]:ends[i]]``, -1 for an empty one.

    One numpy gather. Reference: ``[r[0] if r else -1 for r in ranges]``.
    """
    buf = np.frombuffer(data, np.uint8)
    out = np.full(len(starts), -1, np.int16)
    nonempty = ends > starts
    out[nonempty] = buf[starts[nonempty]]
    return out


def find_line(data: bytes, starts: np.ndarray, ends: np.ndarray, text: bytes) -> int:
    """The first ``i`` with ``data[starts[i]:ends[i]] == text``, or -1.

    Only the ranges of the right length starting with the right byte are
    compared in Python. Reference: ``ranges.index(text)`` (or -1).
    """
    if not text or len(starts) == 0 or not data:
        return -1
    buf = np.frombuffer(data, np.uint8)
    candidates = (ends - starts == len(text)) & (buf[np.minimum(starts, len(buf) - 1)] == text[0])
    for i in np.flatnonzero(candidates).tolist():
        if data[starts[i] : ends[i]] == text:
            return i
    return -1


def _strip_blanks(
    data: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, right: bool = True
) -> None:
    """Move each range ``[starts[i], ends[i])`` in place past its leading blanks.

    Blanks are spaces and tabs; with ``right`` the trailing ones are stripped
    too. Each pass moves every range that still starts with a blank, so the
    passes are as many as the longest run of blanks.
    """
    more = np.flatnonzero(starts < ends)
    while len(more):
        byte = data[starts[more]]
        more = more[(byte == 32) | (byte == 9)]
        starts[more] += 1
        more = more[starts[more] < ends[more]]
    more = np.flatnonzero(starts < ends) if right else np.empty(0, np.intp)
    while len(more):
        byte = data[ends[more] - 1]
        more = more[(byte == 32) | (byte == 9)]
        ends[more] -= 1
        more = more[starts[more] < ends[more]]


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


def split_fields(
    data: bytes,
    starts: np.ndarray,
    ends: np.ndarray,
    n_fields: int,
    *,
    view_last: bool = False,
) -> tuple[list, np.ndarray]:
    """Cut each line ``data[starts[i]:ends[i]]`` into ``n_fields`` fields at its first blank runs.

    The lines must be trimmed (:func:`split_lines`), in order and not
    overlapping. Blanks are spaces and tabs. Returns ``(columns, found)``: one
    string array per field, and per line the number of blank runs found (at
    most ``n_fields - 1``). The last field is the rest of the line, inner
    blanks kept; when fewer runs are found the missing fields are empty.

    Fast because each run is found by one pyarrow substring search over all
    lines at once, on the buffer (no copy), and runs of more than one blank
    (rare) are extended by :func:`_strip_blanks` afterwards. Each field is
    copied out of ``data`` once; with ``view_last`` the last one is not copied
    at all but returned as :class:`Texts` viewing ``data``.

    Must equal :func:`split_fields_reference`.
    """
    buf = np.frombuffer(data, np.uint8)
    tabs = len(starts) > 0 and data.find(b"\t", int(starts[0]), int(ends[-1])) >= 0
    found = np.zeros(len(starts), np.int8)
    columns = []
    at = starts
    for _ in range(n_fields - 1):
        offset = _first_blank(data, at, ends, tabs)
        hit = offset >= 0
        start = at + offset
        np.copyto(start, ends, where=~hit)
        columns.append(_gather(data, at, start))
        end = start + hit
        del offset, start
        # Lines without a blank have end == ends: nothing to skip.
        _strip_blanks(buf, end, ends, right=False)
        found += hit
        at = end
    if view_last:
        columns.append(Texts(_strings_between(data, at, ends), step=2))
    else:
        columns.append(_gather(data, at, ends))
    return columns, found


def split_fields_reference(line: str, n_fields: int) -> tuple[list[str], int]:
    """The slow twin of :func:`split_fields` for one trimmed line: its fields and runs found."""
    if n_fields == 1 or not line:  # (maxsplit=0 would split everywhere)
        return [line] + [""] * (n_fields - 1), 0
    parts = re.split(f"[{_BLANKS}]+", line, maxsplit=n_fields - 1)
    found = len(parts) - 1
    return parts + [""] * (n_fields - len(parts)), found


# -- two-column CSV --------------------------------------------------------------

#: Bytes that can make a CSV field more than the text between its commas: quotes, and
#: every control character but the newline (whitespace a reader strips, ``\r``, NUL).
_NOT_PLAIN = bytes([*range(0x20), 0x22, 0x7F]).replace(b"\n", b"")


def split_csv_pairs(data: bytes) -> tuple[pa.Array, pa.Array] | None:
    """The two fields of every non-empty line of a plain CSV, as two string columns.

    A plain CSV is ASCII without quotes or control characters (but the
    newline), with no space at either end of a field, and exactly two fields
    on every non-empty line. Such a file is its commas and newlines, and
    pyarrow's CSV reader splits it in one pass over the bytes; anything else
    returns None, for the line-by-line reader (which says what is wrong and
    where). Reference: :func:`split_csv_pairs_reference`, the rows of
    :func:`csv.reader` with every field stripped, which it equals whenever it
    returns columns.
    """
    import pyarrow.csv as pa_csv

    if not data.isascii() or len(data.translate(None, _NOT_PLAIN)) != len(data):
        return None
    if not data.endswith(b"\n"):
        data += b"\n"  # the reader finds a single line's columns only at its newline
    try:
        table = pa_csv.read_csv(
            pa.py_buffer(data),
            read_options=pa_csv.ReadOptions(
                autogenerate_column_names=True, use_threads=False, block_size=len(data) + 1
            ),
            parse_options=pa_csv.ParseOptions(
                quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=True
            ),
            convert_options=pa_csv.ConvertOptions(
                column_types={"f0": pa.string(), "f1": pa.string()},
                strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid:  # a line with another number of fields, or an empty file
        return None
    if table.schema.names != ["f0", "f1"]:
        return None
    columns = strings(table.column(0)), strings(table.column(1))
    # In plain ASCII the space is the one character a reader would strip from a field.
    for column in columns:
        for at_edge in (pc.starts_with, pc.ends_with):
            if pc.any(at_edge(column, pattern=" ")).as_py():
                return None
    return columns


def split_csv_pairs_reference(data: bytes) -> list[list[str]]:
    """The rows of ``csv.reader`` over ``data``, fields stripped, empty lines skipped."""
    import csv
    import io

    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), strict=True)
    return [[f.strip() for f in row] for row in reader if row and row != [""]]


# -- keyword lists -------------------------------------------------------------


def split_keywords(fields, *, none: str = "-") -> pa.ListArray:
    """Split each text on ``,``; strip each piece of spaces and tabs; drop empty pieces.

    A text exactly equal to ``none``, or null, gives no pieces. Fast because
    the commas are found by one numpy comparison over the texts' bytes, the
    pieces are cut with array arithmetic on their offsets, and only the kept
    pieces are copied out (one :func:`pyarrow.compute.take`).

    Must equal :func:`split_keywords_reference`.
    """
    field = large_strings(fields.fill_null(none))
    n = len(field)
    offsets = value_offsets(field).astype(np.int64) if n else np.zeros(1, np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    if hi == lo:
        empty = pa.array(np.zeros(n + 1, np.int32))
        return pa.ListArray.from_arrays(empty, pa.array([], pa.string()))
    data = np.frombuffer(field.buffers()[2], np.uint8)
    commas = np.flatnonzero(data[lo:hi] == 44) + lo
    owner = np.searchsorted(offsets[:-1], commas, side="right") - 1
    per_field = 1 + np.bincount(owner, minlength=n)
    # Pieces in byte order: field f's first piece is number f + (commas
    # before f); comma g (in byte order) ends piece owner + g and starts the next.
    first_piece = np.zeros(n, np.int64)
    np.cumsum(per_field[:-1], out=first_piece[1:])
    starts = np.empty(len(commas) + n, np.int64)
    ends = np.empty(len(commas) + n, np.int64)
    starts[first_piece] = offsets[:-1]
    ends[first_piece + per_field - 1] = offsets[1:]
    at = owner + np.arange(len(commas))
    ends[at] = commas
    starts[at + 1] = commas + 1
    _strip_blanks(data, starts, ends)
    keep = ends > starts
    marker = none.encode("utf-8")
    if marker:
        is_none = offsets[1:] - offsets[:-1] == len(marker)
        for k, byte in enumerate(marker):
            is_none &= data[np.minimum(offsets[:-1] + k, len(data) - 1)] == byte
        keep &= ~np.repeat(is_none, per_field)
    counts = np.bincount(np.repeat(np.arange(n), per_field)[keep], minlength=n)
    list_offsets = np.zeros(n + 1, np.int32)
    np.cumsum(counts, out=list_offsets[1:])
    starts, ends = starts[keep], ends[keep]
    words = pa.array([], pa.string())
    if len(starts):
        view = np.empty(2 * len(starts), np.int64)
        view[0::2], view[1::2] = starts, ends
        texts = pa.LargeStringArray.from_buffers(
            len(view) - 1, pa.py_buffer(view), field.buffers()[2]
        )
        words = pc.cast(pc.take(texts, pa.array(np.arange(0, len(view), 2))), pa.string())
    return pa.ListArray.from_arrays(pa.array(list_offsets), words)


def split_keywords_reference(field: str | None, *, none: str = "-") -> list[str]:
    """The slow twin of :func:`split_keywords` for one text."""
    if field is None or field == none:
        return []
    return [k.strip(_BLANKS) for k in field.split(",") if k.strip(_BLANKS)]


# -- hashing and duplicates ----------------------------------------------------


def first_appearance_codes(values) -> np.ndarray:
    """Integer codes numbered in order of first appearance; -1 for missing values.

    One pass of pyarrow's hash table (``dictionary_encode``), which releases
    the GIL (see :func:`in_parallel`). Reference: ``codes.setdefault(v,
    len(codes))`` for each non-null value.
    """
    encoded = pc.dictionary_encode(values)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    parts = [c.indices.fill_null(-1).to_numpy(zero_copy_only=False) for c in chunks]
    return np.concatenate([np.empty(0, np.int64), *parts]).astype(np.int64, copy=False)


def repeated(codes: np.ndarray) -> np.ndarray:
    """True where a code (numbered by first appearance; -1, missing, never) was seen before.

    A running maximum, no hashing: codes numbered by first appearance are new
    exactly where they exceed every earlier code. Reference: a set of the
    codes seen so far.
    """
    if len(codes) == 0:
        return np.zeros(0, bool)
    seen = np.maximum.accumulate(codes)
    new = np.empty(len(codes), bool)
    new[0] = True
    new[1:] = codes[1:] > seen[:-1]
    return ~new & (codes >= 0)


def seen_before(keys: np.ndarray, valid: np.ndarray, span: int) -> np.ndarray:
    """True where a valid key in ``[0, span)`` was already taken by an earlier valid row.

    Linear counting (``bincount``) when ``span`` is small against the rows,
    and only the keys seen twice are then sorted; otherwise one stable sort.
    Memory stays linear in the rows whatever ``span`` is. Reference: a set of
    the valid keys seen so far.
    """
    out = np.zeros(len(keys), bool)
    every = bool(valid.all())
    rows = np.arange(len(keys)) if every else np.flatnonzero(valid)
    if span <= 4 * len(rows) + 1024:
        # Counting is linear; only keys seen twice need sorting.
        counts = np.bincount(keys if every else keys[rows], minlength=span)
        if not (counts > 1).any():
            return out
        rows = rows[counts[keys[rows]] > 1]
    if len(rows):
        order = np.argsort(keys[rows], kind="stable")
        ordered = keys[rows][order]
        out[rows[order[1:][ordered[1:] == ordered[:-1]]]] = True
    return out


_OCCURRENCE_PASSES = 8  # most repeats of one key numbered by passes; more: one sort


def occurrences(keys: np.ndarray, span: int) -> np.ndarray:
    """Per row, how many earlier rows hold the same key; keys in ``[-1, span)``.

    Keys that come in a few ascending runs (trials written one after the
    other, or each key's rows together) are put in order by one stable sort,
    linear on runs; a row's number is then its rank after its key's first
    row. Otherwise, when no key is repeated more than 8 times (repeated
    trials: a few per key), one pass per repeat: each pass finds the first
    remaining row of every key (``np.minimum.at`` into an array of ``span +
    1`` slots), numbers it and drops it, so the work is linear in the rows
    whatever their order; more repeats: the stable sort. The result is int32
    below 2**31 rows (:func:`index_type`).

    Must equal :func:`occurrences_reference`.
    """
    n = len(keys)
    kind = index_type(n)
    out = np.zeros(n, kind)
    if n == 0:
        return out
    slot: np.ndarray = keys.astype(kind if span < 2**31 - 1 else np.int64) + 1  # -1 -> slot 0
    counts = np.bincount(slot, minlength=span + 1)
    # Keys in a few ascending runs (trial after trial) sort in linear time.
    runs = np.count_nonzero(slot[1:] < slot[:-1])
    if (counts > _OCCURRENCE_PASSES).any() or runs <= n // 1024:
        order = np.argsort(slot, kind="stable")
        first = np.zeros(span + 1, kind)
        np.cumsum(counts[:-1], out=first[1:])
        del counts
        out[order] = np.arange(n, dtype=kind) - first[slot[order]]
        return out
    del counts
    remaining = np.arange(n, dtype=kind)
    first = np.full(span + 1, n, kind)
    number = 0
    while len(remaining):
        key = slot[remaining]
        np.minimum.at(first, key, remaining)
        is_first = first[key] == remaining
        numbered = remaining[is_first]
        out[numbered] = number
        first[slot[numbered]] = n
        remaining = remaining[~is_first]
        number += 1
    return out


def counts_per_slot(slots: np.ndarray, n_slots: int, where: np.ndarray | None = None) -> np.ndarray:
    """Per slot in ``[0, n_slots)``: how many rows (of those ``where`` holds) fall in it, int64.

    One ``bincount`` of the selected slots. Must equal
    :func:`counts_per_slot_reference`.
    """
    return np.bincount(slots if where is None else slots[where], minlength=n_slots)


def counts_per_slot_reference(slots, n_slots: int, where) -> list[int]:
    """The slow twin of :func:`counts_per_slot`: a running count per slot."""
    out = [0] * n_slots
    for slot, kept in zip(slots, where, strict=True):
        out[slot] += bool(kept)
    return out


# Largest count summed by levels (count_nonzero passes); above it, two bincounts.
_LEVELS = 3


def sums_by_count(
    counts: np.ndarray,
    weights: np.ndarray,
    where: np.ndarray,
    keys: np.ndarray | None = None,
    n_keys: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Per group of cells, over the cells ``where`` holds: the cells of each count and the
    sum of their weights.

    ``counts`` and ``weights`` hold whole numbers with ``0 <= weight <=
    count`` (any integer or bool dtype). The groups are the rows of 2-D
    arrays, or with ``keys`` (1-D arrays) each cell's group in ``[0,
    n_keys)``. Returns ``(cells, sums)``, int64, of shape ``(groups, top +
    1)``, ``top`` the largest count: ``cells[g, t]`` is the number of cells of
    group ``g`` with count ``t``, ``sums[g, t]`` the sum of their weights.

    Fast because for rows with every count at most 3 (one trial per cell:
    the counts are the 0/1 outcomes themselves) nothing is converted or
    copied: a sum of weights at most ``t`` is the number of cells whose
    weight reaches 1, 2, ... ``t``, each one ``count_nonzero`` over a boolean
    mask. Otherwise two ``bincount`` over one (group, count) key, the cells
    left out sent to one extra slot. Must equal
    :func:`sums_by_count_reference`.
    """
    groups = counts.shape[0] if keys is None else n_keys
    top = int(counts.max(initial=0))
    cells = np.zeros((groups, top + 1), np.int64)
    sums = np.zeros((groups, top + 1), np.int64)
    if counts.size == 0:
        return cells, sums
    if keys is None and top <= _LEVELS:
        for t in range(top + 1):
            selected = where & (counts == t)
            cells[:, t] = np.count_nonzero(selected, axis=1)
            for level in range(1, t + 1):
                sums[:, t] += np.count_nonzero(selected & (weights >= level), axis=1)
        return cells, sums
    span = groups * (top + 1)
    group = np.arange(groups)[:, None] if keys is None else keys
    slot = np.where(where, group * (top + 1) + counts, span).ravel()
    cells[:] = np.bincount(slot, minlength=span + 1)[:span].reshape(groups, top + 1)
    total = np.bincount(slot, weights=weights.ravel(), minlength=span + 1)[:span]
    sums[:] = np.rint(total).astype(np.int64).reshape(groups, top + 1)
    return cells, sums


def sums_by_count_reference(groups, counts, weights, where) -> dict[tuple[int, int], tuple]:
    """The slow twin of :func:`sums_by_count` on flat lists (``groups``: each cell's group):
    per (group, count) with a cell, the number of cells and the sum of their weights."""
    out: dict[tuple[int, int], tuple] = {}
    for group, count, weight, kept in zip(groups, counts, weights, where, strict=True):
        if kept:
            n, total = out.get((group, count), (0, 0))
            out[(group, count)] = (n + 1, total + weight)
    return out


def occurrences_reference(keys) -> list[int]:
    """The slow twin of :func:`occurrences`: a running count per key."""
    seen: dict[int, int] = {}
    out = []
    for key in keys:
        out.append(seen.get(key, 0))
        seen[key] = out[-1] + 1
    return out


# -- case-insensitive substring tests ------------------------------------------

_GROUPED = 32  # pairs a word needs before it is tested with one kernel call
_PYTHON_BLOCK = 1 << 17  # pairs tested in Python at a time (bounds their Python strings)
# Case-insensitive search (RE2) is the faster kernel for short words, but its
# time grows with the word's length and it refuses very long ones; longer
# words are searched for in lower-cased copies of the texts.
_RE2_WORD = 64


def _bools(values) -> np.ndarray:
    return np.asarray(values.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _fold_words(words: pa.Array) -> tuple[np.ndarray, list[str]]:
    """Codes of the case-folded words, and the folded values (``str.casefold``).

    Words repeat: each distinct one is folded once, in Python, which is exact
    for every script.
    """
    encoded = pc.dictionary_encode(words)
    folded: dict[str, int] = {}
    remap = [folded.setdefault(k.casefold(), len(folded)) for k in encoded.dictionary.to_pylist()]
    indices = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.asarray(remap, dtype=np.int64)[indices], list(folded)


def contains_casefold(
    texts: Texts, text_of_pair: np.ndarray, words: pa.Array, word_of_pair: np.ndarray
) -> np.ndarray:
    """Per pair ``p``: ``words[w].casefold() in texts[t].casefold()``, ``t, w`` its text and word.

    Parameters
    ----------
    texts : Texts
        The texts searched (answers).
    text_of_pair, word_of_pair : numpy.ndarray
        Per pair, a position in ``texts`` and one in ``words``.
    words : pyarrow.Array
        The words searched for (keywords), non-null strings, literal text.

    Returns
    -------
    numpy.ndarray
        One bool per pair.

    Notes
    -----
    Fast because pairs are grouped by folded word (a radix sort of small
    integer codes): a word with at least 32 pairs is tested against its ASCII
    texts by one pyarrow kernel (an ASCII-case-insensitive substring search,
    which is case folding for ASCII text; words longer than 64 characters: a
    plain search in lower-cased copies), the groups shared between two
    threads. Rare words, and texts holding non-ASCII bytes, are tested in
    Python, each text folded once, in blocks of 131,072 pairs. Only the texts
    a word is tested against are copied out of ``texts``.

    Must equal :func:`contains_casefold_reference`.
    """
    word_code, unique = _fold_words(words)
    pair_code = word_code.astype(np.int32)[word_of_pair]
    # Small integer codes: numpy's stable sort is then a radix sort.
    small = np.int16 if len(unique) < 2**15 else np.int64
    order = np.argsort(pair_code.astype(small), kind="stable")
    bounds = np.searchsorted(pair_code[order], np.arange(len(unique) + 1))
    rare = np.diff(bounds) < _GROUPED
    is_ascii = np.fromiter((k.isascii() for k in unique), bool, len(unique))
    # A non-ASCII word is never inside ASCII text: its kernel would find nothing.
    grouped = np.flatnonzero(~rare & is_ascii).tolist()
    bounds = bounds.tolist()

    is_special = np.zeros(len(texts), dtype=bool)
    is_special[texts.non_ascii_rows()] = True
    in_python = is_special[text_of_pair] | rare[pair_code]
    found = np.zeros(len(text_of_pair), dtype=bool)

    def test(codes: list[int]) -> None:
        for code in codes:
            pairs = order[bounds[code] : bounds[code + 1]]
            pairs = pairs[~in_python[pairs]]
            taken = texts.take(text_of_pair[pairs])
            word = unique[code]
            if len(word) <= _RE2_WORD:
                found[pairs] = _bools(pc.match_substring(taken, word, ignore_case=True))
            else:
                found[pairs] = _bools(pc.match_substring(pc.ascii_lower(taken), word))

    # Each grouped word is one take and one kernel; both release the GIL, so
    # the words are shared between two threads.
    in_parallel(lambda: test(grouped[0::2]), lambda: test(grouped[1::2]))
    in_python = np.flatnonzero(in_python)
    for at in range(0, len(in_python), _PYTHON_BLOCK):
        pairs = in_python[at : at + _PYTHON_BLOCK]
        # Each text is folded once, however many of its words land here.
        rows, text_at = np.unique(text_of_pair[pairs], return_inverse=True)
        folded = [text.casefold() for text in texts.take(rows).to_pylist()]
        found[pairs] = [
            unique[c] in folded[a]
            for c, a in zip(pair_code[pairs].tolist(), text_at.tolist(), strict=True)
        ]
    return found


def contains_casefold_reference(
    texts: list[str], text_of_pair, words: list[str], word_of_pair
) -> list[bool]:
    """The slow twin of :func:`contains_casefold`, on Python lists."""
    return [
        words[w].casefold() in texts[t].casefold()
        for t, w in zip(text_of_pair, word_of_pair, strict=True)
    ]
