"""Repeated-trials intervals: never zero width, the single-trial ones with one trial per item.

The reference values are computed here in plain Python from the published
formulas (Wilson 1927; Newcombe 1998, method 10) and, for one trial per
item, every 2x2 table up to 12 items is enumerated. The verdict checks run
the gate on the same evidence with and without a duplicated agreeing line.
"""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval.formatting import format_diff, format_trial_plan
from buddy_eval.reporting import details
from buddy_eval.reporting import json_record as json_report
from buddy_eval.stats import (
    TrialPlan,
    paired_diff_interval,
    paired_rates_interval,
    rate_interval,
    wilson_interval,
)
from buddy_eval.stats import _repeated as repeated

Z95 = statistics.NormalDist().inv_cdf(0.975)


def _wilson(p: Fraction, n: int, z: float) -> tuple[float, float]:
    """Wilson's score interval of an observed share p over n units, from the formula."""
    p = float(p)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _newcombe(base: list[Fraction], cand: list[Fraction], z: float) -> tuple[float, float]:
    """Newcombe's method 10 on the fractional 2x2 table of the item rates (a = sum of minima)."""
    n = len(base)
    sx, sy = sum(base), sum(cand)
    sxy = sum(min(x, y) for x, y in zip(base, cand, strict=True))
    p1, p2 = sy / n, sx / n
    l1, u1 = _wilson(p1, n, z)
    l2, u2 = _wilson(p2, n, z)
    cross = n * sxy - sx * sy
    margins = sy * (n - sy) * sx * (n - sx)
    if margins == 0 or 0 <= cross <= Fraction(n, 2):
        phi = 0.0
    elif cross > Fraction(n, 2):
        phi = float(cross - Fraction(n, 2)) / math.sqrt(margins)
    else:
        phi = float(cross) / math.sqrt(margins)
    d = float(p1) - float(p2)
    a1, b1 = float(p1) - l1, u1 - float(p1)
    a2, b2 = float(p2) - l2, u2 - float(p2)
    low = d - math.sqrt(max(0.0, a1 * a1 - 2 * phi * a1 * b2 + b2 * b2))
    high = d + math.sqrt(max(0.0, b1 * b1 - 2 * phi * b1 * a2 + a2 * a2))
    return max(-1.0, low), min(1.0, high)


@pytest.mark.parametrize("n", range(1, 13))
def test_one_trial_per_item_is_exactly_the_single_trial_newcombe_interval(n):
    for a in range(n + 1):
        for b in range(n + 1 - a):
            for c in range(n + 1 - a - b):
                d = n - a - b - c
                base = [1] * a + [0] * b + [1] * c + [0] * d
                cand = [1] * a + [1] * b + [0] * c + [0] * d
                for confidence in (0.95, 0.9):
                    got = paired_rates_interval(base, cand, confidence)
                    assert got == paired_diff_interval(a, b, c, d, confidence)
                    assert got[0] < got[1]
                assert got == pytest.approx(
                    _newcombe(
                        [Fraction(x) for x in base],
                        [Fraction(y) for y in cand],
                        statistics.NormalDist().inv_cdf(0.95),
                    ),
                    abs=1e-12,
                )
                assert rate_interval(cand) == wilson_interval(a + b, n)


item_trials = st.lists(
    st.tuples(st.integers(1, 6), st.integers(0, 6), st.integers(1, 6), st.integers(0, 6)),
    min_size=1,
    max_size=40,
)


def _rates(items):
    base = [Fraction(min(kb, nb), nb) for nb, kb, _, _ in items]
    cand = [Fraction(min(kc, nc), nc) for _, _, nc, kc in items]
    return base, cand


@settings(max_examples=300, deadline=None)
@given(item_trials, st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_item_rate_intervals_are_never_zero_width_and_match_the_formulas(items, confidence):
    base, cand = _rates(items)
    z = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    low, high = paired_rates_interval(base, cand, confidence)
    assert -1 <= low < high <= 1
    mean_diff = (sum(cand) - sum(base)) / len(base)
    assert low <= mean_diff <= high
    assert (low, high) == pytest.approx(_newcombe(base, cand, z), abs=1e-12)
    for rates in (base, cand):
        r_low, r_high = rate_interval(rates, confidence)
        assert 0 <= r_low < r_high <= 1
        assert r_low <= sum(rates) / len(rates) <= r_high
        assert (r_low, r_high) == pytest.approx(_wilson(sum(rates) / len(rates), len(rates), z))


def test_items_that_all_agree_give_an_honest_interval():
    # 25 items passing every trial in both versions: the single-trial Newcombe bound, not 0.
    low, high = paired_rates_interval([1] * 25, [1] * 25)
    assert (low, high) == paired_diff_interval(25, 0, 0, 0)
    assert round(low, 4) == -0.1332 and high == -low
    assert rate_interval([Fraction(3, 5)] * 7) == pytest.approx(_wilson(Fraction(3, 5), 7, Z95))
    assert all(math.isnan(x) for x in rate_interval([]))
    assert all(math.isnan(x) for x in paired_rates_interval([], []))


def test_mismatched_or_bad_rates_are_refused():
    with pytest.raises(be.InputError, match="pair the same items, got 2 and 1"):
        paired_rates_interval([0, 1], [1])
    for bad in ([1.5], [-0.1], [math.nan], ["0.5"], [True]):
        with pytest.raises(be.InputError, match="rates in \\[0, 1\\]"):
            rate_interval(bad)


def _input(outcomes: list[tuple[bool, bool]], extra: str = "") -> str:
    lines = ["THRESHOLDS 0 0 0"]
    lines += [f"q{i} ANSWER L1 key" for i in range(len(outcomes))]
    lines.append("RESULTS")
    for i, (old, new) in enumerate(outcomes):
        lines.append(f"OLD q{i} L1 N {'key' if old else 'no'}")
        lines.append(f"NEW q{i} L1 N {'key' if new else 'no'}")
    return "\n".join(lines) + "\n" + extra


def _verdict(text: str, trials: bool, margin: float) -> str:
    rule = be.Settings(margin=margin, rule="noninferiority")
    return be.evaluate(text, settings=rule, trials=trials).report().splitlines()[-1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=45),
    st.data(),
    st.sampled_from([0.0, 0.02, 0.05, 0.1]),
)
def test_one_duplicated_agreeing_line_never_changes_the_noninferiority_verdict(
    outcomes, data, margin
):
    text = _input(outcomes)
    i = data.draw(st.integers(0, len(outcomes) - 1))
    version = data.draw(st.sampled_from(["OLD", "NEW"]))
    passed = outcomes[i][0 if version == "OLD" else 1]
    duplicate = f"{version} q{i} L1 N {'key' if passed else 'no'}\n"
    assert _verdict(text + duplicate, True, margin) == _verdict(text, False, margin)


def test_the_reported_case_blocks_with_and_without_the_duplicate(tmp_path):
    # 25 items that all pass: no evidence of non-inferiority within 0.02 either way.
    text = _input([(True, True)] * 25)
    for content, trials in ((text, False), (text + "NEW q3 L1 N key\n", True)):
        ev = be.evaluate(
            content, settings=be.Settings(margin=0.02, rule="noninferiority"), trials=trials
        )
        assert ev.report().splitlines()[-1] == (
            "BLOCK: regression in correctness beyond margin 0.02; "
            "regression in citation beyond margin 0.02"
        )
        m = ev.paired["correctness"]
        assert m.noninferior is False
        assert round(m.noninferiority_bound, 3) == -0.098  # the single-trial Newcombe bound
        assert "observed     OLD 1.00 [0.87, 1.00] n=25" in details(ev)


def test_one_item_gets_the_wilson_interval_of_one_observation():
    text = _input([(True, False)], "OLD q0 L1 N no\nNEW q0 L1 N key\n")
    ev = be.evaluate(text, trials=True)
    m = ev.paired["correctness"]
    assert m.baseline.ci == _wilson(Fraction(1, 2), 1, Z95) != (0.0, 1.0)
    assert m.diff_ci is None  # one item is not ready: no interval, no p-value
    block = json_report(ev)["comparison"]["correctness"]
    assert block["diff_ci"] is None and block["ready_for_decision"] is False
    assert "difference   0.00 (NEW - OLD, paired; no interval)" in details(ev)


def test_the_within_item_share_is_exact_and_rounded_half_up():
    # Three items of six trials passing 0, 1 and 2 times: the within share is exactly 39/40.
    lines = [
        "THRESHOLDS 0 0 0",
        "q0 ANSWER L1 key",
        "q1 ANSWER L1 key",
        "q2 ANSWER L1 key",
        "RESULTS",
    ]
    for i, passes in enumerate((0, 1, 2)):
        for version in ("OLD", "NEW"):
            lines += [f"{version} q{i} L1 N key"] * passes
            lines += [f"{version} q{i} L1 N no"] * (6 - passes)
    ev = be.evaluate("\n".join(lines) + "\n", trials=True)
    trials = ev.paired["correctness"].trials
    assert trials.candidate.within_share == Fraction(39, 40)  # 0.975 as a float is below it
    assert "within items: OLD 98%, NEW 98% of the trial-to-trial variance" in details(ev)
    block = json_report(ev)["comparison"]["correctness"]["trials"]
    assert block["candidate"]["within_item_variance_share_exact"] == "39/40"


def test_the_next_line_uses_the_harmonic_mean_and_rounds_half_up():
    plan = TrialPlan(0.09, 0.0625, 0.08, "more items")
    assert format_trial_plan(plan, "NEW") == (
        "doubling items narrows the interval more than doubling trials "
        "(SE of NEW's mean rate 0.063 vs 0.080)"
    )
    # Items of 1 and 3 trials: the harmonic mean is 1.5, not the arithmetic 2.
    lines = ["THRESHOLDS 0 0 0", *[f"q{i} ANSWER L1 key" for i in range(4)], "RESULTS"]
    for i, trials in enumerate(([1], [1, 0, 0], [0], [1, 1, 0])):
        for version in ("OLD", "NEW"):
            lines += [f"{version} q{i} L1 N {'key' if t else 'no'}" for t in trials]
    ev = be.evaluate("\n".join(lines) + "\n", trials=True)
    c = ev.paired["correctness"].trials.candidate
    assert c.trials_per_item == 1.5
    plan = ev.paired["correctness"].trials.plan
    assert plan == repeated.more_trials_or_items(c.within, c.between, 4, 1.5)


def test_the_reading_names_the_normal_approximation(monkeypatch):
    monkeypatch.setattr(repeated, "ITEM_FLIP_EXACT_MAX_CELLS", 0)
    monkeypatch.setattr(repeated, "ITEM_FLIP_MEET_MAX", 0)
    lines = ["THRESHOLDS 0 0 0", *[f"q{i} ANSWER L1 key" for i in range(30)], "RESULTS"]
    for i in range(30):
        lines += [f"OLD q{i} L1 N key", f"OLD q{i} L1 N no"]
        lines += [f"NEW q{i} L1 N key"] * 2
    ev = be.evaluate("\n".join(lines) + "\n", trials=True)
    m = ev.paired["correctness"]
    assert m.trials.test_method == "normal approximation, no continuity correction"
    assert m.reading[1].endswith("(p from the normal approximation to the sign-flip test)")


def test_the_sample_size_line_names_the_discordance_it_used():
    ev = be.evaluate(_input([(True, True)] * 25))
    m = ev.paired["correctness"]
    assert (m.observed_discordance, m.assumed_discordance) == (0.0, 0.05)
    assert (
        "assuming 5% of items discordant (none observed; the drop is the least discordance "
        "that can show it)"
    ) in details(ev)
    block = json_report(ev)["comparison"]["correctness"]
    assert block["required_n_assumed_discordance"] == 0.05
    assert block["required_n_observed_discordance"] == 0.0
    # Observed discordance at or above the drop is used as observed.
    ev = be.evaluate(_input([(True, False)] * 3 + [(True, True)] * 22))
    assert ev.paired["correctness"].assumed_discordance == 3 / 25
    assert "(as observed)" in details(ev)


def test_a_tiny_tasks_delta_never_prints_as_zero():
    assert format_diff(Fraction(-1, 12180), 3) == "-0.0001"
    assert format_diff(Fraction(1, 3000), 3) == "+0.0003"


def test_one_trial_per_item_reads_in_the_singular_and_zero_variance_still_has_a_next_line():
    text = _input([(True, True)] * 3)
    mixed = text + "OLD q0 L1 N key\nNEW q0 L1 N no\n"  # q0 has 2 trials, the others 1
    lines = details(be.evaluate(mixed, trials=True)).splitlines()
    assert any(line.endswith("(at least one of 1 trial passes)") for line in lines)
    assert any(line.endswith("(the one trial passes)") for line in lines)
    # Every trial of every item agrees: no variance to split (no two-stage plan), but the
    # interval has a width, and the "next" line says that only more items narrow it.
    doubled = text + "".join(f"OLD q{i} L1 N key\nNEW q{i} L1 N key\n" for i in range(3))
    ev = be.evaluate(doubled, trials=True)
    assert ev.paired["correctness"].trials.plan is None
    lines = [x for x in details(ev).splitlines() if x.lstrip().startswith("next")]
    assert len(lines) == 2  # correctness and citation
    assert lines[0] == (
        "  next         NEW's interval, 0.561 wide, would be about 0.390 with twice the items; "
        "twice the trials would not change it (fewer than 50 items: the interval is the "
        "variance bound over the items, which only more items narrow)"
    )
