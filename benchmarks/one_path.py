"""Whole gate commands of this checkout against another revision, measured in one run.

Times, as fresh processes, the commands a release gate runs, on generated
inputs (:mod:`benchmarks.generate`):

- on ``--items`` golden items (default 100,000; two versions, one result
  each): ``buddy-eval FILE``, ``buddy-eval --details FILE`` and
  ``buddy-eval --format json FILE``;
- on ``--trial-items`` golden items (default 500,000) with up to
  ``--trials`` trials per (version, item) (default 5):
  ``buddy-eval --trials --details FILE``.

Each command runs ``--repeat`` times (default 5; the trials command
``--trial-repeat`` times, default 3) in this checkout and at
``--rev`` (default ``HEAD``; its package exported with ``git archive`` into
a temporary folder), the two alternating so that both see the same load.
The table gives the median wall seconds of each and the ratio (this
checkout over the revision; below 1.0 is faster), then the same for the
CPU seconds (user + system) of the process, which a busy machine disturbs
less than the wall time. The run stops with an error unless
both print the same bytes and exit with the same status; with
``--outputs-may-differ`` (a revision from before a deliberate change of an
output, such as the golden-set health line of ``--details`` and JSON) only
the exit status must agree, and the commands whose outputs differ are marked::

    python -m benchmarks.one_path --rev main
    python -m benchmarks.one_path --rev HEAD~2 --items 20000 --trial-items 50000 --repeat 3
    python -m benchmarks.one_path --rev cb8d704 --outputs-may-differ --repeat 9
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.generate import write

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
# The console entry point itself (pandas kept out, as with the installed script).
_GATE = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from buddy_eval._cli import console_main; console_main()"
)


def _export(rev: str, folder: str) -> None:
    """The package of ``rev`` (buddy_eval/) written into ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "buddy_eval"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)


def _run(package_root: str, args: list[str]) -> tuple[float, float, bytes, int]:
    """One whole process of the gate under ``package_root``: (wall s, CPU s, stdout, status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _GATE, package_root, *args],
        capture_output=True,
        cwd=package_root,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"FAIL: {' '.join(args)} exited with {proc.returncode} under {package_root}:\n"
            + proc.stderr.decode(errors="replace")
        )
    return seconds, cpu, proc.stdout, proc.returncode


def compare(
    name: str, args: list[str], base_root: str, repeat: int, may_differ: bool = False
) -> dict:
    """Median wall and CPU seconds of ``args`` at the revision and here, alternating runs."""
    runs: dict[str, list[tuple[float, float]]] = {"base": [], "here": []}
    outputs = {}
    for _ in range(repeat):
        for side, root in (("base", base_root), ("here", str(ROOT))):
            seconds, cpu, out, status = _run(root, args)
            runs[side].append((seconds, cpu))
            outputs[side] = (out, status)
    if outputs["base"][1] != outputs["here"][1]:
        raise SystemExit(f"FAIL: {name}: this checkout and the revision exit differently")
    differ = outputs["base"][0] != outputs["here"][0]
    if differ and not may_differ:
        raise SystemExit(f"FAIL: {name}: this checkout and the revision print different outputs")
    row: dict = {"command": name + (" *" if differ else "")}
    for side, times in runs.items():
        row[side] = statistics.median(t[0] for t in times)
        row[side + "_cpu"] = statistics.median(t[1] for t in times)
    row["ratio"] = row["here"] / row["base"]
    row["cpu_ratio"] = row["here_cpu"] / row["base_cpu"]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.one_path", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--rev", default="HEAD", help="the baseline revision (default: HEAD)")
    parser.add_argument("--items", type=int, default=100_000, help="golden items, one trial")
    parser.add_argument(
        "--trial-items", type=int, default=500_000, help="golden items of the trials input"
    )
    parser.add_argument("--trials", type=int, default=5, help="trials per (version, item)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument(
        "--trial-repeat", type=int, default=3, help="runs of the trials command (median)"
    )
    parser.add_argument(
        "--outputs-may-differ",
        action="store_true",
        help="time commands whose output changed since the revision (marked *)",
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    one = str(write(OUT / f"items_{args.items}.txt", args.items))
    many = str(
        write(
            OUT / f"items_{args.trial_items}_x{args.trials}.txt",
            args.trial_items,
            trials=args.trials,
        )
    )
    commands = [
        (f"buddy-eval FILE ({args.items:,} items)", [one], args.repeat),
        (f"buddy-eval --details FILE ({args.items:,} items)", ["--details", one], args.repeat),
        (
            f"buddy-eval --format json FILE ({args.items:,} items)",
            ["--format", "json", one],
            args.repeat,
        ),
        (
            f"buddy-eval --trials --details FILE ({args.trial_items:,} items x {args.trials})",
            ["--trials", "--details", many],
            args.trial_repeat,
        ),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        _export(args.rev, folder)
        for name, command, repeat in commands:
            rows.append(compare(name, command, folder, repeat, args.outputs_may_differ))
            r = rows[-1]
            print(f"{name}: {r['base']:.2f} s -> {r['here']:.2f} s", file=sys.stderr, flush=True)
    width = max(len(r["command"]) for r in rows)
    print(
        f"{'command':{width}}  {args.rev:>10}  {'checkout':>10}  {'ratio':>6}"
        f"  {'CPU ' + args.rev:>12}  {'CPU checkout':>12}  {'ratio':>6}"
    )
    for r in rows:
        print(
            f"{r['command']:{width}}  {r['base']:>9.3f}s  {r['here']:>9.3f}s  {r['ratio']:>6.3f}"
            f"  {r['base_cpu']:>11.3f}s  {r['here_cpu']:>11.3f}s  {r['cpu_ratio']:>6.3f}"
        )
    differ = any(r["command"].endswith(" *") for r in rows)
    print(
        f"medians of {args.repeat} runs each ({args.trial_repeat} with trials), alternating; "
        + ("* outputs differ from the revision; others " if differ else "")
        + "outputs identical; "
        f"{os.cpu_count()} CPUs; took {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
