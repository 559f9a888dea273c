"""Golden-set revisions in the ledger: results are facts per item fingerprint, the live
baseline compared like with like, releases and rollbacks, provenance and tamper evidence.

Every run goes through the real command line on real ledger files, in a clean environment
(no CI variables) with ``--date`` and ``--by`` given, in ``tmp_path`` so messages are exact.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pandas as pd
import pytest

import buddy_eval as be
from tests.ledger_helpers import dump

CI_VARIABLES = ("CI", "GITHUB_", "GITLAB_")  # CI, CI_COMMIT_SHA, GITHUB_ACTIONS, ...
HEAD = "THRESHOLDS 0.5 0.5 0.5\n"
R1 = "j01 ANSWER L1 alpha\nj02 ANSWER L2 beta\nj03 ANSWER L3 gamma\n"
GROWN = R1 + "j04 ANSWER L4 delta\nj05 ANSWER L5 epsilon\n"
PASS = {
    "j01": "L1 N alpha",
    "j02": "L2 N beta",
    "j03": "L3 N gamma",
    "j04": "L4 N delta",
    "j05": "L5 N epsilon",
    "j09": "L9 N omega",
}
FAIL = "- N no idea"


def lines(version: str, passing: str, failing: str = "") -> str:
    """Result lines: ``passing`` and ``failing`` are space-separated item ids."""
    out = [f"{version} {i} {PASS[i]}" for i in passing.split()]
    return "".join(f"{x}\n" for x in out + [f"{version} {i} {FAIL}" for i in failing.split()])


def cli(*args, cwd, env: dict | None = None):
    """``python -m buddy_eval`` with every CI variable removed (plus ``env``)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(CI_VARIABLES)}
    clean |= {"PYTHONIOENCODING": "ascii", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", *map(str, args)],
        cwd=cwd,
        env=clean,
        capture_output=True,
        timeout=120,
    )


def out(proc) -> list[str]:
    return proc.stdout.decode().splitlines()


def err(proc) -> list[str]:
    return proc.stderr.decode().splitlines()


def rows(frame: pd.DataFrame, columns: list[str]) -> list[list]:
    """Selected columns as plain lists, NA as None."""
    return [[None if pd.isna(v) else v for v in r] for r in frame[columns].to_numpy().tolist()]


class Scenario:
    """A ledger ``L`` in a folder: every command runs there with ``--by tester``."""

    def __init__(self, folder):
        self.folder, self.ledger = folder, folder / "L"

    def file(self, name: str, golden: str, results: str) -> str:
        (self.folder / name).write_text(HEAD + golden + "RESULTS\n" + results)
        return name

    def gate(self, name: str, baseline: str, candidate: str, date: str, *more, env=None):
        return cli(
            name,
            "--baseline",
            baseline,
            "--candidate",
            candidate,
            "--ledger",
            "L",
            "--date",
            date,
            "--by",
            "tester",
            *more,
            cwd=self.folder,
            env=env,
        )

    def ledger_cmd(self, action: str, *more, env=None):
        by = ("--by", "tester") if action in ("release", "rollback") else ()
        return cli("ledger", action, *more, "--ledger", "L", *by, cwd=self.folder, env=env)

    def history(self, *more):
        return cli("history", "--ledger", "L", *more, cwd=self.folder)

    def dump(self) -> list[str]:
        return dump(self.ledger)


@pytest.fixture
def issue(tmp_path):
    """The issue: B passes every item (3 ANSWER items) and is live; the golden set grows
    by j04, j05; candidate C breaks j01 (which B passes) and passes the new items."""
    s = Scenario(tmp_path)
    s.file("b.txt", R1, lines("A", "j01 j02", "j03") + lines("B", "j01 j02 j03"))
    assert s.gate("b.txt", "A", "B", "2026-03-01").returncode == 0
    assert out(s.ledger_cmd("release", "B", "--date", "2026-03-02")) == [
        "released 'B' on 2026-03-02 on evaluation 1 (RELEASE) (release 1)"
    ]
    c_lines = lines("C", "j02 j03 j04 j05", "j01")
    s.file("c.txt", GROWN, c_lines)
    s.file("c_and_b.txt", GROWN, c_lines + lines("B", "j04 j05"))
    s.file("a2.txt", R1, lines("B", "j01 j02 j03") + lines("A2", "j01 j02 j03"))
    return s


ISSUE_VERDICT = [
    "B: correctness 1.00 citation 1.00 refusal n/a violations 0",
    "C: correctness 0.80 citation 0.80 refusal n/a violations 0",
    "BLOCK: regression in correctness; regression in citation",
]
HINT = (
    "to compare them, run version 'B' on those items, add its result lines (labelled B) "
    "to the input and run again: they are scored with its stored results and recorded as "
    "its own"
)


# The issue's scenario ----------------------------------------------------------------------


def test_issue_the_live_gate_compares_b_on_the_items_it_was_measured_on(issue):
    proc = issue.gate("c.txt", "live", "C", "2026-03-03")
    assert (proc.returncode, out(proc)) == (1, ISSUE_VERDICT)
    assert err(proc) == [
        "buddy-eval: ledger: baseline 'B' is the live version (release 1 of 2026-03-02, on "
        "evaluation 1); compared on 3 items; not compared: added j04, j05, changed none, no "
        "result none; removed since: none",
        "buddy-eval: ledger: L: recorded evaluation 2; new versions: 'C'",
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_issue_details_head_block_lists_the_items_not_compared(issue):
    proc = issue.gate("c.txt", "live", "C", "2026-03-03", "--details")
    assert proc.returncode == 1
    assert out(proc)[:11] == [
        *ISSUE_VERDICT,
        "",
        "compared on 3 of 5 golden items: the baseline is the live version 'B' (release 1 of "
        "2026-03-02), read from the ledger",
        "  not compared (added since the baseline was measured): j04, j05",
        f"  {HINT}",
        "  B's line, the regression checks and every paired figure cover the 3 compared items; "
        "C's line, its thresholds and its violations cover all 5",
        "  on the compared items:",
        "    B: correctness 1.00 (3/3) citation 1.00 (3/3) refusal n/a violations 0",
        "    C: correctness 0.67 (2/3) citation 0.67 (2/3) refusal n/a violations 0",
    ]
    assert "correctness: 3 of 3 ANSWER items paired" in out(proc)  # the statistics: 3 items


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_issue_json_says_where_the_baseline_came_from(issue):
    proc = issue.gate("c.txt", "live", "C", "2026-03-03", "--format", "json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert report["baseline_source"] == {
        "ledger": "L",
        "version": "B",
        "release": 1,
        "release_date": "2026-03-02",
        "evaluation": 1,
        "paired_items": 3,
        "changed": [],
        "added": ["j04", "j05"],
        "removed": [],
        "no_result": [],
        "measured_in_input": [],
    }
    compared = report["compared"]
    assert (compared["items"], compared["of"], compared["hint"]) == (3, 5, HINT)
    assert compared["not_compared"] == {"added": ["j04", "j05"], "changed": [], "no result": []}
    assert compared["versions"]["C"]["correctness"] == {"numerator": 2, "denominator": 3}


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_issue_markdown_has_a_bullet_for_the_items_not_compared(issue):
    proc = issue.gate("c.txt", "live", "C", "2026-03-03", "--format", "markdown")
    assert proc.returncode == 1
    bullets = [x for x in out(proc) if x.lstrip(" ").startswith("- ")]
    # Nested under the line about the compared items, as --details indents it.
    assert "  - not compared \\(added since the baseline was measured\\)\\: j04\\, j05" in bullets
    assert any(x.startswith("- compared on 3 of 5 golden items") for x in bullets)


def test_issue_b_rerun_on_the_new_items_pairs_every_item(issue):
    proc = issue.gate("c_and_b.txt", "live", "C", "2026-03-03", "--format", "json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert report["decision"]["verdict"] == ISSUE_VERDICT[2]
    source = report["baseline_source"]
    assert (source["paired_items"], source["measured_in_input"]) == (5, ["j04", "j05"])
    assert report["compared"]["not_compared"] == {"added": [], "changed": [], "no result": []}
    assert report["compared"]["hint"] is None
    assert err(proc)[-1] == (
        "buddy-eval: ledger: L: recorded evaluation 2; new versions: 'C'; results added for "
        "items new to 'B'"
    )
    text = issue.gate("c_and_b.txt", "live", "C", "2026-03-03")
    assert (text.returncode, out(text)) == (1, ISSUE_VERDICT)


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_issue_the_ledger_then_holds_bs_results_on_the_new_items(issue):
    assert issue.gate("c_and_b.txt", "live", "C", "2026-03-03").returncode == 1
    shown = out(issue.ledger_cmd("show"))
    assert "  2   B        3 on r1, 2 on r2              5             kept" in shown
    items = be.history(issue.ledger).items
    assert rows(items[items["version"] == "B"], ["revision", "item_id", "passed"]) == [
        ["r1", "j01", True],
        ["r1", "j02", True],
        ["r1", "j03", True],
        ["r2", "j04", True],
        ["r2", "j05", True],
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_an_edited_item_is_compared_once_b_is_rerun_on_it(issue):
    edited = R1.replace("L3 gamma", "L3 gamma,zeta")
    issue.file("e.txt", edited, lines("C", "j01 j02") + "C j03 L3 N gamma zeta\n")
    first = issue.gate("e.txt", "live", "C", "2026-03-03", "--details")
    assert (first.returncode, out(first)[4:6]) == (
        0,
        [
            "compared on 2 of 3 golden items: the baseline is the live version 'B' (release 1 of "
            "2026-03-02), read from the ledger",
            "  not compared (changed since the baseline was measured): j03",
        ],
    )
    # B's stored answer "gamma" lacks the new keyword: on the edited j03 it fails.
    issue.file(
        "e_and_b.txt",
        edited,
        lines("C", "j01 j02") + "C j03 L3 N gamma zeta\n" + "B j03 L3 N gamma\n",
    )
    second = issue.gate("e_and_b.txt", "live", "C", "2026-03-04", "--format", "json")
    source = json.loads(second.stdout)["baseline_source"]
    assert (second.returncode, source["paired_items"], source["changed"]) == (0, 3, ["j03"])
    assert source["measured_in_input"] == ["j03"]
    items = be.history(issue.ledger).items
    b_j03 = items[(items["version"] == "B") & (items["item_id"] == "j03")]
    assert rows(b_j03, ["revision", "correct", "cited_ok", "passed"]) == [
        ["r1", 1, 1, True],
        ["r2", 0, 1, False],
    ]
    assert b_j03["item_fingerprint"].nunique() == 2


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_a_live_version_line_contradicting_its_stored_result_names_file_and_line(issue):
    issue.file("bad.txt", GROWN, lines("C", "j02 j03 j04 j05", "j01") + lines("B", "", "j01"))
    before = issue.dump()
    proc = issue.gate("bad.txt", "live", "C", "2026-03-03")
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert err(proc) == [
        "buddy-eval: error: bad.txt:13: version 'B' is the live version and already has "
        "another result for item 'j01' in the ledger; the results of a version are facts: "
        "remove this line or give its results a new version label"
    ]
    assert issue.dump() == before


# Results are facts per item fingerprint ----------------------------------------------------


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
@pytest.mark.parametrize(
    "changed, extra, message",
    [
        ("B j03 - N nope\n", (), "another result"),
        ("B j03 L3 N gamma\nB j03 L3 N gamma\n", ("--trials",), "1 trial there, 2 here"),
    ],
    ids=["another-answer", "another-trial-count"],
)
def test_a_different_result_for_a_recorded_item_is_refused_and_nothing_written(
    issue, changed, extra, message
):
    issue.file("again.txt", R1, lines("A", "j01 j02", "j03") + lines("B", "j01 j02") + changed)
    before = issue.dump()
    proc = issue.gate("again.txt", "A", "B", "2026-03-05", *extra)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert err(proc) == [
        f"buddy-eval: error: again.txt:11: version 'B' already has a result for item 'j03' in the "
        "ledger "
        f"({message}); the results of a version are facts: give these results a new version "
        "label"
    ]
    assert issue.dump() == before


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_the_same_results_in_another_line_order_change_nothing(issue):
    recorded = lines("A", "j01 j02", "j03") + lines("B", "j01 j02 j03")
    issue.file("reordered.txt", R1, "".join(reversed(recorded.splitlines(True))))
    before = issue.dump()
    proc = issue.gate("reordered.txt", "A", "B", "2026-03-05")
    plain = cli("b.txt", "--baseline", "A", "--candidate", "B", cwd=issue.folder)
    assert (proc.returncode, out(proc)) == (0, out(plain))
    assert err(proc) == [
        "buddy-eval: ledger: L: already recorded as evaluation 1 (same input, same settings); "
        "nothing changed"
    ]
    assert issue.dump() == before


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_a_version_recorded_on_a_grown_golden_set_adds_only_its_new_items(issue):
    grown = R1 + "j04 ANSWER L4 delta\n"
    issue.file("g.txt", grown, lines("B", "j01 j02 j03 j04") + lines("D", "j01 j02 j03 j04"))
    proc = issue.gate("g.txt", "B", "D", "2026-03-05")
    assert (proc.returncode, err(proc)) == (
        0,
        [
            "buddy-eval: ledger: L: recorded evaluation 2; new versions: 'D'; results added for "
            "items new to 'B'"
        ],
    )
    assert "  2   B        3 on r1, 1 on r2              4             kept" in out(
        issue.ledger_cmd("show")
    )


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_without_a_ledger_a_missing_result_still_counts_as_failed(tmp_path):
    s = Scenario(tmp_path)
    s.file("m.txt", R1, lines("A", "j01 j02 j03") + lines("B", "j02 j03"))
    proc = cli("m.txt", "--baseline", "A", "--candidate", "B", cwd=tmp_path)
    assert (proc.returncode, out(proc)) == (
        1,
        [
            "A: correctness 1.00 citation 1.00 refusal n/a violations 0",
            "B: correctness 0.67 citation 0.67 refusal n/a violations 0",
            "BLOCK: regression in correctness; regression in citation",
        ],
    )
    assert err(proc) == [
        "buddy-eval: warning: m.txt:2: golden item 'j01' has no result for version 'B'; it "
        "counts as failed"
    ]


# Releases and rollbacks ----------------------------------------------------------------------


@pytest.fixture
def blocked(issue):
    """The issue's ledger with C's BLOCK (evaluation 2) and A2's RELEASE (3), both 2026-03-03."""
    assert issue.gate("c.txt", "live", "C", "2026-03-03").returncode == 1
    assert issue.gate("a2.txt", "B", "A2", "2026-03-03").returncode == 0
    return issue


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("C", "--date", "2026-03-04"),
            "version 'C' was blocked by its latest gate "
            '(evaluation 2); release it only with --override "REASON"',
        ),
        (
            ("A", "--date", "2026-03-04", "--override", "x"),
            "--override is only for a version "
            "its latest gate blocked; 'A' needs none: it was never gated as a candidate",
        ),
        (
            ("A2", "--date", "2026-03-04", "--override", "x"),
            "--override is only for a version "
            "its latest gate blocked; 'A2' needs none: its latest gate (evaluation 3) said RELEASE",
        ),
        (
            ("C", "--date", "2026-03-02", "--override", "x"),
            "--date 2026-03-02 is before "
            "evaluation 2 (2026-03-03); a version goes live after it was evaluated",
        ),
        (
            ("A", "--date", "2026-03-01"),
            "--date 2026-03-01 is before the live release "
            "(2026-03-02, release 1); releases are recorded in the order they happen",
        ),
        (
            ("B", "--date", "2026-03-04", "--override", "x"),
            "version 'B' is already the live version; there is nothing to override",
        ),
    ],
    ids=[
        "block-without-override",
        "override-never-gated",
        "override-released",
        "before-evaluation",
        "before-live-release",
        "override-live",
    ],
)
def test_a_release_a_rule_refuses_exits_2_and_writes_nothing(blocked, args, message):
    before = blocked.dump()
    proc = blocked.ledger_cmd("release", *args)
    assert (proc.returncode, proc.stdout, err(proc)) == (2, b"", [f"buddy-eval: error: {message}"])
    assert blocked.dump() == before


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_releasing_the_live_version_again_changes_nothing(issue):
    before = issue.dump()
    proc = issue.ledger_cmd("release", "B", "--date", "2026-03-09")
    said = "'B' is already the live version (released on 2026-03-02); nothing changed"
    assert (proc.returncode, out(proc), proc.stderr) == (0, [said], b"")
    assert issue.dump() == before


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_an_override_and_a_rollback_are_kept_with_their_reasons(blocked):
    released = blocked.ledger_cmd("release", "C", "--date", "2026-03-04", "--override", "demo")
    assert out(released) == [
        "released 'C' on 2026-03-04 on evaluation 2 (BLOCK); BLOCK overridden: demo (release 2)"
    ]
    back = blocked.ledger_cmd("rollback", "B", "--date", "2026-03-05", "--reason", "j01 broke")
    assert (back.returncode, out(back)) == (
        0,
        ["rolled back to 'B' on 2026-03-05: j01 broke (release 3)"],
    )
    found = be.history(blocked.ledger)
    assert rows(
        found.releases,
        [
            "release",
            "kind",
            "version",
            "date",
            "evaluation",
            "verdict",
            "override_reason",
            "rollback_reason",
            "recorded_by",
            "commit",
        ],
    ) == [
        [1, "release", "B", "2026-03-02", 1, "RELEASE", None, None, "tester", None],
        [2, "release", "C", "2026-03-04", 2, "BLOCK", "demo", None, "tester", None],
        [3, "rollback", "B", "2026-03-05", 1, None, None, "j01 broke", "tester", None],
    ]
    assert rows(found.versions, ["version", "live", "released", "commit"]) == [
        ["A", False, False, None],
        ["B", True, True, None],
        ["C", False, True, None],
        ["A2", False, False, None],
    ]
    text = out(blocked.history())
    start = text.index("releases:")
    assert text[start + 1 : start + 5] == [
        "  release  version  date        evidence                reason               by",
        "  1        B        2026-03-02  evaluation 1 (RELEASE)  -                    tester",
        "  2        C        2026-03-04  evaluation 2 (BLOCK)    override: demo       tester",
        "  3        B        2026-03-05  rollback                rollback: j01 broke  tester",
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_release_whose_message_cannot_be_printed_is_not_recorded(issue):
    assert issue.gate("a2.txt", "B", "A2", "2026-03-03").returncode == 0
    before = issue.dump()
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "buddy_eval",
                "ledger",
                "release",
                "A2",
                "--ledger",
                "L",
                "--date",
                "2026-03-04",
                "--by",
                "tester",
            ],
            cwd=issue.folder,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert proc.returncode == 3
    assert err(proc)[0].startswith(
        "buddy-eval: error: could not finish: cannot write to standard output"
    )
    assert len(err(proc)) == 1 and issue.dump() == before
    retry = issue.ledger_cmd("release", "A2", "--date", "2026-03-04")
    assert (retry.returncode, out(retry)) == (
        0,
        ["released 'A2' on 2026-03-04 on evaluation 2 (RELEASE) (release 2)"],
    )
    assert be.history(issue.ledger).releases["version"].tolist() == ["B", "A2"]


# Provenance ----------------------------------------------------------------------------------

GITHUB = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_SHA": "0123456789abcdef0123",
    "GITHUB_SERVER_URL": "https://github.com",
    "GITHUB_REPOSITORY": "acme/buddy",
    "GITHUB_RUN_ID": "42",
    "GITHUB_WORKFLOW": "gate",
    "GITHUB_RUN_NUMBER": "7",
}
GITLAB = {
    "GITLAB_CI": "true",
    "CI_COMMIT_SHA": "fedcba9876543210aaaa",
    "CI_JOB_URL": "https://gitlab.com/acme/buddy/-/jobs/9",
    "CI_PIPELINE_URL": "https://gitlab.com/acme/buddy/-/pipelines/5",
}


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_the_ci_run_is_recorded_with_each_evaluation_and_release(tmp_path):
    s = Scenario(tmp_path)
    s.file("b.txt", R1, lines("A", "j01 j02", "j03") + lines("B", "j01 j02 j03"))
    assert s.gate("b.txt", "A", "B", "2026-03-01", env=GITHUB).returncode == 0
    assert s.ledger_cmd("release", "B", "--date", "2026-03-02", env=GITLAB).returncode == 0
    found = be.history(s.ledger)
    github, gitlab = GITHUB["GITHUB_SHA"], GITLAB["CI_COMMIT_SHA"]
    assert rows(found.versions, ["version", "recorded_by", "commit"]) == [
        ["A", "tester", github],
        ["B", "tester", github],
    ]
    assert rows(found.releases, ["recorded_by", "commit", "run_url", "pipeline"]) == [
        ["tester", gitlab, GITLAB["CI_JOB_URL"], GITLAB["CI_PIPELINE_URL"]]
    ]
    with sqlite3.connect(f"file:{s.ledger}?mode=ro", uri=True) as connection:
        assert connection.execute("SELECT run_url, pipeline FROM evaluations").fetchall() == [
            ("https://github.com/acme/buddy/actions/runs/42", "gate #7")
        ]
    shown = "\n".join(out(s.ledger_cmd("show")))
    assert "tester @ 0123456789ab" in shown and "tester @ fedcba987654" in shown
    assert (
        "  1        B        2026-03-02  evaluation 1 (RELEASE)  -       tester @ "
        "fedcba987654" in out(s.history())
    )


# Tamper evidence -----------------------------------------------------------------------------

#: A change made with the sqlite3 module to the live version B's rows, and what names it.
TAMPER = {
    "metric": (
        "UPDATE evaluation_metrics SET numerator = 2 WHERE evaluation_id = 1 AND "
        "version_id = 2 AND metric = 'correctness'",
        "L: evaluation 1 was changed outside buddy-eval (",
    ),
    "answer": (
        "UPDATE result_sets SET lines = replace(lines, 'gamma', 'gamma!') WHERE version_id = 2",
        "L: the results of version 'B' were changed outside buddy-eval (",
    ),
}
READERS = {
    "history": ("history", "--ledger", "L"),
    "show": ("ledger", "show", "--ledger", "L"),
    "verify": ("ledger", "verify", "--ledger", "L"),
    "live gate": (
        "c.txt",
        "--baseline",
        "live",
        "--candidate",
        "C",
        "--ledger",
        "L",
        "--date",
        "2026-03-03",
        "--by",
        "tester",
    ),
}


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_verify_passes_a_ledger_written_only_by_buddy_eval(issue):
    proc = issue.ledger_cmd("verify")
    assert (proc.returncode, out(proc), proc.stderr) == (
        0,
        ["L: every row holds (1 golden set, 2 versions, 2 result rows, 1 evaluation, 1 release)"],
        b"",
    )


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("tamper", list(TAMPER))
def test_a_row_changed_outside_buddy_eval_stops_every_reader(issue, tamper, reader):
    statement, says = TAMPER[tamper]
    with sqlite3.connect(issue.ledger) as connection:
        connection.execute(statement)
    connection.close()
    before = issue.dump()
    proc = cli(*READERS[reader], cwd=issue.folder)
    assert (proc.returncode, proc.stdout) == (2, b""), err(proc)
    [line] = err(proc)
    assert line.startswith(f"buddy-eval: error: {says}")
    assert issue.dump() == before


# History ---------------------------------------------------------------------------------------

TWO = "j01 ANSWER L1 alpha\nj02 ANSWER L2 beta\n"


def release_a_b_d(s: Scenario) -> None:
    """A goes live, then B and D (both BLOCKed by their gates) with an override."""
    s.ledger_cmd("release", "A", "--date", "2026-03-04")
    s.ledger_cmd("release", "B", "--date", "2026-03-04", "--override", "x")
    assert s.ledger_cmd("release", "D", "--date", "2026-03-05", "--override", "y").returncode == 0


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_history_a_missing_result_is_no_observation(tmp_path):
    s = Scenario(tmp_path)
    s.file("1.txt", TWO, lines("A", "j01 j02") + lines("B", "j02"))
    s.file("2.txt", TWO, lines("B", "j02") + lines("C", "j01 j02"))
    s.file("3.txt", TWO, lines("C", "j01 j02") + lines("D", "j02"))
    for k, (base, cand, status) in enumerate([("A", "B", 1), ("B", "C", 0), ("C", "D", 1)], 1):
        assert s.gate(f"{k}.txt", base, cand, f"2026-03-0{k}").returncode == status
    release_a_b_d(s)
    found = be.history(s.ledger)
    assert rows(found.items, ["version", "item_id", "passed"]) == [
        ["A", "j01", True],
        ["A", "j02", True],
        ["B", "j02", True],
        ["C", "j01", True],
        ["C", "j02", True],
        ["D", "j02", True],
    ]
    assert (found.flipped.empty, found.escaped.empty, found.always_failed.empty) == (True,) * 3


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_history_with_trials_a_5_of_5_to_4_of_5_item_is_mixed_not_a_regression(tmp_path):
    s = Scenario(tmp_path)

    def trials(version, passing):
        return lines(version, "j01 " * passing, "j01 " * (5 - passing)) + lines(version, "j02 " * 5)

    runs = [("A", "B", 5, 4, 1), ("B", "C", 4, 5, 0), ("C", "D", 5, 4, 1)]
    for k, (base, cand, a, b, status) in enumerate(runs, 1):
        s.file(f"{k}.txt", TWO, trials(base, a) + trials(cand, b))
        assert s.gate(f"{k}.txt", base, cand, f"2026-03-0{k}", "--trials").returncode == status
    release_a_b_d(s)
    found = be.history(s.ledger)
    j01 = found.items[found.items["item_id"] == "j01"]
    assert rows(j01, ["version", "trials", "correct", "passing_trials", "passed"]) == [
        ["A", 5, 5, 5, True],
        ["B", 5, 4, 4, False],
        ["C", 5, 5, 5, True],
        ["D", 5, 4, 4, False],
    ]
    assert found.flipped.empty and found.escaped.empty
    assert out(s.history())[-2:] == [
        "items flipped more than once (0): none",
        "regressions that escaped (0): none",
    ]


# Five versions across a golden-set change: r2 edits j02, adds j04 and removes j09.
R1_FIVE = R1 + "j09 ANSWER L9 omega\n"
R2_FIVE = R1.replace("L2 beta", "L2 beta,theta") + "j04 ANSWER L4 delta\n"


@pytest.fixture
def five(tmp_path):
    s = Scenario(tmp_path)
    s.file("1.txt", R1_FIVE, lines("V1", "j01", "j02 j03 j09") + lines("V2", "j01 j02", "j03 j09"))
    s.file("2.txt", R1_FIVE, lines("V2", "j01 j02", "j03 j09") + lines("V3", "j01 j02 j03 j09"))
    v4 = "V4 j01 L1 N alpha\nV4 j02 L2 N beta theta\n" + lines("V4", "j03 j04")
    # V3 measured on the edited j02 (its answer lacks theta) and the new j04 (it fails).
    s.file("3.txt", R2_FIVE, v4 + "V3 j02 L2 N beta\n" + lines("V3", "", "j04"))
    s.file("4.txt", R2_FIVE, v4.replace("V4", "V5").replace("V5 j04 L4 N delta", "V5 j04 - N x"))
    assert s.gate("1.txt", "V1", "V2", "2026-03-01").returncode == 0
    assert s.gate("2.txt", "V2", "V3", "2026-03-02").returncode == 0
    s.ledger_cmd("release", "V3", "--date", "2026-03-03")
    assert s.gate("3.txt", "live", "V4", "2026-03-04").returncode == 0
    s.ledger_cmd("release", "V4", "--date", "2026-03-05")
    assert s.gate("4.txt", "live", "V5", "2026-03-06").returncode == 1
    return s


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_five_versions_the_history_frames_show_the_revision_change(five):
    found = be.history(five.ledger)
    assert rows(
        found.versions,
        [
            "version",
            "revision",
            "golden_changed",
            "date",
            "live",
            "released",
            "correctness_numerator",
        ],
    ) == [
        ["V1", "r1", False, "2026-03-01", False, False, 1],
        ["V2", "r1", False, "2026-03-01", False, False, 2],
        ["V3", "r1", False, "2026-03-02", False, True, 4],
        ["V4", "r2", True, "2026-03-04", True, True, 4],
        ["V5", "r2", False, "2026-03-06", False, False, 3],
    ]
    assert rows(found.revisions, ["revision", "items", "added", "removed", "changed"]) == [
        ["r1", 4, 0, 0, 0],
        ["r2", 4, 1, 1, 1],
    ]
    assert rows(found.revision_changes, ["revision", "change", "item_id"]) == [
        ["r2", "added", "j04"],
        ["r2", "removed", "j09"],
        ["r2", "changed", "j02"],
    ]
    assert rows(
        found.across,
        [
            "version",
            "previous_version",
            "from_revision",
            "to_revision",
            "shared_items",
            "metric",
            "previous",
            "current",
        ],
    ) == [
        ["V4", "V3", "r1", "r2", 2, "correctness", 1, 1],
        ["V4", "V3", "r1", "r2", 2, "citation", 1, 1],
        ["V4", "V3", "r1", "r2", 2, "refusal", None, None],
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_five_versions_the_history_text_marks_the_revision_change(five):
    text = out(five.history())
    assert (
        text[0] == "ledger L: 5 versions, 2 releases, 2 golden-set revisions; live: V4 since "
        "2026-03-05"
    )
    marker = text.index(
        "-- golden set r1 -> r2: +1 j04 -1 j09 ~1 j02; the rates above and below are on "
        "different items; on the 2 items both revisions share and both versions hold, V3 -> V4: "
        "correctness 1.00 -> 1.00, citation 1.00 -> 1.00, refusal n/a -> n/a --"
    )
    assert [line.split()[:2] for line in text[marker - 1 : marker + 2]] == [
        ["V3", "r1"],
        ["--", "golden"],
        ["V4", "r2"],
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_five_versions_the_readme_pandas_query_pivots_one_row_per_version(five):
    with sqlite3.connect(f"file:{five.ledger}?mode=ro", uri=True) as connection:
        figures = pd.read_sql_query("SELECT * FROM version_metrics", connection)
    connection.close()
    assert len(figures) == 5 * 4  # one row per (version, metric)
    rates = figures.assign(rate=figures.numerator / figures.denominator).pivot(
        index="version", columns="metric", values="rate"
    )
    assert rates.index.tolist() == ["V1", "V2", "V3", "V4", "V5"]
    assert rates["correctness"].tolist() == [0.25, 0.5, 1.0, 1.0, 0.75]
    assert rates["citation"].tolist() == [0.25, 0.5, 1.0, 1.0, 0.75]
    chosen = figures.drop_duplicates("version")
    assert rows(chosen, ["version", "evaluation_id", "revision", "date"]) == [
        ["V1", 1, "r1", "2026-03-01"],
        ["V2", 1, "r1", "2026-03-01"],
        ["V3", 2, "r1", "2026-03-02"],
        ["V4", 3, "r2", "2026-03-04"],
        ["V5", 4, "r2", "2026-03-06"],
    ]


@pytest.mark.slow  # many command-line runs on real ledgers: `make test` runs it
def test_five_versions_the_json_and_markdown_history_show_the_revision_diff(five):
    found = json.loads(five.history("--format", "json").stdout)
    assert found["live"] == "V4"
    assert [r["diff"] for r in found["revisions"]] == [
        {"added": [], "removed": [], "changed": []},
        {"added": ["j04"], "removed": ["j09"], "changed": ["j02"]},
    ]
    assert found["across_revisions"][0] == {
        "version": "V4",
        "previous_version": "V3",
        "from_revision": "r1",
        "to_revision": "r2",
        "shared_items": 2,
        "metric": "correctness",
        "previous": {"numerator": 1, "denominator": 1},
        "current": {"numerator": 1, "denominator": 1},
    }
    markdown = out(five.history("--format", "markdown"))
    assert any(
        x.startswith("| **golden set r1 \\-\\> r2\\: \\+1 j04 \\-1 j09 \\~1 j02\\;")
        for x in markdown
    )
