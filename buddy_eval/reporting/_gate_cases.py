"""The gate as JUnit test cases: one per check of the decision, one per golden item.

A check that blocks fails, with the reason and the values it compared; a
check of a metric with no item is skipped. Every item the candidate fails is
a failure, a missing result included (GitLab and Jenkins compute "new
failures" themselves); the message says whether the item regressed, has no
result, or also fails in the baseline, and the text gives the candidate's
"why" of each failing trial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import quoted
from .._phrases import ALSO_FAILS_IN, HOLM, NOT_MEASURED, TOO_FEW_TO_TELL
from .._thresholds import decimal_text
from ..formatting import format_diff, format_p_value, format_rate
from ._gate_coverage import NOT_COMPARED_REASONS
from ._model import Suite, TestCase

if TYPE_CHECKING:
    from .._decision import Check
    from .._results import Results as Evaluation

__all__ = ["gate_suites"]


def _value(value) -> str:
    return str(value) if isinstance(value, int) else format_rate(value)


def _compared(check: Check, baseline: str, candidate: str) -> str:
    """The values a check compared, in words."""
    if check.kind == "violations":
        return f"{candidate} answered {check.candidate} REFUSE item(s); none is allowed"
    if check.kind == "slice":
        return (
            f"{candidate} - {baseline} {check.metric} on slice {quoted(check.slice)}: "
            f"{format_diff(check.candidate)}, beyond -{decimal_text(check.reference)}; "
            f"p {format_p_value(check.bound)} after {HOLM} across the slices"
        )
    if check.kind == "noninferiority":
        return (
            f"lower confidence bound on {candidate} - {baseline} {check.metric}: "
            f"{format_diff(check.bound)}, against -{decimal_text(check.reference)}"
        )
    against = "the threshold" if check.kind == "threshold" else baseline
    return (
        f"{candidate} {check.metric} {_value(check.candidate)} against {against} "
        f"{_value(check.reference)}"
    )


def _gate_cases(evaluation: Evaluation) -> tuple[TestCase, ...]:
    cases = []
    for check in evaluation.decision.checks:
        if not check.measured and check.kind == "slice":
            skipped = (
                f"{NOT_MEASURED}: {TOO_FEW_TO_TELL} on slice {quoted(check.slice)}; it could hide "
                f"a drop of up to {format_rate(check.hidden)} in the whole input's {check.metric}"
            )
            cases.append(TestCase("buddy-eval.gate", check.name, skipped=skipped))
        elif not check.measured:
            skipped = f"{NOT_MEASURED}: the golden set has no item for {check.metric}"
            cases.append(TestCase("buddy-eval.gate", check.name, skipped=skipped))
        elif check.blocks:
            detail = _compared(check, evaluation.baseline, evaluation.candidate)
            cases.append(TestCase("buddy-eval.gate", check.name, check.reason, check.kind, detail))
        else:
            cases.append(TestCase("buddy-eval.gate", check.name))
    return tuple(cases)


def _failing(answers, version: str) -> set:
    """Items ``version`` fails: a trial that fails a check of the item's type."""
    return set(answers.loc[(answers["version"] == version) & ~answers["passed"], "item_id"])


def _item_cases(evaluation: Evaluation) -> tuple[TestCase, ...]:
    baseline, candidate = evaluation.baseline, evaluation.candidate
    regressed = {m.metric: set(m.ids["regressed"]) for m in evaluation.paired.metrics}
    answers = evaluation.answers
    mine = answers[(answers["version"] == candidate) & ~answers["passed"]]
    why = mine.groupby("item_id", sort=False)["why"].unique()  # each reason once, in row order
    violated = set(mine.loc[mine["violation"], "item_id"])
    missing = set(evaluation.missing_ids(candidate))
    failing = _failing(answers, candidate) | missing
    baseline_fails = _failing(answers, baseline) | set(evaluation.missing_ids(baseline))
    scope = evaluation.scope
    why_not_compared = {
        item: NOT_COMPARED_REASONS[reason]
        for reason, ids in (scope.not_compared.items() if scope is not None else ())
        for item in ids
    }
    golden = evaluation.data.golden
    assignment = evaluation.slice_assignment
    slice_of = {} if assignment is None else assignment.of()
    cases = []
    for item, item_type in zip(
        golden["item_id"].tolist(), golden["item_type"].tolist(), strict=True
    ):
        classname = f"buddy-eval.items.{item_type}"
        properties = (("slice", slice_of[item]),) if item in slice_of else ()
        if item not in failing:
            cases.append(TestCase(classname, item, properties=properties))
            continue
        problems = [f"regressed in {m}" for m, ids in regressed.items() if item in ids]
        if item in missing:
            problems.append(f"no result for {candidate}: it counts as failed")
        elif item in why_not_compared:
            problems.append(f"fails; not compared with {baseline}: {why_not_compared[item]}")
        elif not problems and item in baseline_fails:
            problems.append(ALSO_FAILS_IN.format(baseline=baseline))
        elif not problems:
            problems.append("fails in some trials")
        problems += ["answered a REFUSE item"] if item in violated else []
        detail = f"{candidate}: " + ("; ".join(why.get(item, [])) or "no result (counts as failed)")
        cases.append(
            TestCase(classname, item, "; ".join(problems), "item", detail, properties=properties)
        )
    return tuple(cases)


def gate_suites(evaluation: Evaluation) -> tuple[Suite, ...]:
    """The ``gate`` and ``golden items`` suites."""
    return (
        Suite("gate", _gate_cases(evaluation)),
        Suite("golden items", _item_cases(evaluation)),
    )
