"""Read JSON input files, strictly, into plain Python values.

Input files are JSON only: they are parsed, never executed or unpickled.
Numbers with a fraction or an exponent are read as :class:`decimal.Decimal`,
so ``0.02`` stays exactly two cents; ``NaN`` and ``Infinity`` (which Python's
``json`` would accept) become :class:`NonFinite` markers, and a number written
with more than :data:`MAX_NUMBER_CHARS` characters a :class:`LongNumber`
marker (it is never converted, so no digit limit or slow arithmetic is hit),
both of which validation rejects with the task and field named; an object
that repeats a key keeps the repeated names in
:attr:`JSONObject.duplicate_keys` for the same reason.
"""

from __future__ import annotations

import json
import os
from decimal import Decimal, InvalidOperation

from .._errors import InputError
from .._parsing import decode, read_input_bytes

__all__ = [
    "MAX_NUMBER_CHARS",
    "JSONObject",
    "LongNumber",
    "NonFinite",
    "parse_json",
    "read_json",
]

MAX_NUMBER_CHARS = 100
"""The longest number literal read as a number (sign, digits, point and exponent)."""


class JSONObject(dict):
    """A JSON object; ``duplicate_keys`` lists keys the file gave twice or more."""

    duplicate_keys: tuple[str, ...] = ()


class NonFinite:
    """``NaN``, ``Infinity`` or ``-Infinity`` as written in the file: never a valid value."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


class LongNumber:
    """A number literal kept as written because it is never valid.

    It is longer than :data:`MAX_NUMBER_CHARS`, or its exponent is beyond what
    :class:`~decimal.Decimal` can hold (``1e9999999999999999999``): reading it
    would cost time or fail, so validation names it instead.
    """

    __slots__ = ("text", "why")

    def __init__(self, text: str, why: str | None = None):
        self.text = text
        self.why = why or f"a number longer than the {MAX_NUMBER_CHARS} characters allowed"

    def __repr__(self) -> str:
        return f"LongNumber({len(self.text)} characters)"


def _number(text: str, read=Decimal) -> int | Decimal | LongNumber:
    """A number literal read by ``read`` (a Decimal unless told), or a :class:`LongNumber`."""
    if len(text) > MAX_NUMBER_CHARS:
        return LongNumber(text)
    try:
        return read(text)
    except InvalidOperation:  # an exponent past what Decimal can hold
        return LongNumber(text, "a number whose exponent is beyond any value a field may hold")


def _object(pairs: list[tuple[str, object]]) -> JSONObject:
    obj = JSONObject(pairs)
    if len(obj) != len(pairs):  # the file repeats a key: each repeat after the first is listed
        first = {key: index for index, (key, _) in reversed(list(enumerate(pairs)))}
        obj.duplicate_keys = tuple(key for i, (key, _) in enumerate(pairs) if first[key] != i)
    return obj


# How decimals, NaN and Infinity, and objects are read (integers: in parse_json).
_HOOKS: dict = dict(parse_float=_number, parse_constant=NonFinite, object_pairs_hook=_object)


def parse_json(text: str, source: str):
    """Parse JSON text; floats as :class:`~decimal.Decimal`.

    Integers and decimals of at most :data:`MAX_NUMBER_CHARS` characters are
    read as ``int`` and :class:`~decimal.Decimal`; longer ones as
    :class:`LongNumber`, ``NaN`` and ``[-]Infinity`` as :class:`NonFinite`.

    Raises
    ------
    InputError
        The text is not JSON: the message names ``source``, the line and the
        column.
    """
    try:
        return json.loads(text, parse_int=lambda text: _number(text, int), **_HOOKS)
    except json.JSONDecodeError as exc:
        found = _trailing_comma(text, exc.pos)
        if found is not None:  # in the project's words: Python versions word it differently
            comma, closer = found
            raise InputError(
                f"invalid JSON: a comma before the closing '{closer}' (JSON allows no trailing "
                f"comma) (column {comma - text.rfind(chr(10), 0, comma)})",
                source=source,
                line=text.count("\n", 0, comma) + 1,
            ) from None
        raise InputError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", source=source, line=exc.lineno
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", source=source) from None


def _trailing_comma(text: str, pos: int) -> tuple[int, str] | None:
    """Where the comma is, and the bracket it comes before, when the error at ``pos`` is a
    trailing comma (``[1,]``, ``{"a": 1,}``).

    Python 3.11 and 3.12 point at the closing bracket, 3.13 at the comma.
    """
    blank = " \t\r\n"
    comma = pos
    if not (comma < len(text) and text[comma] == ","):
        comma = pos - 1
        while comma >= 0 and text[comma] in blank:
            comma -= 1
        if comma < 0 or text[comma] != ",":
            return None
    after = comma + 1
    while after < len(text) and text[after] in blank:
        after += 1
    before = comma - 1
    while before >= 0 and text[before] in blank:
        before -= 1
    if after < len(text) and text[after] in "}]" and before >= 0 and text[before] not in ":,[{":
        return comma, text[after]
    return None


def read_json(path: str | os.PathLike) -> tuple[object, str]:
    """Read a UTF-8 JSON file (a leading byte-order mark is dropped).

    Returns
    -------
    tuple
        ``(value, name)``: the parsed value and the path as given, for messages.

    Raises
    ------
    InputError
        The file cannot be read, is not UTF-8, or is not JSON; the message
        names the file and, when known, the line.
    """
    name = os.fspath(path)
    data = read_input_bytes(name)
    return parse_json(decode(data, name, "a JSON file of golden tasks or run records"), name), name
