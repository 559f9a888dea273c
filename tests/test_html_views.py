"""The HTML views (the notebook's display, the report's banner and why section) are the gate
document laid out by ``render_html``: they say what the other views say, figure for figure."""

from __future__ import annotations

import re
from fractions import Fraction
from html import unescape

import pytest

import buddy_eval as be
from buddy_eval._notebook_report import report_banner
from buddy_eval.reporting import gate_document, render_html, render_markdown
from buddy_eval.reporting._gate_metrics import metric_facts
from tests.conftest import DATA, run_cli
from tests.ledger_helpers import GOLDEN, make_input, result_lines

#: 200 ANSWER and 200 REFUSE items; the candidate cites one answer wrongly: a regression
#: under the exact rule, within a 0.05 non-inferiority margin.
ONE_WRONG_CITATION = (
    "THRESHOLDS 0.5 0.5 0.5\n"
    + "".join(f"a{i} ANSWER L1 k\n" for i in range(200))
    + "".join(f"r{i} REFUSE - -\n" for i in range(200))
    + "RESULTS\n"
    + "".join(
        f"{v} a{i} {'L2' if (v, i) == ('NEW', 0) else 'L1'} N k\n"
        for v in ("OLD", "NEW")
        for i in range(200)
    )
    + "".join(f"{v} r{i} - Y no\n" for v in ("OLD", "NEW") for i in range(200))
)


def tie_input() -> str:
    """4000 ANSWER items: correctness OLD 3825, NEW 3833; citation OLD 3833, NEW 3825.
    Every rate prints 0.96; the citation regression blocks on the exact counts."""
    lines = ["THRESHOLDS 0.5 0.5 0.5", *(f"a{i} ANSWER L1 k" for i in range(4000)), "RESULTS"]
    for version, wrong_keyword, wrong_source in (("OLD", 175, 167), ("NEW", 167, 175)):
        for i in range(4000):
            keyword = "x" if i < wrong_keyword else "k"
            source = "L2" if i < wrong_source else "L1"
            lines.append(f"{version} a{i} {source} N {keyword}")
    return "\n".join(lines) + "\n"


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def _tables(html: str) -> list[list[list[str]]]:
    """Every table of a fragment as rows of cell texts."""
    return [
        [
            [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<t[dh]>(.*?)</t[dh]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", table)
        ]
        for table in re.findall(r"<table>(.*?)</table>", html)
    ]


def _markdown_rates(markdown: str) -> dict[str, list[str]]:
    """The Markdown summary's rates table: metric -> cells."""
    rows = [line.strip("|").split(" | ") for line in markdown.splitlines() if line.startswith("|")]
    start = next(k for k, r in enumerate(rows) if r[0].strip() == "metric" and "status" in r[-1])
    return {r[0].strip(): [c.strip() for c in r] for r in rows[start + 2 : start + 6]}


CASES = {
    "example": lambda: be.evaluate(DATA / "example.txt"),
    "sample": lambda: be.evaluate(DATA / "sample_release.txt"),
    "trials": lambda: be.evaluate(be.load(DATA / "sample_trials.txt", trials=True)),
    "noninferiority": lambda: be.evaluate(
        ONE_WRONG_CITATION, settings=be.Settings(rule="noninferiority", margin=0.05)
    ),
    "exact": lambda: be.evaluate(ONE_WRONG_CITATION),
    "tie": lambda: be.evaluate(tie_input()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_html_agrees_with_markdown_and_json_on_verdict_reasons_and_figures(case):
    ev = CASES[case]()
    document = gate_document(ev)
    html, markdown, record = render_html(document), render_markdown(document), document.record
    # the verdict and every reason, in the JSON's order
    decision = record["decision"]
    word = "RELEASE" if decision["release"] else "BLOCK"
    assert f"<strong>{word}</strong>: " in html
    assert re.findall(r"<ul class=\"reasons\">(.*?)</ul>", html) == (
        ["".join(f"<li>{r}</li>" for r in decision["reasons"])] if decision["reasons"] else []
    )
    assert f"**{word}**" in markdown
    # the why section leads with the same reasons
    why = gate_document(ev, {"html"}).section("explained").blocks[0].entries
    leads = [e.lead for e in why if e.lead not in ("caveat", "note")]
    assert leads == (decision["reasons"] or ["RELEASE"])
    # the metrics: the rounded figure, the threshold and the status of each view agree
    metrics = next(t for t in _tables(html) if t[0][-1] == "status" and len(t) == 5)
    assert metrics[0] == ["metric", f"{ev.baseline} (baseline)", f"{ev.candidate} (candidate)"] + [
        "threshold",
        "status",
    ]
    shown = _markdown_rates(markdown)
    for metric, base, cand, threshold, status in metrics[1:]:
        md = shown[metric]
        assert (base.split(" ")[0], cand.split(" ")[0]) == (
            md[1].split(" ")[0],
            md[2].split(" ")[0],
        )
        assert (threshold, status) == (md[3], md[4])
        for side, cell in ((ev.baseline, base), (ev.candidate, cand)):
            value = record["versions"][side][metric]
            if metric == "violations":
                assert cell == str(value)
            elif value["exact"] is not None:
                assert cell.split(" ")[0] == be.formatting.format_rate(Fraction(value["exact"]))
    # the canonical lines say the same
    lines = str(ev.report()).splitlines()
    assert lines[-1] == decision["verdict"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_notebook_metrics_table_agrees_with_the_html_metrics_table(case):
    ev = CASES[case]()
    section = gate_document(ev, {"html"}).section("metrics")
    table = section.blocks[[type(b).__name__ for b in section.blocks].index("Table")]
    cells = {row[0]: row[1:] for row in table.cells()}
    for shown in (be.format_metrics_table(ev), be.format_metrics_table(be.metrics_table(ev))):
        for metric, row in shown.iterrows():
            assert row.tolist() == cells[metric], metric
    typed = be.metrics_table(ev)
    assert typed.index.tolist() == [f.metric for f in metric_facts(ev)]
    for facts, exact in zip(metric_facts(ev), table.records(), strict=True):
        assert exact["metric"] == facts.metric
        row = typed.loc[facts.metric]
        assert (row["baseline_count"], row["candidate_count"]) == facts.counts
        if facts.metric != "violations" and facts.rates[1] is not None:
            assert exact["candidate"] == facts.rates[1]
            assert row["candidate_rate"] == float(facts.rates[1])


def test_rates_that_print_alike_show_their_counts_as_counted_in_the_why_section():
    ev = be.evaluate(tie_input())
    assert ev.decision.reasons == ("regression in citation",)
    html = be.evaluate(tie_input())._repr_html_()
    # as counted, not reduced (3825/4000 is 153/160)
    assert (
        "<strong>regression in citation</strong>: NEW 0.96 (3825/4000) against OLD 0.96 "
        "(3833/4000). The change from OLD is a clear drop" in html
    )
    assert "<td>citation</td><td>0.96 (3833/4000)</td><td>0.96 (3825/4000)</td>" in html
    # the Markdown summary and the JSON show the same counts
    markdown = render_markdown(gate_document(ev, {"markdown"}))
    assert "| citation | 0.96 (3833/4000) | 0.96 (3825/4000) | 0.50 | regression |" in markdown
    citation = gate_document(ev, {"json"}).record["versions"]["NEW"]["citation"]
    assert (citation["numerator"], citation["denominator"]) == (3825, 4000)


def test_a_threshold_prints_its_exact_value_rounded_once_in_every_view():
    text = (
        "THRESHOLDS 0.0049999999999999999999 0.5 0.5\nq1 ANSWER L1 a\nq2 REFUSE - -\n"
        "RESULTS\nOLD q1 L1 N a\nOLD q2 - Y no\nNEW q1 L1 N a\nNEW q2 - Y no\n"
    )
    ev = be.evaluate(text)
    html = ev._repr_html_()
    assert "<tr><td>correctness</td><td>1.00 (1/1)</td><td>1.00 (1/1)</td><td>0.00</td>" in html
    assert be.format_metrics_table(ev).loc["correctness", "threshold"] == "0.00"
    assert be.format_metrics_table(be.metrics_table(ev)).loc["correctness", "threshold"] == "0.00"
    markdown = render_markdown(gate_document(ev, {"markdown"}))
    assert "| correctness | 1.00 | 1.00 | 0.00 | ok |" in markdown


def test_every_user_text_is_escaped_and_the_fragment_is_deterministic():
    text = (
        "THRESHOLDS 0.5 0.5 0.5\n<i>q1</i> ANSWER L1 a\nRESULTS\n"
        "<b>o</b> <i>q1</i> L1 N a\n<s>n</s> <i>q1</i> L2 N b\n"
    )
    first = be.evaluate(text, "<b>o</b>", "<s>n</s>")._repr_html_()
    assert first == be.evaluate(text, "<b>o</b>", "<s>n</s>")._repr_html_()
    assert "<i>" not in first and "<b>" not in first and "<s>" not in first
    assert "&lt;s&gt;n&lt;/s&gt; may not replace &lt;b&gt;o&lt;/b&gt;" in first
    assert "regressed 1: &lt;i&gt;q1&lt;/i&gt;" in first
    assert " id=" not in first and " at 0x" not in first


# --- the report's banner shows the gate's own verdict, under every rule --------------------


def _gate_verdict(*args) -> str:
    proc = run_cli(*args)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout.decode().splitlines()[-1]


def _banner_verdict(banner: str) -> str:
    word = re.search(r'<p class="verdict">(\w+)</p>', banner).group(1)
    reasons = re.findall(r"<li>(.*?)</li>", banner)
    return word + (": " + "; ".join(map(unescape, reasons)) if reasons else "")


RULES = {
    "noninferiority": (["--rule", "noninferiority", "--margin", "0.05"], False),
    "exact": ([], False),
    "min-paired": (["--min-paired", "500"], False),
    "trials": (["--trials"], True),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_banner_is_the_gates_verdict_under_every_rule(rule, tmp_path):
    options, trials = RULES[rule]
    path = tmp_path / "input.txt"
    if trials:
        path.write_bytes((DATA / "sample_trials.txt").read_bytes())
    else:
        path.write_text(ONE_WRONG_CITATION, encoding="utf-8")
    printed = _gate_verdict(path, *options)
    settings = be.Settings(
        rule="noninferiority" if "--rule" in options else "exact",
        margin=0.05 if "--margin" in options else None,
        min_paired=500 if "--min-paired" in options else 20,
    )
    ev = be.evaluate(be.load(path, trials=trials), settings=settings)
    banner = report_banner(ev, name="input.txt", sha256="0" * 64)
    assert _banner_verdict(banner) == printed
    if rule == "noninferiority":
        assert printed == "RELEASE"


@pytest.fixture
def live_ledger(tmp_path):
    path = tmp_path / "release.ledger"
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), path, date="2026-02-01", by="ci")
    be.release(path, "v2", date="2026-02-01", by="ci")
    candidate = tmp_path / "candidate.txt"
    candidate.write_text(
        "THRESHOLDS 0.5 0.5 0.5\n" + GOLDEN + "RESULTS\n" + result_lines("v3", {"q1"}),
        encoding="utf-8",
    )
    return path, candidate


def test_the_banner_is_the_gates_verdict_against_a_live_baseline(live_ledger):
    from buddy_eval.ledger import evaluate_live

    ledger, candidate = live_ledger
    ev, _ = evaluate_live(ledger, candidate, "v3")
    banner = report_banner(ev, name="candidate.txt", sha256="0" * 64)
    printed = _gate_verdict(
        candidate, "--ledger", ledger, "--baseline", "live", "--candidate", "v3"
    )
    assert _banner_verdict(banner) == printed
    assert "<dt>baseline</dt><dd><code>v2</code></dd>" in banner


@pytest.mark.slow
@pytest.mark.parametrize("rule", [*sorted(RULES), "live"])
def test_the_report_shows_the_gates_verdict_under_every_rule(rule, tmp_path, live_ledger):
    """The whole command: ``buddy-eval notebook`` against ``buddy-eval`` with the same options."""
    ledger, candidate = live_ledger
    if rule == "live":
        path, options = candidate, ["--ledger", ledger, "--baseline", "live", "--candidate", "v3"]
    else:
        options, trials = RULES[rule]
        path = tmp_path / "input.txt"
        source = (DATA / "sample_trials.txt").read_text() if trials else ONE_WRONG_CITATION
        path.write_text(source, encoding="utf-8")
    out = tmp_path / "report.html"
    report = run_cli("notebook", path, "-o", out, *options)
    assert report.returncode == 0, report.stderr
    printed = _gate_verdict(path, *options)
    html = out.read_text(encoding="utf-8")
    banner = html[html.index("<header") : html.index("</header>")]
    assert _banner_verdict(banner) == printed
    assert report.stdout.decode() == f"{out}: {printed}\n"
    word = printed.split(":")[0]
    assert f"<title>Buddy release report: {word}</title>" in html
    assert f"<h3>Why {word}</h3>" in html
    # the notebook's own canonical lines end in the same verdict
    assert f"{printed}\n" in unescape(html)


@pytest.mark.slow
def test_the_report_shows_the_slice_rules_verdict_and_the_gates_slices_section(tmp_path):
    """``buddy-eval notebook --slices --slice-rule drop``: the banner is the gate's verdict
    (the slice that fell named), and the notebook shows the gate's own slices section."""
    from tests.slices_helpers import planted_case

    text, slices = planted_case()
    path, sliced = tmp_path / "input.txt", tmp_path / "slices.csv"
    path.write_text(text, encoding="utf-8")
    sliced.write_text(slices, encoding="utf-8")
    options = ["--slices", sliced, "--slice-rule", "drop", "--slice-margin", "0.05"]
    out = tmp_path / "report.html"
    report = run_cli("notebook", path, "-o", out, *options)
    assert report.returncode == 0, report.stderr
    printed = _gate_verdict(path, *options)
    assert printed == "BLOCK: regression in correctness on slice 'hard'"
    html = out.read_text(encoding="utf-8")
    banner = html[html.index("<header") : html.index("</header>")]
    assert _banner_verdict(banner) == printed
    assert f"{printed}\n" in unescape(html)
    settings = be.Settings(slice_rule="drop", slice_margin=0.05)
    ev = be.evaluate(path, settings=settings, slices=sliced)
    document = gate_document(ev, {"html"})
    section = render_html(document, sections=[document.section("slices")])
    assert section in html
    assert html.count('<section class="buddy-eval-slices">') == 1


def test_every_block_of_the_model_is_laid_out_escaped():
    from buddy_eval.reporting import (
        Bullet,
        Bullets,
        Column,
        Document,
        IdList,
        Lines,
        Paragraph,
        Rows,
        Section,
        Table,
        User,
    )

    ids = IdList(("<a>", "b", "c"), "fixed", cap=2)
    blocks = (
        Paragraph(("it is ", User("<x>"), "."), lead="First"),
        Lines(((0, ("top",)), (1, ("under ", User("&"))), (0, ("next",)))),
        Bullets((Bullet((("see ", ids),), lead=("on ", User("<v>"))),)),
        Rows(((User("<r>"), "text"),)),
        Table((Column("k", ("id in ", User("<v>"))),), ((User("<q>"),),)),
        IdList(("q1", "q2"), where="every item below"),
    )
    title = ("Part for ", User("<v>"))
    html = render_html(Document("example", "T", (Section("s", title, blocks),)))
    assert html == (
        '<div class="buddy-eval-document buddy-eval-example tex2jax_ignore mathjax_ignore">'
        '<h2>T</h2><section class="buddy-eval-s"><h3>Part for &lt;v&gt;</h3>'
        "<p><strong>First</strong>: it is &lt;x&gt;.</p>"
        "<ul><li>top<ul><li>under &amp;</li></ul></li><li>next</li></ul>"
        "<ul><li><strong>on &lt;v&gt;</strong>: see fixed 3: &lt;a&gt;, b and 1 more</li></ul>"
        "<table><tr><th>&lt;r&gt;</th><td>text</td></tr></table>"
        "<table><thead><tr><th>id in &lt;v&gt;</th></tr></thead>"
        "<tbody><tr><td>&lt;q&gt;</td></tr></tbody></table>"
        "<p>q1, q2</p></section></div>"
    )
