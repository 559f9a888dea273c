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
rounded by :mod:`buddy_eval.formatting`; ids are escaped as in the gate's
views (:func:`buddy_eval._markdown_report.markdown_escape`,
:func:`buddy_eval._junit_report.xml_text`).
"""

from __future__ import annotations

from fractions import Fraction
from xml.etree import ElementTree

from .._junit_report import junit_document, junit_suite, xml_text
from .._markdown_report import markdown_escape, markdown_ids, markdown_row
from ..formatting import format_diff, format_p_value, format_rate

__all__ = ["comparison_junit", "comparison_markdown"]

_WHERE_LISTED = "full list: `--format json`"



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
    raw_a, raw_b = comparison.labels
    label_a, label_b = markdown_escape(raw_a), markdown_escape(raw_b)
    p = comparison.paired
    ready = "ready for a decision" if p.ready else "not ready for a decision"
    lines = [
        f"## Buddy golden tasks: {label_b} against {label_a}",
        "",
        f"**{p.n} golden tasks scored in both runs**: {ready} "
        f"(at least {p.min_paired} scored pairs needed).",
        "",
        markdown_row(["run", "tasks", "scored", "mean score", "all checks pass", "fully measured",
                      "unknown checks"]),  # fmt: skip
        markdown_row(["---"] * 7),
    ]
    for label, row in zip((label_a, label_b), comparison.summary.itertuples(), strict=True):
        mean = row.mean_score
        all_pass = Fraction(int(row.all_pass_n), int(row.scored_n)) if row.scored_n else None
        lines.append(
            markdown_row([
                label,
                str(row.n),
                str(row.scored_n),
                "n/a" if mean is None or mean != mean else format_diff(mean, 3, sign=False),
                f"{row.all_pass_n} ({format_rate(all_pass)})",
                str(row.fully_measured_n),
                f"{row.unknown_checks} of {row.checks_n}",
            ])
        )  # fmt: skip
    lines += [
        "",
        f"### Paired, {label_b} minus {label_a}",
        "",
        markdown_row(["mean delta", f"{label_b} higher", "equal", f"{label_b} lower",
                      "signed-rank p", "Holm p", "sign test p", "McNemar p (all pass)"]),
        markdown_row(["---"] * 8),
        markdown_row([
            "n/a" if p.mean_delta is None else format_diff(p.mean_delta, 3),
            str(p.wins),
            str(p.ties),
            str(p.losses),
            _p(p.p_value) if p.ready else "not ready",
            _p(p.p_value_holm) if p.ready else "-",
            _p(p.sign_test_p_value) if p.ready else "-",
            _p(p.mcnemar_p_value) if p.ready else "-",
        ]),
        "",
    ]  # fmt: skip
    pairs = comparison.pairs
    for change, words in (("loss", f"{label_b} lower"), ("win", f"{label_b} higher")):
        ids = pairs.loc[pairs["change"] == change, "golden_id"].tolist()
        lines.append(f"- **{words}**: {markdown_ids(ids, _WHERE_LISTED) if ids else 'none'}")
    unpaired = comparison.unpaired
    for run, label in zip((raw_a, raw_b), (label_a, label_b), strict=True):
        ids = unpaired.loc[unpaired["run"] == run, "golden_id"].tolist()
        if ids:
            lines.append(f"- **{label} only**: {markdown_ids(ids, _WHERE_LISTED)}")
    missing = comparison.missing["golden_id"].tolist()
    if missing:
        lines.append(f"- **missing from both runs**: {markdown_ids(missing, _WHERE_LISTED)}")
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
    outcomes = comparison.outcomes
    mine = outcomes[outcomes["run"] == label_b]
    checks = []
    for row in mine.itertuples():
        case = ElementTree.Element(
            "testcase",
            classname=xml_text(f"buddy-eval.tasks.{row.golden_id}"),
            name=xml_text(f"{row.golden_id} check {row.check_index} {row.check_type}"),
            time="0",
        )
        if row.outcome == "fail":
            ElementTree.SubElement(case, "failure", message="the check fails", type=row.check_type)
        elif row.outcome == "unknown":
            reason = row.unknown_reason if isinstance(row.unknown_reason, str) else "unknown"
            ElementTree.SubElement(case, "skipped", message=xml_text(reason))
        checks.append(case)
    paired = []
    for row in comparison.pairs.itertuples():
        case = ElementTree.Element(
            "testcase", classname="buddy-eval.tasks.paired", name=xml_text(row.golden_id), time="0"
        )
        if not row.both_scored:
            ElementTree.SubElement(case, "skipped", message="no score in one of the runs")
        elif row.change == "loss":
            failure = ElementTree.SubElement(
                case, "failure", message=xml_text(f"{label_b} scored lower"), type="loss"
            )
            failure.text = xml_text(f"score {row.score_a} -> {row.score_b}")
        paired.append(case)
    root = ElementTree.Element("testsuites", name=xml_text(f"buddy-eval tasks {label_b}"))
    junit_suite(root, f"checks {label_b}", checks)
    junit_suite(root, "paired tasks", paired)
    return junit_document(root)
