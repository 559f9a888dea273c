"""The fast kernels against their plain-Python reference twins (buddy_eval._kernels)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buddy_eval import _kernels as kernels
from buddy_eval._kernels import Texts

LINE_BYTES = st.lists(
    st.sampled_from([b"a", b"Z", b" ", b"\t", b"\r", b"\n", b"#", b",", b"\xc3\xa9", b"-"]),
    max_size=60,
).map(b"".join)


@given(LINE_BYTES, st.booleans())
def test_split_lines_equals_reference(data, bom):
    start = 3 if bom else 0
    data = b"\xef\xbb\xbf" + data if bom else data
    starts, ends = kernels.split_lines(data, start)
    got = [data[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    assert got == kernels.split_lines_reference(data, start)
    assert starts.dtype == np.int32


@given(LINE_BYTES, st.sampled_from([b"RESULTS", b"a", b"#a"]))
def test_first_byte_and_find_line_equal_reference(data, text):
    data = data.replace(b"\xc3\xa9", b"R")
    starts, ends = kernels.split_lines(data)
    lines = kernels.split_lines_reference(data)
    assert kernels.first_byte(data, starts, ends).tolist() == [
        line[0] if line else -1 for line in lines
    ]
    want = lines.index(text) if text in lines else -1
    assert kernels.find_line(data, starts, ends, text) == want


FIELD_LINES = st.lists(
    st.text(alphabet="ab é\t,", max_size=14).map(lambda t: t.strip(" \t")).filter(bool),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(FIELD_LINES, st.integers(1, 5), st.booleans())
def test_split_fields_equals_reference(lines, n_fields, view_last):
    data = "\n".join(lines).encode()
    starts, ends = kernels.split_lines(data)
    if not lines:
        starts, ends = starts[:0], ends[:0]
    columns, found = kernels.split_fields(data, starts, ends, n_fields, view_last=view_last)
    if view_last:
        assert isinstance(columns[-1], Texts)
        columns[-1] = columns[-1].column()
    assert len(columns) == n_fields
    for i, line in enumerate(lines):
        fields, runs = kernels.split_fields_reference(line, n_fields)
        assert [c[i].as_py() for c in columns] == fields
        assert found[i] == runs


CSV_BYTES = st.lists(
    st.sampled_from([b"q1", b"Z", b" ", b"\t", b"\r", b"\n", b",", b'"', b"\xc3\xa9", b"-"]),
    max_size=60,
).map(b"".join)

PLAIN_FIELD = st.from_regex(r"[A-Za-z0-9_.-]([A-Za-z0-9_. -]{0,6}[A-Za-z0-9_.-])?", fullmatch=True)


def _pairs(data: bytes):
    columns = kernels.split_csv_pairs(data)
    if columns is None:
        return None
    items, labels = (column.to_pylist() for column in columns)
    return [[item, label] for item, label in zip(items, labels, strict=True)]


@settings(max_examples=300, deadline=None)
@given(CSV_BYTES)
def test_split_csv_pairs_equals_reference_whenever_it_answers(data):
    pairs = _pairs(data)
    if pairs is not None:
        assert pairs == kernels.split_csv_pairs_reference(data)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(PLAIN_FIELD, st.one_of(PLAIN_FIELD, st.just(""))), min_size=1, max_size=30),
    st.lists(st.integers(0, 40), max_size=4),
    st.booleans(),
)
def test_split_csv_pairs_answers_for_every_plain_file(rows, empty_lines_after, final_newline):
    lines = [f"{a},{b}" for a, b in rows]
    for at in sorted(empty_lines_after, reverse=True):
        lines.insert(min(at, len(lines)), "")
    data = ("\n".join(lines) + ("\n" if final_newline else "")).encode()
    assert _pairs(data) == [list(r) for r in rows] == kernels.split_csv_pairs_reference(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n",
        b'id,slice\nq1,"hard"\n',  # a quote
        b"id,slice\nq1,hard,x\n",  # three fields
        b"id,slice\nq1\n",  # one field
        b"id,slice\nq1, hard\n",  # a space a reader strips
        b"id,slice\nq1 ,hard\n",
        b"id,slice\r\nq1,hard\r\n",  # a carriage return
        b"id,slice\nq1,h\tard\n",  # a tab
        "id,slice\nq1,h\u00e9\n".encode(),  # not ASCII
    ],
)
def test_split_csv_pairs_leaves_anything_but_plain_to_the_careful_reader(data):
    assert kernels.split_csv_pairs(data) is None


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("a, b ,,c", ["a", "b", "c"]),
        ("-", []),
        ("", []),
        (" - ", ["-"]),  # only a field that is exactly "-" means none
        ("--", ["--"]),
        ("a,-", ["a", "-"]),
        ("\tx\t", ["x"]),
        (",", []),
        (" , \t, ", []),
        ("é,ß, straße ", ["é", "ß", "straße"]),
        ("hash map,try  block", ["hash map", "try  block"]),
    ],
)
def test_split_keywords_cases(field, expected):
    assert kernels.split_keywords(pa.array([field])).to_pylist() == [expected]
    assert kernels.split_keywords_reference(field) == expected


def test_split_keywords_on_sliced_chunked_and_null_input():
    sliced = pa.array(["x,y", " z ", "-", None]).slice(1)
    assert kernels.split_keywords(sliced).to_pylist() == [["z"], [], []]
    chunked = pa.chunked_array([pa.array(["a,b"]), pa.array(["", "c"])])
    assert kernels.split_keywords(chunked).to_pylist() == [["a", "b"], [], ["c"]]
    assert kernels.split_keywords(pa.array([], pa.string())).to_pylist() == []
    assert kernels.split_keywords(pa.array(["", ""])).to_pylist() == [[], []]


@given(
    st.lists(st.one_of(st.none(), st.text(alphabet=" \t,-aZé", max_size=12)), max_size=30),
    st.sampled_from(["-", "--", "é"]),
)
def test_split_keywords_equals_reference(fields, none):
    assert kernels.split_keywords(pa.array(fields, pa.string()), none=none).to_pylist() == [
        kernels.split_keywords_reference(f, none=none) for f in fields
    ]


@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "é", ""])), max_size=40))
def test_first_appearance_codes_and_repeated_equal_reference(values):
    codes = kernels.first_appearance_codes(pa.array(values, pa.string()))
    numbering: dict[str, int] = {}
    want = [-1 if v is None else numbering.setdefault(v, len(numbering)) for v in values]
    assert codes.tolist() == want
    seen: set[int] = set()
    repeated = []
    for c in want:
        repeated.append(c >= 0 and c in seen)
        seen.add(c)
    assert kernels.repeated(np.array(want, np.int64)).tolist() == repeated


@given(
    st.lists(st.tuples(st.integers(0, 30), st.booleans()), max_size=50),
    st.sampled_from([31, 10**9]),
)
def test_seen_before_equals_reference(rows, span):
    keys = np.array([k for k, _ in rows], np.int64)
    valid = np.array([v for _, v in rows], bool)
    seen: set[int] = set()
    want = []
    for k, v in rows:
        want.append(v and k in seen)
        if v:
            seen.add(k)
    assert kernels.seen_before(keys, valid, span).tolist() == want


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(-1, 3), max_size=60),  # many repeats: the sort
        st.lists(st.integers(-1, 40), max_size=60),  # a few repeats: the passes
        st.lists(st.integers(-1, 40), max_size=60).map(sorted),  # one run: the sort
    ),
)
def test_occurrences_equals_reference(keys):
    out = kernels.occurrences(np.array(keys, np.int64), 41)
    assert out.tolist() == kernels.occurrences_reference(keys)


@given(st.lists(st.tuples(st.integers(0, 30), st.booleans()), max_size=60))
def test_counts_per_slot_equals_reference(rows):
    slots = np.array([s for s, _ in rows], np.int64)
    where = np.array([kept for _, kept in rows], bool)
    want = kernels.counts_per_slot_reference(slots.tolist(), 31, where.tolist())
    assert kernels.counts_per_slot(slots, 31, where).tolist() == want
    everything = kernels.counts_per_slot_reference(slots.tolist(), 31, [True] * len(rows))
    assert kernels.counts_per_slot(slots, 31).tolist() == everything


# Cells (group in 0-2, count, weight <= count, kept), counts at most 1, 3 or 7.
COUNT_CELLS = (
    st.integers(1, 7)
    .flatmap(
        lambda top: st.lists(
            st.tuples(st.integers(0, 2), st.integers(0, top), st.integers(0, top), st.booleans()),
            max_size=60,
        )
    )
    .map(lambda cells: [(g, n, min(w, n), kept) for g, n, w, kept in cells])
)


def _per_count(cells: np.ndarray, sums: np.ndarray) -> dict:
    """(group, count) -> (cells, sum) where a group has cells of that count."""
    return {
        (g, t): (int(cells[g, t]), int(sums[g, t])) for g, t in zip(*np.nonzero(cells), strict=True)
    }


@given(COUNT_CELLS)
def test_sums_by_count_equals_reference(cells):
    """Keyed groups (the bincounts) and the rows of a 2-D grid (levels up to 3) alike."""
    groups, counts, weights = (np.array([c[k] for c in cells], np.int64) for k in range(3))
    where = np.array([c[3] for c in cells], bool)
    want = kernels.sums_by_count_reference(
        groups.tolist(), counts.tolist(), weights.tolist(), where.tolist()
    )
    assert _per_count(*kernels.sums_by_count(counts, weights, where, groups, 3)) == want
    # The same cells as the rows of a 2-D grid, each row padded with cells left out.
    width = max([int(np.count_nonzero(groups == g)) for g in range(3)]) if cells else 0
    rows = [np.zeros((3, width), np.int64) for _ in range(2)] + [np.zeros((3, width), bool)]
    for g in range(3):
        mine = np.flatnonzero(groups == g)
        for row, values in zip(rows, (counts, weights, where), strict=True):
            row[g, : len(mine)] = values[mine]
    assert _per_count(*kernels.sums_by_count(*rows)) == want
    # Booleans read as uint8, as a grid of one trial per cell holds its counts.
    ones, passed = counts > 0, (counts > 0) & (weights > 0)
    got = kernels.sums_by_count(ones[None].view(np.uint8), passed[None].view(np.uint8), where[None])
    want = kernels.sums_by_count_reference(
        [0] * len(cells), ones.astype(int).tolist(), passed.astype(int).tolist(), where.tolist()
    )
    assert _per_count(*got) == want
    got = kernels.sums_by_count(ones.view(np.uint8), passed, where, groups, 3)
    want = kernels.sums_by_count_reference(
        groups.tolist(), ones.astype(int).tolist(), passed.astype(int).tolist(), where.tolist()
    )
    assert _per_count(*got) == want


TEXT_WORDS = ["c++", "a.b", "(x)", "Class", "straße", "STRASSE", "ﬁ", "fi", "K", "ſ", "İ", "i̇"]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([*TEXT_WORDS, "the", " "]), max_size=6), max_size=12),
    st.lists(st.sampled_from([*TEXT_WORDS, "x" * 70, "A" * 65]), min_size=1, max_size=5),
    st.integers(0, 200),
    st.booleans(),
)
def test_contains_casefold_equals_reference(texts, words, n_pairs, grouped):
    texts = ["".join(t) for t in texts] or [""]
    rng = np.random.default_rng(n_pairs)
    # Many pairs per word take the grouped kernel path, few the Python one.
    n_pairs = n_pairs if grouped else min(n_pairs, 20)
    text_of_pair = rng.integers(0, len(texts), n_pairs).astype(np.int32)
    word_of_pair = rng.integers(0, len(words), n_pairs).astype(np.int32)
    for view in (Texts(pa.array(texts)), _as_view(texts)):
        got = kernels.contains_casefold(view, text_of_pair, pa.array(words), word_of_pair)
        want = kernels.contains_casefold_reference(texts, text_of_pair, words, word_of_pair)
        assert got.tolist() == want


def _as_view(texts: list[str]) -> Texts:
    """The texts as a step-2 view on one buffer, as a file's answers are."""
    data = "\n".join(texts).encode()
    lengths = [len(t.encode()) for t in texts]
    starts = np.cumsum([0] + [n + 1 for n in lengths[:-1]])
    ends = starts + np.array(lengths)
    return Texts(kernels._strings_between(data, starts, ends), step=2)


def test_texts_non_ascii_rows_equal_reference():
    texts = ["abc", "naïve", "", "ß", "x"]
    for view in (Texts(pa.array(texts)), _as_view(texts)):
        assert view.non_ascii_rows().tolist() == [1, 3]
        assert view.column().to_pylist() == texts


def test_is_utf8():
    assert kernels.is_utf8("é".encode())
    assert not kernels.is_utf8(b"a\xffb")
    assert kernels.is_utf8(b"")


def test_in_parallel_returns_both_and_raises_the_first_error():
    assert kernels.in_parallel(lambda: 1, lambda: 2) == (1, 2)

    def fail():
        raise KeyError("first")

    with pytest.raises(KeyError, match="first"):
        kernels.in_parallel(fail, lambda: 2)


def test_kernels_import_nothing_from_the_package():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(kernels.__file__).read_text())
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert relative == []
