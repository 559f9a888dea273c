"""Benchmark the golden-set doctor against the gate's own time, in the same run.

Usage::

    python -m benchmarks.doctor                  # 100k golden items x 2 versions, 3 repeats
    python -m benchmarks.doctor --items 20000 --repeat 5

On one generated input (:mod:`benchmarks.generate`), times as whole processes
(wall time, the median of ``--repeat`` runs, alternated so both see the same
machine load):

- ``buddy-eval FILE``: the gate;
- ``buddy-eval doctor FILE``: every golden-set check and the result checks
  over both versions (lenient checks on 40 sampled answers per item).

It prints both and their ratio; the doctor must stay within 3x the gate (the
script exits 1 when it does not). A ratio, not a time: the two are measured in
the same run on the same machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.generate import write

OUT = Path(__file__).resolve().parent / "out"

#: The doctor's time may be at most this many times the gate's.
MAX_RATIO = 3.0


def _run(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "buddy_eval", *args], capture_output=True, check=False
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"buddy-eval {' '.join(args)} failed: {proc.stderr.decode()[:500]}")
    return elapsed


def bench(n_items: int, repeat: int) -> dict:
    path = write(OUT / f"doctor_{n_items}.txt", n_items)
    _run([str(path)])  # warm the file cache and the imports
    gate, doctor = [], []
    for _ in range(repeat):
        gate.append(_run([str(path)]))
        doctor.append(_run(["doctor", str(path)]))
    g, d = statistics.median(gate), statistics.median(doctor)
    return {"items": n_items, "gate": g, "doctor": d, "ratio": d / g}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.doctor")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    result = bench(args.items, args.repeat)
    print(f"golden items x 2 versions: {result['items']:,}")
    print(f"buddy-eval FILE         {result['gate']:8.2f} s")
    print(f"buddy-eval doctor FILE  {result['doctor']:8.2f} s")
    print(f"ratio                   {result['ratio']:8.2f} (at most {MAX_RATIO:g})")
    return 0 if result["ratio"] <= MAX_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
