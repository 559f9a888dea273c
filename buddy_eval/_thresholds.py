"""The three thresholds of the gate and how one threshold value is read.

A threshold is kept as an exact fraction in [0, 1], so comparisons never
involve float rounding: a candidate at 3/5 meets a threshold written ``0.6``.
Text (the file's ``THRESHOLDS`` line) must be an ASCII decimal number; a
Python or numpy number (:func:`buddy_eval.from_frames`) is taken at its
shortest decimal form.
"""

from __future__ import annotations

import decimal
import numbers
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._errors import QUOTE_LIMIT, InputError, quoted
from ._vocabulary import RATE_METRICS

__all__ = [
    "MAX_DECIMAL_PLACES",
    "MAX_THRESHOLD_CHARS",
    "THRESHOLD_NAMES",
    "Thresholds",
    "decimal_text",
    "exact_number",
    "threshold_value",
]

#: The thresholds, in the order of the ``THRESHOLDS`` line.
THRESHOLD_NAMES = RATE_METRICS
#: A threshold written in text has at most this many characters (sign, digits,
#: point and exponent together): more digits than a rate can use, and few
#: enough that reading one exactly stays instant.
MAX_THRESHOLD_CHARS = 100
#: A threshold has at most this many decimal places once its exponent is
#: applied (its exact fraction's denominator divides ``10**MAX_DECIMAL_PLACES``
#: at most): ``1e-100`` is read, ``1e-101`` is not. Far more than a rate can
#: use, and it keeps every exact value printable.
MAX_DECIMAL_PLACES = 100
# ASCII digits only; an exponent of at most four digits keeps the exact
# fraction small (1e-99999999 would take minutes to build).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


@dataclass(frozen=True)
class Thresholds:
    """The three minimum rates the candidate must reach, as exact fractions.

    ``Fraction("0.6") == Fraction(3, 5)``, so a candidate at 3/5 meets a
    threshold written ``0.6`` exactly, with no float rounding involved.

    Attributes
    ----------
    correctness, citation, refusal : fractions.Fraction
        Each in [0, 1]; ``thresholds["citation"]`` reads one by name.

    Examples
    --------
    >>> thresholds = be.load("data/example.txt").thresholds   # THRESHOLDS 0.6 0.6 1.0
    >>> thresholds.correctness, thresholds["refusal"]
    (Fraction(3, 5), Fraction(1, 1))
    >>> thresholds.as_dict()
    {'correctness': Fraction(3, 5), 'citation': Fraction(3, 5), 'refusal': Fraction(1, 1)}
    """

    correctness: Fraction
    citation: Fraction
    refusal: Fraction

    def __getitem__(self, metric: str) -> Fraction:
        if metric not in THRESHOLD_NAMES:
            raise KeyError(metric)
        return getattr(self, metric)

    def as_dict(self) -> dict[str, Fraction]:
        """The thresholds keyed by metric name, in report order."""
        return {name: getattr(self, name) for name in THRESHOLD_NAMES}


def exact_number(value) -> Fraction | None:
    """``value`` as an exact fraction at its shortest decimal form, or None when it is not a
    finite number (text must be an ASCII decimal; a float ``0.6`` is 3/5)."""
    if isinstance(value, str):
        if _NUMBER.fullmatch(value) is None:
            return None
        return Fraction(value)
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, numbers.Rational):  # int, Fraction, numpy integers
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, decimal.Decimal):
        return Fraction(value) if value.is_finite() else None
    if isinstance(value, numbers.Real):  # float, numpy floats
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            return None
        # The shortest decimal form of the value in its own precision: str()
        # of numpy's float32(0.6) is '0.6', of Python's 0.6 too.
        text = str(value)
        return Fraction(text if _NUMBER.fullmatch(text) else repr(number))
    return None


def threshold_value(name: str, value, source: str, line: int | None = None) -> Fraction:
    """One threshold as an exact fraction in [0, 1].

    Parameters
    ----------
    name : str
        The metric, for messages.
    value : str or number
        Text must be an ASCII decimal number of at most
        :data:`MAX_THRESHOLD_CHARS` characters (``0.6``, ``1``, ``.75``,
        ``5e-1``; an exponent has at most four digits). A number (``int``,
        ``float``, :class:`~fractions.Fraction`, :class:`~decimal.Decimal`,
        numpy integers and floats) is taken at its shortest decimal form, so
        the float ``0.6`` means 3/5; ``bool``, NaN and infinities are not numbers here.
    source : str
        The input's name, for messages.
    line : int, optional
        The line the value was read from.

    Raises
    ------
    InputError
        The value is not such a number, lies outside [0, 1], or has more
        than :data:`MAX_DECIMAL_PLACES` decimal places (``1e-9999``,
        ``Fraction(1, 3 * 10**100)``).
    """
    if isinstance(value, str) and len(value) > MAX_THRESHOLD_CHARS:
        raise InputError(
            f"{name} threshold must be a decimal number of at most {MAX_THRESHOLD_CHARS} "
            f"characters, got {len(value)} characters: {quoted(value)}",
            source=source,
            line=line,
        )
    exact = exact_number(value)
    if exact is None:
        raise InputError(
            f"{name} threshold must be a decimal number in [0, 1], got {quoted(value)}",
            source=source,
            line=line,
        )
    if not 0 <= exact <= 1:
        short = isinstance(value, str) and len(value) <= QUOTE_LIMIT
        raise InputError(
            f"{name} threshold must lie in [0, 1], got {value if short else quoted(value)}",
            source=source,
            line=line,
        )
    if exact.denominator > 10**MAX_DECIMAL_PLACES:
        raise InputError(
            f"{name} threshold must have at most {MAX_DECIMAL_PLACES} decimal places, "
            f"got {quoted(value)}",
            source=source,
            line=line,
        )
    return exact


def decimal_text(value) -> str:
    """A threshold or a setting written out exactly as given: every digit, no exponent.

    A :class:`~fractions.Fraction` with a finite decimal expansion (every
    threshold has one) prints all its digits; a float prints its shortest
    decimal form (``0.0249999999`` stays ``0.0249999999``, never ``0.025``).

    >>> decimal_text(Fraction(4, 5)), decimal_text(0.0249999999), decimal_text(1e-05)
    ('0.8', '0.0249999999', '0.00001')
    """
    exact = exact_number(value) if not isinstance(value, Fraction) else value
    if exact is None:
        raise ValueError(f"not a finite number: {value!r}")
    sign = "-" if exact < 0 else ""
    exact = abs(exact)
    den, powers = exact.denominator, []
    for prime in (2, 5):
        count = 0
        while den % prime == 0:
            den, count = den // prime, count + 1
        powers.append(count)
    # 10**places is the smallest power of ten the denominator divides; a value
    # that is no finite decimal gets as many digits as a threshold may have.
    places = max(powers) if den == 1 else MAX_DECIMAL_PLACES
    units = (exact.numerator * 10**places * 2 + exact.denominator) // (exact.denominator * 2)
    whole, frac = divmod(units, 10**places)
    text = f"{whole}.{frac:0{places}d}".rstrip("0").rstrip(".") if places else str(whole)
    return sign + text
