"""Inputs with hand-known outcomes and a dump of a ledger's tables, for the ledger tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path

GOLDEN = """\
q1 ANSWER L1 alpha
q2 ANSWER L2 beta
q3 REFUSE - -
q4 ANSWER L4 delta
"""

#: Per version, which of the ANSWER items q1, q2, q4 pass (q3, REFUSE, is always refused).
PASSING = {
    "v1": {"q1"},
    "v2": {"q1", "q2"},
    "v3": {"q2"},
    "v4": {"q1"},
}

_PASS = {"q1": "L1 N alpha", "q2": "L2 N beta", "q4": "L4 N delta"}


def result_lines(version: str, passing: set[str]) -> str:
    lines = []
    for item in ("q1", "q2", "q3", "q4"):
        if item == "q3":
            lines.append(f"{version} q3 - Y no thanks")
        elif item in passing:
            lines.append(f"{version} {item} {_PASS[item]}")
        else:
            lines.append(f"{version} {item} - N no idea")
    return "\n".join(lines) + "\n"


def make_input(
    baseline: str, candidate: str, golden: str = GOLDEN, passing: dict | None = None
) -> str:
    passing = PASSING if passing is None else passing
    return (
        "THRESHOLDS 0.5 0.5 0.5\n"
        + golden
        + "RESULTS\n"
        + result_lines(baseline, passing[baseline])
        + result_lines(candidate, passing[candidate])
    )


def dump(path: Path) -> list[str]:
    """Every table's rows, as SQL text (what a reader of the file would find)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def big_input(n_items: int, versions: tuple[str, str] = ("OLD", "NEW")) -> str:
    golden = "".join(f"i{k} ANSWER L{k % 7} kw{k % 13},common\n" for k in range(n_items))
    results = "".join(
        f"{v} i{k} L{k % 7} N answer with kw{k % 13} and common words {v}\n"
        for v in versions
        for k in range(n_items)
    )
    return "THRESHOLDS 0.5 0.5 0.5\n" + golden + "RESULTS\n" + results
