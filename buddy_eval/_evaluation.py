"""An evaluation and its views: :func:`evaluate`, :func:`report` and :class:`Evaluation`.

:class:`Evaluation` is the computed :class:`~buddy_eval._results.Results`
plus the ways to look at it (the ``--details`` text, the notebook's HTML).
The results never import their views; this module sits above both.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ._loading import EvalInput, load
from ._results import BaselineScope, Results

if TYPE_CHECKING:
    from ._loading import InputSource
    from ._paired_settings import Settings
    from .formatting import Report

__all__ = ["BaselineScope", "Evaluation", "evaluate", "report"]


class Evaluation(Results):
    """The scored comparison of a baseline and a candidate version, with its views.

    Build it with :func:`evaluate`. Every figure is computed by
    :class:`~buddy_eval._results.Results` (see its attributes); only the
    views round.

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt")
    >>> ev
    <Evaluation OLD -> NEW of data/example.txt>
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal
    >>> ev.release, ev.values("NEW")["refusal"]
    (False, Fraction(0, 1))
    >>> ev.metrics[["version", "metric", "numerator", "denominator"]].head(4)
      version       metric  numerator  denominator
    0     OLD  correctness          2            3
    1     OLD     citation          2            3
    2     OLD      refusal          1            1
    3     OLD   violations          0            1
    >>> new = ev.items[ev.items["version"] == "NEW"]
    >>> new[["item_id", "correct", "cited_ok", "refused_ok", "violation"]]
      item_id  correct  cited_ok  refused_ok  violation
    4      q1     True      True        <NA>       <NA>
    5      q2     True      True        <NA>       <NA>
    6      q3     True      True        <NA>       <NA>
    7      q4     <NA>      <NA>       False       True
    >>> ev.paired["refusal"].ids["regressed"]
    ('q4',)
    """

    def coverage(self) -> str:
        """Which golden items each figure covers, when the baseline is compared on fewer
        items (a live baseline); empty otherwise. ``--details`` starts with it."""
        from .reporting import coverage_text

        return coverage_text(self)

    def details(self) -> str:
        """The statistics section of ``--details``: paired tests, intervals, readiness, trials."""
        from .reporting import statistics_text

        return statistics_text(self)

    def _repr_html_(self) -> str:
        from ._notebook_views import evaluation_html

        return evaluation_html(self)


def evaluate(
    data: InputSource,
    baseline: str = "OLD",
    candidate: str = "NEW",
    settings: Settings | None = None,
    *,
    trials: bool = False,
    scope: BaselineScope | None = None,
    slices: Any = None,
) -> Evaluation:
    """Score every version and decide whether ``candidate`` may replace ``baseline``.

    Parameters
    ----------
    data : EvalInput or anything :func:`buddy_eval.load` accepts
        The input.
    trials : bool
        Load the input allowing repeated trials (see :func:`buddy_eval.load`).
        An :class:`EvalInput` keeps the choice it was loaded with.
    baseline, candidate : str
        Version labels to compare (default ``OLD`` and ``NEW``).
    settings : Settings, optional
        How the paired statistics are computed (default :class:`Settings()`).
    scope : BaselineScope, optional
        The items the baseline is compared on (a live baseline read from a
        ledger, see :func:`buddy_eval.ledger.live_baseline`); default: every item.
    slices : path, pandas.DataFrame or mapping, optional
        The slice of each golden item: a CSV file ``id,slice``, a DataFrame
        with the columns ``id`` and ``slice``, or a mapping from id to slice
        (see :func:`buddy_eval.assign_slices`). Every figure is then also
        computed per slice (``Evaluation.slices``), and
        ``Settings(slice_rule="drop")`` gates on them.

    Returns
    -------
    Evaluation

    Raises
    ------
    InputError
        For an invalid input, or when either label has no result line.

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt")
    >>> print(ev.report())
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal

    Any two labels of the input, either way round:

    >>> be.evaluate("data/example.txt", baseline="NEW", candidate="OLD").decision.verdict
    'BLOCK: regression in correctness; regression in citation'

    Repeated trials, and the paired statistics' settings:

    >>> ev = be.evaluate("data/sample_trials.txt", trials=True, settings=be.Settings(min_paired=10))
    >>> ev.has_trials, ev.paired["correctness"].ready
    (True, True)
    """
    if isinstance(slices, (str, os.PathLike)) and not isinstance(data, EvalInput):
        # The slices file is read on the other core while the input loads; an error
        # in the input is still the one reported first.
        from ._kernels import in_parallel
        from ._slices import read_slices_file

        loaded, slices = in_parallel(
            lambda: load(data, trials=trials), lambda: read_slices_file(slices)
        )
    else:
        loaded = load(data, trials=trials)
    return Evaluation(loaded, baseline, candidate, settings, scope=scope, slices=slices)


def report(source: InputSource, baseline: str = "OLD", candidate: str = "NEW") -> Report:
    """The canonical three-line report for an input, for scripts and CI.

    Parameters
    ----------
    source : EvalInput or anything :func:`buddy_eval.load` accepts
    baseline, candidate : str

    Returns
    -------
    str
        ``BASELINE: ...``, ``CANDIDATE: ...`` and ``RELEASE`` or
        ``BLOCK: reasons``, joined by newlines, with no trailing newline.

    Examples
    --------
    >>> print(report("THRESHOLDS 0.5 0.5 0.5\\nq1 ANSWER L1 class\\nRESULTS\\n"
    ...              "OLD q1 L1 N a class\\nNEW q1 L2 N a class\\n"))
    OLD: correctness 1.00 citation 1.00 refusal n/a violations 0
    NEW: correctness 1.00 citation 0.00 refusal n/a violations 0
    BLOCK: citation below threshold; regression in citation
    """
    return evaluate(source, baseline, candidate).report()
