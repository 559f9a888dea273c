"""pyproject.toml and environment.yml list the same dependencies; the API is what README says."""

from __future__ import annotations

import re
import tomllib

import buddy_eval
from tests.conftest import ROOT

REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*$")


def _split(requirement: str) -> tuple[str, str]:
    name, spec = REQUIREMENT.match(requirement).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = project["dependencies"] + extras["notebook"] + extras["dev"]
    return dict(_split(r) for r in wanted if not r.startswith("buddy-eval"))


def environment_requirements() -> dict[str, str]:
    deps = {}
    in_deps = False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            in_deps = True
            continue
        if in_deps and re.match(r"^  - [A-Za-z]", line):
            name, spec = _split(line[4:])
            if name not in ("python", "pip"):
                deps[name] = spec
    return deps


def test_environment_yml_agrees_with_pyproject():
    assert environment_requirements() == pyproject_requirements()


def test_environment_yml_python_matches_requires_python():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"  - python{project['requires-python']}" in (ROOT / "environment.yml").read_text()


def test_public_api():
    for name in (
        "load",
        "from_frames",
        "evaluate",
        "report",
        "Evaluation",
        "EvalInput",
        "Decision",
        "Thresholds",
        "InputError",
        "BuddyEvalError",
    ):
        assert name in buddy_eval.__all__
        assert getattr(buddy_eval, name) is not None


def test_the_main_entry_points_are_fully_annotated():
    import inspect

    names = [
        "load",
        "from_frames",
        "evaluate",
        "report",
        "collapsible",
        "format_metrics_table",
        *[n for n in buddy_eval.__all__ if n.startswith("plot_")],
    ]
    for name in names:
        signature = inspect.signature(getattr(buddy_eval, name))
        missing = [p for p, v in signature.parameters.items() if v.annotation is inspect._empty]
        assert not missing, (name, missing)
        assert signature.return_annotation is not inspect._empty, name


def test_every_plot_takes_its_data_then_ax_then_keywords_only():
    import inspect

    from buddy_eval.tasks import _plotting as tasks_plotting

    plots = [getattr(buddy_eval, n) for n in buddy_eval.__all__ if n.startswith("plot_")]
    plots += [getattr(tasks_plotting, n) for n in tasks_plotting.__all__ if n.startswith("plot_")]
    for plot in plots:
        params = list(inspect.signature(plot).parameters.values())
        assert params[1].name == "ax" and params[1].default is None, plot.__name__
        assert all(p.kind is p.KEYWORD_ONLY for p in params[2:]), plot.__name__
