"""Draw the README's charts from the bundled sample data.

Run ``make figures`` (or ``python docs/make_figures.py`` from anywhere). It writes
``docs/metrics.png``, ``docs/item_grid.png`` and ``docs/changes.png`` from
``data/sample_release.txt``. The PNGs carry no timestamp or version metadata,
so a re-run with the same matplotlib gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import buddy_eval as be  # noqa: E402

DOCS = Path(__file__).resolve().parent
SAMPLE = DOCS.parent / "data" / "sample_release.txt"
FIGURES = {
    "metrics.png": be.plot_metrics,
    "item_grid.png": be.plot_item_grid,
    "changes.png": be.plot_changes,
}


def main() -> None:
    evaluation = be.evaluate(SAMPLE)
    for name, plot in FIGURES.items():
        ax = plot(evaluation)
        ax.figure.savefig(DOCS / name, dpi=100, metadata={"Software": None})
        plt.close(ax.figure)
        print(f"wrote {(DOCS / name).relative_to(DOCS.parent)}")


if __name__ == "__main__":
    main()
