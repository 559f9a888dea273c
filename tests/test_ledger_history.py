"""History across the ledger, checked against outcomes worked out by hand.

The inputs (tests/ledger_helpers.py): items q1, q2, q4 are ANSWER items and q3
a REFUSE item every version refuses. Passing ANSWER items per version:
v1 {q1}, v2 {q1, q2}, v3 {q2}, v4 {q1}; q4 never passes. So q1 goes
pass, pass, fail, pass (2 flips), q2 fail, pass, pass, fail (2 flips).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pandas as pd
import pytest
from markdown_it import MarkdownIt

import buddy_eval as be
from buddy_eval.formatting import format_fraction
from tests.conftest import run_cli
from tests.ledger_helpers import GOLDEN, make_input


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "release.ledger"
    dates = ("2025-12-29", "2025-12-30", "2025-12-31")
    for (base, cand), date in zip((("v1", "v2"), ("v2", "v3"), ("v3", "v4")), dates, strict=True):
        be.record(be.evaluate(make_input(base, cand), base, cand), path, date=date, by="ci")
    be.release(path, "v1", date="2026-01-01", by="ci")
    be.release(path, "v2", date="2026-01-08", by="ci")
    be.release(path, "v3", date="2026-01-15", override="outage fix", by="ci")
    return path


def test_one_row_per_version_with_the_hand_computed_figures(ledger):
    versions = be.history(ledger).versions
    assert versions["version"].tolist() == ["v1", "v2", "v3", "v4"]
    assert versions["position"].tolist() == [1, 2, 3, 4]
    assert versions["correctness_numerator"].tolist() == [1, 2, 1, 1]
    assert versions["correctness_denominator"].tolist() == [3, 3, 3, 3]
    assert versions["citation_numerator"].tolist() == [1, 2, 1, 1]
    assert versions["refusal_numerator"].tolist() == [1, 1, 1, 1]
    assert versions["refusal_denominator"].tolist() == [1, 1, 1, 1]
    assert versions["violations"].tolist() == [0, 0, 0, 0]
    assert versions["correctness"].tolist() == [1 / 3, 2 / 3, 1 / 3, 1 / 3]
    assert versions["verdict"].tolist()[1:] == ["RELEASE", "BLOCK", "BLOCK"]
    assert pd.isna(versions["verdict"].iloc[0])
    assert versions["baseline"].tolist()[1:] == ["v1", "v2", "v3"]
    assert versions["reasons"].iloc[2] == (
        "correctness below threshold; citation below threshold; regression in correctness; "
        "regression in citation"
    )
    assert versions["evaluation"].tolist()[1:] == [1, 2, 3]
    assert versions["released"].tolist() == [True, True, True, False]
    assert versions["release_date"].tolist()[:3] == ["2026-01-01", "2026-01-08", "2026-01-15"]
    assert versions["override_reason"].iloc[2] == "outage fix"
    assert versions["golden_items"].tolist() == [4, 4, 4, 4]
    assert versions["golden_changed"].tolist() == [False] * 4
    assert str(versions["correctness"].dtype) == "Float64"


def test_one_row_per_version_and_item(ledger):
    items = be.history(ledger).items
    assert len(items) == 16
    passed = {
        v: set(items[(items["version"] == v) & items["passed"]]["item_id"])
        for v in ("v1", "v2", "v3", "v4")
    }
    assert passed == {
        "v1": {"q1", "q3"},
        "v2": {"q1", "q2", "q3"},
        "v3": {"q2", "q3"},
        "v4": {"q1", "q3"},
    }
    assert items["trials"].tolist() == [1] * 16


def test_items_across_versions(ledger):
    found = be.history(ledger)
    assert found.always_failed["item_id"].tolist() == ["q4"]
    assert found.always_failed["versions"].tolist() == [4]
    assert found.flipped[["item_id", "flips"]].values.tolist() == [["q1", 2], ["q2", 2]]
    # q1 passed in v2 (released) and fails in v3 (released next); no later release fixes it.
    escaped = found.escaped
    assert escaped[["item_id", "version", "release_date", "previous_release"]].values.tolist() == [
        ["q1", "v3", "2026-01-15", "v2"]
    ]
    assert found.live == "v3"


def test_a_later_release_that_fixes_the_item_ends_the_escape(ledger):
    be.release(ledger, "v4", date="2026-01-22", override="rollback of q1")
    escaped = be.history(ledger).escaped
    # q1 passes again in v4; q2 passed in v3 and fails in v4, the last release.
    assert escaped[["item_id", "version", "previous_release"]].values.tolist() == [
        ["q2", "v4", "v3"]
    ]


def test_a_changed_golden_set_is_marked(ledger):
    edited = GOLDEN.replace("L4 delta", "L4 delta,epsilon")
    passing = {"v5": {"q1"}, "v6": {"q1", "q2"}}
    be.record(
        be.evaluate(make_input("v5", "v6", edited, passing), "v5", "v6"),
        ledger,
        date="2026-01-20",
        by="ci",
    )
    found = be.history(ledger)
    versions = found.versions
    assert versions["golden_changed"].tolist() == [False] * 4 + [True, False]
    assert versions["revision"].tolist() == ["r1"] * 4 + ["r2"] * 2
    assert versions["golden_set"].iloc[4] != versions["golden_set"].iloc[3]
    columns = ["revision", "items", "added", "removed", "changed"]
    assert found.revisions[columns].values.tolist() == [["r1", 4, 0, 0, 0], ["r2", 4, 0, 0, 1]]
    assert found.revision_changes.values.tolist() == [["r2", "changed", "q4"]]
    # v4 and v5 on the items both revisions share (q1, q2, q3): each passes q1 of q1, q2.
    across = found.across.set_index("metric")
    assert across.loc["correctness", ["previous", "current"]].tolist() == [
        Fraction(1, 2),
        Fraction(1, 2),
    ]
    assert across["shared_items"].tolist() == [3, 3, 3]
    text = run_cli("history", "--ledger", ledger).stdout.decode()
    assert (
        "-- golden set r1 -> r2: ~1 q4; the rates above and below are on different items; on "
        "the 3 items both revisions share and both versions hold, v4 -> v5: correctness 0.50 "
        "-> 0.50, citation 0.50 -> 0.50, refusal 1.00 -> 1.00 --"
    ) in text
    lines = text.splitlines()
    mark = next(k for k, line in enumerate(lines) if line.startswith("-- golden set r1 -> r2"))
    assert lines[mark - 1].startswith("v4 ") and lines[mark + 1].startswith("v5 ")
    # The edited q4 is a new item: failed by both versions holding it, apart from the old q4.
    assert found.always_failed["versions"].tolist() == [4, 2]


def test_the_text_view(ledger):
    proc = run_cli("history", "--ledger", ledger)
    assert proc.returncode == 0
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == (
        f"ledger {ledger}: 4 versions, 3 releases, 1 golden-set revision; live: v3 since 2026-01-15"
    )
    assert lines[2].split() == [
        "version",
        "revision",
        "items",
        "correctness",
        "citation",
        "refusal",
        "violations",
        "verdict",
        "released",
    ]
    assert lines[3].split()[0] == "v1" and lines[3].split()[3:7] == ["0.33", "0.33", "1.00", "0"]
    assert lines[5].split()[3:] == [
        "0.33",
        "0.33",
        "1.00",
        "0",
        "BLOCK",
        "vs",
        "v2",
        "2026-01-15",
        "(live)",
    ]
    releases = lines[lines.index("releases:") + 1 :][:4]
    assert [r.split() for r in releases] == [
        ["release", "version", "date", "evidence", "reason", "by"],
        ["1", "v1", "2026-01-01", "never", "gated", "-", "ci"],
        ["2", "v2", "2026-01-08", "evaluation", "1", "(RELEASE)", "-", "ci"],
        ["3", "v3", "2026-01-15", "evaluation", "2", "(BLOCK)", "override:", "outage", "fix", "ci"],
    ]
    assert lines[-3:] == [
        "items failed by every version holding them (1): q4",
        "items flipped more than once (2): q1 (2 flips), q2 (2 flips)",
        "regressions that escaped (1): q1 in v3 (released 2026-01-15)",
    ]


def test_the_text_and_json_views_agree(ledger):
    found = be.history(ledger)
    data = json.loads(run_cli("history", "--ledger", ledger, "--format", "json").stdout)
    assert [v["version"] for v in data["versions"]] == found.versions["version"].tolist()
    for entry, row in zip(data["versions"], found.versions.to_dict("records"), strict=True):
        for metric in ("correctness", "citation", "refusal"):
            assert entry[metric] == {
                "numerator": row[f"{metric}_numerator"],
                "denominator": row[f"{metric}_denominator"],
            }
        assert entry["released"] == row["released"]
        assert entry["override_reason"] == (
            None if pd.isna(row["override_reason"]) else row["override_reason"]
        )
    assert [e["item_id"] for e in data["escaped"]] == found.escaped["item_id"].tolist()
    assert [e["item_id"] for e in data["flipped"]] == found.flipped["item_id"].tolist()
    assert data["live"] == "v3"
    text = run_cli("history", "--ledger", ledger).stdout.decode()
    for entry in data["versions"]:
        rate = entry["correctness"]
        shown = format_fraction(Fraction(rate["numerator"], rate["denominator"]))
        line = next(line for line in text.splitlines() if line.startswith(entry["version"] + " "))
        assert line.split()[3] == shown


def test_the_ledger_reads_with_pandas_and_plain_sql(ledger):
    import sqlite3

    connection = sqlite3.connect(ledger)
    frame = pd.read_sql_query(
        "SELECT v.label, m.numerator, m.denominator FROM evaluation_metrics m "
        "JOIN versions v ON v.id = m.version_id WHERE m.metric = 'correctness' "
        "AND m.evaluation_id = (SELECT max(evaluation_id) FROM evaluation_metrics "
        "WHERE version_id = v.id) ORDER BY v.id",
        connection,
    )
    connection.close()
    assert frame.values.tolist() == [["v1", 1, 3], ["v2", 2, 3], ["v3", 1, 3], ["v4", 1, 3]]


def test_an_empty_history_for_a_ledger_without_versions(tmp_path, ledger):
    from buddy_eval.ledger._schema import writing

    new = tmp_path / "new.ledger"
    with writing(new, create=True):
        pass
    found = be.history(new)
    assert found.versions.empty and found.items.empty and found.live is None
    text = run_cli("history", "--ledger", new).stdout.decode()
    assert text.startswith(
        f"ledger {new}: 0 versions, 0 releases, 0 golden-set revisions; nothing released yet"
    )


def test_the_markdown_view_shows_the_same_table(ledger):
    text = run_cli("history", "--ledger", ledger).stdout.decode().splitlines()
    markdown = run_cli("history", "--ledger", ledger, "--format", "markdown").stdout.decode()
    # Punctuation is backslash-escaped (it renders literally); read it back unescaped.
    lines = [re.sub(r"\\(.)", r"\1", line) for line in markdown.splitlines()]
    assert lines[0] == (
        f"### ledger {ledger}: 4 versions, 3 releases, 1 golden-set revision; live: v3 since "
        "2026-01-15"
    )
    assert lines[2] == (
        "| version | revision | items | correctness | citation | refusal | "
        "violations | verdict | released |"
    )
    rows = [line.strip("| ").split(" | ") for line in lines[4:8]]
    for row, plain in zip(rows, text[3:7], strict=True):
        assert row[0] == plain.split()[0] and row[3:7] == plain.split()[3:7]
    assert rows[2][-1] == "2026-01-15 (live)"
    assert "| 3 | v3 | 2026-01-15 | evaluation 2 (BLOCK) | override: outage fix | ci |" in lines
    assert lines[-3:] == [
        "- items failed by every version holding them (1): q4",
        "- items flipped more than once (2): q1 (2 flips), q2 (2 flips)",
        "- regressions that escaped (1): q1 in v3 (released 2026-01-15)",
    ]


def test_markdown_escapes_pipes_in_labels_and_reasons(tmp_path):
    path = tmp_path / "l.ledger"
    text = make_input("v1", "a|b", passing={"v1": {"q1", "q2"}, "a|b": {"q1"}})
    be.record(be.evaluate(text, "v1", "a|b"), path, date="2026-01-01", by="ci")
    be.release(path, "a|b", date="2026-01-01", override="x | y")
    markdown = run_cli("history", "--ledger", path, "--format", "markdown").stdout.decode()
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<td>a|b</td>" in rendered and "<td>override: x | y</td>" in rendered


def test_plot_history_draws_the_rates_thresholds_releases_and_golden_changes(ledger):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    edited = GOLDEN.replace("L4 delta", "L4 delta,epsilon")
    passing = {"v5": {"q1"}, "v6": {"q1", "q2"}}
    be.record(
        be.evaluate(make_input("v5", "v6", edited, passing), "v5", "v6"),
        ledger,
        date="2026-01-20",
        by="ci",
    )
    ax = be.plot_history(be.history(ledger))
    lines = {line.get_gid(): line for line in ax.get_lines()}
    assert list(lines["rate/correctness/0"].get_ydata()) == [1 / 3, 2 / 3, 1 / 3, 1 / 3]
    assert list(lines["rate/correctness/1"].get_ydata()) == [1 / 3, 2 / 3]
    assert list(lines["threshold/citation"].get_ydata()) == [0.5, 0.5]
    assert "golden-change/v5" in lines
    bands = {p.get_gid(): p for p in ax.patches}
    assert set(bands) == {"release/v1", "release/v2", "release/v3"}
    assert [t.get_text() for t in ax.get_xticklabels()] == ["v1", "v2", "v3", "v4", "v5", "v6"]
    grid = be.plot_history_grid(ledger)
    (image,) = [i for i in grid.get_images() if i.get_gid() == "history-grid"]
    labels = [t.get_text() for t in grid.get_yticklabels()]
    # q3 always passes, both q4s always fail; q2 flips 3 times, q1 twice (most first).
    assert labels == ["q2", "q1"]
    data = image.get_array()
    assert data[0].tolist() == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    assert data[1].tolist() == [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    plt.close("all")


def test_the_readme_pandas_query_runs_on_a_real_ledger(ledger):
    from tests.conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = next(
        b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "read_sql_query" in b
    )
    namespace: dict = {}
    exec(block.replace('"release.ledger"', repr(str(ledger))), namespace)
    rates = namespace["rates"]
    found = be.history(ledger).versions.set_index("version")
    assert rates.index.tolist() == ["v1", "v2", "v3", "v4"]
    for version in rates.index:
        for metric in ("correctness", "citation", "refusal"):
            assert rates.loc[version, metric] == found.loc[version, metric]


def test_the_history_object_prints_what_the_command_prints(ledger):
    found = be.history(ledger)
    assert run_cli("history", "--ledger", ledger).stdout.decode() == found.text() + "\n"
    markdown = run_cli("history", "--ledger", ledger, "--format", "markdown").stdout.decode()
    assert markdown.rstrip("\n") == found.markdown().rstrip("\n")
