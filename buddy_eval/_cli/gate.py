"""``buddy-eval INPUT``: print the canonical report and gate on it.

The plain gate runs on pyarrow and numpy alone: it imports neither pandas nor
matplotlib nor scipy nor Jupyter (``--details`` and ``--format json`` do).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from importlib.abc import MetaPathFinder

from .._errors import InputError
from .._phrases import MCNEMAR, NEWCOMBE, WILSON
from .._vocabulary import BLOCK, RELEASE
from .ledger import Recorder, add_ledger_arguments
from .output import (
    EXIT_BLOCK,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    add_ci_file_arguments,
    add_label_arguments,
    add_rule_arguments,
    check_outputs,
    error,
    terminal_lines,
    warn,
    write_ci_files,
    write_stdout,
)
from .slices import add_slice_arguments, slice_settings

__all__ = ["run", "parser"]

DESCRIPTION = f"""\
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

Prints three lines: the baseline's figures, the candidate's, then {RELEASE} or
{BLOCK}: <reasons>. The candidate is blocked when a metric is below its
threshold, when it has any violation, or when a metric is lower than the
baseline's (exact comparisons).
"""

EPILOG = (
    EXIT_STATUS_HELP
    + """
other commands:
  buddy-eval tasks --golden G.json --run-a A.json --run-b B.json ...
                       score check-based golden tasks and compare two runs
  buddy-eval notebook INPUT -o report.html
                       run the release notebook on INPUT and write an HTML report
  buddy-eval ledger release LABEL --ledger PATH [--override REASON]
                       record that a version went live (see buddy-eval ledger --help)
  buddy-eval ledger show --ledger PATH
                       list the ledger's versions, evaluations and releases
  buddy-eval history --ledger PATH [--format text|json|markdown]
                       what happened across the recorded versions
  buddy-eval doctor INPUT   (or --tasks G.json [--run R.json ...])
                       check the golden set itself (see buddy-eval doctor --help)
  (a file named "tasks", "notebook", "ledger", "history" or "doctor" is read as
  ./tasks, ...)

examples:
  buddy-eval data/sample_release.txt
  buddy-eval --baseline v1.3 --candidate v1.4 results.txt
  buddy-eval --details data/sample_release.txt
  buddy-eval --trials data/sample_trials.txt
  buddy-eval --format json data/sample_release.txt > report.json
  buddy-eval data/sample_release.txt --ledger release.ledger --date 2026-03-01
  cat results.txt | buddy-eval -
"""
)


def parser() -> argparse.ArgumentParser:
    """The gate's argument parser."""
    parser = ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input", metavar="INPUT", help="input file, or - for standard input")
    add_label_arguments(parser)
    parser.add_argument(
        "--trials",
        action="store_true",
        help="repeated trials: several result lines for one (version, id) are trials of the "
        "item, in file order; a rate is the mean over items of the fraction of each item's "
        "trials that pass, violations count REFUSE items answered in at least one trial "
        "(without it a repeated (version, id) is an input error)",
    )
    parser.add_argument(
        "--details",
        action="store_true",
        help="after the three lines, print a blank line and the paired comparison: item "
        f"changes, {WILSON} and {NEWCOMBE} 95%% intervals, exact {MCNEMAR} p-values, readiness, "
        "sample-size hints and the violation upper bound",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text (default): the three lines; json: one JSON object with the figures, the "
        "decision and the full comparison instead (--details is then implied); markdown: a "
        "GitHub-flavoured summary (verdict, metrics, changed items, statistics)",
    )
    add_ci_file_arguments(parser, "check of the decision and per golden item")
    add_rule_arguments(parser)
    add_slice_arguments(parser)
    add_ledger_arguments(parser)
    return parser


def _summary(evaluation) -> str:
    from ..reporting import markdown_report

    return markdown_report(evaluation)


def _junit(evaluation) -> str:
    from ..reporting import junit_report

    return junit_report(evaluation)


class _HidePandas(MetaPathFinder):
    """Make ``import pandas`` fail, so pyarrow takes it for not installed.

    pyarrow imports pandas, when installed, the first time it converts a
    Python or numpy value, to check whether it is a pandas object; that costs
    the plain gate a fifth of a second and 40 MB it never uses.
    """

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"{PROG}: the plain gate does not use pandas", name=name)
        return None


@contextlib.contextmanager
def without_pandas(hide: bool):
    """While inside (``hide`` true), pandas cannot be imported: pyarrow works without it.

    Otherwise pandas is imported here, on the main thread. pyarrow would import it on
    first use, which is often on the thread that shares the work: a stop signal sent
    during that import then reached the main thread wherever it happened to be, and
    under load it was sometimes lost (the run went on to a verdict).
    """
    if not hide or "pandas" in sys.modules:
        if not hide:
            import pandas  # noqa: F401
        yield
        return
    finder = _HidePandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _live_needs_a_ledger(data):
    """``--baseline live`` without ``--ledger``: ``live`` is an ordinary label of the input,
    and when the input has none, the user meant the ledger's live version."""
    if "live" in data.versions:
        return data
    from .._errors import quoted_list

    raise InputError(
        "--baseline live reads the live version (the one released last) from a release "
        "ledger: give --ledger PATH too (the input has no result lines labelled 'live'; "
        f"versions found: {quoted_list(data.versions)})"
    )


def run(argv: list[str], lean: bool = False) -> int:
    """Run the gate with ``argv``; return 0 (RELEASE), 1 (BLOCK) or 2 (input error).

    Raises
    ------
    CouldNotFinishError
        When the report cannot be written.
    """
    args = parser().parse_args(argv)
    from .._loading import load
    from .._paired_settings import Settings

    if args.input == "-" and sys.stdin is None:
        return error("-: standard input is closed; nothing to read")
    summary: str | None = None
    try:
        recorder = Recorder(args)  # --ledger: the path is checked before any work
        # Every file the run writes: none of them twice, none a file it reads.
        check_outputs(
            [("--markdown", args.markdown), ("--junit", args.junit)],
            [
                ("the input file", None if args.input == "-" else args.input),
                ("the slices file", args.slices),
            ],
            [("--ledger", args.ledger)],
        )
        settings = Settings(
            min_paired=args.min_paired, margin=args.margin, rule=args.rule, **slice_settings(args)
        )
        # Only in a process that ends with the report (see console_main):
        # pyarrow remembers that pandas was missing.
        plain = (
            args.format == "text"
            and not args.details
            and args.rule == "exact"
            and args.slice_rule is None
            and not (args.markdown or args.junit)
        )
        with without_pandas(lean and plain):
            if args.baseline == "live" and args.ledger is None:
                args.input = _live_needs_a_ledger(load(args.input, trials=args.trials))
            evaluation = recorder.evaluate(args, settings)  # --baseline live: from the ledger
            text: str = evaluation.report()
        # Statistics (and scipy) are loaded only when asked for: the plain gate stays light.
        if args.format == "json":
            from ..reporting import dumps, json_record

            text = dumps(recorder.annotate(json_record(evaluation)))
        elif args.format == "markdown":
            summary = _summary(evaluation)
            text = summary.rstrip("\n")
        elif args.details:
            from ..reporting import details

            text = terminal_lines(text + "\n\n" + details(evaluation))
        else:
            text = terminal_lines(text)
        recorder.prepare(evaluation)
    except InputError as exc:
        return error(str(exc))
    warn(evaluation.warnings)
    write_stdout(text + "\n")
    write_ci_files(
        args,
        lambda: summary or _summary(evaluation),  # made once for both uses
        lambda: _junit(evaluation),
    )
    return recorder.finish(EXIT_RELEASE if evaluation.release else EXIT_BLOCK)
