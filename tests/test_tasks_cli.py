"""``buddy-eval tasks`` as a user meets it: text, JSON, warnings, errors, exit status."""

from __future__ import annotations

import json

import pytest

from buddy_eval._cli.tasks import run as main
from tests.test_tasks_support import EXAMPLE, check, record, run_tasks_cli, task, write_json

GOLDEN = [
    task("g1", check("contains", "ok"), check("max_cost_usd", 0.01)),
    task("g2", check("contains", "ok"), check("status_completed")),
    task("g3", check("not_contains", "TODO")),
    task("g4", check("max_tokens", 50)),
]
RUN_A = [
    record("a1", "g1", "ok", usd=None),
    record("a2", "g2", "ok", status="failed"),
    record("a3", "g3", ""),
    record("a7", "gone", "ok"),
]
RUN_B = [record("b1", "g1", "ok", usd=10001), record("b2", "g2", "ok"), record("b4", "g4")]

TEXT = """\
golden tasks: 4 with 6 checks (g.json)
run A (v1, a.json): 3 golden tasks with a record
  mean score 0.500 over 3 scored tasks
  all measured checks pass: 1 of 3 scored (0.33); fully measured: 2 of 3
  unknown checks (in no denominator): 1 of 5 (max_cost_usd 1)
run B (v2, b.json): 3 golden tasks with a record
  mean score 0.500 over 3 scored tasks
  all measured checks pass: 1 of 3 scored (0.33); fully measured: 3 of 3
  unknown checks (in no denominator): 0 of 5
paired, v2 minus v1: 2 golden tasks scored in both runs
  mean delta 0.000; v2 higher 1, equal 0, lower 1; fully measured in both: 1 of 2
  all measured checks pass: v1 only 1, v2 only 1, both 0, neither 0
  ready for decision: no (2 scored pairs, at least 20 needed); no significance computed
unpaired: v1 only: g3; v2 only: g4
missing from both runs: none
excluded: 1 record with a golden_id not in the golden set
"""
WARNING = (
    "buddy-eval: warning: a.json: record #4 (task_id 'a7'): golden_id 'gone' is not in the "
    "golden set; the record is excluded\n"
)


@pytest.fixture
def files(tmp_path):
    write_json(tmp_path / "g.json", GOLDEN)
    write_json(tmp_path / "a.json", RUN_A)
    write_json(tmp_path / "b.json", RUN_B)
    return tmp_path


ARGS = ["--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json"]
LABELS = ["--label-a", "v1", "--label-b", "v2"]


def test_text_comparison(files):
    proc = run_tasks_cli(*ARGS, *LABELS, cwd=files)
    assert (proc.returncode, proc.stdout.decode(), proc.stderr.decode()) == (0, TEXT, WARNING)


def test_json_comparison(files):
    proc = run_tasks_cli(*ARGS, *LABELS, "--json", cwd=files)
    assert (proc.returncode, proc.stderr) == (0, b"")
    out = json.loads(proc.stdout)
    assert out["runs"]["v1"]["n"] == 3 and out["runs"]["v1"]["mean_score"] == 0.5
    assert out["runs"]["v1"]["all_pass_n"] == 1 and out["runs"]["v1"]["fully_measured_n"] == 2
    assert out["runs"]["v1"]["unknown_checks"] == 1 and out["runs"]["v2"]["unknown_checks"] == 0
    assert out["paired"]["n"] == 2 and out["paired"]["mean_delta"] == 0.0
    assert out["paired"]["ready_for_decision"] is False and out["paired"]["p_value"] is None
    assert out["unpaired"] == {"v1": ["g3"], "v2": ["g4"]}
    assert out["missing"] == []
    assert out["warnings"] == [WARNING.removeprefix("buddy-eval: warning: ").rstrip("\n")]


def test_default_labels_are_a_and_b(files):
    out = json.loads(run_tasks_cli(*ARGS, "--json", cwd=files).stdout)
    assert list(out["runs"]) == ["A", "B"]


def test_main_returns_the_status_in_process(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main([*ARGS, *LABELS]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (TEXT, WARNING)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "g.json",
            '[{"id": "g1",}]',
            "g.json:1: invalid JSON: a comma before the closing '}' (JSON allows no trailing "
            "comma) (column 13)",
        ),
        ("g.json", b'["\xff"]', "g.json:1: not UTF-8 text: byte 0xff cannot be decoded as UTF-8"),
        (
            "g.json",
            [task("g1", check("max_tokens", True))],
            "g.json: task 'g1', check 1 (max_tokens): field 'value' must be a non-negative "
            "integer, got true",
        ),
        (
            "g.json",
            [task("g1", check("similar_to", "x"))],
            "g.json: task 'g1', check 1: field 'type' must be one of contains, not_contains, "
            "status_completed, max_tokens, max_cost_usd, got 'similar_to'",
        ),
        (
            "g.json",
            [task("g1", check("status_completed")), task("g1", check("status_completed"))],
            "g.json: task 'g1' (#2): duplicate golden id (first defined as task #1)",
        ),
        (
            "a.json",
            [{"task_id": "a1", "golden_id": "g1"}],
            "a.json: record #1 (task_id 'a1'): missing field 'status' (a string)",
        ),
        (
            "a.json",
            [record("a1", "g1"), record("a1", "g2")],
            "a.json: record #2 (task_id 'a1'): duplicate task_id (first given in record #1); "
            "each task record may appear once",
        ),
        (
            "b.json",
            [record("b1", "g1"), record("b2", "g1")],
            "b.json: record #2 (task_id 'b2'): second record for golden task 'g1' in run 'v2' "
            "(first: record #1, task_id 'b1'); a run may hold one record per golden task",
        ),
        (
            "b.json",
            [record("a1", "g1")],
            "b.json: record #1 (task_id 'a1'): duplicate task_id, also in run 'v1' (a.json, "
            "record #1); a task record belongs to one run",
        ),
    ],
)
def test_input_errors_exit_2_with_one_line(files, name, content, message):
    path = files / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        path.write_bytes(content)
    else:
        write_json(path, content)
    proc = run_tasks_cli(*ARGS, *LABELS, cwd=files)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode() == f"buddy-eval: error: {message}\n"


def test_missing_file_and_equal_labels(files):
    proc = run_tasks_cli(
        "--golden", "nope.json", "--run-a", "a.json", "--run-b", "b.json", cwd=files
    )
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert (
        proc.stderr
        == b"buddy-eval: error: nope.json: cannot read input file: No such file or directory\n"
    )
    proc = run_tasks_cli(*ARGS, "--label-a", "x", "--label-b", "x", cwd=files)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr == b"buddy-eval: error: the two run labels must differ, got 'x' twice\n"


def test_usage_errors_exit_2(files):
    proc = run_tasks_cli("--golden", "g.json", cwd=files)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert b"the following arguments are required: --run-a, --run-b" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_help_exits_0():
    proc = run_tasks_cli("--help")
    assert proc.returncode == 0
    assert b"usage: buddy-eval tasks" in proc.stdout and b"max_cost_usd" in proc.stdout


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_example_files_compare_in_text_and_json():
    args = ["--golden", EXAMPLE["golden"], "--run-a", EXAMPLE["a"], "--run-b", EXAMPLE["b"]]
    text = run_tasks_cli(*args, "--label-a", "tutor-2024-09", "--label-b", "tutor-2024-10")
    assert text.returncode == 0
    lines = text.stdout.decode().splitlines()
    assert lines[0].startswith("golden tasks: 31 with ")
    assert "  ready for decision: yes (25 scored pairs, at least 20 needed)" in lines
    assert "missing from both runs: jv-29, jv-30" in lines
    assert text.stderr.decode().count("buddy-eval: warning: ") == 2
    proc = run_tasks_cli(*args, "--json")
    assert (proc.returncode, proc.stderr) == (0, b"")
    out = json.loads(proc.stdout)
    assert out["paired"]["n"] >= 20 and out["paired"]["ready_for_decision"] is True
    assert isinstance(out["paired"]["p_value"], float)
    assert out["unpaired"] == {"A": ["jv-27", "jv-28"], "B": ["jv-26"]}
    assert out["missing"] == ["jv-29", "jv-30"]
    assert out["paired"]["unscored"] == ["jv-31"]
    assert out["runs"]["A"]["unknown_checks"] > 0 and out["runs"]["B"]["unknown_checks"] > 0
    assert len(out["warnings"]) == 2
