"""Check raw fields and turn them into the typed golden and result columns.

Both ways in, the text file (:mod:`buddy_eval.parsing`) and DataFrames a user
already has (:func:`buddy_eval.loading.from_frames`), end here, so a rule is
written once and reports the same way: the first offending line (or row),
what was expected and what was received. Golden problems are reported
before result problems, as they come first in a file.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .columns import GoldenColumns, JoinCodes, ResultColumns, Texts, large_strings
from .errors import InputError

__all__ = ["split_keywords", "check_input"]


def split_keywords(field: pa.Array) -> pa.ListArray:
    """Split keyword fields on ``,``, strip each keyword, drop empty ones.

    A field that is exactly ``-`` means "no keywords". Keywords stay literal
    text: nothing here or later treats them as patterns.
    """
    field = pc.cast(field, pa.string())
    if isinstance(field, pa.ChunkedArray):
        field = field.combine_chunks()
    field = pc.if_else(pc.equal(field, "-"), "", field)
    parts = pc.split_pattern(field, ",")
    parents = pc.list_parent_indices(parts)
    words = pc.utf8_trim(pc.list_flatten(parts), " \t")
    keep = pc.greater(pc.utf8_length(words), 0)
    words = pc.filter(words, keep)
    counts = np.bincount(pc.filter(parents, keep).to_numpy(), minlength=len(field))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), words)


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
    rows = np.flatnonzero(valid)
    if span <= 4 * len(rows) + 1024:
        # Counting is linear; only keys seen twice need sorting.
        counts = np.bincount(keys[rows], minlength=span)
        rows = rows[counts[keys[rows]] > 1]
    out = np.zeros(len(keys), bool)
    if len(rows):
        order = np.argsort(keys[rows], kind="stable")
        ordered = keys[rows][order]
        out[rows[order[1:][ordered[1:] == ordered[:-1]]]] = True
    return out


def _check_golden(fields: Mapping, ids: pa.Array, codes: np.ndarray, source: str, unit: str):
    lines = np.asarray(fields["line"], dtype=np.int64)
    item_type = fields["item_type"]
    kind = pc.ascii_upper(large_strings(item_type))
    is_answer = _mask(pc.equal(kind, "ANSWER").fill_null(False))
    bad_type = ~(is_answer | _mask(pc.equal(kind, "REFUSE").fill_null(False)))
    src = large_strings(fields["required_source"])
    no_source = is_answer & _mask(pc.or_kleene(pc.is_null(src), pc.equal(src, "-")).fill_null(True))
    no_id = codes < 0
    duplicate = _repeated(codes) & ~no_id

    position = _first(bad_type | no_source | duplicate | no_id)
    if position is not None:
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_type[position]:
            got = item_type[position].as_py()
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

    keywords = pc.cast(fields["keywords"], pa.list_(pa.string()))
    if isinstance(keywords, pa.ChunkedArray):
        keywords = keywords.combine_chunks()
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


def _check_results(fields: Mapping, ids: pa.Array, codes: np.ndarray, n_golden: int, source, unit):
    lines = np.asarray(fields["line"], dtype=np.int64)
    refused_flag = fields["refused_flag"]
    flag = pc.ascii_upper(large_strings(refused_flag))
    refused = _mask(pc.equal(flag, "Y").fill_null(False))
    bad_flag = ~(refused | _mask(pc.equal(flag, "N").fill_null(False)))
    versions = large_strings(fields["version"])
    encoded = pc.dictionary_encode(versions)
    labels = tuple(encoded.dictionary.to_pylist())
    v_codes = np.asarray(
        encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64
    )
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
            got = refused_flag[position].as_py()
            _fail(f"refused flag must be Y or N, got {got!r}", lines, position, source, unit)
        first = lines[_first(keys == keys[position])]
        _fail(
            f"duplicate result for version {versions[position].as_py()!r} and id "
            f"{ids[position].as_py()!r} (first given on {unit} {first})",
            lines,
            position,
            source,
            unit,
        )

    cited = large_strings(fields["cited"])
    answer = fields["answer"]
    columns = ResultColumns(
        version=versions,
        item_id=ids,
        cited=pc.if_else(pc.equal(cited, "-"), None, cited),
        refused=refused,
        answer=answer if isinstance(answer, Texts) else Texts(large_strings(answer)),
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
        ``keywords`` (list of strings per item) and ``line`` (numbers).
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
    golden_ids, result_ids = large_strings(golden["item_id"]), large_strings(results["item_id"])
    # One hash table for both: golden ids are numbered first, so a result's
    # code is its golden row when below the number of golden items.
    codes = _codes(pa.chunked_array([golden_ids, result_ids], pa.large_string()))
    n_golden = len(golden_ids)
    golden_columns = _check_golden(golden, golden_ids, codes[:n_golden], sources[0], unit)
    results_columns, join = _check_results(
        results, result_ids, codes[n_golden:], n_golden, sources[1], unit
    )
    return golden_columns, results_columns, join
