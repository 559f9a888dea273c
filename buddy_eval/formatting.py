"""Canonical report text: the only place where numbers are rounded."""

from __future__ import annotations

from fractions import Fraction

from .decision import Decision
from .scoring import RATE_METRICS

__all__ = ["format_fraction", "format_version_line", "format_report"]


def format_fraction(value: Fraction | None, places: int = 2) -> str:
    """Exact fraction to fixed decimals, rounding half up; None prints ``n/a``.

    >>> format_fraction(Fraction(1, 8)), format_fraction(Fraction(5, 8))
    ('0.13', '0.63')
    >>> format_fraction(Fraction(2, 3)), format_fraction(None)
    ('0.67', 'n/a')
    """
    if value is None:
        return "n/a"
    if value < 0:
        return "-" + format_fraction(-value, places)
    scale = 10**places
    units = (value.numerator * scale * 2 + value.denominator) // (value.denominator * 2)
    whole, frac = divmod(units, scale)
    return f"{whole}.{frac:0{places}d}" if places else str(whole)


def format_version_line(label: str, values: dict) -> str:
    """``LABEL: correctness 0.67 citation 0.67 refusal 1.00 violations 0``."""
    figures = " ".join(f"{m} {format_fraction(values[m])}" for m in RATE_METRICS)
    return f"{label}: {figures} violations {values['violations']}"


def format_report(
    baseline: str, baseline_values: dict, candidate: str, candidate_values: dict, decision: Decision
) -> str:
    """The three canonical lines, without a trailing newline."""
    return "\n".join(
        [
            format_version_line(baseline, baseline_values),
            format_version_line(candidate, candidate_values),
            decision.verdict,
        ]
    )
