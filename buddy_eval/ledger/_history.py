"""What happened across the versions in a ledger: tidy DataFrames, then text, Markdown and JSON.

:func:`history` reads the ledger once, every row checked against its hash,
into :class:`History` (every figure as recorded: exact counts, the stored
verdicts, every release and rollback); the views :func:`history_text`,
:func:`history_markdown` and :func:`history_json` only format it.

Definitions
-----------
- An *observation* is a version's result on an item (by fingerprint: an
  edited item is a new item). A missing result is no observation: it is
  never a flip and never an escaped regression.
- Two observations of one item are compared with the gate's own change
  labels (``both pass``, ``both fail``, ``fixed``, ``regressed``, and, with
  repeated trials, ``mixed`` for a change smaller than the gate's step), on
  the trials that pass every check of the item's type.
- An item *flips* each time it is ``fixed`` or ``regressed`` from one version
  holding it to the next version holding it (recording order).
- A *regression that escaped*: an item ``regressed`` from the version live
  before to a version that went live, and ``fixed`` by no later live version.
- Golden-set *revisions* are named r1, r2, ... in recording order; where
  the revision changes between two versions, their rates are compared on
  the items the two revisions share.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd

from .._vocabulary import RATE_METRICS, TRIAL_CHANGES
from . import _store
from ._schema import reading
from ._show import SHORT

if TYPE_CHECKING:
    from ..doctor import Diagnosis

__all__ = ["HistoryResults", "SliceHistory", "read_history", "read_slice_history"]

_H = TypeVar("_H", bound="HistoryResults")

_FIXED, _REGRESSED = TRIAL_CHANGES.index("fixed"), TRIAL_CHANGES.index("regressed")
_MISSING = TRIAL_CHANGES.index("missing")
# Per rate metric, which outcome column counts it.
_COLUMN = {"correctness": "correct", "citation": "cited_ok", "refusal": "refused_ok"}


@dataclass(frozen=True)
class HistoryResults:
    """Every version in a ledger and its items, and what happened across them: the
    figures, every one as recorded. :class:`buddy_eval._ledger_views.History` (what
    :func:`buddy_eval.history` returns) adds the views and documents every attribute.
    """

    ledger: str
    versions: pd.DataFrame
    items: pd.DataFrame
    always_failed: pd.DataFrame
    flipped: pd.DataFrame
    escaped: pd.DataFrame
    releases: pd.DataFrame
    revisions: pd.DataFrame = field(default_factory=pd.DataFrame)
    revision_changes: pd.DataFrame = field(default_factory=pd.DataFrame)
    across: pd.DataFrame = field(default_factory=pd.DataFrame)
    thresholds: dict = field(default_factory=dict)
    findings: pd.DataFrame = field(default_factory=pd.DataFrame)

    def diagnosis(self, revision: str) -> Diagnosis | None:
        """The doctor's findings recorded with a golden-set revision (None: not recorded,
        the revision was recorded before findings were kept)."""
        from ..doctor import Diagnosis, Finding

        row = self.revisions[self.revisions["revision"] == revision]
        if row.empty or not bool(row["findings_recorded"].iloc[0]):
            return None
        mine = self.findings[self.findings["revision"] == revision]
        return Diagnosis(
            kind="golden set",
            source=self.ledger,
            n_items=int(row["items"].iloc[0]),
            versions=(),
            findings=tuple(
                Finding(c, s, tuple(i), m)
                for c, s, i, m in zip(
                    mine["check"], mine["severity"], mine["ids"], mine["message"], strict=True
                )
            ),
        )

    @property
    def live(self) -> str | None:
        """The live version: that of the last release or rollback (None before any)."""
        return None if self.releases.empty else str(self.releases["version"].iloc[-1])

    @property
    def live_since(self) -> str | None:
        """The date the live version went live: that of the last release or rollback."""
        return None if self.releases.empty else str(self.releases["date"].iloc[-1])


def _read(name: str) -> dict:
    with reading(name) as connection:
        sets = _store.golden_sets(connection, name)
        evaluations = _store.evaluations(connection, name)
        counts = {e.id: len(sets[e.fields["golden_set_id"]].items) for e in evaluations}
        return {
            "labels": _store.versions(connection),
            "sets": sets,
            "results": _store.result_sets(connection, name, lines=False),
            "evaluations": evaluations,
            "releases": _store.releases(connection, name),
            "findings": _store.golden_set_findings(connection, name, sets),
            "slices": _store.evaluation_slices(connection, name, counts),
        }


def _findings_frame(rows: dict) -> pd.DataFrame:
    """One row per finding recorded with a revision, revisions in order, worst first."""
    records = [
        (rows["sets"][set_id].revision, position, check, severity, list(ids), message)
        for set_id, found in rows["findings"].items()
        for position, (check, severity, ids, message) in enumerate(found)
    ]
    columns = ["revision", "position", "check", "severity", "ids", "message"]
    frame = pd.DataFrame.from_records(records, columns=columns)
    return frame.astype(
        {"revision": "str", "position": "int64", "check": "str", "message": "str"}
    ).astype(
        {
            "severity": pd.CategoricalDtype(["error", "warning", "note"], ordered=True),
            "ids": object,
        }
    )


def _na(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _releases_frame(rows: dict) -> pd.DataFrame:
    verdicts = {e.id: e.fields["verdict"] for e in rows["evaluations"]}
    columns = {
        "release": "int64",
        "kind": "str",
        "version": "str",
        "date": "str",
        "evaluation": "Int64",
        "verdict": "str",
        "override_reason": "str",
        "rollback_reason": "str",
        "note": "str",
        "recorded_by": "str",
        "commit": "str",
        "run_url": "str",
        "pipeline": "str",
    }
    records = [
        (
            r.id,
            r.kind,
            rows["labels"][r.version_id],
            r.date,
            r.evaluation_id,
            verdicts.get(r.evaluation_id) if r.kind == "release" else None,
            r.override_reason,
            r.rollback_reason,
            r.note,
            r.recorded_by,
            r.commit_sha,
            r.run_url,
            r.pipeline,
        )
        for r in rows["releases"]
    ]
    return pd.DataFrame.from_records(records, columns=list(columns)).astype(columns)


def _chosen(rows: dict) -> dict[int, tuple]:
    """Per version id: (evaluation, role) its figures come from."""
    chosen: dict[int, tuple] = {}
    for e in rows["evaluations"]:  # recording order: the latest wins
        base, cand = e.fields["baseline_version_id"], e.fields["candidate_version_id"]
        chosen[cand] = (e, "candidate")
        if chosen.get(base, (None, "baseline"))[1] == "baseline":
            chosen[base] = (e, "baseline")
    return chosen


def _versions_frame(rows: dict, releases: pd.DataFrame) -> pd.DataFrame:
    sets = rows["sets"]
    chosen = _chosen(rows)
    as_candidate = {}
    for e in rows["evaluations"]:
        as_candidate[e.fields["candidate_version_id"]] = e
    latest_release: dict[str, dict] = {}
    for r in releases.to_dict("records"):
        if r["kind"] == "release":
            latest_release[r["version"]] = r
    live = None if releases.empty else releases["version"].iloc[-1]
    records, previous = [], None
    for position, (vid, label) in enumerate(rows["labels"].items(), 1):
        evaluation, role = chosen.get(vid, (None, None))
        golden = sets[evaluation.fields["golden_set_id"]] if evaluation else None
        revision = golden.revision if golden else None
        record = {
            "version": label,
            "position": position,
            "revision": revision,
            "golden_set": golden.fingerprint[:SHORT] if golden else None,
            "golden_items": len(golden.items) if golden else 0,
            "golden_changed": previous is not None and revision != previous,
            "date": evaluation.fields["date"] if evaluation else None,
        }
        previous = revision
        for metric in (*RATE_METRICS, "violations"):
            num, den, _ = (
                evaluation.metrics.get((vid, metric), (0, 0, 0)) if evaluation else (0, 0, 0)
            )
            if metric == "violations":
                record["violations"] = num
                continue
            record[f"{metric}_numerator"] = num
            record[f"{metric}_denominator"] = den
            record[metric] = float(Fraction(num, den)) if den else None
        gate = as_candidate.get(vid)
        base = rows["labels"][gate.fields["baseline_version_id"]] if gate else None
        release = latest_release.get(label)
        record.update(
            evaluation=evaluation.id if evaluation else None,
            role=role,
            baseline=base,
            verdict=gate.fields["verdict"] if gate else None,
            reasons="; ".join(gate.reasons) if gate else None,
            recorded_by=evaluation.fields["recorded_by"] if evaluation else None,
            commit=evaluation.fields["commit_sha"] if evaluation else None,
            released=release is not None,
            live=label == live,
            release_date=release["date"] if release else None,
            override_reason=release["override_reason"] if release else None,
        )
        records.append(record)
    columns = {
        "version": "str",
        "position": "int64",
        "revision": "str",
        "golden_set": "str",
        "golden_items": "int64",
        "golden_changed": "bool",
        "date": "str",
    }
    for metric in RATE_METRICS:
        columns |= {
            f"{metric}_numerator": "int64",
            f"{metric}_denominator": "int64",
            metric: "Float64",
        }
    columns |= {
        "violations": "int64",
        "evaluation": "Int64",
        "role": "str",
        "baseline": "str",
        "verdict": "str",
        "reasons": "str",
        "recorded_by": "str",
        "commit": "str",
        "released": "bool",
        "live": "bool",
        "release_date": "str",
        "override_reason": "str",
    }
    frame = pd.DataFrame.from_records(records, columns=list(columns))
    return frame.astype(columns)


@dataclass(frozen=True)
class _Grid:
    """Observations as arrays: per (version index, item code) trials and passing trials."""

    trials: np.ndarray  # (n_versions, n_codes), 0: no observation
    passing: np.ndarray
    item_ids: list
    fingerprints: list


def _items_frame(rows: dict) -> tuple[pd.DataFrame, _Grid]:
    """Every observation as a row (versions in recording order), built column-wise."""
    import pyarrow as pa

    labels = rows["labels"]
    index_of = {vid: k for k, vid in enumerate(labels)}
    # Every fingerprint gets a number (golden sets in order), and each set its positions' numbers.
    number: dict[str, int] = {}
    names: list[tuple[str, str]] = []  # per number: (fingerprint, item id)
    numbers, strings = {}, {}
    for set_id, golden in rows["sets"].items():
        at = []
        for fingerprint, item_id, *_ in golden.items:
            k = number.setdefault(fingerprint, len(number))
            if k == len(names):
                names.append((fingerprint, item_id))
            at.append(k)
        numbers[set_id] = np.array(at, np.int64)
        strings[set_id] = {
            "item_id": pa.array([i[1] for i in golden.items], pa.string()),
            "item_fingerprint": pa.array([i[0] for i in golden.items], pa.string()),
            "item_type": pa.array([i[2] for i in golden.items], pa.string()),
        }
    ordered = sorted(rows["results"], key=lambda r: (index_of[r.version_id], r.id))
    tables = [r.table for r in ordered] or [np.empty((0, 7))]
    table = np.concatenate(tables)
    version = np.concatenate(
        [np.full(len(r.table), index_of[r.version_id], np.int64) for r in ordered]
        or [np.empty(0, np.int64)]
    )
    fingerprint_number = np.concatenate(
        [numbers[r.golden_set_id][r.table[:, 0].astype(np.int64)] for r in ordered]
        or [np.empty(0, np.int64)]
    )
    # Items are numbered again in order of first observation (recording order, golden order).
    seen, first = np.unique(fingerprint_number, return_index=True)
    order = seen[np.argsort(first, kind="stable")]
    remap = np.zeros(len(names), np.int64)
    remap[order] = np.arange(len(order))
    code = remap[fingerprint_number]

    def text(key: str) -> pd.Series:
        chunks = [
            strings[r.golden_set_id][key].take(pa.array(r.table[:, 0].astype(np.int64)))
            for r in ordered
        ]
        return pd.Series(pa.chunked_array(chunks or [pa.array([], pa.string())]), dtype="str")

    def counts(column: int) -> pd.arrays.IntegerArray:
        values = table[:, column]
        missing = np.isnan(values)
        return pd.arrays.IntegerArray(np.where(missing, 0, values).astype(np.int64), missing)

    revision_of = {r.golden_set_id: rows["sets"][r.golden_set_id].revision for r in ordered}
    version_labels = pa.array(list(labels.values()), pa.string())
    frame = pd.DataFrame(
        {
            "version": pd.Series(version_labels.take(pa.array(version)), dtype="str"),
            "revision": pd.Series(
                pa.chunked_array(
                    [
                        pa.array([revision_of[r.golden_set_id]] * len(r.table), pa.string())
                        for r in ordered
                    ]
                    or [pa.array([], pa.string())]
                ),
                dtype="str",
            ),
            "item_id": text("item_id"),
            "item_fingerprint": text("item_fingerprint"),
            "item_type": text("item_type"),
            "trials": table[:, 1].astype(np.int64),
            "correct": counts(2),
            "cited_ok": counts(3),
            "refused_ok": counts(4),
            "violation": counts(5),
            "passing_trials": table[:, 6].astype(np.int64),
        }
    )
    frame["passed"] = (frame["passing_trials"] == frame["trials"]).astype(bool)
    trials = np.zeros((len(labels), len(order)), np.int64)
    passing = np.zeros((len(labels), len(order)), np.int64)
    trials[version, code] = table[:, 1].astype(np.int64)
    passing[version, code] = table[:, 6].astype(np.int64)
    item_ids = [names[k][1] for k in order.tolist()]
    fingerprints = [names[k][0] for k in order.tolist()]
    return frame, _Grid(trials, passing, item_ids, fingerprints)


def _frame(grid: _Grid, codes, extra: dict) -> pd.DataFrame:
    codes = list(codes)
    return pd.DataFrame(
        {
            "item_id": pd.Series([grid.item_ids[k] for k in codes], dtype="str"),
            "item_fingerprint": pd.Series([grid.fingerprints[k] for k in codes], dtype="str"),
            **{k: pd.Series([v[c] for c in codes], dtype="int64") for k, v in extra.items()},
        }
    )


def _across(grid: _Grid) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items failed by every observation; items flipped more than once (first-seen order)."""
    held = grid.trials > 0
    n_codes = grid.trials.shape[1]
    flips = np.zeros(n_codes, np.int64)
    last = np.full(n_codes, -1, np.int64)  # per item, the last version holding it so far
    for v in range(grid.trials.shape[0]):
        here = np.flatnonzero(held[v])
        seen = here[last[here] >= 0]
        if len(seen):
            change = _labels_pairs(grid, last[seen], v, seen)
            flips[seen] += (change == _FIXED) | (change == _REGRESSED)
        last[here] = v
    count = held.sum(axis=0)
    failed = held & (grid.passing == 0)
    always = np.flatnonzero((count > 0) & (failed.sum(axis=0) == count))
    unstable = np.flatnonzero(flips > 1)
    return (
        _frame(grid, always.tolist(), {"versions": count}),
        _frame(grid, unstable.tolist(), {"flips": flips, "versions": count}),
    )


def _labels_pairs(grid: _Grid, before: np.ndarray, after: int, codes: np.ndarray) -> np.ndarray:
    from .._trials import item_rate_changes

    return item_rate_changes(
        grid.trials[before, codes],
        grid.passing[before, codes],
        grid.trials[after, codes],
        grid.passing[after, codes],
    )


def _escaped(grid: _Grid, releases: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Items regressed from the version live before to a newly live one, and fixed by no
    later live version."""
    index = {label: k for k, label in enumerate(labels)}
    sequence = [index[v] for v in releases["version"].tolist()]
    dates = releases["date"].tolist()
    n_codes = grid.trials.shape[1]
    codes = np.arange(n_codes)
    found = []
    for k in range(1, len(sequence)):
        now, before = sequence[k], sequence[k - 1]
        if now == before:
            continue
        regressed = _labels_pairs(grid, np.full(n_codes, before), now, codes) == _REGRESSED
        for later in sequence[k + 1 :]:
            if later != now:
                regressed &= _labels_pairs(grid, np.full(n_codes, now), later, codes) != _FIXED
        for c in np.flatnonzero(regressed).tolist():
            found.append(
                (grid.item_ids[c], grid.fingerprints[c], labels[now], dates[k], labels[before])
            )
    columns = ["item_id", "item_fingerprint", "version", "release_date", "previous_release"]
    return pd.DataFrame(found, columns=columns).astype(dict.fromkeys(columns, "str"))


def _revisions(rows: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each revision and its diff (by item id) from the revision before."""
    records, changes = [], []
    previous: dict[str, str] | None = None
    for set_id, golden in rows["sets"].items():
        found = rows["findings"].get(set_id)
        severities = [f[1] for f in found or ()]
        health = (
            (True, *(severities.count(s) for s in ("error", "warning", "note")))
            if found is not None
            else (False, None, None, None)
        )
        now = {item[1]: item[0] for item in golden.items}
        diff: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
        if previous is not None:
            diff["added"] = [i for i in now if i not in previous]
            diff["removed"] = [i for i in previous if i not in now]
            diff["changed"] = [i for i in now if i in previous and previous[i] != now[i]]
        records.append(
            (
                golden.revision,
                golden.fingerprint[:SHORT],
                golden.fingerprint,
                len(golden.items),
                len(diff["added"]),
                len(diff["removed"]),
                len(diff["changed"]),
                *health,
            )
        )
        for change, ids in diff.items():
            changes += [(golden.revision, change, i) for i in ids]
        previous = now
    columns = ["revision", "golden_set", "fingerprint", "items", "added", "removed", "changed"]
    health_columns = {"findings_recorded": "bool", "errors": "Int64", "warnings": "Int64"}
    health_columns["notes"] = "Int64"
    frame = pd.DataFrame.from_records(records, columns=columns + list(health_columns)).astype(
        {c: ("int64" if c in ("items", "added", "removed", "changed") else "str") for c in columns}
        | health_columns
    )
    diffs = pd.DataFrame.from_records(changes, columns=["revision", "change", "item_id"]).astype(
        "str"
    )
    return frame, diffs


def _rate_on(items: pd.DataFrame, fingerprints: set, metric: str) -> Fraction | None:
    """The mean item rate of ``metric`` over the observations of ``fingerprints``."""
    column = _COLUMN[metric]
    mine = items[items["item_fingerprint"].isin(fingerprints) & items[column].notna()]
    if mine.empty:
        return None
    total = sum(
        (Fraction(int(k), int(n)) for k, n in zip(mine[column], mine["trials"], strict=True)),
        Fraction(0),
    )
    return total / len(mine)


def _across_changes(versions: pd.DataFrame, items: pd.DataFrame, rows: dict) -> pd.DataFrame:
    """Rates of consecutive versions across a revision change, on the items both share."""
    by_revision = {g.revision: set(g.fingerprints) for g in rows["sets"].values()}
    records = []
    table = versions.to_dict("records")
    for before, row in zip(table, table[1:], strict=False):
        if not row["golden_changed"] or _na(before["revision"]) or _na(row["revision"]):
            continue
        shared = by_revision[before["revision"]] & by_revision[row["revision"]]
        held = [
            set(items.loc[items["version"] == v, "item_fingerprint"]) & shared
            for v in (before["version"], row["version"])
        ]
        both = held[0] & held[1]
        for metric in RATE_METRICS:
            previous = items[items["version"] == before["version"]]
            current = items[items["version"] == row["version"]]
            records.append(
                (
                    row["version"],
                    before["version"],
                    before["revision"],
                    row["revision"],
                    len(both),
                    metric,
                    _rate_on(previous, both, metric),
                    _rate_on(current, both, metric),
                )
            )
    columns = [
        "version",
        "previous_version",
        "from_revision",
        "to_revision",
        "shared_items",
        "metric",
        "previous",
        "current",
    ]
    frame = pd.DataFrame.from_records(records, columns=columns)
    return frame.astype(
        {c: "str" for c in columns[:4]} | {"shared_items": "int64", "metric": "str"}
    ).astype({"previous": object, "current": object})


def read_history(ledger: str | os.PathLike[str], kind: type[_H]) -> _H:
    """Read what happened across the versions recorded in a ledger, as ``kind``.

    :func:`buddy_eval.history` reads it as a :class:`~buddy_eval._ledger_views.History`
    (the same figures, with their views).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or a row was changed
        outside buddy-eval.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.ledger._history import HistoryResults, read_history
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> found = read_history(path, HistoryResults)
    >>> found.live, found.versions["verdict"].tolist()[1], len(found.items)
    (None, 'BLOCK', 8)
    >>> tmp.cleanup()
    """
    name = os.fspath(ledger)
    rows = _read(name)
    releases = _releases_frame(rows)
    items, grid = _items_frame(rows)
    always, flipped = _across(grid)
    labels = list(rows["labels"].values())
    versions = _versions_frame(rows, releases)
    revisions, diffs = _revisions(rows)
    latest = rows["evaluations"][-1] if rows["evaluations"] else None
    thresholds = (
        {metric: Fraction(latest.fields[f"threshold_{metric}"]) for metric in RATE_METRICS}
        if latest
        else {}
    )
    return kind(
        name,
        versions,
        items,
        always,
        flipped,
        _escaped(grid, releases, labels),
        releases,
        revisions,
        diffs,
        _across_changes(versions, items, rows),
        thresholds,
        _findings_frame(rows),
    )


#: Per rate metric: the outcome column counting it and the item type it applies to.
_SLICE_METRICS = {
    "correctness": (2, "ANSWER"),
    "citation": (3, "ANSWER"),
    "refusal": (4, "REFUSE"),
}


@dataclass(frozen=True)
class SliceHistory:
    """Each evaluation recorded with slices, its versions' figures over one slice's items.

    ``rates`` holds one row per (evaluation, role); ``slices`` every slice name
    the recorded evaluations have (first-seen order); ``without_slices`` how
    many evaluations were recorded without slices (left out).
    """

    ledger: str
    slice: str
    slices: tuple[str, ...]
    rates: pd.DataFrame
    without_slices: int


def _slice_figures(outcomes: dict, version_id: int, items: list[tuple], scope: list[int]) -> dict:
    """A version's exact figures over the golden positions ``scope``: per rate metric
    (numerator, denominator) as the gate counts them (with repeated trials both scaled by
    the least common multiple of the trial counts), a missing result counting as failed."""
    import math

    figures: dict = {"items": len(scope)}
    for metric, (column, kind) in _SLICE_METRICS.items():
        mine = [p for p in scope if items[p][2] == kind]
        found = (outcomes.get((version_id, items[p][0])) for p in mine)
        held = [row for row in found if row is not None]
        scale = math.lcm(1, *(int(row[1]) for row in held))
        numerator = sum(int(row[column]) * (scale // int(row[1])) for row in held)
        figures[metric] = (numerator, len(mine) * scale)
    refuse = [outcomes.get((version_id, items[p][0])) for p in scope if items[p][2] == "REFUSE"]
    figures["violations"] = sum(1 for row in refuse if row is not None and int(row[5]) > 0)
    return figures


def read_slice_history(ledger: str | os.PathLike[str], name: str) -> SliceHistory:
    """Each recorded evaluation's figures over the items of slice ``name``, from the stored
    per-item outcomes and slices.

    The baseline of an evaluation against the live version counts the items
    it was compared on; every other version the slice's items of the golden
    set, a missing result counting as failed (as the gate counts it).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, a row was changed
        outside buddy-eval, or no evaluation recorded with slices has a slice
        ``name`` (the message names the slices there are).

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval.ledger._history import read_slice_history
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> ev = be.evaluate("data/example.txt", slices={"q1": "easy", "q4": "easy"})
    >>> _ = be.record(ev, path, date="2026-03-01", by="ci")
    >>> found = read_slice_history(path, "easy")
    >>> found.slices, found.rates[["version", "items", "correctness_numerator"]].values.tolist()
    (('easy', '(none)'), [['OLD', 2, 1], ['NEW', 2, 1]])
    >>> tmp.cleanup()
    """
    from .._errors import InputError, quoted

    ledger_name = os.fspath(ledger)
    rows = _read(ledger_name)
    outcomes = {}
    for result_set in rows["results"]:
        items = rows["sets"][result_set.golden_set_id].items
        for outcome in result_set.outcomes:
            outcomes[(result_set.version_id, items[outcome[0]][0])] = outcome
    recorded = [e for e in rows["evaluations"] if e.id in rows["slices"]]
    names: dict[str, None] = {}
    for e in recorded:
        names.update(dict.fromkeys(rows["slices"][e.id].names))
    if name not in names:
        there = (
            ", ".join(quoted(n) for n in names) or "none (no evaluation was recorded with --slices)"
        )
        raise InputError(
            f"no recorded evaluation has a slice {quoted(name)}; the slices recorded: {there}",
            source=ledger_name,
        )
    records = []
    for e in recorded:
        stored = rows["slices"][e.id]
        golden = rows["sets"][e.fields["golden_set_id"]]
        code = stored.names.index(name) if name in stored.names else -1
        scope = [p for p, c in enumerate(stored.codes) if c == code]
        not_compared = set(e.not_compared)
        for role in ("baseline", "candidate"):
            vid = e.fields[f"{role}_version_id"]
            mine = scope
            if role == "baseline" and not_compared:
                mine = [p for p in scope if golden.items[p][1] not in not_compared]
            figures = _slice_figures(outcomes, vid, list(golden.items), mine)
            record = {
                "evaluation": e.id,
                "date": e.fields["date"],
                "revision": golden.revision,
                "verdict": e.fields["verdict"],
                "slices_sha256": stored.assignment_sha256,
                "slice_items": len(scope),
                "role": role,
                "version": rows["labels"][vid],
                "items": figures["items"],
            }
            for metric in _SLICE_METRICS:
                num, den = figures[metric]
                record[f"{metric}_numerator"] = num
                record[f"{metric}_denominator"] = den
                record[metric] = Fraction(num, den) if den else None
            record["violations"] = figures["violations"]
            records.append(record)
    columns: dict[str, Any] = {
        "evaluation": "int64",
        "date": "str",
        "revision": "str",
        "verdict": "str",
        "slices_sha256": "str",
        "slice_items": "int64",
        "role": "str",
        "version": "str",
        "items": "int64",
    }
    for metric in _SLICE_METRICS:
        columns |= {f"{metric}_numerator": object, f"{metric}_denominator": object, metric: object}
    columns["violations"] = "int64"
    frame = pd.DataFrame.from_records(records, columns=list(columns)).astype(columns)
    return SliceHistory(
        ledger_name,
        name,
        tuple(names),
        frame,
        len(rows["evaluations"]) - len(recorded),
    )
