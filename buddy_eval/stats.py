"""Statistically honest comparison of the baseline and the candidate.

The gate's verdict (SPEC §3) compares exact rates and never looks at the size
of the golden set. This module says how far that verdict can be trusted:

- a **paired** item-level comparison per metric (correctness, citation,
  refusal) over the golden items that have a result in both versions: how many
  both pass, both fail, were fixed (baseline fails, candidate passes) or
  regressed (baseline passes, candidate fails). Items missing in either version
  are counted and listed, never paired;
- the **exact McNemar test** of "both versions are equally good" on the
  discordant pairs (:func:`mcnemar_exact`);
- the **Wilson score interval** of each version's rate (:func:`wilson_interval`)
  and **Newcombe's hybrid score interval** for the paired difference
  (:func:`paired_diff_interval`);
- **readiness**: with fewer than ``min_paired`` (default 20, the threshold of
  SPEC §4) paired items no p-value and no difference interval are computed;
- a **sample-size hint** (:func:`required_paired_n`);
- the exact one-sided **upper bound on the violation rate**
  (:func:`zero_event_upper_bound`, :func:`violation_upper_bound`).

Everything here returns unrounded numbers; :mod:`buddy_eval.details` and
:mod:`buddy_eval.json_report` format them. scipy is imported inside the
functions that need it, so importing this module costs nothing and the plain
gate never loads scipy.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import pandas as pd

from .errors import InputError
from .scoring import FLAG_OF, ITEM_TYPE_OF, RATE_METRICS

__all__ = [
    "DEFAULT_MIN_PAIRED",
    "OUTCOMES",
    "changed_items",
    "compare",
    "exact_upper_bound",
    "mcnemar_exact",
    "paired_diff_interval",
    "paired_outcomes",
    "required_paired_n",
    "violation_upper_bound",
    "wilson_interval",
    "zero_event_upper_bound",
]

DEFAULT_MIN_PAIRED = 20
OUTCOMES = ("both_pass", "both_fail", "fixed", "regressed", "missing")
_COUNT_COLUMNS = ["n_paired", "both_pass", "both_fail", "fixed", "regressed", "missing"]
_FLOAT_COLUMNS = [
    "baseline_rate",
    "baseline_ci_low",
    "baseline_ci_high",
    "candidate_rate",
    "candidate_ci_low",
    "candidate_ci_high",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "p_value",
]
COMPARISON_COLUMNS = [
    "metric",
    *_COUNT_COLUMNS,
    *_FLOAT_COLUMNS,
    "ready_for_decision",
    "required_n",
    "note",
]


# --------------------------------------------------------------------------
# Argument checks
# --------------------------------------------------------------------------


def _check_count(name: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_open_unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
        raise InputError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


def _z(confidence: float) -> float:
    """Two-sided standard normal quantile: 1.959964 for 95%."""
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - confidence) / 2))


# --------------------------------------------------------------------------
# Helpers: one formula each
# --------------------------------------------------------------------------


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    The interval inverts the score test (Wilson 1927): it stays inside
    [0, 1], is not degenerate at 0/n or n/n, and keeps close to the nominal
    coverage for small n, unlike the textbook Wald interval ``p ± z·se``.

    Parameters
    ----------
    successes, n : int
        Observed successes and trials, ``0 <= successes <= n``.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when ``n`` is 0.

    Examples
    --------
    >>> low, high = wilson_interval(8, 10)
    >>> round(low, 3), round(high, 3)
    (0.49, 0.943)
    """
    n = _check_count("n", n)
    successes = _check_count("successes", successes)
    if successes > n:
        raise InputError(f"successes ({successes}) cannot exceed n ({n})")
    confidence = _check_open_unit("confidence", confidence)
    if n == 0:
        return (math.nan, math.nan)
    z = _z(confidence)
    p = successes / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    # Clamp the rounding dust at the ends: 0/n must give exactly 0 as its low end.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def mcnemar_exact(fixed: int, regressed: int) -> float:
    """Two-sided exact McNemar test on the discordant pairs.

    Under the null hypothesis "baseline and candidate are equally good" each
    discordant item is equally likely to be a fix or a regression, so
    ``fixed ~ Binomial(fixed + regressed, 1/2)``; the p-value is the two-sided
    binomial test of :func:`scipy.stats.binomtest`. Concordant items (both
    pass, both fail) carry no information about the difference.

    Parameters
    ----------
    fixed, regressed : int
        Discordant pair counts.

    Returns
    -------
    float
        The p-value; 1.0 when there is no discordant pair.

    Examples
    --------
    >>> round(mcnemar_exact(1, 9), 4)
    0.0215
    """
    fixed = _check_count("fixed", fixed)
    regressed = _check_count("regressed", regressed)
    if fixed + regressed == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(fixed, fixed + regressed, 0.5, alternative="two-sided").pvalue)


def paired_diff_interval(
    both_pass: int, fixed: int, regressed: int, both_fail: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for a difference of paired proportions.

    The difference is candidate minus baseline, ``(fixed - regressed) / n``
    over the ``n`` paired items. This is method 10 of Newcombe (1998),
    "Improved confidence intervals for the difference between binomial
    proportions based on paired data", *Statistics in Medicine* 17:2635-2650,
    also called the square-and-add (MOVER) Wilson interval for paired data.
    With ``p1`` the candidate's and ``p2`` the baseline's paired rate,
    ``(l1, u1)`` and ``(l2, u2)`` their Wilson intervals, and
    ``D = p1 - p2``::

        low  = D - sqrt((p1 - l1)**2 - 2*phi*(p1 - l1)*(u2 - p2) + (u2 - p2)**2)
        high = D + sqrt((u1 - p1)**2 - 2*phi*(u1 - p1)*(p2 - l2) + (p2 - l2)**2)

    ``phi`` estimates the correlation between the two versions' outcomes
    from the 2x2 table (``a`` both pass, ``b`` fixed, ``c`` regressed, ``d``
    both fail)::

        A = a*d - b*c
        phi = (A - n/2) / sqrt((a+b)(c+d)(a+c)(b+d))   if A > n/2
              0                                         if 0 <= A <= n/2
              A / sqrt((a+b)(c+d)(a+c)(b+d))            if A < 0

    and ``phi = 0`` when any margin is empty, as in Newcombe (1998), in
    Newcombe & Altman's chapter of *Statistics with Confidence* (2nd ed.,
    2000) and in Fagerland, Lydersen & Laake, *Statistical Analysis of
    Contingency Tables* (2017, ch. 8). The interval has close to nominal
    coverage down to small n, stays inside [-1, 1] and is not degenerate when
    there is no discordant pair, unlike the Wald interval.

    Parameters
    ----------
    both_pass, fixed, regressed, both_fail : int
        The paired 2x2 table.
    confidence : float
        Two-sided confidence level (default 0.95).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when nothing is paired.

    Examples
    --------
    Fagerland et al. (2017, ch. 8), complete response before and after
    consolidation therapy (Cavo et al. 2012): estimate -0.0621,
    95% CI -0.1186 to -0.0046.

    >>> low, high = paired_diff_interval(59, 6, 16, 80)
    >>> round(low, 4), round(high, 4)
    (-0.1186, -0.0046)
    """
    a = _check_count("both_pass", both_pass)
    b = _check_count("fixed", fixed)
    c = _check_count("regressed", regressed)
    d = _check_count("both_fail", both_fail)
    n = a + b + c + d
    if n == 0:
        return (math.nan, math.nan)
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, confidence)
    l2, u2 = wilson_interval(a + c, n, confidence)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    if margins == 0 or 0 <= cross <= n / 2:
        phi = 0.0
    elif cross > n / 2:
        phi = (cross - n / 2) / math.sqrt(margins)
    else:
        phi = cross / math.sqrt(margins)
    diff = p1 - p2
    down = (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2
    up = (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2
    return (max(-1.0, diff - math.sqrt(max(down, 0.0))), min(1.0, diff + math.sqrt(max(up, 0.0))))


def zero_event_upper_bound(n: int, confidence: float = 0.95) -> float:
    """Exact one-sided upper bound on a rate when 0 events were seen in n trials.

    The Clopper-Pearson bound for 0 of n solves ``(1 - p)**n = 1 - confidence``:
    ``1 - (1 - confidence)**(1/n)``. It is close to the "rule of three"
    ``3/n`` for large n. No violation seen in n items is not "no violation
    possible": the rate may be as high as this bound.

    Parameters
    ----------
    n : int
        Trials (REFUSE items with a result), at least 1.
    confidence : float
        One-sided confidence level (default 0.95).

    Returns
    -------
    float

    Examples
    --------
    >>> round(zero_event_upper_bound(30), 4)
    0.095
    """
    n = _check_count("n", n, minimum=1)
    confidence = _check_open_unit("confidence", confidence)
    return 1 - (1 - confidence) ** (1 / n)


def exact_upper_bound(events: int, n: int, confidence: float = 0.95) -> float:
    """Exact one-sided (Clopper-Pearson) upper bound on a rate after ``events`` of ``n``.

    The largest rate ``p`` with ``P(X <= events | n, p) >= 1 - confidence``:
    the ``confidence`` quantile of Beta(events + 1, n - events). For
    ``events == 0`` this is :func:`zero_event_upper_bound`, computed in closed
    form; for ``events == n`` it is 1.

    Returns
    -------
    float
        The bound; NaN when ``n`` is 0.
    """
    n = _check_count("n", n)
    events = _check_count("events", events)
    if events > n:
        raise InputError(f"events ({events}) cannot exceed n ({n})")
    confidence = _check_open_unit("confidence", confidence)
    if n == 0:
        return math.nan
    if events == 0:
        return zero_event_upper_bound(n, confidence)
    if events == n:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(confidence, events + 1, n - events))


def required_paired_n(
    discordance: float, drop: float = 0.05, alpha: float = 0.05, power: float = 0.80
) -> int:
    """Paired items needed to detect a drop of ``drop`` with McNemar's test.

    Connor (1987), "Sample size for testing differences in proportions for
    the paired-sample design", *Biometrics* 43:207-211::

        n = (z[1 - alpha/2] * sqrt(psi) + z[power] * sqrt(psi - drop**2))**2 / drop**2

    where ``psi`` is the proportion of discordant items (fixed + regressed
    over paired) expected between the two versions. A change of ``drop`` is
    only possible when ``psi >= drop`` (every discordant item would have to
    be a regression), so ``psi`` is floored at ``drop``: with zero (or very
    low) observed discordance the hint is the smallest golden set with which
    a drop of that size could ever be detected, a lower bound rather than an
    estimate.

    Parameters
    ----------
    discordance : float
        Observed share of discordant paired items, in [0, 1].
    drop : float
        Difference to detect (default 0.05, five percentage points).
    alpha : float
        Two-sided significance level (default 0.05).
    power : float
        Wanted power (default 0.80).

    Returns
    -------
    int
        Paired items needed, rounded up.

    Examples
    --------
    >>> required_paired_n(0.20)
    626
    >>> required_paired_n(0.0)
    155
    """
    if isinstance(discordance, bool) or not isinstance(discordance, Real):
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    if not 0 <= discordance <= 1:
        raise InputError(f"discordance must be a number in [0, 1], got {discordance!r}")
    drop = _check_open_unit("drop", drop)
    alpha = _check_open_unit("alpha", alpha)
    power = _check_open_unit("power", power)
    from scipy.stats import norm

    psi = max(float(discordance), drop)
    z_alpha = float(norm.ppf(1 - alpha / 2))
    z_beta = float(norm.ppf(power))
    n = (z_alpha * math.sqrt(psi) + z_beta * math.sqrt(psi - drop**2)) ** 2 / drop**2
    # Guard against float dust (e.g. 154.0000000001 -> 155).
    return math.ceil(round(n, 9))


# --------------------------------------------------------------------------
# On an Evaluation
# --------------------------------------------------------------------------


def paired_outcomes(evaluation) -> pd.DataFrame:
    """Every golden item's paired outcome for each rate metric.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, golden item of the metric's type: ANSWER items
        for correctness and citation, REFUSE items for refusal), metrics in
        the order correctness, citation, refusal, items in golden order:

        - ``metric`` (category): the metric name.
        - ``item_id`` (str): the golden item.
        - ``baseline_pass`` (boolean): the item passes the metric in the
          baseline; NA when the baseline has no result for it.
        - ``candidate_pass`` (boolean): likewise for the candidate.
        - ``outcome`` (category): ``both_pass``, ``both_fail``, ``fixed``
          (baseline fails, candidate passes), ``regressed`` (baseline passes,
          candidate fails) or ``missing`` (no result in either version: the
          item is not paired).
    """
    items = evaluation.items
    base = items[items["version"] == evaluation.baseline].set_index("item_id")
    cand = items[items["version"] == evaluation.candidate].set_index("item_id")
    cand = cand.reindex(base.index)
    item_type = base["item_type"].astype("str").to_numpy()
    base_missing = base["missing"].to_numpy(dtype=bool)
    cand_missing = cand["missing"].to_numpy(dtype=bool)
    frames = []
    for metric in RATE_METRICS:
        keep = item_type == ITEM_TYPE_OF[metric]
        flag = FLAG_OF[metric]
        b = base[flag].to_numpy(dtype=bool, na_value=False)[keep]
        c = cand[flag].to_numpy(dtype=bool, na_value=False)[keep]
        bm, cm = base_missing[keep], cand_missing[keep]
        code = np.select(
            [bm | cm, b & c, ~b & ~c, ~b & c],
            [4, 0, 1, 2],
            default=3,
        )
        b_pass = pd.array(b, dtype="boolean")
        b_pass[bm] = pd.NA
        c_pass = pd.array(c, dtype="boolean")
        c_pass[cm] = pd.NA
        frames.append(
            pd.DataFrame(
                {
                    "metric": metric,
                    "item_id": pd.Series(base.index[keep], dtype="str"),
                    "baseline_pass": b_pass,
                    "candidate_pass": c_pass,
                    "outcome": pd.Categorical.from_codes(code, categories=list(OUTCOMES)),
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    out["metric"] = pd.Categorical(out["metric"], categories=list(RATE_METRICS))
    return out


def changed_items(evaluation) -> pd.DataFrame:
    """The items behind the counts: fixed, regressed and missing ids per metric.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`paired_outcomes` whose outcome is ``fixed``,
        ``regressed`` or ``missing``, ordered by metric, then outcome in that
        order, then golden order, with the same columns (``metric``,
        ``item_id``, ``baseline_pass``, ``candidate_pass``, ``outcome``).
    """
    rows = paired_outcomes(evaluation)
    rows = rows[rows["outcome"].isin(["fixed", "regressed", "missing"])]
    rank = {"fixed": 0, "regressed": 1, "missing": 2}
    rows = rows.assign(_order=rows["outcome"].astype("str").map(rank))
    rows = rows.sort_values(["metric", "_order"], kind="stable").drop(columns="_order")
    return rows.reset_index(drop=True)


def compare(
    evaluation,
    min_paired: int = DEFAULT_MIN_PAIRED,
    confidence: float = 0.95,
    drop: float = 0.05,
    power: float = 0.80,
) -> pd.DataFrame:
    """Paired comparison of the candidate against the baseline, per metric.

    Parameters
    ----------
    evaluation : Evaluation
        See :func:`buddy_eval.evaluate`.
    min_paired : int
        Readiness threshold: a metric with fewer paired items is not ready
        for a decision, and gets no p-value and no difference interval
        (default 20, the threshold of SPEC §4).
    confidence : float
        Level of every interval (default 0.95); ``1 - confidence`` is also
        the significance level of the sample-size hint.
    drop : float
        Drop the sample-size hint is for (default 0.05, five points).
    power : float
        Power the sample-size hint is for (default 0.80).

    Returns
    -------
    pandas.DataFrame
        One row per metric, in the order correctness, citation, refusal:

        - ``metric`` (category): the metric name.
        - ``n_paired`` (int64): items of the metric's type with a result in
          both versions.
        - ``both_pass``, ``both_fail``, ``fixed``, ``regressed`` (int64): the
          paired 2x2 table; fixed = baseline fails and candidate passes,
          regressed = baseline passes and candidate fails.
        - ``missing`` (int64): items of the metric's type with no result in
          either version (not paired).
        - ``baseline_rate``, ``candidate_rate`` (Float64): each version's
          rate as the gate computes it (over every golden item of the type,
          a missing result counting as failed); NA when the metric is not
          measured.
        - ``baseline_ci_low``, ``baseline_ci_high``, ``candidate_ci_low``,
          ``candidate_ci_high`` (Float64): their Wilson intervals
          (:func:`wilson_interval`).
        - ``diff`` (Float64): candidate minus baseline over the paired items,
          ``(fixed - regressed) / n_paired``; NA when nothing is paired.
        - ``diff_ci_low``, ``diff_ci_high`` (Float64): Newcombe's hybrid
          score interval (:func:`paired_diff_interval`); NA when not ready.
        - ``p_value`` (Float64): exact McNemar test (:func:`mcnemar_exact`);
          NA when not ready.
        - ``ready_for_decision`` (bool): ``n_paired >= min_paired``.
        - ``required_n`` (Int64): paired items needed to detect a drop of
          ``drop`` at significance ``1 - confidence`` with ``power``, given
          the observed discordance (:func:`required_paired_n`); NA when
          nothing is paired.
        - ``note`` (str): why the metric is not ready or not measured; NA
          when it is ready.

    Raises
    ------
    InputError
        When an argument is out of range.
    """
    min_paired = _check_count("min_paired", min_paired, minimum=1)
    confidence = _check_open_unit("confidence", confidence)
    drop = _check_open_unit("drop", drop)
    power = _check_open_unit("power", power)

    outcomes = paired_outcomes(evaluation)
    table = pd.crosstab(outcomes["metric"], outcomes["outcome"], dropna=False)
    table = table.reindex(index=list(RATE_METRICS), columns=list(OUTCOMES), fill_value=0)
    metrics = evaluation.metrics.set_index(["version", "metric"])

    rows = []
    for metric in RATE_METRICS:
        counts = {k: int(table.at[metric, k]) for k in OUTCOMES}
        a, b, c = counts["both_pass"], counts["fixed"], counts["regressed"]
        n_paired = a + counts["both_fail"] + b + c
        row: dict = {"metric": metric, "n_paired": n_paired, **counts}
        row = {k: row[k] for k in ["metric", *_COUNT_COLUMNS]}
        for role, label in (("baseline", evaluation.baseline), ("candidate", evaluation.candidate)):
            num = int(metrics.at[(label, metric), "numerator"])
            den = int(metrics.at[(label, metric), "denominator"])
            low, high = wilson_interval(num, den, confidence)
            row[f"{role}_rate"] = num / den if den else math.nan
            row[f"{role}_ci_low"], row[f"{role}_ci_high"] = low, high
        measured = int(metrics.at[(evaluation.baseline, metric), "denominator"]) > 0
        ready = n_paired >= min_paired
        row["diff"] = (b - c) / n_paired if n_paired else math.nan
        if ready:
            row["diff_ci_low"], row["diff_ci_high"] = paired_diff_interval(
                a, b, c, counts["both_fail"], confidence
            )
            row["p_value"] = mcnemar_exact(b, c)
        else:
            row["diff_ci_low"] = row["diff_ci_high"] = row["p_value"] = math.nan
        row["ready_for_decision"] = ready
        row["required_n"] = (
            required_paired_n((b + c) / n_paired, drop, 1 - confidence, power)
            if n_paired
            else pd.NA
        )
        row["note"] = _note(metric, measured, n_paired, counts["missing"], min_paired, ready)
        rows.append(row)

    out = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    out["metric"] = pd.Categorical(out["metric"], categories=list(RATE_METRICS))
    out = out.astype({k: "int64" for k in _COUNT_COLUMNS})
    out = out.astype({k: "Float64" for k in _FLOAT_COLUMNS})
    # NaN marks "not computed": make it a proper NA in the nullable columns.
    for column in _FLOAT_COLUMNS:
        out[column] = out[column].mask(out[column].isna(), pd.NA)
    out["ready_for_decision"] = out["ready_for_decision"].astype(bool)
    out["required_n"] = pd.array(out["required_n"].tolist(), dtype="Int64")
    out["note"] = pd.Series([r["note"] for r in rows], dtype="str")
    return out


def _note(
    metric: str, measured: bool, n_paired: int, missing: int, min_paired: int, ready: bool
) -> str | None:
    if not measured:
        return f"not measured: the golden set has no {ITEM_TYPE_OF[metric]} item"
    if ready:
        return None
    if n_paired == 0:
        why = f"no paired item, at least {min_paired} needed"
    else:
        why = f"{n_paired} paired items, fewer than {min_paired}"
    if missing:
        items = (
            "item missing in either version is"
            if missing == 1
            else "items missing in either version are"
        )
        why += f" ({missing} {items} not paired)"
    return f"not ready: {why}; no p-value or difference interval computed"


def violation_upper_bound(evaluation, version: str | None = None, confidence: float = 0.95):
    """Exact one-sided upper bound on a version's violation rate.

    Violations are REFUSE items the version answered. The bound is taken
    over the REFUSE items the version has a result for (a missing result is
    neither a violation nor evidence against one). With 0 violations in n
    items it is :func:`zero_event_upper_bound` (0 of 30 gives 0.095: the
    true rate may still be 9.5%); otherwise the Clopper-Pearson bound of
    :func:`exact_upper_bound`.

    Parameters
    ----------
    evaluation : Evaluation
    version : str, optional
        Version label (default: the candidate).
    confidence : float
        One-sided confidence level (default 0.95).

    Returns
    -------
    dict
        ``version`` (str), ``violations`` (int), ``n`` (int, REFUSE items with
        a result), ``confidence`` (float) and ``upper_bound`` (float, NaN
        when ``n`` is 0).
    """
    version = evaluation.candidate if version is None else version
    items = evaluation.items
    rows = items[(items["version"] == version) & (items["item_type"] == "REFUSE")]
    observed = ~rows["missing"].to_numpy(dtype=bool)
    n = int(observed.sum())
    violations = int(rows["violation"].to_numpy(dtype=bool, na_value=False)[observed].sum())
    return {
        "version": version,
        "violations": violations,
        "n": n,
        "confidence": float(confidence),
        "upper_bound": exact_upper_bound(violations, n, confidence),
    }
