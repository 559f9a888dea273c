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
    texts = pc.replace_substring_regex(pc.cast(texts, pa.string()), r"[ \t]{2,}|\t", " ")
    lowered = pc.utf8_lower(texts).to_pylist()
    non_ascii = np.flatnonzero(~pc.string_is_ascii(texts).to_numpy(zero_copy_only=False))
    for i in non_ascii.tolist():
        lowered[i] = texts[i].as_py().casefold()
    return lowered


def _codes(values: pd.Series, labels: Sequence[str]) -> np.ndarray:
    """Position of each value in ``labels`` (-1 when absent): a hash join."""
    return pd.Index(labels).get_indexer(values)


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

    def from_results(column: str) -> pd.Series:
        values = results[column].to_numpy()[taken] if len(results) else np.full(len(rows), None)
        return pd.Series(values).where(present)

    is_answer = np.tile((golden["item_type"] == "ANSWER").to_numpy(), n_versions)
    refused = pd.array(from_results("refused"), dtype="boolean")
    answered = ~refused
    cited = pd.Series(from_results("cited"), dtype="str")
    required = pd.Series(np.tile(golden["required_source"].to_numpy(), n_versions), dtype="str")

    n_missed, missed = _missed_keywords(data, row_of, is_answer)

    answered_answer = present & is_answer & ~refused.fillna(True).to_numpy(dtype=bool)
    cited_match = (cited == required).fillna(False).to_numpy(dtype=bool)
    refused_now = present & refused.fillna(False).to_numpy(dtype=bool)
    answered_now = present & ~refused.fillna(True).to_numpy(dtype=bool)

    def only(mask: np.ndarray, applies: np.ndarray) -> pd.array:
        out = pd.array(mask, dtype="boolean")
        out[~applies] = pd.NA
        return out

    items = pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), n_items), categories=versions
            ),
            "item_id": pd.Series(np.tile(golden["item_id"].to_numpy(), n_versions), dtype="str"),
            "item_type": pd.Categorical.from_codes(
                np.tile(golden["item_type"].cat.codes.to_numpy(), n_versions),
                dtype=golden["item_type"].dtype,
            ),
            "missing": ~present,
            "refused": refused,
            "answered": answered,
            "cited": cited,
            "required_source": required,
            "missed_keywords": missed,
            "correct": only(answered_answer & (n_missed == 0), is_answer),
            "cited_ok": only(answered_answer & cited_match, is_answer),
            "refused_ok": only(refused_now, ~is_answer),
            "violation": only(answered_now, ~is_answer),
            "answer": pd.Series(from_results("answer"), dtype="str"),
            "line": pd.array(from_results("line"), dtype="Int64"),
        }
    )
    return items


def _missed_keywords(data: EvalInput, row_of: np.ndarray, is_answer: np.ndarray):
    """Per grid row: how many keywords the answer misses, and which.

    The containment test itself is a Python ``in`` per (answer, keyword)
    pair: each pair has its own literal pattern, and no vectorised kernel
    tests a column of strings against a column of patterns. Everything around
    it (pairing, folding, grouping the misses) is done on whole columns.
    """
    n_versions, n_items = row_of.shape
    column = data.golden["keywords"].array.__arrow_array__()
    keywords = pa.chunked_array(column.chunks, type=_KEYWORDS_DTYPE.pyarrow_dtype).combine_chunks()
    kw_item = pc.list_parent_indices(keywords).to_numpy()
    kw_text = pc.list_flatten(keywords)
    kw_folded = normalize_text(kw_text)

    # Pair every keyword with each version's answer to its item.
    pair_rows = row_of[:, kw_item]  # (n_versions, n_keywords)
    pair_version = np.repeat(np.arange(n_versions), len(kw_item))
    pair_item = np.tile(kw_item, n_versions)
    pair_kw = np.tile(np.arange(len(kw_item)), n_versions)
    pair_rows = pair_rows.ravel()
    has = pair_rows >= 0
    pair_rows, pair_version, pair_item, pair_kw = (
        pair_rows[has],
        pair_version[has],
        pair_item[has],
        pair_kw[has],
    )

    used_rows, answer_of_pair = np.unique(pair_rows, return_inverse=True)
    folded_answers = normalize_text(
        pa.array(data.results["answer"].to_numpy()[used_rows], pa.string())
    )
    found = np.fromiter(
        (
            kw_folded[k] in folded_answers[a]
            for k, a in zip(pair_kw.tolist(), answer_of_pair.tolist(), strict=True)
        ),
        dtype=bool,
        count=len(pair_kw),
    )

    grid = pair_version * n_items + pair_item
    miss = ~found
    n_missed = np.bincount(grid[miss], minlength=n_versions * n_items)
    # Pairs are ordered by version, then item, then keyword: the missed ones,
    # cut at per-grid-row offsets, are the lists in grid order.
    offsets = np.concatenate([[0], np.cumsum(n_missed)]).astype(np.int32)
    missed = pa.ListArray.from_arrays(pa.array(offsets), pc.take(kw_text, pa.array(pair_kw[miss])))
    valid = (row_of.ravel() >= 0) & is_answer
    missed = pc.if_else(pa.array(valid), missed, pa.nulls(len(valid), missed.type))
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
    is_answer = (items["item_type"] == "ANSWER").to_numpy()
    missing = items["missing"].to_numpy()
    counts = {}
    for metric, column in _FLAG_OF.items():
        applies = is_answer if metric in ("correctness", "citation") else ~is_answer
        counts[(metric, "numerator")] = items[column].fillna(False).to_numpy(dtype=bool)
        counts[(metric, "denominator")] = applies
        counts[(metric, "missing")] = applies & missing
    wide = pd.DataFrame(counts).groupby(items["version"], observed=False, sort=False).sum()
    metrics = wide.stack(level=0).reset_index(names=["version", "metric"])
    metrics["metric"] = pd.Categorical(metrics["metric"], categories=list(METRICS))
    metrics = metrics.sort_values(["version", "metric"], kind="stable", ignore_index=True)
    metrics = metrics.astype({"numerator": "int64", "denominator": "int64", "missing": "int64"})
    measured = metrics["denominator"] > 0
    metrics["value"] = pd.array(
        metrics["numerator"] / metrics["denominator"].where(measured), dtype="Float64"
    )
    metrics["measured"] = measured
    return metrics[
        ["version", "metric", "numerator", "denominator", "value", "measured", "missing"]
    ]


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
