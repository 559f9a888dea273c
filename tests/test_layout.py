"""The package's layout: data flows one way, and every command shares one exit-status table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from buddy_eval._vocabulary import EXIT_STATUS_HELP
from tests.conftest import run_cli

PACKAGE = Path(__file__).resolve().parents[1] / "buddy_eval"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Package modules imported anywhere in ``path``: functions and type-checking blocks too."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in modules)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                submodules = {f"{target}.{a.name}" for a in child.names} & modules
                found.update(submodules)
                if target in modules and len(submodules) < len(child.names):
                    found.add(target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {_module_name(p): _imports(p, modules) for p in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_vocabulary_imports_nothing_from_the_package():
    assert import_graph()["buddy_eval._vocabulary"] == set()


def test_subcommands_never_import_the_shell():
    graph = import_graph()
    for module in (
        "buddy_eval._cli.gate",
        "buddy_eval._cli.tasks",
        "buddy_eval._cli.notebook",
        "buddy_eval._cli.ledger",
    ):
        assert "buddy_eval._cli" not in graph[module], module
    assert graph["buddy_eval._cli.output"] <= {
        "buddy_eval._errors",
        "buddy_eval._escaping",
        "buddy_eval._vocabulary",
    }


@pytest.mark.parametrize("command", [[], ["tasks"], ["notebook"], ["ledger"], ["history"]])
def test_every_subcommand_help_shows_the_same_exit_status_table(command):
    proc = run_cli(*command, "--help")
    assert proc.returncode == 0
    assert EXIT_STATUS_HELP in proc.stdout.decode()


def test_the_documented_layout_lists_every_module_and_only_those():
    layout = (PACKAGE.parent / "docs" / "layout.md").read_text(encoding="utf-8")
    block = layout.split("# Layout", 1)[1].split("```", 2)[1]
    listed, folder = set(), ""
    for line in block.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        names = [w for w in line.split() if w.endswith((".py", "/"))]
        if indent not in (2, 4) or not names:
            continue
        if indent == 2:
            folder = names[0] if names[0].endswith("/") else ""
            prefix = ""
        else:
            prefix = folder
        listed.update(prefix + n for n in names if n.endswith(".py"))
    actual = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")}
    assert listed == actual


#: The public modules: the package, its presentation kit and its public packages.
PUBLIC_MODULES = {
    "buddy_eval",
    "buddy_eval.__main__",
    "buddy_eval.doctor",
    "buddy_eval.formatting",
    "buddy_eval.ledger",
    "buddy_eval.reporting",
    "buddy_eval.stats",
    "buddy_eval.tasks",
}


def test_every_module_but_the_public_ones_is_private_by_name():
    modules = set(import_graph())
    public = {
        m
        for m in modules
        if not any(p.startswith("_") and not p.startswith("__") for p in m.split("."))
    }
    assert public == PUBLIC_MODULES


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES - {"buddy_eval.__main__"}))
def test_a_public_module_names_its_public_names_and_nothing_else(module):
    import importlib

    mod = importlib.import_module(module)
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    defined = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    unlisted = {n for n in defined if not n.startswith("_") and n not in mod.__all__}
    assert not unlisted, f"{module} defines public-looking names outside __all__: {unlisted}"
    for name in mod.__all__:  # every listed name resolves (lazy ones too)
        assert getattr(mod, name) is not None, name


def test_notebooks_and_docs_use_only_the_public_api():
    root = PACKAGE.parent
    for path in [
        *(root / "notebooks").glob("*.ipynb"),
        *(root / "docs").glob("*.md"),
        root / "README.md",
    ]:
        text = path.read_text(encoding="utf-8")
        if path.name == "layout.md":
            continue  # the layout lists the private modules on purpose
        assert "buddy_eval._" not in text, path.name
