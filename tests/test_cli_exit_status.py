"""A failure never looks like a verdict: exit status 3 and one line for "could not finish"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buddy_eval._cli.output import CouldNotFinishError, check_output_path, write_atomic
from buddy_eval._errors import InputError
from tests.conftest import DATA, ROOT

SAMPLE = DATA / "sample_release.txt"
COMMAND = [sys.executable, "-m", "buddy_eval"]


def shell(script: str) -> subprocess.CompletedProcess:
    """Run a bash snippet where $BE is the buddy-eval command; text out."""
    env = {**os.environ, "BE": " ".join(COMMAND)}
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


def assert_one_line_no_traceback(stderr: str, needle: str) -> None:
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, stderr
    assert needle in errors[0]


def test_a_closed_pipe_ends_quietly_with_status_3():
    proc = shell(f'$BE {SAMPLE} --details | head -c 0; echo "status=${{PIPESTATUS[0]}}"')
    assert "status=3" in proc.stdout
    assert_one_line_no_traceback(proc.stderr, "could not finish: standard output was closed")


def test_a_closed_stdout_is_status_3():
    proc = shell(f"$BE {SAMPLE} >&-; echo status=$? >&2")
    assert "status=3" in proc.stderr
    assert_one_line_no_traceback(proc.stderr, "could not finish: standard output is closed")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_a_full_disk_is_status_3():
    proc = shell(f"$BE {SAMPLE} > /dev/full; echo status=$? >&2")
    assert "status=3" in proc.stderr
    assert_one_line_no_traceback(proc.stderr, "No space left on device")


def test_a_closed_stdin_is_an_input_error():
    proc = shell("$BE - <&-; echo status=$? >&2")
    assert "status=2" in proc.stderr
    assert_one_line_no_traceback(proc.stderr, "standard input is closed")


def test_a_closed_stderr_keeps_the_verdict():
    proc = shell(f"$BE {SAMPLE} 2>&-; echo status=$?")
    assert proc.stdout.splitlines()[-1] == "status=1"
    assert proc.stdout.startswith("OLD: correctness 0.84")


@pytest.mark.parametrize("command", [[], ["tasks"], ["notebook"], ["ledger"], ["history"]])
def test_help_into_a_closed_pipe_never_prints_a_traceback(command):
    words = " ".join(command)
    proc = shell(f'$BE {words} --help | head -c 0; echo "status=${{PIPESTATUS[0]}}"')
    assert "Traceback" not in proc.stderr and "Exception" not in proc.stderr


def test_an_internal_error_is_status_3_without_traceback(monkeypatch, capsys):
    from buddy_eval import _cli as cli
    from buddy_eval._cli import gate

    def boom(argv, lean=False):
        raise RuntimeError("something broke")

    monkeypatch.setattr(gate, "run", boom)
    assert cli.main([str(SAMPLE)]) == 3
    err = capsys.readouterr().err
    assert err == (
        "buddy-eval: error: could not finish: internal error: RuntimeError: something broke\n"
    )


def test_out_of_memory_is_status_3(monkeypatch, capsys):
    from buddy_eval import _cli as cli
    from buddy_eval._cli import gate

    def oom(argv, lean=False):
        raise MemoryError

    monkeypatch.setattr(gate, "run", oom)
    assert cli.main([str(SAMPLE)]) == 3
    assert capsys.readouterr().err == "buddy-eval: error: could not finish: out of memory\n"


# --------------------------------------------------------------------------
# -o: only regular files, atomically
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("/dev/full", "is not a regular file"),
        ("/dev/null", "is not a regular file"),
        ("/dev/stdout", "is a symbolic link"),
    ],
)
def test_output_refuses_devices_and_links(target, message):
    if not os.path.lexists(target):
        pytest.skip(f"{target} does not exist here")
    with pytest.raises(InputError, match=message):
        check_output_path(Path(target))


def test_output_refuses_a_symlink_a_directory_and_the_input(tmp_path):
    real = tmp_path / "real.html"
    real.write_text("old")
    link = tmp_path / "link.html"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        check_output_path(link)
    with pytest.raises(InputError, match="is a directory"):
        check_output_path(tmp_path)
    with pytest.raises(InputError, match="is the input file"):
        check_output_path(real, [("the input file", str(real))])
    with pytest.raises(InputError, match="no directory"):
        check_output_path(tmp_path / "missing" / "r.html")
    check_output_path(tmp_path / "new.html")  # a new file is fine
    check_output_path(real)  # and so is a regular one


def test_notebook_command_refuses_a_device_with_status_2(tmp_path):
    proc = subprocess.run(
        [*COMMAND, "notebook", str(SAMPLE), "-o", "/dev/full"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2
    assert_one_line_no_traceback(proc.stderr, "/dev/full: is not a regular file")
    assert Path("/dev/full").is_char_device()


def test_write_atomic_replaces_and_keeps_the_mode(tmp_path):
    target = tmp_path / "r.html"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, "new é")
    assert target.read_text(encoding="utf-8") == "new é"
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_write_atomic_failure_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "r.html"
    target.write_text("old")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(CouldNotFinishError, match="No space left on device"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_write_leaves_no_temporary_file(tmp_path, sig):
    target = tmp_path / "r.html"
    script = (
        "import sys, time\n"
        "from buddy_eval import _cli as cli\n"
        "from buddy_eval._cli import gate, output\n"
        "def slow_fsync(fd):\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(30)\n"
        "output.os.fsync = slow_fsync\n"
        "def run(argv, lean=False):\n"
        f"    output.write_atomic(output.Path({str(target)!r}), 'x' * 1000)\n"
        "    return 0\n"
        "gate.run = run\n"
        "sys.exit(cli.main(['ignored']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    assert proc.stdout.readline() == b"writing\n"
    time.sleep(0.2)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    assert b"Traceback" not in err and b"could not finish: interrupted by signal" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_every_subcommand_takes_format_json(tmp_path):
    import json

    from tests.test_tasks_support import EXAMPLE

    gate = subprocess.run(
        [*COMMAND, str(SAMPLE), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert json.loads(gate.stdout)["decision"]["release"] is False
    tasks = [
        *COMMAND,
        "tasks",
        "--golden",
        str(EXAMPLE["golden"]),
        "--run-a",
        str(EXAMPLE["a"]),
        "--run-b",
        str(EXAMPLE["b"]),
    ]
    as_format = subprocess.run(
        [*tasks, "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    as_alias = subprocess.run(
        [*tasks, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert as_format.stdout == as_alias.stdout and json.loads(as_format.stdout)["paired"]
    out = tmp_path / "r.html"
    command = [*COMMAND, "notebook", "data/example.txt", "-o", str(out), "--format", "json"]
    nb = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=600)
    summary = json.loads(nb.stdout)
    assert summary["report"] == str(out) and summary["release"] is False
    assert summary["verdict"].startswith("BLOCK: ")
