"""The Markdown summary, rendered by a real CommonMark/GFM parser and read back."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

import buddy_eval as be
from buddy_eval.formatting import format_rate
from buddy_eval.reporting import json_record as json_report
from buddy_eval.reporting import markdown_report
from buddy_eval.reporting._markdown import markdown_escape
from tests.conftest import DATA

#: CommonMark with GitHub's tables and strikethrough: what a step summary renders.
_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])

HOSTILE = [
    "a|b",
    "`tick`",
    "<script>alert(1)</script>",
    "*star*",
    "_under_",
    "[link](http://x)",
    "&lt;",
    "a#head",
    "\\",
    "x" * 500,
]


class _Tables(HTMLParser):
    """Every table of an HTML page as rows of cell texts; and the text outside tags."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _render(text: str) -> _Tables:
    parser = _Tables()
    parser.feed(_MD.render(text))
    return parser


@pytest.mark.parametrize(
    "name, trials", [("sample_release.txt", False), ("sample_trials.txt", True)]
)
def test_the_metrics_table_cells_equal_the_json_report(name, trials):
    ev = be.evaluate(be.load(DATA / name, trials=trials))
    page = _render(markdown_report(ev))
    metrics, stats = page.tables
    assert metrics[0] == ["metric", "OLD", "NEW", "threshold", "status"]
    report = json_report(ev)
    for row, metric in zip(metrics[1:4], ("correctness", "citation", "refusal"), strict=True):
        exact = {v: report["versions"][v][metric]["exact"] for v in ("OLD", "NEW")}
        assert row[0] == metric
        assert row[1] == format_rate(_fraction(exact["OLD"]))
        assert row[2] == format_rate(_fraction(exact["NEW"]))
        assert row[3] == format_rate(_fraction(report["thresholds"][metric]["exact"]))
        blocking = {r for r in report["decision"]["reasons"] if metric in r}
        assert (row[4] == "ok") == (not blocking)
    assert metrics[4][:3] == [
        "violations",
        str(report["versions"]["OLD"]["violations"]),
        str(report["versions"]["NEW"]["violations"]),
    ]
    for row in stats[1:]:
        block = report["comparison"][row[0]]
        if block["ready_for_decision"]:
            low, high = block["diff_ci"]
            assert row[2].startswith("[") and row[5] == block["reading_text"]
        else:
            assert row[2] == "-" and row[5].startswith("not ready")


def _fraction(text):
    from fractions import Fraction

    return Fraction(text)


def test_the_verdict_comes_first_with_every_reason():
    ev = be.evaluate(be.load(DATA / "sample_release.txt"))
    text = markdown_report(ev)
    head = text.split("\n\n")[:3]
    assert head[0] == "## Buddy release gate: BLOCK"
    assert head[1] == "**BLOCK**: NEW may not replace OLD:"
    assert head[2].splitlines() == [f"- {reason}" for reason in ev.decision.reasons]
    assert "class is the blueprint" not in text  # answers are never shown


def test_a_release_says_so():
    ev = be.evaluate("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    assert markdown_report(ev).startswith(
        "## Buddy release gate: RELEASE\n\n**RELEASE**: NEW may replace OLD.\n"
    )


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_ids_and_labels_render_literally(hostile):
    lines = ["THRESHOLDS 1 1 1", f"{hostile} ANSWER L1 key", "RESULTS"]
    lines += [f"OLD {hostile} L1 N key", f"NEW {hostile} L1 N no"]
    ev = be.evaluate("\n".join(lines) + "\n")
    text = markdown_report(ev)
    html = _MD.render(text)
    page = _render(text)
    assert "<script>" not in html and "<em>" not in html and "<a " not in html
    assert "<code>" not in html and "<h1>" not in html
    assert len(page.tables) == 2 and all(len(row) == 5 for row in page.tables[0])
    shown = hostile if len(hostile) <= 60 else hostile[:60]
    assert f"regressed 1: {shown}" in unescape(re.sub(r"<[^>]+>", "", html))


def test_escaping_keeps_one_line_and_bounds_the_length():
    assert markdown_escape("a\nb\r\u2028c") == "a\\\\x0ab\\\\x0d\\\\u2028c"
    assert markdown_escape("y" * 100) == "y" * 60 + "… (40 more characters)"
    rendered = _MD.render(markdown_escape("a\nb"))
    assert rendered == "<p>a\\x0ab</p>\n"


def test_the_summary_is_bounded_whatever_the_input():
    n = 3000
    golden = "".join(f"q{i}{'z' * 200} ANSWER L1 key\n" for i in range(n))
    results = "".join(
        f"OLD q{i}{'z' * 200} L1 N key\nNEW q{i}{'z' * 200} L1 N no\n" for i in range(n)
    )
    ev = be.evaluate("THRESHOLDS 0 0 0\n" + golden + "RESULTS\n" + results)
    text = markdown_report(ev)
    assert len(text.encode()) < 16 * 1024
    assert "and 2990 more (full list: `--details` or `--format json`)" in text
    assert markdown_report(ev) == text  # deterministic


def test_invisible_and_direction_changing_characters_show_as_escapes():
    # a right-to-left override could reverse the rest of a line; a zero-width space hide a diff
    escaped = markdown_escape("a\u202eb\u200bc\ufeffd\u2066e")
    assert escaped == "a\\\\u202eb\\\\u200bc\\\\ufeffd\\\\u2066e"
    rendered = MarkdownIt().renderInline(markdown_escape("ok\u202e\u200f"))
    assert rendered == "ok\\u202e\\u200f"
