"""The release ledger: one SQLite file that remembers every evaluation and every release.

:func:`record` writes an evaluation (:mod:`.record`); :func:`release` marks a
version as live; :func:`history` reads the versions, their items and what
happened across them (:mod:`.history`, which needs pandas and is imported
on its own). The file's schema is in :mod:`.schema` (and docs/ledger.md).
"""

from .record import Recorded, record
from .releases import release
from .schema import SCHEMA, SCHEMA_VERSION

__all__ = ["SCHEMA", "SCHEMA_VERSION", "Recorded", "record", "release"]
