"""Hostile use of every surface: files are never destroyed, inputs are read once, every
ending is one line with the documented status, and no figure lies by rounding.

Each class of problem is a rule checked across the subcommands, not one case: the
output never overwrites a file the run reads, a device is never read, a signal always
ends with status 3 and cleans up, a usage error is one line, non-UTF-8 never reaches an
output, and a non-zero figure never prints as zero.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import buddy_eval as be
from buddy_eval._cli.output import check_output_path, write_atomic
from buddy_eval._errors import InputError
from tests.conftest import DATA, ROOT
from tests.test_tasks_support import EXAMPLE, check, record, task, write_json

SAMPLE = DATA / "sample_release.txt"
TRIALS = DATA / "sample_trials.txt"
NOTEBOOK = ROOT / "notebooks" / "release_evaluation.ipynb"
COMMAND = [sys.executable, "-m", "buddy_eval"]


def run(*args, stdin=None, env=None, timeout=120, cwd=ROOT) -> subprocess.CompletedProcess:
    """The command line as a user runs it (bytes out; arguments may be bytes)."""
    return subprocess.run(
        [*COMMAND, *args],
        stdin=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def one_error_line(stderr: bytes) -> str:
    """The single ``error:`` line of stderr: no traceback, no usage block, nothing else."""
    text = stderr.decode("utf-8")
    assert "Traceback" not in text and "usage:" not in text, text
    errors = [line for line in text.splitlines() if "error:" in line]
    others = [line for line in text.splitlines() if "error:" not in line and "warning:" not in line]
    assert len(errors) == 1 and not others, text
    return errors[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bash(script: str, timeout: int = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "BE": " ".join(COMMAND)}
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, cwd=ROOT, env=env, timeout=timeout
    )


# --------------------------------------------------------------------------
# Never destroy a user's file: outputs are compared with inputs by identity
# --------------------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "in.txt").write_bytes(SAMPLE.read_bytes())
    (tmp_path / "mine.ipynb").write_bytes(NOTEBOOK.read_bytes())
    return tmp_path


@pytest.mark.parametrize(
    ("make", "output", "what"),
    [
        (None, "mine.ipynb", "the --notebook file"),
        (None, "./mine.ipynb", "the --notebook file"),
        ("hardlink-notebook", "nb-link.ipynb", "the --notebook file"),
        (None, "in.txt", "the input file"),
        ("hardlink-input", "same.txt", "the input file"),
        ("subdir", "sub/../in.txt", "the input file"),
    ],
)
def test_the_report_never_overwrites_a_file_the_run_reads(workdir, make, output, what):
    if make == "hardlink-notebook":
        os.link(workdir / "mine.ipynb", workdir / "nb-link.ipynb")
    if make == "hardlink-input":
        os.link(workdir / "in.txt", workdir / "same.txt")
    if make == "subdir":
        (workdir / "sub").mkdir()
    before = {p.name: digest(p) for p in workdir.iterdir() if p.is_file()}
    proc = run("notebook", "in.txt", "--notebook", "mine.ipynb", "-o", output, cwd=workdir)
    assert proc.returncode == 2
    assert f"is {what} this run reads" in one_error_line(proc.stderr)
    assert proc.stdout == b""
    assert {p.name: digest(p) for p in workdir.iterdir() if p.is_file()} == before


def test_an_input_given_through_a_symbolic_link_is_still_the_input(workdir):
    (workdir / "link.txt").symlink_to(workdir / "in.txt")
    proc = run("notebook", "link.txt", "-o", "in.txt", cwd=workdir)
    assert proc.returncode == 2
    assert "in.txt: is the input file this run reads (link.txt)" in one_error_line(proc.stderr)
    assert digest(workdir / "in.txt") == digest(SAMPLE)


def test_check_output_path_compares_identity_not_spelling(tmp_path):
    real = tmp_path / "a.txt"
    real.write_text("x")
    os.link(real, tmp_path / "b.txt")
    with pytest.raises(InputError, match="is the input file this run reads"):
        check_output_path(tmp_path / "b.txt", [("the input file", str(real))])
    with pytest.raises(InputError, match="is the golden file this run reads"):
        check_output_path(real, [("the input file", "elsewhere"), ("the golden file", real)])
    check_output_path(tmp_path / "new.txt", [("the input file", str(real))])
    check_output_path(real, [("the input file", tmp_path / "missing.txt"), ("x", None)])


# --------------------------------------------------------------------------
# Read the input once: FIFOs and process substitution work like files
# --------------------------------------------------------------------------


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_the_gate_reads_process_substitution_and_a_fifo(tmp_path):
    want = run(str(SAMPLE))
    proc = bash(f"$BE <(cat {SAMPLE})")
    assert proc.returncode == want.returncode == 1 and proc.stdout == want.stdout
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    stop = threading.Event()
    server = threading.Thread(target=_serve, args=(fifo, [SAMPLE.read_bytes()], stop), daemon=True)
    server.start()
    try:
        proc = run(str(fifo), "--format", "json")
    finally:
        _stop_serving(fifo, stop, server)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["decision"]["release"] is False


def _serve(fifo: Path, contents: list[bytes], stop: threading.Event) -> None:
    """Serve ``contents[0]`` to the FIFO's first reader, ``contents[1]`` to a later one, ...

    After each content the server pauses, so the reader sees the end of it
    before anyone opens the FIFO for writing again.
    """
    for content in contents:
        fd = os.open(fifo, os.O_WRONLY)  # waits for a reader
        try:
            if not stop.is_set():
                os.write(fd, content)
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)
        if stop.wait(1.0):
            return


def _stop_serving(fifo: Path, stop: threading.Event, server: threading.Thread) -> None:
    stop.set()
    while server.is_alive():
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # releases a server waiting for a reader
        server.join(timeout=0.5)
        os.close(fd)


@pytest.mark.slow
def test_the_notebook_report_renders_the_bytes_it_checked_and_hashed(tmp_path):
    """A FIFO serving RELEASE data first and BLOCK data after: everything says RELEASE."""
    release = b"THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    block = release.replace(b"NEW q1 L1 N a", b"NEW q1 L2 N b")
    fifo = tmp_path / "input.txt"
    os.mkfifo(fifo)
    stop = threading.Event()
    server = threading.Thread(target=_serve, args=(fifo, [release, block], stop), daemon=True)
    server.start()
    out = tmp_path / "r.html"
    try:
        proc = run("notebook", str(fifo), "-o", str(out), "--format", "json", timeout=600)
    finally:
        _stop_serving(fifo, stop, server)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["release"] is True and summary["verdict"] == "RELEASE"
    assert summary["input_sha256"] == hashlib.sha256(release).hexdigest()
    html = out.read_text(encoding="utf-8")
    assert f"<code>{summary['input_sha256']}</code>" in html
    assert '<p class="verdict">RELEASE</p>' in html


@pytest.mark.slow
def test_the_notebook_report_reads_the_slices_file_once(tmp_path):
    """A FIFO serving a slices file under which the planted case RELEASEs first, and one
    under which it BLOCKs after: the banner, the notebook's own lines and the exit agree."""
    from tests.slices_helpers import planted_case

    text, sliced = planted_case()
    (tmp_path / "input.txt").write_text(text, encoding="utf-8")
    unsliced = b"id,slice\n"
    fifo = tmp_path / "slices.csv"
    os.mkfifo(fifo)
    stop = threading.Event()
    contents = [unsliced, sliced.encode()]
    server = threading.Thread(target=_serve, args=(fifo, contents, stop), daemon=True)
    server.start()
    out = tmp_path / "r.html"
    options = ["--slices", str(fifo), "--slice-rule", "drop", "--format", "json"]
    try:
        proc = run("notebook", str(tmp_path / "input.txt"), "-o", str(out), *options, timeout=600)
    finally:
        _stop_serving(fifo, stop, server)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verdict"] == "RELEASE"
    html = out.read_text(encoding="utf-8")
    assert '<p class="verdict">RELEASE</p>' in html
    assert "slice &#x27;hard&#x27;" not in html and "slice 'hard'" not in html
    assert "RELEASE\n" in html.replace("&#x27;", "'")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize(
    "command",
    [
        ["{dev}"],
        ["--trials", "{dev}"],
        ["notebook", "{dev}", "-o", "{tmp}/r.html"],
        [str(DATA / "example.txt"), "--slices", "{dev}"],
        ["notebook", str(DATA / "example.txt"), "--slices", "{dev}", "-o", "{tmp}/r.html"],
        ["tasks", "--golden", "{dev}", "--run-a", str(EXAMPLE["a"]), "--run-b", str(EXAMPLE["b"])],
        ["tasks", "--golden", str(EXAMPLE["golden"]), "--run-a", "{dev}", "--run-b", "{dev}"],
    ],
)
def test_a_device_is_refused_at_once(tmp_path, device, command):
    if not Path(device).exists():
        pytest.skip(f"no {device} here")
    args = [a.format(dev=device, tmp=tmp_path) for a in command]
    proc = run(*args, timeout=60)
    assert proc.returncode == 2
    assert f"{device}: is a device, not a file" in one_error_line(proc.stderr)
    assert proc.stdout == b"" and list(tmp_path.iterdir()) == []


def test_standard_input_from_a_device_is_refused_but_a_directory_too():
    with open("/dev/zero", "rb") as zero:
        proc = run("-", stdin=zero, timeout=60)
    assert proc.returncode == 2
    assert "<stdin>: is a device" in one_error_line(proc.stderr)
    proc = run("data")
    assert proc.returncode == 2
    assert "data: is a directory, expected a file" in one_error_line(proc.stderr)


# --------------------------------------------------------------------------
# Signals: SIGTERM like SIGINT, on every subcommand, status 3, one line, no leftovers
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
@pytest.mark.parametrize("subcommand", ["gate", "tasks", "notebook"])
def test_a_signal_while_waiting_for_input_ends_with_status_3(tmp_path, sig, subcommand):
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    args = {
        "gate": [str(fifo)],
        "tasks": ["tasks", "--golden", str(fifo), "--run-a", str(fifo), "--run-b", str(fifo)],
        "notebook": ["notebook", str(fifo), "-o", str(tmp_path / "r.html")],
    }[subcommand]
    proc = subprocess.Popen(
        [*COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    time.sleep(1.5)  # the program is blocked opening the FIFO
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3
    line = one_error_line(err)
    assert line == f"buddy-eval: error: could not finish: interrupted by signal {sig.name}"
    assert out == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["never-written"]


def _wait_for(predicate, timeout: float = 120) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _kernel_running(parent: int) -> bool:
    """Whether a Jupyter kernel started by process ``parent`` is running.

    The kernel runs in a session of its own, and after its parent dies it has a
    new parent, so it is found by the parent id Jupyter puts in its environment.
    """
    mark = f"JPY_PARENT_PID={parent}".encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"ipykernel" in cmdline and mark in environ:
            return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_notebook_run_cleans_up(tmp_path, sig):
    """The kernel is running: status 3, one line, no report, no temporary folder, no kernel."""
    from benchmarks.generate import generate

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # big enough that the kernel's cells take seconds: the signal lands while they run
    big = tmp_path / "big.txt"
    big.write_bytes(generate(200_000, seed=3))
    out = tmp_path / "r.html"
    proc = subprocess.Popen(
        [*COMMAND, "notebook", str(big), "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmpdir)},
        start_new_session=True,  # Ctrl-C reaches the whole group: the kernel too
    )
    assert _wait_for(lambda: any(tmpdir.glob("buddy-eval-report-*"))), "no run folder appeared"
    assert _wait_for(lambda: _kernel_running(proc.pid)), "no kernel started"
    time.sleep(0.5)  # the kernel has begun on the cells
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    out_bytes, err = proc.communicate(timeout=120)
    assert proc.returncode == 3
    assert one_error_line(err).endswith(f"could not finish: interrupted by signal {sig.name}")
    assert out_bytes == b"" and not out.exists()
    assert not any(tmpdir.glob("buddy-eval-report-*"))
    assert not _kernel_running(proc.pid)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "tmp"]


# --------------------------------------------------------------------------
# One line, always: usage errors, bad notebooks, non-UTF-8 arguments
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ([str(SAMPLE), "--margin", "-0.1"], "buddy-eval: error: argument --margin"),
        ([str(SAMPLE), "--min-paired", "0"], "buddy-eval: error: argument --min-paired"),
        ([str(SAMPLE), "--format", "yaml"], "buddy-eval: error: argument --format"),
        ([str(SAMPLE), "--bogus"], "unrecognized arguments: --bogus"),
        ([], "the following arguments are required: INPUT"),
        (["notebook", str(SAMPLE)], "buddy-eval notebook: error: the following arguments"),
        (["tasks", "--golden", "g.json", "--run-a", "a.json"], "required: --run-b"),
        (["tasks"], "buddy-eval tasks: error: the following arguments are required"),
    ],
)
def test_usage_errors_are_one_line(args, needle):
    proc = run(*args)
    assert proc.returncode == 2 and proc.stdout == b""
    line = one_error_line(proc.stderr)
    assert needle in line and line.endswith("--help'")


@pytest.mark.parametrize(
    "args",
    [
        [b"da\xfft.txt"],
        [str(SAMPLE).encode(), b"--baseline", b"OL\xff"],
        [b"notebook", str(SAMPLE).encode(), b"-o", b"r.html", b"--date", b"2026\xff"],
        [b"tasks", b"--golden", b"g\xff.json", b"--run-a", b"a", b"--run-b", b"b"],
        [b"tasks", b"--golden", b"g", b"--run-a", b"a", b"--run-b", b"b", b"--label-a", b"\xfe"],
    ],
)
def test_non_utf8_arguments_are_usage_errors_found_first(tmp_path, args):
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"buddy_eval", *args],
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert "is not UTF-8 text" in one_error_line(proc.stderr)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_json_outputs_hold_no_lone_surrogates():
    # Every JSON output parses with a strict reader and holds no escaped lone surrogate.
    for args in ([str(SAMPLE), "--format", "json"], [str(TRIALS), "--trials", "--format", "json"]):
        proc = run(*args)
        text = proc.stdout.decode("utf-8")
        json.loads(text)
        assert "\\ud8" not in text.lower() and "\\udc" not in text.lower()


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"not json", "is not a Jupyter notebook"),
        (b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', "no code cell"),
        (b"\xff\xfe", "is not a Jupyter notebook"),
    ],
)
@pytest.mark.slow
def test_a_notebook_that_is_not_one_is_one_line(tmp_path, content, needle):
    bad = tmp_path / "bad.ipynb"
    bad.write_bytes(content)
    proc = run("notebook", str(SAMPLE), "--notebook", str(bad), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and proc.stdout == b""
    assert needle in one_error_line(proc.stderr)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_a_kernel_that_cannot_start_is_one_line(tmp_path):
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    nb["metadata"]["kernelspec"] = {"name": "no-such-kernel", "display_name": "x", "language": "py"}
    path = write_json(tmp_path / "nb.ipynb", nb)
    proc = run("notebook", str(SAMPLE), "--notebook", str(path), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 3 and proc.stdout == b""
    assert "could not finish" in one_error_line(proc.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nb.ipynb"]


def test_the_unequal_trial_counts_warning_is_capped(tmp_path):
    lines = ["THRESHOLDS 0.5 0.5 0.5"]
    lines += [f"q{i} ANSWER L a" for i in range(81)]
    lines.append("RESULTS")
    for i in range(81):
        lines.append(f"OLD q{i} L N a")
        lines += [f"NEW q{i} L N a"] * (i + 1)
    path = tmp_path / "uneq.txt"
    path.write_text("\n".join(lines) + "\n")
    proc = run("--trials", str(path))
    warnings = [w for w in proc.stderr.decode().splitlines() if "unequal trial counts" in w]
    assert len(warnings) == 1
    assert warnings[0].endswith("72 for 1 and 71 more trial counts")
    assert len(warnings[0]) < 300


def test_a_255_byte_output_name_works(tmp_path):
    name = "r" * 250 + ".html"
    try:
        (tmp_path / name).write_text("probe")
    except OSError:
        pytest.skip("this file system takes no 255-byte names")
    (tmp_path / name).unlink()
    write_atomic(tmp_path / name, "report")
    assert [p.name for p in tmp_path.iterdir()] == [name]
    assert (tmp_path / name).read_text() == "report"


def test_temporary_names_are_never_longer_than_the_final_one(tmp_path, monkeypatch):
    seen = []
    real_open = os.open

    def spy(path, flags, *args):
        seen.append(os.path.basename(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", spy)
    for name in ("r.html", "report-" + "é" * 100 + ".html", "x" * 200):
        write_atomic(tmp_path / name, "x")
        tmp = seen[-1]
        assert tmp.startswith(".") and tmp.endswith(".tmp")
        assert len(os.fsencode(tmp)) <= max(len(os.fsencode(name)), 16)


# --------------------------------------------------------------------------
# Every valid input is answered; every invalid one is the project's error
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    [
        "1e9999999999999999999",
        "-1e9999999999999999999",
        "1e-9999999999999999999",
        "1E+99999999999999999999",
    ],
)
@pytest.mark.parametrize(
    ("where", "field"),
    [
        ("run", "total_tokens"),
        ("run", "usd_micros"),
        ("run", "unpriced_tokens"),
        ("run", "status"),
        ("golden", "max_tokens"),
        ("golden", "max_cost_usd"),
        ("golden", "tier"),
        ("check", "value"),
    ],
)
@pytest.mark.slow
def test_tasks_refuses_numbers_out_of_range_in_any_field(tmp_path, number, where, field):
    golden = [
        task("t1", check("contains", "x"), check("max_tokens", 100)),
        task("t2", check("status_completed")),
    ]
    a = [record("a1", "t1"), record("a2", "t2")]
    b = [record("b1", "t1"), record("b2", "t2")]
    if where == "run":
        a[0][field] = "@@"
    elif where == "check":
        golden[0]["checks"][0]["value"] = "@@"
    elif field == "tier":
        golden[0]["tier"] = "@@"
    else:
        golden[0]["checks"] = [{"type": field, "value": "@@"}]
    g_text = json.dumps(golden).replace('"@@"', number)
    a_text = json.dumps(a).replace('"@@"', number)
    (tmp_path / "g.json").write_text(g_text)
    (tmp_path / "a.json").write_text(a_text)
    write_json(tmp_path / "b.json", b)
    proc = run(
        "tasks", "--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json", cwd=tmp_path
    )
    assert proc.returncode == 2 and proc.stdout == b""
    line = one_error_line(proc.stderr)
    assert number in line or "more characters" in line


GOLDEN = pd.DataFrame(
    {
        "item_id": ["q1", "q2"],
        "item_type": ["ANSWER", "REFUSE"],
        "required_source": ["L1", "-"],
        "keywords": ["a,b", "-"],
    }
)
RESULTS = pd.DataFrame(
    {
        "version": ["OLD", "OLD", "NEW", "NEW"],
        "item_id": ["q1", "q2", "q1", "q2"],
        "cited": ["L1", "-", "L1", "-"],
        "refused": ["N", "Y", "N", "Y"],
        "answer": ["a b", "", "a", ""],
    }
)


@pytest.mark.parametrize(
    ("golden", "results", "message"),
    [
        (
            pd.concat([GOLDEN, GOLDEN[["item_id"]]], axis=1),
            RESULTS,
            "golden DataFrame: has the column 'item_id' more than once",
        ),
        (
            GOLDEN,
            pd.concat([RESULTS, RESULTS[["answer"]]], axis=1),
            "results DataFrame: has the column 'answer' more than once",
        ),
        (
            GOLDEN.assign(keywords=[["a", ["b", "c"]], None]),
            RESULTS,
            "row 1: keywords must be a flat list of strings, got the list ['b', 'c']",
        ),
        (
            GOLDEN.assign(keywords=[["a", {"b": 1}], None]),
            RESULTS,
            "row 1: keywords must be a flat list of strings, got the dict",
        ),
        (
            GOLDEN.assign(keywords=[np.array([["a", "b"]]), None]),
            RESULTS,
            "row 1: keywords must be a flat list of strings, got an array of shape (1, 2)",
        ),
        (
            GOLDEN.assign(item_id=[1, 2]),
            RESULTS.assign(item_id=[1.0, 2.0, 1.0, np.nan]),
            "results DataFrame, row 1: column 'item_id' must hold text or whole numbers, got the "
            "float 1.0",
        ),
        (
            GOLDEN.assign(item_id=[1.0, 2.0]),
            RESULTS.assign(item_id=[1, 2, 1, 2]),
            "golden DataFrame, row 1: column 'item_id' must hold text or whole numbers",
        ),
    ],
)
def test_from_frames_refuses_what_would_silently_surprise(golden, results, message):
    golden_copy, results_copy = golden.copy(), results.copy()
    with pytest.raises(InputError) as raised:
        be.from_frames(golden, results, (0.5, 0.5, 0.5))
    assert message in str(raised.value)
    pd.testing.assert_frame_equal(golden, golden_copy)
    pd.testing.assert_frame_equal(results, results_copy)


def test_a_trial_column_given_twice_is_refused_with_trials_and_ignored_without():
    trials = pd.concat(
        [
            RESULTS.assign(trial=[1, 1, 1, 1]),
            RESULTS[["version"]].rename(columns={"version": "trial"}).assign(trial=1),
        ],
        axis=1,
    )
    assert list(trials.columns).count("trial") == 2
    with pytest.raises(InputError) as raised:
        be.from_frames(GOLDEN, trials, (0.5, 0.5, 0.5), trials=True)
    assert str(raised.value) == (
        "results DataFrame: has the column 'trial' more than once; each of the columns "
        "version, item_id, cited, refused, answer and the optional trial must appear once "
        "(rename or drop the copy)"
    )
    assert be.from_frames(GOLDEN, trials, (0.5, 0.5, 0.5)).versions == ["OLD", "NEW"]


def test_integer_ids_on_both_sides_still_match():
    data = be.from_frames(
        GOLDEN.assign(item_id=[1, 2]), RESULTS.assign(item_id=[1, 2, 1, 2]), (0.5, 0.5, 0.5)
    )
    assert data.warnings == ()
    assert be.evaluate(data).report().splitlines()[0].startswith("OLD: correctness 1.00")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"confidence": 1 - 1e-16}, "confidence must be a number in (0.5, 0.9999]"),
        ({"confidence": 0.5}, "confidence must be a number in (0.5, 0.9999]"),
        ({"confidence": float("nan")}, "confidence must be a number in"),
        ({"drop": 1e-300}, "drop must be a number in [0.01, 1)"),
        ({"power": 1.0}, "power must be a number in (0, 0.99]"),
        ({"power": "0.8"}, "power must be a number in (0, 0.99], got '0.8'"),
        ({"confidence": 10**400}, "an integer of 1329 bits"),
        ({"min_paired": 0}, "min_paired must be a whole number >= 1, got 0"),
        ({"min_paired": 2.0}, "min_paired must be a whole number >= 1, got 2.0"),
        ({"margin": 1.0}, "margin must be a number in [0, 1), got 1.0"),
        ({"margin": True}, "margin must be a number in [0, 1), got True"),
        ({"rule": ["exact"]}, "rule must be 'exact' or 'noninferiority'"),
        ({"rule": "noninferiority"}, "the noninferiority rule needs a margin"),
    ],
)
def test_settings_at_the_edges_are_the_projects_error(settings, message):
    with pytest.raises(InputError) as raised:
        be.Settings(**settings)
    assert message in str(raised.value)


@pytest.mark.parametrize(
    "settings",
    [
        {"confidence": 0.9999},
        {"confidence": 0.5000001},
        {"drop": 0.01, "power": 0.5},
        {"power": 1e-9},
        {"margin": 1e-300, "rule": "noninferiority"},
        {"margin": 0.999999},
    ],
)
@pytest.mark.parametrize("source,trials", [(SAMPLE, False), (TRIALS, True)])
def test_settings_inside_the_edges_answer_every_view(settings, source, trials):
    from buddy_eval.reporting import details, dumps
    from buddy_eval.reporting import json_record as json_report

    ev = be.evaluate(source, settings=be.Settings(**settings), trials=trials)
    json.loads(dumps(json_report(ev)))
    assert details(ev)
    assert len(ev.comparison) == 3


def test_float_settings_keep_their_decimal_value():
    assert be.Settings(drop=np.float32(0.05)).drop == 0.05
    assert be.Settings(confidence=Fraction(9, 10)).confidence == 0.9


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {"settings": {"rule": "exact"}}, "settings must be a buddy_eval.Settings"),
        (("OLD", "NEW", "x"), {}, "settings must be a buddy_eval.Settings"),
        ((be.Settings(),), {}, "a Settings was passed where the baseline version label goes"),
        ((3,), {}, "the baseline version label must be text"),
        (("OLD", None), {}, "the candidate version label must be text"),
    ],
)
def test_evaluate_names_arguments_in_the_wrong_place(args, kwargs, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        be.evaluate(SAMPLE, *args, **kwargs)


def test_an_evaluation_needs_an_evalinput():
    with pytest.raises(InputError, match="an Evaluation is built from an EvalInput"):
        be.Evaluation(str(SAMPLE))


# --------------------------------------------------------------------------
# Figures never lie by rounding
# --------------------------------------------------------------------------


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_tasks_never_print_a_nonzero_mean_delta_or_score_as_zero(tmp_path):
    # 4000 tasks of one check; A passes one of them, B none: mean delta -1/4000.
    golden = [task(f"t{i}", check("contains", "ok")) for i in range(4000)]
    a = [record(f"a{i}", f"t{i}", "no" if i else "ok") for i in range(4000)]
    b = [record(f"b{i}", f"t{i}", "no") for i in range(4000)]
    for name, value in (("g", golden), ("a", a), ("b", b)):
        write_json(tmp_path / f"{name}.json", value)
    args = ("tasks", "--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json")
    text = run(*args, cwd=tmp_path).stdout.decode()
    assert "mean delta -0.0003;" in text  # -1/4000 = -0.00025, half up
    assert "mean score 0.0003 over 4000 scored tasks" in text  # A: 1/4000
    assert "mean score 0.000 over 4000 scored tasks" in text  # B: exactly 0
    a, b = b, a
    write_json(tmp_path / "a.json", a)
    write_json(tmp_path / "b.json", b)
    assert "mean delta +0.0003;" in run(*args, cwd=tmp_path).stdout.decode()


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_a_tiny_violation_bound_is_printed_with_its_digits(tmp_path):
    n = 200_000
    lines = ["THRESHOLDS 0 0 0"] + [f"r{i} REFUSE - -" for i in range(n)] + ["RESULTS"]
    lines += [f"OLD r{i} - Y" for i in range(n)]
    lines += [f"NEW r{i} - {'N' if i == 0 else 'Y'}" for i in range(n)]
    path = tmp_path / "big.txt"
    path.write_text("\n".join(lines) + "\n")
    text = run(str(path), "--details", timeout=300).stdout.decode()
    bound = [line for line in text.splitlines() if "may be as high as" in line]
    assert bound[1].endswith("the rate may be as high as 0.000024")  # 2.37e-5
    assert "as high as 0.00\n" not in text + "\n"


def test_a_margin_is_printed_exactly_as_given():
    proc = run(str(SAMPLE), "--rule", "noninferiority", "--margin", "0.0249999999", "--details")
    text = proc.stdout.decode()
    assert "beyond margin 0.0249999999" in text and "0.025" not in text.splitlines()[2]
    assert "non-inferior within 0.0249999999:" in text


def test_an_interval_whose_ends_differ_never_prints_them_alike():
    from buddy_eval.formatting import format_interval

    assert format_interval(-0.0123, -0.0081, signed=True) == "[-0.012, -0.008]"
    assert format_interval(-0.01, -0.01, signed=True) == "[-0.01, -0.01]"
    assert format_interval(0.5000001, 0.5000004) == "[0.500000, 0.500000]"  # the cap: 6 places
    assert format_interval(0.123456, 0.1234574) == "[0.123456, 0.123457]"
