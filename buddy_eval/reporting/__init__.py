"""The report layer: one document per result, one renderer per format.

Builders (:func:`gate_document`, and the tasks and history builders) read
computed results and word them once into a :class:`Document`; renderers
(:func:`render_text`, :func:`render_markdown`, :func:`render_junit`,
:func:`render_json`, :func:`render_html`) lay a document out and compute
nothing. Data flows one way: results, then builders, then renderers, then
the command line.
"""

from __future__ import annotations

from ._doctor import DOCTOR_FORMAT_VERSION, DOCTOR_TITLE, doctor_document, health_line
from ._gate import GATE_TITLE, gate_document
from ._history import HISTORY_FORMAT_VERSION, history_document, slice_history_document
from ._html import render_html
from ._json import dumps, render_json
from ._junit import render_junit
from ._ledger_show import show_document
from ._markdown import render_markdown
from ._model import (
    Bullet,
    Bullets,
    Cell,
    Column,
    Document,
    Figure,
    IdList,
    Lines,
    Paragraph,
    Rows,
    Section,
    Suite,
    Table,
    TestCase,
    User,
    Verdict,
)
from ._tasks import TASKS_TITLE, tasks_document
from ._text import render_text
from ._views import (
    coverage_text,
    details,
    json_record,
    junit_report,
    markdown_report,
    statistics_text,
)

__all__ = [
    "DOCTOR_FORMAT_VERSION",
    "DOCTOR_TITLE",
    "GATE_TITLE",
    "HISTORY_FORMAT_VERSION",
    "Bullet",
    "Bullets",
    "Cell",
    "Column",
    "Document",
    "Figure",
    "IdList",
    "Lines",
    "Paragraph",
    "Rows",
    "Section",
    "Suite",
    "Table",
    "TestCase",
    "User",
    "Verdict",
    "coverage_text",
    "details",
    "dumps",
    "doctor_document",
    "gate_document",
    "health_line",
    "history_document",
    "json_record",
    "junit_report",
    "markdown_report",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_text",
    "show_document",
    "slice_history_document",
    "statistics_text",
    "TASKS_TITLE",
    "tasks_document",
    "render_html",
]
