"""What ``buddy-eval ledger show`` lists: the rows a ledger holds, read and checked once.

:func:`stored` reads the golden-set revisions, versions, result sets,
evaluations and releases (every row checked against its stored hash); the
report layer words them (:func:`buddy_eval.reporting.show_document`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from . import _store
from ._schema import reading

__all__ = ["SHORT", "StoredLedger", "stored"]

#: Hex digits of a fingerprint, a commit or an input hash the views show.
SHORT = 12


@dataclass(frozen=True)
class StoredLedger:
    """Every row of a ledger, as stored.

    Attributes
    ----------
    ledger : str
        The ledger's path.
    versions : dict of int to str
        Version id to label, in recording order.
    golden_sets : dict of int to GoldenSet
        Golden-set id to revision (``revision``, ``fingerprint``, ``items``).
    result_sets : list of ResultSet
        Every version's results per revision (with their lines).
    evaluations : list of StoredEvaluation
        Every recorded gate, in order.
    releases : list of StoredRelease
        Every release and rollback, in order.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.ledger._show import stored
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> rows = stored(path)
    >>> list(rows.versions.values()), [e.fields["verdict"] for e in rows.evaluations]
    (['OLD', 'NEW'], ['BLOCK'])
    >>> tmp.cleanup()
    """

    ledger: str
    versions: dict
    golden_sets: dict
    result_sets: list
    evaluations: list
    releases: list


def stored(ledger: str | os.PathLike[str]) -> StoredLedger:
    """Read every row of a ledger, each checked against its stored hash first.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or a row was changed
        outside buddy-eval.
    """
    name = os.fspath(ledger)
    with reading(name) as connection:
        return StoredLedger(
            name,
            _store.versions(connection),
            _store.golden_sets(connection, name),
            _store.result_sets(connection, name),
            _store.evaluations(connection, name),
            _store.releases(connection, name),
        )
