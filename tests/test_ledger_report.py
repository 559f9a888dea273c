"""The HTML release report with ``--ledger``: a release history section from the ledger."""

from __future__ import annotations

import runpy

import pytest

from tests.conftest import DATA, ROOT, run_cli


@pytest.fixture(scope="module")
def sample_ledger(tmp_path_factory):
    build = runpy.run_path(str(DATA / "make_sample_ledger.py"))["build"]
    return build(tmp_path_factory.mktemp("ledger") / "release.ledger")


@pytest.mark.slow
def test_the_report_ends_with_the_release_history(sample_ledger, tmp_path):
    out = tmp_path / "r.html"
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", out, "--ledger", sample_ledger)
    assert proc.returncode == 0, proc.stderr.decode()
    html = out.read_text(encoding="utf-8")
    assert "Release history" in html
    assert "5 versions recorded; live: v5 since 2026-02-16" in html
    assert "exam week: the new prompt ships" in html
    assert "regressions that escaped: 1" in html
    assert str(tmp_path) not in html and str(sample_ledger.parent) not in html
    plain = tmp_path / "plain.html"
    assert run_cli("notebook", DATA / "sample_release.txt", "-o", plain).returncode == 0
    assert "Release history" not in plain.read_text(encoding="utf-8")


def test_a_bad_ledger_is_refused_before_the_notebook_runs(tmp_path):
    bad = tmp_path / "bad.ledger"
    bad.write_text("not a ledger\n")
    out = tmp_path / "r.html"
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", out, "--ledger", bad, cwd=ROOT)
    assert proc.returncode == 2
    assert "is not a buddy_eval ledger (not an SQLite database)" in proc.stderr.decode()
    assert not out.exists()


def test_the_report_never_overwrites_the_ledger(sample_ledger):
    before = sample_ledger.read_bytes()
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", sample_ledger, "--ledger",
                   sample_ledger)  # fmt: skip
    assert proc.returncode == 2
    assert "is the --ledger file this run reads" in proc.stderr.decode()
    assert sample_ledger.read_bytes() == before
