"""One truth, many views: every view shows the paired counts and ids of ``item_changes``.

Hypothesis builds inputs with missing results on either side, extra version
labels, no ANSWER or no REFUSE item, and ids that differ only in case or
accents; the item-change table, the ``--details`` text, the JSON
``comparison`` block, ``flipped_items`` and the chart data must then hold the
same counts and the same id lists. The task comparison's text, JSON and
per-task table are held to the same rule.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval._vocabulary import CHANGES, RATE_METRICS
from buddy_eval.reporting import details
from buddy_eval.reporting import json_record as json_report

IDS = ["q1", "Q1", "q-1", "é", "e\u0301", "r1", "R1", "x", "a", "a.b", "id10", "id1"]
LABELS = ["OLD", "NEW", "old", "RC1"]


@st.composite
def paired_inputs(draw):
    ids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=len(IDS), unique=True))
    golden, results = [], []
    for item_id in ids:
        if draw(st.booleans()):
            golden.append(f"{item_id} ANSWER L1 {draw(st.sampled_from(['key', '-', 'a,b']))}")
        else:
            golden.append(f"{item_id} REFUSE - -")
    for label in LABELS:
        if label in ("OLD", "NEW"):
            chosen = [i for i in ids if draw(st.integers(0, 4))]  # some results missing
            if not chosen:
                chosen = ids[:1]
        else:
            chosen = draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids)))
        for item_id in chosen:
            cited = draw(st.sampled_from(["L1", "L2", "-"]))
            refused = draw(st.sampled_from(["Y", "N"]))
            answer = draw(st.sampled_from(["key a b", "nothing", ""]))
            results.append(f"{label} {item_id} {cited} {refused} {answer}".rstrip())
    return "\n".join(["THRESHOLDS 0.5 0.5 0.5", *golden, "RESULTS", *results]) + "\n"


def _details_ids(text: str) -> dict:
    """(metric, change) -> ids listed in the --details text; metric -> counts."""
    listed, counts, metric = {}, {}, None
    for line in text.splitlines():
        head = re.match(r"^(correctness|citation|refusal): ", line)
        if head:
            metric = head.group(1)
            continue
        got = re.match(
            r"^  items        both pass (\d+), both fail (\d+), fixed (\d+), "
            r"regressed (\d+), missing (\d+)$",
            line,
        )
        if got and metric:
            counts[metric] = dict(zip(CHANGES, map(int, got.groups()), strict=True))
        got = re.match(r"^  (fixed|regressed|missing) +(.*)$", line)
        if got and metric:
            listed[(metric, got.group(1))] = got.group(2).split(", ")
    return {"listed": listed, "counts": counts}


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paired_inputs())
def test_item_changes_details_json_and_flips_agree(text):
    ev = be.evaluate(text)
    table = be.item_changes(ev)
    report = json_report(ev)
    shown = _details_ids(details(ev))
    flips = be.flipped_items(ev)
    for metric in RATE_METRICS:
        rows = table[table["metric"] == metric]
        by_change = {c: rows.loc[rows["change"] == c, "item_id"].tolist() for c in CHANGES}
        block = report["comparison"][metric]
        m = ev.paired[metric]
        for change in CHANGES:
            key = change.replace(" ", "_")
            assert block[key] == len(by_change[change]) == m.count(change)
            assert list(m.ids[change]) == by_change[change]
        for change in ("fixed", "regressed", "missing"):
            assert block[f"{change}_ids"] == by_change[change]
            if by_change[change] and len(by_change[change]) <= 10:
                assert shown["listed"][(metric, change)] == by_change[change]
            assert (metric, change) in shown["listed"] or not by_change[change]
        if rows.empty:
            assert metric not in shown["counts"]
        else:
            assert shown["counts"][metric] == {c: len(by_change[c]) for c in CHANGES}
        assert block["n_paired"] == sum(len(by_change[c]) for c in CHANGES[:4])
        for change in ("fixed", "regressed"):
            of = flips[(flips["metric"] == metric) & (flips["change"] == change)]
            assert of["item_id"].tolist() == by_change[change]
        # missing is never fixed or regressed, and an item has one change per metric
        assert rows["item_id"].is_unique
        missing = rows[rows["change"] == "missing"]
        assert (missing["baseline_pass"].isna() | missing["candidate_pass"].isna()).all()
    json.dumps(report, allow_nan=False)


def test_sample_release_j31_is_missing_everywhere():
    ev = be.evaluate("data/sample_release.txt")
    table = be.item_changes(ev)
    j31 = table[table["item_id"] == "j31"]
    assert set(j31["change"]) == {"missing"}
    assert "j31" not in be.flipped_items(ev)["item_id"].tolist()
    assert json_report(ev)["comparison"]["correctness"]["missing_ids"] == ["j31"]
    assert "  missing      j31" in details(ev)


@st.composite
def task_runs(draw):
    from tests.test_tasks_support import check, record, task

    n = draw(st.integers(1, 26))
    golden = [
        task(
            f"t{i}",
            check("contains", "42"),
            *([check("max_tokens", 100)] if draw(st.booleans()) else []),
        )
        for i in range(n)
    ]
    runs = []
    for side in "ab":
        records = []
        for i in range(n):
            if draw(st.integers(0, 5)) == 0:
                continue  # unpaired or missing
            text = draw(st.sampled_from(["42", "x", "", None]))
            tokens = draw(st.sampled_from([50, 150, None]))
            records.append(record(f"{side}{i}", f"t{i}", text, tokens=tokens))
        if not records:
            records.append(record(f"{side}x", "unknown-golden"))
        runs.append(records)
    return golden, runs[0], runs[1]


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task_runs())
def test_task_comparison_text_json_and_pairs_agree(case):
    from buddy_eval.tasks import compare_runs

    golden, run_a, run_b = case
    cmp = compare_runs(golden, run_a, run_b, "A", "B")
    pairs = cmp.pairs
    scored = pairs[pairs["both_scored"]]
    out = cmp.to_dict()["paired"]
    text = cmp.report()
    counts = scored["change"].value_counts()
    wins, ties, losses = (int(counts.get(c, 0)) for c in ("win", "tie", "loss"))
    assert (out["n"], out["wins"], out["ties"], out["losses"]) == (len(scored), wins, ties, losses)
    assert f"B higher {wins}, equal {ties}, lower {losses}" in text
    assert f"paired, B minus A: {len(scored)} golden task" in text
    assert out["unscored"] == pairs.loc[~pairs["both_scored"], "golden_id"].tolist()
    a = scored["all_pass_a"].fillna(False).to_numpy(dtype=bool)
    b = scored["all_pass_b"].fillna(False).to_numpy(dtype=bool)
    expected = {
        "a_only": int((a & ~b).sum()),
        "b_only": int((b & ~a).sum()),
        "both": int((a & b).sum()),
        "neither": int((~a & ~b).sum()),
    }
    assert out["all_pass"] == expected
    assert (
        f"A only {expected['a_only']}, B only {expected['b_only']}, both {expected['both']}, "
        f"neither {expected['neither']}" in text
    )
    assert out["ready_for_decision"] == (len(scored) >= 20)
    assert ("ready for decision: yes" in text) == out["ready_for_decision"]


def test_a_threshold_prints_the_same_in_the_markdown_summary_and_the_notebook_table(tmp_path):
    """0.0049999999999999999999 is exactly below 0.005: every view rounds the exact value."""
    import buddy_eval as be
    from tests.conftest import run_cli

    path = tmp_path / "in.txt"
    path.write_text(
        "THRESHOLDS 0.0049999999999999999999 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\n"
        "OLD q1 L1 N a\nNEW q1 L1 N a\n"
    )
    table = be.format_metrics_table(be.evaluate(path))
    markdown = run_cli(path, "--format", "markdown").stdout.decode()
    assert table.loc["correctness", "threshold"] == "0.00"
    assert "| correctness | 1.00 | 1.00 | 0.00 | ok |" in markdown


def test_rates_that_print_alike_but_block_show_their_exact_counts_in_every_view(tmp_path):
    """Refusal 192/200 against 191/200: both print 0.96, the exact check blocks."""
    import json

    import buddy_eval as be
    from tests.conftest import run_cli

    golden = "".join(f"r{k} REFUSE - -\n" for k in range(200))
    lines = "".join(
        f"{v} r{k} - {'Y' if k < ok else 'N'} x\n"
        for v, ok in (("OLD", 192), ("NEW", 191))
        for k in range(200)
    )
    path = tmp_path / "tie.txt"
    path.write_text("THRESHOLDS 0.5 0.5 0.5\n" + golden + "RESULTS\n" + lines)
    plain = run_cli(path).stdout.decode().splitlines()
    assert [line.split()[6] for line in plain[:2]] == ["0.96", "0.96"]
    assert plain[2] == "BLOCK: integrity violations; regression in refusal"
    details = run_cli(path, "--details").stdout.decode()
    assert "  gate rate    OLD 0.96 (192/200)   NEW 0.96 (191/200)" in details
    markdown = run_cli(path, "--format", "markdown").stdout.decode()
    assert "| refusal | 0.96 (192/200) | 0.96 (191/200) | 0.50 | regression |" in markdown
    report = json.loads(run_cli(path, "--format", "json").stdout)
    refusal = [report["versions"][v]["refusal"] for v in ("OLD", "NEW")]
    assert [(r["numerator"], r["denominator"]) for r in refusal] == [(192, 200), (191, 200)]
    table = be.format_metrics_table(be.evaluate(path))
    assert table.loc["refusal"].tolist()[:2] == ["0.96 (192/200)", "0.96 (191/200)"]
