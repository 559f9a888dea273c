"""User text in every view: one escaping function per output kind (terminal, Markdown, XML).

A label, an id or a file name may hold a bidi override (U+202E), a C1 control
(U+009B, the terminal's CSI), NEL (U+0085), a line separator (U+2028), a
vertical tab or a non-character (U+FFFE). No view prints one raw: each shows
it as a visible ``\\x..`` or ``\\u....`` escape.
"""

from __future__ import annotations

import subprocess
import sys
from xml.etree import ElementTree

import pandas as pd
import pytest
from markdown_it import MarkdownIt

import buddy_eval as be
from buddy_eval.formatting import markdown_text, terminal_text, xml_text
from tests.conftest import ROOT, run_cli
from tests.test_tasks_support import EXAMPLE

#: A character of each kind the escapers must show, and how it is shown.
INVISIBLE = {
    "\u202e": "\\u202e",  # RIGHT-TO-LEFT OVERRIDE (Cf)
    "\u2066": "\\u2066",  # LEFT-TO-RIGHT ISOLATE (Cf)
    "\u200b": "\\u200b",  # ZERO WIDTH SPACE (Cf)
    "\ufeff": "\\ufeff",  # BYTE ORDER MARK (Cf)
    "\u009b": "\\x9b",  # CONTROL SEQUENCE INTRODUCER (C1, Cc)
    "\u0085": "\\x85",  # NEXT LINE (C1, Cc)
    "\x1b": "\\x1b",  # ESCAPE (Cc)
    "\x0b": "\\x0b",  # VERTICAL TAB (Cc)
    "\x7f": "\\x7f",  # DELETE (Cc)
    "\u2028": "\\u2028",  # LINE SEPARATOR (Zl)
    "\u2029": "\\u2029",  # PARAGRAPH SEPARATOR (Zp)
    "\ufffe": "\\ufffe",  # a non-character
    "\ufdd0": "\\ufdd0",  # a non-character
    "\U0001ffff": "\\U0001ffff",  # a non-character beyond the first plane
    "\ud800": "\\ud800",  # a lone surrogate (Cs)
    "\U000e0001": "\\U000e0001",  # LANGUAGE TAG (Cf)
}


@pytest.mark.parametrize(("char", "shown"), INVISIBLE.items())
def test_every_invisible_character_is_shown_as_an_escape(char, shown):
    assert terminal_text(f"v{char}x") == f"v{shown}x"
    assert xml_text(f"v{char}x") == f"v{shown}x"
    assert markdown_text(f"v{char}x") == f"v\\{shown}x"  # renders as the escape


@pytest.mark.parametrize("text", ["plain", "é日本語 😀", "a\u00a0b", "ünï cödé", "\ue000"])
def test_visible_text_is_kept_as_it_is(text):
    assert terminal_text(text) == text == xml_text(text)


def test_xml_text_keeps_tab_and_line_breaks_the_terminal_does_not():
    assert xml_text("a\tb\nc\rd") == "a\tb\nc\rd"
    assert terminal_text("a\tb\nc\rd") == "a\\x09b\\x0ac\\x0dd"


def test_markdown_text_renders_literally_and_is_cut_at_the_limit():
    text = "a|b *c* <script> \u202e\x0b"
    rendered = MarkdownIt().renderInline(markdown_text(text))
    assert rendered == "a|b *c* &lt;script&gt; \\u202e\\x0b"
    assert markdown_text("y" * 10, limit=4) == "yyyy… (6 more characters)"


# --------------------------------------------------------------------------
# Through the command line
# --------------------------------------------------------------------------

RAW = ("\u202e", "\u009b", "\u0085", "\u2028", "\x0b", "\x0c")


def _record_labels(ledger, labels: list[str]) -> None:
    """Each label evaluated against the one before it and recorded, in order."""
    golden = pd.DataFrame(
        {"item_id": ["q1"], "item_type": ["ANSWER"], "required_source": ["L1"], "keywords": ["a"]}
    )
    for before, label in zip(labels, labels[1:], strict=False):
        results = pd.DataFrame(
            {
                "version": [before, label],
                "item_id": ["q1", "q1"],
                "cited": ["L1", "L1"],
                "refused": ["N", "N"],
                "answer": ["a", "a"],
            }
        )
        data = be.from_frames(golden, results, [0.5, 0.5, 0.5])
        be.record(be.evaluate(data, before, label), ledger)


LABELS = ["v1", "v\u202ex", "v\u009bx", "v\u0085x", "v\u2028x", "v\x0bx", "v\x0cx"]


@pytest.mark.parametrize("command", [["history"], ["ledger", "show"]])
def test_history_and_ledger_show_print_no_invisible_character(tmp_path, command):
    ledger = tmp_path / "l.ledger"
    _record_labels(ledger, LABELS)
    done = run_cli(*command, "--ledger", ledger)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert not any(char in out for char in RAW)
    for shown in ("v\\u202ex", "v\\x9bx", "v\\x85x", "v\\u2028x", "v\\x0bx", "v\\x0cx"):
        assert shown in out


def test_the_markdown_history_keeps_every_label_distinct(tmp_path):
    ledger = tmp_path / "l.ledger"
    _record_labels(ledger, LABELS)
    done = run_cli("history", "--ledger", ledger, "--format", "markdown")
    assert done.returncode == 0, done.stderr
    markdown = done.stdout.decode()
    assert not any(char in markdown for char in RAW)
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    cells = {
        f"<td>v{shown}x</td>"
        for shown in ("\\u202e", "\\x9b", "\\x85", "\\u2028", "\\x0b", "\\x0c")
    }
    assert all(cell in rendered for cell in cells), rendered


def _junit(path):
    root = ElementTree.parse(path).getroot()  # raises on a document that is not well-formed
    return root, [suite.get("name") for suite in root]


def test_the_tasks_junit_report_escapes_the_suite_name_like_the_root(tmp_path):
    report = tmp_path / "r.xml"
    done = run_cli(
        "tasks",
        "--golden",
        EXAMPLE["golden"],
        "--run-a",
        EXAMPLE["a"],
        "--run-b",
        EXAMPLE["b"],
        "--label-b",
        "B\ufffe",
        "--junit",
        report,
    )
    assert done.returncode == 0, done.stderr
    root, suites = _junit(report)
    assert root.get("name") == "buddy-eval tasks B\\ufffe"
    assert suites == ["checks B\\ufffe", "paired tasks"]
    assert "\ufffe" not in done.stdout.decode()
    assert "B\\ufffe" in done.stdout.decode()


def test_the_gate_escapes_labels_in_text_markdown_and_junit(tmp_path):
    label = "N\u202e\u009bY\ufffe"
    text = (
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nq2 REFUSE - -\nRESULTS\n"
        f"O q1 L1 N a\nO q2 - Y no\n{label} q1 L1 N b\n{label} q2 - N sure\n"
    )
    source = tmp_path / "in.txt"
    source.write_text(text, encoding="utf-8")
    md, xml = tmp_path / "s.md", tmp_path / "r.xml"
    done = run_cli(
        source,
        "--baseline",
        "O",
        "--candidate",
        label,
        "--details",
        "--markdown",
        md,
        "--junit",
        xml,
    )
    assert done.returncode == 1, done.stderr
    out = done.stdout.decode()
    shown = "N\\u202e\\x9bY\\ufffe"
    assert out.splitlines()[1].startswith(f"{shown}: correctness 0.00")
    assert not any(char in out for char in ("\u202e", "\u009b", "\ufffe"))
    assert shown in md.read_text(encoding="utf-8").replace("\\\\", "\\")
    root, suites = _junit(xml)
    assert root.get("name") == f"buddy-eval {shown}"
    failures = [f.text for f in root.iter("failure")]
    assert any(f and f.startswith(shown) for f in failures)


def test_an_error_message_shows_an_invisible_character_in_a_file_name(tmp_path):
    done = run_cli(tmp_path / "in\u202etxt.exe")
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert "\u202e" not in err and "in\\u202etxt.exe" in err and err.count("\n") == 1


def test_the_python_api_keeps_labels_as_given():
    """The escaping belongs to the views: ``report()`` is the data the caller gave."""
    code = (
        "import buddy_eval as be\n"
        "t = 'THRESHOLDS 0 0 0\\nq1 ANSWER L1 a\\nRESULTS\\nO q1 L1 N a\\nN\\u202e q1 L1 N a\\n'\n"
        "print(ascii(be.evaluate(t, 'O', 'N\\u202e').report().splitlines()[1][:3]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.stdout.strip() == "'N\\u202e:'"
