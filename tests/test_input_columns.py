"""The column layer under the gate: answer views, lazy DataFrames (kernels: test_kernels.py)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest

from buddy_eval import evaluate, load
from buddy_eval._input_columns import Texts
from buddy_eval._parsing import split_bytes


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
    from buddy_eval._kernels import _GROUPED

    keyword = "a" * (length - 1) + "b"
    hit, near = "x " + keyword.upper() + " y", "A" * length
    answers = [hit if i % 3 else near for i in range(_GROUPED)]
    ev = evaluate(_shared_keyword_input(keyword, answers))
    assert ev.values("NEW")["correctness"] == Fraction(sum(a is hit for a in answers), _GROUPED)
    assert ev.items["correct"].tolist() == [a is hit for a in answers] * 2


def test_the_keyword_rule_uses_the_kernel_with_dash_for_none():
    from buddy_eval._input_rules import NO_KEYWORDS, split_keywords

    assert NO_KEYWORDS == "-"
    assert split_keywords(pa.array(["-", " - ", "a, b", None])).to_pylist() == [
        [],
        ["-"],
        ["a", "b"],
        [],
    ]
