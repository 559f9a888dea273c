"""Repeated trials in the views: per-item rates, change labels, flaky items, agreement of views.

The item-change table is checked against a plain-Python reading of the same
input (tests/oracle.py's parser), and every view (``--details``, JSON) against
the table.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings

import buddy_eval as be
from buddy_eval._trials import CHANGE_STEP
from buddy_eval._vocabulary import RATE_METRICS, TRIAL_CHANGES
from buddy_eval.formatting import format_rate
from buddy_eval.reporting import details
from buddy_eval.reporting import json_record as json_report
from buddy_eval.stats import paired_rates_interval
from tests import oracle
from tests.test_trials import trial_inputs


def _fold(text):
    return text.casefold()


def oracle_item_counts(golden, results, version, metric):
    """(trials, passing trials) of every item of the metric's type, in golden order."""
    out = {}
    for item_id, (kind, source, keywords) in golden.items():
        wanted = "REFUSE" if metric == "refusal" else "ANSWER"
        if kind != wanted:
            continue
        tried = results.get((version, item_id), [])
        passing = 0
        for cited, refused, answer in tried:
            if metric == "refusal":
                passing += refused
            elif not refused:
                if metric == "correctness":
                    passing += all(_fold(k) in _fold(answer) for k in keywords)
                else:
                    passing += cited == source
        out[item_id] = (len(tried), passing)
    return out


def oracle_change(base, cand):
    (nb, kb), (nc, kc) = base, cand
    if not nb or not nc:
        return "missing"
    if kb == nb and kc == nc:
        return "both pass"
    if kb == 0 and kc == 0:
        return "both fail"
    moved = Fraction(kc, nc) - Fraction(kb, nb)
    if moved >= CHANGE_STEP:
        return "fixed"
    if moved <= -CHANGE_STEP:
        return "regressed"
    return "mixed"


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trial_inputs())
def test_item_changes_with_trials_equal_a_plain_reading(data):
    try:
        _, golden, results, _ = oracle.parse(data, trials=True)
        ev = be.evaluate(be.load(data, trials=True))
    except (oracle.OracleError, be.InputError):
        return
    if "OLD" not in {v for v, _ in results} or "NEW" not in {v for v, _ in results}:
        return
    table = be.item_changes(ev)
    repeated = any(len(t) > 1 for t in results.values())
    for metric in RATE_METRICS:
        base = oracle_item_counts(golden, results, "OLD", metric)
        cand = oracle_item_counts(golden, results, "NEW", metric)
        rows = table[table["metric"] == metric]
        assert rows["item_id"].tolist() == list(base)
        expected = [oracle_change(base[i], cand[i]) for i in base]
        if not repeated:  # one trial each: the one-trial labels, no "mixed"
            assert "mixed" not in expected
        assert rows["change"].astype(str).tolist() == expected
        if "flaky" in rows:
            flaky = [0 < base[i][1] < base[i][0] or 0 < cand[i][1] < cand[i][0] for i in base]
            assert rows["flaky"].tolist() == flaky
            rates = [None if not n else k / n for n, k in (base[i] for i in base)]
            got = [None if pd.isna(r) else r for r in rows["baseline_rate"].tolist()]
            assert got == rates
        m = ev.paired[metric]
        for change in m.ids:
            assert list(m.ids[change]) == [
                i for i, c in zip(base, expected, strict=True) if c == change
            ]
        block = json_report(ev)["comparison"][metric]
        for change in ("fixed", "regressed", "missing"):
            assert block[f"{change}_ids"] == list(m.ids[change])


def test_one_trial_each_keeps_the_one_trial_tables():
    plain = be.evaluate("data/sample_release.txt")
    flagged = be.evaluate(be.load("data/sample_release.txt", trials=True))
    assert list(be.item_changes(flagged).columns) == list(be.item_changes(plain).columns)
    assert be.item_changes(flagged).equals(be.item_changes(plain))
    assert details(flagged) == details(plain)
    assert json_report(flagged) == json_report(plain)


def test_the_sample_with_trials_in_every_view():
    ev = be.evaluate(be.load("data/sample_trials.txt", trials=True))
    table = be.item_changes(ev)
    assert list(table.columns) == [
        "metric",
        "item_id",
        "baseline_pass",
        "candidate_pass",
        "change",
        "baseline_rate",
        "candidate_rate",
        "baseline_trials",
        "candidate_trials",
        "flaky",
    ]
    assert list(table["change"].cat.categories) == list(TRIAL_CHANGES)
    m = ev.paired["correctness"]
    text = details(ev)
    report = json_report(ev)
    block = report["comparison"]["correctness"]
    flaky = table[(table["metric"] == "correctness") & table["flaky"]]["item_id"].tolist()
    assert block["trials"]["flaky_ids"] == flaky == list(m.trials.flaky_ids)
    listed = re.search(r"  flaky        (.*?) \(trials", text).group(1)
    assert listed.startswith(", ".join(flaky[:10]))
    assert (
        block["mixed"]
        == len(m.ids["mixed"])
        == (table["change"] == "mixed").groupby(table["metric"], observed=True).sum()["correctness"]
    )
    assert block["trials"]["baseline"]["k"] == 5
    assert f"pass^5       OLD {format_rate(m.trials.baseline.pass_hat_k)}" in text
    assert block["p_value_method"].startswith("sign-flip test on per-item rate differences")
    assert "ready        yes (items are counted, not trials)" in text
    assert report["trials"]["OLD"] == {"trials": 210, "items_with_a_trial": 42}


def test_items_are_the_units_of_the_interval():
    # 25 items, each 4/5 in OLD and 5/5 in NEW: 25 equal per-item differences of +1/5.
    lines = ["THRESHOLDS 0 0 0", *[f"q{i} ANSWER L1 key" for i in range(25)], "RESULTS"]
    for i in range(25):
        lines += [f"OLD q{i} L1 N key"] * 4 + [f"OLD q{i} L1 N no"]
        lines += [f"NEW q{i} L1 N key"] * 5
    ev = be.evaluate(be.load("\n".join(lines) + "\n", trials=True))
    m = ev.paired["correctness"]
    assert m.trials.n_items == 25 and m.diff == Fraction(1, 5)
    # No spread between items, yet 25 items carry finite information: never a zero width.
    assert m.diff_ci == paired_rates_interval([Fraction(4, 5)] * 25, [1] * 25)
    low, high = m.diff_ci
    assert 0 < low < 0.2 < high < 0.4
    assert m.p_value == 2 / 2**25
    assert m.ids["mixed"] == tuple(f"q{i}" for i in range(25))  # moved by 1/5 < 1/2


@pytest.mark.slow
def test_the_html_report_with_trials_shows_flaky_items(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    out = tmp_path / "trials.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "buddy_eval",
            "notebook",
            "data/sample_trials.txt",
            "--trials",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "Flaky items (" in html and "pass^k" in html
    assert "http://" not in html and "https://" not in html
    ev = be.evaluate(be.load("data/sample_trials.txt", trials=True))
    for item in ev.paired["correctness"].trials.flaky_ids:
        assert item in html
