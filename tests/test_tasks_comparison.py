"""Comparing run A with run B: pairs, unpaired, missing, unmatched, readiness, tests."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pandas as pd
import pytest
from scipy import stats

from buddy_eval._errors import InputError
from buddy_eval.stats import MIN_PAIRED as MIN_PAIRED_N
from buddy_eval.stats import PairedTable, signed_rank_test
from buddy_eval.tasks import compare_runs, wilcoxon_p_value
from tests.test_tasks_support import check, paired_runs, record, task


def mcnemar_p_value(a_only, b_only):
    return PairedTable(both_pass=0, fixed=b_only, regressed=a_only, both_fail=0).mcnemar()


GOLDEN = [task(f"g{i}", check("contains", "ok"), check("max_tokens", 100)) for i in range(1, 6)]
RUN_A = [
    record("a1", "g1", "ok"),
    record("a2", "g2", "ok", tokens=500),
    record("a3", "g3", "no"),
    record("a9", "retired-7", "ok"),
]
RUN_B = [record("b4", "g4", "ok"), record("b3", "g3", "ok"), record("b2", "g2", "ok")]


def test_pairs_unpaired_missing_and_unmatched():
    cmp = compare_runs(GOLDEN, RUN_A, RUN_B, "v1", "v2")
    assert cmp.labels == ("v1", "v2")
    pairs = cmp.pairs
    assert pairs[["golden_id", "task_id_a", "task_id_b"]].values.tolist() == [
        ["g2", "a2", "b2"],
        ["g3", "a3", "b3"],
    ]
    assert pairs["score_a"].tolist() == [0.5, 0.5]
    assert pairs["score_b"].tolist() == [1.0, 1.0]
    assert pairs["delta"].tolist() == [0.5, 0.5]
    assert pairs["change"].astype(str).tolist() == ["win", "win"]
    assert cmp.unpaired.to_dict("list") == {
        "run": ["v1", "v2"],
        "golden_id": ["g1", "g4"],
        "task_id": ["a1", "b4"],
    }
    assert cmp.missing.to_dict("list") == {"golden_id": ["g5"], "tier": ["basic"]}
    assert cmp.unmatched.to_dict("list") == {
        "run": ["v1"],
        "task_id": ["a9"],
        "golden_id": ["retired-7"],
        "position": [4],
    }
    assert cmp.warnings == (
        "<run records>: record #4 (task_id 'a9'): golden_id 'retired-7' is not in the golden "
        "set; the record is excluded",
    )
    assert cmp.records["matched"].tolist() == [True, True, True, False, True, True, True]
    assert cmp.summary["n"].tolist() == [3, 3]  # the unmatched record is not a task
    p = cmp.paired
    assert (p.n, p.present_n, p.wins, p.ties, p.losses) == (2, 2, 2, 0, 0)
    assert p.mean_delta == 0.5
    assert (p.ready_for_decision, p.p_value, p.mcnemar_p_value) == (False, None, None)


def test_inputs_are_not_modified():
    golden, a, b = copy.deepcopy((GOLDEN, RUN_A, RUN_B))
    compare_runs(golden, a, b)
    assert (golden, a, b) == (GOLDEN, RUN_A, RUN_B)


def test_pairs_without_a_score_on_one_side_are_left_out_and_listed():
    golden = [task("g1", check("max_tokens", 10)), task("g2", check("contains", "x"))]
    a = [record("a1", "g1", tokens=None), record("a2", "g2", "x")]
    b = [record("b1", "g1", tokens=5), record("b2", "g2", "y")]
    cmp = compare_runs(golden, a, b)
    assert cmp.pairs["both_scored"].tolist() == [False, True]
    assert cmp.pairs["delta"].isna().tolist() == [True, False]
    assert cmp.pairs["change"].isna().tolist() == [True, False]
    p = cmp.paired
    assert (p.n, p.present_n, p.unscored_ids, p.losses) == (1, 2, ("g1",), 1)
    assert p.mean_delta == -1
    assert cmp.summary[["n", "scored_n", "unscored_n"]].values.tolist() == [[2, 1, 1], [2, 2, 0]]


def test_equal_exact_deltas_are_equal_floats():
    # 3/5 - 2/5 and 1/5 - 0 are both exactly 1/5; float subtraction would differ,
    # and the Wilcoxon ranks of tied absolute deltas with it.
    golden, a, b = paired_runs([(2, 3), (0, 1)], checks_per_task=5)
    deltas = compare_runs(golden, a, b).pairs["delta"].tolist()
    assert deltas[0] == deltas[1] == 1 / 5
    assert 3 / 5 - 2 / 5 != 1 / 5


# Per-task passed counts out of 4 checks: deltas of several sizes, signs and ties.
PAIRS_20 = [
    (1, 3),
    (2, 4),
    (0, 4),
    (3, 3),
    (2, 3),
    (4, 2),
    (1, 1),
    (0, 2),
    (3, 4),
    (2, 2),
    (1, 4),
    (4, 4),
    (0, 1),
    (3, 1),
    (2, 4),
    (1, 2),
    (0, 0),
    (4, 3),
    (1, 3),
    (2, 3),
]


def test_nineteen_pairs_are_not_ready_and_compute_no_significance(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("no significance figure may be computed below 20 pairs")

    monkeypatch.setattr(stats, "wilcoxon", forbidden)
    monkeypatch.setattr(stats, "binomtest", forbidden)
    cmp = compare_runs(*paired_runs(PAIRS_20[:19]))
    p = cmp.paired
    assert (p.n, p.ready_for_decision, p.p_value, p.mcnemar_p_value) == (19, False, None, None)
    out = cmp.to_dict()["paired"]
    assert (out["n"], out["ready_for_decision"], out["p_value"]) == (19, False, None)
    assert "p_value" in out and out["mcnemar_p_value"] is None


def test_twenty_pairs_are_ready_with_scipys_p_values():
    cmp = compare_runs(*paired_runs(PAIRS_20))
    p = cmp.paired
    assert MIN_PAIRED_N == 20 and p.n == 20 and p.ready_for_decision
    deltas = [(b - a) / 4 for a, b in PAIRS_20]
    assert cmp.pairs["delta"].tolist() == deltas
    exact = signed_rank_test([Fraction(b - a, 4) for a, b in PAIRS_20])
    assert p.p_value == exact.p_value
    assert p.p_value_method == exact.method == "exact (sign-flip enumeration)"
    # scipy's normal approximation (ties present) is smaller than the exact value
    assert stats.wilcoxon(deltas).pvalue != p.p_value
    a_only = sum(a == 4 and b != 4 for a, b in PAIRS_20)
    b_only = sum(b == 4 and a != 4 for a, b in PAIRS_20)
    assert (p.all_pass_a_only, p.all_pass_b_only) == (a_only, b_only) == (2, 5)
    assert p.mcnemar_p_value == stats.binomtest(b_only, a_only + b_only, 0.5).pvalue
    assert (p.wins, p.ties, p.losses) == (12, 5, 3)
    assert p.mean_delta == Fraction(sum(b - a for a, b in PAIRS_20), 80) == Fraction(17, 80)
    assert cmp.to_dict()["paired"]["p_value"] == p.p_value


def test_all_zero_deltas_give_p_value_one():
    cmp = compare_runs(*paired_runs([(2, 2)] * 20))
    p = cmp.paired
    assert (p.ready_for_decision, p.p_value, p.mcnemar_p_value, p.ties) == (True, 1.0, 1.0, 20)
    assert p.mean_delta == 0


def test_p_value_helpers():
    assert wilcoxon_p_value([0.0, 0.0]) == 1.0
    assert (
        wilcoxon_p_value([0.5, -0.25, 0.25, 0.75, 0.5])
        == stats.wilcoxon([0.5, -0.25, 0.25, 0.75, 0.5]).pvalue
    )
    assert mcnemar_p_value(0, 0) == 1.0
    assert mcnemar_p_value(1, 7) == stats.binomtest(7, 8, 0.5).pvalue


def test_min_n_can_be_lowered_for_exploration():
    assert compare_runs(*paired_runs(PAIRS_20[:5]), min_n=5).paired.ready_for_decision


def test_a_task_id_in_both_runs_is_an_input_error():
    with pytest.raises(InputError) as info:
        compare_runs(GOLDEN, [record("t1", "g1")], [record("t2", "g2"), record("t1", "g1")])
    assert str(info.value) == (
        "<run records>: record #2 (task_id 't1'): duplicate task_id, also in run 'A' "
        "(<run records>, record #1); a task record belongs to one run"
    )


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (("x", "x"), "the two run labels must differ, got 'x' twice"),
        (("", "B"), "a run label must be a non-empty string, got ''"),
    ],
)
def test_labels_must_be_distinct_and_non_empty(labels, message):
    with pytest.raises(InputError) as info:
        compare_runs(GOLDEN, RUN_A, RUN_B, *labels)
    assert str(info.value) == message


def test_json_object_fields():
    out = json.loads(compare_runs(GOLDEN, RUN_A, RUN_B, "v1", "v2").to_json())
    assert set(out) >= {"runs", "paired", "unpaired", "missing", "warnings"}
    assert list(out["runs"]) == ["v1", "v2"]
    v1 = out["runs"]["v1"]
    assert {k: v1[k] for k in ("n", "mean_score", "all_pass_n", "fully_measured_n")} == {
        "n": 3,
        "mean_score": 2 / 3,
        "all_pass_n": 1,
        "fully_measured_n": 3,
    }
    assert v1["unknown_checks"] == 0
    assert v1["unknown_checks_by_type"] == {
        "contains": 0,
        "not_contains": 0,
        "status_completed": 0,
        "max_tokens": 0,
        "max_cost_usd": 0,
    }
    assert (v1["records"], v1["excluded_records"], v1["models"]) == (4, 1, ["m1"])
    paired = out["paired"]
    assert {k: paired[k] for k in ("n", "mean_delta", "ready_for_decision", "p_value")} == {
        "n": 2,
        "mean_delta": 0.5,
        "ready_for_decision": False,
        "p_value": None,
    }
    assert out["unpaired"] == {"v1": ["g1"], "v2": ["g4"]}
    assert out["missing"] == ["g5"]
    assert out["warnings"] == list(compare_runs(GOLDEN, RUN_A, RUN_B).warnings)


def test_unknown_checks_are_reported_per_run_and_type():
    golden = [task("g1", check("max_tokens", 5), check("max_cost_usd", 1), check("contains", "a"))]
    a = [record("a1", "g1", "a", tokens=None, usd=None)]
    b = [record("b1", "g1", "a", unpriced=4)]
    cmp = compare_runs(golden, a, b)
    table = cmp.unknowns[cmp.unknowns["unknown"] > 0]
    assert table[["run", "check_type", "unknown"]].astype(str).values.tolist() == [
        ["A", "max_tokens", "1"],
        ["A", "max_cost_usd", "1"],
        ["B", "max_cost_usd", "1"],
    ]
    out = cmp.to_dict()["runs"]
    assert (out["A"]["unknown_checks"], out["B"]["unknown_checks"]) == (2, 1)
    assert out["A"]["fully_measured_n"] == out["B"]["fully_measured_n"] == 0
    assert cmp.summary["mean_score"].tolist() == [1.0, 0.5]


def test_frames_have_documented_dtypes():
    cmp = compare_runs(GOLDEN, RUN_A, RUN_B)
    assert cmp.records["run"].dtype == pd.CategoricalDtype(["A", "B"])
    assert str(cmp.pairs["delta"].dtype) == "Float64"
    assert cmp.pairs["change"].dtype == pd.CategoricalDtype(["win", "tie", "loss"])
    assert cmp.scores["run"].dtype == pd.CategoricalDtype(["A", "B"])


def test_gate_names_and_settings_are_accepted():
    from buddy_eval import InputError, Settings

    golden, a, b = paired_runs([(1, 2)] * 25)
    by_settings = compare_runs(golden, a, b, "old", "new", settings=Settings(min_paired=30))
    assert (by_settings.baseline, by_settings.candidate) == ("old", "new") == by_settings.labels
    assert by_settings.paired.min_paired == by_settings.paired.min_n == 30
    assert by_settings.paired.ready is by_settings.paired.ready_for_decision is False
    by_min_n = compare_runs(golden, a, b, min_n=25)
    assert by_min_n.paired.ready and by_min_n.paired.min_paired == 25
    with pytest.raises(InputError, match="give min_n or settings"):
        compare_runs(golden, a, b, min_n=25, settings=Settings())
    with pytest.raises(InputError, match="settings must be a Settings, got dict"):
        compare_runs(golden, a, b, settings={"min_paired": 25})
