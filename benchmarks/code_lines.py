"""Code lines of the package per layer, at the working tree or at any git revision.

A code line is a line holding code: blank lines, comment-only lines and docstrings do not
count. Layers are those of the documented layout (docs/layout.md); a module not named below
counts in its package's layer, or in "other".

    python -m benchmarks.code_lines                  # the working tree
    python -m benchmarks.code_lines --rev 318d31c    # a revision, read through git
    python -m benchmarks.code_lines --rev 318d31c --rev HEAD   # side by side, with the change
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Module (path under buddy_eval/, or a folder ending in "/") -> layer.
LAYERS = {
    "vocabulary.py": "foundation",
    "phrases.py": "foundation",
    "errors.py": "foundation",
    "thresholds.py": "foundation",
    "settings.py": "foundation",  # paired_settings.py since the modules were renamed
    "paired_settings.py": "foundation",
    "parsing.py": "read and load",
    "validation.py": "read and load",  # input_rules.py
    "input_rules.py": "read and load",
    "loading.py": "read and load",
    "columns.py": "read and load",  # input_columns.py
    "input_columns.py": "read and load",
    "ledger/": "ledger",
    "ledger.py": "ledger",
    "kernels.py": "fast kernels",
    "scoring.py": "score and decide",
    "decision.py": "score and decide",
    "evaluation.py": "api",
    "ledger_views.py": "api",
    "results.py": "score and decide",
    "slices.py": "paired",
    "slice_views.py": "views",
    "paired.py": "paired",
    "trials.py": "paired",
    "stats/": "statistics",
    "escaping.py": "views",
    "reporting/": "views",
    "formatting.py": "views",
    "coverage.py": "views",
    "details.py": "views",  # details_text.py
    "details_text.py": "views",
    "json_report.py": "views",
    "display.py": "views",  # notebook_views.py
    "notebook_views.py": "views",
    "drilldown.py": "views",
    "plot_base.py": "views",
    "plotting.py": "views",
    "notebook_report.py": "views",
    "markdown_report.py": "views",
    "junit_report.py": "views",
    "tasks/": "tasks",
    "doctor/": "doctor",
    "cli/": "cli",
    "__init__.py": "api",
    "__main__.py": "api",
}
ORDER = [
    "foundation",
    "read and load",
    "fast kernels",
    "score and decide",
    "paired",
    "statistics",
    "views",
    "tasks",
    "ledger",
    "doctor",
    "cli",
    "api",
    "other",
]


def code_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not part of a docstring."""
    tree = ast.parse(source)
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    skip = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
        tokenize.ENCODING,
    }
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def layer_of(path: str) -> str:
    # Private modules (a leading underscore, as every non-public module has now) count in the
    # layer of their old public name, so revisions before and after the rename compare.
    path = "/".join(p if p.startswith("__") else p.removeprefix("_") for p in path.split("/"))
    if path in LAYERS:
        return LAYERS[path]
    folder = path.split("/", 1)[0] + "/"
    return LAYERS.get(folder, "other")


def _sources(rev: str | None) -> dict[str, str]:
    if rev is None:
        package = ROOT / "buddy_eval"
        return {
            p.relative_to(package).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(package.rglob("*.py"))
        }
    names = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev, "buddy_eval/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        name.removeprefix("buddy_eval/"): subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for name in names
        if name.endswith(".py")
    }


def count(rev: str | None = None) -> Counter[str]:
    """Code lines per layer at ``rev`` (the working tree when None)."""
    totals: Counter[str] = Counter()
    for path, source in _sources(rev).items():
        totals[layer_of(path)] += code_lines(source)
    return totals


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", action="append", help="a git revision (repeat to compare)")
    args = parser.parse_args(argv)
    revs = args.rev or [None]
    counts = [count(rev) for rev in revs]
    heads = [rev or "working tree" for rev in revs]
    print(
        f"{'layer':<18}"
        + "".join(f"{h:>16}" for h in heads)
        + (f"{'change':>10}" if len(revs) == 2 else "")
    )
    for layer in [*ORDER, "total"]:
        row = [sum(c.values()) if layer == "total" else c[layer] for c in counts]
        if not any(row):
            continue
        change = ""
        if len(row) == 2 and row[0]:
            change = f"{(row[1] - row[0]) / row[0]:>+10.0%}"
        print(f"{layer:<18}" + "".join(f"{n:>16,}" for n in row) + change)


if __name__ == "__main__":
    main()
