"""Checks of the golden items' keywords: none, weak, redundant, and duplicated items."""

from __future__ import annotations

from collections.abc import Iterator

from . import _messages as say
from ._diagnosis import Finding
from ._table import Limits, check_named

__all__ = ["keyword_findings"]


def _finding(name: str, ids, message: str) -> Finding:
    return Finding(name, check_named(name).severity, tuple(ids), message)


def keyword_findings(
    ids: list[str],
    is_answer: list[bool],
    sources: list[str | None],
    keywords: list[list[str]],
    limits: Limits,
) -> Iterator[Finding]:
    """``no-keywords``, ``weak-keyword``, ``redundant-keyword`` and ``duplicate-item``.

    Parameters
    ----------
    ids, is_answer, sources, keywords : list
        Per golden item, in golden order: its id, whether it is an ANSWER
        item, its required source and its keywords.
    limits : Limits
    """
    answers = [k for k, answer in enumerate(is_answer) if answer]
    bare = [ids[k] for k in answers if not keywords[k]]
    if bare:
        yield _finding("no-keywords", bare, say.no_keywords(len(bare)))

    weak: dict[str, list[str]] = {}  # folded keyword -> items, in golden order
    shown: dict[str, str] = {}
    for k in answers:
        for keyword in dict.fromkeys(w.casefold() for w in keywords[k]):
            if len(keyword) <= limits.weak_keyword_length or keyword in limits.common_words:
                weak.setdefault(keyword, []).append(ids[k])
        for word in keywords[k]:
            shown.setdefault(word.casefold(), word)
    for folded, items in weak.items():
        short = len(folded) <= limits.weak_keyword_length
        message = say.weak_keyword(shown[folded], short, limits.weak_keyword_length)
        yield _finding("weak-keyword", items, message)

    groups: dict[tuple, list[int]] = {}
    for k in answers:
        if keywords[k]:
            key = (sources[k], frozenset(w.casefold() for w in keywords[k]))
            groups.setdefault(key, []).append(k)
    for (source, _), members in groups.items():
        if len(members) > 1:
            message = say.duplicate_item(len(members), source or "")
            yield _finding("duplicate-item", (ids[k] for k in members), message)

    for k in answers:
        words = keywords[k]
        if len(words) < 2:
            continue
        folded = [w.casefold() for w in words]
        for a, word in enumerate(folded):
            inside = next(
                (
                    words[b]
                    for b, other in enumerate(folded)
                    if b != a and word in other and (word != other or b < a)
                ),
                None,
            )
            if inside is not None:
                message = say.redundant_keyword(ids[k], words[a], inside)
                yield _finding("redundant-keyword", (ids[k],), message)
                break
