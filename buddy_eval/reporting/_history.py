"""What happened across a ledger's versions, as a document: ``buddy-eval history``.

:func:`history_document` reads a computed history (every figure as recorded:
exact counts, the stored verdicts, every release and rollback) and words it
once: the head line, the versions table with a note where the golden set
changes, the releases, and the items across versions; the JSON record holds
the exact values. :func:`render_text` (through the terminal's escaping),
:func:`render_markdown` and :func:`render_json` lay it out.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .._errors import quoted
from .._phrases import NOT_RECORDED
from .._vocabulary import RATE_METRICS
from ..formatting import format_count, format_fraction, format_id_list
from ..ledger._show import SHORT
from ._doctor import HEALTH_HEAD, health_line
from ._gate_health import health_record
from ._model import DETAILS, MARKDOWN, Column, Document, Lines, Paragraph, Section, Table, User

if TYPE_CHECKING:
    import pandas as pd

    from ..ledger._history import HistoryResults, SliceHistory

__all__ = ["HISTORY_FORMAT_VERSION", "history_document", "slice_history_document"]

#: The version of the history's JSON record (``format_version``; the output had none
#: before the golden-set findings per revision were added, its version 1).
#:
#: Examples
#: --------
#: >>> from buddy_eval.reporting import HISTORY_FORMAT_VERSION
#: >>> HISTORY_FORMAT_VERSION
#: 2
HISTORY_FORMAT_VERSION = 2

#: The columns of the versions table, as every view heads them.
_HEADER = ("version", "revision", "items", *RATE_METRICS, "violations", "verdict", "released")
#: The columns of the releases table.
_RELEASE_HEADER = ("release", "version", "date", "evidence", "reason", "by")
#: Characters of one Markdown cell or line at most (labels and id lists are capped already).
_LIMIT = 2000
#: The views of the history.
_VIEWS = frozenset({DETAILS, MARKDOWN})


def _na(value) -> bool:
    import pandas as pd  # loaded already: a history is read into frames

    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _rate(row, metric: str) -> Fraction | None:
    den = int(row[f"{metric}_denominator"])
    return Fraction(int(row[f"{metric}_numerator"]), den) if den else None


def _item_names(items: pd.DataFrame) -> dict[str, str]:
    """Per item fingerprint, its id; with the short fingerprint when an id has several."""
    pairs = items[["item_fingerprint", "item_id"]].drop_duplicates()
    repeated = set(pairs["item_id"][pairs["item_id"].duplicated()])
    return {
        fp: f"{i} [{fp[:8]}]" if i in repeated else i
        for fp, i in zip(pairs["item_fingerprint"], pairs["item_id"], strict=True)
    }


def _head(found: HistoryResults) -> str:
    live = found.live
    return (
        f"ledger {found.ledger}: {format_count(len(found.versions), 'version')}, "
        f"{format_count(len(found.releases), 'release')}, "
        f"{format_count(len(found.revisions), 'golden-set revision')}; "
        + (f"live: {live} since {found.live_since}" if live is not None else "nothing released yet")
    )


def _diff_text(found: HistoryResults, revision: str) -> str:
    """``+added -removed ~changed`` ids of a revision, capped with counts."""
    diffs = found.revision_changes[found.revision_changes["revision"] == revision]
    parts = []
    for change, mark in (("added", "+"), ("removed", "-"), ("changed", "~")):
        ids = diffs.loc[diffs["change"] == change, "item_id"].tolist()
        if ids:
            parts.append(f"{mark}{len(ids)} {format_id_list(ids)}")
    return " ".join(parts) or "same items, another order"


def _change_note(found: HistoryResults, version: str) -> str | None:
    """The note before a version starting a new golden-set revision (None when none)."""
    mine = found.across[found.across["version"] == version]
    if mine.empty:
        return None
    first = mine.iloc[0]
    rates = ", ".join(
        f"{r['metric']} {format_fraction(r['previous'])} -> {format_fraction(r['current'])}"
        for r in mine.to_dict("records")
    )
    return (
        f"golden set {first['from_revision']} -> {first['to_revision']}: "
        f"{_diff_text(found, first['to_revision'])}; the rates above and below are on "
        f"different items; on the {format_count(int(first['shared_items']), 'item')} both "
        f"revisions share and both versions hold, {first['previous_version']} -> "
        f"{version}: {rates}"
    )


def _released(found: HistoryResults, row: dict) -> str:
    """Its latest release date; for the live version also since when it is live (a
    rollback makes an earlier release live again later)."""
    released = "-" if _na(row["release_date"]) else str(row["release_date"])
    if not row["live"]:
        return released
    since = found.live_since
    return released + (" (live)" if since == row["release_date"] else f" (live since {since})")


def _versions(found: HistoryResults) -> Table:
    rows, notes = [], []
    for index, row in enumerate(found.versions.to_dict("records")):
        if row["golden_changed"] and (note := _change_note(found, row["version"])):
            notes.append((index, (User(note, _LIMIT),)))
        rows.append(
            (
                str(row["version"]),
                "-" if _na(row["revision"]) else str(row["revision"]),
                int(row["golden_items"]),
                *(_rate(row, m) for m in RATE_METRICS),
                int(row["violations"]),
                "-" if _na(row["verdict"]) else f"{row['verdict']} vs {row['baseline']}",
                _released(found, row),
            )
        )
    formats: dict[str, Any] = dict.fromkeys(RATE_METRICS, format_fraction)
    columns = tuple(Column(h, h, formats.get(h, str)) for h in _HEADER)
    return Table(columns, tuple(rows), notes=tuple(notes), cell_limit=_LIMIT, compact_rule=True)


def _releases(found: HistoryResults) -> Table:
    rows = []
    for r in found.releases.to_dict("records"):
        if r["kind"] == "rollback":
            evidence, reason = "rollback", f"rollback: {r['rollback_reason']}"
        else:
            evidence = (
                "never gated"
                if _na(r["evaluation"])
                else f"evaluation {r['evaluation']} ({r['verdict']})"
            )
            reason = "-" if _na(r["override_reason"]) else f"override: {r['override_reason']}"
        by = str(r["recorded_by"])
        if not _na(r["commit"]):
            by += f" @ {str(r['commit'])[:SHORT]}"
        rows.append((str(r["release"]), str(r["version"]), str(r["date"]), evidence, reason, by))
    columns = tuple(Column(h, h) for h in _RELEASE_HEADER)
    return Table(columns, tuple(rows), indent="  ", cell_limit=_LIMIT, compact_rule=True)


def _health(found: HistoryResults) -> Lines:
    """Per golden-set revision, the health line the gate showed when it was first recorded."""
    lines = []
    for revision in found.revisions["revision"].tolist():
        diagnosis = found.diagnosis(revision)
        line = health_line(diagnosis) if diagnosis is not None else f"{HEALTH_HEAD}: {NOT_RECORDED}"
        lines.append((0, (User(f"{revision}: {line}", _LIMIT),)))
    return Lines(tuple(lines))


def _summary(found: HistoryResults) -> Lines:
    """The three lines about items across versions."""
    always, flipped, escaped = found.always_failed, found.flipped, found.escaped
    named = _item_names(found.items)
    flips = zip(flipped["item_fingerprint"], flipped["flips"], strict=True)
    escapes = zip(
        escaped["item_fingerprint"], escaped["version"], escaped["release_date"], strict=True
    )
    lines = [
        f"items failed by every version holding them ({len(always)}): "
        + format_id_list(named[fp] for fp in always["item_fingerprint"]),
        f"items flipped more than once ({len(flipped)}): "
        + format_id_list(f"{named[fp]} ({n} flips)" for fp, n in flips),
        f"regressions that escaped ({len(escaped)}): "
        + format_id_list(f"{named[fp]} in {v} (released {d})" for fp, v, d in escapes),
    ]
    return Lines(tuple((0, (User(line, _LIMIT),)) for line in lines))


def _json_value(value):
    if _na(value):
        return None
    if isinstance(value, Fraction):
        return {"numerator": value.numerator, "denominator": value.denominator}
    if hasattr(value, "item"):
        return value.item()
    return value


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _json_value(v) for k, v in r.items()} for r in frame.to_dict("records")]


def _record(found: HistoryResults) -> dict:
    """Every figure, exact (counts as numerator and denominator), JSON-ready."""
    versions = []
    for row in found.versions.to_dict("records"):
        entry = {
            k: _json_value(row[k])
            for k in ("version", "revision", "golden_set", "golden_items", "golden_changed", "date")
        }
        for metric in RATE_METRICS:
            num, den = int(row[f"{metric}_numerator"]), int(row[f"{metric}_denominator"])
            entry[metric] = {"numerator": num, "denominator": den} if den else None
        entry["violations"] = int(row["violations"])
        for key in (
            "evaluation",
            "role",
            "baseline",
            "verdict",
            "reasons",
            "recorded_by",
            "commit",
            "released",
            "live",
            "release_date",
            "override_reason",
        ):
            entry[key] = _json_value(row[key])
        versions.append(entry)
    revisions = []
    shown = ("revision", "golden_set", "fingerprint", "items", "added", "removed", "changed")
    for row in _records(found.revisions[list(shown)]):
        diffs = found.revision_changes[found.revision_changes["revision"] == row["revision"]]
        row["diff"] = {
            change: diffs.loc[diffs["change"] == change, "item_id"].tolist()
            for change in ("added", "removed", "changed")
        }
        diagnosis = found.diagnosis(row["revision"])
        row["health"] = None if diagnosis is None else health_record(diagnosis)
        row["findings"] = (
            None
            if diagnosis is None
            else [
                {"check": f.check, "severity": f.severity, "ids": list(f.ids), "message": f.message}
                for f in diagnosis.findings
            ]
        )
        revisions.append(row)
    return {
        "format_version": HISTORY_FORMAT_VERSION,
        "ledger": found.ledger,
        "live": found.live,
        "versions": versions,
        "releases": _records(found.releases),
        "revisions": revisions,
        "across_revisions": _records(found.across),
        "always_failed": _records(found.always_failed),
        "flipped": _records(found.flipped),
        "escaped": _records(found.escaped),
    }


def history_document(found: HistoryResults) -> Document:
    """The history of a ledger, worded once for every view.

    Parameters
    ----------
    found : History
        What :func:`buddy_eval.history` read.

    Returns
    -------
    Document
        Sections ``head`` (the ledger, its counts and what is live; the text
        view's first line, the Markdown title), ``versions`` (one row per
        version, a note before a version on a new golden-set revision),
        ``releases`` (every release and rollback; in no view before the
        first), ``health`` (per golden-set revision, the doctor's findings
        recorded with it as the gate's one health line, or that they were not
        recorded) and ``items`` (items failed by every version, items that
        flipped, regressions that escaped); ``record``
        holds every figure exactly, for the JSON view.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.reporting import history_document, render_markdown, render_text
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> document = history_document(be.history(path))
    >>> print(render_text(document, sections=[document.section("versions")]))
    version  revision  items  correctness  citation  refusal  violations  verdict       released
    OLD      r1        4      0.67         0.67      1.00     0           -             -
    NEW      r1        4      1.00         1.00      0.00     1           BLOCK vs OLD  -
    >>> render_markdown(document).splitlines()[-1]
    '- regressions that escaped \\\\(0\\\\)\\\\: none'
    >>> document.record["versions"][1]["refusal"]
    {'numerator': 0, 'denominator': 1}
    >>> tmp.cleanup()
    """
    head = _head(found)
    sections = [
        Section("head", None, (Paragraph((User(head, _LIMIT),)),), frozenset({DETAILS})),
        Section("versions", None, (_versions(found),), _VIEWS),
    ]
    releases = _releases(found)  # shown once there is any
    shown = _VIEWS if releases.rows else frozenset()
    sections.append(Section("releases", None, (releases,), shown, caption="releases"))
    sections.append(
        Section("health", None, (_health(found),), _VIEWS, caption="golden-set health per revision")
    )
    sections.append(Section("items", None, (_summary(found),), _VIEWS))
    return Document(
        "history",
        (User(head, _LIMIT),),
        tuple(sections),
        record=_record(found),
        title_level=3,
    )


#: The columns of the per-slice history table.
_SLICE_HEADER = (
    "evaluation",
    "date",
    "revision",
    "version",
    "role",
    "items",
    *RATE_METRICS,
    "violations",
    "verdict",
)


def _slice_head(found: SliceHistory) -> str:
    evaluations = found.rates["evaluation"].nunique()
    head = (
        f"ledger {found.ledger}: slice {quoted(found.slice)} in "
        f"{format_count(int(evaluations), 'evaluation')} recorded with slices"
    )
    if found.without_slices:
        head += (
            f"; {format_count(found.without_slices, 'evaluation')} recorded without slices left out"
        )
    return head


def _slice_rates(found: SliceHistory) -> Table:
    rows = []
    for row in found.rates.to_dict("records"):
        rows.append(
            (
                str(row["evaluation"]),
                str(row["date"]),
                str(row["revision"]),
                str(row["version"]),
                str(row["role"]),
                int(row["items"]),
                *(row[m] for m in RATE_METRICS),
                int(row["violations"]),
                str(row["verdict"]) if row["role"] == "candidate" else "-",
            )
        )
    formats: dict[str, Any] = dict.fromkeys(RATE_METRICS, format_fraction)
    columns = tuple(Column(h, h, formats.get(h, str)) for h in _SLICE_HEADER)
    return Table(columns, tuple(rows), cell_limit=_LIMIT, compact_rule=True)


def _slice_record(found: SliceHistory) -> dict:
    evaluations: dict[int, dict] = {}
    for row in found.rates.to_dict("records"):
        entry = evaluations.setdefault(
            int(row["evaluation"]),
            {
                "evaluation": int(row["evaluation"]),
                "date": str(row["date"]),
                "revision": str(row["revision"]),
                "verdict": str(row["verdict"]),
                "slices_sha256": str(row["slices_sha256"]),
                "items": int(row["slice_items"]),
            },
        )
        figures: dict = {"version": str(row["version"]), "items": int(row["items"])}
        for metric in RATE_METRICS:
            num, den = int(row[f"{metric}_numerator"]), int(row[f"{metric}_denominator"])
            figures[metric] = {"numerator": num, "denominator": den} if den else None
        figures["violations"] = int(row["violations"])
        entry[str(row["role"])] = figures
    return {
        "format_version": HISTORY_FORMAT_VERSION,
        "ledger": found.ledger,
        "slice": found.slice,
        "slices": list(found.slices),
        "evaluations": list(evaluations.values()),
        "without_slices": found.without_slices,
    }


def slice_history_document(found: SliceHistory) -> Document:
    """One slice's history, worded once for every view: ``buddy-eval history --slice NAME``.

    Parameters
    ----------
    found : SliceHistory
        What :func:`buddy_eval.history` read with ``slice=NAME``.

    Returns
    -------
    Document
        Sections ``head`` (the ledger, the slice, how many evaluations were
        recorded with slices and how many without were left out) and
        ``rates`` (per evaluation recorded with slices, its baseline's and
        its candidate's rates and violations over the slice's items);
        ``record`` holds every figure exactly, for the JSON view.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.reporting import render_text, slice_history_document
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> ev = be.evaluate("data/example.txt", slices={"q1": "easy", "q4": "easy"})
    >>> _ = be.record(ev, path, date="2026-03-01", by="ci")
    >>> document = slice_history_document(be.history(path, slice="easy"))
    >>> print(render_text(document).splitlines()[0].split(": ", 1)[1])
    slice 'easy' in 1 evaluation recorded with slices
    >>> document.section("rates").blocks[0].cells()[1][3:]
    ['NEW', 'candidate', '2', '1.00', '1.00', '0.00', '1', 'BLOCK']
    >>> document.record["evaluations"][0]["candidate"]["refusal"]
    {'numerator': 0, 'denominator': 1}
    >>> tmp.cleanup()
    """
    head = _slice_head(found)
    sections = [
        Section("head", None, (Paragraph((User(head, _LIMIT),)),), frozenset({DETAILS})),
        Section("rates", None, (_slice_rates(found),), _VIEWS),
    ]
    return Document(
        "history",
        (User(head, _LIMIT),),
        tuple(sections),
        record=_slice_record(found),
        title_level=3,
    )
