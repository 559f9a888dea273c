"""``buddy-eval notebook INPUT -o report.html``: the release notebook as an HTML report.

Steps: validate INPUT exactly as the gate does (a bad input is the usual
one-line error and exit status 2, before any kernel starts); run
``notebooks/release_evaluation.ipynb`` with papermill, INPUT and the labels
injected as parameters; convert the executed notebook to HTML with nbconvert;
write it atomically (a temporary file in the output's directory, then
:func:`os.replace`), so a failed run leaves no half-written report and an
existing report untouched.

The report is one self-contained HTML file that requests nothing (no script,
font or style sheet from anywhere; a Content-Security-Policy forbids it) and
is byte-identical for the same input and options; see :func:`render_report`.
It opens with a verdict banner and the input's name and SHA-256. It hides the
code cells (a release manager reads the verdict, the tables and the charts);
``--with-code`` keeps them. Answer text reaches the HTML only through escaped
paths (DataFrame HTML, escaped text outputs,
:func:`buddy_eval.reporting.render_html`), so an answer holding
``<script>`` shows as text.

The notebook kernel runs in a temporary directory holding a copy of INPUT
under its file name, so the report shows the name and never a directory. The
notebook ships with the package (``buddy_eval/_notebooks``, built from
``notebooks/``), so a plain ``pip install`` runs it; a source checkout uses
``notebooks/`` directly; ``--notebook`` names another one.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import hashlib
import io
import subprocess
import tempfile
from html import escape
from pathlib import Path

from ._errors import CouldNotFinishError, InputError
from ._parsing import read_input_bytes

__all__ = [
    "NOTEBOOK_NAME",
    "read_notebook",
    "clean_notebook",
    "default_notebook",
    "export_body",
    "page",
    "render_report",
    "report_banner",
]

NOTEBOOK_NAME = "release_evaluation.ipynb"
CELL_TIMEOUT = 600  # seconds; a hung kernel must not hang CI
REPORT_TITLE = "Buddy release report"


def default_notebook() -> Path:
    """Where the release notebook lives.

    An installed package carries it as package data (``buddy_eval/_notebooks``);
    a source checkout (an editable install) has it in ``notebooks/`` beside the
    package directory.
    """
    package = Path(__file__).resolve().parent
    installed = package / "_notebooks" / NOTEBOOK_NAME
    return installed if installed.is_file() else package.parent / "notebooks" / NOTEBOOK_NAME


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
            started = await super().start_kernel(**kw)
            process = getattr(self.provisioner, "process", None)
            if process is not None:
                _KERNELS.append(process)
            return started

    return QuietKernelManager


#: The kernel processes this run started, so that no way out leaves one behind.
_KERNELS: list[subprocess.Popen] = []


def _stop_kernels() -> None:
    """Kill and reap every kernel still running.

    A signal unwinds the run from inside the notebook client's event loop, so its
    own graceful shutdown may never run; the kernel would outlive the command.
    """
    while _KERNELS:
        process = _KERNELS.pop()
        if process.poll() is None:
            process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):  # a kernel stuck in the OS
                process.wait(timeout=10)


def render_report(
    input_path: str,
    baseline: str = "OLD",
    candidate: str = "NEW",
    *,
    notebook: Path | None = None,
    with_code: bool = False,
    date: str | datetime.date | None = None,
    trials: bool = False,
    content: bytes | None = None,
    ledger: str | None = None,
    evaluation=None,
    settings=None,
    live: bool = False,
    slices: tuple[str, bytes] | None = None,
) -> str:
    """Execute the release notebook on ``input_path`` and return the report's HTML.

    The report is one self-contained, reproducible file:

    - **Nothing is fetched.** No script at all (no require.js, MathJax or
      mermaid), no external style sheet, font or image: charts are inline
      ``data:`` PNGs, the style sheet is inline, and a Content-Security-Policy
      ``<meta>`` forbids every other request. Ids and answers are text, so
      ``$x$`` stays ``$x$``.
    - **Byte-identical** for the same input bytes and options: the notebook
      runs on a copy of the input in a temporary directory, under the file's
      name only (no directory in any output), cell ids are renumbered, and
      papermill's and nbconvert's metadata (timings, ids) are dropped.
    - **A verdict banner first**: ``RELEASE`` (green) or ``BLOCK`` (red) with
      its reasons, then the input file's name, the SHA-256 of its bytes, the
      buddy-eval version and the labels compared, and ``date`` when given
      (never the clock's). Right under it the decision summary
      (the gate document's ``explained`` section): per blocking reason,
      whether the change is clear or could be noise and whether the metric
      is ready for a decision, then the caveats.
    - The notebook's cells tagged ``report-hide`` (notes for developers) are
      left out, as are code cells (unless ``with_code``), their prompts,
      cells with no output, and stderr output.

    Parameters
    ----------
    input_path : str
        The input file.
    baseline, candidate : str
        Version labels, injected as ``baseline`` and ``candidate``.
    notebook : pathlib.Path or nbformat.NotebookNode, optional
        The notebook to run (a path, or a notebook already read with
        :func:`read_notebook`), default :func:`default_notebook`.
    with_code : bool
        Keep the code cells (default: outputs and text only).
    date : str or datetime.date, optional
        Shown in the banner as given (a date: ISO format). None (the default)
        shows no date, so the report depends on the input alone.
    trials : bool
        Read repeated result lines as trials (``buddy-eval --trials``),
        injected as ``trials``.
    content : bytes, optional
        The input's bytes, already read (the command line reads INPUT once,
        so a FIFO or a file replaced mid-run cannot make the report, the
        verdict and the hash disagree). Default: read ``input_path`` once.
    ledger : str, optional
        An absolute path to a release ledger: the report ends with its
        history (injected as ``ledger_path``).
    evaluation : Evaluation, optional
        The evaluation the banner shows (the command line's own); default:
        evaluated here from the input with ``settings``.
    settings : Settings, optional
        The rule, margin and paired-item minimum, injected as ``rule``,
        ``margin`` and ``min_paired`` when they differ from the defaults.
    live : bool
        The baseline is the live version of ``ledger`` (injected as
        ``live_baseline``).
    slices : (str, bytes), optional
        A slices file's name and bytes (``--slices``): the notebook reads a
        copy of them (its name injected as ``slices_path``) and shows every
        figure per slice; the slice rule and margin come with ``settings``.

    Returns
    -------
    str
        A complete HTML document.

    Raises
    ------
    InputError
        When the input cannot be read or is invalid.
    CouldNotFinishError
        When the notebook is missing, papermill or nbconvert is not
        installed, or the notebook fails (the message names the cell and the
        error).
    """
    if notebook is None:
        notebook = default_notebook()
        if not notebook.is_file():
            raise CouldNotFinishError(
                "release notebook not found beside the package; reinstall it with "
                "pip install 'buddy-eval[notebook]' "
                "(from a checkout: pip install -e '.[notebook]') or pass --notebook PATH",
                source=str(notebook),
            )
    source_nb = notebook if hasattr(notebook, "cells") else None
    notebook = Path("<notebook>") if source_nb is not None else Path(notebook)
    try:
        import papermill
        from nbconvert import HTMLExporter  # noqa: F401  (checked before the kernel starts)
    except ImportError as exc:
        raise CouldNotFinishError(
            f"the notebook report needs {exc.name}: pip install 'buddy-eval[notebook]' "
            "(from a checkout: pip install -e '.[notebook]')"
        ) from None
    if source_nb is None:
        source_nb = read_notebook(notebook)
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from ._evaluation import evaluate
    from ._loading import load
    from ._paired_settings import Settings

    settings = Settings.check(settings)
    if content is None:
        content = read_input_bytes(input_path)
    if evaluation is None:
        stream = io.BytesIO(content)
        stream.name = str(input_path)  # errors name the file as the user gave it
        sliced = None
        if slices is not None:
            sliced = io.BytesIO(slices[1])
            sliced.name = slices[0]
        evaluation = evaluate(
            load(stream, trials=trials), baseline, candidate, settings, slices=sliced
        )
    name = Path(input_path).name
    defaults = Settings()
    # Only what differs from the defaults: another --notebook need not know these.
    rule = {
        key: getattr(settings, key)
        for key in ("rule", "margin", "min_paired", "slice_rule", "slice_margin")
        if getattr(settings, key) != getattr(defaults, key)
    }

    with tempfile.TemporaryDirectory(prefix="buddy-eval-report-") as folder:
        (Path(folder) / name).write_bytes(content)
        if slices is not None:  # in a folder of its own: its name may be the input's
            slices_path = f"slices/{slices[0]}"
            (Path(folder) / "slices").mkdir()
            (Path(folder) / slices_path).write_bytes(slices[1])
            rule["slices_path"] = slices_path
        try:
            executed = papermill.execute_notebook(
                source_nb,
                None,
                # trials only when asked for: another --notebook need not know it
                parameters={"input_path": name, "baseline": baseline, "candidate": candidate}
                | ({"trials": True} if trials else {})
                | ({"ledger_path": ledger} if ledger else {})
                | ({"live_baseline": True} if live else {})
                | rule,
                cwd=folder,
                progress_bar=False,
                request_save_on_cell_execute=False,
                execution_timeout=CELL_TIMEOUT,
                kernel_manager_class=_quiet_kernel_manager(),
            )
        except (
            papermill.PapermillExecutionError,
            CellTimeoutError,
            DeadKernelError,
            NoSuchKernel,
            RuntimeError,
            OSError,
        ) as exc:
            if isinstance(exc, papermill.PapermillExecutionError):
                failed = f"failed in cell {exc.exec_count}: {exc.ename}: {_one_line(exc.evalue)}"
            else:  # the kernel did not start, died, or a cell ran past CELL_TIMEOUT
                failed = f"could not run: {type(exc).__name__}: {_one_line(str(exc))}"
            raise CouldNotFinishError(
                f"the release notebook {failed}", source=str(notebook)
            ) from None
        finally:
            _stop_kernels()
    from .reporting import gate_document, render_html
    from .reporting._model import HTML

    document = gate_document(evaluation, {HTML})
    verdict = _verdict_of(document)
    why = render_html(document, sections=[document.section("explained")])
    digest = hashlib.sha256(content).hexdigest()
    banner = report_banner(evaluation, name=name, sha256=digest, date=date, document=document)
    return page(
        f"{banner}\n{why}",
        export_body(executed, with_code=with_code),
        title=f"{REPORT_TITLE}: {verdict.word}",
        with_code=with_code,
    )


#: The largest notebook file ``--notebook`` reads (the release notebook is about 100 KB).
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024


def read_notebook(path: Path):
    """Read and check a notebook file before any kernel starts.

    Raises
    ------
    InputError
        The file cannot be read, is not a regular file, is too large, or is
        not a Jupyter notebook (JSON of nbformat 4); the message says which,
        in one line.
    """
    import nbformat

    name = str(path)
    data = read_input_bytes(path, "the notebook")
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise InputError(
            f"is not a notebook this report runs: {len(data)} bytes, at most {MAX_NOTEBOOK_BYTES}",
            source=name,
        )
    try:
        node = nbformat.reads(data.decode("utf-8"), as_version=4)
        nbformat.validate(node)
    except Exception as exc:  # noqa: BLE001 - any parse or schema failure is the same answer
        reason = _one_line(str(exc))[:200] or type(exc).__name__
        raise InputError(
            f"is not a Jupyter notebook (expected nbformat 4 JSON): {reason}", source=name
        ) from None
    if not any(c.get("cell_type") == "code" for c in node.cells):
        raise InputError("is not a notebook this report runs: it has no code cell", source=name)
    return node


#: Cells with this tag are notes for whoever maintains the notebook: not in the report.
HIDE_TAG = "report-hide"
#: Tags papermill gives the parameter cells.
_PARAMETER_TAGS = {"parameters", "injected-parameters"}


def clean_notebook(nb, *, with_code: bool = False):
    """The executed notebook as the report shows it, with nothing run-specific left.

    Drops cells tagged :data:`HIDE_TAG`, stderr output, and (without code)
    code cells that show nothing; numbers the remaining cells ``cell-1``,
    ``cell-2``, ...; joins the pieces of one stream a kernel sent apart;
    keeps only the ``tags`` of cell metadata and only ``kernelspec`` and
    ``language_info`` of the notebook's.
    """
    nb = copy.deepcopy(nb)
    cells: list = []
    for cell in nb.cells:
        tags = set(cell.metadata.get("tags", ()))
        if HIDE_TAG in tags:
            continue
        if cell.cell_type == "code":
            # only stream outputs have a name: this drops stderr
            cell.outputs = _coalesced([o for o in cell.outputs if o.get("name") != "stderr"])
            if not with_code and (not cell.outputs or tags & _PARAMETER_TAGS):
                continue
            cell.execution_count = None
            for output in cell.outputs:
                if "execution_count" in output:
                    output.execution_count = None
        cell.metadata = {"tags": sorted(tags)} if tags else {}
        cell.id = f"cell-{len(cells) + 1}"
        cells.append(cell)
    nb.cells = cells
    nb.metadata = {k: v for k, v in nb.metadata.items() if k in ("kernelspec", "language_info")}
    return nb


def _coalesced(outputs: list) -> list:
    """Consecutive outputs of one stream as one output.

    The kernel sends a cell's printed text in pieces cut by a flush timer,
    so where one piece ends depends on how fast the cell ran; joined, the
    report is the same on every run.
    """
    out: list = []
    for output in outputs:
        last = out[-1] if out else None
        if (
            last is not None
            and output.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and output.get("name") == last.get("name")
        ):
            last.text = "".join(last.text) + "".join(output.text)
            continue
        out.append(output)
    return out


def export_body(nb, *, with_code: bool = False) -> str:
    """The cells of an executed notebook as HTML (nbconvert's ``basic`` template: no page,
    no script, no style sheet)."""
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="basic",
        exclude_input=not with_code,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(clean_notebook(nb, with_code=with_code))
    return body.strip()


def _verdict_of(document):
    """The verdict block of a gate document."""
    from .reporting import Verdict

    return next(b for b in document.section("verdict").blocks if isinstance(b, Verdict))


def report_banner(evaluation, *, name: str, sha256: str, date=None, document=None) -> str:
    """The verdict banner and the provenance list at the top of the report (escaped).

    The banner lays out the verdict of the evaluation's gate document (its
    word and reasons; ``document`` when already built), the labels compared
    and the provenance.
    """
    from . import __version__
    from .reporting import gate_document
    from .reporting._html import html_text
    from .reporting._model import HTML

    if document is None:
        document = gate_document(evaluation, {HTML})
    verdict = _verdict_of(document)
    reasons = "".join(f"<li>{escape(r)}</li>" for r in verdict.reasons)
    facts = [
        ("input", html_text(name)),
        ("SHA-256", f"<code>{sha256}</code>"),
        ("buddy-eval", escape(__version__)),
        ("baseline", f"<code>{html_text(evaluation.baseline)}</code>"),
        ("candidate", f"<code>{html_text(evaluation.candidate)}</code>"),
    ]
    if date is not None:
        shown = date.isoformat() if hasattr(date, "isoformat") else str(date)
        facts.append(("date", escape(shown)))
    rows = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    return (
        f'<header class="banner {verdict.word.lower()}" id="verdict">'
        f"<h1>{escape(REPORT_TITLE)}</h1>"
        f'<p class="verdict">{escape(verdict.word)}</p>'
        + (f'<ul class="reasons">{reasons}</ul>' if reasons else "")
        + f'<dl class="provenance">{rows}</dl></header>'
    )


#: Nothing but inline styles and data: images (charts) may load; no script at all.
CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

_CSS = """body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
margin:0 auto;max-width:1100px;padding:0 16px 48px;color:#1f1f1f;line-height:1.45}
.banner{margin:16px 0 24px;padding:12px 16px;border-left:8px solid;border-radius:4px}
.banner.release{background:#e6f4ea;border-color:#1b7f3b}
.banner.block{background:#fdecea;border-color:#b3261e}
.banner h1{font-size:1.1em;margin:0 0 4px;font-weight:600}
.banner .verdict{font-size:2em;font-weight:700;margin:0;letter-spacing:.04em}
.banner.release .verdict{color:#1b7f3b}.banner.block .verdict{color:#b3261e}
.banner .reasons{margin:4px 0 8px;font-weight:600}
.provenance{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0 0;
font-size:.9em}
.provenance dt{color:#555}.provenance dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;font-size:.85em;margin:8px 0}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
thead th{border-bottom:2px solid #999}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:8px;border-radius:4px}
img{max-width:100%;height:auto}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9em}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
.buddy-eval-explained{margin:0 0 24px}.buddy-eval-explained h3{font-size:1.2em;margin:0 0 4px}
.buddy-eval-explained ul{margin:0;padding-left:20px}.buddy-eval-explained li{margin:2px 0}
.buddy-eval-table{overflow-x:auto}
.jp-InputArea,.input_area{background:#f6f8fa}
a.anchor-link{display:none}
"""


def page(banner: str, body: str, *, title: str, with_code: bool = False) -> str:
    """One HTML document: the banner, then the notebook's cells; inline style, no script."""
    css = _CSS
    if with_code:
        from pygments.formatters import HtmlFormatter

        css += HtmlFormatter(style="default").get_style_defs(".highlight") + "\n"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>\n{css}</style>\n</head>\n<body>\n"
        f"{banner}\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )
