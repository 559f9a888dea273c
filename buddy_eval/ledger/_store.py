"""Reading the ledger back: every row decoded and checked against its stored hash, here only.

Each stored row that carries a result, a verdict or a release carries the
SHA-256 of its content (:func:`row_sha256`), and every golden item its
fingerprint. Whatever reads stored facts (the live baseline, history,
``ledger show``, ``ledger verify``) reads them through this module, which
recomputes those hashes: a row changed outside buddy-eval, or one that
cannot be decoded, is one :class:`~buddy_eval._errors.InputError` naming
the version, evaluation or release and the ledger, never a verdict on
altered data and never an internal error.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .._errors import InputError, quoted

__all__ = [
    "Fact",
    "GoldenSet",
    "canonical_lines",
    "version_facts",
    "ResultSet",
    "StoredEvaluation",
    "StoredRelease",
    "StoredSlices",
    "evaluation_slices",
    "findings_row_sha256",
    "golden_set_findings",
    "golden_sets",
    "slices_row_sha256",
    "item_fingerprint",
    "row_sha256",
    "result_sets",
    "evaluations",
    "releases",
    "versions",
    "set_fingerprint",
]

_CHANGED = "was changed outside buddy-eval"


def _canonical(value):
    """A stored value in one canonical JSON form (TEXT digits and INTEGERs alike)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return repr(value)
    return value


def row_sha256(*values) -> str:
    """SHA-256 (hex) of a row's values in canonical JSON."""
    text = json.dumps([_canonical(v) for v in values], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def result_set_sha256(
    version_id, golden_set_id, n_items, n_lines, kept, outcomes: str, lines: str, digest: str
) -> str:
    """The hash of a result row: its small fields and the SHA-256 of each packed text."""

    def sha(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    return row_sha256(
        version_id, golden_set_id, n_items, n_lines, kept, sha(outcomes), sha(lines), digest
    )


def item_fingerprint(item_id: str, item_type: str, source: str | None, keywords: list) -> str:
    """The golden item's fingerprint: SHA-256 of ``[id, type, source, keywords]`` as JSON."""
    text = json.dumps(
        [item_id, item_type, source, keywords], ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def set_fingerprint(item_fingerprints) -> str:
    """A golden set's fingerprint: SHA-256 of its item fingerprints, sorted, one per line.

    The order of the items does not change what a golden set measures, so it
    does not change its fingerprint either.
    """
    return hashlib.sha256("\n".join(sorted(item_fingerprints)).encode()).hexdigest()


def _bad(name: str, what: str, detail: str) -> InputError:
    changed = (
        _CHANGED.replace("was", "were", 1)
        if what.startswith(("the results", "the findings", "the slices"))
        else _CHANGED
    )
    return InputError(
        f"{what} {changed} ({detail}); restore the ledger from a backup, or check it with "
        "buddy-eval ledger verify",
        source=name,
    )


@dataclass(frozen=True)
class GoldenSet:
    """One golden-set revision: its items in stored order.

    ``items`` holds per item ``(fingerprint, item_id, item_type, required_source, keywords)``.
    """

    id: int
    revision: str
    fingerprint: str
    items: tuple[tuple[str, str, str, str | None, tuple[str, ...]], ...]

    @property
    def fingerprints(self) -> tuple[str, ...]:
        return tuple(item[0] for item in self.items)


def versions(connection: sqlite3.Connection) -> dict[int, str]:
    """Every version label by id, in recording order."""
    return {
        int(i): str(label)
        for i, label in connection.execute("SELECT id, label FROM versions ORDER BY id")
    }


def golden_sets(
    connection: sqlite3.Connection, name: str, ids: set[int] | None = None
) -> dict[int, GoldenSet]:
    """The golden sets (all, or those in ``ids``), each item's fingerprint checked."""
    sets = {
        int(i): (str(revision), str(fingerprint), int(count))
        for i, revision, fingerprint, count in connection.execute(
            "SELECT id, revision, fingerprint, item_count FROM golden_sets ORDER BY id"
        )
        if ids is None or int(i) in ids
    }
    items: dict[int, list] = {i: [] for i in sets}
    rows = connection.execute(
        "SELECT golden_set_id, position, fingerprint, item_id, item_type, required_source, "
        "keywords FROM golden_items ORDER BY golden_set_id, position"
    )
    for set_id, position, fingerprint, item_id, item_type, source, keywords in rows:
        if set_id not in items:
            continue
        revision = sets[set_id][0]
        try:
            words = json.loads(keywords)
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise ValueError("keywords are not a list of text")
            if position != len(items[set_id]) or item_type not in ("ANSWER", "REFUSE"):
                raise ValueError("item positions or types out of order")
            if item_fingerprint(item_id, item_type, source, words) != fingerprint:
                raise ValueError(f"item {quoted(item_id)} does not match its fingerprint")
        except (ValueError, TypeError) as exc:
            raise _bad(name, f"golden set {revision}", str(exc)) from None
        items[set_id].append((fingerprint, item_id, item_type, source, tuple(words)))
    out = {}
    for set_id, (revision, fingerprint, count) in sets.items():
        found = items[set_id]
        if len(found) != count or set_fingerprint(f[0] for f in found) != fingerprint:
            raise _bad(name, f"golden set {revision}", "its items do not match its fingerprint")
        out[set_id] = GoldenSet(set_id, revision, fingerprint, tuple(found))
    return out


@dataclass(frozen=True)
class ResultSet:
    """A version's results on the items of one golden set it had none for before.

    ``outcomes`` holds per item ``(position, trials, correct, cited_ok,
    refused_ok, violation, passed)``, None where a check is not of the item's
    type (``table`` is the same as a float array, NaN for None); ``lines`` per
    result line ``(position, trial, cited, refused, answer)`` (empty when read
    without its lines).
    """

    id: int
    version_id: int
    golden_set_id: int
    answers_kept: bool
    outcomes: list
    lines: list
    input_results_sha256: str
    table: np.ndarray = field(repr=False, compare=False, default_factory=lambda: np.empty((0, 7)))


def _outcome_table(items: list, n_items: int) -> np.ndarray:
    """The outcomes as an (n, 7) float array, checked: counts, or null where a check does not
    apply; at least one trial; never more passing trials than trials."""
    table = np.array(items, dtype=float) if items else np.empty((0, 7))
    if table.shape != (n_items, 7):
        raise ValueError("the outcomes are not 7 counts per item")
    counts = table[:, 1:]
    whole = np.isnan(counts) | ((counts >= 0) & (counts == np.floor(counts)))
    if not whole.all() or np.isnan(table[:, :2]).any() or np.isnan(table[:, 6]).any():
        raise ValueError("an outcome is not a count")
    if (table[:, 1] < 1).any() or (np.nan_to_num(counts[:, 1:]) > table[:, 1:2]).any():
        raise ValueError("an outcome has more passing trials than trials")
    return table


def _decode_result_set(row, label: str, name: str, with_lines: bool) -> ResultSet:
    (rid, version_id, golden_set_id, n_items, n_lines, kept, outcomes, lines, digest, stored) = row
    expected = result_set_sha256(
        version_id, golden_set_id, n_items, n_lines, kept, outcomes, lines, digest
    )
    if expected != stored:
        raise _bad(name, f"the results of version {quoted(label)}", "their hash does not match")
    try:
        items = json.loads(outcomes)
        if not isinstance(items, list):
            raise ValueError("the outcomes are not a list")
        table = _outcome_table(items, n_items)
        result_lines = json.loads(lines) if with_lines else []
        if with_lines and (
            len(result_lines) != n_lines or any(len(line) != 5 for line in result_lines)
        ):
            raise ValueError("the result lines are not 5 fields each")
    except (ValueError, TypeError) as exc:
        raise _bad(name, f"the results of version {quoted(label)}", str(exc)) from None
    return ResultSet(
        int(rid),
        int(version_id),
        int(golden_set_id),
        bool(kept),
        items,
        result_lines,
        str(digest),
        table,
    )


def result_sets(
    connection: sqlite3.Connection,
    name: str,
    version_id: int | None = None,
    *,
    lines: bool = True,
) -> list[ResultSet]:
    """The stored results (of one version, or all), checked against their hashes.

    ``lines=False`` leaves the result lines unread (their hash is still checked).
    """
    labels = versions(connection)
    query = (
        "SELECT id, version_id, golden_set_id, items, result_lines, answers_kept, outcomes, "
        "lines, input_results_sha256, sha256 FROM result_sets"
    )
    if version_id is None:
        rows = connection.execute(query + " ORDER BY id")
    else:
        rows = connection.execute(query + " WHERE version_id = ? ORDER BY id", (version_id,))
    return [_decode_result_set(r, labels.get(r[1], "?"), name, lines) for r in rows]


def canonical_lines(lines) -> list[tuple]:
    """An item's result lines as ``(cited, refused, answer)`` triples in one order: two
    versions of the same result (another trial order, a flag as bool or int) compare equal."""
    triples = [(cited, int(bool(refused)), answer) for cited, refused, answer in lines]
    return sorted(
        triples, key=lambda t: (t[0] is not None, t[0] or "", t[1], t[2] is not None, t[2] or "")
    )


@dataclass(frozen=True)
class Fact:
    """A version's stored result on one item (by fingerprint).

    ``outcome`` is ``(trials, correct, cited_ok, refused_ok, violation, passed)``;
    ``lines`` the result lines ``(trial, cited, refused, answer)`` in trial order.
    """

    item_id: str
    outcome: tuple
    lines: tuple
    answers_kept: bool

    def canonical(self) -> list[tuple]:
        """:attr:`lines` as :func:`canonical_lines` gives them."""
        return canonical_lines(line[1:] for line in self.lines)


def version_facts(connection: sqlite3.Connection, name: str, version_id: int) -> dict[str, Fact]:
    """Every stored result of one version, by item fingerprint, checked against the hashes."""
    stored = result_sets(connection, name, version_id)
    sets = golden_sets(connection, name, {r.golden_set_id for r in stored})
    facts = {}
    for result_set in stored:
        items = sets[result_set.golden_set_id].items
        lines: dict[int, list] = {}
        for position, *line in result_set.lines:
            lines.setdefault(position, []).append(tuple(line))
        for position, *outcome in result_set.outcomes:
            fingerprint, item_id = items[position][:2]
            facts[fingerprint] = Fact(
                item_id, tuple(outcome), tuple(lines.get(position, ())), result_set.answers_kept
            )
    return facts


_EVALUATION_COLUMNS = (
    "id, input_sha256, settings, source, golden_set_id, baseline_version_id, "
    "candidate_version_id, live_release_id, threshold_correctness, threshold_citation, "
    "threshold_refusal, rule, margin, min_paired, trials, compared_items, not_compared, "
    "verdict, reasons, buddy_eval_version, date, note, recorded_by, commit_sha, run_url, "
    "pipeline, recorded_at, sha256"
)


@dataclass(frozen=True)
class StoredEvaluation:
    """One evaluation as stored, checked: its fields, metrics and checks."""

    id: int
    fields: dict
    metrics: dict  # (version_id, metric) -> (numerator, denominator, missing)
    checks: list  # (position, kind, metric, candidate, reference, blocks, measured, bound,
    #                bound_method)

    def rate(self, version_id: int, metric: str) -> Fraction | None:
        num, den, _ = self.metrics[(version_id, metric)]
        return Fraction(num, den) if den else None

    @property
    def reasons(self) -> list[str]:
        return list(self.fields["reasons"])

    @property
    def not_compared(self) -> list[str]:
        return list(self.fields["not_compared"])


def evaluation_row_sha256(fields: tuple, metrics: list, checks: list) -> str:
    """The hash of an evaluation row (without its id), its metric rows and its check rows."""
    return row_sha256(
        *fields,
        [[_canonical(v) for v in m] for m in sorted(metrics, key=lambda m: (m[0], m[1]))],
        [[_canonical(v) for v in c] for c in sorted(checks, key=lambda c: c[0])],
    )


def evaluations(connection: sqlite3.Connection, name: str) -> list[StoredEvaluation]:
    """Every evaluation, in recording order, checked against its hash."""
    metrics: dict[int, list] = {}
    for row in connection.execute(
        "SELECT evaluation_id, version_id, metric, numerator, denominator, missing "
        "FROM evaluation_metrics"
    ):
        metrics.setdefault(row[0], []).append(row[1:])
    checks: dict[int, list] = {}
    for row in connection.execute(
        "SELECT evaluation_id, position, kind, metric, candidate, reference, blocks, measured, "
        "bound, bound_method FROM checks"
    ):
        checks.setdefault(row[0], []).append(row[1:])
    columns = [c.strip() for c in _EVALUATION_COLUMNS.split(",")]
    out = []
    for row in connection.execute(f"SELECT {_EVALUATION_COLUMNS} FROM evaluations ORDER BY id"):
        eid, stored = int(row[0]), row[-1]
        mine, tests = metrics.get(eid, []), checks.get(eid, [])
        if evaluation_row_sha256(tuple(row[1:-1]), mine, tests) != stored:
            raise _bad(name, f"evaluation {eid}", "its hash does not match its figures")
        fields = dict(zip(columns[1:-1], row[1:-1], strict=True))
        try:
            fields["reasons"] = json.loads(fields["reasons"])
            fields["not_compared"] = json.loads(fields["not_compared"])
            fields["settings_map"] = json.loads(fields["settings"])
            figures = {(int(v), str(m)): (int(n), int(d), int(miss)) for v, m, n, d, miss in mine}
        except (ValueError, TypeError) as exc:
            raise _bad(name, f"evaluation {eid}", str(exc)) from None
        out.append(StoredEvaluation(eid, fields, figures, sorted(tests)))
    return out


_RELEASE_COLUMNS = (
    "id, kind, version_id, evaluation_id, date, note, override_reason, rollback_reason, "
    "recorded_by, commit_sha, run_url, pipeline, recorded_at, sha256"
)


@dataclass(frozen=True)
class StoredRelease:
    """One release (or rollback) as stored, checked."""

    id: int
    kind: str
    version_id: int
    evaluation_id: int | None
    date: str
    note: str | None
    override_reason: str | None
    rollback_reason: str | None
    recorded_by: str
    commit_sha: str | None
    run_url: str | None
    pipeline: str | None
    recorded_at: str


def release_row_sha256(fields: tuple) -> str:
    """The hash of a release row (without its id)."""
    return row_sha256(*fields)


def releases(connection: sqlite3.Connection, name: str) -> list[StoredRelease]:
    """Every release and rollback, in order, checked against its hash."""
    out = []
    for row in connection.execute(f"SELECT {_RELEASE_COLUMNS} FROM releases ORDER BY id"):
        if release_row_sha256(tuple(row[1:-1])) != row[-1]:
            raise _bad(name, f"release {row[0]}", "its hash does not match")
        if row[1] not in ("release", "rollback"):
            raise _bad(name, f"release {row[0]}", f"unknown kind {quoted(row[1])}")
        out.append(StoredRelease(*row[:-1]))
    return out


_SEVERITIES = ("error", "warning", "note")


def findings_row_sha256(golden_set_id: int, findings: str) -> str:
    """The hash of a revision's findings row: its golden set and its packed findings."""
    return row_sha256(golden_set_id, hashlib.sha256(findings.encode("utf-8")).hexdigest())


def golden_set_findings(
    connection: sqlite3.Connection, name: str, sets: dict[int, GoldenSet]
) -> dict[int, tuple[tuple[str, str, tuple[str, ...], str], ...]]:
    """Per golden-set id, the doctor's findings recorded with it, checked against the hash:
    ``(check, severity, ids, message)`` worst first. A revision recorded before findings
    were kept (a ledger of schema version 2) has none here."""
    from ._schema import has_table

    if not has_table(connection, "golden_set_findings"):
        return {}
    out = {}
    for set_id, packed, stored in connection.execute(
        "SELECT golden_set_id, findings, sha256 FROM golden_set_findings ORDER BY golden_set_id"
    ):
        what = f"the findings of golden set {sets[set_id].revision if set_id in sets else set_id}"
        if set_id not in sets or findings_row_sha256(set_id, packed) != stored:
            raise _bad(name, what, "their hash does not match")
        try:
            rows = json.loads(packed)
            found = []
            for check, severity, ids, message in rows:
                if not (
                    isinstance(check, str)
                    and severity in _SEVERITIES
                    and isinstance(ids, list)
                    and all(isinstance(i, str) for i in ids)
                    and isinstance(message, str)
                ):
                    raise ValueError("a finding is not [check, severity, ids, message]")
                found.append((check, severity, tuple(ids), message))
        except (ValueError, TypeError) as exc:
            raise _bad(name, what, str(exc)) from None
        out[int(set_id)] = tuple(found)
    return out


@dataclass(frozen=True)
class StoredSlices:
    """The slices an evaluation was recorded with: per golden position, its slice's index."""

    evaluation_id: int
    source: str
    assignment_sha256: str
    names: tuple[str, ...]
    codes: tuple[int, ...]


def slices_row_sha256(evaluation_id: int, source: str, digest: str, names: str, codes: str) -> str:
    """The hash of an evaluation's slices row."""
    return row_sha256(
        evaluation_id, source, digest, names, hashlib.sha256(codes.encode()).hexdigest()
    )


def evaluation_slices(
    connection: sqlite3.Connection, name: str, item_counts: dict[int, int] | None = None
) -> dict[int, StoredSlices]:
    """Per evaluation id recorded with slices, its slices, checked against the hash (and,
    given ``item_counts`` per evaluation id, one slice per golden item)."""
    from ._schema import has_table

    if not has_table(connection, "evaluation_slices"):
        return {}
    out = {}
    for eid, source, digest, names, codes, stored in connection.execute(
        "SELECT evaluation_id, source, assignment_sha256, names, codes, sha256 "
        "FROM evaluation_slices ORDER BY evaluation_id"
    ):
        what = f"the slices of evaluation {eid}"
        if slices_row_sha256(eid, source, digest, names, codes) != stored:
            raise _bad(name, what, "their hash does not match")
        try:
            named, coded = json.loads(names), json.loads(codes)
            if not isinstance(named, list) or not all(isinstance(n, str) for n in named):
                raise ValueError("the slice names are not a list of text")
            if not isinstance(coded, list) or not all(
                isinstance(c, int) and 0 <= c < len(named) for c in coded
            ):
                raise ValueError("a slice index is out of range")
            if item_counts is not None and item_counts.get(int(eid)) != len(coded):
                raise ValueError("not one slice per golden item")
        except (ValueError, TypeError) as exc:
            raise _bad(name, what, str(exc)) from None
        out[int(eid)] = StoredSlices(int(eid), str(source), str(digest), tuple(named), tuple(coded))
    return out


def verify(connection: sqlite3.Connection, name: str) -> dict[str, int]:
    """Check every row of the ledger; the number of rows checked per kind."""
    sets = golden_sets(connection, name)
    results = result_sets(connection, name)
    stored = evaluations(connection, name)
    done = releases(connection, name)
    labels = versions(connection)
    for evaluation in stored:
        ids = (evaluation.fields["baseline_version_id"], evaluation.fields["candidate_version_id"])
        if evaluation.fields["golden_set_id"] not in sets or any(i not in labels for i in ids):
            raise _bad(name, f"evaluation {evaluation.id}", "it names a row that is not there")
    golden_set_findings(connection, name, sets)
    item_counts = {e.id: len(sets[e.fields["golden_set_id"]].items) for e in stored}
    for eid in evaluation_slices(connection, name, item_counts):
        if eid not in item_counts:
            raise _bad(name, f"the slices of evaluation {eid}", "their evaluation is not there")
    return {
        "golden sets": len(sets),
        "versions": len(labels),
        "result rows": len(results),
        "evaluations": len(stored),
        "releases": len(done),
    }
