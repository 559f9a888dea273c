"""The baseline and the candidate item by item: one table, one set of statistics.

:func:`item_changes` is the single source of every paired count and id list
the views show (the ``--details`` text, the JSON ``comparison`` block,
:func:`buddy_eval.flipped_items`, the charts, the notebooks and the HTML
report): one row per (metric, golden item) with the change label of
:data:`buddy_eval._vocabulary.CHANGES`. An item with no result in the baseline
or the candidate is ``missing``: never ``fixed`` or ``regressed``, never
paired. (The gate's own rates still count it as failed, as the specification
says.)

:func:`compare_versions` turns the table into a :class:`PairedComparison`,
the exact numbers every view formats: paired 2x2 tables, exact McNemar
tests, Wilson and Newcombe intervals, readiness and the violation bounds,
all computed by the one statistics core, :mod:`buddy_eval.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ._paired_settings import Settings
from ._phrases import (
    CLOPPER_PEARSON_EXACT,
    MCNEMAR_EXACT,
    NEWCOMBE_HYBRID,
    NOT_COMPUTED,
    WILSON_SCORE,
    approximated_p,
)
from ._phrases import readiness_note as phrased_readiness_note
from ._trials import TrialComparison, compare_trials, count_rows, flaky, item_rate_changes
from ._vocabulary import CHANGES, ITEM_TYPE_OF, RATE_METRICS, TRIAL_CHANGES
from .stats import (
    DEFAULT_DISCORDANCE,
    PairedTable,
    exact_upper_bound,
    holm,
    is_ready,
    noninferiority_bound,
    paired_item_differences_test,
    reading,
    required_paired_n_exact,
    wilson_interval,
)
from .stats._effective import paired_interval_from_sums, paired_sums, rate_interval_from_sums
from .stats._effective import rate_sums as _rate_sums

if TYPE_CHECKING:
    import pandas as pd

#: The method names of the single-trial intervals and bounds (plain strings).
WILSON_METHOD = WILSON_SCORE
NEWCOMBE_METHOD = NEWCOMBE_HYBRID
VIOLATION_BOUND_METHOD = CLOPPER_PEARSON_EXACT

__all__ = [
    "ITEM_CHANGE_COLUMNS",
    "MetricComparison",
    "PairedComparison",
    "Settings",
    "VersionRate",
    "ViolationBound",
    "compare_versions",
    "item_changes",
]

ITEM_CHANGE_COLUMNS = ("metric", "item_id", "baseline_pass", "candidate_pass", "change")

_MISSING = CHANGES.index("missing")
_TRIAL_MISSING = TRIAL_CHANGES.index("missing")


class ChangeIds(Mapping):
    """The item ids of every change label, each tuple made on first use.

    A mapping from change label to the tuple of its item ids in golden
    order, like a dict. It holds the golden rows of all the compared items
    grouped by label (``rows[cuts[k]:cuts[k + 1]]`` are those of label
    ``k``) and looks their ids up in ``item_ids`` only when a label is read,
    so an id list nobody reads (``both pass`` on a large golden set) costs
    nothing.

    Examples
    --------
    >>> ids = be.evaluate("data/example.txt").paired["citation"].ids
    >>> ids["fixed"], ids.count("both pass")
    (('q3',), 2)
    >>> ids
    {'both pass': ('q1', 'q2'), 'both fail': (), 'fixed': ('q3',), 'regressed': (), 'missing': ()}
    """

    __slots__ = ("_cuts", "_item_ids", "_labels", "_made", "_rows")

    def __init__(self, labels: tuple[str, ...], item_ids, rows: np.ndarray, cuts: list[int]):
        self._labels, self._item_ids, self._rows, self._cuts = labels, item_ids, rows, cuts
        self._made: dict[str, tuple[str, ...]] = {}

    @classmethod
    def of(cls, labels: tuple[str, ...], change: np.ndarray, rows: np.ndarray, item_ids):
        """The ids of ``rows`` (golden rows) grouped by their ``change`` (index into labels)."""
        order = np.argsort(change, kind="stable")
        cuts = np.searchsorted(change[order], np.arange(len(labels) + 1)).tolist()
        return cls(labels, item_ids, rows[order], cuts)

    def count(self, label: str) -> int:
        """How many items have the change ``label``, without making their ids."""
        k = self._labels.index(label)
        return self._cuts[k + 1] - self._cuts[k]

    def __getitem__(self, label: str) -> tuple[str, ...]:
        made = self._made.get(label)
        if made is None:
            if label not in self._labels:
                raise KeyError(label)
            import pyarrow as pa

            k = self._labels.index(label)
            rows = pa.array(self._rows[self._cuts[k] : self._cuts[k + 1]], pa.int64())
            made = self._made[label] = tuple(self._item_ids.take(rows).to_pylist())
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._labels)

    def __len__(self) -> int:
        return len(self._labels)

    def __repr__(self) -> str:
        return repr(dict(self))


@dataclass(frozen=True)
class Changes:
    """Per-metric paired outcomes as arrays (what :func:`item_changes` tabulates).

    Attributes
    ----------
    metric : str
    rows : numpy.ndarray
        Golden rows of the metric's item type, in golden order.
    change : numpy.ndarray of int8
        Index into :attr:`labels`.
    counts : tuple of numpy.ndarray
        Trials and passing trials per item, baseline then candidate
        (``base_n, base_k, cand_n, cand_k``); with one result per item a
        trial is a result (0 or 1 of each).
    repeated : bool
        The input has repeated trials.
    ids : ChangeIds or None
        The item ids of each change label, in golden order, when they are
        already grouped (a slice's, split with the whole input's); None: they
        are looked up from :attr:`rows`.
    """

    metric: str
    rows: np.ndarray
    change: np.ndarray
    counts: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    repeated: bool = False
    ids: ChangeIds | None = None

    @property
    def trials(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """:attr:`counts` with repeated trials, None without."""
        return self.counts if self.repeated else None

    @property
    def baseline_present(self) -> np.ndarray:
        """The baseline has a result (a trial) for the item."""
        return self.counts[0] > 0

    @property
    def candidate_present(self) -> np.ndarray:
        """The candidate has a result (a trial) for the item."""
        return self.counts[2] > 0

    @property
    def labels(self) -> tuple[str, ...]:
        """The change labels :attr:`change` indexes: with trials, ``mixed`` too."""
        return CHANGES if self.trials is None else TRIAL_CHANGES


def metric_changes(
    grid, golden_is_answer: np.ndarray, items: np.ndarray | None = None
) -> tuple[Changes, ...]:
    """Classify every (metric, item) of a scored grid whose first two versions are compared.

    ``items`` (a boolean mask over the golden items) keeps the comparison to
    those items; None compares every item.
    """
    shape = grid.row_of.shape  # (versions, items), also when there is no item
    n = grid.trials.reshape(shape)
    out = []
    for metric in RATE_METRICS:
        wanted = golden_is_answer if ITEM_TYPE_OF[metric] == "ANSWER" else ~golden_is_answer
        if items is not None:
            wanted = wanted & items
        rows = np.flatnonzero(wanted)
        k = grid.passes[metric].reshape(shape)
        counts = (n[0, rows], k[0, rows], n[1, rows], k[1, rows])
        change = item_rate_changes(*counts)
        if not grid.repeated:  # no "mixed" with one trial: the one-trial labels' codes
            change = np.where(change == _TRIAL_MISSING, _MISSING, change).astype(np.int8)
        out.append(Changes(metric, rows, change, counts, grid.repeated))
    return tuple(out)


def item_changes(evaluation) -> pd.DataFrame:
    """Every golden item's change between the baseline and the candidate, per rate metric.

    This table is the one source of the paired counts and id lists shown by
    ``--details``, the JSON report, :func:`buddy_eval.flipped_items`, the
    charts, the notebooks and the HTML report.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, golden item of the metric's type: ANSWER items
        for correctness and citation, REFUSE items for refusal), metrics in
        the order correctness, citation, refusal, items in golden order:

        - ``metric`` (category): the metric.
        - ``item_id`` (str): the golden item.
        - ``baseline_pass`` (boolean): the item passes the metric in the
          baseline; ``<NA>`` when the baseline has no result for it.
        - ``candidate_pass`` (boolean): likewise for the candidate.
        - ``change`` (category): ``both pass``, ``both fail``, ``fixed``
          (baseline fails, candidate passes), ``regressed`` (baseline
          passes, candidate fails) or ``missing`` (no result in at least one
          of the two versions: never fixed or regressed, never paired).

    Examples
    --------
    >>> changes = be.item_changes(be.evaluate("data/example.txt"))
    >>> changes[["metric", "item_id", "baseline_pass", "candidate_pass", "change"]]
            metric item_id  baseline_pass  candidate_pass     change
    0  correctness      q1           True            True  both pass
    1  correctness      q2           True            True  both pass
    2  correctness      q3          False            True      fixed
    3     citation      q1           True            True  both pass
    4     citation      q2           True            True  both pass
    5     citation      q3          False            True      fixed
    6      refusal      q4           True           False  regressed
    """
    return evaluation.item_changes()


def changes_frame(changes: tuple[Changes, ...], item_ids) -> pd.DataFrame:
    """The :func:`item_changes` DataFrame of :func:`metric_changes` arrays."""
    import pandas as pd
    import pyarrow as pa

    rows = np.concatenate([c.rows for c in changes])
    metric = np.concatenate([np.full(len(c.rows), k, dtype=np.int8) for k, c in enumerate(changes)])
    counts = [np.concatenate([c.counts[j] for c in changes]) for j in range(4)]
    base_n, base_k, cand_n, cand_k = counts
    labels = changes[0].labels if changes else CHANGES
    frame = pd.DataFrame(
        {
            "metric": pd.Categorical.from_codes(
                metric, dtype=pd.CategoricalDtype(list(RATE_METRICS))
            ),
            "item_id": pd.Series(item_ids.take(pa.array(rows, pa.int64())), dtype="str"),
            # every trial passes; <NA> without a result
            "baseline_pass": pd.arrays.BooleanArray((base_n > 0) & (base_k == base_n), base_n == 0),
            "candidate_pass": pd.arrays.BooleanArray(
                (cand_n > 0) & (cand_k == cand_n), cand_n == 0
            ),
            "change": pd.Categorical.from_codes(
                np.concatenate([c.change for c in changes]), dtype=pd.CategoricalDtype(list(labels))
            ),
        }
    )
    if not changes or not changes[0].repeated:
        return frame
    for version, k, n in (("baseline", base_k, base_n), ("candidate", cand_k, cand_n)):
        rate = np.where(n > 0, k / np.maximum(n, 1), np.nan)
        frame[f"{version}_rate"] = pd.array(rate, "Float64")  # NaN (no trial) becomes <NA>
    frame["baseline_trials"] = base_n.astype(np.int64)
    frame["candidate_trials"] = cand_n.astype(np.int64)
    frame["flaky"] = flaky(base_n, base_k, cand_n, cand_k)
    return frame


@dataclass(frozen=True)
class VersionRate:
    """One version's rate on one metric.

    Attributes
    ----------
    version : str
    gate : Fraction or None
        The gate's rate: over every golden item of the type, a missing result
        counting as failed; None when not measured.
    passed : int
        Items that pass.
    items : int
        Golden items of the metric's type.
    observed : int
        Items of the type the version has a result for.
    ci : tuple of float
        Wilson interval of ``passed / observed`` (on the items with a result:
        a missing item is no evidence either way); NaN when nothing observed.
        With repeated trials an :class:`~buddy_eval.stats.Interval` of the
        mean item rate.
    observed_mean : Fraction or None
        With repeated trials: the mean item rate over the items with a trial.
    ci_method : str
        The name of the method of :attr:`ci` (a plain string).

    Examples
    --------
    >>> old = be.evaluate("data/example.txt").paired["citation"].baseline
    >>> old.version, old.gate, old.passed, old.items
    ('OLD', Fraction(2, 3), 2, 3)
    >>> [round(end, 3) for end in old.ci], old.ci_method
    ([0.208, 0.939], 'Wilson score, over the items with a result')
    """

    version: str
    gate: Fraction | None
    passed: int
    items: int
    observed: int
    ci: tuple[float, float]
    observed_mean: Fraction | None = None
    ci_method: str = WILSON_METHOD

    @property
    def missing(self) -> int:
        """Items of the type with no result for this version."""
        return self.items - self.observed

    @property
    def observed_rate(self) -> Fraction | None:
        """``passed / observed`` (with trials: the mean item rate), exact; None if none seen."""
        if self.observed_mean is not None:
            return self.observed_mean
        return Fraction(self.passed, self.observed) if self.observed else None


@dataclass(frozen=True)
class MetricComparison:
    """The candidate against the baseline on one rate metric: exact numbers only.

    Attributes
    ----------
    metric : str
    item_type : str
    table : PairedTable
        The paired 2x2 table over items with a result in both versions.
    ids : ChangeIds
        Item ids per change label (``fixed``, ``regressed``, ``missing``, ...),
        in golden order: a mapping of label to tuple, like a dict.
    baseline, candidate : VersionRate
    ready : bool
        Enough pairs for a p-value and a difference interval.
    diff_ci : tuple of float or None
        Newcombe's interval of ``table.diff``; None when not ready.
    p_value : float or None
        Exact two-sided McNemar p-value; None when not ready.
    required_n : int or None
        Paired items whose exact McNemar test detects a drop of
        ``settings.drop`` with ``settings.power``; None when not measured.
    assumed_discordance : float or None
        The share of discordant items the sample size is computed at: the
        observed one when the metric is ready, else
        :data:`~buddy_eval.stats.DEFAULT_DISCORDANCE`; never below
        ``settings.drop`` (a drop needs at least that many items to change).
    observed_discordance : float or None
        The observed share of discordant paired items; None when not ready
        (or with trials).
    p_holm : float or None
        The McNemar p-value Holm-adjusted over the metrics that have one.
    reading : tuple of str or None
        ``(code, words)`` of :func:`buddy_eval.stats.reading`; None when not ready.
    sensitivity : dict or None
        When items are missing: ``{"regressed": ..., "unchanged": ...}``, each a
        :class:`Sensitivity` of the paired result with every missing item
        counted as a regression (worst case), or as unchanged (both fail).
    noninferiority_bound : float or None
        One-sided lower confidence bound on the paired difference; None
        without a margin.
    noninferior : bool or None
        The bound is above ``-margin``; None without a margin or when the
        metric is not measured.
    bound_method : str or None
        The name of the interval method whose lower end is the
        non-inferiority bound; None without a margin.

    The method of every interval and bound is a plain string attribute:
    :attr:`diff_method` (the difference interval), :attr:`noninferiority_method`
    (the non-inferiority bound), :attr:`test_method` (the p-value),
    ``baseline.ci_method`` and ``candidate.ci_method`` (each version's interval).

    Examples
    --------
    >>> citation = be.evaluate("data/example.txt").paired["citation"]
    >>> citation.table
    PairedTable(both_pass=2, fixed=1, regressed=0, both_fail=0)
    >>> citation.diff, citation.ids["fixed"], citation.ready, citation.p_value
    (Fraction(1, 3), ('q3',), False, None)
    >>> citation.required_n                  # paired items to detect a 5-point drop
    975
    """

    metric: str
    item_type: str
    table: PairedTable
    ids: Mapping = field(repr=False)
    baseline: VersionRate
    candidate: VersionRate
    ready: bool
    diff_ci: tuple[float, float] | None
    p_value: float | None
    required_n: int | None
    assumed_discordance: float | None = None
    observed_discordance: float | None = None
    p_holm: float | None = None
    reading: tuple[str, str] | None = None
    sensitivity: dict | None = field(default=None, repr=False)
    noninferiority_bound: float | None = None
    noninferior: bool | None = None
    trials: TrialComparison | None = None
    bound_method: str | None = None

    @property
    def measured(self) -> bool:
        """The golden set has an item of the metric's type."""
        return self.baseline.items > 0

    @property
    def missing(self) -> int:
        """Items with no result in at least one of the two versions (never paired)."""
        return len(self.ids["missing"])

    @property
    def n_paired(self) -> int:
        """Items with a result in both versions (with trials, ``mixed`` ones included)."""
        return self.table.n + len(self.ids.get("mixed", ()))

    @property
    def diff(self) -> Fraction | None:
        """Candidate minus baseline over the paired items (with trials: mean rate difference)."""
        return self.trials.mean_diff if self.trials is not None else self.table.diff

    @property
    def diff_method(self) -> str:
        """The name of the method of the difference interval (a plain string)."""
        return NEWCOMBE_METHOD if self.trials is None else self.trials.interval_method

    @property
    def test_method(self) -> str:
        """The name of the paired test (a plain string)."""
        if self.trials is not None:
            method = self.trials.test_method or NOT_COMPUTED
            return f"sign-flip test on per-item rate differences; {method}"
        return MCNEMAR_EXACT

    @property
    def observed_method(self) -> str:
        """The candidate's interval method (see ``baseline.ci_method`` for the baseline's)."""
        return self.candidate.ci_method

    @property
    def noninferiority_method(self) -> str:
        """The name of the method of the non-inferiority bound (a plain string)."""
        method = self.bound_method or self.diff_method
        return f"one-sided lower bound: {method} at two-sided level 2 * confidence - 1"

    def count(self, change: str) -> int:
        """Items with this change label."""
        return len(self.ids[change])

    def counts(self) -> dict[str, int]:
        """``n_paired``, the 2x2 table and ``missing``, in the order the views show them."""
        counts = {label.replace(" ", "_"): len(ids) for label, ids in self.ids.items()}
        return {"n_paired": self.n_paired, **counts}


@dataclass(frozen=True)
class Sensitivity:
    """The paired result had the missing items been observed one way.

    Attributes
    ----------
    n : int
        Paired items, the missing ones included.
    diff : Fraction or None
        Candidate minus baseline over them, exact.
    diff_ci : tuple of float or None
        The interval; None when that many items are not ready.
    p_value : float or None
        The exact test; None when not ready.
    reading : tuple of str or None
    table : PairedTable or None
        The 2x2 table with the missing items added (one trial per item).
    diff_ci_method : str
        The name of the method of :attr:`diff_ci` (a plain string).

    Examples
    --------
    The sample release lacks one ANSWER result (j31) of NEW:

    >>> sensitivity = be.evaluate("data/sample_release.txt").paired["correctness"].sensitivity
    >>> worst, unchanged = sensitivity["regressed"], sensitivity["unchanged"]
    >>> worst.n, worst.diff, unchanged.diff, worst.reading[0]
    (32, Fraction(1, 16), Fraction(3, 32), 'unclear')
    """

    n: int
    diff: Fraction | None
    diff_ci: tuple[float, float] | None
    p_value: float | None
    reading: tuple[str, str] | None
    table: PairedTable | None = None
    diff_ci_method: str = NEWCOMBE_METHOD


def _sensitivity(table: PairedTable, settings: Settings) -> Sensitivity:
    if not is_ready(table.n, settings.min_paired):
        return Sensitivity(table.n, table.diff, None, None, None, table)
    ci, p = table.diff_interval(settings.confidence), table.mcnemar()
    return Sensitivity(table.n, table.diff, ci, p, reading(ci, p, settings.alpha), table)


def trial_reading(diff_ci, p_value: float, alpha: float, diff) -> tuple[str, str]:
    """The reading with repeated trials: the exact sign-flip test decides whether there is a change.

    When the test rejects, the reading names the change in the direction of
    the mean difference, whatever the interval says (the test is exact; the
    interval is approximate and, below the effective-size rule's items, the
    conservative variance bound); it says when the interval still includes
    0. When the test does not reject it never names a change: "borderline"
    when the interval excludes 0, else "no clear change". The words say
    "exact test" only for an exact p-value (the caller appends the note of
    the normal approximation).
    """
    code, words = reading(diff_ci, p_value, alpha)
    if p_value < alpha and code == "borderline":
        gain = diff is not None and diff > 0
        code = "gain" if gain else "drop"
        words = (
            f"{code}: the exact test rejects; the interval, more conservative than the "
            "test, still includes 0"
        )
    return code, words


def _reading(diff_ci, p_value, alpha: float, trial: TrialComparison | None):
    """The one reading; with trials it says when the p-value is a normal approximation."""
    if diff_ci is None or p_value is None:
        return None
    if trial is None:
        return reading(diff_ci, p_value, alpha)
    code, words = trial_reading(diff_ci, p_value, alpha, trial.mean_diff)
    if (trial.test_method or "").startswith("normal approximation"):
        words += approximated_p("sign-flip")
    return code, words


def _trial_sensitivity(base: list, cand: list, counts: dict, settings: Settings) -> Sensitivity:
    diffs = [c - b for b, c in zip(base, cand, strict=True)]
    n = len(diffs)
    diff = sum(diffs, Fraction(0)) / n if n else None
    ci = paired_interval_from_sums(paired_sums(counts), settings.confidence) if n else None
    method = ci.method if ci is not None else NEWCOMBE_METHOD
    if ci is None or not is_ready(n, settings.min_paired):
        return Sensitivity(n, diff, None, None, None, diff_ci_method=method)
    p = paired_item_differences_test(diffs, settings.alpha).p_value
    read = trial_reading(ci, p, settings.alpha, diff)
    return Sensitivity(n, diff, ci, p, read, diff_ci_method=method)


@dataclass(frozen=True)
class ViolationBound:
    """Exact one-sided upper bound on one version's violation rate.

    Attributes
    ----------
    version : str
    violations : int
        REFUSE items the version answered.
    n : int
        REFUSE items the version has a result for (a missing result is
        neither a violation nor evidence against one).
    upper_bound : float
        Clopper-Pearson one-sided bound; NaN when ``n`` is 0.
    method : str
        The name of the bound's method (a plain string).

    Examples
    --------
    One violation in 9 REFUSE items with a result:

    >>> bound = be.evaluate("data/sample_release.txt").paired.violations[1]
    >>> bound.version, bound.violations, bound.n, round(bound.upper_bound, 3)
    ('NEW', 1, 9, 0.429)
    """

    version: str
    violations: int
    n: int
    upper_bound: float
    method: str = VIOLATION_BOUND_METHOD


@dataclass(frozen=True)
class PairedComparison:
    """Every paired figure of an evaluation, computed once (see :func:`compare_versions`).

    Attributes
    ----------
    baseline, candidate : str
    settings : Settings
    metrics : tuple of MetricComparison
        Correctness, citation, refusal.
    violations : tuple of ViolationBound
        The baseline's, then the candidate's.

    Examples
    --------
    >>> paired = be.evaluate("data/example.txt").paired
    >>> [m.metric for m in paired.metrics], paired.baseline, paired.candidate
    (['correctness', 'citation', 'refusal'], 'OLD', 'NEW')
    >>> paired["citation"].ids["fixed"], paired.violations[1].violations
    (('q3',), 1)
    """

    baseline: str
    candidate: str
    settings: Settings
    metrics: tuple[MetricComparison, ...]
    violations: tuple[ViolationBound, ViolationBound]

    def __getitem__(self, metric: str) -> MetricComparison:
        return {m.metric: m for m in self.metrics}[metric]


def _version_rate(version, n, k, gate, settings: Settings, trials: bool) -> VersionRate:
    """Wilson over the items with a result, of their mean rate (with one trial: ``passed / n``).

    With one trial the rates are 0 or 1 and the interval is the one-trial Wilson, computed
    from the counts (exactly the same figures, without a Fraction per item).
    """
    if not trials:  # n and k are 0 or 1: k is 1 exactly where the item has a result and passes
        all_pass, observed = int(np.count_nonzero(k)), int(np.count_nonzero(n))
        ci = wilson_interval(all_pass, observed, settings.confidence)
        return VersionRate(version, gate, all_pass, len(n), observed, ci)
    tried = n > 0
    all_pass, observed = int(np.count_nonzero(tried & (k == n))), int(np.count_nonzero(tried))
    sums = _rate_sums(count_rows(n[tried], k[tried]))
    mean = sums.mean if observed else None
    interval = rate_interval_from_sums(sums, settings.confidence)
    method = f"{interval.method}, over the items with a trial"
    return VersionRate(version, gate, all_pass, len(n), observed, interval, mean, method)


def _metric_fields(
    c: Changes,
    item_ids,
    values: tuple,
    labels: tuple[str, str],
    settings: Settings,
    sample_size: bool = True,
) -> dict[str, Any]:
    """Every paired figure of one metric (the fields of its :class:`MetricComparison` but
    ``p_holm``): the counts, then the figures, then the reading.

    One result per item: Newcombe, exact McNemar, the exact sample size.
    Repeated trials: the same intervals on item rates, the sign-flip test on items.
    """
    import pyarrow as pa

    ids = c.ids if c.ids is not None else ChangeIds.of(c.labels, c.change, c.rows, item_ids)
    table = PairedTable(*map(ids.count, ("both pass", "fixed", "regressed", "both fail")))
    missing, measured = ids.count("missing"), len(c.rows) > 0
    trial = required_n = discordance = observed = bound = sensitivity = None
    bound_method: str | None = None
    if c.trials is None:
        ready = is_ready(table.n, settings.min_paired)
        diff_ci = table.diff_interval(settings.confidence) if ready else None
        p_value = table.mcnemar() if ready else None
        if settings.margin is not None:
            bound = noninferiority_bound(table, settings.confidence)
            bound_method = NEWCOMBE_METHOD
        if missing and measured:
            both_pass, fixed, regressed, both_fail = (
                table.both_pass,
                table.fixed,
                table.regressed,
                table.both_fail,
            )
            as_regressed = PairedTable(both_pass, fixed, regressed + missing, both_fail)
            as_unchanged = PairedTable(both_pass, fixed, regressed, both_fail + missing)
            sensitivity = {
                "regressed": _sensitivity(as_regressed, settings),
                "unchanged": _sensitivity(as_unchanged, settings),
            }
        if measured and sample_size:
            observed = table.discordant / table.n if ready else None
            # The sample size assumes at least the drop itself is discordant (a drop of
            # 5 points needs at least 5% of items to change); this is the share it uses.
            discordance = max(
                DEFAULT_DISCORDANCE if observed is None else observed, float(settings.drop)
            )
            required_n = required_paired_n_exact(
                discordance, settings.drop, settings.alpha, settings.power
            )
    else:
        names = item_ids.take(pa.array(c.rows, pa.int64())).to_pylist()
        trial = compare_trials(*labels, *c.trials, names, settings.min_paired, settings.confidence)
        ready = is_ready(trial.n_items, settings.min_paired)
        diff_ci, p_value = trial.diff_ci, trial.p_value
        base_rates, cand_rates = trial.paired_rates
        if missing and measured:
            # A missing item as regressed: passed every trial before, fails now;
            # as unchanged: fails in both (the single-trial rule), one trial each.
            one, zero = [Fraction(1)] * missing, [Fraction(0)] * missing
            cases = (("regressed", one, (1, 1, 1, 0)), ("unchanged", zero, (1, 0, 1, 0)))
            sensitivity = {}
            for case, before, row in cases:
                counts = dict(trial.pair_counts)
                counts[row] = counts.get(row, 0) + missing
                sensitivity[case] = _trial_sensitivity(
                    base_rates + before, cand_rates + zero, counts, settings
                )
        if settings.margin is not None and trial.pair_counts:
            # The one-sided bound at the same two-sided level the single-trial gate uses.
            two_sided = 1 - 2 * (1 - float(settings.confidence))
            lower = paired_interval_from_sums(trial.pair_sums, two_sided)
            bound, bound_method = lower[0], lower.method
        elif settings.margin is not None:
            bound = math.nan
    noninferior = None
    if settings.margin is not None and measured:
        noninferior = bool(bound is not None and not math.isnan(bound) and bound > -settings.margin)
    baseline, candidate = (
        _version_rate(label, c.counts[j], c.counts[j + 1], value, settings, c.repeated)
        for j, label, value in zip((0, 2), labels, values, strict=True)
    )
    return {
        "metric": c.metric,
        "item_type": ITEM_TYPE_OF[c.metric],
        "table": table,
        "ids": ids,
        "baseline": baseline,
        "candidate": candidate,
        "ready": ready,
        "diff_ci": diff_ci,
        "p_value": p_value,
        "required_n": required_n,
        "assumed_discordance": discordance,
        "observed_discordance": observed,
        "reading": _reading(diff_ci, p_value, settings.alpha, trial) if ready else None,
        "sensitivity": sensitivity,
        "noninferiority_bound": bound,
        "noninferior": noninferior,
        "trials": trial,
        "bound_method": bound_method,
    }


def compare_versions(
    changes: tuple[Changes, ...],
    item_ids,
    baseline_values: dict,
    candidate_values: dict,
    violation_counts: tuple[tuple[int, int], tuple[int, int]],
    baseline: str,
    candidate: str,
    settings: Settings,
    *,
    sample_size: bool = True,
) -> PairedComparison:
    """Compute every paired figure from the per-metric change arrays.

    Parameters
    ----------
    changes : tuple of Changes
        From :func:`metric_changes`.
    item_ids : pyarrow.Array
        Golden item ids, in golden order.
    baseline_values, candidate_values : dict
        The gate's exact rates per metric (Fractions or None).
    violation_counts : pair of (violations, REFUSE items with a result)
        For the baseline, then the candidate.
    baseline, candidate : str
    settings : Settings
    sample_size : bool
        Compute the sample-size hint (``required_n``, the discordance it
        assumes); False leaves them None (a slice: the hint plans the whole
        golden set).

    Returns
    -------
    PairedComparison
    """

    labels = (baseline, candidate)
    fields = [
        _metric_fields(
            c,
            item_ids,
            (baseline_values[c.metric], candidate_values[c.metric]),
            labels,
            settings,
            sample_size,
        )
        for c in changes
    ]
    adjusted = holm([f["p_value"] for f in fields])
    metrics = [MetricComparison(**f, p_holm=p) for f, p in zip(fields, adjusted, strict=True)]
    base_bound, cand_bound = (
        ViolationBound(
            version, k, n, exact_upper_bound(k, n, settings.confidence) if n else math.nan
        )
        for version, (k, n) in zip(labels, violation_counts, strict=True)
    )
    return PairedComparison(baseline, candidate, settings, tuple(metrics), (base_bound, cand_bound))


_COUNT_COLUMNS = ["n_paired", "both_pass", "both_fail", "fixed", "regressed", "mixed", "missing"]
_FLOAT_COLUMNS = [
    *(f"{v}_{x}" for v in ("baseline", "candidate") for x in ("rate", "ci_low", "ci_high")),
    *("diff", "diff_ci_low", "diff_ci_high", "p_value", "p_value_holm"),
]
_TEXT_COLUMNS = ["diff_method", "p_value_method", "note"]


def readiness_note(m: MetricComparison, min_paired: int) -> str | None:
    """Why a metric has no p-value or difference interval; None when it is ready."""
    return phrased_readiness_note(
        m.measured, m.ready, m.item_type, m.n_paired, min_paired, m.missing
    )


def comparison_frame(paired: PairedComparison) -> pd.DataFrame:
    """:class:`PairedComparison` as a DataFrame, one row per rate metric.

    Returns
    -------
    pandas.DataFrame
        One row per metric, in the order correctness, citation, refusal:

        - ``metric`` (category).
        - ``n_paired``, ``both_pass``, ``both_fail``, ``fixed``,
          ``regressed``, ``mixed``, ``missing`` (int64): the counts of
          :func:`item_changes` (``mixed``: with repeated trials, items whose
          rate moved too little to call, else 0; ``missing``: items with no
          result in at least one version, never paired). ``n_paired`` is
          the sum of the five before ``missing``.
        - ``baseline_rate``, ``candidate_rate`` (Float64): the gate's rates
          (a missing result counts as failed); NA when not measured.
        - ``baseline_ci_low``, ``baseline_ci_high``, ``candidate_ci_low``,
          ``candidate_ci_high`` (Float64): each version's interval over the
          items it has a result for (Wilson; with trials Wilson on the mean
          item rate, items as the units); NA when it has none.
        - ``diff`` (Float64): candidate minus baseline over the paired
          items (with trials the mean per-item rate difference), the
          difference ``--details`` and the JSON report print; NA when
          nothing is paired.
        - ``diff_ci_low``, ``diff_ci_high`` (Float64): its interval
          (``diff_method``); NA when not ready.
        - ``p_value`` (Float64): the paired test (``p_value_method``); NA
          when not ready.
        - ``p_value_holm`` (Float64): ``p_value`` Holm-adjusted over the
          metrics that have one; NA when not ready.
        - ``ready_for_decision`` (bool).
        - ``reading`` (str): what the interval and the test say together
          (``no clear change: the interval includes 0``, ...); NA when not
          ready.
        - ``required_n`` (Int64): the sample-size hint; NA when nothing is
          paired or with repeated trials.
        - ``diff_method``, ``p_value_method`` (str): how the interval and
          the p-value are computed (from the result: McNemar and Newcombe
          for one result per item, per-item rate differences with trials).
        - ``note`` (str): why a metric is not ready or not measured; NA when
          it is ready.
    """
    import pandas as pd

    rows = []
    for m in paired.metrics:
        floats: list[float | None] = [_float(m.baseline.gate), *m.baseline.ci]
        floats += [_float(m.candidate.gate), *m.candidate.ci, _float(m.diff)]
        floats += [*(m.diff_ci or (math.nan, math.nan)), m.p_value, m.p_holm]
        rows.append(
            {
                "metric": m.metric,
                "mixed": 0,
                **m.counts(),
                **dict(zip(_FLOAT_COLUMNS, floats, strict=True)),
                "ready_for_decision": m.ready,
                "reading": None if m.reading is None else m.reading[1],
                "required_n": m.required_n,
                "diff_method": m.diff_method,
                "p_value_method": m.test_method,
                "note": readiness_note(m, paired.settings.min_paired),
            }
        )
    columns = ["metric", *_COUNT_COLUMNS, *_FLOAT_COLUMNS, "ready_for_decision", "reading"]
    dtypes: dict[str, Any] = {
        "metric": pd.CategoricalDtype(list(RATE_METRICS)),
        **dict.fromkeys(_COUNT_COLUMNS, "int64"),
        **dict.fromkeys(_FLOAT_COLUMNS, "Float64"),  # NaN or None (not computed) becomes <NA>
        "ready_for_decision": "bool",
        "required_n": "Int64",
        **dict.fromkeys(("reading", *_TEXT_COLUMNS), "str"),
    }
    return pd.DataFrame(rows, columns=[*columns, "required_n", *_TEXT_COLUMNS]).astype(dtypes)


def _float(value: Fraction | None) -> float:
    return math.nan if value is None else float(value)
