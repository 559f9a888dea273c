"""How user text is shown: one escaping function per output kind, used by every view.

Labels, ids, sources and messages that quote the input are text the user (or
a model's answer) controls. Shown raw they could move a terminal's cursor,
reverse a line (U+202E), hide a character, end a Markdown table cell or make
an XML report that no parser reads. Three functions, one per kind of output:

- :func:`terminal_text`: plain text for a terminal or a log;
- :func:`markdown_text`: Markdown that renders literally;
- :func:`xml_text`: the text of an XML attribute or element.

Each shows an *invisible* character as a visible escape: ``\\x..`` below
U+0100, ``\\u....`` up to U+FFFF, ``\\U........`` beyond. Invisible means a
control character (C0, DEL, C1: category Cc), a format character (bidi
embeddings, overrides and isolates, zero-width spaces, the BOM: Cf), a line
or paragraph separator (Zl, Zp), a lone surrogate (Cs) or a non-character
(U+FDD0..U+FDEF and the last two code points of every plane). Every other
character, any script or emoji, is kept.
"""

from __future__ import annotations

import unicodedata

__all__ = ["escape_invisible", "markdown_text", "terminal_text", "xml_text"]

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _is_invisible(char: str) -> bool:
    code = ord(char)
    if (code & 0xFFFE) == 0xFFFE or 0xFDD0 <= code <= 0xFDEF:
        return True
    return unicodedata.category(char) in _INVISIBLE_CATEGORIES


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_invisible(text: object, keep: str = "") -> str:
    """``text`` with every invisible character (see the module) as a visible escape.

    Parameters
    ----------
    text : object
        Converted with :func:`str`.
    keep : str
        Characters left as they are (an XML text keeps tab and line breaks).

    Returns
    -------
    str
        The text itself when it has nothing to escape (the usual case, and a
        fast one: :meth:`str.isprintable` decides).
    """
    value = str(text)
    if value.isprintable():
        return value
    return "".join(
        _escape(c) if not c.isprintable() and c not in keep and _is_invisible(c) else c
        for c in value
    )


def terminal_text(text: object) -> str:
    """``text`` for a terminal: every invisible character shown as an escape.

    Examples
    --------
    A label holding a right-to-left override and a terminal control sequence
    prints as what it holds:

    >>> print(terminal_text("v2\\u202egnp.exe\\x9b31m"))
    v2\\u202egnp.exe\\x9b31m
    >>> terminal_text("v2\\u202egnp.exe\\x9b31m")
    'v2\\\\u202egnp.exe\\\\x9b31m'
    """
    return escape_invisible(text)


#: Each ASCII punctuation character, backslash-escaped (CommonMark allows it for each).
_MARKDOWN_PUNCTUATION = {ord(c): "\\" + c for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"}


def markdown_text(text: object, limit: int | None = None) -> str:
    """``text`` as Markdown that renders literally, on one line.

    Every ASCII punctuation character is backslash-escaped, so no emphasis,
    code, link, HTML or table-cell boundary can start; every invisible
    character is written as an escape that renders as ``\\x0a`` or
    ``\\u202e`` (so ``v\\x0bx``, ``v\\x0cx`` and ``v\\u2028x`` stay three
    different labels). Text longer than ``limit`` characters is cut and the
    rest counted.

    Examples
    --------
    >>> print(markdown_text("a|b <script>"))
    a\\|b \\<script\\>
    >>> markdown_text("a|b <script>")
    'a\\\\|b \\\\<script\\\\>'
    >>> print(markdown_text("release-candidate-2026", limit=7))
    release… (15 more characters)
    """
    value = str(text)
    rest = 0 if limit is None else len(value) - limit
    if rest > 0:
        value = value[:limit]
    escaped = value.translate(_MARKDOWN_PUNCTUATION)
    if not escaped.isprintable():
        escaped = "".join(
            "\\" + _escape(c) if not c.isprintable() and _is_invisible(c) else c for c in escaped
        )
    return escaped + f"… ({rest} more characters)" if rest > 0 else escaped


def xml_text(text: object) -> str:
    """``text`` for an XML 1.0 attribute or element: every invisible character but tab
    and line breaks shown as an escape (the characters XML cannot hold among them).

    The serializer escapes ``<``, ``&`` and quotes; this makes the document
    well-formed whatever the text holds.

    Examples
    --------
    U+FFFE cannot appear in XML 1.0; it is shown as its escape:

    >>> print(xml_text("B\\ufffe"))
    B\\ufffe
    >>> xml_text("B\\ufffe")
    'B\\\\ufffe'
    """
    return escape_invisible(text, keep="\t\n\r")
