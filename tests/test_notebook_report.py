"""``buddy-eval notebook INPUT -o report.html`` and the committed notebooks."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from buddy_eval import _notebook_report as notebook_report
from buddy_eval._cli.output import write_atomic

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
EXAMPLE_VERDICT = "BLOCK: refusal below threshold; integrity violations; regression in refusal"

SCRIPT_INPUT = """\
THRESHOLDS 0.5 0.5 0.5
q1 ANSWER L1 class
q2 REFUSE - -
RESULTS
v1 q1 L1 N a class is a blueprint
v1 q2 - Y no
v2 q1 L1 N <script>alert("pwned")</script>
v2 q2 - Y no
"""

BROKEN_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "parameters",
            "metadata": {"tags": ["parameters"]},
            "outputs": [],
            "source": 'input_path = ""\nbaseline = "OLD"\ncandidate = "NEW"',
        },
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "boom",
            "metadata": {},
            "outputs": [],
            "source": 'raise RuntimeError("the notebook broke\\non two lines")',
        },
    ],
    "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    },
    "nbformat": 4,
    "nbformat_minor": 5,
}


def run_notebook_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", "notebook", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        timeout=300,
    )


def assert_one_line_error(proc, *fragments, status=2):
    assert proc.returncode == status
    assert proc.stdout == ""
    assert proc.stderr.startswith("buddy-eval: error: ")
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- the report -------------------------------------------------------------------------


def test_report_on_the_example_holds_its_verdict(tmp_path):
    out = tmp_path / "tmp" / "r.html"
    out.parent.mkdir()
    proc = run_notebook_cli("data/example.txt", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{out}: {EXAMPLE_VERDICT}\n"
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert EXAMPLE_VERDICT in html
    assert "OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0" in html
    assert "NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1" in html
    # the file's name only: the notebook runs on a copy, no directory reaches the report
    assert "input: example.txt" in html
    assert "data/example.txt" not in html and str(ROOT) not in html
    assert html.count("data:image/png;base64") >= 3  # the charts
    assert 'class="nn">buddy_eval' not in html  # code cells hidden by default
    assert leftovers(out.parent) == []


def test_report_escapes_answers_and_takes_labels(tmp_path):
    source = tmp_path / "script.txt"
    source.write_text(SCRIPT_INPUT, encoding="utf-8")
    out = tmp_path / "r.html"
    proc = run_notebook_cli(
        source, "-o", out, "--baseline", "v1", "--candidate", "v2", "--with-code"
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "BLOCK: correctness below threshold; regression in correctness" in html
    assert "v2: correctness 0.00 citation 1.00 refusal 1.00 violations 0" in html
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(" in html
    assert 'class="nn">buddy_eval' in html  # --with-code keeps the (highlighted) code


def test_bad_input_is_one_line_error_and_no_report(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("THRESHOLDS 0.5 0.5\nRESULTS\n", encoding="utf-8")
    out = tmp_path / "r.html"
    proc = run_notebook_cli(bad, "-o", out)
    assert_one_line_error(proc, f"{bad}:1:")
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_bad_input_leaves_an_existing_report_untouched(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 X a\n")
    out = tmp_path / "r.html"
    out.write_text("the previous report", encoding="utf-8")
    proc = run_notebook_cli(bad, "-o", out)
    assert_one_line_error(proc, f"{bad}:4:")
    assert out.read_text(encoding="utf-8") == "the previous report"


def test_unknown_label_is_an_input_error(tmp_path):
    proc = run_notebook_cli("data/example.txt", "-o", tmp_path / "r.html", "--candidate", "NOPE")
    assert_one_line_error(proc, "'NOPE'")
    assert not (tmp_path / "r.html").exists()


def test_failed_notebook_run_leaves_an_existing_report_untouched(tmp_path):
    notebook = tmp_path / "broken.ipynb"
    notebook.write_text(json.dumps(BROKEN_NOTEBOOK), encoding="utf-8")
    out = tmp_path / "r.html"
    out.write_text("the previous report", encoding="utf-8")
    proc = run_notebook_cli("data/example.txt", "-o", out, "--notebook", notebook)
    # the input was fine: the run could not finish (3), never an input error or a verdict
    assert_one_line_error(
        proc, "could not finish", "RuntimeError: the notebook broke on two lines", status=3
    )
    assert out.read_text(encoding="utf-8") == "the previous report"
    assert leftovers(tmp_path) == []


def test_missing_notebook_is_a_clear_error(tmp_path):
    out = tmp_path / "r.html"
    proc = run_notebook_cli("data/example.txt", "-o", out, "--notebook", tmp_path / "no.ipynb")
    assert_one_line_error(proc, "no.ipynb: cannot read the notebook: No such file", status=2)
    assert not out.exists()


def test_output_in_a_missing_directory_is_an_error(tmp_path):
    proc = run_notebook_cli("data/example.txt", "-o", tmp_path / "nowhere" / "r.html")
    assert_one_line_error(proc, "no directory")


def test_report_never_overwrites_its_input(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text(SCRIPT_INPUT, encoding="utf-8")
    proc = run_notebook_cli(source, "-o", source, "--baseline", "v1", "--candidate", "v2")
    assert_one_line_error(proc, "is the input file")
    assert source.read_text(encoding="utf-8") == SCRIPT_INPUT


def test_standard_input_is_refused(tmp_path):
    proc = run_notebook_cli("-", "-o", tmp_path / "r.html")
    assert_one_line_error(proc, "standard input")


def test_the_release_notebook_is_found_in_the_checkout():
    assert notebook_report.default_notebook() == ROOT / "notebooks" / "release_evaluation.ipynb"
    assert notebook_report.default_notebook().is_file()


def test_two_runs_give_identical_self_contained_reports(tmp_path):
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    for out in (a, b):
        proc = run_notebook_cli("data/sample_release.txt", "-o", out)
        assert proc.returncode == 0, proc.stderr
    html = a.read_bytes()
    assert html == b.read_bytes()
    text = html.decode("utf-8")
    # nothing is fetched: no http(s) reference, no script, no external style sheet or font
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text and "<link" not in text and "@import" not in text
    assert "@font-face" not in text and "url(" not in text
    sources = re.findall(r'\b(?:src|href)="([^"]*)"', text)
    assert sources and all(s.startswith(("data:image/png;base64,", "#")) for s in sources)
    assert "mathjax" not in text.lower().replace("mathjax_ignore", "")
    assert "require.js" not in text and "mermaid" not in text
    # nothing run-specific: no temporary path, timestamp, kernel or papermill metadata
    assert "/tmp/" not in text and str(ROOT) not in text and " at 0x" not in text
    assert "papermill" not in text and "execution_count" not in text
    assert not re.search(r"\b20\d\d-\d\d-\d\d", text)  # no date unless given


def test_the_pieces_of_one_stream_are_joined_whatever_the_kernel_timing():
    import nbformat

    def stream(name, text):
        return nbformat.v4.new_output("stream", name=name, text=text)

    cell = nbformat.v4.new_code_cell("print(...)")
    cell.outputs = [
        stream("stdout", "a\n"),
        stream("stderr", "noise\n"),
        stream("stdout", ["b\n", "c\n"]),
        nbformat.v4.new_output("display_data", data={"text/plain": "x"}),
        stream("stdout", "d\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    outputs = notebook_report.clean_notebook(nb).cells[0].outputs
    assert [(o.output_type, o.get("text")) for o in outputs] == [
        ("stream", "a\nb\nc\n"),
        ("display_data", None),
        ("stream", "d\n"),
    ]
    assert nb.cells[0].outputs[0].text == "a\n"  # the executed notebook is left as it was


def test_report_opens_with_the_verdict_banner_and_provenance(tmp_path):
    import buddy_eval

    html = notebook_report.render_report("data/example.txt", date="2026-12-01")
    banner = html[html.index("<header") : html.index("</header>")]
    assert '<header class="banner block" id="verdict">' in banner
    assert '<p class="verdict">BLOCK</p>' in banner
    for reason in ("refusal below threshold", "integrity violations", "regression in refusal"):
        assert f"<li>{reason}</li>" in banner
    digest = hashlib.sha256((ROOT / "data" / "example.txt").read_bytes()).hexdigest()
    assert "<dt>input</dt><dd>example.txt</dd>" in banner
    assert f"<dt>SHA-256</dt><dd><code>{digest}</code></dd>" in banner
    assert f"<dt>buddy-eval</dt><dd>{buddy_eval.__version__}</dd>" in banner
    assert "<dt>date</dt><dd>2026-12-01</dd>" in banner
    assert html.index("<header") < html.index("<main>")
    # no notes for developers, no parameter cell
    assert "report-hide" not in html and "make notebooks" not in html
    assert "papermill" not in html
    # every item reachable in <details> sections, not cut
    assert "<details" in html and "All 4 golden items" in html


def test_release_report_is_green(tmp_path):
    source = tmp_path / "ok.txt"
    source.write_text(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n",
        encoding="utf-8",
    )
    html = notebook_report.render_report(str(source))
    assert '<header class="banner release" id="verdict">' in html
    assert '<p class="verdict">RELEASE</p>' in html and 'class="reasons"' not in html
    assert "<dt>date</dt>" not in html


def test_ids_and_answers_with_dollars_stay_text(tmp_path):
    source = tmp_path / "math.txt"
    source.write_text(
        "THRESHOLDS 0.5 0.5 0.5\n$\\q$ ANSWER L1 a\nq2 REFUSE - -\nRESULTS\n"
        "OLD $\\q$ L1 N a $x$\nOLD q2 - Y no\nNEW $\\q$ L1 N $y$ b\nNEW q2 - Y no\n",
        encoding="utf-8",
    )
    html = notebook_report.render_report(str(source))  # charts draw $\q$ without mathtext
    assert "$\\q$" in html and "a $x$" in html and "$y$ b" in html
    assert "<script" not in html


# --- atomic writing (more in test_cli_exit_status.py) ----------------------------------


def test_write_atomic_new_file_is_readable(tmp_path):
    out = tmp_path / "r.html"
    write_atomic(out, "x")
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


# --- the committed notebooks ------------------------------------------------------------


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_are_executed_and_deterministic(path):
    """Every notebook under notebooks/ (`make notebooks` re-executes them this way)."""
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["execution_count"] is not None for c in code), "run `make notebooks`"
    assert not any(c["metadata"].get("execution") for c in code), "timing metadata"
    assert not any(c["metadata"].get("papermill") for c in code)
    assert str(ROOT) not in text and "/home/" not in text and "/tmp/" not in text
    for cell in code:
        for output in cell["outputs"]:
            assert output["output_type"] != "error"
            assert not (output["output_type"] == "stream" and output["name"] == "stderr")
            plain = "".join(output.get("data", {}).get("text/plain", output.get("text", "")))
            assert " at 0x" not in plain


@pytest.mark.parametrize("name", ["release_evaluation.ipynb", "explore_items.ipynb"])
def test_notebook_starts_with_a_papermill_parameters_cell(name):
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    assert first["metadata"].get("tags") == ["parameters"]
    source = "".join(first["source"])
    assert 'input_path = "../data/sample_release.txt"' in source
    assert 'baseline = "OLD"' in source and 'candidate = "NEW"' in source
