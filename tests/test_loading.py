"""The loader: every parsing rule and every input error of SPEC section 1."""

from __future__ import annotations

import io
from fractions import Fraction

import pandas as pd
import pytest

from buddy_eval import InputError, Thresholds, from_frames, load
from buddy_eval._loading import EvalInput

HEAD = "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nq2 REFUSE - -\nRESULTS\n"
BODY = "OLD q1 L1 N a\nOLD q2 - Y no\nNEW q1 L1 N a\nNEW q2 - Y no\n"
GOOD = HEAD + BODY


def error_of(text: str | bytes) -> InputError:
    with pytest.raises(InputError) as info:
        load(text.encode("utf-8") if isinstance(text, str) else text)
    return info.value


# --- what the loader returns -------------------------------------------------


def test_golden_frame_contents_and_dtypes():
    data = load(
        "THRESHOLDS 0.6 0.6 1.0\nq1 answer L3 class, object ,,\nq2 Refuse X y,z\nRESULTS\n"
        "OLD q1 L3 n x\nNEW q1 - Y\n"
    )
    golden = data.golden
    assert list(golden.columns) == ["item_id", "item_type", "required_source", "keywords", "line"]
    assert golden["item_id"].tolist() == ["q1", "q2"]
    assert golden["item_type"].tolist() == ["ANSWER", "REFUSE"]
    assert list(golden["item_type"].cat.categories) == ["ANSWER", "REFUSE"]
    assert golden["required_source"].iloc[0] == "L3"
    assert pd.isna(golden["required_source"].iloc[1])  # REFUSE: source ignored
    assert golden["keywords"].tolist() == [["class", "object"], []]  # REFUSE: keywords ignored
    assert golden["line"].tolist() == [2, 3]
    assert str(golden["line"].dtype) == "int64"


def test_results_frame_contents_and_dtypes():
    data = load(GOOD.replace("NEW q2 - Y no", "NEW q2 - y   several   spaced  words"))
    results = data.results
    assert list(results.columns) == ["version", "item_id", "cited", "refused", "answer", "line"]
    assert results["version"].tolist() == ["OLD", "OLD", "NEW", "NEW"]
    assert results["cited"].isna().tolist() == [False, True, False, True]
    assert results["refused"].tolist() == [False, True, False, True]
    assert results["refused"].dtype == bool
    assert results["answer"].iloc[3] == "several   spaced  words"  # the rest of the line as written
    assert results["line"].tolist() == [5, 6, 7, 8]
    assert data.thresholds == Thresholds(*(pd.Series([0.5] * 3).map(lambda _: 1 / 2).tolist()))
    assert data.versions == ["OLD", "NEW"]
    assert data.results_line == 4


def test_thresholds_are_exact_fractions():
    from fractions import Fraction

    data = load(GOOD.replace("0.5 0.5 0.5", "0.6 .25 1"))
    assert data.thresholds.as_dict() == {
        "correctness": Fraction(3, 5),
        "citation": Fraction(1, 4),
        "refusal": Fraction(1),
    }


def test_crlf_bom_tabs_blank_lines_and_comments():
    text = (
        "\ufeff# head\r\n\r\n\tTHRESHOLDS\t0.5 0.5  0.5 \r\n  # note\r\n"
        "q1\tANSWER L1\ta\r\nRESULTS\r\nOLD q1 L1 N a\r\n\r\nNEW q1 L1 N a\r\n"
    )
    data = load(text.encode("utf-8"))
    assert data.golden["item_id"].tolist() == ["q1"]
    assert data.results["answer"].tolist() == ["a", "a"]
    assert data.results["line"].tolist() == [7, 9]


def test_empty_answer_is_allowed():
    data = load(GOOD.replace("NEW q1 L1 N a", "NEW q1 L1 N"))
    assert data.results["answer"].iloc[2] == ""


def test_keyword_dash_means_none_and_keywords_are_literal():
    data = load(
        GOOD.replace("q1 ANSWER L1 a", "q1 ANSWER L1 -").replace(
            "q2 REFUSE - -", "q3 ANSWER L2 c++,a.b,(x),*\nq2 REFUSE - -"
        )
    )
    assert data.golden["keywords"].tolist() == [[], ["c++", "a.b", "(x)", "*"], []]


def test_unknown_result_ids_are_kept_and_warned_about():
    data = load(GOOD + "NEW q9 L1 N a\n")
    assert data.results["item_id"].tolist()[-1] == "q9"
    assert data.warnings == (
        "<text>:9: result for id 'q9' (version 'NEW') is not in the golden set and is ignored",
    )


def test_other_versions_are_kept():
    data = load(GOOD + "EXP q1 L1 N a\n")
    assert data.versions == ["OLD", "NEW", "EXP"]


def test_sources_path_text_stream_and_bytes_agree(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text(GOOD, encoding="utf-8")
    frames = [
        load(path).results,
        load(str(path)).results,
        load(GOOD).results,
        load(GOOD.encode()).results,
        load(io.StringIO(GOOD)).results,
        load(io.BytesIO(GOOD.encode())).results,
    ]
    for frame in frames[1:]:
        pd.testing.assert_frame_equal(frame, frames[0])
    assert load(path).source == str(path)
    assert load(GOOD).source == "<text>"


def test_load_passes_an_evalinput_through():
    data = load(GOOD)
    assert load(data) is data
    assert isinstance(data, EvalInput)
    assert "golden=2 items" in repr(data)


# --- input errors: one message with the line and what was expected -----------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 1, "empty input: expected a first line 'THRESHOLDS"),
        ("# only a comment\n\n", 1, "empty input"),
        (
            "q1 ANSWER L1 a\nRESULTS\n",
            1,
            "expected 'THRESHOLDS <correctness> <citation> <refusal>' "
            "as the first line, got 'q1 ANSWER L1 a'",
        ),
        ("thresholds 0 0 0\nRESULTS\n", 1, "as the first line, got 'thresholds 0 0 0'"),
        ("THRESHOLDS 0.5 0.5\nRESULTS\n", 1, "with exactly three numbers, got 2"),
        ("THRESHOLDS 0.5 0.5 0.5 0.5\nRESULTS\n", 1, "with exactly three numbers, got 4"),
        (
            "THRESHOLDS 0.5 abc 0.5\nRESULTS\n",
            1,
            "citation threshold must be a decimal number in [0, 1], got 'abc'",
        ),
        ("THRESHOLDS nan 0 0\nRESULTS\n", 1, "correctness threshold must be a decimal number"),
        ("THRESHOLDS 0 0 inf\nRESULTS\n", 1, "refusal threshold must be a decimal number"),
        ("THRESHOLDS 0.6 1.5 1\nRESULTS\n", 1, "citation threshold must lie in [0, 1], got 1.5"),
        ("THRESHOLDS -0.1 0 0\nRESULTS\n", 1, "correctness threshold must lie in [0, 1], got -0.1"),
        (
            "THRESHOLDS 0 0 0\n\nq1 ANSWER L1\nRESULTS\n",
            3,
            "expected a golden item '<id> <ANSWER|REFUSE> <requiredSource> <keywords>' "
            "with at least 4 fields, got 3",
        ),
        ("THRESHOLDS 0 0 0\nq1 REFUSE -\nRESULTS\n", 2, "with at least 4 fields, got 3"),
        ("THRESHOLDS 0 0 0\nq1 ASK L1 a\nRESULTS\n", 2, "TYPE must be ANSWER or REFUSE, got 'ASK'"),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER - a\nRESULTS\n",
            2,
            "ANSWER item 'q1' must name its required source, got '-'",
        ),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nq1 REFUSE - -\nRESULTS\n",
            3,
            "duplicate golden id 'q1' (first defined on line 2)",
        ),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nresults\nOLD q1 L1 N a\n",
            3,
            "got 1 (the section marker is 'RESULTS', upper case)",
        ),
        ("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\n", 2, "no 'RESULTS' line"),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1\n",
            4,
            "expected a result line '<version> <id> <cited> <Y|N> <answer ...>' with at least "
            "4 fields, got 3",
        ),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 maybe a\n",
            4,
            "refused flag must be Y or N, got 'maybe'",
        ),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 yes a\n",
            4,
            "refused flag must be Y or N, got 'yes'",
        ),
        (
            "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\n# c\nOLD q1 L2 Y b\n",
            6,
            "duplicate result for version 'OLD' and id 'q1' (first given on line 4); repeated "
            "results are read as trials with --trials (Python: trials=True)",
        ),
    ],
)
def test_input_errors(text, line, message):
    error = error_of(text)
    assert error.line == line
    assert message in error.message
    assert str(error).startswith(f"<bytes>:{line}: ")


@pytest.mark.parametrize("value", ["０.５", "٠.٥", "1e-99999999", "1e99999", "0x1", "1/2", "0,5"])
def test_thresholds_are_plain_ascii_decimals(value):
    error = error_of(f"THRESHOLDS {value} 0 0\nRESULTS\n")
    assert error.message.startswith("correctness threshold must be a decimal number in [0, 1]")


@pytest.mark.parametrize("value", ["+0.5", "00.5", "0.", ".5", "1.00", "5e-1", "-0"])
def test_threshold_spellings_accepted(value):
    data = load(GOOD.replace("THRESHOLDS 0.5", f"THRESHOLDS {value}"))
    assert data.thresholds.correctness == Fraction(value.replace("+", ""))


def test_marker_hint_only_for_a_mistyped_results_line():
    assert "upper case" in error_of("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nResults\n").message
    assert "upper case" not in error_of("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\n\f\nRESULTS\n").message


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # a field rule on an earlier line beats a line with too few fields later
        ("THRESHOLDS 0 0 0\nq1 ASK L1 a\nq2 ANSWER\nRESULTS\n", 2),
        ("THRESHOLDS 0 0 0\nq1 ASK L1 a\nRESULTS\nOLD q1\n", 2),
        ("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 x a\nNEW q1\n", 4),
        # ... and beats a missing RESULTS line
        ("THRESHOLDS 0 0 0\nq1 ANSWER - a\nq2 ANSWER L1 a\n", 2),
        # ... and bytes that are not UTF-8 further down
        (b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N \xff\n", 3),
        # a short line before a field error is still first
        ("THRESHOLDS 0 0 0\nq1 ANSWER\nq2 ASK L1 a\nRESULTS\n", 2),
    ],
)
def test_errors_are_reported_in_file_order(text, line):
    assert error_of(text).line == line


def test_the_first_error_in_file_order_wins():
    text = "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nq1 ASK L1 a\nq2 ANSWER - a\nRESULTS\n"
    assert error_of(text).line == 3  # the bad TYPE comes before the missing source


def test_not_utf8_names_the_line():
    error = error_of(b"THRESHOLDS 0 0 0\nq1 ANSWER L1 caf\xe9\nRESULTS\n")
    assert error.line == 2
    assert "not UTF-8 text: byte 0xe9" in error.message


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read input file"):
        load(tmp_path / "nope.txt")


def test_unsupported_source_type():
    with pytest.raises(
        InputError, match="expected a path, '-', an open file or the input text, got int"
    ):
        load(42)


# --- from_frames: the same object from DataFrames ---------------------------------


def frames():
    golden = pd.DataFrame(
        {
            "item_id": ["q1", "q2"],
            "item_type": ["answer", "REFUSE"],
            "required_source": ["L1", None],
            "keywords": [["a", " b "], None],
        }
    )
    results = pd.DataFrame(
        {
            "version": ["OLD", "OLD", "NEW", "NEW"],
            "item_id": ["q1", "q2", "q1", "q2"],
            "cited": ["L1", None, "-", float("nan")],
            "refused": [False, True, "n", "Y"],
            "answer": ["a b", "no", None, "no"],
        }
    )
    return golden, results


def test_from_frames_builds_the_same_frames_as_text():
    golden, results = frames()
    before = (golden.copy(deep=True), results.copy(deep=True))
    data = from_frames(golden, results, (0.5, 0.5, 0.5))
    text = load(
        "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a,b\nq2 REFUSE - -\nRESULTS\n"
        "OLD q1 L1 N a b\nOLD q2 - Y no\nNEW q1 - N\nNEW q2 - Y no\n"
    )
    pd.testing.assert_frame_equal(
        data.golden.drop(columns="line"), text.golden.drop(columns="line")
    )
    pd.testing.assert_frame_equal(
        data.results.drop(columns="line"), text.results.drop(columns="line")
    )
    assert data.thresholds == text.thresholds
    pd.testing.assert_frame_equal(golden, before[0])  # inputs never mutated
    pd.testing.assert_frame_equal(results, before[1])


def test_from_frames_round_trips_loaded_frames():
    data = load(GOOD)
    again = from_frames(data.golden, data.results, data.thresholds)
    pd.testing.assert_frame_equal(
        again.golden.drop(columns="line"), data.golden.drop(columns="line")
    )
    pd.testing.assert_frame_equal(
        again.results.drop(columns="line"), data.results.drop(columns="line")
    )


def test_from_frames_reads_float_thresholds_at_their_decimal_value():
    from fractions import Fraction

    golden, results = frames()
    data = from_frames(golden, results, {"correctness": 0.6, "citation": 0.1, "refusal": 1})
    assert data.thresholds.correctness == Fraction(3, 5)
    assert data.thresholds.citation == Fraction(1, 10)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda g, r: g.drop(columns="keywords"),
            "golden DataFrame: missing column(s) 'keywords'; expected columns item_id, item_type, "
            "required_source, keywords",
        ),
        (
            lambda g, r: g.assign(item_type=["answer", "ask"]),
            "golden DataFrame, row 2: TYPE must be ANSWER or REFUSE, got 'ask'",
        ),
        (
            lambda g, r: g.assign(required_source=[None, None]),
            "golden DataFrame, row 1: ANSWER item 'q1' must name its required source, got '-'",
        ),
        (
            lambda g, r: g.assign(item_id=["q1", "q1"]),
            "golden DataFrame, row 2: duplicate golden id 'q1' (first defined on row 1)",
        ),
        (
            lambda g, r: g.assign(keywords=[{"a"}, None]),
            "golden DataFrame, row 1: keywords must be a list of strings or a comma-separated "
            "string, got {'a'}",
        ),
    ],
)
def test_from_frames_golden_errors(change, message):
    golden, results = frames()
    with pytest.raises(InputError) as info:
        from_frames(change(golden, results), results, (0, 0, 0))
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.drop(columns=["refused", "answer"]),
            "results DataFrame: missing column(s) 'refused', 'answer'",
        ),
        (
            lambda r: r.assign(refused=[False, True, "maybe", True]),
            "results DataFrame, row 3: refused flag must be Y or N, got 'maybe'",
        ),
        (
            lambda r: r.assign(refused=[False, True, None, True]),
            "results DataFrame, row 3: refused flag must be Y or N, got None",
        ),
        (
            lambda r: r.assign(item_id=["q1", "q2", "q1", "q1"]),
            "results DataFrame, row 4: duplicate result for version 'NEW' and id 'q1' "
            "(first given on row 3); repeated results are read as trials with --trials "
            "(Python: trials=True)",
        ),
        (
            lambda r: r.assign(version=["OLD", None, "NEW", "NEW"]),
            "results DataFrame, row 2: expected a version label, got nothing",
        ),
    ],
)
def test_from_frames_results_errors(change, message):
    golden, results = frames()
    with pytest.raises(InputError) as info:
        from_frames(golden, change(results), (0, 0, 0))
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("thresholds", "message"),
    [
        ((0.5, 0.5), "expected three thresholds (correctness, citation, refusal), got 2"),
        (
            {"correctness": 0.5},
            "thresholds need keys correctness, citation, refusal, missing citation, refusal",
        ),
        ((0.5, 1.2, 0.5), "citation threshold must lie in [0, 1], got 1.2"),
        ((float("nan"), 0, 0), "correctness threshold must be a decimal number in [0, 1], got nan"),
        ((True, 0, 0), "correctness threshold must be a decimal number in [0, 1], got True"),
        ("0.5 0.5 0.5", "thresholds must be a Thresholds, a mapping or three numbers, got str"),
    ],
)
def test_from_frames_threshold_errors(thresholds, message):
    golden, results = frames()
    with pytest.raises(InputError) as info:
        from_frames(golden, results, thresholds)
    assert str(info.value) == f"DataFrames: {message}"


def test_from_frames_rejects_non_dataframes():
    with pytest.raises(InputError, match="golden DataFrame: expected a pandas DataFrame, got list"):
        from_frames([], pd.DataFrame(), (0, 0, 0))


def test_text_with_a_lone_surrogate_is_an_input_error():
    error = error_of_text("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N \ud800\n")
    assert error.line == 4
    assert "lone surrogate" in error.message and "'\\ud800'" in error.message


def error_of_text(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        load(text)
    return info.value


# --- hostile or unusual input: one clear input error each ------------------------------


def test_a_threshold_of_thousands_of_digits_is_an_input_error():
    error = error_of("THRESHOLDS 0." + "1" * 5000 + " 0 0\nRESULTS\n")
    assert error.line == 1
    assert error.message.startswith(
        "correctness threshold must be a decimal number of at most 100 characters, "
        "got 5002 characters: '0.111"
    )
    assert error.message.endswith("... (4942 more characters)")
    # 100 characters are still read exactly; exponents keep at most four digits.
    assert load(f"THRESHOLDS 0.{'5' * 98} 0 0\nRESULTS\n").thresholds.correctness == Fraction(
        "0." + "5" * 98
    )
    assert "decimal number in [0, 1]" in error_of("THRESHOLDS 1e-99999 0 0\nRESULTS\n").message


@pytest.mark.parametrize(
    ("value", "shown"),
    [(10**5000, "an integer of 16610 bits"), (2**64, "18446744073709551616"), (-(2**70), None)],
    ids=["10**5000", "2**64", "-2**70"],
)
def test_from_frames_huge_integer_thresholds_are_input_errors(value, shown):
    golden, results = frames()
    with pytest.raises(InputError) as info:
        from_frames(golden, results, (value, 0, 0))
    assert info.value.message.startswith("correctness threshold must lie in [0, 1], got ")
    if shown:
        assert info.value.message.endswith(shown)


def test_from_frames_accepts_numpy_and_decimal_thresholds():
    import decimal

    import numpy as np

    golden, results = frames()
    data = from_frames(golden, results, (np.int64(1), np.float64(0.5), np.float32(0.6)))
    assert data.thresholds == Thresholds(Fraction(1), Fraction(1, 2), Fraction(3, 5))
    data = from_frames(golden, results, [np.uint8(0), decimal.Decimal("0.25"), Fraction(1, 3)])
    assert data.thresholds == Thresholds(Fraction(0), Fraction(1, 4), Fraction(1, 3))
    for bad in (np.bool_(True), np.float64("nan"), decimal.Decimal("NaN"), "1/2"):
        with pytest.raises(InputError, match="correctness threshold must be a decimal number"):
            from_frames(golden, results, (bad, 0, 0))


def test_from_frames_huge_integers_in_text_columns():
    golden, results = frames()
    ids = pd.Series([2**64, "q2"], dtype=object)
    data = from_frames(
        golden.assign(item_id=ids), results.assign(item_id=[2**64, "q2"] * 2), (0, 0, 0)
    )
    assert data.golden["item_id"].tolist() == ["18446744073709551616", "q2"]
    with pytest.raises(InputError) as info:
        from_frames(
            golden.assign(item_id=pd.Series([10**5000, "q2"], dtype=object)), results, (0, 0, 0)
        )
    assert str(info.value) == (
        "golden DataFrame, row 1: column 'item_id': an integer of 16610 bits cannot be read as text"
    )


@pytest.mark.parametrize("frame", ["golden", "results"])
def test_from_frames_lone_surrogate_names_frame_row_and_column(frame):
    golden, results = frames()
    columns = golden.columns if frame == "golden" else results.columns
    for column in columns:
        g, r = golden.copy(), results.copy()
        target = g if frame == "golden" else r
        values = list(target[column])
        values[1] = "x\ud800" if column != "keywords" else ["a", "\ud800"]
        target[column] = pd.Series(values, dtype=object)
        with pytest.raises(InputError) as info:
            from_frames(g, r, (0, 0, 0))
        assert str(info.value).startswith(
            f"{frame} DataFrame, row 2: column '{column}' holds text that is not Unicode: "
            "'\\ud800' (a lone surrogate) has no UTF-8 encoding"
        )


def test_from_frames_missing_keywords_cell_means_no_keywords():
    import numpy as np

    golden, results = frames()
    for missing in (None, float("nan"), np.nan, pd.NA):
        cells = pd.Series([missing, ["x"]], dtype=object)
        data = from_frames(golden.assign(keywords=cells), results, (0, 0, 0))
        assert data.golden["keywords"].tolist() == [[], []]  # q2 is a REFUSE item


def test_from_frames_missing_keyword_inside_a_list_is_an_input_error():
    import numpy as np

    golden, results = frames()
    for missing in (None, float("nan"), np.nan, pd.NA):
        cells = pd.Series([["a", missing], None], dtype=object)
        with pytest.raises(InputError) as info:
            from_frames(golden.assign(keywords=cells), results, (0, 0, 0))
        assert str(info.value).startswith(
            "golden DataFrame, row 1: keywords must be strings, got a missing value"
        )


@pytest.mark.parametrize(
    ("lines", "bad_line", "line"),
    [
        # a bad THRESHOLDS line (1) before a byte that is not UTF-8 (5)
        (["THRESHOLDS 0.5 0.5 2", "q1 ANSWER L1 a", "RESULTS", "OLD q1 L1 N a"], 5, 1),
        # a short golden line (3) before a bad byte (9)
        (
            ["THRESHOLDS 0 0 0", "q1 ANSWER L1 a", "q2 REFUSE -", "RESULTS", "OLD q1 L1 N a"]
            + ["NEW q1 L1 N a", "OLD q2 - Y", "NEW q2 - Y"],
            9,
            3,
        ),
        # a bad byte (2) before a bad flag (7)
        (
            ["THRESHOLDS 0 0 0", "q1 ANSWER L1 a", "RESULTS", "OLD q1 L1 N a"] * 1
            + ["NEW q1 L1 N a", "# c", "OLD q2 - maybe"],
            2,
            2,
        ),
        # a bad flag (5) before a short result line (6) and a bad byte (7)
        (
            ["THRESHOLDS 0 0 0", "q1 ANSWER L1 a", "RESULTS", "OLD q1 L1 N a", "NEW q1 L1 x a"]
            + ["NEW q2 L1"],
            7,
            5,
        ),
        # a duplicate golden id (3) before a missing RESULTS line and a bad byte (5)
        (["THRESHOLDS 0 0 0", "q1 ANSWER L1 a", "q1 ANSWER L1 a", "q2 REFUSE - -"], 5, 3),
    ],
)
def test_the_earliest_line_wins_whatever_the_kind_of_error(lines, bad_line, line):
    text = [s.encode() for s in lines]
    while len(text) < bad_line:
        text.append(b"# filler")
    text.insert(bad_line - 1, b"OLD q9 - N caf\xff")
    assert error_of(b"\n".join(text) + b"\n").line == line


def test_long_values_are_quoted_to_a_bounded_prefix():
    huge = "x" * 50_000
    for text in (
        f"THRESHOLD {huge}\nRESULTS\n",
        f"THRESHOLDS {huge} 0 0\nRESULTS\n",
        f"THRESHOLDS 0 0 0\nq1 {huge} L1 a\nRESULTS\n",
        f"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 {huge} a\n",
        f"THRESHOLDS 0 0 0\n{huge} ANSWER L1 a\n{huge} ANSWER L1 a\nRESULTS\n",
        f"THRESHOLDS 0 0 0\n{huge} ANSWER - a\nRESULTS\n",
    ):
        message = str(error_of(text))
        assert len(message) < 400, message[:400]
        assert "... (" in message and "more characters)" in message
    data = load(f"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD {huge} L1 N a\n")
    assert len(data.warnings[0]) < 300


def test_a_missing_results_line_is_named_when_a_result_line_is_read_as_golden():
    error = error_of("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nOLD q1 L1 N a\nNEW q1 - y\n")
    assert error.line == 3
    assert error.message == (
        "TYPE must be ANSWER or REFUSE, got 'q1'; this looks like a result line "
        "'<version> <id> <cited> <Y|N> <answer ...>': is the line 'RESULTS' missing before it?"
    )
    # A result line placed before RESULTS gets the same hint; a plain bad TYPE does not.
    assert (
        "RESULTS' missing" in error_of(HEAD.replace("RESULTS\n", "OLD q1 L1 Y\nRESULTS\n")).message
    )
    assert error_of("THRESHOLDS 0 0 0\nq1 ANSWR L1 a\nRESULTS\n").message == (
        "TYPE must be ANSWER or REFUSE, got 'ANSWR'"
    )
    assert error_of("THRESHOLDS 0 0 0\nq1 ANSWR L1 Yes\nRESULTS\n").message == (
        "TYPE must be ANSWER or REFUSE, got 'ANSWR'"
    )


def test_from_frames_boolean_refused_column_is_read_as_is():
    golden, results = frames()
    data = from_frames(golden, results.assign(refused=[False, True, False, True]), (0, 0, 0))
    assert data.results["refused"].tolist() == [False, True, False, True]
    assert data.result_columns.refused.dtype == bool


def test_thresholds_have_at_most_100_decimal_places():
    assert load("THRESHOLDS 1e-100 0 0\nRESULTS\n").thresholds.correctness == Fraction(1, 10**100)
    assert load("THRESHOLDS 1000e-103 0 0\nRESULTS\n").thresholds.correctness == Fraction(
        1, 10**100
    )
    for text in ("1e-101", "1e-9999", "0.5e-9999"):
        error = error_of(f"THRESHOLDS 0 {text} 0\nRESULTS\n")
        assert error.message == (
            f"citation threshold must have at most 100 decimal places, got '{text}'"
        )
    golden, results = frames()
    with pytest.raises(InputError, match="at most 100 decimal places"):
        from_frames(golden, results, (Fraction(1, 3 * 10**100), 0, 0))
    assert from_frames(golden, results, (Fraction(1, 3), 0, 0)).thresholds.correctness == Fraction(
        1, 3
    )
