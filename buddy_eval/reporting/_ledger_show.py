"""The ledger's rows as a document: what ``buddy-eval ledger show`` prints.

:func:`show_document` words the rows :func:`buddy_eval.ledger._show.stored`
read (the golden-set revisions, versions, evaluations and releases) into one
section per kind of row, each a count and a table; :func:`render_text` lays
it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import verdict_line
from .._vocabulary import RELEASE
from ..formatting import format_count
from ..ledger._show import SHORT
from ._model import DETAILS, Block, Column, Document, Paragraph, Section, Table, User

if TYPE_CHECKING:
    from ..ledger._show import StoredLedger

__all__ = ["show_document"]


def _text(value) -> str:
    """A stored text on one line, ``-`` for none."""
    return "-" if value is None else " ".join(str(value).split())


def _by(by: str, commit: str | None) -> str:
    return by if commit is None else f"{by} @ {commit[:SHORT]}"


def _listing(key: str, count: str, headings: list[str], rows: list[list[str]]) -> Section:
    """``N things:`` and, when there is any, their table (indented)."""
    blocks: list[Block] = [Paragraph((f"{count}:",))]
    if rows:
        columns = tuple(Column(h, h) for h in headings)
        blocks.append(Table(columns, tuple(tuple(r) for r in rows), indent="  "))
    return Section(key, None, tuple(blocks), views=frozenset({DETAILS}))


def show_document(rows: StoredLedger) -> Document:
    """The ledger's revisions, versions, evaluations and releases, one table each.

    Parameters
    ----------
    rows : StoredLedger
        What :func:`buddy_eval.ledger._show.stored` read.

    Returns
    -------
    Document
        Sections ``ledger`` (its path), ``revisions``, ``versions``,
        ``evaluations`` and ``releases``, each a count and a table of text;
        shown by :func:`render_text`.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.ledger._show import stored
    >>> from buddy_eval.reporting import render_text, show_document
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> document = show_document(stored(path))
    >>> print(render_text(document, sections=[document.section("versions")]))
    2 versions:
      id  version  results (items per revision)  result lines  answers
      1   OLD      4 on r1                       4             kept
      2   NEW      4 on r1                       4             kept
    >>> tmp.cleanup()
    """
    labels, sets = rows.versions, rows.golden_sets
    revision = {i: g.revision for i, g in sets.items()}
    held: dict[int, list] = {}
    for r in rows.result_sets:
        held.setdefault(r.version_id, []).append(r)
    evaluations = []
    for e in rows.evaluations:
        f = e.fields
        live = f["live_release_id"]
        base = labels[f["baseline_version_id"]]
        if live is not None:
            base += f" (live, release {live})"
        compared = (
            f"{f['compared_items']} of {len(sets[f['golden_set_id']].items)}"
            if e.not_compared
            else "all"
        )
        evaluations.append(
            [
                str(e.id),
                f["date"],
                revision[f["golden_set_id"]],
                base,
                labels[f["candidate_version_id"]],
                verdict_line(f["verdict"] == RELEASE, e.reasons),
                f["rule"],
                compared,
                _by(f["recorded_by"], f["commit_sha"]),
                f["input_sha256"][:SHORT],
                _text(f["note"]),
            ]
        )
    sections = (
        Section("ledger", None, (Paragraph(("ledger ", User(rows.ledger))),), frozenset({DETAILS})),
        _listing(
            "revisions",
            format_count(len(sets), "golden-set revision"),
            ["revision", "golden set", "items"],
            [[g.revision, g.fingerprint[:SHORT], str(len(g.items))] for g in sets.values()],
        ),
        _listing(
            "versions",
            format_count(len(labels), "version"),
            ["id", "version", "results (items per revision)", "result lines", "answers"],
            [
                [
                    str(i),
                    label,
                    ", ".join(
                        f"{len(r.outcomes)} on {revision[r.golden_set_id]}" for r in held.get(i, [])
                    )
                    or "-",
                    str(sum(len(r.lines) for r in held.get(i, []))),
                    "kept" if all(r.answers_kept for r in held.get(i, [])) else "not kept",
                ]
                for i, label in labels.items()
            ],
        ),
        _listing(
            "evaluations",
            format_count(len(rows.evaluations), "evaluation"),
            [
                "id",
                "date",
                "revision",
                "baseline",
                "candidate",
                "verdict",
                "rule",
                "compared",
                "by",
                "input",
                "note",
            ],
            evaluations,
        ),
        _listing(
            "releases",
            format_count(len(rows.releases), "release"),
            ["id", "kind", "version", "date", "evaluation", "reason", "by", "note"],
            [
                [
                    str(r.id),
                    r.kind,
                    labels[r.version_id],
                    r.date,
                    _text(r.evaluation_id),
                    _text(r.override_reason if r.kind == "release" else r.rollback_reason),
                    _by(r.recorded_by, r.commit_sha),
                    _text(r.note),
                ]
                for r in rows.releases
            ],
        ),
    )
    return Document("ledger", f"ledger {rows.ledger}", sections)
