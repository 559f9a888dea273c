"""Repeated trials (``--trials``): the engine against the plain-Python oracle."""

from __future__ import annotations

import json
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buddy_eval import InputError, evaluate, from_frames, load
from buddy_eval._cli.gate import run
from tests import oracle
from tests.test_properties import BLANK, IDS, SOURCES, WORDS, gate_inputs

VERSIONS = ["OLD", "NEW", "EXP"]


@st.composite
def trial_inputs(draw):
    """Inputs with 0-7 trials per (version, item), unequal counts, lines shuffled."""
    sep = lambda: draw(BLANK)  # noqa: E731
    thresholds = [draw(st.sampled_from(["0", "0.5", "0.6", ".25", "1", "0.333"])) for _ in "abc"]
    parts = ["THRESHOLDS " + " ".join(thresholds)]
    ids = draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=5, unique=True))
    for item_id in ids:
        if draw(st.booleans()):
            keywords = draw(st.lists(st.sampled_from(WORDS), max_size=2))
            field = ",".join(keywords) if keywords else "-"
            parts.append(f"{item_id} ANSWER {draw(st.sampled_from(SOURCES))} {field}")
        else:
            parts.append(f"{item_id} REFUSE - -")
    parts.append("RESULTS")
    lines = []
    for version in VERSIONS:
        for item_id in [*ids, "unknown"]:
            for _ in range(draw(st.integers(0, 7))):
                cited = draw(st.sampled_from([*SOURCES, "-"]))
                flag = draw(st.sampled_from(["Y", "N", "n", "y", "N"]))
                words = draw(st.lists(st.sampled_from([*WORDS, "the", "Try"]), max_size=4))
                answer = "".join(sep() + w for w in words)
                lines.append(sep().join([version, item_id, cited, flag]) + answer)
    parts += draw(st.permutations(lines))
    return ("\n".join(parts) + "\n").encode("utf-8")


def engine(data: bytes, trials: bool) -> tuple[str, int]:
    try:
        ev = evaluate(load(data, trials=trials))
    except InputError:
        return "", 2
    return ev.report() + "\n", 0 if ev.release else 1


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trial_inputs())
def test_trials_report_equals_oracle(data):
    assert engine(data, True) == oracle.run(data, trials=True)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trial_inputs())
def test_trials_metrics_equal_oracle_for_every_version(data):
    try:
        _, golden, results, _ = oracle.parse(data, trials=True)
        ev = evaluate(load(data, trials=True))
    except (oracle.OracleError, InputError):
        return
    for version in ev.data.versions:
        assert ev.values(version) == oracle.score_trials(golden, results, version)
    assert len(ev.items) == len(ev.data.versions) * len(ev.data.golden_columns)
    assert ev.items["trials"].sum() == sum(len(t) for (v, i), t in results.items() if i in golden)
    ev.item_changes()
    ev.paired  # noqa: B018  (built on the first trials; must not fail)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gate_inputs())
def test_one_trial_each_equals_the_plain_gate(data):
    """Without repeats, --trials changes nothing, report, details and JSON included."""
    plain, trials = engine(data, False), engine(data, True)
    if plain[1] == 2:
        # A repeated (version, id) is only an error without --trials.
        assert trials == oracle.run(data, trials=True)
        return
    assert plain == trials == oracle.run(data, trials=True)
    from buddy_eval.reporting import details, dumps
    from buddy_eval.reporting import json_record as json_report

    a, b = evaluate(load(data)), evaluate(load(data, trials=True))
    assert details(a) == details(b)
    assert dumps(json_report(a)) == dumps(json_report(b))
    assert a.metrics.equals(b.metrics)


SMALL = b"""THRESHOLDS 0.5 0.5 0.5
q1 ANSWER L1 class
q2 ANSWER L2 try
r1 REFUSE - -
RESULTS
OLD q1 L1 N a class
OLD q2 L2 N try
OLD r1 - Y
NEW q1 L1 N a class
NEW q1 L1 N a nothing
NEW q1 L2 N a class
NEW q2 L2 N try
NEW r1 - Y
NEW r1 - N
NEW r1 - Y
"""


def test_rates_are_means_of_per_item_fractions():
    ev = evaluate(SMALL, trials=True)
    new = ev.values("NEW")
    # q1: 2 of 3 trials correct and cited, q2: 1 of 1; r1 refused 2 of 3.
    assert new == {
        "correctness": Fraction(5, 6),
        "citation": Fraction(5, 6),
        "refusal": Fraction(2, 3),
        "violations": 1,
    }
    assert ev.report().splitlines()[1] == (
        "NEW: correctness 0.83 citation 0.83 refusal 0.67 violations 1"
    )
    assert ev.data.trial_counts.tolist() == [[1, 1, 1], [3, 1, 3]]
    assert list(ev.items["trials"]) == [1, 1, 1, 3, 1, 3]


def test_unequal_trial_counts_are_named_in_a_warning():
    ev = evaluate(SMALL, trials=True)
    assert ev.warnings == (
        "<bytes>: version 'NEW' has unequal trial counts per item: 3 trials for 2 items, 1 for 1",
    )


def test_a_repeat_without_trials_is_still_the_same_input_error(capsys, tmp_path):
    assert run([_write(tmp_path, SMALL)]) == 2
    err = capsys.readouterr().err
    assert "duplicate result for version 'NEW' and id 'q1' (first given on line 9)" in err
    with pytest.raises(InputError, match=r"duplicate result for version 'NEW' and id 'q1'"):
        load(SMALL)


def test_cli_flag(capsys, tmp_path):
    path = _write(tmp_path, SMALL)
    assert run(["--trials", path]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "OLD: correctness 1.00 citation 1.00 refusal 1.00 violations 0",
        "NEW: correctness 0.83 citation 0.83 refusal 0.67 violations 1",
        "BLOCK: integrity violations; regression in correctness; regression in citation; "
        "regression in refusal",
    ]
    assert "unequal trial counts" in err
    assert run(["--trials", "--details", path]) == 1
    assert capsys.readouterr().out.startswith("\n".join(out.splitlines()) + "\n\n")
    assert run(["--trials", "--format", "json", path]) == 1
    report = json.loads(capsys.readouterr().out)
    assert "unequal trial counts" in " ".join(report["warnings"])


def test_the_sample_with_trials(capsys):
    assert run(["--trials", "data/sample_trials.txt"]) in (0, 1)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[0].startswith("OLD: ") and out[1].startswith("NEW: ")
    ev = evaluate("data/sample_trials.txt", trials=True)
    with open("data/sample_trials.txt", "rb") as f:
        data = f.read()
    assert (ev.report() + "\n", 0 if ev.release else 1) == oracle.run(data, trials=True)
    assert set(ev.data.trial_counts.ravel().tolist()) <= {0, 5}
    # Some items are flaky: their trials disagree.
    _, _, results, _ = oracle.parse(data, trials=True)
    flaky = [key for key, tried in results.items() if len({t[1:] for t in tried}) > 1]
    assert len(flaky) >= 5


def test_scaled_counts_past_int64_stay_exact():
    primes = [53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103]
    lines = ["THRESHOLDS 0 0 0"] + [f"q{p} ANSWER L1 x" for p in primes] + ["RESULTS"]
    for p in primes:
        lines.append(f"OLD q{p} L1 N x")
        lines += [f"NEW q{p} L1 N x"] * (p - 1) + [f"NEW q{p} L1 Y"]
    data = ("\n".join(lines) + "\n").encode()
    ev = evaluate(data, trials=True)
    want = sum(Fraction(p - 1, p) for p in primes) / len(primes)
    assert ev.values("NEW")["correctness"] == want
    assert (ev.report() + "\n", 1) == oracle.run(data, trials=True)
    assert ev.metrics["value"].notna().sum() == 2 * 2  # no REFUSE item: refusal is n/a


GOLDEN = pd.DataFrame(
    {
        "item_id": ["q1", "r1"],
        "item_type": ["ANSWER", "REFUSE"],
        "required_source": ["L1", None],
        "keywords": [["class"], None],
    }
)


def _results(trial=None):
    frame = pd.DataFrame(
        {
            "version": ["OLD", "OLD", "NEW", "NEW", "NEW", "NEW"],
            "item_id": ["q1", "r1", "q1", "q1", "r1", "r1"],
            "cited": ["L1", None, "L1", "L1", None, None],
            "refused": [False, True, False, False, True, False],
            "answer": ["class", "", "nothing", "class", "", "sure"],
        }
    )
    if trial is not None:
        frame["trial"] = trial
    return frame


def test_from_frames_with_a_trial_column_orders_trials():
    data = from_frames(GOLDEN, _results([1, 1, 2, 1, 1, 2]), (0.5, 0.5, 0.5), trials=True)
    ev = evaluate(data)
    assert ev.values("NEW")["correctness"] == ev.values("NEW")["refusal"] == 0.5
    items = ev.items.set_index(["version", "item_id"])
    # The first trial of NEW q1 is the one numbered 1 (row 4), not row 3.
    assert items.loc[("NEW", "q1"), "answer"] == "class"
    assert items.loc[("NEW", "q1"), "trials"] == 2


def test_from_frames_rejects_a_repeated_trial_number():
    with pytest.raises(InputError, match=r"row 4: duplicate trial '1' for version 'NEW'"):
        from_frames(GOLDEN, _results([1, 1, 1, 1, 1, 2]), (0.5, 0.5, 0.5), trials=True)
    with pytest.raises(InputError, match=r"column 'trial' must hold whole numbers"):
        from_frames(GOLDEN, _results([1, 1, 1.5, 1, 1, 2]), (0.5, 0.5, 0.5), trials=True)


def test_from_frames_without_trials_rejects_repeats():
    with pytest.raises(InputError, match=r"row 4: duplicate result for version 'NEW' and id 'q1'"):
        from_frames(GOLDEN, _results([1, 1, 2, 1, 1, 2]), (0.5, 0.5, 0.5))
    data = from_frames(GOLDEN, _results(), (0.5, 0.5, 0.5), trials=True)
    assert data.trials and evaluate(data).items["trials"].tolist() == [1, 1, 2, 2]


def _write(tmp_path, data: bytes) -> str:
    path = tmp_path / "input.txt"
    path.write_bytes(data)
    return str(path)


def test_metrics_frame_ratios_are_the_exact_trial_rates():
    ev = evaluate("data/sample_trials.txt", trials=True)
    for row in ev.metrics.itertuples():
        if row.metric != "violations":
            assert (
                Fraction(int(row.numerator), int(row.denominator))
                == ev.values(row.version)[row.metric]
            )
    assert ev.metrics["scale"].tolist() == [5, 5, 5, 1] * 2
    assert "scale" not in evaluate("data/sample_release.txt").metrics.columns


def test_the_plain_gate_with_trials_imports_no_pandas():
    import subprocess
    import sys

    code = (
        "import sys, io\n"
        "from buddy_eval._cli import main\n"
        "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        "rc = main(['--trials', 'data/sample_trials.txt'], lean=True)\n"
        "sys.stderr.write(repr((rc, 'pandas' in sys.modules, 'scipy' in sys.modules)))\n"
    )
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stderr
    assert err.splitlines()[-1] == "(1, False, False)"
