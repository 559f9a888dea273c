"""Hostile task inputs: lone surrogates, huge numbers, absurd exponents, control characters
in identifiers and very long values each give one bounded InputError (or a correct result)."""

from __future__ import annotations

import json
import time
from decimal import Decimal

import pytest

from buddy_eval._errors import InputError
from buddy_eval.tasks import compare_runs, load_golden, load_run
from buddy_eval.tasks._json_input import MAX_NUMBER_CHARS, LongNumber
from buddy_eval.tasks._record_rules import MAX_QUOTED_CHARS, describe, micros_limit
from tests.test_tasks_support import EXAMPLE, check, record, run_tasks_cli, task, write_json

SURROGATE = "which is not valid Unicode text"
IDENTIFIER_RULE = (
    "an identifier may not contain control characters (U+0000 to U+001F, U+007F to U+009F) "
    "or line separators (U+2028, U+2029)"
)


def _write(path, value, raw: str) -> str:
    """``value`` as JSON, each ``"<R>"`` replaced by ``raw`` (JSON text: escapes, numbers)."""
    path.write_text(json.dumps(value).replace('"<R>"', raw), encoding="utf-8")
    return str(path)


def _golden_file(tmp_path, items, raw: str = "") -> str:
    return _write(tmp_path / "g.json", items, raw)


def _run_file(tmp_path, records, raw: str = "") -> str:
    return _write(tmp_path / "a.json", records, raw)


def _error(load, path) -> str:
    with pytest.raises(InputError) as info:
        load(path)
    return str(info.value)


# 1. Lone surrogates (a JSON escape like "\ud800" decodes to one) -------------------------


@pytest.mark.parametrize(
    ("items", "raw", "message"),
    [
        (
            [task("<R>", check("status_completed"))],
            '"a\\ud800"',
            "task #1: field 'id' contains a lone surrogate (\\ud800), which is not valid Unicode "
            "text, at character 2 of 'a\\ud800'",
        ),
        (
            [task("t1", check("status_completed"), prompt="<R>")],
            '"Say \\udfff"',
            "task 't1': field 'prompt' contains a lone surrogate (\\udfff), which is not valid "
            "Unicode text, at character 5 of 'Say \\udfff'",
        ),
        (
            [task("t1", check("contains", "<R>"))],
            '"\\ud83d"',
            "task 't1', check 1 (contains): field 'value' contains a lone surrogate (\\ud83d), "
            "which is not valid Unicode text, at character 1 of '\\ud83d'",
        ),
        (
            [task("t1", check("status_completed"), tier="<R>")],
            '"b\\udc00"',
            "task 't1': field 'tier' contains a lone surrogate (\\udc00), which is not valid "
            "Unicode text, at character 2 of 'b\\udc00'",
        ),
    ],
)
def test_a_lone_surrogate_in_a_golden_file_is_an_input_error(tmp_path, items, raw, message):
    path = _golden_file(tmp_path, items, raw)
    assert _error(load_golden, path) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("field", "where"),
    [
        ("task_id", "record #1"),
        ("golden_id", "record #1 (task_id 't1')"),
        ("status", "record #1 (task_id 't1')"),
        ("model", "record #1 (task_id 't1')"),
        ("result_text", "record #1 (task_id 't1')"),
    ],
)
def test_a_lone_surrogate_in_a_run_file_is_an_input_error(tmp_path, field, where):
    path = _run_file(tmp_path, [{**record("t1", "g1"), field: "<R>"}], '"x\\ud800"')
    assert _error(lambda p: load_run(p, "A"), path) == (
        f"{path}: {where}: field {field!r} contains a lone surrogate (\\ud800), {SURROGATE}, "
        "at character 2 of 'x\\ud800'"
    )


def test_a_surrogate_pair_escape_is_one_valid_character(tmp_path):
    path = _golden_file(
        tmp_path, [task("<R>", check("status_completed"))], '"smile-\\ud83d\\ude00"'
    )
    assert load_golden(path).ids == ["smile-\U0001f600"]


def test_a_lone_surrogate_in_an_ignored_field_or_key_does_no_harm(tmp_path):
    item = {**task("t1", check("status_completed")), "notes": "<R>"}
    assert load_golden(_golden_file(tmp_path, [item], '"\\ud800"')).ids == ["t1"]
    items = [task("t1", {"type": "status_completed", "<R>": 1})]
    path = _golden_file(tmp_path, items, '"\\ud800"')
    assert _error(load_golden, path) == (
        f"{path}: task 't1', check 1 (status_completed): unexpected field '\\ud800'; a "
        "status_completed check has only the fields type"
    )


def test_the_cli_reports_a_lone_surrogate_with_exit_2(tmp_path):
    write_json(tmp_path / "a.json", [record("a1", "t1")])
    _write(tmp_path / "b.json", [{**record("b1", "t1"), "result_text": "<R>"}], '"ok \\ud800"')
    write_json(tmp_path / "g.json", [task("t1", check("contains", "ok"))])
    proc = run_tasks_cli(
        "--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json", cwd=tmp_path
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == (
        b"buddy-eval: error: b.json: record #1 (task_id 'b1'): field 'result_text' contains a "
        b"lone surrogate (\\ud800), which is not valid Unicode text, at character 4 of "
        b"'ok \\ud800'\n"
    )


# 2. Number literals longer than MAX_NUMBER_CHARS --------------------------------------------


def test_a_5000_digit_integer_is_an_input_error_in_both_files(tmp_path):
    digits = "9" * 5000
    path = _golden_file(tmp_path, [task("t1", check("max_tokens", "<R>"))], digits)
    assert _error(load_golden, path) == (
        f"{path}: task 't1', check 1 (max_tokens): field 'value' must be a non-negative "
        f"integer, got {'9' * 57}... (4943 more characters), a number longer than the 100 "
        "characters allowed"
    )
    path = _run_file(tmp_path, [{**record("t1", "g1"), "usd_micros": "<R>"}], f"-{digits}")
    assert _error(lambda p: load_run(p, "A"), path) == (
        f"{path}: record #1 (task_id 't1'): field 'usd_micros' must be a non-negative integer "
        f"or null, got -{'9' * 56}... (4944 more characters), a number longer than the 100 "
        "characters allowed"
    )
    path = _run_file(tmp_path, [record("<R>", "g1")], digits)
    assert _error(lambda p: load_run(p, "A"), path).startswith(
        f"{path}: record #1: field 'task_id' must be a non-empty string or an integer, got 999"
    )


def test_a_long_decimal_is_an_input_error_and_100_characters_are_read(tmp_path):
    at_limit = "0." + "0" * 4 + "1" * (MAX_NUMBER_CHARS - 6)  # 100 characters
    path = _golden_file(tmp_path, [task("t1", check("max_cost_usd", "<R>"))], at_limit)
    assert load_golden(path).checks["limit"].tolist() == [11]
    too_long = at_limit + "1"
    path = _golden_file(tmp_path, [task("t1", check("max_cost_usd", "<R>"))], too_long)
    assert _error(load_golden, path) == (
        f"{path}: task 't1', check 1 (max_cost_usd): field 'value' must be a number of US "
        f"dollars from 0 to 1000000000, got {too_long[:57]}... (44 more characters), a number "
        "longer than the 100 characters allowed"
    )


def test_a_long_number_where_an_object_is_expected(tmp_path):
    path = _golden_file(tmp_path, ["<R>"], "1" * 200)
    assert _error(load_golden, path) == (
        f"{path}: task #1: expected an object {{id, prompt, tier, checks}}, got "
        f"{'1' * 57}... (143 more characters), a number longer than the 100 characters allowed"
    )


def test_a_long_number_in_an_ignored_field_is_never_converted(tmp_path):
    item = {**task("t1", check("status_completed")), "notes": "<R>"}
    assert load_golden(_golden_file(tmp_path, [item], f"1e{'9' * 5000}")).ids == ["t1"]


def test_huge_python_integers_are_described_without_conversion_errors():
    assert describe(10**2000) == f"{'1' + '0' * 56}... (1944 more characters)"
    assert describe(10**50000).startswith("an integer of about 5000")
    assert repr(LongNumber("1" * 101)) == "LongNumber(101 characters)"
    message = "field 'tier' must be a non-empty string or an integer, got an integer of about"
    with pytest.raises(InputError, match=message):
        load_golden([task("t1", check("status_completed"), tier=10**50000)])


# 3. max_cost_usd: absurd exponents are answered at once -------------------------------------


@pytest.mark.parametrize("literal", ["1e-9999999", "1e-99999999", "0E+999999999", "1E-999999999"])
def test_a_tiny_cost_limit_is_zero_micros_and_fast(tmp_path, literal):
    path = _golden_file(tmp_path, [task("t1", check("max_cost_usd", "<R>"))], literal)
    start = time.perf_counter()
    golden = load_golden(path)
    assert time.perf_counter() - start < 0.5
    assert golden.checks["limit"].tolist() == [0]
    assert golden.checks["value"].tolist() == [str(Decimal(literal))]


@pytest.mark.parametrize("literal", ["1e+99999999", "1000000000.000001", "1E+10", "2e9"])
def test_a_cost_limit_above_a_billion_dollars_is_an_input_error(tmp_path, literal):
    path = _golden_file(tmp_path, [task("t1", check("max_cost_usd", "<R>"))], literal)
    start = time.perf_counter()
    message = _error(load_golden, path)
    assert time.perf_counter() - start < 0.5
    assert message == (
        f"{path}: task 't1', check 1 (max_cost_usd): field 'value' must be a number of US "
        f"dollars from 0 to 1000000000, got {Decimal(literal)}"
    )


@pytest.mark.parametrize(
    ("dollars", "micros"),
    [
        ("1000000000", 10**15),
        ("1E+9", 10**15),
        ("0.000000999999999999999999999999", 0),
        ("0.9999999" + "9" * 80, 999_999),
        ("123.4567899999", 123_456_789),
        ("5E+3", 5_000_000_000),
        ("0.00000100", 1),
        ("9223372036854.775807", 2**63 - 1),
        ("1e+99999999", 2**63 - 1),
    ],
)
def test_micros_limit_is_exact_for_any_digits_and_exponent(dollars, micros):
    assert micros_limit(Decimal(dollars)) == micros


def test_a_python_float_cost_limit_above_a_billion_is_an_input_error():
    with pytest.raises(InputError, match="from 0 to 1000000000, got 1e\\+300$"):
        load_golden([task("t1", check("max_cost_usd", 1e300))])


# 4. Control characters and line separators in identifiers ----------------------------------


@pytest.mark.parametrize(
    ("char", "code"),
    [
        ("\n", "000A"),
        ("\r", "000D"),
        ("\x1b", "001B"),
        ("\x00", "0000"),
        ("\x7f", "007F"),
        ("\x85", "0085"),
        ("\u2028", "2028"),
        ("\u2029", "2029"),
    ],
)
def test_a_control_character_in_a_golden_id_is_an_input_error(char, code):
    golden_id = f"jv-01{char}run B (x): 99"
    kind = {"2028": "line separator", "2029": "paragraph separator"}.get(code, "control character")
    with pytest.raises(InputError) as info:
        load_golden([task(golden_id, check("status_completed"))])
    assert str(info.value) == (
        f"<golden tasks>: task #1: field 'id' contains the {kind} U+{code} at "
        f"character 6 of {golden_id!r}; {IDENTIFIER_RULE}"
    )


def test_control_characters_in_record_identifiers_are_input_errors(tmp_path):
    path = _run_file(tmp_path, [record("<R>", "g1")], '"t\\u001b[2J"')
    assert _error(lambda p: load_run(p, "A"), path) == (
        f"{path}: record #1: field 'task_id' contains the control character U+001B at "
        f"character 2 of 't\\x1b[2J'; {IDENTIFIER_RULE}"
    )
    path = _run_file(tmp_path, [record("t1", "<R>")], '"g1\\r\\nexcluded: 0"')
    assert _error(lambda p: load_run(p, "A"), path) == (
        f"{path}: record #1 (task_id 't1'): field 'golden_id' contains the control character "
        f"U+000D at character 3 of 'g1\\r\\nexcluded: 0'; {IDENTIFIER_RULE}"
    )


@pytest.mark.parametrize(
    ("label", "message"),
    [
        (
            "v2\nmissing",
            "the run label contains the control character U+000A at character 3 of "
            f"'v2\\nmissing'; {IDENTIFIER_RULE}",
        ),
        (
            "v2\u2028",
            "the run label contains the line separator U+2028 at character 3 of "
            f"'v2\\u2028'; {IDENTIFIER_RULE}",
        ),
        (
            "v\ud800",
            "the run label contains a lone surrogate (\\ud800), which is not valid "
            "Unicode text, at character 2 of 'v\\ud800'",
        ),
    ],
)
def test_a_control_character_in_a_label_is_an_input_error(label, message):
    golden = [task("t1", check("status_completed"))]
    with pytest.raises(InputError) as info:
        compare_runs(golden, [record("a", "t1")], [record("b", "t1")], "A", label)
    assert str(info.value) == message
    with pytest.raises(InputError) as info:
        load_run([record("a", "t1")], label)
    assert str(info.value) == message


def test_free_text_may_hold_line_breaks_and_escapes(tmp_path):
    golden = [
        task("t1", check("contains", "a\nb"), prompt="Line one\nline two\r\n\x1b[1mbold\u2028"),
        task("t2", check("not_contains", "\x1b"), tier="tier\ttab"),
    ]
    run = [record("r1", "t1", "x a\nb y", model="m\n1", status="done\r"), record("r2", "t2")]
    comparison = compare_runs(golden, run, [record("b1", "t1", "\x1b[2J")])
    assert comparison.golden.tasks["prompt"][0].endswith("\u2028")
    assert comparison.outcomes["outcome"].astype(str).tolist()[:2] == ["pass", "pass"]
    report = comparison.report()
    assert not any(c in report for c in "\r\x1b\t\u2028")
    # The report of any two-task comparison like this one (14 lines), then its two tiers'
    # table (a blank line, the intro, the heading, two rows per tier); the tab shown escaped.
    assert report.count("\n") == 21
    assert report.endswith(
        "tier\\x09tab  all_pass    0       0      0          1.00  n/a   n/a"
        "         -                too few items to tell"
    )


# 5. Values are quoted boundedly ------------------------------------------------------------


def test_describe_is_bounded():
    assert describe("x" * MAX_QUOTED_CHARS) == repr("x" * MAX_QUOTED_CHARS)
    assert describe("x" * 50_000_000) == f"{'x' * 57!r}... (49999943 more characters)"
    assert describe(Decimal("1." + "1" * 200)) == f"1.{'1' * 55}... (145 more characters)"
    assert describe(LongNumber("-" + "5" * 150)) == f"-{'5' * 56}... (94 more characters)"


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_a_50_mb_value_is_not_echoed(tmp_path):
    huge = "x" * 50_000_000
    cases = [
        ([task("t1", check("contains", 7), prompt=huge)], "field 'value' must be"),
        (
            [task(huge, check("status_completed")), task(huge, check("status_completed"))],
            "duplicate golden id",
        ),
        (
            [task("t1", check("contains", huge), {"type": "max_tokens", "value": huge})],
            "field 'value' must be a non-negative integer",
        ),
        ([task("t1", {"type": "status_completed", huge: 1})], "unexpected field"),
        ([task(f"{huge}\n", check("status_completed"))], "control character U+000A"),
        ([task("t1", check("status_completed"), prompt=f"{huge}\ud800")], "lone surrogate"),
    ]
    for items, part in cases:
        with pytest.raises(InputError) as info:
            load_golden(items)
        assert part in str(info.value)
        assert len(str(info.value)) < 400
    with pytest.raises(InputError) as info:
        load_run([record(huge, "g1"), record(huge, "g2")], "A")
    assert "duplicate task_id" in str(info.value) and len(str(info.value)) < 400
    with pytest.raises(InputError) as info:
        load_run([record("t1", huge), record("t2", huge)], "A")
    assert "second record for golden task" in str(info.value) and len(str(info.value)) < 400


def test_a_repeated_huge_key_is_quoted_boundedly(tmp_path):
    key = "k" * 100_000
    path = tmp_path / "g.json"
    path.write_text(
        f'[{{"id": "t1", "prompt": "p", "tier": "t", "checks": [], "{key}": 1, "{key}": 2}}]'
    )
    assert _error(load_golden, str(path)) == (
        f"{path}: task 't1': field {'k' * 57!r}... (99943 more characters) is given more than "
        "once; each field may appear once"
    )


# Documented behaviour that must not change -------------------------------------------------


def test_bom_utf8_nan_and_duplicates_still_behave_as_documented(tmp_path):
    path = tmp_path / "g.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE["golden"].read_bytes())
    assert len(load_golden(path).ids) == 31
    path.write_bytes(b'[{"id": "t\xff"}]')
    assert _error(load_golden, path) == (
        f"{path}:1: not UTF-8 text: byte 0xff cannot be decoded as UTF-8"
    )
    path.write_text(
        '[{"id": "t1", "prompt": "p", "tier": "t", "checks": '
        '[{"type": "max_tokens", "value": -Infinity}]}]'
    )
    assert _error(load_golden, path).endswith("must be a non-negative integer, got -Infinity")
    path.write_text('[{"id": "t1", "id": "t2", "prompt": "p", "tier": "t", "checks": []}]')
    assert _error(load_golden, path) == (
        f"{path}: task 't2': field 'id' is given more than once; each field may appear once"
    )
