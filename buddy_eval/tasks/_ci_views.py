"""The tasks comparison as a Markdown summary and as JUnit XML, like the gate's CI views.

The mapping to JUnit follows the gate's (one test case per check a record is
held to, failures exactly where a check fails):

- test suite ``checks <label B>``: one test case per check of every golden
  task run B has a record for; a failure when the check fails, skipped when
  it is unknown (its reason as the message), passed otherwise;
- test suite ``paired tasks``: one test case per golden task in both runs; a
  failure when run B scored lower than run A (a loss), skipped when the task
  has no score on one side, passed otherwise (a tie or a win).

Every figure is read from :class:`~buddy_eval.tasks.TaskComparison` and
rounded by :mod:`buddy_eval.formatting`; ids and labels are escaped as in the
gate's views (:func:`buddy_eval._markdown_report.markdown_escape`; the JUnit
document escapes every attribute and text, :func:`buddy_eval._junit_report.junit_document`).
"""

from __future__ import annotations

from fractions import Fraction
from xml.etree import ElementTree

from ..formatting import format_diff, format_p_value, format_rate, xml_text
from ..reporting._markdown import markdown_escape, markdown_ids, markdown_row
from ._report import _run_figures, _unpaired_ids

__all__ = ["comparison_junit", "comparison_markdown"]

_WHERE_LISTED = "full list: `--format json`"


def _score(passed: int, measured: int) -> str:
    """A task's score from its exact counts: ``0.67 (2 of 3 checks)``."""
    return f"{format_rate(Fraction(int(passed), int(measured)))} ({passed} of {measured} checks)"


def _p(value) -> str:
    return format_p_value(value).removeprefix("= ")


def comparison_markdown(comparison) -> str:
    """The comparison as GitHub-flavoured Markdown.

    Parameters
    ----------
    comparison : TaskComparison

    Returns
    -------
    str
        A heading naming both runs and whether the comparison is ready for a
        decision, a table per run (tasks, scored tasks, mean score, all-pass
        count and rate, fully measured, unknown checks), a table of the paired
        statistics, then the tasks B lost and won, unpaired and missing ids.
        Ends in a newline.
    """
    label_a, label_b = (markdown_escape(label) for label in comparison.labels)
    p = comparison.paired
    ready = "ready for a decision" if p.ready else "not ready for a decision"
    lines = [
        f"## Buddy golden tasks: {label_b} against {label_a}",
        "",
        f"**{p.n} golden tasks scored in both runs**: {ready} "
        f"(at least {p.min_paired} scored pairs needed).",
        "",
        markdown_row(
            [
                "run",
                "tasks",
                "scored",
                "mean score",
                "all checks pass",
                "fully measured",
                "unknown checks",
            ]
        ),
        markdown_row(["---"] * 7),
    ]
    for index, label in enumerate((label_a, label_b)):
        f = _run_figures(comparison, index)
        lines.append(
            markdown_row(
                [
                    label,
                    str(f["n"]),
                    str(f["scored_n"]),
                    format_diff(f["mean_score"], 3, sign=False),
                    f"{f['all_pass_n']} ({format_rate(f['all_pass_rate'])})",
                    str(f["fully_measured_n"]),
                    f"{f['unknown_checks']} of {f['checks_n']}",
                ]
            )
        )
    p_values = (p.p_value, p.p_value_holm, p.sign_test_p_value, p.mcnemar_p_value)
    p_cells = [_p(v) for v in p_values] if p.ready else ["not ready", "-", "-", "-"]
    lines += [
        "",
        f"### Paired, {label_b} minus {label_a}",
        "",
        markdown_row(
            [
                "mean delta",
                f"{label_b} higher",
                "equal",
                f"{label_b} lower",
                "signed-rank p",
                "Holm p",
                "sign test p",
                "McNemar p (all pass)",
            ]
        ),
        markdown_row(["---"] * 8),
        markdown_row(
            [format_diff(p.mean_delta, 3), str(p.wins), str(p.ties), str(p.losses), *p_cells]
        ),
        "",
    ]
    pairs = comparison.pairs
    for change, words in (("loss", f"{label_b} lower"), ("win", f"{label_b} higher")):
        ids = pairs.loc[pairs["change"] == change, "golden_id"].tolist()
        lines.append(f"- **{words}**: {markdown_ids(ids, _WHERE_LISTED) if ids else 'none'}")
    unpaired = _unpaired_ids(comparison).values()
    listed = {f"{label} only": ids for label, ids in zip((label_a, label_b), unpaired, strict=True)}
    listed["missing from both runs"] = comparison.missing["golden_id"].tolist()
    lines += [f"- **{k}**: {markdown_ids(ids, _WHERE_LISTED)}" for k, ids in listed.items() if ids]
    return "\n".join(lines) + "\n"


def comparison_junit(comparison) -> str:
    """The comparison as JUnit XML (see the module docstring for the mapping).

    Parameters
    ----------
    comparison : TaskComparison

    Returns
    -------
    str
        An XML document with a ``testsuites`` root holding the ``checks``
        and ``paired tasks`` suites, with ``tests``, ``failures``,
        ``errors`` and ``skipped`` counts.
    """
    label_b = comparison.labels[1]
    checks = []
    for row in comparison.outcomes[comparison.outcomes["run"] == label_b].itertuples():
        name = f"{row.golden_id} check {row.check_index} {row.check_type}"
        case = _case(f"buddy-eval.tasks.{row.golden_id}", name)
        if row.outcome == "fail":
            ElementTree.SubElement(case, "failure", message="the check fails", type=row.check_type)
        elif row.outcome == "unknown":
            ElementTree.SubElement(case, "skipped", message=row.unknown_reason)
        checks.append(case)
    paired, lower = [], f"{label_b} scored lower"
    for row in comparison.pairs.itertuples():
        case = _case("buddy-eval.tasks.paired", row.golden_id)
        if not row.both_scored:
            ElementTree.SubElement(case, "skipped", message="no score in one of the runs")
        elif row.change == "loss":
            failure = ElementTree.SubElement(case, "failure", message=lower, type="loss")
            failure.text = f"score {_score(row.passed_a, row.measured_a)} -> " + _score(
                row.passed_b, row.measured_b
            )
        paired.append(case)
    root = ElementTree.Element("testsuites", name=f"buddy-eval tasks {label_b}")
    junit_suite(root, f"checks {label_b}", checks)
    junit_suite(root, "paired tasks", paired)
    return junit_document(root)


def junit_suite(parent: ElementTree.Element, name: str, cases: list[ElementTree.Element]) -> None:
    """Add a ``testsuite`` of ``cases`` to ``parent``, with its counts."""
    suite = ElementTree.SubElement(parent, "testsuite", name=name, tests=str(len(cases)))
    for total, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(total, str(sum(case.find(tag) is not None for case in cases)))
    suite.extend(cases)


def _case(classname: str, name: str) -> ElementTree.Element:
    return ElementTree.Element("testcase", classname=classname, name=name, time="0")


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
