"""``buddy-eval notebook INPUT -o report.html``: the release report as one HTML file.

INPUT is validated exactly as by the gate (a bad input is the usual one-line
error and exit status 2, before any kernel starts); the release notebook runs
on it (:func:`buddy_eval._notebook_report.render_report`), and the HTML is
written atomically to a regular file path (see :func:`.output.write_atomic`),
so a failed or interrupted run leaves no half-written report, no temporary
file, and an existing report untouched.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .._errors import InputError
from .output import (
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    add_format_argument,
    add_label_arguments,
    add_rule_arguments,
    check_outputs,
    quiet_stderr,
    terminal_lines,
    warn,
    write_atomic,
    write_stdout,
)
from .slices import add_slice_arguments, slice_settings

__all__ = ["parser", "run"]

DESCRIPTION = """\
Run the release notebook (notebooks/release_evaluation.ipynb) on INPUT and
write the result as one self-contained HTML report: the verdict banner, the
input's name and SHA-256, the package version, the metrics, the paired
statistics, the charts and every item.

INPUT is validated first, exactly as by the gate. REPORT must be a regular
file or a new file in an existing directory (never a device, a directory or a
symbolic link); it is written atomically, so on any failure no report is
written and an existing one is left untouched.
"""


def parser() -> argparse.ArgumentParser:
    """The ``notebook`` subcommand's argument parser."""
    from .._notebook_report import NOTEBOOK_NAME

    parser = ArgumentParser(
        prog=f"{PROG} notebook",
        description=DESCRIPTION,
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="input file (a path; not -)")
    parser.add_argument(
        "-o", "--output", required=True, metavar="REPORT", help="HTML file to write"
    )
    add_label_arguments(parser)
    parser.add_argument(
        "--date",
        default=None,
        metavar="TEXT",
        help="a date to print in the report's header (default: none, so the same input "
        "always gives the same file)",
    )
    add_format_argument(
        parser,
        text="once the report is written, print `REPORT: verdict`",
        json="print one object with the report path, the verdict and the input's SHA-256",
    )
    parser.add_argument(
        "--trials",
        action="store_true",
        help="read several result lines for one (version, id) as repeated trials, as "
        "buddy-eval --trials does; the report then shows per-item rates and flaky items",
    )
    parser.add_argument(
        "--with-code", action="store_true", help="keep the notebook's code cells in the report"
    )
    parser.add_argument(
        "--ledger",
        metavar="PATH",
        default=None,
        help="end the report with the release history of this ledger (see buddy-eval "
        "history); with --baseline live, the baseline is its live version, compared on the "
        "items it holds a result for (as the gate does). A history notebook given with "
        "--notebook shows this ledger",
    )
    add_rule_arguments(parser)
    add_slice_arguments(parser)
    parser.add_argument(
        "--notebook",
        metavar="PATH",
        type=Path,
        default=None,
        help=f"notebook to run (default: the {NOTEBOOK_NAME} shipped with buddy_eval)",
    )
    return parser


def run(argv: list[str]) -> int:
    """Run ``buddy-eval notebook``; ``argv`` excludes the word ``notebook``.

    INPUT is read once: the bytes that are checked are the bytes the notebook
    renders and the bytes whose SHA-256 is printed.
    """
    args = parser().parse_args(argv)
    import hashlib
    import io

    from .._evaluation import evaluate
    from .._loading import load
    from .._notebook_report import read_notebook, render_report
    from .._paired_settings import Settings
    from .._parsing import read_input_bytes

    output = Path(args.output)
    if args.input == "-":
        raise InputError("the notebook report reads a file; standard input (-) is not supported")
    check_outputs(
        [("-o", args.output)],
        [
            ("the input file", args.input),
            ("the --notebook file", args.notebook),
            ("the --ledger file", args.ledger),
            ("the slices file", args.slices),
        ],
    )
    notebook = None if args.notebook is None else read_notebook(args.notebook)
    ledger = None
    if args.ledger is not None:
        from ..ledger._schema import check_path

        if not os.path.lexists(args.ledger):
            raise InputError("no ledger here; record an evaluation first", source=args.ledger)
        check_path(args.ledger)  # refused here (status 2) unless it is a ledger
        ledger = os.path.abspath(args.ledger)
    live = args.baseline == "live" and ledger is not None
    settings = Settings(
        min_paired=args.min_paired, margin=args.margin, rule=args.rule, **slice_settings(args)
    )
    content = read_input_bytes(args.input)
    stream = io.BytesIO(content)
    stream.name = args.input  # messages name the file as the user gave it
    slices = None  # the slices file is read once too: the banner and the notebook see one file
    if args.slices is not None:
        slices = io.BytesIO(read_input_bytes(args.slices, "the slices file"))
        slices.name = args.slices
    if live:
        from ..ledger._live import evaluate_live

        evaluation, found = evaluate_live(
            ledger, stream, args.candidate, settings, trials=args.trials, slices=slices
        )
        baseline = found.label
    else:
        evaluation = evaluate(
            load(stream, trials=args.trials),
            args.baseline,
            args.candidate,
            settings,
            slices=slices,
        )
        baseline = args.baseline
    warn(evaluation.warnings)
    with quiet_stderr():
        html = render_report(
            args.input,
            baseline,
            args.candidate,
            evaluation=evaluation,
            settings=settings,
            live=live,
            notebook=notebook,
            with_code=args.with_code,
            date=args.date,
            trials=args.trials,
            content=content,
            ledger=ledger,
            slices=None if slices is None else (Path(args.slices).name, slices.getvalue()),
        )
    write_atomic(output, html)
    if args.format == "json":
        import json

        summary = {
            "report": str(output),
            "input": args.input,
            "input_sha256": hashlib.sha256(content).hexdigest(),
            "release": evaluation.decision.release,
            "verdict": evaluation.decision.verdict,
        }
        write_stdout(json.dumps(summary, ensure_ascii=False) + "\n")
    else:
        write_stdout(terminal_lines(f"{output}: {evaluation.decision.verdict}") + "\n")
    return EXIT_RELEASE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run(sys.argv[1:]))
