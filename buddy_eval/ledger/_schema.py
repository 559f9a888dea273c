"""The ledger file: its schema, and how a path is checked, opened and read or written.

The ledger is one SQLite file (the standard library's :mod:`sqlite3`, no
server). It is marked as a buddy_eval ledger by ``PRAGMA application_id`` and
carries its schema version in ``PRAGMA user_version``. It uses SQLite's
rollback journal (``journal_mode = DELETE``): a reader never creates a file
beside the ledger, and a reader on read-only storage opens it as immutable.

Every read is one read transaction (:func:`reading`) and every write one
``BEGIN IMMEDIATE`` transaction (:func:`writing`), and the file is judged
(its header, its size, its schema) inside that transaction, so a concurrent
writer can never make a sound ledger look truncated.

A path is checked before anything is opened for writing: a symbolic link, a
directory, a device, an empty or truncated file, a file that is not SQLite,
an SQLite database that is not a ledger, or a ledger of a newer schema is
refused with one :class:`~buddy_eval._errors.InputError`, the file untouched.
Any damage SQLite reports is one input error naming the ledger. A new ledger
is built beside the target and linked into place, so another process never
sees it half-made.

A ledger of schema version 2 (before the golden-set findings and the slices
were kept) is read as it is (it has no findings and no slices) and migrated
by the first write to it (a recording, a release or a rollback): that write
transaction adds the new
tables (:data:`MIGRATION`) and sets the version, so every row it held stays as
it was. A ledger of schema version 1 (before revisions) is refused with a
message saying so.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from .._errors import CouldNotFinishError, InputError
from .._phrases import NOT_MEASURED
from .._vocabulary import BLOCK, RELEASE

__all__ = [
    "APPLICATION_ID",
    "MIGRATION",
    "SCHEMA",
    "SCHEMA_VERSION",
    "check_path",
    "has_table",
    "ledger_error",
    "reading",
    "writing",
]

#: ``PRAGMA application_id`` of a ledger: "BELG" (buddy_eval ledger) in ASCII.
APPLICATION_ID = 0x42454C47
#: ``PRAGMA user_version`` of the schema below.
#:
#: Examples
#: --------
#: >>> import os, sqlite3, tempfile
#: >>> from buddy_eval.ledger import SCHEMA_VERSION
#: >>> tmp = tempfile.TemporaryDirectory()
#: >>> path = os.path.join(tmp.name, "release.ledger")
#: >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
#: >>> connection = sqlite3.connect(path)
#: >>> connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
#: True
#: >>> connection.close()
#: >>> tmp.cleanup()
SCHEMA_VERSION = 3
#: The oldest schema version this buddy_eval reads and migrates (see :data:`MIGRATION`).
MIGRATES_FROM = 2
#: Seconds a reader or a writer waits for another writer's transaction to end.
BUSY_TIMEOUT = 60.0

#: What schema version 3 added to version 2: a ledger of version 2 gains these
#: tables (empty) in the first write transaction that opens it.
MIGRATION = """\
-- The golden-set doctor's findings on a revision, at its default limits, as the first gate
-- that recorded the revision with findings found them (its golden items and the results in
-- its input): kept once per revision. Packed as one JSON array of [check, severity, [ids],
-- message], worst first; query them through the view below. A revision without a row was
-- recorded before findings were kept.
CREATE TABLE golden_set_findings (
    golden_set_id INTEGER PRIMARY KEY REFERENCES golden_sets (id),
    findings TEXT NOT NULL,
    sha256 TEXT NOT NULL               -- of the row's content
);
-- One row per finding: position (0, 1, ... worst first), check (its stable name),
-- severity (error, warning, note), ids (JSON list of item ids), message.
CREATE VIEW findings (revision, position, check_name, severity, ids, message) AS
SELECT g.revision, CAST(f.key AS INTEGER), json_extract(f.value, '$[0]'),
       json_extract(f.value, '$[1]'), json_extract(f.value, '$[2]'),
       json_extract(f.value, '$[3]')
FROM golden_set_findings AS s JOIN golden_sets AS g ON g.id = s.golden_set_id,
     json_each(s.findings) AS f;
-- The slices an evaluation was recorded with (--slices): the assignment's SHA-256 (also in
-- the evaluation's settings, so the same input with another slices file is another
-- evaluation), the slice names, and per golden item (stored position) its slice's index.
CREATE TABLE evaluation_slices (
    evaluation_id INTEGER PRIMARY KEY REFERENCES evaluations (id),
    source TEXT NOT NULL,              -- the slices file as named
    assignment_sha256 TEXT NOT NULL,   -- SHA-256 of its id,slice lines in order
    names TEXT NOT NULL,               -- JSON list of the slice names
    codes TEXT NOT NULL,               -- JSON list: per golden position, its index in names
    sha256 TEXT NOT NULL               -- of the row's content
);
-- One row per (evaluation recorded with slices, golden item): its slice.
CREATE VIEW slices (evaluation_id, revision, item_id, item_fingerprint, slice) AS
SELECT s.evaluation_id, g.revision, i.item_id, i.fingerprint,
       json_extract(s.names, '$[' || c.value || ']')
FROM evaluation_slices AS s JOIN evaluations AS e ON e.id = s.evaluation_id
JOIN golden_sets AS g ON g.id = e.golden_set_id, json_each(s.codes) AS c
JOIN golden_items AS i ON i.golden_set_id = e.golden_set_id AND i.position = c.key;
"""

#: The schema, documented table by table (docs/ledger.md shows it as is).
#:
#: Examples
#: --------
#: >>> import sqlite3
#: >>> from buddy_eval.ledger import SCHEMA
#: >>> connection = sqlite3.connect(":memory:")
#: >>> _ = connection.executescript(SCHEMA)
#: >>> query = "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY 2"
#: >>> for kind, name in connection.execute(query):
#: ...     print(kind, name)
#: table checks
#: table evaluation_metrics
#: table evaluation_slices
#: table evaluations
#: view findings
#: table golden_items
#: table golden_set_findings
#: table golden_sets
#: view outcomes
#: table releases
#: table result_sets
#: view results
#: view slices
#: view version_metrics
#: table versions
SCHEMA = (
    f"""\
-- A golden set, one per revision: the items, in order, scored by an evaluation.
CREATE TABLE golden_sets (
    id INTEGER PRIMARY KEY,
    revision TEXT NOT NULL UNIQUE,     -- r1, r2, ...: the golden sets in recording order
    fingerprint TEXT NOT NULL UNIQUE,  -- SHA-256 (hex) of its item fingerprints in order
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
-- A version label (id = recording order).
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL UNIQUE
);
-- A version's results on the items of one golden set that it had no result for before:
-- facts, added and never changed. A version measured again on a later revision gets a
-- second row holding only its new items (added or changed ones). Outcomes are packed as
-- one JSON array of [position, trials, correct, cited_ok, refused_ok, violation, passed]
-- per item with a result, and the result lines as one JSON array of [position, trial,
-- cited, refused, answer]; query both through the views below.
CREATE TABLE result_sets (
    id INTEGER PRIMARY KEY,
    version_id INTEGER NOT NULL REFERENCES versions (id),
    golden_set_id INTEGER NOT NULL REFERENCES golden_sets (id),
    items INTEGER NOT NULL,            -- items with a result in this row
    result_lines INTEGER NOT NULL,     -- result lines (trials included)
    answers_kept INTEGER NOT NULL CHECK (answers_kept IN (0, 1)),
    outcomes TEXT NOT NULL,
    lines TEXT NOT NULL,
    input_results_sha256 TEXT NOT NULL,  -- the version's results in the input that recorded
                                       -- this row, in canonical form (line order aside)
    sha256 TEXT NOT NULL               -- of the row's content: a change outside buddy-eval shows
);
-- Per (version, item with a result): trials, and how many trials pass each check: correct
-- and cited_ok (NULL for REFUSE items), refused_ok and violation (trials answered; NULL for
-- ANSWER items), passed (every check of the item's type at once).
CREATE VIEW outcomes (version, revision, item_id, item_fingerprint, trials, correct, cited_ok,
                      refused_ok, violation, passed) AS
SELECT v.label, g.revision, i.item_id, i.fingerprint, json_extract(o.value, '$[1]'),
       json_extract(o.value, '$[2]'), json_extract(o.value, '$[3]'),
       json_extract(o.value, '$[4]'), json_extract(o.value, '$[5]'),
       json_extract(o.value, '$[6]')
FROM result_sets AS r JOIN versions AS v ON v.id = r.version_id
JOIN golden_sets AS g ON g.id = r.golden_set_id, json_each(r.outcomes) AS o
JOIN golden_items AS i ON i.golden_set_id = r.golden_set_id
                      AND i.position = json_extract(o.value, '$[0]');
-- One row per result line: trial (0, 1, ... in input order), cited (NULL: nothing cited),
-- refused (0 or 1), answer (NULL when recorded without answers).
CREATE VIEW results (version, revision, item_id, item_fingerprint, trial, cited, refused,
                     answer) AS
SELECT v.label, g.revision, i.item_id, i.fingerprint, json_extract(l.value, '$[1]'),
       json_extract(l.value, '$[2]'), json_extract(l.value, '$[3]'),
       json_extract(l.value, '$[4]')
FROM result_sets AS r JOIN versions AS v ON v.id = r.version_id
JOIN golden_sets AS g ON g.id = r.golden_set_id, json_each(r.lines) AS l
JOIN golden_items AS i ON i.golden_set_id = r.golden_set_id
                      AND i.position = json_extract(l.value, '$[0]');
-- One gate run: the candidate against the baseline, with its settings and verdict.
CREATE TABLE evaluations (
    id INTEGER PRIMARY KEY,
    input_sha256 TEXT NOT NULL,        -- SHA-256 of the input's canonical form
    settings TEXT NOT NULL,            -- canonical JSON of the settings below
    source TEXT NOT NULL,
    golden_set_id INTEGER NOT NULL REFERENCES golden_sets (id),
    baseline_version_id INTEGER NOT NULL REFERENCES versions (id),
    candidate_version_id INTEGER NOT NULL REFERENCES versions (id),
    live_release_id INTEGER REFERENCES releases (id),  -- --baseline live: the release read
    threshold_correctness TEXT NOT NULL,  -- exact fractions: '3/5'
    threshold_citation TEXT NOT NULL,
    threshold_refusal TEXT NOT NULL,
    rule TEXT NOT NULL CHECK (rule IN ('exact', 'noninferiority')),
    margin TEXT,                       -- as given ('0.02'); NULL when none
    min_paired INTEGER NOT NULL,
    trials INTEGER NOT NULL CHECK (trials IN (0, 1)),
    compared_items INTEGER NOT NULL,   -- golden items the baseline was compared on
    not_compared TEXT NOT NULL,        -- JSON list of the other item ids (live baseline)
    verdict TEXT NOT NULL CHECK (verdict IN ('{RELEASE}', '{BLOCK}')),
    reasons TEXT NOT NULL,             -- JSON list, the verdict's order
    buddy_eval_version TEXT NOT NULL,
    date TEXT NOT NULL,                -- YYYY-MM-DD: --date, or the day it was recorded (UTC)
    note TEXT,
    recorded_by TEXT NOT NULL,         -- --by, or the user name
    commit_sha TEXT,                   -- from GitHub Actions or GitLab CI, when run there
    run_url TEXT,
    pipeline TEXT,
    recorded_at TEXT NOT NULL,         -- UTC, ISO 8601
    sha256 TEXT NOT NULL,              -- of the row, its metrics and its checks
    UNIQUE (input_sha256, settings)
);
-- Per (evaluation, version, metric): exact counts; a rate is numerator / denominator.
-- The baseline's cover the items it was compared on, the candidate's the whole golden set.
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
    candidate TEXT,                    -- exact: '7/8', '2'; NULL when {NOT_MEASURED}
    reference TEXT,                    -- threshold, 0, baseline rate or margin
    blocks INTEGER NOT NULL CHECK (blocks IN (0, 1)),
    measured INTEGER NOT NULL CHECK (measured IN (0, 1)),
    bound REAL,                        -- non-inferiority: the lower confidence bound
    bound_method TEXT,                 -- and the method that computed it
    PRIMARY KEY (evaluation_id, position)
) WITHOUT ROWID;
-- A version that went live (kind 'release', with any override of a {BLOCK}), or an earlier
-- release made live again (kind 'rollback', with its reason). The live version is the
-- version of the last row.
CREATE TABLE releases (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('release', 'rollback')),
    version_id INTEGER NOT NULL REFERENCES versions (id),
    evaluation_id INTEGER REFERENCES evaluations (id),  -- its latest gate as candidate
    date TEXT NOT NULL,                -- YYYY-MM-DD
    note TEXT,
    override_reason TEXT,              -- why a {BLOCK} was released anyway
    rollback_reason TEXT,              -- why an earlier release was made live again
    recorded_by TEXT NOT NULL,
    commit_sha TEXT,
    run_url TEXT,
    pipeline TEXT,
    recorded_at TEXT NOT NULL,
    sha256 TEXT NOT NULL
);
-- Per version, its figures as one row per metric: from its latest evaluation as the
-- candidate or, for a version never a candidate, its latest as the baseline.
CREATE VIEW version_metrics (version, evaluation_id, revision, date, metric, numerator,
                             denominator) AS
WITH chosen AS (
    SELECT v.id AS version_id, v.label AS label,
           coalesce((SELECT max(e.id) FROM evaluations e WHERE e.candidate_version_id = v.id),
                    (SELECT max(e.id) FROM evaluations e WHERE e.baseline_version_id = v.id))
               AS evaluation_id
    FROM versions v
)
SELECT c.label, c.evaluation_id, g.revision, e.date, m.metric, m.numerator, m.denominator
FROM chosen c JOIN evaluations e ON e.id = c.evaluation_id
JOIN golden_sets g ON g.id = e.golden_set_id
JOIN evaluation_metrics m ON m.evaluation_id = c.evaluation_id AND m.version_id = c.version_id;
CREATE INDEX result_sets_by_version ON result_sets (version_id);
CREATE INDEX evaluations_by_candidate ON evaluations (candidate_version_id);
CREATE INDEX releases_by_version ON releases (version_id);
"""
    + MIGRATION
)

_HEADER = b"SQLite format 3\x00"
# SQLite's primary result codes for a damaged file.
_CORRUPT, _NOT_A_DATABASE = 11, 26
_DAMAGE_WORDS = ("malformed", "corrupt", "not a database", "no such table", "no such column")


def ledger_error(path, exc: BaseException) -> CouldNotFinishError:
    """A failure while writing to a valid ledger: could not finish (exit 3)."""
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        reason = exc.strerror or reason
    return CouldNotFinishError(f"cannot record in the ledger: {reason}", source=os.fspath(path))


def _refuse(path: str, message: str) -> InputError:
    return InputError(message, source=path)


def damaged(name: str, exc: BaseException) -> InputError:
    """One input error for a ledger SQLite finds damaged (a bad page, a missing table)."""
    return _refuse(name, f"is a damaged ledger ({one_phrase(exc)}); restore it from a backup")


def one_phrase(exc: BaseException) -> str:
    """An SQLite message, on one line and bounded."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_CORRUPT, _NOT_A_DATABASE):
        return True
    return any(word in str(exc).lower() for word in _DAMAGE_WORDS)


def _check_size(name: str, connection: sqlite3.Connection) -> None:
    """The file is as long as SQLite says its pages are (a truncated copy is not).

    Called inside a transaction, so no writer can change the file meanwhile. The
    file is never opened a second time here: closing another descriptor on it
    would drop the locks SQLite holds (POSIX locks belong to the process).
    """
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    try:
        size = os.stat(name).st_size
    except OSError as exc:
        raise _refuse(name, f"cannot read the ledger: {exc.strerror or exc}") from None
    if size < page_size * pages:
        raise _refuse(
            name,
            f"is a truncated or damaged ledger ({size} bytes, its header says {page_size * pages})",
        )


def _uri(name: str, mode: str, immutable: bool = False) -> str:
    return f"file:{quote(os.path.abspath(name))}?mode={mode}" + (
        "&immutable=1" if immutable else ""
    )


def _read_only_medium(name: str) -> bool:
    """The ledger sits on storage mounted read-only (no writer can exist there)."""
    try:
        return bool(os.statvfs(name).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _describe(name: str, connection: sqlite3.Connection) -> None:
    """Refuse a database that is not a ledger, or of another schema version."""
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
        raise _refuse(name, "is a buddy_eval ledger without a schema (damaged)")
    if version < MIGRATES_FROM:
        raise _refuse(
            name,
            f"is a ledger of schema version {version}, written by an earlier buddy_eval: it "
            "keeps one result per version and cannot tell golden-set revisions apart; start a "
            "new ledger (the old one stays readable by the buddy_eval that wrote it)",
        )


def has_table(connection: sqlite3.Connection, table: str) -> bool:
    """The ledger has ``table`` (a ledger of schema version 2 has no findings and no slices)."""
    return (
        connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
        ).fetchone()
        is not None
    )


def _migrate(connection: sqlite3.Connection) -> None:
    """In the open write transaction: bring a ledger of an earlier version to this schema."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    # One statement at a time: executescript would commit the transaction.
    for statement in _statements(MIGRATION):
        connection.execute(statement)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _statements(script: str) -> list[str]:
    """The SQL statements of a script, each complete (with the comments before it)."""
    out, current = [], ""
    for line in script.splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            out.append(current)
            current = ""
    return out


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
        finally:
            connection.close()
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(tmp, path)
    except (OSError, sqlite3.Error) as exc:
        raise ledger_error(path, exc) from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-journal")):
            with contextlib.suppress(OSError):
                os.unlink(leftover)


def _check_file(name: str, *, create: bool) -> bool:
    """Refuse a path that cannot hold a ledger; create a new one when asked."""
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
    with open(name, "rb") as handle:
        head = handle.read(20)
    if not head:
        raise _refuse(
            name, "is an empty file, not a buddy_eval ledger; give a new path or a ledger"
        )
    if not head.startswith(_HEADER):
        raise _refuse(name, "is not a buddy_eval ledger (not an SQLite database)")
    # A file left in write-ahead-log mode (an older ledger): a reader opening it the usual
    # way would create the -wal and -shm files beside it and leave them.
    return len(head) >= 20 and head[18] == 2


def _open(name: str, write: bool, wal: bool = False) -> sqlite3.Connection:
    # A reader opens a file as immutable where no writer can be (read-only storage), or
    # where one opened normally would leave side files (a WAL file with no log pending).
    pending = wal and os.path.exists(f"{name}-wal")
    immutable = _read_only_medium(name) or (wal and not pending)
    uri = _uri(name, "rw") if write else _uri(name, "ro", immutable=immutable)
    try:
        connection = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT)
    except sqlite3.Error as exc:
        raise _refuse(name, f"cannot open the ledger: {one_phrase(exc)}") from None
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def _enter(name: str, connection: sqlite3.Connection, write: bool, thorough: bool) -> None:
    """Begin the transaction, then judge the file."""
    connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    # The first read takes the shared lock: from here no other process can change the
    # file, so its size and its header can be compared.
    _describe(name, connection)
    _check_size(name, connection)
    if thorough:  # every page read once: damage anywhere is found before any work
        _quick_check(name, connection)
    connection.execute("SELECT count(*) FROM versions").fetchone()
    if write:
        _migrate(connection)


def _quick_check(name: str, connection: sqlite3.Connection) -> None:
    found = connection.execute("PRAGMA quick_check(1)").fetchone()[0]
    if found != "ok":
        raise damaged(name, sqlite3.DatabaseError(found))


def _guard(name: str, exc: sqlite3.Error, write: bool) -> BaseException:
    """What an SQLite error inside a ledger transaction means for the user.

    Called once the connection is closed: reading the header here cannot drop a lock.
    """
    if isinstance(exc, sqlite3.DatabaseError) and _is_damage(exc):
        return _truncation(name) or damaged(name, exc)
    if write:
        return ledger_error(name, exc)
    return CouldNotFinishError(f"cannot read the ledger: {one_phrase(exc)}", source=name)


def _truncation(name: str) -> InputError | None:
    """The error for a file shorter than its header says, else None."""
    try:
        with open(name, "rb") as handle:
            head = handle.read(100)
            size = os.fstat(handle.fileno()).st_size
    except OSError:
        return None
    if len(head) < 100:
        return _refuse(name, "is a truncated or damaged ledger (shorter than its header)")
    page_size = int.from_bytes(head[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] == head[92:96] and size < page_size * pages:
        return _refuse(
            name,
            f"is a truncated or damaged ledger ({size} bytes, its header says {page_size * pages})",
        )
    return None


@contextlib.contextmanager
def _transaction(name: str, *, write: bool, create: bool, thorough: bool):
    wal = _check_file(name, create=create)
    connection = _open(name, write=write, wal=wal)
    failure: sqlite3.Error | None = None
    try:
        _enter(name, connection, write=write, thorough=thorough or write)
        yield connection
        connection.execute("COMMIT")
    except sqlite3.Error as exc:
        failure = exc
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise
    finally:
        if failure is not None:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
        connection.close()
    if failure is not None:
        raise _guard(name, failure, write=write) from None


@contextlib.contextmanager
def reading(path, *, thorough: bool = False) -> Iterator[sqlite3.Connection]:
    """The ledger at ``path``, read-only, in one read transaction (a consistent snapshot).

    ``thorough`` also reads every page once (SQLite's quick check), so damage
    anywhere in the file is found now rather than by a later write.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or the ledger is
        damaged; nothing was changed.
    CouldNotFinishError
        The file could not be read for another reason (an I/O error).
    """
    with _transaction(os.fspath(path), write=False, create=False, thorough=thorough) as c:
        yield c


@contextlib.contextmanager
def writing(path, *, create: bool = False) -> Iterator[sqlite3.Connection]:
    """The ledger at ``path`` in one write transaction: all of it lands, or none of it.

    The file is checked whole first (a damaged ledger is never written to).

    Parameters
    ----------
    path : str or os.PathLike
    create : bool
        Make a new ledger when nothing is at ``path`` (its directory must exist).

    Raises
    ------
    InputError
        As :func:`reading`; or whatever the body raised (rolled back).
    CouldNotFinishError
        The ledger could not be written (read-only, disk full, locked too long).
    """
    with _transaction(os.fspath(path), write=True, create=create, thorough=True) as c:
        yield c


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
    with reading(name, thorough=True):
        pass
