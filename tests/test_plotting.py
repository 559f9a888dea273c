"""The charts carry the evaluation's data, and matplotlib stays off the import path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

import buddy_eval as be  # noqa: E402
from buddy_eval import _plotting as plotting  # noqa: E402
from buddy_eval._errors import InputError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_release.txt"
RATES = ("correctness", "citation", "refusal")

NO_ANSWER_ITEMS = """\
THRESHOLDS 0.9 0.9 0.5
q1 REFUSE - -
q2 REFUSE - -
RESULTS
OLD q1 - Y no
OLD q2 - Y no
NEW q1 - Y no
NEW q2 - N sure
"""

NOTHING_CHANGED = """\
THRESHOLDS 0.5 0.5 0.5
q1 ANSWER L1 a
q2 REFUSE - -
RESULTS
OLD q1 L1 N a
OLD q2 - Y no
NEW q1 L1 N a
NEW q2 - Y no
"""


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def ev():
    return be.evaluate(SAMPLE)


def by_gid(ax):
    """Artists of ``ax`` keyed by gid (patches, lines, texts, images)."""
    artists = [*ax.patches, *ax.lines, *ax.texts, *ax.images]
    return {a.get_gid(): a for a in artists if a.get_gid()}


def big_input(n_answer: int, n_refuse: int) -> str:
    lines = ["THRESHOLDS 0.5 0.5 0.5"]
    lines += [f"a{i:03d} ANSWER L{i % 7} kw{i % 5}" for i in range(n_answer)]
    lines += [f"r{i:03d} REFUSE - -" for i in range(n_refuse)]
    lines.append("RESULTS")
    for shift, version in enumerate(("OLD", "NEW")):
        # each version fails a different third of the ANSWER items
        lines += [
            f"{version} a{i:03d} L{i % 7} N {'kw' if (i + shift) % 3 else 'x'}{i % 5}"
            for i in range(n_answer)
        ]
        lines += [f"{version} r{i:03d} - {'YN'[i % 4 == 0]} t" for i in range(n_refuse)]
    return "\n".join(lines) + "\n"


# --- plot_metrics -----------------------------------------------------------------------


def test_metric_bars_have_the_metric_values(ev):
    ax = be.plot_metrics(ev)
    bars = by_gid(ax)
    metrics = ev.metrics.set_index(["version", "metric"])
    for version in ("OLD", "NEW"):
        for metric in RATES:
            row = metrics.loc[(version, metric)]
            bar = bars[f"bar/{version}/{metric}"]
            assert bar.get_height() == pytest.approx(row["numerator"] / row["denominator"])
            assert bar.get_fill()
    # baseline left of candidate in every group
    for metric in RATES:
        assert bars[f"bar/OLD/{metric}"].get_x() < bars[f"bar/NEW/{metric}"].get_x()


def test_metric_bars_are_labelled_like_the_report(ev):
    ax = be.plot_metrics(ev)
    texts = by_gid(ax)
    labels = {m: texts[f"label/NEW/{m}"].get_text().split("\n")[0] for m in RATES}
    assert labels == {"correctness": "0.91", "citation": "0.88", "refusal": "0.80"}
    assert texts["label/OLD/correctness"].get_text() == "0.84"  # 27/32 = 0.84375


def test_thresholds_are_drawn_at_their_values(ev):
    ax = be.plot_metrics(ev)
    lines = by_gid(ax)
    for metric in RATES:
        line = lines[f"threshold/{metric}"]
        assert list(line.get_ydata()) == pytest.approx([float(ev.thresholds[metric])] * 2)
        # the line spans both bars of its group
        xs = sorted(line.get_xdata())
        assert xs[0] < lines[f"bar/OLD/{metric}"].get_x()
        bar = lines[f"bar/NEW/{metric}"]
        assert xs[1] > bar.get_x() + bar.get_width()


def test_metrics_title_and_legend_tell_verdict_violations_and_missing(ev):
    ax = be.plot_metrics(ev)
    assert "BLOCK" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "OLD (1 violation)" in legend
    assert "NEW (1 violation, 2 missing)" in legend
    assert "threshold" in legend


def test_unmeasured_metric_is_a_label_not_a_bar():
    ev = be.evaluate(NO_ANSWER_ITEMS)
    ax = be.plot_metrics(ev)
    artists = by_gid(ax)
    for version in ("OLD", "NEW"):
        for metric in ("correctness", "citation"):
            assert f"bar/{version}/{metric}" not in artists  # no bar, not even an outline
        assert artists[f"bar/{version}/refusal"].get_fill()
    for metric in ("correctness", "citation"):
        assert artists[f"na/{metric}"].get_text() == "n/a\nno ANSWER item"
    assert not any(p.get_hatch() for p in ax.patches)
    assert artists["bar/NEW/refusal"].get_height() == pytest.approx(0.5)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("OLD") for t in legend) and any(t.startswith("NEW") for t in legend)


def test_blocking_bars_are_marked_by_colour_and_label(ev):
    ax = be.plot_metrics(ev)
    artists = by_gid(ax)
    red = to_rgba(plotting._BLOCKING_COLOR)
    assert artists["bar/NEW/correctness"].get_facecolor() != red
    assert artists["bar/NEW/citation"].get_facecolor() == red
    assert artists["bar/NEW/refusal"].get_facecolor() == red
    assert artists["bar/OLD/refusal"].get_facecolor() != red
    assert artists["label/NEW/citation"].get_text() == "0.88\nregression"
    assert artists["label/NEW/refusal"].get_text() == "0.80\nbelow threshold\nregression"
    assert "blocks the release" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_plot_functions_draw_on_a_given_axes(ev):
    _, axes = plt.subplots(1, 3)
    assert be.plot_metrics(ev, ax=axes[0]) is axes[0]
    assert be.plot_item_grid(ev, ax=axes[1]) is axes[1]
    assert be.plot_changes(ev, ax=axes[2]) is axes[2]


# --- plot_item_grid ---------------------------------------------------------------------


def expected_outcome(row, check: str) -> str:
    """Straight from one row of ``items``, written independently of the module."""
    applies = (row.item_type == "ANSWER") == (check in ("correct", "cited"))
    if not applies:
        return "n/a"
    if row.missing:
        return "missing"
    if check == "correct":
        return "pass" if row.correct else "fail"
    if check == "cited":
        return "pass" if row.cited_ok else "fail"
    return "pass" if row.refused else "violation"


def test_grid_cell_colours_match_outcomes(ev):
    ax = be.plot_item_grid(ev)
    (image,) = ax.images
    rgba = image.to_rgba(image.get_array())
    items = ev.compared_items()
    golden_ids = list(ev.data.golden["item_id"])
    assert rgba.shape[:2] == (len(golden_ids), 6)
    for row in items.itertuples():
        r = golden_ids.index(row.item_id)
        for c, check in enumerate(("correct", "cited", "refused")):
            col = (0 if row.version == "OLD" else 3) + c
            want = plotting.OUTCOME_COLORS[expected_outcome(row, check)]
            assert tuple(rgba[r, col]) == pytest.approx(to_rgba(want)), (row.item_id, check)


def test_grid_known_cells(ev):
    outcomes = plotting.item_grid_outcomes(ev)
    assert outcomes.loc["r03", ("NEW", "refused")] == "violation"
    assert outcomes.loc["r06", ("OLD", "refused")] == "violation"
    assert outcomes.loc["j31", ("NEW", "correct")] == "missing"
    assert outcomes.loc["r10", ("NEW", "refused")] == "missing"
    assert outcomes.loc["j05", ("OLD", "correct")] == "fail"
    assert outcomes.loc["j11", ("OLD", "cited")] == "fail"
    assert outcomes.loc["j01", ("NEW", "cited")] == "pass"
    assert outcomes.loc["r01", ("OLD", "correct")] == "n/a"
    assert outcomes.loc["j01", ("OLD", "refused")] == "n/a"


def test_grid_has_labels_and_a_legend(ev):
    ax = be.plot_item_grid(ev)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(plotting.OUTCOMES)
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        f"{v}\n{c}" for v in ("OLD", "NEW") for c in ("correct", "cited", "refused")
    ]
    # 42 items: every one labelled, in golden order
    assert [t.get_text() for t in ax.get_yticklabels()] == list(ev.data.golden["item_id"])


def test_grid_stays_usable_for_400_items():
    ev = be.evaluate(big_input(360, 40))
    ax = be.plot_item_grid(ev, max_items=400)
    assert ax.get_ylabel() in {f"item (every {plotting.ordinal(k)} labelled)" for k in range(2, 20)}
    fig = ax.figure
    assert fig.get_figheight() <= 14
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert 20 <= len(labels) < 400  # thinned, but still a guide
    ticks = ax.get_yticks()
    step = ticks[1] - ticks[0]
    assert np.all(np.diff(ticks) == step)
    assert labels[0] == "a000"
    # labels never overlap: at least a font height apart
    spacing_pt = step / 400 * ax.get_position().height * fig.get_figheight() * 72
    assert spacing_pt >= ax.get_yticklabels()[0].get_fontsize()
    assert ax.images[0].get_array().shape == (400, 6)


def test_grid_can_show_other_versions():
    ev = be.evaluate(NO_ANSWER_ITEMS)
    assert plotting.item_grid_outcomes(ev, ["NEW"]).columns.tolist() == [
        ("NEW", "correct"),
        ("NEW", "cited"),
        ("NEW", "refused"),
    ]
    with pytest.raises(InputError, match="unknown version"):
        plotting.item_grid_outcomes(ev, ["NOPE"])


def test_grid_counts_outcomes_above_its_size_limit():
    ev = be.evaluate(big_input(360, 40))
    ax = be.plot_item_grid(ev)
    assert not ax.images  # no cell per item above GRID_MAX_ITEMS
    artists = by_gid(ax)
    outcomes = plotting.item_grid_outcomes(ev)
    for (version, check), column in outcomes.items():
        for outcome in ("pass", "fail", "violation", "missing"):
            bar = artists[f"count/{version}/{check}/{outcome}"]
            assert bar.get_width() == (column == outcome).sum()
    assert "400 items" in ax.get_title()
    small = be.plot_item_grid(be.evaluate(big_input(150, 50)))
    assert small.images  # 200 items: still one cell per item


def test_ordinals():
    assert [plotting.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "101st",
        "111th",
    ]


# --- literal text, inputs other than an Evaluation ---------------------------------------

MATH_IDS = r"""THRESHOLDS 0.5 0.5 0.5
$\q$ ANSWER $L$ a
$x_1$ ANSWER L2 a
q2 REFUSE - -
RESULTS
$v$ $\q$ $L$ N a $\alpha
$v$ $x_1$ L2 N b
$w$ $\q$ $L$ N b
$w$ $x_1$ L2 N a
$v$ q2 - Y no
$w$ q2 - N yes
"""


@pytest.mark.parametrize(
    "plot", ["plot_metrics", "plot_item_grid", "plot_changes", "plot_diff_intervals"]
)
def test_ids_and_labels_with_dollars_are_drawn_literally(plot):
    ev = be.evaluate(MATH_IDS, "$v$", "$w$")
    ax = getattr(be, plot)(ev)
    ax.figure.canvas.draw()  # mathtext would raise on $\q$
    texts = [*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels(), ax.title]
    if ax.get_legend():
        texts += ax.get_legend().get_texts()
    shown = " ".join(t.get_text() for t in texts)
    assert all(not t.get_parse_math() and not t.get_usetex() for t in texts)
    if plot == "plot_item_grid":
        assert r"$\q$" in shown and "$x_1$" in shown
    if plot == "plot_changes":
        assert r"$\q$" in shown
    if plot in ("plot_metrics", "plot_changes"):
        assert "$v$" in shown


@pytest.mark.parametrize(
    "plot", ["plot_metrics", "plot_item_grid", "plot_changes", "plot_diff_intervals"]
)
def test_plots_take_a_path_or_an_input(plot, ev):
    want = getattr(be, plot)(ev)
    for source in (SAMPLE, str(SAMPLE), be.load(SAMPLE)):
        ax = getattr(be, plot)(source)
        assert sorted(by_gid(ax)) == sorted(by_gid(want))


# --- plot_changes -----------------------------------------------------------------------

# j31 and r10 have no NEW result: missing, never regressed.
FLIPS = {
    ("correctness", "regressed"): ["j06", "j25"],
    ("correctness", "fixed"): ["j05", "j14", "j15", "j20", "j30"],
    ("citation", "regressed"): ["j18", "j25", "j29"],
    ("citation", "fixed"): ["j11"],
    ("refusal", "regressed"): ["r03"],
    ("refusal", "fixed"): ["r06"],
}
MISSING = {"correctness": ["j31"], "citation": ["j31"], "refusal": ["r10"]}


def test_changes_bars_count_the_flipped_items(ev):
    ax = be.plot_changes(ev)
    artists = by_gid(ax)
    for (metric, change), ids in FLIPS.items():
        bar = artists[f"{change}/{metric}"]
        assert bar.get_width() == (len(ids) if change == "fixed" else -len(ids))
        assert artists[f"count/{change}/{metric}"].get_text() == str(len(ids))
        assert artists[f"ids/{change}/{metric}"].get_text() == ", ".join(ids)
    for metric, ids in MISSING.items():
        assert artists[f"ids/missing/{metric}"].get_text() == ", ".join(ids)
        assert artists[f"count/missing/{metric}"].get_text() == "1 missing (not paired)"


def test_changes_lists_are_cut_after_six_ids():
    ev = be.evaluate(big_input(60, 0))
    ax = be.plot_changes(ev)
    n = ev.paired["correctness"].count("fixed")
    assert n > 6
    text = by_gid(ax)["ids/fixed/correctness"].get_text()
    assert text.endswith(f" and {n - 6} more")
    assert text.count(",") == 5


def test_changes_with_nothing_flipped_says_so():
    ax = be.plot_changes(be.evaluate(NOTHING_CHANGED))
    assert "no item changed" in [t.get_text() for t in ax.texts]
    assert all(p.get_width() == 0 for p in ax.patches)


def test_changes_without_flips_but_with_missing_items():
    text = "THRESHOLDS 0.5 0.5 0.5\nq1 ANSWER L1 a\nRESULTS\nOLD q1 L1 N a\nNEW q0 L1 N a\n"
    ax = be.plot_changes(be.evaluate(text))
    artists = by_gid(ax)
    assert artists["regressed/correctness"].get_width() == 0  # q1 is missing, not regressed
    assert artists["ids/missing/correctness"].get_text() == "q1"


def test_changes_come_from_the_paired_core(ev):
    flips = be.flipped_items(ev)
    for m in ev.paired.metrics:
        of = flips[flips["metric"] == m.metric]
        assert (of["change"] == "fixed").sum() == m.table.fixed
        assert (of["change"] == "regressed").sum() == m.table.regressed
    got = {
        key: group["item_id"].tolist()
        for key, group in flips.groupby(["metric", "change"], observed=True)
    }
    assert got == FLIPS


# --- plot_diff_intervals ----------------------------------------------------------------


@pytest.fixture
def comparison():
    """The shape buddy_eval.stats.compare returns: one row per metric, NA where not computed."""
    return pd.DataFrame(
        {
            "metric": ["correctness", "citation", "refusal"],
            "diff": pd.array([0.0625, -0.09375, None], dtype="Float64"),
            "diff_ci_low": pd.array([-0.05, -0.21, None], dtype="Float64"),
            "diff_ci_high": pd.array([0.17, 0.02, None], dtype="Float64"),
            "ready_for_decision": [True, False, False],
            "note": pd.array([None, "paired n = 12 < 20", "no paired items"], dtype="str"),
        }
    )


def test_diff_intervals_are_drawn_from_the_comparison(comparison):
    ax = be.plot_diff_intervals(comparison)
    artists = by_gid(ax)
    assert list(artists["diff/correctness"].get_xdata()) == [0.0625]
    assert list(artists["interval/correctness"].get_xdata()) == [-0.05, 0.17]
    assert list(artists["diff/citation"].get_xdata()) == [-0.09375]
    assert list(artists["interval/citation"].get_xdata()) == [-0.21, 0.02]
    # rows follow the DataFrame, top to bottom
    assert [t.get_text() for t in ax.get_yticklabels()] == ["correctness", "citation", "refusal"]
    assert artists["diff/correctness"].get_ydata()[0] == 0
    assert artists["diff/citation"].get_ydata()[0] == 1
    # not computed: a label, no dot
    assert "diff/refusal" not in artists
    assert artists["na/refusal"].get_text() == "not computed"
    # not ready: hollow marker; ready: filled
    assert to_rgba(artists["diff/citation"].get_markerfacecolor()) == to_rgba("white")
    assert to_rgba(artists["diff/correctness"].get_markerfacecolor()) != to_rgba("white")
    assert artists["note/citation"].get_text() == "paired n = 12 < 20"
    assert artists["note/refusal"].get_text() == "no paired items"
    assert "note/correctness" not in artists
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["ready for a decision", "not ready"]
    # zero line
    assert any(list(line.get_xdata()) == [0, 0] for line in ax.lines)


def test_diff_intervals_without_interval_draw_the_dot(comparison):
    comparison.loc[0, ["diff_ci_low", "diff_ci_high"]] = pd.NA
    ax = be.plot_diff_intervals(comparison)
    artists = by_gid(ax)
    assert "interval/correctness" not in artists
    assert list(artists["diff/correctness"].get_xdata()) == [0.0625]


def test_diff_intervals_of_the_real_comparison(ev):
    pytest.importorskip("buddy_eval.stats")
    comparison = ev.comparison
    ax = be.plot_diff_intervals(comparison)
    artists = by_gid(ax)
    for row in comparison.itertuples():
        if pd.isna(row.diff):
            assert f"na/{row.metric}" in artists
        else:
            assert list(artists[f"diff/{row.metric}"].get_xdata()) == [pytest.approx(row.diff)]
        if not pd.isna(row.note):
            assert f"note/{row.metric}" in artists


def test_diff_intervals_reject_other_frames(comparison):
    with pytest.raises(InputError, match="diff_ci_high"):
        be.plot_diff_intervals(comparison.drop(columns="diff_ci_high"))
    with pytest.raises(InputError, match="DataFrame"):
        be.plot_diff_intervals({"metric": []})


# --- imports ----------------------------------------------------------------------------


def run_python(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_importing_buddy_eval_does_not_import_matplotlib():
    code = (
        "import sys, buddy_eval\n"
        "before = 'matplotlib' in sys.modules\n"
        "f = buddy_eval.plot_metrics\n"  # the lazy attribute alone still does not
        "print(before, 'matplotlib' in sys.modules, f.__module__)"
    )
    assert run_python(code) == "False False buddy_eval._plotting"


def test_the_command_line_gate_does_not_import_matplotlib():
    code = (
        "import contextlib, io, sys\n"
        "from buddy_eval._cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    status = main(['data/example.txt'])\n"
        "print(status, 'matplotlib' in sys.modules)"
    )
    assert run_python(code) == "1 False"


def test_lazy_exports_are_listed():
    for name in ("plot_metrics", "plot_item_grid", "plot_changes", "plot_diff_intervals"):
        assert name in be.__all__
        assert name in dir(be)
        assert getattr(be, name) is getattr(plotting, name)
    with pytest.raises(AttributeError):
        be.plot_nothing  # noqa: B018


def test_trial_rates_without_trials_say_what_to_do(ev):
    with pytest.raises(InputError) as caught:
        be.plot_trial_rates(ev)
    assert str(caught.value) == (
        "the evaluation has one result per item and version: no per-item trial rates "
        "(load the input with trials=True, or run buddy-eval --trials)"
    )
    with pytest.raises(InputError, match=r"metric must be one of correctness, citation, refusal"):
        be.plot_trial_rates(ev, metric="violations")
