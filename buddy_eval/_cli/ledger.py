"""The ledger on the command line: ``--ledger`` on the gate, ``ledger release|show``, ``history``.

The gate records after it has printed its verdict: a ledger that cannot be
written then (read-only, full disk) ends the run with one line and status 3,
the verdict already on standard output. A path that is not a ledger is
refused before the gate runs (status 2, nothing printed, the file untouched).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from .._errors import InputError
from .output import (
    EXIT_COULD_NOT_FINISH,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    CouldNotFinishError,
    error,
    one_line,
    write_stdout,
)

if TYPE_CHECKING:
    from ..ledger._live import LiveBaseline
    from ..ledger._record import Plan

__all__ = ["Recorder", "add_ledger_arguments", "run_history", "run_ledger"]


def _say(message: str) -> None:
    """``buddy-eval: ledger: MESSAGE`` on stderr (best effort: stdout carries the verdict)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        sys.stderr.write(f"{PROG}: ledger: {one_line(message)}\n")
        sys.stderr.flush()


def add_ledger_arguments(parser: argparse.ArgumentParser) -> None:
    """The gate's ``--ledger``, ``--date``, ``--note`` and ``--no-answers``."""
    group = parser.add_argument_group("ledger (record the evaluation after the verdict)")
    group.add_argument(
        "--ledger",
        metavar="PATH",
        help="record the evaluation in the ledger at PATH (an SQLite file, created when "
        "missing): the golden set, every version's per-item results, the exact metrics and "
        "the verdict. Recording the same input with the same settings again changes nothing; "
        "a version label already recorded with other results is an input error. "
        "With --baseline live the baseline is the version released last, its results read "
        "from the ledger for the golden items unchanged since (others count as missing)",
    )
    group.add_argument("--date", metavar="YYYY-MM-DD", help="with --ledger: the evaluation's date")
    group.add_argument("--note", metavar="TEXT", help="with --ledger: a note kept with it")
    group.add_argument(
        "--no-answers",
        action="store_true",
        help="with --ledger: keep the answer texts out of the ledger (outcomes are kept)",
    )


class Recorder:
    """The gate's side of ``--ledger``: check early, prepare before printing, record after.

    Parameters
    ----------
    args : argparse.Namespace
        The gate's parsed arguments.
    """

    def __init__(self, args: argparse.Namespace):
        self.path = args.ledger
        self.date, self.note, self.no_answers = args.date, args.note, args.no_answers
        self.plan: Plan | None = None
        self.live: LiveBaseline | None = None
        if self.path is None:
            for flag, value in (("--date", args.date), ("--note", args.note)):
                if value is not None:
                    raise InputError(f"{flag} is kept in a ledger: give --ledger PATH too")
            if args.no_answers:
                raise InputError("--no-answers is about the ledger: give --ledger PATH too")
            return
        from ..ledger._record import check_date
        from ..ledger._schema import check_path

        check_date(self.date)
        check_path(self.path)

    def gate_input(self, args: argparse.Namespace) -> tuple:
        """What the gate loads and its baseline label: with ``--baseline live`` (and
        ``--ledger``) the live version's results are read from the ledger and added."""
        if self.path is None or args.baseline != "live":
            return args.input, args.baseline
        from ..ledger._live import live_baseline

        live = self.live = live_baseline(self.path, args.input, trials=args.trials)
        _say(live.message)
        return live.source, live.label

    def annotate(self, report: dict) -> dict:
        """The JSON report, with where a live baseline came from (``baseline_source``)."""
        if self.live is None:
            return report
        live = self.live
        return {
            **report,
            "baseline_source": {
                "ledger": str(self.path),
                "version": live.label,
                "release": live.release_id,
                "release_date": live.release_date,
                "evaluation": live.evaluation_id,
                "paired_items": live.paired,
                "changed": list(live.changed),
                "added": list(live.added),
                "removed": list(live.removed),
            },
        }

    def prepare(self, evaluation) -> None:
        """Compute what will be written and refuse a conflicting version (before the verdict)."""
        if self.path is None:
            return
        from ..ledger._record import prepare
        from ..ledger._schema import connect

        plan = self.plan = prepare(
            evaluation,
            date=self.date,
            note=self.note,
            no_answers=self.no_answers,
            live=None if self.live is None else self.live.release_id,
        )
        if not os.path.lexists(self.path):  # a new ledger: nothing to conflict with
            return
        connection = connect(self.path)
        try:
            plan.check(connection)
        finally:
            connection.close()

    def finish(self, status: int) -> int:
        """Record (after the verdict was printed); return ``status``, or 2 or 3 on failure."""
        if self.plan is None:
            return status
        import sqlite3

        from ..ledger._schema import connect, ledger_error

        try:
            connection = connect(self.path, create=True, write=True)
            try:
                recorded = self.plan.write(connection)
            finally:
                connection.close()
        except InputError as exc:
            return error(str(exc))
        except (sqlite3.Error, OSError) as exc:
            return error(f"could not finish: {ledger_error(self.path, exc)}", EXIT_COULD_NOT_FINISH)
        except CouldNotFinishError as exc:
            return error(f"could not finish: {exc}", EXIT_COULD_NOT_FINISH)
        _say(f"{self.path}: {recorded.message}")
        return status


LEDGER_DESCRIPTION = """\
The release ledger: one SQLite file holding every recorded evaluation and release.

  buddy-eval ledger release LABEL --ledger PATH [--date D] [--note TEXT] [--override REASON]
      record that version LABEL went live. A version never recorded is refused; a
      version whose latest verdict as a candidate was BLOCK is refused unless
      --override gives the reason, which is kept and shown in every history.
  buddy-eval ledger show --ledger PATH
      list the versions, evaluations and releases.

Record evaluations with the gate: buddy-eval INPUT --ledger PATH.
"""


def _ledger_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=f"{PROG} ledger",
        description=LEDGER_DESCRIPTION,
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=("release", "show"), help="release or show")
    parser.add_argument("label", nargs="?", metavar="LABEL", help="release: the version label")
    parser.add_argument("--ledger", required=True, metavar="PATH", help="the ledger file")
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="release: its date (default today)")
    parser.add_argument("--note", metavar="TEXT", help="release: a note kept with it")
    parser.add_argument(
        "--override", metavar="REASON", help="release: why a BLOCKed version goes live anyway"
    )
    return parser


def run_ledger(argv: list[str]) -> int:
    """``buddy-eval ledger ...``; return the exit status (0, or 2 for an input error)."""
    parser = _ledger_parser()
    args = parser.parse_args(argv)
    try:
        if args.action == "release":
            if args.label is None:
                parser.error("release needs the version LABEL")
            from ..ledger._releases import release

            done = release(
                args.ledger, args.label, date=args.date, note=args.note, override=args.override
            )
            text = done.message
        else:
            for flag in ("label", "date", "note", "override"):
                if getattr(args, flag) is not None:
                    given = "LABEL" if flag == "label" else "--" + flag
                    parser.error(f"show takes only --ledger, got {given}")
            from ..ledger._show import show

            text = show(args.ledger)
    except InputError as exc:
        return error(str(exc))
    write_stdout(text + "\n")
    return EXIT_RELEASE


HISTORY_DESCRIPTION = """\
What happened across the versions recorded in a ledger: per version, in recording
order, the rates and violations, the verdict as a candidate and against which
baseline, whether and when it was released (and any override), the golden set's
short fingerprint and size, marked where the golden set changed (numbers across
that mark are not on the same measuring stick); then items failed by every
version, items that flipped more than once, and regressions that escaped (an item
that regressed in a released version and was not fixed in any later release).
"""


def _history_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=f"{PROG} history",
        description=HISTORY_DESCRIPTION,
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--ledger", required=True, metavar="PATH", help="the ledger file")
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="text (default): readable tables; json: one JSON object; markdown: a table "
        "for a pull request or a wiki",
    )
    return parser


def run_history(argv: list[str]) -> int:
    """``buddy-eval history ...``; return the exit status (0, or 2 for an input error)."""
    args = _history_parser().parse_args(argv)
    try:
        from ..ledger._history import history, history_json, history_markdown, history_text

        found = history(args.ledger)
        view = {"json": history_json, "markdown": history_markdown, "text": history_text}
        text = view[args.format](found)
    except InputError as exc:
        return error(str(exc))
    write_stdout(text + "\n")
    return EXIT_RELEASE
