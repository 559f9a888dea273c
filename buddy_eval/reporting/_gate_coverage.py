"""Which golden items each figure covers, when the baseline is compared on fewer items.

A live baseline read from a ledger holds results only for the items it was
measured on. The candidate's line, its thresholds and violations cover the
whole golden set; the baseline's line, the regression checks and every
paired statistic cover the items both versions hold with the same
fingerprint. This is said once, as lines (``--details`` indents them, the
summaries list them) and as the record's ``compared`` object. Without a
scope there is nothing to say.
"""

from __future__ import annotations

from .._vocabulary import METRICS, RATE_METRICS
from ..formatting import format_count, format_fraction, format_id_list
from ._model import Lines, User

__all__ = ["NOT_COMPARED_REASONS", "coverage_lines", "coverage_record"]

#: Why an item is not compared, in the order the views list them.
NOT_COMPARED_REASONS = {
    "added": "added since the baseline was measured",
    "changed": "changed since the baseline was measured",
    "no result": "the baseline has no result for them",
}

#: Characters of one line the summaries show at most (a line may name a ledger path).
LINE_LIMIT = 1000


def _figures(evaluation, label: str) -> str:
    values = evaluation.shared_counts.values(label)
    parts = evaluation.shared_counts.parts(label)
    shown = []
    for metric in METRICS:
        if metric == "violations":
            shown.append(f"violations {values[metric]}")
            continue
        num, den = parts[metric]
        exact = f" ({num}/{den})" if den else ""
        shown.append(f"{metric} {format_fraction(values[metric])}{exact}")
    return f"{label}: " + " ".join(shown)


def coverage_lines(evaluation) -> Lines | None:
    """The lines saying which items each figure covers; None without a scope."""
    scope = evaluation.scope
    if scope is None:
        return None
    n_items = len(evaluation.data.golden_columns)
    compared = int(evaluation.shared.sum())
    lines = [
        (
            0,
            f"compared on {compared} of {format_count(n_items, 'golden item')}: the baseline is "
            f"{scope.source}",
        )
    ]
    for reason, words in NOT_COMPARED_REASONS.items():
        ids = scope.not_compared.get(reason, ())
        if ids:
            lines.append((1, f"not compared ({words}): {format_id_list(ids)}"))
    if scope.hint:
        lines.append((1, scope.hint))
    lines.append(
        (
            1,
            f"{evaluation.baseline}'s line, the regression checks and every paired figure cover "
            f"the {compared} compared items; {evaluation.candidate}'s line, its thresholds and "
            f"its violations cover all {n_items}",
        )
    )
    lines.append((1, "on the compared items:"))
    lines += [(2, _figures(evaluation, v)) for v in (evaluation.baseline, evaluation.candidate)]
    # Each line names labels, ids or a ledger path: user text, escaped whole by the summaries.
    return Lines(tuple((depth, (User(text, LINE_LIMIT),)) for depth, text in lines))


def coverage_record(evaluation) -> dict | None:
    """The same as a JSON-ready dict (exact numerators and denominators); None without a scope."""
    scope = evaluation.scope
    if scope is None:
        return None
    shared = evaluation.shared_counts
    return {
        "items": int(evaluation.shared.sum()),
        "of": len(evaluation.data.golden_columns),
        "baseline_source": scope.source,
        "not_compared": {
            reason: list(scope.not_compared.get(reason, ())) for reason in NOT_COMPARED_REASONS
        },
        "hint": scope.hint,
        "versions": {
            label: {
                **{
                    metric: dict(
                        zip(("numerator", "denominator"), shared.parts(label)[metric], strict=True)
                    )
                    for metric in RATE_METRICS
                },
                "violations": shared.values(label)["violations"],
            }
            for label in (evaluation.baseline, evaluation.candidate)
        },
    }
