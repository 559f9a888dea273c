"""The evaluation's rich display in Jupyter: content and escaping."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import buddy_eval as be
from buddy_eval.display import evaluation_html, flipped_items, metrics_table

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
        "<strong>BLOCK</strong>: refusal below threshold; integrity violations; "
        "regression in citation; regression in refusal" in html
    )
    # metrics table: exact counts beside the rounded figures, and the thresholds
    for cell in ("0.84 (27/32)", "0.91 (29/32)", "0.97 (31/32)", "0.80 (8/10)"):
        assert f"<td>{cell}</td>" in html
    for threshold in ("0.80", "0.85", "0.90"):
        assert f"<td>{threshold}</td>" in html
    assert "<td>below threshold; regression</td>" in html
    assert "<td>integrity violations</td>" in html
    # missing results per version, with the ids
    assert "<code>OLD</code>: 0" in html
    assert "<code>NEW</code>: 2 (j31, r10)" in html
    # flipped items per metric
    assert "correctness 5 fixed, 3 regressed" in html
    assert "citation 1 fixed, 4 regressed" in html
    assert "refusal 1 fixed, 2 regressed" in html
    assert "Warnings: 2" in html


def test_summary_of_a_release():
    ev = be.evaluate(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    )
    html = evaluation_html(ev)
    assert "<strong>RELEASE</strong></p>" in html
    assert "<td>not measured</td>" in html  # refusal: no REFUSE item
    assert "<td>n/a</td>" in html
    assert "Warnings" not in html


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
    allowed = {"div", "p", "strong", "code", "table", "thead", "tbody", "tr", "th", "td", "ul"}
    assert set(re.findall(r"</?([a-zA-Z]+)", html)) <= allowed | {"li"}


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


def test_metrics_table(ev):
    table = metrics_table(ev)
    assert list(table.index) == ["correctness", "citation", "refusal", "violations"]
    assert list(table.columns) == ["OLD (baseline)", "NEW (candidate)", "threshold", "status"]
    assert table.loc["correctness"].tolist() == ["0.84 (27/32)", "0.91 (29/32)", "0.80", "ok"]
    assert table.loc["citation", "status"] == "regression"
    assert table.loc["violations"].tolist() == ["1", "1", "0", "integrity violations"]


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
    j31 = flips[(flips["item_id"] == "j31") & (flips["metric"] == "correctness")].iloc[0]
    assert j31["change"] == "regressed"
    assert pd.isna(j31["candidate_answer"])  # no result line
    assert flips["metric"].tolist() == sorted(
        flips["metric"].tolist(), key=["correctness", "citation", "refusal"].index
    )


def test_lazy_display_exports():
    assert be.flipped_items is flipped_items
    assert be.metrics_table is metrics_table
