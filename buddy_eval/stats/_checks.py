"""Argument checks and the normal quantile shared by the statistics modules."""

from __future__ import annotations

import functools
from numbers import Integral, Real
from typing import cast

from .._errors import InputError


def _check_count(name: str, value, minimum: int = 0) -> int:
    if type(value) is int and value >= minimum:  # the common case, without the ABC check
        return value
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_open_unit(name: str, value) -> float:
    if type(value) is float and 0 < value < 1:  # the common case, without the ABC check
        return value
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < cast(float, value) < 1:
        raise InputError(f"{name} must be a number strictly between 0 and 1, got {value!r}")
    return float(value)


@functools.lru_cache(maxsize=64)
def _z(confidence: float) -> float:
    """Two-sided standard normal quantile: 1.959964 for 95% (computed once per level)."""
    from ._distributions import norm_ppf

    return float(norm_ppf(1 - (1 - confidence) / 2))


def _check_unit(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= cast(float, value) <= 1:
        raise InputError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _check_sample_size(discordance, drop, alpha, power) -> tuple[float, float, float, float]:
    """The arguments of both sample-size functions: a share in [0, 1], three in (0, 1)."""
    return (
        _check_unit("discordance", discordance),
        _check_open_unit("drop", drop),
        _check_open_unit("alpha", alpha),
        _check_open_unit("power", power),
    )
