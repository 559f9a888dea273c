"""The baseline from the ledger: the last released version's results, paired by item fingerprint.

:func:`live_baseline` reads the input once, finds the version released last,
and appends that version's stored result lines to the input for every golden
item whose fingerprint is the same as when the version was recorded. Items
added or changed since have no baseline result and count as failed for the
baseline, by the gate's own rule for a missing result (and its warnings list
them); items removed since are listed. The gate then scores the whole as any
input: nothing is scored differently.
"""

from __future__ import annotations

import io
import os
import sqlite3
from dataclasses import dataclass

from .._errors import InputError, quoted
from ..formatting import format_id_list
from ._schema import connect

__all__ = ["LiveBaseline", "live_baseline"]


class _NamedBytes(io.BytesIO):
    """The input's bytes under its own name, so messages keep ``file:line``."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name = name


@dataclass(frozen=True)
class LiveBaseline:
    """The live version used as the baseline, and how its items pair with the input's.

    Attributes
    ----------
    label : str
        The version released last.
    release_id : int
    release_date : str
    evaluation_id : int or None
        The stored evaluation the version went live on (None: never gated).
    paired : int
        Golden items with the same fingerprint now and when the version was recorded.
    added, changed, removed : tuple of str
        Item ids new in the input's golden set, edited since (another
        fingerprint), or gone from it; added and changed count as missing
        for the baseline.
    source : file-like
        The input with the baseline's result lines appended (what the gate loads).
    """

    label: str
    release_id: int
    release_date: str
    evaluation_id: int | None
    paired: int
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    source: io.BytesIO

    @property
    def message(self) -> str:
        """One line: where the baseline came from and which items could not be paired."""
        evidence = (
            f"evaluation {self.evaluation_id}" if self.evaluation_id is not None else "no gate"
        )
        return (
            f"baseline {quoted(self.label)} is the live version (release {self.release_id} of "
            f"{self.release_date}, on {evidence}); {self.paired} items paired; "
            f"changed since: {format_id_list(self.changed)}; added: {format_id_list(self.added)} "
            f"(both count as missing for the baseline); removed: {format_id_list(self.removed)}"
        )


def _input_bytes(source) -> tuple[bytes, str]:
    from .._parsing import read_input_bytes

    if source == "-":
        return read_input_bytes(None), "<stdin>"
    return read_input_bytes(source), str(source)


def live_baseline(ledger, source, *, trials: bool = False) -> LiveBaseline:
    """The input at ``source`` with the live version's result lines added as the baseline.

    Raises
    ------
    InputError
        Nothing released yet, the live version recorded without answers, its
        label already in the input (or not writable as a text label), or
        repeated trials without ``trials``.
    """
    from .._loading import load
    from ._record import _golden_items

    data, name = _input_bytes(source)
    loaded = load(_NamedBytes(data, name), trials=trials)
    current = _golden_items(loaded)
    name_ledger = os.fspath(ledger)
    connection = connect(name_ledger)
    try:
        row = connection.execute(
            "SELECT r.id, r.date, r.evaluation_id, v.id, v.label, v.golden_set_id, "
            "v.answers_kept FROM releases r JOIN versions v ON v.id = r.version_id "
            "ORDER BY r.id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise InputError(
                "nothing has been released yet, so there is no live baseline; release a "
                "version first (buddy-eval ledger release LABEL --ledger PATH)",
                source=name_ledger,
            )
        release_id, date, evaluation_id, version_id, label, golden_set_id, kept = row
        stored = connection.execute(
            "SELECT position, fingerprint, item_id FROM golden_items WHERE golden_set_id = ? "
            "ORDER BY position",
            (golden_set_id,),
        ).fetchall()
        results = connection.execute(
            "SELECT position, trial, cited, refused, answer FROM results WHERE version_id = ? "
            "ORDER BY position, trial",
            (version_id,),
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot read the ledger: {exc}", source=name_ledger) from None
    finally:
        connection.close()
    if not kept:
        raise InputError(
            f"the live version {quoted(label)} was recorded without answers (--no-answers); "
            "the gate needs them to score it again: give its results in the input instead"
        )
    if any(ch.isspace() for ch in label) or not label:
        raise InputError(
            f"the live version's label {quoted(label)} holds spaces, which the text format "
            "cannot carry: give its results in the input instead"
        )
    if label in loaded.versions:
        raise InputError(
            f"the input already holds results for the live version {quoted(label)}; with "
            "--baseline live its results come from the ledger: remove them or name the baseline"
        )
    if not trials and any(trial > 0 for _, trial, *_ in results):
        raise InputError(
            f"the live version {quoted(label)} was recorded with repeated trials: add --trials"
        )
    now = {fingerprint: item_id for fingerprint, item_id, *_ in current}
    ids_now = {item_id for _, item_id, *_ in current}
    then = {position: fingerprint for position, fingerprint, _ in stored}
    ids_then = {item_id: fingerprint for _, fingerprint, item_id in stored}
    fingerprints_then = set(then.values())
    lines = []
    for position, _trial, cited, refused, answer in results:
        if any(c in text for text in (cited or "", answer or "") for c in "\r\n"):
            raise InputError(
                f"a stored answer of the live version {quoted(label)} holds a line break, which "
                "the text format cannot carry: give its results in the input instead"
            )
        item_id = now.get(then[position])
        if item_id is not None:
            flag = "Y" if refused else "N"
            lines.append(f"{label} {item_id} {cited or '-'} {flag} {answer or ''}")
    paired = sum(1 for fingerprint in now if fingerprint in fingerprints_then)
    changed = tuple(i for fp, i, *_ in current if i in ids_then and ids_then[i] != fp)
    added = tuple(i for _, i, *_ in current if i not in ids_then)
    removed = tuple(i for i in ids_then if i not in ids_now)
    tail = ("" if data.endswith(b"\n") or not data else "\n") + "".join(f"{x}\n" for x in lines)
    return LiveBaseline(
        label=label,
        release_id=int(release_id),
        release_date=date,
        evaluation_id=evaluation_id,
        paired=paired,
        added=added,
        changed=changed,
        removed=removed,
        source=_NamedBytes(data + tail.encode("utf-8"), name),
    )
