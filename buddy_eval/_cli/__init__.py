"""The ``buddy-eval`` program: one shell under which the gate, ``tasks`` and ``notebook`` sit.

The shell picks the subcommand and turns every way a run can end into the
exit-status contract (:data:`buddy_eval._vocabulary.EXIT_STATUS_HELP`):

- 0 RELEASE, 1 BLOCK (the gate's verdict; ``tasks`` and ``notebook`` exit 0
  when their output was written);
- 2 an input or usage error, reported by the subcommand as one line;
- 3 could not finish: a closed, full or broken output, out of memory, an
  interrupt or an internal error, as one line on stderr, never a traceback
  and never a status a verdict could have.

Subcommands live in :mod:`.gate`, :mod:`.tasks` and :mod:`.notebook` and share
:mod:`.output`; none of them imports this module.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from .._errors import QUOTE_LIMIT, InputError
from .output import (
    EXIT_COULD_NOT_FINISH,
    EXIT_INPUT_ERROR,
    PROG,
    STOP_SIGNALS,
    CouldNotFinishError,
    Interrupted,
    UsageError,
    could_not_finish_reported,
    error,
    silence_stderr,
    silence_stdout,
    stopped_by_signals,
)

__all__ = ["console_main", "main"]


def _dispatch(argv: list[str], lean: bool) -> int:
    if argv == ["--version"]:
        from .. import __version__
        from .output import write_stdout

        write_stdout(f"{PROG} {__version__}\n")
        return 0
    if argv[:1] == ["tasks"]:
        from .tasks import run as run_tasks

        return run_tasks(argv[1:])
    if argv[:1] == ["notebook"]:
        from .notebook import run as run_notebook

        return run_notebook(argv[1:])
    if argv[:1] == ["ledger"]:
        from .ledger import run_ledger

        return run_ledger(argv[1:])
    if argv[:1] == ["doctor"]:
        from .doctor import run as run_doctor

        return run_doctor(argv[1:], lean)
    if argv[:1] == ["history"]:
        from .ledger import run_history

        return run_history(argv[1:])
    from .gate import run as run_gate

    return run_gate(argv, lean)


def _check_arguments(argv: list[str]) -> None:
    """Every argument must be UTF-8 text, found before any work is done.

    An argument that is not (a file name or ``--date`` with other bytes) reaches
    Python with lone surrogates; they would end up in a report, a message or a
    JSON string that strict parsers refuse.
    """
    for position, arg in enumerate(argv, 1):
        if not isinstance(arg, str):
            raise UsageError(f"argument {position} must be text, got {type(arg).__name__}")
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            if len(shown) > QUOTE_LIMIT:
                shown = f"{shown[:QUOTE_LIMIT]}... ({len(shown) - QUOTE_LIMIT} more characters)"
            raise UsageError(
                f"argument {position} is not UTF-8 text: '{shown}'; file names, labels "
                "and other arguments must be UTF-8"
            ) from None


def main(argv: list[str] | None = None, *, lean: bool = False) -> int:
    """Run the command line; return the exit status (never raises, never prints a traceback).

    ``lean=True`` keeps pandas out of the plain gate (see :func:`console_main`);
    only a process that exits after the call should ask for it. While it
    runs, SIGINT, SIGTERM and SIGHUP end it with status 3 and one line (the
    previous handlers come back afterwards).
    """
    argv = [
        os.fspath(a) if isinstance(a, os.PathLike) else a
        for a in (sys.argv[1:] if argv is None else argv)
    ]
    try:
        with stopped_by_signals():
            _check_arguments(argv)
            return _dispatch(argv, lean)
    except SystemExit as exc:  # argparse --help (0), already printed
        code = exc.code
        return code if isinstance(code, int) else EXIT_INPUT_ERROR
    except UsageError as exc:
        return error(str(exc), EXIT_INPUT_ERROR, prog=exc.prog)
    except InputError as exc:
        return error(str(exc), EXIT_INPUT_ERROR)
    except CouldNotFinishError as exc:
        return error(f"could not finish: {exc}", EXIT_COULD_NOT_FINISH)
    except MemoryError:
        return error("could not finish: out of memory", EXIT_COULD_NOT_FINISH)
    except Interrupted as exc:
        return error(f"could not finish: {exc}", EXIT_COULD_NOT_FINISH)
    except KeyboardInterrupt:
        return error("could not finish: interrupted", EXIT_COULD_NOT_FINISH)
    except RecursionError:
        return error("could not finish: internal error: recursion too deep", EXIT_COULD_NOT_FINISH)
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return error(f"could not finish: {where}{reason}", EXIT_COULD_NOT_FINISH)
    except Exception as exc:  # noqa: BLE001 - the contract: no traceback, a distinct status
        return error(
            f"could not finish: internal error: {type(exc).__name__}: {str(exc)[:200]}",
            EXIT_COULD_NOT_FINISH,
        )


#: Where the last line goes once standard error is pointed at /dev/null (see console_main).
_saved_stderr: list[int] = []
#: Set by the first stop. A second call (another signal, or the same one both found pending
#: and delivered to another thread) comes in on top of the first and returns to it: one line.
_stopping: list[bool] = []


def _stop_now(signum, frame) -> None:
    """A stop signal outside :func:`main` (before it, after it, on the way out).

    Nothing is left to clean up there, so the process ends at once: status 3
    and the one line, unless a "could not finish" line was written already.
    """
    if _stopping:
        return
    _stopping.append(True)
    if not could_not_finish_reported():
        line = f"{PROG}: error: could not finish: {Interrupted(signum)}\n"
        with contextlib.suppress(OSError, ValueError):
            os.write(_saved_stderr[-1] if _saved_stderr else 2, line.encode("utf-8"))
    os._exit(EXIT_COULD_NOT_FINISH)


def _hold_stop_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP end the process with status 3 from here until it exits."""
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, _stop_now)


def _exit(status: int) -> None:
    """End the process with ``status``, the stop signals handled until the very end.

    The interpreter's own shutdown puts the default handlers back before it
    tears the modules down (pandas, pyarrow: tens of milliseconds), when a
    SIGTERM would kill the process with no message. So the process runs what
    shutdown runs that may still matter (non-daemon threads are joined, the
    ``atexit`` functions: temporary folders, kernels), blocks the signals,
    reports one that arrived, and leaves with :func:`os._exit`.
    """
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        silence_stdout()
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    with contextlib.suppress(OSError):
        _saved_stderr.append(os.dup(2))
    silence_stderr()
    threading = sys.modules.get("threading")
    with contextlib.suppress(Exception):
        if threading is not None:
            getattr(threading, "_shutdown", lambda: None)()
    import atexit

    with contextlib.suppress(Exception):
        getattr(atexit, "_run_exitfuncs", lambda: None)()
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(ValueError, OSError, AttributeError):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        pending = sorted(signal.sigpending() & set(STOP_SIGNALS))
        if pending:
            _stop_now(pending[0], None)
            os._exit(EXIT_COULD_NOT_FINISH)
    os._exit(status)


def console_main() -> None:
    """The ``buddy-eval`` program (and ``python -m buddy_eval``): run and exit.

    The stop signals are handled first thing, before pandas or pyarrow load,
    and until the process has ended: from then on SIGINT, SIGTERM and SIGHUP
    end it with status 3 and the one line, whenever they come. Once the status
    is known and every message written, standard error is pointed at
    /dev/null: what libraries print while the process shuts down (a notebook
    kernel's clean-up, a stopped event loop) is not ours to show, and the
    contract is one line.
    """
    _hold_stop_signals()
    try:
        status = main(lean=True)
    except BaseException as exc:  # noqa: BLE001 - main() catches everything it expects
        status = error(
            f"could not finish: internal error: {type(exc).__name__}", EXIT_COULD_NOT_FINISH
        )
    _exit(status)
