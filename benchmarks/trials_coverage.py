"""Coverage, type-I error and power of the repeated-trials intervals, by simulation.

Run ``python -m benchmarks.trials_coverage`` (``--replicates N``, default
2000; ``--seed S``). Every figure goes through the gate's own interval
functions (:func:`buddy_eval.stats._effective.rate_interval_from_sums` and
:func:`~buddy_eval.stats._effective.paired_interval_from_sums`, the functions
``--trials`` uses, fed the sufficient statistics of each simulated dataset);
only the drawing of the datasets and the sums over items are vectorised with
numpy. For comparison the tables also show the previous interval (the
variance bound ``p(1-p)/m`` with phi from the rates' cross products) and the
textbook item-level interval (mean of the item rates +/- t * s / sqrt(m)).

The populations of items (each item has a true pass probability; its trials
are independent given it):

- ``mixed``: 15% of items always pass, 10% always fail, the rest Beta(3, 2)
  (mean rate 0.75);
- ``extreme``: 60% always pass, the rest Beta(8, 1) (mean rate 0.956).

The candidate keeps the baseline's probability on 70% of the items and draws
a fresh one from the same population on the others (equal true means, item
rates correlated). Trial counts are unequal: with k trials, each item has k
trials with probability 0.8, else a uniform count from 1 to k (per version).

Tables:

1. coverage of the candidate's rate and of the difference (target 0.95);
2. non-inferiority type-I error at a true difference of -margin (the
   candidate's probabilities scaled so the mean drops by exactly the
   margin), margin 0.05 (target at most 0.05);
3. power (RELEASE rate) with equal versions, margins 0.02 and 0.05, and
   the 400-item, 5-trial, 0.1 + 0.8 Beta(2, 2) case.

The Monte Carlo standard error of a share near 0.95 over 2000 replicates is
0.005.
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

import numpy as np

from buddy_eval.stats._effective import (
    PairedSums,
    RateSums,
    paired_interval_from_sums,
    rate_interval_from_sums,
)
from buddy_eval.stats._proportions import newcombe_score, wilson_score

__all__ = ["POPULATIONS", "draw", "intervals", "main"]

POPULATIONS: dict[str, tuple[float, float, float, float]] = {
    # always pass, always fail, Beta a, Beta b
    "mixed": (0.15, 0.10, 3.0, 2.0),
    "extreme": (0.60, 0.0, 8.0, 1.0),
    "beta22": (0.0, 0.0, 2.0, 2.0),  # scaled to 0.1 + 0.8 Beta(2, 2)
}


def population_mean(name: str) -> float:
    top, bottom, a, b = POPULATIONS[name]
    mean = top + (1 - top - bottom) * a / (a + b)
    return 0.1 + 0.8 * mean if name == "beta22" else mean


def _probabilities(rng, name: str, shape) -> np.ndarray:
    top, bottom, a, b = POPULATIONS[name]
    u = rng.random(shape)
    p = rng.beta(a, b, shape)
    p = np.where(u < top, 1.0, np.where(u < top + bottom, 0.0, p))
    return 0.1 + 0.8 * p if name == "beta22" else p


def _trial_counts(rng, k: int, shape) -> np.ndarray:
    if k == 1:
        return np.ones(shape, dtype=np.int64)
    full = rng.random(shape) < 0.8
    return np.where(full, k, rng.integers(1, k + 1, shape))


def draw(
    rng,
    name: str,
    m: int,
    k: int,
    reps: int,
    *,
    shift: float = 0.0,
    keep: float = 0.7,
    unequal: bool = True,
):
    """Per replicate and item: trials and passes of both versions (arrays of shape (reps, m)).

    ``shift``: the candidate's probabilities are the baseline's times ``1 + shift /
    mean`` (a true mean difference of ``shift``) on the kept items, a fresh
    draw otherwise (scaled the same way). ``keep``: share of items whose
    candidate probability is the baseline's (1.0: equal versions item by item).
    """
    shape = (reps, m)
    pb = _probabilities(rng, name, shape)
    fresh = _probabilities(rng, name, shape)
    pc = np.where(rng.random(shape) < keep, pb, fresh)
    if shift:
        pc = np.clip(pc * (1 + shift / population_mean(name)), 0.0, 1.0)
    nb = _trial_counts(rng, k, shape) if unequal else np.full(shape, k)
    nc = _trial_counts(rng, k, shape) if unequal else np.full(shape, k)
    kb = rng.binomial(nb, pb)
    kc = rng.binomial(nc, pc)
    return nb, kb, nc, kc


def intervals(nb, kb, nc, kc, confidence: float, compare: bool = True):
    """Per replicate: the candidate's interval and the difference's, new, previous, textbook.

    Returns a dict of arrays of shape (reps, 2) (low, high); without ``compare``
    only the gate's (``rate``, ``diff``).
    """
    reps, m = nb.shape
    x, y = kb / nb, kc / nc
    sums = {
        "x": x.sum(1),
        "y": y.sum(1),
        "yy": (y * y).sum(1),
        "xy": (x * y).sum(1),
        "min": np.minimum(x, y).sum(1),
        "dd": ((y - x) ** 2).sum(1),
        "nb": nb.sum(1),
        "nc": nc.sum(1),
    }
    out = {key: np.empty((reps, 2)) for key in ("rate", "diff", "rate_old", "diff_old")}
    from buddy_eval.stats._checks import _z

    z = _z(confidence)
    for r in range(reps):
        s = {key: float(v[r]) for key, v in sums.items()}
        out["rate"][r] = rate_interval_from_sums(
            RateSums(m, int(s["nc"]), s["y"], s["yy"]), confidence
        )
        paired = PairedSums(m, int(min(s["nb"], s["nc"])), s["x"], s["y"], s["min"], s["dd"])
        out["diff"][r] = paired_interval_from_sums(paired, confidence)
        if not compare:
            continue
        # The previous intervals: Wilson over m, phi from the cross products.
        out["rate_old"][r] = wilson_score(Fraction(s["y"] / m), m, z)
        out["diff_old"][r] = newcombe_score(
            Fraction(s["y"]), Fraction(s["x"]), Fraction(s["xy"]), m, z
        )
    if not compare:
        return {"rate": out["rate"], "diff": out["diff"]}
    from scipy.stats import t

    tq = float(t.ppf(1 - (1 - confidence) / 2, m - 1))
    for key, v in (("rate_item", y), ("diff_item", y - x)):
        mean, se = v.mean(1), v.std(1, ddof=1) / math.sqrt(m)
        out[key] = np.stack([mean - tq * se, mean + tq * se], 1)
    return out


def _covers(ci: np.ndarray, truth: float) -> float:
    return float(np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1])))


def coverage_table(reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for name in ("mixed", "extreme"):
        for m in (20, 50, 200, 1000):
            for k in (1, 2, 5, 10):
                cis = intervals(*draw(rng, name, m, k, reps), 0.95)
                truth = population_mean(name)
                row = {"population": name, "m": m, "k": k}
                for key in ("rate", "rate_old", "rate_item"):
                    row[key] = _covers(cis[key], truth)
                for key in ("diff", "diff_old", "diff_item"):
                    row[key] = _covers(cis[key], 0.0)
                rows.append(row)
    return rows


def release_rate(
    rng, name, m, k, reps, margin, shift, keep=0.7, unequal=True, compare=True
) -> dict:
    """Share of datasets whose one-sided 95% lower bound is above -margin, per method."""
    drawn = draw(rng, name, m, k, reps, shift=shift, keep=keep, unequal=unequal)
    cis = intervals(*drawn, 0.90, compare)
    keys = ("diff", "diff_old", "diff_item") if compare else ("diff",)
    return {key: float(np.mean(cis[key][:, 0] > -margin)) for key in keys}


def type1_table(reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed + 1)
    rows = []
    for name in ("mixed", "extreme"):
        for m in (20, 50, 200, 1000):
            for k in (1, 2, 5, 10):
                margin = 0.05
                rates = release_rate(rng, name, m, k, reps, margin, -margin)
                rows.append({"population": name, "m": m, "k": k, "margin": margin, **rates})
    return rows


def power_table(reps: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed + 2)
    rows = []
    for name, m, margin in (("mixed", 1000, 0.02), ("mixed", 400, 0.05), ("beta22", 400, 0.05)):
        for k in (1, 2, 5, 10):
            equal = name == "beta22"
            rates = release_rate(
                rng, name, m, k, reps, margin, 0.0, keep=1.0 if equal else 0.7, unequal=not equal
            )
            rows.append({"population": name, "m": m, "k": k, "margin": margin, **rates})
    return rows


def _print(title: str, rows: list[dict], keys: list[str]) -> None:
    print(title)
    head = [key for key in rows[0] if key not in keys] + keys
    print("  ".join(f"{h:>10}" for h in head))
    for row in rows:
        print(
            "  ".join(
                f"{row[h]:>10.3f}" if isinstance(row[h], float) else f"{row[h]:>10}" for h in head
            )
        )
    print()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args(argv)
    reps = args.replicates
    start = time.perf_counter()
    mc = math.sqrt(0.95 * 0.05 / reps)
    print(f"{reps} replicates per cell; Monte Carlo SE of a share near 0.95: {mc:.4f}\n")
    keys = ["rate", "rate_old", "rate_item", "diff", "diff_old", "diff_item"]
    title = "Coverage of the 95% intervals (candidate rate; difference)"
    _print(title, coverage_table(reps, args.seed), keys)
    keys = ["diff", "diff_old", "diff_item"]
    _print(
        "Non-inferiority type-I error at a true difference of -margin (one-sided 5%)",
        type1_table(reps, args.seed),
        keys,
    )
    _print("Power: RELEASE rate with equal versions", power_table(reps, args.seed), keys)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
