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


def outcome_findings(data: EvalInput, ids: pa.Array, ledger=None, grid=None) -> Iterator[Finding]:
    """``unsolved``, ``saturated`` and, with repeated trials, ``flaky``, over every version.

    With ``ledger`` (a release ledger's path), over every version it holds on the same
    items (by fingerprint) too. ``grid``: the input already scored for every version it
    holds, in any order (scored here otherwise).
    """
    from .._scoring import score_grid

    versions = data.versions
    shape = (len(versions), len(data.golden_columns))
    if versions:
        if grid is None or sorted(grid.versions) != sorted(versions):
            grid = score_grid(data, versions)
        rows = [grid.versions.index(v) for v in versions]
        scored = (len(grid.versions), shape[1])
        trials, passed = (a.reshape(scored)[rows] for a in (grid.trials, grid.passes_all))
    else:
        trials = passed = np.zeros(shape, np.int64)
    if ledger is not None:
        from ._ledger import ledger_outcomes

        versions, trials, passed = ledger_outcomes(ledger, data, versions, trials, passed)
    if not versions:
        return
    found = outcome_ids(trials, passed)
    wording = {"unsolved": say.unsolved, "saturated": say.saturated, "flaky": say.flaky}
    for name, items in found.items():
        if name == "flaky" and not (data.trials or ledger is not None):
            continue
        if len(items):
            names = ids.take(pa.array(items, pa.int64())).to_pylist()
            yield _finding(name, names, wording[name](len(items), versions))


def lenient_findings(data: EvalInput, ids: pa.Array, limits: Limits) -> Iterator[Finding]:
    """``lenient-check``: an item's keywords found in many answers given to other items.

    The answers tried are answered (not refused) results of ANSWER items, from
    every version and trial: ``limits.lenient_sample`` of them, drawn once by a
    fixed shuffle (same input, same sample); each item is tried on those given
    to other items. Each keyword is first looked for in all the sampled answers
    at once (case-folded, joined), so an item whose keywords are not all there
    costs one search per keyword: the cost is linear in the items.
    """
    golden, results, join = data.golden_columns, data.result_columns, data.join
    n_keywords = pc.list_value_length(golden.keywords).fill_null(0).to_numpy(zero_copy_only=False)
    known = join.item >= 0
    pool = np.flatnonzero(known & ~results.refused.astype(bool))
    pool = pool[golden.is_answer[join.item[pool]]]
    items = np.flatnonzero(golden.is_answer & (n_keywords > 0))
    if not len(items) or len(pool) < max(limits.lenient_min_answers, 1):
        return
    rng = np.random.default_rng(SAMPLE_SEED)
    sample = np.sort(rng.choice(pool, size=min(limits.lenient_sample, len(pool)), replace=False))
    texts = [(t or "").casefold() for t in results.answer.take(sample).to_pylist()]
    owner = join.item[sample].tolist()
    joined = "\x00".join(texts)
    # Per keyword (case-folded), the sampled answers holding it, as bits of an int.
    masks: dict[str, int] = {}

    def holding(word: str) -> int:
        mask = masks.get(word)
        if mask is None:
            mask = 0
            if word in joined:  # one search; the answers one by one only when it is there
                mask = sum(1 << j for j, text in enumerate(texts) if word in text)
            masks[word] = mask
        return mask

    own: dict[int, int] = {}
    for j, item in enumerate(owner):
        own[item] = own.get(item, 0) | (1 << j)
    everything = (1 << len(texts)) - 1
    share, least = limits.lenient_share, max(limits.lenient_min_answers, 1)
    keywords = golden.keywords.take(pa.array(items, pa.int64())).to_pylist()
    for item, words in zip(items.tolist(), keywords, strict=True):
        mask = everything & ~own.get(item, 0)
        tried = mask.bit_count()
        for word in words:
            mask &= holding(word.casefold())
            if not mask:
                break
        passed = mask.bit_count()
        if passed and tried >= least and passed * share.denominator >= tried * share.numerator:
            item_id = ids[item].as_py()
            yield _finding("lenient-check", (item_id,), say.lenient_check(item_id, passed, tried))
