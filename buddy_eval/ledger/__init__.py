"""The release ledger: one SQLite file that remembers every evaluation and every release.

:func:`record` writes an evaluation (:mod:`._record`); :func:`release` marks a
version as live and :func:`rollback` makes an earlier release live again;
:func:`live_baseline` reads the live version back as a baseline, compared on
the items it holds; :func:`verify` checks every row against its stored hash;
:func:`buddy_eval.history` reads the versions, their items and what happened
across them (the figures in :mod:`._history`, which needs pandas and is
imported on its own; their views are worded by :mod:`buddy_eval.reporting`).
The file's schema is in :mod:`._schema` (and docs/ledger.md).
"""

from ._live import LiveBaseline, evaluate_live, live_baseline
from ._record import Provenance, Recorded, record
from ._releases import Released, release, rollback
from ._schema import SCHEMA, SCHEMA_VERSION
from ._verify import verify

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "LiveBaseline",
    "Provenance",
    "Recorded",
    "Released",
    "evaluate_live",
    "live_baseline",
    "record",
    "release",
    "rollback",
    "verify",
]
