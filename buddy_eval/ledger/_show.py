"""``buddy-eval ledger show``: the versions, evaluations and releases a ledger holds, as text."""

from __future__ import annotations

import json
import os
import re
import sqlite3

from .._errors import InputError
from ..formatting import format_count
from ._schema import connect

__all__ = ["printable", "show", "text_table"]

_SHORT = 12


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def printable(text: str) -> str:
    """Text as stored, every invisible character (a line break in a label, a bidi
    override) written as an escape: :func:`buddy_eval.formatting.terminal_text`."""
    from ..formatting import terminal_text

    return terminal_text(text)


def text_table(header: list[str], rows: list[list[str]], indent: str = "") -> list[str]:
    """Columns padded to their widest cell, two spaces apart; cells made printable."""
    cells = [[printable(c) for c in r] for r in [header, *rows]]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in cells]  # fmt: skip


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return text_table(header, rows, "  ")


def _text(value) -> str:
    return "-" if value is None else " ".join(str(value).split())


def _baseline(label: str, settings: str) -> str:
    """The baseline's label, and the release it was read from (``--baseline live``)."""
    live = json.loads(settings).get("live_release")
    return label if live is None else f"{label} (live, release {live})"


def show(ledger: str | os.PathLike[str]) -> str:
    """The ledger's versions, evaluations and releases, as three tables of text.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads.
    """
    name = os.fspath(ledger)
    connection = connect(name)
    try:
        versions = connection.execute(
            "SELECT v.id, v.label, g.fingerprint, g.item_count, v.result_lines, v.answers_kept "
            "FROM versions v JOIN golden_sets g ON g.id = v.golden_set_id ORDER BY v.id"
        ).fetchall()
        evaluations = connection.execute(
            "SELECT e.id, b.label, c.label, e.verdict, e.reasons, e.rule, e.date, e.note, "
            "e.input_sha256, e.settings FROM evaluations e "
            "JOIN versions b ON b.id = e.baseline_version_id "
            "JOIN versions c ON c.id = e.candidate_version_id ORDER BY e.id"
        ).fetchall()
        releases = connection.execute(
            "SELECT r.id, v.label, r.date, r.evaluation_id, r.override_reason, r.note "
            "FROM releases r JOIN versions v ON v.id = r.version_id ORDER BY r.id"
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot read the ledger: {exc}", source=name) from None
    finally:
        connection.close()
    lines = [f"ledger {name}", "", f"{format_count(len(versions), 'version')}:"]
    if versions:
        lines += _table(
            ["id", "version", "golden set", "items", "result lines", "answers"],
            [
                [str(i), label, fp[:_SHORT], str(n), str(r), "kept" if kept else "not kept"]
                for i, label, fp, n, r, kept in versions
            ],
        )
    lines += ["", f"{format_count(len(evaluations), 'evaluation')}:"]
    if evaluations:
        lines += _table(
            ["id", "baseline", "candidate", "verdict", "rule", "date", "input", "note"],
            [
                [
                    str(i),
                    _baseline(base, settings),
                    cand,
                    verdict if verdict == "RELEASE" else "BLOCK: " + "; ".join(json.loads(why)),
                    rule,
                    _text(date),
                    sha[:_SHORT],
                    _text(note),
                ]
                for i, base, cand, verdict, why, rule, date, note, sha, settings in evaluations
            ],
        )
    lines += ["", f"{format_count(len(releases), 'release')}:"]
    if releases:
        lines += _table(
            ["id", "version", "date", "evaluation", "override", "note"],
            [
                [str(i), label, date, _text(ev), _text(why), _text(note)]
                for i, label, date, ev, why, note in releases
            ],
        )
    return "\n".join(lines)
