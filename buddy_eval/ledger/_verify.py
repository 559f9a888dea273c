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

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval import ledger
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> ledger.verify(path).split(": ", 1)[1]
    'every row holds (1 golden set, 2 versions, 2 result rows, 1 evaluation, 0 releases)'
    >>> tmp.cleanup()
    """
    name = os.fspath(ledger)
    with reading(name) as connection:
        counts = _store.verify(connection, name)
    parts = ", ".join(format_count(n, kind.rstrip("s"), kind) for kind, n in counts.items())
    return f"{name}: every row holds ({parts})"
