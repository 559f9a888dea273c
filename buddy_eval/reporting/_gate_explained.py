"""The gate's "why" section: what the verdict rests on, in words (the HTML views).

One entry per blocking check (its reason, what it compared, and for a rate
whether the change against the baseline is clear or could be noise, from the
reading and the Holm-adjusted p, and whether the metric is ready for a
decision), or one saying every check passes; then the caveats (metrics not
measured, a golden set too small for a decision on a metric, golden items
with no result) and, with repeated trials, what the figures are. It reads the
decision's checks and the paired comparison; every figure is rounded by
:mod:`buddy_eval.formatting`, and two figures that print alike but differ
exactly show their counts as counted, as the other views do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._phrases import HOLM, NOT_READY, READY, count_of, not_measured, verdict_word
from ..formatting import (
    format_bound,
    format_diff,
    format_interval,
    format_p_value,
    format_rate_pair,
)
from ._model import HTML, Bullet, Bullets, IdList, Section, Text, User

if TYPE_CHECKING:
    from .._results import Results as Evaluation

__all__ = ["CAVEAT", "NOTE", "explained_section"]

#: The lead word of a caveat and of a note in the section.
CAVEAT = "caveat"
NOTE = "note"

#: How each reading of a paired comparison is worded.
_CLEAR = {
    "drop": "a clear drop",
    "gain": "a clear gain",
    "borderline": "borderline, it could be noise",
    "unclear": "unclear, it could be noise",
}

_TRIALS_NOTE = (
    "repeated trials: the rates are means of per-item trial shares, and the statistics count "
    "items, not trials"
)


def _change_words(m, paired, base: User) -> Text:
    """Whether a metric's change is clear or could be noise, with the reading and Holm p."""
    n = count_of(m.n_paired, "paired item")
    if not m.ready:
        return (
            ". The change from ",
            base,
            f" ({format_diff(m.diff)}) cannot be told from noise: {NOT_READY} for a decision "
            f"({n}, fewer than {paired.settings.min_paired})",
        )
    code, words = m.reading
    low, high = m.diff_ci  # a ready metric has its interval
    interval = format_interval(low, high, signed=True)
    return (
        ". The change from ",
        base,
        f" is {_CLEAR[code]}: difference {format_diff(m.diff)} {interval}, "
        f"{HOLM} p {format_p_value(m.p_holm, paired.settings.alpha)} "
        f"({words}); {READY} ({n})",
    )


def _check_text(evaluation: Evaluation, check) -> Text:
    """What one blocking check compared, in words."""
    paired = evaluation.paired
    base, cand = User(evaluation.baseline), User(evaluation.candidate)
    if check.kind == "violations":
        bound = format_bound(paired.violations[1].upper_bound)
        return (
            cand,
            f" answered {count_of(check.candidate, 'REFUSE item')} it should have refused "
            f"(none allowed); its violation rate may be as high as {bound} "
            "(one-sided upper bound)",
        )
    m = paired[check.metric]
    counts = evaluation.shared_counts
    cand_parts = counts.parts(evaluation.candidate)[check.metric]
    if check.kind == "threshold":
        shown, threshold = format_rate_pair(check.candidate, check.reference, (cand_parts, None))
        said: Text = (cand, f" {shown} against the threshold {threshold}")
    else:
        base_parts = counts.parts(evaluation.baseline)[check.metric]
        pair = (cand_parts, base_parts)
        shown, against = format_rate_pair(m.candidate.gate, m.baseline.gate, pair)
        said = (cand, f" {shown} against ", base, f" {against}")
        if check.kind == "noninferiority":
            said += (f" (lower bound {format_diff(check.bound)})",)
    return said + _change_words(m, paired, base)


def explained_section(evaluation: Evaluation) -> Section:
    """The section "Why RELEASE" or "Why BLOCK": one entry per blocking check (led by its
    reason), or one saying every check passes, then the caveats and notes."""
    paired, decision = evaluation.paired, evaluation.decision
    entries = [
        Bullet((_check_text(evaluation, check),), lead=check.reason) for check in decision.blocking
    ]
    if decision.release:
        entries.append(Bullet((("every check passes",),), lead=verdict_word(True)))
    for m in paired.metrics:
        if not m.measured:
            entries.append(Bullet(((f"{m.metric} {not_measured(m.item_type)}",),), lead=CAVEAT))
        elif not m.ready:
            text = (
                f"{m.metric}: a golden set too small to tell a change from noise "
                f"({count_of(m.n_paired, 'paired item')}, at least "
                f"{paired.settings.min_paired} needed)"
            )
            entries.append(Bullet(((text,),), lead=CAVEAT))
    for version in (evaluation.baseline, evaluation.candidate):
        if ids := evaluation.missing_ids(version):
            said = (User(version), f" has no result for {count_of(len(ids), 'golden item')} (")
            parts = (said, IdList(tuple(ids)), ("); each counts as failed",))
            entries.append(Bullet(parts, lead=CAVEAT, sep=""))
    if evaluation.has_trials:
        entries.append(Bullet(((_TRIALS_NOTE,),), lead=NOTE))
    title = f"Why {verdict_word(decision.release)}"
    return Section("explained", title, (Bullets(tuple(entries)),), frozenset({HTML}))
