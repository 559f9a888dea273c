"""The worked examples of the README and the docs are what the commands print."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, run_cli

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples():
    """Fenced blocks starting ``$ buddy-eval ... data/...``: (arguments, expected output)."""
    pattern = r"```\n\$ buddy-eval ([^\n]*data/[^\n]*)\n(.*?)```"
    return [
        example
        for page in PAGES
        for example in re.findall(pattern, page.read_text(encoding="utf-8"), flags=re.S)
    ]


@pytest.mark.parametrize(("args", "expected"), list(examples()))
def test_readme_example_is_the_real_output(args, expected):
    proc = run_cli(*args.split())
    assert proc.stdout.decode() == expected
