"""The report document: what a builder makes and a renderer lays out.

A :class:`Document` is an ordered tuple of :class:`Section`\\ s, each a tuple of
blocks, plus the exact record that the JSON view serialises and the test
suites that the JUnit view writes. Blocks hold exact values and the words to
say about them; the formatting of a value is named by the block (a
:class:`Column`'s ``format``), so a renderer only lays out:

- :class:`Paragraph`: one line of prose (trusted words and :class:`User` text).
- :class:`Lines`: indented lines (the text view indents, the summaries list them).
- :class:`Bullets`: a list, each entry prose or a capped :class:`IdList`.
- :class:`Rows`: labelled lines (``label  text``), as ``--details`` prints them.
- :class:`Table`: rows of exact values under :class:`Column` specs.
- :class:`IdList`: item ids, shown up to a cap, then how many more.
- :class:`Verdict`: the verdict word, its sentence and the reasons.
- :class:`Figure`: a chart the HTML report draws from the result it names.

Each section says which views show it (``views``): the summary views
(Markdown, HTML) and the ``--details`` text read different sections of the
same document, and none of them computes a figure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import QUOTE_LIMIT
from ..formatting import MAX_LISTED_IDS

__all__ = [
    "ALL_VIEWS",
    "DETAILS",
    "HTML",
    "JSON",
    "JUNIT",
    "MARKDOWN",
    "Block",
    "Bullet",
    "Bullets",
    "Cell",
    "Column",
    "Document",
    "Figure",
    "IdList",
    "Lines",
    "Paragraph",
    "Rows",
    "Section",
    "Suite",
    "Table",
    "TestCase",
    "Text",
    "User",
    "Verdict",
]

#: The names of the views a section can be shown in.
DETAILS = "details"
MARKDOWN = "markdown"
HTML = "html"
JUNIT = "junit"
JSON = "json"
ALL_VIEWS = frozenset({DETAILS, MARKDOWN, HTML, JUNIT, JSON})


@dataclass(frozen=True)
class User:
    """Text from the input (an id, a label, a path, a warning): every renderer escapes it,
    and the summaries cut it after ``limit`` characters.

    Examples
    --------
    >>> from buddy_eval.reporting import Paragraph, User, render_markdown, Document, Section
    >>> section = Section("s", None, (Paragraph(("Input ", User("a|b"), ".")),))
    >>> print(render_markdown(Document("example", "Title", (section,))), end="")
    ## Title
    <BLANKLINE>
    Input a\\|b.
    """

    text: str
    limit: int = QUOTE_LIMIT


#: Prose: trusted words, user text and capped id lists, in order.
Text = tuple["str | User | IdList", ...]


@dataclass(frozen=True)
class Paragraph:
    """One line of prose; with a ``lead``, the lead first (bold where the format has bold).

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Paragraph, Section, render_markdown, render_text
    >>> section = Section("s", None, (Paragraph(("One line.",)),))
    >>> print(render_text(Document("example", "Title", (section,))))
    One line.
    >>> led = Section("s", None, (Paragraph(("it is so.",), lead="First"),))
    >>> print(render_markdown(Document("example", "Title", (led,))).splitlines()[-1])
    **First**: it is so.
    """

    text: Text
    lead: str | None = None


@dataclass(frozen=True)
class Lines:
    """Lines at an indent depth: ``(depth, text)``; the text view indents them, the summaries
    list them.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Lines, Section, render_markdown, render_text
    >>> lines = Lines(((0, ("top",)), (1, ("under",))))
    >>> doc = Document("example", "Title", (Section("s", None, (lines,)),))
    >>> print(render_text(doc))
    top
      under
    >>> print(render_markdown(doc).splitlines()[2:])
    ['- top', '  - under']
    """

    lines: tuple[tuple[int, Text], ...]


@dataclass(frozen=True)
class IdList:
    """Item ids, shown up to ``cap``; the renderer says how many more there are. With a
    ``label`` the list reads ``label N: ids``, without one just the ids. ``where`` names,
    in the summaries, where the full list is (default: ``--details`` or ``--format json``).

    Examples
    --------
    >>> from buddy_eval.reporting import Document, IdList, Section, render_text
    >>> ids = IdList(("q1", "q2", "q3"), "fixed", cap=2)
    >>> doc = Document("example", "Title", (Section("s", None, (ids,)),))
    >>> print(render_text(doc))
    fixed 3: q1, q2 and 1 more
    """

    ids: tuple[str, ...]
    label: str | None = None
    cap: int = MAX_LISTED_IDS
    where: str | None = None

    @property
    def shown(self) -> tuple[str, ...]:
        return self.ids[: self.cap]


@dataclass(frozen=True)
class Bullet:
    """One entry of a list: an optional lead word (bold where the format has bold), then parts
    (prose or capped id lists) joined by ``sep``; ``empty`` when there is no part.

    Examples
    --------
    >>> from buddy_eval.reporting import Bullet, Bullets, Document, IdList, Section, render_markdown
    >>> entry = Bullet((IdList(("q1",), "fixed"), IdList(("q2",), "regressed")), lead="citation")
    >>> doc = Document("example", "Title", (Section("s", None, (Bullets((entry,)),)),))
    >>> print(render_markdown(doc).splitlines()[-1])
    - **citation**: fixed 1: q1; regressed 1: q2
    """

    parts: tuple[Text | IdList, ...]
    lead: str | Text | None = None
    sep: str = "; "
    empty: str = ""


@dataclass(frozen=True)
class Bullets:
    """A list of :class:`Bullet` entries.

    Examples
    --------
    >>> from buddy_eval.reporting import Bullet, Bullets, Document, Section, render_text
    >>> notes = Bullets((Bullet((("a note",),)),))
    >>> doc = Document("example", "Title", (Section("s", None, (notes,)),))
    >>> print(render_text(doc))
    - a note
    """

    entries: tuple[Bullet, ...]


@dataclass(frozen=True)
class Rows:
    """Labelled lines: ``(label, text)``; an empty label continues the row above.

    Examples
    --------
    >>> from buddy_eval.reporting import Document, Rows, Section, render_text
    >>> rows = Rows((("gate rate", "OLD 0.84   NEW 0.91"), ("", "continued")))
    >>> print(render_text(Document("example", "Title", (Section("s", None, (rows,)),))))
      gate rate    OLD 0.84   NEW 0.91
                   continued
    """

    rows: tuple[tuple[str | User, str], ...]
    indent: str = "  "
    width: int = 12


@dataclass(frozen=True)
class Cell:
    """A table cell whose text the builder words itself (e.g. two rates that print alike
    and so show their counts); ``value`` stays exact.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.reporting import Cell, Column, Table
    >>> cell = Cell(Fraction(3825, 4000), "0.96 (3825/4000)")
    >>> table = Table((Column("rate", "rate"),), ((cell,),))
    >>> table.cells(), table.records()
    ([['0.96 (3825/4000)']], [{'rate': Fraction(153, 160)}])
    """

    value: Any
    text: str


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Table`: its key, its heading and how a value is shown.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.formatting import format_rate
    >>> from buddy_eval.reporting import Column
    >>> Column("value", "rate", format_rate).format(Fraction(5, 8))
    '0.63'
    """

    key: str
    heading: str | User | Text
    format: Callable[[Any], str] = str


@dataclass(frozen=True)
class Table:
    """Rows of exact values; :meth:`cells` formats them by their columns (a :class:`User`
    value is shown as user text, escaped by the renderer).

    Examples
    --------
    >>> from fractions import Fraction
    >>> from buddy_eval.formatting import format_rate
    >>> from buddy_eval.reporting import Column, Document, Section, Table, render_markdown
    >>> table = Table((Column("metric", "metric"), Column("value", "rate", format_rate)),
    ...               (("correctness", Fraction(5, 8)),))
    >>> text = render_markdown(Document("example", "T", (Section("s", None, (table,)),)))
    >>> print("\\n".join(text.splitlines()[2:]))
    | metric | rate |
    | --- | --- |
    | correctness | 0.63 |
    >>> table.records()
    [{'metric': 'correctness', 'value': Fraction(5, 8)}]
    """

    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    #: The text view's indent before each line of the table.
    indent: str = ""
    #: ``(row index, text)``: a note shown before that row, across the table (the text
    #: view writes ``-- text --`` on a line of its own, Markdown a row in bold).
    notes: tuple[tuple[int, Text], ...] = ()
    #: When set, every cell is user text: each renderer escapes it, and the summaries cut
    #: it after this many characters.
    cell_limit: int | None = None
    #: Markdown: the rule under the heading written ``|---|---|`` (no spaces).
    compact_rule: bool = False

    def cells(self) -> list[list[str | User]]:
        return [
            [
                v.text if isinstance(v, Cell) else v if isinstance(v, User) else c.format(v)
                for c, v in zip(self.columns, row, strict=True)
            ]
            for row in self.rows
        ]

    def headings(self) -> list[str | User | Text]:
        return [c.heading for c in self.columns]

    def records(self) -> list[dict[str, Any]]:
        return [
            {
                c.key: v.value if isinstance(v, Cell) else v.text if isinstance(v, User) else v
                for c, v in zip(self.columns, row, strict=True)
            }
            for row in self.rows
        ]


@dataclass(frozen=True)
class Verdict:
    """The verdict word, the sentence that goes with it, and the reasons (for a BLOCK).

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document
    >>> document = gate_document(be.evaluate("data/example.txt"), {"markdown"})
    >>> verdict = document.section("verdict").blocks[0]
    >>> verdict.word, verdict.reasons[0]
    ('BLOCK', 'refusal below threshold')
    """

    word: str
    release: bool
    sentence: Text
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figure:
    """A chart: ``plot`` is called with the result and ``ax``; the HTML report draws it.

    Examples
    --------
    >>> from buddy_eval.reporting import Figure
    >>> Figure("Metrics against thresholds", "plot_metrics").plot
    'plot_metrics'
    """

    title: str
    plot: str  # the name of a plotting helper of buddy_eval
    options: Mapping[str, Any] = field(default_factory=dict)


Block = Paragraph | Lines | Bullets | Rows | Table | IdList | Verdict | Figure


@dataclass(frozen=True)
class Section:
    """A titled run of blocks, shown in the views it names.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document
    >>> document = gate_document(be.evaluate("data/example.txt"))
    >>> [(s.key, s.title) for s in document.for_view("markdown")][:3]
    [('verdict', None), ('rates', None), ('changed_items', 'Changed items')]
    """

    key: str
    title: str | Text | None
    blocks: tuple[Block, ...]
    views: frozenset[str] = frozenset({DETAILS, MARKDOWN, HTML})
    level: int = 3
    #: A caption before the blocks: ``caption:`` on a line in the text view, ``**Caption**``
    #: in Markdown (section titles are for the summaries; a caption is shown in both).
    caption: str | None = None


@dataclass(frozen=True)
class TestCase:
    """One JUnit test case: failed (with ``failure``), skipped (with ``skipped``) or passed.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document
    >>> items = gate_document(be.evaluate("data/example.txt"), {"junit"}).suites[1]
    >>> [(c.name, c.failure) for c in items.cases if c.failure]
    [('q4', 'regressed in refusal; answered a REFUSE item')]
    """

    classname: str
    name: str
    failure: str | None = None
    failure_type: str | None = None
    detail: str | None = None
    skipped: str | None = None
    properties: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Suite:
    """A JUnit test suite.

    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document
    >>> [s.name for s in gate_document(be.evaluate("data/example.txt"), {"junit"}).suites]
    ['gate', 'golden items']
    """

    name: str
    cases: tuple[TestCase, ...]


@dataclass(frozen=True)
class Document:
    """Everything a result says, for every view.

    ``record`` is the JSON view (exact values, JSON-ready); ``suites`` the
    JUnit view; ``sections`` the prose views; ``title`` heads them.


    Examples
    --------
    >>> import buddy_eval as be
    >>> from buddy_eval.reporting import gate_document
    >>> document = gate_document(be.evaluate("data/example.txt"))
    >>> document.kind, document.title
    ('gate', 'Buddy release gate: BLOCK')
    >>> document.record["decision"]["verdict"]
    'BLOCK: refusal below threshold; integrity violations; regression in refusal'
    """

    kind: str
    title: str | Text
    sections: tuple[Section, ...]
    record: Mapping[str, Any] = field(default_factory=dict)
    suites: tuple[Suite, ...] = ()
    suites_name: str = ""
    #: The Markdown heading level of the title.
    title_level: int = 2

    def section(self, key: str) -> Section:
        for s in self.sections:
            if s.key == key:
                return s
        raise KeyError(key)

    def for_view(self, view: str) -> tuple[Section, ...]:
        return tuple(s for s in self.sections if view in s.views)
