"""A stop signal ends the program with status 3 and one line, wherever it lands.

The handlers are installed first thing in the console entry point and kept
until the process has ended: during the imports of pyarrow and pandas, while
the gate works, after ``main`` has returned, while the process shuts down.
Each point is reached deterministically: the process signals itself there
(through an import hook, a wrapped function or an ``atexit`` function), or the
test waits until the kernel reports the handler installed (``SigCgt`` in
``/proc``); no test depends on how fast the machine is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, ROOT

EXAMPLE = str(DATA / "example.txt")
VERDICT = b"BLOCK: refusal below threshold; integrity violations; regression in refusal\n"


def _line(sig: signal.Signals) -> bytes:
    return f"buddy-eval: error: could not finish: interrupted by signal {sig.name}\n".encode()


#: Python run as the console script runs: the hook, then ``console_main``.
_WRAPPER = """\
import atexit, importlib.abc, os, signal, sys
SIG = signal.{sig}
def send():
    os.kill(os.getpid(), SIG)
{hook}
sys.argv = ["buddy-eval", *{args!r}]
from buddy_eval._cli import console_main
console_main()
"""

_HOOKS = {
    # while pyarrow (or pandas) is being imported, inside main()
    "import pyarrow": """\
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow":
            send()
        return None
sys.meta_path.insert(0, Hook())
""",
    "import pandas": """\
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            send()
        return None
sys.meta_path.insert(0, Hook())
""",
    # the handlers are in place, main() has not started
    "before main": """\
import buddy_eval._cli as cli
real = cli.main
def main(*a, **k):
    send()
    return real(*a, **k)
cli.main = main
""",
    # the verdict is printed, main() has returned
    "after main": """\
import buddy_eval._cli as cli
real = cli.main
def main(*a, **k):
    status = real(*a, **k)
    send()
    return status
cli.main = main
""",
    # on the way out: the atexit functions run
    "atexit": "atexit.register(send)\n",
    # the very end: the signals are blocked, a pending one is still reported
    "blocked": """\
real = signal.pthread_sigmask
def pthread_sigmask(how, mask):
    old = real(how, mask)
    send()
    return old
signal.pthread_sigmask = pthread_sigmask
""",
}


def _run_wrapped(hook: str, sig: signal.Signals, *args: str) -> subprocess.CompletedProcess:
    script = _WRAPPER.format(sig=sig.name, hook=_HOOKS[hook], args=list(args))
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, cwd=ROOT, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
@pytest.mark.parametrize(
    ("hook", "args", "printed"),
    [
        ("import pyarrow", [EXAMPLE], b""),
        ("import pandas", [EXAMPLE, "--details"], b""),
        ("before main", [EXAMPLE], b""),
        ("after main", [EXAMPLE], VERDICT),
        ("atexit", [EXAMPLE], VERDICT),
        ("blocked", [EXAMPLE], VERDICT),
    ],
)
def test_a_stop_signal_anywhere_ends_with_status_3_and_one_line(hook, args, printed, sig):
    done = _run_wrapped(hook, sig, *args)
    assert done.returncode == 3, done.stderr
    assert done.stderr == _line(sig)
    assert done.stdout.endswith(printed)


@pytest.mark.parametrize("args", [["--details"], ["--format", "json"], ["--format", "markdown"]])
def test_pandas_is_imported_on_the_main_thread(args):
    # pyarrow imports pandas on first use, possibly on the thread that shares the work;
    # a stop signal during that import must meet the main thread at a known point.
    script = """\
import importlib.abc, sys, threading
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            sys.stderr.write(f"pandas on {threading.current_thread().name}\\n")
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["buddy-eval", *%r]
from buddy_eval._cli import console_main
console_main()
""" % [EXAMPLE, *args]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode().splitlines()[0] == "pandas on MainThread"


def _handles(pid: int, sig: signal.Signals) -> bool:
    """Whether the process has a handler for ``sig`` (the kernel's SigCgt mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((ln.split()[1] for ln in status.splitlines() if ln.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) & (1 << (sig - 1)))


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("attempt", range(5))
def test_sigterm_as_soon_as_the_program_handles_it_ends_with_status_3(attempt):
    """The program reads standard input that never ends; SIGTERM comes the moment it can
    be handled (while pyarrow is still loading, as a rule)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "buddy_eval", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        while not _handles(proc.pid, signal.SIGTERM):
            assert proc.poll() is None, "the program ended before handling SIGTERM"
            os.sched_yield()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3
    assert err == _line(signal.SIGTERM)
    assert out == b""


def test_importing_the_entry_point_loads_neither_pandas_nor_pyarrow():
    code = (
        "import sys\n"
        "from buddy_eval._cli import console_main\n"
        "import buddy_eval\n"
        "heavy = ('pandas', 'pyarrow', 'numpy', 'matplotlib', 'scipy')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "[]"


def test_every_public_name_loads_on_first_use():
    import buddy_eval

    assert set(buddy_eval._LAZY) == set(buddy_eval.__all__)
    for name in buddy_eval.__all__:
        assert getattr(buddy_eval, name).__name__ == name
