"""Every output view of today, pinned byte for byte against the files in tests/snapshots/.

What is pinned, per result type and view:

- the gate (``buddy-eval INPUT``) on the sample release, the sample trials, the README's
  example, four of the specification's cases (a BLOCK, a RELEASE, missing results, a metric
  not measured), the sample under the non-inferiority rule and a candidate gated against a
  live baseline from a ledger: standard output of the three lines, ``--details``,
  ``--format json`` and ``--format markdown``, standard error (the warnings), and the files
  ``--markdown FILE`` and ``--junit FILE`` write;
- the Python views of the same evaluations: ``ev.report()`` and its HTML, ``ev.details()``,
  ``ev._repr_html_()``, the gate document's ``explained`` section (text and HTML), the DataFrames of
  ``metrics_table``, ``format_metrics_table``, ``format_comparison``, ``source_table``,
  ``format_source_table``, ``item_changes``, ``flipped_items``, the result's own
  ``ev.metrics``, ``ev.items`` and ``ev.comparison`` and, with trials,
  ``trial_summary``, ``format_trial_summary`` and ``trial_answers`` (as ``to_csv()`` text);
- the input errors of three specification cases (one line on standard error);
- ``buddy-eval tasks`` on the example golden tasks in text, json and markdown, and the
  ``--markdown``/``--junit`` files (tasks has no ``--format junit``), and the report, JSON
  and DataFrames of ``buddy_eval.tasks.compare_runs``;
- the sample release ledger (``data/make_sample_ledger.py``): ``ledger show``,
  ``ledger verify``, ``history`` in text, json and markdown, ``be.history(...)``'s frames,
  and a rollback's message and the history after it;
- the HTML report's banner (``report_banner``) with a fixed name, SHA-256 and date.

The command line runs in this process (``buddy_eval._cli.main``, as
tests/test_junit_report.py calls it) with standard output and error captured, for speed;
``test_the_real_command_line_prints_the_same_bytes`` runs a few of the same commands through
``python -m buddy_eval`` (tests/conftest.py's ``run_cli``) and compares them with the same
files, and ``test_every_command_line_snapshot_through_a_process`` (slow) all of them.

Determinism: every run's working folder is the checkout (inputs named relative to it) or a
fresh folder holding the ledger (named relative to it), so no absolute path is printed; the
ledgers are recorded with a fixed ``--by`` and ``--date`` and the CI variables cleared. Any
temporary folder still found in an output (the ``--markdown``/``--junit`` targets live in
tmp_path) is replaced by ``<TMP>`` before comparing, and the package version in the HTML
banner by ``<VERSION>``.

Regenerate after an intended change with ``UPDATE_SNAPSHOTS=1 python -m pytest
tests/test_snapshots.py`` (writes the files, then compares as usual) and review the diff.
"""

from __future__ import annotations

import contextlib
import datetime
import difflib
import io
import os
import runpy
import shutil
from pathlib import Path

import pandas as pd
import pytest

import buddy_eval as be
from buddy_eval._cli import main
from tests.conftest import DATA, ROOT, run_cli
from tests.ledger_helpers import GOLDEN, make_input, result_lines

SNAPSHOTS = ROOT / "tests" / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
#: What a temporary folder reads as in a snapshot.
TMP = "<TMP>"
#: The switches of the CI runs a ledger recording would take its provenance from.
CI_VARIABLES = ("GITHUB_ACTIONS", "GITLAB_CI")
#: Who records, in every ledger built here.
BY = "snapshot-bot"


# --- comparing ---------------------------------------------------------------------------


def _as_bytes(actual: bytes | str) -> bytes:
    return actual.encode("utf-8") if isinstance(actual, str) else actual


def _diff(expected: bytes, actual: bytes, name: str) -> str:
    def lines(data: bytes) -> list[str]:
        return data.decode("utf-8", "backslashreplace").splitlines(keepends=True)

    diff = "".join(
        difflib.unified_diff(
            lines(expected), lines(actual), f"tests/snapshots/{name}", "today's output", n=2
        )
    )
    if not diff:  # same text, other bytes (line ends, a trailing newline): show them
        diff = f"expected {expected[-80:]!r}\n  actual {actual[-80:]!r}\n"
    return diff


def snapshot_mismatch(name: str, actual: bytes | str, *, update: bool = UPDATE) -> str | None:
    """None when ``actual`` is the snapshot ``name``'s bytes, else a unified diff.

    With ``update`` (``UPDATE_SNAPSHOTS=1``) the file is (re)written first.
    """
    actual = _as_bytes(actual)
    path = SNAPSHOTS / name
    if update and (not path.is_file() or path.read_bytes() != actual):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(actual)
    if not path.is_file():
        return (
            f"no snapshot tests/snapshots/{name}; write it with "
            "UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py"
        )
    expected = path.read_bytes()
    if expected == actual:
        return None
    return (
        f"tests/snapshots/{name} differs from today's output (if the change is intended, "
        "regenerate with UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py and "
        f"review the diff):\n{_diff(expected, actual, name)}"
    )


def assert_snapshots(pairs: dict[str, bytes | str]) -> None:
    """Every ``name: output`` matches its snapshot; the failure shows every diff at once."""
    problems = [p for name, out in pairs.items() if (p := snapshot_mismatch(name, out))]
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


def assert_no_stderr_snapshot(name: str) -> None:
    """An empty standard error has no file (an update removes a stale one)."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.unlink(missing_ok=True)
    assert not path.exists(), f"tests/snapshots/{name} expects a warning that is not printed"


# --- running -----------------------------------------------------------------------------


def _placeholders(data: bytes, folders: tuple[Path, ...]) -> bytes:
    for folder in folders:
        for form in {str(folder), str(folder.resolve())}:
            data = data.replace(form.encode("utf-8"), TMP.encode("utf-8"))
    return data


@contextlib.contextmanager
def outside_ci(cwd: Path):
    """``cwd`` as the working folder, the CI variables cleared (put back afterwards)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in CI_VARIABLES:
            patch.delenv(name, raising=False)
        patch.chdir(cwd)
        yield


def cli(*args, cwd: Path = ROOT, tmp: tuple[Path, ...] = ()) -> tuple[int, bytes, bytes]:
    """Run ``buddy-eval ARGS`` in this process: the exit status, standard output and error.

    Both streams are UTF-8 bytes as the program writes them to a file descriptor (with
    ``backslashreplace``); each folder in ``tmp`` reads ``<TMP>``.
    """
    out, err = io.StringIO(), io.StringIO()
    with outside_ci(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])

    def encoded(stream: io.StringIO) -> bytes:
        return _placeholders(stream.getvalue().encode("utf-8", "backslashreplace"), tmp)

    return status, encoded(out), encoded(err)


def check_run(name: str, run: tuple[int, bytes, bytes], status: int, extension: str) -> dict:
    """The exit status; the pairs for standard output and (when not empty) standard error."""
    got, out, err = run
    assert got == status, (got, err.decode("utf-8", "backslashreplace"))
    pairs: dict[str, bytes | str] = {f"{name}.stdout.{extension}": out}
    if err:
        pairs[f"{name}.stderr.txt"] = err
    else:
        assert_no_stderr_snapshot(f"{name}.stderr.txt")
    return pairs


# --- the gate ----------------------------------------------------------------------------

#: name: (the command line's arguments before the format options, its exit status)
GATE_CASES: dict[str, tuple[list[str], int]] = {
    "sample-release": (["data/sample_release.txt"], 1),
    "sample-trials": (["--trials", "data/sample_trials.txt"], 1),
    "example": (["data/example.txt"], 1),
    "case-block": (["tests/cases/keyword-spaces.in"], 1),
    "case-release": (["tests/cases/halfup-eighths.in"], 0),
    "case-missing-results": (["tests/cases/missing-results.in"], 1),
    "case-not-measured": (["tests/cases/no-answer-items.in"], 1),
    "sample-noninferiority": (
        ["--rule", "noninferiority", "--margin", "0.02", "data/sample_release.txt"],
        1,
    ),
    "sample-slices": (
        [
            *("--slices", "data/sample_slices.csv", "--slice-rule", "drop"),
            *("--min-paired", "10", "data/sample_release.txt"),
        ],
        1,
    ),
}

#: name: (options, extension of its standard output's snapshot)
GATE_FORMATS: dict[str, tuple[list[str], str]] = {
    "text": ([], "txt"),
    "details": (["--details"], "txt"),
    "json": (["--format", "json"], "json"),
    "markdown": (["--format", "markdown"], "md"),
}


def ci_files_run(args, tmp_path: Path, cwd: Path = ROOT) -> dict:
    """``--markdown FILE --junit FILE``: the pairs for both files, and the run itself."""
    summary, junit = tmp_path / "summary.md", tmp_path / "report.xml"
    run = cli(*args, "--markdown", summary, "--junit", junit, cwd=cwd, tmp=(tmp_path,))
    return {"markdown": summary.read_bytes(), "junit": junit.read_bytes(), "run": run}


@pytest.mark.parametrize("fmt", GATE_FORMATS)
@pytest.mark.parametrize("case", GATE_CASES)
def test_gate(case, fmt):
    args, status = GATE_CASES[case]
    options, extension = GATE_FORMATS[fmt]
    run = cli(*args, *options)
    assert_snapshots(check_run(f"gate/{case}/{fmt}", run, status, extension))


@pytest.mark.parametrize("case", GATE_CASES)
def test_gate_ci_files(case, tmp_path):
    """The CI files; the run's standard output and error are the plain run's."""
    args, status = GATE_CASES[case]
    files = ci_files_run(args, tmp_path)
    pairs = check_run(f"gate/{case}/text", files["run"], status, "txt")
    pairs |= {f"gate/{case}/markdown-file.md": files["markdown"]}
    pairs |= {f"gate/{case}/junit-file.xml": files["junit"]}
    assert_snapshots(pairs)


#: Inputs the gate refuses (exit 2: one line on standard error, nothing on standard output).
GATE_ERRORS = ("err-bad-flag", "err-dup-result", "err-threshold-range")


@pytest.mark.parametrize("fmt", ["text", "json"])
@pytest.mark.parametrize("case", GATE_ERRORS)
def test_gate_input_errors(case, fmt):
    options, _ = GATE_FORMATS[fmt]
    status, out, err = cli(f"tests/cases/{case}.in", *options)
    assert (status, out) == (2, b"")
    assert_snapshots({f"gate/errors/{case}.stderr.txt": err})


# --- a live baseline from a ledger -------------------------------------------------------

#: The live case of tests/test_ledger_live.py: v1 and v2 recorded, v2 released; the golden
#: set then grows (q4 edited, q5 added) and v3 is gated against the live v2.
LIVE_GOLDEN = GOLDEN.replace("L4 delta", "L4 delta,epsilon") + "q5 ANSWER L5 eta\n"
LIVE_INPUT = (
    "THRESHOLDS 0.5 0.5 0.5\n"
    + LIVE_GOLDEN
    + "RESULTS\n"
    + result_lines("v3", {"q1", "q2"})
    + "v3 q5 L5 N eta\n"
)
LIVE_ARGS = ["live.txt", "--ledger", "release.ledger", "--baseline", "live", "--candidate", "v3"]
LIVE_RECORD = ["--date", "2026-02-02", "--by", BY]


def build_live_folder(folder: Path) -> tuple[tuple, tuple]:
    """Write release.ledger (v1 and v2 recorded, v2 released) and live.txt into ``folder``.

    Returns what recording and releasing printed (status, stdout, stderr each).
    """
    (folder / "first.txt").write_text(make_input("v1", "v2"), encoding="utf-8")
    (folder / "live.txt").write_text(LIVE_INPUT, encoding="utf-8")
    recorded = cli(
        "first.txt",
        *["--baseline", "v1", "--candidate", "v2", "--ledger", "release.ledger"],
        *["--date", "2026-02-01", "--by", BY],
        cwd=folder,
    )
    released = cli(
        *["ledger", "release", "v2", "--ledger", "release.ledger"],
        *["--date", "2026-02-01", "--by", BY],
        cwd=folder,
    )
    return recorded, released


@pytest.fixture(scope="module")
def live_ledger(tmp_path_factory):
    """A folder with release.ledger (v2 live) and live.txt; the outputs that built it."""
    folder = tmp_path_factory.mktemp("live")
    return folder, *build_live_folder(folder)


def live_copy(live_ledger, tmp_path: Path) -> Path:
    """A fresh copy of the live folder (each gate run records into its own ledger)."""
    folder = tmp_path / "run"
    folder.mkdir(parents=True)
    for name in ("release.ledger", "live.txt"):
        shutil.copyfile(live_ledger[0] / name, folder / name)
    return folder


def test_live_ledger_setup(live_ledger):
    """What recording v1 against v2 and releasing v2 print."""
    _, recorded, released = live_ledger
    pairs = check_run("gate/live-baseline/setup-record", recorded, 0, "txt")
    pairs |= check_run("gate/live-baseline/setup-release", released, 0, "txt")
    assert_snapshots(pairs)


@pytest.mark.parametrize("fmt", GATE_FORMATS)
def test_gate_live_baseline(fmt, live_ledger, tmp_path):
    options, extension = GATE_FORMATS[fmt]
    run = cli(*LIVE_ARGS, *LIVE_RECORD, *options, cwd=live_copy(live_ledger, tmp_path))
    assert_snapshots(check_run(f"gate/live-baseline/{fmt}", run, 0, extension))


def test_gate_live_baseline_ci_files(live_ledger, tmp_path):
    folder = live_copy(live_ledger, tmp_path)
    files = ci_files_run([*LIVE_ARGS, *LIVE_RECORD], tmp_path, cwd=folder)
    pairs = check_run("gate/live-baseline/text", files["run"], 0, "txt")
    pairs |= {"gate/live-baseline/markdown-file.md": files["markdown"]}
    pairs |= {"gate/live-baseline/junit-file.xml": files["junit"]}
    assert_snapshots(pairs)


# --- the Python views --------------------------------------------------------------------


def _evaluate(case: str, live_folder: Path | None = None) -> be.Evaluation:
    """The evaluation the command line's case makes, loaded with the same relative path."""
    if case == "live-baseline":
        from buddy_eval.ledger import evaluate_live

        with outside_ci(live_folder):
            return evaluate_live("release.ledger", "live.txt", "v3")[0]
    args, _ = GATE_CASES[case]
    settings, slices = None, None
    if "--rule" in args:
        settings = be.Settings(rule="noninferiority", margin=0.02)
    if "--slices" in args:
        settings = be.Settings(slice_rule="drop", min_paired=10)
        slices = ROOT / args[args.index("--slices") + 1]
    with outside_ci(ROOT):
        return be.evaluate(args[-1], settings=settings, trials="--trials" in args, slices=slices)


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(lineterminator="\n")


def python_views(ev: be.Evaluation) -> dict[str, str]:
    """Every Python view of one evaluation, as text (file name: content)."""
    from buddy_eval.reporting import gate_document, render_html, render_text

    report = ev.report()
    document = gate_document(ev, {"html"})
    why = [document.section("explained")]
    views = {
        "report.txt": report,
        "report.html": report._repr_html_(),
        "details.txt": ev.details(),
        "repr.html": ev._repr_html_(),
        "decision_summary.txt": render_text(document, sections=why) + "\n",
        "decision_summary.html": render_html(document, sections=why),
        "metrics_table.csv": _csv(be.metrics_table(ev)),
        "format_metrics_table.csv": _csv(be.format_metrics_table(be.metrics_table(ev))),
        "format_comparison.csv": _csv(be.format_comparison(ev)),
        "source_table.csv": _csv(be.source_table(ev)),
        "format_source_table.csv": _csv(be.format_source_table(ev)),
        "item_changes.csv": _csv(be.item_changes(ev)),
        "flipped_items.csv": _csv(be.flipped_items(ev, include_missing=True)),
        # The result's own frames, which every view above reads.
        "ev.metrics.csv": _csv(ev.metrics),
        "ev.items.csv": _csv(ev.items),
        "ev.comparison.csv": _csv(ev.comparison),
    }
    if ev.has_trials:
        views |= {
            "trial_summary.csv": _csv(be.trial_summary(ev)),
            "format_trial_summary.csv": _csv(be.format_trial_summary(ev)),
            "trial_answers.csv": _csv(be.trial_answers(ev)),
        }
    return views


@pytest.mark.parametrize("case", [*GATE_CASES, "live-baseline"])
def test_python_views(case, live_ledger):
    ev = _evaluate(case, live_ledger[0])
    assert_snapshots({f"python/{case}/{name}": text for name, text in python_views(ev).items()})


@pytest.mark.parametrize("case", ["sample-release", "case-release"])
def test_report_banner(case):
    from buddy_eval import __version__
    from buddy_eval._notebook_report import report_banner

    banner = report_banner(
        _evaluate(case),
        name="release <input>.txt",
        sha256="0123456789abcdef" * 4,
        date=datetime.date(2026, 3, 1),
    )
    assert_snapshots({f"notebook/{case}-banner.html": banner.replace(__version__, "<VERSION>")})


# --- tasks -------------------------------------------------------------------------------

TASKS_ARGS = [
    *["tasks", "--golden", "data/golden-tasks.example.json"],
    *["--run-a", "data/run-a.example.json", "--run-b", "data/run-b.example.json"],
]
#: name: options after the inputs
TASKS_CASES = {
    "example": [],
    "labelled": ["--label-a", "tutor-v1", "--label-b", "tutor-v2"],
}
TASKS_FORMATS = {
    "text": ([], "txt"),
    "json": (["--format", "json"], "json"),
    "markdown": (["--format", "markdown"], "md"),
}


@pytest.mark.parametrize("fmt", TASKS_FORMATS)
@pytest.mark.parametrize("case", TASKS_CASES)
def test_tasks(case, fmt):
    options, extension = TASKS_FORMATS[fmt]
    run = cli(*TASKS_ARGS, *TASKS_CASES[case], *options)
    assert_snapshots(check_run(f"tasks/{case}/{fmt}", run, 0, extension))


@pytest.mark.parametrize("case", TASKS_CASES)
def test_tasks_ci_files(case, tmp_path):
    files = ci_files_run([*TASKS_ARGS, *TASKS_CASES[case]], tmp_path)
    pairs = check_run(f"tasks/{case}/text", files["run"], 0, "txt")
    pairs |= {f"tasks/{case}/markdown-file.md": files["markdown"]}
    pairs |= {f"tasks/{case}/junit-file.xml": files["junit"]}
    assert_snapshots(pairs)


def test_tasks_json_is_the_legacy_json_option():
    assert cli(*TASKS_ARGS, "--json") == cli(*TASKS_ARGS, "--format", "json")


#: The DataFrames of a TaskComparison (``buddy_eval.tasks.compare_runs``).
TASK_FRAMES = ("summary", "pairs", "scores", "unknowns", "unpaired", "missing", "unmatched")


def test_tasks_python_views():
    """``compare_runs(...)``: its report and JSON (the command line's), and its frames."""
    from buddy_eval.tasks import compare_runs

    with outside_ci(ROOT):
        comparison = compare_runs(*TASKS_ARGS[2::2])
    pairs = {f"tasks/python/{name}.csv": _csv(getattr(comparison, name)) for name in TASK_FRAMES}
    pairs["tasks/example/text.stdout.txt"] = comparison.report() + "\n"
    pairs["tasks/example/json.stdout.json"] = comparison.to_json() + "\n"
    assert_snapshots(pairs)


# --- the ledger --------------------------------------------------------------------------


def build_sample_ledger(folder: Path) -> Path:
    """data/make_sample_ledger.py's ledger as ``folder``/sample.ledger, outside CI."""
    build = runpy.run_path(str(DATA / "make_sample_ledger.py"))["build"]
    with outside_ci(folder):
        return build(folder / "sample.ledger")


@pytest.fixture(scope="module")
def sample_ledger(tmp_path_factory) -> Path:
    """The folder holding the sample ledger, sample.ledger (run with it as working folder)."""
    folder = tmp_path_factory.mktemp("sample-ledger")
    build_sample_ledger(folder)
    return folder


LEDGER_VIEWS = {
    "show": (["ledger", "show", "--ledger", "sample.ledger"], "txt"),
    "verify": (["ledger", "verify", "--ledger", "sample.ledger"], "txt"),
    "history": (["history", "--ledger", "sample.ledger"], "txt"),
    "history-json": (["history", "--ledger", "sample.ledger", "--format", "json"], "json"),
    "history-markdown": (
        ["history", "--ledger", "sample.ledger", "--format", "markdown"],
        "md",
    ),
}


@pytest.mark.parametrize("view", LEDGER_VIEWS)
def test_ledger(view, sample_ledger):
    args, extension = LEDGER_VIEWS[view]
    run = cli(*args, cwd=sample_ledger)
    assert_snapshots(check_run(f"ledger/{view}", run, 0, extension))


def test_ledger_rollback(sample_ledger, tmp_path):
    """What a rollback prints, and the history after it."""
    shutil.copyfile(sample_ledger / "sample.ledger", tmp_path / "sample.ledger")
    rollback = cli(
        *["ledger", "rollback", "v3", "--ledger", "sample.ledger", "--reason", "v5 breaks labs"],
        *["--date", "2026-02-20", "--by", BY],
        cwd=tmp_path,
    )
    pairs = check_run("ledger/rollback", rollback, 0, "txt")
    history = cli("history", "--ledger", "sample.ledger", cwd=tmp_path)
    pairs |= check_run("ledger/history-after-rollback", history, 0, "txt")
    assert_snapshots(pairs)


#: The frames of be.history(...), in the order of its documentation.
HISTORY_FRAMES = (
    "versions",
    "items",
    "always_failed",
    "flipped",
    "escaped",
    "releases",
    "revisions",
    "revision_changes",
    "across",
    "findings",
)


def test_history_frames(sample_ledger):
    with outside_ci(sample_ledger):
        found = be.history("sample.ledger")
    assert found.ledger == "sample.ledger"
    assert_snapshots(
        {f"ledger/history-{name}.csv": _csv(getattr(found, name)) for name in HISTORY_FRAMES}
    )


# --- the same bytes through a real process -----------------------------------------------


def _process(*args, cwd: Path = ROOT) -> tuple[int, bytes, bytes]:
    done = run_cli(*args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "name, args",
    [
        ("gate/sample-release/text", GATE_CASES["sample-release"][0]),
        ("gate/sample-trials/json", [*GATE_CASES["sample-trials"][0], "--format", "json"]),
        ("tasks/example/markdown", [*TASKS_ARGS, "--format", "markdown"]),
    ],
)
def test_the_real_command_line_prints_the_same_bytes(name, args):
    """``python -m buddy_eval`` prints what the in-process runs are compared with."""
    status, out, err = _process(*args)
    extension = {"text": "txt", "json": "json", "markdown": "md"}[name.rsplit("/", 1)[1]]
    assert out == (SNAPSHOTS / f"{name}.stdout.{extension}").read_bytes()
    stderr = SNAPSHOTS / f"{name}.stderr.txt"
    assert err == (stderr.read_bytes() if stderr.exists() else b"")
    assert status in (0, 1)


def _every_command_line_snapshot(live_folder: Path, ledger_folder: Path):
    """(snapshot name, arguments, working folder, extension) of every command-line run."""
    for case, (args, _) in GATE_CASES.items():
        for fmt, (options, extension) in GATE_FORMATS.items():
            yield f"gate/{case}/{fmt}", [*args, *options], ROOT, extension
    for case, options in TASKS_CASES.items():
        for fmt, (more, extension) in TASKS_FORMATS.items():
            yield f"tasks/{case}/{fmt}", [*TASKS_ARGS, *options, *more], ROOT, extension
    for view, (args, extension) in LEDGER_VIEWS.items():
        yield f"ledger/{view}", args, ledger_folder, extension
    for fmt, (options, extension) in GATE_FORMATS.items():
        yield (
            f"gate/live-baseline/{fmt}",
            [*LIVE_ARGS, *LIVE_RECORD, *options],
            live_folder,
            extension,
        )


@pytest.mark.slow  # one process per view: `make test` runs it
def test_every_command_line_snapshot_through_a_process(live_ledger, sample_ledger, tmp_path):
    problems = []
    for k, (name, args, cwd, extension) in enumerate(
        _every_command_line_snapshot(live_ledger[0], sample_ledger)
    ):
        if "live.txt" in args:  # a gate run against the live baseline records: a fresh ledger
            cwd = live_copy(live_ledger, tmp_path / str(k))
        status, out, err = _process(*args, cwd=cwd)
        problems.append(snapshot_mismatch(f"{name}.stdout.{extension}", out, update=False))
        stderr = SNAPSHOTS / f"{name}.stderr.txt"
        if err != (stderr.read_bytes() if stderr.exists() else b""):
            problems.append(f"{name}: standard error differs: {err!r}")
        if status not in (0, 1):
            problems.append(f"{name}: exit status {status}")
    problems = [p for p in problems if p]
    assert not problems, "\n\n".join(problems)
