"""The gate's document: one builder for every view of an evaluation.

It reads the evaluation's computed results (the decision, the paired
comparison, the counts, the per-answer drill-down) and words them once:
the summary sections (Markdown, HTML), the ``--details`` sections, the
JUnit suites and the JSON record. Nothing here scores or re-rounds.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from .._phrases import verdict_word
from ._gate_cases import gate_suites
from ._gate_coverage import coverage_lines, coverage_record
from ._gate_details import details_sections
from ._gate_explained import explained_section
from ._gate_health import gate_health, health_record, health_section
from ._gate_metrics import metrics_section
from ._gate_record import gate_record
from ._gate_slices import slice_sections
from ._gate_summary import summary_sections
from ._model import ALL_VIEWS, DETAILS, HTML, JSON, JUNIT, MARKDOWN, Document

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = ["GATE_TITLE", "gate_document"]

#: The heading of the gate's summaries.
#:
#: Examples
#: --------
#: >>> from buddy_eval.reporting import GATE_TITLE
#: >>> GATE_TITLE
#: 'Buddy release gate'
GATE_TITLE = "Buddy release gate"


def gate_document(evaluation: Evaluation, views: Collection[str] = ALL_VIEWS) -> Document:
    """Everything the views show about ``evaluation``.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.
    views : collection of str, optional
        The views to build for (``"details"``, ``"markdown"``, ``"html"``,
        ``"junit"``, ``"json"``; all by default): a view not asked for costs
        nothing (the JUnit suites read every answer, the details do not).

    Returns
    -------
    Document
        ``kind`` ``"gate"``; the summary and ``--details`` sections (the
        last: the golden set's health in one line, from the doctor), the
        ``gate`` and ``golden items`` JUnit suites, and the JSON record.


    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document, render_text
    >>> document = gate_document(be.evaluate("data/example.txt"), {"details"})
    >>> print(render_text(document).splitlines()[2])
    Paired comparison of NEW against OLD
    """
    views = frozenset(views)
    if unknown := views - ALL_VIEWS:
        raise ValueError(f"unknown view {sorted(unknown)[0]!r}; the views are {sorted(ALL_VIEWS)}")
    coverage = coverage_lines(evaluation)
    sections = []
    if views & {MARKDOWN, HTML}:
        summary = summary_sections(evaluation, coverage)
        # The slices come after the statistics, before the warnings.
        at = next((k for k, s in enumerate(summary) if s.key == "warnings"), len(summary))
        summary[at:at] = slice_sections(evaluation, views & {MARKDOWN, HTML})
        sections += summary
    if HTML in views:  # the metrics table and what the verdict rests on, after the rates
        after = next(k for k, s in enumerate(sections) if s.key == "rates") + 1
        html = [metrics_section(evaluation, sections[after - 1]), explained_section(evaluation)]
        sections[after:after] = html
    if DETAILS in views:
        sections += details_sections(evaluation, coverage)
        sections += slice_sections(evaluation, {DETAILS})
    record: dict = {}
    if views & {DETAILS, MARKDOWN, HTML, JSON}:
        health = gate_health(evaluation)  # the doctor, once for every view
        if views & {DETAILS, MARKDOWN, HTML}:
            # In --details: after the lines about which items are covered, before the
            # statistics (which Evaluation.details() gives alone); in the summaries: last.
            at = next(
                (
                    k + 1
                    for k, s in enumerate(sections)
                    if s.key == "compared" and DETAILS in s.views
                ),
                next((k for k, s in enumerate(sections) if DETAILS in s.views), len(sections)),
            )
            sections.insert(at, health_section(health))
        if JSON in views:
            record = gate_record(evaluation, coverage_record(evaluation))
            record["golden_set_health"] = health_record(health)
    return Document(
        kind="gate",
        title=f"{GATE_TITLE}: {verdict_word(evaluation.release)}",
        sections=tuple(sections),
        record=record,
        suites=gate_suites(evaluation) if JUNIT in views else (),
        suites_name=f"buddy-eval {evaluation.candidate}",
    )
