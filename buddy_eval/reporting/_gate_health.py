"""The golden set's health in the gate's views: one line, and its record.

The doctor (:mod:`buddy_eval.doctor`) runs on the evaluation's own input, every
version it holds included; this words its findings once, as the one line
``--details``, the Markdown summary and the HTML report show (the same line
``buddy-eval doctor`` prints) and as the JSON record's ``golden_set_health``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._doctor import health_line, worst_checks
from ._model import DETAILS, HTML, MARKDOWN, Paragraph, Section

if TYPE_CHECKING:
    from .._results import Results as Evaluation
    from ..doctor import Diagnosis

__all__ = ["HEALTH_TITLE", "gate_health", "health_record", "health_section"]

#: The heading of the health line in the summaries.
HEALTH_TITLE = "Golden set health"


def gate_health(evaluation: Evaluation) -> Diagnosis:
    """The doctor's findings on the evaluation's input, at the default limits."""
    from ..doctor import Limits
    from ..doctor._run import diagnose_data

    # The evaluation has scored every version already: the doctor reads its grid.
    return diagnose_data(evaluation.data, Limits(), grid=evaluation._all_versions_grid)


def health_section(diagnosis: Diagnosis) -> Section:
    """The one-line summary, for ``--details``, Markdown and HTML."""
    return Section(
        "health",
        HEALTH_TITLE,
        (Paragraph((health_line(diagnosis),)),),
        frozenset({DETAILS, MARKDOWN, HTML}),
    )


def health_record(diagnosis: Diagnosis) -> dict:
    """The JSON record's ``golden_set_health``: counts by severity, the worst checks, the line."""
    return {
        "counts": diagnosis.counts(),
        "worst": [{"check": check, "findings": n} for check, n in worst_checks(diagnosis)],
        "summary": health_line(diagnosis),
    }
