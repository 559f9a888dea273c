"""One rounding policy for every figure a person reads (buddy_eval.formatting)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from buddy_eval.formatting import (
    format_diff,
    format_fraction,
    format_id_list,
    format_interval,
    format_p_value,
    format_rate,
)


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (Fraction(1, 8), 2, "0.13"),
        (Fraction(5, 8), 2, "0.63"),
        (0.0625, 3, "0.063"),  # half up, where '%.3f' and round() give 0.062
        (0.0495, 2, "0.05"),
        (Fraction(-1, 8), 2, "-0.13"),
        (Fraction(-1, 1000), 2, "0.00"),  # format_fraction itself never prints -0.00
    ],
)
def test_half_up_from_the_exact_value(value, places, text):
    assert format_fraction(Fraction(value), places) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (-0.004, "-0.004"),
        (0.0049, "+0.005"),
        (-0.00049, "-0.0005"),
        (0.00001, "< 0.0001"),
        (-0.00001, "> -0.0001"),
        (0.0, "0.00"),
        (-0.0, "0.00"),
        (Fraction(3, 31), "+0.10"),
        (-0.375, "-0.38"),
    ],
)
def test_a_difference_that_is_not_zero_never_prints_as_zero(value, text):
    assert format_diff(value) == text


def test_an_interval_below_zero_reads_below_zero():
    assert format_interval(-0.3718, -0.004, signed=True) == "[-0.37, -0.004]"
    assert format_interval(0.0, 0.16) == "[0.00, 0.16]"
    assert format_interval(float("nan"), 0.1) == "n/a"


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0498, "= 0.0498"),
        (0.04996, "= 0.04996"),
        (0.0625, "= 0.063"),
        (0.05, "= 0.050"),
        (0.453125, "= 0.453"),
        (0.0009, "< 0.001"),
        (1.0, "= 1.000"),
        (None, "n/a"),
    ],
)
def test_a_p_value_below_alpha_never_prints_as_alpha_or_more(p, text):
    assert format_p_value(p, alpha=0.05) == text


def test_p_values_below_alpha_on_a_fine_grid():
    for k in range(1, 5000):
        p = k / 100000
        text = format_p_value(p, alpha=0.05)
        if text.startswith("= "):
            assert (Fraction(text[2:]) < Fraction(1, 20)) == (p < 0.05), (p, text)


def test_rates_and_id_lists():
    assert format_rate(Fraction(27, 32)) == "0.84"
    assert format_rate(None) == "n/a"
    ids = [f"j{i:02d}" for i in range(12)]
    assert format_id_list(ids) == "j00, j01, j02, j03, j04, j05, j06, j07, j08, j09 and 2 more"
    assert format_id_list([]) == "none"


def test_settings_are_printed_exactly_as_given():
    import buddy_eval as be
    from buddy_eval.formatting import format_setting_percent
    from buddy_eval.reporting import details

    assert [format_setting_percent(v) for v in (0.95, 0.9999, 0.8, 0.05, 0.125)] == [
        "95",
        "99.99",
        "80",
        "5",
        "12.5",
    ]
    settings = be.Settings(confidence=0.9999, power=0.9, drop=0.05, margin=0.02)
    text = details(be.evaluate("data/example.txt", settings=settings))
    assert "99.99% intervals" in text and "100%" not in text
    assert "power 90%, alpha 0.0001)" in text
