"""Per-task scores and per-run statistics, against a plain-Python oracle."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buddy_eval.tasks import (
    count_unknowns,
    evaluate_checks,
    exact_mean,
    load_golden,
    load_run,
    score_tasks,
    summarize_runs,
)
from tests.test_tasks_support import check, record, task

# ---------------------------------------------------------------- the oracle


def oracle_outcome(chk: dict, rec: dict) -> str:
    """One check on one record, written straight from SPEC section 4."""
    kind, text = chk["type"], rec.get("result_text")
    if kind in ("contains", "not_contains"):
        if not text:
            return "fail"
        found = chk["value"] in text
        return "pass" if found == (kind == "contains") else "fail"
    if kind == "status_completed":
        return "pass" if rec["status"] == "completed" else "fail"
    if kind == "max_tokens":
        tokens = rec.get("total_tokens")
        if tokens is None:
            return "unknown"
        return "pass" if tokens <= chk["value"] else "fail"
    usd, unpriced = rec.get("usd_micros"), rec.get("unpriced_tokens")
    if usd is None or (unpriced or 0) > 0:
        return "unknown"
    return "pass" if Fraction(usd) <= Fraction(str(chk["value"])) * 1_000_000 else "fail"


def oracle_scores(golden: list[dict], records: list[dict]) -> list[tuple]:
    """(golden_id, task_id, passed, failed, unknown, score, all_pass, fully_measured)."""
    by_id = {t["id"]: t for t in golden}
    rows = []
    for rec in records:
        if rec["golden_id"] not in by_id:
            continue
        results = [oracle_outcome(c, rec) for c in by_id[rec["golden_id"]]["checks"]]
        passed, failed, unknown = (results.count(o) for o in ("pass", "fail", "unknown"))
        measured = passed + failed
        score = Fraction(passed, measured) if measured else None
        all_pass = (failed == 0) if measured else None
        rows.append(
            (
                rec["golden_id"],
                rec["task_id"],
                passed,
                failed,
                unknown,
                score,
                all_pass,
                unknown == 0,
            )
        )
    return rows


def vectorised_scores(golden: list[dict], records: list[dict]) -> list[tuple]:
    table = score_tasks(evaluate_checks(load_golden(golden).checks, load_run(records, "A").records))
    rows = []
    for r in table.itertuples():
        score = None if pd.isna(r.score) else Fraction(int(r.passed), int(r.measured))
        assert (score is None) == (not r.scored)
        if score is not None:
            assert r.score == float(score)
        all_pass = None if pd.isna(r.all_pass) else bool(r.all_pass)
        rows.append(
            (
                r.golden_id,
                r.task_id,
                r.passed,
                r.failed,
                r.unknown,
                score,
                all_pass,
                bool(r.fully_measured),
            )
        )
    return rows


# ------------------------------------------------------------ the property

words = st.sampled_from(["", "a", "ab", "b", "TODO", "x", "é", "a b", "42"])
texts = st.one_of(st.none(), st.lists(words, max_size=4).map(" ".join), words)
counts = st.one_of(st.none(), st.integers(0, 1500))
checks = st.one_of(
    st.builds(check, st.sampled_from(["contains", "not_contains"]), words.filter(bool)),
    st.just(check("status_completed")),
    st.builds(check, st.just("max_tokens"), st.integers(0, 1500)),
    st.builds(
        check,
        st.just("max_cost_usd"),
        st.decimals(0, Decimal("0.002"), places=7, allow_nan=False, allow_infinity=False),
    ),
)


@st.composite
def golden_and_records(draw):
    n_tasks = draw(st.integers(1, 6))
    golden = [
        task(f"g{i}", *draw(st.lists(checks, min_size=1, max_size=5))) for i in range(n_tasks)
    ]
    ids = draw(st.permutations([f"g{i}" for i in range(n_tasks)] + ["zz"]))
    ids = ids[: draw(st.integers(1, len(ids)))]
    records = [
        record(
            f"t{i}",
            gid,
            draw(texts),
            status=draw(st.sampled_from(["completed", "failed", "timeout"])),
            tokens=draw(counts),
            usd=draw(counts),
            unpriced=draw(st.one_of(st.none(), st.integers(0, 3))),
        )
        for i, gid in enumerate(ids)
    ]
    return golden, records


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=150, deadline=None)
@given(golden_and_records())
def test_vectorised_scores_match_the_oracle(case):
    golden, records = case
    assert vectorised_scores(golden, records) == oracle_scores(golden, records)


# --------------------------------------------------------- exact examples


GOLDEN = [
    task(
        "g1",
        check("contains", "x"),
        check("max_tokens", 100),
        check("max_cost_usd", Decimal("0.01")),
    ),
    task("g2", check("max_tokens", 100), check("max_cost_usd", Decimal("0.01"))),
    task("g3", check("status_completed"), check("not_contains", "TODO")),
]


def scored(records: list[dict]) -> pd.DataFrame:
    return score_tasks(evaluate_checks(load_golden(GOLDEN).checks, load_run(records, "A").records))


def test_unknown_checks_leave_the_denominator_and_are_counted():
    table = scored(
        [
            record("t1", "g1", "x", tokens=None, usd=500, unpriced=3),  # 1 pass, 2 unknown
            record("t2", "g2", tokens=None, usd=None),  # nothing measured
            record("t3", "g3", "TODO", status="completed"),  # 1 pass 1 fail
        ]
    )
    assert list(table.columns) == [
        "run",
        "golden_id",
        "task_id",
        "n_checks",
        "passed",
        "failed",
        "unknown",
        "measured",
        "score",
        "scored",
        "all_pass",
        "fully_measured",
    ]
    assert table[["n_checks", "passed", "failed", "unknown", "measured"]].values.tolist() == [
        [3, 1, 0, 2, 1],
        [2, 0, 0, 2, 0],
        [2, 1, 1, 0, 2],
    ]
    assert table["score"].tolist() == [1.0, pd.NA, 0.5]
    assert table["scored"].tolist() == [True, False, True]
    assert table["all_pass"].tolist() == [True, pd.NA, False]
    assert table["fully_measured"].tolist() == [False, False, True]
    assert str(table["score"].dtype) == "Float64" and str(table["all_pass"].dtype) == "boolean"


def test_run_summary_counts_unscored_tasks_apart():
    table = scored(
        [
            record("t1", "g1", "x", tokens=None),  # 2/2 measured pass, 1 unknown
            record("t2", "g2", tokens=None, usd=None),  # unscored
            record("t3", "g3", "TODO"),  # 1/2
        ]
    )
    summary = summarize_runs(table, ["A", "B"])
    assert summary.to_dict("records") == [
        {
            "run": "A",
            "n": 3,
            "scored_n": 2,
            "unscored_n": 1,
            "mean_score": 0.75,
            "all_pass_n": 1,
            "all_pass_rate": 0.5,
            "fully_measured_n": 1,
            "checks_n": 7,
            "passed_checks": 3,
            "failed_checks": 1,
            "unknown_checks": 3,
        },
        {
            "run": "B",
            "n": 0,
            "scored_n": 0,
            "unscored_n": 0,
            "mean_score": None,
            "all_pass_n": 0,
            "all_pass_rate": None,
            "fully_measured_n": 0,
            "checks_n": 0,
            "passed_checks": 0,
            "failed_checks": 0,
            "unknown_checks": 0,
        },
    ]
    assert summary["run"].dtype == pd.CategoricalDtype(["A", "B"])
    assert summary["mean_score"].isna().tolist() == [False, True]
    assert str(summary["mean_score"].dtype) == str(summary["all_pass_rate"].dtype) == "Float64"
    assert str(summary["n"].dtype) == "int64"


def test_unknowns_per_check_type_include_zeros():
    records = [
        record("t1", "g1", "x", tokens=None, usd=7, unpriced=2),
        record("t2", "g2", tokens=5, usd=None),
    ]
    outcomes = evaluate_checks(load_golden(GOLDEN).checks, load_run(records, "A").records)
    table = count_unknowns(outcomes)
    assert table.to_dict("list") == {
        "run": ["A"] * 5,
        "check_type": [
            "contains",
            "not_contains",
            "status_completed",
            "max_tokens",
            "max_cost_usd",
        ],
        "checks": [1, 0, 0, 2, 2],
        "unknown": [0, 0, 0, 1, 2],
        "measured": [1, 0, 0, 1, 0],
    }


@pytest.mark.parametrize(
    ("nums", "dens", "expected"),
    [
        ([1, 2], [2, 3], Fraction(7, 12)),
        ([], [], None),
        ([1, 1, 1], [8, 8, 8], Fraction(1, 8)),
        ([-1, 3], [2, 4], Fraction(1, 8)),
    ],
)
def test_exact_mean(nums, dens, expected):
    assert exact_mean(nums, dens) == expected
