"""``buddy-eval tasks``: score two runs' records against golden tasks and compare them.

Exit status: 0 when the comparison was made (whatever it says), 2 for an input
or usage error (one ``buddy-eval: error: ...`` line on stderr, nothing on
stdout). Nothing is run, no model is called: the records are read as given.
"""

from __future__ import annotations

import argparse

from .._errors import InputError
from .._phrases import NOT_READY
from .._vocabulary import MIN_PAIRED
from .output import (
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    add_ci_file_arguments,
    add_format_argument,
    add_min_paired_argument,
    check_outputs,
    error,
    terminal_lines,
    warn,
    write_ci_files,
    write_stdout,
)

__all__ = ["parser", "run"]

DESCRIPTION = """\
Score already-completed task records of two runs against human-curated golden
tasks with deterministic checks, and compare run B with run A.

GOLDEN is a JSON list of {id, prompt, tier, checks}; each check is one of
  {"type": "contains", "value": "text"}       result_text contains text (literal, case-sensitive)
  {"type": "not_contains", "value": "text"}   result_text does not contain text
  {"type": "status_completed"}                status is "completed"
  {"type": "max_tokens", "value": 800}        total_tokens <= 800
  {"type": "max_cost_usd", "value": 0.02}     usd_micros <= 0.02 x 1,000,000 (exact)
A and B are JSON lists of run records {task_id, golden_id, model, status,
result_text, total_tokens, usd_micros, unpriced_tokens}.

A check passes, fails or is unknown: max_tokens is unknown without
total_tokens; max_cost_usd is unknown without usd_micros or when
unpriced_tokens > 0. An empty or missing result_text fails string checks.
Per task, score = passed / measured checks (unknown checks are left out of the
denominator and counted apart). Paired deltas are B minus A over golden tasks
""" + (
    f"scored in both runs; below {MIN_PAIRED} scored pairs the comparison is {NOT_READY} for a\n"
    "decision and no p-value is computed.\n"
)

EPILOG = (
    EXIT_STATUS_HELP
    + """
example:
  buddy-eval tasks --golden data/golden-tasks.example.json \\
      --run-a data/run-a.example.json --run-b data/run-b.example.json \\
      --label-a tutor-v1 --label-b tutor-v2
"""
)


def parser() -> argparse.ArgumentParser:
    """The ``tasks`` subcommand's argument parser."""
    parser = ArgumentParser(
        prog=f"{PROG} tasks",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--golden", required=True, metavar="G.json", help="golden tasks (JSON)")
    parser.add_argument("--run-a", required=True, metavar="A.json", help="run A records (JSON)")
    parser.add_argument("--run-b", required=True, metavar="B.json", help="run B records (JSON)")
    parser.add_argument("--label-a", default="A", metavar="X", help="label of run A (default: A)")
    parser.add_argument("--label-b", default="B", metavar="Y", help="label of run B (default: B)")
    add_format_argument(
        parser,
        text="the readable comparison",
        json="one JSON object instead",
        markdown="a GitHub-flavoured summary",
    )
    add_ci_file_arguments(parser, "check of run B's records and per paired task")
    add_min_paired_argument(parser)
    parser.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        help="the same as --format json (kept for existing scripts)",
    )
    return parser


def run(argv: list[str]) -> int:
    """Run ``buddy-eval tasks`` with ``argv`` (the arguments after ``tasks``); return the status."""
    args = parser().parse_args(argv)
    from ..tasks import compare_runs

    as_json = args.format == "json"
    summary: str | None = None
    try:
        reads = [
            ("the golden file", args.golden),
            ("the run A file", args.run_a),
            ("the run B file", args.run_b),
        ]
        check_outputs([("--markdown", args.markdown), ("--junit", args.junit)], reads)
        from .._paired_settings import Settings

        comparison = compare_runs(
            args.golden,
            args.run_a,
            args.run_b,
            args.label_a,
            args.label_b,
            settings=Settings(min_paired=args.min_paired),
        )
        if as_json:
            text = comparison.to_json()
        elif args.format == "markdown":
            summary = comparison.markdown()
            text = summary.rstrip("\n")
        else:
            text = terminal_lines(comparison.report())
    except InputError as exc:
        return error(str(exc))
    if not as_json:
        warn(comparison.warnings)
    write_stdout(text + "\n")
    write_ci_files(
        args,
        lambda: summary or comparison.markdown(),  # made once for both uses
        lambda: comparison.junit(),
    )
    return EXIT_RELEASE
