"""Every example case (../shared/cases, copied to tests/cases) through the real CLI."""

from __future__ import annotations

import pytest

from buddy_eval import evaluate, load
from tests.conftest import example_cases, run_cli
from tests.oracle import run as oracle_run

CASES = example_cases()


def test_the_cases_are_there():
    names = {p.stem for p in CASES}
    assert {"seed-example", "halfup-eighths", "err-bad-flag", "missing-results"} <= names


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_cli_matches_expected_output(case):
    expected = case.with_suffix(".out").read_bytes()
    expected_rc = int(case.with_suffix(".rc").read_text().strip())
    proc = run_cli(case)
    assert proc.returncode == expected_rc, proc.stderr.decode()
    assert proc.stdout == expected
    if expected_rc == 2:
        message = proc.stderr.decode()
        assert message.startswith("buddy-eval: error: ")
        assert message.count("\n") == 1
        assert f"{case}:" in message  # names the file and a line number
        assert "Traceback" not in message


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_oracle_agrees_with_expected_output(case):
    """The oracle is only worth comparing against if it passes the cases too."""
    stdout, rc = oracle_run(case.read_bytes())
    assert rc == int(case.with_suffix(".rc").read_text().strip())
    assert stdout == case.with_suffix(".out").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c.with_suffix(".rc").read_text().strip() != "2"],
    ids=lambda p: f"{p.parent.parent.name}/{p.stem}",
)
def test_python_api_matches_expected_output(case):
    text = evaluate(load(case)).report()
    assert text + "\n" == case.with_suffix(".out").read_text(encoding="utf-8")
