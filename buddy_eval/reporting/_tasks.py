"""The tasks comparison's document: one builder for every view of ``buddy-eval tasks``.

It reads the computed comparison (per-run figures, the pairs, the paired
statistics, the check outcomes) and words it once: the readable text (the
``details`` view), the Markdown summary, the JUnit suites and the JSON
record. Nothing here scores or re-rounds; the JUnit mapping follows the
gate's:

- suite ``checks <label B>``: one test case per check of every golden task
  run B has a record for; a failure when the check fails, skipped when it is
  unknown (its reason as the message), passed otherwise;
- suite ``paired tasks``: one test case per golden task in both runs; a
  failure when run B scored lower than run A (a loss), skipped when the task
  has no score on one side, passed otherwise (a tie or a win).
"""

from __future__ import annotations

from collections.abc import Collection
from fractions import Fraction
from typing import TYPE_CHECKING

from .._phrases import (
    HOLM,
    HOLM_ADJUSTED_P,
    MCNEMAR,
    NOT_READY,
    READY,
    WILCOXON_SIGNED_RANK,
    count_of,
)
from ..formatting import format_diff, format_p_value, format_rate
from ._gate_summary import WARNING_LIMIT
from ._model import (
    ALL_VIEWS,
    DETAILS,
    HTML,
    JSON,
    JUNIT,
    MARKDOWN,
    Bullet,
    Bullets,
    Cell,
    Column,
    Document,
    IdList,
    Lines,
    Paragraph,
    Section,
    Suite,
    Table,
    TestCase,
    Text,
    User,
)
from ._tasks_record import run_figures, tasks_record, unpaired_ids
from ._tasks_tiers import tier_sections

if TYPE_CHECKING:
    from ..tasks._comparison import ComparisonResults

__all__ = ["TASKS_TITLE", "tasks_document"]

#: The heading of the tasks summary.
#:
#: Examples
#: --------
#: >>> from buddy_eval.reporting import TASKS_TITLE
#: >>> TASKS_TITLE
#: 'Buddy golden tasks'
TASKS_TITLE = "Buddy golden tasks"
#: Where a capped list of the summary sends the reader for the rest.
_WHERE_LISTED = "full list: `--format json`"
#: The summary views: they show the same sections.
_SUMMARIES = frozenset({MARKDOWN, HTML})
#: The golden tasks in both runs that the paired statistics leave out.
_UNSCORED = "in both runs but without a score on one side"
#: Why a record is left out of the comparison.
_EXCLUDED = "with a golden_id not in the golden set"


def _p(value) -> str:
    """A p-value in a table cell: ``0.750``, ``< 0.001``."""
    return format_p_value(value).removeprefix("= ")


def _line(depth: int, *parts: str | User | IdList) -> tuple[int, Text]:
    """One line of the text view at ``depth``."""
    return depth, parts


def _run_lines(comparison: ComparisonResults, index: int) -> list[tuple[int, Text]]:
    run = comparison.runs[index]
    f = run_figures(comparison, index)
    by_type = ", ".join(f"{t} {n}" for t, n in f["by_type"].items() if n)
    left_out = f"; {f['unscored_n']} with no measured check left out" if f["unscored_n"] else ""
    tasks = f"): {count_of(f['n'], 'golden task')} with a record"
    return [
        _line(0, f"run {'AB'[index]} (", User(run.label), ", ", User(run.source), tasks),
        _line(
            1,
            f"mean score {format_diff(f['mean_score'], 3, sign=False)} over "
            f"{count_of(f['scored_n'], 'scored task')}{left_out}",
        ),
        _line(
            1,
            f"all measured checks pass: {f['all_pass_n']} of {f['scored_n']} scored "
            f"({format_rate(f['all_pass_rate'])}); "
            f"fully measured: {f['fully_measured_n']} of {f['n']}",
        ),
        _line(
            1,
            f"unknown checks (in no denominator): {f['unknown_checks']} of {f['checks_n']}"
            + (f" ({by_type})" if by_type else ""),
        ),
    ]


def _paired_lines(comparison: ComparisonResults) -> list[tuple[int, Text]]:
    a, b = (User(label) for label in comparison.labels)
    p = comparison.paired
    pairs = count_of(p.n, "golden task")
    lines = [_line(0, "paired, ", b, " minus ", a, f": {pairs} scored in both runs")]
    if p.unscored_ids:
        lines.append(_line(1, f"{_UNSCORED}: ", IdList(p.unscored_ids)))
    lines += [
        _line(
            1,
            f"mean delta {format_diff(p.mean_delta, 3)}; ",
            b,
            f" higher {p.wins}, equal {p.ties}, lower {p.losses}; "
            f"fully measured in both: {p.fully_measured_n} of {p.n}",
        ),
        _line(
            1,
            "all measured checks pass: ",
            a,
            f" only {p.all_pass_a_only}, ",
            b,
            f" only {p.all_pass_b_only}, both {p.all_pass_both}, neither {p.all_pass_neither}",
        ),
    ]
    ready = f"({p.n} scored pairs, at least {p.min_n} needed)"
    if not p.ready_for_decision:
        return [*lines, _line(1, f"ready for decision: no {ready}; no significance computed")]
    return [
        *lines,
        _line(1, f"ready for decision: yes {ready}"),
        _line(
            1,
            f"{WILCOXON_SIGNED_RANK} p {format_p_value(p.p_value)} ({p.p_value_method}; "
            f"{HOLM_ADJUSTED_P} {format_p_value(p.p_value_holm)}); "
            f"sign test p {format_p_value(p.sign_test_p_value)}",
        ),
        _line(
            1,
            f"exact {MCNEMAR} on all pass p {format_p_value(p.mcnemar_p_value)} "
            f"({HOLM_ADJUSTED_P} {format_p_value(p.mcnemar_p_value_holm)})",
        ),
    ]


def _text_section(comparison: ComparisonResults) -> Section:
    """The readable comparison: the golden set, each run, the pairs, what was left out."""
    golden = comparison.golden
    checks = count_of(len(golden.checks), "check")
    unpaired: list[str | User | IdList] = ["unpaired: "]
    for label, ids in unpaired_ids(comparison).items():
        joined = ["; "] if len(unpaired) > 1 else []
        unpaired += [*joined, User(label), " only: ", IdList(tuple(ids))]
    lines: list[tuple[int, Text]] = [
        _line(0, f"golden tasks: {len(golden.tasks)} with {checks} (", User(golden.source), ")"),
        *_run_lines(comparison, 0),
        *_run_lines(comparison, 1),
        *_paired_lines(comparison),
        _line(0, *unpaired),
        _line(0, "missing from both runs: ", IdList(tuple(comparison.missing["golden_id"]))),
    ]
    if excluded := len(comparison.unmatched):
        lines.append(_line(0, f"excluded: {count_of(excluded, 'record')} {_EXCLUDED}"))
    return Section("comparison", None, (Lines(tuple(lines)),), frozenset({DETAILS}))


def _count_and_rate(value: tuple[int, Fraction | None]) -> str:
    return f"{value[0]} ({format_rate(value[1])})"


def _of(value: tuple[int, int]) -> str:
    return f"{value[0]} of {value[1]}"


def _runs_table(comparison: ComparisonResults) -> Table:
    columns = (
        Column("run", "run"),
        Column("n", "tasks"),
        Column("scored_n", "scored"),
        Column("mean_score", "mean score", lambda v: format_diff(v, 3, sign=False)),
        Column("all_pass", "all checks pass", _count_and_rate),
        Column("fully_measured_n", "fully measured"),
        Column("unknown_checks", "unknown checks", _of),
    )
    rows = []
    for index, run in enumerate(comparison.runs):
        f = run_figures(comparison, index)
        rows.append(
            (
                User(run.label),
                f["n"],
                f["scored_n"],
                f["mean_score"],
                (f["all_pass_n"], f["all_pass_rate"]),
                f["fully_measured_n"],
                (f["unknown_checks"], f["checks_n"]),
            )
        )
    return Table(columns, tuple(rows))


def _paired_table(comparison: ComparisonResults) -> Table:
    b = User(comparison.candidate)
    p = comparison.paired
    columns = (
        Column("mean_delta", "mean delta", lambda v: format_diff(v, 3)),
        Column("wins", (b, " higher")),
        Column("ties", "equal"),
        Column("losses", (b, " lower")),
        Column("p_value", "signed-rank p", _p),
        Column("p_value_holm", f"{HOLM} p", _p),
        Column("sign_test_p_value", "sign test p", _p),
        Column("mcnemar_p_value", f"{MCNEMAR} p (all pass)", _p),
    )
    p_values: tuple[float | Cell | None, ...] = (
        p.p_value,
        p.p_value_holm,
        p.sign_test_p_value,
        p.mcnemar_p_value,
    )
    if not p.ready:
        p_values = (Cell(None, NOT_READY), *(Cell(None, "-") for _ in range(3)))
    return Table(columns, ((p.mean_delta, p.wins, p.ties, p.losses, *p_values),))


def _listed(ids: list[str], lead: Text | str, empty: str = "") -> Bullet:
    parts = (IdList(tuple(ids), where=_WHERE_LISTED),) if ids else ()
    return Bullet(parts, lead=lead, empty=empty)


def _summary_sections(comparison: ComparisonResults) -> list[Section]:
    """The Markdown summary: readiness, a table per run, the paired table, the changed
    tasks, the tasks left out of the pairs (unscored on a side, unpaired, missing, excluded
    records) and the warnings."""
    a, b = (User(label) for label in comparison.labels)
    p = comparison.paired
    readiness = READY if p.ready else f"{NOT_READY} for a decision"
    lead = f"{p.n} golden tasks scored in both runs"
    needed = Paragraph((f"{readiness} (at least {p.min_paired} scored pairs needed).",), lead)
    pairs = comparison.pairs
    changed = [
        _listed(pairs.loc[pairs["change"] == change, "golden_id"].tolist(), (b, words), "none")
        for change, words in (("loss", " lower"), ("win", " higher"))
    ]
    unpaired = [
        _listed(ids, (User(label), " only")) for label, ids in unpaired_ids(comparison).items()
    ]
    unscored = _listed(list(p.unscored_ids), _UNSCORED)
    missing = _listed(comparison.missing["golden_id"].tolist(), "missing from both runs")
    listed = [*changed, *(entry for entry in (unscored, *unpaired, missing) if entry.parts)]
    if excluded := len(comparison.unmatched):
        listed.append(Bullet(((f"{count_of(excluded, 'record')} {_EXCLUDED}",),), "excluded"))
    sections = [
        Section("readiness", None, (needed, _runs_table(comparison)), _SUMMARIES),
        Section(
            "paired",
            ("Paired, ", b, " minus ", a),
            (_paired_table(comparison), Bullets(tuple(listed))),
            _SUMMARIES,
        ),
    ]
    sections += tier_sections(comparison, _SUMMARIES)
    if comparison.warnings:
        warned = tuple(Bullet(((User(w, WARNING_LIMIT),),)) for w in comparison.warnings)
        title = count_of(len(comparison.warnings), "warning")
        sections.append(Section("warnings", title, (Bullets(warned),), _SUMMARIES))
    return sections


def _score(passed: int, measured: int) -> str:
    """A task's score from its exact counts: ``0.67 (2 of 3 checks)``."""
    return f"{format_rate(Fraction(int(passed), int(measured)))} ({passed} of {measured} checks)"


def _suites(comparison: ComparisonResults) -> tuple[Suite, ...]:
    label_b = comparison.candidate
    checks = []
    outcomes = comparison.outcomes[comparison.outcomes["run"] == label_b]
    columns = ["golden_id", "check_index", "check_type", "outcome", "unknown_reason"]
    for golden_id, index, check_type, outcome, reason in outcomes[columns].itertuples(False):
        classname = f"buddy-eval.tasks.{golden_id}"
        name = f"{golden_id} check {index} {check_type}"
        if outcome == "fail":
            checks.append(TestCase(classname, name, "the check fails", str(check_type)))
        elif outcome == "unknown":
            checks.append(TestCase(classname, name, skipped=str(reason)))
        else:
            checks.append(TestCase(classname, name))
    paired, lower = [], f"{label_b} scored lower"
    columns = ["golden_id", "both_scored", "change", "passed_a", "measured_a"]
    columns += ["passed_b", "measured_b"]
    classname = "buddy-eval.tasks.paired"
    for golden_id, both_scored, change, *counts in comparison.pairs[columns].itertuples(False):
        if not both_scored:
            paired.append(TestCase(classname, golden_id, skipped="no score in one of the runs"))
        elif change == "loss":
            a, b = _score(*counts[:2]), _score(*counts[2:])
            paired.append(TestCase(classname, golden_id, lower, "loss", f"score {a} -> {b}"))
        else:
            paired.append(TestCase(classname, golden_id))
    return (Suite(f"checks {label_b}", tuple(checks)), Suite("paired tasks", tuple(paired)))


def tasks_document(comparison: ComparisonResults, views: Collection[str] = ALL_VIEWS) -> Document:
    """Everything the views of ``buddy-eval tasks`` show about ``comparison``.

    Parameters
    ----------
    comparison : TaskComparison
        See :func:`buddy_eval.tasks.compare_runs`.
    views : collection of str, optional
        The views to build for (``"details"``: the readable text,
        ``"markdown"``, ``"html"``, ``"junit"``, ``"json"``; all by default): a
        view not asked for costs nothing (the JUnit suites read every check).

    Returns
    -------
    Document
        ``kind`` ``"tasks"``; the text section (``details``), the summary
        sections, the ``checks <label B>`` and ``paired tasks`` JUnit suites,
        and the JSON record.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> from buddy_eval.reporting import render_markdown, render_text, tasks_document
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> document = tasks_document(cmp)
    >>> render_text(document) == cmp.report()
    True
    >>> print(render_markdown(document).splitlines()[2])
    **25 golden tasks scored in both runs**: ready for a decision (at least 20 scored pairs needed).
    >>> [suite.name for suite in document.suites], document.record["paired"]["wins"]
    (['checks tutor-v2', 'paired tasks'], 3)
    """
    views = frozenset(views)
    if unknown := views - ALL_VIEWS:
        raise ValueError(f"unknown view {sorted(unknown)[0]!r}; the views are {sorted(ALL_VIEWS)}")
    a, b = (User(label) for label in comparison.labels)
    sections = []
    if DETAILS in views:
        sections.append(_text_section(comparison))
        sections += tier_sections(comparison, {DETAILS})
    if views & _SUMMARIES:
        sections += _summary_sections(comparison)
    return Document(
        kind="tasks",
        title=(f"{TASKS_TITLE}: ", b, " against ", a),
        sections=tuple(sections),
        record=tasks_record(comparison) if JSON in views else {},
        suites=_suites(comparison) if JUNIT in views else (),
        suites_name=f"buddy-eval tasks {comparison.candidate}",
    )
