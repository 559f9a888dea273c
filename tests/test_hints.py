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
        f"no result lines for the candidate version {label!r} "
        f"(versions found: 'OLD', 'NEW'){hint}"
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
