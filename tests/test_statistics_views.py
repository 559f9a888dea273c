"""What users read of the statistics: honest about missing data, never contradicting itself."""

from __future__ import annotations

import json

import buddy_eval as be
from buddy_eval.reporting import details
from buddy_eval.reporting import json_record as json_report
from buddy_eval.stats import DEFAULT_DISCORDANCE, mcnemar_exact_power
from buddy_eval.tasks import compare_runs
from tests.test_tasks_support import check, record, task


def build(answers, refuse_old, refuse_new=None):
    """ANSWER items with (old_ok, new_ok) pairs; REFUSE items with OLD/NEW flags (None: missing)."""
    lines = ["THRESHOLDS 0 0 0"]
    lines += [f"a{i:03d} ANSWER L1 key" for i in range(len(answers))]
    lines += [f"r{i:03d} REFUSE - -" for i in range(len(refuse_old))]
    lines.append("RESULTS")
    for i, (old, new) in enumerate(answers):
        lines.append(f"OLD a{i:03d} L1 N {'key' if old else 'no'}")
        lines.append(f"NEW a{i:03d} L1 N {'key' if new else 'no'}")
    for i, flag in enumerate(refuse_old):
        lines.append(f"OLD r{i:03d} - {flag} text")
    for i, flag in enumerate(refuse_new or []):
        if flag is not None:
            lines.append(f"NEW r{i:03d} - {flag} text")
    return "\n".join(lines) + "\n"


def test_tasks_signed_rank_is_exact_with_ties_and_zeros():
    golden = [task(f"t{i}", check("contains", "ok")) for i in range(25)]
    run_a = [record(f"a{i}", f"t{i}", "ok" if i >= 5 else "no") for i in range(25)]
    run_b = [record(f"b{i}", f"t{i}", "ok") for i in range(25)]
    p = compare_runs(golden, run_a, run_b).paired
    assert (p.wins, p.ties, p.losses) == (5, 20, 0)
    assert p.p_value == 0.0625  # 2 / 2**5: not the normal approximation's 0.0253
    assert p.p_value_method == "exact (sign-flip enumeration)"
    assert p.sign_test_p_value == 0.0625
    out = compare_runs(golden, run_a, run_b).report()
    assert "Wilcoxon signed-rank p = 0.063 (exact (sign-flip enumeration)" in out


def test_a_version_with_no_refuse_result_gets_no_interval():
    text = build([(True, True)] * 20, ["Y"] * 5, [None] * 5)
    ev = be.evaluate(text)
    refusal = ev.paired["refusal"]
    assert (refusal.candidate.observed, refusal.candidate.missing) == (0, 5)
    assert "NEW no result (5 missing: no interval)" in details(ev)
    assert (
        "[0.00, 0.16]"
        not in details(ev)
        .split("refusal:")[1]
        .split("violations:")[0]
        .split("observed")[1]
        .split("\n")[0]
        .split("NEW")[1]
    )
    block = json_report(ev)["versions"]["NEW"]["refusal"]
    assert block["ci"] is None and block["observed"] == 0
    assert "  NEW          no result for any REFUSE item" in details(ev)


def test_sensitivity_shows_whether_missing_items_could_change_the_reading():
    text = build([(True, True)] * 18 + [(True, False)] * 3, ["Y"], ["Y"])
    text = text.replace("NEW a000 L1 N key\n", "")
    ev = be.evaluate(text)
    m = ev.paired["correctness"]
    assert m.missing == 1 and m.table.n == 20
    worst = m.sensitivity["regressed"]
    assert (worst.table.regressed, worst.table.n) == (4, 21)
    assert worst.p_value == 0.125
    out = details(ev)
    assert "  sensitivity  missing as regressed: -0.19 [" in out
    assert "               missing as unchanged: -0.14 [" in out
    sens = json_report(ev)["comparison"]["correctness"]["sensitivity"]
    assert sens["missing_as_regressed"]["regressed"] == 4
    assert sens["missing_as_unchanged"]["both_fail"] == 1


def test_every_reading_agrees_with_the_exact_test_beside_it():
    for regressed in range(0, 9):
        ev = be.evaluate(build([(True, True)] * 20 + [(True, False)] * regressed, ["Y"], ["Y"]))
        m = ev.paired["correctness"]
        code, words = m.reading
        if code == "drop":
            assert m.p_value < 0.05 and m.diff_ci[1] < 0
        if m.diff_ci[1] < 0 and m.p_value >= 0.05:
            assert code == "borderline" and words.startswith("borderline")
        assert f"  reading      {words}" in details(ev)


def test_holm_adjusted_p_values_in_text_and_json():
    ev = be.evaluate("data/sample_release.txt")
    report = json_report(ev)["comparison"]
    assert report["correctness"]["p_value_holm"] == report["citation"]["p_value_holm"] == 0.90625
    assert report["refusal"]["p_value_holm"] is None
    assert "Holm-adjusted p = 0.906" in details(ev)


def test_sample_size_states_its_assumption_and_reaches_its_power():
    ev = be.evaluate("data/sample_release.txt")
    refusal = ev.paired["refusal"]  # 9 pairs: not ready, so the default discordance
    assert refusal.assumed_discordance == DEFAULT_DISCORDANCE
    out = details(ev)
    assert "assuming 30% of items discordant (a conservative default while not ready)" in out
    n, d = refusal.required_n, DEFAULT_DISCORDANCE
    assert mcnemar_exact_power(n, (d - 0.05) / 2, (d + 0.05) / 2) >= 0.80
    assert mcnemar_exact_power(n - 1, (d - 0.05) / 2, (d + 0.05) / 2) < 0.80


def test_both_versions_get_a_violation_bound():
    ev = be.evaluate("data/sample_release.txt")
    out = details(ev)
    assert "  OLD          1 of 10 REFUSE items with a result" in out
    assert "  NEW          1 of 9 REFUSE items with a result" in out
    bounds = json_report(ev)["violation_upper_bounds"]
    assert set(bounds) == {"OLD", "NEW"}


def test_noninferiority_rule_names_the_margin_and_keeps_the_default_output():
    default = be.evaluate("data/sample_release.txt")
    rule = be.evaluate(
        "data/sample_release.txt", settings=be.Settings(margin=0.02, rule="noninferiority")
    )
    assert default.report().splitlines()[:2] == rule.report().splitlines()[:2]
    assert "regression in citation beyond margin 0.02" in rule.decision.reasons
    loose = be.evaluate(
        "data/sample_release.txt", settings=be.Settings(margin=0.5, rule="noninferiority")
    )
    assert loose.decision.reasons == ("refusal below threshold", "integrity violations")
    report = json.loads(json.dumps(json_report(rule)))
    assert report["settings"]["rule"] == "noninferiority"
    assert report["comparison"]["citation"]["noninferiority"]["noninferior"] is False
