"""``buddy-eval doctor``: check a golden set before trusting what it measures.

Exit status: 1 when a finding is at or above ``--fail-on`` (``error`` by
default), else 0; 2 for an input or usage error (one ``buddy-eval: error:
...`` line on stderr, nothing on stdout).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from .._errors import InputError
from ..doctor._table import CHECKS, SEVERITIES, Limits
from .output import (
    EXIT_BLOCK,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    UsageError,
    add_format_argument,
    error,
    terminal_lines,
    warn,
    write_stdout,
)

__all__ = ["parser", "run"]

DESCRIPTION = """\
Check a golden set before trusting what it measures: keywords that nearly any
answer contains, items every version fails, copies of one item, too few REFUSE
items to bound the violation rate, thresholds that never block, a set too small
to detect a drop, and for golden tasks, values the prompt gives away or checks
no answer can pass.

INPUT is the gate's input (a path, or - for standard input); its RESULTS
section may be left out, and the checks that read results run over every
version label it holds. --tasks reads golden tasks instead, with --run files
for the tasks every run fails or passes.

checks (severity, what it reads: rule):
""" + "\n".join(f"  {c.name} ({c.severity}, {c.reads}): {c.rule}" for c in CHECKS)

EPILOG = (
    EXIT_STATUS_HELP
    + """
examples:
  buddy-eval doctor data/sample_release.txt
  buddy-eval doctor --fail-on warning --format json golden.txt
  buddy-eval doctor --tasks data/golden-tasks.example.json --run data/run-a.example.json
  buddy-eval doctor --limit max_detectable_drop=0.2 data/sample_release.txt
"""
)


def parser() -> argparse.ArgumentParser:
    """The ``doctor`` subcommand's argument parser."""
    parser = ArgumentParser(
        prog=f"{PROG} doctor",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "input", nargs="?", metavar="INPUT", help="the gate's input file, or - for standard input"
    )
    parser.add_argument("--tasks", metavar="GOLDEN.json", help="golden tasks (JSON) instead")
    parser.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="RUN.json",
        help="with --tasks: a run's records (JSON); repeat for more runs",
    )
    parser.add_argument(
        "--trials",
        action="store_true",
        help="the input's results are repeated trials (several lines per version and id); "
        "adds the flaky check",
    )
    add_format_argument(
        parser,
        text="the findings, worst first",
        json='one JSON object {"findings": [...], ...}',
        markdown="a GitHub-flavoured summary",
    )
    parser.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="error",
        help="exit 1 when a finding is at or above this severity (default: error)",
    )
    parser.add_argument(
        "--ledger",
        metavar="PATH",
        help="a release ledger (read only): unsolved, saturated and flaky run over every "
        "version it holds on the same items (matched by fingerprint) too",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"change a check's limit (one of {', '.join(Limits.names())}); repeatable",
    )
    return parser


def _limits(pairs: list[str], prog: str) -> Limits:
    values: dict[str, object] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or name not in Limits.names():
            raise UsageError(
                f"--limit expects NAME=VALUE with NAME one of {', '.join(Limits.names())}, "
                f"got {pair[:60]!r}",
                prog=prog,
            )
        try:
            values[name] = int(text) if name in Limits.counts() else Fraction(text.strip())
        except (ValueError, ZeroDivisionError):
            raise UsageError(
                f"--limit {name} expects a number, got {text[:60]!r}", prog=prog
            ) from None
    try:
        return Limits(**values)  # type: ignore[arg-type]
    except ValueError as exc:
        raise UsageError(f"--limit {exc}", prog=prog) from None


def run(argv: list[str], lean: bool = False) -> int:
    """Run ``buddy-eval doctor`` with ``argv`` (the words after ``doctor``); return the status.

    ``lean=True`` (a process that exits after the call) keeps pandas out when INPUT is read,
    as the plain gate does.
    """
    cli = parser()
    args = cli.parse_args(argv)
    if (args.input is None) == (args.tasks is None):
        cli.error("give INPUT (the gate's input) or --tasks GOLDEN.json, not both")
    if args.run and args.tasks is None:
        cli.error("--run goes with --tasks")
    if (args.trials or args.ledger) and args.tasks is not None:
        cli.error("--trials and --ledger apply to INPUT, not to --tasks")
    if args.input == "-" and sys.stdin is None:
        return error("-: standard input is closed; nothing to read")
    limits = _limits(args.limit, cli.prog)
    from ..doctor import diagnose
    from ..reporting import doctor_document, render_json, render_markdown, render_text

    try:
        if args.tasks is not None:
            diagnosis = diagnose(tasks=args.tasks, runs=args.run, limits=limits)
            warnings: tuple[str, ...] = ()
        else:
            from .._loading import load_golden_set
            from .gate import without_pandas

            with without_pandas(lean):
                data = load_golden_set(args.input, trials=args.trials)
                warnings = data.warnings
                diagnosis = diagnose(data, trials=args.trials, limits=limits, ledger=args.ledger)
    except InputError as exc:
        return error(str(exc))
    document = doctor_document(diagnosis, {args.format if args.format != "text" else "details"})
    if args.format == "json":
        text = render_json(document)
    elif args.format == "markdown":
        text = render_markdown(document).rstrip("\n")
    else:
        text = terminal_lines(render_text(document))
    warn(warnings)
    write_stdout(text + "\n")
    return EXIT_BLOCK if diagnosis.fails(args.fail_on) else EXIT_RELEASE
