"""Every view of ``buddy-eval tasks``, pinned byte for byte on inputs that reach each branch.

The bundled example (ready, and made not ready by ``--min-paired``), a run with no scored
task, unknown checks of every kind with tasks unscored on one side, records excluded for a
golden_id outside the golden set (more than the warnings list), many unpaired and missing
tasks (capped lists), ties only, wins and losses past the exact signed-rank limit (the
normal approximation), and labels and ids that every format must escape. Per case: the
text on standard output and the warnings on standard error, ``--format json``,
``--format markdown``, the ``--markdown PATH`` and ``--junit PATH`` files, and ``--json``
(the same bytes as ``--format json``); the Python views (``report()``, ``to_json()``) are
the command line's.

The expected files live in tests/tasks_expected/<case>/. Write them after an intended
change with ``UPDATE_TASKS_EXPECTED=1 python -m pytest tests/test_tasks_views_identical.py``
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_snapshots import cli
from tests.test_tasks_support import EXAMPLE, check, paired_runs, record, task, write_json

EXPECTED = Path(__file__).parent / "tasks_expected"
UPDATE = os.environ.get("UPDATE_TASKS_EXPECTED") == "1"
INPUTS = ("--golden", "g.json", "--run-a", "a.json", "--run-b", "b.json")


def _no_scored_task():
    """Every check of every task is unknown: no score, no pair, no mean."""
    golden = [task(f"g{i}", check("max_cost_usd", 0.01), check("max_tokens", 50)) for i in "123"]
    run_a = [record(f"a{i}", f"g{i}", usd=None, tokens=None) for i in "12"]
    run_b = [record(f"b{i}", f"g{i}", unpriced=5, tokens=None) for i in "23"]
    return golden, run_a, run_b


def _unknown_checks():
    """Unknown checks of both kinds, and tasks that have no score on one side only."""
    golden = [
        task("u1", check("contains", "yes"), check("max_tokens", 100), check("max_cost_usd", 1)),
        task("u2", check("max_tokens", 100)),
        task("u3", check("status_completed"), check("not_contains", "no")),
        task("u4", check("max_cost_usd", 0.002), check("contains", "yes")),
        task("u5", check("max_tokens", 10)),
    ]
    run_a = [
        record("a1", "u1", "yes", tokens=None),
        record("a2", "u2", tokens=None),
        record("a3", "u3", "no", status="failed"),
        record("a4", "u4", "yes", unpriced=3),
        record("a5", "u5", tokens=5),
    ]
    run_b = [
        record("b1", "u1", "yes"),
        record("b2", "u2", tokens=90),
        record("b3", "u3", "fine"),
        record("b4", "u4", "nope", usd=None),
        record("b5", "u5", tokens=None, model=None),
    ]
    return golden, run_a, run_b


def _excluded_records():
    """Records whose golden_id is no golden task: 12 in A (two past the warnings' cap), 1 in B."""
    golden = [task(f"g{i}", check("contains", "ok")) for i in range(3)]
    run_a = [record("a0", "g0", "ok"), record("a1", "g1")]
    run_a += [record(f"x{i}", f"stray-{i}") for i in range(12)]
    run_b = [record("b0", "g0", "ok"), record("b1", "g1", "ok"), record("y0", "elsewhere")]
    return golden, run_a, run_b


def _unpaired_and_missing():
    """Many tasks in one run only and many in neither: every id list is capped."""
    golden = [task(f"t{i:02d}", check("contains", "ok")) for i in range(40)]
    run_a = [record(f"a{i}", f"t{i:02d}", "ok" if i % 3 else "no") for i in range(0, 14)]
    run_b = [record(f"b{i}", f"t{i:02d}", "ok" if i % 4 else "no") for i in range(2, 28)]
    return golden, run_a, run_b


def _ties_only():
    """Twenty-two pairs, every score equal: ready, and nothing to test (p 1)."""
    return paired_runs([(2, 2)] * 12 + [(4, 4)] * 6 + [(0, 0)] * 4)


def _wins_and_losses():
    """Sixty-five pairs, most different: the normal approximation of the signed-rank test."""
    wins = [(1, 2), (0, 3), (2, 4), (1, 4), (3, 4)] * 8
    losses = [(3, 2), (4, 1), (2, 0), (4, 3)] * 5
    return paired_runs(wins + losses + [(2, 2)] * 5)


def _hostile_text():
    """Ids and a label that Markdown, XML and the terminal must escape."""
    golden = [
        task("a|b", check("contains", "ok")),
        task("<script>x</script>", check("contains", "ok")),
        task("`tick`", check("contains", "ok")),
        task("[link](http://e.x)", check("contains", "ok")),
    ]
    run_a = [record("a1", "a|b", "ok"), record("a2", "<script>x</script>")]
    run_a += [record("a3", "`tick`", "ok")]
    run_b = [record("b1", "a|b"), record("b2", "<script>x</script>", "ok")]
    run_b += [record("b4", "[link](http://e.x)", "ok")]
    return golden, run_a, run_b


#: name: (the inputs written to g.json, a.json, b.json, options after them)
GENERATED = {
    "no-scored-task": (_no_scored_task, []),
    "unknown-checks": (_unknown_checks, ["--label-a", "old", "--label-b", "new"]),
    "excluded-records": (_excluded_records, []),
    "unpaired-and-missing": (_unpaired_and_missing, ["--min-paired", "5"]),
    "ties-only": (_ties_only, []),
    "wins-and-losses": (_wins_and_losses, ["--label-a", "v1", "--label-b", "v2"]),
    "not-ready-paired": (_wins_and_losses, ["--min-paired", "66"]),
    "hostile-text": (_hostile_text, ["--label-a", "x|y", "--label-b", "<b>`z`</b> é"]),
}
BUNDLED = [
    *("--golden", EXAMPLE["golden"].relative_to(EXAMPLE["golden"].parents[1])),
    *("--run-a", EXAMPLE["a"].relative_to(EXAMPLE["a"].parents[1])),
    *("--run-b", EXAMPLE["b"].relative_to(EXAMPLE["b"].parents[1])),
]
#: The bundled example, as README shows it and made not ready by a higher minimum.
BUNDLED_CASES = {
    "bundled": ["--label-a", "tutor-v1", "--label-b", "tutor-v2"],
    "bundled-not-ready": ["--min-paired", "26"],
}
CASES = [*BUNDLED_CASES, *GENERATED]
#: name: (options, extension of its standard output)
FORMATS = {
    "text": ([], "txt"),
    "json": (["--format", "json"], "json"),
    "markdown": (["--format", "markdown"], "md"),
}


def _args(case: str, folder: Path) -> tuple[list, Path]:
    """The command line after ``tasks`` and the folder to run it in."""
    if case in BUNDLED_CASES:
        return [*BUNDLED, *BUNDLED_CASES[case]], EXAMPLE["golden"].parents[1]
    make, options = GENERATED[case]
    for name, value in zip(("g.json", "a.json", "b.json"), make(), strict=True):
        write_json(folder / name, value)
    return [*INPUTS, *options], folder


def _compare(pairs: dict[str, bytes]) -> None:
    problems = []
    for name, actual in pairs.items():
        path = EXPECTED / name
        if UPDATE and (not path.is_file() or path.read_bytes() != actual):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(actual)
        if not path.is_file():
            problems.append(f"no tests/tasks_expected/{name} (UPDATE_TASKS_EXPECTED=1 writes it)")
        elif path.read_bytes() != actual:
            expected = path.read_bytes().decode("utf-8", "backslashreplace")
            got = actual.decode("utf-8", "backslashreplace")
            problems.append(f"tests/tasks_expected/{name} differs:\n{expected}\n---\n{got}")
    assert not problems, "\n\n".join(problems)


def _run(case: str, folder: Path, *options) -> tuple[int, bytes, bytes]:
    args, cwd = _args(case, folder)
    return cli("tasks", *args, *options, cwd=cwd, tmp=(folder,))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_every_format_is_pinned(case, fmt, tmp_path):
    options, extension = FORMATS[fmt]
    status, out, err = _run(case, tmp_path, *options)
    assert status == 0, err
    pairs = {f"{case}/{fmt}.stdout.{extension}": out}
    if fmt != "json":  # the JSON carries the warnings itself
        pairs[f"{case}/{fmt}.stderr.txt"] = err
    else:
        assert err == b""
    _compare(pairs)


@pytest.mark.parametrize("case", CASES)
def test_the_ci_files_are_pinned(case, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    summary, junit = out_dir / "summary.md", out_dir / "report.xml"
    status, out, err = _run(case, tmp_path, "--markdown", summary, "--junit", junit)
    assert status == 0, err
    assert (out, err) == _run(case, tmp_path)[1:]  # the files change nothing on the streams
    _compare({f"{case}/markdown-file.md": summary.read_bytes()})
    _compare({f"{case}/junit-file.xml": junit.read_bytes()})
    # The summary file is the summary --format markdown prints.
    assert summary.read_bytes() == (EXPECTED / case / "markdown.stdout.md").read_bytes()


@pytest.mark.parametrize("case", CASES)
def test_the_json_option_is_the_json_format(case, tmp_path):
    assert _run(case, tmp_path, "--json") == _run(case, tmp_path, "--format", "json")


@pytest.mark.parametrize("case", CASES)
def test_the_python_views_are_the_command_lines(case, tmp_path, monkeypatch):
    from buddy_eval.tasks import compare_runs

    args, cwd = _args(case, tmp_path)
    monkeypatch.chdir(cwd)
    options = dict(zip(args[::2], args[1::2], strict=True))
    comparison = compare_runs(
        options["--golden"],
        options["--run-a"],
        options["--run-b"],
        options.get("--label-a", "A"),
        options.get("--label-b", "B"),
        min_n=int(options.get("--min-paired", 20)),
    )
    text = (EXPECTED / case / "text.stdout.txt").read_bytes().decode("utf-8")
    assert comparison.report() + "\n" == text
    assert comparison.to_json() + "\n" == (EXPECTED / case / "json.stdout.json").read_text(
        encoding="utf-8"
    )
