"""Every computed figure of an evaluation: counts, decision, paired comparison, answers."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ._decision import Decision, decide
from ._errors import InputError
from ._loading import EvalInput
from ._paired_settings import Settings
from ._scoring import (
    Counts,
    baseline_then_candidate,
    check_versions,
    grid_counts,
    items_frame,
    score_grid,
)
from ._thresholds import Thresholds
from ._vocabulary import METRICS
from .formatting import Report, format_report

if TYPE_CHECKING:
    import pandas as pd

    from ._paired import PairedComparison
    from ._slices import SliceFigures

__all__ = ["BaselineScope", "Results"]

MAX_LISTED_MISSING = 10


class Results:
    """The scored comparison of a baseline and a candidate version: every computed figure.

    :class:`buddy_eval.Evaluation` adds its views to it; build one with
    :func:`buddy_eval.evaluate`. Every DataFrame holds exact counts; only
    :meth:`report` rounds.

    Attributes
    ----------
    data : EvalInput
        The validated input.
    baseline, candidate : str
        The version labels compared.
    items : pandas.DataFrame
        Per (version, golden item) outcomes for every version in the input,
        baseline and candidate first (see :func:`buddy_eval._scoring.score_items`).
    metrics : pandas.DataFrame
        Per (version, metric) numerators, denominators and values (see
        :func:`buddy_eval._scoring.score_versions`).
    counts : Counts
        The same exact counts as arrays (what the decision and the report read).
    decision : Decision
        RELEASE or BLOCK with the ordered reasons.
    warnings : tuple of str
        Unknown result ids, golden items with no result for the baseline or
        the candidate, and (repeated trials) a compared version whose items
        have unequal trial counts.
    scope : BaselineScope or None
        Where the baseline's results come from and which items it is
        compared on (a live baseline read from a ledger); None for an input
        that holds both versions.
    slice_assignment : SliceAssignment or None
        The slice of every golden item (see :func:`buddy_eval.assign_slices`);
        None without slices.
    shared : numpy.ndarray or None
        The golden items the baseline is compared on (a boolean mask in
        golden order), or None for every item. A live baseline read from a
        ledger holds results only for the items it was measured on: its
        figures, the regression checks and every paired statistic cover
        these items, while the candidate's figures, its thresholds and its
        violations cover the whole golden set. With None a golden item with
        no result counts as failed for either version.

    Notes
    -----
    With repeated trials (``data.trials``) the rates and violations (what
    :attr:`counts`, :meth:`values`, the decision and the report read) count
    every trial, and so do :attr:`paired` and :meth:`item_changes`, through
    each item's rate over its trials (:mod:`buddy_eval._trials`). :attr:`items`
    shows one row per (version, item), its first trial, with the column
    ``trials``.
    """

    def __init__(
        self,
        data: EvalInput,
        baseline: str = "OLD",
        candidate: str = "NEW",
        settings: Settings | None = None,
        *,
        scope: BaselineScope | None = None,
        slices: Any = None,
    ) -> None:
        if not isinstance(data, EvalInput):
            raise InputError(
                f"an Evaluation is built from an EvalInput (see buddy_eval.load), got "
                f"{type(data).__name__}; or call buddy_eval.evaluate(...)"
            )
        for role, label in (("baseline", baseline), ("candidate", candidate)):
            if isinstance(label, Settings):
                raise InputError(
                    f"a Settings was passed where the {role} version label goes; pass it by "
                    "name: evaluate(data, settings=Settings(...))"
                )
        check_versions(data, baseline, candidate)
        self.settings = Settings.check(settings)
        self.data = data
        self.baseline = baseline
        self.candidate = candidate
        # The gate scores the two compared versions only, so many other labels
        # cost nothing until someone asks for every version's items.
        self.scope = scope
        self.shared = None if scope is None else _shared_mask(scope.items, len(data.golden_columns))
        self.slice_assignment = None
        if slices is None:
            self._grid = score_grid(data, [baseline, candidate])
        else:  # the slices module is loaded only for slices
            from ._kernels import in_parallel
            from ._slices import assign_slices

            # Scoring and setting the slices against the golden items share the two cores.
            self._grid, self.slice_assignment = in_parallel(
                lambda: score_grid(data, [baseline, candidate]),
                lambda: assign_slices(slices, data),
            )
        full = grid_counts(self._grid)
        if self.shared is None:
            self._counts = self._shared_counts = full
        else:
            self._shared_counts = grid_counts(self._grid, self.shared)
            self._counts = baseline_then_candidate(self._shared_counts, full)
        if self.settings.rule == "noninferiority":
            shown = {m.metric: m.noninferior for m in self.paired.metrics}
            self.decision: Decision = decide(
                self._counts,
                data.thresholds,
                baseline,
                candidate,
                noninferior=shown,
                margin=self.settings.margin,
                bounds={m.metric: m.noninferiority_bound for m in self.paired.metrics},
                shared=self._compared_only,
            )
        else:
            self.decision = decide(
                self._counts, data.thresholds, baseline, candidate, shared=self._compared_only
            )
        if self.settings.slice_rule is not None:
            if self.slice_assignment is None:
                raise InputError(
                    "the slice rule needs slices: give --slices PATH (a CSV file id,slice)"
                )
            figures = self.slices
            assert figures is not None  # an assignment was given
            from ._slices import slice_checks

            self.decision = Decision(self.decision.checks + slice_checks(figures, self.settings))
        self.warnings = data.warnings + self._missing_warnings()
        if self.slice_assignment is not None:
            self.warnings += self.slice_assignment.warnings

    @cached_property
    def slices(self) -> SliceFigures | None:
        """Every figure per slice, computed once (None without slices; see
        :func:`buddy_eval._slices.slice_figures`)."""
        if self.slice_assignment is None:
            return None
        from ._slices import slice_figures

        return slice_figures(self, self.slice_assignment)

    @cached_property
    def _all_versions_grid(self):
        others = [v for v in self.data.versions if v not in (self.baseline, self.candidate)]
        if not others:
            return self._grid
        return score_grid(self.data, [self.baseline, self.candidate, *others])

    @property
    def has_trials(self) -> bool:
        """Some item has more than one trial in the baseline or the candidate."""
        return self._grid.repeated

    @property
    def trials_per_version(self) -> dict[str, dict[str, int]] | None:
        """With repeated trials: per compared version, its trial lines and items with a trial."""
        if not self._grid.repeated:
            return None
        trials = self._grid.trials.reshape(2, -1)
        return {
            version: {"trials": int(row.sum()), "items_with_a_trial": int((row > 0).sum())}
            for version, row in zip((self.baseline, self.candidate), trials, strict=True)
        }

    @property
    def _compared_only(self) -> Counts | None:
        return None if self.shared is None else self._shared_counts

    @property
    def shared_counts(self) -> Counts:
        """Both versions' exact counts over the :attr:`shared` items (what the regression
        checks and the paired statistics compare); :attr:`compared_counts` without a
        live baseline."""
        return self._shared_counts

    def not_compared_ids(self) -> list[str]:
        """Golden items outside :attr:`shared`, in golden order (none without a live baseline)."""
        if self.shared is None:
            return []
        outside = np.flatnonzero(~self.shared)
        return self.data.golden_columns.item_id.take(pa.array(outside, pa.int64())).to_pylist()

    @property
    def compared_counts(self) -> Counts:
        """Exact counts of the baseline and the candidate only (what the decision reads)."""
        return self._counts

    @cached_property
    def counts(self) -> Counts:
        """Exact per-version counts of every version in the input, baseline and candidate first."""
        if self._all_versions_grid is self._grid:
            return self._counts
        return grid_counts(self._all_versions_grid)

    @cached_property
    def items(self) -> pd.DataFrame:
        """Per (version, golden item) outcomes (computed on first use, then kept).

        With repeated trials the outcomes are the first trial's, and the
        column ``trials`` (int64) holds the number of trials of each row.
        """
        frame = items_frame(self.data, self._all_versions_grid)
        if self.data.trials:
            frame["trials"] = self._all_versions_grid.trials
        return frame

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """Per (version, metric) exact counts and values (built on first use, then kept)."""
        return self.counts.to_frame()

    # The paired core is imported on first use: the plain gate never needs it.

    @cached_property
    def _changes(self):
        from ._paired import metric_changes

        return metric_changes(self._grid, self.data.golden_columns.is_answer, self.shared)

    def item_changes(self) -> pd.DataFrame:
        """Per (metric, item) change between the versions (see :func:`buddy_eval.item_changes`).

        The table is built once; each call returns a fresh copy, so editing it
        changes nothing the views show.
        """
        return self._item_changes_frame.copy()

    @cached_property
    def _item_changes_frame(self) -> pd.DataFrame:
        from ._paired import changes_frame

        return changes_frame(self._changes, self.data.golden_columns.item_id)

    @cached_property
    def paired(self) -> PairedComparison:
        """Every paired figure, computed once with :attr:`settings` (:mod:`buddy_eval._paired`)."""
        from ._paired import compare_versions

        violations = []
        for version in (self.baseline, self.candidate):
            row = self._counts.versions.index(version)
            k = METRICS.index("violations")
            observed = self._counts.denominator[row, k] - self._counts.missing[row, k]
            violations.append((int(self._counts.numerator[row, k]), int(observed)))
        shared = self._shared_counts
        return compare_versions(
            self._changes,
            self.data.golden_columns.item_id,
            shared.values(self.baseline),
            shared.values(self.candidate),
            (violations[0], violations[1]),
            self.baseline,
            self.candidate,
            self.settings,
        )

    @property
    def thresholds(self) -> Thresholds:
        return self.data.thresholds

    @property
    def release(self) -> bool:
        """True when the candidate may be released."""
        return self.decision.release

    def values(self, version: str) -> dict[str, Fraction | int | None]:
        """One version's metrics as exact fractions (None when not measured)."""
        return (
            self._counts.values(version)
            if version
            in (
                self.baseline,
                self.candidate,
            )
            else self.counts.values(version)
        )

    def report(self) -> Report:
        """The canonical three lines (baseline, candidate, verdict), no trailing newline."""
        return format_report(
            self.baseline,
            self.values(self.baseline),
            self.candidate,
            self.values(self.candidate),
            self.decision,
        )

    @cached_property
    def answers(self) -> pd.DataFrame:
        """Every trial's answer in the baseline and the candidate and why the failing ones
        fail (:func:`buddy_eval.trial_answers`), computed once for the views that list them."""
        from ._drilldown import trial_answers

        return trial_answers(self)

    def compared_items(self) -> pd.DataFrame:
        """:attr:`items` restricted to the baseline and the candidate."""
        keep = self.items["version"].isin([self.baseline, self.candidate])
        out = self.items[keep].copy()
        out["version"] = out["version"].cat.set_categories([self.baseline, self.candidate])
        return out.reset_index(drop=True)

    def missing_ids(self, version: str) -> list[str]:
        """Golden items with no result for the baseline or the candidate, in golden order."""
        position = (self.baseline, self.candidate).index(version)
        missing = np.flatnonzero(self._missing(position))
        return self.data.golden_columns.item_id.take(pa.array(missing, pa.int64())).to_pylist()

    def _missing(self, position: int) -> np.ndarray:
        """Per golden item: no result for the version, where it is expected to have one."""
        missing = self._grid.row_of[position] < 0
        if position == 0 and self.shared is not None:
            missing = missing & self.shared
        return missing

    def _missing_warnings(self) -> tuple[str, ...]:
        warnings = []
        golden = self.data.golden_columns
        # The baseline and the candidate are the grid's first two versions.
        for position, version in enumerate((self.baseline, self.candidate)):
            missing = np.flatnonzero(self._missing(position))
            listed = missing[:MAX_LISTED_MISSING]
            lines = golden.line[listed].tolist()
            ids = golden.item_id.take(pa.array(listed, pa.int64())).to_pylist()
            for item_id, line in zip(ids, lines, strict=True):
                warnings.append(
                    f"{self.data.source}:{line}: golden item {item_id!r} has no "
                    f"result for version {version!r}; it counts as failed"
                )
            if len(missing) > MAX_LISTED_MISSING:
                warnings.append(
                    f"{self.data.source}: {len(missing) - MAX_LISTED_MISSING} more golden items "
                    f"have no result for version {version!r}; they count as failed"
                )
            trials = self._grid.tallies["trials"].reshape(2, -1)[position]
            warnings += self._unequal_trials(version, trials)
        return tuple(warnings)

    def _unequal_trials(self, version: str, trials: np.ndarray) -> list[str]:
        """A warning when the items a version has results for differ in trial counts."""
        per_count = np.bincount(trials)
        counts = np.flatnonzero(per_count[1:]) + 1
        items = per_count[counts]
        if len(counts) < 2:
            return []
        # Most items first; ties by more trials first.
        pairs = zip(items.tolist(), counts.tolist(), strict=True)
        (k, n), *rest = sorted(pairs, key=lambda pair: (-pair[0], -pair[1]))
        parts = [f"{n} trial{'s' if n != 1 else ''} for {k} item{'s' if k != 1 else ''}"]
        parts += [f"{n} for {k}" for k, n in rest[: MAX_LISTED_MISSING - 1]]
        more = len(rest) - (MAX_LISTED_MISSING - 1)
        tail = f" and {more} more trial count{'s' if more != 1 else ''}" if more > 0 else ""
        return [
            f"{self.data.source}: version {version!r} has unequal trial counts per item: "
            + ", ".join(parts)
            + tail
        ]

    @cached_property
    def comparison(self) -> pd.DataFrame:
        """:attr:`paired` as a DataFrame, one row per metric (see :func:`comparison_frame`)."""
        from ._paired import comparison_frame

        return comparison_frame(self.paired)

    def __repr__(self) -> str:
        head = f"<Evaluation {self.baseline} -> {self.candidate} of {self.data.source}>"
        return f"{head}\n{self.report()}"


@dataclass(frozen=True)
class BaselineScope:
    """Which golden items a baseline is compared on, and why the others are not.

    Attributes
    ----------
    items : numpy.ndarray
        Per golden item (golden order): the baseline holds a result for it
        on this very item (same fingerprint), so it is compared.
    not_compared : dict of str to tuple of str
        The other items by why: ``added`` (new since the baseline was
        measured), ``changed`` (edited since), ``no result`` (never measured).
    source : str
        Where the baseline's results come from, in words.
    hint : str or None
        How to compare the items not compared.
    """

    items: np.ndarray
    not_compared: dict
    source: str
    hint: str | None = None


def _shared_mask(shared, n_items: int) -> np.ndarray | None:
    mask = np.asarray(shared)
    if mask.dtype != bool or mask.shape != (n_items,):
        raise InputError(
            f"the compared items must be a boolean mask over the {n_items} golden items, got "
            f"{mask.dtype} of shape {mask.shape}"
        )
    return mask.copy()
