"""``--baseline live``: the baseline's results from the ledger, paired by item fingerprint."""

from __future__ import annotations

import pytest

import buddy_eval as be
from tests.conftest import run_cli
from tests.ledger_helpers import GOLDEN, make_input, result_lines

#: The golden set grows: q4 is edited (another fingerprint) and q5 is new.
GOLDEN_2 = GOLDEN.replace("L4 delta", "L4 delta,epsilon") + "q5 ANSWER L5 eta\n"
CANDIDATE = result_lines("v3", {"q1", "q2"}) + "v3 q5 L5 N eta\n"


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "release.ledger"
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), path, date="2026-02-01", by="ci")
    be.release(path, "v2", date="2026-02-01", by="ci")
    return path


def test_the_live_baseline_is_compared_on_the_items_it_holds(ledger, write):
    only_candidate = write("THRESHOLDS 0.5 0.5 0.5\n" + GOLDEN_2 + "RESULTS\n" + CANDIDATE)
    proc = run_cli(
        only_candidate,
        "--ledger",
        ledger,
        "--baseline",
        "live",
        "--candidate",
        "v3",
        "--date",
        "2026-02-02",
        "--by",
        "ci",
    )
    # v2 on q1, q2, q3 (unchanged since it was measured): both ANSWER items pass. v3 on all
    # five: q1, q2 and the new q5 pass, the edited q4 fails.
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines() == [
        "v2: correctness 1.00 citation 1.00 refusal 1.00 violations 0",
        "v3: correctness 0.75 citation 0.75 refusal 1.00 violations 0",
        "RELEASE",
    ]
    assert proc.stderr.decode().splitlines() == [
        "buddy-eval: ledger: baseline 'v2' is the live version (release 1 of 2026-02-01, on "
        "evaluation 1); compared on 3 items; not compared: added q5, changed q4, no result "
        "none; removed since: none",
        f"buddy-eval: ledger: {ledger}: recorded evaluation 2; new versions: 'v3'",
    ]
    found = be.history(ledger)
    # v2 keeps its own figures (from its own gate) in the history.
    assert found.versions["correctness_numerator"].tolist() == [1, 2, 3]
    assert found.versions["baseline"].tolist()[1:] == ["v1", "v2"]
    assert found.versions["golden_changed"].tolist() == [False, False, True]
    shown = run_cli("ledger", "show", "--ledger", ledger).stdout.decode()
    assert "v2 (live, release 1)" in shown


def test_a_removed_item_is_listed(ledger, write):
    golden = GOLDEN.replace("q2 ANSWER L2 beta\n", "")
    lines = "".join(x for x in result_lines("v3", {"q1"}).splitlines(True) if " q2 " not in x)
    path = write("THRESHOLDS 0.5 0.5 0.5\n" + golden + "RESULTS\n" + lines)
    proc = run_cli(path, "--ledger", ledger, "--baseline", "live", "--candidate", "v3")
    assert proc.stderr.decode().splitlines()[0] == (
        "buddy-eval: ledger: baseline 'v2' is the live version (release 1 of 2026-02-01, on "
        "evaluation 1); compared on 3 items; not compared: added none, changed none, no result "
        "none; removed since: q2"
    )


@pytest.mark.parametrize(
    "setup, message",
    [
        ("nothing released", "nothing has been released yet, so there is no live baseline"),
        ("no answers", "was recorded without answers (--no-answers)"),
        (
            "label in input",
            ":12: version 'v2' is the live version and already has another "
            "result for item 'q2' in the ledger",
        ),
    ],
)
def test_the_live_baseline_is_refused_when_it_cannot_be_used(setup, message, tmp_path, write):
    path = tmp_path / "l.ledger"
    be.record(
        be.evaluate(make_input("v1", "v2"), "v1", "v2"),
        path,
        date="2026-02-01",
        no_answers=setup == "no answers",
    )
    if setup != "nothing released":
        be.release(path, "v2", date="2026-02-01")
    text = "THRESHOLDS 0.5 0.5 0.5\n" + GOLDEN + "RESULTS\n" + result_lines("v3", {"q1"})
    if setup == "label in input":
        text += result_lines("v2", {"q1"})
    proc = run_cli(write(text), "--ledger", path, "--baseline", "live", "--candidate", "v3")
    assert proc.returncode == 2 and proc.stdout == b""
    assert message in proc.stderr.decode()


def test_without_a_ledger_live_is_an_ordinary_label(write):
    text = make_input("v1", "v2").replace("v1 ", "live ")
    proc = run_cli(write(text), "--baseline", "live", "--candidate", "v2")
    assert proc.returncode == 0
    assert proc.stdout.decode().startswith("live: correctness 0.33")


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_the_json_view_says_where_the_live_baseline_came_from(ledger, write):
    import json

    path = write("THRESHOLDS 0.5 0.5 0.5\n" + GOLDEN_2 + "RESULTS\n" + CANDIDATE)
    proc = run_cli(
        path, "--ledger", ledger, "--baseline", "live", "--candidate", "v3", "--format", "json"
    )
    report = json.loads(proc.stdout)
    assert report["baseline_source"] == {
        "ledger": str(ledger),
        "version": "v2",
        "release": 1,
        "release_date": "2026-02-01",
        "evaluation": 1,
        "paired_items": 3,
        "changed": ["q4"],
        "added": ["q5"],
        "removed": [],
        "no_result": [],
        "measured_in_input": [],
    }
    assert report["compared"]["not_compared"] == {
        "added": ["q5"],
        "changed": ["q4"],
        "no result": [],
    }
    assert report["compared"]["versions"]["v3"]["correctness"] == {"numerator": 2, "denominator": 2}
    assert report["versions"]["v3"]["correctness"]["exact"] == "3/4"
    plain = run_cli(path, "--ledger", ledger, "--baseline", "live", "--candidate", "v3")
    # The output format is a view, not a setting: the same evaluation, already recorded.
    assert "already recorded as evaluation 2" in plain.stderr.decode()


def test_the_documented_pandas_query_gives_each_version_its_own_figures(ledger, write):
    import re

    from tests.conftest import ROOT

    path = write("THRESHOLDS 0.5 0.5 0.5\n" + GOLDEN_2 + "RESULTS\n" + CANDIDATE)
    run_cli(path, "--ledger", ledger, "--baseline", "live", "--candidate", "v3")
    page = (ROOT / "docs" / "ledger.md").read_text(encoding="utf-8")
    block = next(
        b
        for b in re.findall(r"```python\n(.*?)```", page, flags=re.S)
        if "read_sql_query" in b and "rates" in b
    )
    namespace: dict = {}
    exec(block.replace('"release.ledger"', repr(str(ledger))), namespace)
    rates = namespace["rates"]
    found = be.history(ledger).versions.set_index("version")
    assert rates.index.tolist() == ["v1", "v2", "v3"]
    assert rates["correctness"].tolist() == [1 / 3, 2 / 3, 3 / 4]
    assert rates["correctness"].tolist() == found["correctness"].tolist()
