"""The ledger's views, pinned byte for byte on a ledger built through the command line.

One story, recorded with the project's own commands (``buddy-eval INPUT --ledger``,
``ledger release``, ``ledger rollback``): v1 and v2 gated (RELEASE), v1 then v2
released (v2 from a CI run, so with its commit), v3 gated (BLOCK) and released with an
override, a rollback to v2, the golden set grown (q4 edited, q5 added) and v4 gated
against the live version (``--baseline live``) and released, then a rollback to v3.
Every format of ``history`` and ``ledger show`` (and the text tables of
``be.history(...)``) is compared at three moments: before any release, after v4's
release, after the last rollback. Labels, notes and reasons carry characters a
Markdown table or a terminal must escape.

Regenerate the expected files with ``UPDATE_LEDGER_EXPECTED=1`` only for a deliberate
change of a view, and say which in the commit message.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest

import buddy_eval as be
from buddy_eval._cli import main
from tests.ledger_helpers import GOLDEN, make_input, result_lines

EXPECTED = Path(__file__).parent / "ledger_expected"
UPDATE = os.environ.get("UPDATE_LEDGER_EXPECTED") == "1"
BY = "views-bot"
CI_VARIABLES = ("GITHUB_ACTIONS", "GITLAB_CI")
#: The CI run the release of v2 is recorded from.
GITHUB = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
    "GITHUB_SERVER_URL": "https://github.example",
    "GITHUB_REPOSITORY": "school/buddy",
    "GITHUB_RUN_ID": "42",
    "GITHUB_WORKFLOW": "release",
    "GITHUB_RUN_NUMBER": "7",
}
#: The grown golden set: q4 edited, q5 added.
GROWN = GOLDEN.replace("L4 delta", "L4 delta,epsilon") + "q5 ANSWER L5 eta\n"
LIVE_INPUT = (
    "THRESHOLDS 0.5 0.5 0.5\n"
    + GROWN
    + "RESULTS\n"
    + result_lines("v4", {"q1", "q2"})
    + "v4 q5 L5 N eta\n"
)

#: name: (arguments, extension)
VIEWS = {
    "history": (["history", "--ledger", "release.ledger"], "txt"),
    "history-json": (["history", "--ledger", "release.ledger", "--format", "json"], "json"),
    "history-markdown": (
        ["history", "--ledger", "release.ledger", "--format", "markdown"],
        "md",
    ),
    "show": (["ledger", "show", "--ledger", "release.ledger"], "txt"),
}


def run(folder: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``buddy-eval ARGS`` in this process, in ``folder``, outside CI unless ``env`` says."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in CI_VARIABLES:
            patch.delenv(name, raising=False)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        patch.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(args))
    return status, out.getvalue(), err.getvalue()


def ok(folder: Path, *args: str, status: int = 0, env: dict[str, str] | None = None) -> None:
    got, _, err = run(folder, *args, env=env)
    assert got == status, err


def record(folder: Path, name: str, text: str, *options: str, status: int) -> None:
    (folder / name).write_text(text, encoding="utf-8")
    ok(folder, name, "--ledger", "release.ledger", "--by", BY, *options, status=status)


def release(folder: Path, label: str, date: str, *options: str, **kw) -> None:
    ok(
        folder,
        "ledger",
        "release",
        label,
        "--ledger",
        "release.ledger",
        "--by",
        BY,
        "--date",
        date,
        *options,
        **kw,
    )


def rollback(folder: Path, label: str, date: str, reason: str) -> None:
    ok(
        folder,
        "ledger",
        "rollback",
        label,
        "--ledger",
        "release.ledger",
        "--by",
        BY,
        "--date",
        date,
        "--reason",
        reason,
    )


def views(folder: Path, moment: str) -> dict[str, str]:
    """Every view of the ledger now, by expected file name."""
    found: dict[str, str] = {}
    for view, (args, extension) in VIEWS.items():
        status, out, err = run(folder, *args)
        assert (status, err) == (0, "")
        found[f"{moment}/{view}.{extension}"] = out
    with contextlib.chdir(folder):
        history = be.history("release.ledger")
    found[f"{moment}/table.csv"] = history.table().to_csv(index=False)
    found[f"{moment}/release_table.csv"] = history.release_table().to_csv(index=False)
    assert history.text() + "\n" == found[f"{moment}/history.txt"]
    assert history.markdown() + "\n" == found[f"{moment}/history-markdown.md"]
    assert history.json() + "\n" == found[f"{moment}/history-json.json"]
    return found


@pytest.fixture(scope="module")
def story(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("views")
    found: dict[str, str] = {}
    record(
        folder,
        "first.txt",
        make_input("v1", "v2"),
        "--baseline",
        "v1",
        "--candidate",
        "v2",
        "--date",
        "2026-01-01",
        "--note",
        "first | gate <b>`x`</b>",
        status=0,
    )
    found |= views(folder, "unreleased")
    release(folder, "v1", "2026-01-02", "--note", "live before the ledger")
    release(folder, "v2", "2026-01-03", env=GITHUB)
    record(
        folder,
        "second.txt",
        make_input("v2", "v3"),
        "--baseline",
        "v2",
        "--candidate",
        "v3",
        "--date",
        "2026-01-09",
        status=1,
    )
    release(folder, "v3", "2026-01-10", "--override", "exam week | ship *anyway* <now>")
    rollback(folder, "v2", "2026-01-12", "v3 breaks `labs` | grading")
    record(
        folder,
        "live.txt",
        LIVE_INPUT,
        "--baseline",
        "live",
        "--candidate",
        "v4",
        "--date",
        "2026-01-19",
        status=0,
    )
    release(folder, "v4", "2026-01-20")
    found |= views(folder, "released")
    rollback(folder, "v3", "2026-01-25", "v4 slows the labs\ttoo")
    found |= views(folder, "rolled-back")
    return found


def _names() -> list[str]:
    moments = ("unreleased", "released", "rolled-back")
    names = [f"{m}/{v}.{e}" for m in moments for v, (_, e) in VIEWS.items()]
    return names + [f"{m}/{t}.csv" for m in moments for t in ("table", "release_table")]


@pytest.mark.parametrize("name", _names())
def test_the_ledger_views_are_as_pinned(name, story):
    path = EXPECTED / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(story[name].encode("utf-8"))
    assert story[name] == path.read_bytes().decode("utf-8")


@pytest.mark.parametrize("moment", ["released", "rolled-back"])
def test_the_head_and_the_live_row_agree_on_since_when(moment, story):
    """The head's ``live: V since D`` and V's row say the same date, after a rollback too."""
    text = story[f"{moment}/history.txt"]
    live, since = re.search(r"live: (\S+) since (\S+)$", text.splitlines()[0]).groups()
    table = story[f"{moment}/table.csv"].splitlines()
    (row,) = [line for line in table if line.startswith(f"{live},")]
    released = row.rsplit(",", 1)[1]
    assert released in (f"{since} (live)", f"{released.split()[0]} (live since {since})")
    assert (since in released) and sum("(live" in line for line in table) == 1
    assert json.loads(story[f"{moment}/history-json.json"])["live"] == live
