"""The column layer under the gate: keyword splitting, answer views, lazy DataFrames."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from buddy_eval import evaluate, load
from buddy_eval.columns import Texts
from buddy_eval.parsing import split_bytes
from buddy_eval.validation import split_keywords


def keywords_by_loop(field: str | None) -> list[str]:
    """The rule, spelled out: ``-`` is none; split on commas, strip blanks, drop empty."""
    if field is None or field == "-":
        return []
    return [k.strip(" \t") for k in field.split(",") if k.strip(" \t")]


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
    assert split_keywords(pa.array([field])).to_pylist() == [expected]


def test_split_keywords_on_sliced_chunked_and_null_input():
    sliced = pa.array(["x,y", " z ", "-", None]).slice(1)
    assert split_keywords(sliced).to_pylist() == [["z"], [], []]
    chunked = pa.chunked_array([pa.array(["a,b"]), pa.array(["", "c"])])
    assert split_keywords(chunked).to_pylist() == [["a", "b"], [], ["c"]]
    assert split_keywords(pa.array([], pa.string())).to_pylist() == []
    assert split_keywords(pa.array(["", ""])).to_pylist() == [[], []]


@given(st.lists(st.one_of(st.none(), st.text(alphabet=" \t,-aZé", max_size=12)), max_size=30))
def test_split_keywords_matches_a_plain_loop(fields):
    assert split_keywords(pa.array(fields, pa.string())).to_pylist() == [
        keywords_by_loop(f) for f in fields
    ]


def test_answers_are_a_view_on_the_input_bytes():
    data = (
        b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nq2 REFUSE - -\nRESULTS\n"
        b"OLD q1 L1 N an  answer caf\xc3\xa9\nOLD q2 - Y\nNEW q1 L1 N  x \n"
    )
    raw = split_bytes(data, "t")
    answers = raw.results["answer"]
    assert isinstance(answers, Texts) and answers.step == 2 and len(answers) == 3
    assert answers.values.buffers()[2].address == pa.py_buffer(data).address
    assert answers.column().to_pylist() == ["an  answer café", "", "x"]
    assert answers.take(np.array([2, 0])).to_pylist() == ["x", "an  answer café"]
    assert answers.take(np.array([1, 0]), np.array([True, False])).to_pylist() == [
        None,
        "an  answer café",
    ]
    assert answers.non_ascii_rows().tolist() == [0]


def test_texts_of_a_plain_array():
    texts = Texts(pa.array(["abc", "naïve", "", "ß"]))
    assert len(texts) == 4
    assert texts.non_ascii_rows().tolist() == [1, 3]
    assert texts.take(np.array([3, 0])).to_pylist() == ["ß", "abc"]
    assert Texts(pa.array([], pa.string())).non_ascii_rows().tolist() == []


def test_dataframes_are_built_on_first_use_and_kept():
    data = load("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 - Y no\n")
    assert "golden" not in vars(data) and "results" not in vars(data)
    assert data.results is data.results
    assert data.results["answer"].tolist() == ["a", "no"]
    assert data.golden["keywords"].tolist() == [["a"]]
    assert str(data.results["version"].dtype) == "str"


def _shared_keyword_input(keyword: str, answers: list[str]) -> bytes:
    n = len(answers)
    lines = ["THRESHOLDS 0 0 0", *(f"q{i} ANSWER L1 {keyword}" for i in range(n)), "RESULTS"]
    lines += [f"OLD q{i} L1 N {a}" for i, a in enumerate(answers)]
    lines += [f"NEW q{i} L1 N {a}" for i, a in enumerate(answers)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("length", [64, 65, 5000, 800_000])
def test_long_shared_keywords_are_matched_exactly(length):
    from buddy_eval.kernels import _GROUPED

    keyword = "a" * (length - 1) + "b"
    hit, near = "x " + keyword.upper() + " y", "A" * length
    answers = [hit if i % 3 else near for i in range(_GROUPED)]
    ev = evaluate(_shared_keyword_input(keyword, answers))
    assert ev.values("NEW")["correctness"] == Fraction(sum(a is hit for a in answers), _GROUPED)
    assert ev.items["correct"].tolist() == [a is hit for a in answers] * 2
