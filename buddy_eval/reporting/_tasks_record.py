"""The tasks comparison's JSON record (``buddy-eval tasks --format json``).

Exact values as JSON holds them: a Fraction as a float, counts as ints, a
figure that was not computed as null. Nothing here scores or rounds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .._phrases import HOLM, MCNEMAR, WILCOXON_SIGNED_RANK
from ._slice_table import SLICE_HOLM_METHOD

if TYPE_CHECKING:
    from ..tasks._comparison import ComparisonResults
    from ..tasks._paired_summary import PairedSummary

__all__ = [
    "TASKS_FORMAT_VERSION",
    "paired_record",
    "run_figures",
    "tasks_record",
    "tiers_record",
    "unpaired_ids",
]

#: The version of the tasks JSON (``format_version``): bumped whenever a key is added,
#: removed or changes meaning (``1``: ``format_version`` and the per-tier ``slices``).
TASKS_FORMAT_VERSION = 1

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


def _run_figures_record(f: dict) -> dict:
    """A run's summary figures (of the whole run or of one tier) as the JSON holds them."""
    checks = [f[name] for name in _CHECK_COUNTS]
    return {
        # The summary row's other figures, in its order.
        **{k: _json_number(v) for k, v in f.items() if k not in (*_CHECK_COUNTS, "by_type")},
        "checks": dict(zip(("total", "passed", "failed", "unknown"), checks, strict=True)),
        "unknown_checks": f["unknown_checks"],
    }


def _run_record(comparison: ComparisonResults, index: int) -> dict:
    run = comparison.runs[index]
    f = run_figures(comparison, index)
    return {
        "run": "AB"[index],
        "source": run.source,
        "records": len(run.records),
        "excluded_records": int((comparison.unmatched["run"] == run.label).sum()),
        **_run_figures_record(f),
        "unknown_checks_by_type": f["by_type"],
        "models": [str(m) for m in run.records["model"].dropna().unique().tolist()],
    }


def paired_record(p: PairedSummary, label_a: str, label_b: str) -> dict:
    """The paired statistics (of the whole run or of one tier) as the JSON holds them."""
    return {
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
    }


def tasks_record(comparison: ComparisonResults) -> dict:
    """The JSON object of ``buddy-eval tasks --format json`` (see
    :func:`buddy_eval.tasks.comparison_to_dict` for its keys)."""
    label_a, label_b = comparison.labels
    golden, p = comparison.golden, comparison.paired
    return {
        "format_version": TASKS_FORMAT_VERSION,
        "golden": {
            "source": golden.source,
            "tasks": len(golden.tasks),
            "checks": len(golden.checks),
        },
        "runs": {label_a: _run_record(comparison, 0), label_b: _run_record(comparison, 1)},
        "paired": paired_record(p, label_a, label_b),
        "unpaired": unpaired_ids(comparison),
        "missing": comparison.missing["golden_id"].tolist(),
        "warnings": list(comparison.warnings),
        "slices": tiers_record(comparison),
    }


def _interval(ci) -> list[float] | None:
    return None if ci is None else [float(ci[0]), float(ci[1])]


def tiers_record(comparison: ComparisonResults) -> dict:
    """Per golden tier: its tasks, and the ``runs`` and ``paired`` objects the whole run has;
    per metric, the tier's ``comparison`` (the difference, its interval and test, the p-value
    Holm-adjusted across the tiers, the reading, and what a tier too small to tell could hide)."""
    label_a, label_b = comparison.labels
    out = {}
    for tier in comparison.tiers.tiers:
        metrics = {}
        for m in tier.metrics:
            metrics[m.metric] = {
                **_attributes(m, "n_paired", "fixed", "regressed", "missing"),
                "baseline_rate": _json_number(m.baseline_rate),
                "candidate_rate": _json_number(m.candidate_rate),
                "diff": _json_number(m.diff),
                "diff_ci": _interval(m.diff_ci),
                "diff_ci_method": m.diff_ci_method,
                "p_value": m.p_value,
                "p_value_holm_across_slices": m.p_value_holm_across_slices,
                "p_value_holm_across_slices_method": SLICE_HOLM_METHOD,
                "ready_for_decision": m.ready,
                **dict(zip(("reading", "reading_text"), m.reading or (None, None), strict=True)),
                "could_hide": _json_number(m.could_hide),
            }
        out[tier.name] = {
            "tasks": tier.tasks,
            "runs": {
                label: _run_figures_record(figures)
                for label, figures in zip((label_a, label_b), tier.run_summaries, strict=True)
            },
            "paired": paired_record(tier.paired, label_a, label_b),
            "comparison": metrics,
        }
    return out
