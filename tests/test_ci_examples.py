"""The CI examples in docs/ci run: their shell lines, against the sample data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from junitparser import JUnitXml

from tests.conftest import DATA, ROOT

EXAMPLES = ROOT / "docs" / "ci"


def _shell(lines: list[str], cwd: Path, env: dict) -> list[subprocess.CompletedProcess]:
    done = []
    for line in lines:
        if line.startswith("pip install"):
            continue  # the test environment has the package installed already
        done.append(
            subprocess.run(["bash", "-c", line], cwd=cwd, env=env, capture_output=True, timeout=900)
        )
    return done


def _workdir(tmp_path: Path) -> Path:
    (tmp_path / "eval").mkdir()
    shutil.copy(DATA / "sample_release.txt", tmp_path / "eval" / "release.txt")
    return tmp_path


def _env(extra: dict) -> dict:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, "PATH": path, **extra}


def _check_outputs(folder: Path) -> None:
    summary = (folder / "gate-summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## Buddy release gate: BLOCK")
    xml = JUnitXml.fromfile(str(folder / "gate-junit.xml"))
    assert [suite.name for suite in xml] == ["gate", "golden items"]
    assert (folder / "release_report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE")


@pytest.mark.slow
def test_the_github_actions_workflow_runs(tmp_path):
    workflow = yaml.safe_load((EXAMPLES / "github-actions.yml").read_text())
    job = workflow["jobs"]["gate"]
    steps = [step["run"] for step in job["steps"] if "run" in step]
    folder = _workdir(tmp_path)
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier steps\n")
    env = _env({**job["env"], "GITHUB_STEP_SUMMARY": str(summary)})
    gate, report = _shell(steps, folder, env)
    assert gate.returncode == 1, gate.stderr  # BLOCK fails the job
    assert gate.stdout.decode().splitlines()[-1].startswith("BLOCK: ")
    assert report.returncode == 0, report.stderr
    assert summary.read_text().startswith("earlier steps\n## Buddy release gate: BLOCK\n")
    _check_outputs(folder)
    uploaded = job["steps"][-2]["with"]["path"].split()
    assert all((folder / name).is_file() for name in uploaded)
    assert job["steps"][-1]["with"]["report_paths"] == "gate-junit.xml"


@pytest.mark.slow
def test_the_gitlab_job_runs(tmp_path):
    job = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())["release-gate"]
    folder = _workdir(tmp_path)
    env = _env(job["variables"])
    (gate,) = _shell(job["script"], folder, env)
    assert gate.returncode == 1, gate.stderr
    (report,) = _shell(job["after_script"], folder, env)
    assert report.returncode == 0, report.stderr
    _check_outputs(folder)
    assert all((folder / name).is_file() for name in job["artifacts"]["paths"])
    assert (folder / job["artifacts"]["reports"]["junit"]).is_file()
