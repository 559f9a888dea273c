"""Command line: ``buddy-eval INPUT`` prints the canonical report and gates on it.

Exit status: 0 RELEASE, 1 BLOCK, 2 input or usage error. This module imports
neither matplotlib nor Jupyter nor scipy on the gate path, so a small input is
answered in the time it takes to import pandas.
"""

from __future__ import annotations

import argparse
import sys

from .errors import InputError

__all__ = ["main", "EXIT_RELEASE", "EXIT_BLOCK", "EXIT_INPUT_ERROR"]

EXIT_RELEASE, EXIT_BLOCK, EXIT_INPUT_ERROR = 0, 1, 2
PROG = "buddy-eval"

DESCRIPTION = """\
Decide whether a new version of the Buddy teaching assistant may be released.

INPUT (a path, or - for standard input) is UTF-8 text:

  THRESHOLDS <correctness> <citation> <refusal>
  <id> ANSWER <requiredSource> <keyword1,keyword2,...>
  <id> REFUSE - -
  RESULTS
  <version> <id> <cited|-> <Y|N> <answer text ...>

Blank lines and lines starting with # are ignored. Per version, over the
golden items: correctness = answered ANSWER items containing every keyword
(literal, case-folded) / ANSWER items; citation = answered ANSWER items citing
the required source / ANSWER items; refusal = REFUSE items refused / REFUSE
items; violations = REFUSE items answered. A metric with no item of its type
prints n/a.

Prints three lines: the baseline's figures, the candidate's, then RELEASE or
BLOCK: <reasons>. The candidate is blocked when a metric is below its
threshold, when it has any violation, or when a metric is lower than the
baseline's (exact comparisons).
"""

EPILOG = """\
exit status:
  0  RELEASE
  1  BLOCK
  2  input error (one message on stderr naming the file and line) or usage error

other commands:
  buddy-eval tasks --golden G.json --run-a A.json --run-b B.json ...
                       score check-based golden tasks and compare two runs
  buddy-eval notebook INPUT -o report.html
                       run the release notebook on INPUT and write an HTML report
  (a file named "tasks" or "notebook" is read as ./tasks or ./notebook)

examples:
  buddy-eval data/sample_release.txt
  buddy-eval --baseline v1.3 --candidate v1.4 results.txt
  cat results.txt | buddy-eval -
"""


def _gate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="input file, or - for standard input")
    parser.add_argument(
        "--baseline", default="OLD", metavar="LABEL", help="baseline version label (default: OLD)"
    )
    parser.add_argument(
        "--candidate", default="NEW", metavar="LABEL", help="candidate version label (default: NEW)"
    )
    return parser


def _write(stream, text: str) -> None:
    """Write UTF-8 whatever the locale says; labels and paths may be non-ASCII."""
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(text.encode("utf-8", "backslashreplace"))
        buffer.flush()
    else:
        stream.write(text)


def _error(message: str) -> int:
    _write(sys.stderr, f"{PROG}: error: {message}\n")
    return EXIT_INPUT_ERROR


def _gate(argv: list[str]) -> int:
    args = _gate_parser().parse_args(argv)
    from .evaluation import evaluate

    try:
        evaluation = evaluate(args.input, args.baseline, args.candidate)
        text = evaluation.report()
    except InputError as exc:
        return _error(str(exc))
    if evaluation.warnings:
        _write(sys.stderr, "".join(f"{PROG}: warning: {w}\n" for w in evaluation.warnings))
    _write(sys.stdout, text + "\n")
    return EXIT_RELEASE if evaluation.release else EXIT_BLOCK


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["tasks"]:
            from .tasks.cli import main as tasks_main

            return tasks_main(argv[1:])
        if argv[:1] == ["notebook"]:
            from .notebook_report import main as notebook_main

            return notebook_main(argv[1:])
        return _gate(argv)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
