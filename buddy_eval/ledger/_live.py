"""The baseline from the ledger: the live version's results, paired by item fingerprint.

:func:`live_baseline` reads the input once, finds the live version (the
version of the last release or rollback), and adds that version's stored
results for every golden item whose fingerprint it holds a result for. The
gate then compares like with like:

- the candidate's figures, its thresholds and its violations cover the whole
  golden set;
- the live version's figures, the regression checks, the paired statistics
  and the non-inferiority rule cover the items both versions hold with the
  same fingerprint;
- the other items (added or changed since the live version was measured, or
  never measured) are listed as not compared, never charged to it.

To close the gap, the input may itself hold the live version's results on
those items (lines with its label): they are scored with the stored ones,
and recording the evaluation adds them to the ledger as the live version's
results. A line of the live version for an item it already holds a result
for must be that same result (results are facts).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .._errors import InputError, quoted
from .._loading import EvalInput
from ..formatting import format_id_list
from . import _store
from ._schema import reading

__all__ = ["LiveBaseline", "evaluate_live", "live_baseline"]


class _NamedBytes(io.BytesIO):
    """The input's bytes under its own name, so messages keep ``file:line``."""

    def __init__(self, data: bytes, name: str):
        super().__init__(data)
        self.name = name


@dataclass(frozen=True)
class LiveBaseline:
    """The live version used as the baseline, and how its items pair with the input's.

    Attributes
    ----------
    label : str
        The live version.
    release_id : int
    release_date : str
    evaluation_id : int or None
        The stored evaluation the version went live on (None: never gated).
    paired : int
        Golden items the live version holds a result for, with the same
        fingerprint (stored, or given in the input).
    added, changed, removed : tuple of str
        Item ids new in the input's golden set, edited since the live version
        was measured (another fingerprint), or gone from it.
    unmeasured : tuple of str
        Items with the same fingerprint that the live version has no result for.
    from_input : tuple of str
        Items whose live-version results come from the input (new to the ledger).
    data : EvalInput
        The input with the live version's results added (what the gate scores).
    shared : numpy.ndarray
        Per golden item: it is compared (the live version holds a result for it).

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval import ledger
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")          # OLD is live

    The next input holds the candidate V2 alone, on a golden set that lost
    q3 and q4 and gained q5:

    >>> nxt = os.path.join(tmp.name, "next.txt")
    >>> with open(nxt, "w") as f:
    ...     _ = f.write("THRESHOLDS 0.6 0.6 1.0\\nq1 ANSWER L3 class,object\\n"
    ...                 "q2 ANSWER L5 interface\\nq5 ANSWER L8 generic\\nRESULTS\\n"
    ...                 "V2 q1 L3 N A class describes objects\\n"
    ...                 "V2 q2 L5 N An interface is a contract\\n"
    ...                 "V2 q5 L8 N Generics keep types\\n")
    >>> live = ledger.live_baseline(path, nxt)
    >>> live.label, live.release_id, live.paired, live.added, live.removed
    ('OLD', 1, 2, ('q5',), ('q3', 'q4'))
    >>> live.not_compared
    {'added': ('q5',), 'changed': (), 'no result': ()}
    >>> tmp.cleanup()
    """

    label: str
    release_id: int
    release_date: str
    evaluation_id: int | None
    paired: int
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    unmeasured: tuple[str, ...]
    from_input: tuple[str, ...]
    data: EvalInput
    shared: np.ndarray = field(repr=False)

    @property
    def not_compared(self) -> dict[str, tuple[str, ...]]:
        """The items not compared, by why: ``added``, ``changed``, ``no result``."""
        return {
            "added": tuple(i for i in self.added if i not in self.from_input),
            "changed": tuple(i for i in self.changed if i not in self.from_input),
            "no result": self.unmeasured,
        }

    @property
    def message(self) -> str:
        """One line: where the baseline came from and which items it is compared on."""
        evidence = (
            f"evaluation {self.evaluation_id}" if self.evaluation_id is not None else "no gate"
        )
        missing = self.not_compared
        line = (
            f"baseline {quoted(self.label)} is the live version (release {self.release_id} of "
            f"{self.release_date}, on {evidence}); compared on {self.paired} items"
        )
        if self.from_input:
            line += f" ({len(self.from_input)} of them measured in this input)"
        line += (
            f"; not compared: added {format_id_list(missing['added'])}, changed "
            f"{format_id_list(missing['changed'])}, no result "
            f"{format_id_list(missing['no result'])}; removed since: "
            f"{format_id_list(self.removed)}"
        )
        return line

    def scope(self):
        """The :class:`~buddy_eval.BaselineScope` the gate compares the live version on."""
        from .._results import BaselineScope

        return BaselineScope(
            items=self.shared,
            not_compared=self.not_compared,
            source=(
                f"the live version {quoted(self.label)} (release {self.release_id} of "
                f"{self.release_date}), read from the ledger"
            ),
            hint=self.hint,
        )

    @property
    def hint(self) -> str | None:
        """How to compare the items not compared; None when every item is."""
        if not any(self.not_compared.values()):
            return None
        return (
            f"to compare them, run version {quoted(self.label)} on those items, add its result "
            f"lines (labelled {self.label}) to the input and run again: they are scored with "
            "its stored results and recorded as its own"
        )


def evaluate_live(
    ledger, source, candidate: str = "NEW", settings=None, *, trials=False, slices=None
):
    """The gate's evaluation of ``candidate`` against the live version in ``ledger``.

    What ``buddy-eval INPUT --baseline live --ledger PATH`` runs: the
    candidate's figures, thresholds and violations cover the input's whole
    golden set; the live version's figures, the regression checks and the
    paired statistics cover the items both hold (see :func:`live_baseline`).

    Parameters
    ----------
    ledger : str or os.PathLike
        The ledger; something must have been released.
    source : str, os.PathLike or binary file
        The input: a path, ``-`` for standard input, or an open binary file.
    candidate : str
        The candidate's version label in the input (default ``NEW``).
    settings : Settings, optional
        As for :func:`buddy_eval.evaluate`.
    trials : bool
        Repeated trials (see :func:`buddy_eval.load`).
    slices : path, pandas.DataFrame or mapping, optional
        The slice of each golden item, as for :func:`buddy_eval.evaluate`.

    Returns
    -------
    tuple of (Evaluation, LiveBaseline)

    Raises
    ------
    InputError
        As :func:`live_baseline`, and every input error of :func:`buddy_eval.evaluate`.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval import ledger
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")          # OLD is live

    The next input holds the candidate V2 alone, on a golden set that lost
    q3 and q4 and gained q5:

    >>> nxt = os.path.join(tmp.name, "next.txt")
    >>> with open(nxt, "w") as f:
    ...     _ = f.write("THRESHOLDS 0.6 0.6 1.0\\nq1 ANSWER L3 class,object\\n"
    ...                 "q2 ANSWER L5 interface\\nq5 ANSWER L8 generic\\nRESULTS\\n"
    ...                 "V2 q1 L3 N A class describes objects\\n"
    ...                 "V2 q2 L5 N An interface is a contract\\n"
    ...                 "V2 q5 L8 N Generics keep types\\n")
    >>> ev, live = ledger.evaluate_live(path, nxt, candidate="V2")
    >>> print(ev.report())
    OLD: correctness 1.00 citation 1.00 refusal n/a violations 0
    V2: correctness 1.00 citation 1.00 refusal n/a violations 0
    RELEASE
    >>> live.paired, live.not_compared["added"]
    (2, ('q5',))
    >>> tmp.cleanup()
    """
    from .._evaluation import evaluate

    live = live_baseline(ledger, source, trials=trials)
    evaluation = evaluate(
        live.data, live.label, candidate, settings, scope=live.scope(), slices=slices
    )
    return evaluation, live


def _input_bytes(source) -> tuple[bytes, str]:
    from .._parsing import read_input_bytes

    if hasattr(source, "read"):  # an open binary file (the notebook report reads INPUT once)
        return source.read(), str(getattr(source, "name", "<input>"))
    if source == "-":
        return read_input_bytes(None), "<stdin>"
    return read_input_bytes(source), str(source)


def live_baseline(ledger, source, *, trials: bool = False) -> LiveBaseline:
    """The input at ``source`` with the live version's stored results added as the baseline.

    Parameters
    ----------
    ledger : str or os.PathLike
        The ledger; something must have been released.
    source : str, os.PathLike or binary file
        The input: a path, ``-`` for standard input, or an open binary file.
    trials : bool
        Repeated trials (see :func:`buddy_eval.load`).

    Returns
    -------
    LiveBaseline
        The live version, how its items pair with the input's, and the input
        with its results added (``data``), ready for :func:`buddy_eval.evaluate`
        with ``scope=live.scope()``.

    Raises
    ------
    InputError
        Nothing released yet, the live version recorded without answers,
        repeated trials without ``trials``, a line of the live version in the
        input that contradicts its stored result, or a damaged ledger.

    Examples
    --------
    >>> import os, tempfile
    >>> from buddy_eval import ledger
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> _ = be.record(be.evaluate("data/example.txt"), path, date="2026-03-01", by="ci")
    >>> _ = be.release(path, "OLD", date="2026-03-01", by="ci")          # OLD is live

    The next input holds the candidate V2 alone, on a golden set that lost
    q3 and q4 and gained q5:

    >>> nxt = os.path.join(tmp.name, "next.txt")
    >>> with open(nxt, "w") as f:
    ...     _ = f.write("THRESHOLDS 0.6 0.6 1.0\\nq1 ANSWER L3 class,object\\n"
    ...                 "q2 ANSWER L5 interface\\nq5 ANSWER L8 generic\\nRESULTS\\n"
    ...                 "V2 q1 L3 N A class describes objects\\n"
    ...                 "V2 q2 L5 N An interface is a contract\\n"
    ...                 "V2 q5 L8 N Generics keep types\\n")
    >>> live = ledger.live_baseline(path, nxt)
    >>> print(live.message)  # doctest: +NORMALIZE_WHITESPACE
    baseline 'OLD' is the live version (release 1 of 2026-03-01, on no gate); compared on 2
    items; not compared: added q5, changed none, no result none; removed since: q3, q4
    >>> ev = be.evaluate(live.data, live.label, "V2", scope=live.scope())
    >>> ev.decision.verdict
    'RELEASE'
    >>> tmp.cleanup()
    """
    from .._loading import load
    from ._record import _golden_items

    data, name = _input_bytes(source)
    loaded = load(_NamedBytes(data, name), trials=trials)
    current = _golden_items(loaded)
    name_ledger = os.fspath(ledger)
    with reading(name_ledger) as connection:
        done = _store.releases(connection, name_ledger)
        if not done:
            raise InputError(
                "nothing has been released yet, so there is no live baseline; release a "
                "version first (buddy-eval ledger release LABEL --ledger PATH)",
                source=name_ledger,
            )
        live = done[-1]
        _store.evaluations(connection, name_ledger)  # the evidence it went live on, checked
        label = _store.versions(connection)[live.version_id]
        facts = _store.version_facts(connection, name_ledger, live.version_id)
    if not all(fact.answers_kept for fact in facts.values()):
        raise InputError(
            f"the live version {quoted(label)} was recorded without answers (--no-answers); "
            "the gate needs them to score it again: give its results in the input instead"
        )
    then = {fact.item_id: fp for fp, fact in facts.items()}  # as the live version was measured
    if not trials and any(len(fact.lines) > 1 for fact in facts.values()):
        raise InputError(
            f"the live version {quoted(label)} was recorded with repeated trials: add --trials"
        )

    fingerprints = [item[0] for item in current]
    ids_now = [item[1] for item in current]
    golden = loaded.golden_columns
    results, join = loaded.result_columns, loaded.join
    code = join.versions.index(label) if label in join.versions else len(join.versions)
    mine = join.version == code
    # The input's own lines of the live version: new facts, or the stored ones again.
    given: dict[int, list] = {}
    for row in np.flatnonzero(mine & (join.item >= 0)).tolist():
        given.setdefault(int(join.item[row]), []).append(row)
    keep = ~mine | (join.item < 0)
    from_input = []
    cited_all = results.cited.to_pylist() if given else []
    answers = results.answer.column().to_pylist() if given else []
    for position, rows in given.items():
        stored = facts.get(fingerprints[position])
        if stored is None:
            keep[rows] = True
            from_input.append(position)
            continue
        here = _store.canonical_lines((cited_all[r], results.refused[r], answers[r]) for r in rows)
        if here != stored.canonical():
            line = int(results.line[rows[0]])
            raise InputError(
                f"version {quoted(label)} is the live version and already has another result "
                f"for item {quoted(ids_now[position])} in the ledger; the results of a version "
                "are facts: remove this line or give its results a new version label",
                source=name,
                line=line,
            )
    shared = np.array([fp in facts for fp in fingerprints], dtype=bool)
    shared[from_input] = True
    stored_rows = [
        (position, *line)
        for position, fingerprint in enumerate(fingerprints)
        if fingerprint in facts
        for line in facts[fingerprint].lines
    ]
    kept = np.flatnonzero(keep)
    merged = _merged(loaded, kept, stored_rows, label, code, trials)
    now = set(ids_now)
    removed = tuple(i for i in then if i not in now)
    changed = tuple(
        i
        for fp, i in zip(fingerprints, ids_now, strict=True)
        if i in then and then[i] != fp and fp not in facts
    )
    added = tuple(i for i in ids_now if i not in then)
    unmeasured = tuple(
        i
        for k, (fp, i) in enumerate(zip(fingerprints, ids_now, strict=True))
        if not shared[k] and i in then and then[i] == fp
    )
    from_ids = tuple(ids_now[p] for p in sorted(from_input))
    return LiveBaseline(
        label=label,
        release_id=live.id,
        release_date=live.date,
        evaluation_id=live.evaluation_id,
        paired=int(shared.sum()),
        added=added,
        changed=changed,
        removed=removed,
        unmeasured=unmeasured,
        from_input=from_ids,
        data=EvalInput(
            loaded.thresholds,
            golden,
            merged[0],
            merged[1],
            source=loaded.source,
            warnings=loaded.warnings,
            results_line=loaded.results_line,
        ),
        shared=shared,
    )


def _merged(loaded, kept: np.ndarray, stored: list, label: str, code: int, trials: bool):
    """The input's result columns at ``kept`` followed by the stored lines of ``label``."""
    from .._input_columns import JoinCodes, ResultColumns, Texts

    results, join = loaded.result_columns, loaded.join
    taken = pa.array(kept, pa.int64())
    n = len(stored)
    positions = np.array([s[0] for s in stored], np.int64)
    item_ids = loaded.golden_columns.item_id.take(pa.array(positions, pa.int64()))

    def text(own: pa.Array, extra) -> pa.Array:
        return pa.concat_arrays(
            [
                own.cast(pa.large_string()),
                pa.array(extra, pa.large_string()).cast(pa.large_string()),
            ]
        )

    columns = ResultColumns(
        version=text(results.version.take(taken), [label] * n),
        item_id=pa.concat_arrays(
            [results.item_id.take(taken).cast(pa.large_string()), item_ids.cast(pa.large_string())]
        ),
        cited=text(results.cited.take(taken), [s[2] for s in stored]),
        refused=np.concatenate(
            [results.refused[kept], np.array([bool(s[3]) for s in stored], dtype=bool)]
        ),
        answer=Texts(
            text(results.answer.take(kept), [s[4] if s[4] is not None else "" for s in stored])
        ),
        line=np.concatenate([results.line[kept], np.zeros(n, np.int64)]),
    )
    versions = join.versions if code < len(join.versions) else (*join.versions, label)
    codes = JoinCodes(
        versions=tuple(versions),
        version=np.concatenate([join.version[kept], np.full(n, code, join.version.dtype)]),
        item=np.concatenate([join.item[kept], positions.astype(join.item.dtype)]),
        trial=(
            np.concatenate([join.trial[kept], np.array([s[1] for s in stored], join.trial.dtype)])
            if trials and join.trial is not None
            else None
        ),
    )
    return columns, codes
