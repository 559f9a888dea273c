"""Every wording that more than one view shows is spelt in one place.

The phrase table (:mod:`buddy_eval._phrases`, with the verdict words of
:mod:`buddy_eval._vocabulary`) holds them; a module that shows one reads it
from there. This test reads every module's string literals (docstrings
aside) and fails when a phrase of the table is spelt in more than two
modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import buddy_eval

PACKAGE = Path(buddy_eval.__file__).parent

#: The phrases of the table, as the views show them.
PHRASES = (
    "RELEASE",
    "BLOCK",
    "not ready",
    "ready for a decision",
    "not measured",
    "not computed",
    "McNemar",
    "Holm",
    "Newcombe",
    "Wilson",
    "Clopper-Pearson",
    "too few items to tell",
    "items are counted, not trials",
    "Wilcoxon",
    "not recorded",
)


def _literals(path: Path) -> list[str]:
    """Every string literal of a module but its docstrings (f-string parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def spelt_in(phrase: str) -> list[str]:
    """The modules whose string literals spell ``phrase`` (as words)."""
    pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if any(pattern.search(text) for text in _literals(path))
    )


#: Modules that still spell a phrase while their views move onto the report model (the
#: notebook views, the task views, the ledger's views, the paired core's notes). The list
#: may only shrink: a module not listed here that spells a phrase fails the test, and so
#: does a listed module that no longer spells it (then delete its entry).
MOVING: dict[str, set[str]] = {}


@pytest.mark.parametrize("phrase", PHRASES)
def test_no_phrase_is_spelt_in_more_than_two_modules(phrase):
    moving = MOVING.get(phrase, set())
    modules = spelt_in(phrase)
    settled = [m for m in modules if m not in moving]
    assert len(settled) <= 2, f"{phrase!r} is spelt in {settled}: read it from _phrases"
    assert moving <= set(modules), f"{sorted(moving - set(modules))} moved: shrink MOVING"


def test_the_checker_finds_a_phrase_and_ignores_docstrings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""not ready"""\n\nX = f"{1} not ready"\nY = "EXIT_RELEASE"\n')
    assert sorted(_literals(module)) == [" not ready", "EXIT_RELEASE"]
    assert re.search(r"(?<![\w-])RELEASE(?![\w-])", "EXIT_RELEASE") is None
