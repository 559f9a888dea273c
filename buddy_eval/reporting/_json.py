"""A document's record as JSON: UTF-8, indented, never ``NaN`` or ``Infinity``."""

from __future__ import annotations

import json

from ._model import Document

__all__ = ["dumps", "render_json"]


def dumps(record) -> str:
    """A JSON-ready record as text: indented, UTF-8, no trailing newline.

    Raises
    ------
    ValueError
        If a NaN or infinity slipped in (it would not be valid JSON).


    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.reporting import dumps
    >>> print(dumps({"exact": "1/2", "value": float(Fraction(1, 2))}))
    {
      "exact": "1/2",
      "value": 0.5
    }
    """
    return json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False)


def render_json(document: Document) -> str:
    """The document's record as JSON text (see :func:`dumps`).

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document, render_json
    >>> render_json(gate_document(be.evaluate("data/example.txt"), {"json"})).splitlines()[1]
    '  "format_version": 2,'
    """
    return dumps(document.record)
