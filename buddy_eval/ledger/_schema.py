"""The ledger file: its schema, and how a path is checked and opened.

The ledger is one SQLite file (the standard library's :mod:`sqlite3`, no
server). It is marked as a buddy_eval ledger by ``PRAGMA application_id`` and
carries its schema version in ``PRAGMA user_version``; it runs in WAL mode
with foreign keys on, and every write is one ``BEGIN IMMEDIATE`` transaction.

A path is checked before anything is opened for writing: a symbolic link, a
directory, a device, an empty or truncated file, a file that is not SQLite,
an SQLite database that is not a ledger, or a ledger of a newer schema is
refused with one :class:`~buddy_eval._errors.InputError`, the file untouched.
A new ledger is built beside the target and linked into place, so another
process never sees it half-made.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import stat
from pathlib import Path
from urllib.parse import quote

from .._errors import CouldNotFinishError, InputError

__all__ = [
    "APPLICATION_ID",
    "SCHEMA",
    "SCHEMA_VERSION",
    "check_path",
    "connect",
    "ledger_error",
    "transaction",
]

#: ``PRAGMA application_id`` of a ledger: "BELG" (buddy_eval ledger) in ASCII.
APPLICATION_ID = 0x42454C47
#: ``PRAGMA user_version`` of the schema below.
SCHEMA_VERSION = 1
#: Seconds a writer waits for another writer's transaction to end.
BUSY_TIMEOUT = 60.0

#: The schema, documented table by table (docs/ledger.md shows it as is).
SCHEMA = """\
-- A golden set: the items, in order, scored by an evaluation.
CREATE TABLE golden_sets (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,  -- SHA-256 (hex) of the set's canonical form
    item_count INTEGER NOT NULL
);
-- The items of each golden set, in golden order (position 0, 1, ...).
CREATE TABLE golden_items (
    golden_set_id INTEGER NOT NULL REFERENCES golden_sets (id),
    position INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,         -- SHA-256 (hex) of the item's canonical form: the
                                       -- same item in two golden sets has the same one
    item_id TEXT NOT NULL,
    item_type TEXT NOT NULL CHECK (item_type IN ('ANSWER', 'REFUSE')),
    required_source TEXT,              -- NULL for REFUSE items
    keywords TEXT NOT NULL,            -- JSON list of strings
    PRIMARY KEY (golden_set_id, position)
) WITHOUT ROWID;
-- A version label and its results: facts, recorded once (id = recording order).
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE,
    golden_set_id INTEGER NOT NULL REFERENCES golden_sets (id),
    results_sha256 TEXT NOT NULL,      -- SHA-256 of its result lines (answers included)
    result_lines INTEGER NOT NULL,     -- result lines on golden items (trials included)
    answers_kept INTEGER NOT NULL CHECK (answers_kept IN (0, 1))
);
-- Per version, its outcome on every item of its golden set, in golden order, packed as
-- one JSON array of [trials, correct, cited_ok, refused_ok, violation] per item (one row
-- per version: written and read whole). Query them through the view below.
CREATE TABLE packed_outcomes (
    version_id INTEGER PRIMARY KEY REFERENCES versions (id),
    items TEXT NOT NULL CHECK (json_valid(items))
);
-- Per (version, golden item): position (the item's position in the version's golden set),
-- trials (0: no result, which counts as failed), and how many trials pass each check:
-- correct and cited_ok (NULL for REFUSE items), refused_ok and violation (trials answered;
-- NULL for ANSWER items).
CREATE VIEW outcomes (version_id, position, trials, correct, cited_ok, refused_ok, violation) AS
SELECT o.version_id, item.key, json_extract(item.value, '$[0]'),
       json_extract(item.value, '$[1]'), json_extract(item.value, '$[2]'),
       json_extract(item.value, '$[3]'), json_extract(item.value, '$[4]')
FROM packed_outcomes AS o, json_each(o.items) AS item;
-- Every result line of a version on a golden item, in (position, trial) order, packed
-- as one JSON array of [position, trial, cited, refused, answer] (one row per version:
-- a version's lines are written and read whole). Query them through the view below.
CREATE TABLE packed_results (
    version_id INTEGER PRIMARY KEY REFERENCES versions (id),
    lines TEXT NOT NULL CHECK (json_valid(lines))
);
-- One row per result line: position and trial (0, 1, ... in input order) of the item,
-- cited (NULL: nothing cited), refused (0 or 1), answer (NULL when recorded without answers).
CREATE VIEW results (version_id, position, trial, cited, refused, answer) AS
SELECT r.version_id, json_extract(line.value, '$[0]'), json_extract(line.value, '$[1]'),
       json_extract(line.value, '$[2]'), json_extract(line.value, '$[3]'),
       json_extract(line.value, '$[4]')
FROM packed_results AS r, json_each(r.lines) AS line;
-- One gate run: the candidate against the baseline, with its settings and verdict.
CREATE TABLE evaluations (
    id INTEGER PRIMARY KEY,
    input_sha256 TEXT NOT NULL,        -- SHA-256 of the input's canonical form
    settings TEXT NOT NULL,            -- canonical JSON of the settings below
    source TEXT NOT NULL,
    golden_set_id INTEGER NOT NULL REFERENCES golden_sets (id),
    baseline_version_id INTEGER NOT NULL REFERENCES versions (id),
    candidate_version_id INTEGER NOT NULL REFERENCES versions (id),
    threshold_correctness TEXT NOT NULL,  -- exact fractions: '3/5'
    threshold_citation TEXT NOT NULL,
    threshold_refusal TEXT NOT NULL,
    rule TEXT NOT NULL CHECK (rule IN ('exact', 'noninferiority')),
    margin TEXT,                       -- as given ('0.02'); NULL when none
    min_paired INTEGER NOT NULL,
    trials INTEGER NOT NULL CHECK (trials IN (0, 1)),
    verdict TEXT NOT NULL CHECK (verdict IN ('RELEASE', 'BLOCK')),
    reasons TEXT NOT NULL,             -- JSON list, the verdict's order
    buddy_eval_version TEXT NOT NULL,
    date TEXT,                         -- --date (YYYY-MM-DD) when given
    note TEXT,
    recorded_at TEXT NOT NULL,         -- UTC, ISO 8601
    UNIQUE (input_sha256, settings)
);
-- Per (evaluation, version, metric): exact counts; a rate is numerator / denominator.
CREATE TABLE evaluation_metrics (
    evaluation_id INTEGER NOT NULL REFERENCES evaluations (id),
    version_id INTEGER NOT NULL REFERENCES versions (id),
    metric TEXT NOT NULL CHECK (metric IN ('correctness', 'citation', 'refusal', 'violations')),
    numerator INTEGER NOT NULL,        -- TEXT digits past 64 bits (repeated trials)
    denominator INTEGER NOT NULL,      -- violations: REFUSE items
    missing INTEGER NOT NULL,          -- items of the metric's type with no result
    PRIMARY KEY (evaluation_id, version_id, metric)
) WITHOUT ROWID;
-- The decision's checks, in the verdict's order.
CREATE TABLE checks (
    evaluation_id INTEGER NOT NULL REFERENCES evaluations (id),
    position INTEGER NOT NULL,
    kind TEXT NOT NULL,                -- threshold, violations, regression, noninferiority
    metric TEXT NOT NULL,
    candidate TEXT,                    -- exact: '7/8', '2'; NULL when not measured
    reference TEXT,                    -- threshold, 0, baseline rate or margin
    blocks INTEGER NOT NULL CHECK (blocks IN (0, 1)),
    measured INTEGER NOT NULL CHECK (measured IN (0, 1)),
    bound REAL,                        -- non-inferiority: the lower confidence bound
    PRIMARY KEY (evaluation_id, position)
) WITHOUT ROWID;
-- A version that went live, with the evidence and any override of a BLOCK.
CREATE TABLE releases (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions (id),
    evaluation_id INTEGER REFERENCES evaluations (id),  -- its latest gate as candidate
    date TEXT NOT NULL,                -- YYYY-MM-DD
    note TEXT,
    override_reason TEXT,              -- why a BLOCK was released anyway
    recorded_at TEXT NOT NULL
);
CREATE INDEX evaluations_by_candidate ON evaluations (candidate_version_id);
CREATE INDEX releases_by_version ON releases (version_id);
"""

_HEADER = b"SQLite format 3\x00"
# SQLite's primary result codes for a damaged file.
_CORRUPT, _NOT_A_DATABASE = 11, 26


def ledger_error(path, exc: BaseException) -> CouldNotFinishError:
    """A failure while writing to a valid ledger: could not finish (exit 3)."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        reason = exc.strerror or reason
    return CouldNotFinishError(f"cannot record in the ledger: {reason}", source=os.fspath(path))


def _refuse(path: str, message: str) -> InputError:
    return InputError(message, source=path)


def _check_header(name: str, size: int) -> None:
    """The file starts like SQLite and is as long as its header says."""
    if size == 0:
        raise _refuse(
            name, "is an empty file, not a buddy_eval ledger; give a new path or a ledger"
        )
    try:
        with open(name, "rb") as handle:
            head = handle.read(100)
    except OSError as exc:
        raise _refuse(name, f"cannot read the ledger: {exc.strerror or exc}") from None
    if not head.startswith(_HEADER):
        raise _refuse(name, "is not a buddy_eval ledger (not an SQLite database)")
    if len(head) < 100:
        raise _refuse(name, "is a truncated or corrupt ledger (shorter than its header)")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    # The page count is valid when the two change counters agree; a write-ahead
    # log not yet merged may hold pages beyond the main file.
    valid = head[24:28] == head[92:96] and pages > 0
    wal = Path(name + "-wal")
    pending = wal.exists() and wal.stat().st_size > 0
    if valid and not pending and size < page_size * pages:
        raise _refuse(
            name,
            f"is a truncated or corrupt ledger ({size} bytes, its header says {page_size * pages})",
        )


def _uri(name: str, mode: str) -> str:
    return f"file:{quote(os.path.abspath(name))}?mode={mode}"


def _describe(name: str, connection: sqlite3.Connection) -> None:
    """Refuse a database that is not a ledger, or one of a newer schema."""
    application = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if application != APPLICATION_ID:
        raise _refuse(name, "is an SQLite database but not a buddy_eval ledger")
    if version > SCHEMA_VERSION:
        raise _refuse(
            name,
            f"is a ledger of schema version {version}, newer than this buddy_eval reads "
            f"({SCHEMA_VERSION}); upgrade buddy_eval",
        )
    if version < 1:
        raise _refuse(name, "is a buddy_eval ledger without a schema (corrupt)")


def _create(path: Path) -> None:
    """Build a new, empty ledger beside ``path`` and link it into place (atomic)."""
    tmp = path.parent / f".{path.name[:40]}.{secrets.token_hex(4)}.ledger-tmp"
    try:
        connection = sqlite3.connect(tmp, isolation_level=None)
        try:
            connection.executescript(
                f"PRAGMA application_id = {APPLICATION_ID};"
                f"PRAGMA user_version = {SCHEMA_VERSION};"
                "BEGIN;" + SCHEMA + "COMMIT;"
            )
            connection.execute("PRAGMA journal_mode = WAL").fetchone()
        finally:
            connection.close()
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(tmp, path)
    except (OSError, sqlite3.Error) as exc:
        raise ledger_error(path, exc) from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(OSError):
                os.unlink(leftover)


def connect(path, *, create: bool = False, write: bool = False) -> sqlite3.Connection:
    """Check ``path`` and open the ledger there.

    Parameters
    ----------
    path : str or os.PathLike
        The ledger file.
    create : bool
        Make a new ledger when nothing is at ``path`` (its directory must exist).
    write : bool
        Open for writing (else read-only).

    Returns
    -------
    sqlite3.Connection
        In autocommit mode (transactions are explicit), foreign keys on.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval can use (see the module
        docstring); nothing was changed.
    CouldNotFinishError
        A new ledger could not be created.
    """
    name = os.fspath(path)
    if not name:
        raise InputError("the ledger path is empty; give a file name")
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise _refuse(name, f"cannot use as a ledger: {reason}") from None
    if info is None:
        if not create:
            raise _refuse(
                name,
                "no ledger here; record an evaluation first (buddy-eval INPUT --ledger PATH)",
            )
        if not Path(name).parent.is_dir():
            raise _refuse(
                name, f"cannot create the ledger: no directory {str(Path(name).parent)!r}"
            )
        _create(Path(name))
        info = os.lstat(name)
    if stat.S_ISLNK(info.st_mode):
        raise _refuse(name, "is a symbolic link; a ledger must be a regular file")
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(name, "is a directory, expected a ledger file")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(name, "is not a regular file (a device, pipe or socket), not a ledger")
    _check_header(name, info.st_size)
    try:
        probe = sqlite3.connect(_uri(name, "ro"), uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise _refuse(name, f"cannot open the ledger: {exc}") from None
    try:
        _describe(name, probe)
        probe.execute("SELECT count(*) FROM versions").fetchone()
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", _CORRUPT) & 0xFF in (_CORRUPT, _NOT_A_DATABASE):
            raise _refuse(name, f"is a corrupt ledger: {exc}") from None
        if isinstance(exc, sqlite3.OperationalError) and "no such table" in str(exc):
            raise _refuse(name, f"is a corrupt ledger: {exc}") from None
        raise CouldNotFinishError(f"cannot read the ledger: {exc}", source=name) from None
    finally:
        probe.close()
    if not write:
        connection = sqlite3.connect(_uri(name, "ro"), uri=True, isolation_level=None)
    else:
        connection = sqlite3.connect(
            _uri(name, "rw"), uri=True, isolation_level=None, timeout=BUSY_TIMEOUT
        )
    connection.execute("PRAGMA foreign_keys = ON")
    if write:
        # In WAL mode NORMAL keeps every transaction atomic and survives a killed process;
        # only a power cut may lose the last one (never corrupting the ledger). It spares
        # one fsync per recording.
        connection.execute("PRAGMA synchronous = NORMAL")
    return connection


def check_path(path) -> None:
    """Refuse, before any work, a path a ledger cannot be recorded at (nothing is created).

    An existing file must be a ledger this buddy_eval reads; a new one needs
    an existing directory.

    Raises
    ------
    InputError
    """
    name = os.fspath(path)
    if name and not os.path.lexists(name):
        if not Path(name).parent.is_dir():
            raise _refuse(
                name, f"cannot create the ledger: no directory {str(Path(name).parent)!r}"
            )
        return
    connect(name).close()


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection):
    """One write transaction (``BEGIN IMMEDIATE``): all of it lands, or none of it."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
