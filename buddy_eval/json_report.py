"""The machine-readable report of ``buddy-eval INPUT --format json``.

One JSON object (UTF-8, valid JSON: never ``NaN`` or ``Infinity``)::

    {
      "format_version": 1,
      "source": "data/sample_release.txt",
      "baseline": "OLD",
      "candidate": "NEW",
      "settings": {"confidence": 0.95, "min_paired": 20, "drop": 0.05, "power": 0.8},
      "thresholds": {"correctness": {"value": 0.8, "exact": "4/5"}, ...},
      "versions": {
        "OLD": {
          "correctness": {"numerator": 27, "denominator": 32, "value": 0.84375,
                          "exact": "27/32", "ci": [0.6824..., 0.9313...]},
          "citation": {...}, "refusal": {...},
          "violations": 1
        },
        "NEW": {...}
      },
      "decision": {"release": false, "reasons": ["refusal below threshold", ...],
                   "verdict": "BLOCK: refusal below threshold; ..."},
      "comparison": {
        "correctness": {"n_paired": 31, "both_pass": 24, "both_fail": 0, "fixed": 5,
                        "regressed": 2, "missing": 1, "p_value": 0.453125,
                        "diff": 0.0967..., "diff_exact": "3/31", "diff_ci": [-0.08..., 0.27...],
                        "ready_for_decision": true, "required_n": 707, "note": null,
                        "fixed_ids": [...], "regressed_ids": [...], "missing_ids": [...]},
        "citation": {...}, "refusal": {...}
      },
      "violation_upper_bound": {"version": "NEW", "violations": 1, "n": 9,
                                "confidence": 0.95, "upper_bound": 0.4291...},
      "missing": {"OLD": [], "NEW": ["j31", "r10"]},
      "warnings": ["data/sample_release.txt:36: golden item 'j31' has no result ..."]
    }

Number formats
--------------
- Counts (``numerator``, ``denominator``, ``n_paired``, ``fixed``, ...,
  ``required_n``, ``violations``) are JSON integers.
- Rates and differences are given twice: ``value``/``diff`` is the exact
  fraction converted to a double (never rounded to two decimals: that is the
  text report's job), and ``exact``/``diff_exact`` is the exact fraction as a
  string ``"numerator/denominator"`` in lowest terms (``"1/1"``, ``"0/1"``).
  Comparisons against thresholds should use ``exact`` (SPEC §3).
- Intervals (``ci``, ``diff_ci``), ``p_value`` and ``upper_bound`` are
  unrounded doubles; an interval is a two-element list ``[low, high]``.
- Anything not computed (a metric with no item of its type, a metric not
  ready for a decision, an interval over zero items) is ``null``; ``note``
  says why.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pandas as pd

from .scoring import RATE_METRICS
from .stats import DEFAULT_MIN_PAIRED, changed_items, compare, violation_upper_bound

__all__ = ["FORMAT_VERSION", "dumps", "json_report"]

FORMAT_VERSION = 1


def _number(value) -> float | None:
    """A float for JSON, None for NA or NaN."""
    if value is None or pd.isna(value):
        return None
    return float(value)


def _interval(low, high) -> list[float] | None:
    low, high = _number(low), _number(high)
    return None if low is None or high is None else [low, high]


def _exact(value: Fraction | None) -> str | None:
    return None if value is None else f"{value.numerator}/{value.denominator}"


def _rate(numerator: int, denominator: int) -> Fraction | None:
    return Fraction(numerator, denominator) if denominator else None


def json_report(
    evaluation,
    min_paired: int = DEFAULT_MIN_PAIRED,
    confidence: float = 0.95,
    drop: float = 0.05,
    power: float = 0.80,
) -> dict:
    """The report of an evaluation as a JSON-ready dict.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.
    min_paired, confidence, drop, power
        Passed to :func:`buddy_eval.stats.compare`.

    Returns
    -------
    dict
        Keys ``format_version``, ``source``, ``baseline``, ``candidate``,
        ``settings``, ``thresholds``, ``versions``, ``decision``,
        ``comparison``, ``violation_upper_bound``, ``missing`` and
        ``warnings``, laid out and formatted as the module docstring says.
        Every value is a str, int, float, bool, None, list or dict, and no
        float is NaN, so ``json.dumps(..., allow_nan=False)`` accepts it.
    """
    comparison = compare(evaluation, min_paired, confidence, drop, power)
    changes = changed_items(evaluation)
    bound = violation_upper_bound(evaluation, confidence=confidence)
    wilson = {
        (row.metric, role): (getattr(row, f"{role}_ci_low"), getattr(row, f"{role}_ci_high"))
        for row in comparison.itertuples(index=False)
        for role in ("baseline", "candidate")
    }

    versions = {}
    metrics = evaluation.metrics.set_index(["version", "metric"])
    for role, label in (("baseline", evaluation.baseline), ("candidate", evaluation.candidate)):
        entry: dict = {}
        for metric in RATE_METRICS:
            num = int(metrics.at[(label, metric), "numerator"])
            den = int(metrics.at[(label, metric), "denominator"])
            rate = _rate(num, den)
            entry[metric] = {
                "numerator": num,
                "denominator": den,
                "value": None if rate is None else float(rate),
                "exact": _exact(rate),
                "ci": _interval(*wilson[(metric, role)]),
            }
        entry["violations"] = int(metrics.at[(label, "violations"), "numerator"])
        versions[label] = entry

    per_metric = {}
    for row in comparison.itertuples(index=False):
        ids = {
            outcome: changes.loc[
                (changes["metric"] == row.metric) & (changes["outcome"] == outcome), "item_id"
            ].tolist()
            for outcome in ("fixed", "regressed", "missing")
        }
        diff = _rate(row.fixed - row.regressed, row.n_paired) if row.n_paired else None
        per_metric[row.metric] = {
            "n_paired": int(row.n_paired),
            "both_pass": int(row.both_pass),
            "both_fail": int(row.both_fail),
            "fixed": int(row.fixed),
            "regressed": int(row.regressed),
            "missing": int(row.missing),
            "p_value": _number(row.p_value),
            "diff": None if diff is None else float(diff),
            "diff_exact": _exact(diff),
            "diff_ci": _interval(row.diff_ci_low, row.diff_ci_high),
            "ready_for_decision": bool(row.ready_for_decision),
            "required_n": None if pd.isna(row.required_n) else int(row.required_n),
            "note": None if not isinstance(row.note, str) else row.note,
            "fixed_ids": ids["fixed"],
            "regressed_ids": ids["regressed"],
            "missing_ids": ids["missing"],
        }

    items = evaluation.items
    missing = {
        label: items.loc[(items["version"] == label) & items["missing"], "item_id"].tolist()
        for label in (evaluation.baseline, evaluation.candidate)
    }
    decision = evaluation.decision
    return {
        "format_version": FORMAT_VERSION,
        "source": str(evaluation.data.source),
        "baseline": evaluation.baseline,
        "candidate": evaluation.candidate,
        "settings": {
            "confidence": float(confidence),
            "min_paired": int(min_paired),
            "drop": float(drop),
            "power": float(power),
        },
        "thresholds": {
            metric: {"value": float(value), "exact": _exact(value)}
            for metric, value in evaluation.thresholds.as_dict().items()
        },
        "versions": versions,
        "decision": {
            "release": bool(decision.release),
            "reasons": list(decision.reasons),
            "verdict": decision.verdict,
        },
        "comparison": per_metric,
        "violation_upper_bound": {
            "version": bound["version"],
            "violations": bound["violations"],
            "n": bound["n"],
            "confidence": bound["confidence"],
            "upper_bound": _number(bound["upper_bound"]),
        },
        "missing": missing,
        "warnings": list(evaluation.warnings),
    }


def dumps(report: dict) -> str:
    """Serialise :func:`json_report`'s dict: indented, UTF-8 text, no NaN, no trailing newline.

    Raises
    ------
    ValueError
        If a NaN or infinity slipped in (it would not be valid JSON).
    """
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)
