"""The release ledger: one SQLite file that remembers every evaluation and every release.

:func:`record` writes an evaluation (:mod:`._record`); :func:`release` marks a
version as live; :func:`history` reads the versions, their items and what
happened across them (:mod:`._history`, which needs pandas and is imported
on its own). The file's schema is in :mod:`._schema` (and docs/ledger.md).
"""

from ._record import Recorded, record
from ._releases import release
from ._schema import SCHEMA, SCHEMA_VERSION

__all__ = ["SCHEMA", "SCHEMA_VERSION", "Recorded", "record", "release"]
