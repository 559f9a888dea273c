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

import os
import subprocess
from pathlib import Path

from .errors import InputError

__all__ = ["NOTEBOOK_NAME", "default_notebook", "render_report"]

NOTEBOOK_NAME = "release_evaluation.ipynb"
CELL_TIMEOUT = 600  # seconds; a hung kernel must not hang CI
REPORT_TITLE = "Buddy release report"

def default_notebook() -> Path:
    """Where the release notebook lives: ``notebooks/`` beside the package directory."""
    return Path(__file__).resolve().parent.parent / "notebooks" / NOTEBOOK_NAME


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


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
