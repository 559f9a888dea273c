"""Load a release-gate input: checked columns for scoring, DataFrames for people.

:func:`load` reads the canonical text format (a path, ``-`` for stdin, an
open file, or the text itself); :func:`from_frames` takes DataFrames the user
already has (from CSV, JSONL or Parquet). Both return an :class:`EvalInput`
and both apply the same validation rules. The text path never imports
pandas: the golden and results DataFrames are built on first use.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ._errors import InputError, quoted
from ._input_columns import GoldenColumns, JoinCodes, ResultColumns
from ._input_rules import NO_KEYWORDS, check_input, split_keywords
from ._parsing import (
    EMPTY_INPUT,
    NO_RESULTS_LINE,
    RawSections,
    read_input_bytes,
    split_bytes,
    split_sections,
)
from ._thresholds import THRESHOLD_NAMES, Thresholds, threshold_value

if TYPE_CHECKING:
    from typing import IO, Any, TypeAlias

    import pandas as pd

    #: What :func:`load` reads: a path, ``"-"``, an open text or binary file, the
    #: input's bytes or text, or an :class:`EvalInput` (returned as it is).
    InputSource: TypeAlias = (
        "str | os.PathLike[str] | bytes | bytearray | IO[str] | IO[bytes] | EvalInput"
    )
    #: Thresholds as :func:`from_frames` takes them.
    ThresholdsLike: TypeAlias = "Thresholds | Mapping[str, Any] | Sequence[Any]"

__all__ = ["EvalInput", "load", "from_frames"]

MAX_LISTED_WARNINGS = 10


class EvalInput:
    """A validated release-gate input.

    Build it with :func:`load` or :func:`from_frames`. It is a snapshot:
    scoring reads the columns checked while loading, so to change the data,
    build a new one with :func:`from_frames` (editing ``golden`` or
    ``results`` in place changes nothing that is scored).

    Attributes
    ----------
    thresholds : Thresholds
        Minimum correctness, citation and refusal rates, as exact fractions.
    golden : pandas.DataFrame
        One row per golden item: ``item_id``, ``item_type``,
        ``required_source``, ``keywords``, ``line`` (built on first use).
    results : pandas.DataFrame
        One row per result line, every version label included: ``version``,
        ``item_id``, ``cited``, ``refused``, ``answer``, ``line`` (built on
        first use).
    source : str
        Where the input came from (a path, ``<stdin>``, ``<text>``, ...).
    warnings : tuple of str
        Problems that do not stop the run (results for unknown ids).
    results_line : int or None
        Line number of the ``RESULTS`` marker (None for DataFrame input).
    golden_columns : GoldenColumns
        The checked golden items as pyarrow/numpy columns (what scoring reads).
    result_columns : ResultColumns
        The checked result lines as pyarrow/numpy columns (what scoring reads).
    join : JoinCodes
        Per result line, the position of its version label and its golden row
        (and its trial number, when trials are allowed).
    trials : bool
        Repeated trials are allowed: several result lines for one
        (version, id) are trials of the item (see :func:`load`).

    Examples
    --------
    >>> data = be.load("data/example.txt")
    >>> data.versions, data.thresholds.correctness
    (['OLD', 'NEW'], Fraction(3, 5))
    >>> data.golden[["item_id", "item_type", "required_source"]]
      item_id item_type required_source
    0      q1    ANSWER              L3
    1      q2    ANSWER              L5
    2      q3    ANSWER              L7
    3      q4    REFUSE             NaN
    >>> data.results[["version", "item_id", "cited", "refused"]].tail(4)
      version item_id cited  refused
    4     NEW      q1    L3    False
    5     NEW      q2    L5    False
    6     NEW      q3    L7    False
    7     NEW      q4   NaN    False
    """

    def __init__(
        self,
        thresholds: Thresholds,
        golden: GoldenColumns,
        results: ResultColumns,
        join: JoinCodes,
        *,
        source: str = "<input>",
        warnings: tuple[str, ...] = (),
        results_line: int | None = None,
    ) -> None:
        self.thresholds = thresholds
        self.trials = join.trial is not None
        self.source = source
        self.warnings = tuple(warnings)
        self.results_line = results_line
        self.golden_columns = golden
        self.result_columns = results
        self.join = join

    @cached_property
    def golden(self) -> pd.DataFrame:
        """One row per golden item (see the class docstring)."""
        return self.golden_columns.to_frame()

    @cached_property
    def results(self) -> pd.DataFrame:
        """One row per result line (see the class docstring)."""
        return self.result_columns.to_frame()

    @property
    def versions(self) -> list[str]:
        """Version labels in order of first appearance in the results."""
        return list(self.join.versions)

    @cached_property
    def trial_counts(self) -> np.ndarray:
        """Trials per (version, golden item): shape ``(len(versions), n_items)``, int64.

        Versions in :attr:`versions` order, items in golden order; 0 where a
        version has no result for an item. Without trials every count is 0 or 1.
        """
        n_items = len(self.golden_columns)
        known = (self.join.version >= 0) & (self.join.item >= 0)
        cells = self.join.version[known] * n_items + self.join.item[known]
        counts = np.bincount(cells, minlength=len(self.join.versions) * n_items)
        return counts.astype(np.int64).reshape(len(self.join.versions), n_items)

    @classmethod
    def from_frames(
        cls, golden, results, thresholds, *, source: str = "DataFrames", trials: bool = False
    ):
        """Same as :func:`from_frames`."""
        return from_frames(golden, results, thresholds, source=source, trials=trials)

    def __repr__(self) -> str:
        t = ", ".join(f"{k}={float(v):g}" for k, v in self.thresholds.as_dict().items())
        return (
            f"EvalInput(source={self.source!r}, golden={len(self.golden_columns)} items, "
            f"results={len(self.result_columns)} lines, versions={self.versions}, "
            f"{'trials, ' if self.trials else ''}"
            f"thresholds: {t})"
        )


def _unknown_id_warnings(results: ResultColumns, codes: JoinCodes, source: str, unit: str):
    rows = np.flatnonzero(codes.item < 0)
    where = (lambda n: f"{source}, row {n}") if unit == "row" else (lambda n: f"{source}:{n}")
    listed = rows[:MAX_LISTED_WARNINGS]
    warnings = [
        f"{where(line)}: result for id {quoted(item_id)} (version {quoted(version)}) "
        "is not in the golden set and is ignored"
        for line, item_id, version in zip(
            results.line[listed].tolist(),
            results.item_id.take(pa.array(listed, pa.int64())).to_pylist(),
            results.version.take(pa.array(listed, pa.int64())).to_pylist(),
            strict=True,
        )
    ]
    if len(rows) > MAX_LISTED_WARNINGS:
        warnings.append(
            f"{source}: {len(rows) - MAX_LISTED_WARNINGS} more results for ids not in "
            "the golden set are ignored"
        )
    return tuple(warnings)


def _spaced_keyword_hints(
    golden: GoldenColumns, results: ResultColumns, codes: JoinCodes, source: str
) -> tuple[str, ...]:
    """A hint where a keyword with a space looks like two keywords meant.

    Keywords are comma-separated and may hold spaces (``try block``), so a
    spaced keyword is no error. But a newcomer who writes ``class object``
    for two keywords gets one keyword that answers rarely contain: the hint
    is given for an ANSWER item whose one keyword holds a space when some
    answer contains each of its words but not the phrase.
    """
    import pyarrow.compute as pc

    counts = pc.list_value_length(golden.keywords).fill_null(0).to_numpy(zero_copy_only=False)
    single = np.flatnonzero(golden.is_answer & (counts == 1))
    if not len(single):
        return ()
    keyword = pc.list_element(golden.keywords.take(pa.array(single, pa.int64())), 0)
    spaced = pc.match_substring_regex(keyword, r"\s").fill_null(False)
    items = single[np.flatnonzero(spaced.to_numpy(zero_copy_only=False))]
    if not len(items):
        return ()
    rows = np.flatnonzero(np.isin(codes.item, items))
    answers = results.answer.take(rows).to_pylist()
    phrase = dict(
        zip(
            items.tolist(),
            pc.list_element(golden.keywords.take(pa.array(items)), 0).to_pylist(),
            strict=True,
        )
    )
    hinted: dict[int, str] = {}
    for item, answer in zip(codes.item[rows].tolist(), answers, strict=True):
        text = phrase[item]
        if item in hinted or answer is None:
            continue
        folded = answer.casefold()
        words = text.casefold().split()
        if text.casefold() not in folded and all(word in folded for word in words):
            hinted[item] = text
    ordered = sorted(hinted)
    hints = [
        f"{source}:{golden.line[item]}: keyword {quoted(hinted[item])} is one keyword that "
        "answers contain only as separate words; keywords are comma-separated "
        f"({quoted(','.join(hinted[item].split()))} for each word)"
        for item in ordered[:MAX_LISTED_WARNINGS]
    ]
    if len(ordered) > MAX_LISTED_WARNINGS:
        hints.append(
            f"{source}: {len(ordered) - MAX_LISTED_WARNINGS} more keywords with a space are "
            "found in answers only as separate words"
        )
    return tuple(hints)


def _read_source(source) -> tuple[str | bytes, str]:
    """Return ``(content, name)``: UTF-8 bytes (not yet checked) or decoded text."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), "<bytes>"
    if hasattr(source, "read"):
        name = str(getattr(source, "name", "<stream>"))
        data = source.read()
        if isinstance(data, str):
            return (data[1:] if data.startswith("\ufeff") else data), name
        return bytes(data), name
    if isinstance(source, str) and source == "-":
        return read_input_bytes(None), "<stdin>"
    if isinstance(source, str) and "\n" in source:
        return (source[1:] if source.startswith("\ufeff") else source), "<text>"
    if isinstance(source, (str, os.PathLike)):
        return read_input_bytes(source), str(Path(source))
    raise InputError(
        f"expected a path, '-', an open file or the input text, got {type(source).__name__}"
    )


def _split(content: str | bytes, name: str) -> RawSections:
    if isinstance(content, bytes):
        return split_bytes(content, name)
    return split_sections(content, name)


def _checked_columns(
    raw: RawSections, name: str, trials: bool = False
) -> tuple[GoldenColumns, ResultColumns, JoinCodes]:
    """Check the fields of every line; the golden and result columns and the join codes."""
    return check_input(raw.golden, raw.results, sources=(name, name), trials=trials)


_MARKER = re.compile(rb"(?m)^[ \t]*RESULTS[ \t\r]*$")


def _first_in_file_order(
    content: str | bytes, name: str, error: InputError, trials: bool = False
) -> InputError:
    """The error on the earliest line, when cutting the input into lines and fields failed.

    The cut stops at its first problem of its own (a byte that is not UTF-8,
    a bad THRESHOLDS line, a line with too few fields, no ``RESULTS`` line),
    but an earlier line may break another rule (a bad TYPE, a duplicate id, a
    bad flag, or a cut rule checked after the one that failed). The lines
    before the error's line are therefore loaded again on their own (the
    whole input when the ``RESULTS`` line is missing, with one added); an
    error found there is earlier, and is itself checked the same way. Only
    runs when the input is invalid anyway.
    """
    while error.line is not None and error.line > 1:
        data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
        whole = error.message.startswith(NO_RESULTS_LINE)
        if not whole:
            ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10)
            data = data[: int(ends[error.line - 2]) + 1] if error.line - 2 < len(ends) else data
        if not _MARKER.search(data):
            data = data + (b"" if data.endswith(b"\n") or not data else b"\n") + b"RESULTS\n"
        try:
            _checked_columns(split_bytes(data, name), name, trials)
        except InputError as earlier:
            truncated = earlier.message.startswith(EMPTY_INPUT)
            if earlier.line is None or truncated or not (whole or earlier.line < error.line):
                return error
            if whole:
                return earlier
            error = earlier  # an earlier problem; is there one earlier still?
            continue
        return error
    return error


def load(source: InputSource, trials: bool = False) -> EvalInput:
    """Read a release-gate input in the canonical text format.

    Parameters
    ----------
    source : str, os.PathLike, file or bytes
        A path; ``"-"`` for standard input; an open text or binary file; or
        the input text itself (any string holding a newline). An
        :class:`EvalInput` is returned as it is (it keeps its own ``trials``).
    trials : bool
        Repeated trials: several result lines for one (version, id) are
        trials of the item, in file order. Without it (the default) a
        repeated (version, id) is an input error.

    Returns
    -------
    EvalInput
        Thresholds, the checked columns scoring reads, and the ``golden`` and
        ``results`` DataFrames (built on first use).

    Raises
    ------
    InputError
        For every input error: the message names the file, the line number and
        what was expected.

    Examples
    --------
    A path, or the text itself (a string holding a newline):

    >>> data = be.load("data/example.txt")
    >>> data.source, len(data.golden), len(data.results), data.versions
    ('data/example.txt', 4, 8, ['OLD', 'NEW'])
    >>> data = be.load("THRESHOLDS 0.5 0.5 0.5\\nq1 ANSWER L1 class\\nRESULTS\\n"
    ...                "OLD q1 L1 N a class\\nNEW q1 L1 N a class\\n")
    >>> data.golden[["item_id", "item_type", "required_source"]]
      item_id item_type required_source
    0      q1    ANSWER              L1
    """
    if isinstance(source, EvalInput):
        return source
    content, name = _read_source(source)
    return _load_content(content, name, trials)


def load_golden_set(source: InputSource, trials: bool = False) -> EvalInput:
    """:func:`load`, where the ``RESULTS`` section may be left out (a golden set on its own).

    Without a ``RESULTS`` line the input holds the thresholds and the golden
    items only, and loads with no result; with one, it loads as :func:`load`
    loads it, whatever version labels its results name.
    """
    if isinstance(source, EvalInput):
        return source
    content, name = _read_source(source)
    data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    if data.strip() and not _MARKER.search(data):
        marker = ("" if data.endswith(b"\n") else "\n") + "RESULTS\n"
        content = content + marker.encode() if isinstance(content, bytes) else content + marker
    del data
    return _load_content(content, name, trials)


def _load_content(content: str | bytes, name: str, trials: bool) -> EvalInput:
    """Check the input's content (bytes or text) read from ``name``."""
    try:
        raw = _split(content, name)
    except InputError as error:
        raise _first_in_file_order(content, name, error, trials) from None
    del content
    golden, results, codes = _checked_columns(raw, name, trials)
    # The parser's temporaries are freed but kept by pyarrow's allocator;
    # handing them back lowers the peak of what comes next (scoring).
    pa.default_memory_pool().release_unused()
    return EvalInput(
        raw.thresholds,
        golden,
        results,
        codes,
        source=name,
        warnings=_spaced_keyword_hints(golden, results, codes, name)
        + _unknown_id_warnings(results, codes, name, "line"),
        results_line=raw.results_line,
    )


def _require_columns(
    frame, columns: Sequence[str], what: str, optional: Sequence[str] = ()
) -> None:
    """The DataFrame holds each of ``columns`` once, and each of ``optional`` at most once."""
    import pandas as pd  # only DataFrame input needs it; the text path never imports pandas

    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(frame).__name__}", source=what)
    names = list(frame.columns)
    twice = [c for c in (*columns, *optional) if names.count(c) > 1]
    if twice:
        also = f" and the optional {', '.join(optional)}" if optional else ""
        raise InputError(
            f"has the column {twice[0]!r} more than once; each of the columns "
            f"{', '.join(columns)}{also} must appear once (rename or drop the copy)",
            source=what,
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(map(repr, missing))}; expected columns "
            f"{', '.join(columns)}, got {', '.join(map(str, frame.columns)) or 'none'}",
            source=what,
        )


def _fail_row(message: str, what: str, position: int):
    raise InputError(message, source=what, line=position + 1, unit="row")


def _text(value, what: str, column: str, position: int) -> str:
    """One cell as text: ``str(value)``, which must be Unicode (UTF-8 encodable)."""
    try:
        text = str(value)
    except ValueError:  # an integer past Python's digit limit
        _fail_row(f"column {column!r}: {quoted(value)} cannot be read as text", what, position)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            _fail_row(
                f"column {column!r} holds text that is not Unicode: {text[exc.start]!r} "
                f"(a lone surrogate) has no UTF-8 encoding, in {quoted(text)}",
                what,
                position,
            )
    return text


def _strings(values: pd.Series, what: str, missing: str | None = None) -> pa.Array:
    """Column values as strings; missing values become ``missing``."""
    column = str(values.name)
    return pa.array(
        [
            missing if _is_missing(v) else _text(v, what, column, position)
            for position, v in enumerate(values.tolist())
        ],
        pa.string(),
    )


def _ids(values: pd.Series, what: str) -> pa.Array:
    """An ``item_id`` column as strings: text or whole numbers, never floats.

    Ids are matched as text, so a float id (``1.0``, what a column of whole
    numbers with one missing value becomes in pandas) would never match the
    integer id ``1`` of the other DataFrame: it is refused, with the fix.
    """
    for position, v in enumerate(values.tolist()):
        if isinstance(v, (float, np.floating)) and not _is_missing(v):
            _fail_row(
                f"column 'item_id' must hold text or whole numbers, got the float {quoted(v)}; "
                "ids are matched as text, so a float never matches an integer id (a column of "
                "whole numbers with a missing value becomes float in pandas: use "
                ".astype('Int64') or strings)",
                what,
                position,
            )
    return _strings(values, what)


def _is_missing(value) -> bool:
    import pandas as pd

    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _keyword_lists(values: pd.Series) -> pa.ListArray:
    """The keywords of every golden row.

    A missing cell (None, NaN, ``pd.NA``) means no keywords; a string is split
    like the text format's keyword field; a list keeps each keyword whole,
    commas included, stripped of blanks, empty ones dropped. A missing value
    inside a list is an error.
    """
    what = "golden DataFrame"
    raw = values.tolist()
    text: list[str | list[str]] = []
    for position, v in enumerate(raw):
        if _is_missing(v):
            text.append(NO_KEYWORDS)
        elif isinstance(v, str):
            text.append(_text(v, what, "keywords", position))
        elif isinstance(v, (list, tuple, np.ndarray)):
            if isinstance(v, np.ndarray) and v.ndim != 1:
                _fail_row(
                    f"keywords must be a flat list of strings, got an array of shape {v.shape}",
                    what,
                    position,
                )
            words = []
            for k in list(v):
                if _is_missing(k):
                    _fail_row(
                        f"keywords must be strings, got a missing value ({k!r}) in "
                        f"{quoted(list(v))}",
                        what,
                        position,
                    )
                if not isinstance(k, (str, np.str_)):
                    _fail_row(
                        f"keywords must be a flat list of strings, got the "
                        f"{type(k).__name__} {quoted(k)} in {quoted(list(v))}",
                        what,
                        position,
                    )
                words.append(_text(k, what, "keywords", position))
            text.append(words)
        else:
            _fail_row(
                f"keywords must be a list of strings or a comma-separated string, got {quoted(v)}",
                what,
                position,
            )
    if all(isinstance(t, str) for t in text):
        return split_keywords(pa.array(text, pa.string()))
    lists = []
    for t in text:
        if isinstance(t, str):
            lists.append(split_keywords(pa.array([t], pa.string()))[0].as_py())
        else:
            lists.append([k.strip(" \t") for k in t if k.strip(" \t")])
    return pa.array(lists, pa.list_(pa.string()))


def _refused_flags(values: pd.Series, what: str) -> dict:
    """The refused column: ``{"refused": bools}`` for a boolean column, else Y/N text.

    A column mixing booleans and text keeps each boolean as its flag.
    """
    if values.dtype == bool:
        return {"refused": values.to_numpy(dtype=bool)}
    flags: list[str | None] = []
    for position, v in enumerate(values.tolist()):
        if isinstance(v, (bool, np.bool_)):
            flags.append("Y" if v else "N")
        else:
            flags.append(None if _is_missing(v) else _text(v, what, "refused", position))
    return {"refused_flag": pa.array(flags, pa.string())}


def _thresholds(thresholds, source: str) -> Thresholds:
    if isinstance(thresholds, Thresholds):
        return thresholds
    if isinstance(thresholds, Mapping):
        missing = [n for n in THRESHOLD_NAMES if n not in thresholds]
        if missing:
            raise InputError(
                f"thresholds need keys {', '.join(THRESHOLD_NAMES)}, missing {', '.join(missing)}",
                source=source,
            )
        values = [thresholds[n] for n in THRESHOLD_NAMES]
    elif isinstance(thresholds, Sequence) and not isinstance(thresholds, str):
        values = list(thresholds)
        if len(values) != 3:
            raise InputError(
                f"expected three thresholds (correctness, citation, refusal), got {len(values)}",
                source=source,
            )
    else:
        raise InputError(
            "thresholds must be a Thresholds, a mapping or three numbers, "
            f"got {type(thresholds).__name__}",
            source=source,
        )
    return Thresholds(
        *(threshold_value(n, v, source) for n, v in zip(THRESHOLD_NAMES, values, strict=True))
    )


def _trial_order(values: pd.Series, what: str) -> np.ndarray:
    """The ``trial`` column as int64: whole numbers, none missing."""
    out = np.empty(len(values), np.int64)
    for position, v in enumerate(values.tolist()):
        whole = isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
        if isinstance(v, (float, np.floating)) and float(v).is_integer():
            whole, v = True, int(v)
        if not whole or not -(2**63) <= int(v) < 2**63:
            _fail_row(
                f"column 'trial' must hold whole numbers (64-bit), got {quoted(v)}", what, position
            )
        out[position] = int(v)
    return out


def from_frames(
    golden: pd.DataFrame,
    results: pd.DataFrame,
    thresholds: ThresholdsLike,
    *,
    source: str = "DataFrames",
    trials: bool = False,
) -> EvalInput:
    """Build an :class:`EvalInput` from DataFrames, with the same validation as :func:`load`.

    Parameters
    ----------
    golden : pandas.DataFrame
        Columns ``item_id``, ``item_type`` (ANSWER/REFUSE, any case),
        ``required_source`` (``-`` or missing for REFUSE items) and
        ``keywords`` (a list of strings, or one comma-separated string;
        ``-`` or missing for none). Other columns are ignored.
    results : pandas.DataFrame
        Columns ``version``, ``item_id``, ``cited`` (``-`` or missing for
        nothing cited), ``refused`` (bool or ``Y``/``N``) and ``answer``.
    thresholds : Thresholds, mapping or sequence of three numbers
        Correctness, citation and refusal thresholds in [0, 1]. Floats are
        read at their shortest decimal form (``0.6`` is exactly 3/5).
    source : str
        A name for the input, used in messages.
    trials : bool
        Repeated trials: several rows for one (version, item_id) are trials
        of the item. They are ordered by the optional ``trial`` column (whole
        numbers; two rows with the same (version, item_id, trial) are an
        error), else by row order. Without it a repeated (version, item_id)
        is an error and a ``trial`` column is ignored.

    Returns
    -------
    EvalInput
        The same object :func:`load` returns; row numbers (1-based positions)
        stand in for line numbers. The inputs are not modified.

    Raises
    ------
    InputError
        A missing column, or a value that breaks a rule of the input format;
        the message names the DataFrame, the row and the value received.

    Examples
    --------
    >>> import pandas as pd
    >>> golden = pd.DataFrame({"item_id": ["q1", "q2"], "item_type": ["ANSWER", "REFUSE"],
    ...                        "required_source": ["L1", None],
    ...                        "keywords": ["class, object", None]})
    >>> results = pd.DataFrame({"version": ["OLD", "OLD", "NEW", "NEW"],
    ...                         "item_id": ["q1", "q2", "q1", "q2"],
    ...                         "cited": ["L1", None, "L1", None], "refused": ["N", "Y", "N", "Y"],
    ...                         "answer": ["A class is an object", "", "Objects of a class", ""]})
    >>> data = be.from_frames(golden, results, {"correctness": 0.8, "citation": 0.8, "refusal": 1})
    >>> print(be.report(data))
    OLD: correctness 1.00 citation 1.00 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 1.00 violations 0
    RELEASE

    The same rules as :func:`load`, with row numbers:

    >>> bad = results.assign(refused=["N", "maybe", "N", "Y"])
    >>> try:
    ...     be.from_frames(golden, bad, (0.8, 0.8, 1))
    ... except be.InputError as error:
    ...     print(error)
    results DataFrame, row 2: refused flag must be Y or N, got 'maybe'
    """
    _require_columns(
        golden, ("item_id", "item_type", "required_source", "keywords"), "golden DataFrame"
    )
    _require_columns(
        results,
        ("version", "item_id", "cited", "refused", "answer"),
        "results DataFrame",
        optional=("trial",) if trials else (),
    )
    g, r = "golden DataFrame", "results DataFrame"
    golden_columns, result_columns, codes = check_input(
        {
            "item_id": _ids(golden["item_id"], g),
            "item_type": _strings(golden["item_type"], g, ""),
            "required_source": _strings(golden["required_source"], g),
            "keywords": _keyword_lists(golden["keywords"]),
            "line": np.arange(1, len(golden) + 1),
        },
        {
            "version": _strings(results["version"], r),
            "item_id": _ids(results["item_id"], r),
            "cited": _strings(results["cited"], r, "-"),
            **_refused_flags(results["refused"], r),
            "answer": _strings(results["answer"], r, ""),
            "line": np.arange(1, len(results) + 1),
        },
        sources=(g, r),
        unit="row",
        trials=trials,
        trial_order=_trial_order(results["trial"], r)
        if trials and "trial" in results.columns
        else None,
    )
    return EvalInput(
        _thresholds(thresholds, source),
        golden_columns,
        result_columns,
        codes,
        source=source,
        warnings=_unknown_id_warnings(result_columns, codes, "results DataFrame", "row"),
    )
