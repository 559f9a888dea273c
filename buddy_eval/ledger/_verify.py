"""``buddy-eval ledger verify``: every row of a ledger checked against its stored hash."""

from __future__ import annotations

import os

from ..formatting import format_count
from . import _store
from ._schema import reading

__all__ = ["verify"]


def verify(ledger: str | os.PathLike[str]) -> str:
    """Check every row of the ledger; one line saying what was checked.

    Raises
    ------
    InputError
        The first row changed outside buddy-eval (or that cannot be decoded),
        named with its version, evaluation or release; a damaged file.
    """
    name = os.fspath(ledger)
    with reading(name) as connection:
        counts = _store.verify(connection, name)
    parts = ", ".join(format_count(n, kind.rstrip("s"), kind) for kind, n in counts.items())
    return f"{name}: every row holds ({parts})"
