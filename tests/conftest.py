"""Shared helpers: the example cases and a way to run the real command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
# Copies of ../shared/cases live in tests/cases so the suite runs anywhere;
# when the shared folder sits beside the checkout, its (possibly newer) cases run too.
CASE_DIRS = [ROOT / "tests" / "cases", ROOT.parent / "shared" / "cases"]


#: Modules whose every test starts a notebook kernel or a browser: marked slow, so that
#: `make test-fast` leaves them out (`make test` runs them).
SLOW_MODULES = {"test_notebook_report", "test_report_browser"}


def pytest_collection_modifyitems(items):
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def example_cases() -> list[Path]:
    seen: dict[str, Path] = {}
    for folder in CASE_DIRS:
        if folder.is_dir():
            for path in sorted(folder.glob("*.in")):
                seen[f"{folder.parent.name}/{path.stem}"] = path
    return list(seen.values())


def run_cli(*args: str, stdin: bytes | None = None, cwd: Path = ROOT):
    """Run ``python -m buddy_eval`` like a user would; return the CompletedProcess."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}  # output must not depend on the locale
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


@pytest.fixture
def write(tmp_path):
    """Write text (or bytes) to a file in tmp_path and return its path."""

    def _write(content: str | bytes, name: str = "input.txt") -> Path:
        path = tmp_path / name
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return _write
