"""A ledger's history and rows with their views: :func:`history`, :class:`History`, :func:`show`.

The ledger computes (:mod:`buddy_eval.ledger._history` reads the history,
:mod:`buddy_eval.ledger._show` the stored rows) and never imports its views;
the report layer words them (:func:`~buddy_eval.reporting.history_document`,
:func:`~buddy_eval.reporting.show_document`). This module sits above both.
"""

from __future__ import annotations

import os

import pandas as pd

from ._escaping import terminal_text
from .ledger._history import HistoryResults, SliceHistory, read_history, read_slice_history
from .ledger._show import stored
from .reporting import (
    Document,
    Table,
    history_document,
    render_json,
    render_markdown,
    render_text,
    show_document,
    slice_history_document,
)

__all__ = [
    "History",
    "HistoryOfSlice",
    "history",
    "history_json",
    "history_markdown",
    "history_text",
    "show",
]


class History(HistoryResults):
    """Every version in a ledger and its items, what happened across them, and its views.

    Every figure is read once by :func:`history` (exact counts, the stored
    verdicts, every release and rollback); the views word it once
    (:func:`buddy_eval.reporting.history_document`) and lay it out.

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
    findings : pandas.DataFrame
        The golden-set doctor's findings recorded with each revision (once,
        by the evaluation that first recorded it, at the doctor's default
        limits), one row per finding, revisions in order, worst first:
        ``revision`` (str), ``position`` (int64: 0, 1, ... within the
        revision), ``check`` (str), ``severity`` (ordered category
        ``error`` < ``warning`` < ``note``), ``ids`` (list of str), ``message``
        (str). The ``revisions`` frame also has ``findings_recorded`` (bool:
        False for a revision recorded before findings were kept) and
        ``errors``, ``warnings``, ``notes`` (Int64: findings per severity,
        NA when not recorded); :meth:`diagnosis` gives one revision's as a
        :class:`~buddy_eval.doctor.Diagnosis`.

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
        (its latest release date, ``(live)`` for the live one, or ``(live since
        DATE)`` when a rollback made it live again later; ``-`` when none).
        """
        return _frame(history_document(self).section("versions").blocks[0])

    def release_table(self) -> pd.DataFrame:
        """Every release and rollback as the text view shows them (every cell text).

        Columns: ``release``, ``version``, ``date``, ``evidence``, ``reason``
        (the override or rollback reason, in full), ``by``.
        """
        return _frame(history_document(self).section("releases").blocks[0])


class HistoryOfSlice(SliceHistory):
    """One slice's history: each evaluation recorded with slices, its versions' figures over
    the slice's items (what :func:`history` returns with ``slice=NAME``).

    Attributes
    ----------
    ledger : str
        The ledger's path.
    slice : str
        The slice read.
    slices : tuple of str
        Every slice the evaluations recorded with slices have (first-seen
        order; ``(none)`` holds the items their slices file did not list).
    rates : pandas.DataFrame
        One row per (evaluation recorded with slices, role), in recording order:

        - ``evaluation`` (int64), ``date``, ``revision``, ``verdict`` (str:
          the candidate's), ``slices_sha256`` (str: the slices file's
          SHA-256), ``slice_items`` (int64: the slice's golden items).
        - ``role`` (str): ``baseline`` or ``candidate``; ``version`` (str).
        - ``items`` (int64): the items counted (a live baseline: those it was
          compared on).
        - ``correctness_numerator``, ``correctness_denominator`` (object:
          exact ints, as the gate counts them: with repeated trials both
          scaled by the least common multiple of the trial counts) and
          ``correctness`` (object: the exact Fraction, None when not
          measured); the same for ``citation`` and ``refusal``.
        - ``violations`` (int64): REFUSE items of the slice answered.
    without_slices : int
        Evaluations recorded without slices, left out.

    Examples
    --------
    >>> import os, tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "release.ledger")
    >>> ev = be.evaluate("data/example.txt", slices={"q3": "hard"})
    >>> _ = be.record(ev, path, date="2026-03-01", by="ci")
    >>> found = be.history(path, slice="hard")
    >>> found.rates[["version", "items", "correctness"]]
      version  items correctness
    0     OLD      1           0
    1     NEW      1           1
    >>> found.text().splitlines()[0].split(": ", 1)[1]
    "slice 'hard' in 1 evaluation recorded with slices"
    >>> tmp.cleanup()
    """

    def text(self) -> str:
        """As ``buddy-eval history --slice NAME`` prints it."""
        return history_text(self)

    def markdown(self) -> str:
        """As ``buddy-eval history --slice NAME --format markdown`` prints it."""
        return history_markdown(self)

    def json(self) -> str:
        """As ``buddy-eval history --slice NAME --format json`` prints it."""
        return history_json(self)

    def table(self) -> pd.DataFrame:
        """The rates as the text view shows them, every cell text."""
        return _frame(slice_history_document(self).section("rates").blocks[0])


def _frame(table) -> pd.DataFrame:
    assert isinstance(table, Table)
    return pd.DataFrame(table.cells(), columns=[c.key for c in table.columns], dtype="str")


def history(ledger: str | os.PathLike[str], slice: str | None = None):
    """Read what happened across the versions recorded in a ledger (or in one slice).

    Parameters
    ----------
    ledger : str or os.PathLike
        An existing ledger file (see :func:`buddy_eval.record`).
    slice : str, optional
        A slice name: read, per evaluation recorded with slices
        (``--slices``), its versions' rates over that slice's items instead.

    Returns
    -------
    History
        ``versions`` (one row per version), ``items`` (one row per
        observation), ``always_failed``, ``flipped``, ``escaped``,
        ``releases``, ``revisions``, ``revision_changes``, ``across`` and
        ``findings`` DataFrames (see :class:`History` for every column).
        With ``slice``: a :class:`HistoryOfSlice` (its ``rates`` DataFrame).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, a row was changed
        outside buddy-eval, or no evaluation recorded with slices has the
        slice (the message names those there are).

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
    if slice is not None:
        found = read_slice_history(ledger, slice)
        return HistoryOfSlice(**{f: getattr(found, f) for f in found.__dataclass_fields__})
    return read_history(ledger, History)


def _document(found: HistoryResults | SliceHistory) -> Document:
    if isinstance(found, SliceHistory):
        return slice_history_document(found)
    return history_document(found)


def history_text(found: HistoryResults | SliceHistory) -> str:
    """The history as readable text, every invisible character shown as an escape."""
    return render_text(_document(found), escape=terminal_text)


def history_markdown(found: HistoryResults | SliceHistory) -> str:
    """The history as Markdown: a heading, the versions, the releases, the item lists."""
    return render_markdown(_document(found)).removesuffix("\n")


def history_json(found: HistoryResults | SliceHistory) -> str:
    """The history as one JSON object: exact counts as numerator and denominator."""
    return render_json(_document(found))


def show(ledger: str | os.PathLike[str]) -> str:
    """The ledger's revisions, versions, evaluations and releases, as tables of text.

    Every row is checked against its stored hash first.

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or a row was changed
        outside buddy-eval.
    """
    return render_text(show_document(stored(ledger)), escape=terminal_text)
