"""Recording in the ledger: what is stored, idempotence, conflicts, releases, hostile text."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import buddy_eval as be
from buddy_eval.ledger._schema import SCHEMA_VERSION
from tests.conftest import DATA, run_cli
from tests.ledger_helpers import GOLDEN, dump, make_input


@pytest.fixture
def ledger(tmp_path):
    return tmp_path / "release.ledger"


def rows(path, sql, params=()):
    connection = sqlite3.connect(path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def test_record_stores_the_evaluation_exactly(ledger):
    ev = be.evaluate(make_input("v1", "v2"), "v1", "v2")
    done = be.record(ev, ledger, date="2026-03-01", note="first")
    assert (done.evaluation_id, done.new, done.versions_added) == (1, True, ("v1", "v2"))
    assert done.message == "recorded evaluation 1; new versions: 'v1', 'v2'"
    assert rows(ledger, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    # A reader never leaves a file beside the ledger (no -wal or -shm).
    assert rows(ledger, "PRAGMA journal_mode") == [("delete",)]
    (evaluation,) = rows(
        ledger,
        "SELECT threshold_correctness, threshold_citation, threshold_refusal, rule, margin, "
        "verdict, reasons, date, note, buddy_eval_version, compared_items, not_compared "
        "FROM evaluations",
    )
    assert evaluation == (
        "1/2",
        "1/2",
        "1/2",
        "exact",
        None,
        "RELEASE",
        "[]",
        "2026-03-01",
        "first",
        be.__version__,
        4,
        "[]",
    )
    metrics = rows(
        ledger,
        "SELECT v.label, m.metric, m.numerator, m.denominator, m.missing FROM "
        "evaluation_metrics m JOIN versions v ON v.id = m.version_id ORDER BY v.id, m.metric",
    )
    assert metrics == [
        ("v1", "citation", 1, 3, 0),
        ("v1", "correctness", 1, 3, 0),
        ("v1", "refusal", 1, 1, 0),
        ("v1", "violations", 0, 1, 0),
        ("v2", "citation", 2, 3, 0),
        ("v2", "correctness", 2, 3, 0),
        ("v2", "refusal", 1, 1, 0),
        ("v2", "violations", 0, 1, 0),
    ]
    checks = rows(ledger, "SELECT kind, metric, candidate, reference, blocks FROM checks")
    assert checks[0] == ("threshold", "correctness", "2/3", "1/2", 0)
    assert checks[4] == ("regression", "correctness", "2/3", "1/3", 0)
    assert len(checks) == 7
    outcomes = rows(
        ledger,
        "SELECT item_id, trials, correct, cited_ok, refused_ok, violation, passed FROM outcomes "
        "WHERE version = 'v1' ORDER BY item_id",
    )
    assert outcomes == [
        ("q1", 1, 1, 1, None, None, 1),
        ("q2", 1, 0, 0, None, None, 0),
        ("q3", 1, None, None, 1, 0, 1),
        ("q4", 1, 0, 0, None, None, 0),
    ]
    answers = rows(ledger, "SELECT answer FROM results WHERE version = 'v2' ORDER BY item_id")
    assert answers == [("alpha",), ("beta",), ("no thanks",), ("no idea",)]


def test_fingerprints_are_sha256_of_the_canonical_forms(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    items = rows(
        ledger,
        "SELECT fingerprint, item_id FROM golden_items ORDER BY position",
    )
    q1 = hashlib.sha256(b'["q1","ANSWER","L1",["alpha"]]').hexdigest()
    q3 = hashlib.sha256(b'["q3","REFUSE",null,[]]').hexdigest()
    assert items[0] == (q1, "q1") and items[2] == (q3, "q3")
    whole = hashlib.sha256("\n".join(sorted(fp for fp, _ in items)).encode()).hexdigest()
    assert rows(ledger, "SELECT revision, fingerprint, item_count FROM golden_sets") == [
        ("r1", whole, 4)
    ]


def test_an_edited_item_changes_only_its_own_fingerprint(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    edited = GOLDEN.replace("L4 delta", "L4 delta,epsilon")
    be.record(be.evaluate(make_input("v3", "v4", edited), "v3", "v4"), ledger)
    sets = rows(
        ledger,
        "SELECT golden_set_id, position, fingerprint FROM golden_items "
        "ORDER BY golden_set_id, position",
    )
    first, second = [fp for s, _, fp in sets if s == 1], [fp for s, _, fp in sets if s == 2]
    assert first[:3] == second[:3] and first[3] != second[3]
    assert len(rows(ledger, "SELECT DISTINCT fingerprint FROM golden_items")) == 5
    assert len(rows(ledger, "SELECT * FROM golden_sets")) == 2


def test_recording_again_changes_nothing_and_says_so(ledger):
    ev = be.evaluate(make_input("v1", "v2"), "v1", "v2")
    be.record(ev, ledger)
    before = dump(ledger)
    again = be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger, note="other")
    assert (again.new, again.evaluation_id) == (False, 1)
    assert again.message == (
        "already recorded as evaluation 1 (same input, same settings); nothing changed"
    )
    assert dump(ledger) == before


def test_other_settings_are_another_evaluation_sharing_the_versions(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    settings = be.Settings(margin=0.05, rule="noninferiority")
    done = be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2", settings), ledger)
    assert (done.evaluation_id, done.new, done.versions_added) == (2, True, ())
    assert rows(ledger, "SELECT rule, margin FROM evaluations WHERE id = 2") == [
        ("noninferiority", "0.05")
    ]
    assert len(rows(ledger, "SELECT * FROM outcomes")) == 8


def test_a_version_with_other_results_is_an_input_error_and_nothing_is_written(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    before = dump(ledger)
    changed = make_input("v2", "v3").replace("v2 q4 - N no idea", "v2 q4 - N other words")
    with pytest.raises(be.InputError, match="version 'v2' already has a result for item 'q4'"):
        be.record(be.evaluate(changed, "v2", "v3"), ledger)
    assert dump(ledger) == before


def test_the_cli_refuses_a_conflicting_version_before_printing(ledger, write):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    before = dump(ledger)
    changed = write(make_input("v2", "v3").replace("v2 q4 - N no idea", "v2 q4 - N other"))
    proc = run_cli(changed, "--baseline", "v2", "--candidate", "v3", "--ledger", ledger)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode().count("\n") == 1
    assert proc.stderr.decode() == (
        f"buddy-eval: error: {changed}:10: version 'v2' already has a result for item 'q4' in "
        "the ledger "
        "(another result); the results of a version are facts: give these results a new "
        "version label\n"
    )
    assert dump(ledger) == before


def test_a_shared_version_with_the_same_results_is_reused(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger)
    done = be.record(be.evaluate(make_input("v2", "v3"), "v2", "v3"), ledger)
    assert done.versions_added == ("v3",)
    assert rows(ledger, "SELECT label FROM versions ORDER BY id") == [("v1",), ("v2",), ("v3",)]


def test_no_answers_keeps_outcomes_but_no_answer_text(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger, no_answers=True)
    assert rows(ledger, "SELECT DISTINCT answer FROM results") == [(None,)]
    assert rows(ledger, "SELECT answers_kept FROM result_sets") == [(0,), (0,)]
    assert len(rows(ledger, "SELECT * FROM outcomes")) == 8


def test_trials_are_recorded_trial_by_trial_with_the_gates_exact_counts(ledger):
    ev = be.evaluate(DATA / "sample_trials.txt", trials=True)
    be.record(ev, ledger)
    for label in ev.data.versions:
        (vid, lines) = rows(
            ledger,
            "SELECT r.version_id, r.result_lines FROM result_sets r "
            "JOIN versions v ON v.id = r.version_id WHERE v.label = ?",
            (label,),
        )[0]
        assert rows(ledger, "SELECT sum(trials) FROM outcomes WHERE version = ?", (label,)) == [
            (lines,)
        ]
        assert rows(ledger, "SELECT count(*) FROM results WHERE version = ?", (label,)) == [
            (lines,)
        ]
        stored = dict(
            (m, (n, d))
            for m, n, d in rows(
                ledger,
                "SELECT metric, numerator, denominator FROM evaluation_metrics "
                "WHERE version_id = ?",
                (vid,),
            )
        )
        assert stored == ev.counts.parts(label)
    assert rows(ledger, "SELECT trials FROM evaluations") == [(1,)]


def test_the_gate_with_a_ledger_prints_exactly_what_it_prints_without(ledger, write):
    path = write(make_input("v1", "v2"))
    plain = run_cli(path, "--baseline", "v1", "--candidate", "v2")
    recorded = run_cli(
        path,
        "--baseline",
        "v1",
        "--candidate",
        "v2",
        "--ledger",
        ledger,
        "--date",
        "2026-03-01",
        "--note",
        "weekly run",
        "--by",
        "ci",
    )
    assert (recorded.returncode, recorded.stdout) == (plain.returncode, plain.stdout)
    assert recorded.stderr.decode() == (
        f"buddy-eval: ledger: {ledger}: recorded evaluation 1; new versions: 'v1', 'v2'\n"
    )
    again = run_cli(
        path, "--baseline", "v1", "--candidate", "v2", "--ledger", ledger, "--date", "2026-03-02"
    )
    assert again.stdout == plain.stdout
    assert "nothing changed" in again.stderr.decode()
    blocked = run_cli(DATA / "example.txt", "--ledger", ledger)
    assert blocked.returncode == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--date", "2026-03-01"], "--date is kept in a ledger: give --ledger PATH too"),
        (["--by", "ci"], "--by is kept in a ledger: give --ledger PATH too"),
        (["--no-answers"], "--no-answers is about the ledger"),
        (["--ledger", "L", "--date", "2026-02-30"], "--date must be a calendar date"),
        (["--ledger", "L", "--date", "March 1"], "--date must be a date as YYYY-MM-DD"),
    ],
)
def test_ledger_options_are_checked_before_the_gate_runs(args, message, tmp_path, write):
    path = write(make_input("v1", "v2"))
    proc = run_cli(path, "--baseline", "v1", "--candidate", "v2", *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert message in proc.stderr.decode()
    assert not (tmp_path / "L").exists()


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_release_rules(ledger, write):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger, date="2026-02-01")
    be.record(be.evaluate(make_input("v2", "v3"), "v2", "v3"), ledger, date="2026-02-02")
    unknown = run_cli("ledger", "release", "v9", "--ledger", ledger)
    assert unknown.returncode == 2
    assert "version 'v9' is not in the ledger" in unknown.stderr.decode()
    blocked = run_cli("ledger", "release", "v3", "--ledger", ledger)
    assert blocked.returncode == 2
    assert "was blocked by its latest gate (evaluation 2)" in blocked.stderr.decode()
    assert rows(ledger, "SELECT * FROM releases") == []
    ok = run_cli("ledger", "release", "v2", "--ledger", ledger, "--date", "2026-03-01")
    assert ok.returncode == 0
    assert ok.stdout.decode() == (
        "released 'v2' on 2026-03-01 on evaluation 1 (RELEASE) (release 1)\n"
    )
    forced = run_cli(
        "ledger",
        "release",
        "v3",
        "--ledger",
        ledger,
        "--date",
        "2026-03-08",
        "--override",
        "hotfix for an outage",
    )
    assert forced.returncode == 0
    assert "BLOCK overridden: hotfix for an outage" in forced.stdout.decode()
    assert rows(
        ledger,
        "SELECT v.label, r.date, r.evaluation_id, r.override_reason FROM "
        "releases r JOIN versions v ON v.id = r.version_id ORDER BY r.id",
    ) == [
        ("v2", "2026-03-01", 1, None),
        ("v3", "2026-03-08", 2, "hotfix for an outage"),
    ]
    history = run_cli("history", "--ledger", ledger).stdout.decode()
    assert "override: hotfix for an outage" in history
    shown = run_cli("ledger", "show", "--ledger", ledger).stdout.decode()
    assert "hotfix for an outage" in shown


def test_release_from_python(ledger):
    be.record(be.evaluate(make_input("v1", "v2"), "v1", "v2"), ledger, date="2026-01-04")
    done = be.release(ledger, "v1", date="2026-01-05", note="first live")
    assert (done.version, done.date, done.evaluation_id, done.verdict) == (
        "v1",
        "2026-01-05",
        None,
        None,
    )
    with pytest.raises(be.InputError, match="--override is empty"):
        be.release(ledger, "v2", override="  ")


HOSTILE = "'; DROP TABLE versions; --"


def test_hostile_labels_ids_and_notes_are_stored_and_shown_literally(ledger):
    import pandas as pd

    golden = pd.DataFrame(
        {
            "item_id": ["q1", "x'); DELETE FROM outcomes; --"],
            "item_type": ["ANSWER", "ANSWER"],
            "required_source": ["L1", "L1"],
            "keywords": ["a", "a"],
        }
    )
    results = pd.DataFrame(
        {
            "version": [HOSTILE, HOSTILE, "NEW", "NEW"],
            "item_id": ["q1", golden["item_id"][1]] * 2,
            "cited": ["L1"] * 4,
            "refused": ["N"] * 4,
            "answer": ["a", "b", "a", "a"],
        }
    )
    ev = be.evaluate(be.from_frames(golden, results, [0.5, 0.5, 0.5]), HOSTILE, "NEW")
    be.record(ev, ledger, note=HOSTILE, date="2026-01-01", by=HOSTILE)
    be.release(ledger, HOSTILE, note=HOSTILE, date="2026-01-02", by=HOSTILE)
    assert rows(ledger, "SELECT label FROM versions ORDER BY id") == [(HOSTILE,), ("NEW",)]
    assert rows(ledger, "SELECT note FROM evaluations") == [(HOSTILE,)]
    assert len(rows(ledger, "SELECT * FROM outcomes")) == 4
    shown = run_cli("ledger", "show", "--ledger", ledger).stdout.decode()
    assert HOSTILE in shown
    found = be.history(ledger)
    assert found.versions["version"].tolist() == [HOSTILE, "NEW"]
    assert found.releases["note"].iloc[0] == HOSTILE
    assert found.releases["recorded_by"].iloc[0] == HOSTILE
    assert found.items["item_id"].tolist()[1] == "x'); DELETE FROM outcomes; --"
    assert (
        json.loads(run_cli("history", "--ledger", ledger, "--format", "json").stdout)["live"]
        == HOSTILE
    )


def test_record_refuses_what_is_not_an_evaluation(ledger):
    with pytest.raises(be.InputError, match="record takes an Evaluation"):
        be.record("data/example.txt", ledger)
    assert not ledger.exists()


def test_every_ledger_command_is_in_help():
    gate = run_cli("--help").stdout.decode()
    wanted = ("--ledger PATH", "--no-answers", "buddy-eval ledger release", "buddy-eval history")
    for text in wanted:
        assert text in gate
    assert run_cli("ledger", "--help").returncode == 0
    assert "--override REASON" in run_cli("ledger", "--help").stdout.decode()
    assert "--format {text,json,markdown}" in run_cli("history", "--help").stdout.decode()


def test_the_documented_schema_is_the_schema():
    from buddy_eval.ledger._schema import SCHEMA
    from tests.conftest import ROOT

    page = (ROOT / "docs" / "ledger.md").read_text(encoding="utf-8")
    assert "```sql\n" + SCHEMA + "```" in page


_TEXT = st.text(
    alphabet=st.sampled_from(list('ab\u00e9\u4e2d"\\/{}[]:') + ["\x01", "\t"]),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(
    ids=st.lists(_TEXT, min_size=1, max_size=4, unique=True),
    keywords=st.lists(st.lists(_TEXT, max_size=3), min_size=4, max_size=4),
    source=_TEXT,
)
def test_item_fingerprints_are_the_sha256_of_the_json_canonical_form(ids, keywords, source):
    import pandas as pd

    from buddy_eval.ledger._record import _golden_items

    n = len(ids)
    types = ["ANSWER" if k % 2 == 0 else "REFUSE" for k in range(n)]
    golden = pd.DataFrame(
        {
            "item_id": ids,
            "item_type": types,
            "required_source": [source if t == "ANSWER" else None for t in types],
            "keywords": [keywords[k] if t == "ANSWER" else [] for k, t in enumerate(types)],
        }
    )
    results = pd.DataFrame(
        {"version": ["OLD"], "item_id": [ids[0]], "cited": ["-"], "refused": ["N"], "answer": ["x"]}
    )
    try:
        data = be.from_frames(golden, results, [0.5, 0.5, 0.5])
    except be.InputError:
        return  # a value the input format refuses (blank keywords, spaces in ids, ...)
    gc = data.golden_columns
    expected = [
        hashlib.sha256(
            json.dumps([i, t, s, k or []], ensure_ascii=False, separators=(",", ":")).encode()
        ).hexdigest()
        for i, t, s, k in zip(
            gc.item_id.to_pylist(),
            types,
            gc.required_source.to_pylist(),
            gc.keywords.to_pylist(),
            strict=True,
        )
    ]
    assert [item[0] for item in _golden_items(data)] == expected


def test_a_line_break_in_a_label_is_shown_escaped_never_breaking_a_table(ledger):
    import pandas as pd

    label = "v2\nDROP"
    golden = pd.DataFrame(
        {"item_id": ["q1"], "item_type": ["ANSWER"], "required_source": ["L1"], "keywords": ["a"]}
    )
    results = pd.DataFrame(
        {
            "version": ["v1", label],
            "item_id": ["q1", "q1"],
            "cited": ["L1", "L1"],
            "refused": ["N", "N"],
            "answer": ["a", "a"],
        }
    )
    be.record(be.evaluate(be.from_frames(golden, results, [0.5, 0.5, 0.5]), "v1", label), ledger)
    assert rows(ledger, "SELECT label FROM versions ORDER BY id") == [("v1",), (label,)]
    shown = run_cli("ledger", "show", "--ledger", ledger).stdout.decode()
    assert "v2\\x0aDROP" in shown and "\nDROP" not in shown
    history = run_cli("history", "--ledger", ledger).stdout.decode()
    assert "v2\\x0aDROP" in history and "\nDROP" not in history


def test_a_stored_bound_carries_the_name_of_its_method(ledger):
    settings = be.Settings(margin=0.05, rule="noninferiority")
    from tests.ledger_helpers import big_input

    ev = be.evaluate(big_input(60), "OLD", "NEW", settings)
    be.record(ev, ledger, date="2026-03-01", by="ci")
    stored = rows(
        ledger,
        "SELECT metric, bound, bound_method FROM checks "
        "WHERE kind = 'noninferiority' ORDER BY position",
    )
    expected = {m.metric: m for m in ev.paired.metrics}
    assert [metric for metric, _, _ in stored] == ["correctness", "citation", "refusal"]
    assert stored[0][2] == (
        "one-sided lower bound: Newcombe hybrid score at two-sided level 2 * confidence - 1"
    )
    for metric, bound, method in stored:
        m = expected[metric]
        if not m.measured:  # no REFUSE item: no bound, no method
            assert (bound, method) == (None, None)
        else:
            assert bound == m.noninferiority_bound and method == m.noninferiority_method
    assert rows(
        ledger,
        "SELECT count(*) FROM checks WHERE bound_method IS NULL AND kind != 'noninferiority'",
    ) == [(4,)]
