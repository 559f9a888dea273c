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


def test_the_documented_layers_are_the_counted_ones():
    import re
    from pathlib import Path

    layout = (Path(__file__).resolve().parents[1] / "docs" / "layout.md").read_text()
    listed = layout.split("The layers, in the order", 1)[1].split("```", 1)[0]
    seen = set()
    for item in re.split(r"\n- |; ", listed)[1:]:
        layer, names = item.split(":", 1)
        for name in re.findall(r"`([^`]+)`", names):
            path = name if name.endswith("/") else f"{name}.py"
            assert layer_of(path if not path.endswith("/") else path + "x.py") == layer.strip()
            seen.add(layer.strip())
    assert seen == set(ORDER) - {"other"}
