"""A document as plain text: the ``--details`` view.

Sections are separated by a blank line; labelled rows are aligned on a
column. User text is left as it is: the command line shows every output
through its terminal escaping.
"""

from __future__ import annotations

from collections.abc import Callable

from .._phrases import id_list
from ._model import (
    DETAILS,
    Bullet,
    Bullets,
    Document,
    IdList,
    Lines,
    Paragraph,
    Rows,
    Section,
    Table,
    Text,
    User,
)

__all__ = ["render_text"]


def _same(text: str) -> str:
    return text


def _inline(part: str | User | IdList, escape: Callable[[str], str] = _same) -> str:
    if isinstance(part, IdList):
        return _ids(part)
    return escape(part.text) if isinstance(part, User) else part


def _text(text: Text | str | User, escape: Callable[[str], str] = _same) -> str:
    if isinstance(text, (str, User)):
        return _inline(text, escape)
    return "".join(_inline(p, escape) for p in text)


def _ids(ids: IdList) -> str:
    shown = id_list([str(i) for i in ids.shown], len(ids.ids))
    return shown if ids.label is None else f"{ids.label} {len(ids.ids)}: {shown}"


def _bullet(entry: Bullet, escape: Callable[[str], str]) -> str:
    parts = [_ids(p) if isinstance(p, IdList) else _text(p, escape) for p in entry.parts]
    body = entry.sep.join(parts) if parts else entry.empty
    return "- " + (f"{_text(entry.lead)}: " if entry.lead else "") + body


def _table(table: Table, escape: Callable[[str], str]) -> list[str]:
    rows = [
        [escape(_text(h)) for h in table.headings()],
        *([escape(_text(c)) for c in r] for r in table.cells()),
    ]
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    lines = [
        table.indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in rows
    ]
    for index, note in sorted(table.notes, reverse=True):  # the heading is line 0
        lines.insert(index + 1, table.indent + f"-- {_text(note, escape)} --")
    return lines


def _block(block, escape: Callable[[str], str]) -> list[str]:
    if isinstance(block, Paragraph):
        return [(f"{block.lead}: " if block.lead else "") + _text(block.text, escape)]
    if isinstance(block, Rows):
        return [
            f"{block.indent}{_inline(label, escape):<{block.width}} {text}"
            for label, text in block.rows
        ]
    if isinstance(block, Lines):
        return ["  " * depth + _text(text, escape) for depth, text in block.lines]
    if isinstance(block, Bullets):
        return [_bullet(e, escape) for e in block.entries]
    if isinstance(block, Table):
        return _table(block, escape)
    if isinstance(block, IdList):
        return [_ids(block)]
    return []


def _section(section: Section, escape: Callable[[str], str]) -> str:
    caption = [] if section.caption is None else [f"{section.caption}:"]
    return "\n".join(
        [*caption, *(line for block in section.blocks for line in _block(block, escape))]
    )


def render_text(
    document: Document,
    view: str = DETAILS,
    sections=None,
    *,
    escape: Callable[[str], str] | None = None,
) -> str:
    """The sections of ``view`` (or the ``sections`` given) as text, a blank line between
    sections, no trailing newline.

    User text and table cells are left as they are, or shown through ``escape`` (e.g.
    :func:`buddy_eval.formatting.terminal_text`) when given: a table is then aligned on
    what it shows.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Paragraph, Section, render_text
    >>> one = Section("a", None, (Paragraph(("First.",)),))
    >>> two = Section("b", None, (Paragraph(("Second.",)),))
    >>> print(render_text(Document("example", "Title", (one, two))))
    First.
    <BLANKLINE>
    Second.
    >>> from buddy_eval.formatting import terminal_text
    >>> from buddy_eval.reporting import Column, Table, User
    >>> table = Table((Column("v", "version"),), (("a\\tb",),), indent="  ", notes=((0, ("new",)),))
    >>> rows = Section("c", None, (table,), caption="versions")
    >>> print(render_text(Document("example", "Title", (rows,)), escape=terminal_text))
    versions:
      version
      -- new --
      a\\x09b
    """
    escape = _same if escape is None else escape
    return "\n\n".join(
        _section(section, escape)
        for section in (document.for_view(view) if sections is None else sections)
    )
