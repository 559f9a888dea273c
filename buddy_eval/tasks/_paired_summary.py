"""The paired statistics of two runs over the golden tasks scored in both.

:func:`summarize_pairs` reads the pairs of
:func:`~buddy_eval.tasks._comparison.pair_tasks` (of the whole run, or of one
tier's tasks) and computes, on the shared paired core
(:mod:`buddy_eval.stats`), the figures of a :class:`PairedSummary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from ..stats import MIN_PAIRED, PairedTable, holm, is_ready, sign_test, signed_rank_test
from ._scoring import exact_mean

__all__ = ["PairedSummary", "group_positions", "summarize_pair_groups", "summarize_pairs"]


@dataclass(frozen=True)
class PairedSummary:
    """Paired statistics of B against A over golden tasks scored in both runs.

    Attributes
    ----------
    n : int
        Scored pairs: the n of every figure below and of the readiness rule.
    present_n : int
        Golden tasks with a record in both runs (scored or not).
    unscored_ids : tuple of str
        Golden tasks in both runs left out because a side has no score.
    mean_delta : Fraction or None
        Mean of B minus A per-task scores, exact; None when n is 0.
    wins, ties, losses : int
        Pairs where B scored higher than, the same as, lower than A.
    fully_measured_n : int
        Pairs fully measured in both runs (no unknown check on either side).
    all_pass_a_only, all_pass_b_only, all_pass_both, all_pass_neither : int
        The 2 x 2 table of ``all_pass``; the first two are McNemar's
        discordant pairs.
    ready_for_decision : bool
        Enough scored pairs (:func:`buddy_eval.stats.is_ready`).
    p_value, mcnemar_p_value : float or None
        Wilcoxon signed-rank and exact McNemar p-values; None when not ready.
    p_value_method : str or None
        How the signed-rank p-value was computed (exact sign-flip
        enumeration, or the tie-corrected normal approximation for many
        non-zero deltas); None when not ready.
    sign_test_p_value : float or None
        Exact two-sided sign test on wins against losses; None when not ready.
    p_value_holm, mcnemar_p_value_holm : float or None
        The two tests' p-values Holm-adjusted for being read together.
    min_n : int
        Scored pairs needed before the tests are computed (``min_paired``).

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> paired = cmp.paired
    >>> paired.n, paired.mean_delta, (paired.wins, paired.ties, paired.losses)
    (25, Fraction(-1, 100), (3, 19, 3))
    >>> paired.ready_for_decision, paired.p_value, paired.p_value_method
    (True, 0.75, 'exact (sign-flip enumeration)')
    >>> paired.all_pass
    PairedTable(both_pass=19, fixed=3, regressed=3, both_fail=0)
    """

    n: int
    present_n: int
    unscored_ids: tuple[str, ...]
    mean_delta: Fraction | None
    wins: int
    ties: int
    losses: int
    fully_measured_n: int
    all_pass_a_only: int
    all_pass_b_only: int
    all_pass_both: int
    all_pass_neither: int
    ready_for_decision: bool
    p_value: float | None
    mcnemar_p_value: float | None
    min_n: int = MIN_PAIRED
    p_value_method: str | None = None
    sign_test_p_value: float | None = None
    p_value_holm: float | None = None
    mcnemar_p_value_holm: float | None = None

    @property
    def ready(self) -> bool:
        """The gate's name for :attr:`ready_for_decision`."""
        return self.ready_for_decision

    @property
    def min_paired(self) -> int:
        """The gate's name for :attr:`min_n` (as in :class:`~buddy_eval.Settings`)."""
        return self.min_n

    @property
    def all_pass(self) -> PairedTable:
        """The ``all_pass`` 2x2 table in the paired core's terms (A baseline, B candidate)."""
        # Its cells in order: both pass, fixed (B only), regressed (A only), both fail.
        a_only, b_only = self.all_pass_a_only, self.all_pass_b_only
        return PairedTable(self.all_pass_both, b_only, a_only, self.all_pass_neither)


def summarize_pairs(pairs: pd.DataFrame, min_n: int = MIN_PAIRED) -> PairedSummary:
    """Paired statistics from :func:`pair_tasks`; tests only when ``n >= min_n``.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Output of :func:`pair_tasks`.
    min_n : int
        Scored pairs needed before the tests are computed (default 20).

    Returns
    -------
    PairedSummary

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> tasks.summarize_pairs(cmp.pairs) == cmp.paired
    True
    >>> stricter = tasks.summarize_pairs(cmp.pairs, min_n=30)
    >>> stricter.n, stricter.ready_for_decision, stricter.p_value
    (25, False, None)
    """
    (summary,) = summarize_pair_groups(pairs, np.zeros(len(pairs), dtype=np.int64), 1, min_n)
    return summary


def group_positions(codes: np.ndarray, n_groups: int) -> list[np.ndarray]:
    """Per group ``0 .. n_groups - 1``, the positions holding it, in order (one stable sort)."""
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(n_groups + 1))
    return [order[bounds[g] : bounds[g + 1]] for g in range(n_groups)]


def _group_sum(codes: np.ndarray, values: np.ndarray, n_groups: int) -> list[int]:
    out = np.zeros(n_groups, dtype=np.int64)
    np.add.at(out, codes, values.astype(np.int64))
    return out.tolist()


def summarize_pair_groups(
    pairs: pd.DataFrame, codes, n_groups: int, min_n: int = MIN_PAIRED
) -> list[PairedSummary]:
    """:func:`summarize_pairs` of each group of the pairs at once (the whole run is one group).

    Parameters
    ----------
    pairs : pandas.DataFrame
        Output of :func:`pair_tasks`.
    codes : array of int
        Per pair, its group, ``0 .. n_groups - 1``.
    n_groups : int
    min_n : int
        Scored pairs a group needs before its tests are computed.

    Returns
    -------
    list of PairedSummary
        One per group, in code order; every count by one pass over the pairs, the tests
        only for the groups with ``min_n`` scored pairs.
    """
    codes = np.asarray(codes, dtype=np.int64)
    scored = pairs["both_scored"].to_numpy(bool)
    pa, ma, pb, mb = pairs[["passed_a", "measured_a", "passed_b", "measured_b"]].to_numpy("int64").T
    dens, num = ma * mb, pb * ma - pa * mb
    a_pass, b_pass = (pairs[f"all_pass_{side}"].fillna(False).to_numpy(bool) for side in "ab")
    fully = pairs["fully_measured_a"].to_numpy(bool) & pairs["fully_measured_b"].to_numpy(bool)
    change = pairs["change"].cat.codes.to_numpy(np.int64)  # win 0, tie 1, loss 2
    sc = codes[scored]
    # Counted by 2 x A + B: neither, B only (fixed), A only (regressed), both.
    cells = np.bincount(sc * 4 + (2 * a_pass + b_pass)[scored], minlength=4 * n_groups)
    outcomes = np.bincount(sc * 3 + change[scored], minlength=3 * n_groups)
    present = np.bincount(codes, minlength=n_groups).tolist()
    fully_n = _group_sum(sc, fully[scored], n_groups)
    golden_ids = pairs["golden_id"].to_numpy(dtype=object)
    unscored_at = np.flatnonzero(~scored)
    unscored = group_positions(codes[unscored_at], n_groups)
    scored_at = np.flatnonzero(scored)
    out = []
    for g, rows in enumerate(group_positions(sc, n_groups)):
        at = scored_at[rows]
        neither, fixed, regressed, both = cells[4 * g : 4 * g + 4].tolist()
        wins, ties, losses = outcomes[3 * g : 3 * g + 3].tolist()
        ready = is_ready(len(at), min_n)
        test = mcnemar_p = None
        if ready:
            # exact: equal deltas tie
            deltas = [
                Fraction(a, b) for a, b in zip(num[at].tolist(), dens[at].tolist(), strict=True)
            ]
            test = signed_rank_test(deltas)
            mcnemar_p = PairedTable(both, fixed, regressed, neither).mcnemar()
        p_value = test.p_value if test else None
        p_value_holm, mcnemar_p_value_holm = holm([p_value, mcnemar_p])
        out.append(
            PairedSummary(
                n=len(at),
                present_n=present[g],
                unscored_ids=tuple(golden_ids[unscored_at[unscored[g]]].tolist()),
                mean_delta=exact_mean(num[at], dens[at]),
                wins=wins,
                ties=ties,
                losses=losses,
                fully_measured_n=fully_n[g],
                all_pass_a_only=regressed,
                all_pass_b_only=fixed,
                all_pass_both=both,
                all_pass_neither=neither,
                ready_for_decision=ready,
                p_value=p_value,
                mcnemar_p_value=mcnemar_p,
                min_n=min_n,
                p_value_method=test.method if test else None,
                sign_test_p_value=sign_test(wins, losses) if ready else None,
                p_value_holm=p_value_holm,
                mcnemar_p_value_holm=mcnemar_p_value_holm,
            )
        )
    return out
