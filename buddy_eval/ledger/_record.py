"""Recording an evaluation in the ledger: everything read off the Evaluation, nothing rescored.

:func:`prepare` turns an :class:`~buddy_eval.Evaluation` into the rows to
write (fingerprints, per-item outcomes from the gate's own grid, the exact
counts and the decision's checks); :meth:`Plan.check` finds a version label
the ledger already holds with other results; :meth:`Plan.write` writes it all
in one transaction. :func:`record` does the three.

Fingerprints
------------
- A golden item's fingerprint is the SHA-256 (hex) of the UTF-8 JSON array
  ``[item_id, item_type, required_source, keywords]`` (no spaces, non-ASCII
  kept), so an item keeps its fingerprint when other items change.
- A golden set's fingerprint is the SHA-256 of its items' fingerprints in
  golden order, one per line (``\\n``-joined).
- A version's ``results_sha256`` and the evaluation's ``input_sha256`` hash
  the result lines column by column (length, validity, lengths and bytes of
  each text column), so the same content loaded from a file, standard input
  or DataFrames has the same fingerprint.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyarrow as pa

from .._errors import InputError, quoted
from .._thresholds import decimal_text
from .._vocabulary import METRICS
from ._schema import connect, ledger_error, transaction

__all__ = ["Plan", "Recorded", "check_date", "prepare", "record"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(text: str | None, what: str = "--date") -> str | None:
    """A date as ``YYYY-MM-DD`` (a real calendar date), or None.

    Raises
    ------
    InputError
        Any other text.
    """
    if text is None:
        return None
    if not isinstance(text, str) or not _DATE.fullmatch(text):
        raise InputError(f"{what} must be a date as YYYY-MM-DD, got {quoted(text)}")
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{what} must be a calendar date, got {quoted(text)}") from None
    return text


def _text(value, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} must be UTF-8 text, got {quoted(value)}") from None
    return value


def now_utc() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def exact_text(value) -> str | None:
    """An exact value as text: ``'7/8'``, ``'2'``, a float's shortest decimal; None stays None."""
    if value is None:
        return None
    if isinstance(value, (Fraction, int)):
        return str(value)
    return decimal_text(value)


def _hash_strings(digest, values) -> None:
    """Feed a string column to ``digest`` canonically (whatever its pyarrow type or slicing)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    values = values.cast(pa.large_string())
    n = len(values)
    valid = np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=np.uint8)
    buffers = values.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[values.offset : values.offset + n + 1]
    digest.update(n.to_bytes(8, "little"))
    digest.update(valid.tobytes())
    digest.update(np.diff(offsets).astype("<i8").tobytes())
    if n and buffers[2] is not None:
        digest.update(memoryview(buffers[2])[int(offsets[0]) : int(offsets[-1])])


# A character JSON writes escaped: without any, a string's JSON is itself in quotes.
_ESCAPED = r'["\\\x00-\x1f]'


def _plain(values: pa.Array) -> bool:
    """No value holds a character JSON escapes (checked at once, in pyarrow)."""
    import pyarrow.compute as pc

    if len(values) == 0:
        return True
    found = pc.match_substring_regex(values, _ESCAPED)
    return not pc.any(found).as_py()


def _golden_items(data) -> list[tuple]:
    """Per golden item: (fingerprint, item_id, item_type, required_source, keywords JSON).

    The canonical form is ``json.dumps([id, type, source, keywords],
    ensure_ascii=False, separators=(",", ":"))``; when no text needs escaping
    it is written directly (the same characters, much faster).
    """
    import pyarrow.compute as pc

    golden = data.golden_columns
    ids = golden.item_id.to_pylist()
    sources = golden.required_source.to_pylist()
    types = np.where(golden.is_answer, "ANSWER", "REFUSE").tolist()
    sha256 = hashlib.sha256
    plain = (
        _plain(golden.item_id)
        and _plain(golden.required_source.drop_null())
        and _plain(pc.list_flatten(golden.keywords))
    )
    if not plain:
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
        keywords = [k or [] for k in golden.keywords.to_pylist()]
        return [
            (sha256(dumps([i, t, s, k]).encode("utf-8")).hexdigest(), i, t, s, dumps(k))
            for i, t, s, k in zip(ids, types, sources, keywords, strict=True)
        ]
    # The same text as json.dumps, built column-wise.
    join = pc.binary_join_element_wise
    counts = pc.list_value_length(golden.keywords).fill_null(0)
    words = pc.if_else(
        pc.equal(counts, 0),
        pa.scalar("[]"),
        join(pa.scalar('["'), pc.binary_join(golden.keywords, '","'), pa.scalar('"]'), ""),
    )
    source = pc.if_else(
        pc.is_null(golden.required_source),
        pa.scalar("null"),
        join(pa.scalar('"'), golden.required_source.fill_null(""), pa.scalar('"'), ""),
    )
    canonical = join(
        pa.scalar('["'), golden.item_id, pa.scalar('","'), pa.array(types, pa.string()),
        pa.scalar('",'), source, pa.scalar(","), words, pa.scalar("]"), "",
    )  # fmt: skip
    return [
        (sha256(c.encode("utf-8")).hexdigest(), i, t, s, w)
        for c, i, t, s, w in zip(
            canonical.to_pylist(), ids, types, sources, words.to_pylist(), strict=True
        )
    ]


@dataclass
class _Version:
    label: str
    results_sha256: str
    rows: list  # results columns: position, trial, cited, refused, answer
    outcomes: list  # outcomes columns: position, trials, correct, cited_ok, refused_ok, violation


@dataclass
class Plan:
    """Everything one evaluation writes, computed before the ledger is touched."""

    source: str
    input_sha256: str
    settings: str
    golden_fingerprint: str
    items: list  # (fingerprint, item_id, item_type, required_source, keywords JSON)
    versions: list[_Version]
    baseline: str
    candidate: str
    thresholds: tuple[str, ...]
    rule: str
    margin: str | None
    min_paired: int
    trials: bool
    verdict: str
    reasons: str
    metrics: list  # (label, metric, numerator, denominator, missing)
    checks: list  # (position, kind, metric, candidate, reference, blocks, measured, bound)
    answers_kept: bool
    date: str | None = None
    note: str | None = None
    reused: tuple[str, ...] = ()  # versions taken from the ledger (the live baseline)

    def check(self, connection: sqlite3.Connection) -> None:
        """Raise :class:`InputError` when a version label is recorded with other results."""
        for version in self.versions:
            row = connection.execute(
                "SELECT v.results_sha256, g.fingerprint FROM versions v "
                "JOIN golden_sets g ON g.id = v.golden_set_id WHERE v.label = ?",
                (version.label,),
            ).fetchone()
            if row is None:
                continue
            results, golden = row
            if golden != self.golden_fingerprint:
                raise InputError(
                    f"version {quoted(version.label)} is already in the ledger, scored on "
                    f"another golden set ({golden[:12]}, this input's is "
                    f"{self.golden_fingerprint[:12]}); the results of a version are facts: "
                    "give these results a new version label"
                )
            if results != version.results_sha256:
                raise InputError(
                    f"version {quoted(version.label)} is already in the ledger with different "
                    "results; the results of a version are facts: give these results a new "
                    "version label"
                )

    def existing(self, connection: sqlite3.Connection) -> int | None:
        """The id of this very evaluation (same input, same settings) when already recorded."""
        row = connection.execute(
            "SELECT id FROM evaluations WHERE input_sha256 = ? AND settings = ?",
            (self.input_sha256, self.settings),
        ).fetchone()
        return None if row is None else int(row[0])

    def write(self, connection: sqlite3.Connection) -> Recorded:
        """Write the evaluation in one transaction; nothing when it is already there."""
        with transaction(connection):
            found = self.existing(connection)
            if found is not None:
                return Recorded(found, False, ())
            self.check(connection)
            golden_set_id = self._golden_set(connection)
            added = []
            ids = {}
            for label in self.reused:
                row = connection.execute(
                    "SELECT id FROM versions WHERE label = ?", (label,)
                ).fetchone()
                if row is None:
                    raise InputError(f"version {quoted(label)} is no longer in the ledger")
                ids[label] = int(row[0])
            for version in self.versions:
                row = connection.execute(
                    "SELECT id FROM versions WHERE label = ?", (version.label,)
                ).fetchone()
                if row is None:
                    ids[version.label] = self._insert_version(connection, version, golden_set_id)
                    added.append(version.label)
                else:
                    ids[version.label] = int(row[0])
            evaluation_id = connection.execute(
                "INSERT INTO evaluations (input_sha256, settings, source, golden_set_id, "
                "baseline_version_id, candidate_version_id, threshold_correctness, "
                "threshold_citation, threshold_refusal, rule, margin, min_paired, trials, "
                "verdict, reasons, buddy_eval_version, date, note, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.input_sha256,
                    self.settings,
                    self.source,
                    golden_set_id,
                    ids[self.baseline],
                    ids[self.candidate],
                    *self.thresholds,
                    self.rule,
                    self.margin,
                    self.min_paired,
                    int(self.trials),
                    self.verdict,
                    self.reasons,
                    _package_version(),
                    self.date,
                    self.note,
                    now_utc(),
                ),
            ).lastrowid
            connection.executemany(
                "INSERT INTO evaluation_metrics (evaluation_id, version_id, metric, numerator, "
                "denominator, missing) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (evaluation_id, ids[label], metric, _integer(num), _integer(den), miss)
                    for label, metric, num, den, miss in self.metrics
                ],
            )
            connection.executemany(
                "INSERT INTO checks (evaluation_id, position, kind, metric, candidate, "
                "reference, blocks, measured, bound) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(evaluation_id, *check) for check in self.checks],
            )
            return Recorded(new_id(evaluation_id), True, tuple(added))

    def _golden_set(self, connection: sqlite3.Connection) -> int:
        row = connection.execute(
            "SELECT id FROM golden_sets WHERE fingerprint = ?", (self.golden_fingerprint,)
        ).fetchone()
        if row is not None:
            return int(row[0])
        golden_set_id = connection.execute(
            "INSERT INTO golden_sets (fingerprint, item_count) VALUES (?, ?)",
            (self.golden_fingerprint, len(self.items)),
        ).lastrowid
        connection.executemany(
            "INSERT INTO golden_items (golden_set_id, position, fingerprint, item_id, "
            "item_type, required_source, keywords) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((golden_set_id, position, *item) for position, item in enumerate(self.items)),
        )
        return new_id(golden_set_id)

    def _insert_version(self, connection, version: _Version, golden_set_id: int) -> int:
        version_id = connection.execute(
            "INSERT INTO versions (label, golden_set_id, results_sha256, result_lines, "
            "answers_kept) VALUES (?, ?, ?, ?, ?)",
            (
                version.label,
                golden_set_id,
                version.results_sha256,
                len(version.rows[0]),
                int(self.answers_kept),
            ),
        ).lastrowid
        # One packed row per version each: hundreds of thousands of items cost one insert.
        items = json.dumps(list(zip(*version.outcomes[1:], strict=True)), separators=(",", ":"))
        connection.execute(
            "INSERT INTO packed_outcomes (version_id, items) VALUES (?, ?)", (version_id, items)
        )
        lines = json.dumps(
            list(zip(*version.rows, strict=True)), ensure_ascii=False, separators=(",", ":")
        )
        connection.execute(
            "INSERT INTO packed_results (version_id, lines) VALUES (?, ?)", (version_id, lines)
        )
        return new_id(version_id)


def new_id(rowid: int | None) -> int:
    """The id SQLite gave the row just inserted."""
    if rowid is None:  # pragma: no cover - an INSERT always sets it
        raise sqlite3.InterfaceError("no row id after an insert")
    return rowid


def _integer(value) -> int | str:
    """An exact count: an int when SQLite's 64-bit integers hold it, else its digits."""
    value = int(value)
    return value if -(2**63) <= value < 2**63 else str(value)


def _package_version() -> str:
    from .. import __version__

    return __version__


@dataclass(frozen=True)
class Recorded:
    """What :func:`record` did.

    Attributes
    ----------
    evaluation_id : int
        The evaluation's id in the ledger (the earlier one when already recorded).
    new : bool
        False when the same input with the same settings was already recorded:
        nothing was written.
    versions_added : tuple of str
        Version labels recorded for the first time.
    """

    evaluation_id: int
    new: bool
    versions_added: tuple[str, ...]

    @property
    def message(self) -> str:
        """One line saying what was recorded, or that nothing changed."""
        if not self.new:
            return (
                f"already recorded as evaluation {self.evaluation_id} (same input, same "
                "settings); nothing changed"
            )
        added = ", ".join(quoted(v) for v in self.versions_added) or "none"
        return f"recorded evaluation {self.evaluation_id}; new versions: {added}"


def _settings_key(evaluation, live: int | None) -> str:
    settings = {
        k: (decimal_text(v) if isinstance(v, float) else v)
        for k, v in dataclasses.asdict(evaluation.settings).items()
    }
    settings.update(
        baseline=evaluation.baseline,
        candidate=evaluation.candidate,
        trials=bool(evaluation.data.trials),
    )
    if live is not None:
        settings["live_release"] = live
    return json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _where(applies: np.ndarray, values: np.ndarray) -> list:
    """``values`` as Python ints, None where the check does not apply."""
    column = values.astype(object)
    column[~applies] = None
    return column.tolist()


def _versions(evaluation, answers: bool, skip: tuple[str, ...] = ()) -> list[_Version]:
    """Per version in the input: its result lines and per-item outcomes from the gate's grid."""
    data = evaluation.data
    grid = evaluation._all_versions_grid
    results, join = data.result_columns, data.join
    n_items = len(data.golden_columns)
    is_answer = data.golden_columns.is_answer
    if grid.trials is not None:
        trials, passes = grid.trials, grid.passes
    else:
        trials = grid.present.astype(np.int64)
        passes = {m: f.astype(np.int64) for m, f in grid.flags().items()}
    trial = join.trial if join.trial is not None else np.zeros(len(join.item), np.int64)
    answer_column = results.answer.column()
    out = []
    for v, label in enumerate(grid.versions):
        if label in skip:
            continue
        cells = slice(v * n_items, (v + 1) * n_items)
        # Columns, NULL where a check is not of the item's type.
        outcomes = [
            list(range(n_items)),
            trials[cells].tolist(),
            *(
                _where(applies, passes[m][cells])
                for m, applies in (
                    ("correctness", is_answer),
                    ("citation", is_answer),
                    ("refusal", ~is_answer),
                    ("violations", ~is_answer),
                )
            ),
        ]
        code = data.join.versions.index(label)
        mine = np.flatnonzero((join.version == code) & (join.item >= 0))
        mine = mine[np.lexsort((trial[mine], join.item[mine]))]
        taken = pa.array(mine, pa.int64())
        cited = results.cited.take(taken)
        said = answer_column.take(taken)
        refused = results.refused[mine]
        digest = hashlib.sha256()
        digest.update(join.item[mine].astype("<i8").tobytes())
        digest.update(trial[mine].astype("<i8").tobytes())
        digest.update(refused.astype(np.uint8).tobytes())
        _hash_strings(digest, results.item_id.take(taken))
        _hash_strings(digest, cited)
        _hash_strings(digest, said)
        rows = [
            join.item[mine].tolist(),
            trial[mine].tolist(),
            cited.to_pylist(),
            refused.astype(np.int64).tolist(),
            said.to_pylist() if answers else [None] * len(mine),
        ]
        out.append(_Version(label, digest.hexdigest(), rows, outcomes))
    return out


def prepare(
    evaluation,
    *,
    date: str | None = None,
    note: str | None = None,
    no_answers: bool = False,
    live: int | None = None,
) -> Plan:
    """The rows recording ``evaluation`` writes, computed without touching a ledger.

    ``live`` is the release whose version is the baseline, read from the
    ledger (``--baseline live``): that version is not recorded again.

    Raises
    ------
    InputError
        Not an Evaluation, or a bad ``date`` or ``note``.
    """
    from .._evaluation import Evaluation

    if not isinstance(evaluation, Evaluation):
        raise InputError(
            f"record takes an Evaluation (see buddy_eval.evaluate), got {type(evaluation).__name__}"
        )
    date = check_date(date, "date")
    note = _text(note, "note")
    data = evaluation.data
    items = _golden_items(data)
    golden_fingerprint = hashlib.sha256("\n".join(i[0] for i in items).encode()).hexdigest()

    results = data.result_columns
    digest = hashlib.sha256()
    thresholds = tuple(str(data.thresholds[m]) for m in ("correctness", "citation", "refusal"))
    digest.update(("THRESHOLDS " + " ".join(thresholds) + "\n").encode())
    digest.update(golden_fingerprint.encode())
    for column in (results.version, results.item_id, results.cited, results.answer.column()):
        _hash_strings(digest, column)
    digest.update(np.asarray(results.refused, dtype=np.uint8).tobytes())
    if data.join.trial is not None:
        digest.update(data.join.trial.astype("<i8").tobytes())

    counts = evaluation.counts
    metrics = []
    for label in counts.versions:
        parts = counts.parts(label)
        row = counts.versions.index(label)
        for k, metric in enumerate(METRICS):
            num, den = parts[metric]
            metrics.append((label, metric, num, den, int(counts.missing[row, k])))
    checks = [
        (
            position,
            c.kind,
            c.metric,
            exact_text(c.candidate),
            exact_text(c.reference),
            int(c.blocks),
            int(c.measured),
            None if c.bound is None else float(c.bound),
        )
        for position, c in enumerate(evaluation.decision.checks)
    ]
    settings = evaluation.settings
    return Plan(
        source=data.source,
        input_sha256=digest.hexdigest(),
        settings=_settings_key(evaluation, live),
        golden_fingerprint=golden_fingerprint,
        items=items,
        versions=_versions(
            evaluation, not no_answers, (evaluation.baseline,) if live is not None else ()
        ),
        baseline=evaluation.baseline,
        candidate=evaluation.candidate,
        thresholds=thresholds,
        rule=settings.rule,
        margin=None if settings.margin is None else decimal_text(settings.margin),
        min_paired=settings.min_paired,
        trials=bool(data.trials),
        verdict="RELEASE" if evaluation.decision.release else "BLOCK",
        reasons=json.dumps(list(evaluation.decision.reasons)),
        metrics=metrics,
        checks=checks,
        answers_kept=not no_answers,
        date=date,
        note=note,
        reused=(evaluation.baseline,) if live is not None else (),
    )


def record(
    evaluation,
    ledger_path: str | os.PathLike[str],
    *,
    date: str | None = None,
    note: str | None = None,
    no_answers: bool = False,
) -> Recorded:
    """Record an evaluation in the ledger at ``ledger_path`` (created when missing).

    The golden set (with its fingerprint and one per item), every version in
    the input with its per-item outcomes and result lines (answers unless
    ``no_answers``), the exact counts of every version, the verdict, its
    checks and reasons, the thresholds and settings are written in one
    transaction. Recording the same input with the same settings again
    writes nothing (:attr:`Recorded.new` is False).

    Parameters
    ----------
    evaluation : Evaluation
        What :func:`buddy_eval.evaluate` returned.
    ledger_path : str or os.PathLike
        The ledger file.
    date : str, optional
        The evaluation's date, ``YYYY-MM-DD``.
    note : str, optional
        Free text kept with the evaluation.
    no_answers : bool
        Keep the answer texts out of the ledger (the outcomes are kept).

    Returns
    -------
    Recorded
        The evaluation's id, whether it was new, and the versions added.

    Raises
    ------
    InputError
        ``ledger_path`` is not a ledger (not SQLite, another schema, a
        directory, a device, a symbolic link, ...), or a version label in the
        input is already in the ledger with other results. Nothing is written.
    CouldNotFinishError
        The ledger could not be written (read-only, disk full).
    """
    plan = prepare(evaluation, date=date, note=note, no_answers=no_answers)
    connection = connect(ledger_path, create=True, write=True)
    try:
        return plan.write(connection)
    except sqlite3.Error as exc:
        raise ledger_error(ledger_path, exc) from None
    finally:
        connection.close()
