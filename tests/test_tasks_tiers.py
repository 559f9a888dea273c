"""The tasks comparison per golden tier: figures against a plain-Python oracle, the views
agreeing with each other, and the reversal warning (Simpson's paradox) on planted cases."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buddy_eval import tasks
from buddy_eval.reporting import render_markdown, render_text, tasks_document
from buddy_eval.reporting._tasks_tiers import tier_records
from tests import oracle
from tests.test_snapshots import cli
from tests.test_tasks_support import EXAMPLE, check, record, task, write_json

TIERS = ("easy", "mid", "hard")
WORDS = ("ok", "yes")
MIN_PAIRED = 2


# --- the plain-Python oracle --------------------------------------------------------------


def _outcomes(golden_task: dict, rec: dict) -> list[bool | None]:
    """Each check: True pass, False fail, None unknown (contains and max_tokens only)."""
    out: list[bool | None] = []
    for c in golden_task["checks"]:
        if c["type"] == "contains":
            out.append(c["value"] in (rec["result_text"] or ""))
        else:
            tokens = rec["total_tokens"]
            out.append(None if tokens is None else tokens <= c["value"])
    return out


def _score(golden_task: dict, rec: dict | None):
    """(passed, measured) of a task's record; None without a record."""
    if rec is None:
        return None
    outcomes = _outcomes(golden_task, rec)
    return sum(o is True for o in outcomes), sum(o is not None for o in outcomes)


def _plain_mcnemar(fixed: int, regressed: int) -> float:
    n = fixed + regressed
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(fixed, regressed) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _plain_signed_rank(deltas: list[Fraction]) -> float:
    """Every sign assignment of the non-zero deltas, average ranks for ties."""
    values = [d for d in deltas if d != 0]
    if not values:
        return 1.0
    magnitudes = sorted(abs(v) for v in values)
    rank = {
        m: Fraction(sum(i + 1 for i, x in enumerate(magnitudes) if x == m), magnitudes.count(m))
        for m in magnitudes
    }
    ranks = [rank[abs(v)] for v in values]
    half = sum(ranks) / 2
    observed = abs(sum(r for r, v in zip(ranks, values, strict=True) if v > 0) - half)
    extreme = 0
    for signs in itertools.product((0, 1), repeat=len(ranks)):
        t = sum(r for r, s in zip(ranks, signs, strict=True) if s)
        extreme += abs(t - half) >= observed
    return extreme / 2 ** len(ranks)


def _mean(scores):
    return sum((Fraction(p, m) for p, m in scores), Fraction(0)) / len(scores) if scores else None


@st.composite
def tiered_runs(draw):
    """A few golden tasks in up to three tiers, contains and max_tokens checks, records in
    one run, both or neither (unknown checks when a record has no total_tokens)."""
    n = draw(st.integers(1, 14))
    golden, runs = [], {"a": [], "b": []}
    for k in range(n):
        checks = [check("contains", w) for w in draw(st.lists(st.sampled_from(WORDS), max_size=2))]
        if draw(st.booleans()) or not checks:
            checks.append(check("max_tokens", 100))
        golden.append(task(f"g{k}", *checks, tier=draw(st.sampled_from(TIERS))))
        for run in runs:
            if draw(st.integers(0, 5)) == 0:
                continue
            text = " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=2)))
            tokens = draw(st.sampled_from([None, 50, 500]))
            runs[run].append(record(f"{run}{k}", f"g{k}", text, tokens=tokens))
    # A run needs a record: one outside the golden set (excluded) when it has none.
    return golden, *(runs[run] or [record(f"{run}x", "stray")] for run in runs)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiered_runs())
def test_per_tier_figures_equal_the_plain_oracle(case):
    golden, run_a, run_b = case
    cmp = tasks.compare_runs(golden, run_a, run_b, min_n=MIN_PAIRED)
    names = list(dict.fromkeys(t["tier"] for t in golden))
    assert cmp.tiers.names == tuple(names)
    by_id = {t["id"]: t for t in golden}
    recs = [{r["golden_id"]: r for r in run} for run in (run_a, run_b)]
    raw: dict[str, list] = {"mean_score": [], "all_pass": []}
    for tier in cmp.tiers.tiers:
        members = [t["id"] for t in golden if t["tier"] == tier.name]
        assert tier.tasks == len(members)
        scores = [{i: _score(by_id[i], recs[j].get(i)) for i in members} for j in (0, 1)]
        for j in (0, 1):
            present = [s for s in scores[j].values() if s is not None]
            scored = [s for s in present if s[1] > 0]
            row = tier.run_summaries[j]
            assert row["n"] == len(present) and row["scored_n"] == len(scored)
            assert row["mean_score"] == _mean(scored)
            assert row["all_pass_n"] == sum(p == m for p, m in scored)
            rate = Fraction(row["all_pass_n"], len(scored)) if scored else None
            assert row["all_pass_rate"] == rate
        pairs = [
            (scores[0][i], scores[1][i])
            for i in members
            if scores[0][i] and scores[1][i] and scores[0][i][1] and scores[1][i][1]
        ]
        deltas = [Fraction(*b) - Fraction(*a) for a, b in pairs]
        fixed = sum(a[0] < a[1] and b[0] == b[1] for a, b in pairs)
        regressed = sum(a[0] == a[1] and b[0] < b[1] for a, b in pairs)
        ready = len(pairs) >= MIN_PAIRED
        mean_score, all_pass = tier["mean_score"], tier["all_pass"]
        assert tier.paired.n == mean_score.n_paired == all_pass.n_paired == len(pairs)
        assert all_pass.missing == len(members) - len(pairs)
        assert (mean_score.fixed, mean_score.regressed) == (
            sum(d > 0 for d in deltas),
            sum(d < 0 for d in deltas),
        )
        assert (all_pass.fixed, all_pass.regressed) == (fixed, regressed)
        assert mean_score.diff == (sum(deltas, Fraction(0)) / len(deltas) if deltas else None)
        assert all_pass.diff == (Fraction(fixed - regressed, len(pairs)) if pairs else None)
        assert mean_score.ready is all_pass.ready is ready
        if ready:
            assert mean_score.p_value == pytest.approx(_plain_signed_rank(deltas), rel=1e-12)
            assert all_pass.p_value == pytest.approx(_plain_mcnemar(fixed, regressed), rel=1e-9)
            assert all_pass.diff_ci is not None and mean_score.diff_ci is not None
        else:
            assert mean_score.p_value is all_pass.p_value is None
            assert mean_score.reading is all_pass.reading is None
        raw["mean_score"].append(mean_score.p_value)
        raw["all_pass"].append(all_pass.p_value)
    for metric, p_values in raw.items():
        got = [t[metric].p_value_holm_across_slices for t in cmp.tiers.tiers]
        for g, want in zip(got, oracle.holm(p_values), strict=True):
            assert (g is None) == (want is None)
            if want is not None:
                assert g == pytest.approx(want, rel=1e-12)


def test_one_tier_has_the_whole_runs_figures():
    golden = [task(f"g{k}", check("contains", "ok"), tier="only") for k in range(25)]
    run_a = [record(f"a{k}", f"g{k}", "ok" if k % 3 else "no") for k in range(25)]
    run_b = [record(f"b{k}", f"g{k}", "ok" if k % 4 else "no") for k in range(25)]
    cmp = tasks.compare_runs(golden, run_a, run_b)
    (only,) = cmp.tiers.tiers
    assert only.paired == cmp.paired
    assert only.run_summaries == cmp.run_summaries
    assert only["all_pass"].p_value == cmp.paired.mcnemar_p_value
    assert only["all_pass"].p_value_holm_across_slices == cmp.paired.mcnemar_p_value
    # One tier repeats the whole run: the text and the Markdown show no tier table.
    assert "Tiers" not in cmp.report() and "Tiers" not in cmp.markdown()
    assert list(cmp.to_dict()["slices"]) == ["only"]


# --- the views agree ----------------------------------------------------------------------


def _example():
    return tasks.compare_runs(EXAMPLE["golden"], EXAMPLE["a"], EXAMPLE["b"], "tutor-v1", "tutor-v2")


def test_the_tier_table_json_and_records_show_the_same_figures():
    cmp = _example()
    table = cmp.tier_table()
    slices = cmp.to_dict()["slices"]
    assert list(table.columns) == [
        "slice",
        "metric",
        "items",
        "n_paired",
        "fixed",
        "regressed",
        "missing",
        "baseline_rate",
        "candidate_rate",
        "diff",
        "p_value",
        "p_value_holm_across_slices",
        "ready_for_decision",
        "reading",
        "could_hide",
    ]
    assert table["slice"].astype(str).tolist() == [t for t in slices for _ in range(2)]
    for row, record_ in zip(table.itertuples(), tier_records(cmp), strict=True):
        figures = slices[row.slice]["comparison"][row.metric]
        assert slices[row.slice]["tasks"] == row.items == record_["items"]
        for key in ("n_paired", "fixed", "regressed", "missing"):
            assert figures[key] == getattr(row, key) == record_[key]
        assert figures["diff"] == pytest.approx(float(record_["diff"]))
        assert row.diff == pytest.approx(figures["diff"])
        assert figures["ready_for_decision"] is bool(row.ready_for_decision) is False
        assert row.reading == "too few items to tell"
    tier = slices["basic"]
    assert tier["runs"]["tutor-v1"]["mean_score"] == float(Fraction(181, 204))
    assert tier["paired"]["n"] == 15 and tier["comparison"]["all_pass"]["fixed"] == 3


def test_the_text_and_markdown_show_the_tier_table():
    cmp = _example()
    text = render_text(tasks_document(cmp, {"details"}))
    assert text.splitlines()[-7:] == [
        "slice     metric      paired  fixed  regressed  tutor-v1  tutor-v2  difference"
        "  Holm p (slices)  reading",
        "basic     mean_score  15      3      0          0.89      1.00      +0.06       -"
        "                too few items to tell",
        "basic     all_pass    15      3      0          0.76      1.00      +0.20       -"
        "                too few items to tell",
        "standard  mean_score  9       0      2          1.00      0.93      -0.07       -"
        "                too few items to tell",
        "standard  all_pass    9       0      2          1.00      0.80      -0.22       -"
        "                too few items to tell",
        "advanced  mean_score  1       0      1          1.00      0.75      -0.50       -"
        "                too few items to tell",
        "advanced  all_pass    1       0      1          1.00      0.50      -1.00       -"
        "                too few items to tell",
    ]
    markdown = render_markdown(tasks_document(cmp, {"markdown"}))
    assert "### Tiers" in markdown
    assert (
        "| basic | all_pass | 15 | 3 | 0 | 0.76 | 1.00 | +0.20 | - | too few items to tell |"
        in (markdown)
    )


# --- the reversal warning -----------------------------------------------------------------


def _reversal(hard_b_passes: bool):
    """Easy tasks: A passes all ten, B nine. Hard tasks (one max_tokens check): A passes two of
    ten; B's records lack total_tokens but one, so nine hard tasks leave B's denominator. The
    whole run rises (0.60 to 0.82) while both tiers fall, unless B's one hard task passes."""
    golden = [task(f"e{k}", check("contains", "ok"), tier="easy") for k in range(10)]
    golden += [task(f"h{k}", check("max_tokens", 100), tier="hard") for k in range(10)]
    run_a = [record(f"ae{k}", f"e{k}", "ok") for k in range(10)]
    run_a += [record(f"ah{k}", f"h{k}", tokens=50 if k < 2 else 500) for k in range(10)]
    run_b = [record(f"be{k}", f"e{k}", "ok" if k else "no") for k in range(10)]
    run_b += [record("bh0", "h0", tokens=50 if hard_b_passes else 500)]
    run_b += [record(f"bh{k}", f"h{k}", tokens=None) for k in range(1, 10)]
    return golden, run_a, run_b


REVERSAL_WARNINGS = [
    f"reversal in {metric}: the whole run rises while every measured tier falls (Simpson's "
    "paradox): unknown checks leave the denominator, so the tiers weigh differently in the "
    "two runs; read the tiers"
    for metric in ("mean_score", "all_pass")
]


def test_a_planted_reversal_warns_in_every_view_that_shows_warnings(tmp_path):
    golden, run_a, run_b = _reversal(hard_b_passes=False)
    cmp = tasks.compare_runs(golden, run_a, run_b)
    a, b = cmp.run_summaries
    assert (a["mean_score"], b["mean_score"]) == (Fraction(3, 5), Fraction(9, 11))
    easy, hard = cmp.tiers.tiers
    assert easy.run_summaries[1]["mean_score"] < easy.run_summaries[0]["mean_score"]
    assert hard.run_summaries[1]["mean_score"] < hard.run_summaries[0]["mean_score"]
    assert cmp.tiers.reversals == ("mean_score", "all_pass")
    assert list(cmp.warnings) == REVERSAL_WARNINGS
    assert cmp.to_dict()["warnings"] == REVERSAL_WARNINGS
    assert "### 2 warnings" in cmp.markdown()
    for name, value in zip(("g.json", "a.json", "b.json"), (golden, run_a, run_b), strict=True):
        write_json(tmp_path / name, value)
    inputs = ["tasks", "--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json"]
    status, _, err = cli(*inputs, cwd=tmp_path, tmp=(tmp_path,))
    assert status == 0
    assert err.decode().splitlines() == [f"buddy-eval: warning: {w}" for w in REVERSAL_WARNINGS]
    status, out, err = cli(*inputs, "--format", "json", cwd=tmp_path, tmp=(tmp_path,))
    assert (status, err) == (0, b"")
    assert json.loads(out)["warnings"] == REVERSAL_WARNINGS


def test_no_reversal_when_a_tier_moves_with_the_whole_run():
    cmp = tasks.compare_runs(*_reversal(hard_b_passes=True))
    hard = cmp.tiers["hard"]
    assert hard.run_summaries[1]["mean_score"] > hard.run_summaries[0]["mean_score"]
    assert cmp.tiers.reversals == ()
    assert cmp.warnings == ()


def test_no_reversal_in_the_bundled_example():
    assert _example().tiers.reversals == ()
