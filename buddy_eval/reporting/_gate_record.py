"""The gate's record: what ``buddy-eval INPUT --format json`` writes.

One JSON object (UTF-8, valid JSON: never ``NaN`` or ``Infinity``)::

    {
      "format_version": 2,
      "source": "data/sample_release.txt",
      "baseline": "OLD",
      "candidate": "NEW",
      "settings": {"confidence": 0.95, "alpha": 0.05, "min_paired": 20, "drop": 0.05,
                   "power": 0.8, "margin": null, "rule": "exact"},
      "missing_policy": "an item with no result in a version counts as failed ...",
      "thresholds": {"correctness": {"value": 0.8, "exact": "4/5"}, ...},
      "versions": {
        "OLD": {
          "correctness": {"numerator": 27, "denominator": 32, "value": 0.84375,
                          "exact": "27/32", "observed": 32, "observed_passed": 27,
                          "ci": [0.6824..., 0.9313...], "ci_method": "Wilson score, ..."},
          "citation": {...}, "refusal": {...},
          "violations": 1
        },
        "NEW": {...}
      },
      "decision": {"release": false, "reasons": ["refusal below threshold", ...],
                   "verdict": "BLOCK: refusal below threshold; ...",
                   "checks": [{"kind": "threshold", "metric": "correctness",
                               "name": "correctness meets its threshold", "measured": true,
                               "blocks": false, "reason": null, "candidate": 0.9032...,
                               "candidate_exact": "28/31", "reference": 0.8,
                               "reference_exact": "4/5", "bound": null}, ...]},
      "comparison": {
        "correctness": {"n_paired": 31, "both_pass": 24, "both_fail": 0, "fixed": 5,
                        "regressed": 2, "missing": 1, "p_value": 0.453125,
                        "p_value_method": "exact McNemar ...", "diff": 0.0967...,
                        "diff_exact": "3/31", "diff_ci": [-0.08..., 0.27...],
                        "diff_ci_method": "Newcombe hybrid score", "p_value_holm": 0.90625,
                        "reading": "unclear", "reading_text": "no clear change: ...",
                        "sensitivity": {"missing_as_regressed": {...},
                                        "missing_as_unchanged": {...}},
                        "noninferiority": null, "ready_for_decision": true,
                        "required_n": 740, "required_n_assumed_discordance": 0.2258...,
                        "note": null, "fixed_ids": [...], "regressed_ids": [...],
                        "missing_ids": [...]},
        "citation": {...}, "refusal": {...}
      },
      "violation_upper_bound": {...the candidate's...},
      "violation_upper_bounds": {"OLD": {"version": "OLD", "violations": 1, "n": 10,
                                         "confidence": 0.95, "upper_bound": 0.394...,
                                         "method": "Clopper-Pearson ..."}, "NEW": {...}},
      "missing": {"OLD": [], "NEW": ["j31", "r10"]},
      "trials": null,
      "warnings": ["data/sample_release.txt:36: golden item 'j31' has no result ..."]
    }

With repeated trials (``--trials``) ``trials`` gives the trial lines per
version, and each metric of ``comparison`` adds ``mixed``, ``mixed_ids`` and a
``trials`` block (pass@k, pass^k, within-item variance share, flaky ids,
per-item rates as exact fractions, method names).

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

import math
from dataclasses import asdict
from fractions import Fraction

from .._phrases import CLOPPER_PEARSON_BOUND, HOLM_METHOD, MCNEMAR_POWER, readiness_note
from .._thresholds import decimal_text
from .._vocabulary import MISSING_COUNTS_AS_FAILED
from ..formatting import format_outlook

__all__ = ["FORMAT_VERSION", "gate_record"]

FORMAT_VERSION = 2

_SETTINGS = ("confidence", "alpha", "min_paired", "drop", "power", "margin", "rule")


def _number(value) -> float | None:
    """A float for JSON (a Fraction as the nearest double), None for None or NaN."""
    return None if value is None or math.isnan(value) else float(value)


def _interval(pair) -> list[float] | None:
    ends = [end for end in map(_number, pair or ()) if end is not None]
    return ends if len(ends) == 2 else None


def _exact(value: Fraction | None) -> str | None:
    return None if value is None else f"{value.numerator}/{value.denominator}"


def _with_exact(name: str, value: Fraction | None, exact: str | None = None) -> dict:
    """``{name: nearest double, exact: "n/d"}``; ``exact`` defaults to ``name_exact``."""
    return {name: _number(value), exact or f"{name}_exact": _exact(value)}


def _value(value) -> tuple[int | float | None, str | None]:
    """A compared value as JSON: ``(number, exact)``; exact is ``"n/d"`` for a fraction."""
    if value is None or isinstance(value, Fraction):
        return _number(value), _exact(value)
    if isinstance(value, int):
        return value, str(value)
    return float(value), decimal_text(value)  # a margin, exactly as given


def _sensitivity(m) -> dict | None:
    if m.sensitivity is None:
        return None
    return {
        f"missing_as_{case}": {
            **({} if s.table is None else asdict(s.table)),
            "n_paired": s.n,
            "diff_exact": _exact(s.diff),
            "diff_ci": _interval(s.diff_ci),
            "p_value": _number(s.p_value),
            "reading": None if s.reading is None else s.reading[0],
        }
        for case, s in m.sensitivity.items()
    }


def _trial_version(v) -> dict:
    return {
        "items": v.items,
        "trials": v.trials,
        "k": v.k,
        **_with_exact("pass_at_k", v.pass_at_k),
        **_with_exact("pass_hat_k", v.pass_hat_k),
        **_with_exact("within_item_variance_share", v.within_share),
    }


def _widths(outlook) -> dict:
    """The candidate's interval width now, with twice the items, with twice the trials."""
    trials = outlook.more_trials
    return {
        "now": outlook.now.width,
        "more_items": outlook.more_items.width,
        "more_trials": None if trials is None else trials.width,
        "method": outlook.now.method,
    }


def _trials(t) -> dict:
    return {
        "n_items": t.n_items,
        "readiness_counts": "items, not trials",
        "baseline": _trial_version(t.baseline),
        "candidate": _trial_version(t.candidate),
        "pass_at_k_method": "unbiased estimator 1 - C(n-c, k) / C(n, k), mean over items",
        "pass_hat_k_method": "unbiased estimator C(c, k) / C(n, k), mean over items",
        "variance_method": "one-way ANOVA of single-trial outcomes, items as groups",
        "flaky_ids": list(t.flaky_ids),
        "plan": None if t.outlook is None else format_outlook(t.outlook, t.candidate.version),
        "plan_interval_widths": None if t.outlook is None else _widths(t.outlook),
        "plan_standard_errors": None
        if t.plan is None
        else {"more_items": t.plan.se_more_items, "more_trials": t.plan.se_more_trials},
        "item_rates": {item: [_exact(b), _exact(c)] for item, b, c in t.item_rates},
    }


def _check(check) -> dict:
    out = {name: getattr(check, name) for name in ("kind", "metric", "name", "measured", "blocks")}
    out["reason"] = check.reason if check.blocks else None
    for role in ("candidate", "reference"):
        out[role], out[f"{role}_exact"] = _value(getattr(check, role))
    return out | {"bound": _number(check.bound)}


def _comparison(m, settings) -> dict:
    """One metric's paired figures."""
    out = {
        **m.counts(),
        "p_value": _number(m.p_value),
        "p_value_method": m.test_method,
        **_with_exact("diff", m.diff),
        "diff_ci": _interval(m.diff_ci),
        "diff_ci_method": m.diff_method,
        "p_value_holm": _number(m.p_holm),
        "p_value_holm_method": HOLM_METHOD,
        **dict(zip(("reading", "reading_text"), m.reading or (None, None), strict=True)),
        "sensitivity": _sensitivity(m),
        "noninferiority": None
        if m.noninferior is None
        else {
            "margin": settings.margin,
            "lower_bound": _number(m.noninferiority_bound),
            "noninferior": m.noninferior,
            "method": m.noninferiority_method,
        },
        "ready_for_decision": m.ready,
        "required_n": m.required_n,
        "required_n_method": None if m.required_n is None else MCNEMAR_POWER,
        "required_n_assumed_discordance": m.assumed_discordance,
        "required_n_observed_discordance": m.observed_discordance,
        "note": readiness_note(
            m.measured, m.ready, m.item_type, m.n_paired, settings.min_paired, m.missing
        ),
    }
    for change in ("fixed", "regressed", "missing", "mixed"):
        if change in m.ids:
            out[f"{change}_ids"] = list(m.ids[change])
    if m.trials is not None:
        out["trials"] = _trials(m.trials)
    return out


def gate_record(evaluation, compared: dict | None) -> dict:
    """The report of an evaluation as a JSON-ready dict.

    Every figure is read from :attr:`buddy_eval.Evaluation.paired`, computed
    with the evaluation's :attr:`~buddy_eval.Evaluation.settings`.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.

    Returns
    -------
    dict
        Keys ``format_version``, ``source``, ``baseline``, ``candidate``,
        ``settings``, ``missing_policy``, ``thresholds``, ``versions``,
        ``decision``, ``comparison``, ``violation_upper_bound``,
        ``violation_upper_bounds``, ``missing``, ``trials`` and ``warnings``
        (and ``compared`` when the baseline is compared on fewer items: a live
        baseline),
        laid out and formatted as the module docstring says. Every value is a
        str, int, float, bool, None, list or dict, and no float is NaN, so
        ``json.dumps(..., allow_nan=False)`` accepts it.
    """
    paired = evaluation.paired
    settings = paired.settings
    labels = (evaluation.baseline, evaluation.candidate)
    versions: dict = {}
    for j, label in enumerate(labels):
        parts = evaluation.compared_counts.parts(label)
        entry = versions[label] = {}
        for m in paired.metrics:
            rate = (m.baseline, m.candidate)[j]
            entry[m.metric] = {
                **dict(zip(("numerator", "denominator"), parts[m.metric], strict=True)),
                **_with_exact("value", evaluation.values(label)[m.metric], "exact"),
                "observed": rate.observed,
                "observed_passed": rate.passed,
                "ci": _interval(rate.ci),
                "ci_method": rate.ci_method,
            }
        entry["violations"] = paired.violations[j].violations
    bounds = {
        b.version: {
            "version": b.version,
            "violations": b.violations,
            "n": b.n,
            "confidence": settings.confidence,
            "upper_bound": _number(b.upper_bound),
            "method": CLOPPER_PEARSON_BOUND,
        }
        for b in paired.violations
    }
    decision = evaluation.decision
    return {
        "format_version": FORMAT_VERSION,
        "source": str(evaluation.data.source),
        "baseline": evaluation.baseline,
        "candidate": evaluation.candidate,
        "settings": {name: getattr(settings, name) for name in _SETTINGS},
        "missing_policy": MISSING_COUNTS_AS_FAILED,
        "thresholds": {
            metric: _with_exact("value", value, "exact")
            for metric, value in evaluation.thresholds.as_dict().items()
        },
        "versions": versions,
        "decision": {
            "release": bool(decision.release),
            "reasons": list(decision.reasons),
            "verdict": decision.verdict,
            "checks": [_check(c) for c in decision.checks],
        },
        "comparison": {m.metric: _comparison(m, settings) for m in paired.metrics},
        "violation_upper_bound": bounds[evaluation.candidate],
        "violation_upper_bounds": bounds,
        "missing": {label: list(evaluation.missing_ids(label)) for label in labels},
        "trials": evaluation.trials_per_version,
        "warnings": list(evaluation.warnings),
    } | ({"compared": compared} if compared else {})
