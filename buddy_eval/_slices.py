"""Slices of the golden set: which slice each item is in, and every figure per slice.

:func:`assign_slices` reads the assignment (a CSV file ``id,slice``, a
DataFrame with those columns, or a mapping from id to slice) against the
golden items: every golden item lands in one slice, the items not listed in
the slice :data:`NO_SLICE`. :func:`slice_figures` then computes, once, the
same figures per slice that the whole input has: each version's exact
counts and the paired comparison, by a groupby on the item grid, with the
McNemar p-values Holm-adjusted across the slices within each metric.
:func:`slice_checks` is the opt-in slice gate.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._decision import Check
from ._errors import InputError, quoted
from ._kernels import split_csv_pairs
from ._paired_settings import NO_SLICE as _NO_SLICE
from ._paired_settings import SLICE_RULES
from ._parsing import read_input_bytes
from ._scoring import Counts, Grid, baseline_then_candidate, counts_by_slice
from ._vocabulary import METRICS, RATE_METRICS

if TYPE_CHECKING:
    from ._paired import Changes, PairedComparison
    from ._paired_settings import Settings

__all__ = [
    "NO_SLICE",
    "SLICE_RULES",
    "SliceAssignment",
    "SliceFigures",
    "SliceFile",
    "assign_slices",
    "read_slices_file",
    "slice_checks",
    "slice_counts",
    "slice_figures",
]

#: The slice of the golden items the assignment does not list (a name it may not use).
NO_SLICE = _NO_SLICE

#: Unknown ids named one by one in the warnings; the rest are counted.
MAX_LISTED_UNKNOWN = 10

#: The header a slices file starts with.
HEADER = ("id", "slice")

#: The byte-order mark a UTF-8 file may start with.
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, eq=False)
class SliceAssignment:
    """The slice of every golden item.

    Attributes
    ----------
    names : tuple of str
        The slices, in the order of their first item in the assignment, then
        :data:`NO_SLICE` when some golden item is not listed.
    codes : numpy.ndarray
        Per golden item (golden order), the index of its slice in :attr:`names`.
    item_ids : pyarrow.Array
        The golden item ids, in golden order.
    source : str
        Where the assignment came from (a path, ``<slices DataFrame>``, ``<slices mapping>``).
    digest : str
        SHA-256 of the assignment (``id,slice`` lines in the order given): what
        identifies it in a ledger. Computed when first read (only a ledger
        and the JSON report ask for it).
    rows : pair of pyarrow.Array
        The assignment's ids and slice names, stripped, in the order given.
    warnings : tuple of str
        Ids of the assignment that are not golden items.

    Examples
    --------
    >>> data = be.load("data/example.txt")
    >>> slices = be.assign_slices({"q1": "easy", "q2": "hard", "q4": "hard"}, data)
    >>> slices.names, slices.codes.tolist()
    (('easy', 'hard', '(none)'), [0, 1, 2, 1])
    >>> slices.of()
    {'q1': 'easy', 'q2': 'hard', 'q3': '(none)', 'q4': 'hard'}
    """

    names: tuple[str, ...]
    codes: np.ndarray
    item_ids: pa.Array
    source: str
    rows: tuple[pa.Array, pa.Array] = dataclass_field(repr=False)
    warnings: tuple[str, ...] = ()

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the ``id<TAB>slice`` lines of :attr:`rows`, computed once."""
        return _digest(*self.rows)

    def of(self) -> dict[str, str]:
        """Every golden item's slice, by id, in golden order."""
        return {
            item: self.names[code]
            for item, code in zip(self.item_ids.to_pylist(), self.codes.tolist(), strict=True)
        }

    def sizes(self) -> dict[str, int]:
        """Golden items per slice, in :attr:`names` order."""
        counts = np.bincount(self.codes, minlength=len(self.names)).tolist()
        return dict(zip(self.names, counts, strict=True))


#: What a rows reader gives: ids and slices (stripped), and where each row is
#: (its line, row or entry number; None when the file was read column-wise, and
#: is read again line by line only to place an error).
_Rows = tuple[pa.Array, pa.Array, "list[int] | None"]


def _file_bytes(path) -> tuple[bytes, str]:
    """The bytes of a slices CSV file (a path or a binary stream), and its name."""
    if hasattr(path, "read"):  # a stream of the file's bytes, already read once by the caller
        raw = path.read()
        return (raw.encode() if isinstance(raw, str) else raw), str(
            getattr(path, "name", "<slices>")
        )
    return read_input_bytes(path, "the slices file"), os.fspath(path)  # a device is refused


@dataclass(frozen=True, eq=False)
class SliceFile:
    """A slices CSV file read and split into rows, not yet set against a golden set
    (:func:`read_slices_file`; :func:`assign_slices` takes it as it takes the path)."""

    name: str
    raw: bytes
    rows: _Rows


def read_slices_file(path) -> SliceFile:
    """Read the slices CSV file ``path`` (a path or a binary stream) into rows.

    What does not need the golden set: the evaluation reads the file with
    this on the other core while it loads the input.

    Raises
    ------
    InputError
        The file cannot be read, or it is malformed (no header ``id,slice``,
        a line without exactly two fields, not UTF-8), with the line.
    """
    raw, name = _file_bytes(path)
    return SliceFile(name, raw, _read_file(raw, name))


def _read_file(raw: bytes, name: str, *, careful: bool = False) -> _Rows:
    """The rows of a slices CSV file.

    A plain file (see :func:`buddy_eval._kernels.split_csv_pairs`) is read
    column-wise; any other, or with ``careful``, line by line, which says
    what is wrong with a malformed one and where.
    """
    body = raw[len(BOM) :] if raw.startswith(BOM) else raw
    fast = None if careful else split_csv_pairs(body)
    if fast is not None and len(fast[0]) and (fast[0][0].as_py(), fast[1][0].as_py()) == HEADER:
        return fast[0][1:], fast[1][1:], None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: len(raw) - len(body) + exc.start].count(b"\n") + 1
        raise InputError(
            "the slices file must be UTF-8 text (a CSV with the header id,slice)",
            source=name,
            line=line,
        ) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    lines: list[int] = []
    items: list[str] = []
    labels: list[str] = []
    header_seen = False
    try:
        for fields in reader:
            line = reader.line_num
            if not fields or fields == [""]:
                continue
            if not header_seen:
                got = tuple(f.strip() for f in fields)
                if got != HEADER:
                    raise InputError(
                        f"expected the header id,slice, got {quoted(','.join(fields))}",
                        source=name,
                        line=line,
                    )
                header_seen = True
                continue
            if len(fields) != 2:
                raise InputError(
                    f"expected two fields id,slice, got {len(fields)}: {quoted(','.join(fields))}",
                    source=name,
                    line=line,
                )
            lines.append(line)
            items.append(fields[0].strip())
            labels.append(fields[1].strip())
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}", source=name, line=reader.line_num or 1) from None
    if not header_seen:
        raise InputError("the slices file is empty; expected the header id,slice", source=name)
    return pa.array(items, pa.string()), pa.array(labels, pa.string()), lines


def _read_pairs(pairs, name: str, what: str) -> _Rows:
    """The rows of (id, slice) pairs from a DataFrame or a mapping, each checked to be text."""
    items: list[str] = []
    labels: list[str] = []
    for position, (item, label) in enumerate(pairs, start=1):
        for field, value in (("id", item), ("slice", label)):
            if not isinstance(value, str):
                if what == "row":
                    raise InputError(
                        f"{field} must be text, got {quoted(value)}",
                        source=name,
                        line=position,
                        unit="row",
                    )
                raise InputError(
                    f"every {field} must be text, got {quoted(value)} (entry {position})",
                    source=name,
                )
        items.append(item.strip())
        labels.append(label.strip())
    return (
        pa.array(items, pa.string()),
        pa.array(labels, pa.string()),
        list(range(1, len(items) + 1)),
    )


def _read_frame(frame) -> _Rows:
    missing = [c for c in HEADER if c not in frame.columns]
    if missing:
        raise InputError(
            f"the slices DataFrame needs the columns id and slice; missing {quoted(missing[0])}",
            source="<slices DataFrame>",
        )
    pairs = zip(frame["id"].tolist(), frame["slice"].tolist(), strict=True)
    return _read_pairs(pairs, "<slices DataFrame>", "row")


def _first_fault(rows: _Rows, fail) -> None:
    """Say what is wrong with the first bad row, in order (raises through ``fail``)."""
    ids, labels, lines = rows
    assert lines is not None
    first_line: dict[str, int] = {}
    for line, item, label in zip(lines, ids.to_pylist(), labels.to_pylist(), strict=True):
        if not item:
            fail("expected an item id, got an empty id", line)
        if not label:
            fail(f"expected a slice name for {quoted(item)}, got an empty one", line)
        if label == NO_SLICE:
            fail(
                f"the slice name {quoted(NO_SLICE)} is reserved for the golden items not "
                "listed; choose another name",
                line,
            )
        if item in first_line:
            fail(
                f"id {quoted(item)} is listed twice (first on {{unit}} {first_line[item]}); "
                "an item is in one slice",
                line,
            )
        first_line[item] = line


def _digest(ids: pa.Array, labels: pa.Array) -> str:
    """SHA-256 of the ``id<TAB>slice`` lines, each ended by a newline, in the order given."""
    digest = hashlib.sha256()
    if len(ids):
        joined = pc.binary_join_element_wise(ids, labels, "\t")
        whole = pc.binary_join(
            pa.ListArray.from_arrays(pa.array([0, len(joined)], pa.int32()), joined), "\n"
        )
        digest.update(whole[0].as_buffer())
        digest.update(b"\n")
    return digest.hexdigest()


def assign_slices(slices: Any, data) -> SliceAssignment:
    """The slice of every golden item of ``data``.

    Parameters
    ----------
    slices : str, os.PathLike, binary file, SliceFile, pandas.DataFrame, mapping or SliceAssignment
        A CSV file (a path, or a binary stream of its bytes, named by its
        ``name``; or the file already read by :func:`read_slices_file`)
        with the header ``id,slice`` and one item a line; a
        DataFrame with the columns ``id`` and ``slice``; or a mapping from
        item id to slice name. An assignment already built for ``data`` is
        returned as it is.
    data : EvalInput
        The input whose golden items are assigned.

    Returns
    -------
    SliceAssignment

    Raises
    ------
    InputError
        A malformed file (no header ``id,slice``, a line without exactly two
        fields, an empty id or slice), an id listed twice, or the slice
        named ``(none)`` (the slice of the items not listed); each with the
        line (or row) where it is.

    Examples
    --------
    >>> data = be.load("data/example.txt")
    >>> be.assign_slices({"q1": "easy", "zz": "hard"}, data).warnings
    ("<slices mapping>: id 'zz' is not a golden item; it is ignored",)
    >>> try:  # doctest: +ELLIPSIS
    ...     be.assign_slices({"q1": "(none)"}, data)
    ... except be.InputError as error:
    ...     print(error.message)
    entry 1: the slice name '(none)' is reserved for the golden items not listed; choose ...
    """
    if isinstance(slices, SliceAssignment):
        return slices
    raw = b""
    if isinstance(slices, (str, os.PathLike)) or hasattr(slices, "read"):
        slices = read_slices_file(slices)
    if isinstance(slices, SliceFile):
        raw, name, rows, unit = slices.raw, slices.name, slices.rows, "line"
    elif isinstance(slices, Mapping):
        name, unit = "<slices mapping>", "entry"
        rows = _read_pairs(slices.items(), name, unit)
    elif hasattr(slices, "columns") and hasattr(slices, "__getitem__"):
        name, unit = "<slices DataFrame>", "row"
        rows = _read_frame(slices)
    else:
        raise InputError(
            "slices must be a path to a CSV file id,slice, a DataFrame with the columns id "
            f"and slice, or a mapping from id to slice; got {type(slices).__name__}"
        )

    def fail(message: str, line: int):
        message = message.replace("{unit}", unit)
        if unit == "entry":
            raise InputError(f"entry {line}: {message}", source=name)
        raise InputError(message, source=name, line=line, unit=unit)

    ids, labels, _ = rows
    encoded = pc.dictionary_encode(labels)
    ordered = encoded.dictionary.to_pylist()  # the slices, in order of first appearance
    golden_ids = data.golden_columns.item_id
    position = (
        pc.index_in(pc.cast(ids, golden_ids.type), value_set=golden_ids)
        .fill_null(-1)
        .to_numpy(zero_copy_only=False)
        .astype(np.int64, copy=False)
    )
    known = position >= 0
    unknown_ids = ids.filter(pa.array(~known))
    clean = (
        "" not in ordered
        and NO_SLICE not in ordered
        and not bool((np.bincount(position[known], minlength=1) > 1).any())
        and (len(unknown_ids) == 0 or pc.count_distinct(unknown_ids).as_py() == len(unknown_ids))
        and not (len(unknown_ids) and pc.any(pc.equal(unknown_ids, "")).as_py())
    )
    if not clean:  # find the first bad line, in file order, and say what is wrong with it
        _first_fault(rows if rows[2] is not None else _read_file(raw, name, careful=True), fail)
    code_of_row = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    codes = np.full(len(golden_ids), -1, dtype=np.int64)
    codes[position[known]] = code_of_row[known]
    unknown = unknown_ids[:MAX_LISTED_UNKNOWN].to_pylist()
    n_unknown = len(unknown_ids)
    if (codes < 0).any():
        codes[codes < 0] = len(ordered)
        ordered.append(NO_SLICE)
    # A slice whose every id is unknown has no golden item: it is not a slice of this set.
    used = np.bincount(codes, minlength=len(ordered)) > 0
    if not used.all():
        keep = np.flatnonzero(used)
        remap = np.full(len(ordered), -1, dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        codes = remap[codes]
        ordered = [ordered[k] for k in keep.tolist()]
    warnings = [
        f"{name}: id {quoted(item)} is not a golden item; it is ignored" for item in unknown
    ]
    if n_unknown > MAX_LISTED_UNKNOWN:
        more = n_unknown - MAX_LISTED_UNKNOWN
        warnings.append(f"{name}: {more} more ids are not golden items; they are ignored")
    return SliceAssignment(tuple(ordered), codes, golden_ids, name, (ids, labels), tuple(warnings))


def slice_counts(grid: Grid, codes: np.ndarray, n_slices: int, items=None) -> list[Counts]:
    """Per slice, the :class:`Counts` of every version of ``grid``: one groupby.

    ``items`` (a boolean mask over the golden items) restricts every count
    to those items, as :func:`buddy_eval._scoring.grid_counts` does.
    """
    return counts_by_slice(grid, codes, n_slices, items)


def _split_changes(
    changes: tuple[Changes, ...], item_ids: pa.Array, codes: np.ndarray, n_slices: int
) -> list:
    """The whole input's per-metric changes, split by slice (a stable groupby on the rows).

    Each metric's arrays are put in slice order once and every slice takes a
    view of its run; the rows are also grouped by slice and change label once
    per metric, and each slice's :class:`ChangeIds` looks up the ids of its
    groups in ``item_ids`` (golden order) when they are read.
    """
    from ._paired import ChangeIds, Changes

    per_slice: list[list] = [[] for _ in range(n_slices)]
    for c in changes:
        width = len(c.labels)
        # Small keys sort by radix: a stable argsort several times faster.
        kind = np.int16 if n_slices * width < 2**15 else np.int64
        of_row = codes[c.rows].astype(kind)
        order = np.argsort(of_row, kind="stable")
        bounds = _starts(np.bincount(of_row, minlength=n_slices))
        rows, change = c.rows[order], c.change[order]
        counts = tuple(x[order] for x in c.counts)
        # The ids, grouped by (slice, change label), each group in golden order.
        key = of_row * width + c.change.astype(kind)
        grouped = c.rows[np.argsort(key, kind="stable")]
        cuts = _starts(np.bincount(key, minlength=n_slices * width))
        for code in range(n_slices):
            at, to = bounds[code], bounds[code + 1]
            first = code * width
            ids = ChangeIds(c.labels, item_ids, grouped, cuts[first : first + width + 1])
            run = (counts[0][at:to], counts[1][at:to], counts[2][at:to], counts[3][at:to])
            per_slice[code].append(
                Changes(c.metric, rows[at:to], change[at:to], run, repeated=c.repeated, ids=ids)
            )
    return [tuple(x) for x in per_slice]


def _starts(sizes: np.ndarray) -> list[int]:
    """Where each run of ``sizes`` starts, then the end of the last: ``[0, *cumsum]``."""
    return [0, *np.cumsum(sizes).tolist()]


def _exact_p_values(changes: tuple[Changes, ...], codes: np.ndarray, n_slices: int) -> None:
    """Every exact McNemar p-value the slices can ask for, in one vectorised call.

    Per slice and metric: its table, and its table with the missing items as
    regressed (the sensitivity reading; as unchanged they leave the discordant
    pairs as they are). :func:`mcnemar_exact` then finds them computed.
    """
    from .stats import mcnemar_exact_many

    fixed, regressed = [], []
    for c in changes:
        if c.trials is not None:  # repeated trials use the sign-flip test instead
            continue
        width = len(c.labels)
        table = np.bincount(codes[c.rows] * width + c.change, minlength=n_slices * width).reshape(
            n_slices, width
        )
        f, r, m = (table[:, c.labels.index(label)] for label in ("fixed", "regressed", "missing"))
        fixed += [f, f]
        regressed += [r, r + m]
    if fixed:
        pairs = np.unique(np.stack([np.concatenate(fixed), np.concatenate(regressed)]), axis=1)
        mcnemar_exact_many(pairs[0], pairs[1])


@dataclass(frozen=True)
class SliceResult:
    """Every figure of one slice, as the whole input has them.

    Attributes
    ----------
    name : str
    items : int
        Golden items in the slice.
    counts : Counts
        The baseline's and the candidate's exact counts on the slice (the
        baseline's on the items it is compared on).
    paired : PairedComparison
        The paired comparison on the slice's items (its ``p_holm`` is Holm
        across the metrics within the slice, as for the whole input).
    p_holm_across_slices : dict of str to float or None
        Per rate metric, the McNemar p-value Holm-adjusted across the slices
        that have one, within the metric; None when the slice has none.
    could_hide : dict of str to Fraction or None
        Per rate metric, for a slice with too few paired items to tell: the
        largest drop of the whole input's rate it could hide (every item of
        the slice the baseline passes failing in the candidate, over the
        metric's items of the whole input); None when the slice is ready or
        has no item of the metric's type.

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt", slices={"q1": "easy", "q3": "hard"})
    >>> hard = ev.slices["hard"]
    >>> hard.items, hard.paired["citation"].ids["fixed"], hard.counts.values("NEW")["citation"]
    (1, ('q3',), Fraction(1, 1))
    >>> hard.could_hide["citation"]      # the baseline passes none of it: nothing to hide
    Fraction(0, 1)
    """

    name: str
    items: int
    counts: Counts
    paired: PairedComparison
    p_holm_across_slices: dict
    could_hide: dict


@dataclass(frozen=True)
class SliceFigures:
    """The slices of an evaluation and every figure of each.

    Attributes
    ----------
    assignment : SliceAssignment
    slices : tuple of SliceResult
        In :attr:`SliceAssignment.names` order.

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt", slices={"q1": "easy", "q3": "hard"})
    >>> [(s.name, s.items) for s in ev.slices.slices]
    [('easy', 1), ('hard', 1), ('(none)', 2)]
    """

    assignment: SliceAssignment
    slices: tuple[SliceResult, ...]

    def __getitem__(self, name: str) -> SliceResult:
        for s in self.slices:
            if s.name == name:
                return s
        raise KeyError(name)


def slice_figures(results, assignment: SliceAssignment) -> SliceFigures:
    """Compute every slice's figures of ``results`` once (see :class:`SliceResult`)."""
    from ._paired import compare_versions
    from .stats import holm

    n_slices = len(assignment.names)
    codes = assignment.codes
    grid = results._grid
    full = slice_counts(grid, codes, n_slices)
    if results.shared is None:
        shared = compared = full
    else:
        shared = slice_counts(grid, codes, n_slices, results.shared)
        compared = [baseline_then_candidate(s, f) for s, f in zip(shared, full, strict=True)]
    item_ids = results.data.golden_columns.item_id
    split = _split_changes(results._changes, item_ids, codes, n_slices)
    _exact_p_values(results._changes, codes, n_slices)
    sizes = np.bincount(codes, minlength=n_slices).tolist()
    k = METRICS.index("violations")
    paired: list[PairedComparison] = []
    for code in range(n_slices):
        counts = compared[code]
        base, cand = (
            (
                int(counts.numerator[row, k]),
                int(counts.denominator[row, k] - counts.missing[row, k]),
            )
            for row in (0, 1)
        )
        violations = (base, cand)
        paired.append(
            compare_versions(
                split[code],
                item_ids,
                shared[code].values(results.baseline),
                shared[code].values(results.candidate),
                violations,
                results.baseline,
                results.candidate,
                results.settings,
                sample_size=False,
            )
        )
    holm_of = {m: holm([p[m].p_value for p in paired]) for m in RATE_METRICS}
    whole = {m.metric: m.baseline.items for m in results.paired.metrics}
    out = []
    for code, name in enumerate(assignment.names):
        could_hide: dict[str, Fraction | None] = {}
        for m in paired[code].metrics:
            small = m.measured and not m.ready
            could_hide[m.metric] = Fraction(m.baseline.passed, whole[m.metric]) if small else None
        out.append(
            SliceResult(
                name,
                sizes[code],
                compared[code],
                paired[code],
                {m: holm_of[m][code] for m in RATE_METRICS},
                could_hide,
            )
        )
    return SliceFigures(assignment, tuple(out))


def slice_checks(figures: SliceFigures, settings: Settings) -> tuple[Check, ...]:
    """The slice gate: per rate metric, per slice with an item of its type, one check.

    A slice blocks on a metric when its exact paired test rejects at
    ``settings.alpha`` after Holm across the slices within the metric and
    its estimated drop (candidate minus baseline) is below
    ``-settings.slice_margin``. A slice with too few paired items is not
    measured and never blocks; its check carries the drop it could hide.
    """
    margin = Fraction(str(settings.slice_margin))
    checks = []
    for metric in RATE_METRICS:
        for s in figures.slices:
            m = s.paired[metric]
            if not m.measured:
                continue
            p = s.p_holm_across_slices[metric]
            if not m.ready or p is None or m.diff is None:
                checks.append(
                    Check(
                        "slice",
                        metric,
                        None,
                        settings.slice_margin,
                        blocks=False,
                        measured=False,
                        slice=s.name,
                        hidden=s.could_hide[metric],
                    )
                )
                continue
            blocks = p < settings.alpha and m.diff < -margin
            checks.append(
                Check(
                    "slice",
                    metric,
                    m.diff,
                    settings.slice_margin,
                    blocks=blocks,
                    bound=p,
                    slice=s.name,
                )
            )
    return tuple(checks)
