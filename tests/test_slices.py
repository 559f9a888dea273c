"""Slices: the assignment, the per-slice figures against a plain-Python oracle, the slice gate
on a planted case, the input errors, and every view showing the same figures."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval import InputError
from buddy_eval.reporting import gate_document, render_markdown, render_text
from tests import oracle
from tests.slices_helpers import planted_case
from tests.test_snapshots import cli

SLICE_NAMES = ("easy", "hard", "lab", "quiz")


# --- the oracle ------------------------------------------------------------------------


def _plain_mcnemar(fixed: int, regressed: int) -> float:
    n = fixed + regressed
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(fixed, regressed) + 1)) / 2**n
    return min(1.0, 2 * tail)


def _passes(golden, results, version, item):
    """Per metric: True / False, or None with no result (never paired)."""
    kind, source, keywords = golden[item]
    result = results.get((version, item))
    if result is None:
        return None
    cited, refused, answer = result
    if kind == "ANSWER":
        folded = answer.casefold()
        answered = not refused
        return {
            "correctness": answered and all(k.casefold() in folded for k in keywords),
            "citation": answered and cited == source,
        }
    return {"refusal": bool(refused)}


@st.composite
def sliced_inputs(draw):
    n = draw(st.integers(1, 30))
    # One item both versions answer, so that each has a result line.
    golden, results = ["anchor ANSWER L1 alpha"], ["OLD anchor L1 N alpha", "NEW anchor L1 N alpha"]
    assignment: dict[str, str] = {}
    for k in range(n):
        item = f"i{k}"
        if draw(st.booleans()):
            golden.append(f"{item} ANSWER L1 alpha")
        else:
            golden.append(f"{item} REFUSE - -")
        for version in ("OLD", "NEW"):
            outcome = draw(st.sampled_from(["pass", "pass", "fail", "refuse", "missing", "cite"]))
            if outcome == "missing":
                continue
            cited = "L2" if outcome == "cite" else "L1"
            flag = "Y" if outcome == "refuse" else "N"
            answer = "alpha" if outcome in ("pass", "cite") else "beta"
            results.append(f"{version} {item} {cited} {flag} {answer}")
        name = draw(st.sampled_from([*SLICE_NAMES, None]))
        if name is not None:
            assignment[item] = name
    text = "\n".join(["THRESHOLDS 0.5 0.5 0.5", *golden, "RESULTS", *results]) + "\n"
    return text, assignment


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sliced_inputs())
def test_per_slice_figures_equal_the_plain_oracle(case):
    text, assignment = case
    _, golden, results, _ = oracle.parse(text.encode())
    ev = be.evaluate(text, slices=assignment, settings=be.Settings(min_paired=1))
    figures = ev.slices
    names = [n for n in dict.fromkeys(assignment.values())]
    names = [n for n in names if any(assignment.get(i) == n for i in golden)]
    if any(i not in assignment for i in golden):
        names.append("(none)")
    assert [s.name for s in figures.slices] == names
    raw: dict[str, list] = {m: [] for m in oracle.METRICS}
    for s in figures.slices:
        members = [i for i in golden if assignment.get(i, "(none)") == s.name]
        assert s.items == len(members)
        sub = {i: golden[i] for i in members}
        for version in ("OLD", "NEW"):
            assert s.counts.values(version) == oracle.score(sub, results, version)
        for metric in oracle.METRICS:
            m = s.paired[metric]
            tally = {"both pass": [], "both fail": [], "fixed": [], "regressed": [], "missing": []}
            for item in members:
                before = _passes(golden, results, "OLD", item)
                after = _passes(golden, results, "NEW", item)
                applies = ("refusal" if golden[item][0] == "REFUSE" else "correctness") != (
                    "refusal" if metric == "refusal" else "correctness"
                )
                if applies:
                    continue
                if before is None or after is None:
                    tally["missing"].append(item)
                    continue
                b, c = before[metric], after[metric]
                label = {
                    (True, True): "both pass",
                    (False, False): "both fail",
                    (False, True): "fixed",
                    (True, False): "regressed",
                }[(b, c)]
                tally[label].append(item)
            assert {k: list(v) for k, v in m.ids.items()} == tally
            paired = len(members) and sum(len(v) for k, v in tally.items() if k != "missing")
            if paired:
                diff = Fraction(len(tally["fixed"]) - len(tally["regressed"]), paired)
                assert m.diff == diff
                expected = _plain_mcnemar(len(tally["fixed"]), len(tally["regressed"]))
                assert m.p_value == pytest.approx(expected, rel=1e-9, abs=1e-15)
                raw[metric].append(m.p_value)
            else:
                assert m.p_value is None
                raw[metric].append(None)
    for metric in oracle.METRICS:
        adjusted = [s.p_holm_across_slices[metric] for s in figures.slices]
        for got, want in zip(adjusted, oracle.holm(raw[metric]), strict=True):
            assert (got is None) == (want is None)
            if want is not None:
                assert got == pytest.approx(want, rel=1e-12)


def test_the_whole_input_is_one_slice_when_every_item_is_in_it():
    ev = be.evaluate("data/sample_release.txt")
    golden = ev.data.golden["item_id"].tolist()
    sliced = be.evaluate("data/sample_release.txt", slices=dict.fromkeys(golden, "all"))
    (only,) = sliced.slices.slices
    for whole, part in zip(ev.paired.metrics, only.paired.metrics, strict=True):
        assert part.table == whole.table and part.ids == whole.ids
        assert part.p_value == whole.p_value and part.diff_ci == whole.diff_ci
        assert part.baseline.gate == whole.baseline.gate
    record, sliced_record = (be.reporting.json_record(e) for e in (ev, sliced))
    assert sliced_record["slices"]["all"]["versions"] == record["versions"]


def test_slices_with_repeated_trials_count_as_the_whole_input_does():
    golden = be.load("data/sample_trials.txt", trials=True).golden["item_id"].tolist()
    halves = {item: ("a" if k % 2 else "b") for k, item in enumerate(golden)}
    ev = be.evaluate("data/sample_trials.txt", trials=True, slices=halves)
    from buddy_eval._scoring import grid_counts

    for s in ev.slices.slices:
        mask = ev.slice_assignment.codes == ev.slice_assignment.names.index(s.name)
        expected = grid_counts(ev._grid, mask)
        assert s.counts.values("NEW") == expected.values("NEW")
        assert s.counts.values("OLD") == expected.values("OLD")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sliced_inputs(), st.randoms(use_true_random=False))
def test_per_slice_counts_equal_the_whole_input_counts_of_each_slice(case, rng):
    # One tally of small codes per slice (one trial per cell) against the counts of the
    # whole input restricted to the slice's items, with and without a set of compared items.
    from buddy_eval._scoring import counts_by_slice, grid_counts

    text, assignment = case
    ev = be.evaluate(text, slices=assignment)
    codes, n_slices = ev.slice_assignment.codes, len(ev.slice_assignment.names)
    for items in (None, np.array([rng.random() < 0.7 for _ in codes], bool)):
        per_slice = counts_by_slice(ev._grid, codes, n_slices, items)
        for code, got in enumerate(per_slice):
            mask = codes == code if items is None else (codes == code) & items
            want = grid_counts(ev._grid, mask)
            for name in ("numerator", "denominator", "missing"):
                assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
            assert got.scale is None and want.scale is None


# --- the planted case and the slice gate ----------------------------------------------


@pytest.fixture
def planted(tmp_path):
    text, slices = planted_case()
    (tmp_path / "input.txt").write_text(text)
    (tmp_path / "slices.csv").write_text(slices)
    return tmp_path


def test_planted_case_releases_without_the_slice_rule(planted):
    status, out, err = cli("input.txt", "--slices", "slices.csv", cwd=planted)
    assert status == 0, err
    assert out.decode().splitlines() == [
        "OLD: correctness 0.58 citation 1.00 refusal n/a violations 0",
        "NEW: correctness 0.77 citation 1.00 refusal n/a violations 0",
        "RELEASE",
    ]


def test_planted_case_blocks_with_the_slice_rule_naming_only_the_slice_that_fell(planted):
    args = ("input.txt", "--slices", "slices.csv", "--slice-rule", "drop")
    status, out, _ = cli(*args, "--slice-margin", "0.05", cwd=planted)
    assert status == 1
    assert out.decode().splitlines()[-1] == "BLOCK: regression in correctness on slice 'hard'"
    status, out, _ = cli(*args, "--format", "json", cwd=planted)
    record = json.loads(out)
    assert record["decision"]["reasons"] == ["regression in correctness on slice 'hard'"]
    hard = record["slices"]["hard"]
    assert hard["items"] == 40
    assert hard["versions"]["OLD"]["correctness"]["numerator"] == 40
    assert hard["versions"]["NEW"]["correctness"]["numerator"] == 25
    assert hard["comparison"]["correctness"]["regressed"] == 15
    assert record["slices"]["easy"]["comparison"]["correctness"]["fixed"] == 60
    assert record["versions"]["NEW"]["correctness"]["value"] > 0.5


def test_a_margin_larger_than_the_drop_releases(planted):
    args = ("input.txt", "--slices", "slices.csv", "--slice-rule", "drop")
    status, out, _ = cli(*args, "--slice-margin", "0.4", cwd=planted)
    assert status == 0 and out.decode().splitlines()[-1] == "RELEASE"


def test_the_slice_reason_comes_after_the_existing_reasons():
    text, slices = planted_case()
    text = text.replace("THRESHOLDS 0.5 0.5 0.5", "THRESHOLDS 0.9 0.5 0.5")
    assignment = dict(line.split(",") for line in slices.splitlines()[1:])
    ev = be.evaluate(text, slices=assignment, settings=be.Settings(slice_rule="drop"))
    assert ev.decision.reasons == (
        "correctness below threshold",
        "regression in correctness on slice 'hard'",
    )


def test_a_small_slice_never_blocks_and_says_what_it_could_hide():
    text, slices = planted_case()
    assignment = dict(line.split(",") for line in slices.splitlines()[1:])
    # Five of the hard items, all regressed, in a slice of their own: too few to tell.
    tiny = {f"h{k:02d}": "tiny" for k in range(35, 40)}
    assignment.update(tiny)
    ev = be.evaluate(
        text, slices=assignment, settings=be.Settings(slice_rule="drop", min_paired=20)
    )
    tiny_checks = [c for c in ev.decision.checks if c.slice == "tiny"]
    assert [(c.metric, c.measured, c.blocks) for c in tiny_checks] == [
        ("correctness", False, False),
        ("citation", False, False),
    ]
    # All five pass in the baseline: the slice could hide 5 of the 240 ANSWER items.
    assert tiny_checks[0].hidden == Fraction(5, 240)
    details = render_text(gate_document(ev, {"details"}))
    assert (
        "- slice 'tiny', correctness: not measured, too few items to tell; it could hide a drop "
        "of up to 0.02 in the whole input's correctness" in details.splitlines()
    )
    assert ev.decision.reasons == ("regression in correctness on slice 'hard'",)


def test_without_the_rule_slices_never_change_the_three_lines():
    text, slices = planted_case()
    assignment = dict(line.split(",") for line in slices.splitlines()[1:])
    assert be.evaluate(text, slices=assignment).report() == be.evaluate(text).report()
    assert all(c.kind != "slice" for c in be.evaluate(text, slices=assignment).decision.checks)


# --- input errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "id,slice\nq1,easy\nq2,hard\nq1,hard\n",
            "s.csv:4: id 'q1' is listed twice (first on line 2); an item is in one slice",
        ),
        (
            "id,slice\nq1,easy,extra\n",
            "s.csv:2: expected two fields id,slice, got 3: 'q1,easy,extra'",
        ),
        ("item,group\nq1,easy\n", "s.csv:1: expected the header id,slice, got 'item,group'"),
        (
            "id,slice\nq1,(none)\n",
            "s.csv:2: the slice name '(none)' is reserved for the golden items not listed; "
            "choose another name",
        ),
        ("", "s.csv: the slices file is empty; expected the header id,slice"),
        ("id,slice\nq1,\n", "s.csv:2: expected a slice name for 'q1', got an empty one"),
        ('id,slice\n"q1,easy\n', "s.csv:2: malformed CSV: unexpected end of data"),
    ],
)
def test_a_bad_slices_file_is_an_input_error(tmp_path, content, message):
    (tmp_path / "s.csv").write_text(content)
    status, out, err = cli(str(be_example()), "--slices", "s.csv", cwd=tmp_path)
    assert (status, out) == (2, b"")
    assert err.decode() == f"buddy-eval: error: {message}\n"


def be_example():
    from tests.conftest import ROOT

    return ROOT / "data" / "example.txt"


def test_an_unknown_id_is_a_warning(tmp_path):
    (tmp_path / "s.csv").write_text("id,slice\nq1,easy\nzz,easy\n")
    status, _, err = cli(str(be_example()), "--slices", "s.csv", cwd=tmp_path)
    assert status == 1
    assert "buddy-eval: warning: s.csv: id 'zz' is not a golden item; it is ignored\n" in (
        err.decode()
    )


def test_a_missing_slices_file_is_an_input_error(tmp_path):
    status, out, err = cli(str(be_example()), "--slices", "nope.csv", cwd=tmp_path)
    assert (status, out) == (2, b"")
    assert err.decode().startswith("buddy-eval: error: nope.csv: cannot read the slices file")


def test_the_input_error_comes_before_the_slices_file_error(tmp_path):
    # The slices file is read while the input loads: the input's error is still the first.
    (tmp_path / "bad.txt").write_text("THRESHOLDS 0.5 0.5\n")
    (tmp_path / "s.csv").write_text("id,slice\nq1,easy,extra\n")
    status, out, err = cli("bad.txt", "--slices", "s.csv", cwd=tmp_path)
    assert (status, out) == (2, b"")
    assert err.decode().startswith("buddy-eval: error: bad.txt:1: ")
    with pytest.raises(be.InputError) as raised:
        be.evaluate(tmp_path / "bad.txt", slices=tmp_path / "nope.csv")
    assert raised.value.source == str(tmp_path / "bad.txt")
    with pytest.raises(be.InputError) as raised:
        be.evaluate(be_example(), slices=tmp_path / "nope.csv")
    assert str(raised.value).startswith(f"{tmp_path / 'nope.csv'}: cannot read the slices file")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--slice-rule", "drop"],
            "--slice-rule needs slices: give --slices PATH (a CSV file id,slice)",
        ),
        (
            ["--slices", "s.csv", "--slice-margin", "0.1"],
            "--slice-margin is the margin of the slice rule: give --slice-rule drop",
        ),
    ],
)
def test_slice_options_need_each_other(tmp_path, args, message):
    (tmp_path / "s.csv").write_text("id,slice\nq1,easy\n")
    status, out, err = cli(str(be_example()), *args, cwd=tmp_path)
    assert (status, out, err.decode()) == (2, b"", f"buddy-eval: error: {message}\n")


def test_the_python_api_takes_a_dataframe_or_a_mapping(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("id,slice\nq1,easy\nq4,hard\n")
    frame = pd.DataFrame({"id": ["q1", "q4"], "slice": ["easy", "hard"]})
    results = [
        be.evaluate("data/example.txt", slices=source)
        for source in (str(path), frame, {"q1": "easy", "q4": "hard"})
    ]
    tables = [be.slice_table(ev) for ev in results]
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])
    assert results[0].slice_assignment.digest == results[2].slice_assignment.digest
    duplicated = pd.DataFrame({"id": ["q1", "q1"], "slice": ["easy", "hard"]})
    with pytest.raises(InputError) as caught:
        be.evaluate("data/example.txt", slices=duplicated)
    assert str(caught.value) == (
        "<slices DataFrame>, row 2: id 'q1' is listed twice (first on row 1); an item is in one "
        "slice"
    )
    with pytest.raises(InputError, match="slices must be a path"):
        be.evaluate("data/example.txt", slices=42)
    with pytest.raises(InputError, match="the slice rule needs slices"):
        be.evaluate("data/example.txt", settings=be.Settings(slice_rule="drop"))
    with pytest.raises(InputError, match="this evaluation has no slices"):
        be.slice_table(be.evaluate("data/example.txt"))


# --- the views agree -------------------------------------------------------------------


def test_every_view_shows_the_same_slice_figures():
    text, slices = planted_case()
    assignment = dict(line.split(",") for line in slices.splitlines()[1:])
    ev = be.evaluate(text, slices=assignment)
    table = be.slice_table(ev)
    record = be.reporting.json_record(ev)
    for row in table.itertuples():
        comparison = record["slices"][row.slice]["comparison"][row.metric]
        assert (row.n_paired, row.fixed, row.regressed) == (
            comparison["n_paired"],
            comparison["fixed"],
            comparison["regressed"],
        )
        assert row.p_value_holm_across_slices == comparison["p_value_holm_across_slices"]
        version = record["slices"][row.slice]["versions"]["NEW"][row.metric]
        assert row.candidate_rate == version["value"]
    document = gate_document(ev)
    markdown = render_markdown(document)
    details = render_text(document)
    assert "| hard | correctness | 40 | 0 | 15 | 1.00 | 0.63 | -0.38 | < 0.001 |" in markdown
    assert any(
        line.split()[:7] == ["hard", "correctness", "40", "0", "15", "1.00", "0.63"]
        for line in details.splitlines()
    )
    items = document.suites[1]
    assert {c.name: dict(c.properties)["slice"] for c in items.cases}["h03"] == "hard"


def test_markdown_lists_the_slices_that_changed_first():
    assignment = {"q1": "calm", "q2": "calm", "q3": "moved"}
    ev = be.evaluate("data/example.txt", slices=assignment)
    lines = [
        line
        for line in render_markdown(gate_document(ev, {"markdown"})).splitlines()
        if line.startswith("| ") and "metric" not in line
    ]
    slices_rows = [line.split(" | ")[0].removeprefix("| ") for line in lines[-5:]]
    assert slices_rows == ["moved", "moved", "\\(none\\)", "calm", "calm"]


def test_slice_names_are_escaped_in_markdown():
    ev = be.evaluate("data/example.txt", slices={"q1": "a|b"})
    assert "| a\\|b | correctness |" in render_markdown(gate_document(ev, {"markdown"}))


def test_plot_slices_draws_one_row_per_slice():
    import matplotlib

    matplotlib.use("Agg")
    ev = be.evaluate("data/example.txt", slices={"q1": "$x$", "q3": "hard"})
    ax = be.plot_slices(ev)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["$x$", "hard", "(none)"]
    assert not math.isnan(ax.get_xlim()[1])


# --- reading a slices file: the column-wise reader equals the line-by-line one -----------

_GOOD_LINES = st.lists(
    st.tuples(
        st.sampled_from(["q1", "q2", "q3", "q4", "zz", "yy"]),
        st.sampled_from(["easy", "hard", "a b", "lab"]),
    ),
    unique_by=lambda pair: pair[0],
    max_size=6,
).map(lambda pairs: [f"{item},{label}" for item, label in pairs])

#: One line a plain reader must leave alone, or that is wrong: each is tried somewhere.
_ODD_LINE = st.sampled_from(
    ["", '"q1",easy', "q2,hard,x", "q4", "q1,h\u00e9", '"q1,easy', " q2,easy", "q3 ,hard"]
    + [",", "q1,", "zz,(none)", "q1,easy", "q2,\thard"]
)

SLICE_FILE_LINES = st.tuples(_GOOD_LINES, st.lists(_ODD_LINE, max_size=1), st.integers(0, 6)).map(
    lambda drawn: drawn[0][: drawn[2]] + drawn[1] + drawn[0][drawn[2] :]
)


def _assign_or_error(raw: bytes, careful: bool):
    import io
    from unittest import mock

    from buddy_eval import _slices

    stream = io.BytesIO(raw)
    stream.name = "s.csv"
    data = be.load(be_example())
    reader = (lambda _: None) if careful else _slices.split_csv_pairs
    with mock.patch.object(_slices, "split_csv_pairs", reader):
        try:
            found = be.assign_slices(stream, data)
        except InputError as error:
            return str(error)
    return (found.names, found.codes.tolist(), found.digest, found.warnings)


@settings(max_examples=150, deadline=None)
@given(
    SLICE_FILE_LINES,
    st.sampled_from(["id,slice", "id, slice", "item,slice", ""]),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
def test_the_plain_file_reader_equals_the_careful_one(lines, header, newline, bom, last):
    text = newline.join([header, *lines]) + (newline if last else "")
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    fast = _assign_or_error(raw, careful=False)
    assert fast == _assign_or_error(raw, careful=True)
    if isinstance(fast, tuple):  # the digest is of the stripped id<TAB>slice lines, in order
        import csv
        import hashlib

        rows = [r for r in csv.reader(text.splitlines()[1:]) if r]
        expected = "".join(f"{a.strip()}\t{b.strip()}\n" for a, b in rows)
        assert fast[2] == hashlib.sha256(expected.encode()).hexdigest()


def test_the_digest_of_a_fixed_file_does_not_change(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("id,slice\nq1,easy\nq2,hard\nq4,hard\n")
    digest = be.assign_slices(str(path), be.load(be_example())).digest
    # sha256(b"q1\teasy\nq2\thard\nq4\thard\n"), the form a ledger has always stored
    assert digest == "24a6ece390149390d1cf2e6415cc86e13ddaf076c3d7d829c5da08faf7d38e1b"
