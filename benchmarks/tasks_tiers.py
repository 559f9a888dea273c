"""What the tiers cost the tasks comparison: ``python -m benchmarks.tasks_tiers [--tasks N]
[--tiers K] [--repeat R]``.

On one generated golden set (20,000 tasks of two checks, a third of the token counts
missing, so that tasks go unscored) and two runs, in one run and in one process, best of R:

- :func:`buddy_eval.tasks.compare_runs`, and of it the tier figures alone
  (:func:`buddy_eval.tasks._tiers.tier_figures` on the comparison's frames, checked equal),
- with every task in one tier, spread round robin over K tiers (default 50), and over N / 10
  tiers (ten tasks each, none ready for a decision).

It prints the times and the tiers' cost as a share of the rest of the comparison, ``tiers /
(comparison - tiers)``, and exits 1 when the K-tier share is above the budget (25%).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

BUDGET = 0.25


def _inputs(n: int, n_tiers: int, seed: int = 7) -> tuple[list, list, list]:
    rng = random.Random(seed)
    checks = [{"type": "contains", "value": "ok"}, {"type": "max_tokens", "value": 100}]
    golden = [
        {"id": f"g{i}", "prompt": "p", "tier": f"tier {i % n_tiers}", "checks": checks}
        for i in range(n)
    ]
    runs = [
        [
            {
                "task_id": f"{run}{i}",
                "golden_id": f"g{i}",
                "status": "completed",
                "model": "m",
                "result_text": rng.choice(["ok", "no"]),
                "total_tokens": rng.choice([None, 50, 500]),
                "usd_micros": 1,
                "unpriced_tokens": 0,
            }
            for i in range(n)
        ]
        for run in "ab"
    ]
    return golden, runs[0], runs[1]


def _best(n: int, n_tiers: int, repeat: int) -> tuple[float, float]:
    """Best of ``repeat``: the whole comparison, and its tier figures alone."""
    from buddy_eval import tasks
    from buddy_eval.tasks._tiers import tier_figures

    golden, run_a, run_b = _inputs(n, n_tiers)
    loaded = tasks.load_golden(golden), tasks.load_run(run_a, "A"), tasks.load_run(run_b, "B")
    whole = tiers = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        c = tasks.compare_runs(*loaded)
        whole = min(whole, time.perf_counter() - start)
        assert len(c.tiers.tiers) == n_tiers
        start = time.perf_counter()
        again = tier_figures(
            c.golden.tasks, c.scores, c.pairs, c.labels, c.run_summaries, c.paired.n, c.settings
        )
        tiers = min(tiers, time.perf_counter() - start)
        assert again == c.tiers
    return whole, tiers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tasks_tiers")
    parser.add_argument("--tasks", type=int, default=20_000)
    parser.add_argument("--tiers", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"tasks comparison, {args.tasks} tasks x 2 runs, best of {args.repeat}")
    costs = {}
    for k in (1, args.tiers, args.tasks // 10):
        whole, tiers = _best(args.tasks, k, args.repeat)
        costs[k] = tiers / (whole - tiers)
        print(
            f"  {k:>5} tiers: comparison {whole:6.3f} s, of it the tiers {tiers:6.3f} s: "
            f"{costs[k]:.0%} of the rest"
        )
    if costs[args.tiers] > BUDGET:
        print(
            f"the {args.tiers} tiers cost {costs[args.tiers]:.0%}, over the budget of {BUDGET:.0%}"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
