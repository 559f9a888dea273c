"""What every subcommand shares: exit statuses, safe writing to stdout, stderr and files.

The shell (:mod:`buddy_eval._cli`) and the subcommands import this module; it
imports none of them, so data flows one way. Writing never raises on a
closed, full or broken output: it raises :class:`CouldNotFinishError`, which the
shell turns into one line on stderr and :data:`EXIT_COULD_NOT_FINISH`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .._errors import CouldNotFinishError, InputError
from .._escaping import terminal_text
from .._vocabulary import (
    EXIT_BLOCK,
    EXIT_COULD_NOT_FINISH,
    EXIT_INPUT_ERROR,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
)

__all__ = [
    "STOP_SIGNALS",
    "ArgumentParser",
    "EXIT_BLOCK",
    "EXIT_COULD_NOT_FINISH",
    "EXIT_INPUT_ERROR",
    "EXIT_RELEASE",
    "EXIT_STATUS_HELP",
    "PROG",
    "CouldNotFinishError",
    "Interrupted",
    "UsageError",
    "add_format_argument",
    "add_label_arguments",
    "check_output_path",
    "check_outputs",
    "could_not_finish_reported",
    "error",
    "one_line",
    "quiet_stderr",
    "same_file",
    "silence_stderr",
    "silence_stdout",
    "stopped_by_signals",
    "terminal_lines",
    "warn",
    "write_atomic",
    "write_stdout",
]


class ArgumentParser(argparse.ArgumentParser):
    """argparse with the exit-status contract: a usage error is one line and status 2.

    argparse prints the usage block and exits; here the error is raised as
    :class:`UsageError`, which the shell prints as one line naming the
    subcommand and its ``--help``.
    """

    def error(self, message: str):
        raise UsageError(f"{message}; see '{self.prog} --help'", prog=self.prog)


class UsageError(InputError):
    """A command line argparse (or the shell) refused: exit status 2, one line."""

    def __init__(self, message: str, *, prog: str = PROG):
        self.prog = prog
        super().__init__(message)


def add_label_arguments(parser) -> None:
    """``--baseline`` and ``--candidate``, the same on every subcommand that compares versions."""
    parser.add_argument(
        "--baseline", default="OLD", metavar="LABEL", help="baseline version label (default: OLD)"
    )
    parser.add_argument(
        "--candidate", default="NEW", metavar="LABEL", help="candidate version label (default: NEW)"
    )


def add_min_paired_argument(parser) -> None:
    """``--min-paired N``: the paired items a comparison needs before it tests (gate, tasks)."""
    parser.add_argument(
        "--min-paired",
        type=_positive_int,
        default=20,
        metavar="N",
        help="paired items a metric needs before a p-value and a difference interval are "
        "computed (default: 20)",
    )


def add_rule_arguments(parser) -> None:
    """``--min-paired``, ``--margin`` and ``--rule``: how a regression is decided, declared once
    for every subcommand that renders an evaluation."""
    add_min_paired_argument(parser)
    parser.add_argument(
        "--margin",
        type=_margin,
        default=None,
        metavar="M",
        help="non-inferiority margin (e.g. 0.02): --details and json add, per metric, a "
        "one-sided lower confidence bound on the paired difference and whether the "
        "candidate is within M of the baseline",
    )
    parser.add_argument(
        "--rule",
        choices=("exact", "noninferiority"),
        default="exact",
        help="exact (default): a regression is a rate lower than the baseline's, exactly; "
        "noninferiority: a regression is a metric not shown non-inferior within --margin "
        "(thresholds and violations decide as always)",
    )


def _margin(text: str) -> float:
    allowed = set("0123456789.")
    if not text or len(text) > 20 or not set(text) <= allowed or text.count(".") > 1:
        raise argparse.ArgumentTypeError(f"expected a decimal in [0, 1) such as 0.02, got {text!r}")
    value = float(text) if text != "." else -1.0
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a decimal in [0, 1) such as 0.02, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_format_argument(parser, **shown: str) -> None:
    """``--format``, declared once for every subcommand: each format a subcommand prints
    (``text``, the default, first) with what it shows."""
    parser.add_argument(
        "--format",
        choices=tuple(shown),
        default="text",
        help="; ".join(
            f"{name}{' (default)' if name == 'text' else ''}: {what}"
            for name, what in shown.items()
        ),
    )


def add_ci_file_arguments(parser, cases: str) -> None:
    """``--markdown PATH`` and ``--junit PATH``: the CI files written beside the output.

    ``cases`` says what the JUnit report has one test case per.
    """
    parser.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write the Markdown summary to PATH (atomically, after the output)",
    )
    parser.add_argument(
        "--junit",
        metavar="PATH",
        help=f"also write a JUnit XML report to PATH: one test case per {cases} "
        "(atomically, after the output)",
    )


def write_ci_files(args, markdown: Callable[[], str], junit: Callable[[], str]) -> None:
    """Write the ``--markdown`` and ``--junit`` files that were asked for, each made on demand.

    After the output, so that a file that cannot be written ends the run with
    "could not finish" (3), never with a verdict it did not reach.
    """
    if args.markdown:
        write_atomic(Path(args.markdown), markdown())
    if args.junit:
        write_atomic(Path(args.junit), junit())


def one_line(text) -> str:
    """Collapse whitespace, so a message is one line whatever it quotes; show every other
    invisible character (a bidi override in a file name) as an escape."""
    return terminal_text(" ".join(str(text).split()))


def terminal_lines(text: str) -> str:
    """A text view for the terminal: each line through :func:`terminal_text`."""
    return "\n".join(terminal_text(line) for line in text.split("\n"))


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


def _silence(fd: int) -> None:
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def silence_stdout() -> None:
    """Point fd 1 at /dev/null, so the interpreter's final flush cannot fail again."""
    _silence(1)


def silence_stderr() -> None:
    """Point fd 2 at /dev/null (after the run's own messages are written)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    _silence(2)


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


#: Whether this process has written its "could not finish" line (there is one at most).
_REPORTED: list[bool] = []


def error(message: str, status: int = EXIT_INPUT_ERROR, *, prog: str = PROG) -> int:
    """Print ``buddy-eval: error: MESSAGE`` (one line) on stderr; return ``status``."""
    if status == EXIT_COULD_NOT_FINISH:
        _REPORTED.append(True)
    _write_stderr(f"{prog}: error: {one_line(message)}\n")
    return status


def could_not_finish_reported() -> bool:
    """Whether :func:`error` wrote a "could not finish" line in this process."""
    return bool(_REPORTED)


@contextlib.contextmanager
def quiet_stderr():
    """While inside, file descriptor 2 goes to /dev/null; the real one comes back after.

    For libraries that log to the terminal on their own (a notebook kernel's
    start-up warnings, its death on Ctrl-C, an event loop's complaints): the
    contract is one line, which the shell prints once the work has ended.
    """
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all: nothing to quieten
        yield
        return
    _silence(2)
    try:
        yield
    finally:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            sys.stderr.flush()
        with contextlib.suppress(OSError):
            os.dup2(saved, 2)
        os.close(saved)


def warn(warnings) -> None:
    """Print each warning as ``buddy-eval: warning: ...`` on stderr."""
    if warnings:
        _write_stderr("".join(f"{PROG}: warning: {one_line(w)}\n" for w in warnings))


def _reason(exc: OSError | ValueError) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _identity(path) -> tuple[int, int] | None:
    """``(device, inode)`` of the file ``path`` resolves to; None when it does not exist."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _names_of(path) -> set[object]:
    """What ``path`` names, in every form two paths to one file share.

    Its absolute form with the directory's symbolic links followed (a file
    that does not exist yet has no other name), the path every link resolves
    to, and, for an existing file, its device and inode (a hard link).
    """
    name = os.fspath(path)
    absolute = os.path.abspath(name)
    head, tail = os.path.split(absolute)
    names: set[object] = {absolute}
    with contextlib.suppress(OSError, ValueError):
        names.add(os.path.join(os.path.realpath(head), tail))
        names.add(os.path.realpath(absolute))
    identity = _identity(name)
    if identity is not None:
        names.add(identity)
    return names


def same_file(a, b) -> bool:
    """Whether the paths ``a`` and ``b`` name one file, existing or not (see :func:`_names_of`)."""
    return bool(_names_of(a) & _names_of(b))


Reads = Sequence[tuple[str, "str | os.PathLike[str] | None"]]


def _refuse_a_read(name: str, reads: Reads, option: str | None = None) -> None:
    for what, read in reads:
        if read is not None and os.fspath(read) != "-" and same_file(name, read):
            writing = f"writing {option} there" if option else "writing there"
            raise InputError(
                f"is {what} this run reads ({os.fspath(read)}); {writing} would destroy it, "
                "choose another name",
                source=name,
            )


def check_output_path(path: Path, reads: Reads = (), *, option: str | None = None) -> None:
    """Refuse any output target but a regular file or a new file in an existing directory.

    Parameters
    ----------
    path : pathlib.Path
        The file to write (``-o``).
    reads : sequence of (str, path)
        Every file the run reads, each with the words that name it in a
        message (``("the input file", "results.txt")``). The output may be none
        of them, existing or not: they are compared by what they name, not by
        spelling (:func:`same_file`), so ``./r.txt``, ``sub/../r.txt``, a hard
        link or a symbolic link to the input are all the input.
    option : str, optional
        The option that names ``path`` (``-o``), for the message.

    Raises
    ------
    InputError
        The path is a directory, a device, a FIFO, a socket or a symbolic
        link, is a file the run reads, or its directory does not exist.
    """
    name = str(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as exc:
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
    _refuse_a_read(name, reads, option)
    parent = Path(path).parent
    if not parent.is_dir():
        raise InputError(f"cannot write: no directory {str(parent)!r}", source=name)


def check_outputs(
    reports: Sequence[tuple[str, str | None]],
    reads: Reads,
    others: Sequence[tuple[str, str | None]] = (),
) -> None:
    """Check every path a run will write, against each other and every file it reads.

    Called before any work: a clash is an input error (status 2), nothing written.

    Parameters
    ----------
    reports : sequence of (option, path)
        The report files (``--markdown``, ``--junit``, ``-o``), each checked by
        :func:`check_output_path`; None for an option not given.
    reads : sequence of (str, path)
        Every file the run reads, as for :func:`check_output_path`.
    others : sequence of (option, path)
        Files the run writes that are checked elsewhere for what they are
        (``--ledger``): compared with the rest only.

    Raises
    ------
    InputError
        An empty path, a path :func:`check_output_path` refuses, two options
        naming one file, or a file written that the run reads.
    """
    written: list[tuple[str, str]] = []
    for option, path in [*reports, *others]:
        if path is None:
            continue
        if path == "":
            raise InputError(f"{option} expects a file path, got an empty one")
        if (option, path) in reports:
            check_output_path(Path(path), reads, option=option)
        else:
            _refuse_a_read(os.fspath(path), reads, option)
        for earlier, earlier_path in written:
            if same_file(earlier_path, path):
                raise InputError(
                    f"{earlier} and {option} name the same file; give each its own",
                    source=os.fspath(path),
                )
        written.append((option, path))


#: The signals that end a run with :data:`EXIT_COULD_NOT_FINISH` and one line.
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived: the run unwinds (temporary files and folders are removed).

    A :class:`KeyboardInterrupt`, so that libraries which catch
    :class:`Exception` (notebook execution, for one) let it through and clean
    up as they do for Ctrl-C.
    """

    def __init__(self, signum: int):
        self.signal_name = signal.Signals(signum).name
        super().__init__(f"interrupted by signal {self.signal_name}")


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


@contextlib.contextmanager
def stopped_by_signals():
    """While inside, SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` (main thread only).

    The previous handlers come back on the way out, so an in-process caller
    (a test, a notebook) keeps its own.
    """
    previous = {}
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            previous[sig] = signal.signal(sig, _raise_interrupted)
    try:
        yield
    finally:
        for sig, old in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(sig, old)


#: The shortest temporary name allowed, in bytes (the random part and ``.tmp`` take 13).
_MIN_TEMPORARY_NAME = 16


def _create_temporary(path: Path) -> tuple[int, str]:
    """Create a new, private file beside ``path``; return its descriptor and path.

    Its name is ``.<start of the target's name>.<8 random hex digits>.tmp``,
    never more bytes than the target's own name (or 16 for a short one), so
    any name the file system accepts for the report it accepts for the
    temporary file too (255 bytes on most).
    """
    import secrets

    budget = max(len(os.fsencode(path.name)), _MIN_TEMPORARY_NAME)
    head = path.name
    while len(os.fsencode(f".{head}.12345678.tmp")) > budget:
        head = head[:-1]
    for _ in range(100):
        tmp = str(path.parent / f".{head}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


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
    path = Path(path)
    data = text.encode("utf-8")
    try:
        fd, tmp = _create_temporary(path)
    except OSError as exc:
        raise CouldNotFinishError(f"{path}: cannot write: {_reason(exc)}") from None
    try:
        with stopped_by_signals():
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
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
