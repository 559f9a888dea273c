"""A document as an HTML fragment: the evaluation's rich display in Jupyter and the parts of
the release report that the document holds.

Every piece of user text is escaped (:func:`html.escape`: ``<script>`` shows
as text) and shown whole, with every invisible character as a visible escape;
id lists are capped. The fragment is deterministic: no id, timestamp or
address, only inline styles, no script. It carries the ``tex2jax_ignore`` and
``mathjax_ignore`` classes, so a front end that typesets ``$...$`` leaves ids
and answers such as ``$x$`` as they are.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from .._escaping import escape_invisible
from .._phrases import id_list
from ..formatting import NO_MATH, VERDICT_STYLE
from ._model import (
    HTML,
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
    Verdict,
)

__all__ = ["html_text", "render_html"]


def html_text(text: object) -> str:
    """User text as HTML: markup escaped, invisible characters shown as escapes.

    Examples
    --------
    >>> from buddy_eval.reporting._html import html_text
    >>> html_text("<b>v2</b> & q1\\u202e")
    '&lt;b&gt;v2&lt;/b&gt; &amp; q1\\\\u202e'
    """
    return escape(escape_invisible(text), quote=False)


def _inline(part: str | User | IdList) -> str:
    if isinstance(part, IdList):
        return _ids(part)
    return html_text(part.text) if isinstance(part, User) else escape(part, quote=False)


def _text(text: Text | str | User) -> str:
    if isinstance(text, (str, User)):
        return _inline(text)
    return "".join(_inline(p) for p in text)


def _ids(ids: IdList) -> str:
    # a list's own ``where`` is said; by default the HTML views name no place (the report
    # lists every item in its tables, the notebook has the result itself)
    where = None if ids.where is None else escape(ids.where, quote=False)
    shown = id_list([html_text(i) for i in ids.shown], len(ids.ids), where=where)
    return shown if ids.label is None else f"{escape(ids.label)} {len(ids.ids)}: {shown}"


def _bullet(entry: Bullet) -> str:
    parts = [_ids(p) if isinstance(p, IdList) else _text(p) for p in entry.parts]
    body = escape(entry.sep).join(parts) if parts else escape(entry.empty)
    lead = f"<strong>{_text(entry.lead)}</strong>: " if entry.lead else ""
    return f"<li>{lead}{body}</li>"


def _lines(lines: Lines) -> str:
    """Lines at depths as nested lists."""
    out, depth = ["<ul>"], 0
    for k, (level, text) in enumerate(lines.lines):
        while depth < level:
            out.append("<ul>")
            depth += 1
        while depth > level:
            out.append("</ul></li>")
            depth -= 1
        nested = k + 1 < len(lines.lines) and lines.lines[k + 1][0] > level
        out.append(f"<li>{_text(text)}" + ("" if nested else "</li>"))
    while depth > 0:
        out.append("</ul></li>")
        depth -= 1
    return "".join(out) + "</ul>"


def _table(table: Table) -> str:
    head = "".join(f"<th>{_text(h)}</th>" for h in table.headings())
    body = "".join(
        "<tr>" + "".join(f"<td>{_text(c)}</td>" for c in row) + "</tr>" for row in table.cells()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _verdict(block: Verdict) -> str:
    sentence = _text(block.sentence)
    line = (
        f'<p class="verdict" style="{VERDICT_STYLE[block.release]}padding:4px 8px;">'
        f"<strong>{escape(block.word)}</strong>: {sentence}{'.' if block.release else ':'}</p>"
    )
    reasons = "".join(f"<li>{escape(r)}</li>" for r in block.reasons)
    return line + (f'<ul class="reasons">{reasons}</ul>' if reasons else "")


def _block(block) -> str:
    if isinstance(block, Paragraph):
        lead = f"<strong>{escape(block.lead)}</strong>: " if block.lead else ""
        return f"<p>{lead}{_text(block.text)}</p>"
    if isinstance(block, Verdict):
        return _verdict(block)
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Bullets):
        return "<ul>" + "".join(_bullet(e) for e in block.entries) + "</ul>"
    if isinstance(block, Lines):
        return _lines(block)
    if isinstance(block, Rows):
        rows = "".join(
            f"<tr><th>{_inline(label)}</th><td>{escape(text, quote=False)}</td></tr>"
            for label, text in block.rows
        )
        return f"<table>{rows}</table>"
    if isinstance(block, IdList):
        return f"<p>{_ids(block)}</p>"
    # A figure: the release report draws the charts from the result in its notebook; a
    # document holds no image, so there is nothing here to lay out.
    return ""


def _section(section: Section) -> str:
    level = min(max(section.level, 1), 6)
    title = "" if section.title is None else f"<h{level}>{_text(section.title)}</h{level}>"
    blocks = "".join(_block(b) for b in section.blocks)
    return f'<section class="buddy-eval-{escape(section.key)}">{title}{blocks}</section>'


def render_html(
    document: Document, view: str = HTML, sections: Iterable[Section] | None = None
) -> str:
    """The sections of ``view`` (or the ``sections`` given) as one HTML fragment.

    A ``<div>`` of the classes ``buddy-eval-document``, the document's kind and
    the math-ignore classes, then the document's title (only when showing a
    view, not ``sections``) and one ``<section>`` per section. Nothing is
    computed: cells, figures and words are the document's.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document, render_html
    >>> document = gate_document(be.evaluate("data/example.txt"), {"html"})
    >>> html = render_html(document)
    >>> html[:83]
    '<div class="buddy-eval-document buddy-eval-gate tex2jax_ignore mathjax_ignore"><h2>'
    >>> "<td>refusal</td><td>1.00 (1/1)</td><td>0.00 (0/1)</td>" in html
    True
    >>> why = render_html(document, sections=[document.section("explained")])
    >>> print(why[why.index("<h3>") : why.index("</strong>") + 9])
    <h3>Why BLOCK</h3><ul><li><strong>refusal below threshold</strong>
    """
    title = ""
    if sections is None:
        sections = document.for_view(view)
        title = f"<h2>{_text(document.title)}</h2>"
    body = "".join(_section(s) for s in sections)
    kind = escape(document.kind)
    return f'<div class="buddy-eval-document buddy-eval-{kind} {NO_MATH}">{title}{body}</div>'
