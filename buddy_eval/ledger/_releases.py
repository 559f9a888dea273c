"""Marking a version as released (live), with the evidence and any override of a BLOCK."""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
from dataclasses import dataclass

from .._errors import InputError, quoted
from ._record import _text, check_date, new_id, now_utc
from ._schema import connect, ledger_error, transaction

__all__ = ["Released", "release"]


@dataclass(frozen=True)
class Released:
    """What :func:`release` recorded.

    Attributes
    ----------
    release_id : int
    version : str
    date : str
        ``YYYY-MM-DD``.
    evaluation_id : int or None
        The version's latest evaluation as a candidate (the evidence); None
        when it was never a candidate (a baseline only).
    verdict : str or None
        That evaluation's verdict, ``RELEASE`` or ``BLOCK``.
    override_reason : str or None
    """

    release_id: int
    version: str
    date: str
    evaluation_id: int | None
    verdict: str | None
    override_reason: str | None

    @property
    def message(self) -> str:
        """One line saying what was recorded."""
        evidence = (
            f"on evaluation {self.evaluation_id} ({self.verdict})"
            if self.evaluation_id is not None
            else "never gated as a candidate"
        )
        override = f"; BLOCK overridden: {self.override_reason}" if self.override_reason else ""
        return (
            f"released {quoted(self.version)} on {self.date} {evidence}{override} "
            f"(release {self.release_id})"
        )


def release(
    ledger_path: str | os.PathLike[str],
    version: str,
    *,
    date: str | None = None,
    note: str | None = None,
    override: str | None = None,
) -> Released:
    """Record that ``version`` went live.

    Parameters
    ----------
    ledger_path : str or os.PathLike
        An existing ledger.
    version : str
        A version label recorded in the ledger.
    date : str, optional
        ``YYYY-MM-DD``; today (UTC) when not given.
    note : str, optional
    override : str, optional
        Why the version is released although its latest verdict as a
        candidate was BLOCK (required then; stored and shown in every history).

    Returns
    -------
    Released

    Raises
    ------
    InputError
        The ledger is not one, the version was never recorded, or its latest
        verdict was BLOCK and no override reason was given. Nothing is written.
    CouldNotFinishError
        The ledger could not be written.
    """
    label = _text(version, "the version label")
    note = _text(note, "note")
    override = _text(override, "the override reason")
    if override is not None and not override.strip():
        raise InputError("the override reason is empty; say why the BLOCK is overridden")
    date = check_date(date, "date") or dt.datetime.now(dt.UTC).date().isoformat()
    connection = connect(ledger_path, write=True)
    try:
        with transaction(connection):
            row = connection.execute("SELECT id FROM versions WHERE label = ?", (label,)).fetchone()
            if row is None:
                labels = [
                    r[0] for r in connection.execute("SELECT label FROM versions ORDER BY id")
                ]
                raise InputError(
                    f"version {quoted(version)} is not in the ledger; record its evaluation "
                    f"first (versions recorded: {', '.join(quoted(v) for v in labels) or 'none'})"
                )
            version_id = int(row[0])
            latest = connection.execute(
                "SELECT id, verdict, reasons FROM evaluations WHERE candidate_version_id = ? "
                "ORDER BY id DESC LIMIT 1",
                (version_id,),
            ).fetchone()
            evaluation_id, verdict = (None, None) if latest is None else latest[:2]
            if verdict == "BLOCK" and override is None:
                raise InputError(
                    f"version {quoted(version)} was blocked by its latest gate (evaluation "
                    f'{evaluation_id}); release it only with --override "REASON"'
                )
            release_id = connection.execute(
                "INSERT INTO releases (version_id, evaluation_id, date, note, override_reason, "
                "recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
                (version_id, evaluation_id, date, note, override, now_utc()),
            ).lastrowid
    except sqlite3.Error as exc:
        raise ledger_error(ledger_path, exc) from None
    finally:
        connection.close()
    return Released(new_id(release_id), version, date, evaluation_id, verdict, override)
