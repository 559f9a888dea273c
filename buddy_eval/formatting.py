"""Every number a person reads is rounded here, one function per kind of number.

One rounding policy for every view (the canonical lines, ``--details``, the
JSON report's formatted strings, the HTML report, the notebook display and
the task comparison):

- half up, from the exact value (a float is first read as the exact binary
  fraction it holds), never Python's half-even ``'%.2f'``;
- no negative zero;
- a figure that is not zero never prints as zero: it gets more digits, or
  ``< 0.0001``-style text;
- a p-value below the significance level never prints as the level or more.

And every piece of user text (a label, an id, a source) is shown through one
escaping function per kind of output: :func:`terminal_text`,
:func:`markdown_text` and :func:`xml_text` (from :mod:`buddy_eval._escaping`).
"""

from __future__ import annotations

from fractions import Fraction
from html import escape

from ._decision import Decision
from ._escaping import markdown_text, terminal_text, xml_text
from ._thresholds import decimal_text
from ._vocabulary import BLOCK, RATE_METRICS, RELEASE
from .stats import BOUND_RATE_METHOD, EFFECTIVE_MIN_ITEMS

__all__ = [
    "MAX_INTERVAL_PLACES",
    "MAX_LISTED_IDS",
    "NO_MATH",
    "VERDICT_STYLE",
    "Report",
    "format_bound",
    "format_count",
    "format_diff",
    "format_fraction",
    "format_id_list",
    "format_margin",
    "format_outlook",
    "format_threshold",
    "format_interval",
    "format_p_value",
    "format_percent",
    "format_rate",
    "format_rate_pair",
    "format_report",
    "format_setting_percent",
    "format_trial_plan",
    "format_version_line",
    "markdown_text",
    "terminal_text",
    "xml_text",
]

#: Item ids listed before "and N more" in text views.
#:
#: Examples
#: --------
#: >>> from buddy_eval.formatting import MAX_LISTED_IDS, format_id_list
#: >>> MAX_LISTED_IDS
#: 10
#: >>> format_id_list([f"j{i:02d}" for i in range(1, 14)])
#: 'j01, j02, j03, j04, j05, j06, j07, j08, j09, j10 and 3 more'
MAX_LISTED_IDS = 10
_MAX_PLACES = 4


def _exact(value) -> Fraction:
    return value if isinstance(value, Fraction) else Fraction(value)


def _is_na(value) -> bool:
    if value is None:
        return True
    try:
        return value != value  # NaN and pandas' NA
    except TypeError:
        return True


def format_fraction(value: Fraction | None, places: int = 2) -> str:
    """Exact fraction to fixed decimals, rounding half up; None prints ``n/a``.

    Examples
    --------
    >>> format_fraction(Fraction(1, 8)), format_fraction(Fraction(5, 8))
    ('0.13', '0.63')
    >>> format_fraction(Fraction(2, 3)), format_fraction(None)
    ('0.67', 'n/a')
    """
    if value is None:
        return "n/a"
    if value < 0:
        text = format_fraction(-value, places)
        return text if set(text) <= {"0", "."} else "-" + text
    scale = 10**places
    units = (value.numerator * scale * 2 + value.denominator) // (value.denominator * 2)
    whole, frac = divmod(units, scale)
    return f"{whole}.{frac:0{places}d}" if places else str(whole)


def format_rate(value, places: int = 2) -> str:
    """A rate (Fraction or float) with ``places`` decimals, half up; ``n/a`` when missing.

    Examples
    --------
    >>> format_rate(Fraction(27, 32)), format_rate(None)
    ('0.84', 'n/a')
    """
    if _is_na(value):
        return "n/a"
    return format_fraction(_exact(value), places)


def format_rate_pair(first, second, counts=(None, None)) -> tuple[str, str]:
    """Two rates compared, each rounded; where they print alike but differ exactly, each
    followed by its exact counts, as counted (not reduced), so the reader sees why a check
    that compares the exact values decided as it did.

    ``counts`` holds, per rate, ``(numerator, denominator)`` or None (then the
    reduced fraction is shown).

    Examples
    --------
    >>> format_rate_pair(Fraction(3825, 4000), Fraction(3833, 4000), ((3825, 4000), (3833, 4000)))
    ('0.96 (3825/4000)', '0.96 (3833/4000)')
    >>> format_rate_pair(Fraction(1, 2), Fraction(3, 4))
    ('0.50', '0.75')
    """
    shown = [format_rate(first), format_rate(second)]
    if _is_na(first) or _is_na(second) or shown[0] != shown[1] or first == second:
        return shown[0], shown[1]
    out = []
    for text, value, exact in zip(shown, (first, second), counts, strict=True):
        value = _exact(value)
        num, den = exact if exact is not None else (value.numerator, value.denominator)
        out.append(f"{text} ({num}/{den})")
    return out[0], out[1]


def format_diff(value, places: int = 2, sign: bool = True) -> str:
    """A difference or interval end: signed, never ``-0.00``, never zero unless it is zero.

    A non-zero value that rounds to zero gets up to four decimals, then
    ``< 0.0001`` / ``> -0.0001``.

    Examples
    --------
    >>> format_diff(Fraction(3, 31)), format_diff(-0.004), format_diff(0.0)
    ('+0.10', '-0.004', '0.00')
    >>> format_diff(-0.00001)
    '> -0.0001'
    """
    if _is_na(value):
        return "n/a"
    exact = _exact(value)
    if exact == 0:
        return format_fraction(exact, places)
    for digits in range(places, max(places, _MAX_PLACES) + 1):
        text = format_fraction(exact, digits)
        if text.strip("-0.") != "":
            break
    else:
        bound = "0." + "0" * (_MAX_PLACES - 1) + "1"
        return f"< {bound}" if exact > 0 else f"> -{bound}"
    return "+" + text if sign and exact > 0 else text


#: The most decimals :func:`format_interval` adds to tell two ends apart.
#:
#: Examples
#: --------
#: Ends that differ only in the seventh decimal print alike at six:
#:
#: >>> from buddy_eval.formatting import MAX_INTERVAL_PLACES, format_interval
#: >>> MAX_INTERVAL_PLACES, format_interval(0.1000001, 0.1000004)
#: (6, '[0.100000, 0.100000]')
MAX_INTERVAL_PLACES = 6


def format_interval(low, high, signed: bool = False, places: int = 2) -> str:
    """``[low, high]``; differences signed; ``n/a`` when not computed.

    Two ends that differ never print alike: the interval gets as many
    decimals as it takes to tell them apart, up to :data:`MAX_INTERVAL_PLACES`
    (``[-0.012, -0.008]``, never ``[-0.01, -0.01]``).

    Examples
    --------
    >>> format_interval(-0.3718, -0.004, signed=True)
    '[-0.37, -0.004]'
    >>> format_interval(-0.0123, -0.0081, signed=True)
    '[-0.012, -0.008]'
    """
    if _is_na(low) or _is_na(high):
        return "n/a"
    equal = _exact(low) == _exact(high)
    for digits in range(places, MAX_INTERVAL_PLACES + 1):
        ends = [format_diff(v, digits, sign=signed) for v in (low, high)]
        if equal or ends[0] != ends[1]:
            break
    return f"[{ends[0]}, {ends[1]}]"


def format_bound(value, places: int = 2, significant: int = 2) -> str:
    """A bound on a rate: ``places`` decimals, or ``significant`` digits when smaller.

    A positive bound never prints as zero: below ``10**-places`` it shows
    its first ``significant`` significant digits (half up), so one violation
    in 200,000 items reads ``0.000024``, not ``0.00``.

    Examples
    --------
    >>> format_bound(0.3941), format_bound(2.4e-05), format_bound(0.0)
    ('0.39', '0.000024', '0.00')
    """
    if _is_na(value):
        return "n/a"
    exact = _exact(value)
    if exact <= 0 or format_fraction(exact, places).strip("0.") != "":
        return format_fraction(exact, places)
    digits = places
    while digits < 40:
        digits += 1
        text = format_fraction(exact, digits)
        if len(text.lstrip("0.")) >= significant:
            break
    return text


def format_p_value(p, alpha: float = 0.05, places: int = 3) -> str:
    """``= 0.453``, ``< 0.001``; a p below ``alpha`` never prints as ``alpha`` or more.

    Examples
    --------
    >>> format_p_value(0.453125), format_p_value(0.0498), format_p_value(0.0004)
    ('= 0.453', '= 0.0498', '< 0.001')
    >>> format_p_value(0.0625), format_p_value(None)
    ('= 0.063', 'n/a')
    """
    if _is_na(p):
        return "n/a"
    floor = Fraction(1, 10**places)
    exact = _exact(p)
    if exact < floor:
        return f"< {format_fraction(floor, places)}"
    # A setting such as 0.05 is meant as the decimal, not the binary float.
    level = Fraction(str(alpha)) if isinstance(alpha, float) else Fraction(alpha)
    text = format_fraction(exact, places)
    digits = places
    while exact < level and Fraction(text) >= level and digits < 12:
        digits += 1
        text = format_fraction(exact, digits)
    return f"= {text}"


def format_percent(value) -> str:
    """A share as a whole percentage, half up: ``0.8`` → ``80``.

    Examples
    --------
    >>> format_percent(0.8), format_percent(Fraction(2, 3)), format_percent(0.125)
    ('80', '67', '13')
    """
    return format_fraction(_exact(value) * 100, 0)


def format_setting_percent(value) -> str:
    """A setting as a percentage exactly as given, never rounded: ``0.9999`` → ``99.99``.

    Examples
    --------
    >>> format_setting_percent(0.95), format_setting_percent(0.9999), format_setting_percent(0.8)
    ('95', '99.99', '80')
    """
    return decimal_text(Fraction(decimal_text(value)) * 100)


def format_margin(value) -> str:
    """A margin, setting or threshold exactly as given, never rounded: ``0.02``, ``0.0249999999``.

    Examples
    --------
    >>> format_margin(0.0249999999), format_margin(Fraction(4, 5))
    ('0.0249999999', '0.8')

    ``format_threshold`` is the same function, for thresholds:

    >>> format_threshold(0.6), format_threshold is format_margin
    ('0.6', True)
    """
    return decimal_text(value)


format_threshold = format_margin


def format_trial_plan(plan, version: str) -> str:
    """The two-stage model's plan of repeated trials: doubling the items or the trials.

    The standard errors are those of ``version``'s mean item rate under the
    two-stage model (:func:`buddy_eval.stats.more_trials_or_items`), three
    decimals half up.

    Examples
    --------
    >>> from buddy_eval.stats import TrialPlan
    >>> format_trial_plan(TrialPlan(0.09, 0.0625, 0.08, "more items"), "NEW").split(" (")[1]
    "SE of NEW's mean rate 0.063 vs 0.080)"
    """
    how = (
        "doubling items or trials narrows the interval about as much"
        if plan.recommendation == "either"
        else "doubling items narrows the interval more than doubling trials"
    )
    return (
        f"{how} (SE of {version}'s mean rate {format_rate(plan.se_more_items, 3)} "
        f"vs {format_rate(plan.se_more_trials, 3)})"
    )


def format_outlook(outlook, version: str) -> str:
    """The ``next`` line: what twice the items or twice the trials would do to the interval.

    The widths are those of ``version``'s printed interval (the ``observed``
    line) and of the same interval computed for the projected design
    (:func:`buddy_eval.stats.interval_outlook`), three decimals half up (more,
    up to six, when three would print two different widths alike).

    Examples
    --------
    >>> import buddy_eval as be
    >>> ev = be.evaluate("data/sample_trials.txt", trials=True)
    >>> text = format_outlook(ev.paired["correctness"].trials.outlook, "NEW")
    >>> print(text.split("; ")[0])
    NEW's interval, 0.220 wide, would be about 0.130 with twice the items
    """
    now, items, trials = outlook.now, outlook.more_items, outlook.more_trials
    # Three decimals, more (up to six) when they would print two different widths alike.
    places = 3
    others = [ci.width for ci in (items, trials) if ci is not None and ci.width != now.width]
    while places < 6 and any(
        format_rate(w, places) == format_rate(now.width, places) for w in others
    ):
        places += 1
    width = format_rate(now.width, places)
    text = (
        f"{version}'s interval, {width} wide, would be about "
        f"{format_rate(items.width, places)} with twice the items"
    )
    if trials is None:
        return text + " (no item has two trials: the effect of more trials is not estimated)"
    after = format_rate(trials.width, places)
    if after != width:
        return f"{text}, {after} with twice the trials"
    if now.method != BOUND_RATE_METHOD:
        return f"{text}; twice the trials would not change it"
    why = (
        f"fewer than {EFFECTIVE_MIN_ITEMS} items"
        if (now.effective_n or 0) < EFFECTIVE_MIN_ITEMS
        else "too little spread between the items, or too few passes or failures"
    )
    return (
        f"{text}; twice the trials would not change it ({why}: the interval is the "
        "variance bound over the items, which only more items narrow)"
    )


def format_count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 paired item``, ``2 paired items``.

    Examples
    --------
    >>> format_count(1, "paired item"), format_count(2, "paired item")
    ('1 paired item', '2 paired items')
    >>> format_count(3, "query", "queries")
    '3 queries'
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def format_id_list(ids, limit: int = MAX_LISTED_IDS, empty: str = "none") -> str:
    """``a, b, c and 2 more``; ``empty`` when there are none.

    Examples
    --------
    >>> format_id_list(["j05", "j14"]), format_id_list([]), format_id_list("abc", 2)
    ('j05, j14', 'none', 'a, b and 1 more')
    """
    ids = list(ids)
    if not ids:
        return empty
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


#: CSS classes telling MathJax (classic notebook, JupyterLab) to leave a fragment alone.
#:
#: Examples
#: --------
#: >>> from buddy_eval.formatting import NO_MATH
#: >>> NO_MATH in be.report("data/example.txt")._repr_html_()
#: True
NO_MATH = "tex2jax_ignore mathjax_ignore"

#: Inline style of a verdict: green for RELEASE (True), red for BLOCK (False).
#:
#: Examples
#: --------
#: >>> from buddy_eval.formatting import VERDICT_STYLE
#: >>> VERDICT_STYLE[False]
#: 'background:#fdecea;border-left:4px solid #b3261e;'
#: >>> VERDICT_STYLE[False] in be.report("data/example.txt")._repr_html_()   # a BLOCK
#: True
VERDICT_STYLE = {
    True: "background:#e6f4ea;border-left:4px solid #1b7f3b;",
    False: "background:#fdecea;border-left:4px solid #b3261e;",
}


class Report(str):
    """The canonical three lines (baseline, candidate, verdict) as a ``str``.

    It is a plain string everywhere (compare it, print it, write it), and in
    Jupyter it shows as the three lines rather than a quoted repr
    (``_repr_pretty_``), or as a preformatted block whose verdict line is
    green for ``RELEASE`` and red for ``BLOCK`` (``_repr_html_``, escaped).

    Examples
    --------
    >>> lines = be.report("data/example.txt")
    >>> type(lines).__name__, isinstance(lines, str)
    ('Report', True)
    >>> print(lines)
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal
    >>> lines.splitlines()[-1].startswith("BLOCK")
    True
    """

    __slots__ = ()

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        lines = str(self).split("\n")
        verdict = lines[-1]
        release = verdict == RELEASE
        head = "".join(f"{escape(line)}\n" for line in lines[:-1])
        style = VERDICT_STYLE[release] if release or verdict.startswith(BLOCK) else ""
        return (
            f'<pre class="buddy-eval-report {NO_MATH}">{head}'
            f'<span style="{style}padding:0 4px;font-weight:bold;">{escape(verdict)}</span></pre>'
        )


def format_version_line(label: str, values: dict) -> str:
    """``LABEL: correctness 0.67 citation 0.67 refusal 1.00 violations 0``.

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt")
    >>> ev.values("NEW")["refusal"], ev.values("NEW")["violations"]
    (Fraction(0, 1), 1)
    >>> format_version_line("NEW", ev.values("NEW"))
    'NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1'
    """
    figures = " ".join(f"{m} {format_fraction(values[m])}" for m in RATE_METRICS)
    return f"{label}: {figures} violations {values['violations']}"


def format_report(
    baseline: str, baseline_values: dict, candidate: str, candidate_values: dict, decision: Decision
) -> Report:
    """The three canonical lines, without a trailing newline (a :class:`Report`).

    Examples
    --------
    >>> ev = be.evaluate("data/example.txt")
    >>> lines = format_report("OLD", ev.values("OLD"), "NEW", ev.values("NEW"), ev.decision)
    >>> lines == ev.report()
    True
    >>> print(lines)
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal
    """
    return Report(
        "\n".join(
            [
                format_version_line(baseline, baseline_values),
                format_version_line(candidate, candidate_values),
                decision.verdict,
            ]
        )
    )
