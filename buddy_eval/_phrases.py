"""Every wording that more than one view shows, written once.

The views (the canonical text, ``--details``, Markdown, JUnit, JSON, the HTML
report and the notebook tables) and the result objects that carry a sentence
(a readiness note, a test's method) read their words from here: verdict
words, readiness, method names, "not measured", capped id lists and plurals.
A test checks that none of these phrases is spelt in more than two modules.
This module imports nothing from the package but the vocabulary.
"""

from __future__ import annotations

from ._vocabulary import BLOCK, RELEASE

__all__ = [
    "ALSO_FAILS_IN",
    "CLOPPER_PEARSON",
    "CLOPPER_PEARSON_BOUND",
    "CLOPPER_PEARSON_EXACT",
    "HOLM",
    "HOLM_ADJUSTED_P",
    "HOLM_METHOD",
    "ITEMS_NOT_TRIALS",
    "MCNEMAR",
    "MCNEMAR_EXACT",
    "MCNEMAR_POWER",
    "MCNEMAR_TWO_SIDED",
    "NEWCOMBE",
    "NEWCOMBE_HYBRID",
    "NOT_COMPUTED",
    "NOT_MEASURED",
    "NOT_READY",
    "READY",
    "TOO_FEW_TO_TELL",
    "WILCOXON",
    "WILCOXON_SIGNED_RANK",
    "WILSON",
    "WILSON_SCORE",
    "and_more",
    "approximated_p",
    "count_of",
    "holm_across",
    "id_list",
    "no_item_of",
    "not_measured",
    "not_ready_reason",
    "readiness",
    "readiness_note",
    "reversal_warning",
    "verdict_line",
    "verdict_word",
]

#: The two verdict words, by ``release``.
_VERDICT_WORDS = {True: RELEASE, False: BLOCK}

#: Method names, as every view prints them.
MCNEMAR = "McNemar"
MCNEMAR_TWO_SIDED = "exact, two-sided"
MCNEMAR_EXACT = f"exact {MCNEMAR} (two-sided binomial test on discordant pairs)"
MCNEMAR_POWER = f"exact power of the exact {MCNEMAR} test"
NEWCOMBE = "Newcombe"
NEWCOMBE_HYBRID = f"{NEWCOMBE} hybrid score"
WILSON = "Wilson"
WILSON_SCORE = f"{WILSON} score, over the items with a result"
CLOPPER_PEARSON = "Clopper-Pearson"
CLOPPER_PEARSON_BOUND = f"{CLOPPER_PEARSON} exact one-sided upper bound"
CLOPPER_PEARSON_EXACT = f"exact one-sided upper bound ({CLOPPER_PEARSON})"
HOLM = "Holm"
HOLM_ADJUSTED_P = f"{HOLM}-adjusted p"
HOLM_METHOD = f"{HOLM} step-down over the metrics with a p-value"


def approximated_p(test: str) -> str:
    """Appended to a reading whose p-value is ``test``'s normal approximation, not exact.

    >>> approximated_p("sign-flip")
    ' (p from the normal approximation to the sign-flip test)'
    """
    return f" (p from the normal approximation to the {test} test)"


def holm_across(groups: str) -> str:
    """How the slices' (or tiers') p-values are adjusted; ``groups`` names them, plural.

    >>> holm_across("tiers")
    'p-values Holm-adjusted across the tiers within each metric'
    """
    return f"p-values {HOLM}-adjusted across the {groups} within each metric"


WILCOXON = "Wilcoxon"
WILCOXON_SIGNED_RANK = f"{WILCOXON} signed-rank"

#: Readiness, short forms.
READY = "ready for a decision"
NOT_READY = "not ready"
NOT_MEASURED = "not measured"
NOT_COMPUTED = "not computed"
TOO_FEW_TO_TELL = "too few items to tell"
ITEMS_NOT_TRIALS = "items are counted, not trials"
#: What a ledger says of a fact it was not asked to keep when it was recorded.
NOT_RECORDED = "not recorded"

#: Why an item the candidate fails is not a regression.
ALSO_FAILS_IN = "also fails in {baseline}"


def verdict_word(release: bool) -> str:
    """``RELEASE`` or ``BLOCK``.

    >>> verdict_word(True), verdict_word(False)
    ('RELEASE', 'BLOCK')
    """
    return _VERDICT_WORDS[bool(release)]


def verdict_line(release: bool, reasons=()) -> str:
    """The verdict on one line: ``RELEASE``, or ``BLOCK: reason; reason``.

    >>> verdict_line(True), verdict_line(False, ["refusal below threshold", "integrity violations"])
    ('RELEASE', 'BLOCK: refusal below threshold; integrity violations')
    """
    return RELEASE if release else f"{BLOCK}: " + "; ".join(reasons)


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """``1 paired item``, ``2 paired items``.

    >>> count_of(1, "paired item"), count_of(2, "paired item"), count_of(0, "copy", "copies")
    ('1 paired item', '2 paired items', '0 copies')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def and_more(n: int, where: str | None = None) -> str:
    """What follows a capped list: `` and 3 more``, or `` and 3 more (where)``; empty for 0.

    >>> and_more(3), and_more(3, "see --details"), and_more(0)
    (' and 3 more', ' and 3 more (see --details)', '')
    """
    if n <= 0:
        return ""
    return f" and {n} more" + (f" ({where})" if where else "")


def id_list(shown, total: int, *, where: str | None = None, empty: str = "none") -> str:
    """Ids already cut (and escaped) by the caller, joined, then how many more there are.

    >>> id_list(["a", "b"], 5), id_list([], 0)
    ('a, b and 3 more', 'none')
    """
    shown = list(shown)
    if not total:
        return empty
    return ", ".join(shown) + and_more(total - len(shown), where)


def no_item_of(item_type: str) -> str:
    """``the golden set has no REFUSE item``."""
    return f"the golden set has no {item_type} item"


def not_measured(item_type: str) -> str:
    """``not measured: the golden set has no REFUSE item``."""
    return f"{NOT_MEASURED}: {no_item_of(item_type)}"


def not_ready_reason(n_paired: int, min_paired: int, missing: int = 0) -> str:
    """Why a comparison with too few pairs has no p-value: ``9 paired items, fewer than 20``.

    >>> not_ready_reason(9, 20), not_ready_reason(0, 20)
    ('9 paired items, fewer than 20', 'no paired item, at least 20 needed')
    >>> not_ready_reason(9, 20, missing=1)
    '9 paired items, fewer than 20 (1 item missing in either version is not paired)'
    """
    if n_paired == 0:
        why = f"no paired item, at least {min_paired} needed"
    else:
        why = f"{count_of(n_paired, 'paired item')}, fewer than {min_paired}"
    if missing:
        verb = "is" if missing == 1 else "are"
        why += f" ({count_of(missing, 'item')} missing in either version {verb} not paired)"
    return why


def readiness_note(
    measured: bool, ready: bool, item_type: str, n_paired: int, min_paired: int, missing: int = 0
) -> str | None:
    """Why a metric has no p-value or difference interval; None when it is ready.

    >>> readiness_note(True, False, "REFUSE", 9, 20)
    'not ready: 9 paired items, fewer than 20; no p-value or difference interval computed'
    """
    if not measured:
        return not_measured(item_type)
    if ready:
        return None
    why = not_ready_reason(n_paired, min_paired, missing)
    return f"{NOT_READY}: {why}; no p-value or difference interval computed"


def readiness(ready: bool, n_paired: int, min_paired: int, *, trials: bool = False) -> str:
    """The ``ready`` line of ``--details``: ``yes`` or ``NO: 9 paired items, fewer than 20; ...``.

    >>> readiness(True, 31, 20), readiness(True, 31, 20, trials=True)
    ('yes', 'yes (items are counted, not trials)')
    >>> readiness(False, 9, 20)
    'NO: 9 paired items, fewer than 20; no p-value or difference interval'
    """
    if ready:
        return "yes" + (f" ({ITEMS_NOT_TRIALS})" if trials else "")
    paired = count_of(n_paired, "paired item") if n_paired else "no paired item"
    return f"NO: {paired}, fewer than {min_paired}; no p-value or difference interval"


def reversal_warning(metric: str, overall_rises: bool) -> str:
    """The tasks comparison's warning of a reversal across the tiers (Simpson's paradox).

    >>> reversal_warning("mean_score", True)  # doctest: +NORMALIZE_WHITESPACE
    "reversal in mean_score: the whole run rises while every measured tier falls (Simpson's
    paradox): unknown checks leave the denominator, so the tiers weigh differently in the two
    runs; read the tiers"
    """
    whole, tiers = ("rises", "falls") if overall_rises else ("falls", "rises")
    return (
        f"reversal in {metric}: the whole run {whole} while every measured tier {tiers} "
        "(Simpson's paradox): unknown checks leave the denominator, so the tiers weigh "
        "differently in the two runs; read the tiers"
    )
