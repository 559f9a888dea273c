"""Builders shared by the ``test_tasks_*`` modules (no tests here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
EXAMPLE = {
    "golden": DATA / "golden-tasks.example.json",
    "a": DATA / "run-a.example.json",
    "b": DATA / "run-b.example.json",
}


def check(kind: str, value=None) -> dict:
    """One check object; ``status_completed`` takes no value."""
    return {"type": kind} if value is None else {"type": kind, "value": value}


def task(golden_id: str, *checks: dict, prompt: str = "Explain it.", tier: str = "basic") -> dict:
    return {"id": golden_id, "prompt": prompt, "tier": tier, "checks": list(checks)}


def record(
    task_id: str,
    golden_id: str,
    text: str | None = "answer",
    *,
    status: str = "completed",
    tokens: int | None = 100,
    usd: int | None = 1000,
    unpriced: int | None = 0,
    model: str | None = "m1",
) -> dict:
    return {
        "task_id": task_id,
        "golden_id": golden_id,
        "model": model,
        "status": status,
        "result_text": text,
        "total_tokens": tokens,
        "usd_micros": usd,
        "unpriced_tokens": unpriced,
    }


def write_json(path: Path, value) -> Path:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return path


def run_tasks_cli(*args, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python -m buddy_eval tasks ARGS`` as a user runs it; bytes out."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    return subprocess.run(
        [sys.executable, "-m", "buddy_eval", "tasks", *map(str, args)],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def paired_runs(score_pairs: list[tuple[int, int]], checks_per_task: int = 4):
    """Golden tasks and two runs whose per-task passed counts are ``score_pairs``.

    Task i has ``checks_per_task`` contains checks ``k0``, ``k1``, ...; a run
    passes the first ``p`` of them by naming them in its text.
    """
    golden = [
        task(f"g{i:02d}", *(check("contains", f"<k{j}>") for j in range(checks_per_task)))
        for i in range(len(score_pairs))
    ]

    def text(p: int) -> str:
        return " ".join(f"<k{j}>" for j in range(p)) or "nothing"

    run_a = [record(f"a{i}", f"g{i:02d}", text(pa)) for i, (pa, _) in enumerate(score_pairs)]
    run_b = [record(f"b{i}", f"g{i:02d}", text(pb)) for i, (_, pb) in enumerate(score_pairs)]
    return golden, run_a, run_b
