"""Every file a run writes is checked, before any work, against every other one and every input.

Compared by what they name, existing or not: ``new.db`` and ``sub/../new.db``,
a path through a symbolic link to the directory, a hard link. A clash is an
input error (status 2): one line naming both options, nothing on stdout,
nothing written or created.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import DATA, run_cli
from tests.test_tasks_support import EXAMPLE


@pytest.fixture
def workdir(tmp_path):
    shutil.copy(DATA / "example.txt", tmp_path / "in.txt")
    (tmp_path / "sub").mkdir()
    (tmp_path / "here").symlink_to(tmp_path)
    return tmp_path


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}


def _refused(done, *needles: str) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("buddy-eval: error: ")
    for needle in needles:
        assert needle in err
    return err


@pytest.mark.parametrize(
    ("args", "first", "second"),
    [
        (["--ledger", "new.db", "--markdown", "new.db"], "--markdown", "--ledger"),
        (["--ledger", "new.db", "--junit", "sub/../new.db"], "--junit", "--ledger"),
        (["--ledger", "new.db", "--markdown", "here/new.db"], "--markdown", "--ledger"),
        (["--markdown", "s.md", "--junit", "here/sub/../s.md"], "--markdown", "--junit"),
    ],
)
def test_the_gate_refuses_two_options_naming_one_new_file(workdir, args, first, second):
    before = _files(workdir)
    done = run_cli("in.txt", *args, cwd=workdir)
    _refused(done, f"{first} and {second} name the same file; give each its own")
    assert _files(workdir) == before  # no ledger, no summary created


def test_an_existing_ledger_named_by_a_report_option_is_refused_untouched(workdir):
    assert run_cli("in.txt", "--ledger", "l.db", cwd=workdir).returncode == 1
    before = _files(workdir)
    done = run_cli("in.txt", "--ledger", "l.db", "--junit", "here/l.db", cwd=workdir)
    _refused(done, "--junit and --ledger name the same file")
    after = _files(workdir)
    # (the read-only check of the ledger may leave SQLite's -wal and -shm beside it)
    assert {k: after[k] for k in before} == before and set(after) <= {
        *before,
        "l.db-wal",
        "l.db-shm",
    }


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--markdown", "sub/../in.txt"], "--markdown"),
        (["--junit", "here/in.txt"], "--junit"),
        (["--ledger", "here/sub/../in.txt"], None),  # refused as not a ledger, untouched
    ],
)
def test_the_gate_never_writes_its_input(workdir, args, option):
    before = _files(workdir)
    done = run_cli("in.txt", *args, cwd=workdir)
    err = _refused(done)
    if option:
        assert f"is the input file this run reads (in.txt); writing {option} there" in err
    assert _files(workdir) == before


def test_a_hard_link_to_the_input_is_the_input(workdir):
    os.link(workdir / "in.txt", workdir / "same.txt")
    before = _files(workdir)
    done = run_cli("in.txt", "--markdown", "same.txt", cwd=workdir)
    _refused(done, "same.txt: is the input file this run reads (in.txt)")
    assert _files(workdir) == before


def test_the_notebook_report_is_not_a_file_it_reads_even_a_missing_one(workdir):
    done = run_cli("notebook", "missing.txt", "-o", "here/missing.txt", cwd=workdir)
    _refused(done, "is the input file this run reads (missing.txt); writing -o there")
    done = run_cli("notebook", "in.txt", "-o", "sub/../l.db", "--ledger", "l.db", cwd=workdir)
    _refused(done, "is the --ledger file this run reads (l.db); writing -o there")
    assert not (workdir / "missing.txt").exists() and not (workdir / "l.db").exists()


def test_the_tasks_outputs_are_checked_against_each_other_and_every_input(workdir):
    for name in ("golden", "a", "b"):
        shutil.copy(EXAMPLE[name], workdir / f"{name}.json")
    files = ["--golden", "golden.json", "--run-a", "a.json", "--run-b", "b.json"]
    before = _files(workdir)
    done = run_cli("tasks", *files, "--markdown", "here/b.json", cwd=workdir)
    _refused(done, "is the run B file this run reads (b.json); writing --markdown there")
    done = run_cli("tasks", *files, "--markdown", "r", "--junit", "sub/../r", cwd=workdir)
    _refused(done, "--markdown and --junit name the same file")
    assert _files(workdir) == before
    done = run_cli("tasks", *files, "--markdown", "s.md", "--junit", "r.xml", cwd=workdir)
    assert done.returncode == 0
    assert (workdir / "s.md").exists() and (workdir / "r.xml").exists()


def test_distinct_new_files_are_all_written(workdir):
    done = run_cli(
        "in.txt", "--ledger", "new.db", "--markdown", "s.md", "--junit", "sub/r.xml", cwd=workdir
    )
    assert done.returncode == 1, done.stderr
    assert all((workdir / name).exists() for name in ("new.db", "s.md", "sub/r.xml"))
