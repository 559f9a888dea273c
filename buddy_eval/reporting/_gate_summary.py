"""The gate's summary sections: the verdict, the rates beside the thresholds, the changed
items, the paired statistics and the warnings (the Markdown summary and the HTML report)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import HOLM, NOT_READY, count_of, readiness_note, verdict_word
from ..formatting import (
    format_diff,
    format_interval,
    format_p_value,
    format_rate,
    format_rate_pair,
    format_setting_percent,
)
from ._model import (
    HTML,
    MARKDOWN,
    Block,
    Bullet,
    Bullets,
    Cell,
    Column,
    IdList,
    Paragraph,
    Section,
    Table,
    Text,
    User,
    Verdict,
)

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = ["summary_sections", "violating_ids"]

_SUMMARY = frozenset({MARKDOWN, HTML})

#: Characters of one warning the summary shows at most (a warning quotes input values).
WARNING_LIMIT = 300
#: Characters of one line about the compared items (it names a ledger path).
COVERAGE_LIMIT = 1000

_TRIALS_NOTE = " (repeated trials: a rate is the mean of each item's passing share)"


def violating_ids(evaluation: Evaluation) -> list[str]:
    """REFUSE items the candidate answered (in any trial), in golden order."""
    answers = evaluation.answers
    mine = answers[(answers["version"] == evaluation.candidate) & answers["violation"]]
    return list(dict.fromkeys(mine["item_id"].tolist()))


def _verdict(evaluation: Evaluation) -> Verdict:
    decision = evaluation.decision
    b, c = User(evaluation.baseline), User(evaluation.candidate)
    sentence = (c, " may replace ", b) if decision.release else (c, " may not replace ", b)
    return Verdict(verdict_word(decision.release), decision.release, sentence, decision.reasons)


def _rates(evaluation: Evaluation) -> Table:
    paired, decision = evaluation.paired, evaluation.decision
    labels = (evaluation.baseline, evaluation.candidate)
    printed = [evaluation.values(label) for label in labels]
    exact = [evaluation.compared_counts.parts(label) for label in labels]
    rows = []
    for m in paired.metrics:
        values = (printed[0][m.metric], printed[1][m.metric])
        pair = format_rate_pair(*values, (exact[0][m.metric], exact[1][m.metric]))
        threshold = getattr(evaluation.thresholds, m.metric)
        cells = [Cell(v, text) for v, text in zip(values, pair, strict=True)]
        rows.append((m.metric, *cells, threshold, decision.status(m.metric, m.measured)))
    violations = [bound.violations for bound in paired.violations]
    rows.append(("violations", *violations, Cell(0, "0"), decision.status("violations")))
    columns = (
        Column("metric", "metric"),
        Column("baseline", User(evaluation.baseline), str),
        Column("candidate", User(evaluation.candidate), str),
        Column("threshold", "threshold", format_rate),
        Column("status", "status"),
    )
    return Table(columns, tuple(rows))


def _changed(evaluation: Evaluation) -> Bullets:
    entries = []
    for m in evaluation.paired.metrics:
        parts = tuple(
            IdList(tuple(m.ids[label]), label)
            for label in ("fixed", "regressed", "mixed", "missing")
            if m.ids.get(label)
        )
        entries.append(Bullet(parts, lead=m.metric, empty="no change"))
    violating = violating_ids(evaluation)
    said = (User(evaluation.candidate), f" answered {count_of(len(violating), 'REFUSE item')}")
    listed: tuple[Text | IdList, ...] = (said, IdList(tuple(violating))) if violating else (said,)
    entries.append(Bullet(listed, lead="violations", sep=": "))
    return Bullets(tuple(entries))


def _statistics(evaluation: Evaluation) -> Table:
    paired = evaluation.paired
    settings = paired.settings
    rows = []
    for m in paired.metrics:
        if m.ready and m.diff_ci is not None and m.reading is not None:
            p_values = (format_p_value(p, settings.alpha) for p in (m.p_value, m.p_holm))
            interval = format_interval(*m.diff_ci, signed=True)
            cells = (interval, *(p.removeprefix("= ") for p in p_values), m.reading[1])
        else:
            note = readiness_note(
                m.measured, m.ready, m.item_type, m.n_paired, settings.min_paired, m.missing
            )
            cells = ("-", "-", "-", note or NOT_READY)
        rows.append((m.metric, Cell(m.diff, format_diff(m.diff)), *cells))
    headings = ("metric", "difference", "interval", "p", f"{HOLM} p", "reading")
    keys = ("metric", "diff", "interval", "p_value", "p_value_holm", "reading")
    return Table(tuple(Column(k, h) for k, h in zip(keys, headings, strict=True)), tuple(rows))


def summary_sections(evaluation: Evaluation, coverage) -> list[Section]:
    """The sections of the Markdown summary (and the HTML report), in order."""
    settings = evaluation.paired.settings
    source = User(str(evaluation.data.source))
    trials = _TRIALS_NOTE if evaluation.has_trials else ""
    rates: list[Block] = [Paragraph(("Input ", source, trials, ".")), _rates(evaluation)]
    if coverage is not None:
        rates.append(coverage)
    level = format_setting_percent(settings.confidence)
    sections = [
        Section("verdict", None, (_verdict(evaluation),), _SUMMARY),
        # The HTML views show these blocks around the metrics table instead (its "metrics").
        Section("rates", None, tuple(rates), frozenset({MARKDOWN})),
        Section("changed_items", "Changed items", (_changed(evaluation),), _SUMMARY),
        Section(
            "statistics",
            "Statistics",
            (
                Paragraph(
                    (f"Paired over the items with a result in both versions; {level}% intervals.",)
                ),
                _statistics(evaluation),
            ),
            _SUMMARY,
        ),
    ]
    if evaluation.warnings:
        warnings = Bullets(tuple(Bullet(((User(w, WARNING_LIMIT),),)) for w in evaluation.warnings))
        title = count_of(len(evaluation.warnings), "warning")
        sections.append(Section("warnings", title, (warnings,), _SUMMARY))
    return sections
