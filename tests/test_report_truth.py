"""Every view tells the verdict's truth (repeated trials too); the report reads from the top.

The numbers are checked against the canonical lines, the decision's checks and
plain-Python recounts of the input (fractions), never against the function
that made them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from fractions import Fraction
from html.parser import HTMLParser

import pandas as pd
import pytest

import buddy_eval as be
from buddy_eval._decision import Check
from buddy_eval._notebook_views import (
    evaluation_html,
    format_comparison,
    format_metrics_table,
    format_source_table,
    format_trial_summary,
    metrics_table,
    source_table,
)
from buddy_eval._plotting import item_grid_outcomes
from buddy_eval.formatting import format_diff, format_interval
from buddy_eval.reporting import gate_document, render_html
from buddy_eval.reporting import json_record as json_report
from tests.conftest import DATA, ROOT

TRIALS = DATA / "sample_trials.txt"
RELEASE = DATA / "sample_release.txt"
RATES = ("correctness", "citation", "refusal")


@pytest.fixture(scope="module")
def trials():
    return be.evaluate(be.load(TRIALS, trials=True))


@pytest.fixture(scope="module")
def plain():
    return be.evaluate(RELEASE)


def canonical(ev) -> dict[str, dict[str, str]]:
    """The canonical lines' figures: version -> metric -> printed text."""
    out = {}
    for line in str(ev.report()).split("\n")[:2]:
        label, rest = line.split(": ", 1)
        words = rest.split()
        out[label] = dict(zip(words[::2], words[1::2], strict=True))
    return out


# --- the metrics table in trials mode -------------------------------------------------


def test_trials_metrics_table_holds_the_verdicts_rates(trials):
    table_ = metrics_table(trials)
    assert table_.attrs["trials"] is True
    for metric in RATES:
        for side, version in (("baseline", "OLD"), ("candidate", "NEW")):
            exact = trials.values(version)[metric]
            assert table_.loc[metric, f"{side}_rate"] == float(exact)
            assert table_.attrs["exact"][metric][("baseline", "candidate").index(side)] == exact
    # what they are made of: the items of the type and every trial line
    assert table_.loc["correctness", "items"] == 32
    assert table_.loc["correctness", "baseline_trials"] == 160
    assert table_.loc["correctness", "candidate_trials"] == 155  # j31 has no NEW trial
    assert table_.loc["refusal", "candidate_trials"] == 45
    # violations as the gate counts them: REFUSE items answered in any trial
    assert table_.loc["violations", "baseline_count"] == 2
    assert table_.loc["violations", "candidate_count"] == 6


def test_trials_formatted_metrics_table_agrees_with_the_canonical_lines(trials):
    lines = canonical(trials)
    shown = format_metrics_table(trials)
    for metric in RATES:
        for column, version in (("OLD (baseline)", "OLD"), ("NEW (candidate)", "NEW")):
            cell = shown.loc[metric, column]
            assert cell.split(" ")[0] == lines[version][metric], (metric, cell)
    assert shown.loc["correctness", "NEW (candidate)"] == "0.87 (32 items, 155 trials)"
    assert shown.loc["violations"].tolist() == ["2", "6", "0", "integrity violations"]


@pytest.mark.parametrize("path, trials_", [(TRIALS, True), (RELEASE, False)])
def test_statuses_are_the_decisions_checks(path, trials_):
    ev = be.evaluate(be.load(path, trials=trials_))
    table_ = metrics_table(ev)
    for metric in RATES:
        expected = [
            word
            for kind, word in (("threshold", "below threshold"), ("regression", "regression"))
            if ev.decision.blocks(metric, kind)
        ]
        assert table_.loc[metric, "status"] == ("; ".join(expected) or "ok")
    assert (table_.loc["violations", "status"] == "integrity violations") == ev.decision.blocks(
        "violations"
    )


def test_trials_status_is_consistent_with_the_verdict(trials):
    status = metrics_table(trials)["status"]
    # the verdict blocks on citation and refusal, not correctness (0.87 >= 0.80)
    assert status.to_dict() == {
        "correctness": "ok",
        "citation": "below threshold; regression",
        "refusal": "below threshold; regression",
        "violations": "integrity violations",
    }


def test_status_and_bar_colour_read_the_checks_not_the_words(plain, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def colours(ev):
        ax = be.plot_metrics(ev)
        bars = [p for p in ax.patches if (p.get_gid() or "").startswith("bar/")]
        found = {p.get_gid(): p.get_facecolor() for p in bars}
        plt.close(ax.figure)
        return found

    before = metrics_table(plain)["status"].tolist(), colours(plain)
    monkeypatch.setattr(Check, "reason", property(lambda self: f"reworded {self.kind}"))
    ev = be.evaluate(RELEASE)
    assert ev.decision.reasons[0].startswith("reworded")
    assert (metrics_table(ev)["status"].tolist(), colours(ev)) == before
    assert "regression" in metrics_table(ev).loc["citation", "status"]


def test_noninferiority_blocks_read_as_regression():
    ev = be.evaluate(RELEASE, settings=be.Settings(margin=0.01))
    for metric in RATES:
        expected = ev.decision.blocks(metric, "regression")
        assert ("regression" in ev.decision.status(metric)) == expected


# --- per-item views: mixed labels, violations, the item grid ------------------------------


def test_changes_are_counted_with_mixed_and_add_up_to_the_items(trials):
    comparison = trials.comparison.set_index("metric")
    changes = trials.item_changes()
    for metric in RATES:
        row = comparison.loc[metric]
        labels = changes[changes["metric"] == metric]["change"].astype(str).value_counts()
        for label in ("both pass", "both fail", "fixed", "regressed", "mixed", "missing"):
            assert row[label.replace(" ", "_")] == labels.get(label, 0), (metric, label)
        parts = ["both_pass", "both_fail", "fixed", "regressed", "mixed"]
        assert row[parts].sum() == row["n_paired"]
        assert row["n_paired"] + row["missing"] == trials.paired[metric].baseline.items
    assert comparison.loc["correctness", "mixed"] == 10
    html = evaluation_html(trials)
    assert "<strong>correctness</strong>: fixed 5: " in html
    assert "; regressed 2: j06, j25; mixed 10: " in html


def test_one_result_per_item_has_no_mixed(plain):
    assert plain.comparison["mixed"].tolist() == [0, 0, 0]
    assert "mixed" not in format_comparison(plain).columns
    assert "mixed" not in evaluation_html(plain)


def test_item_grid_counts_violations_as_the_gate_does(trials):
    outcomes = item_grid_outcomes(trials)
    for j, version in enumerate(("OLD", "NEW")):
        shown = int((outcomes[(version, "refused")] == "violation").sum())
        assert shown == trials.paired.violations[j].violations
    assert int((outcomes[("NEW", "refused")] == "violation").sum()) == 6
    # a cell passes only when every trial does: j04 is flaky in NEW
    assert outcomes.loc["j04", ("NEW", "correct")] == "fail"
    assert outcomes.loc["j31", ("NEW", "correct")] == "missing"


# --- the drill-down ------------------------------------------------------------------------


def _recount(path):
    """Per (version, item): trials, correct, cited and refused trials, read from the text."""
    golden, counts = {}, defaultdict(lambda: [0, 0, 0, 0])
    section = "golden"
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("THRESHOLDS"):
            continue
        if line == "RESULTS":
            section = "results"
            continue
        if section == "golden":
            item, kind, source, keywords = line.split(" ", 3)
            golden[item] = (kind, source, [k for k in keywords.split(",") if k != "-"])
            continue
        version, item, cited, refused, *answer = line.split(" ")
        answer = " ".join(answer).casefold()
        if item not in golden:
            continue
        kind, source, keywords = golden[item]
        c = counts[(version, item)]
        c[0] += 1
        answered = refused == "N"
        c[1] += answered and all(k.casefold() in answer for k in keywords)
        c[2] += answered and cited == source
        c[3] += not answered
    return golden, counts


def test_drill_down_is_every_trial_scored_as_the_gate_scores_it(trials):
    answers = be.trial_answers(trials)
    golden, counts = _recount(TRIALS)
    assert len(answers) == sum(c[0] for c in counts.values())
    for (version, item), (n, correct, cited, refused) in counts.items():
        rows = answers[(answers["version"] == version) & (answers["item_id"] == item)]
        assert len(rows) == n
        assert sorted(rows["trial"].tolist()) == list(range(1, n + 1))
        if golden[item][0] == "ANSWER":
            assert int(rows["passed"].sum()) <= min(correct, cited)
            ok = ~rows["refused"] & (rows["missed_keywords"] == "")
            assert int(ok.sum()) == correct
            assert int((~rows["refused"] & (rows["cited"] == golden[item][1])).sum()) == cited
        else:
            assert int(rows["passed"].sum()) == refused
            assert int(rows["violation"].sum()) == n - refused
    # items violating in any trial are the gate's violations
    for j, version in enumerate(("OLD", "NEW")):
        violating = answers[answers["violation"] & (answers["version"] == version)]["item_id"]
        assert violating.nunique() == trials.paired.violations[j].violations


def test_drill_down_orders_violations_first_and_says_why(trials):
    answers = be.trial_answers(trials)
    rank = (~answers["violation"]).astype(int) + answers["passed"].astype(int)
    assert rank.is_monotonic_increasing
    assert answers.loc[0, "why"] == "answered a REFUSE item"
    j06 = be.trial_answers(trials, "j06")
    new = j06[j06["version"] == "NEW"]
    assert new["why"].tolist() == ["missed keywords: equals"] * 5
    assert new["trial"].tolist() == [1, 2, 3, 4, 5]
    assert j06[j06["version"] == "OLD"]["passed"].all()
    assert list(j06.columns) == [
        "item_id",
        "item_type",
        "version",
        "trial",
        "passed",
        "violation",
        "why",
        "missed_keywords",
        "cited",
        "required_source",
        "refused",
        "answer",
        "line",
    ]
    assert str(j06["trial"].dtype) == "int64" and str(j06["passed"].dtype) == "bool"


def test_drill_down_names_a_wrong_citation_and_rejects_unknown_ids(plain):
    j11 = be.trial_answers(plain, ["j11"])
    assert j11[j11["version"] == "OLD"]["why"].tolist() == ["cited L02, not L03"]
    with pytest.raises(be.InputError, match="unknown item id 'nope'"):
        be.trial_answers(plain, "nope")


# --- one difference everywhere -------------------------------------------------------------


@pytest.mark.parametrize("path, trials_", [(TRIALS, True), (RELEASE, False)])
def test_comparison_diff_is_the_printed_one(path, trials_):
    from buddy_eval.reporting import details as details_text

    ev = be.evaluate(be.load(path, trials=trials_))
    report = json_report(ev)["comparison"]
    details = details_text(ev)
    for row in ev.comparison.itertuples():
        entry = report[row.metric]
        assert row.diff == entry["diff"]
        assert Fraction(entry["diff_exact"]) == ev.paired[row.metric].diff
        assert row.diff_method == entry["diff_ci_method"]
        shown = format_diff(ev.paired[row.metric].diff)
        assert f"  difference   {shown} " in details
    if trials_:
        # 16/155: the mean per-item rate difference --details prints as +0.10 (not 0.143)
        assert ev.comparison.set_index("metric").loc["correctness", "diff"] == 16 / 155
        assert "McNemar" not in " ".join(ev.comparison["p_value_method"])


def test_interval_chart_plots_the_printed_difference(trials):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = be.plot_diff_intervals(trials)
    dots = {line.get_gid(): line.get_xdata()[0] for line in ax.lines if line.get_gid()}
    plt.close(ax.figure)
    for m in trials.paired.metrics:
        assert dots[f"diff/{m.metric}"] == float(m.diff)


# --- the statistics table, the source table, the summary --------------------------------------


def test_statistics_table_is_formatted_by_the_one_policy(trials):
    shown = format_comparison(trials)
    assert list(shown.columns) == [
        "metric",
        "paired items",
        "fixed",
        "regressed",
        "mixed",
        "missing",
        "difference",
        "interval",
        "p",
        "Holm p",
        "reading",
        "ready",
        "items needed",
        "note",
    ]
    row = shown.set_index("metric").loc["correctness"]
    m = trials.paired["correctness"]
    assert row["difference"] == "+0.10"
    assert row["interval"] == format_interval(*m.diff_ci, signed=True)
    assert (row["p"], row["Holm p"]) == ("0.274", "0.548")
    assert row["reading"] == "no clear change: the interval includes 0"
    refusal = shown.set_index("metric").loc["refusal"]
    assert (refusal["interval"], refusal["p"], refusal["ready"]) == ("-", "-", "no")
    assert "NaN" not in shown.to_string() and "nan" not in shown.to_string()
    assert "McNemar" not in shown.attrs["methods"]


def test_small_p_values_and_close_interval_ends():
    lines = ["THRESHOLDS 0.5 0.5 0.5"] + [f"q{i} ANSWER L1 a" for i in range(40)] + ["RESULTS"]
    lines += [f"OLD q{i} L1 N a" for i in range(40)]
    lines += [f"NEW q{i} L1 N {'b' if i < 30 else 'a'}" for i in range(40)]
    ev = be.evaluate("\n".join(lines) + "\n")
    row = format_comparison(ev).set_index("metric").loc["correctness"]
    assert row["p"] == "< 0.001" and row["Holm p"] == "< 0.001"
    low, high = row["interval"].strip("[]").split(", ")
    assert low != high


def test_source_table_rates_per_version_sorted_by_the_largest_drop(trials):
    frame = source_table(trials)
    changes = [
        min(a, b)
        for a, b in zip(frame["correctness_change"], frame["citation_change"], strict=True)
    ]
    assert changes == sorted(changes)
    assert frame["items"].sum() == 32
    # L10: j31 (missing in NEW, counts 0) and j32; recounted from the item rates
    rates = trials.item_changes()
    rates = rates[(rates["metric"] == "correctness") & rates["item_id"].isin(["j31", "j32"])]
    expected_new = Fraction(0) + Fraction(str(rates["candidate_rate"].iloc[1]))
    l10 = frame.set_index("required_source").loc["L10"]
    assert l10["candidate_correctness"] == pytest.approx(float(expected_new / 2))
    shown = format_source_table(trials)
    assert shown.columns.tolist()[:5] == [
        "source",
        "items",
        "correctness OLD",
        "correctness NEW",
        "correctness change",
    ]
    assert shown.loc[0, "missing"] == "NEW 1"


def decision_summary(ev) -> list[tuple[str, str]]:
    """The "why" section's entries, as (lead, text) pairs."""
    section = gate_document(ev, {"html"}).section("explained")
    entries = section.blocks[0].entries
    return [(e.lead, render_text_parts(e)) for e in entries]


def render_text_parts(entry) -> str:
    from buddy_eval.reporting import Bullets, Document, Section, render_text

    doc = Document("x", "x", (Section("s", None, (Bullets((entry,)),)),))
    return render_text(doc).split(": ", 1)[1]


def test_decision_summary_explains_each_reason_then_the_caveats(trials):
    summary = decision_summary(trials)
    heads = [head for head, _ in summary]
    reasons = list(trials.decision.reasons)
    assert heads[: len(reasons)] == reasons
    text = dict(summary[: len(reasons)])
    assert "Holm p = 0.935" in text["regression in citation"]
    assert "could be noise" in text["regression in citation"]
    assert "not ready for a decision" in text["regression in refusal"]
    caveats = [t for h, t in summary if h == "caveat"]
    assert any("j31, r10" in c for c in caveats)
    assert any(c.startswith("refusal: a golden set too small") for c in caveats)
    document = gate_document(trials, {"html"})
    html = render_html(document, sections=[document.section("explained")])
    assert '<section class="buddy-eval-explained"><h3>Why BLOCK</h3>' in html


def test_decision_summary_of_a_release_names_unmeasured_metrics():
    ev = be.evaluate(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n"
    )
    summary = decision_summary(ev)
    assert summary[0] == ("RELEASE", "every check passes")
    assert ("caveat", "refusal not measured: the golden set has no REFUSE item") in summary


def test_long_tables_are_collapsed_with_their_row_count():
    short = be.collapsible(pd.DataFrame({"a": [1, None]}), "Short", open=None, na_rep="-")
    long = be.collapsible(pd.DataFrame({"a": range(40)}), "Long", open=None, na_rep="-")
    assert " open>" in short._repr_html_() and "Long (40 rows)" in long._repr_html_()
    assert " open" not in long._repr_html_().split(">")[0]
    assert "<NA>" not in short._repr_html_() and "<td>-</td>" in short._repr_html_()
    assert "<th></th>" not in short._repr_html_()  # no index, no index-name row


def test_trial_summary_is_formatted(trials):
    shown = format_trial_summary(trials)
    assert shown.iloc[0].tolist() == [
        "correctness",
        "OLD",
        "32",
        "160",
        "5",
        "0.84",
        "0.63",
        "28%",
        "12",
    ]


# --- the HTML report made with --trials ------------------------------------------------------


class _Tables(HTMLParser):
    """Every table of a page, with the ``<summary>`` text before it and whether it is open."""

    def __init__(self):
        super().__init__()
        self.tables, self.headings = [], []
        self._summary = self._open = None
        self._in = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "details":
            self._open = "open" in attrs
        elif tag == "summary":
            self._in, self._summary = "summary", ""
        elif tag in ("h1", "h2"):
            self._in = "heading"
            self.headings.append("")
        elif tag == "table":
            self.tables.append({"title": self._summary, "open": self._open, "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("summary", "h1", "h2"):
            self._in = None
        elif tag in ("td", "th") and self._cell is not None:
            self.tables[-1]["rows"][-1].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._in == "summary":
            self._summary += data
        elif self._in == "heading":
            self.headings[-1] += data


@pytest.mark.slow
def test_the_trials_report_tells_the_verdicts_truth(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "trials.html"
    proc = subprocess.run(
        [sys.executable, "-m", "buddy_eval", "notebook", str(TRIALS), "--trials", "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr  # the report was written
    html = out.read_text(encoding="utf-8")
    ev = be.evaluate(be.load(TRIALS, trials=True))
    lines = canonical(ev)
    page = _Tables()
    page.feed(html)
    metrics = next(t for t in page.tables if t["title"].startswith("Metrics against"))
    header, *rows = metrics["rows"]
    assert header == ["metric", "OLD (baseline)", "NEW (candidate)", "threshold", "status"]
    by_metric = {row[0]: row for row in rows}
    for metric in RATES:
        row = by_metric[metric]
        assert row[1].split(" ")[0] == lines["OLD"][metric]
        assert row[2].split(" ")[0] == lines["NEW"][metric]
        assert "trials)" in row[1] and "trials)" in row[2]
        assert row[4] == ev.decision.status(metric)
    assert by_metric["violations"][1:3] == [lines["OLD"]["violations"], lines["NEW"]["violations"]]
    # the decision summary right under the banner, then the sections in reading order
    why = html.index('<section class="buddy-eval-explained">')
    assert html.index("</header>") < why < html.index("<main>")
    headings = [h.replace("\u00b6", "").strip() for h in page.headings]
    trust, every = headings.index("How far to trust the verdict"), headings.index("Every item")
    assert trust < headings.index("What changed between the versions") < every
    assert "Repeated trials" in headings
    # long tables are closed and say how many rows they hold; nothing shows NaN or <NA>
    for t in page.tables:
        if len(t["rows"]) - 1 > 15:
            assert t["open"] is False and re.search(r"\(\d+ rows\)$", t["title"]), t["title"]
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", html)
    assert "NaN" not in text and "&lt;NA&gt;" not in text
    assert "exact McNemar" not in text
    statistics = next(t for t in page.tables if t["title"].startswith("Paired statistics"))
    correctness = dict(zip(statistics["rows"][0], statistics["rows"][1], strict=True))
    assert correctness["difference"] == "+0.10" and correctness["Holm p"] == "0.548"


@pytest.mark.parametrize("metric", RATES)
def test_the_flaky_chart_legend_covers_no_point(trials, metric):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = be.plot_trial_rates(trials, metric=metric)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    points = [p for c in ax.collections for p in c.get_offsets()]
    assert points
    for x, y in ax.transData.transform(points):
        assert not box.contains(x, y), (metric, x, y)
    assert box.y1 < ax.get_window_extent().y0  # under the axes
    plt.close(fig)


@pytest.mark.parametrize(
    "path, trials_, method",
    [
        (TRIALS, True, "Newcombe hybrid score on the item rates' fractional 2x2 table"),
        (RELEASE, False, "Newcombe hybrid score"),
    ],
)
def test_the_interval_chart_names_the_results_method(path, trials_, method):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ev = be.evaluate(be.load(path, trials=trials_))
    ax = be.plot_diff_intervals(ev.comparison)
    assert method in ax.get_title()
    plt.close(ax.figure)


def test_a_narrow_interval_gets_the_digits_to_tell_its_ends_apart():
    n, regressed = 4000, 40
    lines = ["THRESHOLDS 0.5 0.5 0.5"] + [f"q{i} ANSWER L1 a" for i in range(n)] + ["RESULTS"]
    lines += [f"OLD q{i} L1 N a" for i in range(n)]
    lines += [f"NEW q{i} L1 N {'b' if i < regressed else 'a'}" for i in range(n)]
    ev = be.evaluate("\n".join(lines) + "\n")
    m = ev.paired["correctness"]
    assert format_interval(*m.diff_ci, signed=True, places=2) != "[-0.01, -0.01]"
    row = format_comparison(ev).set_index("metric").loc["correctness"]
    low, high = row["interval"].strip("[]").split(", ")
    assert low != high and len(low) > len("-0.01")
    assert Fraction(low) <= m.diff <= Fraction(high)
    assert row["difference"] == "-0.01"
