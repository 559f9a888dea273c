"""The result checks over every version a release ledger holds on the same golden items.

An item is matched by its fingerprint (its id, type, source and keywords), so a
version recorded on an older golden-set revision counts on the items that did
not change. A version the input holds is read from the input; the ledger adds
its other versions, and the input's versions' results on items the input has
no result for.
"""

from __future__ import annotations

import numpy as np

from .._loading import EvalInput

__all__ = ["ledger_outcomes"]


def ledger_outcomes(
    path, data: EvalInput, labels: list[str], trials: np.ndarray, passed: np.ndarray
):
    """The input's per-(version, item) trials and passing trials, with the ledger's versions.

    Parameters
    ----------
    path : str or os.PathLike
        The release ledger (read only).
    data : EvalInput
    labels : list of str
        The input's version labels, in the order of the rows of ``trials`` and ``passed``.
    trials, passed : numpy.ndarray
        Shape ``(len(labels), n_items)``: the input's own trials and passing trials.

    Returns
    -------
    tuple
        ``(labels, trials, passed)`` with a row per version of the input or the ledger
        (the input's first, then the ledger's others in the order they were recorded).

    Raises
    ------
    InputError
        The path is not a ledger this buddy_eval reads, or it is damaged.
    """
    from ..ledger._schema import reading
    from ..ledger._store import golden_sets, item_fingerprint, result_sets, versions

    name = str(path)
    golden = data.golden_columns
    kinds = np.where(golden.is_answer, "ANSWER", "REFUSE").tolist()
    position = {
        item_fingerprint(item_id, kind, source, words or []): k
        for k, (item_id, kind, source, words) in enumerate(
            zip(
                golden.item_id.to_pylist(),
                kinds,
                golden.required_source.to_pylist(),
                golden.keywords.to_pylist(),
                strict=True,
            )
        )
    }
    rows = {label: k for k, label in enumerate(labels)}
    labels, extra_trials, extra_passed = list(labels), [], []
    n_items = trials.shape[1]
    trials, passed = trials.copy(), passed.copy()
    with reading(path) as connection:
        names = versions(connection)
        stored = result_sets(connection, name, lines=False)
        sets = golden_sets(connection, name, {r.golden_set_id for r in stored})
    for result_set in stored:
        label = names.get(result_set.version_id, "?")
        if label not in rows:
            rows[label] = len(labels)
            labels.append(label)
            extra_trials.append(np.zeros(n_items, np.int64))
            extra_passed.append(np.zeros(n_items, np.int64))
        row = rows[label]
        items = sets[result_set.golden_set_id].items
        for at, count, *_, passing in result_set.outcomes:
            k = position.get(items[at][0])
            if k is None:
                continue
            if row < len(trials):
                if trials[row, k] == 0:  # the input's own result wins
                    trials[row, k], passed[row, k] = int(count), int(passing)
            else:
                extra_trials[row - len(trials)][k] = int(count)
                extra_passed[row - len(trials)][k] = int(passing)
    if extra_trials:
        trials = np.vstack([trials, *extra_trials])
        passed = np.vstack([passed, *extra_passed])
    return labels, trials, passed
