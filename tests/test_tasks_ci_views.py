"""The tasks comparison as Markdown and JUnit, read back with real parsers."""

from __future__ import annotations

import os

import pytest
from junitparser import Failure, JUnitXml, Skipped
from markdown_it import MarkdownIt

from buddy_eval.tasks import compare_runs
from tests.conftest import DATA, run_cli

FILES = [
    DATA / "golden-tasks.example.json",
    DATA / "run-a.example.json",
    DATA / "run-b.example.json",
]


@pytest.fixture(scope="module")
def comparison():
    return compare_runs(*FILES, "tutor-v1", "tutor|v2")


def test_the_junit_counts_equal_the_outcomes_and_the_pairs(comparison, tmp_path):
    path = tmp_path / "r.xml"
    path.write_text(comparison.junit(), encoding="utf-8")
    checks, paired = list(JUnitXml.fromfile(str(path)))
    assert checks.name == "checks tutor|v2" and paired.name == "paired tasks"
    b = comparison.outcomes[comparison.outcomes["run"] == "tutor|v2"]
    assert checks.tests == len(b)
    assert checks.failures == int((b["outcome"] == "fail").sum())
    assert checks.skipped == int((b["outcome"] == "unknown").sum())
    pairs = comparison.pairs
    assert paired.tests == len(pairs)
    assert paired.skipped == int((~pairs["both_scored"]).sum())
    lost = sorted(pairs.loc[pairs["change"] == "loss", "golden_id"])
    assert sorted(c.name for c in paired if any(isinstance(r, Failure) for r in c.result)) == lost
    assert paired.failures == comparison.paired.losses
    for case in paired:
        if any(isinstance(r, Skipped) for r in case.result):
            assert case.name in set(pairs.loc[~pairs["both_scored"], "golden_id"])


def test_the_markdown_tables_equal_the_json_numbers(comparison):
    import json

    from tests.test_markdown_report import _Tables

    text = comparison.markdown()
    page = _Tables()
    page.feed(MarkdownIt("commonmark").enable("table").render(text))
    runs, paired_table, tier_table = page.tables
    report = json.loads(comparison.to_json())
    tier_rows = [
        (tier, metric, figures["n_paired"], figures["fixed"], figures["regressed"])
        for tier, entry in report["slices"].items()
        for metric, figures in entry["comparison"].items()
    ]
    assert [(r[0], r[1], *map(int, r[2:5])) for r in tier_table[1:]] == tier_rows
    paired = report["paired"]
    row = paired_table[1]
    assert [int(c) for c in row[1:4]] == [paired["wins"], paired["ties"], paired["losses"]]
    assert row[0] == "-0.010" and paired["mean_delta"] == pytest.approx(-0.01)
    for table_row, summary in zip(runs[1:], report["runs"].values(), strict=True):
        assert int(table_row[1]) == summary["n"] and int(table_row[2]) == summary["scored_n"]
    assert text.startswith("## Buddy golden tasks: tutor\\|v2 against tutor\\-v1\n")
    assert "**tutor\\|v2 lower**: jv\\-12, jv\\-18, jv\\-23" in text


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_the_tasks_files_are_written_beside_the_report(tmp_path):
    args = ["tasks", "--golden", FILES[0], "--run-a", FILES[1], "--run-b", FILES[2]]
    plain = run_cli(*args)
    done = run_cli(*args, "--markdown", tmp_path / "t.md", "--junit", tmp_path / "t.xml")
    assert (done.returncode, done.stdout, done.stderr) == (0, plain.stdout, plain.stderr)
    assert sorted(os.listdir(tmp_path)) == ["t.md", "t.xml"]
    markdown = run_cli(*args, "--format", "markdown")
    assert markdown.stdout.decode() == (tmp_path / "t.md").read_text(encoding="utf-8")
    refused = run_cli(*args, "--junit", FILES[2])
    assert refused.returncode == 2 and b"is the run B file this run reads" in refused.stderr


def test_a_run_with_no_scored_task_reads_n_a_in_every_view(tmp_path):
    golden = tmp_path / "golden.json"
    golden.write_text(
        '[{"id": "g1", "prompt": "p", "tier": "t", '
        '"checks": [{"type": "max_cost_usd", "value": 0.01}]}]'
    )
    runs = []
    for name, micros in (("a", "null"), ("b", "5")):
        runs.append(tmp_path / f"{name}.json")
        runs[-1].write_text(
            f'[{{"task_id": "t{name}", "golden_id": "g1", "status": "completed", '
            f'"usd_micros": {micros}}}]'
        )
    args = ["tasks", "--golden", golden, "--run-a", runs[0], "--run-b", runs[1]]
    text = run_cli(*args)
    markdown = run_cli(*args, "--format", "markdown")
    assert text.returncode == markdown.returncode == 0, markdown.stderr
    assert markdown.stderr == text.stderr and b"Traceback" not in markdown.stderr
    table = MarkdownIt().enable("table").parse(markdown.stdout.decode())
    cells = [t.content for t in table if t.type == "inline"]
    assert "n/a" in cells
    assert "n/a" in text.stdout.decode()


def test_a_lost_task_shows_its_scores_rounded_from_the_exact_counts(tmp_path):
    from buddy_eval.tasks import build_golden, build_run
    from tests.test_tasks_support import paired_runs

    golden, run_a, run_b = paired_runs([(2, 1)], checks_per_task=3)
    comparison = compare_runs(build_golden(golden), build_run(run_a), build_run(run_b), "A", "B")
    path = tmp_path / "r.xml"
    path.write_text(comparison.junit(), encoding="utf-8")
    _, paired = list(JUnitXml.fromfile(str(path)))
    (case,) = list(paired)
    (failure,) = [r for r in case.result if isinstance(r, Failure)]
    assert failure.text == "score 0.67 (2 of 3 checks) -> 0.33 (1 of 3 checks)"


def test_the_markdown_names_what_the_text_and_the_json_leave_out(comparison):
    """Unscored pairs, excluded records and the warnings: in the text, the JSON and the summary."""
    record = comparison.to_dict()
    text, summary = comparison.report(), comparison.markdown()
    unscored = record["paired"]["unscored"]
    excluded = sum(run["excluded_records"] for run in record["runs"].values())
    assert (unscored, excluded) == (["jv-31"], 2)
    assert "  in both runs but without a score on one side: jv-31\n" in text
    assert "- **in both runs but without a score on one side**: jv\\-31\n" in summary
    assert "\nexcluded: 2 records with a golden_id not in the golden set\n\nTiers: " in text
    assert "- **excluded**: 2 records with a golden_id not in the golden set\n" in summary
    warned = summary.split("\n### 2 warnings\n\n", 1)[1].splitlines()
    assert len(warned) == len(record["warnings"]) == 2
    assert warned[0].startswith("- ") and "run\\-a\\.example\\.json\\: record \\#29 " in warned[0]
    assert "golden\\_id \\'jv\\-old\\-14\\' is not in the golden set" in warned[0]
