"""A plain (non-editable) install runs the gate, ``notebook`` and ``tasks``.

The wheel is built from a copy of the checkout, installed with the notebook
extra into a fresh virtual environment, and every subcommand runs from a
folder that holds no checkout: whatever the command line needs at run time
(the release notebook included) must be inside the wheel.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile

import pytest

from tests.conftest import DATA, ROOT

PACKAGE = ROOT / "buddy_eval"


def test_every_package_directory_is_listed():
    """The package list is written out (to map notebooks/ in and ship the JSON Schemas); it
    must stay whole."""
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    on_disk = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in PACKAGE.rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert on_disk | {"buddy_eval._notebooks", "buddy_eval.schemas"} == set(listed)


def _run(args, *, cwd, timeout=900):
    done = subprocess.run(args, cwd=cwd, capture_output=True, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in ("buddy_eval", "notebooks"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "-w", str(work / "dist"), str(source)], cwd=work)
    (wheel,) = (work / "dist").glob("buddy_eval-*.whl")
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    _run(
        [
            str(python),
            "-m",
            "pip",
            "--disable-pip-version-check",
            "-q",
            "install",
            "--no-compile",  # half the install time; the few runs below compile what they import
            f"{wheel}[notebook]",
        ],
        cwd=work,
    )
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    for name in (
        "sample_release.txt",
        "golden-tasks.example.json",
        "run-a.example.json",
        "run-b.example.json",
    ):
        shutil.copy(DATA / name, elsewhere / name)
    return wheel, env_dir / "bin" / "buddy-eval", elsewhere


def _checkout(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", *args], cwd=cwd, capture_output=True, timeout=600
    )


@pytest.mark.slow
def test_wheel_carries_the_notebooks_and_the_type_marker(installed):
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert f"buddy_eval/_notebooks/{notebook.name}" in names
    assert "buddy_eval/py.typed" in names
    assert not any(name.startswith(("tests/", "notebooks/", "data/")) for name in names)


@pytest.mark.slow
def test_installed_gate_and_tasks_answer_like_the_checkout(installed):
    _, program, here = installed
    runs = [
        ["sample_release.txt"],
        ["sample_release.txt", "--format", "json", "--details"],
        [
            "tasks",
            "--golden",
            "golden-tasks.example.json",
            "--run-a",
            "run-a.example.json",
            "--run-b",
            "run-b.example.json",
        ],
    ]
    for args in runs:
        got = subprocess.run([str(program), *args], cwd=here, capture_output=True, timeout=600)
        want = _checkout(*args, cwd=here)
        assert (got.returncode, got.stdout, got.stderr) == (
            want.returncode,
            want.stdout,
            want.stderr,
        ), args
        assert got.returncode in (0, 1)


@pytest.mark.slow
def test_installed_notebook_report_runs_outside_a_checkout(installed):
    _, program, here = installed
    got = subprocess.run(
        [str(program), "notebook", "sample_release.txt", "-o", "report.html"],
        cwd=here,
        capture_output=True,
        timeout=900,
    )
    gate = _checkout("sample_release.txt", cwd=here)
    assert got.returncode == 0, got.stderr
    assert got.stderr == gate.stderr  # the input's warnings, nothing from the libraries
    html = (here / "report.html").read_text(encoding="utf-8")
    verdict = gate.stdout.decode().splitlines()[0]
    assert verdict.split(":")[0] in html
    assert "sample_release.txt" in html
    assert str(ROOT) not in html
