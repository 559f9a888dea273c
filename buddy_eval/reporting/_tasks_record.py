"""The tasks comparison's JSON record (``buddy-eval tasks --format json``).

Exact values as JSON holds them: a Fraction as a float, counts as ints, a
figure that was not computed as null. Nothing here scores or rounds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .._phrases import HOLM, MCNEMAR, WILCOXON_SIGNED_RANK

if TYPE_CHECKING:
    from ..tasks._comparison import ComparisonResults

__all__ = ["run_figures", "tasks_record", "unpaired_ids"]

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


def run_figures(comparison: ComparisonResults, index: int) -> dict[str, Any]:
    """Run ``index``'s exact figures (its summary row, the rates as Fractions) and
    ``by_type``: its unknown checks per check type, every type in order."""
    label = comparison.runs[index].label
    unknowns = comparison.unknowns[comparison.unknowns["run"] == label]  # every type, in order
    types = unknowns["check_type"].astype(str)
    return {
        **comparison.run_summaries[index],
        "by_type": dict(zip(types, unknowns["unknown"].tolist(), strict=True)),
    }


def unpaired_ids(comparison: ComparisonResults) -> dict[str, list[str]]:
    """Per label, in run order, the golden ids with a record in that run only."""
    ids = comparison.unpaired.groupby("run", observed=False)["golden_id"].agg(list)
    return {str(label): list(golden_ids) for label, golden_ids in ids.items()}


def _run_record(comparison: ComparisonResults, index: int) -> dict:
    run = comparison.runs[index]
    f = run_figures(comparison, index)
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


def tasks_record(comparison: ComparisonResults) -> dict:
    """The JSON object of ``buddy-eval tasks --format json`` (see
    :func:`buddy_eval.tasks.comparison_to_dict` for its keys)."""
    label_a, label_b = comparison.labels
    golden, p = comparison.golden, comparison.paired
    return {
        "golden": {
            "source": golden.source,
            "tasks": len(golden.tasks),
            "checks": len(golden.checks),
        },
        "runs": {label_a: _run_record(comparison, 0), label_b: _run_record(comparison, 1)},
        "paired": {
            "label_a": label_a,
            "label_b": label_b,
            **_attributes(p, "n", "present_n"),
            "unscored": list(p.unscored_ids),
            "mean_delta": _json_number(p.mean_delta),
            **_attributes(p, "wins", "ties", "losses", "fully_measured_n"),
            "all_pass": {cell: getattr(p, f"all_pass_{cell}") for cell in _ALL_PASS_CELLS},
            **_attributes(p, "ready_for_decision", "min_n", "p_value"),
            "test": f"{WILCOXON_SIGNED_RANK}, two-sided, on per-task score deltas",
            "p_value_method": p.p_value_method,
            "zero_method": "wilcox (zero deltas dropped)",
            **_attributes(p, "p_value_holm", "sign_test_p_value"),
            "sign_test": "exact two-sided binomial test on wins against losses (ties dropped)",
            "mcnemar_p_value": p.mcnemar_p_value,
            "mcnemar_test": f"exact {MCNEMAR} (two-sided binomial test) on all_pass",
            "mcnemar_p_value_holm": p.mcnemar_p_value_holm,
            "holm_method": f"{HOLM} step-down over the signed-rank and {MCNEMAR} p-values",
        },
        "unpaired": unpaired_ids(comparison),
        "missing": comparison.missing["golden_id"].tolist(),
        "warnings": list(comparison.warnings),
    }
