"""The tasks comparison per tier: every figure of the whole run, over each tier's tasks.

The golden tasks carry a ``tier``; the comparison slices by it without being
asked. :func:`tier_figures` gives every score and pair its tier and computes,
per tier, what the whole run has, with the functions that compute the whole
run (the whole run is their one group): each run's summary row
(:func:`~buddy_eval.tasks._scoring.exact_run_summaries`) and the paired
statistics (:func:`~buddy_eval.tasks._paired_summary.summarize_pair_groups`, on
the shared paired core), every count by one pass over the rows.

Per tier and per metric (``mean_score``: the signed-rank test on the score
deltas; ``all_pass``: the exact McNemar test) it adds the paired difference's
interval, the reading of :func:`buddy_eval.stats.reading`, the p-value
Holm-adjusted across the tiers within the metric (the gate's
``p_value_holm_across_slices``) and, for a tier with too few scored pairs to
tell, the drop of the whole run's paired difference it could hide.

A reversal (Simpson's paradox) is possible here and not in the gate: an
unknown check leaves the denominator, so a tier can weigh differently in the
two runs' rates. :func:`reversal_warnings` names each metric whose overall
change points against every measured tier.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._phrases import NEWCOMBE_HYBRID, approximated_p, reversal_warning
from ..stats import holm, reading
from ..stats._effective import paired_interval_from_sums, paired_sums
from ._paired_summary import PairedSummary, group_positions, summarize_pair_groups
from ._scoring import exact_mean, exact_run_summaries

if TYPE_CHECKING:
    from .._paired_settings import Settings

__all__ = ["TIER_METRICS", "TierFigures", "TierMetric", "TierResult", "tier_figures"]

#: The tasks comparison's metrics, in the order every tier view shows them.
TIER_METRICS = ("mean_score", "all_pass")
#: The run summary's figure of each metric.
_RATE_OF = {"mean_score": "mean_score", "all_pass": "all_pass_rate"}


@dataclass(frozen=True)
class TierMetric:
    """One metric of one tier: run B against run A, exact numbers only.

    Attributes
    ----------
    metric : str
        ``mean_score`` or ``all_pass``.
    items : int
        Golden tasks in the tier.
    n_paired : int
        Tasks of the tier scored in both runs.
    fixed, regressed : int
        ``mean_score``: paired tasks where B scores higher, lower;
        ``all_pass``: paired tasks whose every measured check passes in B
        only, in A only.
    missing : int
        Tasks of the tier not scored in both runs (never paired).
    baseline_rate, candidate_rate : Fraction or None
        Run A's and run B's figure over their scored tasks of the tier (the
        mean score, the share of tasks with every measured check passing);
        None when the run scores no task of the tier.
    diff : Fraction or None
        B minus A over the paired tasks; None when none is paired.
    diff_ci : tuple of float or None
        Its interval (``diff_ci_method``); None when not ready.
    diff_ci_method : str or None
        How :attr:`diff_ci` is computed; None when not ready.
    p_value : float or None
        The metric's paired test (signed-rank, exact McNemar); None when not ready.
    p_value_holm_across_slices : float or None
        :attr:`p_value` Holm-adjusted across the tiers with one, within the metric.
    ready : bool
        Enough scored pairs in the tier (``min_paired``).
    reading : tuple of str or None
        ``(code, words)`` of :func:`buddy_eval.stats.reading`; None when not ready.
    could_hide : Fraction or None
        For a tier too small to tell: the largest drop of the whole run's
        paired difference it could hide (its paired tasks' run A figure
        falling to 0, over the whole run's scored pairs); None otherwise.
    """

    metric: str
    items: int
    n_paired: int
    fixed: int
    regressed: int
    missing: int
    baseline_rate: Fraction | None
    candidate_rate: Fraction | None
    diff: Fraction | None
    diff_ci: tuple[float, float] | None
    diff_ci_method: str | None
    p_value: float | None
    p_value_holm_across_slices: float | None
    ready: bool
    reading: tuple[str, str] | None
    could_hide: Fraction | None


@dataclass(frozen=True)
class TierResult:
    """Every figure of one tier, as the whole run has them.

    Attributes
    ----------
    name : str
    tasks : int
        Golden tasks in the tier.
    run_summaries : tuple of dict
        Run A's and run B's summary row over the tier's tasks (the keys of
        :attr:`ComparisonResults.run_summaries`, the rates exact).
    paired : PairedSummary
        The paired statistics over the tier's tasks (its ``p_value_holm`` is
        Holm across its two tests, as for the whole run).
    metrics : tuple of TierMetric
        ``mean_score``, then ``all_pass``.
    """

    name: str
    tasks: int
    run_summaries: tuple[dict, dict]
    paired: PairedSummary
    metrics: tuple[TierMetric, ...]

    def __getitem__(self, metric: str) -> TierMetric:
        for m in self.metrics:
            if m.metric == metric:
                return m
        raise KeyError(metric)


@dataclass(frozen=True)
class TierFigures:
    """The tiers of a tasks comparison and every figure of each.

    Attributes
    ----------
    tiers : tuple of TierResult
        In the order of each tier's first golden task.
    reversals : tuple of str
        The metrics whose overall change points against every measured
        tier (see :func:`reversal_warnings`).

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> [(t.name, t.tasks, t.paired.n) for t in cmp.tiers.tiers]
    [('basic', 17, 15), ('standard', 11, 9), ('advanced', 3, 1)]
    >>> basic = cmp.tiers["basic"]["all_pass"]
    >>> basic.fixed, basic.regressed, basic.diff, basic.ready, basic.could_hide
    (3, 0, Fraction(1, 5), False, Fraction(12, 25))
    """

    tiers: tuple[TierResult, ...]
    reversals: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The tiers, in order."""
        return tuple(t.name for t in self.tiers)

    def __getitem__(self, name: str) -> TierResult:
        for t in self.tiers:
            if t.name == name:
                return t
        raise KeyError(name)


def _sign(value: Fraction | None) -> int:
    return 0 if value is None else (value > 0) - (value < 0)


def reversal_metrics(overall: tuple[dict, dict], tiers: list[tuple[dict, dict]]) -> tuple[str, ...]:
    """The metrics whose overall change (run B's figure minus run A's) is not zero and points
    against the change of every measured tier (a tier both runs score a task of), when at
    least one tier is measured."""
    found = []
    for metric in TIER_METRICS:
        key = _RATE_OF[metric]
        a, b = (run[key] for run in overall)
        if a is None or b is None or a == b:
            continue
        direction = _sign(b - a)
        measured = [
            _sign(tb[key] - ta[key])
            for ta, tb in tiers
            if ta[key] is not None and tb[key] is not None
        ]
        if measured and all(s == -direction for s in measured):
            found.append(metric)
    return tuple(found)


def reversal_warnings(figures: TierFigures, overall: tuple[dict, dict]) -> tuple[str, ...]:
    """One warning per reversed metric (:func:`buddy_eval._phrases.reversal_warning`)."""
    out = []
    for metric in figures.reversals:
        key = _RATE_OF[metric]
        rises = overall[1][key] > overall[0][key]
        out.append(reversal_warning(metric, rises))
    return tuple(out)


def _mean_score_interval(counts: np.ndarray, confidence: float):
    """The shared core's interval of a mean paired rate difference
    (:func:`buddy_eval.stats.paired_trials_interval`), from the distinct rows and their
    multiplicities."""
    rows, times = np.unique(counts, axis=0, return_counts=True)
    counted = {tuple(row): int(k) for row, k in zip(rows.tolist(), times.tolist(), strict=True)}
    return paired_interval_from_sums(paired_sums(counted), confidence)


def _metric_figures(metric: str, counts: np.ndarray, paired, settings) -> dict:
    """One metric of one tier from its paired statistics: the counts, the difference, its
    interval and test, and what run A passes on the paired tasks (what a drop could take).

    ``counts`` holds the tier's scored pairs' ``measured_a, passed_a, measured_b,
    passed_b``, one row each."""
    ready = paired.ready_for_decision
    table = paired.all_pass
    if metric == "mean_score":
        # Each task's score is a rate of passed over measured checks.
        ci = _mean_score_interval(counts, settings.confidence) if ready else None
        passed = exact_mean(counts[:, 1], counts[:, 0])
        return {
            "fixed": paired.wins,
            "regressed": paired.losses,
            "diff": paired.mean_delta,
            "diff_ci": ci,
            "diff_ci_method": None if ci is None else ci.method,
            "p_value": paired.p_value,
            "approximate": (paired.p_value_method or "").startswith("normal approximation"),
            "passed": Fraction(0) if passed is None else passed * len(counts),
        }
    ci = table.diff_interval(settings.confidence) if ready else None
    return {
        "fixed": table.fixed,
        "regressed": table.regressed,
        "diff": table.diff,
        "diff_ci": ci,
        "diff_ci_method": None if ci is None else NEWCOMBE_HYBRID,
        "p_value": paired.mcnemar_p_value,
        "approximate": False,
        "passed": Fraction(table.both_pass + table.regressed),
    }


def _reading(ci, p_value, approximate: bool, alpha: float) -> tuple[str, str] | None:
    """The one reading of the interval and the test; it says when the p-value is the
    signed-rank test's normal approximation rather than exact."""
    if ci is None or p_value is None:
        return None
    code, words = reading(ci, p_value, alpha)
    if approximate:
        words += approximated_p("signed-rank")
    return code, words


def tier_figures(
    golden_tasks: pd.DataFrame,
    scores: pd.DataFrame,
    pairs: pd.DataFrame,
    labels: tuple[str, str],
    overall: tuple[dict, dict],
    whole_paired_n: int,
    settings: Settings,
) -> TierFigures:
    """Compute every tier's figures once (see :class:`TierResult`).

    Parameters
    ----------
    golden_tasks : pandas.DataFrame
        The golden tasks (``golden_id``, ``tier``), golden order.
    scores, pairs : pandas.DataFrame
        The comparison's per-(run, task) scores and its pairs.
    labels : pair of str
        Run A's and run B's labels.
    overall : pair of dict
        The whole run's summary rows (what a reversal is read against).
    whole_paired_n : int
        The whole run's scored pairs (the denominator of ``could_hide``).
    settings : Settings
        ``min_paired``, ``confidence`` and ``alpha``.
    """
    names = list(dict.fromkeys(golden_tasks["tier"].tolist()))
    code_of = pd.Series(
        pd.Categorical(golden_tasks["tier"], categories=names).codes,
        index=golden_tasks["golden_id"].to_numpy(),
    )
    n_tiers = len(names)
    sizes = np.bincount(code_of.to_numpy(), minlength=n_tiers).tolist()
    # Each row's tier, then every figure of every tier by one pass over the rows.
    score_codes = code_of.reindex(scores["golden_id"]).to_numpy()
    pair_codes = code_of.reindex(pairs["golden_id"]).to_numpy()
    per_run = [exact_run_summaries(scores, label, score_codes, n_tiers) for label in labels]
    run_rows = list(zip(per_run[0], per_run[1], strict=True))
    paired_stats = summarize_pair_groups(pairs, pair_codes, n_tiers, settings.min_paired)
    scored = pairs["both_scored"].to_numpy(bool)
    columns = ["measured_a", "passed_a", "measured_b", "passed_b"]
    counts = pairs.loc[scored, columns].to_numpy("int64")
    metric_rows = [
        {m: _metric_figures(m, counts[rows], paired, settings) for m in TIER_METRICS}
        for rows, paired in zip(
            group_positions(pair_codes[scored], n_tiers), paired_stats, strict=True
        )
    ]
    across = {m: holm([row[m]["p_value"] for row in metric_rows]) for m in TIER_METRICS}
    tiers = []
    for k, name in enumerate(names):
        paired, runs = paired_stats[k], run_rows[k]
        metrics = []
        for metric in TIER_METRICS:
            f = metric_rows[k][metric]
            ready = paired.ready_for_decision
            ci = None if f["diff_ci"] is None else (float(f["diff_ci"][0]), float(f["diff_ci"][1]))
            small = not ready and whole_paired_n > 0
            metrics.append(
                TierMetric(
                    metric=metric,
                    items=sizes[k],
                    n_paired=paired.n,
                    fixed=f["fixed"],
                    regressed=f["regressed"],
                    missing=sizes[k] - paired.n,
                    baseline_rate=runs[0][_RATE_OF[metric]],
                    candidate_rate=runs[1][_RATE_OF[metric]],
                    diff=f["diff"],
                    diff_ci=ci,
                    diff_ci_method=f["diff_ci_method"],
                    p_value=f["p_value"],
                    p_value_holm_across_slices=across[metric][k],
                    ready=ready,
                    reading=_reading(ci, f["p_value"], f["approximate"], settings.alpha),
                    could_hide=f["passed"] / whole_paired_n if small else None,
                )
            )
        tiers.append(TierResult(name, sizes[k], runs, paired, tuple(metrics)))
    return TierFigures(tuple(tiers), reversal_metrics(overall, run_rows))
