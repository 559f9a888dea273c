"""``buddy-eval ledger show``: the versions, evaluations and releases a ledger holds, as text."""

from __future__ import annotations

import os

from ..formatting import format_count

__all__ = ["printable", "show", "text_table"]

_SHORT = 12


def printable(text: str) -> str:
    """Text as stored, every invisible character (a line break in a label, a bidi
    override) written as an escape: :func:`buddy_eval.formatting.terminal_text`."""
    from ..formatting import terminal_text

    return terminal_text(text)


def text_table(header: list[str], rows: list[list[str]], indent: str = "") -> list[str]:
    """Columns padded to their widest cell, two spaces apart; cells made printable."""
    cells = [[printable(c) for c in r] for r in [header, *rows]]
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    return [
        indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in cells
    ]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return text_table(header, rows, "  ")


def _text(value) -> str:
    return "-" if value is None else " ".join(str(value).split())


def _by(by: str, commit: str | None) -> str:
    return by if commit is None else f"{by} @ {commit[:_SHORT]}"


def show(ledger: str | os.PathLike[str]) -> str:
    """The ledger's revisions, versions, evaluations and releases, as tables of text.

    Every row is checked against its stored hash first.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or a row was changed
        outside buddy-eval.
    """
    from . import _store
    from ._schema import reading

    name = os.fspath(ledger)
    with reading(name) as connection:
        labels = _store.versions(connection)
        sets = _store.golden_sets(connection, name)
        results = _store.result_sets(connection, name)
        evaluations = _store.evaluations(connection, name)
        releases = _store.releases(connection, name)
    revision = {i: g.revision for i, g in sets.items()}
    lines = [f"ledger {name}", "", f"{format_count(len(sets), 'golden-set revision')}:"]
    if sets:
        lines += _table(
            ["revision", "golden set", "items"],
            [[g.revision, g.fingerprint[:_SHORT], str(len(g.items))] for g in sets.values()],
        )
    lines += ["", f"{format_count(len(labels), 'version')}:"]
    if labels:
        held: dict[int, list] = {}
        for r in results:
            held.setdefault(r.version_id, []).append(r)
        lines += _table(
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
        )
    lines += ["", f"{format_count(len(evaluations), 'evaluation')}:"]
    if evaluations:
        rows = []
        for e in evaluations:
            f = e.fields
            live = f["live_release_id"]
            base = labels[f["baseline_version_id"]]
            if live is not None:
                base += f" (live, release {live})"
            verdict = (
                f["verdict"] if f["verdict"] == "RELEASE" else "BLOCK: " + "; ".join(e.reasons)
            )
            compared = (
                f"{f['compared_items']} of {len(sets[f['golden_set_id']].items)}"
                if e.not_compared
                else "all"
            )
            rows.append(
                [
                    str(e.id),
                    f["date"],
                    revision[f["golden_set_id"]],
                    base,
                    labels[f["candidate_version_id"]],
                    verdict,
                    f["rule"],
                    compared,
                    _by(f["recorded_by"], f["commit_sha"]),
                    f["input_sha256"][:_SHORT],
                    _text(f["note"]),
                ]
            )
        lines += _table(
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
            rows,
        )
    lines += ["", f"{format_count(len(releases), 'release')}:"]
    if releases:
        lines += _table(
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
                for r in releases
            ],
        )
    return "\n".join(lines)
