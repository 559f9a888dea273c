"""What the doctor found: findings, and the diagnosis of one golden set.

A finding is computed (by a check module) and worded (by :mod:`._messages`)
once; the views lay the diagnosis out (:func:`buddy_eval.reporting.doctor_document`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._table import CHECKS, SEVERITIES

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Diagnosis", "Finding", "ordered"]

_CHECK_ORDER = {check.name: k for k, check in enumerate(CHECKS)}


@dataclass(frozen=True)
class Finding:
    """One finding: a check that fired, on some items (or on the whole set).

    Attributes
    ----------
    check : str
        The check's stable name (see :data:`CHECKS`).
    severity : str
        ``error``, ``warning`` or ``note``.
    ids : tuple of str
        The items (or tasks) it is about, in golden order; empty for the whole set.
    message : str
        One line: what was found, why it matters and what to do.

    Examples
    --------
    >>> from buddy_eval.doctor import Finding
    >>> Finding("unsolved", "warning", ("q1",), "every version fails it").ids
    ('q1',)
    """

    check: str
    severity: str
    ids: tuple[str, ...]
    message: str


def ordered(findings) -> tuple[Finding, ...]:
    """Worst first, then in the order of :data:`CHECKS`, each check's findings as found."""
    return tuple(
        sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), _CHECK_ORDER[f.check]))
    )


@dataclass(frozen=True)
class Diagnosis:
    """The doctor's findings on one golden set.

    Attributes
    ----------
    kind : str
        ``"golden set"`` (the gate's input) or ``"golden tasks"``.
    source : str
        Where the golden set came from.
    n_items : int
        Golden items (or tasks) checked.
    versions : tuple of str
        The version labels (or run labels) whose results were read.
    findings : tuple of Finding
        Worst first (see :func:`ordered`).

    Examples
    --------
    >>> from buddy_eval.doctor import diagnose
    >>> diagnosis = diagnose("data/example.txt")
    >>> diagnosis.counts()
    {'error': 0, 'warning': 4, 'note': 1}
    >>> diagnosis.fails("warning"), diagnosis.fails("error")
    (True, False)
    """

    kind: str
    source: str
    n_items: int
    versions: tuple[str, ...]
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        """Findings per severity, every severity present (worst first)."""
        counts = dict.fromkeys(SEVERITIES, 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts

    def fails(self, fail_on: str = "error") -> bool:
        """Some finding is at or above ``fail_on`` (a severity)."""
        if fail_on not in SEVERITIES:
            raise ValueError(f"fail_on must be one of {', '.join(SEVERITIES)}, got {fail_on!r}")
        worst = SEVERITIES.index(fail_on)
        return any(SEVERITIES.index(f.severity) <= worst for f in self.findings)

    def frame(self) -> pd.DataFrame:
        """The findings as a DataFrame (see :func:`buddy_eval.doctor.doctor`)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "check": pd.Series([f.check for f in self.findings], dtype="str"),
                "severity": pd.Categorical(
                    [f.severity for f in self.findings], categories=list(SEVERITIES), ordered=True
                ),
                "ids": pd.Series([list(f.ids) for f in self.findings], dtype=object),
                "message": pd.Series([f.message for f in self.findings], dtype="str"),
            }
        )
