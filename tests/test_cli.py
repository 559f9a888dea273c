"""The command line as a user meets it: output, exit status, errors, options."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import DATA, ROOT, run_cli

SEED_OUT = (
    b"OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0\n"
    b"NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1\n"
    b"BLOCK: refusal below threshold; integrity violations; regression in refusal\n"
)


def test_example_file_prints_the_seed_report():
    proc = run_cli(DATA / "example.txt")
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, SEED_OUT, b"")


def test_stdin_dash():
    proc = run_cli("-", stdin=(DATA / "example.txt").read_bytes())
    assert (proc.returncode, proc.stdout) == (1, SEED_OUT)


def test_stdin_errors_name_stdin():
    proc = run_cli("-", stdin=b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 x a\n")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == b"buddy-eval: error: <stdin>:4: refused flag must be Y or N, got 'x'\n"


def test_release_exits_zero(write):
    path = write("THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    proc = run_cli(path)
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines()[-1] == "RELEASE"


def test_sample_release_data_runs_and_blocks():
    proc = run_cli(DATA / "sample_release.txt")
    assert proc.returncode == 1
    out = proc.stdout.decode().splitlines()
    assert len(out) == 3 and out[2].startswith("BLOCK: ")
    assert b"warning: " in proc.stderr  # the sample has a missing result on purpose


def test_baseline_and_candidate_options(write):
    path = write("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nv1 q1 L1 N a\nv2 q1 L1 N a\n")
    proc = run_cli("--baseline", "v1", "--candidate", "v2", path)
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines()[0].startswith("v1: correctness 1.00")


def test_unknown_label_is_an_input_error(write):
    path = write("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q1 L1 N a\n")
    proc = run_cli("--candidate", "RC1", path)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (
        f"buddy-eval: error: {path}:3: no result lines for the candidate version 'RC1' "
        "(versions found: 'OLD', 'NEW')\n"
    )


def test_warnings_go_to_stderr_and_stdout_stays_canonical(write):
    path = write(
        "THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nq2 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\n"
        "OLD q2 L1 N a\nNEW q1 L1 N a\nNEW q7 L1 N a\n"
    )
    proc = run_cli(path)
    assert proc.stdout.decode().splitlines()[1] == (
        "NEW: correctness 0.50 citation 0.50 refusal n/a violations 0"
    )
    assert proc.stderr.decode().splitlines() == [
        f"buddy-eval: warning: {path}:8: result for id 'q7' (version 'NEW') is not in the "
        "golden set and is ignored",
        f"buddy-eval: warning: {path}:3: golden item 'q2' has no result for version 'NEW'; "
        "it counts as failed",
    ]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xff\xfeT\x00H\x00",  # UTF-16
        b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\n",
        b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nNEW q1 L1 N a\n",
        b"THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\n",
        b"\x00\x01\x02",
        b"THRESHOLDS 1e999 0 0\nRESULTS\n",
    ],
)
def test_bad_input_never_gives_a_traceback(write, content):
    proc = run_cli(write(content))
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.startswith("buddy-eval: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_missing_file(tmp_path):
    proc = run_cli(tmp_path / "absent.txt")
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        f"buddy-eval: error: {tmp_path / 'absent.txt'}: cannot read input file: "
        "No such file or directory\n"
    )


def test_non_ascii_labels_print_as_utf8(write):
    path = write("THRESHOLDS 0 0 0\nq1 ANSWER L1 a\nRESULTS\nält q1 L1 N a\nneü q1 L1 N a\n")
    proc = run_cli("--baseline", "ält", "--candidate", "neü", path)
    assert proc.stdout.decode("utf-8").splitlines()[0].startswith("ält: correctness 1.00")


def test_usage_errors_exit_2_with_one_line():
    proc = run_cli()
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr == (
        b"buddy-eval: error: the following arguments are required: INPUT; see 'buddy-eval --help'\n"
    )


def test_help_explains_format_and_exit_codes():
    proc = run_cli("--help")
    out = proc.stdout.decode()
    assert proc.returncode == 0
    for needle in (
        "THRESHOLDS <correctness> <citation> <refusal>",
        "RESULTS",
        "0  RELEASE",
        "1  BLOCK",
        "2  input or usage error",
        "3  could not finish",
        "--baseline",
        "--candidate",
    ):
        assert needle in out


def test_console_script_is_installed():
    script = ROOT / ".venv" / "bin" / "buddy-eval"
    if not script.exists():
        pytest.skip("not running from the project's .venv")
    proc = subprocess.run([script, DATA / "example.txt"], capture_output=True)
    assert (proc.returncode, proc.stdout) == (1, SEED_OUT)


def _heavy_modules_after(args: list[str]) -> str:
    """Run the console entry point in a fresh process; its status and heavy imports."""
    code = (
        "import sys, io\n"
        "from buddy_eval._cli import main\n"
        "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"rc = main({args!r}, lean=True)\n"
        "heavy = sorted(m for m in ('pandas', 'matplotlib', 'scipy', 'IPython', 'jupyter_client',"
        " 'nbformat', 'papermill') if m in sys.modules)\n"
        "sys.stderr.write(repr((rc, heavy)))\n"
    )
    err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stderr
    return err.splitlines()[-1]  # after the gate's warnings


def test_plain_gate_imports_no_pandas_plotting_notebook_or_scipy():
    assert _heavy_modules_after([str(DATA / "example.txt")]) == "(1, [])"
    assert _heavy_modules_after([str(DATA / "sample_release.txt")]) == "(1, [])"


def test_details_still_get_pandas_and_scipy_from_the_console_entry():
    out = _heavy_modules_after(["--details", str(DATA / "example.txt")])
    assert out.startswith("(1, ['pandas',") and "'scipy'" in out


def test_console_entry_point_and_module_give_the_same_run():
    text = (DATA / "example.txt").read_bytes()
    proc = subprocess.run(
        [sys.executable, "-c", "from buddy_eval._cli import console_main; console_main()", "-"],
        input=text,
        capture_output=True,
    )
    assert (proc.returncode, proc.stdout) == (1, SEED_OUT)


def test_version_prints_the_package_version():
    import buddy_eval as be
    from tests.conftest import run_cli

    proc = run_cli("--version")
    assert (proc.returncode, proc.stdout.decode(), proc.stderr) == (
        0,
        f"buddy-eval {be.__version__}\n",
        b"",
    )


def test_tasks_takes_min_paired_as_the_gate_does():
    import json

    from tests.conftest import DATA, run_cli

    files = [
        "--golden",
        DATA / "golden-tasks.example.json",
        "--run-a",
        DATA / "run-a.example.json",
        "--run-b",
        DATA / "run-b.example.json",
    ]
    default = json.loads(run_cli("tasks", *files, "--format", "json").stdout)
    lowered = json.loads(run_cli("tasks", *files, "--format", "json", "--min-paired", "1").stdout)
    assert json.dumps(default, sort_keys=True) != json.dumps(lowered, sort_keys=True)
    bad = run_cli("tasks", *files, "--min-paired", "0")
    assert bad.returncode == 2 and b"expected a whole number >= 1, got '0'" in bad.stderr
