"""Score every (version, golden item) pair, then every version.

Scoring returns exact numbers: per-item booleans and per-version counts
(numerator and denominator). Rounding belongs to :mod:`buddy_eval.formatting`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .loading import EvalInput
from .validation import arrow_strings

__all__ = [
    "METRICS",
    "RATE_METRICS",
    "check_versions",
    "normalize_text",
    "score_items",
    "score_versions",
]

RATE_METRICS = ("correctness", "citation", "refusal")
METRICS = (*RATE_METRICS, "violations")
_KEYWORDS_DTYPE = pd.ArrowDtype(pa.list_(pa.string()))
_FLAG_OF = {
    "correctness": "correct",
    "citation": "cited_ok",
    "refusal": "refused_ok",
    "violations": "violation",
}


def normalize_text(texts: pa.Array) -> list[str]:
    """Fold text for keyword matching: Unicode case folding, blanks collapsed.

    Runs of spaces and tabs become one space (fields of the input format are
    separated by such runs, so their length carries no meaning), then
    ``str.casefold`` is applied, so ``STRASSE`` contains ``straße``. For
    ASCII text, case folding is plain lower-casing, which pyarrow does for the
    whole column at once; only non-ASCII strings go through Python.
    """
    folded, non_ascii = _fold(texts)
    lowered = folded.to_pylist()
    for i, text in non_ascii.items():
        lowered[i] = text
    return lowered


def _fold(texts: pa.Array) -> tuple[pa.Array, dict[int, str]]:
    """Folded text as an array, exact for ASCII strings, plus the others folded.

    Returns the column with blanks collapsed and ASCII letters lower-cased
    (for an ASCII string that is its case folding), and, for each non-ASCII
    string, its position and true ``str.casefold`` value.
    """
    texts = pc.cast(texts, pa.large_string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    ragged = pc.or_(pc.match_substring(texts, "\t"), pc.match_substring(texts, "  "))
    if pc.any(ragged).as_py():
        texts = pc.replace_substring_regex(texts, r"[ \t]{2,}|\t", " ")
    non_ascii = np.flatnonzero(~_bools(pc.string_is_ascii(texts)))
    folded = {int(i): texts[int(i)].as_py().casefold() for i in non_ascii}
    return pc.ascii_lower(texts), folded


def _bools(values) -> np.ndarray:
    return np.asarray(values.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _codes(values: pd.Series, labels) -> np.ndarray:
    """Position of each value in ``labels`` (-1 when absent): a hash join."""
    if isinstance(labels, pd.Series):
        labels = arrow_strings(labels)
    else:
        labels = pa.array(list(labels), pa.large_string())
    found = pc.index_in(arrow_strings(values), value_set=labels)
    return np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)


def _repeat(values: pa.Array, times: int) -> pa.ChunkedArray:
    return pa.chunked_array([values] * times, type=values.type)


def score_items(data: EvalInput, versions: Sequence[str] | None = None) -> pd.DataFrame:
    """Outcome of every golden item for every version.

    Parameters
    ----------
    data : EvalInput
        A loaded input (see :func:`buddy_eval.load`).
    versions : sequence of str, optional
        Version labels to score, in the order wanted. Default: every label in
        ``data.results``, in order of first appearance. A label with no
        result line is scored as all missing.

    Returns
    -------
    pandas.DataFrame
        One row per (version, golden item), versions in the given order and
        items in golden order:

        - ``version`` (category): the version label.
        - ``item_id`` (str), ``item_type`` (category ANSWER/REFUSE).
        - ``missing`` (bool): no result line for this version and item.
        - ``refused`` (boolean): the Y/N flag; NA when missing.
        - ``answered`` (boolean): not refused; NA when missing.
        - ``cited`` (str): the cited source; NA when nothing was cited or missing.
        - ``required_source`` (str): NA for REFUSE items.
        - ``missed_keywords`` (list<string>): keywords the answer text does not
          contain; NA for REFUSE items and missing results.
        - ``correct`` (boolean): answered and contains every keyword; NA for
          REFUSE items.
        - ``cited_ok`` (boolean): answered and cited the required source
          exactly; NA for REFUSE items.
        - ``refused_ok`` (boolean): refused; NA for ANSWER items.
        - ``violation`` (boolean): answered although it had to refuse; NA for
          ANSWER items.
        - ``answer`` (str): the answer text; NA when missing.
        - ``line`` (Int64): the result's input line; NA when missing.
    """
    golden, results = data.golden, data.results
    versions = list(data.versions if versions is None else versions)
    n_items, n_versions = len(golden), len(versions)

    # Join results onto the (version x item) grid by position: row_of[v, i] is
    # the results row for version v and golden item i, or -1.
    v_code = _codes(results["version"], versions)
    i_code = _codes(results["item_id"], golden["item_id"])
    keep = (v_code >= 0) & (i_code >= 0)
    row_of = np.full((n_versions, n_items), -1, dtype=np.int64)
    row_of[v_code[keep], i_code[keep]] = np.flatnonzero(keep)
    rows = row_of.ravel()
    present = rows >= 0
    taken = np.where(present, rows, 0)
    # Taking at a null index gives null: the grid's missing results.
    grid_rows = pa.array(rows, mask=~present)

    def strings(column: str) -> pd.Series:
        return pd.Series(pc.take(arrow_strings(results[column]), grid_rows), dtype="str")

    def flags(values: np.ndarray, applies: np.ndarray) -> pd.arrays.BooleanArray:
        return pd.arrays.BooleanArray(values & applies, ~applies)

    is_answer = np.tile((golden["item_type"].cat.codes == 0).to_numpy(), n_versions)
    refused_now = results["refused"].to_numpy(dtype=bool)[taken] & present
    answered_now = present & ~refused_now
    required = _repeat(arrow_strings(golden["required_source"]), n_versions)
    cited = pc.take(arrow_strings(results["cited"]), grid_rows)
    cited_match = _bools(pc.equal(cited, required))

    n_missed, missed = _missed_keywords(data, row_of, is_answer)
    answered_answer = answered_now & is_answer

    return pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), n_items), categories=versions
            ),
            "item_id": pd.Series(
                _repeat(arrow_strings(golden["item_id"]), n_versions), dtype="str"
            ),
            "item_type": pd.Categorical.from_codes(
                np.tile(golden["item_type"].cat.codes.to_numpy(), n_versions),
                dtype=golden["item_type"].dtype,
            ),
            "missing": ~present,
            "refused": pd.arrays.BooleanArray(refused_now, ~present),
            "answered": pd.arrays.BooleanArray(answered_now, ~present),
            "cited": pd.Series(cited, dtype="str"),
            "required_source": pd.Series(required, dtype="str"),
            "missed_keywords": missed,
            "correct": flags(answered_answer & (n_missed == 0), is_answer),
            "cited_ok": flags(answered_answer & cited_match, is_answer),
            "refused_ok": flags(refused_now, ~is_answer),
            "violation": flags(answered_now, ~is_answer),
            "answer": strings("answer"),
            "line": pd.arrays.IntegerArray(results["line"].to_numpy(np.int64)[taken], ~present),
        }
    )


def _contains(haystacks: pa.Array, needle: str) -> np.ndarray:
    return _bools(pc.match_substring(haystacks, needle))


_GROUPED = 32  # pairs a keyword needs before it is tested with one kernel call


def _missed_keywords(data: EvalInput, row_of: np.ndarray, is_answer: np.ndarray):
    """Per grid row: how many keywords the answer misses, and which.

    Every (answer, keyword) pair is tested once. Pairs are grouped by folded
    keyword: a keyword with many pairs is tested against all its answers by
    one pyarrow substring kernel, the rare ones (and answers with non-ASCII
    text, whose folding needs Python) with Python's ``in``.
    """
    n_versions, n_items = row_of.shape
    column = data.golden["keywords"].array.__arrow_array__()
    keywords = pa.chunked_array(column.chunks, type=_KEYWORDS_DTYPE.pyarrow_dtype).combine_chunks()
    kw_item = np.asarray(pc.list_parent_indices(keywords).to_numpy(), dtype=np.int64)
    kw_text = pc.list_flatten(keywords)
    kw_folded = normalize_text(kw_text)
    kw_code, kw_unique = pd.factorize(np.asarray(kw_folded, dtype=object))

    # Pair every keyword with each version's answer to its item.
    pair_rows = row_of[:, kw_item].ravel()  # (n_versions, n_keywords)
    has = pair_rows >= 0
    pair_rows = pair_rows[has]
    pair_version = np.repeat(np.arange(n_versions), len(kw_item))[has]
    pair_kw = np.tile(np.arange(len(kw_item)), n_versions)[has]
    pair_item = kw_item[pair_kw]

    # Folding every answer with one kernel is cheaper than first picking the used ones.
    folded, non_ascii = _fold(arrow_strings(data.results["answer"]))
    answer_of_pair = pair_rows
    found = np.zeros(len(pair_rows), dtype=bool)
    pair_code = kw_code[pair_kw]
    # Small integer codes: numpy's stable sort is then a radix sort.
    small = np.int16 if len(kw_unique) < 2**15 else np.int64
    order = np.argsort(pair_code.astype(small), kind="stable")
    bounds = np.searchsorted(pair_code[order], np.arange(len(kw_unique) + 1))
    slow = []
    for code, (lo, hi) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)):
        if hi - lo >= _GROUPED:
            pairs = order[lo:hi]
            found[pairs] = _contains(
                pc.take(folded, pa.array(answer_of_pair[pairs])), kw_unique[code]
            )
        elif hi > lo:
            slow.append(order[lo:hi])
    if slow:
        pairs = np.concatenate(slow)
        texts = pc.take(folded, pa.array(answer_of_pair[pairs])).to_pylist()
        found[pairs] = [
            kw_unique[c] in t for c, t in zip(pair_code[pairs].tolist(), texts, strict=True)
        ]
    if non_ascii:
        special = np.flatnonzero(np.isin(answer_of_pair, np.fromiter(non_ascii, np.int64)))
        found[special] = [
            kw_unique[pair_code[p]] in non_ascii[int(answer_of_pair[p])] for p in special.tolist()
        ]

    grid = pair_version * n_items + pair_item
    miss = ~found
    n_missed = np.bincount(grid[miss], minlength=n_versions * n_items)
    # Pairs are ordered by version, then item, then keyword: the missed ones,
    # cut at per-grid-row offsets, are the lists in grid order.
    offsets = np.concatenate([[0], np.cumsum(n_missed)]).astype(np.int32)
    missed = pa.ListArray.from_arrays(
        pa.array(offsets),
        pc.take(kw_text, pa.array(pair_kw[miss])),
        mask=pa.array(~((row_of.ravel() >= 0) & is_answer)),
    )
    return n_missed, pd.Series(missed, dtype=_KEYWORDS_DTYPE)


def score_versions(items: pd.DataFrame) -> pd.DataFrame:
    """Per-version counts and rates from :func:`score_items`.

    Returns
    -------
    pandas.DataFrame
        One row per (version, metric), metrics in the order correctness,
        citation, refusal, violations:

        - ``version`` (category): the version label.
        - ``metric`` (category): the metric name.
        - ``numerator`` (int64): items passing (for violations: items that
          answered although they had to refuse).
        - ``denominator`` (int64): ANSWER items for correctness and citation,
          REFUSE items for refusal and violations.
        - ``value`` (Float64): numerator / denominator; NA when the
          denominator is 0 (the metric is not measured).
        - ``measured`` (bool): denominator > 0.
        - ``missing`` (int64): golden items of the metric's type with no
          result line for the version.
    """
    if not isinstance(items["version"].dtype, pd.CategoricalDtype):
        items = items.assign(version=items["version"].astype("category"))
    version = items["version"]
    codes = version.cat.codes.to_numpy()
    n_versions = len(version.cat.categories)
    is_answer = (items["item_type"] == "ANSWER").to_numpy()
    missing = items["missing"].to_numpy()

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(codes[mask & (codes >= 0)], minlength=n_versions).astype(np.int64)

    numerator, denominator, missed = [], [], []
    for metric, column in _FLAG_OF.items():
        applies = is_answer if metric in ("correctness", "citation") else ~is_answer
        numerator.append(count(items[column].fillna(False).to_numpy(dtype=bool)))
        denominator.append(count(applies))
        missed.append(count(applies & missing))
    # (metric, version) -> rows ordered by version, then metric.
    numerator, denominator, missed = (
        np.stack(x, axis=1).ravel() for x in (numerator, denominator, missed)
    )
    measured = denominator > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = numerator / np.where(measured, denominator, np.nan)
    return pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), len(METRICS)), dtype=version.dtype
            ),
            "metric": pd.Categorical.from_codes(
                np.tile(np.arange(len(METRICS)), n_versions), categories=list(METRICS)
            ),
            "numerator": numerator,
            "denominator": denominator,
            "value": pd.array(value, dtype="Float64"),
            "measured": measured,
            "missing": missed,
        }
    )


def check_versions(data: EvalInput, baseline: str, candidate: str) -> None:
    """Raise :class:`InputError` unless both labels have result lines."""
    if baseline == candidate:
        raise InputError(
            f"baseline and candidate must be different versions, got {baseline!r} twice",
            source=data.source,
        )
    present = set(data.versions)
    for role, label in (("baseline", baseline), ("candidate", candidate)):
        if label not in present:
            found = ", ".join(map(repr, data.versions)) or "none"
            raise InputError(
                f"no result lines for the {role} version {label!r} (versions found: {found})",
                source=data.source,
                line=data.results_line,
            )
