"""Check raw fields and turn them into the typed golden and results DataFrames.

Both ways in, the text file (:mod:`buddy_eval.parsing`) and DataFrames a user
already has (:func:`buddy_eval.loading.from_frames`), end here, so a rule is
written once and reports the same way: the first offending line (or row),
what was expected and what was received.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError

__all__ = [
    "GOLDEN_COLUMNS",
    "RESULT_COLUMNS",
    "ITEM_TYPES",
    "split_keywords",
    "build_golden",
    "build_results",
    "arrow_strings",
    "JoinCodes",
    "join_codes",
]

ITEM_TYPES = ("ANSWER", "REFUSE")
GOLDEN_COLUMNS = ("item_id", "item_type", "required_source", "keywords", "line")
RESULT_COLUMNS = ("version", "item_id", "cited", "refused", "answer", "line")
KEYWORDS_DTYPE = pd.ArrowDtype(pa.list_(pa.string()))


def split_keywords(field: pa.Array) -> pa.ListArray:
    """Split keyword fields on ``,``, strip each keyword, drop empty ones.

    A field that is exactly ``-`` means "no keywords". Keywords stay literal
    text: nothing here or later treats them as patterns.
    """
    field = pc.cast(field, pa.string())
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


def _strings(values: pa.Array) -> pa.Array:
    """One contiguous ``large_string`` array (what pandas' ``str`` dtype stores)."""
    if isinstance(values, pa.ChunkedArray):
        # combine_chunks copies even a single chunk.
        values = values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    return pc.cast(values, pa.large_string())


def arrow_strings(column: pd.Series) -> pa.Array:
    """A ``str`` column's values as one pyarrow ``large_string`` array, missing as null."""
    array = column.array
    if hasattr(array, "__arrow_array__"):
        return _strings(array.__arrow_array__())
    return _strings(pa.array(column.to_numpy(dtype=object), from_pandas=True))


def _mask(values) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


def _codes(values: pa.Array) -> np.ndarray:
    """Integer codes numbered in order of first appearance; -1 for missing values."""
    encoded = pc.dictionary_encode(values).indices
    return np.asarray(encoded.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)


def _repeated(codes: np.ndarray) -> np.ndarray:
    """True where a code (numbered by first appearance) was seen before."""
    if len(codes) == 0:
        return np.zeros(0, bool)
    seen = np.maximum.accumulate(codes)
    new = np.empty(len(codes), bool)
    new[0] = True
    new[1:] = codes[1:] > seen[:-1]
    return ~new


def build_golden(
    item_id: pa.Array,
    item_type: pa.Array,
    required_source: pa.Array,
    keywords: pa.ListArray,
    lines: np.ndarray,
    *,
    source: str,
    unit: str = "line",
) -> pd.DataFrame:
    """Validate golden fields and return the golden DataFrame.

    Returns
    -------
    pandas.DataFrame
        One row per golden item, in input order:

        - ``item_id`` (str): the item's id, case-sensitive.
        - ``item_type`` (category ``ANSWER``/``REFUSE``): upper-cased TYPE.
        - ``required_source`` (str): the source an answer must cite; missing
          for REFUSE items.
        - ``keywords`` (list<string>): literal keywords, empty for REFUSE items.
        - ``line`` (int64): line (or row) number in the input.
    """
    lines = np.asarray(lines, dtype=np.int64)
    ids = _strings(item_id)
    kind = pc.ascii_upper(_strings(item_type))
    is_answer = _mask(pc.equal(kind, "ANSWER").fill_null(False))
    bad_type = ~(is_answer | _mask(pc.equal(kind, "REFUSE").fill_null(False)))
    src = _strings(required_source)
    no_source = is_answer & _mask(pc.or_kleene(pc.is_null(src), pc.equal(src, "-")).fill_null(True))
    codes = _codes(ids)
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

    keywords = pc.cast(keywords, pa.list_(pa.string()))
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
    return pd.DataFrame(
        {
            "item_id": pd.Series(ids, dtype="str"),
            "item_type": pd.Categorical.from_codes(
                np.where(is_answer, 0, 1).astype(np.int8), categories=list(ITEM_TYPES)
            ),
            "required_source": pd.Series(pc.if_else(pa.array(is_answer), src, None), dtype="str"),
            "keywords": pd.Series(keywords, dtype=KEYWORDS_DTYPE),
            "line": lines,
        }
    )


@dataclass(frozen=True)
class JoinCodes:
    """The results' version labels and item ids as integer codes, hashed once.

    Attributes
    ----------
    versions : tuple of str
        Version labels in order of first appearance.
    version : numpy.ndarray
        Per result row, the position of its label in ``versions`` (-1 when missing).
    item : numpy.ndarray
        Per result row, the golden row of its ``item_id``; -1 for an id not in
        the golden set (or missing).
    """

    versions: tuple[str, ...]
    version: np.ndarray
    item: np.ndarray


def _version_codes(versions: pa.Array) -> tuple[tuple[str, ...], np.ndarray]:
    encoded = pc.dictionary_encode(versions)
    codes = np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return tuple(encoded.dictionary.to_pylist()), codes


def _item_codes(ids: pa.Array, golden_ids: pa.Array) -> np.ndarray:
    found = pc.index_in(ids, value_set=_strings(golden_ids))
    return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)


def join_codes(golden: pd.DataFrame, results: pd.DataFrame) -> JoinCodes:
    """:class:`JoinCodes` of a results DataFrame against a golden DataFrame."""
    labels, version = _version_codes(arrow_strings(results["version"]))
    item = _item_codes(arrow_strings(results["item_id"]), arrow_strings(golden["item_id"]))
    return JoinCodes(labels, version, item)


def build_results(
    version: pa.Array,
    item_id: pa.Array,
    cited: pa.Array,
    refused_flag: pa.Array,
    answer: pa.Array,
    lines: np.ndarray,
    golden_ids: pa.Array,
    *,
    source: str,
    unit: str = "line",
) -> tuple[pd.DataFrame, JoinCodes]:
    """Validate result fields; the results DataFrame and its :class:`JoinCodes`.

    Ids are hashed once, against ``golden_ids``, and the codes serve the
    duplicate check here and the join when scoring.

    Returns
    -------
    results : pandas.DataFrame
        One row per result line, in input order:

        - ``version`` (str): the version label, case-sensitive.
        - ``item_id`` (str): the golden id the result answers.
        - ``cited`` (str): the cited source id; missing when ``-``.
        - ``refused`` (bool): the Y/N flag.
        - ``answer`` (str): the answer text, possibly empty.
        - ``line`` (int64): line (or row) number in the input.
    codes : JoinCodes
        Version and golden-row codes of every result row.
    """
    lines = np.asarray(lines, dtype=np.int64)
    flag = pc.ascii_upper(_strings(refused_flag))
    refused = _mask(pc.equal(flag, "Y").fill_null(False))
    bad_flag = ~(refused | _mask(pc.equal(flag, "N").fill_null(False)))
    versions, ids = _strings(version), _strings(item_id)
    labels, v_codes = _version_codes(versions)
    item = _item_codes(ids, golden_ids)
    i_codes = item.copy()
    unknown = np.flatnonzero(item < 0)
    if len(unknown):
        # Ids outside the golden set (and missing ones) get codes after the golden rows.
        extra = _codes(pc.take(ids, pa.array(unknown)))
        i_codes[unknown] = np.where(extra < 0, -1, extra + len(golden_ids))
    no_version, no_id = v_codes < 0, i_codes < 0
    keys = v_codes * (int(i_codes.max(initial=0)) + 2) + i_codes
    duplicate = pd.Series(keys).duplicated().to_numpy() & ~(no_version | no_id)

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

    cited = _strings(cited)
    frame = pd.DataFrame(
        {
            "version": pd.Series(versions, dtype="str"),
            "item_id": pd.Series(ids, dtype="str"),
            "cited": pd.Series(pc.if_else(pc.equal(cited, "-"), None, cited), dtype="str"),
            "refused": refused,
            "answer": pd.Series(_strings(answer), dtype="str"),
            "line": lines,
        }
    )
    return frame, JoinCodes(labels, v_codes, item)
