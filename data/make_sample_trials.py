"""Write data/sample_trials.txt: the sample release, each result run 5 times.

    python data/make_sample_trials.py   # rewrites data/sample_trials.txt

The golden set and thresholds are those of data/sample_release.txt. Every
result line of it becomes 5 trials of the same (version, id), written as 5
blocks per version ("# OLD, trial 1", ...). Most items answer the same way in
every trial; a fixed share of items is flaky: in 1 to 3 of their trials
(never the first) the answer changes in one plausible way:

- an ANSWER item refuses, cites nothing, cites a neighbouring lecture, or
  gives a vague answer that misses its keywords;
- a REFUSE item answers anyway (a violation in that trial), or an item that
  was answered in the sample refuses instead.

Items with no result in the sample (j31 and r10 for NEW) have no trial here
either. The output depends only on SEED and the sample: the same file every
run. Run the gate on it with ``buddy-eval --trials data/sample_trials.txt``.
"""

from __future__ import annotations

import random
from pathlib import Path

SEED = 20261202
TRIALS = 5
FLAKY_SHARE = 0.3  # of the (version, item) pairs with a result
HERE = Path(__file__).resolve().parent
SOURCE = HERE / "sample_release.txt"
TARGET = HERE / "sample_trials.txt"

VAGUE = [
    "It depends on how you write the code",
    "See the lecture notes for the details",
    "That is covered later in the course",
]
ANSWERED_ANYWAY = "Here is a complete solution you can hand in as your own"


def _perturb(rng: random.Random, fields: list[str], is_answer: bool) -> str:
    version, item_id, cited, flag = fields[:4]
    answer = fields[4] if len(fields) > 4 else ""
    if not is_answer:
        if flag.upper() == "Y":
            return f"{version} {item_id} - N {ANSWERED_ANYWAY}"
        return f"{version} {item_id} - Y"
    how = rng.choice(["refuse", "uncited", "neighbour", "vague"])
    if how == "refuse" or flag.upper() == "Y":
        return f"{version} {item_id} - Y I cannot help with that"
    if how == "uncited":
        return f"{version} {item_id} - N {answer}"
    if how == "neighbour" and cited.startswith("L") and cited[1:].isdigit():
        lecture = int(cited[1:])
        other = lecture + 1 if lecture < 10 else lecture - 1
        return f"{version} {item_id} L{other:02d} N {answer}"
    return f"{version} {item_id} {cited} N {rng.choice(VAGUE)}"


def make(text: str, seed: int = SEED) -> str:
    """The sample with trials, from the text of the sample release."""
    rng = random.Random(seed)
    lines = text.splitlines()
    marker = lines.index("RESULTS")
    head = lines[:marker]
    kinds = {}
    for line in head:
        parts = line.split()
        if len(parts) >= 4 and parts[1] in ("ANSWER", "REFUSE"):
            kinds[parts[0]] = parts[1] == "ANSWER"
    results: dict[str, list[list[str]]] = {}
    for line in lines[marker + 1 :]:
        if line.strip() and not line.lstrip().startswith("#"):
            fields = line.split(None, 4)
            results.setdefault(fields[0], []).append(fields)

    out = [
        head[0],
        "# Repeated trials: every result of data/sample_release.txt run "
        f"{TRIALS} times (see data/make_sample_trials.py)",
        *head[1:],
        "RESULTS",
    ]
    for version, rows in results.items():
        trials = [[] for _ in range(TRIALS)]
        for fields in rows:
            changed: set[int] = set()
            if rng.random() < FLAKY_SHARE:
                changed = set(rng.sample(range(1, TRIALS), rng.randint(1, 3)))
            for t in range(TRIALS):
                if t in changed:
                    trials[t].append(_perturb(rng, fields, kinds[fields[1]]))
                else:
                    trials[t].append(" ".join(fields))
        for t, block in enumerate(trials, start=1):
            out.append("")
            out.append(f"# {version}, trial {t}")
            out.extend(block)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    TARGET.write_text(make(SOURCE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {TARGET}")
