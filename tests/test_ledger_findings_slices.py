"""The ledger keeps the golden-set doctor's findings per revision and each evaluation's slices.

- Recording keeps the doctor's findings once per golden-set revision (the same diagnosis
  the gate's health line shows, computed once), and ``history`` shows them per revision
  in every format; a revision recorded before findings were kept says "not recorded".
- ``--slices`` stores each item's slice with the evaluation, and the slices file's
  content is part of the evaluation's identity; ``history --slice NAME`` reads one
  slice's rates per evaluation recorded with slices.
- A ledger of schema version 2 is read as is and migrated by its first recording.
  ``tests/ledger_fixtures/schema-v2.ledger`` was written by the previous main's own
  commands (schema 2): ``data/sample_release.txt --slices data/sample_slices.csv``
  (2026-11-30), then ``data/example.txt`` (2026-12-01, a second revision), then
  ``ledger release OLD`` (2026-12-02), all ``--by fixture-bot``.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

import buddy_eval as be
from buddy_eval._cli import main
from buddy_eval.ledger._schema import SCHEMA_VERSION
from tests.conftest import ROOT
from tests.ledger_helpers import dump

FIXTURE = ROOT / "tests" / "ledger_fixtures" / "schema-v2.ledger"
DATA = ROOT / "data"
EXAMPLE_SLICES = "id,slice\nq1,easy\nq2,easy\nq3,hard\n"


def run(folder: Path, *args: str) -> tuple[int, str, str]:
    """``buddy-eval ARGS`` in this process, in ``folder``, outside CI."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("GITHUB_ACTIONS", "GITLAB_CI"):
            patch.delenv(name, raising=False)
        patch.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("example.txt", "sample_release.txt", "sample_slices.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "ex.csv").write_text(EXAMPLE_SLICES, encoding="utf-8")
    return tmp_path


def record(folder: Path, *args: str, ledger: str = "r.ledger") -> tuple[int, str, str]:
    return run(folder, *args, "--ledger", ledger, "--date", "2026-12-03", "--by", "t")


def rows(path: Path, query: str) -> list[tuple]:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


# --- the migration -----------------------------------------------------------------------

OLD_HEALTH = (
    "golden-set health per revision:\n"
    "r1: golden set health: not recorded\n"
    "r2: golden set health: not recorded\n"
)


def test_a_schema_2_ledger_is_read_as_it_is_and_left_untouched(folder):
    shutil.copy(FIXTURE, folder / "old.ledger")
    before = (folder / "old.ledger").read_bytes()
    status, out, err = run(folder, "history", "--ledger", "old.ledger")
    assert (status, err) == (0, "")
    assert OLD_HEALTH in out
    status, out, err = run(folder, "history", "--ledger", "old.ledger", "--format", "json")
    revisions = json.loads(out)["revisions"]
    assert [(r["revision"], r["health"], r["findings"]) for r in revisions] == [
        ("r1", None, None),
        ("r2", None, None),
    ]
    assert run(folder, "ledger", "verify", "--ledger", "old.ledger")[0] == 0
    assert (folder / "old.ledger").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir() if "ledger" in p.name) == ["old.ledger"]
    found = be.history(folder / "old.ledger")
    assert found.revisions["findings_recorded"].tolist() == [False, False]
    assert found.revisions["warnings"].isna().all() and found.findings.empty


def test_the_first_recording_migrates_a_schema_2_ledger_and_keeps_every_row(folder):
    shutil.copy(FIXTURE, folder / "old.ledger")
    old_rows = dump(folder / "old.ledger")
    assert rows(folder / "old.ledger", "PRAGMA user_version") == [(2,)]
    status, _, err = record(folder, "example.txt", "--slices", "ex.csv", ledger="old.ledger")
    assert status == 1
    assert err.endswith("old.ledger: recorded evaluation 3; new versions: none\n")
    assert rows(folder / "old.ledger", "PRAGMA user_version") == [(SCHEMA_VERSION,)] == [(3,)]
    new_rows = dump(folder / "old.ledger")
    kept = [r for r in old_rows if not r.startswith("PRAGMA")]
    assert all(r in new_rows for r in kept)  # every row it held, as it was
    status, out, _ = run(folder, "history", "--ledger", "old.ledger")
    assert (
        "golden-set health per revision:\n"
        "r1: golden set health: not recorded\n"
        "r2: golden set health: 0 errors, 4 warnings, 1 note; worst: few-refuse-items, "
        "underpowered (3), saturated\n"
    ) in out
    status, out, _ = run(folder, "history", "--ledger", "old.ledger", "--slice", "hard")
    assert (status, out) == (
        0,
        "ledger old.ledger: slice 'hard' in 1 evaluation recorded with slices; "
        "2 evaluations recorded without slices left out\n"
        "\n"
        "evaluation  date        revision  version  role       items  correctness  citation  "
        "refusal  violations  verdict\n"
        "3           2026-12-03  r2        OLD      baseline   1      0.00         0.00      "
        "n/a      0           -\n"
        "3           2026-12-03  r2        NEW      candidate  1      1.00         1.00      "
        "n/a      0           BLOCK\n",
    )
    assert run(folder, "ledger", "verify", "--ledger", "old.ledger")[0] == 0


def test_the_evaluation_recorded_with_slices_by_schema_2_counts_as_without_slices(folder):
    shutil.copy(FIXTURE, folder / "old.ledger")
    status, _, err = run(folder, "history", "--ledger", "old.ledger", "--slice", "basics")
    assert status == 2
    assert err == (
        "buddy-eval: error: old.ledger: no recorded evaluation has a slice 'basics'; the "
        "slices recorded: none (no evaluation was recorded with --slices)\n"
    )
    # The same input and slices recorded now is another evaluation: its slices are kept.
    status, _, err = record(
        folder, "sample_release.txt", "--slices", "sample_slices.csv", ledger="old.ledger"
    )
    assert status == 1 and "recorded evaluation 3" in err
    found = be.history(folder / "old.ledger", slice="basics")
    assert found.without_slices == 2
    assert found.rates["evaluation"].tolist() == [3, 3]


# --- the findings ------------------------------------------------------------------------


def test_recording_keeps_the_findings_the_gate_showed_once_per_revision(folder):
    status, out, _ = record(folder, "sample_release.txt", "--format", "json")
    gate = json.loads(out)["golden_set_health"]
    record(folder, "sample_release.txt", "--min-paired", "5")  # the same revision again
    assert rows(folder / "r.ledger", "SELECT count(*) FROM evaluations") == [(2,)]
    assert rows(folder / "r.ledger", "SELECT count(*) FROM golden_set_findings") == [(1,)]
    status, out, _ = run(folder, "history", "--ledger", "r.ledger", "--format", "json")
    revision = json.loads(out)["revisions"][0]
    assert revision["health"] == gate
    diagnosis = be.doctor(folder / "sample_release.txt")
    assert revision["findings"] == [
        {"check": c, "severity": s, "ids": list(i), "message": m}
        for c, s, i, m in zip(
            diagnosis["check"],
            diagnosis["severity"],
            diagnosis["ids"],
            diagnosis["message"],
            strict=True,
        )
    ]
    listed = rows(
        folder / "r.ledger",
        "SELECT revision, position, check_name, severity FROM findings ORDER BY position LIMIT 2",
    )
    assert listed == [("r1", 0, "weak-keyword", "warning"), ("r1", 1, "weak-keyword", "warning")]


def test_history_shows_each_revision_s_health_in_every_format(folder):
    record(folder, "sample_release.txt")
    record(folder, "example.txt")
    line_1 = (
        "r1: golden set health: 0 errors, 8 warnings, 3 notes; worst: weak-keyword (4), "
        "few-refuse-items, underpowered (3)"
    )
    line_2 = (
        "r2: golden set health: 0 errors, 4 warnings, 1 note; worst: few-refuse-items, "
        "underpowered (3), saturated"
    )
    status, text, _ = run(folder, "history", "--ledger", "r.ledger")
    assert f"\n\ngolden-set health per revision:\n{line_1}\n{line_2}\n\nitems failed" in text
    status, markdown, _ = run(folder, "history", "--ledger", "r.ledger", "--format", "markdown")
    assert (
        "**Golden-set health per revision**\n\n"
        "- r1\\: golden set health\\: 0 errors\\, 8 warnings\\, 3 notes\\; worst\\: "
        "weak\\-keyword \\(4\\)\\, few\\-refuse\\-items\\, underpowered \\(3\\)\n"
    ) in markdown
    found = be.history(folder / "r.ledger")
    assert found.text().replace(f"{folder}/", "") == text.removesuffix("\n")
    assert found.revisions[["revision", "errors", "warnings", "notes"]].values.tolist() == [
        ["r1", 0, 8, 3],
        ["r2", 0, 4, 1],
    ]
    assert found.findings.groupby("revision", observed=True).size().tolist() == [11, 5]
    status, out, _ = run(folder, "history", "--ledger", "r.ledger", "--format", "json")
    document = json.loads(out)
    assert document["format_version"] == 2
    assert [r["health"]["summary"] for r in document["revisions"]] == [
        line_1.split(": ", 1)[1],
        line_2.split(": ", 1)[1],
    ]


def test_the_gate_runs_the_doctor_once_for_its_views_and_the_ledger(folder, monkeypatch):
    from buddy_eval.doctor import _run

    calls = []
    original = _run.diagnose_data

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_run, "diagnose_data", counted)
    status, out, _ = record(folder, "sample_release.txt", "--details")
    assert status == 1 and "golden set health: 0 errors, 8 warnings" in out
    assert len(calls) == 1
    assert rows(folder / "r.ledger", "SELECT count(*) FROM findings") == [(11,)]


def test_recording_a_revision_already_diagnosed_runs_no_doctor(folder, monkeypatch):
    from buddy_eval.doctor import _run

    record(folder, "sample_release.txt")  # the first recording of r1 keeps its findings
    calls = []
    original = _run.diagnose_data

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_run, "diagnose_data", counted)
    status, out, _ = record(folder, "sample_release.txt", "--min-paired", "5")
    assert status == 1 and out.splitlines()[-1].startswith("BLOCK")
    assert rows(folder / "r.ledger", "SELECT count(*) FROM evaluations") == [(2,)]
    assert calls == []
    assert rows(folder / "r.ledger", "SELECT count(*) FROM findings") == [(11,)]


def test_a_changed_findings_row_is_refused(folder):
    record(folder, "example.txt")
    connection = sqlite3.connect(folder / "r.ledger")
    connection.execute("UPDATE golden_set_findings SET findings = '[]'")
    connection.commit()
    connection.close()
    for args in (["history"], ["ledger", "verify"]):
        status, out, err = run(folder, *args, "--ledger", "r.ledger")
        assert (status, out) == (2, "")
        assert err == (
            "buddy-eval: error: r.ledger: the findings of golden set r1 were changed outside "
            "buddy-eval (their hash does not match); restore the ledger from a backup, or "
            "check it with buddy-eval ledger verify\n"
        )


# --- slices: identity --------------------------------------------------------------------


def test_the_slices_file_s_content_is_part_of_the_evaluation_s_identity(folder):
    def recorded(*args: str) -> str:
        status, _, err = record(folder, "example.txt", *args)
        assert status == 1
        return err.rsplit("r.ledger: ", 1)[1].strip()

    assert recorded() == "recorded evaluation 1; new versions: 'OLD', 'NEW'"
    assert recorded().startswith("already recorded as evaluation 1")
    assert recorded("--slices", "ex.csv") == "recorded evaluation 2; new versions: none"
    assert recorded("--slices", "ex.csv").startswith("already recorded as evaluation 2")
    (folder / "copy.csv").write_text(EXAMPLE_SLICES, encoding="utf-8")
    assert recorded("--slices", "copy.csv").startswith("already recorded as evaluation 2")
    (folder / "other.csv").write_text("id,slice\nq1,easy\nq3,easy\n", encoding="utf-8")
    assert recorded("--slices", "other.csv") == "recorded evaluation 3; new versions: none"
    assert rows(folder / "r.ledger", "SELECT count(*) FROM evaluation_slices") == [(2,)]
    assert rows(
        folder / "r.ledger", "SELECT item_id, slice FROM slices WHERE evaluation_id = 2"
    ) == [("q1", "easy"), ("q2", "easy"), ("q3", "hard"), ("q4", "(none)")]


def test_python_recording_takes_the_same_identity(tmp_path):
    path = tmp_path / "p.ledger"
    mapping = {"q1": "easy", "q2": "easy", "q3": "hard"}
    ev = be.evaluate(DATA / "example.txt", slices=mapping)
    assert be.record(ev, path, date="2026-12-03", by="t").new
    again = be.evaluate(DATA / "example.txt", slices=dict(mapping))
    assert not be.record(again, path, date="2026-12-03", by="t").new
    assert be.record(be.evaluate(DATA / "example.txt"), path, date="2026-12-03", by="t").new


# --- slices: history ---------------------------------------------------------------------


def test_history_per_slice_agrees_with_the_gate_s_slice_figures(folder):
    status, out, _ = record(
        folder, "sample_release.txt", "--slices", "sample_slices.csv", "--format", "json"
    )
    gate = json.loads(out)["slices"]
    record(folder, "sample_release.txt")  # without slices: left out
    for name, figures in gate.items():
        found = be.history(folder / "r.ledger", slice=name)
        assert found.without_slices == 1
        assert found.rates["items"].tolist() == [figures["items"]] * 2
        for row in found.rates.to_dict("records"):
            mine = figures["versions"][row["version"]]
            for metric in ("correctness", "citation", "refusal"):
                exact = mine[metric]["exact"]
                assert row[metric] == (None if exact is None else Fraction(exact))
                assert (row[f"{metric}_numerator"], row[f"{metric}_denominator"]) == (
                    mine[metric]["numerator"],
                    mine[metric]["denominator"],
                )
            assert row["violations"] == mine["violations"]


def test_history_per_slice_in_every_format(folder):
    record(folder, "example.txt", "--slices", "ex.csv")
    status, text, err = run(folder, "history", "--ledger", "r.ledger", "--slice", "(none)")
    assert (status, err) == (0, "")
    assert text == (
        "ledger r.ledger: slice '(none)' in 1 evaluation recorded with slices\n"
        "\n"
        "evaluation  date        revision  version  role       items  correctness  citation  "
        "refusal  violations  verdict\n"
        "1           2026-12-03  r1        OLD      baseline   1      n/a          n/a       "
        "1.00     0           -\n"
        "1           2026-12-03  r1        NEW      candidate  1      n/a          n/a       "
        "0.00     1           BLOCK\n"
    )
    status, out, _ = run(
        folder, "history", "--ledger", "r.ledger", "--slice", "easy", "--format", "json"
    )
    document = json.loads(out)
    assert document["slices"] == ["easy", "hard", "(none)"]
    assert document["without_slices"] == 0
    [evaluation] = document["evaluations"]
    assert evaluation["candidate"] == {
        "version": "NEW",
        "items": 2,
        "correctness": {"numerator": 2, "denominator": 2},
        "citation": {"numerator": 2, "denominator": 2},
        "refusal": None,
        "violations": 0,
    }
    status, markdown, _ = run(
        folder, "history", "--ledger", "r.ledger", "--slice", "hard", "--format", "markdown"
    )
    assert markdown.splitlines()[-1] == (
        "| 1 | 2026\\-12\\-03 | r1 | NEW | candidate | 1 | 1\\.00 | 1\\.00 | n\\/a | 0 | BLOCK |"
    )
    found = be.history(folder / "r.ledger", slice="hard")
    shown = run(folder, "history", "--ledger", "r.ledger", "--slice", "hard")[1]
    assert found.text().replace(f"{folder}/", "") == shown.removesuffix("\n")
    assert found.table()["correctness"].tolist() == ["0.00", "1.00"]


def test_an_unknown_slice_is_an_input_error_naming_the_slices_there_are(folder):
    record(folder, "example.txt", "--slices", "ex.csv")
    status, out, err = run(folder, "history", "--ledger", "r.ledger", "--slice", "medium")
    assert (status, out) == (2, "")
    assert err == (
        "buddy-eval: error: r.ledger: no recorded evaluation has a slice 'medium'; the slices "
        "recorded: 'easy', 'hard', '(none)'\n"
    )


def test_a_slice_with_repeated_trials_counts_as_the_gate_does(folder):
    text = (DATA / "sample_trials.txt").read_text(encoding="utf-8")
    (folder / "trials.txt").write_text(text, encoding="utf-8")
    ids = [line.split()[0] for line in text.splitlines() if " ANSWER " in line][:5]
    (folder / "t.csv").write_text(
        "id,slice\n" + "".join(f"{i},first\n" for i in ids), encoding="utf-8"
    )
    status, out, _ = record(
        folder, "--trials", "trials.txt", "--slices", "t.csv", "--format", "json"
    )
    gate = json.loads(out)["slices"]["first"]["versions"]
    found = be.history(folder / "r.ledger", slice="first")
    for row in found.rates.to_dict("records"):
        assert row["correctness"] == Fraction(gate[row["version"]]["correctness"]["exact"])


def test_a_changed_slices_row_is_refused(folder):
    record(folder, "example.txt", "--slices", "ex.csv")
    connection = sqlite3.connect(folder / "r.ledger")
    connection.execute("UPDATE evaluation_slices SET codes = '[0,0,0,0]'")
    connection.commit()
    connection.close()
    status, out, err = run(folder, "history", "--ledger", "r.ledger", "--slice", "easy")
    assert (status, out) == (2, "")
    assert "the slices of evaluation 1 were changed outside buddy-eval" in err
    assert run(folder, "ledger", "verify", "--ledger", "r.ledger")[0] == 2


def test_a_release_in_a_schema_2_ledger_migrates_it_too(folder):
    shutil.copy(FIXTURE, folder / "old.ledger")
    status, out, _ = run(
        folder,
        "ledger",
        "release",
        "NEW",
        "--ledger",
        "old.ledger",
        "--override",
        "known",
        "--date",
        "2026-12-04",
        "--by",
        "t",
    )
    assert status == 0 and out.startswith("released 'NEW' on 2026-12-04")
    assert rows(folder / "old.ledger", "PRAGMA user_version") == [(3,)]
    assert be.history(folder / "old.ledger").live == "NEW"
