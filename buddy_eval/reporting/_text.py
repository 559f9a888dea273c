"""A document as plain text: the ``--details`` view.

Sections are separated by a blank line; labelled rows are aligned on a
column. User text is left as it is: the command line shows every output
through its terminal escaping.
"""

from __future__ import annotations

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
    Table,
    Text,
    User,
)

__all__ = ["render_text"]


def _inline(part: str | User | IdList) -> str:
    if isinstance(part, IdList):
        return _ids(part)
    return part.text if isinstance(part, User) else part


def _text(text: Text | str | User) -> str:
    if isinstance(text, (str, User)):
        return _inline(text)
    return "".join(_inline(p) for p in text)


def _ids(ids: IdList) -> str:
    shown = id_list([str(i) for i in ids.shown], len(ids.ids))
    return shown if ids.label is None else f"{ids.label} {len(ids.ids)}: {shown}"


def _bullet(entry: Bullet) -> str:
    parts = [_ids(p) if isinstance(p, IdList) else _text(p) for p in entry.parts]
    body = entry.sep.join(parts) if parts else entry.empty
    return "- " + (f"{_text(entry.lead)}: " if entry.lead else "") + body


def _table(table: Table) -> list[str]:
    header = [_text(h) for h in table.headings()]
    rows = [header, *([_text(c) for c in row] for row in table.cells())]
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _block(block) -> list[str]:
    if isinstance(block, Paragraph):
        return [(f"{block.lead}: " if block.lead else "") + _text(block.text)]
    if isinstance(block, Rows):
        return [
            f"{block.indent}{_inline(label):<{block.width}} {text}" for label, text in block.rows
        ]
    if isinstance(block, Lines):
        return ["  " * depth + _text(text) for depth, text in block.lines]
    if isinstance(block, Bullets):
        return [_bullet(e) for e in block.entries]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, IdList):
        return [_ids(block)]
    return []


def render_text(document: Document, view: str = DETAILS, sections=None) -> str:
    """The sections of ``view`` (or the ``sections`` given) as text, a blank line between
    sections, no trailing newline.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Paragraph, Section, render_text
    >>> one = Section("a", None, (Paragraph(("First.",)),))
    >>> two = Section("b", None, (Paragraph(("Second.",)),))
    >>> print(render_text(Document("example", "Title", (one, two))))
    First.
    <BLANKLINE>
    Second.
    """
    return "\n\n".join(
        "\n".join(line for block in section.blocks for line in _block(block))
        for section in (document.for_view(view) if sections is None else sections)
    )
