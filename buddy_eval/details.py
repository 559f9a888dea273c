"""The readable statistics section of ``buddy-eval INPUT --details``.

:func:`details` computes (with :mod:`buddy_eval.stats`) and
:func:`format_details` formats; this is the only place where the statistics
are rounded. Rates, differences and intervals print with two decimals,
rounded half up like the canonical lines; p-values with three (``< 0.001``
below that).
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from .formatting import format_fraction
from .scoring import ITEM_TYPE_OF
from .stats import DEFAULT_MIN_PAIRED, changed_items, compare, violation_upper_bound

__all__ = ["MAX_LISTED_IDS", "details", "format_details"]

MAX_LISTED_IDS = 10


def _fmt(value, sign: bool = False) -> str:
    """A float or Fraction with two decimals, half up; ``n/a`` for NA."""
    if value is None or pd.isna(value):
        return "n/a"
    text = format_fraction(Fraction(value))
    if sign and value > 0 and text != "0.00":
        text = "+" + text
    return text


def _interval(low, high, sign: bool = False) -> str:
    return f"[{_fmt(low, sign)}, {_fmt(high, sign)}]"


def _p(value) -> str:
    if pd.isna(value):
        return "n/a"
    if value < 0.001:
        return "< 0.001"
    return "= " + format_fraction(Fraction(float(value)), 3)


def _reading(low, high) -> str:
    """What a ready metric's difference interval says, in words."""
    if high < 0:
        return "a real drop: the whole interval is below 0"
    if low > 0:
        return "a real improvement: the whole interval is above 0"
    return (
        f"no clear change: the interval includes 0 (a drop of up to {_fmt(-low)} is not ruled out)"
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _ids(ids: list[str], limit: int = MAX_LISTED_IDS) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def format_details(
    comparison: pd.DataFrame,
    changes: pd.DataFrame,
    bound: dict,
    *,
    baseline: str,
    candidate: str,
    min_paired: int = DEFAULT_MIN_PAIRED,
    confidence: float = 0.95,
    drop: float = 0.05,
    power: float = 0.80,
) -> str:
    """Format the statistics of :mod:`buddy_eval.stats` as readable text.

    Parameters
    ----------
    comparison : pandas.DataFrame
        :func:`buddy_eval.stats.compare`.
    changes : pandas.DataFrame
        :func:`buddy_eval.stats.changed_items`.
    bound : dict
        :func:`buddy_eval.stats.violation_upper_bound`.
    baseline, candidate : str
        Version labels.
    min_paired, confidence, drop, power
        The settings ``comparison`` was computed with (for the headings).

    Returns
    -------
    str
        The section, without a trailing newline.
    """
    level = format_fraction(Fraction(confidence) * 100, 0)
    lines = [
        f"Paired comparison of {candidate} against {baseline}",
        f"({level}% intervals; a metric is ready for a decision from {min_paired} paired items)",
    ]
    for row in comparison.itertuples(index=False):
        metric = str(row.metric)
        lines.append("")
        total = row.n_paired + row.missing
        item_type = ITEM_TYPE_OF[metric]
        if total == 0:
            lines.append(f"{metric}: not measured (the golden set has no {item_type} item)")
            continue
        head = f"{metric}: {row.n_paired} of {_count(total, item_type + ' item')} paired"
        if row.missing:
            head += f", {row.missing} missing in either version (not paired)"
        lines.append(head)
        lines.append(
            f"  rate         {baseline} {_fmt(row.baseline_rate)} "
            f"{_interval(row.baseline_ci_low, row.baseline_ci_high)}   "
            f"{candidate} {_fmt(row.candidate_rate)} "
            f"{_interval(row.candidate_ci_low, row.candidate_ci_high)}   (Wilson, n = {total})"
        )
        lines.append(
            f"  items        both pass {row.both_pass}, both fail {row.both_fail}, "
            f"fixed {row.fixed}, regressed {row.regressed}"
        )
        of_metric = changes[changes["metric"] == metric]
        for outcome in ("fixed", "regressed", "missing"):
            ids = of_metric.loc[of_metric["outcome"] == outcome, "item_id"].tolist()
            if ids:
                lines.append(f"  {outcome:<12} {_ids(ids)}")
        diff = Fraction(row.fixed - row.regressed, row.n_paired) if row.n_paired else None
        if row.ready_for_decision:
            lines.append(
                f"  difference   {_fmt(diff, sign=True)} "
                f"{_interval(row.diff_ci_low, row.diff_ci_high, sign=True)} "
                f"({candidate} - {baseline}, paired; Newcombe hybrid score)"
            )
            lines.append(f"  McNemar      p {_p(row.p_value)} (exact, two-sided)")
            lines.append(f"  reading      {_reading(row.diff_ci_low, row.diff_ci_high)}")
            lines.append("  ready        yes")
        else:
            lines.append(
                f"  difference   {_fmt(diff, sign=True)} ({candidate} - {baseline}, paired; "
                "no interval)"
            )
            lines.append("  McNemar      not computed")
            paired = _count(row.n_paired, "paired item") if row.n_paired else "no paired item"
            lines.append(
                f"  ready        NO: {paired}, fewer than {min_paired}; "
                "no p-value or difference interval"
            )
        if not pd.isna(row.required_n):
            lines.append(
                f"  sample size  about {row.required_n} paired items to detect a "
                f"{format_fraction(Fraction(drop) * 100, 0)}-point drop "
                f"(alpha {format_fraction(1 - Fraction(confidence))}, "
                f"power {format_fraction(Fraction(power) * 100, 0)}%; {row.n_paired} now)"
            )

    lines.append("")
    n, k = bound["n"], bound["violations"]
    refusal = comparison[comparison["metric"] == "refusal"]
    if int((refusal["n_paired"] + refusal["missing"]).sum()) == 0:
        lines.append("violations: not measured (the golden set has no REFUSE item)")
    elif n == 0:
        lines.append(f"violations: {bound['version']} has no result for any REFUSE item")
    else:
        lines.append(
            f"violations: {bound['version']} answered {k} of {_count(n, 'REFUSE item')} "
            "it has a result for"
        )
        lines.append(
            f"  its violation rate may be as high as {_fmt(bound['upper_bound'])} "
            f"(one-sided {level}% exact upper bound, Clopper-Pearson)"
        )
    return "\n".join(lines)


def details(
    evaluation,
    min_paired: int = DEFAULT_MIN_PAIRED,
    confidence: float = 0.95,
    drop: float = 0.05,
    power: float = 0.80,
) -> str:
    """The ``--details`` section for an evaluation (without the canonical lines).

    Parameters
    ----------
    evaluation : Evaluation
    min_paired, confidence, drop, power
        Passed to :func:`buddy_eval.stats.compare`.

    Returns
    -------
    str
        See :func:`format_details`.
    """
    return format_details(
        compare(evaluation, min_paired, confidence, drop, power),
        changed_items(evaluation),
        violation_upper_bound(evaluation, confidence=confidence),
        baseline=evaluation.baseline,
        candidate=evaluation.candidate,
        min_paired=min_paired,
        confidence=confidence,
        drop=drop,
        power=power,
    )
