"""Inputs with slices for the tests: the planted case and random inputs."""

from __future__ import annotations


def planted_case() -> tuple[str, str]:
    """An easy slice that improves and a hard slice of 40 items that falls from 40 to 25
    passing, the overall mean rising: the input text and the slices CSV."""
    golden, results, slices = [], [], ["id,slice"]
    for k in range(200):
        item = f"e{k:03d}"
        golden.append(f"{item} ANSWER L1 photosynthesis")
        slices.append(f"{item},easy")
        old_ok, new_ok = k < 100, k < 160
        results.append(f"OLD {item} L1 N {'photosynthesis' if old_ok else 'no idea'}")
        results.append(f"NEW {item} L1 N {'photosynthesis' if new_ok else 'no idea'}")
    for k in range(40):
        item = f"h{k:02d}"
        golden.append(f"{item} ANSWER L2 mitochondria")
        slices.append(f"{item},hard")
        results.append(f"OLD {item} L2 N mitochondria")
        results.append(f"NEW {item} L2 N {'mitochondria' if k < 25 else 'no idea'}")
    text = "\n".join(["THRESHOLDS 0.5 0.5 0.5", *golden, "RESULTS", *results]) + "\n"
    return text, "\n".join(slices) + "\n"
