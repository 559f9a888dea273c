"""The doctor's document: one builder for every view of a golden set's findings.

It reads a computed :class:`~buddy_eval.doctor.Diagnosis` (the findings, worded
once by the doctor) and lays them out: the text and Markdown sections and the
JSON record ``{"findings": [...], ...}``. It also words the one-line health
summary the gate's views show (:func:`health_line`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from .._phrases import count_of
from ._model import (
    ALL_VIEWS,
    DETAILS,
    HTML,
    JSON,
    MARKDOWN,
    Bullet,
    Bullets,
    Document,
    IdList,
    Paragraph,
    Section,
    User,
)

if TYPE_CHECKING:
    from ..doctor import Diagnosis

__all__ = ["DOCTOR_FORMAT_VERSION", "DOCTOR_TITLE", "doctor_document", "health_line"]

#: The heading of the doctor's views.
#:
#: Examples
#: --------
#: >>> from buddy_eval.reporting import DOCTOR_TITLE
#: >>> DOCTOR_TITLE
#: 'Golden set doctor'
DOCTOR_TITLE = "Golden set doctor"

#: The version of the doctor's JSON record (``format_version``).
#:
#: Examples
#: --------
#: >>> from buddy_eval.reporting import DOCTOR_FORMAT_VERSION
#: >>> DOCTOR_FORMAT_VERSION
#: 1
DOCTOR_FORMAT_VERSION = 1

#: Characters of one finding's message a summary shows at most (its quotes are cut already).
MESSAGE_LIMIT = 2000

#: Where a capped id list of the doctor's summary sends the reader for the rest.
WHERE_LISTED = "full list: `buddy-eval doctor --format json`"

#: The words the health line starts with (before its counts).
HEALTH_HEAD = "golden set health"

#: Checks the health summary names at most, worst first.
WORST_SHOWN = 3


def _counts(diagnosis: Diagnosis) -> str:
    counts = diagnosis.counts()
    return ", ".join(count_of(n, severity) for severity, n in counts.items())


def worst_checks(diagnosis: Diagnosis) -> list[tuple[str, int]]:
    """The worst checks found, each with its number of findings (findings are worst first)."""
    found: dict[str, int] = {}
    for finding in diagnosis.findings:
        found[finding.check] = found.get(finding.check, 0) + 1
    return list(found.items())[:WORST_SHOWN]


def health_line(diagnosis: Diagnosis) -> str:
    """The golden set's health in one line: findings by severity, the worst checks.

    Examples
    --------
    >>> from buddy_eval.doctor import diagnose
    >>> from buddy_eval.reporting import health_line
    >>> print(health_line(diagnose("data/sample_release.txt")))
    golden set health: 0 errors, 8 warnings, 3 notes; worst: weak-keyword (4), few-refuse-items, ...
    """
    worst = worst_checks(diagnosis)
    named = ", ".join(check if n == 1 else f"{check} ({n})" for check, n in worst)
    return f"{HEALTH_HEAD}: {_counts(diagnosis)}" + (f"; worst: {named}" if worst else "")


def _record(diagnosis: Diagnosis) -> dict:
    return {
        "format_version": DOCTOR_FORMAT_VERSION,
        "kind": diagnosis.kind,
        "source": diagnosis.source,
        "items": diagnosis.n_items,
        "versions": list(diagnosis.versions),
        "counts": diagnosis.counts(),
        "findings": [
            {"check": f.check, "severity": f.severity, "ids": list(f.ids), "message": f.message}
            for f in diagnosis.findings
        ],
    }


def doctor_document(diagnosis: Diagnosis, views: Collection[str] = ALL_VIEWS) -> Document:
    """Everything the views show about a golden set's findings.

    Parameters
    ----------
    diagnosis : Diagnosis
        See :func:`buddy_eval.doctor.diagnose`.
    views : collection of str, optional
        The views to build for (``"details"`` is the text, ``"markdown"``,
        ``"html"``, ``"json"``; all by default).

    Returns
    -------
    Document
        ``kind`` ``"doctor"``: a summary section (what was checked, the
        findings by severity) and a findings section (one bullet per finding:
        its severity and check, its message, its ids), and the JSON record
        (``format_version``, ``kind``, ``source``, ``items``, ``versions``,
        ``counts``, ``findings``: each ``check``, ``severity``, ``ids``, ``message``).

    Examples
    --------
    >>> from buddy_eval.doctor import diagnose
    >>> from buddy_eval.reporting import doctor_document, render_text
    >>> document = doctor_document(diagnose("data/example.txt"))
    >>> print(render_text(document).splitlines()[0])
    checked data/example.txt: 4 golden items, results of OLD, NEW
    >>> document.record["findings"][0]["check"]
    'few-refuse-items'
    """
    views = frozenset(views)
    if unknown := views - ALL_VIEWS:
        raise ValueError(f"unknown view {sorted(unknown)[0]!r}; the views are {sorted(ALL_VIEWS)}")
    what = count_of(diagnosis.n_items, "golden item" if diagnosis.kind == "golden set" else "task")
    read = "results of " + ", ".join(diagnosis.versions) if diagnosis.versions else "no results"
    summary = Section(
        "summary",
        None,
        (
            Paragraph(("checked ", User(diagnosis.source), f": {what}, ", User(read))),
            Paragraph((health_line(diagnosis),)),
        ),
    )
    unit = "items" if diagnosis.kind == "golden set" else "tasks"
    # A message quotes user text (keywords, ids, labels, task values): escaped by each renderer.
    entries = tuple(
        Bullet(
            ((User(f.message, MESSAGE_LIMIT),), IdList(f.ids, unit, where=WHERE_LISTED))
            if f.ids
            else ((User(f.message, MESSAGE_LIMIT),),),
            lead=f"{f.severity} {f.check}",
        )
        for f in diagnosis.findings
    )
    sections = [summary]
    if entries:
        sections.append(Section("findings", "Findings", (Bullets(entries),)))
    return Document(
        kind="doctor",
        title=DOCTOR_TITLE,
        sections=tuple(sections) if views & {DETAILS, MARKDOWN, HTML} else (),
        record=_record(diagnosis) if JSON in views else {},
    )
