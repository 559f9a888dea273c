"""The golden-set doctor: check the measuring stick before trusting what it measures.

:func:`doctor` runs every named check (:data:`CHECKS`) on a release-gate
input (the golden items, the thresholds, and the results of whichever
versions it holds; the ``RESULTS`` section may be left out) or on golden
tasks with their run records, and returns the findings as a DataFrame.
:func:`diagnose` returns them as a :class:`Diagnosis` (what the views lay out).
Importing this package costs nothing: the checks load on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._diagnosis import Diagnosis, Finding
from ._table import CHECKS, COMMON_WORDS, SEVERITIES, DoctorCheck, Limits, check_named

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CHECKS",
    "COMMON_WORDS",
    "SEVERITIES",
    "DoctorCheck",
    "Diagnosis",
    "Finding",
    "Limits",
    "check_named",
    "diagnose",
    "doctor",
]


def diagnose(
    source=None,
    *,
    tasks=None,
    runs: Sequence = (),
    trials: bool = False,
    limits: Limits | None = None,
    ledger=None,
) -> Diagnosis:
    """Run the doctor on a golden set; the findings with what was checked.

    Parameters
    ----------
    source : str, os.PathLike, file, bytes or EvalInput, optional
        A release-gate input, as :func:`buddy_eval.load` reads it; its
        ``RESULTS`` section may be left out, and its results may name any
        version labels (the result checks run over all of them).
    tasks : str, os.PathLike or list, optional
        Golden tasks instead (as :func:`buddy_eval.tasks.load_golden` reads them).
    runs : sequence, optional
        With ``tasks``: run records (paths, lists or
        :class:`~buddy_eval.tasks.RunRecords`) for ``unsolved`` and ``saturated``.
    trials : bool
        The input's results are repeated trials (``flaky`` is then checked).
    limits : Limits, optional
        The checks' limits (the defaults of :class:`Limits` otherwise).
    ledger : str or os.PathLike, optional
        A release ledger: ``unsolved``, ``saturated`` and ``flaky`` then run over
        every version it holds on the same items (matched by fingerprint) too.

    Returns
    -------
    Diagnosis

    Raises
    ------
    InputError
        For every input error, as :func:`buddy_eval.load` and
        :func:`buddy_eval.tasks.load_golden` raise them.

    Examples
    --------
    >>> from buddy_eval.doctor import diagnose
    >>> diagnosis = diagnose("THRESHOLDS 0.8 0.8 0\\nq1 ANSWER L1 class\\nq2 REFUSE - -\\n")
    >>> [f.check for f in diagnosis.findings]
    ['few-refuse-items', 'vacuous-threshold', 'underpowered', 'underpowered', 'underpowered']
    """
    if (source is None) == (tasks is None):
        raise ValueError("give either a release-gate input or golden tasks (tasks=...)")
    if tasks is not None:
        if trials or ledger is not None:
            raise ValueError("trials and a ledger apply to a release-gate input, not to tasks")
        from ._run import diagnose_tasks

        return diagnose_tasks(tasks, runs)
    if runs:
        raise ValueError("run records go with golden tasks (tasks=...)")
    from ._run import diagnose_input

    return diagnose_input(source, trials=trials, limits=limits, ledger=ledger)


def doctor(
    source=None,
    *,
    tasks=None,
    runs: Sequence = (),
    trials: bool = False,
    limits: Limits | None = None,
    ledger=None,
) -> pd.DataFrame:
    """Check a golden set: a tidy DataFrame of findings, worst first.

    Takes what :func:`diagnose` takes. Each check (:data:`CHECKS`) has a
    stable name, a severity and a documented limit (:class:`Limits`).

    Returns
    -------
    pandas.DataFrame
        One row per finding, worst first (then in :data:`CHECKS` order):

        - ``check`` (str): the check's stable name, e.g. ``weak-keyword``.
        - ``severity`` (ordered category ``error`` < ``warning`` < ``note``
          in list order, worst first).
        - ``ids`` (list of str): the items or tasks it is about, in golden
          order; empty when it is about the whole set.
        - ``message`` (str): one line: what was found, why it matters, what to do.

    Examples
    --------
    >>> import buddy_eval as be
    >>> findings = be.doctor("data/example.txt")
    >>> findings[["check", "severity", "ids"]]
                  check severity       ids
    0  few-refuse-items  warning        []
    1      underpowered  warning        []
    2      underpowered  warning        []
    3      underpowered  warning        []
    4         saturated     note  [q1, q2]
    """
    return diagnose(
        source, tasks=tasks, runs=runs, trials=trials, limits=limits, ledger=ledger
    ).frame()
