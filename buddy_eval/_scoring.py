"""Score every (version, golden item) pair, then every version.

Scoring returns exact numbers: per-item booleans and per-version counts
(numerator and denominator). Rounding belongs to :mod:`buddy_eval.formatting`.
The engine (:func:`score_grid`, :func:`grid_counts`) works on the checked
pyarrow/numpy columns of an :class:`~buddy_eval.EvalInput`; pandas is imported
only by the functions that return DataFrames.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _kernels as kernels
from ._errors import InputError, quoted, quoted_list
from ._kernels import large_strings
from ._loading import EvalInput
from ._vocabulary import FLAG_OF, ITEM_TYPE_OF, ITEM_TYPES, METRICS, RATE_METRICS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FLAG_OF",
    "ITEM_TYPE_OF",
    "METRICS",
    "RATE_METRICS",
    "Counts",
    "check_versions",
    "score_items",
    "score_rows",
    "score_versions",
]


def _bools(values) -> np.ndarray:
    return np.asarray(values.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)


@dataclass(frozen=True, eq=False)
class Grid:
    """Outcomes on the (version x golden item) grid, as flat arrays in grid order.

    Cell ``v * n_items + i`` is version ``versions[v]`` and golden item ``i``.
    One result per (version, item) is the case of one trial: every cell
    holds 0 or 1 trial.

    Attributes
    ----------
    versions : list of str
        The versions scored, in order.
    row_of : numpy.ndarray
        Shape ``(n_versions, n_items)``: the results row of each cell (its
        first trial), or -1.
    is_answer : numpy.ndarray
        Per cell: the golden item is an ANSWER item.
    refused : numpy.ndarray
        Per cell: the first trial refused.
    cited_match : numpy.ndarray
        Per cell of an ANSWER item: the first trial cited the required source.
    n_missed : numpy.ndarray
        Per cell: keywords the first trial's answer does not contain.
    missed_keywords : pyarrow.Array
        The missed keywords themselves, cell after cell.
    later : dict of str to numpy.ndarray, or None
        Per cell, the trials after the first: ``"trials"`` (how many), and
        per metric and for ``"all"`` how many count (as :attr:`tallies` and
        :attr:`passes_all` count them); None when no cell holds a second
        trial.

    The trial counts (:attr:`tallies`, :attr:`trials`, :attr:`passes`,
    :attr:`passes_all`) are the first trial's outcome (0 or 1) plus the
    later trials' counts, made on first use: with one trial per cell the
    first trials' booleans are the counts.
    """

    versions: list[str]
    row_of: np.ndarray
    is_answer: np.ndarray
    refused: np.ndarray
    cited_match: np.ndarray
    n_missed: np.ndarray
    missed_keywords: pa.Array
    later: dict[str, np.ndarray] | None = None

    @property
    def present(self) -> np.ndarray:
        """Per cell: the version has a result for the item."""
        return self.row_of.ravel() >= 0

    @property
    def repeated(self) -> bool:
        """Some cell holds more than one trial."""
        return self.later is not None

    @cached_property
    def tallies(self) -> dict[str, np.ndarray]:
        """Per cell: its trials (``"trials"``, 0: no result) and the trials counting in each
        metric's numerator (for violations: trials answered).

        Whole numbers of the smallest type that holds them: without a second trial in any
        cell, the first trials' booleans themselves, read as ``uint8`` (no copy).
        """
        return self._with_later({"trials": self.present, **self.flags()})

    def _with_later(self, first: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Per cell, the first trial's booleans ``first`` plus the later trials' counts."""
        if self.later is None:
            return {name: values.view(np.uint8) for name, values in first.items()}
        later = self.later
        return {name: values + later[name] for name, values in first.items()}

    @cached_property
    def trials(self) -> np.ndarray:
        """Per cell, the number of trials (0: no result), int64."""
        return self.tallies["trials"].astype(np.int64)

    @cached_property
    def passes(self) -> dict[str, np.ndarray]:
        """Per metric, per cell, the trials counting in the metric's numerator (for
        violations: trials answered), int64."""
        return {metric: self.tallies[metric].astype(np.int64) for metric in METRICS}

    @cached_property
    def passes_all(self) -> np.ndarray:
        """Per cell, the trials passing every check of the item's type at once (ANSWER:
        correct and cited; REFUSE: refused), int64."""
        flags = self.flags()
        every = np.where(self.is_answer, flags["correctness"] & flags["citation"], flags["refusal"])
        return self._with_later({"all": every})["all"].astype(np.int64)

    def flags(self) -> dict[str, np.ndarray]:
        """Per metric, the cells whose first trial counts in its numerator."""
        answered = self.present & ~self.refused
        answered_answer = answered & self.is_answer
        return {
            "correctness": answered_answer & (self.n_missed == 0),
            "citation": answered_answer & self.cited_match,
            "refusal": self.refused & ~self.is_answer,
            "violations": answered & ~self.is_answer,
        }


def score_grid(data: EvalInput, versions: Sequence[str]) -> Grid:
    """Score every (version, golden item) cell into a :class:`Grid`, no DataFrame built.

    Every result row of a scored (version, item) cell is scored on its own
    as the trial it is (one result per cell is one trial); per cell, the
    trials and the trials counting in each metric are added up, and the
    first trial's outcomes fill the grid's cells (which keywords it missed
    included).
    """
    golden, join = data.golden_columns, data.join
    versions = list(versions)
    n_items, n_versions = len(golden), len(versions)

    # Join results onto the grid by position: row_of[v, i] is the results row
    # for version v and golden item i (its first trial), or -1.
    position: dict[str, int] = {}
    for k, label in enumerate(versions):
        position.setdefault(label, k)
    # The extra -1 at the end is where a missing label's code -1 points.
    lookup = np.array([position.get(label, -1) for label in join.versions] + [-1], np.int32)
    v_code = lookup[join.version]
    keep = (v_code >= 0) & (join.item >= 0)
    repeated = join.trial is not None and bool((join.trial[keep] > 0).any())
    first = keep & (join.trial == 0) if repeated else keep
    row_of = np.full((n_versions, n_items), -1, dtype=np.int64)
    row_of[v_code[first], join.item[first]] = np.flatnonzero(first)
    del first
    return _score_results(data, versions, row_of, v_code, keep)


# Result rows scored at a time: bounds the per-row and per-(row, keyword)
# temporaries whatever the number of trials.
_BLOCK = 1 << 20


@dataclass(frozen=True, eq=False)
class _Scored:
    """Result rows scored one by one (see :func:`_score_rows`)."""

    item: np.ndarray
    is_answer: np.ndarray
    refused: np.ndarray
    cited: np.ndarray
    n_missed: np.ndarray
    # Every (row, keyword of its ANSWER item) pair, ordered by row then
    # keyword: the row (a position in the rows scored), the keyword (a
    # position in the flattened keywords), whether the answer holds it.
    pair_row: np.ndarray
    pair_kw: np.ndarray
    found: np.ndarray

    def flags(self) -> dict[str, np.ndarray]:
        """Per row, whether it counts in each metric's numerator (one trial's outcome)."""
        answered = ~self.refused
        return {
            "correctness": answered & self.is_answer & (self.n_missed == 0),
            "citation": answered & self.cited,
            "refusal": self.refused & ~self.is_answer,
            "violations": answered & ~self.is_answer,
        }


def _keyword_starts(data: EvalInput) -> tuple[np.ndarray, np.ndarray]:
    """Per golden item: where its keywords start in the flattened keywords, and how many."""
    keywords = data.golden_columns.keywords
    per_item = pc.list_value_length(keywords).fill_null(0).to_numpy(zero_copy_only=False)
    kind = kernels.index_type(int(per_item.sum()) if len(per_item) else 0)
    kw_start = np.zeros(len(per_item) + 1, kind)
    np.cumsum(per_item, out=kw_start[1:])
    return kw_start[:-1], per_item.astype(np.int32)


def _score_rows(
    data: EvalInput, rows: np.ndarray, keywords: tuple[np.ndarray, np.ndarray]
) -> _Scored:
    """Score result rows (of golden items) one by one, each as the trial it is.

    A row of an ANSWER item is cited when it cites the required source and
    holds a keyword when its answer contains it (literal, case-insensitive),
    refused or not; only answered rows count (:meth:`_Scored.flags`).
    """
    golden, results = data.golden_columns, data.result_columns
    item = data.join.item[rows].astype(kernels.index_type(len(golden.is_answer)), copy=False)
    row_answer = golden.is_answer[item]
    cited, required = results.cited, golden.required_source
    if cited.type != required.type:
        cited, required = large_strings(cited), large_strings(required)
    wanted = np.flatnonzero(row_answer)
    row_cited = np.zeros(len(rows), dtype=bool)
    if len(wanted):
        row_cited[wanted] = _bools(
            pc.equal(
                pc.take(cited, pa.array(rows[wanted])),
                pc.take(required, pa.array(item[wanted])),
            )
        )
    pair_row, pair_kw, found = _keyword_pairs(data, rows, wanted, item[wanted], keywords)
    n_missed = np.bincount(pair_row[~found], minlength=len(rows))
    return _Scored(
        item, row_answer, results.refused[rows], row_cited, n_missed, pair_row, pair_kw, found
    )


def _score_results(
    data: EvalInput,
    versions: list[str],
    row_of: np.ndarray,
    v_code: np.ndarray,
    keep: np.ndarray,
) -> Grid:
    """The :class:`Grid` of the result rows ``keep`` selects: every trial scored once.

    Block after block of rows, each row is scored (:func:`_score_rows`);
    the first trials' outcomes fill the grid's cells, and per cell the later
    trials and those counting in each metric are added up.
    """
    golden, results, join = data.golden_columns, data.result_columns, data.join
    n_versions, n_items = row_of.shape
    n_cells = n_versions * n_items
    keywords = _keyword_starts(data)

    is_answer = np.tile(golden.is_answer, n_versions)
    # The first trials' outcomes per cell, made once the first block is scored
    # (less fresh memory held while the answers are searched).
    outcomes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # Per cell, the trials after the first: how many, how many count in each
    # metric, how many pass every check; added up block after block.
    later: dict[str, np.ndarray] | None = None
    missed_cells: list[np.ndarray] = []
    missed_kws: list[np.ndarray] = []

    index = kernels.index_type(len(results))
    for at in range(0, len(keep), _BLOCK):
        rows = np.flatnonzero(keep[at : at + _BLOCK])
        rows += at
        rows = rows.astype(index, copy=False)
        scored = _score_rows(data, rows, keywords)
        # Fresh memory is slow to touch: the cells are computed in place.
        cells = v_code[rows].astype(np.int64)
        cells *= n_items
        cells += scored.item

        # The first trials fill the grid's cells (without trial numbers every
        # row is its cell's one trial); the later trials are counted.
        lacking = ~scored.found
        first: slice | np.ndarray = slice(None)
        if join.trial is not None:
            is_first = join.trial[rows] == 0
            lacking &= is_first[scored.pair_row]
            first = is_first
            if not is_first.all():
                later = _count_later(later, scored, cells[~is_first], ~is_first, n_cells)
        first_cells = cells[first]
        outcomes = outcomes or _no_outcomes(n_cells)
        refused, cited_match, n_missed = outcomes
        refused[first_cells] = scored.refused[first]
        cited_match[first_cells] = scored.cited[first]
        n_missed[first_cells] = scored.n_missed[first]
        miss = np.flatnonzero(lacking)
        missed_cells.append(cells[scored.pair_row[miss]])
        missed_kws.append(scored.pair_kw[miss])
    # A first trial's missed pairs are in keyword order: a stable sort by cell
    # gives the per-cell lists in grid order.
    missed_cell = np.concatenate([np.empty(0, np.int64), *missed_cells])
    missed_kw = np.concatenate([np.empty(0, np.int32), *missed_kws])
    if (missed_cell[1:] < missed_cell[:-1]).any():  # results not in grid order
        missed_kw = missed_kw[np.argsort(missed_cell, kind="stable")]
    missed = pc.take(pc.list_flatten(golden.keywords), pa.array(missed_kw))
    refused, cited_match, n_missed = outcomes or _no_outcomes(n_cells)
    return Grid(versions, row_of, is_answer, refused, cited_match, n_missed, missed, later)


def _no_outcomes(n_cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per cell: refused, cited the required source, keywords missed; all none yet."""
    return np.zeros(n_cells, bool), np.zeros(n_cells, bool), np.zeros(n_cells, np.int64)


def _count_later(
    later: dict[str, np.ndarray] | None,
    scored: _Scored,
    cells: np.ndarray,
    rows: np.ndarray,
    n_cells: int,
) -> dict[str, np.ndarray]:
    """``later`` plus, per cell, the scored ``rows`` (later trials) and those counting in each
    metric and passing every check."""
    flags = scored.flags()
    every = np.where(scored.is_answer, flags["correctness"] & flags["citation"], flags["refusal"])
    counted = {"trials": None, **flags, "all": every}
    out = {}
    for name, where in counted.items():
        part = kernels.counts_per_slot(cells, n_cells, None if where is None else where[rows])
        out[name] = part if later is None else later[name] + part
    return out


def score_rows(data: EvalInput, rows: np.ndarray) -> dict[str, Any]:
    """Score result rows one by one, each as the trial it is (what every trial view reads).

    The same tests as the gate's: a row of an ANSWER item is correct when it
    does not refuse and its answer holds every keyword (literal,
    case-insensitive), cited when it does not refuse and cites the required
    source; a row of a REFUSE item passes when it refuses, and is a
    violation when it answers.

    Parameters
    ----------
    data : EvalInput
    rows : numpy.ndarray of int
        Result rows whose id is a golden item.

    Returns
    -------
    dict
        ``item`` (golden row per result row), ``refused``, ``cited_match``,
        the per-metric flags of :data:`METRICS` (numpy bool arrays), and
        ``missed`` (per row, the list of keywords its answer lacks; empty
        for REFUSE items).
    """
    rows = np.asarray(rows, dtype=np.int64)
    scored = _score_rows(data, rows, _keyword_starts(data))
    kw_text = pc.list_flatten(data.golden_columns.keywords).to_pylist()
    missed: list[list[str]] = [[] for _ in range(len(rows))]
    lacking = ~scored.found
    for r, kw in zip(
        scored.pair_row[lacking].tolist(), scored.pair_kw[lacking].tolist(), strict=True
    ):
        missed[r].append(kw_text[kw])
    return {
        "item": scored.item.astype(np.int64),
        "refused": scored.refused.astype(bool),
        "cited_match": scored.cited,
        **scored.flags(),
        "missed": missed,
    }


def _keyword_pairs(
    data: EvalInput,
    rows: np.ndarray,
    wanted: np.ndarray,
    items: np.ndarray,
    keywords: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (result row ``rows[w]``, keyword of its item) pair, ``w`` in ``wanted`` (ascending;
    ``items``: their golden items), and whether the answer contains it.

    Returns ``(pair_row, pair_kw, found)``: per pair, its row's position in
    ``rows``, its keyword (a position in the flattened keywords) and the
    test ``keyword.casefold() in answer.casefold()``. Pairs are ordered by
    row, then keyword.
    """
    answers = data.result_columns.answer
    kw_start, kw_count = keywords
    n_kw = kw_count[items]
    n_keywords = int(kw_start[-1]) + int(kw_count[-1]) if len(kw_start) else 0
    kind = kernels.index_type(max(int(n_kw.sum()), n_keywords))
    n_kw = n_kw.astype(kind, copy=False)
    pair_row = np.repeat(wanted.astype(kernels.index_type(len(rows))), n_kw)
    # Pair p of row e is keyword kw_start[e] + (p - first pair of e).
    first_pair = np.cumsum(n_kw, dtype=kind)
    np.subtract(first_pair, n_kw, out=first_pair)
    shift = kw_start[items].astype(kind, copy=False)
    shift -= first_pair
    del first_pair
    pair_kw = np.repeat(shift, n_kw)
    pair_kw += np.arange(len(pair_kw), dtype=kind)
    del shift, n_kw
    found = kernels.contains_casefold(
        answers,
        rows[pair_row].astype(kernels.index_type(len(answers)), copy=False),
        pc.list_flatten(data.golden_columns.keywords),
        pair_kw,
    )
    return pair_row, pair_kw, found


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

        With repeated trials each row shows the first trial only (the rates
        of every trial are in :attr:`buddy_eval.Evaluation.counts` and
        ``.metrics``; :attr:`buddy_eval.Evaluation.items` adds the trial
        counts).
    """
    versions = list(data.versions if versions is None else versions)
    return items_frame(data, score_grid(data, versions))


def items_frame(data: EvalInput, grid: Grid) -> pd.DataFrame:
    """The :func:`score_items` DataFrame of a :class:`Grid` scored on ``data``."""
    import pandas as pd

    golden, results = data.golden_columns, data.result_columns
    n_versions, n_items = grid.row_of.shape
    rows = grid.row_of.ravel()
    present = rows >= 0
    taken = np.where(present, rows, 0)
    is_answer = grid.is_answer

    def strings(values: pa.Array) -> pd.Series:
        # Taking at a null index gives null: the grid's missing results.
        return pd.Series(pc.take(values, pa.array(rows, mask=~present)), dtype="str")

    def repeated(values: pa.Array) -> pd.Series:
        return pd.Series(pa.chunked_array([values] * n_versions, type=values.type), dtype="str")

    def boolean(values: np.ndarray, applies: np.ndarray) -> pd.arrays.BooleanArray:
        return pd.arrays.BooleanArray(values & applies, ~applies)

    flags = grid.flags()
    answered_now = present & ~grid.refused
    offsets = np.concatenate([[0], np.cumsum(grid.n_missed)]).astype(np.int32)
    missed = pa.ListArray.from_arrays(
        pa.array(offsets), grid.missed_keywords, mask=pa.array(~(present & is_answer))
    )
    item_types = pd.CategoricalDtype(list(ITEM_TYPES))
    return pd.DataFrame(
        {
            "version": pd.Categorical.from_codes(
                np.repeat(np.arange(n_versions), n_items), dtype=pd.CategoricalDtype(grid.versions)
            ),
            "item_id": repeated(golden.item_id),
            "item_type": pd.Categorical.from_codes(
                np.where(is_answer, 0, 1).astype(np.int8), dtype=item_types
            ),
            "missing": ~present,
            "refused": pd.arrays.BooleanArray(grid.refused, ~present),
            "answered": pd.arrays.BooleanArray(answered_now, ~present),
            "cited": strings(results.cited),
            "required_source": repeated(golden.required_source),
            "missed_keywords": pd.Series(missed, dtype=pd.ArrowDtype(missed.type)),
            "correct": boolean(flags["correctness"], is_answer),
            "cited_ok": boolean(flags["citation"], is_answer),
            "refused_ok": boolean(flags["refusal"], ~is_answer),
            "violation": boolean(flags["violations"], ~is_answer),
            "answer": pd.Series(results.answer.take(taken, ~present), dtype="str"),
            "line": pd.arrays.IntegerArray(results.line[taken], ~present),
        }
    )


@dataclass(frozen=True, eq=False)
class Counts:
    """Exact per-version counts of every metric: all the decision and the report read.

    Attributes
    ----------
    versions : tuple of str
        The versions counted, in order.
    numerator, denominator, missing : numpy.ndarray
        Shape ``(n_versions, len(METRICS))``, int64 (object, Python ints, in
        the rare case a scaled trial count would not fit), metrics in
        :data:`METRICS` order (see :func:`score_versions` for what each counts).
    scale : numpy.ndarray or None
        Repeated trials only (None otherwise, meaning 1): same shape; a rate
        is ``numerator / (denominator * scale)``. ``scale`` is the least
        common multiple of the version's trial counts over the items of the
        metric's type, and ``numerator`` the sum over those items of
        ``passing trials * scale / trials``: the mean over items of each
        item's fraction of passing trials, exactly. Violations are never
        scaled (1): REFUSE items answered in at least one trial.

    Examples
    --------
    >>> counts = be.evaluate("data/example.txt").counts
    >>> counts.versions, counts.numerator.tolist(), counts.denominator.tolist()
    (('OLD', 'NEW'), [[2, 2, 1, 0], [3, 3, 0, 1]], [[3, 3, 1, 1], [3, 3, 1, 1]])
    >>> counts.parts("NEW")
    {'correctness': (3, 3), 'citation': (3, 3), 'refusal': (0, 1), 'violations': (1, 1)}
    >>> counts.values("OLD")["correctness"]
    Fraction(2, 3)
    """

    versions: tuple[str, ...]
    numerator: np.ndarray
    denominator: np.ndarray
    missing: np.ndarray
    scale: np.ndarray | None = None

    def values(self, version: str) -> dict[str, Fraction | int | None]:
        """One version's metrics: a Fraction per rate (None when not measured), violations.

        Raises
        ------
        InputError
            ``version`` is not one of the versions counted.
        """
        if version not in self.versions:
            raise InputError(
                f"unknown version {quoted(version)}; the versions counted are "
                f"{quoted_list(self.versions)}"
            )
        row = self.versions.index(version)
        num, den = self.numerator[row].tolist(), self.denominator[row].tolist()
        if self.scale is not None:
            den = [d * s for d, s in zip(den, self.scale[row].tolist(), strict=True)]
        values: dict[str, Fraction | int | None] = {
            m: Fraction(num[k], den[k]) if den[k] else None for k, m in enumerate(RATE_METRICS)
        }
        values["violations"] = num[METRICS.index("violations")]
        return values

    def parts(self, version: str) -> dict[str, tuple[int, int]]:
        """Per metric, ``(numerator, denominator)`` whose ratio is the exact value.

        With repeated trials both are multiplied by the scale (as in
        :meth:`to_frame`); violations are ``(count, REFUSE items)``.
        """
        self.values(version)  # the same check of the label
        row = self.versions.index(version)
        scale = [1] * len(METRICS) if self.scale is None else self.scale[row].tolist()
        num, den = self.numerator[row].tolist(), self.denominator[row].tolist()
        return {
            m: (int(num[k]), int(den[k]) * (1 if m == "violations" else int(scale[k])))
            for k, m in enumerate(METRICS)
        }

    def to_frame(self) -> pd.DataFrame:
        """The :func:`score_versions` DataFrame.

        With repeated trials (:attr:`scale` set) ``numerator`` and
        ``denominator`` are both multiplied by the scale, so that
        ``numerator / denominator`` is still the exact rate, and a column
        ``scale`` (int64, or object past int64) gives the factor: the
        ``denominator`` counts ``scale`` per item.
        """
        import pandas as pd

        n_versions = len(self.versions)
        # (version, metric) rows ordered by version, then metric.
        numerator, denominator = self.numerator.ravel(), self.denominator.ravel()
        measured = denominator > 0
        if self.scale is None:
            with np.errstate(divide="ignore", invalid="ignore"):
                value = numerator / np.where(measured, denominator, np.nan)
        else:
            value = np.array(
                [
                    float(Fraction(int(n), int(d) * int(s))) if d else np.nan
                    for n, d, s in zip(numerator, denominator, self.scale.ravel(), strict=True)
                ]
            )
            denominator = denominator.astype(self.scale.dtype) * self.scale.ravel()
        return pd.DataFrame(
            {
                "version": pd.Categorical.from_codes(
                    np.repeat(np.arange(n_versions), len(METRICS)),
                    dtype=pd.CategoricalDtype(list(self.versions)),
                ),
                "metric": pd.Categorical.from_codes(
                    np.tile(np.arange(len(METRICS)), n_versions),
                    dtype=pd.CategoricalDtype(list(METRICS)),
                ),
                "numerator": numerator,
                "denominator": denominator,
                "value": pd.array(value, dtype="Float64"),
                "measured": measured,
                "missing": self.missing.ravel(),
            }
            | ({} if self.scale is None else {"scale": self.scale.ravel()})
        )


def _counts(versions, count, flags: dict, is_answer: np.ndarray, missing: np.ndarray) -> Counts:
    """:class:`Counts` of per-row flags; ``count(mask)`` counts a mask's rows per version."""
    numerator, denominator, missed = [], [], []
    for metric in METRICS:
        applies = is_answer if ITEM_TYPE_OF[metric] == "ANSWER" else ~is_answer
        numerator.append(count(flags[metric]))
        denominator.append(count(applies))
        missed.append(count(applies & missing))
    stack = [np.stack(x, axis=1).astype(np.int64) for x in (numerator, denominator, missed)]
    return Counts(tuple(versions), *stack)


def grid_counts(grid: Grid, items: np.ndarray | None = None) -> Counts:
    """The :class:`Counts` of every version on the grid.

    A version's rate is the mean over the items of the metric's type of each
    item's share of passing trials (with one trial per item: the items
    passing over the items). Per (version, metric) the cells are grouped by
    their trial count (a few distinct values): the exact rate is the sum
    over the groups of ``passing trials / trials``, brought to the least
    common multiple (:attr:`Counts.scale`, set when some item has more than
    one trial). Violations count the REFUSE items answered in any trial.

    ``items`` (a boolean mask over the golden items) restricts every count to
    those items: what is counted of the others is nothing, not a failure.
    """
    return _counts_of(grid, items, None, len(grid.versions))[0]


def counts_by_slice(
    grid: Grid, codes: np.ndarray, n_slices: int, items: np.ndarray | None = None
) -> list[Counts]:
    """Per slice (``codes``: per golden item, its slice in ``[0, n_slices)``), the
    :class:`Counts` of every version of the grid, as :func:`grid_counts` counts the
    slice's items: one groupby over the grid."""
    n_versions, n_items = grid.row_of.shape
    keys = np.repeat(np.arange(n_versions), n_items) + np.tile(
        np.asarray(codes, np.int64) * n_versions, n_versions
    )
    return _counts_of(grid, items, keys, n_versions * n_slices)


def _counts_of(
    grid: Grid, items: np.ndarray | None, keys: np.ndarray | None, n_groups: int
) -> list[Counts]:
    """The :class:`Counts` of each run of ``len(grid.versions)`` groups of cells.

    ``keys`` (per cell, its group) groups the cells; None: one group per
    version. See :func:`grid_counts` for what is counted.
    """
    n_versions, n_items = grid.row_of.shape
    shape = (n_versions, n_items)
    is_answer = grid.is_answer
    inside = None
    if items is not None:
        # An item outside ``items`` is of neither type: no metric counts it.
        inside = np.tile(np.asarray(items, dtype=bool), n_versions)
        is_answer = is_answer & inside
    if keys is not None and not grid.repeated:
        return _one_trial_counts(grid, inside, keys, n_groups)

    def grouped(values: np.ndarray) -> np.ndarray:
        return values.reshape(shape) if keys is None else values

    tallies = grid.tallies
    trials = tallies["trials"]
    numerator, denominator, missed, scale = [], [], [], []
    for metric in METRICS:
        applies = is_answer if ITEM_TYPE_OF[metric] == "ANSWER" else ~is_answer
        if inside is not None and ITEM_TYPE_OF[metric] != "ANSWER":
            applies = applies & inside
        passes = tallies[metric]
        if metric == "violations":  # the items answered in any trial
            passes = passes > 0
        # Per group and trial count: the items, and their passing trials.
        cells, sums = kernels.sums_by_count(
            grouped(trials), grouped(passes), grouped(applies), keys, n_groups
        )
        denominator.append(cells.sum(axis=1))
        missed.append(cells[:, 0])
        if metric == "violations":
            numerator.append(sums.sum(axis=1).tolist())
            scale.append([1] * n_groups)
            continue
        nums, scales = [], []
        for g in range(n_groups):
            counts = (np.flatnonzero(cells[g, 1:]) + 1).tolist()
            lcm = math.lcm(*counts)
            nums.append(sum(int(sums[g, n]) * (lcm // n) for n in counts))
            scales.append(lcm)
        numerator.append(nums)
        scale.append(scales)
    stack = [np.stack(x, axis=1).astype(np.int64) for x in (denominator, missed)]
    num = np.array(numerator, dtype=object).T
    sc = np.array(scale, dtype=object).T
    big = any(abs(x) >= _INT64_SAFE for x in num.ravel().tolist() + sc.ravel().tolist())
    dtype = object if big else np.int64
    num, sc = num.astype(dtype), sc.astype(dtype)
    out = []
    for at in range(0, n_groups, n_versions):
        run = slice(at, at + n_versions)
        out.append(
            Counts(
                tuple(grid.versions),
                num[run],
                stack[0][run],
                stack[1][run],
                sc[run] if grid.repeated else None,
            )
        )
    return out


_INT64_SAFE = 2**62


def _one_trial_counts(
    grid: Grid, inside: np.ndarray | None, keys: np.ndarray, n_groups: int
) -> list[Counts]:
    """:func:`_counts_of` of keyed groups when every cell holds at most one trial.

    Each cell's outcomes (has a result, passes each metric, is an ANSWER
    item, is counted at all) are the bits of one small code, and one
    ``bincount`` of (group, code) tallies them all; each count is then a sum
    of the tally over the codes it takes.
    """
    tallies = grid.tallies  # 0 or 1 per cell, as uint8
    bits = ("trials", *METRICS)
    code = grid.is_answer.view(np.uint8) << len(bits)
    for bit, name in enumerate(bits):
        code |= tallies[name] << bit
    n_codes = 2 ** (len(bits) + 1)
    if inside is not None:
        code |= inside.view(np.uint8) << (len(bits) + 1)
        n_codes *= 2
    flat = np.bincount(keys * n_codes + code, minlength=n_groups * n_codes)
    tally = flat.reshape(n_groups, n_codes)
    value = np.arange(n_codes)
    has = {name: (value >> bit & 1) > 0 for bit, name in enumerate(bits)}
    answer = (value >> len(bits) & 1) > 0
    counted = (value >> (len(bits) + 1) & 1) > 0 if inside is not None else np.ones(n_codes, bool)
    numerator, denominator, missed = [], [], []
    for metric in METRICS:
        applies = counted & (answer if ITEM_TYPE_OF[metric] == "ANSWER" else ~answer)
        denominator.append(tally[:, applies].sum(axis=1))
        missed.append(tally[:, applies & ~has["trials"]].sum(axis=1))
        numerator.append(tally[:, applies & has["trials"] & has[metric]].sum(axis=1))
    num, den, miss = (
        np.stack(x, axis=1).astype(np.int64) for x in (numerator, denominator, missed)
    )
    n_versions = len(grid.versions)
    return [
        Counts(
            tuple(grid.versions),
            num[at : at + n_versions],
            den[at : at + n_versions],
            miss[at : at + n_versions],
            None,
        )
        for at in range(0, n_groups, n_versions)
    ]


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

        It counts the rows it is given, one per (version, item): with
        repeated trials, :func:`score_items` rows are first trials only; use
        :attr:`buddy_eval.Evaluation.metrics` for rates over every trial.
    """
    import pandas as pd

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
    versions = version.cat.categories.tolist()
    return _counts(versions, count, flags, is_answer, items["missing"].to_numpy()).to_frame()


def _closest_label(label: str, versions: Sequence[str]) -> str:
    """``"; did you mean 'NEW'?"`` for a near miss (case or a typo), else ``""``."""
    import difflib

    by_fold = {version.casefold(): version for version in reversed(versions)}
    match = by_fold.get(label.casefold())
    if match is None:
        close = difflib.get_close_matches(label.casefold(), list(by_fold), n=1, cutoff=0.6)
        match = by_fold[close[0]] if close else None
    return f"; did you mean {quoted(match)}?" if match is not None else ""


def check_versions(data: EvalInput, baseline: str, candidate: str) -> None:
    """Raise :class:`InputError` unless both labels are text with result lines."""
    for role, label in (("baseline", baseline), ("candidate", candidate)):
        if not isinstance(label, str):
            raise InputError(
                f"the {role} version label must be text (a str such as 'OLD'), got "
                f"{type(label).__name__} {quoted(label)}",
                source=data.source,
            )
    if baseline == candidate:
        raise InputError(
            f"baseline and candidate must be different versions, got {quoted(baseline)} twice",
            source=data.source,
        )
    present = set(data.versions)
    for role, label in (("baseline", baseline), ("candidate", candidate)):
        if label not in present:
            found = quoted_list(data.versions)
            raise InputError(
                f"no result lines for the {role} version {quoted(label)} (versions found: {found})"
                + _closest_label(label, data.versions),
                source=data.source,
                line=data.results_line,
            )


def baseline_then_candidate(baseline: Counts, candidate: Counts) -> Counts:
    """The baseline's row of one :class:`Counts` and the candidate's row of another."""

    def rows(a, b):
        if a is None or b is None:
            return None
        dtype = object if object in (a.dtype, b.dtype) else a.dtype
        return np.stack([a[0], b[1]]).astype(dtype)

    return Counts(
        baseline.versions,
        rows(baseline.numerator, candidate.numerator),
        rows(baseline.denominator, candidate.denominator),
        rows(baseline.missing, candidate.missing),
        rows(baseline.scale, candidate.scale),
    )
