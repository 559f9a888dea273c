"""The evaluation's rich display in Jupyter: content and escaping."""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

import buddy_eval as be
from buddy_eval._notebook_views import (
    Report,
    collapsible,
    evaluation_html,
    flipped_items,
    format_metrics_table,
    metrics_table,
)
from buddy_eval._vocabulary import CHANGES

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_release.txt"

# Labels, ids, sources and answers that are markup. Fields are whitespace-free tokens,
# answers are the rest of the line.
HOSTILE = """\
THRESHOLDS 0.5 0.5 0.5
<i>q1</i> ANSWER <b>L1</b> class
q2&amp; ANSWER L2 object
q3 REFUSE - -
RESULTS
<b>old</b> <i>q1</i> <b>L1</b> N a class <script>alert("old")</script>
<b>old</b> q2&amp; L2 N an object
<b>old</b> q3 - Y no
<s>new</s> <i>q1</i> <b>L1</b> N <script>alert("new")</script>
<s>new</s> q3 - N <img src=x onerror=alert(1)> sure
"""


@pytest.fixture(scope="module")
def ev():
    return be.evaluate(SAMPLE)


@pytest.fixture(scope="module")
def hostile():
    return be.evaluate(HOSTILE, "<b>old</b>", "<s>new</s>")


def test_repr_html_is_the_summary(ev):
    assert ev._repr_html_() == evaluation_html(ev)


def test_summary_holds_verdict_metrics_thresholds_missing_and_flips(ev):
    html = evaluation_html(ev)
    assert (
        '<strong>BLOCK</strong>: NEW may not replace OLD:</p><ul class="reasons">'
        "<li>refusal below threshold</li><li>integrity violations</li>"
        "<li>regression in citation</li><li>regression in refusal</li></ul>" in html
    )
    # metrics table: exact counts beside the rounded figures, the thresholds, the statuses
    assert (
        "<tr><td>refusal</td><td>0.90 (9/10)</td><td>0.80 (8/10)</td><td>0.90</td>"
        "<td>below threshold; regression</td></tr>" in html
    )
    for cell in ("0.84 (27/32)", "0.91 (29/32)", "0.97 (31/32)", "0.80 (8/10)"):
        assert f"<td>{cell}</td>" in html
    for threshold in ("0.80", "0.85", "0.90"):
        assert f"<td>{threshold}</td>" in html
    assert "<td>integrity violations</td>" in html
    # why: the missing results per version, with the ids
    assert "<strong>caveat</strong>: NEW has no result for 2 golden items (j31, r10)" in html
    # changed items per metric: j31 and r10 have no NEW result, so they are missing
    assert "<li><strong>refusal</strong>: fixed 1: r06; regressed 1: r03; missing 1: r10</li>" in (
        html
    )
    assert "<h3>2 warnings</h3>" in html


def test_summary_of_a_release():
    ev = be.evaluate(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    )
    html = evaluation_html(ev)
    assert "<strong>RELEASE</strong>: NEW may replace OLD.</p>" in html
    assert "<td>not measured</td>" in html  # refusal: no REFUSE item
    assert "<td>n/a</td>" in html
    assert "buddy-eval-warnings" not in html  # no warnings section (the health line counts its own)


def test_every_user_text_is_escaped(hostile):
    html = evaluation_html(hostile)
    # no markup from the input survives
    for raw in ("<script", "<i>", "<b>", "<s>", "<img", "<text>"):
        assert raw not in html, raw
    # but the text is there, escaped
    assert "&lt;b&gt;old&lt;/b&gt;" in html
    assert "&lt;s&gt;new&lt;/s&gt;" in html
    assert "&lt;text&gt;" in html  # the input's name
    # the missing item's id, escaped once (not double-escaped)
    assert "q2&amp;amp;" in html
    allowed = {"div", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "ul", "li"}
    assert 'class="buddy-eval-document buddy-eval-gate tex2jax_ignore mathjax_ignore"' in html
    assert set(re.findall(r"</?([a-zA-Z]+\d?)", html)) <= allowed | {"section", "h2", "h3"}


def test_answers_keep_their_text_and_are_escaped_in_html_tables(hostile):
    flips = flipped_items(hostile)
    row = flips[(flips["metric"] == "correctness") & (flips["item_id"] == "<i>q1</i>")].iloc[0]
    assert row["change"] == "regressed"
    assert row["baseline_answer"] == 'a class <script>alert("old")</script>'
    assert row["candidate_answer"] == '<script>alert("new")</script>'
    html = flips.to_html()
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert "<script" not in pd.DataFrame(flips)._repr_html_()


def test_metrics_table_holds_typed_numbers(ev):
    table = metrics_table(ev)
    assert list(table.index) == ["correctness", "citation", "refusal", "violations"]
    assert table.index.name == "metric"
    assert (table.attrs["baseline"], table.attrs["candidate"]) == ("OLD", "NEW")
    assert table.attrs["trials"] is False
    assert table.attrs["exact"]["correctness"] == (Fraction(27, 32), Fraction(29, 32))
    assert {c: str(t) for c, t in table.dtypes.items()} == {
        "baseline_count": "int64",
        "candidate_count": "int64",
        "items": "int64",
        "baseline_missing": "int64",
        "candidate_missing": "int64",
        "baseline_trials": "int64",
        "candidate_trials": "int64",
        "baseline_rate": "Float64",
        "candidate_rate": "Float64",
        "threshold": "Float64",
        "status": "str",
    }
    row = table.loc["correctness"]
    assert (row["baseline_count"], row["candidate_count"], row["items"]) == (27, 29, 32)
    assert row["candidate_missing"] == 1
    assert row["baseline_rate"] == 27 / 32 and row["threshold"] == 0.8
    assert table.loc["citation", "status"] == "regression"
    assert table.loc["refusal", "status"] == "below threshold; regression"
    # violations: a count, never in a rate column
    v = table.loc["violations"]
    assert (v["baseline_count"], v["candidate_count"], v["items"]) == (1, 1, 10)
    assert v["candidate_missing"] == 1
    assert pd.isna(v["baseline_rate"]) and pd.isna(v["candidate_rate"]) and pd.isna(v["threshold"])
    assert v["status"] == "integrity violations"
    # one missing marker: <NA>, never NaN
    assert not table.select_dtypes("Float64").apply(lambda c: c.isna() & c.notna()).any().any()
    assert "NaN" not in table.to_string() and "<NA>" in table.to_string()


def test_metrics_table_counts_come_from_the_paired_core(ev):
    table = metrics_table(ev)
    for m in ev.paired.metrics:
        assert table.loc[m.metric, "baseline_count"] == m.baseline.passed
        assert table.loc[m.metric, "candidate_count"] == m.candidate.passed
    assert table.loc["violations", "candidate_count"] == ev.paired.violations[1].violations


def test_unmeasured_metric_is_na_in_the_typed_table():
    ev = be.evaluate(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    )
    table = metrics_table(ev)
    assert pd.isna(table.loc["refusal", "candidate_rate"])
    assert table.loc["refusal", "items"] == 0
    assert table.loc["refusal", "status"] == "not measured"
    assert format_metrics_table(ev).loc["refusal"].tolist() == [
        "n/a",
        "n/a",
        "0.50",
        "not measured",
    ]


def test_formatted_metrics_table(ev):
    table = format_metrics_table(ev)
    assert list(table.index) == ["correctness", "citation", "refusal", "violations"]
    assert list(table.columns) == ["OLD (baseline)", "NEW (candidate)", "threshold", "status"]
    assert table.loc["correctness"].tolist() == ["0.84 (27/32)", "0.91 (29/32)", "0.80", "ok"]
    assert table.loc["citation", "status"] == "regression"
    assert table.loc["violations"].tolist() == ["1", "1", "0", "integrity violations"]
    assert format_metrics_table(metrics_table(ev)).equals(table)


def test_halfway_rates_round_half_up_in_the_formatted_table():
    lines = ["THRESHOLDS 0.5 0.5 0.5"] + [f"q{i} ANSWER L1 a" for i in range(8)] + ["RESULTS"]
    lines += [f"OLD q{i} L1 N a" for i in range(8)]
    lines += [f"NEW q{i} L1 N {'a' if i == 0 else 'b'}" for i in range(8)]
    table = format_metrics_table(be.evaluate("\n".join(lines) + "\n"))
    assert table.loc["correctness", "NEW (candidate)"] == "0.13 (1/8)"


def test_flipped_items_shape(ev):
    flips = flipped_items(ev)
    assert list(flips.columns) == [
        "metric",
        "change",
        "item_id",
        "item_type",
        "required_source",
        "baseline_cited",
        "candidate_cited",
        "baseline_answer",
        "candidate_answer",
    ]
    # j31 has no NEW result: missing, never regressed, and not listed by default
    assert "j31" not in set(flips["item_id"])
    assert set(flips["change"]) == {"fixed", "regressed"}
    assert flips["metric"].tolist() == sorted(
        flips["metric"].tolist(), key=["correctness", "citation", "refusal"].index
    )
    assert list(flips["change"].cat.categories) == list(CHANGES)


def test_flipped_items_are_a_view_of_item_changes(ev):
    changes = ev.item_changes()
    flips = flipped_items(ev)
    want = changes[changes["change"].isin(["fixed", "regressed"])]
    assert sorted(zip(flips["metric"], flips["item_id"], flips["change"], strict=True)) == sorted(
        zip(want["metric"], want["item_id"], want["change"], strict=True)
    )
    for m in ev.paired.metrics:
        of = flips[flips["metric"] == m.metric]
        for change in ("fixed", "regressed"):
            assert tuple(of.loc[of["change"] == change, "item_id"]) == m.ids[change]


def test_flipped_items_can_list_the_missing_items(ev):
    flips = flipped_items(ev, include_missing=True)
    missing = flips[flips["change"] == "missing"]
    assert list(zip(missing["metric"], missing["item_id"], strict=True)) == [
        ("correctness", "j31"),
        ("citation", "j31"),
        ("refusal", "r10"),
    ]
    j31 = missing.iloc[0]
    assert j31["baseline_answer"] == "Recursion needs a base case that stops the calls"
    assert pd.isna(j31["candidate_answer"])  # no result line
    # within a metric: regressed, fixed, then missing
    of = flips[flips["metric"] == "correctness"]["change"].tolist()
    assert of == sorted(of, key=["regressed", "fixed", "missing"].index)


def test_report_text_shows_as_lines_in_jupyter(ev):
    report = Report(ev.report())
    assert report == ev.report() and isinstance(report, str)

    class Printer:
        text_seen = ""

        def text(self, value):
            self.text_seen += value

    printer = Printer()
    report._repr_pretty_(printer, False)
    assert printer.text_seen == ev.report()
    html = report._repr_html_()
    assert html.startswith('<pre class="buddy-eval-report')
    assert "BLOCK: refusal below threshold" in html and "#b3261e" in html
    hostile = Report("<b>x</b>: correctness 1.00\nNEW: ...\nRELEASE")._repr_html_()
    assert "<b>" not in hostile and "&lt;b&gt;" in hostile and "#1b7f3b" in hostile


def test_collapsible_shows_every_row_escaped():
    frame = pd.DataFrame({"item_id": [f"<q{i}>" for i in range(700)], "x": [None] * 700})
    frame["x"] = frame["x"].astype("Float64")
    box = collapsible(frame, "All items")
    html = box._repr_html_()
    assert html.startswith('<details class="buddy-eval-details tex2jax_ignore mathjax_ignore">')
    assert "<summary>All items (700 rows)</summary>" in html
    assert html.count("<tr") == 701  # header + every row, no "..." cut
    assert "&lt;q699&gt;" in html and "<q699>" not in html
    assert "&lt;NA&gt;" in html and "NaN" not in html
    assert repr(box) == "All items (700 rows)"
    assert " open>" in collapsible(frame.head(1), "x", open=True)._repr_html_()


def test_collapsible_reads_every_missing_cell_alike():
    frame = pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": [None, float("nan")]})
    html = collapsible(frame, "t", na_rep="-")._repr_html_()
    assert html.count("<td>-</td>") == 3 and "NA" not in html and "NaN" not in html


def test_display_imports_no_pandas():
    code = "import sys, buddy_eval._notebook_views\nprint('pandas' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.stdout.strip() == "False", proc.stderr


def test_lazy_display_exports():
    assert be.flipped_items is flipped_items
    assert be.metrics_table is metrics_table
