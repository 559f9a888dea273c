"""Loading golden tasks and run records: DataFrames and every input error."""

from __future__ import annotations

import copy
import json
from decimal import Decimal

import pandas as pd
import pytest

from buddy_eval._errors import InputError
from buddy_eval.tasks import build_golden, build_run, load_golden, load_run
from buddy_eval.tasks._record_rules import micros_limit
from tests.test_tasks_support import check, record, task, write_json

GOLDEN = [
    task(
        "loops-01",
        check("contains", "for ("),
        check("not_contains", "TODO"),
        check("status_completed"),
        prompt="Write a for loop.",
        tier="basic",
    ),
    task("cost-01", check("max_tokens", 800), check("max_cost_usd", 0.02), tier=3),
]


def test_golden_frames_hold_every_field():
    golden = load_golden(GOLDEN)
    assert golden.tasks.to_dict("list") == {
        "golden_id": ["loops-01", "cost-01"],
        "prompt": ["Write a for loop.", "Explain it."],
        "tier": ["basic", "3"],
        "n_checks": [3, 2],
        "position": [1, 2],
    }
    checks = golden.checks
    assert list(checks.columns) == [
        "golden_id",
        "check_index",
        "check_type",
        "value",
        "text",
        "limit",
    ]
    assert checks["golden_id"].tolist() == ["loops-01"] * 3 + ["cost-01"] * 2
    assert checks["check_index"].tolist() == [1, 2, 3, 1, 2]
    assert checks["check_type"].astype(str).tolist() == [
        "contains",
        "not_contains",
        "status_completed",
        "max_tokens",
        "max_cost_usd",
    ]
    assert checks["value"].tolist()[:2] == ["for (", "TODO"]
    assert pd.isna(checks["value"][2])
    assert checks["value"].tolist()[3:] == ["800", "0.02"]
    assert checks["text"].tolist()[:2] == ["for (", "TODO"]
    assert checks["text"][2:].isna().all()
    assert checks["limit"].tolist()[3:] == [800, 20000]
    assert checks["limit"][:3].isna().all()
    assert str(checks["limit"].dtype) == "Int64"
    assert str(checks["check_index"].dtype) == "int64"


def test_inputs_are_not_modified():
    golden, records = copy.deepcopy(GOLDEN), [record("t1", "loops-01")]
    before = copy.deepcopy((golden, records))
    load_golden(golden)
    load_run(records, "A")
    assert (golden, records) == before


def test_run_frame_holds_every_field_and_missing_values():
    records = [
        record("t1", "loops-01", "for (int i = 0;", tokens=120, usd=3000, unpriced=0),
        {"task_id": 7, "golden_id": "cost-01", "status": "failed", "extra": [1]},
    ]
    run = load_run(records, "tutor-v1")
    frame = run.records
    assert list(frame.columns) == [
        "run",
        "task_id",
        "golden_id",
        "model",
        "status",
        "result_text",
        "total_tokens",
        "usd_micros",
        "unpriced_tokens",
        "position",
    ]
    assert frame["run"].astype(str).tolist() == ["tutor-v1", "tutor-v1"]
    assert frame["task_id"].tolist() == ["t1", "7"]
    assert frame["status"].tolist() == ["completed", "failed"]
    assert frame["result_text"][0] == "for (int i = 0;" and pd.isna(frame["result_text"][1])
    assert pd.isna(frame["model"][1])
    for column, first in (("total_tokens", 120), ("usd_micros", 3000), ("unpriced_tokens", 0)):
        assert str(frame[column].dtype) == "Int64"
        assert frame[column][0] == first and pd.isna(frame[column][1])
    assert frame["position"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("dollars", "micros"),
    [("0.02", 20000), ("0", 0), ("1", 1_000_000), ("0.0000015", 1), ("0.1", 100000), ("1e-6", 1)],
)
def test_cost_limit_is_exact(dollars, micros):
    assert micros_limit(Decimal(dollars)) == micros


def test_json_file_numbers_are_read_as_decimals(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(
        '[{"id": "c", "prompt": "p", "tier": "t", "checks": [{"type": "max_cost_usd", '
        '"value": 0.000003}]}]',
        encoding="utf-8",
    )
    golden = load_golden(path)
    assert golden.checks["value"].tolist() == ["0.000003"]
    assert golden.checks["limit"].tolist() == [3]
    assert golden.source == str(path)


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "g.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOLDEN).encode())
    assert load_golden(path).ids == ["loops-01", "cost-01"]


def _golden_error(items) -> str:
    with pytest.raises(InputError) as info:
        build_golden(items, source="g.json")
    return str(info.value)


def _with_check(value_check: dict) -> list:
    return [task("t1", check("status_completed"), value_check)]


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (
            {"id": "x"},
            "g.json: expected a JSON list of golden tasks {id, prompt, tier, checks}, "
            "got an object",
        ),
        ([], "g.json: the list of golden tasks is empty; expected at least one"),
        (["x"], "g.json: task #1: expected an object {id, prompt, tier, checks}, got 'x'"),
        (
            [{"prompt": "p", "tier": "t", "checks": []}],
            "g.json: task #1: missing field 'id' (a non-empty string)",
        ),
        (
            [task(7, check("status_completed"))],
            "g.json: task #1: field 'id' must be a non-empty string, got 7",
        ),
        (
            [task("", check("status_completed"))],
            "g.json: task #1: field 'id' must be a non-empty string, got ''",
        ),
        (
            [{"id": "t1", "tier": "t", "checks": [check("status_completed")]}],
            "g.json: task 't1': missing field 'prompt' (a non-empty string)",
        ),
        (
            [{"id": "t1", "prompt": "p", "checks": [check("status_completed")]}],
            "g.json: task 't1': missing field 'tier' (a non-empty string)",
        ),
        (
            [{"id": "t1", "prompt": "p", "tier": "t"}],
            "g.json: task 't1': missing field 'checks' (a non-empty list of checks)",
        ),
        (
            [task("t1", prompt=None)],
            "g.json: task 't1': field 'prompt' must be a non-empty string, got null",
        ),
        (
            [task("t1", check("status_completed"), tier=True)],
            "g.json: task 't1': field 'tier' must be a non-empty string or an integer, got true",
        ),
        (
            [task("t1")],
            "g.json: task 't1': field 'checks' must be a non-empty list of checks, got a list",
        ),
        (
            [{**task("t1"), "checks": "contains"}],
            "g.json: task 't1': field 'checks' must be a non-empty list of checks, got 'contains'",
        ),
        (
            [task("t1", "contains")],
            "g.json: task 't1', check 1: expected an object {type, value}, got 'contains'",
        ),
        (
            [task("t1", {"value": "x"})],
            "g.json: task 't1', check 1: missing field 'type' (one of contains, not_contains, "
            "status_completed, max_tokens, max_cost_usd)",
        ),
        (
            _with_check(check("regex", "a.*b")),
            "g.json: task 't1', check 2: field 'type' must be one of contains, not_contains, "
            "status_completed, max_tokens, max_cost_usd, got 'regex'",
        ),
        (
            _with_check(check("Contains", "x")),
            "g.json: task 't1', check 2: field 'type' must be one of contains, not_contains, "
            "status_completed, max_tokens, max_cost_usd, got 'Contains'",
        ),
        (
            _with_check({"type": "contains"}),
            "g.json: task 't1', check 2 (contains): missing field 'value' (a non-empty string)",
        ),
        (
            _with_check(check("contains", "")),
            "g.json: task 't1', check 2 (contains): field 'value' must be a non-empty string, "
            "got ''",
        ),
        (
            _with_check(check("not_contains", 42)),
            "g.json: task 't1', check 2 (not_contains): field 'value' must be a non-empty string, "
            "got 42",
        ),
        (
            _with_check(check("max_tokens", True)),
            "g.json: task 't1', check 2 (max_tokens): field 'value' must be a non-negative "
            "integer, got true",
        ),
        (
            _with_check(check("max_tokens", "800")),
            "g.json: task 't1', check 2 (max_tokens): field 'value' must be a non-negative "
            "integer, got '800'",
        ),
        (
            _with_check(check("max_tokens", Decimal("800.5"))),
            "g.json: task 't1', check 2 (max_tokens): field 'value' must be a non-negative "
            "integer, got 800.5",
        ),
        (
            _with_check(check("max_tokens", -1)),
            "g.json: task 't1', check 2 (max_tokens): field 'value' must be a non-negative "
            "integer, got -1",
        ),
        (
            _with_check(check("max_cost_usd", False)),
            "g.json: task 't1', check 2 (max_cost_usd): field 'value' must be a number of US "
            "dollars from 0 to 1000000000, got false",
        ),
        (
            _with_check(check("max_cost_usd", "0.02")),
            "g.json: task 't1', check 2 (max_cost_usd): field 'value' must be a number of US "
            "dollars from 0 to 1000000000, got '0.02'",
        ),
        (
            _with_check(check("max_cost_usd", Decimal("-0.01"))),
            "g.json: task 't1', check 2 (max_cost_usd): field 'value' must be a number of US "
            "dollars from 0 to 1000000000, got -0.01",
        ),
        (
            _with_check({"type": "max_cost_usd"}),
            "g.json: task 't1', check 2 (max_cost_usd): missing field 'value' (a number of US "
            "dollars from 0 to 1000000000)",
        ),
        (
            _with_check({"type": "status_completed", "value": True}),
            "g.json: task 't1', check 2 (status_completed): unexpected field 'value'; a "
            "status_completed check has only the fields type",
        ),
        (
            _with_check({"type": "contains", "value": "x", "case": "insensitive"}),
            "g.json: task 't1', check 2 (contains): unexpected field 'case'; a contains check "
            "has only the fields type, value",
        ),
        (
            [
                task("t1", check("status_completed")),
                task("t2", check("status_completed")),
                task("t1", check("contains", "x")),
            ],
            "g.json: task 't1' (#3): duplicate golden id (first defined as task #1)",
        ),
    ],
)
def test_golden_input_errors(items, message):
    assert _golden_error(items) == message


def _run_error(records) -> str:
    with pytest.raises(InputError) as info:
        build_run(records, label="A", source="a.json")
    return str(info.value)


@pytest.mark.parametrize(
    ("records", "message"),
    [
        (
            {"task_id": "t"},
            "a.json: expected a JSON list of run records {task_id, golden_id, "
            "status, ...}, got an object",
        ),
        ([], "a.json: run 'A' has no records; expected at least one"),
        ([None], "a.json: record #1: expected an object {task_id, golden_id, ...}, got null"),
        (
            [{"golden_id": "g", "status": "completed"}],
            "a.json: record #1: missing field 'task_id' (a non-empty string or an integer)",
        ),
        (
            [record(True, "g")],
            "a.json: record #1: field 'task_id' must be a non-empty string or an integer, got true",
        ),
        (
            [{"task_id": "t1", "status": "completed"}],
            "a.json: record #1 (task_id 't1'): missing field 'golden_id' (a non-empty string)",
        ),
        (
            [{"task_id": "t1", "golden_id": "g"}],
            "a.json: record #1 (task_id 't1'): missing field 'status' (a string)",
        ),
        (
            [record("t1", 5)],
            "a.json: record #1 (task_id 't1'): field 'golden_id' must be a non-empty string, got 5",
        ),
        (
            [record("t1", "g", status=None)],
            "a.json: record #1 (task_id 't1'): field 'status' must be a string, got null",
        ),
        (
            [record("t1", "g", 42)],
            "a.json: record #1 (task_id 't1'): field 'result_text' must be a string or null, "
            "got 42",
        ),
        (
            [record("t1", "g", model=["m"])],
            "a.json: record #1 (task_id 't1'): field 'model' must be a string or null, got a list",
        ),
        (
            [record("t1", "g", tokens=True)],
            "a.json: record #1 (task_id 't1'): field 'total_tokens' must be a non-negative "
            "integer or null, got true",
        ),
        (
            [record("t1", "g", usd=Decimal("12.5"))],
            "a.json: record #1 (task_id 't1'): field 'usd_micros' must be a non-negative "
            "integer or null, got 12.5",
        ),
        (
            [record("t1", "g", unpriced=-3)],
            "a.json: record #1 (task_id 't1'): field 'unpriced_tokens' must be a non-negative "
            "integer or null, got -3",
        ),
        (
            [record("t1", "g", tokens=2**63)],
            "a.json: record #1 (task_id 't1'): field 'total_tokens' must be a non-negative "
            "integer or null, got 9223372036854775808",
        ),
        (
            [record("t1", "g1"), record("t2", "g2"), record("t1", "g3")],
            "a.json: record #3 (task_id 't1'): duplicate task_id (first given in record #1); "
            "each task record may appear once",
        ),
        (
            [record(1, "g1"), record("1", "g3")],
            "a.json: record #2 (task_id '1'): duplicate task_id (first given in record #1); "
            "each task record may appear once",
        ),
        (
            [record("t1", "g1"), record("t2", "g1")],
            "a.json: record #2 (task_id 't2'): second record for golden task 'g1' in run 'A' "
            "(first: record #1, task_id 't1'); a run may hold one record per golden task",
        ),
    ],
)
def test_run_input_errors(records, message):
    assert _run_error(records) == message


def test_invalid_json_names_file_and_line(tmp_path):
    path = tmp_path / "golden.json"
    path.write_text('[\n  {"id": "t1",\n   "prompt": "p"\n   "tier": "x"}\n]\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert str(info.value) == f"{path}:4: invalid JSON: Expecting ',' delimiter (column 4)"
    assert info.value.line == 4


def test_non_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes(b'[\n{"task_id": "t\xe9"}\n]')
    with pytest.raises(InputError) as info:
        load_run(path, "A")
    assert str(info.value) == f"{path}:2: not UTF-8 text: byte 0xe9 cannot be decoded as UTF-8"


def test_missing_file(tmp_path):
    with pytest.raises(InputError) as info:
        load_run(tmp_path / "nope.json", "A")
    assert (
        str(info.value)
        == f"{tmp_path / 'nope.json'}: cannot read input file: No such file or directory"
    )


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_numbers_are_rejected(tmp_path, constant):
    path = tmp_path / "g.json"
    path.write_text(
        '[{"id": "t1", "prompt": "p", "tier": "x", "checks": [{"type": "max_cost_usd", '
        f'"value": {constant}}}]}}]',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert str(info.value) == (
        f"{path}: task 't1', check 1 (max_cost_usd): field 'value' must be a number of US "
        f"dollars from 0 to 1000000000, got {constant}"
    )


def test_nan_is_not_a_string_value(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(
        '[{"id": "t1", "prompt": "p", "tier": "x", "checks": [{"type": "contains", '
        '"value": NaN}]}]',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="must be a non-empty string, got NaN$"):
        load_golden(path)


def test_a_field_given_twice_is_an_error(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(
        '[{"id": "t1", "prompt": "p", "tier": "x", "checks": [{"type": "contains", '
        '"value": "a", "value": "b"}]}]',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert str(info.value) == (
        f"{path}: task 't1', check 1: field 'value' is given more than once; each field may "
        "appear once"
    )
    write_json(path, [record("t1", "g")])
    path.write_text(path.read_text().replace('"status"', '"status": "failed", "status"'))
    with pytest.raises(InputError, match="record #1 \\(task_id 't1'\\): field 'status' is given"):
        load_run(path, "A")


def test_python_floats_are_read_at_their_shortest_decimal_form():
    golden = load_golden([task("t", check("max_cost_usd", 0.1))])
    assert golden.checks["limit"].tolist() == [100000]
    assert golden.checks["value"].tolist() == ["0.1"]


def test_a_source_that_is_not_a_path_or_list():
    with pytest.raises(InputError, match="expected a path to a JSON file or a list of objects"):
        load_golden({"id": "t"})


@pytest.mark.parametrize(
    ("text", "line", "closer", "column"),
    [
        ('[{"id": "g1",}]', 1, "}", 13),
        ('[\n  "a",\n  "b" ,\n]\n', 3, "]", 7),
        ('{"a": [1, 2,\n\t]}', 1, "]", 12),
    ],
)
def test_a_trailing_comma_is_named_in_the_projects_words(tmp_path, text, line, closer, column):
    """The same message on every Python version (3.11 and 3.13 word and place it apart)."""
    path = tmp_path / "golden.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert str(info.value) == (
        f"{path}:{line}: invalid JSON: a comma before the closing '{closer}' (JSON allows no "
        f"trailing comma) (column {column})"
    )


@pytest.mark.parametrize("text", ['{"a":,}', "[,]", "[1 2]"])
def test_other_json_errors_name_the_line_and_a_column(tmp_path, text):
    import re

    path = tmp_path / "golden.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert re.fullmatch(
        rf"{re.escape(str(path))}:1: invalid JSON: [^()]+ \(column \d+\)", str(info.value)
    )
    assert "trailing" not in str(info.value)
