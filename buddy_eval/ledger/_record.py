"""Recording an evaluation in the ledger: everything read off the Evaluation, nothing rescored.

:func:`prepare` turns an :class:`~buddy_eval.Evaluation` into the rows to
write (fingerprints, per-item outcomes from the gate's own grid, the exact
counts and the decision's checks); :meth:`Plan.check` finds a result that
contradicts one the ledger holds; :meth:`Plan.write` writes it all in one
transaction. :func:`record` does the three.

Results are facts per item
--------------------------
A version's result on an item with a given fingerprint never changes once
recorded. Recording a version again, on the same golden set or on another
revision, adds its results for the items it has none for (added or changed
items, or items it had no result for); a result that differs from the
stored one for the same item fingerprint (another answer, flag or source,
or another number of trials) is refused, and nothing is written.

Fingerprints
------------
- A golden item's fingerprint is the SHA-256 (hex) of the UTF-8 JSON array
  ``[item_id, item_type, required_source, keywords]`` (no spaces, non-ASCII
  kept), so an item keeps its fingerprint when other items change.
- A golden set's fingerprint is the SHA-256 of its items' fingerprints,
  sorted, one per line (``\\n``-joined): the order of the items is no change.
- A version's results are hashed in a canonical form: per item (by
  fingerprint), its result lines sorted, so the same results in another
  line order are the same results; the evaluation's ``input_sha256`` hashes
  the thresholds, the golden set and every version's results that way.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import getpass
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyarrow as pa

from .._errors import InputError, quoted
from .._phrases import verdict_word
from .._thresholds import decimal_text
from .._vocabulary import METRICS
from ..formatting import format_count
from . import _store
from ._schema import ledger_error, writing

__all__ = ["Plan", "Provenance", "Recorded", "check_date", "prepare", "record"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Characters of a ``--by`` name, a commit, a run URL or a pipeline kept at most.
_PROVENANCE_LIMIT = 500


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


def today() -> str:
    """Today's date (UTC), ``YYYY-MM-DD``."""
    return dt.datetime.now(dt.UTC).date().isoformat()


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


@dataclass(frozen=True)
class Provenance:
    """Who recorded a row, and where: the CI run when there is one.

    ``commit``, ``run_url`` and ``pipeline`` come from the standard GitHub
    Actions variables (``GITHUB_SHA``, ``GITHUB_SERVER_URL``,
    ``GITHUB_REPOSITORY``, ``GITHUB_RUN_ID``, ``GITHUB_WORKFLOW``,
    ``GITHUB_RUN_NUMBER``) or GitLab CI variables (``CI_COMMIT_SHA``,
    ``CI_JOB_URL``, ``CI_PIPELINE_URL``), when present.

    Attributes
    ----------
    by : str
        Who recorded the row (``--by``, default the user name).
    commit, run_url, pipeline : str or None
        The CI run's commit, its URL and the pipeline (None outside CI).

    Examples
    --------
    >>> from buddy_eval import ledger
    >>> ledger.Provenance.here(by="ci", environ={})
    Provenance(by='ci', commit=None, run_url=None, pipeline=None)
    >>> github = {"GITHUB_ACTIONS": "true", "GITHUB_SHA": "4802f18",
    ...           "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "course/buddy",
    ...           "GITHUB_RUN_ID": "42", "GITHUB_WORKFLOW": "gate", "GITHUB_RUN_NUMBER": "7"}
    >>> found = ledger.Provenance.here(by="ci", environ=github)
    >>> found.commit, found.run_url, found.pipeline
    ('4802f18', 'https://github.com/course/buddy/actions/runs/42', 'gate #7')
    """

    by: str
    commit: str | None = None
    run_url: str | None = None
    pipeline: str | None = None

    @classmethod
    def here(cls, by: str | None = None, environ=None) -> Provenance:
        """``by`` (default: the user name) and the CI run read from ``environ``."""
        env = os.environ if environ is None else environ
        if by is None:
            try:
                by = getpass.getuser()
            except (OSError, KeyError, ImportError):
                by = "unknown"
        by = _text(by, "--by")
        if not by or not by.strip():
            raise InputError("--by is empty; give who records this")
        commit = run_url = pipeline = None
        if env.get("GITHUB_ACTIONS") == "true":
            commit = env.get("GITHUB_SHA")
            parts = [
                env.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
            ]
            if all(parts):
                run_url = f"{parts[0]}/{parts[1]}/actions/runs/{parts[2]}"
            workflow, number = env.get("GITHUB_WORKFLOW"), env.get("GITHUB_RUN_NUMBER")
            pipeline = f"{workflow} #{number}" if workflow and number else workflow
        elif env.get("GITLAB_CI") == "true":
            commit = env.get("CI_COMMIT_SHA")
            run_url = env.get("CI_JOB_URL")
            pipeline = env.get("CI_PIPELINE_URL") or env.get("CI_PIPELINE_ID")

        def bounded(value):
            return None if not value else str(value)[:_PROVENANCE_LIMIT]

        return cls(
            str(by)[:_PROVENANCE_LIMIT], bounded(commit), bounded(run_url), bounded(pipeline)
        )

    def columns(self) -> tuple:
        return (self.by, self.commit, self.run_url, self.pipeline)


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
        pa.scalar('["'),
        golden.item_id,
        pa.scalar('","'),
        pa.array(types, pa.string()),
        pa.scalar('",'),
        source,
        pa.scalar(","),
        words,
        pa.scalar("]"),
        "",
    )
    return [
        (sha256(c.encode("utf-8")).hexdigest(), i, t, s, w)
        for c, i, t, s, w in zip(
            canonical.to_pylist(), ids, types, sources, words.to_pylist(), strict=True
        )
    ]


@dataclass
class _Version:
    """One version's results in the input, per golden position (input order)."""

    label: str
    digest: str  # canonical: per item fingerprint, its lines sorted
    outcomes: list  # (position, trials, correct, cited_ok, refused_ok, violation, passed)
    lines: list  # (position, trial, cited, refused, answer), by (position, trial)
    answers: bool  # the answers are kept
    source: str = ""  # the input, and per position the line of its first result there
    line_of: dict = dataclasses.field(default_factory=dict)
    unit: str = "line"  # "row" for DataFrames

    def per_item(self) -> dict[int, list]:
        """Per input position, its result lines as :func:`~._store.canonical_lines` gives them."""
        found: dict[int, list] = {}
        for position, _trial, cited, refused, answer in self.lines:
            found.setdefault(position, []).append((cited, refused, answer))
        return {position: _store.canonical_lines(lines) for position, lines in found.items()}


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
    compared_items: int
    not_compared: list[str]
    verdict: str
    reasons: str
    metrics: list  # (label, metric, numerator, denominator, missing)
    checks: list  # (position, kind, metric, candidate, reference, blocks, measured, bound,
    #               bound_method)
    date: str
    note: str | None
    provenance: Provenance
    live_release: int | None = None
    #: The doctor's findings on the golden set: (check, severity, [ids], message), worst
    #: first. Called only when the revision holds none yet: recording a revision the ledger
    #: already diagnosed runs no doctor.
    findings: Callable[[], list] = list
    #: With slices: (source, assignment SHA-256, names, per input position its slice's index).
    slices: tuple | None = None

    def check(self, connection: sqlite3.Connection, name: str) -> None:
        """Raise :class:`InputError` when a result contradicts one the ledger holds."""
        golden = self._stored_golden(connection)
        for version in self.versions:
            row = connection.execute(
                "SELECT id FROM versions WHERE label = ?", (version.label,)
            ).fetchone()
            if row is not None:
                self._new_facts(connection, name, int(row[0]), version, golden)

    def existing(self, connection: sqlite3.Connection) -> int | None:
        """The id of this very evaluation (same input, same settings) when already recorded."""
        row = connection.execute(
            "SELECT id FROM evaluations WHERE input_sha256 = ? AND settings = ?",
            (self.input_sha256, self.settings),
        ).fetchone()
        return None if row is None else int(row[0])

    def _stored_golden(self, connection) -> tuple[int, list[int]] | None:
        """This golden set's id and, per input position, its stored position (None: new)."""
        row = connection.execute(
            "SELECT id FROM golden_sets WHERE fingerprint = ?", (self.golden_fingerprint,)
        ).fetchone()
        if row is None:
            return None
        stored = {
            fp: position
            for position, fp in connection.execute(
                "SELECT position, fingerprint FROM golden_items WHERE golden_set_id = ?",
                (int(row[0]),),
            )
        }
        return int(row[0]), [stored[item[0]] for item in self.items]

    def _new_facts(self, connection, name: str, version_id: int, version: _Version, golden):
        """The outcomes and lines of ``version`` the ledger lacks; refuse a contradiction."""
        if golden is not None:
            known = connection.execute(
                "SELECT 1 FROM result_sets WHERE version_id = ? AND golden_set_id = ? "
                "AND input_results_sha256 = ?",
                (version_id, golden[0], version.digest),
            ).fetchone()
            if known is not None:  # these very results were recorded on this golden set
                return [], []
        facts = _store.version_facts(connection, name, version_id)
        if not facts:
            return version.outcomes, version.lines
        new_lines = version.per_item()
        fresh = []
        for outcome in version.outcomes:
            position = outcome[0]
            fingerprint, item_id = self.items[position][0], self.items[position][1]
            stored = facts.get(fingerprint)
            if stored is None:
                fresh.append(position)
                continue
            mine = new_lines[position]
            if not stored.answers_kept:  # stored without answers: compare what was kept
                mine = _store.canonical_lines((c, r, None) for c, r, _ in mine)
            there = stored.canonical()
            if stored.outcome != tuple(outcome[1:]) or there != mine:
                what = (
                    f"{format_count(len(there), 'trial')} there, {len(mine)} here"
                    if len(there) != len(mine)
                    else "another result"
                )
                raise InputError(
                    f"version {quoted(version.label)} already has a result for item "
                    f"{quoted(item_id)} in the ledger ({what}); the results of a version are "
                    "facts: give these results a new version label",
                    source=version.source or None,
                    line=version.line_of.get(position),
                    unit=version.unit,
                )
        keep = set(fresh)
        return (
            [o for o in version.outcomes if o[0] in keep],
            [line for line in version.lines if line[0] in keep],
        )

    def write(self, connection: sqlite3.Connection, name: str = "") -> Recorded:
        """Write the evaluation in the open write transaction; nothing when already there."""
        found = self.existing(connection)
        if found is not None:
            return Recorded(found, False, (), ())
        golden = self._stored_golden(connection)
        golden_set_id = golden[0] if golden is not None else self._insert_golden(connection)
        positions = golden[1] if golden is not None else list(range(len(self.items)))
        ids: dict[str, int] = {}
        added, extended = [], []
        for version in self.versions:
            row = connection.execute(
                "SELECT id FROM versions WHERE label = ?", (version.label,)
            ).fetchone()
            if row is None:
                version_id = new_id(
                    connection.execute(
                        "INSERT INTO versions (label) VALUES (?)", (version.label,)
                    ).lastrowid
                )
                outcomes, lines = version.outcomes, version.lines
                added.append(version.label)
            else:
                version_id = int(row[0])
                outcomes, lines = self._new_facts(connection, name, version_id, version, golden)
                if outcomes:
                    extended.append(version.label)
            ids[version.label] = version_id
            if outcomes:
                self._insert_results(
                    connection, version_id, golden_set_id, version, outcomes, lines, positions
                )
        fields = (
            self.input_sha256,
            self.settings,
            self.source,
            golden_set_id,
            ids[self.baseline],
            ids[self.candidate],
            self.live_release,
            *self.thresholds,
            self.rule,
            self.margin,
            self.min_paired,
            int(self.trials),
            self.compared_items,
            json.dumps(self.not_compared, ensure_ascii=False),
            self.verdict,
            self.reasons,
            _package_version(),
            self.date,
            self.note,
            *self.provenance.columns(),
            now_utc(),
        )
        metrics = [
            (ids[label], metric, _integer(num), _integer(den), miss)
            for label, metric, num, den, miss in self.metrics
        ]
        digest = _store.evaluation_row_sha256(fields, metrics, self.checks)
        evaluation_id = new_id(
            connection.execute(
                "INSERT INTO evaluations (input_sha256, settings, source, golden_set_id, "
                "baseline_version_id, candidate_version_id, live_release_id, "
                "threshold_correctness, threshold_citation, threshold_refusal, rule, margin, "
                "min_paired, trials, compared_items, not_compared, verdict, reasons, "
                "buddy_eval_version, date, note, recorded_by, commit_sha, run_url, pipeline, "
                "recorded_at, sha256) "
                f"VALUES ({', '.join('?' * (len(fields) + 1))})",
                (*fields, digest),
            ).lastrowid
        )
        connection.executemany(
            "INSERT INTO evaluation_metrics (evaluation_id, version_id, metric, numerator, "
            "denominator, missing) VALUES (?, ?, ?, ?, ?, ?)",
            [(evaluation_id, *m) for m in metrics],
        )
        connection.executemany(
            "INSERT INTO checks (evaluation_id, position, kind, metric, candidate, "
            "reference, blocks, measured, bound, bound_method) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(evaluation_id, *check) for check in self.checks],
        )
        self._insert_findings(connection, golden_set_id)
        if self.slices is not None:
            self._insert_slices(connection, evaluation_id, positions)
        return Recorded(evaluation_id, True, tuple(added), tuple(extended))

    def _insert_findings(self, connection: sqlite3.Connection, golden_set_id: int) -> None:
        """The doctor's findings, once per revision: the first recording of it keeps them."""
        held = connection.execute(
            "SELECT 1 FROM golden_set_findings WHERE golden_set_id = ?", (golden_set_id,)
        ).fetchone()
        if held is not None:
            return
        packed = json.dumps(self.findings(), ensure_ascii=False, separators=(",", ":"))
        connection.execute(
            "INSERT INTO golden_set_findings (golden_set_id, findings, sha256) VALUES (?, ?, ?)",
            (golden_set_id, packed, _store.findings_row_sha256(golden_set_id, packed)),
        )

    def _insert_slices(self, connection, evaluation_id: int, positions: list[int]) -> None:
        """Each golden item's slice, by its stored position."""
        assert self.slices is not None
        source, digest, names, codes = self.slices
        stored = [0] * len(codes)
        for position, code in enumerate(codes):
            stored[positions[position]] = code
        packed_names = json.dumps(list(names), ensure_ascii=False, separators=(",", ":"))
        packed_codes = json.dumps(stored, separators=(",", ":"))
        row = (evaluation_id, source, digest, packed_names, packed_codes)
        connection.execute(
            "INSERT INTO evaluation_slices (evaluation_id, source, assignment_sha256, names, "
            "codes, sha256) VALUES (?, ?, ?, ?, ?, ?)",
            (*row, _store.slices_row_sha256(*row)),
        )

    def _insert_golden(self, connection: sqlite3.Connection) -> int:
        count = connection.execute("SELECT count(*) FROM golden_sets").fetchone()[0]
        golden_set_id = new_id(
            connection.execute(
                "INSERT INTO golden_sets (revision, fingerprint, item_count) VALUES (?, ?, ?)",
                (f"r{int(count) + 1}", self.golden_fingerprint, len(self.items)),
            ).lastrowid
        )
        connection.executemany(
            "INSERT INTO golden_items (golden_set_id, position, fingerprint, item_id, "
            "item_type, required_source, keywords) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ((golden_set_id, position, *item) for position, item in enumerate(self.items)),
        )
        return golden_set_id

    def _insert_results(
        self, connection, version_id, golden_set_id, version, outcomes, lines, positions
    ) -> None:
        moved = positions != list(range(len(positions)))
        if moved:  # the golden set was first recorded with its items in another order
            outcomes = sorted((positions[o[0]], *o[1:]) for o in outcomes)
            lines = sorted((positions[x[0]], *x[1:]) for x in lines)
        packed_outcomes = json.dumps(outcomes, separators=(",", ":"))
        packed_lines = json.dumps(lines, ensure_ascii=False, separators=(",", ":"))
        row = (
            version_id,
            golden_set_id,
            len(outcomes),
            len(lines),
            int(version.answers),
            packed_outcomes,
            packed_lines,
            version.digest,
        )
        connection.execute(
            "INSERT INTO result_sets (version_id, golden_set_id, items, result_lines, "
            "answers_kept, outcomes, lines, input_results_sha256, sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*row, _store.result_set_sha256(*row)),
        )


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
    versions_extended : tuple of str
        Version labels already in the ledger that gained results for items
        they had none for (a golden set that grew, or changed items).

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    Recorded(evaluation_id=1, new=True, versions_added=('OLD', 'NEW'), versions_extended=())
    >>> tmp.cleanup()
    """

    evaluation_id: int
    new: bool
    versions_added: tuple[str, ...]
    versions_extended: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        """One line saying what was recorded, or that nothing changed."""
        if not self.new:
            return (
                f"already recorded as evaluation {self.evaluation_id} (same input, same "
                "settings); nothing changed"
            )
        added = ", ".join(quoted(v) for v in self.versions_added) or "none"
        text = f"recorded evaluation {self.evaluation_id}; new versions: {added}"
        if self.versions_extended:
            more = ", ".join(quoted(v) for v in self.versions_extended)
            text += f"; results added for items new to {more}"
        return text


def _settings_key(evaluation) -> str:
    settings = {
        k: (decimal_text(v) if isinstance(v, float) else v)
        for k, v in dataclasses.asdict(evaluation.settings).items()
    }
    settings.update(
        baseline=evaluation.baseline,
        candidate=evaluation.candidate,
        trials=bool(evaluation.data.trials),
    )
    if evaluation.slice_assignment is not None:  # the slices file is part of the identity
        settings["slices_sha256"] = evaluation.slice_assignment.digest
    return json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _where(applies: np.ndarray, values: np.ndarray) -> list:
    """``values`` as Python ints, None where the check does not apply."""
    column = values.astype(object)
    column[~applies] = None
    return column.tolist()


def _versions(evaluation, fingerprints: pa.Array, answers: bool) -> list[_Version]:
    """Per version in the input: its result lines and per-item outcomes from the gate's grid."""
    data = evaluation.data
    grid = evaluation._all_versions_grid
    results, join = data.result_columns, data.join
    n_items = len(data.golden_columns)
    is_answer = data.golden_columns.is_answer
    trials, passed, passes = grid.trials, grid.passes_all, grid.passes
    trial = join.trial if join.trial is not None else np.zeros(len(join.item), np.int64)
    answer_column = results.answer.column()
    out = []
    for v, label in enumerate(grid.versions):
        cells = slice(v * n_items, (v + 1) * n_items)
        held = trials[cells] > 0
        positions = np.flatnonzero(held)
        columns = [
            positions.tolist(),
            trials[cells][held].tolist(),
            *(
                _where(applies[held], passes[m][cells][held])
                for m, applies in (
                    ("correctness", is_answer),
                    ("citation", is_answer),
                    ("refusal", ~is_answer),
                    ("violations", ~is_answer),
                )
            ),
            passed[cells][held].tolist(),
        ]
        code = data.join.versions.index(label)
        mine = np.flatnonzero((join.version == code) & (join.item >= 0))
        mine = mine[np.lexsort((trial[mine], join.item[mine]))]
        taken = pa.array(mine, pa.int64())
        cited = results.cited.take(taken)
        said = answer_column.take(taken)
        refused = results.refused[mine]
        out.append(
            _Version(
                label,
                _canonical_digest(fingerprints, join.item[mine], cited, refused, said),
                list(zip(*columns, strict=True)),
                list(
                    zip(
                        join.item[mine].tolist(),
                        trial[mine].tolist(),
                        cited.to_pylist(),
                        refused.astype(np.int64).tolist(),
                        said.to_pylist() if answers else [None] * len(mine),
                        strict=True,
                    )
                ),
                answers,
                data.source,
                _first_lines(join.item[mine], results.line[mine]),
                "line" if data.results_line is not None else "row",
            )
        )
    return out


def _first_lines(items: np.ndarray, lines: np.ndarray) -> dict[int, int]:
    """Per golden position, the input line (or row) of its first result; 0: not in the input."""
    found: dict[int, int] = {}
    for item, line in zip(items.tolist(), lines.tolist(), strict=True):
        if line > 0:
            found.setdefault(item, line)
    return found


def _canonical_digest(fingerprints, item, cited, refused, answer) -> str:
    """SHA-256 of a version's result lines sorted by item fingerprint, then by their fields."""
    table = pa.table(
        {
            "item": pa.array(fingerprints).take(pa.array(item, pa.int64())),
            "cited": cited.cast(pa.large_string()),
            "refused": pa.array(refused, pa.bool_()),
            "answer": answer.cast(pa.large_string()),
        }
    )
    order = [(c, "ascending") for c in ("item", "cited", "refused", "answer")]
    table = table.sort_by(order) if len(table) else table
    digest = hashlib.sha256()
    for name in ("item", "cited", "answer"):
        _hash_strings(digest, table.column(name))
    digest.update(
        np.asarray(table.column("refused").to_numpy(zero_copy_only=False), np.uint8).tobytes()
    )
    return digest.hexdigest()


def prepare(
    evaluation,
    *,
    date: str | None = None,
    note: str | None = None,
    no_answers: bool = False,
    live_release: int | None = None,
    provenance: Provenance | None = None,
) -> Plan:
    """The rows recording ``evaluation`` writes, computed without touching a ledger.

    ``live_release`` is the release whose version is the baseline, read from
    the ledger (``--baseline live``).

    Raises
    ------
    InputError
        Not an Evaluation, or a bad ``date`` or ``note``.
    """
    from .._results import Results as Evaluation

    if not isinstance(evaluation, Evaluation):
        raise InputError(
            f"record takes an Evaluation (see buddy_eval.evaluate), got {type(evaluation).__name__}"
        )
    date = check_date(date, "--date") or today()
    note = _text(note, "--note")
    provenance = provenance or Provenance.here()
    data = evaluation.data
    items = _golden_items(data)
    golden_fingerprint = _store.set_fingerprint(i[0] for i in items)
    versions = _versions(evaluation, pa.array([i[0] for i in items], pa.string()), not no_answers)

    digest = hashlib.sha256()
    thresholds = tuple(str(data.thresholds[m]) for m in ("correctness", "citation", "refusal"))
    digest.update(("THRESHOLDS " + " ".join(thresholds) + "\n").encode())
    digest.update(golden_fingerprint.encode())
    for version in sorted(versions, key=lambda v: v.label):
        digest.update(json.dumps([version.label, version.digest]).encode())

    counts = evaluation.counts
    metrics = []
    for label in counts.versions:
        parts = counts.parts(label)
        row = counts.versions.index(label)
        for k, metric in enumerate(METRICS):
            num, den = parts[metric]
            metrics.append((label, metric, num, den, int(counts.missing[row, k])))
    methods = _bound_methods(evaluation)
    checks = [
        (
            position,
            c.kind,
            c.metric,
            exact_text(c.candidate),
            exact_text(c.reference),
            int(c.blocks),
            int(c.measured),
            _bound(c.bound),
            None if _bound(c.bound) is None else methods.get(c.metric),
        )
        for position, c in enumerate(evaluation.decision.checks)
    ]
    settings = evaluation.settings
    not_compared = evaluation.not_compared_ids()

    def findings() -> list:
        from ..doctor._run import evaluation_health

        return [
            [f.check, f.severity, list(f.ids), f.message]
            for f in evaluation_health(evaluation).findings
        ]

    assignment = evaluation.slice_assignment
    slices = (
        None
        if assignment is None
        else (assignment.source, assignment.digest, assignment.names, assignment.codes.tolist())
    )
    return Plan(
        source=data.source,
        input_sha256=digest.hexdigest(),
        settings=_settings_key(evaluation),
        golden_fingerprint=golden_fingerprint,
        items=items,
        versions=versions,
        baseline=evaluation.baseline,
        candidate=evaluation.candidate,
        thresholds=thresholds,
        rule=settings.rule,
        margin=None if settings.margin is None else decimal_text(settings.margin),
        min_paired=settings.min_paired,
        trials=bool(data.trials),
        compared_items=len(items) - len(not_compared),
        not_compared=not_compared,
        verdict=verdict_word(evaluation.decision.release),
        reasons=json.dumps(list(evaluation.decision.reasons)),
        metrics=metrics,
        checks=checks,
        date=date,
        note=note,
        provenance=provenance,
        live_release=live_release,
        findings=findings,
        slices=slices,
    )


def _bound(bound: float | None) -> float | None:
    """A stored bound; None for none, or NaN (the metric is not measured)."""
    return None if bound is None or bound != bound else float(bound)


def _bound_methods(evaluation) -> dict[str, str]:
    """Per rate metric, the method of its non-inferiority bound (when the rule used one)."""
    if evaluation.settings.rule != "noninferiority":
        return {}
    out = {}
    for m in evaluation.paired.metrics:
        method = m.noninferiority_method
        if method:
            out[m.metric] = str(method)
    return out


def record(
    evaluation,
    ledger_path: str | os.PathLike[str],
    *,
    date: str | None = None,
    note: str | None = None,
    no_answers: bool = False,
    by: str | None = None,
) -> Recorded:
    """Record an evaluation in the ledger at ``ledger_path`` (created when missing).

    The golden set (with its fingerprint and one per item), every version in
    the input with its per-item outcomes and result lines (answers unless
    ``no_answers``), the exact counts of every version, the verdict, its
    checks and reasons, the thresholds and settings are written in one
    transaction. A version already in the ledger gains its results on the
    items it had none for; recording the same input with the same settings
    again writes nothing (:attr:`Recorded.new` is False).

    Parameters
    ----------
    evaluation : Evaluation
        What :func:`buddy_eval.evaluate` returned.
    ledger_path : str or os.PathLike
        The ledger file.
    date : str, optional
        The evaluation's date, ``YYYY-MM-DD`` (default: today, UTC).
    note : str, optional
        Free text kept with the evaluation.
    no_answers : bool
        Keep the answer texts out of the ledger (the outcomes are kept).
    by : str, optional
        Who records it (default: the user name). The commit, run URL and
        pipeline are taken from GitHub Actions or GitLab CI when run there.

    Returns
    -------
    Recorded
        The evaluation's id, whether it was new, and the versions added.

    Raises
    ------
    InputError
        ``ledger_path`` is not a ledger (not SQLite, another schema, a
        directory, a device, a symbolic link, damaged, ...), or a result in
        the input contradicts one the ledger holds for the same version and
        item. Nothing is written.
    CouldNotFinishError
        The ledger could not be written (read-only, disk full).

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> ev = be.evaluate("data/example.txt")
    >>> recorded = be.record(ev, path, date="2026-03-01", by="ci")
    >>> recorded.message
    "recorded evaluation 1; new versions: 'OLD', 'NEW'"
    >>> be.record(ev, path, date="2026-03-01", by="ci").message    # the same input again
    'already recorded as evaluation 1 (same input, same settings); nothing changed'
    >>> tmp.cleanup()
    """
    plan = prepare(
        evaluation, date=date, note=note, no_answers=no_answers, provenance=Provenance.here(by)
    )
    name = os.fspath(ledger_path)
    try:
        with writing(name, create=True) as connection:
            return plan.write(connection, name)
    except sqlite3.Error as exc:  # pragma: no cover - writing() turns these into errors
        raise ledger_error(ledger_path, exc) from None
