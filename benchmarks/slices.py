"""What slices cost the gate: ``python -m benchmarks.slices [--items N] [--slices K] [--repeat R]``.

On one generated input (100,000 golden items x 2 versions by default) and one slices file
(50 slices, every golden item assigned), in one run and in one process, best of R:

- ``gate``: load, score, decide and the paired statistics (what ``--details`` computes);
- ``gate+slices``: the same with ``--slices`` and ``--slice-rule drop``: reading the slices
  file, every slice's counts and paired figures, Holm across the slices, the slice checks.

It prints both times and the slices' share of the gate's time, ``(gate+slices - gate) / gate``,
and exits 1 when that share is above the budget (20%). The time is the wall-clock time a
user waits; the CPU time of the process is printed beside it, because the slices file is
read and set against the golden items on the other core while the gate loads and scores
(on one core the share is the CPU one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks.generate import write

OUT = Path(__file__).parent / "out"
BUDGET = 0.20


def _slices_file(data_path: Path, n_items: int, n_slices: int) -> Path:
    """Every golden item of the input in one of ``n_slices`` slices, round robin by line."""
    from buddy_eval import load

    ids = load(data_path).golden["item_id"].tolist()
    assert len(ids) == n_items
    path = OUT / f"slices-{n_items}-{n_slices}.csv"
    lines = ["id,slice", *(f"{item},slice {k % n_slices:02d}" for k, item in enumerate(ids))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _gate(data_path: Path, slices: Path | None) -> tuple[float, float]:
    from buddy_eval import Settings, evaluate
    from buddy_eval.stats._proportions import _MCNEMAR

    _MCNEMAR.clear()  # every run computes its p-values, as a fresh process does
    start, cpu = time.perf_counter(), time.process_time()
    if slices is None:
        ev = evaluate(str(data_path))
    else:
        ev = evaluate(str(data_path), settings=Settings(slice_rule="drop"), slices=str(slices))
        assert ev.slices is not None
    ev.paired  # noqa: B018 - the statistics --details shows
    ev.report()
    return time.perf_counter() - start, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.slices")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--slices", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--one-thread",
        action="store_true",
        help="run the steps the gate shares between two threads one after the other",
    )
    args = parser.parse_args(argv)
    if args.one_thread:
        import buddy_eval._kernels as kernels

        kernels.in_parallel = lambda first, second: (first(), second())
    data_path = write(OUT / f"gate-{args.items}.txt", args.items)
    slices = _slices_file(data_path, args.items, args.slices)
    _gate(data_path, slices)  # warm: imports and scipy's first calls
    plain, sliced = [], []
    for _ in range(args.repeat):  # interleaved, so both see the same machine load
        plain.append(_gate(data_path, None))
        sliced.append(_gate(data_path, slices))
    gate, with_slices = min(t for t, _ in plain), min(t for t, _ in sliced)
    gate_cpu, with_cpu = min(c for _, c in plain), min(c for _, c in sliced)
    share, cpu_share = (with_slices - gate) / gate, (with_cpu - gate_cpu) / gate_cpu
    threads = "one thread" if args.one_thread else "two threads"
    print(f"items={args.items} slices={args.slices} repeat={args.repeat} {threads} (best of each)")
    print(f"              {'wall':>8}   {'cpu':>8}")
    print(f"gate          {gate:8.3f} s {gate_cpu:8.3f} s")
    print(f"gate+slices   {with_slices:8.3f} s {with_cpu:8.3f} s")
    print(f"slices' share {share:8.1%}   {cpu_share:8.1%}   (budget {BUDGET:.0%} of the wall time)")
    return 0 if share <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
