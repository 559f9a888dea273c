"""Repeated-trial statistics of buddy_eval.stats, checked against plain enumeration.

Every reference value here is computed from the definition in plain Python
(``fractions``, ``itertools``, ``statistics``, ``math``), never with scipy or
numpy: k-subsets of a concrete trial sequence for pass@k and pass^k, all
``2**m`` sign vectors for the sign-flip test, ``statistics.stdev`` and a
hard-coded t quantile for the interval, sums of squares over the trials for
the variance components.
"""

from __future__ import annotations

import doctest
import itertools
import math
import random
import statistics
import time
from fractions import Fraction

import pytest

from buddy_eval.errors import InputError
from buddy_eval.stats import (
    ITEM_FLIP_EXACT_MAX_CELLS,
    ITEM_FLIP_MEET_MAX,
    SE_TIE_TOLERANCE,
    item_variance_components,
    mean_pass_at_k,
    mean_pass_hat_k,
    more_trials_or_items,
    paired_item_differences_test,
    paired_rate_interval,
    pass_at_k,
    pass_hat_k,
    repeated,
    within_item_variance_share,
)

NEW_FUNCTIONS = [
    pass_at_k,
    pass_hat_k,
    mean_pass_at_k,
    mean_pass_hat_k,
    paired_item_differences_test,
    paired_rate_interval,
    item_variance_components,
    within_item_variance_share,
    more_trials_or_items,
]


@pytest.mark.parametrize("function", NEW_FUNCTIONS, ids=lambda f: f.__name__)
def test_docstring_examples_run(function):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner()
    for test in finder.find(function, globs=vars(repeated)):
        runner.run(test)
    assert runner.failures == 0
    assert "Returns" in function.__doc__ and "Examples" in function.__doc__


# --------------------------------------------------------------------------
# pass@k and pass^k: all k-subsets of a concrete trial sequence
# --------------------------------------------------------------------------


def _subsets_brute(outcomes, k):
    """(share of k-subsets with a pass, share of k-subsets that all pass)."""
    subsets = list(itertools.combinations(outcomes, k))
    any_pass = sum(1 for chosen in subsets if any(chosen))
    all_pass = sum(1 for chosen in subsets if all(chosen))
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_and_pass_hat_k_match_k_subset_enumeration(n):
    rng = random.Random(n)
    for c in range(n + 1):
        outcomes = [1] * c + [0] * (n - c)
        rng.shuffle(outcomes)  # the order of the trials does not matter
        for k in range(1, n + 1):
            at_k, hat_k = _subsets_brute(outcomes, k)
            assert pass_at_k(n, c, k) == at_k
            assert pass_hat_k(n, c, k) == hat_k
            assert isinstance(pass_at_k(n, c, k), Fraction)
            assert isinstance(pass_hat_k(n, c, k), Fraction)


def test_pass_at_1_and_pass_hat_1_are_the_rate():
    for n in range(1, 12):
        for c in range(n + 1):
            assert pass_at_k(n, c, 1) == pass_hat_k(n, c, 1) == Fraction(c, n)


def test_mean_pass_at_k_and_hat_k_match_enumeration_and_leave_out_short_items():
    rng = random.Random(7)
    items = []
    for _ in range(40):
        n = rng.randint(0, 7)
        items.append((n, rng.randint(0, n)))
    for k in range(1, 8):
        used = [(n, c) for n, c in items if n >= k]
        if not used:
            assert mean_pass_at_k(items, k) is None
            assert mean_pass_hat_k(items, k) is None
            continue
        brute = [_subsets_brute([1] * c + [0] * (n - c), k) for n, c in used]
        assert mean_pass_at_k(items, k) == sum(b[0] for b in brute) / len(used)
        assert mean_pass_hat_k(items, k) == sum(b[1] for b in brute) / len(used)


def test_mean_pass_at_k_none_when_no_item_has_k_trials():
    assert mean_pass_at_k([(1, 1), (2, 0)], 3) is None
    assert mean_pass_hat_k([], 1) is None
    # An item with fewer trials is left out, not counted as a failure.
    assert mean_pass_at_k([(3, 3), (1, 0)], 2) == 1
    assert mean_pass_hat_k([(3, 3), (1, 0)], 2) == 1


@pytest.mark.parametrize(
    "args",
    [(0, 0, 1), (3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1), (True, 1, 1), (3.0, 1, 1)],
)
def test_pass_estimators_refuse_bad_counts(args):
    for function in (pass_at_k, pass_hat_k):
        with pytest.raises(InputError, match="got"):
            function(*args)


@pytest.mark.parametrize("items", [[(3, 4)], [(3,)], [5], [(-1, 0)], [(2.0, 1)], [(True, 0)]])
def test_mean_estimators_refuse_bad_items(items):
    for function in (mean_pass_at_k, mean_pass_hat_k):
        with pytest.raises(InputError, match="position 0"):
            function(items, 1)
    with pytest.raises(InputError, match="k must be"):
        mean_pass_at_k([(3, 1)], 0)


# --------------------------------------------------------------------------
# The sign-flip test: all 2**m sign vectors
# --------------------------------------------------------------------------


def _flip_p_brute(diffs):
    """P(|sum of randomly signed diffs| >= |observed sum|) over all 2**len sign vectors."""
    observed = abs(sum(diffs, Fraction(0)))
    extreme = 0
    for signs in itertools.product((1, -1), repeat=len(diffs)):
        if abs(sum((s * d for s, d in zip(signs, diffs, strict=True)), Fraction(0))) >= observed:
            extreme += 1
    return Fraction(extreme, 2 ** len(diffs))


def _rate_diffs(rng, m, max_trials):
    """Per-item differences of k/n rates with n up to max_trials (zeros included)."""
    diffs = []
    for _ in range(m):
        n_base, n_cand = rng.randint(1, max_trials), rng.randint(1, max_trials)
        base = Fraction(rng.randint(0, n_base), n_base)
        cand = Fraction(rng.randint(0, n_cand), n_cand)
        diffs.append(cand - base)
    return diffs


@pytest.mark.parametrize("m", range(1, 13))
def test_sign_flip_p_value_matches_all_sign_vectors(m):
    rng = random.Random(100 + m)
    for max_trials in (1, 3, 5):
        diffs = _rate_diffs(rng, m, max_trials)
        result = paired_item_differences_test(diffs)
        assert result.p_value == float(_flip_p_brute(diffs))
        assert result.statistic == sum(diffs, Fraction(0)) / m
        assert result.n_items == m
        assert result.n_nonzero == sum(1 for d in diffs if d != 0)
        assert result.method == "exact (sign-flip enumeration)"


@pytest.mark.parametrize("m", [4, 9, 12])
def test_sign_flip_meet_in_the_middle_matches_all_sign_vectors(m, monkeypatch):
    rng = random.Random(m)
    # Mixed trial counts up to 13: the lcm 360360 makes the DP table too big.
    diffs = _rate_diffs(rng, m, 13) + [Fraction(1, 2), Fraction(-1, 2)]
    monkeypatch.setattr(repeated, "ITEM_FLIP_EXACT_MAX_CELLS", 0)
    result = paired_item_differences_test(diffs)
    assert result.method == "exact (sign-flip enumeration)"
    assert result.p_value == float(_flip_p_brute(diffs))


def test_sign_flip_large_denominators_stay_exact_without_patching():
    diffs = [Fraction(1, 11) - Fraction(3, 13), Fraction(5, 7), Fraction(-2, 9), Fraction(1, 8)]
    diffs += [Fraction(4, 5) - Fraction(1, 12), Fraction(-1, 10), Fraction(3, 11)]
    result = paired_item_differences_test(diffs)
    assert result.method == "exact (sign-flip enumeration)"
    assert result.p_value == float(_flip_p_brute(diffs))


def test_sign_flip_normal_approximation_beyond_the_exact_limits(monkeypatch):
    monkeypatch.setattr(repeated, "ITEM_FLIP_EXACT_MAX_CELLS", 0)
    monkeypatch.setattr(repeated, "ITEM_FLIP_MEET_MAX", 0)
    diffs = [Fraction(1, 3), Fraction(2, 3), Fraction(-1, 3), Fraction(1, 1), 0]
    result = paired_item_differences_test(diffs)
    total = sum(diffs, Fraction(0))
    z = float(total) / math.sqrt(sum(float(d) ** 2 for d in diffs))
    assert result.method == "normal approximation, no continuity correction"
    assert result.p_value == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-12)
    assert result.statistic == total / 5


def test_sign_flip_dp_is_bounded_for_many_items():
    rng = random.Random(3)
    diffs = _rate_diffs(rng, 20_000, 7)
    start = time.perf_counter()
    result = paired_item_differences_test(diffs)
    assert time.perf_counter() - start < 5
    assert result.method == "normal approximation, no continuity correction"
    assert ITEM_FLIP_EXACT_MAX_CELLS == 5_000_000 and ITEM_FLIP_MEET_MAX == 30


def test_sign_flip_all_zero_empty_and_one_sided_examples():
    assert paired_item_differences_test([0, Fraction(0), 0.0]).p_value == 1.0
    assert paired_item_differences_test([0, 0]).statistic == 0
    empty = paired_item_differences_test([])
    assert (empty.statistic, empty.p_value, empty.n_items, empty.n_nonzero) == (None, 1.0, 0, 0)
    # Six equal gains: only all-up and all-down are as extreme, p = 2 / 64.
    result = paired_item_differences_test([Fraction(1, 3)] * 6 + [0] * 4, alpha=0.05)
    assert result.p_value == 2 / 64 and result.rejects
    assert (result.n_nonzero, result.n_items) == (6, 10)
    assert not paired_item_differences_test([Fraction(1, 3)] * 5, alpha=0.05).rejects


def test_sign_flip_floats_are_taken_at_their_exact_value():
    diffs = [0.5, 0.25, -0.75, 1.0, 0.1]
    exact = [Fraction(d) for d in diffs]
    assert paired_item_differences_test(diffs).p_value == float(_flip_p_brute(exact))


@pytest.mark.parametrize("bad", [[1.5], [-2], [math.nan], [math.inf], ["0.5"], [True], 3])
def test_item_diffs_are_validated(bad):
    for function in (paired_item_differences_test, paired_rate_interval):
        with pytest.raises(InputError, match=r"diffs must be"):
            function(bad)
    with pytest.raises(InputError, match="alpha"):
        paired_item_differences_test([0.5], alpha=1.0)
    with pytest.raises(InputError, match="confidence"):
        paired_rate_interval([0.5, 0.25], confidence=95)


# --------------------------------------------------------------------------
# The paired t interval on per-item differences
# --------------------------------------------------------------------------

T_975_DF9 = 2.262157162798205  # t quantile 0.975, 9 degrees of freedom
T_95_DF9 = 1.833112932656237  # t quantile 0.95, 9 degrees of freedom


def _t_cdf_odd_df(x, df):
    """Student t CDF for odd df, closed form (Abramowitz & Stegun 26.7.3)."""
    theta = math.atan(x / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    series, term = 1.0, 1.0
    for j in range(1, (df - 1) // 2):
        term *= 2 * j / (2 * j + 1) * c2
        series += term
    return 0.5 + (theta + math.sin(theta) * math.cos(theta) * series) / math.pi


def test_hard_coded_t_quantiles_are_the_quantiles():
    # The often-quoted 2.2621571627409915 is 6e-11 short: its CDF is 0.9749999999977.
    assert _t_cdf_odd_df(T_975_DF9, 9) == pytest.approx(0.975, abs=1e-15)
    assert _t_cdf_odd_df(T_95_DF9, 9) == pytest.approx(0.95, abs=1e-15)


def _t_interval(diffs, t_quantile):
    mean = statistics.fmean(float(d) for d in diffs)
    half = t_quantile * statistics.stdev(float(d) for d in diffs) / math.sqrt(len(diffs))
    return mean - half, mean + half


def test_paired_rate_interval_matches_the_plain_formula():
    rng = random.Random(11)
    for _ in range(20):
        diffs = _rate_diffs(rng, 10, 5)
        if len(set(diffs)) == 1:
            continue
        for confidence, quantile in ((0.95, T_975_DF9), (0.90, T_95_DF9)):
            low, high = paired_rate_interval(diffs, confidence)
            ref_low, ref_high = _t_interval(diffs, quantile)
            assert low == pytest.approx(max(-1.0, ref_low), abs=1e-12)
            assert high == pytest.approx(min(1.0, ref_high), abs=1e-12)


def test_paired_rate_interval_is_scale_and_shift_consistent():
    diffs = [Fraction(k, 10) for k in (1, -2, 3, 0, 1, 2, -1, 0, 4, 1)]
    low, high = paired_rate_interval(diffs)
    for factor in (Fraction(1, 2), Fraction(1, 4), Fraction(-1, 3)):
        scaled = paired_rate_interval([d * factor for d in diffs])
        expected = sorted((low * factor, high * factor))
        assert scaled == pytest.approx(tuple(expected), abs=1e-12)
    shifted = paired_rate_interval([d + Fraction(1, 10) for d in diffs])
    assert shifted == pytest.approx((low + 0.1, high + 0.1), abs=1e-12)


def test_paired_rate_interval_edge_cases():
    assert all(math.isnan(x) for x in paired_rate_interval([]))
    assert all(math.isnan(x) for x in paired_rate_interval([0.5]))
    assert paired_rate_interval([Fraction(1, 3)] * 7) == (1 / 3, 1 / 3)
    assert paired_rate_interval([0, 0]) == (0.0, 0.0)
    # Two items at the ends: t with 1 df is wide, clamped to [-1, 1].
    assert paired_rate_interval([1, -1]) == (-1.0, 1.0)
    low, high = paired_rate_interval([1, 1, 1, 0.9])
    assert high == 1.0 and low < 0.975


# --------------------------------------------------------------------------
# Within- and between-item variance, and the projection
# --------------------------------------------------------------------------


def _components_brute(trials):
    """The ANOVA estimates from sums of squares over the trials, in Fractions."""
    rates = [Fraction(sum(item), len(item)) for item in trials]
    ss_within = sum(
        (Fraction(y) - rate) ** 2 for item, rate in zip(trials, rates, strict=True) for y in item
    )
    within = ss_within / sum(len(item) - 1 for item in trials)
    mean_rate = sum(rates) / len(rates)
    var_rates = sum((r - mean_rate) ** 2 for r in rates) / (len(rates) - 1)
    mean_inverse = sum(Fraction(1, len(item)) for item in trials) / len(trials)
    return within, max(Fraction(0), var_rates - within * mean_inverse), 1 / mean_inverse


def test_variance_components_hand_computed_balanced_example():
    # Rates 1/2, 1, 0 over 4 trials: within = 4 * 1/4 / 9 = 1/9;
    # var(rates) = 1/4, minus within / 4 = 1/36: between = 2/9; share 1/3.
    trials = [[1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
    parts = item_variance_components(trials)
    assert parts.within == pytest.approx(1 / 9, abs=1e-15)
    assert parts.between == pytest.approx(2 / 9, abs=1e-15)
    assert (parts.n_items, parts.trials_per_item) == (3, 4.0)
    assert within_item_variance_share(trials) == pytest.approx(1 / 3, abs=1e-15)


def test_variance_components_hand_computed_unbalanced_example():
    # Rates 1/2 (2 trials), 2/3 (3 trials), 0 (1 trial).
    # within = (2*1/4 + 3*2/9) / (1 + 2 + 0) = (1/2 + 2/3) / 3 = 7/18.
    # mean rate 7/18; var(rates) = ((1/18)**2 + (5/18)**2 + (7/18)**2) / 2 = 75/648;
    # mean(1/n) = (1/2 + 1/3 + 1) / 3 = 11/18; between = 75/648 - 77/324 < 0 -> 0.
    trials = [[1, 0], [True, True, False], [0]]
    parts = item_variance_components(trials)
    assert parts.within == pytest.approx(7 / 18, abs=1e-15)
    assert parts.between == 0.0
    assert parts.trials_per_item == pytest.approx(18 / 11, abs=1e-15)
    assert within_item_variance_share(trials) == 1.0


def test_variance_components_match_sums_of_squares():
    rng = random.Random(5)
    for _ in range(30):
        trials = []
        for _ in range(rng.randint(2, 12)):
            skill = rng.random()
            trials.append([int(rng.random() < skill) for _ in range(rng.randint(1, 6))])
        brute = _components_brute(trials)
        parts = item_variance_components(trials)
        if sum(len(item) - 1 for item in trials) == 0:
            assert parts is None
            continue
        assert parts.within == pytest.approx(float(brute[0]), abs=1e-12)
        assert parts.between == pytest.approx(float(brute[1]), abs=1e-12)
        assert parts.trials_per_item == pytest.approx(float(brute[2]), abs=1e-12)
        share = within_item_variance_share(trials)
        if brute[0] + brute[1] == 0:
            assert share is None
        else:
            assert share == pytest.approx(float(brute[0] / (brute[0] + brute[1])), abs=1e-12)
            assert 0 <= share <= 1


def test_variance_share_undefined_cases():
    assert within_item_variance_share([[1, 0, 1]]) is None  # one item
    assert within_item_variance_share([[1], [0], [1]]) is None  # no item with 2 trials
    assert within_item_variance_share([[1, 1], [1, 1, 1]]) is None  # no variance at all
    assert within_item_variance_share([[1, 1], [0, 0]]) == 0.0  # consistent items


@pytest.mark.parametrize("trials", [[[1, 2]], [[]], [5], [[1, 0], "ab"], 7])
def test_variance_components_refuse_bad_trials(trials):
    with pytest.raises(InputError, match="trials must"):
        item_variance_components(trials)


def test_more_trials_or_items_projection_formulas():
    within, between, m, n = 0.2, 0.03, 80, 3
    plan = more_trials_or_items(within, between, m, n)
    assert plan.se_current == pytest.approx(math.sqrt(between / m + within / (m * n)))
    assert plan.se_more_items == pytest.approx(math.sqrt(between / (2 * m) + within / (2 * m * n)))
    assert plan.se_more_trials == pytest.approx(math.sqrt(between / m + within / (m * 2 * n)))
    assert plan.se_more_items == pytest.approx(plan.se_current / math.sqrt(2))
    assert plan.recommendation == "more items"
    assert plan.text == (
        "doubling items narrows the interval more than doubling trials "
        f"(SE {plan.se_more_items:.3f} vs {plan.se_more_trials:.3f})"
    )


def test_more_trials_or_items_either_when_items_do_not_differ():
    plan = more_trials_or_items(0.25, 0.0, 40, 5)
    assert plan.recommendation == "either"
    assert plan.se_more_items == pytest.approx(plan.se_more_trials)
    assert plan.text.startswith("doubling items or trials narrows the interval about as much")
    zero = more_trials_or_items(0, 0, 10, 1)
    assert (zero.se_more_items, zero.se_more_trials, zero.recommendation) == (0.0, 0.0, "either")
    # Just above the tolerance: more items.
    tiny = more_trials_or_items(0.25, 0.25 / 5 * 3 * SE_TIE_TOLERANCE, 40, 5)
    assert tiny.recommendation == "more items"


def test_more_trials_or_items_never_prefers_trials():
    rng = random.Random(9)
    for _ in range(200):
        plan = more_trials_or_items(rng.random() / 4, rng.random() / 4, rng.randint(1, 500), 3)
        assert plan.se_more_items <= plan.se_more_trials + 1e-15
        assert plan.recommendation in ("more items", "either")


@pytest.mark.parametrize(
    "args",
    [(-0.1, 0.1, 10, 2), (0.1, math.nan, 10, 2), (0.1, 0.1, 0, 2), (0.1, 0.1, 10, 0.5)],
)
def test_more_trials_or_items_validates(args):
    with pytest.raises(InputError, match="got"):
        more_trials_or_items(*args)


# --------------------------------------------------------------------------
# Speed: 10**5 items
# --------------------------------------------------------------------------


def test_hundred_thousand_items_are_fast():
    rng = random.Random(1)
    m = 100_000
    trials = [[int(rng.random() < 0.7) for _ in range(rng.randint(1, 5))] for _ in range(m)]
    pairs = [(len(item), sum(item)) for item in trials]
    diffs = _rate_diffs(rng, m, 5)
    start = time.perf_counter()
    assert mean_pass_at_k(pairs, 2) is not None
    assert mean_pass_hat_k(pairs, 2) is not None
    low, high = paired_rate_interval(diffs)
    assert low < high
    assert 0 <= within_item_variance_share(trials) <= 1
    elapsed = time.perf_counter() - start
    assert elapsed < 3  # about 0.3 s here; generous for a shared machine
