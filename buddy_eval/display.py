"""What an evaluation looks like in Jupyter: summary tables and the rich HTML repr.

Everything here is plain pandas and :mod:`html`; nothing imports matplotlib.
:func:`evaluation_html` is what :meth:`Evaluation._repr_html_` returns, so an
``evaluate(load(path))`` as a cell's last line shows the verdict, the metrics
table with thresholds, and the counts of missing and flipped items.

Every piece of user text (version labels, item ids, sources, answers, the
input's name) is escaped with :func:`html.escape` or by
``DataFrame.to_html(escape=True)``: an answer holding ``<script>`` shows as
text, never as markup.
"""

from __future__ import annotations

from fractions import Fraction
from html import escape

import pandas as pd

from .formatting import format_fraction
from .scoring import RATE_METRICS

__all__ = ["FLIP_CHECKS", "evaluation_html", "flipped_items", "metrics_table"]

#: The per-item column behind each rate metric.
FLIP_CHECKS = {"correctness": "correct", "citation": "cited_ok", "refusal": "refused_ok"}

MAX_LISTED_IDS = 10

_VERDICT_STYLE = {
    True: "background:#e6f4ea;border-left:4px solid #1b7f3b;",
    False: "background:#fdecea;border-left:4px solid #b3261e;",
}

_FLIP_COLUMNS = [
    "metric",
    "change",
    "item_id",
    "item_type",
    "required_source",
    "baseline_cited",
    "candidate_cited",
    "baseline_answer",
    "candidate_answer",
]


def flipped_items(evaluation) -> pd.DataFrame:
    """Items whose outcome differs between the baseline and the candidate, per metric.

    A golden item with no result line counts as failed, as in the metrics, so
    for every metric ``candidate numerator - baseline numerator = fixed -
    regressed``.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`buddy_eval.evaluate`.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, flipped item), ordered by metric
        (correctness, citation, refusal), then ``regressed`` before ``fixed``,
        then golden order:

        - ``metric`` (category): correctness, citation or refusal.
        - ``change`` (category): ``regressed`` (passed in the baseline, fails
          in the candidate) or ``fixed`` (the reverse).
        - ``item_id``, ``item_type``, ``required_source``.
        - ``baseline_cited``, ``candidate_cited`` (str): the cited sources.
        - ``baseline_answer``, ``candidate_answer`` (str): the answer texts,
          NA where a version has no result line.
    """
    items = evaluation.compared_items()
    base = items[items["version"] == evaluation.baseline].reset_index(drop=True)
    cand = items[items["version"] == evaluation.candidate].reset_index(drop=True)
    frames = []
    for metric, column in FLIP_CHECKS.items():
        applies = base[column].notna().to_numpy(dtype=bool)
        before = base[column].fillna(False).to_numpy(dtype=bool)
        after = cand[column].fillna(False).to_numpy(dtype=bool)
        for change, mask in (("regressed", before & ~after), ("fixed", ~before & after)):
            rows = applies & mask
            frames.append(
                pd.DataFrame(
                    {
                        "metric": metric,
                        "change": change,
                        "item_id": base["item_id"][rows],
                        "item_type": base["item_type"][rows].astype(str),
                        "required_source": base["required_source"][rows],
                        "baseline_cited": base["cited"][rows],
                        "candidate_cited": cand["cited"][rows],
                        "baseline_answer": base["answer"][rows],
                        "candidate_answer": cand["answer"][rows],
                    },
                    columns=_FLIP_COLUMNS,
                )
            )
    out = pd.concat(frames, ignore_index=True)
    out = out.astype(
        {
            "metric": pd.CategoricalDtype(list(RATE_METRICS)),
            "change": pd.CategoricalDtype(["regressed", "fixed"]),
            "item_type": pd.CategoricalDtype(["ANSWER", "REFUSE"]),
        }
    )
    for column in _FLIP_COLUMNS[2:]:
        if column != "item_type":
            out[column] = out[column].astype("str")
    return out


def _rate_text(numerator: int, denominator: int) -> str:
    if denominator == 0:
        return "n/a"
    return f"{format_fraction(Fraction(numerator, denominator))} ({numerator}/{denominator})"


def metrics_table(evaluation) -> pd.DataFrame:
    """The metrics of both versions beside the thresholds, as display text.

    Figures are rounded exactly as in the canonical report (two decimals,
    half up) and followed by the exact count, e.g. ``0.84 (27/32)``.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    pandas.DataFrame
        Indexed by metric (correctness, citation, refusal, violations), with
        the columns ``"<baseline> (baseline)"``, ``"<candidate> (candidate)"``,
        ``threshold`` and ``status`` (the candidate's blocking reasons for
        that metric, ``ok``, or ``not measured``).
    """
    metrics = evaluation.metrics.set_index(["version", "metric"])
    reasons = set(evaluation.decision.reasons)
    thresholds = evaluation.thresholds
    rows = {}
    for metric in (*RATE_METRICS, "violations"):
        cells = []
        for version in (evaluation.baseline, evaluation.candidate):
            row = metrics.loc[(version, metric)]
            num, den = int(row["numerator"]), int(row["denominator"])
            cells.append(_rate_text(num, den) if metric != "violations" else str(num))
        if metric == "violations":
            threshold = "0"
            status = "integrity violations" if "integrity violations" in reasons else "ok"
        else:
            threshold = format_fraction(thresholds[metric])
            found = [
                short
                for reason, short in (
                    (f"{metric} below threshold", "below threshold"),
                    (f"regression in {metric}", "regression"),
                )
                if reason in reasons
            ]
            measured = bool(metrics.loc[(evaluation.candidate, metric), "measured"])
            status = "; ".join(found) if found else ("ok" if measured else "not measured")
        rows[metric] = [*cells, threshold, status]
    columns = [
        f"{evaluation.baseline} (baseline)",
        f"{evaluation.candidate} (candidate)",
        "threshold",
        "status",
    ]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=columns)
    table.index.name = "metric"
    return table


def _id_list(ids: list[str]) -> str:
    shown = ", ".join(escape(i) for i in ids[:MAX_LISTED_IDS])
    more = len(ids) - MAX_LISTED_IDS
    return f"{shown}, and {more} more" if more > 0 else shown


def evaluation_html(evaluation) -> str:
    """HTML summary of an evaluation for Jupyter's rich display.

    Shows the verdict, the metrics table with thresholds, the golden items with
    no result line per version, and the number of items that flipped per
    metric (fixed and regressed). All user text is escaped.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    str
        A self-contained HTML fragment (inline styles only, no scripts).
    """
    base, cand = evaluation.baseline, evaluation.candidate
    decision = evaluation.decision
    head = (
        f"<p><strong>buddy-eval</strong>: candidate <code>{escape(cand)}</code> against "
        f"baseline <code>{escape(base)}</code> on <code>{escape(evaluation.data.source)}</code>"
        "</p>"
    )
    word = "RELEASE" if decision.release else "BLOCK"
    reasons = "; ".join(decision.reasons)
    verdict = (
        f'<p style="{_VERDICT_STYLE[decision.release]}padding:4px 8px;">'
        f"<strong>{word}</strong>{': ' + escape(reasons) if reasons else ''}</p>"
    )
    table = metrics_table(evaluation).to_html(escape=True, border=0, index_names=False)

    items = evaluation.compared_items()
    missing_parts = []
    for version in (base, cand):
        ids = items.loc[(items["version"] == version) & items["missing"], "item_id"].tolist()
        text = f"<code>{escape(version)}</code>: {len(ids)}"
        if ids:
            text += f" ({_id_list(ids)})"
        missing_parts.append(text)
    missing = "<li>Golden items with no result: " + "; ".join(missing_parts) + "</li>"

    flips = flipped_items(evaluation)
    counts = flips.groupby(["metric", "change"], observed=False).size()
    flip_parts = [
        f"{metric} {counts[(metric, 'fixed')]} fixed, {counts[(metric, 'regressed')]} regressed"
        for metric in RATE_METRICS
    ]
    flipped = "<li>Items that flipped: " + "; ".join(flip_parts) + "</li>"
    warnings = f"<li>Warnings: {len(evaluation.warnings)}</li>" if evaluation.warnings else ""
    return (
        '<div class="buddy-eval-evaluation">'
        f"{head}{verdict}{table}<ul>{missing}{flipped}{warnings}</ul></div>"
    )
