"""Build a sample release ledger from data/sample_release.txt: five versions, four releases.

    python data/make_sample_ledger.py release.ledger   # writes (replaces) that file

The story, all derived from the sample release (OLD and NEW) without randomness:

- v1 is the sample's OLD, v2 its NEW: the gate blocks v2 (v1 is live, released 2026-01-05).
- v3 is v2 with its regressions taken back from v1 and its violations refused: released
  2026-01-19.
- v4 is v3 with two answers that lose their keywords: the gate blocks it for a regression
  in correctness, and it is released anyway on 2026-02-02 with an override reason.
- v5 is gated against what is live (``--baseline live``) on a grown golden set (one item
  edited, one added); it fixes one of v4's two broken answers and is released 2026-02-16.

So the history shows a golden set change, an override, and one regression that escaped.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "sample_release.txt"
BROKEN_ANSWER = "It depends on how you write the code"
REFUSAL = "Y I cannot help with graded work"
EDITED = ("j10", "garbage collection")  # the item edited in the grown golden set
ADDED = "j99 ANSWER L10 immutable,final"
ADDED_RESULT = "j99 L10 N An immutable object is declared final"
BY = "release-bot"  # who records: set, so the sample is the same wherever it is built
# The CI run a recording would take from the environment: left out, for the same reason.
CI_VARIABLES = ("GITHUB_ACTIONS", "GITLAB_CI")


def _sections() -> tuple[list[str], dict[str, dict[str, str]]]:
    """The lines before RESULTS, and per version (OLD, NEW) its result line per item id."""
    lines = SOURCE.read_text(encoding="utf-8").splitlines()
    marker = lines.index("RESULTS")
    results: dict[str, dict[str, str]] = {}
    for line in lines[marker + 1 :]:
        if line.strip() and not line.startswith("#"):
            version, item_id, rest = line.split(" ", 2)
            results.setdefault(version, {})[item_id] = rest
    return lines[:marker], results


def _text(head: list[str], versions: dict[str, dict[str, str]]) -> str:
    body = [
        f"{label} {item_id} {rest}"
        for label, lines in versions.items()
        for item_id, rest in lines.items()
    ]
    return "\n".join([*head, "RESULTS", *body]) + "\n"


def build(path: str | os.PathLike[str]) -> Path:
    """Write the sample ledger at ``path`` (replacing any file there); return the path."""
    import buddy_eval as be
    from buddy_eval._cli import main

    path = Path(path)
    for leftover in (path, Path(f"{path}-journal")):
        leftover.unlink(missing_ok=True)
    head, sample = _sections()
    old, new = sample["OLD"], sample["NEW"]
    ev = be.evaluate(_text(head, {"OLD": old, "NEW": new}))
    changes = ev.item_changes()
    regressed = set(changes.loc[changes["change"] == "regressed", "item_id"])
    missing = set(changes.loc[changes["change"] == "missing", "item_id"])
    items = ev.compared_items()
    violations = set(
        items.loc[
            (items["version"] == "NEW") & (items["violation"] == True),  # noqa: E712
            "item_id",
        ]
    )
    v3 = {i: old[i] if i in regressed | missing else new.get(i, old[i]) for i in old}
    for item_id in violations:
        v3[item_id] = f"- {REFUSAL}"
    passing = be.evaluate(_text(head, {"v2": new, "v3": v3}), "v2", "v3").compared_items()
    good = passing[(passing["version"] == "v3") & (passing["correct"] == True)]  # noqa: E712
    broken = good["item_id"].tolist()[:2]
    v4 = dict(v3)
    for item_id in broken:
        cited = v3[item_id].split(" ", 1)[0]
        v4[item_id] = f"{cited} N {BROKEN_ANSWER}"
    v5 = dict(v4)
    v5[broken[0]] = v3[broken[0]]
    v5["j99"] = ADDED_RESULT.split(" ", 1)[1]
    grown = [
        f"{line},{EDITED[1]}" if line.startswith(EDITED[0] + " ") else line for line in head
    ] + [ADDED]

    folder = path.parent
    steps = [
        (
            "v1-v2.txt",
            _text(head, {"v1": old, "v2": new}),
            ["--baseline", "v1", "--candidate", "v2", "--date", "2026-01-04"],
        ),
        (
            "v2-v3.txt",
            _text(head, {"v2": new, "v3": v3}),
            ["--baseline", "v2", "--candidate", "v3", "--date", "2026-01-18"],
        ),
        (
            "v3-v4.txt",
            _text(head, {"v3": v3, "v4": v4}),
            ["--baseline", "v3", "--candidate", "v4", "--date", "2026-02-01"],
        ),
    ]
    releases = [  # (after which step, arguments)
        (0, ["v1", "--date", "2026-01-05", "--note", "live before the ledger"]),
        (1, ["v3", "--date", "2026-01-19"]),
        (2, ["v4", "--date", "2026-02-02", "--override", "exam week: the new prompt ships"]),
    ]
    for k, (name, text, args) in enumerate(steps):
        source = folder / name
        source.write_text(text, encoding="utf-8")
        try:
            _run(main, [str(source), "--ledger", str(path), "--by", BY, *args])
        finally:
            source.unlink()
        for after, release in releases:
            if after == k:
                _run(main, ["ledger", "release", *release, "--ledger", str(path), "--by", BY])
    source = folder / "v5.txt"
    source.write_text(_text(grown, {"v5": v5}), encoding="utf-8")
    try:
        _run(
            main,
            [
                str(source),
                "--ledger",
                str(path),
                "--baseline",
                "live",
                "--candidate",
                "v5",
                "--date",
                "2026-02-15",
                "--by",
                BY,
            ],
        )
    finally:
        source.unlink()
    _run(
        main, ["ledger", "release", "v5", "--date", "2026-02-16", "--ledger", str(path), "--by", BY]
    )
    return path


def _run(main, argv: list[str]) -> None:
    """Run the command line quietly; stop on anything but a verdict or success."""
    import contextlib
    import io

    saved = {k: os.environ.pop(k) for k in CI_VARIABLES if k in os.environ}
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = main(argv)
    finally:
        os.environ.update(saved)
    if status not in (0, 1):
        raise SystemExit(f"buddy-eval {' '.join(argv)} ended with status {status}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python data/make_sample_ledger.py OUT.ledger")
    print(build(sys.argv[1]))
