"""Repeated-trials intervals at the effective size: formulas, degenerate cases, views, properties.

The reference values are computed here in plain Python from the published
formulas (Wilson 1927; Newcombe 1998, method 10; Korn and Graubard 1998),
and with one trial per item against the exact single-trial intervals. The
properties (coverage, type-I error, power) are checked by a seeded
simulation through the gate's own interval functions, in the slow lane.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval.reporting import details
from buddy_eval.reporting import json_record as json_report
from buddy_eval.stats import (
    BOUND_DIFF_METHOD,
    BOUND_RATE_METHOD,
    EFFECTIVE_DIFF_METHOD,
    EFFECTIVE_MIN_ITEMS,
    EFFECTIVE_RATE_METHOD,
    interval_outlook,
    paired_diff_interval,
    paired_trials_interval,
    trials_rate_interval,
    wilson_interval,
)

Z95 = statistics.NormalDist().inv_cdf(0.975)


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _t_quantile(q: float, df: int) -> float:
    """Student's t quantile by bisection on the regularized incomplete beta (no scipy)."""

    def cdf(x: float) -> float:
        # P(T <= x) by Simpson integration of the density, fine for df >= 10 and |x| < 5.
        c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
        steps = 2000
        h = x / steps
        total = 0.0
        for i in range(steps + 1):
            t = i * h
            w = 1 if i in (0, steps) else (4 if i % 2 else 2)
            total += w * c * (1 + t * t / df) ** (-(df + 1) / 2)
        return 0.5 + total * h / 3

    low, high = 0.0, 10.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) < q else (low, mid)
    return (low + high) / 2


def _rates(items):
    return [k / n for n, k in items]


def _reference_rate(items, confidence=0.95):
    """Wilson at the clipped Korn-Graubard effective size, from the formula."""
    m = len(items)
    z = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    rates = _rates(items)
    p = sum(rates) / m
    s2 = statistics.variance(rates) if m > 1 else 0.0
    n = m
    if m >= 50 and 0 < p < 1 and s2 > 0 and min(p, 1 - p) * m >= 5:
        t = _t_quantile(1 - (1 - confidence) / 2, m - 1)
        n = min(max(m * p * (1 - p) / s2 * (z / t) ** 2, m), sum(n for n, _ in items))
    return _wilson(p, n, z), n


def _items(rng: random.Random, m: int, k: int):
    rows = []
    for _ in range(m):
        p = rng.choice([0.0, 1.0, rng.random(), rng.random()])
        nb, nc = rng.randint(1, k), rng.randint(1, k)
        q = p if rng.random() < 0.7 else rng.random()
        rows.append(
            (
                nb,
                sum(rng.random() < p for _ in range(nb)),
                nc,
                sum(rng.random() < q for _ in range(nc)),
            )
        )
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_the_rate_interval_is_wilson_at_the_clipped_korn_graubard_size(seed):
    rng = random.Random(seed)
    m = rng.choice([30, 60, 150])
    rows = _items(rng, m, rng.choice([2, 5, 10]))
    items = [(nc, kc) for _, _, nc, kc in rows]
    ci = trials_rate_interval(items)
    (low, high), n = _reference_rate(items)
    assert ci == pytest.approx((low, high), abs=1e-9)
    assert ci.effective_n == pytest.approx(n, rel=1e-6)
    assert ci.method == (BOUND_RATE_METHOD if n == m else EFFECTIVE_RATE_METHOD)
    assert isinstance(ci.method, str) and ci.low < ci.high


def test_one_trial_per_item_is_exactly_the_single_trial_interval_at_any_size():
    rng = random.Random(7)
    for _ in range(40):
        n = rng.randint(1, 300)
        a = rng.randint(0, n)
        b = rng.randint(0, n - a)
        c = rng.randint(0, n - a - b)
        d = n - a - b - c
        rows = [(1, 1, 1, 1)] * a + [(1, 0, 1, 1)] * b + [(1, 1, 1, 0)] * c + [(1, 0, 1, 0)] * d
        for confidence in (0.95, 0.9):
            got = paired_trials_interval(rows, confidence)
            assert got == paired_diff_interval(a, b, c, d, confidence)
            assert got.method == BOUND_DIFF_METHOD
            version = trials_rate_interval([(1, y) for *_, y in rows], confidence)
            assert version == wilson_interval(a + b, n, confidence)


def test_the_reproducer_releases_with_five_trials_as_with_one(tmp_path, capsys):
    # 400 items, identical item by item: one trial (320 pass, 80 fail) or five (4 of 5 each).
    one = [(1, 1, 1, 1)] * 320 + [(1, 0, 1, 0)] * 80
    five = [(5, 4, 5, 4)] * 400
    bound_one = paired_trials_interval(one, 0.9)
    bound_five = paired_trials_interval(five, 0.9)
    assert bound_five == bound_one == paired_diff_interval(320, 0, 0, 80, 0.9)
    assert bound_five[0] > -0.02
    from buddy_eval._cli import main

    for rows, name in ((one, "one.txt"), (five, "five.txt")):
        path = tmp_path / name
        path.write_text(_input(rows), encoding="utf-8")
        capsys.readouterr()
        status = main(["--trials", "--rule", "noninferiority", "--margin", "0.02", str(path)])
        assert status == 0 and capsys.readouterr().out.splitlines()[-1] == "RELEASE"


def test_degenerate_cases_use_the_variance_bound_and_never_zero_width():
    few = [(5, 4)] * 20 + [(5, 1)] * 20  # 40 items: below the rule
    assert trials_rate_interval(few).effective_n == 40
    assert trials_rate_interval(few).method == BOUND_RATE_METHOD
    assert trials_rate_interval([(5, 5)] * 80).effective_n == 80  # mean 1
    assert trials_rate_interval([(5, 0)] * 80).effective_n == 80  # mean 0
    assert trials_rate_interval([(5, 2)] * 80).effective_n == 80  # no spread
    # Fewer than 5 items' worth of failures: 76 items always pass, 4 pass 1 of 10.
    rare = [(10, 10)] * 76 + [(10, 1)] * 4
    assert trials_rate_interval(rare).effective_n == 80
    # Every item the same difference: no spread of the differences.
    same = [(5, 4, 5, 3)] * 60
    assert paired_trials_interval(same).method == BOUND_DIFF_METHOD
    for ci in (trials_rate_interval([(5, 5)] * 80), paired_trials_interval([(5, 5, 5, 5)] * 80)):
        assert ci.low < ci.high
    assert all(math.isnan(x) for x in trials_rate_interval([]))
    assert all(math.isnan(x) for x in paired_trials_interval([]))
    with pytest.raises(be.InputError, match="n >= 1 and 0 <= k <= n"):
        trials_rate_interval([(0, 0)])
    with pytest.raises(be.InputError, match="n >= 1 and 0 <= k <= n"):
        paired_trials_interval([(5, 6, 5, 5)])


counts = st.lists(
    st.tuples(st.integers(1, 8), st.integers(0, 8), st.integers(1, 8), st.integers(0, 8)).map(
        lambda r: (r[0], min(r[1], r[0]), r[2], min(r[3], r[2]))
    ),
    min_size=1,
    max_size=120,
)


@settings(max_examples=150, deadline=None)
@given(counts, st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_no_interval_has_zero_width_or_misses_its_estimate(rows, confidence):
    ci = paired_trials_interval(rows, confidence)
    diff = sum(Fraction(kc, nc) - Fraction(kb, nb) for nb, kb, nc, kc in rows) / len(rows)
    assert -1 <= ci.low < ci.high <= 1
    assert ci.low <= diff <= ci.high
    bound = paired_trials_interval(rows[:0] + rows, confidence)
    assert bound == ci
    for version in ((nb, kb) for nb, kb, _, _ in rows), ((nc, kc) for _, _, nc, kc in rows):
        items = list(version)
        r = trials_rate_interval(items, confidence)
        mean = sum(Fraction(k, n) for n, k in items) / len(items)
        assert 0 <= r.low < r.high <= 1 and r.low <= mean <= r.high
        # Never wider than the variance bound over the items.
        low, high = _wilson(
            float(mean), len(items), statistics.NormalDist().inv_cdf(1 - (1 - confidence) / 2)
        )
        assert r.high - r.low <= high - low + 1e-12
    assert ci.method in (BOUND_DIFF_METHOD, EFFECTIVE_DIFF_METHOD)


def test_more_trials_never_widen_the_projected_interval():
    rng = random.Random(3)
    for m in (20, 49, 50, 120, 400):
        rows = _items(rng, m, 5)
        plan = interval_outlook([(nc, kc) for _, _, nc, kc in rows])
        assert plan is not None and plan.more_trials is not None
        assert plan.more_trials.width <= plan.now.width + 1e-12
        assert plan.more_items.width < plan.now.width
        if m < EFFECTIVE_MIN_ITEMS:
            assert plan.more_trials == plan.now  # the bound: more trials change nothing


def _input(rows) -> str:
    lines = ["THRESHOLDS 0 0 0", *[f"q{i} ANSWER L1 key" for i in range(len(rows))], "RESULTS"]
    for version, offset in (("OLD", 0), ("NEW", 2)):
        for i, row in enumerate(rows):
            n, k = row[offset], row[offset + 1]
            lines += [f"{version} q{i} L1 N {'key' if t < k else 'no'}" for t in range(n)]
    return "\n".join(lines) + "\n"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", *args], capture_output=True, text=True, check=False
    )


def _primes(limit: int) -> list[int]:
    return [p for p in range(2, limit) if all(p % q for q in range(2, math.isqrt(p) + 1))]


def test_many_distinct_trial_counts_stay_exact_in_every_view(tmp_path, capsys):
    # Every prime below 400 as an item's trial count: the differences 1/p have an lcm far
    # beyond a float, so the sign-flip test takes its normal approximation.
    rows = [(p, p // 2, p, (p + 1) // 2) for p in _primes(400)]
    path = tmp_path / "primes.txt"
    path.write_text(_input(rows), encoding="utf-8")
    ev = be.evaluate(be.load(path, trials=True), settings=be.Settings(margin=0.02))
    m = ev.paired["correctness"]
    assert m.trials.test_method == "normal approximation, no continuity correction"
    assert m.diff == sum(Fraction(1, p) for p in _primes(400) if p > 2) / len(rows)
    assert 0 < m.p_value < 1 and m.diff_ci[0] < m.diff_ci[1]
    assert "internal error" not in details(ev)
    json.dumps(json_report(ev), allow_nan=False)
    from buddy_eval._cli import main

    capsys.readouterr()
    for flags in (("--details",), ("--format", "json"), ("--format", "markdown")):
        status = main(["--trials", "--margin", "0.02", *flags, str(path)])
        out = capsys.readouterr()
        assert status in (0, 1) and "internal error" not in out.err, out.err
        assert "normal approximation" in out.out
    done = _cli("--trials", "--details", str(path))  # the installed command, once
    assert done.returncode in (0, 1) and "internal error" not in done.stderr


def test_every_interval_and_bound_names_its_method_as_a_plain_string():
    rows = [(5, 4, 5, 4)] * 30 + [(5, 1, 5, 2)] * 30 + [(5, 5, 5, 5)] * 10
    text = _input(rows) + "OLD q70 L1 N key\n"
    text = text.replace("RESULTS", "q70 ANSWER L1 key\nRESULTS")
    ev = be.evaluate(text, trials=True, settings=be.Settings(margin=0.05))
    m = ev.paired["correctness"]
    names = [
        m.diff_method,
        m.noninferiority_method,
        m.baseline.ci_method,
        m.candidate.ci_method,
        m.trials.interval_method,
        m.diff_ci.method,
        m.sensitivity["regressed"].diff_ci_method,
        ev.paired.violations[0].method,
    ]
    assert all(type(name) is str and name for name in names)
    assert m.diff_method == m.trials.interval_method == m.diff_ci.method == EFFECTIVE_DIFF_METHOD
    assert m.bound_method == EFFECTIVE_DIFF_METHOD in m.noninferiority_method
    assert m.candidate.ci_method == f"{EFFECTIVE_RATE_METHOD}, over the items with a trial"
    block = json_report(ev)["comparison"]["correctness"]
    assert block["diff_ci_method"] == m.diff_method
    assert block["noninferiority"]["method"] == m.noninferiority_method
    single = be.evaluate(be.load("data/sample_release.txt"), settings=be.Settings(margin=0.02))
    s = single.paired["correctness"]
    assert (s.diff_method, s.baseline.ci_method) == (
        "Newcombe hybrid score",
        "Wilson score, over the items with a result",
    )
    assert s.noninferiority_method == (
        "one-sided lower bound: Newcombe hybrid score at two-sided level 2 * confidence - 1"
    )


def test_the_reading_follows_the_exact_test_it_prints():
    # 9 of 20 items lose one of five trials, none gains: the sign-flip test rejects
    # (p = 2/512), the variance-bound interval still includes 0.
    rows = [(5, 5, 5, 4)] * 9 + [(5, 5, 5, 5)] * 11
    ev = be.evaluate(_input(rows), trials=True)
    m = ev.paired["correctness"]
    assert m.p_value == pytest.approx(2 / 512) and m.diff_ci[1] > 0
    assert m.reading == (
        "drop",
        "drop: the exact test rejects; the interval, more conservative than the test, "
        "still includes 0",
    )
    # The test does not reject: the reading never names a change.
    rows = [(5, 5, 5, 4)] * 2 + [(5, 4, 5, 5)] + [(5, 5, 5, 5)] * 17
    m = be.evaluate(_input(rows), trials=True).paired["correctness"]
    assert m.p_value >= 0.05 and m.reading[0] == "unclear"


def test_the_next_line_follows_from_the_printed_interval_and_appears_without_within_variance():
    # Items differ (half always pass, half always fail) and no trial disagrees.
    rows = [(3, 3, 3, 3)] * 30 + [(3, 0, 3, 0)] * 30
    ev = be.evaluate(_input(rows), trials=True)
    trials = ev.paired["correctness"].trials
    assert trials.candidate.within == 0 and trials.outlook is not None
    ci = ev.paired["correctness"].candidate.ci
    assert trials.outlook.now == ci
    text = details(ev)
    (line,) = [x for x in text.splitlines() if x.startswith("  next") and "NEW's" in x][:1]
    assert f"{ci[1] - ci[0]:.3f} wide" in line
    assert "twice the trials would not change it" in line
    # From 50 items on, with spread, twice the trials narrows the printed interval.
    rng = random.Random(5)
    ev = be.evaluate(_input(_items(rng, 200, 5)), trials=True)
    outlook = ev.paired["correctness"].trials.outlook
    assert outlook.now.method == EFFECTIVE_RATE_METHOD
    assert outlook.more_trials.width < outlook.now.width


@pytest.mark.slow
def test_simulated_coverage_type1_and_power_hold():
    """Seeded simulation through the gate's interval functions (benchmarks/trials_coverage.py).

    Every cell of the benchmark's coverage grid (two item populations, 20 to 1000 items, 1
    to 10 trials, unequal trial counts) at 1000 datasets: the Monte Carlo error of a
    coverage near 0.95 is 0.0069 a cell and 0.0017 over a population's 16 cells. Each cell
    must reach 0.95 less three errors (64 cells: a correct method fails a cell at about
    0.1% each), and each population's pooled coverage 0.95 less one error.
    """
    np = pytest.importorskip("numpy")
    from benchmarks.trials_coverage import draw, intervals, population_mean, release_rate

    reps = 1000
    mc = math.sqrt(0.95 * 0.05 / reps)
    rng = np.random.default_rng(20261204)
    for name in ("mixed", "extreme"):
        truth = population_mean(name)
        pooled = {"rate": [], "diff": []}
        for m in (20, 50, 200, 1000):
            for k in (1, 2, 5, 10):
                cis = intervals(*draw(rng, name, m, k, reps), 0.95, compare=False)
                for key, target in (("rate", truth), ("diff", 0.0)):
                    ci = cis[key]
                    covered = float(np.mean((ci[:, 0] <= target) & (target <= ci[:, 1])))
                    assert covered >= 0.95 - 3 * mc, (name, m, k, key, covered)
                    pooled[key].append(covered)
        for key, shares in pooled.items():
            assert sum(shares) / len(shares) >= 0.95 - mc / 4, (name, key, shares)
    # Type-I error of the non-inferiority rule at a true difference of -margin (margin 0.05,
    # one-sided 5%), Monte Carlo error 0.0069 a cell of 1000 datasets: each cell at most
    # 0.05 plus three errors, the five cells pooled at most 0.05 plus one pooled error.
    cells = (
        ("mixed", 50, 5),
        ("mixed", 200, 2),
        ("extreme", 200, 10),
        ("mixed", 1000, 10),
        ("extreme", 50, 2),
    )
    rates = []
    for name, m, k in cells:
        rate = release_rate(rng, name, m, k, reps, 0.05, -0.05, compare=False)["diff"]
        assert rate <= 0.05 + 3 * mc, (name, m, k, rate)
        rates.append(rate)
    assert sum(rates) / len(rates) <= 0.05 + mc / math.sqrt(len(rates)), rates
    # More trials never lower the power (up to the Monte Carlo error of a difference of two
    # shares over 1000 datasets); the 400-item Beta(2, 2) case releases in 80% or more.
    for name, equal in (("mixed", False), ("beta22", True)):
        power = [
            release_rate(
                rng,
                name,
                400,
                k,
                reps,
                0.05,
                0.0,
                keep=1.0 if equal else 0.7,
                unequal=not equal,
                compare=False,
            )["diff"]
            for k in (1, 2, 5, 10)
        ]
        steps = zip(power, power[1:], strict=False)
        assert all(b >= a - math.sqrt(2 * 0.25 / reps) for a, b in steps), power
        if equal:
            assert power[2] >= 0.80, power


_ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
_INPUTS = [
    *sorted(_ROOT.joinpath("data").glob("*.txt")),
    *sorted(_ROOT.joinpath("tests", "cases").glob("*.in")),
]


@pytest.mark.parametrize("path", _INPUTS, ids=lambda p: p.name)
def test_one_trial_per_item_is_byte_identical_with_and_without_trials_on_every_view(path, capsys):
    from buddy_eval._cli import main

    for view in (["--details"], ["--format", "json"], ["--format", "markdown"]):
        plain = main([str(path), *view])
        without = capsys.readouterr()
        if plain == 2 and "duplicate" in without.err:
            continue  # repeated trials (data/sample_trials.txt): an input error without --trials
        status = main([str(path), "--trials", *view])
        with_trials = capsys.readouterr()
        assert (status, with_trials.out, with_trials.err) == (plain, without.out, without.err)


def test_an_interval_is_its_pair_and_survives_copies():
    import copy
    import dataclasses
    import pickle

    ci = paired_trials_interval([(5, 4, 5, 3)] * 30 + [(5, 2, 5, 2)] * 30)
    assert ci == (ci.low, ci.high) and tuple(ci) == (ci[0], ci[1])
    for clone in (copy.deepcopy(ci), pickle.loads(pickle.dumps(ci))):
        assert clone == ci and clone.method == ci.method and clone.effective_n == ci.effective_n

    @dataclasses.dataclass
    class Holder:
        ci: tuple

    assert dataclasses.asdict(Holder(ci))["ci"] == ci
