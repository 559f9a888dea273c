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

import json
import os
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from .._vocabulary import RATE_METRICS, TRIAL_CHANGES
from ..formatting import format_count, format_fraction, format_id_list
from . import _store
from ._schema import reading
from ._show import printable, text_table

__all__ = ["History", "history", "history_json", "history_markdown", "history_text"]

#: Hex digits of a fingerprint the views show.
SHORT = 12
_FIXED, _REGRESSED = TRIAL_CHANGES.index("fixed"), TRIAL_CHANGES.index("regressed")
_MISSING = TRIAL_CHANGES.index("missing")
# Per rate metric, which outcome column counts it.
_COLUMN = {"correctness": "correct", "citation": "cited_ok", "refusal": "refused_ok"}


@dataclass(frozen=True)
class History:
    """Every version in a ledger and its items, and what happened across them.

    Attributes
    ----------
    ledger : str
        The ledger's path.
    versions : pandas.DataFrame
        One row per version, in recording order:

        - ``version`` (str): the label; ``position`` (int64): 1, 2, ... recording order.
        - ``revision`` (str): the golden-set revision of the evaluation its
          figures come from (its latest as the candidate, else its latest as
          the baseline); ``golden_set`` (str): that golden set's short
          fingerprint; ``golden_items`` (int64): its item count;
          ``golden_changed`` (bool): another revision than the version before.
        - ``date`` (str): that evaluation's date.
        - ``correctness_numerator``, ``correctness_denominator`` (int64) and
          ``correctness`` (Float64, NA when not measured); the same for
          ``citation`` and ``refusal``; ``violations`` (int64). A live
          baseline's figures cover the items it was compared on.
        - ``evaluation`` (Int64): the evaluation its figures come from;
          ``role`` (str): ``candidate`` or ``baseline`` in it; ``baseline``
          (str): the baseline its latest gate as the candidate compared it
          with; ``verdict`` (str): ``RELEASE`` or ``BLOCK`` (NA if never a
          candidate); ``reasons`` (str): the blocking reasons, joined by ``"; "``.
        - ``recorded_by`` (str), ``commit`` (str, NA outside CI).
        - ``released`` (bool): it went live at least once; ``live`` (bool):
          it is live now; ``release_date`` (str) and ``override_reason`` (str)
          of its latest release (NA when none).
    items : pandas.DataFrame
        One row per observation (version, item with a result), versions in
        recording order: ``version``, ``revision`` (where the result was
        recorded), ``item_id``, ``item_fingerprint``, ``item_type`` (str),
        ``trials`` (int64), ``correct``, ``cited_ok``, ``refused_ok``,
        ``violation`` (Int64: trials passing, NA when not of the item's
        type), ``passing_trials`` (int64: trials passing every check) and
        ``passed`` (bool: every trial passes every check).
    always_failed : pandas.DataFrame
        Items failed by every observation: ``item_id``, ``item_fingerprint``,
        ``versions`` (int64: versions holding a result).
    flipped : pandas.DataFrame
        Items that flipped more than once: ``item_id``, ``item_fingerprint``,
        ``flips``, ``versions`` (int64).
    escaped : pandas.DataFrame
        Regressions that escaped: ``item_id``, ``item_fingerprint``,
        ``version`` (the live version it regressed in), ``release_date``,
        ``previous_release`` (the version live before it).
    releases : pandas.DataFrame
        One row per release or rollback, in order: ``release`` (int64),
        ``kind`` (``release`` or ``rollback``), ``version``, ``date``,
        ``evaluation`` (Int64), ``verdict``, ``override_reason``,
        ``rollback_reason``, ``note``, ``recorded_by``, ``commit``,
        ``run_url``, ``pipeline`` (str, NA when none).
    revisions : pandas.DataFrame
        One row per golden-set revision, in recording order: ``revision``,
        ``golden_set`` (short fingerprint), ``fingerprint`` (full), ``items``,
        ``added``, ``removed``, ``changed`` (int64: the diff from the
        revision before, by item id).
    revision_changes : pandas.DataFrame
        The diffs, one row per (revision, item): ``revision``, ``change``
        (``added``, ``removed`` or ``changed``), ``item_id``.
    across : pandas.DataFrame
        Where the revision changes between two consecutive versions, one row
        per rate metric over the items both revisions share and both
        versions hold: ``version``, ``previous_version``, ``from_revision``,
        ``to_revision``, ``shared_items`` (int64), ``metric``, ``previous``,
        ``current`` (object: exact Fractions, None when not measured).
    thresholds : dict of str to Fraction
        The thresholds of the latest evaluation (empty before any).

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")
    >>> found = be.history(path)
    >>> found.live, len(found.versions), len(found.items), len(found.releases)
    ('OLD', 2, 8, 1)
    >>> found.release_table()
      release version        date     evidence reason  by
    0       1     OLD  2026-03-01  never gated      -  ci
    >>> found.text().splitlines()[4]          # what `buddy-eval history` prints
    'NEW      r1        4      1.00         1.00      0.00     1           BLOCK vs OLD  -'
    >>> tmp.cleanup()
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

    def text(self) -> str:
        """The history as readable text (what ``buddy-eval history`` prints)."""
        return history_text(self)

    def markdown(self) -> str:
        """The history as Markdown (``buddy-eval history --format markdown``)."""
        return history_markdown(self)

    def json(self) -> str:
        """The history as JSON (``buddy-eval history --format json``)."""
        return history_json(self)

    def table(self) -> pd.DataFrame:
        """The versions as the text view shows them: one row per version, every cell text.

        Columns: ``version``, ``revision``, ``items``, ``correctness``,
        ``citation``, ``refusal``, ``violations``, ``verdict``, ``released``
        (its latest release date, ``(live)`` for the live one, ``-`` when none).
        """
        return pd.DataFrame(_cells(self), columns=_HEADER, dtype="str")

    def release_table(self) -> pd.DataFrame:
        """Every release and rollback as the text view shows them (every cell text).

        Columns: ``release``, ``version``, ``date``, ``evidence``, ``reason``
        (the override or rollback reason, in full), ``by``.
        """
        return pd.DataFrame(_release_cells(self), columns=_RELEASE_HEADER, dtype="str")

    @property
    def live(self) -> str | None:
        """The live version: that of the last release or rollback (None before any)."""
        return None if self.releases.empty else str(self.releases["version"].iloc[-1])


def _read(name: str) -> dict:
    with reading(name) as connection:
        return {
            "labels": _store.versions(connection),
            "sets": _store.golden_sets(connection, name),
            "results": _store.result_sets(connection, name, lines=False),
            "evaluations": _store.evaluations(connection, name),
            "releases": _store.releases(connection, name),
        }


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
    for golden in rows["sets"].values():
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
            )
        )
        for change, ids in diff.items():
            changes += [(golden.revision, change, i) for i in ids]
        previous = now
    columns = ["revision", "golden_set", "fingerprint", "items", "added", "removed", "changed"]
    frame = pd.DataFrame.from_records(records, columns=columns).astype(
        {c: ("int64" if c in ("items", "added", "removed", "changed") else "str") for c in columns}
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


def history(ledger: str | os.PathLike[str]) -> History:
    """Read what happened across the versions recorded in a ledger.

    Parameters
    ----------
    ledger : str or os.PathLike
        An existing ledger file (see :func:`buddy_eval.record`).

    Returns
    -------
    History
        ``versions`` (one row per version), ``items`` (one row per
        observation), ``always_failed``, ``flipped``, ``escaped``,
        ``releases``, ``revisions``, ``revision_changes`` and ``across``
        DataFrames (see :class:`History` for every column).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or a row was changed
        outside buddy-eval.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")
    >>> found = be.history(path)
    >>> found.versions[["version", "revision", "correctness", "verdict", "live"]]
      version revision  correctness verdict   live
    0     OLD       r1     0.666667     NaN   True
    1     NEW       r1          1.0   BLOCK  False
    >>> found.table()[["version", "correctness", "refusal", "verdict", "released"]]
      version correctness refusal       verdict           released
    0     OLD        0.67    1.00             -  2026-03-01 (live)
    1     NEW        1.00    0.00  BLOCK vs OLD                  -
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
    return History(
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
    )


# Views -----------------------------------------------------------------------------------


def _rate(row, metric: str) -> str:
    den = int(row[f"{metric}_denominator"])
    return format_fraction(Fraction(int(row[f"{metric}_numerator"]), den) if den else None)


def _item_names(items: pd.DataFrame) -> dict[str, str]:
    """Per item fingerprint, its id; with the short fingerprint when an id has several."""
    pairs = items[["item_fingerprint", "item_id"]].drop_duplicates()
    repeated = set(pairs["item_id"][pairs["item_id"].duplicated()])
    return {
        fp: f"{i} [{fp[:8]}]" if i in repeated else i
        for fp, i in zip(pairs["item_fingerprint"], pairs["item_id"], strict=True)
    }


_HEADER = ["version", "revision", "items", *RATE_METRICS, "violations", "verdict", "released"]
_RELEASE_HEADER = ["release", "version", "date", "evidence", "reason", "by"]


def _head(found: History) -> str:
    live = found.live
    return (
        f"ledger {found.ledger}: {format_count(len(found.versions), 'version')}, "
        f"{format_count(len(found.releases), 'release')}, "
        f"{format_count(len(found.revisions), 'golden-set revision')}; "
        + (
            f"live: {live} since {found.releases['date'].iloc[-1]}"
            if live is not None
            else "nothing released yet"
        )
    )


def _diff_text(found: History, revision: str) -> str:
    """``+added -removed ~changed`` ids of a revision, capped with counts."""
    diffs = found.revision_changes[found.revision_changes["revision"] == revision]
    parts = []
    for change, mark in (("added", "+"), ("removed", "-"), ("changed", "~")):
        ids = diffs.loc[diffs["change"] == change, "item_id"].tolist()
        if ids:
            parts.append(f"{mark}{len(ids)} {format_id_list(ids)}")
    return " ".join(parts) or "same items, another order"


def _change_notes(found: History) -> dict[str, str]:
    """Per version starting a new revision: the note shown before its row."""
    notes = {}
    for row in found.versions.to_dict("records"):
        if not row["golden_changed"]:
            continue
        mine = found.across[found.across["version"] == row["version"]]
        if mine.empty:
            continue
        first = mine.iloc[0]
        rates = ", ".join(
            f"{r['metric']} {format_fraction(r['previous'])} -> {format_fraction(r['current'])}"
            for r in mine.to_dict("records")
        )
        notes[row["version"]] = (
            f"golden set {first['from_revision']} -> {first['to_revision']}: "
            f"{_diff_text(found, first['to_revision'])}; the rates above and below are on "
            f"different items; on the {format_count(int(first['shared_items']), 'item')} both "
            f"revisions share and both versions hold, {first['previous_version']} -> "
            f"{row['version']}: {rates}"
        )
    return notes


def _cells(found: History) -> list[list[str]]:
    block: list[list[str]] = []
    for row in found.versions.to_dict("records"):
        verdict = "-" if _na(row["verdict"]) else f"{row['verdict']} vs {row['baseline']}"
        released = "-" if _na(row["release_date"]) else row["release_date"]
        if row["live"]:
            released += " (live)"
        block.append(
            [
                str(row["version"]),
                "-" if _na(row["revision"]) else str(row["revision"]),
                str(row["golden_items"]),
                *(_rate(row, m) for m in RATE_METRICS),
                str(row["violations"]),
                verdict,
                released,
            ]
        )
    return block


def _release_cells(found: History) -> list[list[str]]:
    rows = []
    for r in found.releases.to_dict("records"):
        if r["kind"] == "rollback":
            evidence, reason = "rollback", f"rollback: {r['rollback_reason']}"
        else:
            evidence = (
                "never gated"
                if _na(r["evaluation"])
                else f"evaluation {r['evaluation']} ({r['verdict']})"
            )
            reason = "-" if _na(r["override_reason"]) else f"override: {r['override_reason']}"
        by = str(r["recorded_by"])
        if not _na(r["commit"]):
            by += f" @ {str(r['commit'])[:SHORT]}"
        rows.append([str(r["release"]), str(r["version"]), str(r["date"]), evidence, reason, by])
    return rows


def _summary(found: History) -> list[str]:
    """The three lines about items across versions."""
    always, flipped, escaped = found.always_failed, found.flipped, found.escaped
    named = _item_names(found.items)
    flips = zip(flipped["item_fingerprint"], flipped["flips"], strict=True)
    escapes = zip(
        escaped["item_fingerprint"], escaped["version"], escaped["release_date"], strict=True
    )
    return [
        f"items failed by every version holding them ({len(always)}): "
        + format_id_list(named[fp] for fp in always["item_fingerprint"]),
        f"items flipped more than once ({len(flipped)}): "
        + format_id_list(f"{named[fp]} ({n} flips)" for fp, n in flips),
        f"regressions that escaped ({len(escaped)}): "
        + format_id_list(f"{named[fp]} in {v} (released {d})" for fp, v, d in escapes),
    ]


def history_text(found: History) -> str:
    """The history as readable text (every number through :mod:`buddy_eval.formatting`)."""
    notes = _change_notes(found)
    table = text_table(_HEADER, _cells(found))
    lines = [printable(_head(found)), "", table[0]]
    for row, line in zip(found.versions.to_dict("records"), table[1:], strict=True):
        if row["version"] in notes:
            lines.append(printable(f"-- {notes[row['version']]} --"))
        lines.append(line)
    releases = _release_cells(found)
    if releases:
        lines += ["", "releases:", *text_table(_RELEASE_HEADER, releases, "  ")]
    return "\n".join([*lines, "", *(printable(line) for line in _summary(found))])


def _md(text: str) -> str:
    """Text that renders literally in Markdown: :func:`buddy_eval.formatting.markdown_text`
    through ``markdown_escape`` (every invisible character, a vertical tab or U+2028 too,
    shown as an escape)."""
    from ..reporting._markdown import markdown_escape

    return markdown_escape(text, limit=_MD_LIMIT)


#: Characters of one Markdown cell or line at most (labels and id lists are capped already).
_MD_LIMIT = 2000


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(_md(c) for c in cells) + " |" for cells in rows),
    ]


def history_markdown(found: History) -> str:
    """The history as Markdown: a heading, the versions, the releases, the item lists."""
    notes = _change_notes(found)
    lines = [f"### {_md(_head(found))}", ""]
    table = _md_table(_HEADER, _cells(found))
    lines += table[:2]
    for row, line in zip(found.versions.to_dict("records"), table[2:], strict=True):
        if row["version"] in notes:
            lines.append(f"| **{_md(notes[row['version']])}** |" + " |" * (len(_HEADER) - 1))
        lines.append(line)
    releases = _release_cells(found)
    if releases:
        lines += ["", "**Releases**", "", *_md_table(_RELEASE_HEADER, releases)]
    lines.append("")
    lines += [f"- {_md(line)}" for line in _summary(found)]
    return "\n".join(lines)


def _json_value(value):
    if _na(value):
        return None
    if isinstance(value, Fraction):
        return {"numerator": value.numerator, "denominator": value.denominator}
    if hasattr(value, "item"):
        return value.item()
    return value


def history_json(found: History) -> str:
    """The history as one JSON object: exact counts as numerator and denominator."""
    versions = []
    for row in found.versions.to_dict("records"):
        entry = {
            k: _json_value(row[k])
            for k in ("version", "revision", "golden_set", "golden_items", "golden_changed", "date")
        }
        for metric in RATE_METRICS:
            num, den = int(row[f"{metric}_numerator"]), int(row[f"{metric}_denominator"])
            entry[metric] = {"numerator": num, "denominator": den} if den else None
        entry["violations"] = int(row["violations"])
        for key in (
            "evaluation",
            "role",
            "baseline",
            "verdict",
            "reasons",
            "recorded_by",
            "commit",
            "released",
            "live",
            "release_date",
            "override_reason",
        ):
            entry[key] = _json_value(row[key])
        versions.append(entry)

    def records(frame: pd.DataFrame) -> list[dict]:
        return [{k: _json_value(v) for k, v in r.items()} for r in frame.to_dict("records")]

    revisions = []
    for row in records(found.revisions):
        diffs = found.revision_changes[found.revision_changes["revision"] == row["revision"]]
        row["diff"] = {
            change: diffs.loc[diffs["change"] == change, "item_id"].tolist()
            for change in ("added", "removed", "changed")
        }
        revisions.append(row)
    return json.dumps(
        {
            "ledger": found.ledger,
            "live": found.live,
            "versions": versions,
            "releases": records(found.releases),
            "revisions": revisions,
            "across_revisions": records(found.across),
            "always_failed": records(found.always_failed),
            "flipped": records(found.flipped),
            "escaped": records(found.escaped),
        },
        ensure_ascii=False,
        indent=2,
    )
