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
    statistics and the warnings; ends in a newline.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import markdown_report
    >>> print(markdown_report(be.evaluate("data/example.txt")).splitlines()[0])
    ## Buddy release gate: BLOCK
    """
    return render_markdown(gate_document(evaluation, {MARKDOWN}))


def junit_report(evaluation: Evaluation) -> str:
    """The gate's checks and the golden items as a JUnit XML document.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import junit_report
    >>> print(junit_report(be.evaluate("data/example.txt")).splitlines()[1])
    <testsuites name="buddy-eval NEW" tests="11" failures="4" errors="0" skipped="0">
    """
    return render_junit(gate_document(evaluation, {JUNIT}))


def json_record(evaluation: Evaluation) -> dict:
    """The JSON report as a JSON-ready dict (see :doc:`json-schema`).

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import json_record
    >>> record = json_record(be.evaluate("data/example.txt"))
    >>> record["format_version"], record["versions"]["NEW"]["refusal"]["exact"]
    (2, '0/1')
    """
    return dict(gate_document(evaluation, {JSON}).record)


def details(evaluation: Evaluation) -> str:
    """The ``--details`` section (without the canonical lines): which items each figure
    covers (a live baseline), then the paired statistics per metric.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import details
    >>> print(details(be.evaluate("data/example.txt")).splitlines()[2])
    Paired comparison of NEW against OLD
    """
    return render_text(gate_document(evaluation, {DETAILS}))


def coverage_text(evaluation: Evaluation) -> str:
    """Which golden items each figure covers (a live baseline); empty otherwise.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import coverage_text
    >>> coverage_text(be.evaluate("data/example.txt"))  # every item compared: nothing to say
    ''
    """
    document = gate_document(evaluation, {DETAILS})
    return render_text(document, sections=[s for s in document.sections if s.key == "compared"])


def statistics_text(evaluation: Evaluation) -> str:
    """The ``--details`` section without the lines about which items are covered (and without
    the golden set's health line, which ``--details`` ends with).

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import statistics_text
    >>> print(statistics_text(be.evaluate("data/example.txt")).splitlines()[-1])
      NEW          1 of 1 REFUSE item with a result; the rate may be as high as 1.00
    """
    document = gate_document(evaluation, {DETAILS})
    shown = [s for s in document.sections if s.key not in ("compared", "health")]  # stats only
    return render_text(document, sections=shown)
