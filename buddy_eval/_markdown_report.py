"""The verdict as GitHub-flavoured Markdown: a CI job summary or a pull-request comment.

Every figure comes from the evaluation's structured decision and paired
comparison and is rounded by :mod:`buddy_eval.formatting`; nothing is
computed here. Answers are never shown (they can hold student data). Every
id and label is escaped, so ``|``, backticks, ``<script>``, ``*`` and links
in them render as the characters they are, and each is cut after
:data:`~buddy_eval._errors.QUOTE_LIMIT` characters: with id lists capped at
:data:`~buddy_eval.formatting.MAX_LISTED_IDS`, the summary stays a few
kilobytes for any input, far under GitHub's 1 MiB step-summary limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._coverage import coverage_lines
from ._errors import QUOTE_LIMIT
from ._paired import readiness_note
from .formatting import (
    MAX_LISTED_IDS,
    format_count,
    format_diff,
    format_interval,
    format_p_value,
    format_rate,
    format_rate_pair,
    format_setting_percent,
    markdown_text,
)

if TYPE_CHECKING:
    from ._evaluation import Evaluation

__all__ = ["markdown_escape", "markdown_ids", "markdown_report", "markdown_row"]

_WHERE_LISTED = "full list: `--details` or `--format json`"


def markdown_escape(text: object, limit: int = QUOTE_LIMIT) -> str:
    """:func:`~buddy_eval.formatting.markdown_text`, cut after ``limit`` characters (an id
    or a label in a summary).

    >>> markdown_escape("a|b <script>")
    'a\\\\|b \\\\<script\\\\>'
    """
    return markdown_text(text, limit)


def markdown_ids(ids, where: str = _WHERE_LISTED) -> str:
    """The first ids, escaped, then ``and N more (where)``: the capped list every summary shows."""
    shown = ", ".join(markdown_escape(i) for i in ids[:MAX_LISTED_IDS])
    more = len(ids) - MAX_LISTED_IDS
    return shown + (f" and {more} more ({where})" if more > 0 else "")


def markdown_row(cells) -> str:
    """One row of a Markdown table (cells already escaped)."""
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: the header, its rule, the rows."""
    return [markdown_row(row) for row in (header, ["---"] * len(header), *rows)]


def markdown_report(evaluation: Evaluation) -> str:
    """The verdict, the metrics, the changed items and one statistics line per metric.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.

    Returns
    -------
    str
        GitHub-flavoured Markdown ending in a newline: a heading with the
        verdict, every BLOCK reason, a table of both versions' rates (and
        violations) beside the thresholds with each metric's status, the
        fixed / regressed / missing (and, with trials, mixed) ids per
        metric and the REFUSE items the candidate answered, a table of the
        paired statistics, and the warnings.
    """
    paired, decision, settings = evaluation.paired, evaluation.decision, evaluation.paired.settings
    b, c = markdown_escape(evaluation.baseline), markdown_escape(evaluation.candidate)
    lines = [f"## Buddy release gate: {'RELEASE' if decision.release else 'BLOCK'}", ""]
    if decision.release:
        lines.append(f"**RELEASE**: {c} may replace {b}.")
    else:
        lines += [f"**BLOCK**: {c} may not replace {b}:", "", *(f"- {r}" for r in decision.reasons)]
    source = markdown_escape(evaluation.data.source)
    trials = " (repeated trials: a rate is the mean of each item's passing share)"
    lines += ["", f"Input {source}{trials if evaluation.has_trials else ''}.", ""]
    rates = []
    labels = (evaluation.baseline, evaluation.candidate)
    printed = [evaluation.values(label) for label in labels]
    exact = [evaluation.compared_counts.parts(label) for label in labels]
    for m in paired.metrics:
        pair = format_rate_pair(
            printed[0][m.metric], printed[1][m.metric], (exact[0][m.metric], exact[1][m.metric])
        )
        threshold = format_rate(getattr(evaluation.thresholds, m.metric))
        rates.append([m.metric, *pair, threshold, decision.status(m.metric, m.measured)])
    violations = [str(bound.violations) for bound in paired.violations]
    rates.append(["violations", *violations, "0", decision.status("violations")])
    lines += _table(["metric", b, c, "threshold", "status"], rates)
    coverage = coverage_lines(evaluation)
    if coverage:
        lines += ["", *(f"- {markdown_escape(line.strip(), limit=1000)}" for line in coverage)]
    lines += ["", "### Changed items", ""]
    for m in paired.metrics:
        parts = [
            f"{label} {len(m.ids[label])}: {markdown_ids(m.ids[label])}"
            for label in ("fixed", "regressed", "mixed", "missing")
            if m.ids.get(label)
        ]
        lines.append(f"- **{m.metric}**: " + ("; ".join(parts) if parts else "no change"))
    violating = _violating(evaluation)
    lines.append(
        f"- **violations**: {c} answered {len(violating)} REFUSE "
        + ("item" if len(violating) == 1 else "items")
        + (f": {markdown_ids(violating)}" if violating else "")
    )
    level = format_setting_percent(settings.confidence)
    lines += [
        "",
        "### Statistics",
        "",
        f"Paired over the items with a result in both versions; {level}% intervals.",
        "",
    ]
    statistics = []
    for m in paired.metrics:
        if m.ready and m.diff_ci is not None and m.reading is not None:
            p_values = (format_p_value(p, settings.alpha) for p in (m.p_value, m.p_holm))
            interval = format_interval(*m.diff_ci, signed=True)
            cells = [interval, *(p.removeprefix("= ") for p in p_values), m.reading[1]]
        else:
            cells = ["-", "-", "-", readiness_note(m, settings.min_paired) or "not ready"]
        statistics.append([m.metric, format_diff(m.diff), *cells])
    lines += _table(["metric", "difference", "interval", "p", "Holm p", "reading"], statistics)
    if evaluation.warnings:
        lines += ["", f"### {format_count(len(evaluation.warnings), 'warning')}", ""]
        lines += [f"- {markdown_escape(w, limit=_WARNING_LIMIT)}" for w in evaluation.warnings]
    return "\n".join(lines) + "\n"


#: Characters of one warning the summary shows at most (a warning quotes input values).
_WARNING_LIMIT = 300


def _violating(evaluation: Evaluation) -> list[str]:
    """REFUSE items the candidate answered (in any trial), in golden order."""
    from ._drilldown import trial_answers

    answers = trial_answers(evaluation)
    mine = answers[(answers["version"] == evaluation.candidate) & answers["violation"]]
    return list(dict.fromkeys(mine["item_id"].tolist()))
