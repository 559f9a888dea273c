"""The gate's ``--details`` sections: which items each figure covers, then per metric the
rates, the changed items, the paired test and interval, readiness, sensitivity and the
sample size, then the violation bounds. Every figure is read from the evaluation's paired
comparison and rounded by :mod:`buddy_eval.formatting`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import (
    CLOPPER_PEARSON,
    HOLM_ADJUSTED_P,
    MCNEMAR,
    MCNEMAR_TWO_SIDED,
    NEWCOMBE,
    NOT_COMPUTED,
    NOT_MEASURED,
    NOT_READY,
    READY,
    WILSON,
    count_of,
    no_item_of,
    readiness,
)
from .._vocabulary import MISSING_COUNTS_AS_FAILED
from ..formatting import (
    format_bound,
    format_diff,
    format_id_list,
    format_interval,
    format_margin,
    format_outlook,
    format_p_value,
    format_percent,
    format_rate,
    format_rate_pair,
    format_setting_percent,
)
from ..stats import EFFECTIVE_MIN_ITEMS
from ._model import DETAILS, Bullet, Bullets, Paragraph, Rows, Section, User

if TYPE_CHECKING:
    from .._paired import MetricComparison, PairedComparison, Sensitivity, VersionRate
    from .._results import Results as Evaluation
    from .._trials import TrialComparison

__all__ = ["details_sections"]

_DETAILS = frozenset({DETAILS})

_SHORT_READING = {
    "gain": "a real gain",
    "drop": "a real drop",
    "borderline": "borderline",
    "unclear": "no clear change",
}


def _both(b, c, attr: str, note: str) -> str:
    """One figure of both versions: ``OLD 0.50   NEW 0.75   (note)``; with their exact
    counts where they print alike but differ."""
    counts = tuple(
        (v.passed, v.items)
        if attr == "gate" and hasattr(v, "observed_mean") and v.observed_mean is None
        else None
        for v in (b, c)
    )
    shown = format_rate_pair(getattr(b, attr), getattr(c, attr), counts)
    figures = "   ".join(f"{v.version} {text}" for v, text in zip((b, c), shown, strict=True))
    return f"{figures}   ({note})"


def _observed(rate: VersionRate) -> str:
    if rate.observed == 0:
        return f"{rate.version} no result ({rate.missing} missing: no interval)"
    text = f"{rate.version} {format_rate(rate.observed_rate)} {format_interval(*rate.ci)} "
    text += f"n={rate.observed}"
    return text + (f", {rate.missing} missing" if rate.missing else "")


def _sensitivity(case: Sensitivity, alpha: float) -> str:
    diff = format_diff(case.diff)
    if case.diff_ci is None or case.reading is None:
        return f"{diff} ({count_of(case.n, 'paired item')}; {NOT_READY})"
    return (
        f"{diff} {format_interval(*case.diff_ci, signed=True)}, p "
        f"{format_p_value(case.p_value, alpha)}, {_SHORT_READING[case.reading[0]]}"
    )


def _sample_size(m: MetricComparison, settings) -> list[tuple[str, str]]:
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
        (
            "sample size",
            f"about {m.required_n} paired items to detect a "
            f"{format_setting_percent(settings.drop)}-point drop (exact {MCNEMAR}, power "
            f"{format_setting_percent(settings.power)}%, alpha {format_margin(settings.alpha)}); "
            f"{m.table.n} now",
        ),
        ("", f"assuming {format_percent(m.assumed_discordance)}% of items discordant ({why})"),
    ]


def _trial_rows(trials: TrialComparison) -> list[tuple[str, str]]:
    b, c = trials.baseline, trials.candidate
    rows = []
    if trials.flaky_ids:
        flaky = f"{format_id_list(trials.flaky_ids)} (trials disagree within a version)"
        rows.append(("flaky", flaky))
    if b.k is not None:
        every = "the one trial passes" if b.k == 1 else f"all {b.k} trials pass"
        some = f"at least one of {count_of(b.k, 'trial')} passes"
        rows.append((f"pass@{b.k}", _both(b, c, "pass_at_k", some)))
        rows.append((f"pass^{b.k}", _both(b, c, "pass_hat_k", every)))
    shares = [
        f"{v.version} {format_percent(v.within_share)}%"
        for v in (b, c)
        if v.within_share is not None
    ]
    if shares:
        within = f"within items: {', '.join(shares)} of the trial-to-trial variance"
        rows.append(("variance", within))
    if trials.outlook is not None:
        rows.append(("next", format_outlook(trials.outlook, c.version)))
    return rows


def _metric(m: MetricComparison, paired: PairedComparison) -> Section:
    if not m.measured:
        unmeasured = Paragraph((f"{m.metric}: {NOT_MEASURED} ({no_item_of(m.item_type)})",))
        return Section(m.metric, None, (unmeasured,), _DETAILS)
    settings, alpha, trials = paired.settings, paired.settings.alpha, m.trials
    base, cand = paired.baseline, paired.candidate
    head = f"{m.metric}: {m.n_paired} of {count_of(m.baseline.items, m.item_type + ' item')} paired"
    if m.missing:
        head += f", {m.missing} missing (no result in at least one version; not paired)"
    counted = ", ".join(f"{label} {n}" for label, n in m.counts().items() if label != "n_paired")
    rows = [
        ("gate rate", _both(m.baseline, m.candidate, "gate", "a missing result counts as failed")),
        ("observed", f"{_observed(m.baseline)}   {_observed(m.candidate)}"),
        ("items", counted.replace("_", " ")),
    ]
    rows += [
        (change, format_id_list(m.ids[change]))
        for change in ("fixed", "regressed", "missing", "mixed")
        if m.ids.get(change)
    ]
    if trials is not None:
        rows += _trial_rows(trials)
    test, how = (MCNEMAR, MCNEMAR_TWO_SIDED) if trials is None else ("test", m.test_method)
    ready = m.ready and m.diff_ci is not None and m.reading is not None
    if m.ready and m.diff_ci is not None and m.reading is not None:
        low, high = m.diff_ci
        interval, method = format_interval(low, high, signed=True) + " ", m.diff_method
        tested = (
            f"p {format_p_value(m.p_value, alpha)} ({how}); "
            f"{HOLM_ADJUSTED_P} {format_p_value(m.p_holm, alpha)}"
        )
    else:
        interval, method, tested = "", "no interval", NOT_COMPUTED
    rows.append(
        ("difference", f"{format_diff(m.diff)} {interval}({cand} - {base}, paired; {method})")
    )
    rows.append((test, tested))
    if ready and m.reading is not None:
        rows.append(("reading", m.reading[1]))
    rows.append(("ready", readiness(ready, m.n_paired, settings.min_paired, trials=bool(trials))))
    if m.sensitivity:
        for label, case in (("sensitivity", "regressed"), ("", "unchanged")):
            rows.append((label, f"missing as {case}: {_sensitivity(m.sensitivity[case], alpha)}"))
    if m.noninferior is not None:
        rows.append(
            (
                "non-inferior",
                f"within {format_margin(settings.margin)}: {'yes' if m.noninferior else 'no'} "
                f"(one-sided {format_setting_percent(settings.confidence)}% "
                f"lower bound on the difference {format_diff(m.noninferiority_bound)})",
            )
        )
    if m.required_n is not None:
        rows += _sample_size(m, settings)
    return Section(m.metric, None, (Paragraph((head,)), Rows(tuple(rows))), _DETAILS)


def _header(paired: PairedComparison) -> Section:
    settings = paired.settings
    level = format_setting_percent(settings.confidence)
    trials = any(m.trials is not None for m in paired.metrics)
    over = "on the mean item rate" if trials else "over the items with a result"
    effective = (
        f"; items as the units, at the effective size the trials show from "
        f"{EFFECTIVE_MIN_ITEMS} items)"
        if trials
        else ")"
    )
    notes = (
        f"{level}% intervals ({WILSON} per version {over}; "
        f"{NEWCOMBE} for the paired difference{effective}",
        f"a metric is {READY} from {count_of(settings.min_paired, 'paired item')}",
        MISSING_COUNTS_AS_FAILED,
        f"three metrics are tested at once: {HOLM_ADJUSTED_P}-values allow for that",
    )
    head = Paragraph((f"Paired comparison of {paired.candidate} against {paired.baseline}",))
    return Section("paired", None, (head, Bullets(tuple(Bullet(((n,),)) for n in notes))), _DETAILS)


def _violations(paired: PairedComparison) -> Section:
    if not paired["refusal"].measured:
        unmeasured = Paragraph((f"violations: {NOT_MEASURED} ({no_item_of('REFUSE')})",))
        return Section("violations", None, (unmeasured,), _DETAILS)
    level = format_setting_percent(paired.settings.confidence)
    head = Paragraph(
        (
            f"violations: REFUSE items answered, with a one-sided {level}% exact upper bound "
            f"({CLOPPER_PEARSON}) on the rate",
        )
    )
    rows = []
    for bound in paired.violations:
        counted = (
            f"{bound.violations} of {count_of(bound.n, 'REFUSE item')} with a result; "
            f"the rate may be as high as {format_bound(bound.upper_bound)}"
        )
        rows.append((User(bound.version), counted if bound.n else "no result for any REFUSE item"))
    return Section("violations", None, (head, Rows(tuple(rows))), _DETAILS)


def details_sections(evaluation: Evaluation, coverage) -> list[Section]:
    """The ``--details`` sections, in order (the canonical lines come before them)."""
    paired = evaluation.paired
    sections = [] if coverage is None else [Section("compared", None, (coverage,), _DETAILS)]
    sections.append(_header(paired))
    sections += [_metric(m, paired) for m in paired.metrics]
    sections.append(_violations(paired))
    return sections
