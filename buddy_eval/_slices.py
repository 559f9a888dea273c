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
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ._decision import Check
from ._errors import InputError, quoted
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
    "assign_slices",
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
    source : str
        Where the assignment came from (a path, ``<slices DataFrame>``, ``<slices mapping>``).
    digest : str
        SHA-256 of the assignment (``id,slice`` lines in the order given): what
        identifies it in a ledger.
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
    item_ids: tuple[str, ...]
    source: str
    digest: str
    warnings: tuple[str, ...] = ()

    def of(self) -> dict[str, str]:
        """Every golden item's slice, by id, in golden order."""
        return {
            item: self.names[code]
            for item, code in zip(self.item_ids, self.codes.tolist(), strict=True)
        }

    def sizes(self) -> dict[str, int]:
        """Golden items per slice, in :attr:`names` order."""
        counts = np.bincount(self.codes, minlength=len(self.names)).tolist()
        return dict(zip(self.names, counts, strict=True))


def _read_file(path) -> tuple[list[tuple[int, str, str]], str]:
    """``(line, id, slice)`` rows of a slices CSV file (a path or a binary stream), and its name."""
    if hasattr(path, "read"):  # a stream of the file's bytes, already read once by the caller
        name = str(getattr(path, "name", "<slices>"))
        raw = path.read()
    else:
        name = os.fspath(path)
        raw = read_input_bytes(path, "the slices file")  # a device or a directory is refused
    try:
        text = raw if isinstance(raw, str) else raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            "the slices file must be UTF-8 text (a CSV with the header id,slice)",
            source=name,
            line=line,
        ) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, str, str]] = []
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
            rows.append((line, fields[0].strip(), fields[1].strip()))
    except csv.Error as exc:
        raise InputError(f"malformed CSV: {exc}", source=name, line=reader.line_num or 1) from None
    if not header_seen:
        raise InputError("the slices file is empty; expected the header id,slice", source=name)
    return rows, name


def _read_frame(frame) -> tuple[list[tuple[int, str, str]], str]:
    name = "<slices DataFrame>"
    missing = [c for c in HEADER if c not in frame.columns]
    if missing:
        raise InputError(
            f"the slices DataFrame needs the columns id and slice; missing {quoted(missing[0])}",
            source=name,
        )
    rows = []
    for position, (item, label) in enumerate(
        zip(frame["id"].tolist(), frame["slice"].tolist(), strict=True), start=1
    ):
        for what, value in (("id", item), ("slice", label)):
            if not isinstance(value, str):
                raise InputError(
                    f"{what} must be text, got {quoted(value)}",
                    source=name,
                    line=position,
                    unit="row",
                )
        rows.append((position, item.strip(), label.strip()))
    return rows, name


def _read_mapping(mapping: Mapping) -> tuple[list[tuple[int, str, str]], str]:
    name = "<slices mapping>"
    rows = []
    for position, (item, label) in enumerate(mapping.items(), start=1):
        for what, value in (("id", item), ("slice", label)):
            if not isinstance(value, str):
                raise InputError(
                    f"every {what} must be text, got {quoted(value)} (entry {position})",
                    source=name,
                )
        rows.append((position, item.strip(), label.strip()))
    return rows, name


def assign_slices(slices: Any, data) -> SliceAssignment:
    """The slice of every golden item of ``data``.

    Parameters
    ----------
    slices : str, os.PathLike, binary file, pandas.DataFrame, mapping or SliceAssignment
        A CSV file (a path, or a binary stream of its bytes, named by its
        ``name``) with the header ``id,slice`` and one item a line; a
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
    if isinstance(slices, (str, os.PathLike)) or hasattr(slices, "read"):
        rows, name = _read_file(slices)
        unit = "line"
    elif isinstance(slices, Mapping):
        rows, name = _read_mapping(slices)
        unit = "entry"
    elif hasattr(slices, "columns") and hasattr(slices, "__getitem__"):
        rows, name = _read_frame(slices)
        unit = "row"
    else:
        raise InputError(
            "slices must be a path to a CSV file id,slice, a DataFrame with the columns id "
            f"and slice, or a mapping from id to slice; got {type(slices).__name__}"
        )

    def fail(message: str, line: int):
        if unit == "entry":
            raise InputError(f"entry {line}: {message}", source=name)
        raise InputError(message, source=name, line=line, unit="row" if unit == "row" else "line")

    golden_ids = data.golden_columns.item_id.to_pylist()
    items = [item for _, item, _ in rows]
    labels = [label for _, _, label in rows]
    clean = (
        len(set(items)) == len(items) and all(items) and all(labels) and NO_SLICE not in set(labels)
    )
    if not clean:  # find the first bad line, in file order, and say what is wrong with it
        first_line: dict[str, int] = {}
        for line, item, label in rows:
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
                where = "entry" if unit == "entry" else unit
                fail(
                    f"id {quoted(item)} is listed twice (first on {where} {first_line[item]}); "
                    "an item is in one slice",
                    line,
                )
            first_line[item] = line
    digest = hashlib.sha256(
        "".join(f"{i}\t{s}\n" for i, s in zip(items, labels, strict=True)).encode()
    )
    names = {label: k for k, label in enumerate(dict.fromkeys(labels))}
    index = {item: k for k, item in enumerate(golden_ids)}
    position = np.array([index.get(item, -1) for item in items], dtype=np.int64)
    code_of_row = np.array([names[label] for label in labels], dtype=np.int64)
    known = position >= 0
    codes = np.full(len(golden_ids), -1, dtype=np.int64)
    codes[position[known]] = code_of_row[known]
    unknown = [items[k] for k in np.flatnonzero(~known)[: MAX_LISTED_UNKNOWN + 1].tolist()]
    n_unknown = int(np.count_nonzero(~known))
    ordered = list(names)
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
        f"{name}: id {quoted(item)} is not a golden item; it is ignored"
        for item in unknown[:MAX_LISTED_UNKNOWN]
    ]
    if n_unknown > MAX_LISTED_UNKNOWN:
        more = n_unknown - MAX_LISTED_UNKNOWN
        warnings.append(f"{name}: {more} more ids are not golden items; they are ignored")
    return SliceAssignment(
        tuple(ordered), codes, tuple(golden_ids), name, digest.hexdigest(), tuple(warnings)
    )


def slice_counts(grid: Grid, codes: np.ndarray, n_slices: int, items=None) -> list[Counts]:
    """Per slice, the :class:`Counts` of every version of ``grid``: one groupby.

    ``items`` (a boolean mask over the golden items) restricts every count
    to those items, as :func:`buddy_eval._scoring.grid_counts` does.
    """
    return counts_by_slice(grid, codes, n_slices, items)


def _split_changes(changes: tuple[Changes, ...], codes: np.ndarray, n_slices: int) -> list:
    """The whole input's per-metric changes, split by slice (a stable groupby on the rows)."""
    from dataclasses import replace

    per_slice: list[list] = [[] for _ in range(n_slices)]
    for c in changes:
        of_row = codes[c.rows]
        order = np.argsort(of_row, kind="stable")
        bounds = np.searchsorted(of_row[order], np.arange(n_slices + 1))
        for code in range(n_slices):
            take = order[bounds[code] : bounds[code + 1]]
            per_slice[code].append(
                replace(
                    c,
                    rows=c.rows[take],
                    change=c.change[take],
                    counts=(
                        c.counts[0][take],
                        c.counts[1][take],
                        c.counts[2][take],
                        c.counts[3][take],
                    ),
                )
            )
    return [tuple(x) for x in per_slice]


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
    split = _split_changes(results._changes, codes, n_slices)
    sizes = np.bincount(codes, minlength=n_slices).tolist()
    item_ids = results.data.golden_columns.item_id
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
