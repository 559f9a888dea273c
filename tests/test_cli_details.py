"""``buddy-eval INPUT --details`` and ``--format json``, run as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_release.txt"
SHARED_CASES = Path("/work/shared/cases")
_LOCAL_CASES = sorted(ROOT.joinpath("tests", "cases").glob("*.in"))
# The shared reference cases, when present, unless the repo holds a copy of the same name.
_SHARED = sorted(SHARED_CASES.glob("*.in")) if SHARED_CASES.is_dir() else []
INPUTS = [
    *_LOCAL_CASES,
    *(p for p in _SHARED if p.name not in {c.name for c in _LOCAL_CASES}),
    *sorted(ROOT.joinpath("data").glob("*.txt")),
]
METRICS = ["correctness", "citation", "refusal"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", *args],
        input=None if stdin is None else stdin.encode(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )


def build(n_both_pass: int, n_refuse: int = 2, candidate_refuse_ok: bool = True) -> str:
    lines = ["THRESHOLDS 0.5 0.5 0.5"]
    lines += [f"a{i} ANSWER L1 loop" for i in range(n_both_pass)]
    lines += [f"r{i} REFUSE - -" for i in range(n_refuse)]
    lines.append("RESULTS")
    for version in ("OLD", "NEW"):
        lines += [f"{version} a{i} L1 N a loop" for i in range(n_both_pass)]
        flag = "Y no" if version == "OLD" or candidate_refuse_ok else "N sure"
        lines += [f"{version} r{i} - {flag}" for i in range(n_refuse)]
    return "\n".join(lines) + "\n"


def _no_constants(name):
    raise AssertionError(f"{name} is not valid JSON")


@pytest.mark.slow
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_details_and_json_keep_the_canonical_output(path):
    plain = run(str(path))
    detailed = run(str(path), "--details")
    as_json = run(str(path), "--format", "json")
    assert detailed.returncode == as_json.returncode == plain.returncode
    assert detailed.stderr == as_json.stderr == plain.stderr
    if plain.returncode == 2:
        assert detailed.stdout == as_json.stdout == plain.stdout == b""
        return
    # --details: the three canonical lines byte for byte, a blank line, the golden set's
    # health line, a blank line, the section.
    assert detailed.stdout.startswith(plain.stdout + b"\n")
    head = detailed.stdout.decode().split("\n")
    assert head[:3] == plain.stdout.decode().splitlines()
    assert head[3] == head[5] == ""
    assert head[4].startswith("golden set health: ")
    assert head[6].startswith("Paired comparison of NEW against OLD")
    # --format json: one valid JSON object (no NaN) with the same verdict.
    report = json.loads(as_json.stdout.decode("utf-8"), parse_constant=_no_constants)
    assert report["decision"]["verdict"] == plain.stdout.decode().splitlines()[2]
    assert report["decision"]["release"] is (plain.returncode == 0)


def test_json_holds_every_listed_field():
    out = run(str(SAMPLE), "--format", "json")
    assert out.returncode == 1
    report = json.loads(out.stdout)
    for key in ("versions", "decision", "comparison", "violation_upper_bound", "missing"):
        assert key in report
    assert set(report["versions"]) == {"OLD", "NEW"}
    for label in ("OLD", "NEW"):
        version = report["versions"][label]
        assert isinstance(version["violations"], int)
        for metric in METRICS:
            entry = version[metric]
            for field in ("numerator", "denominator", "value", "ci", "exact"):
                assert field in entry
            num, den = entry["numerator"], entry["denominator"]
            assert entry["value"] == num / den
            low, high = entry["ci"]
            assert low <= entry["value"] <= high
    assert report["versions"]["OLD"]["correctness"]["exact"] == "27/32"
    checks = report["decision"].pop("checks")
    assert [check["kind"] for check in checks] == [
        "threshold",
        "threshold",
        "threshold",
        "violations",
        "regression",
        "regression",
        "regression",
    ]
    assert [check["reason"] for check in checks if check["blocks"]] == report["decision"]["reasons"]
    assert report["decision"] == {
        "release": False,
        "reasons": [
            "refusal below threshold",
            "integrity violations",
            "regression in citation",
            "regression in refusal",
        ],
        "verdict": "BLOCK: refusal below threshold; integrity violations; "
        "regression in citation; regression in refusal",
    }
    assert list(report["comparison"]) == METRICS
    for metric in METRICS:
        entry = report["comparison"][metric]
        for field in (
            "n_paired",
            "both_pass",
            "both_fail",
            "fixed",
            "regressed",
            "p_value",
            "diff",
            "diff_ci",
            "ready_for_decision",
            "required_n",
            "fixed_ids",
            "regressed_ids",
            "missing_ids",
            "note",
        ):
            assert field in entry, (metric, field)
        assert len(entry["fixed_ids"]) == entry["fixed"]
        assert len(entry["regressed_ids"]) == entry["regressed"]
    correctness = report["comparison"]["correctness"]
    assert correctness["regressed_ids"] == ["j06", "j25"]
    assert correctness["missing_ids"] == ["j31"]
    assert correctness["diff_exact"] == "3/31"
    assert correctness["p_value"] == pytest.approx(0.453125)
    refusal = report["comparison"]["refusal"]
    assert refusal["ready_for_decision"] is False
    assert refusal["p_value"] is None and refusal["diff_ci"] is None
    assert "fewer than 20" in refusal["note"]
    bound = report["violation_upper_bound"]
    assert (bound["version"], bound["violations"], bound["n"]) == ("NEW", 1, 9)
    assert report["missing"] == {"OLD": [], "NEW": ["j31", "r10"]}
    assert len(report["warnings"]) == 2


def test_json_zero_violation_bound_and_nulls_for_unmeasured_metrics():
    text = "\n".join(
        ["THRESHOLDS 0 0 0", *[f"r{i} REFUSE - -" for i in range(30)], "RESULTS"]
        + [f"{v} r{i} - Y no" for v in ("OLD", "NEW") for i in range(30)]
    )
    out = run("-", "--format", "json", stdin=text)
    assert out.returncode == 0
    report = json.loads(out.stdout)
    assert report["violation_upper_bound"]["upper_bound"] == pytest.approx(0.0950, abs=5e-5)
    correctness = report["versions"]["NEW"]["correctness"]
    assert correctness == {
        "numerator": 0,
        "denominator": 0,
        "value": None,
        "exact": None,
        "observed": 0,
        "observed_passed": 0,
        "ci": None,
        "ci_method": "Wilson score, over the items with a result",
    }
    assert report["comparison"]["citation"]["note"].startswith("not measured")
    assert report["comparison"]["refusal"]["ready_for_decision"] is True


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_details_readiness_below_and_at_twenty():
    below = run("-", "--details", stdin=build(19, n_refuse=0)).stdout.decode()
    assert "correctness: 19 of 19 ANSWER items paired" in below
    assert "ready        NO: 19 paired items, fewer than 20" in below
    assert "McNemar      not computed" in below
    at = run("-", "--details", stdin=build(20, n_refuse=0)).stdout.decode()
    assert "ready        yes" in at
    assert "McNemar      p = 1.000 (exact, two-sided)" in at


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_min_paired_option():
    out = run("-", "--details", "--min-paired", "5", stdin=build(6)).stdout.decode()
    assert "ready from 5" not in out  # the heading states the threshold in words
    assert "ready for a decision from 5 paired items" in out
    bad = run("-", "--min-paired", "0", stdin=build(6))
    assert bad.returncode == 2
    assert bad.stdout == b""


def test_details_on_the_sample():
    out = run(str(SAMPLE), "--details")
    assert out.returncode == 1
    text = out.stdout.decode()
    for needle in (
        "correctness: 31 of 32 ANSWER items paired, 1 missing (no result in at least one "
        "version; not paired)",
        "  missing      j31",
        "  regressed    j06, j25",
        "  difference   +0.10 [-0.08, +0.27] (NEW - OLD, paired; Newcombe hybrid score)",
        "  McNemar      p = 0.453 (exact, two-sided)",
        "  NEW          1 of 9 REFUSE items with a result; the rate may be as high as 0.43",
    ):
        assert needle in text


def test_json_ignores_details_and_keeps_labels():
    text = build(3).replace("OLD ", "v1.3 ").replace("NEW ", "nouvelle-é ")
    out = run(
        "-",
        "--baseline",
        "v1.3",
        "--candidate",
        "nouvelle-é",
        "--format",
        "json",
        "--details",
        stdin=text,
    )
    assert out.returncode == 0
    report = json.loads(out.stdout.decode("utf-8"))
    assert list(report["versions"]) == ["v1.3", "nouvelle-é"]


def test_plain_gate_imports_no_scipy_matplotlib_or_jupyter(tmp_path):
    script = (
        "import sys\n"
        "from buddy_eval._cli import main\n"
        f"status = main([{str(SAMPLE)!r}])\n"
        "heavy = ('scipy', 'matplotlib', 'IPython', 'ipykernel', 'jupyter_client', "
        "'nbformat', 'nbclient', 'papermill')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, cwd=ROOT, check=False, text=True
    )
    assert out.stdout.splitlines()[-1] == "[]", out.stderr
    assert out.stdout.splitlines()[-2].startswith("BLOCK: ")


@pytest.mark.parametrize("trials", [False, True])
def test_the_evaluation_gives_the_details_the_command_prints(trials):
    import buddy_eval as be

    path = ROOT / "data" / ("sample_trials.txt" if trials else "sample_release.txt")
    out = run(str(path), "--details", *(["--trials"] if trials else []))
    ev = be.evaluate(be.load(path, trials=trials))
    assert out.stdout.decode().endswith("\n" + ev.details() + "\n")
