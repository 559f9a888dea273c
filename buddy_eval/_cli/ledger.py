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
from .._vocabulary import BLOCK
from .output import (
    EXIT_COULD_NOT_FINISH,
    EXIT_RELEASE,
    EXIT_STATUS_HELP,
    PROG,
    ArgumentParser,
    CouldNotFinishError,
    error,
    one_line,
    terminal_lines,
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
    """The gate's ``--ledger``, ``--date``, ``--note``, ``--by`` and ``--no-answers``."""
    group = parser.add_argument_group("ledger (record the evaluation after the verdict)")
    group.add_argument(
        "--ledger",
        metavar="PATH",
        help="record the evaluation in the ledger at PATH (an SQLite file, created when "
        "missing): the golden set, every version's per-item results, the exact metrics and "
        "the verdict. Recording the same input with the same settings again changes nothing; "
        "a version gains its results on items it had none for, and a result that differs "
        "from the one recorded for the same item is an input error. With --baseline live the "
        "baseline is the live version, compared on the items it holds a result for",
    )
    group.add_argument(
        "--date", metavar="YYYY-MM-DD", help="with --ledger: the evaluation's date (default today)"
    )
    group.add_argument("--note", metavar="TEXT", help="with --ledger: a note kept with it")
    group.add_argument(
        "--by", metavar="NAME", help="with --ledger: who records it (default: the user name)"
    )
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
        The gate's parsed arguments (``by`` is optional: the notebook has none).
    """

    def __init__(self, args: argparse.Namespace):
        self.path = args.ledger
        self.date = getattr(args, "date", None)
        self.note = getattr(args, "note", None)
        self.no_answers = getattr(args, "no_answers", False)
        self.by = getattr(args, "by", None)
        self.plan: Plan | None = None
        self.live: LiveBaseline | None = None
        if self.path is None:
            for flag, value in (("--date", self.date), ("--note", self.note), ("--by", self.by)):
                if value is not None:
                    raise InputError(f"{flag} is kept in a ledger: give --ledger PATH too")
            if self.no_answers:
                raise InputError("--no-answers is about the ledger: give --ledger PATH too")
            return
        from ..ledger._record import Provenance, check_date
        from ..ledger._schema import check_path

        check_date(self.date)
        self.provenance = Provenance.here(self.by)
        check_path(self.path)

    def evaluate(self, args: argparse.Namespace, settings):
        """The gate's evaluation: with ``--baseline live`` (and ``--ledger``) the live
        version's results are read from the ledger and compared on the items it holds."""
        from .._evaluation import evaluate

        slices = getattr(args, "slices", None)
        if self.path is None or args.baseline != "live":
            return evaluate(
                args.input,
                args.baseline,
                args.candidate,
                settings,
                trials=args.trials,
                slices=slices,
            )
        from ..ledger._live import evaluate_live

        evaluation, self.live = evaluate_live(
            self.path, args.input, args.candidate, settings, trials=args.trials, slices=slices
        )
        _say(self.live.message)
        return evaluation

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
                "no_result": list(live.unmeasured),
                "measured_in_input": list(live.from_input),
            },
        }

    def prepare(self, evaluation) -> None:
        """Compute what will be written and refuse a contradicting result (before the verdict)."""
        if self.path is None:
            return
        from ..ledger._record import prepare
        from ..ledger._schema import reading

        plan = self.plan = prepare(
            evaluation,
            date=self.date,
            note=self.note,
            no_answers=self.no_answers,
            live_release=None if self.live is None else self.live.release_id,
            provenance=self.provenance,
        )
        if not os.path.lexists(self.path):  # a new ledger: nothing to contradict
            return
        with reading(self.path) as connection:
            plan.check(connection, str(self.path))

    def finish(self, status: int) -> int:
        """Record (after the verdict was printed); return ``status``, or 3 on failure.

        The verdict is on standard output already: whatever stops the record
        now (another process recorded a contradicting result meanwhile, a
        read-only or full disk) is "could not finish", never an input error.
        """
        if self.plan is None:
            return status
        from ..ledger._schema import writing

        plan = self.plan
        try:
            with writing(self.path, create=True) as connection:
                recorded = plan.write(connection, str(self.path))
        except (InputError, CouldNotFinishError) as exc:
            return error(
                f"could not finish: the verdict above stands, but the evaluation was not "
                f"recorded: {exc}",
                EXIT_COULD_NOT_FINISH,
            )
        _say(f"{self.path}: {recorded.message}")
        return status


LEDGER_DESCRIPTION = f"""\
The release ledger: one SQLite file holding every recorded evaluation and release.

  buddy-eval ledger release LABEL --ledger PATH [--date D] [--note TEXT] [--override REASON]
      record that version LABEL went live. A version never recorded is refused; a
      version whose latest verdict as a candidate was {BLOCK} is refused unless
      --override gives the reason (kept and shown in every history), and --override
      is refused for any other version. The date (default today) is never before
      the version's evaluation nor before the live release. Releasing the live
      version again changes nothing and says so.
  buddy-eval ledger rollback LABEL --ledger PATH --reason TEXT [--date D] [--note TEXT]
      make an earlier released version LABEL live again, with the reason.
  buddy-eval ledger show --ledger PATH
      list the golden-set revisions, versions, evaluations and releases.
  buddy-eval ledger verify --ledger PATH
      check every row against its stored hash: 0 when all hold, 2 naming the first
      row changed outside buddy-eval.

release and rollback take --by NAME (default: the user name); the commit, run URL
and pipeline are taken from GitHub Actions or GitLab CI when run there. The message
is printed before the release is committed: when it cannot be printed, nothing is
recorded (status 3), so a retry records the release once.

Record evaluations with the gate: buddy-eval INPUT --ledger PATH.
"""

_ACTIONS = ("release", "rollback", "show", "verify")
# Per action, the options it takes besides --ledger.
_TAKES = {
    "release": {"label", "date", "note", "override", "by"},
    "rollback": {"label", "date", "note", "reason", "by"},
    "show": set(),
    "verify": set(),
}


def _ledger_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog=f"{PROG} ledger",
        description=LEDGER_DESCRIPTION,
        epilog=EXIT_STATUS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=_ACTIONS, help=", ".join(_ACTIONS))
    parser.add_argument(
        "label", nargs="?", metavar="LABEL", help="release, rollback: the version label"
    )
    parser.add_argument("--ledger", required=True, metavar="PATH", help="the ledger file")
    parser.add_argument(
        "--date", metavar="YYYY-MM-DD", help="release, rollback: its date (default today)"
    )
    parser.add_argument("--note", metavar="TEXT", help="release, rollback: a note kept with it")
    parser.add_argument(
        "--override", metavar="REASON", help="release: why a BLOCKed version goes live anyway"
    )
    parser.add_argument(
        "--reason", metavar="TEXT", help="rollback: why the earlier release goes live again"
    )
    parser.add_argument(
        "--by", metavar="NAME", help="release, rollback: who records it (default: the user name)"
    )
    return parser


def run_ledger(argv: list[str]) -> int:
    """``buddy-eval ledger ...``; return the exit status (0, or 2 for an input error)."""
    parser = _ledger_parser()
    args = parser.parse_args(argv)
    for option in ("label", "date", "note", "override", "reason", "by"):
        if getattr(args, option) is not None and option not in _TAKES[args.action]:
            given = "LABEL" if option == "label" else "--" + option
            allowed = sorted(_TAKES[args.action])
            takes = ", ".join("LABEL" if o == "label" else "--" + o for o in allowed)
            parser.error(
                f"{args.action} takes {takes + ' and ' if takes else 'only '}--ledger, got {given}"
            )
    if args.action in ("release", "rollback") and args.label is None:
        parser.error(f"{args.action} needs the version LABEL")

    def announce(message: str) -> None:
        write_stdout(terminal_lines(message) + "\n")

    if args.action == "release":
        from ..ledger._releases import release

        release(
            args.ledger,
            args.label,
            date=args.date,
            note=args.note,
            override=args.override,
            by=args.by,
            announce=announce,
        )
        return EXIT_RELEASE
    if args.action == "rollback":
        from ..ledger._releases import rollback

        if args.reason is None:
            parser.error("rollback needs --reason TEXT: say why the earlier release goes back")
        rollback(
            args.ledger,
            args.label,
            reason=args.reason,
            date=args.date,
            note=args.note,
            by=args.by,
            announce=announce,
        )
        return EXIT_RELEASE
    if args.action == "verify":
        from ..ledger._verify import verify

        text = verify(args.ledger)
    else:
        from .._ledger_views import show

        text = show(args.ledger)
    write_stdout(terminal_lines(text) + "\n")
    return EXIT_RELEASE


HISTORY_DESCRIPTION = """\
What happened across the versions recorded in a ledger: per version, in recording
order, its golden-set revision (r1, r2, ...), the rates and violations, the verdict
as a candidate and against which baseline, and when it went live; where the
revision changes, the item diff (+added -removed ~changed) and both versions' rates
on the items the two revisions share. Then every release and rollback with its
evidence, override or rollback reason and who recorded it; items failed by every
version holding them, items that flipped more than once, and regressions that
escaped (an item that regressed in a version that went live and was fixed by no
later live version). A missing result is no observation; with repeated trials the
item changes are the gate's own labels. Per golden-set revision, the golden set's
health: the doctor's findings recorded with it (the gate's one health line), or
"not recorded" for a revision recorded before findings were kept.

With --slice NAME: per evaluation recorded with --slices, its baseline's and its
candidate's rates (exact, as the gate counts them) and violations over the items of
slice NAME (items its slices file did not list are in the slice "(none)");
evaluations recorded without slices are left out, and the first line says how many.
A slice no recorded evaluation has is an input error naming the slices there are.
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
    parser.add_argument(
        "--slice",
        metavar="NAME",
        help="the rates of each evaluation recorded with --slices, over the items of slice NAME",
    )
    return parser


def run_history(argv: list[str]) -> int:
    """``buddy-eval history ...``; return the exit status (0, or 2 for an input error)."""
    args = _history_parser().parse_args(argv)
    from .._ledger_views import history, history_json, history_markdown, history_text

    found = history(args.ledger, slice=args.slice)
    view = {"json": history_json, "markdown": history_markdown, "text": history_text}
    write_stdout(view[args.format](found) + "\n")
    return EXIT_RELEASE
