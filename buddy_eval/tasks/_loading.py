"""Load golden tasks and run records from JSON files or Python lists."""

from __future__ import annotations

import os
from collections.abc import Callable

from .._errors import InputError
from ._json_input import read_json
from ._record_rules import GoldenSet, RunRecords, build_golden, build_run

__all__ = ["load_golden", "load_run"]


def load_golden(source) -> GoldenSet:
    """Load and validate golden tasks.

    Parameters
    ----------
    source : str, os.PathLike, list of dict or GoldenSet
        A path to a UTF-8 JSON file holding a list of ``{id, prompt, tier,
        checks}`` objects; or that list itself; or a :class:`GoldenSet`
        (returned as is).

    Returns
    -------
    GoldenSet
        ``tasks`` and ``checks`` DataFrames (see :class:`GoldenSet`).

    Raises
    ------
    InputError
        The file cannot be read, is not UTF-8 or not JSON (the message names
        the line), or a definition breaks a rule (the message names the task
        and the field and quotes at most about 60 characters of the value):
        see :func:`~buddy_eval.tasks._record_rules.build_golden`.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> tasks.load_golden("data/golden-tasks.example.json")
    GoldenSet(source='data/golden-tasks.example.json', tasks=31, checks=99)
    >>> golden = tasks.load_golden([{"id": "g1", "prompt": "Print 42", "tier": "basic",
    ...                              "checks": [{"type": "contains", "value": "42"},
    ...                                         {"type": "max_cost_usd", "value": 0.02}]}])
    >>> golden.checks[["golden_id", "check_type", "value", "limit"]]
      golden_id    check_type value  limit
    0        g1      contains    42   <NA>
    1        g1  max_cost_usd  0.02  20000
    """
    return _load(source, GoldenSet, build_golden)


def load_run(source, label: str = "run") -> RunRecords:
    """Load and validate one run's records.

    Parameters
    ----------
    source : str, os.PathLike, list of dict or RunRecords
        A path to a UTF-8 JSON file holding a list of ``{task_id, golden_id,
        model, status, result_text, total_tokens, usd_micros,
        unpriced_tokens}`` objects; or that list itself; or
        :class:`RunRecords` (relabelled when its label differs).
    label : str
        The run's label.

    Returns
    -------
    RunRecords
        The ``records`` DataFrame (see :class:`RunRecords`).

    Raises
    ------
    InputError
        As :func:`load_golden` (the rules are those of
        :func:`~buddy_eval.tasks._record_rules.build_run`); also an invalid
        label, a duplicate ``task_id`` or two records for the same golden
        task.

    Examples
    --------
    >>> from buddy_eval import tasks
    >>> run = tasks.load_run("data/run-b.example.json", label="tutor-v2")
    >>> run
    RunRecords(label='tutor-v2', source='data/run-b.example.json', records=28)
    >>> run.records[["task_id", "golden_id", "usd_micros"]].head(3)
      task_id golden_id  usd_micros
    0  b-0001     jv-01        1800
    1  b-0002     jv-02        2500
    2  b-0003     jv-03        2200
    """
    run = _load(source, RunRecords, build_run, label=label)
    return run if run.label == label else run.relabel(label)


def _load(source, loaded: type, build: Callable, **options):
    """``source`` if it is already ``loaded``; else ``build`` from a list or a JSON file's."""
    if isinstance(source, loaded):
        return source
    if isinstance(source, list):
        return build(source, **options)
    if not isinstance(source, (str, os.PathLike)):
        kind = type(source).__name__
        raise InputError(f"expected a path to a JSON file or a list of objects, got {kind}")
    value, name = read_json(source)
    return build(value, source=name, **options)
