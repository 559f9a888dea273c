"""The release record: a version goes live (with any override of a BLOCK), or an earlier
release is made live again (a rollback, with its reason).

The rules, each refused with an input error and nothing written:

- a version never recorded cannot be released;
- a version whose latest verdict as a candidate was BLOCK needs an override
  reason, and an override is accepted only then;
- a release is never dated before the evaluation it goes live on, nor
  before the live release;
- releasing the live version again changes nothing, and says so;
- a rollback names a version released before that is not live now.

The message is handed to ``announce`` before the transaction commits: when
printing it fails, nothing is recorded, so a retry records the release once.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from .._errors import InputError, quoted
from .._vocabulary import BLOCK, RELEASE
from . import _store
from ._record import Provenance, _text, check_date, new_id, now_utc, today
from ._schema import writing

__all__ = ["Released", "release", "rollback"]


@dataclass(frozen=True)
class Released:
    """What :func:`release` or :func:`rollback` recorded.

    Attributes
    ----------
    release_id : int or None
        None when nothing was recorded (the version was live already).
    version : str
    date : str
        ``YYYY-MM-DD``.
    evaluation_id : int or None
        The version's latest evaluation as a candidate (the evidence); None
        when it was never a candidate (a baseline only).
    verdict : str or None
        That evaluation's verdict, ``RELEASE`` or ``BLOCK``.
    override_reason : str or None
    kind : str
        ``release`` or ``rollback``.
    rollback_reason : str or None

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> released = be.release(path, "OLD", date="2026-03-01", by="ci")
    >>> released.release_id, released.version, released.kind, released.evaluation_id
    (1, 'OLD', 'release', None)
    >>> released.message
    "released 'OLD' on 2026-03-01 never gated as a candidate (release 1)"
    >>> tmp.cleanup()
    """

    release_id: int | None
    version: str
    date: str
    evaluation_id: int | None
    verdict: str | None
    override_reason: str | None
    kind: str = "release"
    rollback_reason: str | None = None

    @property
    def message(self) -> str:
        """One line saying what was recorded."""
        if self.release_id is None:
            return (
                f"{quoted(self.version)} is already the live version (released on "
                f"{self.date}); nothing changed"
            )
        if self.kind == "rollback":
            return (
                f"rolled back to {quoted(self.version)} on {self.date}: {self.rollback_reason} "
                f"(release {self.release_id})"
            )
        evidence = (
            f"on evaluation {self.evaluation_id} ({self.verdict})"
            if self.evaluation_id is not None
            else "never gated as a candidate"
        )
        override = f"; {BLOCK} overridden: {self.override_reason}" if self.override_reason else ""
        return (
            f"released {quoted(self.version)} on {self.date} {evidence}{override} "
            f"(release {self.release_id})"
        )


def _label(value) -> str:
    label = _text(value, "the version label")
    if label is None:
        raise InputError("give the version LABEL")
    return label


def _reason(value, what: str, flag: str) -> str | None:
    value = _text(value, what)
    if value is not None and not value.strip():
        raise InputError(f"{flag} is empty; say {what}")
    return value


def release(
    ledger_path: str | os.PathLike[str],
    version: str,
    *,
    date: str | None = None,
    note: str | None = None,
    override: str | None = None,
    by: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> Released:
    """Record that ``version`` went live.

    Parameters
    ----------
    ledger_path : str or os.PathLike
        An existing ledger.
    version : str
        A version label recorded in the ledger.
    date : str, optional
        ``YYYY-MM-DD``; today (UTC) when not given. Never before the
        evaluation it goes live on, nor before the live release.
    note : str, optional
    override : str, optional
        Why the version is released although its latest verdict as a
        candidate was BLOCK (required then, refused otherwise; stored and
        shown in every history).
    by : str, optional
        Who releases it (default: the user name); the CI run is taken from
        the environment (see :class:`~buddy_eval.ledger.Provenance`).
    announce : callable, optional
        Called with the message before the release is committed; if it
        raises, nothing is recorded.

    Returns
    -------
    Released

    Raises
    ------
    InputError
        The ledger is not one, or a rule above refuses the release. Nothing
        is written.
    CouldNotFinishError
        The ledger could not be written.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> be.release(path, "OLD", date="2026-03-01", by="ci").message
    "released 'OLD' on 2026-03-01 never gated as a candidate (release 1)"

    NEW was blocked by its gate: it goes live only with the reason why.

    >>> be.release(path, "NEW", date="2026-03-02", by="ci")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    buddy_eval._errors.InputError: version 'NEW' was blocked by its latest gate (evaluation 1); ...
    >>> released = be.release(path, "NEW", date="2026-03-02", by="ci", override="exam week fix")
    >>> released.verdict, released.override_reason, released.release_id
    ('BLOCK', 'exam week fix', 2)
    >>> tmp.cleanup()
    """
    label = _label(version)
    note = _text(note, "--note")
    override = _reason(override, f"why the {BLOCK} is overridden", "--override")
    date = check_date(date, "--date") or today()
    provenance = Provenance.here(by)
    name = os.fspath(ledger_path)
    with writing(name) as connection:
        version_id = _version_id(connection, label)
        done = _store.releases(connection, name)
        latest = connection.execute(
            "SELECT id, verdict, date FROM evaluations WHERE candidate_version_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (version_id,),
        ).fetchone()
        evaluation_id, verdict, evaluated = (None, None, None) if latest is None else latest
        if latest is None:
            first = connection.execute(
                "SELECT min(date) FROM evaluations WHERE baseline_version_id = ?", (version_id,)
            ).fetchone()
            evaluated = first[0] if first else None
        if done and done[-1].version_id == version_id:
            result = Released(None, label, done[-1].date, evaluation_id, verdict, None)
            if override is not None:
                raise InputError(
                    f"version {quoted(label)} is already the live version; there is nothing "
                    "to override"
                )
            _tell(announce, result.message)
            return result
        if verdict == BLOCK and override is None:
            raise InputError(
                f"version {quoted(label)} was blocked by its latest gate (evaluation "
                f'{evaluation_id}); release it only with --override "REASON"'
            )
        if verdict != BLOCK and override is not None:
            why = (
                f"its latest gate (evaluation {evaluation_id}) said {RELEASE}"
                if verdict
                else "it was never gated as a candidate"
            )
            raise InputError(
                f"--override is only for a version its latest gate blocked; {quoted(label)} "
                f"needs none: {why}"
            )
        _check_order(date, evaluated, evaluation_id, done)
        result = Released(None, label, date, evaluation_id, verdict, override)
        release_id = _insert(
            connection,
            "release",
            version_id,
            evaluation_id,
            date,
            note,
            override,
            None,
            provenance,
        )
        result = Released(release_id, label, date, evaluation_id, verdict, override)
        _tell(announce, result.message)
    return result


def rollback(
    ledger_path: str | os.PathLike[str],
    version: str,
    *,
    reason: str,
    date: str | None = None,
    note: str | None = None,
    by: str | None = None,
    announce: Callable[[str], None] | None = None,
) -> Released:
    """Make an earlier released version live again, with the reason.

    Parameters
    ----------
    ledger_path : str or os.PathLike
    version : str
        A version released before, not the live one.
    reason : str
        Why (stored and shown in every history).
    date, note, by, announce
        As for :func:`release`.

    Returns
    -------
    Released
        With ``kind="rollback"``.

    Raises
    ------
    InputError
        The version was never released, or is live already; an empty
        reason; a date before the live release.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")
    >>> _ = be.release(path, "NEW", date="2026-03-02", by="ci", override="exam week fix")
    >>> back = be.rollback(path, "OLD", reason="NEW answers graded homework",
    ...                    date="2026-03-03", by="ci")
    >>> back.message
    "rolled back to 'OLD' on 2026-03-03: NEW answers graded homework (release 3)"
    >>> be.history(path).live
    'OLD'
    >>> tmp.cleanup()
    """
    label = _label(version)
    note = _text(note, "--note")
    why = _reason(reason, "why the earlier release goes live again", "--reason")
    if why is None:
        raise InputError("a rollback needs --reason: say why the earlier release goes back")
    date = check_date(date, "--date") or today()
    provenance = Provenance.here(by)
    name = os.fspath(ledger_path)
    with writing(name) as connection:
        version_id = _version_id(connection, label)
        done = _store.releases(connection, name)
        if not done or done[-1].version_id == version_id:
            state = "is the live version" if done else "cannot be rolled back to: nothing"
            raise InputError(
                f"version {quoted(label)} {state}"
                + (" was released yet" if not done else "; roll back to an earlier release")
            )
        earlier = [r for r in done if r.version_id == version_id]
        if not earlier:
            released = sorted({_store.versions(connection)[r.version_id] for r in done})
            raise InputError(
                f"version {quoted(label)} was never released; a rollback makes an earlier "
                f"release live again (released: {', '.join(quoted(v) for v in released)})"
            )
        _check_order(date, None, None, done)
        evaluation_id = earlier[-1].evaluation_id
        release_id = _insert(
            connection, "rollback", version_id, evaluation_id, date, note, None, why, provenance
        )
        result = Released(release_id, label, date, evaluation_id, None, None, "rollback", why)
        _tell(announce, result.message)
    return result


def _tell(announce: Callable[[str], None] | None, message: str) -> None:
    if announce is not None:
        announce(message)


def _version_id(connection, label: str) -> int:
    row = connection.execute("SELECT id FROM versions WHERE label = ?", (label,)).fetchone()
    if row is None:
        labels = [r[0] for r in connection.execute("SELECT label FROM versions ORDER BY id")]
        raise InputError(
            f"version {quoted(label)} is not in the ledger; record its evaluation "
            f"first (versions recorded: {', '.join(quoted(v) for v in labels) or 'none'})"
        )
    return int(row[0])


def _check_order(date: str, evaluated: str | None, evaluation_id, done: list) -> None:
    if evaluated is not None and date < evaluated:
        what = f"evaluation {evaluation_id}" if evaluation_id is not None else "its evaluation"
        raise InputError(
            f"--date {date} is before {what} ({evaluated}); a version goes live after it "
            "was evaluated"
        )
    if done and date < done[-1].date:
        raise InputError(
            f"--date {date} is before the live release ({done[-1].date}, release "
            f"{done[-1].id}); releases are recorded in the order they happen"
        )


def _insert(connection, kind, version_id, evaluation_id, date, note, override, why, provenance):
    fields = (
        kind,
        version_id,
        evaluation_id,
        date,
        note,
        override,
        why,
        *provenance.columns(),
        now_utc(),
    )
    return new_id(
        connection.execute(
            "INSERT INTO releases (kind, version_id, evaluation_id, date, note, override_reason, "
            "rollback_reason, recorded_by, commit_sha, run_url, pipeline, recorded_at, sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*fields, _store.release_row_sha256(fields)),
        ).lastrowid
    )
