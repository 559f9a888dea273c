"""The README's worked examples are what the commands print."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT, run_cli

README = (ROOT / "README.md").read_text(encoding="utf-8")


def examples():
    """Fenced blocks starting ``$ buddy-eval ... data/...``: (arguments, expected output)."""
    pattern = r"```\n\$ buddy-eval ([^\n]*data/[^\n]*)\n(.*?)```"
    return re.findall(pattern, README, flags=re.S)


@pytest.mark.parametrize(("args", "expected"), list(examples()))
def test_readme_example_is_the_real_output(args, expected):
    proc = run_cli(*args.split())
    assert proc.stdout.decode() == expected
