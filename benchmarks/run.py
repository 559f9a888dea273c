"""Benchmark the release gate against a plain-Python scorer and a DuckDB query.

Usage::

    make bench                                   # or: python -m benchmarks.run
    python -m benchmarks.run --sizes 10000,100000 --repeat 3
    python -m benchmarks.run --sizes '' --trials-sizes 500000 --trials 5   # trials only

For each size (golden items; two versions, OLD and NEW) the runner writes a
generated input to ``benchmarks/out/`` (see :mod:`benchmarks.generate`) and,
in one run on the same file, measures as fresh subprocesses:

- ``buddy-eval FILE`` (the whole process: interpreter start, imports, load,
  score, report), wall time and peak RSS;
- the plain-Python oracle (``tests/oracle.py``, one loop over the lines);
- one DuckDB SQL query over the file (:mod:`benchmarks.duck`), whole process
  and the query alone;
- the gate's stages (load, score, report) timed in-process by
  :mod:`benchmarks.stages`.

Each figure is the median of ``--repeat`` runs; ratios divide buddy-eval's
process time by each baseline's. Peak memory is ``ru_maxrss`` of the child.
The runner fails (exit status 1) unless buddy-eval's stdout is byte-identical
to the oracle's, and the DuckDB report equal to it, on every size. It also
times the CLI on ``data/example.txt`` against ``python -c "import pandas"``.

Repeated trials: for each of ``--trials-sizes`` (golden items; ``--trials``
trials per (version, item), see :func:`benchmarks.generate.generate`), the
same figures on one generated file: ``buddy-eval --trials FILE``, the oracle
with trial semantics (``oracle.run(..., trials=True)``; one run, as it takes
minutes), the DuckDB query with trials (``benchmarks.duck --trials``) and the
stages; the same byte-identical check, in a second table.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.generate import write

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
PY = sys.executable
DEFAULT_SIZES = (10_000, 100_000, 500_000, 1_000_000)
DEFAULT_TRIAL_SIZES = (500_000,)
DEFAULT_TRIALS = 5


def _bin(name: str) -> str:
    script = Path(PY).with_name(name)
    return str(script) if script.exists() else name


def measure(cmd: list[str]) -> tuple[float, float, bytes, bytes]:
    """Run ``cmd`` once: (wall seconds, peak RSS MiB, stdout, stderr)."""
    # A fresh interpreter between measurements, so ru_maxrss of this child is its own:
    # RUSAGE_CHILDREN keeps the maximum over all children, hence the extra fork.
    probe = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "t = time.perf_counter() - t\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.buffer.write(p.stderr)\n"
        "sys.stderr.write(f'\\n@@ {t!r} {rss} {p.returncode}\\n')\n"
        "sys.stdout.buffer.write(p.stdout)\n"
    )
    proc = subprocess.run(
        [PY, "-c", probe, *cmd], capture_output=True, cwd=ROOT, env={**os.environ}
    )
    err, _, tail = proc.stderr.rpartition(b"\n@@ ")
    seconds, rss_kib, _ = tail.split()
    return float(seconds), int(rss_kib) / 1024, proc.stdout, err


def median_of(cmd: list[str], repeat: int):
    runs = [measure(cmd) for _ in range(repeat)]
    return (
        statistics.median(r[0] for r in runs),
        statistics.median(r[1] for r in runs),
        runs[0][2],
        [r[3] for r in runs],
    )


def _query_seconds(stderr: bytes) -> float:
    for line in stderr.decode().splitlines():
        if line.startswith("query_seconds="):
            return float(line.split("=", 1)[1])
    raise RuntimeError(f"DuckDB baseline failed:\n{stderr.decode()}")


def _stage_seconds(stdout: bytes) -> dict[str, float]:
    return {k: float(v) for k, v in (p.split("=") for p in stdout.decode().split())}


def bench_size(n_items: int, repeat: int, trials: int = 1) -> dict:
    suffix = f"_x{trials}" if trials > 1 else ""
    path = write(OUT / f"items_{n_items}{suffix}.txt", n_items, trials=trials)
    size_mb = path.stat().st_size / 1e6
    with path.open("rb") as f:
        lines = sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 24), b""))
    flag = ["--trials"] if trials > 1 else []
    gate_s, gate_mb, gate_out, _ = median_of([_bin("buddy-eval"), *flag, str(path)], repeat)
    oracle_s, oracle_mb, oracle_out, _ = median_of(
        [
            PY,
            "-c",
            "import sys; from tests import oracle; "
            "out, rc = oracle.run(open(sys.argv[1], 'rb').read(), trials=len(sys.argv) > 2); "
            "sys.stdout.write(out)",
            str(path),
            *flag,
        ],
        1 if trials > 1 else repeat,
    )
    duck_s, duck_mb, duck_out, duck_err = median_of(
        [PY, "-m", "benchmarks.duck", *flag, str(path)], repeat
    )
    query_s = statistics.median(_query_seconds(e) for e in duck_err)
    stage_runs = [
        _stage_seconds(measure([PY, "-m", "benchmarks.stages", *flag, str(path)])[2])
        for _ in range(repeat)
    ]
    stages = {k: statistics.median(r[k] for r in stage_runs) for k in stage_runs[0]}
    if gate_out != oracle_out or not gate_out:
        raise SystemExit(
            f"FAIL: buddy-eval and the oracle disagree on {path}:\n"
            f"buddy-eval:\n{gate_out.decode()}\noracle:\n{oracle_out.decode()}"
        )
    if duck_out != oracle_out:
        raise SystemExit(
            f"FAIL: the DuckDB query and the oracle disagree on {path}:\n"
            f"duckdb:\n{duck_out.decode()}\noracle:\n{oracle_out.decode()}"
        )
    return {
        "items": n_items,
        "trials": trials,
        "lines": lines,
        "mb": size_mb,
        "gate_s": gate_s,
        "gate_mb": gate_mb,
        "oracle_s": oracle_s,
        "oracle_mb": oracle_mb,
        "duck_s": duck_s,
        "query_s": query_s,
        "duck_mb": duck_mb,
        **stages,
    }


def small_input(repeat: int) -> tuple[float, float]:
    example = str(ROOT / "data" / "example.txt")
    gate = statistics.median(measure([_bin("buddy-eval"), example])[0] for _ in range(repeat))
    pandas = statistics.median(measure([PY, "-c", "import pandas"])[0] for _ in range(repeat))
    return gate, pandas


def table(rows: list[dict], trials: bool = False) -> str:
    head = (
        ("| golden items × 2 × trials" if trials else "| golden items × 2")
        + " | lines | MB | buddy-eval s | load / score / report s | peak MiB "
        "| oracle s | oracle MiB | DuckDB process s (query s) | DuckDB MiB "
        "| × faster than oracle | vs DuckDB query | vs DuckDB process |"
    )
    out = [head, "|" + "---|" * 13]
    for r in rows:
        label = f"{r['items']:,} × {r['trials']}" if trials else f"{r['items']:,}"
        out.append(
            f"| {label} | {r['lines']:,} | {r['mb']:.0f} | {r['gate_s']:.2f} "
            f"| {r['load']:.2f} / {r['score']:.2f} / {r['report']:.3f} | {r['gate_mb']:.0f} "
            f"| {r['oracle_s']:.2f} | {r['oracle_mb']:.0f} "
            f"| {r['duck_s']:.2f} ({r['query_s']:.2f}) | {r['duck_mb']:.0f} "
            f"| {r['oracle_s'] / r['gate_s']:.1f} | {r['gate_s'] / r['query_s']:.2f} "
            f"| {r['gate_s'] / r['duck_s']:.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--sizes",
        default=",".join(map(str, DEFAULT_SIZES)),
        help="comma-separated numbers of golden items (default: %(default)s)",
    )
    parser.add_argument(
        "--trials-sizes",
        default=",".join(map(str, DEFAULT_TRIAL_SIZES)),
        help="comma-separated numbers of golden items of the repeated-trials inputs "
        "(default: %(default)s; empty for none)",
    )
    parser.add_argument(
        "--trials",
        type=int,
        default=DEFAULT_TRIALS,
        help="trials per (version, item) of those inputs (default: %(default)s)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s]
    trial_sizes = [int(s.replace("_", "")) for s in args.trials_sizes.split(",") if s]
    try:
        import duckdb  # noqa: F401
    except ImportError:
        print("the DuckDB baseline needs the bench extra: pip install -e '.[dev,bench]'")
        return 2

    started = time.perf_counter()
    rows = []
    for n in sizes:
        rows.append(bench_size(n, args.repeat))
        r = rows[-1]
        print(
            f"{n:>9,} items: buddy-eval {r['gate_s']:.2f} s {r['gate_mb']:.0f} MiB, "
            f"oracle {r['oracle_s']:.2f} s, DuckDB {r['duck_s']:.2f} s "
            f"(query {r['query_s']:.2f} s); reports identical",
            flush=True,
        )
    trial_rows = []
    for n in trial_sizes:
        trial_rows.append(bench_size(n, args.repeat, args.trials))
        r = trial_rows[-1]
        print(
            f"{n:>9,} items x {args.trials} trials: buddy-eval --trials {r['gate_s']:.2f} s "
            f"{r['gate_mb']:.0f} MiB, oracle {r['oracle_s']:.2f} s, DuckDB {r['duck_s']:.2f} s "
            f"(query {r['query_s']:.2f} s) {r['duck_mb']:.0f} MiB; reports identical",
            flush=True,
        )
    gate, pandas = small_input(max(args.repeat, 5))
    if rows:
        print()
        print(table(rows))
    if trial_rows:
        print()
        print("Repeated trials (buddy-eval --trials; the oracle's time is one run):")
        print()
        print(table(trial_rows, trials=True))
    print()
    print(
        f"data/example.txt: buddy-eval {gate:.3f} s; python -c 'import pandas' {pandas:.3f} s "
        f"(ratio {gate / pandas:.2f})"
    )
    print(
        f"medians of {args.repeat} runs; {os.cpu_count()} CPUs; "
        f"benchmark took {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
