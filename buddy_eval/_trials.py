"""Repeated trials: per-item pass rates, flaky items and item-level paired statistics.

With ``--trials`` each golden item is run several times per version. An
item's *rate* on a metric is the share of its trials that pass; the gate's
rate is the mean of those over the items (:mod:`buddy_eval._scoring`). Here the
two versions are compared item by item on those rates, with the **items** as
the units: trials of one item are not independent observations, so the test
is over per-item differences and the intervals over item rates, at the
effective size the spread of the item rates shows (:mod:`buddy_eval.stats`).

The change label of an item with trials comes from its two rates:

- ``both pass`` / ``both fail``: every trial passes (fails) in both versions;
- ``fixed`` / ``regressed``: the candidate's rate is higher (lower) than the
  baseline's by at least :data:`CHANGE_STEP` (half of the trials);
- ``mixed``: any other move, too small to call (a flaky item that stayed
  flaky, or moved by less than half its trials);
- ``missing``: no trial in at least one version.

With one trial per item the rates are 0 or 1 and the labels are exactly the
one-trial labels. An item is *flaky* in a version when its trials disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ._vocabulary import TRIAL_CHANGES
from .stats import (
    Interval,
    IntervalOutlook,
    is_ready,
    item_variance_components,
    mean_pass_at_k,
    mean_pass_hat_k,
    more_trials_or_items,
    paired_item_differences_test,
)
from .stats._effective import (
    PairedSums,
    outlook_from_counts,
    paired_interval_from_sums,
    paired_sums,
)

if TYPE_CHECKING:
    from .stats import TrialPlan

__all__ = [
    "CHANGE_STEP",
    "TrialComparison",
    "TrialVersion",
    "compare_trials",
    "count_rows",
    "flaky",
    "item_rate_changes",
]

#: How far an item's rate must move (a share of its trials) to count as fixed or regressed.
CHANGE_STEP = Fraction(1, 2)

_CODE = {label: k for k, label in enumerate(TRIAL_CHANGES)}


def item_rate_changes(
    base_n: np.ndarray, base_k: np.ndarray, cand_n: np.ndarray, cand_k: np.ndarray
) -> np.ndarray:
    """The change code (index into ``TRIAL_CHANGES``) of every item from its trial counts.

    Parameters
    ----------
    base_n, cand_n : numpy.ndarray of int
        Trials per item in the baseline and the candidate (0: missing).
    base_k, cand_k : numpy.ndarray of int
        Passing trials per item.

    Returns
    -------
    numpy.ndarray of int8
    """
    present = (base_n > 0) & (cand_n > 0)
    all_b, none_b = base_k == base_n, base_k == 0
    all_c, none_c = cand_k == cand_n, cand_k == 0
    # rate_c - rate_b = moved / (n_b n_c); compare with CHANGE_STEP in exact integers
    moved = cand_k.astype(np.int64) * base_n - base_k.astype(np.int64) * cand_n
    step = base_n.astype(np.int64) * cand_n * CHANGE_STEP.numerator
    moved = moved * CHANGE_STEP.denominator
    return np.select(
        [~present, all_b & all_c, none_b & none_c, moved >= step, -moved >= step],
        [_CODE[c] for c in ("missing", "both pass", "both fail", "fixed", "regressed")],
        default=_CODE["mixed"],
    ).astype(np.int8)


def flaky(
    base_n: np.ndarray, base_k: np.ndarray, cand_n: np.ndarray, cand_k: np.ndarray
) -> np.ndarray:
    """Whether each item's trials disagree in at least one of the two versions (bool array)."""
    return ((base_k > 0) & (base_k < base_n)) | ((cand_k > 0) & (cand_k < cand_n))


@dataclass(frozen=True)
class TrialVersion:
    """One version's repeated trials on one metric.

    Attributes
    ----------
    version : str
    items : int
        Items with at least one trial.
    trials : int
        Trials in all.
    k : int or None
        The ``k`` of :attr:`pass_at_k` and :attr:`pass_hat_k`: the fewest
        trials any item of the pair has (None when no item has a trial).
    pass_at_k, pass_hat_k : Fraction or None
        Unbiased pass@k (at least one of k trials passes) and pass^k (all k
        pass) from each item's trials, averaged over items.
    within_share : Fraction or None
        Share of the trial-to-trial variance that is within items (one-way
        ANOVA), exact; None when undefined.
    within, between : float or None
        The variance components behind it.
    trials_per_item : float or None
        Harmonic mean of the items' trial counts (the ``n`` of the two-stage
        model behind :attr:`TrialComparison.plan`).

    Examples
    --------
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> old = ev.paired["correctness"].trials.baseline
    >>> old.version, old.items, old.trials, old.k, old.pass_at_k, old.pass_hat_k
    ('OLD', 32, 160, 5, Fraction(27, 32), Fraction(5, 8))
    """

    version: str
    items: int
    trials: int
    k: int | None
    pass_at_k: Fraction | None
    pass_hat_k: Fraction | None
    within_share: Fraction | None
    within: float | None
    between: float | None
    trials_per_item: float | None = None


@dataclass(frozen=True)
class TrialComparison:
    """The candidate against the baseline on per-item rates, items as the units.

    Attributes
    ----------
    n_items : int
        Items with trials in both versions (what readiness counts).
    mean_diff : Fraction or None
        Mean over those items of candidate rate minus baseline rate, exact.
    diff_ci : Interval or None
        Newcombe hybrid score interval on the item rates' fractional 2x2
        table at the Korn-Graubard effective size (see
        :func:`buddy_eval.stats.paired_trials_interval`; its ``method`` says
        whether the effective size or the variance bound over the items was
        used); None when not ready.
    p_value : float or None
        Two-sided sign-flip test on the per-item differences; None when not ready.
    test_method : str or None
        How the p-value was computed (exact enumeration or approximation).
    baseline, candidate : TrialVersion
    flaky_ids : tuple of str
        Items whose trials disagree in at least one of the two versions.
    plan : TrialPlan or None
        Standard errors of the candidate's mean rate under the two-stage
        model with twice the items or twice the trials (trials per item as
        their harmonic mean); None when there is no within-item variance.
    item_rates : tuple of (str, Fraction or None, Fraction or None)
        Every item's rate in the baseline and the candidate (None: no trial).
    interval : Interval or None
        The difference interval, also when not ready (what :attr:`diff_ci`
        holds when ready); None when no item has trials in both versions.
    outlook : IntervalOutlook or None
        The candidate's interval now, with twice the items and with twice
        the trials (what the ``next`` line prints); None when the candidate
        has no trial.
    pair_counts : dict
        Distinct ``(n_b, k_b, n_c, k_c)`` rows of the paired items with their
        multiplicities (what the intervals are computed from).

    Examples
    --------
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> trials = ev.paired["correctness"].trials
    >>> trials.n_items, trials.mean_diff, round(trials.p_value, 3), trials.test_method
    (31, Fraction(16, 155), 0.274, 'exact (sign-flip enumeration)')
    >>> len(trials.flaky_ids), trials.flaky_ids[:3], trials.plan.recommendation
    (12, ('j04', 'j05', 'j08'), 'more items')
    """

    n_items: int
    mean_diff: Fraction | None
    diff_ci: tuple[float, float] | None
    p_value: float | None
    test_method: str | None
    baseline: TrialVersion
    candidate: TrialVersion
    flaky_ids: tuple[str, ...]
    plan: TrialPlan | None
    item_rates: tuple = ()
    interval: Interval | None = None
    outlook: IntervalOutlook | None = None
    pair_counts: dict = field(default_factory=dict, repr=False)

    @property
    def interval_method(self) -> str:
        """The name of the method of :attr:`interval` (a plain string)."""
        return _paired_method(self.interval)

    @property
    def pair_sums(self) -> PairedSums:
        """Sufficient statistics of the paired items' rates, exact."""
        return paired_sums(self.pair_counts)

    @property
    def paired_rates(self) -> tuple[list[Fraction], list[Fraction]]:
        """Baseline and candidate rate of every item with trials in both versions, exact."""
        return _paired(self.item_rates)


def _paired_method(interval: Interval | None) -> str:
    from .stats import BOUND_DIFF_METHOD

    return BOUND_DIFF_METHOD if interval is None else interval.method


def count_rows(*columns: np.ndarray) -> dict[tuple[int, ...], int]:
    """Distinct rows of integer columns with their multiplicities (one pass, no per-item object)."""
    if not len(columns) or not len(columns[0]):
        return {}
    stacked = np.stack([np.asarray(c, dtype=np.int64) for c in columns], axis=1)
    top = int(stacked.max()) + 1
    if top ** len(columns) < 2**62:
        key = np.zeros(len(stacked), dtype=np.int64)
        for j in range(len(columns)):
            key = key * top + stacked[:, j]
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        rows = stacked[first]
    else:
        rows, counts = np.unique(stacked, axis=0, return_counts=True)
    return {tuple(r): c for r, c in zip(rows.tolist(), counts.tolist(), strict=True)}


def _version(version, n, k, kk) -> TrialVersion:
    tried = n > 0
    pairs = list(zip(n[tried].tolist(), k[tried].tolist(), strict=True))
    parts = item_variance_components([[1] * c + [0] * (m - c) for m, c in pairs]) if pairs else None
    spread: tuple = (None,) * 4
    if parts is not None:
        spread = (parts.exact_share, parts.within, parts.between, parts.trials_per_item)
    at_k = (mean_pass_at_k(pairs, kk), mean_pass_hat_k(pairs, kk)) if kk else (None, None)
    return TrialVersion(version, int(tried.sum()), int(n.sum()), kk, *at_k, *spread)


def _paired(item_rates) -> tuple[list[Fraction], list[Fraction]]:
    """Baseline and candidate rate of every item with trials in both versions."""
    pairs = [(b, c) for _, b, c in item_rates if b is not None and c is not None]
    return [b for b, _ in pairs], [c for _, c in pairs]


def compare_trials(
    baseline: str,
    candidate: str,
    base_n: np.ndarray,
    base_k: np.ndarray,
    cand_n: np.ndarray,
    cand_k: np.ndarray,
    item_ids: list[str],
    min_paired: int,
    confidence: float,
) -> TrialComparison:
    """Item-level paired statistics of per-item rates (one metric).

    Parameters
    ----------
    baseline, candidate : str
    base_n, base_k, cand_n, cand_k : numpy.ndarray
        Trials and passing trials per item of the metric's type (0 trials:
        no result).
    item_ids : list of str
        The items, in the same order.
    min_paired : int
        Readiness: items with trials in both versions needed for a p-value
        and an interval.
    confidence : float

    Returns
    -------
    TrialComparison
    """
    rates = tuple(
        (i, Fraction(kb, nb) if nb else None, Fraction(kc, nc) if nc else None)
        for i, nb, kb, nc, kc in zip(
            item_ids, *(a.tolist() for a in (base_n, base_k, cand_n, cand_k)), strict=True
        )
    )
    base_rates, cand_rates = _paired(rates)
    diffs = [c - b for b, c in zip(base_rates, cand_rates, strict=True)]
    ready = is_ready(len(diffs), min_paired)
    both = (base_n > 0) & (cand_n > 0)
    kk = int(min(base_n[both].min(), cand_n[both].min())) if both.any() else None
    alpha = float(1 - Fraction(str(confidence)))
    test = paired_item_differences_test(diffs, alpha) if ready else None
    flaky_items = flaky(base_n, base_k, cand_n, cand_k).tolist()
    base = _version(baseline, base_n, base_k, kk)
    cand = _version(candidate, cand_n, cand_k, kk)
    plan = None
    if cand.within and cand.between is not None and cand.trials_per_item:
        plan = more_trials_or_items(cand.within, cand.between, cand.items, cand.trials_per_item)
    pair_counts = count_rows(base_n[both], base_k[both], cand_n[both], cand_k[both])
    interval = paired_interval_from_sums(paired_sums(pair_counts), confidence) if diffs else None
    tried = cand_n > 0
    cand_counts = count_rows(cand_n[tried], cand_k[tried])
    outlook = outlook_from_counts(cand_counts, confidence) if cand_counts else None
    return TrialComparison(
        item_rates=rates,
        n_items=len(diffs),
        mean_diff=sum(diffs, Fraction(0)) / len(diffs) if diffs else None,
        diff_ci=interval if ready else None,
        p_value=test.p_value if test else None,
        test_method=test.method if test else None,
        baseline=base,
        candidate=cand,
        flaky_ids=tuple(i for i, f in zip(item_ids, flaky_items, strict=True) if f),
        plan=plan,
        interval=interval,
        outlook=outlook,
        pair_counts=pair_counts,
    )
