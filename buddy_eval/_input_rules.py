"""Check raw fields and turn them into the typed golden and result columns.

Both ways in, the text file (:mod:`buddy_eval._parsing`) and DataFrames a user
already has (:func:`buddy_eval._loading.from_frames`), end here, so a rule is
written once and reports the same way: the first offending line (or row),
what was expected and what was received. Golden problems are reported
before result problems, as they come first in a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _kernels as kernels
from ._errors import InputError, quoted
from ._input_columns import GoldenColumns, JoinCodes, ResultColumns
from ._kernels import Texts, large_strings, strings

__all__ = ["NO_KEYWORDS", "split_keywords", "check_input"]

#: A keyword field exactly this means "no keywords".
NO_KEYWORDS = "-"


def split_keywords(field: pa.Array) -> pa.ListArray:
    """Split keyword fields on ``,``, strip each keyword, drop empty ones.

    A field that is exactly ``-`` (or null) means "no keywords". Keywords stay
    literal text: nothing here or later treats them as patterns. The work is
    :func:`buddy_eval._kernels.split_keywords`.
    """
    return kernels.split_keywords(field, none=NO_KEYWORDS)


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _fail(message: str, lines: np.ndarray, position: int, source: str, unit: str):
    raise InputError(message, source=source, line=int(lines[position]), unit=unit)


def _mask(values) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


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
    keyword_field: pa.Array | None  # the text after the third field (text input only)


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
        keyword_field=fields.get("keyword_field"),
    )


def _result_line_hint(g: _GoldenFields, position: int) -> str:
    """A hint when a golden line with a bad TYPE reads as a result line.

    A result line ``<version> <id> <cited> <Y|N> ...`` read as a golden line
    has its id as TYPE and its flag as the first word after the third field:
    the ``RESULTS`` line is probably missing (or comes after it).
    """
    if g.keyword_field is None:
        return ""
    rest = g.keyword_field[position].as_py() or ""
    flag = rest.lstrip(" \t")[:2]
    if flag[:1] in ("Y", "y", "N", "n") and flag[1:] in ("", " ", "\t"):
        return (
            "; this looks like a result line '<version> <id> <cited> <Y|N> <answer ...>': "
            "is the line 'RESULTS' missing before it?"
        )
    return ""


def _check_golden(g: _GoldenFields, ids: pa.Array, codes: np.ndarray, source: str, unit: str):
    lines, is_answer, bad_type, no_source = g.line, g.is_answer, g.bad_type, g.no_source
    src = g.required_source
    no_id = codes < 0
    duplicate = kernels.repeated(codes) & ~no_id

    position = _first(bad_type | no_source | duplicate | no_id)
    if position is not None:
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_type[position]:
            got = g.item_type[position].as_py()
            _fail(
                f"TYPE must be ANSWER or REFUSE, got {quoted(got)}{_result_line_hint(g, position)}",
                lines,
                position,
                source,
                unit,
            )
        item = quoted(ids[position].as_py())
        if no_source[position]:
            _fail(
                f"ANSWER item {item} must name its required source, "
                f"got {quoted(src[position].as_py() or '-')}",
                lines,
                position,
                source,
                unit,
            )
        first = lines[_first(codes == codes[position])]
        _fail(
            f"duplicate golden id {item} (first defined on {unit} {first})",
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
    refused_flag: pa.Array | None  # as given, for messages (None: given as booleans)
    refused: np.ndarray
    bad_flag: np.ndarray
    version: pa.Array
    labels: tuple[str, ...]
    version_code: np.ndarray
    cited: pa.Array
    answer: Texts


def _result_fields(fields: Mapping) -> _ResultFields:
    if "refused" in fields:  # already booleans: every value is a flag
        refused = np.asarray(fields["refused"], dtype=bool)
        bad_flag = np.zeros(len(refused), bool)
    else:
        flag = pc.ascii_upper(strings(fields["refused_flag"]))
        refused = _mask(pc.equal(flag, "Y").fill_null(False))
        bad_flag = ~(refused | _mask(pc.equal(flag, "N").fill_null(False)))
    versions = strings(fields["version"])
    encoded = pc.dictionary_encode(versions)
    cited = strings(fields["cited"])
    answer = fields["answer"]
    return _ResultFields(
        line=np.asarray(fields["line"], dtype=np.int64),
        refused_flag=fields.get("refused_flag"),
        refused=refused,
        bad_flag=bad_flag,
        version=versions,
        labels=tuple(encoded.dictionary.to_pylist()),
        version_code=np.asarray(
            encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64
        ),
        cited=pc.if_else(pc.equal(cited, "-"), None, cited),
        answer=answer if isinstance(answer, Texts) else Texts(large_strings(answer)),
    )


def _trial_numbers(keys: np.ndarray, valid: np.ndarray, order: np.ndarray | None, span: int):
    """Per row, its 0-based trial number within its key, and the repeated (key, order) rows.

    Rows of one key (in ``[0, span)``) are numbered by ``order`` (then by
    position); without ``order``, by position. A row whose (key, order) pair
    was given by an earlier row is flagged, as a duplicate trial.
    """
    n = len(keys)
    keys = np.where(valid, keys, -1)
    if order is None:
        return kernels.occurrences(keys, span), np.zeros(n, bool)
    by = order
    # Rows of one key ordered by ``order``, then by position.
    sort = np.lexsort((by, keys))
    sorted_keys = keys[sort]
    start = np.ones(n, bool)
    start[1:] = sorted_keys[1:] != sorted_keys[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(n), 0))
    trial = np.empty(n, np.int64)
    trial[sort] = np.arange(n) - first
    duplicate = np.zeros(n, bool)
    if n > 1:
        sorted_by = by[sort]
        repeat = np.zeros(n, bool)
        repeat[1:] = ~start[1:] & (sorted_by[1:] == sorted_by[:-1])
        duplicate[sort] = repeat
    return trial, duplicate & valid


def _check_results(
    r: _ResultFields,
    ids: pa.Array,
    codes: np.ndarray,
    n_golden: int,
    source,
    unit,
    trials: bool = False,
    trial_order: np.ndarray | None = None,
):
    lines, bad_flag, labels, v_codes = r.line, r.bad_flag, r.labels, r.version_code
    no_version, no_id = v_codes < 0, codes < 0
    n_codes = int(codes.max(initial=-1)) + 1
    keys = v_codes * n_codes + codes
    trial = None
    if trials:
        trial, duplicate = _trial_numbers(
            keys, ~(no_version | no_id), trial_order, len(labels) * n_codes
        )
    else:
        duplicate = kernels.seen_before(keys, ~(no_version | no_id), len(labels) * n_codes)

    position = _first(no_version | no_id | bad_flag | duplicate)
    if position is not None:
        if no_version[position]:
            _fail("expected a version label, got nothing", lines, position, source, unit)
        if no_id[position]:
            _fail("expected a golden item id, got nothing", lines, position, source, unit)
        if bad_flag[position]:
            assert r.refused_flag is not None  # a bad flag was read from a flag column
            got = r.refused_flag[position].as_py()
            _fail(f"refused flag must be Y or N, got {quoted(got)}", lines, position, source, unit)
        if trials and trial_order is not None:
            same = (keys == keys[position]) & (trial_order == trial_order[position])
            first = lines[_first(same)]
            _fail(
                f"duplicate trial {quoted(str(trial_order[position]))} for version "
                f"{quoted(r.version[position].as_py())} and id {quoted(ids[position].as_py())} "
                f"(first given on {unit} {first})",
                lines,
                position,
                source,
                unit,
            )
        first = lines[_first(keys == keys[position])]
        _fail(
            f"duplicate result for version {quoted(r.version[position].as_py())} and id "
            f"{quoted(ids[position].as_py())} (first given on {unit} {first}); repeated "
            "results are read as trials with --trials (Python: trials=True)",
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
    return columns, JoinCodes(labels, v_codes, item, trial)


def check_input(
    golden: Mapping,
    results: Mapping,
    *,
    sources: tuple[str, str],
    unit: str = "line",
    trials: bool = False,
    trial_order: np.ndarray | None = None,
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
        arrays; or ``refused``, booleans, instead of ``refused_flag``),
        ``answer`` (strings or :class:`Texts`) and ``line``.
    sources : (str, str)
        Names of the golden and the results input, used in messages.
    unit : {"line", "row"}
        What the numbers in ``line`` count.
    trials : bool
        Repeated trials: several results for one (version, id) are allowed,
        each one trial (numbered in ``codes.trial``). Otherwise a repeated
        (version, id) is an error.
    trial_order : numpy.ndarray, optional
        With ``trials``: per result row, a number ordering the trials of its
        (version, id); two rows with the same (version, id, number) are an
        error. Default: input order, no such check.

    Returns
    -------
    golden : GoldenColumns
    results : ResultColumns
    codes : JoinCodes
        Version and golden-row codes of every result row (and trial
        numbers, with ``trials``).

    Raises
    ------
    InputError
        For the first rule broken: golden problems before result problems,
        each in input order.
    """
    golden_ids, result_ids = strings(golden["item_id"]), strings(results["item_id"])
    if golden_ids.type != result_ids.type:
        golden_ids, result_ids = large_strings(golden_ids), large_strings(result_ids)
    # One hash table for both, built on the other core while the other fields
    # are read: golden ids are numbered first, so a result's code is its
    # golden row when below the number of golden items.
    (golden_fields, result_fields), codes = kernels.in_parallel(
        lambda: (_golden_fields(golden), _result_fields(results)),
        lambda: kernels.first_appearance_codes(
            pa.chunked_array([golden_ids, result_ids], golden_ids.type)
        ),
    )
    n_golden = len(golden_ids)
    golden_columns = _check_golden(golden_fields, golden_ids, codes[:n_golden], sources[0], unit)
    del golden_fields
    results_columns, join = _check_results(
        result_fields,
        result_ids,
        codes[n_golden:],
        n_golden,
        sources[1],
        unit,
        trials,
        trial_order,
    )
    return golden_columns, results_columns, join
