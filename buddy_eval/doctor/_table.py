"""The doctor's checks: their names, severities, what they read, and their limits.

One row per check (:data:`CHECKS`), in the order findings are listed within
a severity; the limits a team may change are the fields of :class:`Limits`.
This module imports nothing heavy: the command line reads it for its help.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from fractions import Fraction

from .._phrases import MCNEMAR

__all__ = ["CHECKS", "COMMON_WORDS", "SEVERITIES", "DoctorCheck", "Limits", "check_named"]

#: The severities, worst first. ``--fail-on`` picks one: a finding at or above it fails.
#:
#: Examples
#: --------
#: >>> from buddy_eval.doctor import SEVERITIES
#: >>> SEVERITIES
#: ('error', 'warning', 'note')
SEVERITIES = ("error", "warning", "note")

#: Very common English words: a keyword that is one of them is in nearly any answer.
#:
#: Examples
#: --------
#: >>> from buddy_eval.doctor import COMMON_WORDS
#: >>> "the" in COMMON_WORDS, "interface" in COMMON_WORDS
#: (True, False)
COMMON_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yes",
        "use",
        "used",
        "using",
        "one",
        "two",
        "get",
        "got",
        "make",
        "made",
        "like",
        "way",
        "thing",
        "things",
    ]
)


@dataclass(frozen=True)
class DoctorCheck:
    """One named check of the golden-set doctor.

    Attributes
    ----------
    name : str
        The stable name findings carry (``weak-keyword``).
    severity : str
        ``error``, ``warning`` or ``note``.
    reads : str
        What it reads: ``golden`` (the golden items and thresholds),
        ``results`` (the results of every version present), ``trials``
        (repeated trials), ``tasks`` (golden tasks), ``runs`` (run records)
        or ``ledger`` (every version recorded in a ledger).
    rule : str
        When it fires, with its limit (the :class:`Limits` field, when it has one).

    Examples
    --------
    >>> from buddy_eval.doctor import check_named
    >>> check_named("vacuous-threshold").severity
    'warning'
    """

    name: str
    severity: str
    reads: str
    rule: str


#: Every check, in the order findings of one severity are listed.
#:
#: Examples
#: --------
#: >>> from buddy_eval.doctor import CHECKS
#: >>> [c.name for c in CHECKS if c.severity == "error"]
#: ['contradictory-checks']
CHECKS = (
    DoctorCheck(
        "contradictory-checks",
        "error",
        "tasks",
        "a not_contains value occurs in a contains value of the same task: no answer can pass",
    ),
    DoctorCheck("no-keywords", "warning", "golden", "an ANSWER item without keywords"),
    DoctorCheck(
        "weak-keyword",
        "warning",
        "golden",
        "a keyword of at most weak_keyword_length characters (2), or one of common_words",
    ),
    DoctorCheck(
        "duplicate-item",
        "warning",
        "golden",
        "ANSWER items with the same source and the same keywords (case-folded, any order)",
    ),
    DoctorCheck(
        "few-refuse-items",
        "warning",
        "golden",
        "too few REFUSE items for no violation to bound the violation rate below "
        "violation_rate (5%) at one-sided refuse_confidence (95%), exact: fewer than 59",
    ),
    DoctorCheck("vacuous-threshold", "warning", "golden", "a threshold of 0, which never blocks"),
    DoctorCheck(
        "underpowered",
        "warning",
        "golden",
        f"per metric, the smallest drop detectable at power (80%) by the exact {MCNEMAR} test, "
        "at the sample-size line's default discordance, is above max_detectable_drop (0.10)",
    ),
    DoctorCheck(
        "lenient-check",
        "warning",
        "results",
        "an item's keyword check passes at least lenient_share (20%) of the answers given to "
        "other items among lenient_sample (40) answers drawn with a fixed seed, at least "
        "lenient_min_answers (20) of them tried",
    ),
    DoctorCheck("unsolved", "warning", "results", "every version present fails the item"),
    DoctorCheck(
        "echo-gameable", "warning", "tasks", "a contains value occurs in the task's prompt"
    ),
    DoctorCheck("no-content-check", "warning", "tasks", "a task without contains or not_contains"),
    DoctorCheck("duplicate-prompt", "warning", "tasks", "the same prompt in two tasks"),
    DoctorCheck(
        "redundant-keyword",
        "note",
        "golden",
        "a keyword contained in another keyword of the same item (case-folded)",
    ),
    DoctorCheck("saturated", "note", "results", "every version present passes the item"),
    DoctorCheck(
        "flaky",
        "note",
        "trials",
        "with repeated trials: the item's trials disagree in every version present",
    ),
)

_BY_NAME = {check.name: check for check in CHECKS}


def check_named(name: str) -> DoctorCheck:
    """The check called ``name``.

    Raises
    ------
    KeyError
        If no check has that name.

    Examples
    --------
    >>> from buddy_eval.doctor import check_named
    >>> check_named("unsolved").reads
    'results'
    """
    return _BY_NAME[name]


@dataclass(frozen=True)
class Limits:
    """The limits of the doctor's checks (each documented in :data:`CHECKS`).

    Attributes
    ----------
    weak_keyword_length : int
        A keyword of at most this many characters is weak (default 2).
    common_words : frozenset of str
        Words too common to be a keyword (case-folded; default :data:`COMMON_WORDS`).
    violation_rate, refuse_confidence : Fraction
        ``few-refuse-items``: the violation rate the REFUSE items must be able
        to bound with no violation seen (default 1/20), and the one-sided
        confidence of the exact bound (default 19/20).
    max_detectable_drop, power, alpha : Fraction
        ``underpowered``: the largest acceptable smallest detectable drop
        (default 1/10), the power (default 4/5) and the two-sided level of
        the exact McNemar test (default 1/20).
    lenient_share : Fraction
        ``lenient-check``: the share of other items' answers passing the
        check at which it is lenient (default 1/5).
    lenient_sample, lenient_min_answers : int
        Answers of other items tried per item (default 40), and the fewest
        that must be tried for a finding (default 20).

    Examples
    --------
    >>> from buddy_eval.doctor import Limits
    >>> Limits(max_detectable_drop=0.2).max_detectable_drop
    Fraction(1, 5)
    """

    weak_keyword_length: int = 2
    common_words: frozenset[str] = field(default=COMMON_WORDS, repr=False)
    violation_rate: Fraction = Fraction(1, 20)
    refuse_confidence: Fraction = Fraction(19, 20)
    max_detectable_drop: Fraction = Fraction(1, 10)
    power: Fraction = Fraction(4, 5)
    alpha: Fraction = Fraction(1, 20)
    lenient_share: Fraction = Fraction(1, 5)
    lenient_sample: int = 40
    lenient_min_answers: int = 20

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "common_words":
                object.__setattr__(self, f.name, frozenset(w.casefold() for w in value))
            elif f.type in ("int", int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"{f.name} must be a whole number >= 0, got {value!r}")
            else:
                try:
                    exact = Fraction(str(value)) if isinstance(value, float) else Fraction(value)
                except (TypeError, ValueError):
                    raise ValueError(f"{f.name} must be a number, got {value!r}") from None
                if not 0 < exact < 1:
                    raise ValueError(f"{f.name} must lie strictly between 0 and 1, got {value!r}")
                object.__setattr__(self, f.name, exact)

    @classmethod
    def counts(cls) -> tuple[str, ...]:
        """The limits that are whole numbers."""
        return tuple(f.name for f in fields(cls) if f.type in ("int", int))

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The limits that can be set by name (``--limit NAME=VALUE``)."""
        return tuple(f.name for f in fields(cls) if f.name != "common_words")
