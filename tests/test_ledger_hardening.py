"""The ledger under hostile use: damage, read-only media, side files, races, stored lines.

Every test uses a real SQLite file and the real command line (or the API where the
contract is the API's): exit status, one line on standard error, nothing half-written.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import buddy_eval as be
from tests.conftest import ROOT, run_cli
from tests.ledger_helpers import dump, make_input


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "release.ledger"
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), path, date="2026-01-01", by="ci")
    be.release(path, "v2", date="2026-01-02", by="ci")
    return path


def _edit(path: Path, sql: str, params=()) -> None:
    connection = sqlite3.connect(path)
    connection.execute(sql, params)
    connection.commit()
    connection.close()


def _one_error_line(proc) -> str:
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("buddy-eval: error: "), err
    return err


READERS = [["history"], ["history", "--format", "json"], ["ledger", "show"], ["ledger", "verify"]]


@pytest.mark.parametrize("args", READERS, ids=lambda a: " ".join(a))
def test_readers_leave_no_file_beside_the_ledger(args, ledger):
    before = sorted(p.name for p in ledger.parent.iterdir())
    proc = run_cli(*args, "--ledger", ledger)
    assert proc.returncode == 0, proc.stderr.decode()
    assert sorted(p.name for p in ledger.parent.iterdir()) == before


def test_a_refused_ledger_gets_no_side_files_either(ledger):
    _edit(ledger, "PRAGMA user_version = 99")
    before = sorted(p.name for p in ledger.parent.iterdir())
    for args in READERS:
        proc = run_cli(*args, "--ledger", ledger)
        assert proc.returncode == 2
        assert "newer than this buddy_eval reads" in _one_error_line(proc)
    assert sorted(p.name for p in ledger.parent.iterdir()) == before


@contextlib.contextmanager
def _read_only_mount(folder: Path):
    """``folder`` mounted again, read-only (a bind mount), for the test's duration."""
    target = folder.parent / f"{folder.name}-ro"
    target.mkdir()
    bound = subprocess.run(["mount", "--bind", str(folder), str(target)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bound.stderr.decode().strip()}")
    try:
        remount = subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(target)], capture_output=True
        )
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {remount.stderr.decode().strip()}")
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=True)


@pytest.mark.slow  # mounts a file system
def test_reading_works_on_read_only_media(ledger):
    expected = {tuple(a): run_cli(*a, "--ledger", ledger).stdout for a in READERS}
    with _read_only_mount(ledger.parent) as folder:
        mounted = folder / ledger.name
        for args in READERS:
            proc = run_cli(*args, "--ledger", mounted)
            assert proc.returncode == 0, proc.stderr.decode()
            assert proc.stdout == expected[tuple(args)].replace(
                str(ledger).encode(), str(mounted).encode()
            )
        release = run_cli("ledger", "release", "v1", "--ledger", mounted, "--by", "ci")
        assert release.returncode == 3
        assert "could not finish" in _one_error_line(release)


def _corrupt_a_page(path: Path) -> None:
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page + 200 : 2 * page] = b"\xa5" * (page - 200)  # the second page, past its header
    path.write_bytes(bytes(data))


@pytest.mark.slow  # a sweep of command-line runs: `make test` runs it
@pytest.mark.parametrize(
    "args",
    [*READERS, ["ledger", "release", "v1", "--by", "ci"], ["GATE"]],
    ids=lambda a: " ".join(a),
)
def test_a_damaged_page_is_one_input_error_for_every_command(args, ledger, write):
    _corrupt_a_page(ledger)
    before = ledger.read_bytes()
    if args == ["GATE"]:
        args = [write(make_input("v2", "v3")), "--baseline", "v2", "--candidate", "v3"]
    proc = run_cli(*args, "--ledger", ledger)
    assert proc.returncode == 2
    err = _one_error_line(proc)
    assert err.startswith(f"buddy-eval: error: {ledger}: is a damaged ledger (")
    assert ledger.read_bytes() == before


@pytest.mark.slow  # a sweep of command-line runs: `make test` runs it
@pytest.mark.parametrize(
    "sql, names",
    [
        ("UPDATE result_sets SET outcomes = '[[0, 1' WHERE version_id = 1", "version 'v1'"),
        ("UPDATE result_sets SET lines = '{}' WHERE version_id = 2", "version 'v2'"),
        (
            "UPDATE evaluation_metrics SET numerator = 5 WHERE metric = 'correctness'",
            "evaluation 1",
        ),
        ("UPDATE checks SET blocks = 1 WHERE position = 4", "evaluation 1"),
        ("UPDATE releases SET override_reason = 'forged'", "release 1"),
        ("UPDATE golden_items SET keywords = '[\"x\"]' WHERE position = 0", "golden set r1"),
        ("DELETE FROM golden_items WHERE position = 3", "golden set r1"),
    ],
)
def test_a_row_changed_outside_buddy_eval_is_named_never_used(sql, names, ledger):
    _edit(ledger, sql)
    for args in (["history"], ["ledger", "show"], ["ledger", "verify"]):
        proc = run_cli(*args, "--ledger", ledger)
        assert proc.returncode == 2
        err = _one_error_line(proc)
        assert f"{names} " in err and "changed outside buddy-eval" in err, err


def test_a_hand_edited_result_never_turns_a_block_into_a_release(ledger, write):
    # v3 fails q1, which the live v2 passes: BLOCK.
    text = make_input("v2", "v3", passing={"v2": {"q1", "q2"}, "v3": {"q2"}})
    only_v3 = write("".join(line for line in text.splitlines(True) if not line.startswith("v2 ")))
    first = run_cli(
        only_v3,
        "--baseline",
        "live",
        "--candidate",
        "v3",
        "--ledger",
        ledger,
        "--date",
        "2026-01-03",
        "--by",
        "ci",
    )
    assert first.returncode == 1
    # Someone makes v2 fail q1 too, in the stored lines: the regression would disappear.
    _edit(
        ledger,
        "UPDATE result_sets SET lines = replace(lines, '\"alpha\"', '\"x\"') WHERE version_id = 2",
    )
    again = run_cli(only_v3, "--baseline", "live", "--candidate", "v3", "--ledger", ledger)
    assert again.returncode == 2
    assert "the results of version 'v2' were changed outside buddy-eval" in _one_error_line(again)


def test_a_contradicting_record_after_the_verdict_is_could_not_finish(ledger, tmp_path):
    """Another process records v3 with other results between this run's verdict and its
    record: the verdict stands on stdout, the status is 3 with one line, nothing written."""
    from buddy_eval._cli import gate, main

    path = tmp_path / "in.txt"
    path.write_text(make_input("v2", "v3"))
    other = make_input("v2", "v3").replace("v3 q4 - N no idea", "v3 q4 - N other words")
    real = gate.write_stdout

    def print_then_race(text: str) -> None:
        real(text)
        be.record(be.evaluate(other, "v2", "v3"), ledger, date="2026-01-03", by="other")

    out, err = io.StringIO(), io.StringIO()
    before = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        gate.write_stdout = print_then_race
        try:
            before = dump(ledger)
            status = main(
                [
                    str(path),
                    "--baseline",
                    "v2",
                    "--candidate",
                    "v3",
                    "--ledger",
                    str(ledger),
                    "--date",
                    "2026-01-03",
                    "--by",
                    "ci",
                ]
            )
        finally:
            gate.write_stdout = real
    assert status == 3
    assert out.getvalue().splitlines()[-1].startswith("BLOCK")
    assert err.getvalue() == (
        "buddy-eval: error: could not finish: the verdict above stands, but the evaluation was "
        f"not recorded: {path}:14: version 'v3' already has a result for item 'q4' in the "
        "ledger (another result); the results of a version are facts: give these results a new "
        "version label\n"
    )
    # Only the other process's evaluation landed.
    assert len(dump(ledger)) > len(before)
    assert [e for e in be.history(ledger).versions["recorded_by"]] == ["ci", "ci", "other"]


WRITER = """
import sys
import buddy_eval as be
from tests.ledger_helpers import make_input
k = int(sys.argv[2])
passing = {f"a{k}": {"q1"}, f"b{k}": {"q1", "q2"}}
ev = be.evaluate(make_input(f"a{k}", f"b{k}", passing=passing), f"a{k}", f"b{k}")
print(be.record(ev, sys.argv[1], date="2026-01-01", by=f"writer {k}").evaluation_id)
"""
RELEASER = """
import sys
import buddy_eval as be
for _ in range(20):
    be.release(sys.argv[1], "v2", date="2026-01-02", by="releaser")
print("ok")
"""


@pytest.mark.slow  # eight processes at once
def test_eight_recorders_and_a_releaser_on_one_ledger_all_land(ledger):
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(ledger), str(k)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for k in range(8)
    ] + [
        subprocess.Popen(
            [sys.executable, "-c", RELEASER, str(ledger)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0] * 9, [e for _, e in outs]
    assert sorted(int(out) for out, _ in outs[:8]) == list(range(2, 10))
    assert outs[8][0] == b"ok\n"
    assert run_cli("ledger", "verify", "--ledger", ledger).returncode == 0
    assert len(be.history(ledger).releases) == 1  # v2 was live already: nothing changed


def test_a_stored_line_round_trips_and_is_never_blamed_on_the_input(tmp_path, write):
    """A live version recorded through the API with a cited value holding a space and an
    answer holding a line break: the text format cannot carry either, the ledger does."""
    golden = pd.DataFrame(
        {
            "item_id": ["q1", "q2"],
            "item_type": ["ANSWER", "ANSWER"],
            "required_source": ["L2", "L1"],
            "keywords": ["a", "b"],
        }
    )
    results = pd.DataFrame(
        {
            "version": ["A", "A", "B", "B"],
            "item_id": ["q1", "q2"] * 2,
            "cited": ["L2", "L1", "Lecture 2", "L1"],
            "refused": ["N"] * 4,
            "answer": ["a", "b", "a\nline two", "b"],
        }
    )
    ledger = tmp_path / "l.ledger"
    data = be.from_frames(golden, results, [0.5, 0.5, 0.5])
    be.record(be.evaluate(data, "A", "B"), ledger, date="2026-01-01", by="api")
    be.release(ledger, "A", date="2026-01-01", by="api")
    be.release(ledger, "B", date="2026-01-02", by="api", override="the citation is fine")
    candidate = write(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L2 a\nq2 ANSWER L1 b\nRESULTS\n"
        "C q1 L2 N a\nC q2 L1 N b\n"
    )
    proc = run_cli(
        candidate,
        "--baseline",
        "live",
        "--candidate",
        "C",
        "--ledger",
        ledger,
        "--date",
        "2026-01-03",
        "--by",
        "ci",
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode().splitlines()[:2] == [
        "B: correctness 1.00 citation 0.50 refusal n/a violations 0",
        "C: correctness 1.00 citation 1.00 refusal n/a violations 0",
    ]
    from buddy_eval.ledger import live_baseline

    live = live_baseline(ledger, candidate)
    back = live.data.results[live.data.results["version"] == "B"]
    assert back[["cited", "answer", "line"]].values.tolist() == [
        ["Lecture 2", "a\nline two", 0],
        ["L1", "b", 0],  # line 0: no line of the user's file
    ]


def test_release_messages_name_the_option(ledger):
    proc = run_cli("ledger", "release", "v1", "--ledger", ledger, "--date", "tomorrow")
    assert proc.returncode == 2
    assert _one_error_line(proc) == (
        "buddy-eval: error: --date must be a date as YYYY-MM-DD, got 'tomorrow'\n"
    )


def test_a_release_that_cannot_be_printed_is_not_recorded(ledger):
    both = {"q1", "q2"}
    be.record(
        be.evaluate(make_input("v2", "v3", passing={"v2": both, "v3": both}), "v2", "v3"),
        ledger,
        date="2026-01-03",
        by="ci",
    )
    before = dump(ledger)
    with open(os.devnull, "rb") as stdin, open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "buddy_eval",
                "ledger",
                "release",
                "v3",
                "--ledger",
                str(ledger),
                "--date",
                "2026-01-04",
                "--by",
                "ci",
            ],
            stdin=stdin,
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
    assert proc.returncode == 3
    assert proc.stderr.decode().startswith("buddy-eval: error: could not finish: ")
    assert dump(ledger) == before
    again = run_cli(
        "ledger", "release", "v3", "--ledger", ledger, "--date", "2026-01-04", "--by", "ci"
    )
    assert again.stdout.decode() == (
        "released 'v3' on 2026-01-04 on evaluation 2 (RELEASE) (release 2)\n"
    )


def test_a_ledger_of_the_first_schema_is_refused_without_side_files(tmp_path, write):
    """Schema 1 ledgers were kept in write-ahead-log mode: a reader must not leave -wal or
    -shm files beside one while refusing it."""
    from buddy_eval.ledger._schema import APPLICATION_ID

    old = tmp_path / "old.ledger"
    connection = sqlite3.connect(old)
    connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    connection.execute("PRAGMA user_version = 1")
    connection.execute("PRAGMA journal_mode = WAL").fetchone()
    connection.execute("CREATE TABLE versions (id INTEGER PRIMARY KEY, label TEXT)")
    connection.commit()
    connection.close()
    gate = [write(make_input("v1", "v2")), "--baseline", "v1", "--candidate", "v2"]
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in [*READERS, gate]:
        proc = run_cli(*args, "--ledger", old)
        assert proc.returncode == 2
        assert "is a ledger of schema version 1, written by an earlier buddy_eval" in (
            _one_error_line(proc)
        )
        assert sorted(p.name for p in tmp_path.iterdir()) == before
