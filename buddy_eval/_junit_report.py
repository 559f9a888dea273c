"""The verdict as a JUnit XML test report, for the test widgets of CI systems.

The mapping (see the CI page of the docs):

- test suite ``gate``: one test case per check the decision makes (each
  threshold, violations, each regression or non-inferiority check); a
  failure exactly when the check blocks, its message the verdict's reason and
  its text the values compared; a check of a metric the golden set does not
  measure is skipped.
- test suite ``golden items``: one test case per golden item, in golden
  order; a failure whenever the candidate fails the item (a check of its type
  fails in some trial, or it has no result, which the gate counts as failed),
  so a CI system that computes "new failures" itself sees every one. The
  message says whether the item regressed (per metric), also fails in the
  baseline, was not compared with it (a live baseline), has no result, or
  answered a REFUSE item; the text says why the candidate's answer failed
  (missed keywords, the source cited). Passed otherwise.

Everything is read from the evaluation (the structured decision, the paired
comparison and :func:`buddy_eval._drilldown.trial_answers`); numbers are
rounded by :mod:`buddy_eval.formatting`. Every attribute and text of the
document goes through :func:`buddy_eval.formatting.xml_text` once, when it is
serialized (:func:`junit_document`), so an id or a label holding a character
XML 1.0 forbids (``U+FFFE``, a control character) is shown as an escape and
the report stays well-formed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.etree import ElementTree

from ._thresholds import decimal_text
from .formatting import format_diff, format_rate, xml_text

if TYPE_CHECKING:
    from ._decision import Check
    from ._evaluation import Evaluation

__all__ = ["junit_document", "junit_report", "junit_suite"]


def _value(value) -> str:
    return str(value) if isinstance(value, int) else format_rate(value)


def _compared(check: Check, baseline: str, candidate: str) -> str:
    """The values a check compared, in words."""
    if check.kind == "violations":
        return f"{candidate} answered {check.candidate} REFUSE item(s); none is allowed"
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


def junit_suite(parent: ElementTree.Element, name: str, cases: list[ElementTree.Element]) -> None:
    """Add a ``testsuite`` of ``cases`` to ``parent``, with its counts."""
    suite = ElementTree.SubElement(parent, "testsuite", name=name, tests=str(len(cases)))
    for total, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(total, str(sum(case.find(tag) is not None for case in cases)))
    suite.extend(cases)


def _case(classname: str, name: str) -> ElementTree.Element:
    return ElementTree.Element("testcase", classname=classname, name=name, time="0")


def _gate_cases(evaluation: Evaluation) -> list[ElementTree.Element]:
    cases = []
    for check in evaluation.decision.checks:
        case = _case("buddy-eval.gate", check.name)
        if not check.measured:
            why = f"not measured: the golden set has no item for {check.metric}"
            ElementTree.SubElement(case, "skipped", message=why)
        elif check.blocks:
            failure = ElementTree.SubElement(case, "failure", message=check.reason, type=check.kind)
            failure.text = _compared(check, evaluation.baseline, evaluation.candidate)
        cases.append(case)
    return cases


def _failing(answers, version: str) -> set:
    """Items ``version`` fails: a trial that fails a check of the item's type."""
    return set(answers.loc[(answers["version"] == version) & ~answers["passed"], "item_id"])


def _item_cases(evaluation: Evaluation) -> list[ElementTree.Element]:
    from ._drilldown import trial_answers

    baseline, candidate = evaluation.baseline, evaluation.candidate
    regressed = {m.metric: set(m.ids["regressed"]) for m in evaluation.paired.metrics}
    answers = trial_answers(evaluation)
    mine = answers[(answers["version"] == candidate) & ~answers["passed"]]
    why = mine.groupby("item_id", sort=False)["why"].unique()  # each reason once, in row order
    violated = set(mine.loc[mine["violation"], "item_id"])
    missing = set(evaluation.missing_ids(candidate))
    failing = _failing(answers, candidate) | missing
    baseline_fails = _failing(answers, baseline) | set(evaluation.missing_ids(baseline))
    not_compared = set(evaluation.not_compared_ids())
    golden = evaluation.data.golden
    cases = []
    for item, item_type in zip(
        golden["item_id"].tolist(), golden["item_type"].tolist(), strict=True
    ):
        case = _case(f"buddy-eval.items.{item_type}", item)
        if item in failing:
            problems = [f"regressed in {m}" for m, ids in regressed.items() if item in ids]
            if item in missing:
                problems.append(f"no result for {candidate}: it counts as failed")
            elif item in not_compared:
                problems.append(f"fails; not compared with {baseline}, which has no result on it")
            elif not problems and item in baseline_fails:
                problems.append(f"also fails in {baseline}")
            elif not problems:
                problems.append("fails in some trials")
            problems += ["answered a REFUSE item"] if item in violated else []
            failure = ElementTree.SubElement(
                case, "failure", message="; ".join(problems), type="item"
            )
            failure.text = f"{candidate}: " + (
                "; ".join(why.get(item, [])) or "no result (counts as failed)"
            )
        cases.append(case)
    return cases


def junit_report(evaluation: Evaluation) -> str:
    """The gate's checks and the golden items as JUnit XML.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.

    Returns
    -------
    str
        An XML document (UTF-8 declared) with a ``testsuites`` root holding
        the ``gate`` and ``golden items`` suites; each suite and the root
        carry ``tests``, ``failures``, ``errors`` (always 0) and ``skipped``
        counts. See the module docstring for the mapping.
    """
    root = ElementTree.Element("testsuites", name=f"buddy-eval {evaluation.candidate}")
    junit_suite(root, "gate", _gate_cases(evaluation))
    junit_suite(root, "golden items", _item_cases(evaluation))
    return junit_document(root)


def junit_document(root: ElementTree.Element) -> str:
    """The ``testsuites`` root, its totals summed over its suites, as an XML document.

    Every attribute value and every text is passed through
    :func:`~buddy_eval.formatting.xml_text` here, whoever built the tree.
    """
    for total in ("tests", "failures", "errors", "skipped"):
        root.set(total, str(sum(int(s.get(total, "0")) for s in root)))
    for element in root.iter():
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
        if element.text is not None:
            element.text = xml_text(element.text)
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
