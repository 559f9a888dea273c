"""The golden-set doctor: each check finds its planted defect (by name and id), a clean set
names nothing, the exit status follows --fail-on, and the views agree."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest

import buddy_eval as be
from buddy_eval._cli import main
from buddy_eval.doctor import CHECKS, Limits, diagnose
from buddy_eval.stats import DEFAULT_DISCORDANCE, mcnemar_exact_power
from tests.conftest import ROOT, run_cli

N_ANSWER = N_REFUSE = 300


def golden_lines(n_answer: int = N_ANSWER, n_refuse: int = N_REFUSE, thresholds="0.5 0.5 0.5"):
    """A clean golden set: one keyword of its own per ANSWER item, its own source."""
    lines = [f"THRESHOLDS {thresholds}"]
    lines += [f"a{i} ANSWER L{i} token{i}z" for i in range(n_answer)]
    lines += [f"r{i} REFUSE - -" for i in range(n_refuse)]
    return lines


def result_lines(n_answer: int = N_ANSWER, n_refuse: int = N_REFUSE, trials: int = 1):
    """OLD passes the even items and fails the odd ones, NEW the other way round."""
    lines = ["RESULTS"]
    for version, parity in (("OLD", 0), ("NEW", 1)):
        for _ in range(trials):
            for i in range(n_answer):
                if i % 2 == parity:
                    lines.append(f"{version} a{i} L{i} N answer with token{i}z in it")
                else:
                    lines.append(f"{version} a{i} - Y I cannot help")
            for i in range(n_refuse):
                lines.append(f"{version} r{i} - {'Y' if i % 2 == parity else 'N'} reply")
    return lines


def text_of(lines) -> str:
    return "\n".join(lines) + "\n"


def clean_input(**options) -> str:
    return text_of(golden_lines() + result_lines(**options))


def found(source, **options) -> set[tuple[str, tuple[str, ...]]]:
    return {(f.check, f.ids) for f in diagnose(source, **options).findings}


def replace_line(text: str, start: str, new: str) -> str:
    lines = text.splitlines()
    hits = [k for k, line in enumerate(lines) if line.startswith(start)]
    assert len(hits) == 1, start
    lines[hits[0]] = new
    return text_of(lines)


# -- a clean set -------------------------------------------------------------------------


def test_a_clean_set_names_nothing():
    assert found(clean_input()) == set()


def test_a_clean_set_without_results_names_nothing():
    assert found(text_of(golden_lines())) == set()


def test_a_clean_set_with_repeated_trials_names_nothing():
    assert found(clean_input(trials=3), trials=True) == set()


def test_clean_golden_tasks_and_runs_name_nothing():
    assert found(None, tasks=clean_tasks(), runs=clean_runs()) == set()


# -- the golden items --------------------------------------------------------------------


def test_no_keywords_is_found():
    text = replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -")
    assert found(text) == {("no-keywords", ("a4",))}
    (finding,) = diagnose(text).findings
    assert finding.severity == "warning"
    assert finding.message == (
        "1 ANSWER item without keywords: any answer that is not a refusal counts as correct; "
        "add the words a correct answer must contain"
    )


@pytest.mark.parametrize(
    ("keyword", "why"),
    [("xy", "is at most 2 characters"), ("Because", "is a very common word")],
)
def test_a_weak_keyword_is_found(keyword, why):
    text = replace_line(clean_input(), "a6 ANSWER", f"a6 ANSWER L6 token6z,{keyword}")
    text = replace_line(text, "OLD a6 ", f"OLD a6 L6 N answer token6z {keyword.lower()}")
    text = replace_line(text, "a8 ANSWER", f"a8 ANSWER L8 {keyword.upper()},token8z")
    text = replace_line(text, "OLD a8 ", f"OLD a8 L8 N answer token8z {keyword}")
    assert found(text) == {("weak-keyword", ("a6", "a8"))}
    (finding,) = diagnose(text).findings
    assert finding.message == (
        f"keyword '{keyword}' {why}: nearly any answer contains it, so it tells little; "
        "require a word only a correct answer holds"
    )


def test_the_weak_keyword_limit_is_a_setting():
    text = replace_line(clean_input(), "a6 ANSWER", "a6 ANSWER L6 token6z,xyz")
    text = replace_line(text, "OLD a6 ", "OLD a6 L6 N answer token6z xyz")
    assert found(text) == set()
    assert found(text, limits=Limits(weak_keyword_length=3)) == {("weak-keyword", ("a6",))}


def test_a_redundant_keyword_is_found():
    text = replace_line(clean_input(), "a2 ANSWER", "a2 ANSWER L2 token2z, TOKEN2")
    text = replace_line(text, "a4 ANSWER", "a4 ANSWER L4 token4z,token4z")
    found_ = diagnose(text).findings
    assert {(f.check, f.ids) for f in found_} == {
        ("redundant-keyword", ("a2",)),
        ("redundant-keyword", ("a4",)),
    }
    assert found_[0].severity == "note"
    assert found_[0].message == (
        "item 'a2': keyword 'TOKEN2' is part of its keyword 'token2z', so it checks nothing "
        "more; drop it or require something else"
    )


def test_duplicate_items_are_found_in_any_keyword_order_and_case():
    text = replace_line(clean_input(), "a3 ANSWER", "a3 ANSWER L3 token3z,extra3")
    text = replace_line(text, "a5 ANSWER", "a5 ANSWER L3 EXTRA3,token3z")
    text = replace_line(text, "NEW a3 ", "NEW a3 L3 N token3z extra3")
    text = replace_line(text, "OLD a5 ", "OLD a5 L3 N token3z extra3")
    assert found(text) == {("duplicate-item", ("a3", "a5"))}


def test_the_same_keywords_with_another_source_are_no_duplicate():
    text = replace_line(clean_input(), "a5 ANSWER", "a5 ANSWER L5 token3z")
    text = replace_line(text, "OLD a5 ", "OLD a5 L5 N token3z")
    assert found(text) == set()


# -- the set's size and thresholds ------------------------------------------------------


def test_few_refuse_items_says_what_bound_the_set_can_give():
    text = text_of(golden_lines(n_refuse=58) + result_lines(n_refuse=58))
    findings = diagnose(text).findings
    assert {(f.check, f.ids) for f in findings} == {
        ("few-refuse-items", ()),
        ("underpowered", ()),
    }
    assert findings[0].message == (
        "58 REFUSE items: with no violation seen, the set can bound the violation rate only "
        "below 5.03% (one-sided 95%, exact); 59 are needed to bound it below 5%"
    )
    assert found(text_of(golden_lines(n_refuse=59))) == {("underpowered", ())}


def test_no_refuse_item_at_all():
    findings = diagnose(text_of(golden_lines(n_refuse=0))).findings
    assert [f.check for f in findings] == ["few-refuse-items"]
    assert findings[0].message.startswith("no REFUSE item: violations cannot be measured at all")


def test_the_refuse_bound_is_a_setting():
    limits = Limits(violation_rate=Fraction(1, 10))  # 29 items bound it below 10%
    assert found(text_of(golden_lines()), limits=limits) == set()
    text = text_of(golden_lines(n_refuse=28))
    messages = [f.message for f in diagnose(text, limits=limits).findings]
    assert any("29 are needed to bound it below 10%" in m for m in messages)


@pytest.mark.parametrize(("position", "metric"), [(0, "correctness"), (1, "citation")])
def test_a_zero_threshold_is_found(position, metric):
    values = ["0.5", "0.5", "0.5"]
    values[position] = "0"
    text = replace_line(clean_input(), "THRESHOLDS", f"THRESHOLDS {' '.join(values)}")
    findings = diagnose(text).findings
    assert [(f.check, f.ids) for f in findings] == [("vacuous-threshold", ())]
    assert findings[0].message == (
        f"the {metric} threshold is 0: it never blocks, so a release says nothing about "
        f"{metric}; set the lowest {metric} you would release"
    )


def _power(n: int, drop: Fraction) -> float:
    psi = max(DEFAULT_DISCORDANCE, float(drop))
    return mcnemar_exact_power(n, (psi - float(drop)) / 2, (psi + float(drop)) / 2)


@pytest.mark.parametrize("n_answer", [60, 150])
def test_underpowered_prints_the_smallest_detectable_drop(n_answer):
    text = text_of(golden_lines(n_answer=n_answer) + result_lines(n_answer=n_answer))
    findings = diagnose(text).findings
    assert [f.check for f in findings] == ["underpowered", "underpowered"]
    assert findings[0].message.startswith(f"correctness over {n_answer} ANSWER items")
    assert findings[1].message.startswith(f"citation over {n_answer} ANSWER items")
    drop = Fraction(re.search(r"80% power is (\d\.\d\d)", findings[0].message).group(1))
    # The exact power reaches 80% at the printed drop and not one hundredth below it.
    assert _power(n_answer, drop) >= 0.8
    assert _power(n_answer, drop - Fraction(1, 100)) < 0.8
    assert drop > Fraction(1, 10)


def test_underpowered_follows_its_limit():
    text = text_of(golden_lines(n_answer=150) + result_lines(n_answer=150))
    assert found(text, limits=Limits(max_detectable_drop=Fraction(1, 5))) == set()


def test_no_detectable_drop_at_all():
    text = text_of(golden_lines(n_answer=4))
    messages = [f.message for f in diagnose(text).findings if f.check == "underpowered"]
    assert messages[0] == (
        "correctness over 4 ANSWER items: no drop up to 1.00 can be detected at 80% power "
        "(above 0.10; exact McNemar power at 30% discordance); add ANSWER items"
    )


# -- the results of every version ---------------------------------------------------------


def test_a_lenient_check_is_found():
    # Every answer says "answer": a check for it passes nearly every other item's answer.
    text = replace_line(clean_input(), "a10 ANSWER", "a10 ANSWER L10 Answer")
    findings = diagnose(text).findings
    assert [(f.check, f.ids) for f in findings] == [("lenient-check", ("a10",))]
    assert re.fullmatch(
        r"item 'a10': its keyword check passes (\d+) of \1 answers given to other items "
        r"\(100%\): it barely tells a right answer from a wrong one; require more specific "
        r"keywords",
        findings[0].message,
    )


def test_a_lenient_check_needs_enough_answers_and_the_share():
    text = replace_line(clean_input(), "a10 ANSWER", "a10 ANSWER L10 Answer")
    assert found(text, limits=Limits(lenient_min_answers=41)) == set()
    # Half of the sampled answers hold "odd": below a share of 3/5, at or above 1/2.
    lines = clean_input().replace("token", "tok")
    lines = re.sub(r"(OLD|NEW) (a\d*[13579]) (\S+) N answer", r"\1 \2 \3 N odd answer", lines)
    text = replace_line(lines, "a10 ANSWER", "a10 ANSWER L10 odd")
    text = replace_line(text, "OLD a10 ", "OLD a10 L10 N odd")
    assert found(text, limits=Limits(lenient_share=Fraction(3, 5))) == set()
    assert ("lenient-check", ("a10",)) in found(text, limits=Limits(lenient_share=Fraction(1, 3)))


def test_the_lenient_sample_is_deterministic():
    text = replace_line(clean_input(), "a10 ANSWER", "a10 ANSWER L10 with")
    assert diagnose(text).findings == diagnose(text).findings


def test_unsolved_and_saturated_items_are_found():
    text = replace_line(clean_input(), "NEW a11 ", "NEW a11 - Y I cannot help")
    text = replace_line(text, "OLD a12 ", "OLD a12 - Y I cannot help")  # even: OLD passed
    text = replace_line(text, "NEW r4 ", "NEW r4 - Y reply")
    text = replace_line(text, "OLD r7 ", "OLD r7 - Y reply")
    assert found(text) == {("unsolved", ("a11", "a12")), ("saturated", ("r4", "r7"))}
    unsolved = diagnose(text).findings[0]
    assert unsolved.message == (
        "2 items failed by every version ('OLD', 'NEW'): often a labelling error (a keyword or "
        "source no correct answer has); check the items' expected answers"
    )


def test_outcomes_run_over_every_version_label_present():
    text = clean_input().replace("\nOLD ", "\nv1.3 ").replace("\nNEW ", "\nv1.4 ")
    text += "rc a0 - Y I cannot help\n"
    assert diagnose(text).versions == ("v1.3", "v1.4", "rc")
    assert found(text) == set()
    text += "rc a1 - Y I cannot help\n"
    assert found(text) == set()  # a1: v1.4 passes it
    text = text.replace("\nv1.4 a1 L1 N answer", "\nv1.4 a1 L9 N answer")
    assert found(text) == {("unsolved", ("a1",))}


def test_an_item_without_any_result_is_neither_unsolved_nor_saturated():
    text = "\n".join(
        line for line in clean_input().splitlines() if not line.startswith(("OLD a3 ", "NEW a3 "))
    )
    assert found(text + "\n") == set()


def test_flaky_items_are_found_with_trials():
    text = clean_input(trials=2)
    lines = text.splitlines()
    # a14's second trial flips in both versions: the trials disagree in each.
    for version, flipped in (("OLD", "OLD a14 - Y no"), ("NEW", "NEW a14 L14 N token14z")):
        where = [k for k, line in enumerate(lines) if line.startswith(f"{version} a14 ")][1]
        lines[where] = flipped
    text = text_of(lines)
    assert found(text, trials=True) == {("flaky", ("a14",))}
    # In one version only: not flaky.
    one = text.replace("NEW a14 L14 N token14z", "NEW a14 - Y no")
    assert found(one, trials=True) == set()


# -- golden tasks --------------------------------------------------------------------------


def clean_tasks() -> list[dict]:
    return [
        {
            "id": f"t{i}",
            "prompt": f"Write program number {i}",
            "tier": "basic",
            "checks": [
                {"type": "contains", "value": f"result-{i}"},
                {"type": "not_contains", "value": "TODO"},
                {"type": "status_completed"},
            ],
        }
        for i in range(6)
    ]


def _record(run: str, i: int, text: str) -> dict:
    return {
        "task_id": f"{run}-{i}",
        "golden_id": f"t{i}",
        "model": "m",
        "status": "completed",
        "result_text": text,
        "total_tokens": 10,
        "usd_micros": 1,
        "unpriced_tokens": 0,
    }


def clean_runs() -> list[list[dict]]:
    """Run A solves the even tasks, run B the odd ones."""
    return [
        [_record(run, i, f"result-{i}" if i % 2 == parity else "nothing") for i in range(6)]
        for run, parity in (("a", 0), ("b", 1))
    ]


def test_task_defects_are_found():
    tasks = clean_tasks()
    tasks[1]["prompt"] = "Print result-1 to the screen"  # echo-gameable
    tasks[2]["checks"][1]["value"] = "sult"  # in "result-2": contradictory
    tasks[3]["checks"] = [{"type": "status_completed"}, {"type": "max_tokens", "value": 100}]
    tasks[5]["prompt"] = tasks[4]["prompt"]
    findings = diagnose(tasks=tasks).findings
    assert [(f.check, f.severity, f.ids) for f in findings] == [
        ("contradictory-checks", "error", ("t2",)),
        ("echo-gameable", "warning", ("t1",)),
        ("no-content-check", "warning", ("t3",)),
        ("duplicate-prompt", "warning", ("t4", "t5")),
    ]
    assert findings[0].message == (
        "task 't2': its not_contains value 'sult' occurs in its contains value 'result-2', so "
        "no answer can pass; fix one of the two"
    )
    assert findings[1].message == (
        "task 't1': its contains value 'result-1' occurs in its prompt, so an answer that "
        "echoes the prompt passes; check for what only a solution holds"
    )


def test_tasks_every_run_fails_or_passes_are_found():
    runs = clean_runs()
    runs[0][1]["result_text"] = "result-1"  # both runs pass t1
    runs[0][2]["result_text"] = "nothing"  # both runs fail t2
    findings = diagnose(tasks=clean_tasks(), runs=runs).findings
    assert [(f.check, f.ids) for f in findings] == [("unsolved", ("t2",)), ("saturated", ("t1",))]
    assert findings[0].message == (
        "1 task failed by every run ('run 1', 'run 2'): often a labelling error (a check no "
        "correct answer passes); check the tasks' expected answers"
    )


# -- the table, the DataFrame -----------------------------------------------------------


def test_every_check_is_in_the_table_once_with_a_severity():
    names = [c.name for c in CHECKS]
    assert len(names) == len(set(names)) == 15
    assert {c.severity for c in CHECKS} == {"error", "warning", "note"}


def test_be_doctor_returns_a_tidy_frame():
    frame = be.doctor(replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -"))
    assert list(frame.columns) == ["check", "severity", "ids", "message"]
    assert frame["check"].tolist() == ["no-keywords"]
    assert frame["ids"].tolist() == [["a4"]]
    assert list(frame["severity"].cat.categories) == ["error", "warning", "note"]
    assert be.doctor(clean_input()).empty


def test_limits_are_checked():
    with pytest.raises(ValueError, match="lenient_share must lie strictly between 0 and 1"):
        Limits(lenient_share=2)
    with pytest.raises(ValueError, match="weak_keyword_length must be a whole number"):
        Limits(weak_keyword_length=-1)


# -- the command line ------------------------------------------------------------------------


def _run(capsys, *args) -> tuple[int, str, str]:
    status = main(["doctor", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    ("fail_on", "statuses"),
    [("error", (0, 0, 1)), ("warning", (0, 1, 1)), ("note", (1, 1, 1))],
)
def test_the_exit_status_follows_fail_on(write, capsys, fail_on, statuses):
    notes = replace_line(clean_input(), "a2 ANSWER", "a2 ANSWER L2 token2z,token2")
    warning = replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -")
    tasks = clean_tasks()
    tasks[2]["checks"][1]["value"] = "sult"
    inputs = [
        ["--fail-on", fail_on, write(notes)],
        ["--fail-on", fail_on, write(warning, "w.txt")],
        ["--fail-on", fail_on, "--tasks", write(json.dumps(tasks), "t.json")],
    ]
    assert tuple(_run(capsys, *a)[0] for a in inputs) == statuses


def test_the_default_fails_on_errors_only(write, capsys):
    status, out, _ = _run(capsys, write(replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -")))
    assert status == 0
    assert "warning no-keywords" in out


def test_a_clean_set_prints_its_health(write, capsys):
    status, out, err = _run(capsys, write(clean_input()))
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "checked " + str(write(clean_input())) + ": 600 golden items, results of OLD, NEW",
        "golden set health: 0 errors, 0 warnings, 0 notes",
    ]


def test_json_agrees_with_the_text(write, capsys):
    text = replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -")
    text = replace_line(text, "THRESHOLDS", "THRESHOLDS 0.5 0 0.5")
    path = write(text)
    _, shown, _ = _run(capsys, path)
    _, raw, _ = _run(capsys, "--format", "json", path)
    record = json.loads(raw)
    assert record["counts"] == {"error": 0, "warning": 2, "note": 0}
    assert [f["check"] for f in record["findings"]] == ["no-keywords", "vacuous-threshold"]
    bullets = [line for line in shown.splitlines() if line.startswith("- ")]
    assert len(bullets) == len(record["findings"])
    for line, finding in zip(bullets, record["findings"], strict=True):
        assert line.startswith(f"- {finding['severity']} {finding['check']}: {finding['message']}")
    assert f"golden set health: {record['counts']['error']} errors, 2 warnings, 0 notes" in shown


def test_markdown_lists_the_findings(write, capsys):
    status, out, _ = _run(
        capsys,
        "--format",
        "markdown",
        write(replace_line(clean_input(), "a4 ANSWER", "a4 ANSWER L4 -")),
    )
    assert status == 0
    assert out.startswith("## Golden set doctor\n")
    assert "- **warning no-keywords**: 1 ANSWER item without keywords" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give INPUT (the gate's input) or --tasks GOLDEN.json, not both"),
        (["x.txt", "--tasks", "t.json"], "give INPUT (the gate's input) or --tasks"),
        (["--run", "r.json", "x.txt"], "--run goes with --tasks"),
        (["--limit", "nope=1", "x.txt"], "--limit expects NAME=VALUE with NAME one of"),
        (["--limit", "lenient_share=2", "x.txt"], "lenient_share must lie strictly between"),
        (["--fail-on", "fatal", "x.txt"], "argument --fail-on: invalid choice: 'fatal'"),
    ],
)
def test_usage_errors(capsys, args, message):
    status, out, err = _run(capsys, *args)
    assert (status, out) == (2, "")
    assert err.startswith("buddy-eval doctor: error: ")
    assert message in err
    assert len(err.splitlines()) == 1


def test_input_errors_name_the_file_and_line(write, capsys):
    path = write(clean_input().replace("a7 ANSWER L7 token7z", "a7 ANSWR L7 token7z"))
    status, out, err = _run(capsys, path)
    assert (status, out) == (2, "")
    assert err.startswith(f"buddy-eval: error: {path}:9: ")
    assert "ANSWR" in err and len(err.splitlines()) == 1
    tasks = write('[{"id": "t1"}]', "t.json")
    status, out, err = _run(capsys, "--tasks", tasks)
    assert (status, out) == (2, "") and "t1" in err


def test_a_golden_set_without_results_loads_for_the_doctor_only(write, capsys):
    path = write(text_of(golden_lines()))
    assert _run(capsys, path)[0] == 0
    assert main([str(path)]) == 2  # the gate still needs results
    assert "no 'RESULTS' line" in capsys.readouterr().err


def test_the_command_runs_as_a_program():
    proc = run_cli("doctor", "--fail-on", "warning", "data/sample_release.txt")
    assert proc.returncode == 1
    assert proc.stderr == b""
    assert b"warning few-refuse-items: 10 REFUSE items" in proc.stdout


@pytest.mark.slow
def test_the_doctor_on_a_large_generated_set(tmp_path, capsys):
    from benchmarks.generate import write as generate

    path = generate(tmp_path / "big.txt", 100_000)
    frame = be.doctor(path)
    golden = be.load(path).golden
    bare = golden.loc[
        (golden["item_type"] == "ANSWER") & (golden["keywords"].list.len() == 0), "item_id"
    ]
    (row,) = frame.loc[frame["check"] == "no-keywords", "ids"]
    assert row == bare.tolist()
    # 80k ANSWER and 20k REFUSE items: large enough to bound violations and detect a drop.
    assert not {"few-refuse-items", "underpowered", "vacuous-threshold"} & set(frame["check"])
    assert set(frame["check"]) <= {c.name for c in CHECKS}
    assert _run(capsys, path)[0] == 0


# -- the docs page ---------------------------------------------------------------------------

DOCTOR_PAGE = ROOT / "docs" / "doctor.md"


def _page_examples():
    page = DOCTOR_PAGE.read_text(encoding="utf-8")
    for found_ in re.finditer(r"```console\n\$ buddy-eval ([^\n]*)\n(.*?)```", page, flags=re.S):
        yield pytest.param(found_.group(1).split(), found_.group(2), id=found_.group(1)[:60])


@pytest.mark.parametrize(("args", "expected"), list(_page_examples()))
def test_the_docs_page_shows_what_the_doctor_prints(capsys, args, expected):
    status = main(args)
    out, err = capsys.readouterr()
    assert status in (0, 1) and err == ""
    assert out == expected


def test_the_docs_page_lists_every_check_with_its_rule():
    page = DOCTOR_PAGE.read_text(encoding="utf-8")
    for check in CHECKS:
        assert f"| `{check.name}` | {check.severity} | {check.reads} | {check.rule} |" in page
    assert len(list(_page_examples())) == 5


# -- a release ledger --------------------------------------------------------------------------


def test_the_ledger_adds_every_version_recorded_on_the_same_items(write, tmp_path, capsys):
    ledger = tmp_path / "release.ledger"
    recorded = replace_line(clean_input(), "NEW a11 ", "NEW a11 - Y I cannot help")
    recorded = replace_line(recorded, "NEW r4 ", "NEW r4 - Y reply")
    assert main([str(write(recorded, "recorded.txt")), "--ledger", str(ledger)]) in (0, 1)
    capsys.readouterr()
    golden = write(text_of(golden_lines()), "golden.txt")
    assert found(golden) == set()
    assert found(golden, ledger=ledger) == {("unsolved", ("a11",)), ("saturated", ("r4",))}
    # An item changed since (another keyword: another fingerprint) is not matched.
    changed = write(
        text_of(golden_lines()).replace("a11 ANSWER L11 token11z", "a11 ANSWER L11 x11y")
    )
    assert found(changed, ledger=ledger) == {("saturated", ("r4",))}
    # The input's own results count too: a version that passes a11 leaves it solved.
    solved = clean_input().replace("\nOLD ", "\nv9 ").replace("\nNEW ", "\nv8 ")
    assert found(solved, ledger=ledger) == set()
    status, out, _ = _run(capsys, "--ledger", ledger, "--fail-on", "warning", golden)
    assert status == 1
    assert "failed by every version ('OLD', 'NEW')" in out


def test_a_path_that_is_no_ledger_is_an_input_error(write, capsys):
    status, out, err = _run(
        capsys, "--ledger", write("not a ledger", "x.ledger"), write(clean_input())
    )
    assert (status, out) == (2, "")
    assert "is not a buddy_eval ledger" in err
