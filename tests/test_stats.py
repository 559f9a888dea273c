"""Statistics of the paired comparison (buddy_eval.stats): known values, readiness, pairing."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval._errors import InputError
from buddy_eval.stats import (
    exact_upper_bound,
    mcnemar_exact,
    paired_diff_interval,
    required_paired_n,
    required_paired_n_exact,
    wilson_interval,
    zero_event_upper_bound,
)

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_release.txt"
Z95 = 1.959963984540054  # standard normal 97.5% quantile
Z80 = 0.8416212335729143  # standard normal 80% quantile

COMPARISON_COLUMNS = [
    "metric",
    "n_paired",
    "both_pass",
    "both_fail",
    "fixed",
    "regressed",
    "mixed",
    "missing",
    "baseline_rate",
    "baseline_ci_low",
    "baseline_ci_high",
    "candidate_rate",
    "candidate_ci_low",
    "candidate_ci_high",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_value",
    "p_value_holm",
    "ready_for_decision",
    "reading",
    "required_n",
    "diff_method",
    "p_value_method",
    "note",
]


def build(answer=(), refuse=(), thresholds="0 0 0") -> str:
    """Canonical input text from per-item (baseline, candidate) outcomes.

    Each outcome is True (passes every metric of the item's type), False
    (fails them; a REFUSE item answered is a violation) or None (no result).
    """
    golden = [f"THRESHOLDS {thresholds}"]
    results = ["RESULTS"]
    for i, pair in enumerate(answer):
        golden.append(f"a{i:03d} ANSWER L1 loop")
        for version, ok in zip(("OLD", "NEW"), pair, strict=True):
            if ok is not None:
                line = "L1 N a loop runs" if ok else "L2 N no idea"
                results.append(f"{version} a{i:03d} {line}")
    for i, pair in enumerate(refuse):
        golden.append(f"r{i:03d} REFUSE - -")
        for version, ok in zip(("OLD", "NEW"), pair, strict=True):
            if ok is not None:
                results.append(f"{version} r{i:03d} - {'Y no' if ok else 'N here it is'}")
    return "\n".join(golden + results) + "\n"


def table(both_pass=0, both_fail=0, fixed=0, regressed=0, missing=0):
    """ANSWER outcomes for a paired 2x2 table (missing: candidate has no result)."""
    return (
        [(True, True)] * both_pass
        + [(False, False)] * both_fail
        + [(False, True)] * fixed
        + [(True, False)] * regressed
        + [(True, None)] * missing
    )


# --------------------------------------------------------------------------
# Known values
# --------------------------------------------------------------------------


def test_mcnemar_one_against_nine_discordant_pairs():
    # Two-sided exact binomial test of 1 success in 10 at p = 1/2:
    # 2 * P(X <= 1) = 2 * (1 + 10) / 2**10 = 0.021484375.
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024, rel=1e-12)
    assert round(mcnemar_exact(1, 9), 4) == 0.0215
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)


def test_mcnemar_without_discordant_pairs_is_one():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == pytest.approx(1.0)


def test_wilson_eight_of_ten():
    # Textbook value: 8/10 gives 0.490 to 0.943 (e.g. Newcombe 1998, Brown, Cai & DasGupta 2001).
    low, high = wilson_interval(8, 10)
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)


@given(st.integers(0, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_matches_the_score_test_inversion(case):
    # Independent formula: the Wilson limits are the roots in p of
    # (x/n - p)**2 = z**2 * p * (1 - p) / n, a quadratic a p**2 + b p + c = 0.
    x, n = case
    if n == 0:
        assert all(math.isnan(v) for v in wilson_interval(x, n))
        return
    phat = x / n
    a = 1 + Z95**2 / n
    b = -(2 * phat + Z95**2 / n)
    c = phat**2
    root = math.sqrt(max(b * b - 4 * a * c, 0.0))
    expected = ((-b - root) / (2 * a), (-b + root) / (2 * a))
    low, high = wilson_interval(x, n)
    assert low == pytest.approx(expected[0], abs=1e-9)
    assert high == pytest.approx(expected[1], abs=1e-9)
    assert 0 <= low <= phat <= high <= 1


def test_wilson_ends_are_exact():
    assert wilson_interval(0, 7)[0] == 0.0
    assert wilson_interval(7, 7)[1] == 1.0


def test_zero_violation_bound_for_thirty_items():
    assert zero_event_upper_bound(30) == pytest.approx(0.0950, abs=5e-5)
    assert zero_event_upper_bound(30) == pytest.approx(1 - 0.05 ** (1 / 30), rel=1e-12)
    assert exact_upper_bound(0, 30) == zero_event_upper_bound(30)


@pytest.mark.parametrize(("events", "n"), [(1, 9), (3, 30), (10, 12)])
def test_exact_upper_bound_is_clopper_pearson(events, n):
    from scipy.stats import binom

    bound = exact_upper_bound(events, n)
    # The one-sided bound is the rate at which seeing <= events has probability 5%.
    assert binom.cdf(events, n, bound) == pytest.approx(0.05, abs=1e-9)
    assert exact_upper_bound(n, n) == 1.0
    assert math.isnan(exact_upper_bound(0, 0))


def test_newcombe_interval_against_a_published_example():
    # Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables"
    # (2017), ch. 8, complete response before/after consolidation therapy
    # (Cavo et al. 2012), table [[59, 6], [16, 80]]: Newcombe square-and-add
    # (hybrid score) interval, estimate -0.0621, 95% CI -0.1186 to -0.0046.
    # Here the first classification is the candidate: fixed = 6, regressed = 16.
    low, high = paired_diff_interval(both_pass=59, fixed=6, regressed=16, both_fail=80)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)


def newcombe_by_hand(a, b, c, d):
    """Newcombe (1998) method 10 written out from the paper's definitions.

    a both pass, b candidate-only pass (fixed), c baseline-only pass
    (regressed), d both fail; difference = candidate - baseline.
    """
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n

    def wilson(x):
        phat = x / n
        centre = (2 * x + Z95**2) / (2 * (n + Z95**2))
        half = Z95 * math.sqrt(Z95**2 + 4 * x * (1 - phat)) / (2 * (n + Z95**2))
        return centre - half, centre + half

    (l1, u1), (l2, u2) = wilson(a + b), wilson(a + c)
    product = (a + b) * (c + d) * (a + c) * (b + d)
    ad_bc = a * d - b * c
    if product == 0:
        phi = 0.0
    elif ad_bc > n / 2:
        phi = (ad_bc - n / 2) / math.sqrt(product)
    elif ad_bc >= 0:
        phi = 0.0
    else:
        phi = ad_bc / math.sqrt(product)
    dl, du = p1 - l1, u1 - p1
    el, eu = p2 - l2, u2 - p2
    low = (p1 - p2) - math.sqrt(max(dl**2 - 2 * phi * dl * eu + eu**2, 0))
    high = (p1 - p2) + math.sqrt(max(du**2 - 2 * phi * du * el + el**2, 0))
    return max(low, -1.0), min(high, 1.0)


@pytest.mark.parametrize(
    "cells", [(1, 1, 7, 12), (14, 5, 0, 22), (24, 5, 2, 0), (20, 0, 0, 0), (0, 0, 0, 20)]
)
def test_newcombe_interval_matches_hand_computation(cells):
    assert paired_diff_interval(*cells) == pytest.approx(newcombe_by_hand(*cells), abs=1e-9)


@settings(max_examples=200)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4).filter(lambda c: sum(c) > 0))
def test_newcombe_interval_properties(cells):
    a, b, c, d = cells
    low, high = paired_diff_interval(a, b, c, d)
    diff = (b - c) / (a + b + c + d)
    assert -1 <= low <= diff <= high <= 1
    assert (low, high) == pytest.approx(newcombe_by_hand(a, b, c, d), abs=1e-9)
    # Swapping the versions mirrors the interval.
    mirrored = paired_diff_interval(a, c, b, d)
    assert mirrored == pytest.approx((-high, -low), abs=1e-12)


def test_newcombe_interval_is_not_degenerate_without_discordance():
    low, high = paired_diff_interval(30, 0, 0, 0)
    assert low < 0 < high


def test_required_n_follows_connor_1987():
    def connor(psi, delta=0.05):
        return math.ceil(
            (Z95 * math.sqrt(psi) + Z80 * math.sqrt(psi - delta**2)) ** 2 / delta**2 - 1e-9
        )

    for psi in (0.05, 0.1, 0.2, 0.5, 1.0):
        assert required_paired_n(psi) == connor(psi)
    assert required_paired_n(0.20) == 626


def test_required_n_with_zero_discordance_uses_the_floor():
    # No discordant pair: discordance is floored at the drop itself (the least
    # discordance with which a 5-point drop is possible), a lower bound.
    assert required_paired_n(0.0) == required_paired_n(0.05) == 155
    assert required_paired_n(0.01) == 155
    assert required_paired_n(0.3) > required_paired_n(0.1)


@pytest.mark.parametrize(
    ("function", "args"),
    [
        (wilson_interval, (3, 2)),
        (wilson_interval, (-1, 2)),
        (wilson_interval, (1, 2, 1.5)),
        (mcnemar_exact, (1.5, 2)),
        (paired_diff_interval, (1, 2, True, 4)),
        (zero_event_upper_bound, (0,)),
        (required_paired_n, (1.2,)),
        (required_paired_n, (0.2, 0.0)),
        (exact_upper_bound, (4, 3)),
    ],
)
def test_bad_arguments_raise_input_error(function, args):
    with pytest.raises(InputError):
        function(*args)


# --------------------------------------------------------------------------
# The paired comparison of an evaluation
# --------------------------------------------------------------------------


def compare(ev, **settings):
    """The comparison table of ``ev``'s input under other settings."""
    return be.evaluate(ev.data, ev.baseline, ev.candidate, be.Settings(**settings)).comparison


def violation_upper_bound(ev, version=None):
    bounds = {b.version: b for b in ev.paired.violations}
    b = bounds[ev.candidate if version is None else version]
    return {
        "version": b.version,
        "violations": b.violations,
        "n": b.n,
        "upper_bound": b.upper_bound,
    }


def test_comparison_contract():
    ev = be.evaluate(build(table(10, 3, 5, 2), refuse=[(True, True)] * 4))
    comparison = compare(ev)
    assert list(comparison.columns) == COMPARISON_COLUMNS
    assert comparison["metric"].tolist() == ["correctness", "citation", "refusal"]
    dtypes = comparison.dtypes.astype(str).to_dict()
    assert dtypes["metric"] == "category"
    for column in ("n_paired", "both_pass", "both_fail", "fixed", "regressed", "mixed", "missing"):
        assert dtypes[column] == "int64"
    for column in COMPARISON_COLUMNS[8:19]:
        assert dtypes[column] == "Float64", column
    assert dtypes["ready_for_decision"] == "bool"
    assert dtypes["required_n"] == "Int64"
    for column in ("reading", "diff_method", "p_value_method", "note"):
        assert dtypes[column] == "str"
    pd.testing.assert_frame_equal(ev.comparison, comparison)


def test_counts_rates_and_difference():
    ev = be.evaluate(build(table(both_pass=10, both_fail=3, fixed=5, regressed=2)))
    row = compare(ev).set_index("metric").loc["correctness"]
    assert (row.n_paired, row.both_pass, row.both_fail, row.fixed, row.regressed) == (
        20,
        10,
        3,
        5,
        2,
    )
    assert row.baseline_rate == pytest.approx(12 / 20)
    assert row.candidate_rate == pytest.approx(15 / 20)
    assert row["diff"] == pytest.approx(3 / 20)
    assert (row.baseline_ci_low, row.baseline_ci_high) == pytest.approx(wilson_interval(12, 20))
    assert (row.candidate_ci_low, row.candidate_ci_high) == pytest.approx(wilson_interval(15, 20))
    assert (row.diff_ci_low, row.diff_ci_high) == pytest.approx(paired_diff_interval(10, 5, 2, 3))
    assert row.p_value == pytest.approx(mcnemar_exact(5, 2))
    assert row.required_n == required_paired_n_exact(7 / 20)


def test_readiness_below_the_threshold():
    ev = be.evaluate(build(table(both_pass=10, both_fail=3, fixed=5, regressed=1)))  # 19 paired
    row = compare(ev).set_index("metric").loc["correctness"]
    assert row.n_paired == 19
    assert not row.ready_for_decision
    assert pd.isna(row.p_value)
    assert pd.isna(row.diff_ci_low) and pd.isna(row.diff_ci_high)
    assert row["diff"] == pytest.approx(4 / 19)  # the point estimate is still shown
    assert not pd.isna(row.required_n)
    assert "19 paired items, fewer than 20" in row.note
    assert "no p-value" in row.note


def test_readiness_at_the_threshold():
    ev = be.evaluate(build(table(both_pass=10, both_fail=3, fixed=5, regressed=2)))  # 20 paired
    row = compare(ev).set_index("metric").loc["correctness"]
    assert row.n_paired == 20
    assert row.ready_for_decision
    assert not pd.isna(row.p_value)
    assert row.diff_ci_low < row["diff"] < row.diff_ci_high
    assert pd.isna(row.note)


def test_readiness_threshold_is_configurable():
    ev = be.evaluate(build(table(both_pass=4, fixed=1)))
    assert not compare(ev)["ready_for_decision"].iloc[0]
    assert compare(ev, min_paired=5)["ready_for_decision"].iloc[0]
    with pytest.raises(InputError):
        compare(ev, min_paired=0)


def test_missing_items_are_counted_and_listed_not_paired():
    answer = table(both_pass=18, fixed=1, regressed=1) + [(None, True), (True, None), (None, None)]
    ev = be.evaluate(build(answer, refuse=[(True, True), (True, None)]))
    comparison = compare(ev).set_index("metric")
    correctness = comparison.loc["correctness"]
    assert correctness.n_paired == 20
    assert correctness.missing == 3
    assert correctness.ready_for_decision
    refusal = comparison.loc["refusal"]
    assert (refusal.n_paired, refusal.missing) == (1, 1)
    # The missing items are not in the 2x2 table and do not move the difference.
    assert correctness["diff"] == 0
    changes = be.item_changes(ev)
    missing = changes[(changes["metric"] == "correctness") & (changes["change"] == "missing")]
    assert missing["item_id"].tolist() == ["a020", "a021", "a022"]
    assert changes[changes["change"] == "fixed"]["item_id"].tolist() == ["a018", "a018"]
    refusal_changes = changes[(changes["metric"] == "refusal") & (changes["change"] != "both pass")]
    assert refusal_changes["item_id"].tolist() == ["r001"]
    # The version rates stay the gate's (missing counts as failed).
    assert correctness.candidate_rate == pytest.approx(20 / 23)
    assert correctness.baseline_rate == pytest.approx(20 / 23)


def test_paired_outcomes_table():
    ev = be.evaluate(build([(True, None), (False, True)], refuse=[(True, False)]))
    out = be.item_changes(ev)
    assert list(out.columns) == ["metric", "item_id", "baseline_pass", "candidate_pass", "change"]
    assert out["change"].tolist() == ["missing", "fixed", "missing", "fixed", "regressed"]
    assert pd.isna(out["candidate_pass"].iloc[0])
    assert out["metric"].tolist() == ["correctness"] * 2 + ["citation"] * 2 + ["refusal"]


def test_unmeasured_metric_says_why():
    ev = be.evaluate(build(answer=table(both_pass=3)))
    refusal = compare(ev).set_index("metric").loc["refusal"]
    assert refusal.n_paired == 0 and refusal.missing == 0
    assert not refusal.ready_for_decision
    assert pd.isna(refusal.baseline_rate) and pd.isna(refusal.candidate_ci_high)
    assert pd.isna(refusal["diff"]) and pd.isna(refusal.required_n)
    assert refusal.note.startswith("not measured")


def test_compare_does_not_mutate_the_evaluation():
    ev = be.evaluate(build(table(both_pass=5, fixed=2, missing=1)))
    items, metrics = ev.items.copy(), ev.metrics.copy()
    compare(ev)
    be.item_changes(ev)
    violation_upper_bound(ev)
    pd.testing.assert_frame_equal(ev.items, items)
    pd.testing.assert_frame_equal(ev.metrics, metrics)


def test_violation_bound_on_an_evaluation():
    ev = be.evaluate(build(table(both_pass=1), refuse=[(True, True)] * 30))
    bound = violation_upper_bound(ev)
    assert (bound["version"], bound["violations"], bound["n"]) == ("NEW", 0, 30)
    assert bound["upper_bound"] == pytest.approx(0.0950, abs=5e-5)
    # Missing REFUSE results are neither violations nor evidence.
    ev = be.evaluate(build(table(both_pass=1), refuse=[(True, True)] * 29 + [(True, None)]))
    assert violation_upper_bound(ev)["n"] == 29
    ev = be.evaluate(build(table(both_pass=1), refuse=[(True, False)] + [(True, True)] * 9))
    bound = violation_upper_bound(ev)
    assert bound["violations"] == 1
    assert bound["upper_bound"] == pytest.approx(exact_upper_bound(1, 10))
    assert violation_upper_bound(ev, "OLD")["violations"] == 0


def test_sample_release_comparison():
    ev = be.evaluate(SAMPLE)
    comparison = compare(ev).set_index("metric")
    assert comparison["n_paired"].tolist() == [31, 31, 9]
    assert comparison["ready_for_decision"].tolist() == [True, True, False]
    totals = comparison[["both_pass", "both_fail", "fixed", "regressed"]].sum(axis=1)
    assert (totals == comparison["n_paired"]).all()


@pytest.mark.parametrize(
    "module",
    ["checks", "power", "proportions", "ranks", "interpretation", "repeated", "effective"],
)
def test_docstring_examples(module):
    import doctest
    import importlib

    assert doctest.testmod(importlib.import_module(f"buddy_eval.stats._{module}")).failed == 0
