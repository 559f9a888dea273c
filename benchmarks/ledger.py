"""Benchmark the release ledger: recording against the gate alone, history, bytes per row.

Usage::

    python -m benchmarks.ledger                       # 100k items x 2; 50 versions x 10k items
    python -m benchmarks.ledger --items 20000 --history-versions 20 --history-items 5000

Measures, on generated inputs (:mod:`benchmarks.generate`):

- ``buddy-eval FILE`` against ``buddy-eval FILE --ledger NEW`` (whole processes,
  a fresh ledger each run): the seconds recording adds and the ratio;
- ``history`` on a ledger holding ``--history-versions`` versions of
  ``--history-items`` items (every tenth one released): :func:`buddy_eval.history`
  in-process and ``buddy-eval history`` as a whole process;
- the ledger's size per (version, item), with answers and with ``--no-answers``.

Each time is the median of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.generate import write

OUT = Path(__file__).resolve().parent / "out"


def _run(args: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "buddy_eval", *args], capture_output=True, check=False
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"buddy-eval {' '.join(args)} failed: {proc.stderr.decode()}")
    return elapsed


def _median(times: list[float]) -> float:
    return statistics.median(times)


def bench_record(n_items: int, repeat: int, tmp: Path) -> dict:
    path = write(OUT / f"ledger_{n_items}.txt", n_items)
    gate, recorded, sizes = [], [], {}
    for k in range(repeat):
        gate.append(_run([str(path)]))
        ledger = tmp / f"record_{k}.ledger"
        recorded.append(_run([str(path), "--ledger", str(ledger)]))
        sizes["with answers"] = ledger.stat().st_size
    ledger = tmp / "no_answers.ledger"
    _run([str(path), "--ledger", str(ledger), "--no-answers"])
    sizes["without answers"] = ledger.stat().st_size
    g, r = _median(gate), _median(recorded)
    return {
        "items": n_items,
        "gate": g,
        "gate_and_record": r,
        "added": r - g,
        "ratio": r / g,
        "bytes_per_version_item": {k: v / (2 * n_items) for k, v in sizes.items()},
    }


def bench_history(n_versions: int, n_items: int, repeat: int, tmp: Path) -> dict:
    import buddy_eval as be

    labels = tuple(f"v{k:02d}" for k in range(n_versions))
    path = write(OUT / f"ledger_history_{n_versions}x{n_items}.txt", n_items, labels)
    ledger = tmp / "history.ledger"
    data = be.load(path)
    start = time.perf_counter()
    be.record(be.evaluate(data, labels[0], labels[1]), ledger, date="2026-01-01", by="bench")
    build = time.perf_counter() - start
    for k in range(0, n_versions, 10):
        be.release(ledger, labels[k], date="2026-01-01", by="bench")  # never gated: no override
    inprocess = []
    for _ in range(repeat):
        start = time.perf_counter()
        found = be.history(ledger)
        inprocess.append(time.perf_counter() - start)
    assert len(found.items) == int((data.trial_counts > 0).sum())  # one row per observation
    process = [_run(["history", "--ledger", str(ledger)]) for _ in range(repeat)]
    return {
        "versions": n_versions,
        "items": n_items,
        "record_all": build,
        "history_in_process": _median(inprocess),
        "history_process": _median(process),
        "bytes_per_version_item": ledger.stat().st_size / (n_versions * n_items),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ledger")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--history-versions", type=int, default=50)
    parser.add_argument("--history-items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        record = bench_record(args.items, args.repeat, tmp)
        print(
            f"record {record['items']:,} items x 2 versions: gate {record['gate']:.2f} s, "
            f"gate + ledger {record['gate_and_record']:.2f} s, adds {record['added']:.2f} s "
            f"(ratio {record['ratio']:.2f})"
        )
        for what, size in record["bytes_per_version_item"].items():
            print(f"  ledger bytes per (version, item), {what}: {size:.0f}")
        history = bench_history(args.history_versions, args.history_items, args.repeat, tmp)
        print(
            f"history over {history['versions']} versions x {history['items']:,} items: "
            f"{history['history_in_process']:.2f} s in-process, "
            f"{history['history_process']:.2f} s as `buddy-eval history` "
            f"(recording them all: {history['record_all']:.2f} s; "
            f"{history['bytes_per_version_item']:.0f} bytes per (version, item))"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
