"""Compare run A with run B over the golden tasks.

Pairs are golden tasks with a record in both runs. A pair enters the paired
statistics only when both tasks have a score (at least one measured check);
pairs where either side has no score are listed apart, never counted as 0.
Deltas are B minus A, computed exactly from the integer counts.

Below :data:`buddy_eval.stats.MIN_PAIRED` scored pairs (the readiness rule
the release gate uses too) the comparison is not ready for a decision and no
significance figure is computed at all. From there on: a two-sided Wilcoxon signed-rank test on the
per-task score deltas (``scipy.stats.wilcoxon`` with its defaults, so zero
deltas are dropped; when every delta is zero there is no difference to test
and the p-value is 1.0) and the exact McNemar test on ``all_pass`` of the shared paired core
(:meth:`buddy_eval.stats.PairedTable.mcnemar`). scipy is imported only then.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._errors import InputError
from .._paired_settings import Settings
from ..formatting import MAX_LISTED_IDS
from ..stats import MIN_PAIRED, signed_rank_test
from ._checks import evaluate_checks
from ._loading import load_golden, load_run
from ._paired_summary import PairedSummary, summarize_pairs
from ._record_rules import GoldenSet, RunRecords, check_labels, describe
from ._scoring import _exact_run_summary, _summary_frame, count_unknowns, score_tasks
from ._tiers import TierFigures, reversal_warnings, tier_figures

__all__ = [
    "CHANGES",
    "ComparisonResults",
    "PairedSummary",
    "pair_tasks",
    "summarize_pairs",
    "wilcoxon_p_value",
]

CHANGES = ("win", "tie", "loss")
_PAIR_COLUMNS = [
    "golden_id",
    "task_id_a",
    "task_id_b",
    "passed_a",
    "measured_a",
    "passed_b",
    "measured_b",
    "score_a",
    "score_b",
    "both_scored",
    "delta",
    "change",
    "all_pass_a",
    "all_pass_b",
    "fully_measured_a",
    "fully_measured_b",
]


def pair_tasks(
    scores: pd.DataFrame, label_a: str, label_b: str, golden_ids: list[str] | None = None
) -> pd.DataFrame:
    """Pair the per-task scores of two runs over golden tasks present in both.

    Parameters
    ----------
    scores : pandas.DataFrame
        Output of :func:`buddy_eval.tasks._scoring.score_tasks` holding both runs.
    label_a, label_b : str
        The runs compared; deltas are B minus A.
    golden_ids : list of str, optional
        Golden order for the rows. Default: order of run A's records.

    Returns
    -------
    pandas.DataFrame
        One row per golden task with a record in both runs:

        - ``golden_id`` (str), ``task_id_a``, ``task_id_b`` (str).
        - ``passed_a``, ``measured_a``, ``passed_b``, ``measured_b`` (int64).
        - ``score_a``, ``score_b`` (Float64): NA when that side has no score.
        - ``both_scored`` (bool): both sides have a score.
        - ``delta`` (Float64): score_b - score_a, from the exact fractions;
          NA unless both_scored.
        - ``change`` (category ``win``/``tie``/``loss``): B higher, equal,
          lower; NA unless both_scored.
        - ``all_pass_a``, ``all_pass_b`` (boolean): NA when unscored.
        - ``fully_measured_a``, ``fully_measured_b`` (bool).

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> pairs = tasks.pair_tasks(cmp.scores, "tutor-v1", "tutor-v2")
    >>> pairs.loc[pairs["change"] != "tie", ["golden_id", "score_a", "score_b", "change"]]
       golden_id   score_a   score_b change
    0      jv-01      0.75       1.0    win
    7      jv-08  0.666667       1.0    win
    11     jv-12       1.0  0.666667   loss
    17     jv-18       1.0  0.666667   loss
    21     jv-22  0.666667       1.0    win
    22     jv-23       1.0       0.5   loss
    25     jv-31      <NA>       1.0    NaN
    """
    cols = ["golden_id", "task_id", "passed", "measured", "score", "all_pass", "fully_measured"]
    a, b = (scores.loc[scores["run"] == label, cols] for label in (label_a, label_b))
    pairs = a.merge(b, on="golden_id", how="inner", suffixes=("_a", "_b"), validate="one_to_one")
    if golden_ids is not None:
        order = pd.Index(golden_ids).get_indexer(pd.Index(pairs["golden_id"]))
        pairs = pairs.iloc[np.argsort(order, kind="stable")].reset_index(drop=True)
    pa, ma, pb, mb = pairs[["passed_a", "measured_a", "passed_b", "measured_b"]].to_numpy("int64").T
    both = (ma > 0) & (mb > 0)
    num = pb * ma - pa * mb
    delta = (pd.Series(num) / (ma * mb)).where(both).astype("Float64").array
    # The sign of B minus A picks the change: 1 win, 0 tie, -1 loss.
    codes = np.where(both, 1 - np.sign(num), -1)
    change = pd.Categorical.from_codes(codes, categories=pd.Index(CHANGES))
    return pairs.assign(both_scored=both, delta=delta, change=change)[_PAIR_COLUMNS]


def wilcoxon_p_value(deltas) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired deltas (the shared core's test).

    :func:`buddy_eval.stats.signed_rank_test`: zero deltas dropped
    (``zero_method="wilcox"``), average ranks for ties, the exact sign-flip
    distribution up to :data:`~buddy_eval.stats.SIGNED_RANK_EXACT_MAX`
    non-zero deltas, a tie-corrected normal approximation above; 1.0 when
    every delta is zero.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> tasks.wilcoxon_p_value([0.5, 0.25, 1, -0.5, 0, 0.25])
    0.375
    >>> tasks.wilcoxon_p_value([0, 0, 0])
    1.0
    """
    return signed_rank_test(list(deltas)).p_value


@dataclass(frozen=True, eq=False)
class ComparisonResults:
    """Run A and run B scored against the golden tasks: every computed figure.

    :class:`buddy_eval.tasks.TaskComparison` adds its views to it; build one
    with :func:`buddy_eval.tasks.compare_runs`.

    Attributes
    ----------
    golden : GoldenSet
    runs : tuple of RunRecords
        Run A and run B.
    records : pandas.DataFrame
        Both runs' records (columns of :class:`RunRecords`, ``run`` a category
        of the two labels) plus ``matched`` (bool): the golden_id is known.
    outcomes : pandas.DataFrame
        Every check of every matched record
        (:func:`~buddy_eval.tasks._checks.evaluate_checks`).
    scores : pandas.DataFrame
        Per (run, task) scores (:func:`~buddy_eval.tasks._scoring.score_tasks`).
    summary : pandas.DataFrame
        Per-run statistics (:func:`~buddy_eval.tasks._scoring.summarize_runs`).
    unknowns : pandas.DataFrame
        Checks and unknowns per (run, check type)
        (:func:`~buddy_eval.tasks._scoring.count_unknowns`).
    pairs : pandas.DataFrame
        Golden tasks in both runs (:func:`pair_tasks`).
    paired : PairedSummary
    unpaired : pandas.DataFrame
        Golden tasks with a record in one run only: ``run`` (category),
        ``golden_id`` (str), ``task_id`` (str); golden order.
    missing : pandas.DataFrame
        Golden tasks with a record in neither run: ``golden_id`` (str),
        ``tier`` (str); golden order.
    unmatched : pandas.DataFrame
        Records excluded because their golden_id is not a golden task: ``run``
        (category), ``task_id``, ``golden_id`` (str), ``position`` (int64).
    warnings : tuple of str
    run_summaries : tuple of dict
        Run A's and run B's row of ``summary`` with the two rates exact
        (Fractions, None when no task is scored): the figures every view rounds.
    tiers : TierFigures
        Every figure per golden tier (:func:`~buddy_eval.tasks._tiers.tier_figures`).
    settings : Settings
        The settings the comparison was made with (``min_paired``,
        ``confidence``, ``alpha``).
    """

    golden: GoldenSet
    runs: tuple[RunRecords, RunRecords]
    records: pd.DataFrame
    outcomes: pd.DataFrame
    scores: pd.DataFrame
    summary: pd.DataFrame
    unknowns: pd.DataFrame
    pairs: pd.DataFrame
    paired: PairedSummary
    unpaired: pd.DataFrame
    missing: pd.DataFrame
    unmatched: pd.DataFrame
    warnings: tuple[str, ...]
    run_summaries: tuple[dict, ...] = field(default=(), repr=False)
    tiers: TierFigures = field(default_factory=lambda: TierFigures(()), repr=False)
    settings: Settings = field(default_factory=Settings, repr=False)

    @property
    def baseline(self) -> str:
        """The gate's name for run A's label."""
        return self.runs[0].label

    @property
    def candidate(self) -> str:
        """The gate's name for run B's label."""
        return self.runs[1].label

    @property
    def labels(self) -> tuple[str, str]:
        """The labels of run A and run B."""
        return self.baseline, self.candidate

    @classmethod
    def from_runs(
        cls,
        golden,
        run_a,
        run_b,
        label_a: str = "A",
        label_b: str = "B",
        *,
        min_n: int | None = None,
        settings: Settings | None = None,
    ):
        """Score two runs' records against golden tasks and compare them (see
        :func:`buddy_eval.tasks.compare_runs`); an instance of ``cls``."""
        check_labels([label_a, label_b])
        min_n = _minimum_pairs(min_n, settings)
        settings = Settings(min_paired=min_n) if settings is None else settings
        golden = load_golden(golden)
        a, b = load_run(run_a, label_a), load_run(run_b, label_b)
        _check_disjoint(a, b)
        labels = [label_a, label_b]
        records = pd.concat([a.records, b.records], ignore_index=True)
        records["run"] = pd.Categorical(records["run"].astype(str), categories=labels)
        known = records["golden_id"].isin(golden.tasks["golden_id"])
        records["matched"] = known.to_numpy(dtype=bool)

        outcomes = evaluate_checks(golden.checks, records[records["matched"]])
        scores = score_tasks(outcomes)  # its run column keeps the records' categories
        pairs = pair_tasks(scores, label_a, label_b, golden.ids)

        paired = scores["golden_id"].isin(pairs["golden_id"])
        unpaired = scores.loc[~paired, ["run", "golden_id", "task_id"]]
        order = pd.Index(golden.ids).get_indexer(unpaired["golden_id"])
        unpaired = unpaired.iloc[np.lexsort((order, unpaired["run"].cat.codes))]
        anywhere = golden.tasks["golden_id"].isin(scores["golden_id"])
        missing = golden.tasks.loc[~anywhere, ["golden_id", "tier"]]
        unmatched = records.loc[~records["matched"], ["run", "task_id", "golden_id", "position"]]

        summaries = [_exact_run_summary(scores, label) for label in labels]
        paired_summary = summarize_pairs(pairs, min_n)
        overall = (summaries[0], summaries[1])
        tiers = tier_figures(
            golden.tasks,
            scores,
            pairs,
            (label_a, label_b),
            overall,
            paired_summary.n,
            settings,
        )
        warnings = _unmatched_warnings(unmatched, (a, b)) + reversal_warnings(tiers, overall)
        return cls(
            golden=golden,
            runs=(a, b),
            records=records,
            outcomes=outcomes,
            scores=scores,
            summary=_summary_frame(labels, summaries),
            unknowns=count_unknowns(outcomes, labels),
            pairs=pairs,
            paired=paired_summary,
            unpaired=unpaired.reset_index(drop=True),
            missing=missing.reset_index(drop=True),
            unmatched=unmatched.reset_index(drop=True),
            warnings=warnings,
            run_summaries=tuple(summaries),
            tiers=tiers,
            settings=settings,
        )


def _check_disjoint(a: RunRecords, b: RunRecords) -> None:
    first = dict(zip(a.records["task_id"], a.records["position"], strict=True))
    shared = b.records[b.records["task_id"].isin(first)]
    if len(shared):
        row = shared.iloc[0]
        raise InputError(
            f"record #{row['position']} (task_id {describe(row['task_id'])}): duplicate task_id, "
            f"also in run {describe(a.label)} ({a.source}, record #{first[row['task_id']]}); "
            "a task record belongs to one run",
            source=b.source,
        )


def _unmatched_warnings(unmatched: pd.DataFrame, runs: tuple[RunRecords, RunRecords]):
    warnings = []
    for run in runs:
        rows = unmatched[unmatched["run"] == run.label]
        warnings += [
            f"{run.source}: record #{row.position} (task_id {describe(row.task_id)}): "
            f"golden_id {describe(row.golden_id)} is not in the golden set; the record is excluded"
            for row in rows.head(MAX_LISTED_IDS).itertuples()
        ]
        if len(rows) > MAX_LISTED_IDS:
            warnings.append(
                f"{run.source}: {len(rows) - MAX_LISTED_IDS} more records with a golden_id "
                "not in the golden set are excluded"
            )
    return tuple(warnings)


def _minimum_pairs(min_n, settings) -> int:
    if settings is None:
        return MIN_PAIRED if min_n is None else min_n
    if not isinstance(settings, Settings):
        raise InputError(f"settings must be a Settings, got {type(settings).__name__}")
    if min_n is not None:
        raise InputError("give min_n or settings (with its min_paired), not both")
    return settings.min_paired
