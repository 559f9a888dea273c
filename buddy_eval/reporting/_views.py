"""The gate's views in one call each: build the document for the view, then render it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._gate import gate_document
from ._junit import render_junit
from ._markdown import render_markdown
from ._model import DETAILS, JSON, JUNIT, MARKDOWN
from ._text import render_text

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = [
    "coverage_text",
    "details",
    "json_record",
    "junit_report",
    "markdown_report",
    "statistics_text",
]


def markdown_report(evaluation: Evaluation) -> str:
    """The Markdown summary: the verdict and its reasons, both versions' rates beside the
    thresholds with each metric's status, the changed items (capped), the paired
    statistics and the warnings; ends in a newline."""
    return render_markdown(gate_document(evaluation, {MARKDOWN}))


def junit_report(evaluation: Evaluation) -> str:
    """The gate's checks and the golden items as a JUnit XML document."""
    return render_junit(gate_document(evaluation, {JUNIT}))


def json_record(evaluation: Evaluation) -> dict:
    """The JSON report as a JSON-ready dict (see :doc:`json-schema`)."""
    return dict(gate_document(evaluation, {JSON}).record)


def details(evaluation: Evaluation) -> str:
    """The ``--details`` section (without the canonical lines): which items each figure
    covers (a live baseline), then the paired statistics per metric."""
    return render_text(gate_document(evaluation, {DETAILS}))


def coverage_text(evaluation: Evaluation) -> str:
    """Which golden items each figure covers (a live baseline); empty otherwise."""
    document = gate_document(evaluation, {DETAILS})
    return render_text(document, sections=[s for s in document.sections if s.key == "compared"])


def statistics_text(evaluation: Evaluation) -> str:
    """The ``--details`` section without the lines about which items are covered."""
    document = gate_document(evaluation, {DETAILS})
    return render_text(document, sections=[s for s in document.sections if s.key != "compared"])
