"""The JUnit XML report, read back with a real JUnit parser; and the CI file options."""

from __future__ import annotations

import os
from xml.etree import ElementTree

import pytest
from junitparser import Failure, JUnitXml, Skipped

import buddy_eval as be
from buddy_eval._cli import main
from buddy_eval.reporting import junit_report
from tests.conftest import DATA, run_cli

#: The attributes the common JUnit schema (Jenkins/Ant junit.xsd) requires or allows.
SUITE_ATTRIBUTES = {"name", "tests", "failures", "errors", "skipped"}
CASE_ATTRIBUTES = {"name", "classname", "time"}


def _read(text: str, tmp_path) -> JUnitXml:
    path = tmp_path / "report.xml"
    path.write_text(text, encoding="utf-8")
    return JUnitXml.fromfile(str(path))


def _outcomes(suite) -> dict[str, str]:
    out = {}
    for case in suite:
        kinds = {type(r) for r in case.result}
        out[case.name] = (
            "failure" if Failure in kinds else "skipped" if Skipped in kinds else "pass"
        )
    return out


@pytest.mark.parametrize(
    "name, trials", [("sample_release.txt", False), ("sample_trials.txt", True)]
)
def test_counts_equal_the_checks_and_the_item_table(tmp_path, name, trials):
    ev = be.evaluate(be.load(DATA / name, trials=trials))
    xml = _read(junit_report(ev), tmp_path)
    gate, items = list(xml)
    assert gate.name == "gate" and items.name == "golden items"
    checks = ev.decision.checks
    assert gate.tests == len(checks)
    assert gate.failures == sum(c.blocks for c in checks)
    messages = [
        case.result[0].message
        for case in gate
        if case.result and isinstance(case.result[0], Failure)
    ]
    assert messages == list(ev.decision.reasons)
    outcome = _outcomes(items)
    golden = ev.data.golden["item_id"].tolist()
    assert list(outcome) == golden and items.tests == len(golden)
    regressed = {i for m in ev.paired.metrics for i in m.ids["regressed"]}
    from buddy_eval._drilldown import trial_answers

    answers = trial_answers(ev)
    violated = set(answers[(answers.version == "NEW") & answers.violation]["item_id"])
    missing = set(ev.missing_ids("NEW"))
    # A failure whenever the candidate fails the item: a failing trial, or no result at all.
    failing = set(answers[(answers.version == "NEW") & ~answers.passed]["item_id"]) | missing
    assert regressed | violated <= failing
    assert {i for i, o in outcome.items() if o == "failure"} == failing
    assert items.failures == len(failing) and items.skipped == 0
    base = set(answers[(answers.version == "OLD") & ~answers.passed]["item_id"])
    base |= set(ev.missing_ids("OLD"))
    messages = {case.name: case.result[0].message for case in items if case.result}
    for item in failing:
        parts = messages[item].split("; ")
        if item in missing:
            assert "no result for NEW: it counts as failed" in parts
        elif not any(p.startswith("regressed in ") for p in parts):
            assert parts[0] == ("also fails in OLD" if item in base else "fails in some trials")
    assert xml.tests == gate.tests + items.tests and xml.failures == gate.failures + items.failures


def test_the_document_has_the_schema_shape(tmp_path):
    ev = be.evaluate(be.load(DATA / "sample_release.txt"))
    root = ElementTree.fromstring(junit_report(ev).encode())
    assert root.tag == "testsuites"
    for suite in root:
        assert suite.tag == "testsuite" and set(suite.attrib) == SUITE_ATTRIBUTES
        for case in suite:
            assert case.tag == "testcase" and set(case.attrib) == CASE_ATTRIBUTES
            for result in case:
                assert result.tag in ("failure", "skipped") and "message" in result.attrib
    failure = root.find(".//testcase[@name='j06']/failure")
    assert failure.get("message") == "regressed in correctness"
    assert failure.text == "NEW: missed keywords: equals"
    threshold = root.find(".//testcase[@name='refusal meets its threshold']/failure")
    assert threshold.text == "NEW refusal 0.80 against the threshold 0.90"


@pytest.mark.parametrize(
    "hostile", ["a<b>&c", "x]]>y", "\"quote'", "<script>alert(1)</script>", "tab\u0001ctl"]
)
def test_hostile_ids_are_escaped(tmp_path, hostile):
    text = (
        f"THRESHOLDS 0 0 0\n{hostile} ANSWER L1 key\nRESULTS\n"
        f"OLD {hostile} L1 N key\nNEW {hostile} L1 N no\n"
    )
    ev = be.evaluate(text)
    xml = _read(junit_report(ev), tmp_path)
    items = list(xml)[1]
    (case,) = list(items)
    assert case.name == hostile.replace("\u0001", "\\x01")
    assert isinstance(case.result[0], Failure)


@pytest.mark.slow  # heavy (an oracle sweep, processes or a big input): `make test` runs it
def test_the_files_are_written_beside_the_verdict(tmp_path):
    summary, junit = tmp_path / "summary.md", tmp_path / "report.xml"
    done = run_cli(DATA / "sample_release.txt", "--markdown", summary, "--junit", junit)
    plain = run_cli(DATA / "sample_release.txt")
    assert (done.returncode, done.stdout, done.stderr) == (
        plain.returncode,
        plain.stdout,
        plain.stderr,
    )  # the files never change the output or the exit status
    ev = be.evaluate(be.load(DATA / "sample_release.txt"))
    from buddy_eval.reporting import markdown_report

    assert summary.read_text(encoding="utf-8") == markdown_report(ev)
    assert junit.read_text(encoding="utf-8") == junit_report(ev)
    markdown = run_cli(DATA / "sample_release.txt", "--format", "markdown")
    assert markdown.returncode == 1
    assert markdown.stdout.decode() == markdown_report(ev)
    assert sorted(os.listdir(tmp_path)) == ["report.xml", "summary.md"]  # no temporary left


@pytest.mark.parametrize(
    "target, message",
    [
        ("input", "is the input file this run reads"),
        ("/dev/null", "is not a regular file"),
        ("dir", "is a directory"),
        ("link", "is a symbolic link"),
        ("fifo", "is not a regular file"),
        ("nodir/x.md", "cannot write: no directory"),
    ],
)
@pytest.mark.parametrize("option", ["--markdown", "--junit"])
def test_bad_output_paths_are_refused_before_any_work(tmp_path, target, message, option):
    source = tmp_path / "input.txt"
    source.write_bytes((DATA / "sample_release.txt").read_bytes())
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere.md")
    os.mkfifo(tmp_path / "fifo")
    path = {
        "input": source,
        "dir": tmp_path / "dir",
        "link": tmp_path / "link",
        "fifo": tmp_path / "fifo",
        "nodir/x.md": tmp_path / "nodir" / "x.md",
    }.get(target, target)
    before = source.read_bytes()
    done = run_cli(source, option, path)
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and message in err
    assert source.read_bytes() == before
    assert not (tmp_path / "elsewhere.md").exists()


def test_the_same_file_twice_is_refused(tmp_path):
    done = run_cli(
        DATA / "sample_release.txt", "--markdown", tmp_path / "a", "--junit", tmp_path / "." / "a"
    )
    assert done.returncode == 2
    assert done.stderr.decode().endswith(
        "--markdown and --junit name the same file; give each its own\n"
    )


def test_a_file_that_cannot_be_written_could_not_finish_after_the_verdict(
    tmp_path, monkeypatch, capsys
):
    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    status = main([str(DATA / "sample_release.txt"), "--junit", str(tmp_path / "r.xml")])
    out, err = capsys.readouterr()
    assert status == 3
    assert out.splitlines()[-1].startswith("BLOCK: ")  # the verdict was printed first
    assert err.splitlines()[-1].endswith("r.xml: cannot write: No space left on device")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("option", ["--markdown", "--junit"])
def test_an_empty_path_is_a_usage_error(option):
    done = run_cli(DATA / "sample_release.txt", option, "")
    assert (done.returncode, done.stdout) == (2, b"")
    message = f"buddy-eval: error: {option} expects a file path, got an empty one\n"
    assert done.stderr.decode() == message
