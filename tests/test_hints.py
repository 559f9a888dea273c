"""Hints for the mistakes newcomers make: each names the fix, none changes a verdict."""

from __future__ import annotations

import pytest

import buddy_eval
from buddy_eval import InputError, Settings, evaluate, load
from tests.conftest import run_cli as run_anywhere


def run_cli(path, *args):
    """Run the command line in the input's folder, so messages name the file only."""
    return run_anywhere(path.name, *args, cwd=path.parent)


HEADER = "THRESHOLDS 0.5 0.5 0.5\n"


def test_a_spaced_keyword_found_only_as_separate_words_gets_a_hint():
    data = load(
        HEADER + "q1 ANSWER L3 class object\nq2 ANSWER L3 try block, catch\nRESULTS\n"
        "OLD q1 L3 N class object\nNEW q1 L3 N an object of a class\n"
        "OLD q2 L3 N try block and catch\nNEW q2 L3 N try the block, catch\n"
    )
    assert data.warnings == (
        "<text>:2: keyword 'class object' is one keyword that answers contain only as "
        "separate words; keywords are comma-separated ('class,object' for each word)",
    )


def test_a_spaced_keyword_that_answers_contain_as_a_phrase_gets_no_hint():
    data = load(
        HEADER + "q1 ANSWER L3 default method\nRESULTS\n"
        "OLD q1 L3 N a default method\nNEW q1 L3 N no idea\n"
    )
    assert data.warnings == ()


def test_spaced_keyword_hints_are_capped(write):
    golden = "".join(f"q{i} ANSWER L1 red apple\n" for i in range(25))
    results = "".join(f"OLD q{i} L1 N apple red\nNEW q{i} L1 N red apple\n" for i in range(25))
    done = run_cli(write(HEADER + golden + "RESULTS\n" + results))
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 11
    assert lines[-1] == (
        "buddy-eval: warning: input.txt: 15 more keywords with a space are found in answers "
        "only as separate words"
    )
    assert done.stdout.decode().splitlines()[-1] == "RELEASE"


def test_a_repeated_result_without_trials_names_the_option(write):
    text = HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    done = run_cli(write(text))
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "buddy-eval: error: input.txt:5: duplicate result for version 'OLD' and id 'q1' "
        "(first given on line 4); repeated results are read as trials with --trials "
        "(Python: trials=True)\n"
    )
    assert run_cli(write(text), "--trials").returncode == 0


@pytest.mark.parametrize(
    ("label", "hint"),
    [("new", "; did you mean 'NEW'?"), ("NWE", "; did you mean 'NEW'?"), ("zzz", "")],
)
def test_an_unknown_label_suggests_the_closest_one(label, hint):
    data = load(HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    with pytest.raises(InputError) as caught:
        evaluate(data, "OLD", label)
    assert caught.value.message == (
        f"no result lines for the candidate version {label!r} (versions found: 'OLD', 'NEW'){hint}"
    )


@pytest.mark.parametrize(
    ("first_line", "hint"),
    [
        ('{"tasks": []}', "this looks like JSON: golden tasks and runs in JSON are read by"),
        ("[1, 2]", "this looks like JSON"),
        ("item_id,item_type,required_source", "this looks like CSV: read the golden set"),
        ("q1 ANSWER L1 a,b", None),
    ],
)
def test_a_file_in_another_format_says_where_it_belongs(write, first_line, hint):
    done = run_cli(write(first_line + "\n"))
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "as the first line" in err
    assert ("looks like" in err) == (hint is not None)
    if hint:
        assert hint in err


def test_settings_in_a_label_position_is_the_projects_error():
    data = load(HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    with pytest.raises(InputError, match="settings=Settings"):
        evaluate(data, Settings())
    with pytest.raises(InputError, match="settings must be a buddy_eval.Settings"):
        evaluate(data, "OLD", "NEW", 0.95)


def test_dir_lists_the_public_api_only():
    assert dir(buddy_eval) == sorted([*buddy_eval.__all__, "__version__"])


def test_the_evaluation_repr_shows_the_verdict():
    ev = evaluate(HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N b\n")
    verdict = "BLOCK: correctness below threshold; regression in correctness"
    assert repr(ev).splitlines()[-1] == verdict


def _ledger(folder):
    """A real release ledger, recorded through the command line."""
    source = folder / "input.txt"
    source.write_text(HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    assert run_cli(source, "--ledger", "release.ledger").returncode == 0
    return folder / "release.ledger"


def test_a_ledger_given_as_the_input_says_what_to_run_instead(tmp_path):
    ledger = _ledger(tmp_path)
    done = run_cli(ledger)
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        "buddy-eval: error: release.ledger: is a buddy_eval release ledger (an SQLite file), "
        "not the text input: see what it holds with `buddy-eval history --ledger "
        "release.ledger`, or give the text input and `--ledger release.ledger` to the gate to "
        "record an evaluation in it\n"
    )
    piped = run_anywhere("-", stdin=ledger.read_bytes())
    assert piped.returncode == 2
    assert "`buddy-eval history --ledger PATH`" in piped.stderr.decode()
    assert piped.stderr.decode().count("\n") == 1


def test_a_ledger_given_as_golden_tasks_gets_the_same_hint(tmp_path):
    _ledger(tmp_path)
    done = run_anywhere(
        "tasks",
        "--golden",
        "release.ledger",
        "--run-a",
        "release.ledger",
        "--run-b",
        "release.ledger",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert done.stderr.decode().startswith(
        "buddy-eval: error: release.ledger: is a buddy_eval release ledger (an SQLite file), "
        "not a JSON file of golden tasks or run records: see what it holds with"
    )


def test_another_sqlite_database_is_named_as_one(tmp_path):
    import sqlite3

    connection = sqlite3.connect(tmp_path / "other.db")
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    done = run_cli(tmp_path / "other.db")
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "buddy-eval: error: other.db: is an SQLite database, not the text input\n"
    )


def test_the_ledger_marker_is_the_one_the_ledger_writes():
    from buddy_eval._parsing import LEDGER_APPLICATION_ID
    from buddy_eval.ledger._schema import APPLICATION_ID

    assert LEDGER_APPLICATION_ID == APPLICATION_ID


def test_baseline_live_without_a_ledger_asks_for_one(write):
    done = run_cli(
        write(HEADER + "q1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"),
        "--baseline",
        "live",
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == (
        "buddy-eval: error: --baseline live reads the live version (the one released last) "
        "from a release ledger: give --ledger PATH too (the input has no result lines labelled "
        "'live'; versions found: 'OLD', 'NEW')\n"
    )
