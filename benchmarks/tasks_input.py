"""How long the tasks scorer takes to check large golden sets and run records.

Times :func:`buddy_eval.tasks.build_run` (100,000 records) and
:func:`buddy_eval.tasks.build_golden` (50,000 tasks of three checks), best of
five, in this checkout and, with ``--rev``, at another revision measured in
the same run (its package exported with ``git archive``), with the ratio::

    python -m benchmarks.tasks_input                 # this checkout
    python -m benchmarks.tasks_input --rev HEAD~3    # against a baseline revision
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDS, TASKS, REPEATS = 100_000, 50_000, 5


def _inputs() -> tuple[list, list]:
    records = [
        {
            "task_id": f"t{i}",
            "golden_id": f"g{i}",
            "status": "completed",
            "model": "m",
            "result_text": "ok é",
            "total_tokens": 5,
            "usd_micros": 3,
            "unpriced_tokens": 0,
        }
        for i in range(RECORDS)
    ]
    checks = [
        {"type": "contains", "value": "x"},
        {"type": "max_cost_usd", "value": 0.02},
        {"type": "status_completed"},
    ]
    golden = [
        {"id": f"g{i}", "prompt": "p", "tier": "basic", "checks": checks} for i in range(TASKS)
    ]
    return records, golden


def measure() -> dict[str, float]:
    """Best-of-five seconds of each step, with the package found on sys.path."""
    from buddy_eval import tasks

    records, golden = _inputs()
    best = {"build_run": float("inf"), "build_golden": float("inf")}
    for _ in range(REPEATS):
        start = time.perf_counter()
        tasks.build_run(records, label="a")
        middle = time.perf_counter()
        tasks.build_golden(golden)
        end = time.perf_counter()
        best["build_run"] = min(best["build_run"], middle - start)
        best["build_golden"] = min(best["build_golden"], end - middle)
    return best


def _at(rev: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "buddy_eval"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        code = "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]);"
        code += "from benchmarks.tasks_input import measure; print(json.dumps(measure()))"
        out = subprocess.run(
            [sys.executable, "-c", code, folder, str(ROOT)],
            check=True,
            capture_output=True,
            text=True,
            cwd=folder,
        ).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a baseline revision, measured in the same run")
    args = parser.parse_args()
    here = measure()
    base = _at(args.rev) if args.rev else None
    print(f"{'step':14}{'this checkout':>15}" + (f"{args.rev:>15}{'ratio':>8}" if base else ""))
    for step, seconds in here.items():
        line = f"{step:14}{seconds:>14.3f}s"
        if base:
            line += f"{base[step]:>14.3f}s{seconds / base[step]:>8.2f}"
        print(line)


if __name__ == "__main__":
    main()
