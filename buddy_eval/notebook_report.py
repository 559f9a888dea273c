"""``buddy-eval notebook INPUT -o report.html``: the release notebook as an HTML report.

Steps: validate INPUT exactly as the gate does (a bad input is the usual
one-line error and exit status 2, before any kernel starts); run
``notebooks/release_evaluation.ipynb`` with papermill, INPUT and the labels
injected as parameters; convert the executed notebook to HTML with nbconvert;
write it atomically (a temporary file in the output's directory, then
:func:`os.replace`), so a failed run leaves no half-written report and an
existing report untouched.

The report hides the code cells (a release manager reads the verdict, the
tables and the charts); ``--with-code`` keeps them. Answer text reaches the
HTML only through escaped paths (DataFrame HTML, escaped text outputs,
:func:`buddy_eval.display.evaluation_html`), so an answer holding
``<script>`` shows as text.

The notebook kernel runs in the current directory, so INPUT is passed as
given, relative paths included. The notebook itself is looked up beside the
package (``<checkout>/notebooks``), which is where an editable install
(``pip install -e .``) finds it; ``--notebook`` names another one.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .cli import EXIT_INPUT_ERROR, PROG, write_utf8
from .errors import InputError

__all__ = ["NOTEBOOK_NAME", "default_notebook", "main", "render_report", "write_atomic"]

NOTEBOOK_NAME = "release_evaluation.ipynb"
EXIT_OK = 0
CELL_TIMEOUT = 600  # seconds; a hung kernel must not hang CI
REPORT_TITLE = "Buddy release report"

DESCRIPTION = """\
Run the release notebook (notebooks/release_evaluation.ipynb) on INPUT and
write the executed notebook as a self-contained HTML report.

INPUT is validated first, exactly as by the gate. The report is written
atomically: on any failure no report is written and an existing one is left
untouched.

exit status:
  0  the report was written (whatever the verdict: the gate itself is
     `buddy-eval INPUT`)
  2  input error, missing notebook or notebook dependencies, or a failed run;
     one line on stderr, no report written
"""


def default_notebook() -> Path:
    """Where the release notebook lives: ``notebooks/`` beside the package directory."""
    return Path(__file__).resolve().parent.parent / "notebooks" / NOTEBOOK_NAME


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG} notebook",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="input file (a path; not -)")
    parser.add_argument(
        "-o", "--output", required=True, metavar="REPORT", help="HTML file to write"
    )
    parser.add_argument(
        "--baseline", default="OLD", metavar="LABEL", help="baseline version label (default: OLD)"
    )
    parser.add_argument(
        "--candidate", default="NEW", metavar="LABEL", help="candidate version label (default: NEW)"
    )
    parser.add_argument(
        "--with-code", action="store_true", help="keep the notebook's code cells in the report"
    )
    parser.add_argument(
        "--notebook",
        metavar="PATH",
        type=Path,
        default=None,
        help=f"notebook to run (default: notebooks/{NOTEBOOK_NAME} of the checkout)",
    )
    return parser


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _check_output(path: Path, input_path: str) -> None:
    if path.exists() and Path(input_path).exists() and path.samefile(input_path):
        raise InputError("is the input file; choose another report name", source=str(path))
    if path.is_dir():
        raise InputError("is a directory, expected an HTML file name", source=str(path))
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"cannot write the report: no directory {str(parent)!r}", source=str(path))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and :func:`os.replace`.

    The temporary file lives in the same directory (so the rename is atomic)
    and is removed if anything fails. The new file gets the mode of the file it
    replaces, or the usual mode for a new file under the current umask.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
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
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _quiet_kernel_manager():
    """A kernel manager whose kernel process writes nothing to our stdout and stderr.

    ipykernel logs to the terminal (a warning about its local TCP transport, a
    KeyboardInterrupt when it is stopped after a failed cell); the command's
    contract is one line on stderr. What a cell prints still reaches the
    notebook: cell output travels over the kernel's messages, not its stdio.
    """
    from jupyter_client import AsyncKernelManager

    class QuietKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            return await super().start_kernel(**kw)

    return QuietKernelManager


def render_report(
    input_path: str,
    baseline: str = "OLD",
    candidate: str = "NEW",
    *,
    notebook: Path | None = None,
    with_code: bool = False,
) -> str:
    """Execute the release notebook on ``input_path`` and return the report's HTML.

    Parameters
    ----------
    input_path : str
        The input file, relative to the current directory or absolute; it is
        injected as the notebook's ``input_path`` parameter unchanged.
    baseline, candidate : str
        Version labels, injected as ``baseline`` and ``candidate``.
    notebook : pathlib.Path, optional
        The notebook to run, default :func:`default_notebook`.
    with_code : bool
        Keep the code cells (default: outputs and text only).

    Returns
    -------
    str
        A complete HTML document.

    Raises
    ------
    InputError
        When the notebook is missing, papermill or nbconvert is not installed,
        or the notebook fails (the message names the cell and the error).
    """
    notebook = default_notebook() if notebook is None else Path(notebook)
    if not notebook.is_file():
        raise InputError(
            "release notebook not found; the notebook report runs from a source checkout "
            "installed with `pip install -e .` (or pass --notebook PATH)",
            source=str(notebook),
        )
    try:
        import papermill
        from nbconvert import HTMLExporter
    except ImportError as exc:
        raise InputError(
            f"the notebook report needs {exc.name}: pip install 'buddy-eval[notebook]'"
        ) from None
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    try:
        executed = papermill.execute_notebook(
            str(notebook),
            None,
            parameters={"input_path": input_path, "baseline": baseline, "candidate": candidate},
            cwd=os.getcwd(),
            progress_bar=False,
            log_output=False,
            request_save_on_cell_execute=False,
            execution_timeout=CELL_TIMEOUT,
            kernel_manager_class=_quiet_kernel_manager(),
        )
    except papermill.PapermillExecutionError as exc:
        raise InputError(
            f"the release notebook failed in cell {exc.exec_count}: "
            f"{exc.ename}: {_one_line(exc.evalue)}",
            source=str(notebook),
        ) from None
    except (CellTimeoutError, DeadKernelError, NoSuchKernel, RuntimeError, OSError) as exc:
        # the kernel did not start, died, or a cell ran past CELL_TIMEOUT
        raise InputError(
            f"the release notebook could not run: {type(exc).__name__}: {_one_line(exc)}",
            source=str(notebook),
        ) from None
    exporter = HTMLExporter(
        exclude_input=not with_code,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(executed, resources={"metadata": {"name": REPORT_TITLE}})
    return body


def main(argv: list[str]) -> int:
    """Run ``buddy-eval notebook``; ``argv`` excludes the word ``notebook``."""
    args = _parser().parse_args(argv)
    from .evaluation import evaluate

    output = Path(args.output)
    try:
        if args.input == "-":
            raise InputError(
                "the notebook report reads a file; standard input (-) is not supported"
            )
        evaluation = evaluate(args.input, args.baseline, args.candidate)
        _check_output(output, args.input)
    except InputError as exc:
        return _error(str(exc))
    if evaluation.warnings:
        write_utf8(sys.stderr, "".join(f"{PROG}: warning: {w}\n" for w in evaluation.warnings))
    try:
        html = render_report(
            args.input,
            args.baseline,
            args.candidate,
            notebook=args.notebook,
            with_code=args.with_code,
        )
    except InputError as exc:
        return _error(str(exc))
    try:
        write_atomic(output, html)
    except OSError as exc:
        return _error(f"{output}: cannot write the report: {exc.strerror or exc}")
    write_utf8(sys.stdout, f"{output}: {evaluation.decision.verdict}\n")
    return EXIT_OK


def _error(message: str) -> int:
    write_utf8(sys.stderr, f"{PROG}: error: {_one_line(message)}\n")
    return EXIT_INPUT_ERROR
