"""The few distribution functions the statistics need, without importing ``scipy.stats``.

Importing ``scipy.stats`` takes about 0.4 s, more than the whole gate on
100,000 items; ``scipy.special`` takes a fifth of that. The functions here
call the ``scipy.special`` ufuncs that ``scipy.stats`` itself calls for these
distributions (its ``norm.ppf`` is ``ndtri``, ``t.ppf`` is ``stdtrit``, and
``binom`` and ``beta`` use the Boost ufuncs below), so every value is the
same, bit for bit, as through ``scipy.stats``. Where a scipy release lacks
one of those ufuncs, ``scipy.stats`` is used after all. The tests check
every statistic against exact enumeration, not against scipy.
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["beta_ppf", "binom_cdf", "binom_pmf", "binom_sf", "norm_ppf", "t_ppf"]


@functools.cache
def _boost(name: str):
    """scipy.special's Boost ufunc ``name`` (what scipy.stats calls), or None."""
    from scipy.special import _ufuncs

    return getattr(_ufuncs, name, None)


def norm_ppf(q):
    """Standard normal quantile (``scipy.stats.norm.ppf``)."""
    from scipy.special import ndtri

    return ndtri(q)


def t_ppf(q, df):
    """Student's t quantile with ``df`` degrees of freedom (``scipy.stats.t.ppf``)."""
    from scipy.special import stdtrit

    return stdtrit(df, q)


def beta_ppf(q, a, b):
    """Beta(a, b) quantile (``scipy.stats.beta.ppf``)."""
    ufunc = _boost("_beta_ppf")
    if ufunc is None:
        from scipy.stats import beta

        return beta.ppf(q, a, b)
    return ufunc(q, a, b)


def binom_cdf(k, n, p):
    """``P(X <= k)`` for X ~ Binomial(n, p) (``scipy.stats.binom.cdf``)."""
    ufunc = _boost("_binom_cdf")
    if ufunc is None:
        from scipy.stats import binom

        return binom.cdf(k, n, p)
    return _on_support(ufunc, k, n, p, below=0.0, above=1.0, last=False)


def binom_sf(k, n, p):
    """``P(X > k)`` for X ~ Binomial(n, p) (``scipy.stats.binom.sf``)."""
    ufunc = _boost("_binom_sf")
    if ufunc is None:
        from scipy.stats import binom

        return binom.sf(k, n, p)
    return _on_support(ufunc, k, n, p, below=1.0, above=0.0, last=False)


def binom_pmf(k, n, p):
    """``P(X = k)`` for X ~ Binomial(n, p) (``scipy.stats.binom.pmf``)."""
    ufunc = _boost("_binom_pmf")
    if ufunc is None:
        from scipy.stats import binom

        return binom.pmf(k, n, p)
    return _on_support(ufunc, k, n, p, below=0.0, above=0.0, last=True)


def _on_support(ufunc, k, n, p, *, below: float, above: float, last: bool):
    """What scipy.stats' wrapper adds around a binomial ufunc (counts ``k``, ``n``).

    The ufunc is asked for ``0 <= k < n`` (``k <= n`` when ``last``); below
    the support the value is ``below``, above it ``above``.
    """
    k, n, p = np.broadcast_arrays(
        np.floor(np.asarray(k, dtype=float)), np.asarray(n, dtype=float), np.asarray(p, dtype=float)
    )
    inside = (k >= 0) & ((k <= n) if last else (k < n))
    out = np.where(inside, ufunc(np.where(inside, k, 0.0), n, p), np.where(k < 0, below, above))
    return out if out.ndim else float(out)
