"""``buddy-eval tasks``: score two runs' records against golden tasks and compare them.

Exit status: 0 when the comparison was made (whatever it says), 2 for an input
or usage error (one ``buddy-eval: error: ...`` line on stderr, nothing on
stdout). Nothing is run, no model is called: the records are read as given.
"""

from __future__ import annotations

import argparse
import sys

from ..cli import EXIT_INPUT_ERROR, PROG, write_utf8
from ..errors import InputError

__all__ = ["main"]

EXIT_OK = 0

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
scored in both runs; below 20 scored pairs the comparison is not ready for a
decision and no p-value is computed.
"""

EPILOG = """\
exit status:
  0  the comparison was printed
  2  input error (one message on stderr naming the file, the task and the field) or usage error

example:
  buddy-eval tasks --golden data/golden-tasks.example.json \\
      --run-a data/run-a.example.json --run-b data/run-b.example.json \\
      --label-a tutor-v1 --label-b tutor-v2
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of the text comparison"
    )
    return parser


def main(argv: list[str]) -> int:
    """Run ``buddy-eval tasks`` with ``argv`` (the arguments after ``tasks``); return the status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT_ERROR
    from .comparison import compare_runs

    try:
        comparison = compare_runs(args.golden, args.run_a, args.run_b, args.label_a, args.label_b)
        text = comparison.to_json() if args.json else comparison.report()
    except InputError as exc:
        write_utf8(sys.stderr, f"{PROG}: error: {exc}\n")
        return EXIT_INPUT_ERROR
    if comparison.warnings and not args.json:
        write_utf8(sys.stderr, "".join(f"{PROG}: warning: {w}\n" for w in comparison.warnings))
    write_utf8(sys.stdout, text + "\n")
    return EXIT_OK
