"""Property tests: the vectorised engine against the plain-Python oracle."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buddy_eval import InputError, evaluate, load
from tests import oracle

WORDS = [
    "class",
    "Object",
    "try block",
    "catch",
    "c++",
    "a.b",
    "(x)",
    "*",
    "straße",
    "STRASSE",
    "ǅ",
    "İ",
    "x",
    "ı",
    "ﬁ",
    "fi",
]
IDS = ["q1", "q2", "q3", "Q1", "a-b", "é", "r1", "r2"]
SOURCES = ["L1", "L2", "l1", "Lé"]
BLANK = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def gate_inputs(draw):
    parts = []
    sep = lambda: draw(BLANK)  # noqa: E731
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    thresholds = [
        draw(st.sampled_from(["0", "0.5", "0.6", ".25", "1", "1.0", "0.333"])) for _ in range(3)
    ]
    parts.append("THRESHOLDS" + "".join(sep() + t for t in thresholds))
    ids = draw(st.lists(st.sampled_from(IDS), min_size=0, max_size=6, unique=True))
    for item_id in ids:
        if draw(st.booleans()):
            kind = draw(st.sampled_from(["ANSWER", "answer", "Answer"]))
            keywords = draw(st.lists(st.sampled_from(WORDS), max_size=3))
            field = ",".join(keywords) if keywords else draw(st.sampled_from(["-", ",", " , "]))
            parts.append(
                sep().join([item_id, kind, draw(st.sampled_from(SOURCES))]) + sep() + field
            )
        else:
            parts.append(
                sep().join([item_id, draw(st.sampled_from(["REFUSE", "refuse"])), "-", "-"])
            )
        if draw(st.integers(0, 5)) == 0:
            parts.append(draw(st.sampled_from(["", "# comment", "   "])))
    parts.append("RESULTS")
    seen = set()
    for _ in range(draw(st.integers(0, 14))):
        version = draw(st.sampled_from(["OLD", "NEW", "NEW", "OLD", "EXP"]))
        item_id = draw(st.sampled_from(IDS))
        if (version, item_id) in seen:
            continue
        seen.add((version, item_id))
        cited = draw(st.sampled_from([*SOURCES, "-"]))
        flag = draw(st.sampled_from(["Y", "N", "n", "y", "N", "N"]))
        words = draw(st.lists(st.sampled_from([*WORDS, "the", "an", "Try", "BLOCK"]), max_size=5))
        answer = "".join(sep() + w for w in words)
        parts.append(sep().join([version, item_id, cited, flag]) + answer)
    return (eol.join(parts) + eol).encode("utf-8")


def engine(data: bytes) -> tuple[str, int]:
    try:
        ev = evaluate(load(data))
    except InputError:
        return "", 2
    return ev.report() + "\n", 0 if ev.release else 1


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gate_inputs())
def test_engine_report_equals_oracle(data):
    assert engine(data) == oracle.run(data)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=200, deadline=None)
@given(gate_inputs())
def test_engine_metrics_equal_oracle(data):
    try:
        _, golden, results, _ = oracle.parse(data)
        loaded = load(data)
    except (oracle.OracleError, InputError):
        return
    from buddy_eval._decision import exact_values
    from buddy_eval._scoring import score_items, score_versions

    versions = sorted({v for v, _ in results})
    metrics = score_versions(score_items(loaded, versions))
    for version in versions:
        assert exact_values(metrics, version) == oracle.score(golden, results, version)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=200, deadline=None)
@given(gate_inputs(), st.integers(0, 400), st.sampled_from(["x", "", " 1 ", "\xff", "RESULTS"]))
def test_corrupted_inputs_agree_on_errors(data, position, junk):
    """Insert junk anywhere: both implementations accept it, or both reject it."""
    position = min(position, len(data))
    mutated = data[:position] + junk.encode("latin-1") + data[position:]
    got, want = engine(mutated), oracle.run(mutated)
    assert got == want


# Few keywords shared by many items: every keyword gets enough (answer, keyword)
# pairs to be tested by the grouped pyarrow kernel rather than by Python.
SHARED = ["c++", "a.b", "(x)", "Class", "straße", "fi", "K", "s"]
ANSWER_WORDS = [*SHARED, "C++", "AXB", "A.B", "STRASSE", "ﬁ", "K", "ſ", "CLASS", "(X)", "the"]


@st.composite
def crowded_inputs(draw):
    n_items = draw(st.integers(100, 160))
    keywords = [
        draw(st.lists(st.sampled_from(SHARED), min_size=1, max_size=2)) for _ in range(n_items)
    ]
    parts = ["THRESHOLDS 0.5 0.5 0.5"]
    parts += [f"q{i} ANSWER L1 {','.join(k)}" for i, k in enumerate(keywords)]
    parts.append("RESULTS")
    for version in ("OLD", "NEW"):
        for i in range(n_items):
            words = draw(st.lists(st.sampled_from(ANSWER_WORDS), max_size=6))
            glue = draw(st.sampled_from(["", " "]))
            parts.append(f"{version} q{i} L1 N {glue.join(words)}")
    return ("\n".join(parts) + "\n").encode("utf-8")


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowded_inputs())
def test_grouped_keyword_kernel_equals_python_casefold(data):
    from buddy_eval._kernels import _GROUPED

    loaded = load(data)
    pairs = Counter(k.casefold() for ks in loaded.golden["keywords"] for k in ks)
    assert max(pairs.values()) * 2 >= _GROUPED  # the kernel path is taken
    ev = evaluate(loaded)
    items = ev.items
    golden = dict(zip(loaded.golden["item_id"], loaded.golden["keywords"], strict=True))
    for row in items.itertuples():
        answer = row.answer.casefold()
        expected = [k for k in golden[row.item_id] if k.casefold() not in answer]
        assert list(row.missed_keywords) == expected, (row.version, row.item_id, row.answer)
    assert engine(data) == oracle.run(data)
