"""What every subcommand shares: exit statuses, safe writing to stdout, stderr and files.

The shell (:mod:`buddy_eval.cli`) and the subcommands import this module; it
imports none of them, so data flows one way. Writing never raises on a
closed, full or broken output: it raises :class:`CouldNotFinishError`, which the
shell turns into one line on stderr and :data:`EXIT_COULD_NOT_FINISH`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
from pathlib import Path

from ..errors import CouldNotFinishError, InputError
from ..vocabulary import (
    EXIT_BLOCK,
    EXIT_COULD_NOT_FINISH,
    EXIT_INPUT_ERROR,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
)

__all__ = [
    "EXIT_BLOCK",
    "EXIT_COULD_NOT_FINISH",
    "EXIT_INPUT_ERROR",
    "EXIT_RELEASE",
    "EXIT_STATUS_HELP",
    "PROG",
    "CouldNotFinishError",
    "add_label_arguments",
    "check_output_path",
    "error",
    "one_line",
    "silence_stdout",
    "warn",
    "write_atomic",
    "write_stdout",
]


def add_label_arguments(parser) -> None:
    """``--baseline`` and ``--candidate``, the same on every subcommand that compares versions."""
    parser.add_argument(
        "--baseline", default="OLD", metavar="LABEL", help="baseline version label (default: OLD)"
    )
    parser.add_argument(
        "--candidate", default="NEW", metavar="LABEL", help="candidate version label (default: NEW)"
    )


def one_line(text) -> str:
    """Collapse whitespace, so a message is one line whatever it quotes."""
    return " ".join(str(text).split())


def _stream_fd(stream) -> int | None:
    if stream is None:
        return None
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _write_fd(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush cannot fail again."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)


def write_stdout(text: str) -> None:
    """Write ``text`` as UTF-8 to standard output, unbuffered.

    Raises
    ------
    CouldNotFinishError
        Standard output is closed, full, or a pipe whose reader has gone.
    """
    stream = sys.stdout
    fd = _stream_fd(stream)
    if fd is None:
        if stream is None:
            raise CouldNotFinishError("standard output is closed")
        try:  # an in-process caller's replacement stream (tests, notebooks)
            stream.write(text)
            stream.flush()
        except (OSError, ValueError) as exc:
            raise CouldNotFinishError(f"cannot write to standard output: {_reason(exc)}") from None
        return
    try:
        stream.flush()
        _write_fd(fd, text.encode("utf-8", "backslashreplace"))
    except BrokenPipeError:
        silence_stdout()
        raise CouldNotFinishError(
            "standard output was closed by its reader (broken pipe)"
        ) from None
    except OSError as exc:
        silence_stdout()
        raise CouldNotFinishError(f"cannot write to standard output: {_reason(exc)}") from None


def _write_stderr(text: str) -> None:
    """Best effort: a closed or broken standard error loses the message, never the status."""
    stream = sys.stderr
    fd = _stream_fd(stream)
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if fd is None:
            stream.write(text)
            stream.flush()
        else:
            stream.flush()
            _write_fd(fd, text.encode("utf-8", "backslashreplace"))


def error(message: str, status: int = EXIT_INPUT_ERROR) -> int:
    """Print ``buddy-eval: error: MESSAGE`` (one line) on stderr; return ``status``."""
    _write_stderr(f"{PROG}: error: {one_line(message)}\n")
    return status


def warn(warnings) -> None:
    """Print each warning as ``buddy-eval: warning: ...`` on stderr."""
    if warnings:
        _write_stderr("".join(f"{PROG}: warning: {one_line(w)}\n" for w in warnings))


def _reason(exc: OSError | ValueError) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def check_output_path(path: Path, input_path: str | None = None) -> None:
    """Refuse any ``-o`` target but a regular file or a new file in an existing directory.

    Raises
    ------
    InputError
        The path is a directory, a device, a FIFO, a socket or a symbolic
        link, is the input file, or its directory does not exist.
    """
    name = str(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(f"cannot use as output: {_reason(exc)}", source=name) from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise InputError(
                "is a symbolic link; the report is only written to a regular file path",
                source=name,
            )
        if stat.S_ISDIR(info.st_mode):
            raise InputError("is a directory, expected a file name", source=name)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                "is not a regular file (a device, pipe or socket); choose a file path",
                source=name,
            )
        if input_path is not None:
            with contextlib.suppress(OSError):
                if os.path.samefile(path, input_path):
                    raise InputError("is the input file; choose another name", source=name)
    parent = Path(path).parent
    if not parent.is_dir():
        raise InputError(f"cannot write: no directory {str(parent)!r}", source=name)


@contextlib.contextmanager
def _removed_on_signal(tmp: str):
    """While the temporary file exists, SIGTERM, SIGINT and SIGHUP remove it and end the run."""

    def handler(signum, frame):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CouldNotFinishError(f"interrupted by signal {signal.Signals(signum).name}")

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and :func:`os.replace`.

    The temporary file lives in the target's directory (so the rename is
    atomic) and is removed if anything fails, including SIGTERM and SIGINT.
    The new file gets the mode of the file it replaces, or the usual mode for
    a new file under the current umask. Call :func:`check_output_path` first.

    Raises
    ------
    CouldNotFinishError
        The file could not be written (disk full, permissions, a signal).
    """
    import tempfile

    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CouldNotFinishError(f"{path}: cannot write: {_reason(exc)}") from None
    try:
        with _removed_on_signal(tmp):
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            try:
                mode = path.stat().st_mode & 0o777
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(tmp, mode)
            os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CouldNotFinishError(f"{path}: cannot write: {_reason(exc)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
