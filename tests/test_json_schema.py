"""The JSON outputs hold to their schemas (buddy_eval/schemas/, JSON Schema draft 2020-12).

Three outputs are JSON: the gate's ``--format json`` (``gate.schema.json``, with
``format_version``), ``buddy-eval tasks --format json`` (``tasks.schema.json``) and
``buddy-eval history --format json`` (``history.schema.json``). Every real output made here
is validated with the ``jsonschema`` library: the inputs of tests/test_snapshots.py (the
samples, repeated trials, the specification's cases, the non-inferiority rule, a live
baseline, the example tasks, the sample ledger) and a few more: generated gate inputs
(benchmarks/generate.py, with and without trials), generated golden tasks and runs, and
ledgers with a rollback or with nothing released.

The key paths of each format (every key of every object, labels, metrics and item ids
generalised to ``<label>``, ``<metric>``, ``<item_id>``; ``[]`` for a list's items) are pinned
in tests/snapshots/json-keys-<format>-v<format_version>.txt (``-unversioned`` for the formats
that carry no format_version yet). A key that disappears fails; a key added without a new
format_version fails; a new format_version needs its own file, which
``UPDATE_SNAPSHOTS=1 python -m pytest tests/test_json_schema.py`` writes when it is missing
(it never rewrites a pinned one).
"""

from __future__ import annotations

import json
import random
import shutil
import tomllib
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from buddy_eval.reporting import HISTORY_FORMAT_VERSION
from buddy_eval.reporting._gate_record import FORMAT_VERSION
from buddy_eval.reporting._tasks_record import TASKS_FORMAT_VERSION
from buddy_eval.stats import READING_CODES
from buddy_eval.tasks import CHECK_TYPES
from tests.conftest import ROOT
from tests.test_snapshots import (
    BY,
    GATE_CASES,
    LIVE_ARGS,
    LIVE_RECORD,
    SNAPSHOTS,
    TASKS_ARGS,
    TASKS_CASES,
    UPDATE,
    build_live_folder,
    build_sample_ledger,
    cli,
)

SCHEMAS = ROOT / "buddy_eval" / "schemas"
FORMATS = ("gate", "tasks", "history")
METRICS = ("correctness", "citation", "refusal")
#: Each format's format_version today (None: the format carries none yet).
CURRENT_VERSION = {
    "gate": FORMAT_VERSION,
    "tasks": TASKS_FORMAT_VERSION,
    "history": HISTORY_FORMAT_VERSION,
}
DOC = ROOT / "docs" / "json-schema.md"


def schema(fmt: str) -> dict:
    return json.loads((SCHEMAS / f"{fmt}.schema.json").read_text(encoding="utf-8"))


# --- the outputs -------------------------------------------------------------------------


def _json(run: tuple[int, bytes, bytes]) -> object:
    status, out, err = run
    assert status in (0, 1), err.decode("utf-8", "backslashreplace")
    return json.loads(out)


def _generated_gate_inputs(folder: Path) -> dict[str, list[str]]:
    """Inputs from benchmarks/generate.py: small (not ready), mid-sized, with trials."""
    from benchmarks.generate import generate

    shapes = {
        "generated-5": dict(n_items=5, seed=11),
        "generated-60": dict(n_items=60, seed=12),
        "generated-200": dict(n_items=200, seed=13),
        "generated-trials-40x3": dict(n_items=40, seed=14, trials=3),
    }
    cases = {}
    for name, shape in shapes.items():
        (folder / f"{name}.txt").write_bytes(generate(**shape))
        trials = ["--trials"] if shape.get("trials", 1) > 1 else []
        cases[name] = [*trials, f"{name}.txt"]
    cases["generated-60-noninferiority"] = [
        *["--rule", "noninferiority", "--margin", "0.05"],
        "generated-60.txt",
    ]
    cases["generated-trials-40x3-margin"] = [
        "--trials",
        "--margin",
        "0.1",
        "generated-trials-40x3.txt",
    ]
    return cases


def _generated_tasks(folder: Path, seed: int, n: int) -> list[str]:
    """A golden set of ``n`` tasks and two runs: every check type, unknowns, gaps."""
    rng = random.Random(seed)
    words = ["class", "object", "loop", "array", "null", "static", "final", "thread"]
    golden, runs = [], {"a": [], "b": []}
    for k in range(n):
        checks = [{"type": "contains", "value": rng.choice(words)}]
        if rng.random() < 0.5:
            checks.append({"type": "not_contains", "value": rng.choice(words)})
        checks.append({"type": "status_completed"})
        limits = [{"type": "max_tokens", "value": 500}, {"type": "max_cost_usd", "value": 0.01}]
        checks.append(rng.choice(limits))
        golden.append({"id": f"g{k:03d}", "prompt": f"task {k}", "tier": "basic", "checks": checks})
        for run in runs:
            if rng.random() < 0.1:  # no record in this run
                continue
            runs[run].append(
                {
                    "task_id": f"{run}-{k}",
                    "golden_id": f"g{k:03d}",
                    "model": f"model-{run}",
                    "status": rng.choice(["completed", "completed", "completed", "failed"]),
                    "result_text": " ".join(rng.sample(words, 3)),
                    "total_tokens": rng.choice([None, 200, 900]),
                    "usd_micros": rng.choice([None, 4000, 20000]),
                    "unpriced_tokens": rng.choice([0, 0, 0, 12]),
                }
            )
    runs["b"].append({**runs["b"][0], "task_id": "b-x", "golden_id": "not-golden"})
    names = [f"golden-{seed}.json", f"a-{seed}.json", f"b-{seed}.json"]
    for name, data in zip(names, (golden, runs["a"], runs["b"]), strict=True):
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    return ["tasks", "--golden", names[0], "--run-a", names[1], "--run-b", names[2]]


def _ledgers(folder: Path) -> dict[str, Path]:
    """Folders with a ledger to read the history of, and the file's name in it."""
    sample = folder / "sample"
    sample.mkdir(parents=True)
    build_sample_ledger(sample)
    rolled = folder / "rollback"
    shutil.copytree(sample, rolled)
    status, _, err = cli(
        *["ledger", "rollback", "v3", "--ledger", "sample.ledger", "--reason", "v5 breaks labs"],
        *["--date", "2026-02-20", "--by", BY],
        cwd=rolled,
    )
    assert status == 0, err
    unreleased = folder / "unreleased"
    unreleased.mkdir()
    (unreleased / "input.txt").write_bytes((ROOT / "data" / "example.txt").read_bytes())
    status, _, err = cli(
        *["input.txt", "--ledger", "sample.ledger", "--date", "2026-01-01", "--by", BY],
        cwd=unreleased,
    )
    assert status == 1, err
    live = folder / "live"
    live.mkdir()
    build_live_folder(live)
    status, _, err = cli(*LIVE_ARGS, *LIVE_RECORD, cwd=live)
    assert status == 0, err
    shutil.move(live / "release.ledger", live / "sample.ledger")
    old = folder / "schema-v2"  # written by the schema before findings and slices were kept
    old.mkdir()
    shutil.copy(ROOT / "tests" / "ledger_fixtures" / "schema-v2.ledger", old / "sample.ledger")
    return {
        "sample": sample,
        "rollback": rolled,
        "unreleased": unreleased,
        "live": live,
        "schema-v2": old,
    }


def _sliced_history(folder: Path) -> dict[str, object]:
    """``history --slice`` on a ledger with one evaluation recorded with slices, one without:
    a slice of REFUSE items and one of ANSWER items."""
    folder.mkdir(parents=True)
    for name in ("sample_release.txt", "sample_slices.csv"):
        (folder / name).write_bytes((ROOT / "data" / name).read_bytes())
    for extra in (["--slices", "sample_slices.csv"], []):
        status, _, err = cli(
            *["sample_release.txt", "--ledger", "sample.ledger", *extra],
            *["--date", "2026-01-01", "--by", BY],
            cwd=folder,
        )
        assert status == 1, err
    return {
        f"slice-{name}": _json(
            cli(
                "history",
                "--ledger",
                "sample.ledger",
                "--slice",
                name,
                "--format",
                "json",
                cwd=folder,
            )
        )
        for name in ("graded work", "basics")
    }


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, dict[str, object]]:
    """Per format, every real output made here: {name: parsed JSON}."""
    folder = tmp_path_factory.mktemp("json-outputs")
    gate: dict[str, object] = {}
    for case, (args, _) in GATE_CASES.items():
        gate[case] = _json(cli(*args, "--format", "json"))
    live = folder / "live-gate"
    live.mkdir()
    build_live_folder(live)
    gate["live-baseline"] = _json(cli(*LIVE_ARGS, *LIVE_RECORD, "--format", "json", cwd=live))
    for case, args in _generated_gate_inputs(folder).items():
        gate[case] = _json(cli(*args, "--format", "json", cwd=folder))
    tasks: dict[str, object] = {}
    for case, options in TASKS_CASES.items():
        tasks[case] = _json(cli(*TASKS_ARGS, *options, "--format", "json"))
    for seed, n in ((1, 12), (2, 45)):
        tasks[f"generated-{n}"] = _json(
            cli(*_generated_tasks(folder, seed, n), "--format", "json", cwd=folder)
        )
    history = {
        name: _json(cli("history", "--ledger", "sample.ledger", "--format", "json", cwd=where))
        for name, where in _ledgers(folder / "ledgers").items()
    }
    history |= _sliced_history(folder / "ledgers" / "sliced")
    return {"gate": gate, "tasks": tasks, "history": history}


#: The outputs' names per format (the fixture makes them; the names parametrize the tests).
OUTPUT_NAMES = {
    "gate": [
        *GATE_CASES,
        "live-baseline",
        "generated-5",
        "generated-60",
        "generated-200",
        "generated-trials-40x3",
        "generated-60-noninferiority",
        "generated-trials-40x3-margin",
    ],
    "tasks": [*TASKS_CASES, "generated-12", "generated-45"],
    "history": [
        "sample",
        "rollback",
        "unreleased",
        "live",
        "schema-v2",
        "slice-graded work",
        "slice-basics",
    ],
}


def test_the_output_names_are_every_output(outputs):
    assert {fmt: list(found) for fmt, found in outputs.items()} == OUTPUT_NAMES


# --- the schemas -------------------------------------------------------------------------


def _validator(fmt: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        schema(fmt), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_schema_is_a_valid_draft_2020_12_schema(fmt):
    found = schema(fmt)
    assert found["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(found)


@pytest.mark.parametrize(
    "fmt, name", [(fmt, name) for fmt, names in OUTPUT_NAMES.items() for name in names]
)
def test_every_output_holds_to_its_schema(outputs, fmt, name):
    errors = sorted(_validator(fmt).iter_errors(outputs[fmt][name]), key=str)
    assert not errors, "\n".join(
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors[:10]
    )


def test_the_gate_schema_pins_the_format_version(outputs):
    assert schema("gate")["properties"]["format_version"] == {"const": FORMAT_VERSION}
    assert {report["format_version"] for report in outputs["gate"].values()} == {FORMAT_VERSION}


def test_the_tasks_schema_pins_the_format_version(outputs):
    assert schema("tasks")["properties"]["format_version"] == {"const": TASKS_FORMAT_VERSION}
    versions = {report["format_version"] for report in outputs["tasks"].values()}
    assert versions == {TASKS_FORMAT_VERSION}


def test_the_schemas_name_the_packages_vocabulary():
    defs = schema("gate")["$defs"]
    assert defs["reading"]["enum"] == list(READING_CODES)
    by_type = schema("tasks")["$defs"]["run"]["properties"]["unknown_checks_by_type"]
    assert by_type["required"] == list(CHECK_TYPES)


def _errors(fmt: str, document) -> list[str]:
    return [e.message for e in _validator(fmt).iter_errors(document)]


def test_the_gate_schema_refuses_what_the_format_never_holds(outputs):
    report = outputs["gate"]["sample-release"]
    assert not _errors("gate", report)
    changed = [
        {**report, "format_version": FORMAT_VERSION + 1},
        {k: v for k, v in report.items() if k != "warnings"},
        {**report, "extra": 1},
        {**report, "versions": {**report["versions"], "v9": report["versions"]["OLD"]}},
        {**report, "thresholds": {**report["thresholds"], "speed": {"value": 1, "exact": "1/1"}}},
        {**report, "decision": {**report["decision"], "verdict": "MAYBE"}},
        {**report, "source": None},
    ]
    comparison = report["comparison"]["correctness"]
    changed.append(
        {**report, "comparison": {**report["comparison"], "correctness": {**comparison, "p": 1}}}
    )
    changed.append(
        {
            **report,
            "comparison": {
                **report["comparison"],
                "correctness": {**comparison, "diff_exact": "0.1"},
            },
        }
    )
    for document in changed:
        assert _errors("gate", document)


def test_the_tasks_and_history_schemas_refuse_a_key_they_do_not_know(outputs):
    tasks = outputs["tasks"]["example"]
    assert _errors("tasks", {**tasks, "format_version": TASKS_FORMAT_VERSION + 1})
    assert _errors("tasks", {k: v for k, v in tasks.items() if k != "slices"})
    tier = tasks["slices"]["basic"]
    assert _errors("tasks", {**tasks, "slices": {"basic": {**tier, "extra": 1}}})
    assert _errors("tasks", {k: v for k, v in tasks.items() if k != "missing"})
    history = outputs["history"]["sample"]
    assert _errors("history", {**history, "format_version": 1})
    assert _errors("history", {k: v for k, v in history.items() if k != "format_version"})
    row = {**history["versions"][0], "extra": None}
    assert _errors("history", {**history, "versions": [row]})
    revision = {k: v for k, v in history["revisions"][0].items() if k != "findings"}
    assert _errors("history", {**history, "revisions": [revision]})
    sliced = outputs["history"]["slice-basics"]
    assert _errors("history", {**sliced, "versions": history["versions"]})
    assert _errors("history", {**sliced, "format_version": 1})


def test_the_schemas_are_package_data():
    """The wheel carries them: listed in pyproject's package-data, found as resources."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "buddy_eval.schemas" in pyproject["tool"]["setuptools"]["packages"]
    package_data = pyproject["tool"]["setuptools"]["package-data"]["buddy_eval.schemas"]
    assert "*.schema.json" in package_data
    on_disk = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert on_disk == [f"{fmt}.schema.json" for fmt in sorted(FORMATS)]
    shipped = resources.files("buddy_eval") / "schemas"
    for name in on_disk:
        assert json.loads(shipped.joinpath(name).read_text(encoding="utf-8")) == json.loads(
            (SCHEMAS / name).read_text(encoding="utf-8")
        )


# --- the key paths -----------------------------------------------------------------------

#: Per format, the objects whose keys are data, by their generalised path: what the key
#: becomes (``metric``: a metric's name becomes ``<metric>``, other keys stay).
VARIABLE_KEYS = {
    "gate": {
        "thresholds": "<metric>",
        "versions": "<label>",
        "versions.<label>": "metric",
        "comparison": "<metric>",
        "comparison.<metric>.trials.item_rates": "<item_id>",
        "violation_upper_bounds": "<label>",
        "missing": "<label>",
        "trials": "<label>",
        "compared.versions": "<label>",
        "compared.versions.<label>": "metric",
        "slices": "<slice>",
        "slices.<slice>.versions": "<label>",
        "slices.<slice>.versions.<label>": "metric",
        "slices.<slice>.comparison": "<metric>",
    },
    "tasks": {
        "runs": "<label>",
        "unpaired": "<label>",
        "slices": "<tier>",
        "slices.<tier>.runs": "<label>",
    },
    "history": {"versions[]": "metric"},
}


def key_paths(fmt: str, document) -> set[str]:
    """Every key path of ``document``, generalised (see VARIABLE_KEYS)."""
    rules = VARIABLE_KEYS[fmt]
    found: set[str] = set()

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                rule = rules.get(path)
                if rule == "metric":
                    key = "<metric>" if key in METRICS else key
                elif rule is not None:
                    key = rule
                child_path = f"{path}.{key}" if path else key
                found.add(child_path)
                walk(child, child_path)
        elif isinstance(value, list):
            for child in value:
                walk(child, f"{path}[]")

    walk(document, "")
    return found


def _format_version(fmt: str, documents) -> int | None:
    versions = {d.get("format_version") for d in documents}
    assert len(versions) == 1, versions
    return versions.pop()


def keys_file(fmt: str, version: int | None) -> Path:
    suffix = "unversioned" if version is None else f"v{version}"
    return SNAPSHOTS / f"json-keys-{fmt}-{suffix}.txt"


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_key_paths_are_pinned_per_format_version(outputs, fmt):
    documents = list(outputs[fmt].values())
    version = _format_version(fmt, documents)
    assert version == CURRENT_VERSION[fmt]
    found = set().union(*(key_paths(fmt, d) for d in documents))
    path = keys_file(fmt, version)
    shown = path.relative_to(ROOT)
    if not path.exists():
        if UPDATE:  # only ever written for a format_version that has no file yet
            path.write_text("".join(f"{k}\n" for k in sorted(found)), encoding="utf-8")
        else:
            pytest.fail(
                f"{shown} does not exist: a new format_version of the {fmt} JSON needs its key "
                "paths pinned. Write it with UPDATE_SNAPSHOTS=1 python -m pytest "
                "tests/test_json_schema.py, keep the older files, and update the schema "
                f"(buddy_eval/schemas/{fmt}.schema.json) and docs/json-schema.md.",
                pytrace=False,
            )
    pinned = set(path.read_text(encoding="utf-8").splitlines())
    how = (
        "bump FORMAT_VERSION in buddy_eval/reporting/_gate_record.py, update the schema's const "
        "and docs/json-schema.md, and pin the new key set in its own file (UPDATE_SNAPSHOTS=1 "
        "writes a missing file; a pinned file is never rewritten)"
        if version is not None
        else f"the {fmt} JSON carries no format_version yet: give it one (and a const in "
        "its schema) before changing its keys, so that consumers can tell the two apart"
    )
    problems = []
    if gone := sorted(pinned - found):
        problems.append(
            f"key paths disappeared from the {fmt} JSON ({shown}): {', '.join(gone)}. "
            f"Every consumer reading them breaks; keep them, or {how}."
        )
    if added := sorted(found - pinned):
        problems.append(
            f"key paths added to the {fmt} JSON without a new format_version ({shown}): "
            f"{', '.join(added)}. To add them, {how}."
        )
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_key_paths_generalise_labels_metrics_and_item_ids():
    document = {
        "versions": {"v1": {"correctness": {"value": 1}, "violations": 0}},
        "comparison": {"refusal": {"trials": {"item_rates": {"q1": ["1/2", None]}}}},
    }
    assert key_paths("gate", document) == {
        "versions",
        "versions.<label>",
        "versions.<label>.<metric>",
        "versions.<label>.<metric>.value",
        "versions.<label>.violations",
        "comparison",
        "comparison.<metric>",
        "comparison.<metric>.trials",
        "comparison.<metric>.trials.item_rates",
        "comparison.<metric>.trials.item_rates.<item_id>",
    }


# --- the documentation -------------------------------------------------------------------


def _doc_section(fmt: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"<!-- keys: {fmt} -->")
    end = text.index(f"<!-- end keys: {fmt} -->")
    return text[start:end]


@pytest.mark.parametrize("fmt", FORMATS)
def test_docs_document_every_key_path(fmt):
    """docs/json-schema.md lists every pinned key path of each format, in backquotes."""
    pinned = keys_file(fmt, CURRENT_VERSION[fmt])
    section = _doc_section(fmt)
    missing = [
        k for k in pinned.read_text(encoding="utf-8").splitlines() if f"`{k}`" not in section
    ]
    assert not missing, f"docs/json-schema.md does not document: {', '.join(missing)}"


def test_docs_link_every_schema():
    text = DOC.read_text(encoding="utf-8")
    for fmt in FORMATS:
        assert f"buddy_eval/schemas/{fmt}.schema.json" in text
