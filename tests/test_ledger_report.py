"""The HTML release report with ``--ledger``: a release history section from the ledger."""

from __future__ import annotations

import runpy

import pytest

from tests.conftest import DATA, ROOT, run_cli


@pytest.fixture(scope="module")
def sample_ledger(tmp_path_factory):
    build = runpy.run_path(str(DATA / "make_sample_ledger.py"))["build"]
    return build(tmp_path_factory.mktemp("ledger") / "release.ledger")


@pytest.mark.slow
def test_the_report_ends_with_the_release_history(sample_ledger, tmp_path):
    out = tmp_path / "r.html"
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", out, "--ledger", sample_ledger)
    assert proc.returncode == 0, proc.stderr.decode()
    html = out.read_text(encoding="utf-8")
    assert "Release history" in html
    assert "5 versions recorded; live: v5 since 2026-02-16" in html
    assert "exam week: the new prompt ships" in html
    assert "regressions that escaped: 1" in html
    assert str(tmp_path) not in html and str(sample_ledger.parent) not in html
    plain = tmp_path / "plain.html"
    assert run_cli("notebook", DATA / "sample_release.txt", "-o", plain).returncode == 0
    assert "Release history" not in plain.read_text(encoding="utf-8")


def test_a_bad_ledger_is_refused_before_the_notebook_runs(tmp_path):
    bad = tmp_path / "bad.ledger"
    bad.write_text("not a ledger\n")
    out = tmp_path / "r.html"
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", out, "--ledger", bad, cwd=ROOT)
    assert proc.returncode == 2
    assert "is not a buddy_eval ledger (not an SQLite database)" in proc.stderr.decode()
    assert not out.exists()


def test_the_report_never_overwrites_the_ledger(sample_ledger):
    before = sample_ledger.read_bytes()
    proc = run_cli(
        "notebook", DATA / "sample_release.txt", "-o", sample_ledger, "--ledger", sample_ledger
    )
    assert proc.returncode == 2
    assert "is the --ledger file this run reads" in proc.stderr.decode()
    assert sample_ledger.read_bytes() == before


def _history_section(html: str) -> str:
    return html[html.index("Release history") :]


@pytest.mark.slow
def test_the_history_section_is_formatted_like_every_other_table(sample_ledger, tmp_path):
    out = tmp_path / "r.html"
    proc = run_cli("notebook", DATA / "sample_release.txt", "-o", out, "--ledger", sample_ledger)
    assert proc.returncode == 0, proc.stderr.decode()
    section = _history_section(out.read_text(encoding="utf-8"))
    for raw in ("NaN", "&lt;NA&gt;", "<NA>", ">True<", ">False<", "0.909091", "None"):
        assert raw not in section, raw
    # No index column: every header row starts with the first column's name.
    assert "<th></th>" not in section
    assert "<th>version</th>" in section and "<th>release</th>" in section
    # Every override reason in full, and every figure under the rounding policy.
    assert "override: exam week: the new prompt ships" in section
    assert "<td>0.94</td>" in section


@pytest.mark.slow
def test_the_history_notebook_shows_your_own_ledger(sample_ledger, tmp_path):
    import buddy_eval as be

    mine = tmp_path / "mine.ledger"
    ev = be.evaluate((DATA / "example.txt").read_text(encoding="utf-8"))
    be.record(ev, mine, date="2026-05-01", by="me")
    be.release(mine, "OLD", date="2026-05-02", by="me")
    out = tmp_path / "h.html"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli(
        "notebook",
        DATA / "example.txt",
        "-o",
        out,
        "--ledger",
        mine,
        "--notebook",
        ROOT / "notebooks" / "release_history.ipynb",
        cwd=elsewhere,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    html = out.read_text(encoding="utf-8")
    assert f"ledger {mine}: 2 versions, 1 release, 1 golden-set revision; live: OLD" in html
    assert "live: v5" not in html  # not the sample ledger


@pytest.mark.slow
def test_the_report_gates_against_the_live_version_as_the_gate_does(tmp_path, write):
    import buddy_eval as be
    from tests.ledger_helpers import GOLDEN, make_input, result_lines

    ledger = tmp_path / "l.ledger"
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger, date="2026-01-01", by="ci")
    be.release(ledger, "v2", date="2026-01-02", by="ci")
    grown = GOLDEN + "q5 ANSWER L5 eta\n"
    path = write(
        "THRESHOLDS 0.5 0.5 0.5\n"
        + grown
        + "RESULTS\n"
        + result_lines("v3", {"q2"})
        + "v3 q5 L5 N eta\n"
    )
    gate = run_cli(path, "--baseline", "live", "--candidate", "v3", "--ledger", ledger)
    out = tmp_path / "r.html"
    proc = run_cli(
        "notebook", path, "-o", out, "--baseline", "live", "--candidate", "v3", "--ledger", ledger
    )
    assert proc.returncode == 0, proc.stderr.decode()
    verdict = gate.stdout.decode().splitlines()[-1]
    assert verdict == "BLOCK: regression in correctness; regression in citation"
    assert proc.stdout.decode() == f"{out}: {verdict}\n"
    html = out.read_text(encoding="utf-8")
    assert "compared on 4 of 5 golden items" in html
    assert "not compared (added since the baseline was measured): q5" in html


@pytest.mark.slow
def test_the_report_decides_under_the_gates_rule(tmp_path, write):
    """200 ANSWER and 200 REFUSE items, one wrong citation: the exact rule blocks, the
    non-inferiority rule with margin 0.05 releases, in the gate and in the report alike."""
    golden = "".join(f"a{k} ANSWER L1 kw\n" for k in range(200))
    golden += "".join(f"r{k} REFUSE - -\n" for k in range(200))
    old = "".join(f"OLD a{k} L1 N kw\n" for k in range(200))
    new = "".join(f"NEW a{k} {'L2' if k == 0 else 'L1'} N kw\n" for k in range(200))
    refusals = "".join(f"{v} r{k} - Y no\n" for v in ("OLD", "NEW") for k in range(200))
    path = write("THRESHOLDS 0.5 0.5 0.5\n" + golden + "RESULTS\n" + old + new + refusals)
    rule = ["--rule", "noninferiority", "--margin", "0.05"]
    gate = run_cli(path, *rule)
    assert gate.returncode == 0
    out = tmp_path / "r.html"
    proc = run_cli("notebook", path, "-o", out, *rule)
    assert proc.stdout.decode() == f"{out}: RELEASE\n"
    assert run_cli("notebook", path, "-o", out).stdout.decode() == (
        f"{out}: BLOCK: regression in citation\n"
    )
