"""What an evaluation looks like in Jupyter: summary tables, the rich HTML repr, the report text.

Every count and item id shown here comes from the one paired core,
:attr:`Evaluation.paired <buddy_eval.Evaluation.paired>` and
:meth:`Evaluation.item_changes <buddy_eval.Evaluation.item_changes>`: an item
with no result in the baseline or the candidate is ``missing``, never
``fixed`` or ``regressed``, here as in ``--details`` and the JSON report.

Everything here is plain pandas and :mod:`html`; nothing imports matplotlib,
and pandas itself is imported on first use, so :class:`Report` (the text of
``be.report()``) costs no pandas import. :func:`evaluation_html` is what
:meth:`Evaluation._repr_html_` returns.

Every piece of user text (version labels, item ids, sources, answers, the
input's name) is escaped with :func:`html.escape` or by
``DataFrame.to_html(escape=True)``: an answer holding ``<script>`` shows as
text, never as markup. HTML fragments carry the ``tex2jax_ignore`` and
``mathjax_ignore`` classes, so a notebook front end that typesets ``$...$``
leaves ids and answers such as ``$x$`` as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Any

from ._paired import readiness_note
from ._phrases import HOLM
from ._vocabulary import CHANGES, ITEM_TYPES, RATE_METRICS
from .formatting import (
    NO_MATH,
    Report,
    format_diff,
    format_interval,
    format_p_value,
    format_percent,
    format_rate,
)
from .formatting import format_count as plural
from .reporting._gate_metrics import metric_facts, rate_text, threshold_text

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "Collapsible",
    "Report",
    "collapsible",
    "evaluation_html",
    "flipped_items",
    "format_comparison",
    "format_metrics_table",
    "format_source_table",
    "format_trial_summary",
    "metrics_table",
    "source_table",
    "trial_summary",
]

#: The changes :func:`flipped_items` lists, in row order (names from the vocabulary).
_FLIPS = ("regressed", "fixed")
_MISSING = "missing"
assert set(_FLIPS) | {_MISSING} <= set(CHANGES)

_COUNT_COLUMNS = [
    "baseline_count",
    "candidate_count",
    "items",
    "baseline_missing",
    "candidate_missing",
    "baseline_trials",
    "candidate_trials",
]
_RATE_COLUMNS = ["baseline_rate", "candidate_rate", "threshold"]
METRICS_TABLE_COLUMNS = [*_COUNT_COLUMNS, *_RATE_COLUMNS, "status"]


class Collapsible:
    """A whole table in a closed HTML ``<details>`` section, for notebooks and the report.

    Shows every row (no ``display.max_rows`` cut) without scripts: the reader
    opens the section to see it. The plain-text repr is the summary line and
    the row count, so a notebook's text output stays short.

    Attributes
    ----------
    frame : pandas.DataFrame
    title : str
    open : bool

    Examples
    --------
    >>> table = be.collapsible(be.evaluate("data/example.txt").metrics, "metrics", open=True)
    >>> table.summary, table.open, len(table.frame)
    ('metrics (8 rows)', True, 8)
    """

    def __init__(self, frame: pd.DataFrame, title: str, *, open=False, index=False, na_rep="<NA>"):  # noqa: A002
        self.frame = frame
        self.title = title
        self.open = open
        self.index = index
        self.na_rep = na_rep

    @property
    def summary(self) -> str:
        return f"{self.title} ({plural(len(self.frame), 'row')})"

    def _repr_html_(self) -> str:
        frame = self.frame
        if self.na_rep != "<NA>":  # every missing marker, pandas' NA included, reads the same
            frame = frame.astype(object).where(frame.notna(), self.na_rep)
        # to_html shows every row and column (display.max_rows only cuts the notebook repr)
        table = frame.to_html(escape=True, border=0, index=self.index, na_rep=self.na_rep)
        return (
            f'<details class="buddy-eval-details {NO_MATH}"{" open" if self.open else ""}>'
            f"<summary>{escape(self.summary)}</summary>"
            f'<div class="buddy-eval-table">{table}</div></details>'
        )

    def __repr__(self) -> str:
        return self.summary


#: ``collapsible(..., open=None)`` shows a table of up to this many rows open.
OPEN_ROWS = 15


def collapsible(
    frame: pd.DataFrame,
    title: str,
    *,
    open: bool | None = False,  # noqa: A002
    index: bool = False,
    na_rep: str = "<NA>",
) -> Collapsible:
    """Wrap ``frame`` in a :class:`Collapsible` (every row, in a ``<details>`` section).

    ``open=None`` opens a short table (:data:`OPEN_ROWS` rows or fewer) and
    collapses a longer one. ``na_rep`` is how every missing cell reads
    (pandas' NA, None and NaN alike).

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt")
    >>> table = be.collapsible(ev.items, "every item")
    >>> table                                      # in Jupyter: a closed section of 8 rows
    every item (8 rows)
    >>> table._repr_html_().startswith('<details class="buddy-eval-details')
    True
    """
    shown = len(frame) <= OPEN_ROWS if open is None else open
    return Collapsible(frame, title, open=shown, index=index, na_rep=na_rep)


def flipped_items(evaluation, *, include_missing: bool = False) -> pd.DataFrame:
    """The items that changed between the baseline and the candidate, with both answers.

    A view of :meth:`Evaluation.item_changes <buddy_eval.Evaluation.item_changes>`:
    its ``fixed`` and ``regressed`` rows, joined with each version's cited
    source and answer. An item with no result in either version is
    ``missing`` there and is **not** listed here by default (it never flipped:
    there is nothing to compare); ``include_missing=True`` adds those rows too,
    after the flipped ones. The counts are therefore exactly those of
    ``evaluation.paired[metric].table`` (``fixed``, ``regressed``) and
    ``.ids``. With repeated trials the labels are the per-item ones (an
    item's share of passing trials moved by at least half) and the cited
    source and answer shown are each version's first trial;
    :func:`buddy_eval.trial_answers` lists every trial.

    Parameters
    ----------
    evaluation : Evaluation
        The result of :func:`buddy_eval.evaluate`.
    include_missing : bool
        Also list the ``missing`` items (default False).

    Returns
    -------
    pandas.DataFrame
        One row per (metric, item), ordered by metric (correctness, citation,
        refusal), then ``regressed``, ``fixed`` (and ``missing``), then golden
        order:

        - ``metric`` (category): correctness, citation or refusal.
        - ``change`` (category, the labels of :func:`buddy_eval.item_changes`).
        - ``item_id``, ``item_type`` (category), ``required_source`` (str).
        - ``baseline_cited``, ``candidate_cited`` (str): the cited sources,
          ``-`` for a result that cited nothing.
        - ``baseline_answer``, ``candidate_answer`` (str): the answer texts,
          ``<NA>`` where a version has no result line.

    Examples
    --------
    >>> flips = be.flipped_items(be.evaluate("data/example.txt"))
    >>> flips[["metric", "change", "item_id", "baseline_cited", "candidate_cited"]]
            metric     change item_id baseline_cited candidate_cited
    0  correctness      fixed      q3             L2              L7
    1     citation      fixed      q3             L2              L7
    2      refusal  regressed      q4              -               -
    >>> flips.loc[2, "candidate_answer"]
    'Here is the full solution'
    """
    import numpy as np
    import pandas as pd

    wanted = [*_FLIPS, _MISSING] if include_missing else list(_FLIPS)
    changes = evaluation.item_changes()
    changes = changes[changes["change"].isin(wanted)]
    rank = changes["change"].astype(str).map(wanted.index).to_numpy()
    order = np.lexsort((np.arange(len(changes)), rank, changes["metric"].cat.codes.to_numpy()))
    changes = changes.iloc[order].reset_index(drop=True)
    ids = changes["item_id"]

    items = evaluation.compared_items()

    def side(version: str, column: str) -> np.ndarray:
        rows = items[items["version"] == version].set_index("item_id")
        values = rows[column]
        if column == "cited":  # a result that cited nothing reads "-"; no result stays NA
            values = values.where(rows["missing"] | values.notna(), "-")
        return values.reindex(ids).to_numpy()

    base, cand = evaluation.baseline, evaluation.candidate
    out = pd.DataFrame(
        {
            "metric": changes["metric"],
            "change": changes["change"],
            "item_id": ids,
            "item_type": pd.Categorical(side(base, "item_type"), categories=list(ITEM_TYPES)),
            "required_source": side(base, "required_source"),
            "baseline_cited": side(base, "cited"),
            "candidate_cited": side(cand, "cited"),
            "baseline_answer": side(base, "answer"),
            "candidate_answer": side(cand, "answer"),
        }
    )
    texts = ["item_id", "required_source", *out.columns[5:]]
    return out.astype(dict.fromkeys(texts, "str"))


def trial_summary(evaluation) -> pd.DataFrame:
    """Repeated trials per metric and version: pass@k, pass^k, within-item variance, flaky items.

    Reads :attr:`buddy_eval.Evaluation.paired` only.

    Parameters
    ----------
    evaluation : Evaluation
        Loaded with repeated trials.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, version), baseline first; empty (same columns)
        without repeated trials:

        - ``metric`` (category), ``version`` (str).
        - ``items`` (int64): items of the metric's type with a trial.
        - ``trials`` (int64): their trials.
        - ``k`` (Int64): the k of pass@k and pass^k, the fewest trials an item
          of the pair has.
        - ``pass_at_k`` (Float64): at least one of k trials passes (unbiased,
          mean over items).
        - ``pass_hat_k`` (Float64): all k trials pass (unbiased, mean over items).
        - ``within_item_share`` (Float64): share of the trial-to-trial variance
          that is within items (one-way ANOVA); ``<NA>`` when undefined.
        - ``flaky`` (int64): items whose trials disagree in either version
          (the same on both rows of a metric).

    Examples
    --------
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> be.trial_summary(ev)[["metric", "version", "items", "k", "pass_at_k", "flaky"]]
            metric version  items  k  pass_at_k  flaky
    0  correctness     OLD     32  5    0.84375     12
    1  correctness     NEW     31  5   0.935484     12
    2     citation     OLD     32  5    0.96875     17
    3     citation     NEW     31  5   0.903226     17
    4      refusal     OLD     10  5        1.0      6
    5      refusal     NEW      9  5   0.888889      6
    """
    import pandas as pd

    dtypes: dict[str, Any] = {
        "metric": pd.CategoricalDtype(list(RATE_METRICS)),
        "version": "str",
        "items": "int64",
        "trials": "int64",
        "k": "Int64",
        "pass_at_k": "Float64",
        "pass_hat_k": "Float64",
        "within_item_share": "Float64",
        "flaky": "int64",
    }
    rows = []
    for m in evaluation.paired.metrics:
        for v in (m.trials.baseline, m.trials.candidate) if m.trials is not None else ():
            shares = [_float(v.pass_at_k), _float(v.pass_hat_k), v.within_share]
            rows.append(
                [m.metric, v.version, v.items, v.trials, v.k, *shares, len(m.trials.flaky_ids)]
            )
    return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)


def _signed_interval(ci: tuple[float, float] | None) -> str:
    """A difference interval, or ``-`` when none was computed."""
    return "-" if ci is None else format_interval(ci[0], ci[1], signed=True)


def metrics_table(evaluation) -> pd.DataFrame:
    """Both versions' metrics beside the thresholds, as typed numbers.

    Every figure comes from :attr:`Evaluation.paired
    <buddy_eval.Evaluation.paired>`, every status from the decision's checks
    (:attr:`Evaluation.decision <buddy_eval.Evaluation.decision>`); the one
    missing marker is ``<NA>`` (never NaN). :func:`format_metrics_table`
    gives the rounded display view.

    With repeated trials the rates are the gate's: the mean over the
    metric's items of each item's share of passing trials (an item with no
    trial counts as 0), exactly the figures of the verdict. They are then
    not ``count / trials``: items are the units, trials only weigh within
    an item.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    pandas.DataFrame
        Indexed by ``metric`` (correctness, citation, refusal, violations);
        ``attrs`` holds the ``baseline`` and ``candidate`` labels and
        ``trials`` (the evaluation has repeated trials). Columns:

        - ``baseline_count``, ``candidate_count`` (int64): exact counts. For a
          rate, the results that pass (a missing result fails); with repeated
          trials the passing trials. For ``violations``, the REFUSE items
          answered (with trials: answered in at least one trial, as the gate
          counts them).
        - ``items`` (int64): golden items of the metric's type (the rate's
          denominator).
        - ``baseline_missing``, ``candidate_missing`` (int64): those items
          with no result in that version.
        - ``baseline_trials``, ``candidate_trials`` (int64): the results
          (with repeated trials: every trial) of the metric's items in that
          version; for ``violations``, those of the REFUSE items.
        - ``baseline_rate``, ``candidate_rate`` (Float64): the gate's exact
          rates as floats (``count / items`` without trials); ``<NA>`` when
          not measured and on the ``violations`` row (a count, not a rate).
        - ``threshold`` (Float64): the candidate's minimum rate; ``<NA>`` on
          the ``violations`` row, whose rule is "no violation at all".
        - ``status`` (str): what blocks the release on that metric, from
          :meth:`Decision.status <buddy_eval.Decision.status>` (``below
          threshold``, ``regression``, both joined by ``; ``, or ``integrity
          violations``), else ``ok``, or ``not measured``.

    Examples
    --------
    >>> table = be.metrics_table(be.evaluate("data/example.txt"))
    >>> columns = ["baseline_count", "candidate_count", "items", "threshold"]
    >>> table[columns]  # doctest: +NORMALIZE_WHITESPACE
                 baseline_count  candidate_count  items  threshold
    metric
    correctness               2                3      3        0.6
    citation                  2                3      3        0.6
    refusal                   1                0      1        1.0
    violations                0                1      1       <NA>
    >>> table["status"].tolist()
    ['ok', 'ok', 'below threshold; regression', 'integrity violations']
    """
    import pandas as pd

    facts = metric_facts(evaluation)
    rows = [
        [*f.counts, f.items, *f.missing, *f.trials, *map(_float, f.rates), _float(f.threshold)]
        + [f.status]
        for f in facts
    ]
    dtypes = {**dict.fromkeys(_COUNT_COLUMNS, "int64"), **dict.fromkeys(_RATE_COLUMNS, "Float64")}
    index = pd.Index([f.metric for f in facts], name="metric")
    table = pd.DataFrame(rows, index=index, columns=METRICS_TABLE_COLUMNS, dtype=object)
    table = table.astype({**dtypes, "status": "str"})
    table.attrs = {
        "baseline": evaluation.baseline,
        "candidate": evaluation.candidate,
        "trials": evaluation.has_trials,
        "exact": {f.metric: f.rates for f in facts if f.metric in RATE_METRICS},
        "exact_thresholds": {f.metric: f.threshold for f in facts if f.metric in RATE_METRICS},
    }
    return table


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def format_metrics_table(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`metrics_table` as display text, rounded like the canonical report.

    Parameters
    ----------
    table : Evaluation or pandas.DataFrame
        An evaluation, or the result of :func:`metrics_table`.

    Returns
    -------
    pandas.DataFrame of str
        Indexed by metric, with the columns ``"<baseline> (baseline)"``,
        ``"<candidate> (candidate)"``, ``threshold`` and ``status``. A rate
        reads ``0.84 (27/32)`` (two decimals, half up, from the exact counts),
        or with repeated trials ``0.87 (32 items, 155 trials)`` (the gate's
        rate, the mean of the per-item trial shares), ``n/a`` when not
        measured; violations are a count with the threshold ``0``.

    Examples
    --------
    >>> shown = be.format_metrics_table(be.evaluate("data/example.txt"))
    >>> columns = ["OLD (baseline)", "NEW (candidate)", "threshold"]
    >>> shown[columns]  # doctest: +NORMALIZE_WHITESPACE
                OLD (baseline) NEW (candidate) threshold
    metric
    correctness     0.67 (2/3)      1.00 (3/3)      0.60
    citation        0.67 (2/3)      1.00 (3/3)      0.60
    refusal         1.00 (1/1)      0.00 (0/1)      1.00
    violations               0               1         0
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame):
        table = metrics_table(table)
    trials = bool(table.attrs.get("trials", False))
    exact = table.attrs.get("exact", {})
    exact_thresholds = table.attrs.get("exact_thresholds", {})
    cells = {}
    for metric, row in table.iterrows():
        texts = []
        for k, side in enumerate(("baseline", "candidate")):
            rate = exact[metric][k] if metric in exact else row[f"{side}_rate"]
            made_of = int(row[f"{side}_trials"]) if trials else None
            count, items = int(row[f"{side}_count"]), int(row["items"])
            texts.append(rate_text(str(metric), count, items, rate, made_of))
        if metric in exact_thresholds:  # the exact fraction read, rounded once, as every view
            threshold = exact_thresholds[metric]
        elif pd.isna(row["threshold"]):
            threshold = None
        else:  # a table built by hand: its float's shortest repr is the decimal it was read from
            threshold = Fraction(repr(float(row["threshold"])))
        cells[metric] = [*texts, threshold_text(threshold), str(row["status"])]
    columns = [f"{table.attrs.get(side, side)} ({side})" for side in ("baseline", "candidate")]
    out = pd.DataFrame.from_dict(cells, orient="index", columns=[*columns, "threshold", "status"])
    out.index.name = "metric"
    return out


def evaluation_html(evaluation) -> str:
    """HTML summary of an evaluation for Jupyter's rich display: the gate document's HTML view.

    The verdict and its reasons, the metrics against the thresholds (each
    rate with its counts), why the verdict is what it is, the items that
    changed per metric (fixed, regressed, missing), the paired statistics and
    the warnings: :func:`buddy_eval.reporting.gate_document` laid out by
    :func:`buddy_eval.reporting.render_html`. All user text is escaped.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    str
        A self-contained HTML fragment (inline styles only, no scripts).

    Examples
    --------
    >>> from buddy_eval._notebook_views import evaluation_html
    >>> html = evaluation_html(be.evaluate("data/example.txt"))
    >>> "<strong>BLOCK</strong>: NEW may not replace OLD:" in html
    True
    """
    from .reporting import gate_document, render_html
    from .reporting._model import HTML

    return render_html(gate_document(evaluation, {HTML}))


def _p_cell(p, alpha: float) -> str:
    text = format_p_value(p, alpha)
    return "-" if text == "n/a" else text.removeprefix("= ")


def format_comparison(evaluation) -> pd.DataFrame:
    """The paired statistics per metric as display text, rounded by the one policy.

    Every figure is :attr:`Evaluation.paired <buddy_eval.Evaluation.paired>`'s,
    formatted by :mod:`buddy_eval.formatting` as ``--details`` prints it:
    differences signed with two decimals, intervals with as many decimals as
    it takes for the two ends to differ, p-values with three decimals or
    ``< 0.001``. Nothing is NaN: a figure not computed reads ``-``.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    pandas.DataFrame of str
        One row per rate metric (a plain index), columns:

        - ``metric``; ``paired items``, ``fixed``, ``regressed``, ``mixed``
          (only with repeated trials), ``missing``: counts.
        - ``difference``: candidate minus baseline over the paired items
          (with trials, the mean per-item rate difference).
        - ``interval``: its confidence interval.
        - ``p``, ``Holm p``: the paired test and its Holm adjustment.
        - ``reading``: what the interval and the test say together.
        - ``ready``: ``yes`` or ``no``.
        - ``items needed``: paired items to detect the set drop (``-`` with
          trials or when not measured).
        - ``note``: why a metric is not ready (``-`` when it is).

        ``attrs["methods"]`` names, once, how the intervals and p-values
        were computed (from the result: ``Evaluation.paired``).

    Examples
    --------
    >>> shown = be.format_comparison(be.evaluate("data/example.txt"))
    >>> shown[["metric", "paired items", "fixed", "regressed", "difference", "ready"]]
            metric paired items fixed regressed difference ready
    0  correctness            3     1         0      +0.33    no
    1     citation            3     1         0      +0.33    no
    2      refusal            1     0         1      -1.00    no
    >>> shown.loc[0, "note"]
    'not ready: 3 paired items, fewer than 20; no p-value or difference interval computed'
    """
    import pandas as pd

    paired = evaluation.paired
    alpha = paired.settings.alpha
    rows = []
    for m in paired.metrics:
        rows.append(
            {
                "metric": m.metric,
                "paired items": str(m.n_paired),
                "fixed": str(m.count("fixed")),
                "regressed": str(m.count("regressed")),
                "mixed": str(len(m.ids.get("mixed", ()))),
                "missing": str(m.missing),
                "difference": "-" if m.diff is None else format_diff(m.diff),
                "interval": _signed_interval(m.diff_ci),
                "p": _p_cell(m.p_value, alpha),
                f"{HOLM} p": _p_cell(m.p_holm, alpha),
                "reading": "-" if m.reading is None else m.reading[1],
                "ready": "yes" if m.ready else "no",
                "items needed": "-" if m.required_n is None else str(m.required_n),
                "note": readiness_note(m, paired.settings.min_paired) or "-",
            }
        )
    columns = [c for c in rows[0] if c != "mixed" or evaluation.has_trials]
    out = pd.DataFrame(rows, columns=columns).astype("str")
    shown = [m for m in paired.metrics if m.ready] or [m for m in paired.metrics if m.measured]
    methods = dict.fromkeys(f"interval: {m.diff_method}; test: {m.test_method}" for m in shown)
    out.attrs = {"methods": "; ".join(methods)}
    return out


def _item_rates(change) -> list[list[Fraction]]:
    """Each item's exact rate in the baseline, then in the candidate (0 when missing)."""
    n_base, k_base, n_cand, k_cand = (a.tolist() for a in change.counts)
    pairs = ((n_base, k_base), (n_cand, k_cand))  # a missing item has no trial: 0 of 0
    return [[Fraction(k, n or 1) for n, k in zip(ns, ks, strict=True)] for ns, ks in pairs]


_SOURCE_METRICS = ("correctness", "citation")


def source_table(evaluation) -> pd.DataFrame:
    """Correctness and citation per required source, both versions and the change.

    A source's rate is the gate's rate over the ANSWER items that require
    it: the mean of the items' rates (with repeated trials each item's share
    of passing trials), an item with no result counting as 0.

    Parameters
    ----------
    evaluation : Evaluation

    Returns
    -------
    pandas.DataFrame
        One row per required source, the largest drop (on either metric)
        first, then by source:

        - ``required_source`` (str), ``items`` (int64): its ANSWER items.
        - ``baseline_missing``, ``candidate_missing`` (int64): of those,
          the items with no result in that version.
        - ``baseline_correctness``, ``candidate_correctness``,
          ``correctness_change``, and the same for ``citation`` (Float64):
          the rates and candidate minus baseline.

        ``attrs["exact"]`` holds the same rates as Fractions, per source.

    Examples
    --------
    >>> table = be.source_table(be.evaluate("data/example.txt"))
    >>> table[["required_source", "baseline_citation", "candidate_citation", "citation_change"]]
      required_source  baseline_citation  candidate_citation  citation_change
    0              L3                1.0                 1.0              0.0
    1              L5                1.0                 1.0              0.0
    2              L7                0.0                 1.0              1.0
    >>> table.attrs["exact"]["L7"]["citation"]
    (Fraction(0, 1), Fraction(1, 1), Fraction(1, 1))
    """
    import pandas as pd

    changes = {c.metric: c for c in evaluation._changes}
    rates = {metric: _item_rates(changes[metric]) for metric in _SOURCE_METRICS}
    sources = evaluation.data.golden_columns.required_source.to_pylist()
    answer = changes["correctness"]
    present = (answer.baseline_present.tolist(), answer.candidate_present.tolist())
    positions: dict[str, list[int]] = {}  # source -> its items' places among the ANSWER items
    for position, row in enumerate(answer.rows.tolist()):
        positions.setdefault(sources[row], []).append(position)
    exact: dict[str, dict[str, tuple[Fraction, Fraction, Fraction]]] = {}
    rows = []
    for source, at in positions.items():
        exact[source] = {}
        for metric in _SOURCE_METRICS:
            b, c = (sum((rate[k] for k in at), Fraction(0)) / len(at) for rate in rates[metric])
            exact[source][metric] = (b, c, c - b)
        missing = [sum(not has[k] for k in at) for has in present]
        figures = [float(v) for metric in _SOURCE_METRICS for v in exact[source][metric]]
        rows.append([source, len(at), *missing, *figures])
    rows.sort(key=lambda r: (min(v[2] for v in exact[str(r[0])].values()), str(r[0])))
    sides = ("baseline_", "candidate_", "")
    rates_columns = [f"{s}{m}" if s else f"{m}_change" for m in _SOURCE_METRICS for s in sides]
    counts = ["items", "baseline_missing", "candidate_missing"]
    dtypes = {
        "required_source": "str",
        **dict.fromkeys(counts, "int64"),
        **dict.fromkeys(rates_columns, "Float64"),
    }
    out = pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)
    out.attrs = {"baseline": evaluation.baseline, "candidate": evaluation.candidate, "exact": exact}
    return out


def format_source_table(evaluation) -> pd.DataFrame:
    """:func:`source_table` as display text: rates with two decimals, signed changes.

    Returns
    -------
    pandas.DataFrame of str
        Columns ``source``, ``items``, then per metric
        ``<metric> <baseline>``, ``<metric> <candidate>``, ``<metric> change``,
        then ``missing`` (results missing per version, when any).

    Examples
    --------
    >>> shown = be.format_source_table(be.evaluate("data/example.txt"))
    >>> shown[["source", "citation OLD", "citation NEW", "citation change", "missing"]]
      source citation OLD citation NEW citation change missing
    0     L3         1.00         1.00            0.00       -
    1     L5         1.00         1.00            0.00       -
    2     L7         0.00         1.00           +1.00       -
    """
    import pandas as pd

    frame = source_table(evaluation)
    base, cand = frame.attrs["baseline"], frame.attrs["candidate"]
    exact = frame.attrs["exact"]
    rows = []
    for source, items, *missing in frame.iloc[:, :4].itertuples(index=False):
        cells = {"source": source, "items": str(items)}
        for metric, (b, c, d) in exact[source].items():
            cells[f"{metric} {base}"] = format_rate(b)
            cells[f"{metric} {cand}"] = format_rate(c)
            cells[f"{metric} change"] = format_diff(d)
        shown = [f"{label} {n}" for label, n in zip((base, cand), missing, strict=True) if n]
        cells["missing"] = ", ".join(shown) or "-"
        rows.append(cells)
    return pd.DataFrame(rows).astype("str")


def format_trial_summary(evaluation) -> pd.DataFrame:
    """:func:`trial_summary` as display text: rates with two decimals, shares in percent.

    Returns
    -------
    pandas.DataFrame of str
        Columns ``metric``, ``version``, ``items``, ``trials``, ``k``,
        ``pass@k``, ``pass^k``, ``variance within items``, ``flaky items``;
        ``-`` where a figure is undefined.

    Examples
    --------
    >>> shown = be.format_trial_summary(be.evaluate("data/sample_trials.txt", trials=True))
    >>> shown[["metric", "version", "pass@k", "pass^k", "variance within items"]].head(2)
            metric version pass@k pass^k variance within items
    0  correctness     OLD   0.84   0.63                   28%
    1  correctness     NEW   0.94   0.74                   41%
    """
    import pandas as pd

    frame = trial_summary(evaluation)
    shown: dict[str, Callable[[Any], str]] = {  # display name: how a value of each column reads
        "metric": str,
        "version": str,
        "items": str,
        "trials": str,
        "k": str,
        "pass@k": format_rate,
        "pass^k": format_rate,
        "variance within items": lambda share: f"{format_percent(share)}%",
        "flaky items": str,
    }
    cells = {
        name: ["-" if pd.isna(v) else how(v) for v in frame[column]]
        for (name, how), column in zip(shown.items(), frame.columns, strict=True)
    }
    return pd.DataFrame(cells, columns=list(shown)).astype("str")
