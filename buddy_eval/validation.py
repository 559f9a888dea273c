"""Check raw fields and turn them into the typed golden and result columns.

Both ways in, the text file (:mod:`buddy_eval.parsing`) and DataFrames a user
already has (:func:`buddy_eval.loading.from_frames`), end here, so a rule is
written once and reports the same way: the first offending line (or row),
what was expected and what was received. Golden problems are reported
before result problems, as they come first in a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .columns import (
    GoldenColumns,
    JoinCodes,
    ResultColumns,
    Texts,
    large_strings,
    strings,
    value_offsets,
)
from .errors import InputError
from .parsing import strip_blanks

__all__ = ["split_keywords", "check_input"]


def split_keywords(field: pa.Array) -> pa.ListArray:
    """Split keyword fields on ``,``, strip each keyword, drop empty ones.

    A field that is exactly ``-`` means "no keywords". Keywords stay literal
    text: nothing here or later treats them as patterns. The commas are found
    by numpy on the fields' bytes; only the keywords are copied out.
    """
    field = large_strings(field.fill_null("-"))
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
    strip_blanks(data, starts, ends)
    keep = ends > starts
    first_byte = data[np.minimum(offsets[:-1], len(data) - 1)]
    dash = (offsets[1:] - offsets[:-1] == 1) & (first_byte == 45)
    keep &= ~np.repeat(dash, per_field)
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


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _fail(message: str, lines: np.ndarray, position: int, source: str, unit: str):
    raise InputError(message, source=source, line=int(lines[position]), unit=unit)


def _mask(values) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


def _codes(values) -> np.ndarray:
    """Integer codes numbered in order of first appearance; -1 for missing values."""
    encoded = pc.dictionary_encode(values)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    parts = [c.indices.fill_null(-1).to_numpy(zero_copy_only=False) for c in chunks]
    return np.concatenate([np.empty(0, np.int64), *parts]).astype(np.int64, copy=False)


def _repeated(codes: np.ndarray) -> np.ndarray:
    """True where a code (numbered by first appearance) was seen before."""
    if len(codes) == 0:
        return np.zeros(0, bool)
    seen = np.maximum.accumulate(codes)
    new = np.empty(len(codes), bool)
    new[0] = True
    new[1:] = codes[1:] > seen[:-1]
    return ~new


def _seen_before(keys: np.ndarray, valid: np.ndarray, span: int) -> np.ndarray:
    """True where a valid key in ``[0, span)`` was already taken by an earlier valid row."""
    out = np.zeros(len(keys), bool)
    every = bool(valid.all())
    rows = np.arange(len(keys)) if every else np.flatnonzero(valid)
    if span <= 4 * len(rows) + 1024:
        # Counting is linear; only keys seen twice need sorting.
        counts = np.bincount(keys if every else keys[rows], minlength=span)
        if counts.max(initial=0) <= 1:
            return out
        rows = rows[counts[keys[rows]] > 1]
    if len(rows):
        order = np.argsort(keys[rows], kind="stable")
        ordered = keys[rows][order]
        out[rows[order[1:][ordered[1:] == ordered[:-1]]]] = True
    return out


@dataclass(frozen=True, eq=False)
class _GoldenFields:
    """The golden fields read and typed, before any rule is enforced."""

    line: np.ndarray
    item_type: pa.Array  # as given, for messages
    is_answer: np.ndarray
    bad_type: np.ndarray
    required_source: pa.Array
    no_source: np.ndarray
    keywords: pa.ListArray


def _golden_fields(fields: Mapping) -> _GoldenFields:
    kind = pc.ascii_upper(strings(fields["item_type"]))
    is_answer = _mask(pc.equal(kind, "ANSWER").fill_null(False))
    src = strings(fields["required_source"])
    if "keywords" in fields:
        keywords = pc.cast(fields["keywords"], pa.list_(pa.string()))
        if isinstance(keywords, pa.ChunkedArray):
            keywords = keywords.combine_chunks()
    else:
        keywords = split_keywords(fields["keyword_field"])
    return _GoldenFields(
        line=np.asarray(fields["line"], dtype=np.int64),
        item_type=fields["item_type"],
        is_answer=is_answer,
        bad_type=~(is_answer | _mask(pc.equal(kind, "REFUSE").fill_null(False))),
        required_source=src,
        no_source=is_answer
        & _mask(pc.or_kleene(pc.is_null(src), pc.equal(src, "-")).fill_null(True)),
        keywords=keywords,
    )


def _check_golden(g: _GoldenFields, ids: pa.Array, codes: np.ndarray, source: str, unit: str):
    lines, is_answer, bad_type, no_source = g.line, g.is_answer, g.bad_type, g.no_source
    src = g.required_source
    no_id = codes < 0
    duplicate = _repeated(codes) & ~no_id

    position = _first(bad_type | no_source | duplicate | no_id)
    if position is not None:
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_type[position]:
            got = g.item_type[position].as_py()
            _fail(f"TYPE must be ANSWER or REFUSE, got {got!r}", lines, position, source, unit)
        item = ids[position].as_py()
        if no_source[position]:
            _fail(
                f"ANSWER item {item!r} must name its required source, "
                f"got {src[position].as_py() or '-'!r}",
                lines,
                position,
                source,
                unit,
            )
        first = lines[_first(codes == codes[position])]
        _fail(
            f"duplicate golden id {item!r} (first defined on {unit} {first})",
            lines,
            position,
            source,
            unit,
        )

    keywords = g.keywords
    refuse_with_keywords = ~is_answer & (_mask(pc.list_value_length(keywords).fill_null(0)) > 0)
    if refuse_with_keywords.any():
        keywords = pc.if_else(
            pa.array(~refuse_with_keywords),
            keywords,
            pa.ListArray.from_arrays(
                pa.array(np.zeros(len(keywords) + 1, np.int32)), pa.array([], pa.string())
            ),
        )
    return GoldenColumns(
        item_id=ids,
        is_answer=is_answer,
        required_source=pc.if_else(pa.array(is_answer), src, None),
        keywords=keywords,
        line=lines,
    )


@dataclass(frozen=True, eq=False)
class _ResultFields:
    """The result fields read and typed, before any rule is enforced."""

    line: np.ndarray
    refused_flag: pa.Array  # as given, for messages
    refused: np.ndarray
    bad_flag: np.ndarray
    version: pa.Array
    labels: tuple[str, ...]
    version_code: np.ndarray
    cited: pa.Array
    answer: Texts


def _result_fields(fields: Mapping) -> _ResultFields:
    flag = pc.ascii_upper(strings(fields["refused_flag"]))
    refused = _mask(pc.equal(flag, "Y").fill_null(False))
    versions = strings(fields["version"])
    encoded = pc.dictionary_encode(versions)
    cited = strings(fields["cited"])
    answer = fields["answer"]
    return _ResultFields(
        line=np.asarray(fields["line"], dtype=np.int64),
        refused_flag=fields["refused_flag"],
        refused=refused,
        bad_flag=~(refused | _mask(pc.equal(flag, "N").fill_null(False))),
        version=versions,
        labels=tuple(encoded.dictionary.to_pylist()),
        version_code=np.asarray(
            encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64
        ),
        cited=pc.if_else(pc.equal(cited, "-"), None, cited),
        answer=answer if isinstance(answer, Texts) else Texts(large_strings(answer)),
    )


def _check_results(r: _ResultFields, ids: pa.Array, codes: np.ndarray, n_golden: int, source, unit):
    lines, bad_flag, labels, v_codes = r.line, r.bad_flag, r.labels, r.version_code
    no_version, no_id = v_codes < 0, codes < 0
    n_codes = int(codes.max(initial=-1)) + 1
    keys = v_codes * n_codes + codes
    duplicate = _seen_before(keys, ~(no_version | no_id), len(labels) * n_codes)

    position = _first(no_version | no_id | bad_flag | duplicate)
    if position is not None:
        if no_version[position]:
            _fail("expected a version label, got nothing", lines, position, source, unit)
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_flag[position]:
            got = r.refused_flag[position].as_py()
            _fail(f"refused flag must be Y or N, got {got!r}", lines, position, source, unit)
        first = lines[_first(keys == keys[position])]
        _fail(
            f"duplicate result for version {r.version[position].as_py()!r} and id "
            f"{ids[position].as_py()!r} (first given on {unit} {first})",
            lines,
            position,
            source,
            unit,
        )

    columns = ResultColumns(
        version=r.version,
        item_id=ids,
        cited=r.cited,
        refused=r.refused,
        answer=r.answer,
        line=lines,
    )
    # After a valid golden section, golden row i has code i: the join is the code itself.
    item = np.where(codes < n_golden, codes, -1)
    return columns, JoinCodes(labels, v_codes, item)


def check_input(
    golden: Mapping,
    results: Mapping,
    *,
    sources: tuple[str, str],
    unit: str = "line",
) -> tuple[GoldenColumns, ResultColumns, JoinCodes]:
    """Validate golden and result fields; the typed columns and the join codes.

    Parameters
    ----------
    golden : mapping
        ``item_id``, ``item_type``, ``required_source`` (string arrays),
        ``line`` (numbers), and either ``keywords`` (a list of strings per
        item) or ``keyword_field`` (the comma-separated text).
    results : mapping
        ``version``, ``item_id``, ``cited``, ``refused_flag`` (string
        arrays), ``answer`` (strings or :class:`Texts`) and ``line``.
    sources : (str, str)
        Names of the golden and the results input, used in messages.
    unit : {"line", "row"}
        What the numbers in ``line`` count.

    Returns
    -------
    golden : GoldenColumns
    results : ResultColumns
    codes : JoinCodes
        Version and golden-row codes of every result row.

    Raises
    ------
    InputError
        For the first rule broken: golden problems before result problems,
        each in input order.
    """
    golden_ids, result_ids = strings(golden["item_id"]), strings(results["item_id"])
    if golden_ids.type != result_ids.type:
        golden_ids, result_ids = large_strings(golden_ids), large_strings(result_ids)
    with ThreadPoolExecutor(1) as pool:
        # One hash table for both, built on the other core while the other
        # fields are read: golden ids are numbered first, so a result's code
        # is its golden row when below the number of golden items.
        hashing = pool.submit(_codes, pa.chunked_array([golden_ids, result_ids], golden_ids.type))
        golden_fields, result_fields = _golden_fields(golden), _result_fields(results)
        codes = hashing.result()
    n_golden = len(golden_ids)
    golden_columns = _check_golden(golden_fields, golden_ids, codes[:n_golden], sources[0], unit)
    del golden_fields
    results_columns, join = _check_results(
        result_fields, result_ids, codes[n_golden:], n_golden, sources[1], unit
    )
    return golden_columns, results_columns, join
