"""The worked examples of the README and the docs are what the commands print."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys

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


# The quick start at the top of the docs site: every ```console block is one scenario run from a
# fresh directory holding a copy of data/, its commands in order, each followed by its output.
QUICK_START = ROOT / "docs" / "index.md"
#: Options whose value is a file a command writes: the quick start says it is written.
WRITES = ("-o", "--markdown", "--junit", "--ledger")


def quick_start_blocks() -> dict[str, list[tuple[str, str]]]:
    """The quick start's console blocks by the bold label above each (``The gate``, ...).

    Each block is its ``(command, output)`` pairs, in order.
    """
    text = QUICK_START.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("```{toctree}", 1)[0]
    blocks = {}
    for found in re.finditer(r"```console\n(.*?)```", section, flags=re.S):
        label = re.findall(r"\*\*([^*]+)\.\*\*", section[: found.start()])[-1]
        steps: list[list[str]] = []
        for line in found.group(1).splitlines(keepends=True):
            if line.startswith("$ "):
                steps.append([line[2:].strip(), ""])
            else:
                assert steps, f"output before any command in the quick start: {line!r}"
                steps[-1][1] += line
        blocks[label] = [(command, output) for command, output in steps]
    return blocks


def _quick_start_params():
    for label, block in quick_start_blocks().items():
        slow = any(command.startswith("buddy-eval notebook") for command, _ in block)
        marks = [pytest.mark.slow] if slow else []  # starts a kernel: `make test` runs it
        yield pytest.param(block, id=label, marks=marks)


def test_the_quick_start_shows_the_gate_the_report_the_ledger_and_ci():
    blocks = quick_start_blocks()
    assert list(blocks) == ["The gate", "The report", "The ledger", "CI"]
    commands = [command for block in blocks.values() for command, _ in block]
    assert commands[0] == "buddy-eval data/example.txt"
    for needed in ("buddy-eval notebook ", "--ledger ", "ledger release ", "history ", "--junit "):
        assert any(needed in command for command in commands), needed


@pytest.mark.parametrize("block", list(_quick_start_params()))
def test_quick_start_commands_print_what_the_page_shows(block, tmp_path):
    shutil.copytree(ROOT / "data", tmp_path / "data")
    # Outside CI as on a laptop: the ledger reads the CI run from these when they are set.
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "GITLAB_CI")}
    for command, expected in block:
        args = shlex.split(command)
        if args[0] == "buddy-eval":
            args = [sys.executable, "-m", "buddy_eval", *args[1:]]
        proc = subprocess.run(
            args, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
        )
        # As a terminal shows it: each of these commands writes its stderr line after stdout.
        assert proc.stdout + proc.stderr == expected, command
        assert proc.returncode in (0, 1), command  # RELEASE or BLOCK, never an error
        for option, value in zip(args, args[1:], strict=False):
            if option in WRITES:
                assert (tmp_path / value).is_file(), f"{command} wrote no {value}"
