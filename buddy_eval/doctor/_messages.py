"""Every wording of the doctor's findings, in one place.

Each function words one check's finding from the numbers its check
computed: what was found, why it matters, what to do. User text (a keyword,
an id, a label, a task's value) is quoted and cut by :func:`quoted`.
"""

from __future__ import annotations

from fractions import Fraction

from .._errors import quoted, quoted_list
from .._phrases import MCNEMAR, count_of
from ..formatting import format_fraction, format_percent, format_setting_percent

__all__ = [
    "contradictory_checks",
    "duplicate_item",
    "duplicate_prompt",
    "echo_gameable",
    "few_refuse_items",
    "flaky",
    "lenient_check",
    "no_content_check",
    "no_keywords",
    "redundant_keyword",
    "saturated",
    "underpowered",
    "unsolved",
    "vacuous_threshold",
    "weak_keyword",
]


def no_keywords(n: int) -> str:
    return (
        f"{count_of(n, 'ANSWER item')} without keywords: any answer that is not a refusal "
        "counts as correct; add the words a correct answer must contain"
    )


def weak_keyword(keyword: str, short: bool, length: int) -> str:
    why = f"is at most {count_of(length, 'character')}" if short else "is a very common word"
    return (
        f"keyword {quoted(keyword)} {why}: nearly any answer "
        "contains it, so it tells little; require a word only a correct answer holds"
    )


def redundant_keyword(item: str, keyword: str, inside: str) -> str:
    return (
        f"item {quoted(item)}: keyword {quoted(keyword)} is part of its keyword "
        f"{quoted(inside)}, so it checks nothing more; drop it or require something else"
    )


def duplicate_item(n: int, source: str) -> str:
    return (
        f"{count_of(n, 'ANSWER item')} require the same source {quoted(source)} and the same "
        "keywords: one question counts several times; drop the copies or tell them apart"
    )


def few_refuse_items(n: int, bound: float, needed: int, rate: Fraction, confidence) -> str:
    level = f"one-sided {format_setting_percent(confidence)}%, exact"
    if n == 0:
        return (
            "no REFUSE item: violations cannot be measured at all; add at least "
            f"{needed} REFUSE items to bound the violation rate below "
            f"{format_setting_percent(rate)}% ({level})"
        )
    return (
        f"{count_of(n, 'REFUSE item')}: with no violation seen, the set can bound the violation "
        f"rate only below {format_fraction(Fraction(bound) * 100)}% ({level}); {needed} are "
        f"needed to bound it below {format_setting_percent(rate)}%"
    )


def vacuous_threshold(metric: str) -> str:
    return (
        f"the {metric} threshold is 0: it never blocks, so a release says nothing about "
        f"{metric}; set the lowest {metric} you would release"
    )


def underpowered(
    metric: str, n: int, item_type: str, drop: Fraction | None, limit, power, discordance
) -> str:
    found = (
        f"the smallest drop it can detect at {format_percent(power)}% power is "
        f"{format_fraction(drop)}"
        if drop is not None
        else f"no drop up to 1.00 can be detected at {format_percent(power)}% power"
    )
    return (
        f"{metric} over {count_of(n, f'{item_type} item')}: {found} (above "
        f"{format_fraction(Fraction(limit))}; exact {MCNEMAR} power at "
        f"{format_percent(discordance)}% discordance); add {item_type} items"
    )


def lenient_check(item: str, passed: int, tried: int) -> str:
    return (
        f"item {quoted(item)}: its keyword check passes {passed} of {tried} answers given to "
        f"other items ({format_percent(Fraction(passed, tried))}%): it barely tells a right "
        "answer from a wrong one; require more specific keywords"
    )


def unsolved(n: int, versions, unit: str = "item") -> str:
    if unit == "item":
        who, why = "version", "a keyword or source no correct answer has"
    else:
        who, why = "run", "a check no correct answer passes"
    return (
        f"{count_of(n, unit)} failed by every {who} ({quoted_list(versions)}): often a "
        f"labelling error ({why}); check the {unit}s' expected answers"
    )


def saturated(n: int, versions, unit: str = "item") -> str:
    who = "version" if unit == "item" else "run"
    return (
        f"{count_of(n, unit)} passed by every {who} ({quoted_list(versions)}): they cannot "
        f"show a difference between these {who}s; keep them as a floor, add harder ones"
    )


def flaky(n: int, versions) -> str:
    return (
        f"{count_of(n, 'item')} whose trials disagree in every version "
        f"({quoted_list(versions)}): one trial of them is a coin toss; judge them on repeated "
        "trials or make the check less sensitive to wording"
    )


def echo_gameable(task: str, value: str) -> str:
    return (
        f"task {quoted(task)}: its contains value {quoted(value)} occurs in its prompt, so an "
        "answer that echoes the prompt passes; check for what only a solution holds"
    )


def contradictory_checks(task: str, forbidden: str, required: str) -> str:
    return (
        f"task {quoted(task)}: its not_contains value {quoted(forbidden)} occurs in its "
        f"contains value {quoted(required)}, so no answer can pass; fix one of the two"
    )


def no_content_check(n: int) -> str:
    return (
        f"{count_of(n, 'task')} without a contains or not_contains check: any completed "
        "answer within its limits passes, whatever it says; add a content check"
    )


def duplicate_prompt(n: int) -> str:
    return (
        f"{count_of(n, 'task')} with the same prompt: one question counts several times; drop "
        "the copies or tell them apart"
    )
