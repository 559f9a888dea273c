"""Score every (version, golden item) pair, then every version.

Scoring returns exact numbers: per-item booleans and per-version counts
(numerator and denominator). Rounding belongs to :mod:`buddy_eval.formatting`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .loading import EvalInput
from .validation import arrow_strings

__all__ = [
    "FLAG_OF",
    "ITEM_TYPE_OF",
    "METRICS",
    "RATE_METRICS",
    "check_versions",
    "score_items",
    "score_versions",
]

RATE_METRICS = ("correctness", "citation", "refusal")
METRICS = (*RATE_METRICS, "violations")
_KEYWORDS_DTYPE = pd.ArrowDtype(pa.list_(pa.string()))
#: The per-item column each metric counts, and the golden item type it is measured over.
FLAG_OF = {
    "correctness": "correct",
    "citation": "cited_ok",
    "refusal": "refused_ok",
    "violations": "violation",
}
ITEM_TYPE_OF = {
    "correctness": "ANSWER",
    "citation": "ANSWER",
    "refusal": "REFUSE",
    "violations": "REFUSE",
}


def _fold(texts: pa.Array) -> tuple[pa.Array, dict[int, str]]:
    """Folded text as an array, exact for ASCII strings, plus the others folded.

    Returns the column with ASCII letters lower-cased (for an ASCII string
    that is its case folding) and, for each non-ASCII string, its position and
    true ``str.casefold`` value.
    """
    texts = pc.cast(texts, pa.large_string())
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    # A few passes of numpy over the text bytes (no copy) are much faster than
    # the per-string kernels, which run only when needed.
    # A pass of numpy over the text bytes (no copy) is much faster than the
    # per-string kernel, which runs only when some text is not ASCII.
    raw = _text_bytes(texts)
    folded = {}
    if _any_byte(raw, _is_non_ascii):
        non_ascii = np.flatnonzero(~_bools(pc.string_is_ascii(texts)))
        values = pc.take(texts, pa.array(non_ascii)).to_pylist()
        folded = {i: t.casefold() for i, t in zip(non_ascii.tolist(), values, strict=True)}
    del raw
    return pc.ascii_lower(texts), folded


def _is_non_ascii(block: np.ndarray) -> np.ndarray:
    return block >= 128


def _any_byte(values: np.ndarray, test, overlap: int = 0) -> bool:
    """Whether ``test`` holds anywhere in ``values``, in blocks to bound temporaries."""
    step = 1 << 22
    return any(test(values[at : at + step + overlap]).any() for at in range(0, len(values), step))


def _text_bytes(texts: pa.Array) -> np.ndarray:
    """The bytes of all values of a ``large_string`` array, back to back (a view, no copy)."""
    data = texts.buffers()[2]
    if len(texts) == 0 or data is None:
        return np.empty(0, np.uint8)
    offsets = np.frombuffer(texts.buffers()[1], np.int64)
    lo, hi = int(offsets[texts.offset]), int(offsets[texts.offset + len(texts)])
    return np.frombuffer(data, np.uint8)[lo:hi]


def _bools(values) -> np.ndarray:
    return np.asarray(values.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


def _repeat(values: pa.Array, times: int) -> pa.ChunkedArray:
    return pa.chunked_array([values] * times, type=values.type)


@dataclass(frozen=True, eq=False)
class Grid:
    """Outcomes on the (version x golden item) grid, as flat arrays in grid order.

    Cell ``v * n_items + i`` is version ``versions[v]`` and golden item ``i``.

    Attributes
    ----------
    versions : list of str
        The versions scored, in order.
    row_of : numpy.ndarray
        Shape ``(n_versions, n_items)``: the results row of each cell, or -1.
    is_answer : numpy.ndarray
        Per cell: the golden item is an ANSWER item.
    refused : numpy.ndarray
        Per cell: a result that refused.
    cited_match : numpy.ndarray
        Per cell of an ANSWER item: the result cited the required source.
    n_missed : numpy.ndarray
        Per cell: keywords the answer does not contain.
    missed_keywords : pyarrow.Array
        The missed keywords themselves, cell after cell.
    """

    versions: list[str]
    row_of: np.ndarray
    is_answer: np.ndarray
    refused: np.ndarray
    cited_match: np.ndarray
    n_missed: np.ndarray
    missed_keywords: pa.Array

    @property
    def present(self) -> np.ndarray:
        """Per cell: the version has a result for the item."""
        return self.row_of.ravel() >= 0

    def flags(self) -> dict[str, np.ndarray]:
        """Per metric, the cells that count in its numerator."""
        answered = self.present & ~self.refused
        answered_answer = answered & self.is_answer
        return {
            "correctness": answered_answer & (self.n_missed == 0),
            "citation": answered_answer & self.cited_match,
            "refusal": self.refused & ~self.is_answer,
            "violations": answered & ~self.is_answer,
        }


def score_grid(data: EvalInput, versions: Sequence[str]) -> Grid:
    """Score every (version, golden item) cell into a :class:`Grid`, no DataFrame built."""
    golden, results = data.golden, data.results
    versions = list(versions)
    join = data._join
    n_items, n_versions = len(golden), len(versions)

    # Join results onto the grid by position: row_of[v, i] is the results row
    # for version v and golden item i, or -1.
    position: dict[str, int] = {}
    for k, label in enumerate(versions):
        position.setdefault(label, k)
    # The extra -1 at the end is where a missing label's code -1 points.
    lookup = np.array([position.get(label, -1) for label in join.versions] + [-1], np.int64)
    v_code = lookup[join.version]
    keep = (v_code >= 0) & (join.item >= 0)
    row_of = np.full((n_versions, n_items), -1, dtype=np.int64)
    row_of[v_code[keep], join.item[keep]] = np.flatnonzero(keep)
    del v_code, keep
    rows = row_of.ravel()
    present = rows >= 0
    is_answer = np.tile((golden["item_type"].cat.codes == 0).to_numpy(), n_versions)
    refused = np.zeros(len(rows), dtype=bool)
    refused[present] = results["refused"].to_numpy(dtype=bool)[rows[present]]

    cells = np.flatnonzero(present & is_answer)
    cited_match = np.zeros(len(rows), dtype=bool)
    if len(cells):
        cited_match[cells] = _bools(
            pc.equal(
                pc.take(arrow_strings(results["cited"]), pa.array(rows[cells])),
                pc.take(arrow_strings(golden["required_source"]), pa.array(cells % n_items)),
            )
        )
    del cells
    n_missed, missed = _missed_keywords(data, row_of)
    return Grid(versions, row_of, is_answer, refused, cited_match, n_missed, missed)


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
    versions = list(data.versions if versions is None else versions)
    return items_frame(data, score_grid(data, versions))


def items_frame(data: EvalInput, grid: Grid) -> pd.DataFrame:
    """The :func:`score_items` DataFrame of a :class:`Grid` scored on ``data``."""
    golden, results = data.golden, data.results
    n_versions, n_items = grid.row_of.shape
    rows = grid.row_of.ravel()
    present = rows >= 0
    taken = np.where(present, rows, 0)
    # Taking at a null index gives null: the grid's missing results.
    grid_rows = pa.array(rows, mask=~present)
    is_answer = grid.is_answer

    def strings(column: str) -> pd.Series:
        return pd.Series(pc.take(arrow_strings(results[column]), grid_rows), dtype="str")

    def boolean(values: np.ndarray, applies: np.ndarray) -> pd.arrays.BooleanArray:
        return pd.arrays.BooleanArray(values & applies, ~applies)

    flags = grid.flags()
    answered_now = present & ~grid.refused
    offsets = np.concatenate([[0], np.cumsum(grid.n_missed)]).astype(np.int32)
    missed = pa.ListArray.from_arrays(
        pa.array(offsets), grid.missed_keywords, mask=pa.array(~(present & is_answer))
    )
    return pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), n_items), categories=grid.versions
            ),
            "item_id": pd.Series(
                _repeat(arrow_strings(golden["item_id"]), n_versions), dtype="str"
            ),
            "item_type": pd.Categorical.from_codes(
                np.tile(golden["item_type"].cat.codes.to_numpy(), n_versions),
                dtype=golden["item_type"].dtype,
            ),
            "missing": ~present,
            "refused": pd.arrays.BooleanArray(grid.refused, ~present),
            "answered": pd.arrays.BooleanArray(answered_now, ~present),
            "cited": strings("cited"),
            "required_source": pd.Series(
                _repeat(arrow_strings(golden["required_source"]), n_versions), dtype="str"
            ),
            "missed_keywords": pd.Series(missed, dtype=_KEYWORDS_DTYPE),
            "correct": boolean(flags["correctness"], is_answer),
            "cited_ok": boolean(flags["citation"], is_answer),
            "refused_ok": boolean(flags["refusal"], ~is_answer),
            "violation": boolean(flags["violations"], ~is_answer),
            "answer": strings("answer"),
            "line": pd.arrays.IntegerArray(results["line"].to_numpy(np.int64)[taken], ~present),
        }
    )


def _contains(haystacks: pa.Array, needle: str) -> np.ndarray:
    return _bools(pc.match_substring(haystacks, needle))


_GROUPED = 32  # pairs a keyword needs before it is tested with one kernel call


def _fold_keywords(keywords: pa.Array) -> tuple[np.ndarray, list[str]]:
    """Codes of the folded keywords, numbered by first appearance, and the folded values."""
    folded, non_ascii = _fold(keywords)
    if non_ascii:
        at = np.fromiter(non_ascii, np.int64, len(non_ascii))
        mask = np.zeros(len(folded), dtype=bool)
        mask[at] = True
        folded = pc.replace_with_mask(
            folded,
            pa.array(mask),
            pa.array([non_ascii[i] for i in np.sort(at).tolist()], folded.type),
        )
    encoded = pc.dictionary_encode(folded)
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, encoded.dictionary.to_pylist()


def _missed_keywords(data: EvalInput, row_of: np.ndarray) -> tuple[np.ndarray, pa.Array]:
    """Per grid cell: how many keywords the answer misses, and which.

    Every (answer, keyword) pair is tested once. Pairs are grouped by folded
    keyword: a keyword with many pairs is tested against all its answers by
    one pyarrow substring kernel, the rare ones (and answers with non-ASCII
    text, whose folding needs Python) with Python's ``in``.

    Returns
    -------
    n_missed : numpy.ndarray
        Per cell, the number of keywords missed.
    missed : pyarrow.Array
        The missed keywords (original text), cell after cell.
    """
    n_versions, n_items = row_of.shape
    with ThreadPoolExecutor(2) as pool:
        # Folding every answer (one kernel, on the other core) is cheaper than
        # first copying out the ones some keyword is tested against.
        folding = pool.submit(_fold, arrow_strings(data.results["answer"]))
        column = data.golden["keywords"].array.__arrow_array__()
        keywords = pa.chunked_array(column.chunks, type=_KEYWORDS_DTYPE.pyarrow_dtype)
        keywords = keywords.combine_chunks()
        kw_item = np.asarray(pc.list_parent_indices(keywords).to_numpy(), dtype=np.int64)
        kw_text = pc.list_flatten(keywords)
        kw_code, kw_unique = _fold_keywords(kw_text)

        # Pair every keyword with each version's answer to its item.
        answer_of_pair = row_of[:, kw_item].ravel()  # (n_versions, n_keywords)
        has = answer_of_pair >= 0
        # Pairs are ordered by version, then keyword: this many per version.
        per_version = np.count_nonzero(has.reshape(n_versions, len(kw_item)), axis=1)
        answer_of_pair = answer_of_pair[has].astype(_index_type(len(data.results)))
        pair_kw = np.tile(np.arange(len(kw_item), dtype=np.int32), n_versions)[has]
        del has
        pair_code = kw_code.astype(np.int32)[pair_kw]
        # Small integer codes: numpy's stable sort is then a radix sort.
        small = np.int16 if len(kw_unique) < 2**15 else np.int64
        order = np.argsort(pair_code.astype(small), kind="stable")
        bounds = np.searchsorted(pair_code[order], np.arange(len(kw_unique) + 1)).tolist()
        folded, non_ascii = folding.result()

        found = np.zeros(len(answer_of_pair), dtype=bool)

        def test(codes: list[int]) -> None:
            for code in codes:
                pairs = order[bounds[code] : bounds[code + 1]]
                texts = pc.take(folded, pa.array(answer_of_pair[pairs]))
                found[pairs] = _contains(texts, kw_unique[code])

        # Each keyword with many pairs is one take and one substring kernel;
        # both release the GIL, so the keywords are shared between two threads.
        grouped = [c for c in range(len(kw_unique)) if bounds[c + 1] - bounds[c] >= _GROUPED]
        done = [pool.submit(test, grouped[1::2])]
        test(grouped[0::2])
        for future in done:
            future.result()
    slow = [
        order[bounds[c] : bounds[c + 1]]
        for c in range(len(kw_unique))
        if 0 < bounds[c + 1] - bounds[c] < _GROUPED
    ]
    if slow:
        pairs = np.concatenate(slow)
        texts = pc.take(folded, pa.array(answer_of_pair[pairs])).to_pylist()
        found[pairs] = [
            kw_unique[c] in t for c, t in zip(pair_code[pairs].tolist(), texts, strict=True)
        ]
    if non_ascii:
        is_special = np.zeros(len(folded), dtype=bool)
        is_special[np.fromiter(non_ascii, np.int64, len(non_ascii))] = True
        special = np.flatnonzero(is_special[answer_of_pair])
        found[special] = [
            kw_unique[c] in non_ascii[a]
            for c, a in zip(
                pair_code[special].tolist(), answer_of_pair[special].tolist(), strict=True
            )
        ]

    miss = np.flatnonzero(~found)
    pair_version = np.searchsorted(np.cumsum(per_version), miss, side="right")
    cell = pair_version * n_items + kw_item[pair_kw[miss]]
    n_missed = np.bincount(cell, minlength=n_versions * n_items)
    # Pairs are ordered by version, then item, then keyword: the missed ones
    # are the per-cell lists in grid order.
    return n_missed, pc.take(kw_text, pa.array(pair_kw[miss]))


def _index_type(n: int) -> type:
    return np.int32 if n < 2**31 else np.int64


def _metrics_frame(
    version_dtype: pd.CategoricalDtype,
    count,
    flags: dict[str, np.ndarray],
    is_answer: np.ndarray,
    missing: np.ndarray,
) -> pd.DataFrame:
    """The :func:`score_versions` frame; ``count(mask)`` counts a mask's rows per version."""
    n_versions = len(version_dtype.categories)
    numerator, denominator, missed = [], [], []
    for metric in METRICS:
        applies = is_answer if ITEM_TYPE_OF[metric] == "ANSWER" else ~is_answer
        numerator.append(count(flags[metric]))
        denominator.append(count(applies))
        missed.append(count(applies & missing))
    # (metric, version) -> rows ordered by version, then metric.
    numerator, denominator, missed = (
        np.stack(x, axis=1).ravel().astype(np.int64) for x in (numerator, denominator, missed)
    )
    measured = denominator > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        value = numerator / np.where(measured, denominator, np.nan)
    return pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), len(METRICS)), dtype=version_dtype
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


def grid_metrics(grid: Grid) -> pd.DataFrame:
    """``score_versions(items_frame(data, grid))`` computed from the grid's arrays alone."""
    n_versions, n_items = grid.row_of.shape

    def count(mask: np.ndarray) -> np.ndarray:
        return np.count_nonzero(mask.reshape(n_versions, n_items), axis=1)

    dtype = pd.Categorical.from_codes([], categories=grid.versions).dtype
    return _metrics_frame(dtype, count, grid.flags(), grid.is_answer, ~grid.present)


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

    def count(mask: np.ndarray) -> np.ndarray:
        return np.bincount(codes[mask & (codes >= 0)], minlength=n_versions).astype(np.int64)

    flags = {
        metric: items[column].fillna(False).to_numpy(dtype=bool)
        for metric, column in FLAG_OF.items()
    }
    is_answer = (items["item_type"] == "ANSWER").to_numpy()
    return _metrics_frame(version.dtype, count, flags, is_answer, items["missing"].to_numpy())


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
