"""Repeated-trial statistics of buddy_eval.stats, checked against plain enumeration.

Every reference value here is computed from the definition in plain Python
(``fractions``, ``itertools``, ``statistics``, ``math``), never with scipy or
numpy: k-subsets of a concrete trial sequence for pass@k and pass^k, all
``2**m`` sign vectors for the sign-flip test, sums of squares over the
trials for the variance components. The intervals on item rates are checked
in tests/test_trials_intervals.py.
"""

from __future__ import annotations

import doctest
import itertools
import math
import random
import time
from fractions import Fraction

import pytest

from buddy_eval._errors import InputError
from buddy_eval.stats import (
    ITEM_FLIP_EXACT_MAX_CELLS,
    ITEM_FLIP_MEET_MAX,
    SE_TIE_TOLERANCE,
    item_variance_components,
    mean_pass_at_k,
    mean_pass_hat_k,
    more_trials_or_items,
    paired_item_differences_test,
    paired_rates_interval,
    pass_at_k,
    pass_hat_k,
    rate_interval,
    within_item_variance_share,
)
from buddy_eval.stats import _repeated as repeated

NEW_FUNCTIONS = [
    pass_at_k,
    pass_hat_k,
    mean_pass_at_k,
    mean_pass_hat_k,
    paired_item_differences_test,
    paired_rates_interval,
    rate_interval,
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
    with pytest.raises(InputError, match=r"diffs must be"):
        paired_item_differences_test(bad)
    with pytest.raises(InputError, match="alpha"):
        paired_item_differences_test([0.5], alpha=1.0)
    with pytest.raises(InputError, match="confidence"):
        rate_interval([0.5, 0.25], confidence=95)


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


def test_more_trials_or_items_either_when_items_do_not_differ():
    plan = more_trials_or_items(0.25, 0.0, 40, 5)
    assert plan.recommendation == "either"
    assert plan.se_more_items == pytest.approx(plan.se_more_trials)
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
# 10**5 items (their speed is measured in benchmarks/, not here)
# --------------------------------------------------------------------------


def test_hundred_thousand_items_are_answered():
    rng = random.Random(1)
    m = 100_000
    trials = [[int(rng.random() < 0.7) for _ in range(rng.randint(1, 5))] for _ in range(m)]
    pairs = [(len(item), sum(item)) for item in trials]
    rates = [Fraction(k, n) for n, k in pairs]
    assert mean_pass_at_k(pairs, 2) is not None
    assert mean_pass_hat_k(pairs, 2) is not None
    low, high = paired_rates_interval(rates, rates[::-1])
    assert -0.02 < low < 0 < high < 0.02
    assert 0 <= within_item_variance_share(trials) <= 1
