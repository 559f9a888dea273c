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
    # Every keyword case-folded once: matching is case-insensitive.
    folded = {k: [w.casefold() for w in keywords[k]] for k in answers if keywords[k]}

    weak: dict[str, list[str]] = {}  # folded keyword -> items, in golden order
    shown: dict[str, str] = {}
    common, length = limits.common_words, limits.weak_keyword_length
    for k, words in folded.items():
        for a, word in enumerate(words):
            if len(word) <= length or word in common:
                items = weak.setdefault(word, [])
                if not items or items[-1] != ids[k]:
                    items.append(ids[k])
                shown.setdefault(word, keywords[k][a])
    for word, items in weak.items():
        message = say.weak_keyword(shown[word], len(word) <= length, length)
        yield _finding("weak-keyword", items, message)

    groups: dict[tuple, list[int]] = {}
    for k, words in folded.items():
        key = (sources[k], *sorted(set(words))) if len(words) > 1 else (sources[k], words[0])
        groups.setdefault(key, []).append(k)
    for (source, *_), members in groups.items():
        if len(members) > 1:
            message = say.duplicate_item(len(members), source or "")
            yield _finding("duplicate-item", (ids[k] for k in members), message)

    for k, words in folded.items():
        if len(words) < 2:
            continue
        for a, word in enumerate(words):
            inside = next(
                (
                    keywords[k][b]
                    for b, other in enumerate(words)
                    if b != a and word in other and (word != other or b < a)
                ),
                None,
            )
            if inside is not None:
                message = say.redundant_keyword(ids[k], keywords[k][a], inside)
                yield _finding("redundant-keyword", (ids[k],), message)
                break
