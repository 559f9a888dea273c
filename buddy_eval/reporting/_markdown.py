"""A document as GitHub-flavoured Markdown: a CI job summary or a pull-request comment.

Every piece of user text is escaped (``|``, backticks, ``<script>``, links
render as the characters they are) and cut after its limit; id lists are
capped. So a summary stays a few kilobytes for any input, far under GitHub's
1 MiB step-summary limit.
"""

from __future__ import annotations

from .._errors import QUOTE_LIMIT
from .._escaping import markdown_text
from .._phrases import id_list
from ..formatting import MAX_LISTED_IDS
from ._model import (
    MARKDOWN,
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
    Verdict,
)

__all__ = ["WHERE_LISTED", "markdown_escape", "markdown_ids", "markdown_row", "render_markdown"]

#: Where a capped list of the summary sends the reader for the rest.
WHERE_LISTED = "full list: `--details` or `--format json`"


def markdown_escape(text: object, limit: int = QUOTE_LIMIT) -> str:
    """:func:`~buddy_eval.formatting.markdown_text`, cut after ``limit`` characters (an id
    or a label in a summary).

    >>> markdown_escape("a|b <script>")
    'a\\\\|b \\\\<script\\\\>'
    """
    return markdown_text(text, limit)


def markdown_ids(ids, where: str = WHERE_LISTED, cap: int = MAX_LISTED_IDS) -> str:
    """The first ids, escaped, then ``and N more (where)``: the capped list every summary shows."""
    ids = list(ids)
    return id_list([markdown_escape(i) for i in ids[:cap]], len(ids), where=where, empty="")


def markdown_row(cells) -> str:
    """One row of a Markdown table (cells already escaped)."""
    return "| " + " | ".join(cells) + " |"


def _inline(part: str | User | IdList) -> str:
    if isinstance(part, IdList):
        return _ids(part)
    return markdown_escape(part.text, part.limit) if isinstance(part, User) else part


def _text(text: Text | str | User) -> str:
    if isinstance(text, (str, User)):
        return _inline(text)
    return "".join(_inline(p) for p in text)


def _ids(ids: IdList) -> str:
    shown = markdown_ids(ids.ids, ids.where or WHERE_LISTED, cap=ids.cap)
    return shown if ids.label is None else f"{ids.label} {len(ids.ids)}: {shown}"


def _bullet(entry: Bullet) -> str:
    parts = [_ids(p) if isinstance(p, IdList) else _text(p) for p in entry.parts]
    body = entry.sep.join(parts) if parts else entry.empty
    return "- " + (f"**{_text(entry.lead)}**: " if entry.lead else "") + body


def _table(table: Table) -> list[str]:
    header = [_text(h) for h in table.headings()]
    cells = [[_text(c) for c in row] for row in table.cells()]
    if table.cell_limit is not None:
        cells = [[markdown_escape(c, table.cell_limit) for c in r] for r in cells]
    rule = "|" + "---|" * len(header) if table.compact_rule else markdown_row(["---"] * len(header))
    lines = [markdown_row(r) for r in [header, *cells]]
    lines.insert(1, rule)
    for index, note in sorted(table.notes, reverse=True):  # after the heading and the rule
        lines.insert(index + 2, f"| **{_text(note)}** |" + " |" * (len(header) - 1))
    return lines


def _block(block) -> list[str]:
    if isinstance(block, Paragraph):
        return [(f"**{block.lead}**: " if block.lead else "") + _text(block.text)]
    if isinstance(block, Verdict):
        if block.release:
            return [f"**{block.word}**: {_text(block.sentence)}."]
        return [
            f"**{block.word}**: {_text(block.sentence)}:",
            "",
            *(f"- {r}" for r in block.reasons),
        ]
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Bullets):
        return [_bullet(e) for e in block.entries]
    if isinstance(block, Lines):
        return ["  " * depth + f"- {_text(text)}" for depth, text in block.lines]
    if isinstance(block, Rows):
        return [f"- {_inline(label)}: {text}" for label, text in block.rows]
    if isinstance(block, IdList):
        return [_ids(block)]
    return []  # a figure has no Markdown form


def render_markdown(document: Document) -> str:
    """The document's summary sections as Markdown, ending in a newline.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Paragraph, Section, render_markdown
    >>> part = Section("s", "Part", (Paragraph(("Text.",)),))
    >>> print(render_markdown(Document("example", "Title", (part,))))
    ## Title
    <BLANKLINE>
    ### Part
    <BLANKLINE>
    Text.
    <BLANKLINE>
    """
    lines = [f"{'#' * document.title_level} {_text(document.title)}"]
    for section in document.for_view(MARKDOWN):
        if section.title is not None:
            lines += ["", f"{'#' * section.level} {_text(section.title)}"]
        if section.caption is not None:
            lines += ["", f"**{section.caption[:1].upper()}{section.caption[1:]}**"]
        for block in section.blocks:
            lines += ["", *_block(block)]
    return "\n".join(lines) + "\n"
