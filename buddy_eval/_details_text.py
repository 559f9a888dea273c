"""The readable statistics section of ``buddy-eval INPUT --details``.

It formats :attr:`buddy_eval.Evaluation.paired` (computed once by
:mod:`buddy_eval._paired`); every number is rounded by
:mod:`buddy_eval.formatting`, nothing is computed here.
"""

from __future__ import annotations

from ._paired import MetricComparison, PairedComparison, Sensitivity, VersionRate
from ._trials import TrialComparison
from ._vocabulary import MISSING_COUNTS_AS_FAILED
from .formatting import (
    format_bound,
    format_count,
    format_diff,
    format_id_list,
    format_interval,
    format_margin,
    format_p_value,
    format_percent,
    format_rate,
    format_rate_pair,
    format_setting_percent,
)
from .stats import BOUND_RATE_METHOD, EFFECTIVE_MIN_ITEMS

__all__ = ["details", "format_details", "format_outlook"]

_SHORT_READING = {
    "gain": "a real gain",
    "drop": "a real drop",
    "borderline": "borderline",
    "unclear": "no clear change",
}


def _both(name: str, b, c, attr: str, note: str) -> str:
    """One figure of both versions: ``  name         OLD 0.50   NEW 0.75   (note)``; with
    their exact counts where they print alike but differ."""
    counts = tuple(
        (v.passed, v.items)
        if attr == "gate" and isinstance(v, VersionRate) and v.observed_mean is None
        else None
        for v in (b, c)
    )
    shown = format_rate_pair(getattr(b, attr), getattr(c, attr), counts)
    figures = "   ".join(f"{v.version} {text}" for v, text in zip((b, c), shown, strict=True))
    return f"  {name:<12} {figures}   ({note})"


def _observed(rate: VersionRate) -> str:
    if rate.observed == 0:
        return f"{rate.version} no result ({rate.missing} missing: no interval)"
    text = f"{rate.version} {format_rate(rate.observed_rate)} {format_interval(*rate.ci)} "
    text += f"n={rate.observed}"
    return text + (f", {rate.missing} missing" if rate.missing else "")


def _metric_lines(m: MetricComparison, paired: PairedComparison) -> list[str]:
    if not m.measured:
        return [f"{m.metric}: not measured (the golden set has no {m.item_type} item)"]
    settings, alpha, trials = paired.settings, paired.settings.alpha, m.trials
    base, cand = paired.baseline, paired.candidate
    items = format_count(m.baseline.items, m.item_type + " item")
    head = f"{m.metric}: {m.n_paired} of {items} paired"
    if m.missing:
        head += f", {m.missing} missing (no result in at least one version; not paired)"
    counted = ", ".join(f"{label} {n}" for label, n in m.counts().items() if label != "n_paired")
    lines = [
        head,
        _both("gate rate", m.baseline, m.candidate, "gate", "a missing result counts as failed"),
        f"  observed     {_observed(m.baseline)}   {_observed(m.candidate)}",
        f"  items        {counted.replace('_', ' ')}",
    ]
    for change in ("fixed", "regressed", "missing", "mixed"):
        if m.ids.get(change):
            lines.append(f"  {change:<12} {format_id_list(m.ids[change])}")
    if trials is not None:
        lines += _trial_lines(trials)
    test, how = ("McNemar", "exact, two-sided") if trials is None else ("test", m.test_method)
    if m.ready and m.diff_ci is not None and m.reading is not None:
        interval, method = format_interval(*m.diff_ci, signed=True) + " ", m.diff_method
        tested = (
            f"p {format_p_value(m.p_value, alpha)} ({how}); "
            f"Holm-adjusted p {format_p_value(m.p_holm, alpha)}"
        )
        reading = [f"  reading      {m.reading[1]}"]
        ready = "yes" + (" (items are counted, not trials)" if trials else "")
    else:
        interval, method, tested, reading = "", "no interval", "not computed", []
        paired_n = format_count(m.n_paired, "paired item") if m.n_paired else "no paired item"
        ready = (
            f"NO: {paired_n}, fewer than {settings.min_paired}; no p-value or difference interval"
        )
    lines.append(
        f"  difference   {format_diff(m.diff)} {interval}({cand} - {base}, paired; {method})"
    )
    lines += [f"  {test:<12} {tested}", *reading, f"  ready        {ready}"]
    if m.sensitivity:
        for head, case in (("sensitivity", "regressed"), ("", "unchanged")):
            result = _sensitivity(m.sensitivity[case], alpha)
            lines.append(f"  {head:<12} missing as {case}: {result}")
    if m.noninferior is not None:
        lines.append(
            f"  non-inferior within {format_margin(settings.margin)}: "
            f"{'yes' if m.noninferior else 'no'} "
            f"(one-sided {format_setting_percent(settings.confidence)}% "
            f"lower bound on the difference {format_diff(m.noninferiority_bound)})"
        )
    if m.required_n is not None:
        lines += _sample_size_lines(m, settings)
    return lines


def _sample_size_lines(m: MetricComparison, settings) -> list[str]:
    """How many paired items would detect the drop, and the discordance it assumes."""
    observed = m.observed_discordance
    if observed is None:
        why = "a conservative default while not ready"
    elif observed == m.assumed_discordance:
        why = "as observed"
    else:
        seen = "none" if observed == 0 else f"{format_percent(observed)}%"
        why = f"{seen} observed; the drop is the least discordance that can show it"
    return [
        f"  sample size  about {m.required_n} paired items to detect a "
        f"{format_setting_percent(settings.drop)}-point drop (exact McNemar, power "
        f"{format_setting_percent(settings.power)}%, alpha {format_margin(settings.alpha)}); "
        f"{m.table.n} now",
        f"{'':15}assuming {format_percent(m.assumed_discordance)}% of items discordant ({why})",
    ]


def _trial_lines(trials: TrialComparison) -> list[str]:
    b, c = trials.baseline, trials.candidate
    flaky = f"{format_id_list(trials.flaky_ids)} (trials disagree within a version)"
    lines = [f"  flaky        {flaky}"] if trials.flaky_ids else []
    if b.k is not None:
        every = "the one trial passes" if b.k == 1 else f"all {b.k} trials pass"
        some = f"at least one of {format_count(b.k, 'trial')} passes"
        lines.append(_both(f"pass@{b.k}", b, c, "pass_at_k", some))
        lines.append(_both(f"pass^{b.k}", b, c, "pass_hat_k", every))
    shares = [
        f"{v.version} {format_percent(v.within_share)}%"
        for v in (b, c)
        if v.within_share is not None
    ]
    if shares:
        lines.append(
            f"  variance     within items: {', '.join(shares)} of the trial-to-trial variance"
        )
    if trials.outlook is not None:
        lines.append(f"  next         {format_outlook(trials.outlook, c.version)}")
    return lines


def format_outlook(outlook, version: str) -> str:
    """The ``next`` line: what twice the items or twice the trials would do to the interval.

    The widths are those of ``version``'s printed interval (the ``observed``
    line) and of the same interval computed for the projected design
    (:func:`buddy_eval.stats.interval_outlook`), three decimals half up (more,
    up to six, when three would print two different widths alike).
    """
    now, items, trials = outlook.now, outlook.more_items, outlook.more_trials
    # Three decimals, more (up to six) when they would print two different widths alike.
    places = 3
    others = [ci.width for ci in (items, trials) if ci is not None and ci.width != now.width]
    while places < 6 and any(
        format_rate(w, places) == format_rate(now.width, places) for w in others
    ):
        places += 1
    width = format_rate(now.width, places)
    text = (
        f"{version}'s interval, {width} wide, would be about "
        f"{format_rate(items.width, places)} with twice the items"
    )
    if trials is None:
        return text + " (no item has two trials: the effect of more trials is not estimated)"
    after = format_rate(trials.width, places)
    if after != width:
        return f"{text}, {after} with twice the trials"
    if now.method != BOUND_RATE_METHOD:
        return f"{text}; twice the trials would not change it"
    why = (
        f"fewer than {EFFECTIVE_MIN_ITEMS} items"
        if (now.effective_n or 0) < EFFECTIVE_MIN_ITEMS
        else "too little spread between the items, or too few passes or failures"
    )
    return (
        f"{text}; twice the trials would not change it ({why}: the interval is the "
        "variance bound over the items, which only more items narrow)"
    )


def _sensitivity(case: Sensitivity, alpha: float) -> str:
    diff = format_diff(case.diff)
    if case.diff_ci is None or case.reading is None:
        return f"{diff} ({format_count(case.n, 'paired item')}; not ready)"
    return (
        f"{diff} {format_interval(*case.diff_ci, signed=True)}, p "
        f"{format_p_value(case.p_value, alpha)}, {_SHORT_READING[case.reading[0]]}"
    )


def format_details(paired: PairedComparison) -> str:
    """Format a :class:`~buddy_eval._paired.PairedComparison` as readable text.

    Returns
    -------
    str
        The section, without a trailing newline.
    """
    settings = paired.settings
    level = format_setting_percent(settings.confidence)
    trials = any(m.trials is not None for m in paired.metrics)
    over = "on the mean item rate" if trials else "over the items with a result"
    lines = [
        f"Paired comparison of {paired.candidate} against {paired.baseline}",
        f"- {level}% intervals (Wilson per version {over}; Newcombe for the paired difference"
        + (
            f"; items as the units, at the effective size the trials show from "
            f"{EFFECTIVE_MIN_ITEMS} items)"
            if trials
            else ")"
        ),
        "- a metric is ready for a decision from "
        + format_count(settings.min_paired, "paired item"),
        f"- {MISSING_COUNTS_AS_FAILED}",
        "- three metrics are tested at once: Holm-adjusted p-values allow for that",
    ]
    for m in paired.metrics:
        lines += ["", *_metric_lines(m, paired)]
    lines.append("")
    if not paired["refusal"].measured:
        return "\n".join([*lines, "violations: not measured (the golden set has no REFUSE item)"])
    lines.append(
        f"violations: REFUSE items answered, with a one-sided {level}% exact upper bound "
        "(Clopper-Pearson) on the rate"
    )
    for bound in paired.violations:
        counted = (
            f"{bound.violations} of {format_count(bound.n, 'REFUSE item')} with a result; "
            f"the rate may be as high as {format_bound(bound.upper_bound)}"
        )
        text = counted if bound.n else "no result for any REFUSE item"
        lines.append(f"  {bound.version:<12} {text}")
    return "\n".join(lines)


def details(evaluation) -> str:
    """The ``--details`` section for an evaluation (without the canonical lines).

    Parameters
    ----------
    evaluation : Evaluation
        Its :attr:`~buddy_eval.Evaluation.settings` say how the statistics
        were computed.

    Returns
    -------
    str
        See :func:`format_details`.
    """
    from ._coverage import coverage_lines

    head = coverage_lines(evaluation)
    text = format_details(evaluation.paired)
    return "\n".join(head) + "\n\n" + text if head else text
