"""Checks on the results of every version present: lenient checks, unsolved, saturated, flaky."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._loading import EvalInput
from . import _messages as say
from ._diagnosis import Finding
from ._table import Limits, check_named

__all__ = ["lenient_findings", "outcome_findings", "outcome_ids"]

#: The seed of the deterministic sample of other items' answers (same input, same findings).
SAMPLE_SEED = 20260301


def _finding(name: str, ids, message: str) -> Finding:
    return Finding(name, check_named(name).severity, tuple(ids), message)


def outcome_ids(trials: np.ndarray, passed: np.ndarray) -> dict[str, np.ndarray]:
    """Items unsolved, saturated and flaky, from per-(version, item) trials and passing trials.

    Parameters
    ----------
    trials, passed : numpy.ndarray
        Shape ``(n_versions, n_items)``: the trials of each version on each
        item (0: no result, which is no observation) and those passing every
        check of the item's type.

    Returns
    -------
    dict of str to numpy.ndarray
        ``unsolved``, ``saturated``, ``flaky``: golden positions, in order.
    """
    seen = trials > 0
    observed = seen.any(axis=0)
    fails = ~seen | (passed == 0)
    passes = ~seen | (passed == trials)
    mixed = ~seen | ((passed > 0) & (passed < trials))
    return {
        "unsolved": np.flatnonzero(observed & fails.all(axis=0)),
        "saturated": np.flatnonzero(observed & passes.all(axis=0)),
        "flaky": np.flatnonzero(observed & mixed.all(axis=0)),
    }


def outcome_findings(data: EvalInput, ids: pa.Array) -> Iterator[Finding]:
    """``unsolved``, ``saturated`` and, with repeated trials, ``flaky``, over every version."""
    from .._scoring import score_grid

    versions = data.versions
    if not versions:
        return
    grid = score_grid(data, versions)
    trials, passed = grid.item_trials()
    shape = (len(versions), len(data.golden_columns))
    found = outcome_ids(trials.reshape(shape), passed.reshape(shape))
    wording = {"unsolved": say.unsolved, "saturated": say.saturated, "flaky": say.flaky}
    for name, items in found.items():
        if name == "flaky" and not data.trials:
            continue
        if len(items):
            names = ids.take(pa.array(items, pa.int64())).to_pylist()
            yield _finding(name, names, wording[name](len(items), versions))


def lenient_findings(data: EvalInput, ids: pa.Array, limits: Limits) -> Iterator[Finding]:
    """``lenient-check``: an item's keywords found in many answers given to other items.

    The answers tried are answered (not refused) results of other ANSWER items,
    from every version and trial: per item, ``limits.lenient_sample`` of them
    at most, a window of a fixed shuffle of them (so the cost is linear in the
    items), its own answers left out.
    """
    from .. import _kernels as kernels

    golden, results, join = data.golden_columns, data.result_columns, data.join
    n_keywords = pc.list_value_length(golden.keywords).fill_null(0).to_numpy(zero_copy_only=False)
    items = np.flatnonzero(golden.is_answer & (n_keywords > 0))
    known = join.item >= 0
    pool = np.flatnonzero(known & ~results.refused.astype(bool))
    pool = pool[golden.is_answer[join.item[pool]]]
    if not len(items) or len(pool) < limits.lenient_min_answers:
        return
    rng = np.random.default_rng(SAMPLE_SEED)
    pool = pool[rng.permutation(len(pool))]
    size = min(limits.lenient_sample, len(pool))
    start = rng.integers(0, len(pool), size=len(items))
    # Per item, a window of `size` consecutive answers of the shuffled pool (distinct ones).
    rows = pool[(start[:, None] + np.arange(size)[None, :]) % len(pool)]
    keep = join.item[rows] != items[:, None]
    tried = keep.sum(axis=1)
    sample_item = np.repeat(np.arange(len(items)), size)[keep.ravel()]
    sample_row = rows.ravel()[keep.ravel()]
    # Every (sampled answer, keyword of the item) pair.
    kw_start = np.zeros(len(n_keywords) + 1, np.int64)
    np.cumsum(n_keywords, out=kw_start[1:])
    per = n_keywords[items[sample_item]]
    pair_sample = np.repeat(np.arange(len(sample_row)), per)
    first = np.cumsum(per) - per
    pair_kw = np.repeat(kw_start[items[sample_item]] - first, per) + np.arange(len(pair_sample))
    found = kernels.contains_casefold(
        results.answer,
        sample_row[pair_sample].astype(kernels.index_type(len(results.answer))),
        pc.list_flatten(golden.keywords),
        pair_kw.astype(np.int64),
    )
    missed = np.bincount(pair_sample[~found], minlength=len(sample_row))
    passes = np.bincount(sample_item[missed == 0], minlength=len(items))
    share, least = limits.lenient_share, limits.lenient_min_answers
    lenient = np.flatnonzero(
        (tried >= max(least, 1)) & (passes * share.denominator >= tried * share.numerator)
    )
    for k in lenient.tolist():
        item_id = ids[int(items[k])].as_py()
        message = say.lenient_check(item_id, int(passes[k]), int(tried[k]))
        yield _finding("lenient-check", (item_id,), message)
