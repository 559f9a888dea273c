"""What happened across the versions in a ledger: tidy DataFrames, then a text and a JSON view.

:func:`history` reads the ledger once into :class:`History` (every figure is
read as recorded: exact counts, the stored verdicts, releases); the views
:func:`history_text` and :func:`history_json` only format it.

Definitions
-----------
- An item *passes* in a version when it has a result and every trial passes
  every check of its type (ANSWER: correct and cited; REFUSE: refused).
- Items are the same across versions when their golden fingerprint is the
  same (an edited item is a new item).
- An item *flips* each time it passes in one version and not in the next
  version holding it (recording order).
- A *regression that escaped*: an item that passed in the version released
  before and fails in a released version, and passes in no later release.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa

from .._errors import InputError
from .._markdown_report import markdown_escape
from .._vocabulary import RATE_METRICS
from ..formatting import format_count, format_fraction, format_id_list
from ._schema import connect
from ._show import printable, text_table

__all__ = ["History", "history", "history_json", "history_markdown", "history_text"]

#: Hex digits of a fingerprint the views show.
SHORT = 12


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
        - ``golden_set`` (str): the golden set's short fingerprint;
          ``golden_items`` (int64): its item count; ``golden_changed`` (bool):
          another golden set than the version before (numbers across it are
          not on the same measuring stick).
        - ``correctness_numerator``, ``correctness_denominator`` (int64) and
          ``correctness`` (Float64, NA when not measured); the same for
          ``citation`` and ``refusal``; ``violations`` (int64).
        - ``evaluation`` (Int64): the latest evaluation with the version as
          candidate (NA if never a candidate); ``baseline`` (str): its
          baseline; ``verdict`` (str): ``RELEASE`` or ``BLOCK``; ``reasons``
          (str): the blocking reasons, ``; ``-joined.
        - ``released`` (bool); ``release_date`` (str) and ``override_reason``
          (str) of its latest release (NA when none).
    items : pandas.DataFrame
        One row per (version, golden item), versions in recording order and
        items in golden order: ``version``, ``item_id``, ``item_fingerprint``
        (str, full), ``item_type`` (str), ``trials`` (int64, 0 when no result),
        ``correct``, ``cited_ok``, ``refused_ok``, ``violation`` (Int64:
        trials passing, NA when not of the item's type), ``passed`` (bool).
    always_failed : pandas.DataFrame
        Items failed by every version that holds them: ``item_id``,
        ``item_fingerprint``, ``versions`` (int64).
    flipped : pandas.DataFrame
        Items that flipped more than once: ``item_id``, ``item_fingerprint``,
        ``flips``, ``versions`` (int64).
    escaped : pandas.DataFrame
        Regressions that escaped: ``item_id``, ``item_fingerprint``,
        ``version`` (the release it regressed in), ``release_date``,
        ``previous_release`` (the version released before it).
    releases : pandas.DataFrame
        One row per release, in order: ``release`` (int64), ``version``,
        ``date``, ``evaluation`` (Int64), ``verdict``, ``override_reason``, ``note``.
    thresholds : dict of str to Fraction
        The thresholds of the latest evaluation (empty before any).
    """

    ledger: str
    versions: pd.DataFrame
    items: pd.DataFrame
    always_failed: pd.DataFrame
    flipped: pd.DataFrame
    escaped: pd.DataFrame
    releases: pd.DataFrame
    thresholds: dict = field(default_factory=dict)

    def text(self) -> str:
        """The history as readable text (what ``buddy-eval history`` prints)."""
        return history_text(self)

    def markdown(self) -> str:
        """The history as Markdown (``buddy-eval history --format markdown``)."""
        return history_markdown(self)

    @property
    def live(self) -> str | None:
        """The version of the latest release (None before any)."""
        return None if self.releases.empty else str(self.releases["version"].iloc[-1])


_VERSIONS = """
SELECT v.id, v.label, g.fingerprint, g.item_count
FROM versions v JOIN golden_sets g ON g.id = v.golden_set_id ORDER BY v.id
"""
# A version's figures on its own golden set (as a live baseline it may be scored on another).
_METRICS = """
SELECT m.version_id, m.metric, m.numerator, m.denominator
FROM evaluation_metrics m
WHERE m.evaluation_id = (SELECT max(e.id) FROM evaluations e
                         JOIN versions v ON v.id = m.version_id
                         JOIN evaluation_metrics x ON x.evaluation_id = e.id
                                                   AND x.version_id = m.version_id
                         WHERE e.golden_set_id = v.golden_set_id)
"""
_VERDICTS = """
SELECT e.candidate_version_id, e.id, b.label, e.verdict, e.reasons
FROM evaluations e JOIN versions b ON b.id = e.baseline_version_id
WHERE e.id = (SELECT max(id) FROM evaluations WHERE candidate_version_id = e.candidate_version_id)
"""
_RELEASES = """
SELECT r.id, v.label, r.date, r.evaluation_id, e.verdict, r.override_reason, r.note, r.version_id
FROM releases r JOIN versions v ON v.id = r.version_id
LEFT JOIN evaluations e ON e.id = r.evaluation_id ORDER BY r.id
"""
_OUTCOMES = "SELECT version_id, items FROM packed_outcomes ORDER BY version_id"
_GOLDEN = """
SELECT golden_set_id, position, fingerprint, item_id, item_type FROM golden_items
WHERE golden_set_id IN (SELECT golden_set_id FROM versions) ORDER BY golden_set_id, position
"""
_VERSION_SETS = "SELECT id, golden_set_id FROM versions ORDER BY id"
_THRESHOLDS = """
SELECT threshold_correctness, threshold_citation, threshold_refusal
FROM evaluations ORDER BY id DESC LIMIT 1
"""


def _outcome_table(packed: list[tuple[int, str]]) -> np.ndarray:
    """Every (version, item) outcome as int64 rows: version id, position, trials, correct,
    cited_ok, refused_ok, violation (-1 where a check does not apply)."""
    blocks = [np.empty((0, 7), np.int64)]
    for version_id, items in packed:
        values = np.array(json.loads(items), dtype=float).reshape(-1, 5)
        block = np.empty((len(values), 7), np.int64)
        block[:, 0] = version_id
        block[:, 1] = np.arange(len(values))
        block[:, 2:] = np.where(np.isnan(values), -1, values)
        blocks.append(block)
    return np.concatenate(blocks)


def _read(connection: sqlite3.Connection, name: str):
    try:
        return {
            "versions": connection.execute(_VERSIONS).fetchall(),
            "metrics": connection.execute(_METRICS).fetchall(),
            "verdicts": connection.execute(_VERDICTS).fetchall(),
            "releases": connection.execute(_RELEASES).fetchall(),
            "outcomes": connection.execute(_OUTCOMES).fetchall(),
            "golden": connection.execute(_GOLDEN).fetchall(),
            "version_sets": connection.execute(_VERSION_SETS).fetchall(),
            "thresholds": connection.execute(_THRESHOLDS).fetchall(),
        }
    except sqlite3.DatabaseError as exc:
        raise InputError(f"cannot read the ledger: {exc}", source=name) from None


def _versions_frame(rows, releases: pd.DataFrame) -> pd.DataFrame:
    counts = {(vid, metric): (int(n), int(d)) for vid, metric, n, d in rows["metrics"]}
    verdicts = {r[0]: r[1:] for r in rows["verdicts"]}
    latest = {}
    for r in rows["releases"]:
        latest[r[7]] = r
    records, previous = [], None
    for position, (vid, label, fingerprint, item_count) in enumerate(rows["versions"], 1):
        record = {
            "version": label,
            "position": position,
            "golden_set": fingerprint[:SHORT],
            "golden_items": item_count,
            "golden_changed": previous is not None and fingerprint != previous,
        }
        previous = fingerprint
        for metric in RATE_METRICS:
            num, den = counts.get((vid, metric), (0, 0))
            record[f"{metric}_numerator"] = num
            record[f"{metric}_denominator"] = den
            record[metric] = float(Fraction(num, den)) if den else None
        record["violations"] = counts.get((vid, "violations"), (0, 0))[0]
        evaluation, baseline, verdict, reasons = verdicts.get(vid, (None, None, None, None))
        record.update(
            evaluation=evaluation,
            baseline=baseline,
            verdict=verdict,
            reasons=None if reasons is None else "; ".join(json.loads(reasons)),
        )
        release = latest.get(vid)
        record.update(
            released=release is not None,
            release_date=None if release is None else release[2],
            override_reason=None if release is None else release[5],
        )
        records.append(record)
    columns = {
        "version": "str",
        "position": "int64",
        "golden_set": "str",
        "golden_items": "int64",
        "golden_changed": "bool",
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
        "baseline": "str",
        "verdict": "str",
        "reasons": "str",
        "released": "bool",
        "release_date": "str",
        "override_reason": "str",
    }
    frame = pd.DataFrame.from_records(records, columns=list(columns))
    return frame.astype(columns)


@dataclass(frozen=True)
class _Grid:
    """The items as arrays: per row its version's index, item code and whether it passed."""

    version: np.ndarray
    code: np.ndarray
    passed: np.ndarray
    item_ids: list  # per code
    fingerprints: list  # per code


def _items_frame(rows) -> tuple[pd.DataFrame, _Grid]:
    """The items DataFrame, built column-wise, and its arrays for the cross-version views."""
    labels = [label for _, label, _, _ in rows["versions"]]
    index_of = {vid: k for k, (vid, *_) in enumerate(rows["versions"])}
    set_of = dict(rows["version_sets"])
    code_of: dict[str, int] = {}
    item_ids: list[str] = []
    sets: dict[int, dict[str, list]] = {}
    for set_id, _, fingerprint, item_id, item_type in rows["golden"]:
        entry = sets.setdefault(set_id, {"fingerprint": [], "item_id": [], "item_type": [],
                                         "code": []})  # fmt: skip
        code = code_of.setdefault(fingerprint, len(code_of))
        if code == len(item_ids):
            item_ids.append(item_id)
        entry["fingerprint"].append(fingerprint)
        entry["item_id"].append(item_id)
        entry["item_type"].append(item_type)
        entry["code"].append(code)
    arrays = {
        set_id: {
            k: (np.array(v, np.int64) if k == "code" else pa.array(v, pa.string()))
            for k, v in entry.items()
        }
        for set_id, entry in sets.items()
    }
    table = _outcome_table(rows["outcomes"])
    vid, position = table[:, 0], table[:, 1]
    trials, correct, cited, refused, violation = (table[:, k] for k in range(2, 7))
    version = np.array([index_of[v] for v in vid.tolist()], np.int64) if len(vid) else vid
    starts = np.flatnonzero(np.diff(vid, prepend=-1)) if len(vid) else np.array([], np.int64)
    ends = np.append(starts[1:], len(vid)) if len(vid) else starts
    strings: dict[str, list] = {"fingerprint": [], "item_id": [], "item_type": []}
    codes = np.empty(len(vid), np.int64)
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        columns = arrays[set_of[int(vid[start])]]
        at = position[start:end]
        codes[start:end] = columns["code"][at]
        for key in strings:
            strings[key].append(columns[key].take(pa.array(at)))
    answer = correct >= 0
    passed = (trials > 0) & np.where(
        answer, (correct == trials) & (cited == trials), refused == trials
    )

    def text(key: str) -> pd.Series:
        chunks = strings[key] or [pa.array([], pa.string())]
        return pd.Series(pa.chunked_array(chunks, pa.string()), dtype="str")

    def counts(values: np.ndarray) -> pd.arrays.IntegerArray:
        return pd.arrays.IntegerArray(np.where(values < 0, 0, values), values < 0)

    frame = pd.DataFrame(
        {
            "version": pd.Series(
                pa.array(labels, pa.string()).take(pa.array(version)), dtype="str"
            ),
            "item_id": text("item_id"),
            "item_fingerprint": text("fingerprint"),
            "item_type": text("item_type"),
            "trials": trials.copy(),
            "correct": counts(correct),
            "cited_ok": counts(cited),
            "refused_ok": counts(refused),
            "violation": counts(violation),
            "passed": passed,
        }
    )
    return frame, _Grid(version, codes, passed, item_ids, list(code_of))


def _across(grid: _Grid) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items failed by every version holding them; items flipped more than once.

    Both in order of the items' first appearance (recording order, then golden order).
    """
    n_codes = len(grid.item_ids)
    code = grid.code
    held = np.bincount(code, minlength=n_codes)
    passes = np.bincount(code, weights=grid.passed, minlength=n_codes)
    order = np.lexsort((grid.version, code))
    c, p = code[order], grid.passed[order]
    change = (c[1:] == c[:-1]) & (p[1:] != p[:-1])
    flips = np.bincount(c[1:][change], minlength=n_codes)
    _, first = np.unique(code, return_index=True)
    appearance = np.unique(code)[np.argsort(first, kind="stable")]

    def frame(codes: np.ndarray, extra: dict) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "item_id": pd.Series([grid.item_ids[k] for k in codes.tolist()], dtype="str"),
                "item_fingerprint": pd.Series(
                    [grid.fingerprints[k] for k in codes.tolist()], dtype="str"
                ),
                **{k: v[codes].astype(np.int64) for k, v in extra.items()},
            }
        )

    failed = appearance[(held[appearance] > 0) & (passes[appearance] == 0)]
    unstable = appearance[flips[appearance] > 1]
    return (
        frame(failed, {"versions": held}),
        frame(unstable, {"flips": flips, "versions": held}),
    )


def _escaped(grid: _Grid, releases: pd.DataFrame, labels: list[str]) -> pd.DataFrame:
    """Items passed in the version released before, failed in a release, passed in no later one."""
    n_versions, n_codes = len(labels), len(grid.item_ids)
    state = np.full((n_versions, n_codes), -1, np.int8)  # -1: not held, 0: failed, 1: passed
    state[grid.version, grid.code] = grid.passed
    index = {label: k for k, label in enumerate(labels)}
    order = [index[v] for v in releases["version"].tolist()]
    dates = releases["date"].tolist()
    found = []
    for k in range(1, len(order)):
        now, before = order[k], order[k - 1]
        later = order[k + 1 :]
        fixed = (state[later] == 1).any(axis=0) if later else np.zeros(n_codes, bool)
        escaped = (state[now] == 0) & (state[before] == 1) & ~fixed
        mine = grid.code[grid.version == now]
        for c in mine[escaped[mine]].tolist():
            found.append(
                (grid.item_ids[c], grid.fingerprints[c], labels[now], dates[k], labels[before])
            )
    columns = ["item_id", "item_fingerprint", "version", "release_date", "previous_release"]
    return pd.DataFrame(found, columns=columns).astype(dict.fromkeys(columns, "str"))


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
        (version, item)), ``always_failed``, ``flipped``, ``escaped`` and
        ``releases`` DataFrames (see :class:`History` for every column).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads.
    """
    name = os.fspath(ledger)
    connection = connect(name)
    try:
        rows = _read(connection, name)
    finally:
        connection.close()
    releases = pd.DataFrame(
        [r[:7] for r in rows["releases"]],
        columns=["release", "version", "date", "evaluation", "verdict", "override_reason", "note"],
    ).astype(
        {
            "release": "int64",
            "version": "str",
            "date": "str",
            "evaluation": "Int64",
            "verdict": "str",
            "override_reason": "str",
            "note": "str",
        }
    )
    items, grid = _items_frame(rows)
    always, flipped = _across(grid)
    labels = [label for _, label, _, _ in rows["versions"]]
    return History(
        name,
        _versions_frame(rows, releases),
        items,
        always,
        flipped,
        _escaped(grid, releases, labels),
        releases,
        {
            metric: Fraction(value)
            for row in rows["thresholds"]
            for metric, value in zip(RATE_METRICS, row, strict=True)
        },
    )


def _na(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _rate(row, metric: str) -> str:
    den = int(row[f"{metric}_denominator"])
    return format_fraction(Fraction(int(row[f"{metric}_numerator"]), den) if den else None)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return text_table(header, rows)


def _item_names(items: pd.DataFrame) -> dict[str, str]:
    """Per item fingerprint, its id; with the short fingerprint when an id has several."""
    pairs = items[["item_fingerprint", "item_id"]].drop_duplicates()
    repeated = set(pairs["item_id"][pairs["item_id"].duplicated()])
    return {
        fp: f"{i} [{fp[:8]}]" if i in repeated else i
        for fp, i in zip(pairs["item_fingerprint"], pairs["item_id"], strict=True)
    }


_HEADER = ["version", "golden set", "items", *RATE_METRICS, "violations", "verdict", "released"]


def _head(found: History) -> str:
    live = found.live
    return (
        f"ledger {found.ledger}: {format_count(len(found.versions), 'version')}, "
        f"{format_count(len(found.releases), 'release')}; "
        + (
            f"live: {live} since {found.releases['date'].iloc[-1]}"
            if live is not None
            else "nothing released yet"
        )
    )


def _cells(found: History) -> tuple[list[list[str]], dict[int, str]]:
    """Per version its cells, and the golden-set-change notes before some rows."""
    block: list[list[str]] = []
    marks: dict[int, str] = {}
    previous = None
    for row in found.versions.to_dict("records"):
        if row["golden_changed"]:
            marks[len(block)] = (
                f"golden set changed: {previous} -> {row['golden_set']}; the rates below are "
                "not on the same measuring stick as those above"
            )
        previous = row["golden_set"]
        verdict = "-" if _na(row["verdict"]) else f"{row['verdict']} vs {row['baseline']}"
        released = "-" if _na(row["release_date"]) else row["release_date"]
        if not _na(row["release_date"]) and not _na(row["override_reason"]):
            released += f" (override: {row['override_reason']})"
        block.append(
            [
                str(row["version"]),
                str(row["golden_set"]),
                str(row["golden_items"]),
                *(_rate(row, m) for m in RATE_METRICS),
                str(row["violations"]),
                verdict,
                released,
            ]
        )
    return block, marks


def _summary(found: History) -> list[str]:
    """The three lines about items across versions."""
    always, flipped, escaped = found.always_failed, found.flipped, found.escaped
    named = _item_names(found.items)
    flips = zip(flipped["item_fingerprint"], flipped["flips"], strict=True)
    escapes = zip(
        escaped["item_fingerprint"], escaped["version"], escaped["release_date"], strict=True
    )
    return [
        f"items failed by every version ({len(always)}): "
        + format_id_list(named[fp] for fp in always["item_fingerprint"]),
        f"items flipped more than once ({len(flipped)}): "
        + format_id_list(f"{named[fp]} ({n} flips)" for fp, n in flips),
        f"regressions that escaped ({len(escaped)}): "
        + format_id_list(f"{named[fp]} in {v} (released {d})" for fp, v, d in escapes),
    ]


def history_text(found: History) -> str:
    """The history as readable text (every number through :mod:`buddy_eval.formatting`)."""
    block, marks = _cells(found)
    table = _table(_HEADER, block)
    lines = [printable(_head(found)), "", table[0]]
    for k, line in enumerate(table[1:]):
        if k in marks:
            lines.append(f"-- {marks[k]} --")
        lines.append(line)
    return "\n".join([*lines, "", *(printable(line) for line in _summary(found))])


def _md(text: str) -> str:
    """Text that renders literally in Markdown: :func:`buddy_eval.formatting.markdown_text`
    through ``markdown_escape`` (every invisible character, a vertical tab or U+2028 too,
    shown as an escape)."""
    return markdown_escape(text, limit=_MD_LIMIT)


#: Characters of one Markdown cell or line at most (labels and id lists are capped already).
_MD_LIMIT = 2000


def history_markdown(found: History) -> str:
    """The history as Markdown: a heading, one table, a note where the golden set changed."""
    block, marks = _cells(found)
    lines = [f"### {_md(_head(found))}", ""]
    lines.append("| " + " | ".join(_HEADER) + " |")
    lines.append("|" + "---|" * len(_HEADER))
    for k, cells in enumerate(block):
        if k in marks:
            lines.append(f"| **{_md(marks[k])}** |" + " |" * (len(_HEADER) - 1))
        lines.append("| " + " | ".join(_md(c) for c in cells) + " |")
    lines.append("")
    lines += [f"- {_md(line)}" for line in _summary(found)]
    return "\n".join(lines)


def _json_value(value):
    if _na(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return value


def history_json(found: History) -> str:
    """The history as one JSON object: exact counts as numerator and denominator."""
    versions = []
    for row in found.versions.to_dict("records"):
        entry = {
            "version": row["version"],
            "golden_set": row["golden_set"],
            "golden_items": int(row["golden_items"]),
            "golden_changed": bool(row["golden_changed"]),
        }
        for metric in RATE_METRICS:
            num, den = int(row[f"{metric}_numerator"]), int(row[f"{metric}_denominator"])
            entry[metric] = {"numerator": num, "denominator": den} if den else None
        entry["violations"] = int(row["violations"])
        for key in ("evaluation", "baseline", "verdict", "reasons", "release_date",
                    "override_reason"):  # fmt: skip
            entry[key] = _json_value(row[key])
        entry["released"] = bool(row["released"])
        versions.append(entry)

    def records(frame: pd.DataFrame) -> list[dict]:
        return [{k: _json_value(v) for k, v in r.items()} for r in frame.to_dict("records")]

    return json.dumps(
        {
            "ledger": found.ledger,
            "live": found.live,
            "versions": versions,
            "releases": records(found.releases),
            "always_failed": records(found.always_failed),
            "flipped": records(found.flipped),
            "escaped": records(found.escaped),
        },
        ensure_ascii=False,
        indent=2,
    )
