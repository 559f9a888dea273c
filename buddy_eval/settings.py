"""How the paired statistics are computed: one small, validated settings object.

Kept apart from :mod:`buddy_eval.paired` so that the plain gate, which needs
the settings but none of the statistics, imports nothing heavy.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError
from .vocabulary import MIN_PAIRED

__all__ = ["Settings"]


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
    """

    min_paired: int = MIN_PAIRED
    confidence: float = 0.95
    drop: float = 0.05
    power: float = 0.80
    margin: float | None = None
    rule: str = "exact"

    def __post_init__(self):
        if isinstance(self.min_paired, bool) or not isinstance(self.min_paired, int):
            raise InputError(f"min_paired must be an integer >= 1, got {self.min_paired!r}")
        if self.min_paired < 1:
            raise InputError(f"min_paired must be an integer >= 1, got {self.min_paired!r}")
        for name in ("confidence", "drop", "power"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
                raise InputError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
        if self.confidence <= 0.5:
            raise InputError(f"confidence must be above 0.5, got {self.confidence!r}")
        if self.margin is not None:
            margin = self.margin
            if (
                isinstance(margin, bool)
                or not isinstance(margin, (int, float))
                or not (0 <= margin < 1)
            ):
                raise InputError(f"margin must be a number in [0, 1), got {margin!r}")
        if self.rule not in ("exact", "noninferiority"):
            raise InputError(f"rule must be 'exact' or 'noninferiority', got {self.rule!r}")
        if self.rule == "noninferiority" and self.margin is None:
            raise InputError("the noninferiority rule needs a margin (e.g. --margin 0.02)")

    @property
    def alpha(self) -> float:
        """The significance level, ``1 - confidence`` (0.05, not 0.050000000000000044)."""
        return float(1 - Fraction(str(self.confidence)))
