"""The documentation: a short README, an API page that is the public API, a site that builds."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import buddy_eval
from tests.conftest import ROOT

DOCS = ROOT / "docs"


def test_the_readme_stays_short():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250


def test_every_link_from_the_readme_into_the_docs_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert targets
    for target in targets:
        assert (ROOT / target).is_file(), target


def test_the_api_reference_documents_the_public_api_and_only_it():
    page = (DOCS / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. auto(?:function|class):: (\w+)$", page, flags=re.M)
    assert documented == list(buddy_eval.__all__)


def test_every_page_is_in_the_table_of_contents():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toc = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    listed = {line.strip() for line in toc.splitlines() if line.strip() and ":" not in line}
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert listed == pages


@pytest.mark.slow
def test_the_site_builds_offline_without_warnings(tmp_path):
    out = tmp_path / "html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-b",
            "html",
            "-q",
            str(DOCS),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    api = (out / "api.html").read_text(encoding="utf-8")
    for name in ("evaluate", "load", "from_frames", "plot_metrics"):
        assert f'id="buddy_eval.{name}"' in api
    assert "/work/" not in api and str(ROOT) not in api


def _exit_status_table(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("| exit status | meaning |")
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    return table


def test_the_readme_and_the_command_line_page_state_the_same_exit_statuses():
    readme = _exit_status_table((ROOT / "README.md").read_text(encoding="utf-8"))
    page = _exit_status_table((DOCS / "command-line.md").read_text(encoding="utf-8"))
    assert readme == page
    assert [row.split("|")[1].strip() for row in readme[2:]] == ["0", "1", "2", "3"]
