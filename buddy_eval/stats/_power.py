"""Exact power of the exact McNemar test and the smallest golden set that reaches it."""

from __future__ import annotations

from fractions import Fraction

from .._errors import InputError
from ._checks import _check_count, _check_open_unit, _check_sample_size, _check_unit
from ._proportions import required_paired_n

#: Planning discordance (share of items the two versions disagree on) for
#: :func:`required_paired_n_exact` when fewer than :data:`MIN_PAIRED` pairs
#: exist to estimate it. The items needed grow with the discordance (more
#: disagreement is more noise around the same net drop), so a high planning
#: value is the conservative one: 0.3 assumes that two versions of the same
#: assistant disagree on up to 30% of golden items, which errs toward asking
#: for more items; replace it with the observed discordance once
#: :data:`MIN_PAIRED` pairs exist.
#:
#: Examples
#: --------
#: Paired items to detect a 5-point drop with 80% power, at this planning
#: discordance and at an observed one of 10%:
#:
#: >>> from buddy_eval.stats import DEFAULT_DISCORDANCE, required_paired_n_exact
#: >>> required_paired_n_exact(DEFAULT_DISCORDANCE), required_paired_n_exact(0.1)
#: (975, 337)
DEFAULT_DISCORDANCE = 0.3


def _mcnemar_critical_counts(d_max: int, alpha: float) -> list[int]:
    """Rejection region of the exact McNemar test for 0..d_max discordant pairs.

    Entry ``d`` is the largest ``k`` with ``2 * P(X <= k) < alpha`` for
    ``X ~ Binomial(d, 1/2)`` (the test rejects when ``min(fixed, regressed)
    <= k``), or -1 when no outcome rejects. Computed in exact integers:
    ``tail = sum(comb(d, i) for i <= k)`` rolls from ``d`` to ``d + 1`` by
    ``2 * tail - comb(d, k)``, and ``k`` never decreases with ``d``.
    """
    level = Fraction(alpha)
    num, den = level.numerator, level.denominator
    critical = [-1] * (d_max + 1)
    k, tail, term = -1, 0, 0  # tail = sum C(d, i) for i <= k; term = C(d, k)
    bound = num  # num * 2**d: the test is 2 * tail * den < bound
    for d in range(d_max + 1):
        if d > 0:
            bound <<= 1
            if k >= 0:
                tail = 2 * tail - term
                term = term * d // (d - k)  # C(d, k) from C(d - 1, k)
        while k + 1 <= d:  # Try k + 1: 2 * (tail + C(d, k + 1)) * den < num * 2**d?
            next_term = 1 if k < 0 else term * (d - k) // (k + 1)
            if 2 * (tail + next_term) * den >= bound:
                break
            k, tail, term = k + 1, tail + next_term, next_term
        critical[d] = k
    return critical


def _mcnemar_rejection_probabilities(d_max: int, p_fixed_given_discordant: float, alpha: float):
    """``P(exact McNemar rejects | d discordant pairs)`` for d = 0..d_max, as an array."""
    import numpy as np

    from ._distributions import binom_cdf

    critical = np.array(_mcnemar_critical_counts(d_max, alpha))
    d = np.arange(d_max + 1)
    q = p_fixed_given_discordant
    # Reject when fixed <= k or regressed = d - fixed <= k (the two never overlap).
    return binom_cdf(critical, d, q) + binom_cdf(critical, d, 1 - q)


def _power_from(rejection, n: int, discordance: float) -> float:
    import numpy as np

    from ._distributions import binom_pmf

    weights = binom_pmf(np.arange(n + 1), n, discordance)
    return float(min(1.0, weights @ rejection[: n + 1]))


def mcnemar_exact_power(n: int, p_fixed: float, p_regressed: float, alpha: float = 0.05) -> float:
    """Exact power of the two-sided exact McNemar test.

    Each of ``n`` paired items is independently fixed with probability
    ``p_fixed``, regressed with probability ``p_regressed`` and concordant
    otherwise. The exact (conditional) McNemar test of :func:`mcnemar_exact`
    rejects at level ``alpha`` when its p-value is below ``alpha`` (strictly,
    as in :func:`reading`). The power is summed exactly over the number of
    discordant pairs ``D ~ Binomial(n, p_fixed + p_regressed)``::

        power = sum over d of P(D = d) * P(min(F, d - F) <= k(d))

    with ``F ~ Binomial(d, p_fixed / (p_fixed + p_regressed))`` the fixes
    among them and ``k(d)`` the largest count with
    ``2 * P(Binomial(d, 1/2) <= k(d)) < alpha``, found in exact integer
    arithmetic. The binomial probabilities are floats (scipy), so the power
    is exact up to rounding, not an approximation.

    Parameters
    ----------
    n : int
        Paired items.
    p_fixed, p_regressed : float
        Per-item probabilities of a fix and of a regression,
        ``p_fixed + p_regressed <= 1``.
    alpha : float
        Two-sided significance level (default 0.05).

    Returns
    -------
    float
        The probability that the test rejects; 0.0 when ``n`` is 0 or no
        item can be discordant.

    Examples
    --------
    >>> round(mcnemar_exact_power(100, 0.05, 0.20), 3)
    0.837
    """
    n = _check_count("n", n)
    p_fixed = _check_unit("p_fixed", p_fixed)
    p_regressed = _check_unit("p_regressed", p_regressed)
    alpha = _check_open_unit("alpha", alpha)
    discordance = p_fixed + p_regressed
    if discordance > 1 + 1e-12:
        raise InputError(
            f"p_fixed + p_regressed must be at most 1, got {p_fixed!r} + {p_regressed!r}"
        )
    discordance = min(discordance, 1.0)
    if n == 0 or discordance == 0:
        return 0.0
    rejection = _mcnemar_rejection_probabilities(n, p_fixed / discordance, alpha)
    return _power_from(rejection, n, discordance)


#: Probabilities of a discordant count below this are dropped from the
#: screening scan of :func:`required_paired_n_exact` (the mass lost over
#: 10**6 steps stays below 1e-24, far inside its 1e-9 screening margin).
_NEGLIGIBLE = 1e-30


def required_paired_n_exact(
    discordance: float, drop: float = 0.05, alpha: float = 0.05, power: float = 0.80
) -> int:
    """Smallest number of paired items whose exact McNemar power reaches ``power``.

    The exact counterpart of :func:`required_paired_n` (Connor's normal
    approximation). With ``psi = max(discordance, drop)`` (the discordance
    is floored at ``drop``, as there) the items are fixed with probability
    ``(psi - drop) / 2`` and regressed with probability ``(psi + drop) / 2``,
    so the expected difference is ``-drop``, and the power is
    :func:`mcnemar_exact_power`.

    The exact power is **not monotone in n**: it saw-tooths, because the
    rejection region of a discrete test grows in steps. The rule used here
    is **the smallest n whose power is at least ``power``**; a slightly
    larger n can fall back below the target by a little (the dips are
    small). Every n from 1 up is checked, so no smaller n reaches the
    target. Connor's n sizes the precomputation, and the scan is a cheap
    screening recursion over n (``P(D = d)`` for ``n + 1`` from ``n``, on the
    window of ``d`` where it is not negligible), confirmed by
    :func:`mcnemar_exact_power` at the candidate, so the search costs
    milliseconds for the default settings (about 0.1 s at a 0.01 drop).

    When fewer than :data:`MIN_PAIRED` pairs exist to estimate the
    discordance, pass :data:`DEFAULT_DISCORDANCE`.

    Parameters
    ----------
    discordance : float
        Share of discordant paired items, in [0, 1].
    drop : float
        Difference to detect (default 0.05).
    alpha : float
        Two-sided significance level (default 0.05).
    power : float
        Wanted power (default 0.80).

    Returns
    -------
    int
        The smallest ``n`` with ``mcnemar_exact_power(n, ...) >= power``.

    Examples
    --------
    >>> required_paired_n_exact(0.20) >= required_paired_n(0.20)
    True
    """
    discordance, drop, alpha, target = _check_sample_size(discordance, drop, alpha, power)
    import numpy as np

    psi = max(float(discordance), drop)
    q = (psi - drop) / 2 / psi  # P(fixed | discordant); regressed: (psi + drop) / 2
    connor = required_paired_n(psi, drop, alpha, target)
    size = connor + connor // 4 + 64  # the exact n is a few % above Connor's; grown if not
    rejection = _mcnemar_rejection_probabilities(size, q, alpha)
    # P(D = d) for the current n, kept only on the window [low, low + len) where
    # it exceeds _NEGLIGIBLE: the scan costs O(sqrt(n)) per n instead of O(n).
    weights, low, n = np.ones(1), 0, 0
    while True:
        n += 1
        if n >= size:
            size *= 2
            rejection = _mcnemar_rejection_probabilities(size, q, alpha)
        grown = np.zeros(len(weights) + 1)
        grown[:-1] = (1 - psi) * weights
        grown[1:] += psi * weights
        kept = np.flatnonzero(grown > _NEGLIGIBLE)
        weights, low = grown[kept[0] : kept[-1] + 1], low + int(kept[0])
        # The recursion screens; the reported power is mcnemar_exact_power's own number.
        screened = weights @ rejection[low : low + len(weights)] >= target - 1e-9
        if screened and _power_from(rejection, n, psi) >= target:
            return n
