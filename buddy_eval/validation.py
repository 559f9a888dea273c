"""Check raw fields and turn them into the typed golden and results DataFrames.

Both ways in, the text file (:mod:`buddy_eval.parsing`) and DataFrames a user
already has (:func:`buddy_eval.loading.from_frames`), end here, so a rule is
written once and reports the same way: the first offending line (or row),
what was expected and what was received.
"""

from __future__ import annotations

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


def _text(values: pa.Array) -> np.ndarray:
    return np.asarray(pc.cast(values, pa.string()).to_numpy(zero_copy_only=False), dtype=object)


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
    kind = pc.ascii_upper(pc.cast(item_type, pa.string()))
    bad_type = ~np.asarray(pc.is_in(kind, pa.array(ITEM_TYPES)).to_numpy(zero_copy_only=False))
    is_answer = np.asarray(pc.equal(kind, "ANSWER").fill_null(False).to_numpy(zero_copy_only=False))
    src = pc.cast(required_source, pa.string())
    no_source = is_answer & np.asarray(
        pc.or_kleene(pc.is_null(src), pc.equal(src, "-"))
        .fill_null(True)
        .to_numpy(zero_copy_only=False)
    )
    ids = pd.Series(_text(item_id))
    no_id = ids.isna().to_numpy()
    duplicate = ids.duplicated().to_numpy() & ~no_id

    position = _first(bad_type | no_source | duplicate | no_id)
    if position is not None:
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_type[position]:
            got = item_type[position].as_py()
            _fail(f"TYPE must be ANSWER or REFUSE, got {got!r}", lines, position, source, unit)
        if no_source[position]:
            _fail(
                f"ANSWER item {ids[position]!r} must name its required source, "
                f"got {src[position].as_py() or '-'!r}",
                lines,
                position,
                source,
                unit,
            )
        first = lines[_first((ids == ids[position]).to_numpy())]
        _fail(
            f"duplicate golden id {ids[position]!r} (first defined on {unit} {first})",
            lines,
            position,
            source,
            unit,
        )

    answer_mask = pa.array(is_answer)
    empty = pa.array([[]] * len(keywords), pa.list_(pa.string()))
    return pd.DataFrame(
        {
            "item_id": pd.Series(pc.cast(item_id, pa.string()), dtype="str"),
            "item_type": pd.Categorical(
                pc.cast(kind, pa.string()).to_pylist(), categories=list(ITEM_TYPES)
            ),
            "required_source": pd.Series(pc.if_else(answer_mask, src, None), dtype="str"),
            "keywords": pd.Series(
                pc.if_else(answer_mask, pc.cast(keywords, pa.list_(pa.string())), empty),
                dtype=KEYWORDS_DTYPE,
            ),
            "line": lines,
        }
    )


def build_results(
    version: pa.Array,
    item_id: pa.Array,
    cited: pa.Array,
    refused_flag: pa.Array,
    answer: pa.Array,
    lines: np.ndarray,
    *,
    source: str,
    unit: str = "line",
) -> pd.DataFrame:
    """Validate result fields and return the results DataFrame.

    Returns
    -------
    pandas.DataFrame
        One row per result line, in input order:

        - ``version`` (str): the version label, case-sensitive.
        - ``item_id`` (str): the golden id the result answers.
        - ``cited`` (str): the cited source id; missing when ``-``.
        - ``refused`` (bool): the Y/N flag.
        - ``answer`` (str): the answer text, possibly empty.
        - ``line`` (int64): line (or row) number in the input.
    """
    lines = np.asarray(lines, dtype=np.int64)
    flag = pc.ascii_upper(pc.cast(refused_flag, pa.string()))
    bad_flag = ~np.asarray(pc.is_in(flag, pa.array(["Y", "N"])).to_numpy(zero_copy_only=False))
    versions = pd.Series(_text(version))
    ids = pd.Series(_text(item_id))
    no_version = versions.isna().to_numpy()
    no_id = ids.isna().to_numpy()
    keys = pd.DataFrame({"version": versions, "item_id": ids})
    duplicate = keys.duplicated().to_numpy() & ~(no_version | no_id)

    position = _first(no_version | no_id | bad_flag | duplicate)
    if position is not None:
        if no_version[position]:
            _fail("expected a version label, got nothing", lines, position, source, unit)
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_flag[position]:
            got = refused_flag[position].as_py()
            _fail(f"refused flag must be Y or N, got {got!r}", lines, position, source, unit)
        same = (versions == versions[position]) & (ids == ids[position])
        first = lines[_first(same.to_numpy())]
        _fail(
            f"duplicate result for version {versions[position]!r} and id {ids[position]!r} "
            f"(first given on {unit} {first})",
            lines,
            position,
            source,
            unit,
        )

    cited = pc.cast(cited, pa.string())
    return pd.DataFrame(
        {
            "version": pd.Series(pc.cast(version, pa.string()), dtype="str"),
            "item_id": pd.Series(pc.cast(item_id, pa.string()), dtype="str"),
            "cited": pd.Series(pc.if_else(pc.equal(cited, "-"), None, cited), dtype="str"),
            "refused": np.asarray(pc.equal(flag, "Y").to_numpy(zero_copy_only=False), dtype=bool),
            "answer": pd.Series(pc.cast(answer, pa.string()), dtype="str"),
            "line": lines,
        }
    )
