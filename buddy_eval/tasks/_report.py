"""Format a :class:`~buddy_eval.tasks._comparison.TaskComparison`: readable text and JSON.

Nothing is computed here that changes a figure; this is the only place where
numbers are rounded (half up, from the exact fractions).
"""

from __future__ import annotations

from fractions import Fraction

from ..formatting import format_count, format_diff, format_id_list, format_p_value, format_rate
from ._scoring import _exact_run_summary

__all__ = ["comparison_to_dict", "format_comparison"]

#: The check counts of a run's summary row, in the order of the JSON's ``checks``.
_CHECK_COUNTS = ("checks_n", "passed_checks", "failed_checks", "unknown_checks")
#: The ``all_pass`` cells of the JSON object.
_ALL_PASS_CELLS = ("a_only", "b_only", "both", "neither")


def _json_number(value):
    """A figure as JSON holds it: an exact fraction as a float; ints and None as they are."""
    return float(value) if isinstance(value, Fraction) else value


def _attributes(obj, *names: str) -> dict:
    """``{name: obj.name}`` for each name, in order: figures the JSON shows under their own name."""
    return {name: getattr(obj, name) for name in names}


def _run_figures(comparison, index: int) -> dict:
    """Run ``index``'s figures as every view shows them, exact.

    The run's summary row (:func:`~buddy_eval.tasks._scoring.summarize_runs`)
    with ``mean_score`` and ``all_pass_rate`` as Fractions (None when no task
    is scored), and ``by_type``: unknown checks per check type, every type in
    order.
    """
    label = comparison.runs[index].label
    unknowns = comparison.unknowns[comparison.unknowns["run"] == label]  # every type, in order
    types = unknowns["check_type"].astype(str)
    return {
        **_exact_run_summary(comparison.scores, label),
        "by_type": dict(zip(types, unknowns["unknown"].tolist(), strict=True)),
    }


def _unpaired_ids(comparison) -> dict[str, list[str]]:
    """Per label, in run order, the golden ids with a record in that run only."""
    return comparison.unpaired.groupby("run", observed=False)["golden_id"].agg(list).to_dict()


def _run_lines(comparison, index: int) -> list[str]:
    run = comparison.runs[index]
    f = _run_figures(comparison, index)
    by_type = ", ".join(f"{t} {n}" for t, n in f["by_type"].items() if n)
    return [
        f"run {'AB'[index]} ({run.label}, {run.source}): "
        f"{format_count(f['n'], 'golden task')} with a record",
        f"  mean score {format_diff(f['mean_score'], 3, sign=False)} over "
        f"{format_count(f['scored_n'], 'scored task')}"
        + (f"; {f['unscored_n']} with no measured check left out" if f["unscored_n"] else ""),
        f"  all measured checks pass: {f['all_pass_n']} of {f['scored_n']} scored "
        f"({format_rate(f['all_pass_rate'])}); fully measured: {f['fully_measured_n']} of {f['n']}",
        f"  unknown checks (in no denominator): {f['unknown_checks']} of {f['checks_n']}"
        + (f" ({by_type})" if by_type else ""),
    ]


def format_comparison(comparison) -> str:
    """The readable comparison, without a trailing newline.

    One block per run (tasks, mean score, all-pass count and rate beside the
    fully measured count, unknown checks per type), the paired block (n,
    mean delta B minus A, wins/ties/losses, readiness and, when ready, the
    p-values), then unpaired and missing golden tasks.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> text = tasks.format_comparison(cmp)
    >>> text == cmp.report()
    True
    >>> print("\\n".join(text.splitlines()[:5]))
    golden tasks: 31 with 99 checks (data/golden-tasks.example.json)
    run A (tutor-v1, data/run-a.example.json): 28 golden tasks with a record
      mean score 0.929 over 27 scored tasks; 1 with no measured check left out
      all measured checks pass: 23 of 27 scored (0.85); fully measured: 23 of 28
      unknown checks (in no denominator): 6 of 90 (max_tokens 3, max_cost_usd 3)
    """
    golden = comparison.golden
    label_a, label_b = comparison.labels
    p = comparison.paired
    lines = [
        f"golden tasks: {len(golden.tasks)} with {format_count(len(golden.checks), 'check')} "
        f"({golden.source})",
        *_run_lines(comparison, 0),
        *_run_lines(comparison, 1),
        f"paired, {label_b} minus {label_a}: "
        f"{format_count(p.n, 'golden task')} scored in both runs",
    ]
    if p.unscored_ids:
        lines.append(
            "  in both runs but without a score on one side: " + format_id_list(p.unscored_ids)
        )
    lines += [
        f"  mean delta {format_diff(p.mean_delta, 3)}; {label_b} higher {p.wins}, equal {p.ties}, "
        f"lower {p.losses}; fully measured in both: {p.fully_measured_n} of {p.n}",
        f"  all measured checks pass: {label_a} only {p.all_pass_a_only}, {label_b} only "
        f"{p.all_pass_b_only}, both {p.all_pass_both}, neither {p.all_pass_neither}",
    ]
    ready = f"({p.n} scored pairs, at least {p.min_n} needed)"
    if p.ready_for_decision:
        lines += [
            f"  ready for decision: yes {ready}",
            f"  Wilcoxon signed-rank p {format_p_value(p.p_value)} ({p.p_value_method}; "
            f"Holm-adjusted p {format_p_value(p.p_value_holm)}); "
            f"sign test p {format_p_value(p.sign_test_p_value)}",
            f"  exact McNemar on all pass p {format_p_value(p.mcnemar_p_value)} "
            f"(Holm-adjusted p {format_p_value(p.mcnemar_p_value_holm)})",
        ]
    else:
        lines.append(f"  ready for decision: no {ready}; no significance computed")
    unpaired = _unpaired_ids(comparison).items()
    lines += [
        "unpaired: " + "; ".join(f"{label} only: {format_id_list(ids)}" for label, ids in unpaired),
        f"missing from both runs: {format_id_list(comparison.missing['golden_id'].tolist())}",
    ]
    if excluded := len(comparison.unmatched):
        lines.append(
            f"excluded: {format_count(excluded, 'record')} with a golden_id not in the golden set"
        )
    return "\n".join(lines)


def _run_dict(comparison, index: int) -> dict:
    run = comparison.runs[index]
    f = _run_figures(comparison, index)
    checks = [f[name] for name in _CHECK_COUNTS]
    return {
        "run": "AB"[index],
        "source": run.source,
        "records": len(run.records),
        "excluded_records": int((comparison.unmatched["run"] == run.label).sum()),
        # The summary row's other figures, in its order.
        **{k: _json_number(v) for k, v in f.items() if k not in (*_CHECK_COUNTS, "by_type")},
        "checks": dict(zip(("total", "passed", "failed", "unknown"), checks, strict=True)),
        "unknown_checks": f["unknown_checks"],
        "unknown_checks_by_type": f["by_type"],
        "models": [str(m) for m in run.records["model"].dropna().unique().tolist()],
    }


def comparison_to_dict(comparison) -> dict:
    """The ``--json`` object.

    Returns
    -------
    dict
        ``golden`` (source, tasks, checks); ``runs`` keyed by label, each
        with ``run`` (A/B), ``source``, ``records``, ``excluded_records``,
        ``n``, ``scored_n``, ``unscored_n``, ``mean_score`` (null when no
        task is scored), ``all_pass_n``, ``all_pass_rate``,
        ``fully_measured_n``, ``checks`` (total/passed/failed/unknown),
        ``unknown_checks`` (a count), ``unknown_checks_by_type``, ``models``;
        ``paired`` with ``label_a``, ``label_b``, ``n``, ``present_n``,
        ``unscored``, ``mean_delta`` (B minus A; null when n is 0),
        ``wins``/``ties``/``losses`` (B against A), ``fully_measured_n``,
        ``all_pass`` (a_only/b_only/both/neither), ``ready_for_decision``,
        ``min_n``, ``p_value`` and ``mcnemar_p_value`` (null when not
        ready), ``test``, ``mcnemar_test``; ``unpaired`` (per label, the
        golden ids in that run only); ``missing`` (golden ids in neither);
        ``warnings``.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> cmp = tasks.compare_runs("data/golden-tasks.example.json", "data/run-a.example.json",
    ...                          "data/run-b.example.json", "tutor-v1", "tutor-v2")
    >>> found = tasks.comparison_to_dict(cmp)
    >>> found["paired"]["n"], found["paired"]["mean_delta"], found["paired"]["ready_for_decision"]
    (25, -0.01, True)
    >>> found["runs"]["tutor-v1"]["unknown_checks_by_type"]["max_tokens"], found["missing"]
    (3, ['jv-29', 'jv-30'])
    """
    label_a, label_b = comparison.labels
    golden, p = comparison.golden, comparison.paired
    return {
        "golden": {
            "source": golden.source,
            "tasks": len(golden.tasks),
            "checks": len(golden.checks),
        },
        "runs": {label_a: _run_dict(comparison, 0), label_b: _run_dict(comparison, 1)},
        "paired": {
            "label_a": label_a,
            "label_b": label_b,
            **_attributes(p, "n", "present_n"),
            "unscored": list(p.unscored_ids),
            "mean_delta": _json_number(p.mean_delta),
            **_attributes(p, "wins", "ties", "losses", "fully_measured_n"),
            "all_pass": {cell: getattr(p, f"all_pass_{cell}") for cell in _ALL_PASS_CELLS},
            **_attributes(p, "ready_for_decision", "min_n", "p_value"),
            "test": "Wilcoxon signed-rank, two-sided, on per-task score deltas",
            "p_value_method": p.p_value_method,
            "zero_method": "wilcox (zero deltas dropped)",
            **_attributes(p, "p_value_holm", "sign_test_p_value"),
            "sign_test": "exact two-sided binomial test on wins against losses (ties dropped)",
            "mcnemar_p_value": p.mcnemar_p_value,
            "mcnemar_test": "exact McNemar (two-sided binomial test) on all_pass",
            "mcnemar_p_value_holm": p.mcnemar_p_value_holm,
            "holm_method": "Holm step-down over the signed-rank and McNemar p-values",
        },
        "unpaired": _unpaired_ids(comparison),
        "missing": comparison.missing["golden_id"].tolist(),
        "warnings": list(comparison.warnings),
    }
