"""Every check type passing, failing and unknown, evaluated over the long table."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest

from buddy_eval.tasks import evaluate_checks, load_golden, load_run
from tests.test_tasks_support import check, record, task


def outcomes_of(checks: list[dict], records: list[dict]) -> pd.DataFrame:
    golden = load_golden([task("g", *checks)])
    run = load_run(records, "A")
    return evaluate_checks(golden.checks, run.records)


def outcome(one_check: dict, **fields) -> tuple[str, str | None]:
    text = fields.pop("text", "answer")
    table = outcomes_of([one_check], [record("t1", "g", text, **fields)])
    reason = table["unknown_reason"][0]
    return table["outcome"][0], None if pd.isna(reason) else reason


@pytest.mark.parametrize(
    ("one_check", "fields", "expected"),
    [
        (check("contains", "42"), {"text": "the answer is 42."}, "pass"),
        (check("contains", "42"), {"text": "the answer is forty-two"}, "fail"),
        (check("contains", "Integer"), {"text": "use integer"}, "fail"),  # case-sensitive
        (check("contains", "a.b"), {"text": "axb"}, "fail"),  # literal, not a pattern
        (check("contains", "(x)*"), {"text": "f(x)*2"}, "pass"),
        (check("contains", "42"), {"text": ""}, "fail"),
        (check("contains", "42"), {"text": None}, "fail"),
        (check("not_contains", "TODO"), {"text": "done"}, "pass"),
        (check("not_contains", "TODO"), {"text": "// TODO finish"}, "fail"),
        (check("not_contains", "TODO"), {"text": "todo"}, "pass"),
        (check("not_contains", "TODO"), {"text": ""}, "fail"),  # empty text fails
        (check("not_contains", "TODO"), {"text": None}, "fail"),  # missing text fails
        (check("status_completed"), {"status": "completed"}, "pass"),
        (check("status_completed"), {"status": "failed"}, "fail"),
        (check("status_completed"), {"status": "Completed"}, "fail"),
        (check("status_completed"), {"status": "completed", "text": ""}, "pass"),
        (check("max_tokens", 800), {"tokens": 800}, "pass"),
        (check("max_tokens", 800), {"tokens": 801}, "fail"),
        (check("max_tokens", 0), {"tokens": 0}, "pass"),
        (check("max_cost_usd", Decimal("0.02")), {"usd": 20000}, "pass"),
        (check("max_cost_usd", Decimal("0.02")), {"usd": 20001}, "fail"),
        (check("max_cost_usd", Decimal("0.0000015")), {"usd": 1}, "pass"),
        (check("max_cost_usd", Decimal("0.0000015")), {"usd": 2}, "fail"),
        (check("max_cost_usd", 0.1), {"usd": 100000}, "pass"),  # not 0.1000000000000000055...
        (check("max_cost_usd", Decimal("0.02")), {"usd": 20000, "unpriced": None}, "pass"),
        (check("max_cost_usd", Decimal("0.02")), {"usd": 0, "unpriced": 0}, "pass"),
    ],
)
def test_pass_and_fail(one_check, fields, expected):
    assert outcome(one_check, **fields) == (expected, None)


@pytest.mark.parametrize(
    ("one_check", "fields", "reason"),
    [
        (check("max_tokens", 800), {"tokens": None}, "total_tokens missing"),
        (check("max_cost_usd", Decimal("0.02")), {"usd": None}, "usd_micros missing"),
        (
            check("max_cost_usd", Decimal("0.02")),
            {"usd": None, "unpriced": 5},
            "usd_micros missing",
        ),
        (
            check("max_cost_usd", Decimal("0.02")),
            {"usd": 100, "unpriced": 1},
            "unpriced_tokens > 0",
        ),
        (
            check("max_cost_usd", Decimal("0.02")),
            {"usd": 10**9, "unpriced": 1},
            "unpriced_tokens > 0",
        ),
    ],
)
def test_unknown(one_check, fields, reason):
    assert outcome(one_check, **fields) == ("unknown", reason)


def test_missing_cost_fields_leave_other_checks_measured():
    got = outcome(check("max_tokens", 10), tokens=5, usd=None, unpriced=9)
    assert got == ("pass", None)


def test_long_table_has_one_row_per_record_and_check_in_order():
    golden = load_golden(
        [
            task("g1", check("contains", "x"), check("max_tokens", 50)),
            task("g2", check("status_completed")),
        ]
    )
    run_a = load_run(
        [
            record("a2", "g2", status="failed"),
            record("a1", "g1", "x", tokens=None),
            record("a9", "unknown-golden"),
        ],
        "A",
    )
    records = run_a.records.copy()
    table = evaluate_checks(golden.checks, records)
    assert list(table.columns) == [
        "run",
        "golden_id",
        "task_id",
        "check_index",
        "check_type",
        "value",
        "outcome",
        "unknown_reason",
    ]
    assert table[["golden_id", "task_id", "check_index"]].values.tolist() == [
        ["g2", "a2", 1],
        ["g1", "a1", 1],
        ["g1", "a1", 2],
    ]
    assert table["outcome"].astype(str).tolist() == ["fail", "pass", "unknown"]
    assert table["check_type"].astype(str).tolist() == [
        "status_completed",
        "contains",
        "max_tokens",
    ]
    assert table["value"].tolist()[1:] == ["x", "50"]
    assert table["outcome"].dtype == pd.CategoricalDtype(["pass", "fail", "unknown"])
    assert table["run"].astype(str).unique().tolist() == ["A"]
    pd.testing.assert_frame_equal(records, run_a.records)  # input not modified
