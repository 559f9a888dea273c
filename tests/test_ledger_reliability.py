"""The ledger under stress: bad paths, read-only and full files, concurrent writers, SIGKILL.

Every test uses a real SQLite file in tmp_path and the real command line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import buddy_eval as be
from tests.conftest import ROOT, run_cli
from tests.ledger_helpers import big_input, dump, make_input


@pytest.fixture
def ledger(tmp_path):
    path = tmp_path / "release.ledger"
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), path)
    return path


def snapshot(path: Path) -> tuple:
    info = os.lstat(path)
    data = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    return info.st_mode, info.st_size, info.st_mtime_ns, data


def _not_sqlite(tmp_path, ledger):
    path = tmp_path / "notes.txt"
    path.write_text("hello, not a ledger\n")
    return path, "is not a buddy_eval ledger (not an SQLite database)"


def _other_sqlite(tmp_path, ledger):
    import sqlite3

    path = tmp_path / "other.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (x)")
    connection.commit()
    connection.close()
    return path, "is an SQLite database but not a buddy_eval ledger"


def _truncated(tmp_path, ledger):
    path = tmp_path / "truncated.ledger"
    path.write_bytes(ledger.read_bytes()[:5000])
    return path, "is a truncated or damaged ledger (5000 bytes"


def _newer(tmp_path, ledger):
    import sqlite3

    path = tmp_path / "newer.ledger"
    shutil.copy(ledger, path)
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA user_version = 99")
    connection.commit()
    connection.close()
    return path, "is a ledger of schema version 99, newer than this buddy_eval reads (3)"


def _garbled(tmp_path, ledger):
    path = tmp_path / "garbled.ledger"
    data = bytearray(ledger.read_bytes())
    data[4096:] = b"\xff" * (len(data) - 4096)
    path.write_bytes(bytes(data))
    return path, "is a damaged ledger"


def _empty(tmp_path, ledger):
    path = tmp_path / "empty.ledger"
    path.write_bytes(b"")
    return path, "is an empty file, not a buddy_eval ledger"


def _directory(tmp_path, ledger):
    path = tmp_path / "folder"
    path.mkdir()
    return path, "is a directory, expected a ledger file"


def _device(tmp_path, ledger):
    return Path("/dev/null"), "is not a regular file (a device, pipe or socket), not a ledger"


def _symlink(tmp_path, ledger):
    path = tmp_path / "link.ledger"
    path.symlink_to(ledger)
    return path, "is a symbolic link; a ledger must be a regular file"


BAD = [
    _not_sqlite,
    _other_sqlite,
    _truncated,
    _newer,
    _garbled,
    _empty,
    _directory,
    _device,
    _symlink,
]


@pytest.mark.slow  # a sweep of 45 command-line runs: `make test` runs it
@pytest.mark.parametrize("make", BAD, ids=[f.__name__.strip("_") for f in BAD])
@pytest.mark.parametrize("command", ["gate", "release", "show", "history", "verify"])
def test_a_path_that_is_not_a_usable_ledger_is_refused_untouched(
    make, command, tmp_path, ledger, write
):
    path, message = make(tmp_path, ledger)
    before = snapshot(path)
    target_before = snapshot(ledger)
    args = {
        "gate": [
            write(make_input("v1", "v2")),
            "--baseline",
            "v1",
            "--candidate",
            "v2",
            "--ledger",
            path,
        ],
        "release": ["ledger", "release", "v1", "--ledger", path],
        "show": ["ledger", "show", "--ledger", path],
        "history": ["history", "--ledger", path],
        "verify": ["ledger", "verify", "--ledger", path],
    }[command]
    proc = run_cli(*args)
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and message in err, err
    assert snapshot(path) == before
    assert snapshot(ledger) == target_before


def test_reading_commands_need_an_existing_ledger(tmp_path):
    for args in (
        ["history"],
        ["ledger", "show"],
        ["ledger", "verify"],
        ["ledger", "release", "v1"],
    ):
        proc = run_cli(*args, "--ledger", tmp_path / "none.ledger")
        assert proc.returncode == 2
        assert "no ledger here; record an evaluation first" in proc.stderr.decode()
    assert not (tmp_path / "none.ledger").exists()


def test_a_new_ledger_needs_an_existing_directory(tmp_path, write):
    path = write(make_input("v1", "v2"))
    proc = run_cli(
        path, "--baseline", "v1", "--candidate", "v2", "--ledger", tmp_path / "no" / "such.ledger"
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert "cannot create the ledger: no directory" in proc.stderr.decode()


def _make_read_only(path: Path):
    """Make ``path`` unwritable even for root (the immutable flag) or, else, by mode."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return lambda: path.chmod(0o644)
    proc = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("running as root on a file system without the immutable flag")
    return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_a_read_only_ledger_prints_the_verdict_then_exits_3(ledger, write):
    before = dump(ledger)
    path = write(make_input("v2", "v3"))
    plain = run_cli(path, "--baseline", "v2", "--candidate", "v3")
    undo = _make_read_only(ledger)
    try:
        proc = run_cli(path, "--baseline", "v2", "--candidate", "v3", "--ledger", ledger)
        released = run_cli("ledger", "release", "v2", "--ledger", ledger)
        shown = run_cli("history", "--ledger", ledger)
    finally:
        undo()
    assert released.returncode == 3 and released.stdout == b""
    assert released.stderr.decode().startswith("buddy-eval: error: could not finish: ")
    assert shown.returncode == 0  # reading needs no write access
    assert proc.returncode == 3
    assert proc.stdout == plain.stdout  # the verdict first, as without a ledger
    assert proc.stderr.decode() == (
        "buddy-eval: error: could not finish: the verdict above stands, but the evaluation was "
        f"not recorded: {ledger}: cannot record in the ledger: attempt to write a readonly "
        "database\n"
    )
    assert dump(ledger) == before


def _limit_file_size():
    # Large enough for the shared-memory index (32 KiB), too small for the log.
    resource.setrlimit(resource.RLIMIT_FSIZE, (40_000, 40_000))


def test_a_full_disk_while_recording_prints_the_verdict_then_exits_3(ledger, tmp_path):
    before = dump(ledger)
    path = tmp_path / "big.txt"
    path.write_text(big_input(2000, ("b1", "b2")))
    plain = run_cli(path, "--baseline", "b1", "--candidate", "b2")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "buddy_eval",
            str(path),
            "--baseline",
            "b1",
            "--candidate",
            "b2",
            "--ledger",
            str(ledger),
        ],
        capture_output=True,
        cwd=ROOT,
        preexec_fn=_limit_file_size,
        timeout=120,
    )
    assert proc.returncode == 3
    assert proc.stdout == plain.stdout
    err = proc.stderr.decode()
    assert err.startswith(
        "buddy-eval: error: could not finish: the verdict above stands, but the evaluation was "
        f"not recorded: {ledger}: cannot record"
    )
    assert err.count("\n") == 1
    assert dump(ledger) == before


WRITER = """
import sys
import buddy_eval as be
from tests.ledger_helpers import make_input
k = int(sys.argv[2])
passing = {f"a{k}": {"q1"}, f"b{k}": {"q1", "q2"}}
ev = be.evaluate(make_input(f"a{k}", f"b{k}", passing=passing), f"a{k}", f"b{k}")
print(be.record(ev, sys.argv[1], note=f"writer {k}").evaluation_id)
"""


@pytest.mark.slow
def test_concurrent_writers_all_land(tmp_path):
    path = tmp_path / "shared.ledger"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(k)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for k in range(6)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, [e for _, e in outs]
    ids = sorted(int(out) for out, _ in outs)
    assert ids == [1, 2, 3, 4, 5, 6]
    found = be.history(path)
    assert sorted(found.versions["version"]) == sorted(
        [f"a{k}" for k in range(6)] + [f"b{k}" for k in range(6)]
    )
    assert len(found.items) == 12 * 4
    import sqlite3

    connection = sqlite3.connect(path)
    notes = sorted(n for (n,) in connection.execute("SELECT note FROM evaluations"))
    sets = connection.execute("SELECT count(*) FROM golden_sets").fetchone()
    connection.close()
    assert notes == [f"writer {k}" for k in range(6)]
    assert sets == (1,)


def _signal_mid_record(ledger, path, labels, signum) -> tuple[bool, int, bytes, bytes]:
    """Gate ``path`` with ``--ledger`` and send ``signum`` while the transaction is written.

    Returns whether the signal was sent (the record had not finished), the exit
    status, stdout and stderr.
    """
    journal = Path(f"{ledger}-journal")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "buddy_eval",
            str(path),
            "--baseline",
            labels[0],
            "--candidate",
            labels[1],
            "--ledger",
            str(ledger),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    sent = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(FileNotFoundError):
            if journal.stat().st_size > 0:  # the transaction is being written
                proc.send_signal(signum)
                sent = True
                break
        time.sleep(0.001)
    out, err = proc.communicate(timeout=60)
    return sent, proc.returncode, out, err


@pytest.mark.slow
def test_a_record_killed_midway_leaves_the_ledger_as_before(ledger, tmp_path):
    before = dump(ledger)
    path = tmp_path / "big.txt"
    path.write_text(big_input(150_000, ("k1", "k2")))
    killed, status, _, _ = _signal_mid_record(ledger, path, ("k1", "k2"), signal.SIGKILL)
    assert killed, "the record finished before it could be killed"
    assert status == -signal.SIGKILL
    assert dump(ledger) == before
    # The ledger still works: the same evaluation records in full afterwards.
    again = run_cli(path, "--baseline", "k1", "--candidate", "k2", "--ledger", ledger)
    assert again.returncode == 0
    assert "recorded evaluation 2" in again.stderr.decode()


def test_fingerprints_of_text_json_escapes_match_json(tmp_path):
    text = (
        'THRESHOLDS 0.5 0.5 0.5\nq"1 ANSWER L\\1 a\\b,"c"\nq2 REFUSE - -\nRESULTS\n'
        "OLD q2 - Y x\nNEW q2 - Y x\n"
    )
    path = tmp_path / "l.ledger"
    be.record(be.evaluate(text), path)
    import sqlite3

    connection = sqlite3.connect(path)
    stored = connection.execute("SELECT fingerprint FROM golden_items ORDER BY position").fetchall()
    connection.close()
    canonical = json.dumps(
        ['q"1', "ANSWER", "L\\1", ["a\\b", '"c"']], ensure_ascii=False, separators=(",", ":")
    )
    assert stored[0][0] == hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.slow
def test_sigterm_mid_record_rolls_back_and_exits_3_after_the_verdict(ledger, tmp_path):
    before = dump(ledger)
    path = tmp_path / "big.txt"
    path.write_text(big_input(150_000, ("t1", "t2")))
    sent, status, out, err = _signal_mid_record(ledger, path, ("t1", "t2"), signal.SIGTERM)
    assert sent, "the record finished before the signal could be sent"
    assert status == 3
    assert out.decode().splitlines()[-1] == "RELEASE"
    assert err.decode().splitlines()[-1] == (
        "buddy-eval: error: could not finish: interrupted by signal SIGTERM"
    )
    assert dump(ledger) == before
