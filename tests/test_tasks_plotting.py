"""The comparison charts draw what the comparison holds, and nothing else."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from buddy_eval.tasks import (  # noqa: E402
    compare_runs,  # noqa: E402
    plot_deltas,
    plot_readiness,
    plot_unknowns,
)
from tests.test_tasks_support import EXAMPLE, check, paired_runs, record, task  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def example():
    return compare_runs(EXAMPLE["golden"], EXAMPLE["a"], EXAMPLE["b"])


def _by_gid(ax):
    return {a.get_gid(): a for a in ax.get_children() if a.get_gid()}


def test_delta_bars_are_the_paired_deltas(example):
    ax = plot_deltas(example)
    bars = _by_gid(ax)
    scored = example.pairs[example.pairs["both_scored"]]
    assert sorted(g for g in bars if g.startswith("delta/")) == sorted(
        f"delta/{g}" for g in scored["golden_id"]
    )
    for golden_id, delta in zip(scored["golden_id"], scored["delta"], strict=True):
        assert bars[f"delta/{golden_id}"].get_width() == pytest.approx(delta)
    assert "delta/jv-31" not in bars  # no score on one side


def test_unknown_bars_are_the_unknown_counts(example):
    fig, ax = plt.subplots()
    assert plot_unknowns(example, ax=ax) is ax
    bars = _by_gid(ax)
    for row in example.unknowns.itertuples():
        assert bars[f"unknown/{row.run}/{row.check_type}"].get_height() == row.unknown


def test_readiness_title_states_the_verdict(example):
    ax = plot_readiness(example)
    assert ax.get_title().startswith("ready for decision: mean delta")
    assert _by_gid(ax)["paired_n"].get_width() == example.paired.n
    small = compare_runs(*paired_runs([(1, 2)] * 3))
    assert plot_readiness(small).get_title() == (
        "not ready for decision: too few scored pairs, no significance computed"
    )


def test_charts_handle_a_comparison_without_pairs():
    golden = [task("g1", check("contains", "x")), task("g2", check("contains", "x"))]
    cmp = compare_runs(golden, [record("a1", "g1")], [record("b2", "g2")])
    for plot in (plot_deltas, plot_unknowns, plot_readiness):
        plot(cmp)


def test_math_text_in_ids_and_labels_is_drawn_literally():
    golden = [task(r"$\q$", check("contains", "x")), task("g_$x^2$", check("contains", "x"))]
    run_a = [record("a1", r"$\q$", "x"), record("a2", "g_$x^2$", "y")]
    run_b = [record("b1", r"$\q$", "y"), record("b2", "g_$x^2$", "x")]
    cmp = compare_runs(golden, run_a, run_b, r"$\alpha$", "$b$")
    for plot in (plot_deltas, plot_unknowns, plot_readiness):
        ax = plot(cmp)
        ax.figure.canvas.draw()  # mathtext would raise on $\q$
        texts = [*ax.get_yticklabels(), *ax.get_xticklabels(), ax.title, ax.xaxis.label]
        legend = ax.get_legend()
        texts += legend.get_texts() if legend is not None else []
        assert all(not t.get_parse_math() for t in texts)
    labels = [t.get_text() for t in plot_deltas(cmp).get_yticklabels()]
    assert labels == [r"$\q$", "g_$x^2$"]
