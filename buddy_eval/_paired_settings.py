"""How the paired statistics are computed: one small, validated settings object.

Kept apart from :mod:`buddy_eval._paired` so that the plain gate, which needs
the settings but none of the statistics, imports nothing heavy.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ._errors import InputError, quoted
from ._thresholds import exact_number
from ._vocabulary import MIN_PAIRED

__all__ = ["RANGES", "Settings"]


#: ``(low, low included, high, high included)`` of the float settings. The statistics stay
#: finite inside them (a confidence of 1 - 1e-16 has an infinite quantile), and
#: the sample-size hint stays a search of seconds at worst (a drop of 1e-300
#: would need more items than exist).
RANGES = {
    "confidence": (Fraction(1, 2), False, Fraction(9999, 10000), True),
    "drop": (Fraction(1, 100), True, Fraction(1), False),
    "power": (Fraction(0), False, Fraction(99, 100), True),
}
RULES = ("exact", "noninferiority")
SLICE_RULES = ("drop",)
#: The slice of the golden items a slice assignment does not list (a name it may not use).
NO_SLICE = "(none)"


def _is_whole(value) -> bool:
    """An integer type, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Settings:
    """How the paired statistics are computed.

    Attributes
    ----------
    min_paired : int
        Readiness: paired items a metric needs before a p-value and a
        difference interval are computed (default :data:`~buddy_eval.stats.MIN_PAIRED`).
    confidence : float
        Level of every interval; ``1 - confidence`` is the significance level
        (default 0.95).
    drop : float
        The drop the sample-size hint is for (default 0.05).
    power : float
        The power the sample-size hint is for (default 0.80).
    margin : float or None
        Non-inferiority margin: with a margin, each metric gets a one-sided
        lower confidence bound on the paired difference and says whether the
        candidate is within ``margin`` of the baseline (default None: no
        non-inferiority reading).
    rule : str
        ``"exact"`` (default): a regression is the candidate's rate lower
        than the baseline's, exactly, as the specification says;
        ``"noninferiority"``: a regression is a metric not shown non-inferior
        within ``margin`` (needs a margin). Thresholds and violations decide
        as always.
    slice_rule : str or None
        ``"drop"``: with slices, a slice whose exact paired test rejects
        after Holm across the slices within a metric, with a drop larger than
        ``slice_margin``, blocks the release; None (default): slices only
        inform.
    slice_margin : float
        The drop a slice may show before the slice rule blocks (default 0).

    Examples
    --------
    >>> settings = be.Settings(margin=0.05, rule="noninferiority")
    >>> settings.confidence, settings.alpha, settings.min_paired
    (0.95, 0.05, 20)
    >>> ev = be.evaluate("data/sample_release.txt", settings=settings)
    >>> for reason in ev.decision.reasons:
    ...     print(reason)
    refusal below threshold
    integrity violations
    regression in citation beyond margin 0.05
    regression in refusal beyond margin 0.05

    Values outside their bounds are refused at once:

    >>> be.Settings(confidence=2)
    Traceback (most recent call last):
    ...
    buddy_eval._errors.InputError: confidence must be a number in (0.5, 0.9999], got 2
    """

    min_paired: int = MIN_PAIRED
    confidence: float = 0.95
    drop: float = 0.05
    power: float = 0.80
    margin: float | None = None
    rule: str = "exact"
    slice_rule: str | None = None
    slice_margin: float = 0.0

    def __post_init__(self):
        if not _is_whole(self.min_paired) or self.min_paired < 1:
            raise InputError(
                f"min_paired must be a whole number >= 1, got {quoted(self.min_paired)}"
            )
        object.__setattr__(self, "min_paired", int(self.min_paired))
        for name, (low, low_in, high, high_in) in RANGES.items():
            value = getattr(self, name)
            # A float setting means its shortest decimal: 0.9999 is 9999/10000.
            exact = None if isinstance(value, str) else exact_number(value)
            inside = exact is not None and (
                (low <= exact if low_in else low < exact)
                and (exact <= high if high_in else exact < high)
            )
            if not inside:
                shown = f"{float(low):g}, {float(high):g}"
                shown = f"{'[' if low_in else '('}{shown}{']' if high_in else ')'}"
                raise InputError(f"{name} must be a number in {shown}, got {quoted(value)}")
            object.__setattr__(self, name, float(exact))
        if self.margin is not None:
            margin = self.margin
            exact = None if isinstance(margin, str) else exact_number(margin)
            if exact is None or not 0 <= exact < 1:
                raise InputError(f"margin must be a number in [0, 1), got {quoted(margin)}")
            object.__setattr__(self, "margin", float(exact))
        if not isinstance(self.rule, str) or self.rule not in RULES:
            raise InputError(f"rule must be 'exact' or 'noninferiority', got {quoted(self.rule)}")
        if self.rule == "noninferiority" and self.margin is None:
            raise InputError("the noninferiority rule needs a margin (e.g. --margin 0.02)")
        if self.slice_rule is not None and self.slice_rule not in SLICE_RULES:
            raise InputError(f"slice_rule must be 'drop' or None, got {quoted(self.slice_rule)}")
        slice_margin = self.slice_margin
        exact = None if isinstance(slice_margin, str) else exact_number(slice_margin)
        if exact is None or not 0 <= exact < 1:
            raise InputError(f"slice_margin must be a number in [0, 1), got {quoted(slice_margin)}")
        object.__setattr__(self, "slice_margin", float(exact))

    @classmethod
    def check(cls, settings) -> Settings:
        """``settings`` itself when it is a :class:`Settings`; None gives the defaults.

        Raises
        ------
        InputError
            Anything else (a dict, a string, a version label passed in its
            place): build one with ``Settings(...)``.
        """
        if settings is None:
            return cls()
        if isinstance(settings, cls):
            return settings
        raise InputError(
            f"settings must be a buddy_eval.Settings (e.g. Settings(margin=0.02)), got "
            f"{type(settings).__name__} {quoted(settings)}"
        )

    @cached_property
    def alpha(self) -> float:
        """The significance level, ``1 - confidence`` (0.05, not 0.050000000000000044)."""
        return float(1 - Fraction(str(self.confidence)))
