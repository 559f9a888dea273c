"""The code-line counter behind the per-layer figures (benchmarks/code_lines.py)."""

from __future__ import annotations

from benchmarks.code_lines import LAYERS, ORDER, code_lines, count, layer_of

SOURCE = '''"""Module docstring,
on two lines."""

# a comment
import os  # a trailing comment


def f(x):
    """One line."""
    return (x +
            1)


class C:
    """Doc."""

    y = "not a docstring"
'''


def test_blank_comment_and_docstring_lines_do_not_count():
    # import, def, return over two lines, class, y
    assert code_lines(SOURCE) == 6


def test_every_module_of_the_package_has_a_layer():
    assert set(LAYERS.values()) <= set(ORDER)
    assert layer_of("stats/power.py") == "statistics"
    assert layer_of("tasks/report.py") == "tasks"
    totals = count()
    assert totals["other"] == 0
    assert sum(totals.values()) > 0
