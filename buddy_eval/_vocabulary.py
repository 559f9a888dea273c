"""The words of buddy_eval, defined once: metric, item-type, column, change and exit-status names.

Every other module reads its labels from here, so a metric or a change label
is spelt one way in the gate, the statistics, the DataFrames, the JSON and the
charts. This module imports nothing from the package.
"""

from __future__ import annotations

__all__ = [
    "BLOCK",
    "CHANGES",
    "EXIT_BLOCK",
    "EXIT_COULD_NOT_FINISH",
    "EXIT_INPUT_ERROR",
    "EXIT_RELEASE",
    "EXIT_STATUS_HELP",
    "FLAG_OF",
    "ITEM_TYPES",
    "ITEM_TYPE_OF",
    "METRICS",
    "MIN_PAIRED",
    "MISSING_COUNTS_AS_FAILED",
    "PROG",
    "RATE_METRICS",
    "RELEASE",
    "TRIAL_CHANGES",
]

PROG = "buddy-eval"

#: The two verdicts of the gate.
RELEASE = "RELEASE"
BLOCK = "BLOCK"

#: Golden item types.
ITEM_TYPES = ("ANSWER", "REFUSE")

#: The three rates of the canonical report, in report order, and all four metrics.
RATE_METRICS = ("correctness", "citation", "refusal")
METRICS = (*RATE_METRICS, "violations")

#: The per-item boolean column each metric counts.
FLAG_OF = {
    "correctness": "correct",
    "citation": "cited_ok",
    "refusal": "refused_ok",
    "violations": "violation",
}

#: The golden item type each metric is measured over.
ITEM_TYPE_OF = {
    "correctness": "ANSWER",
    "citation": "ANSWER",
    "refusal": "REFUSE",
    "violations": "REFUSE",
}

#: How an item moved between the baseline and the candidate on one metric.
#: ``missing``: no result in at least one of the two versions, so the item is
#: never ``fixed`` or ``regressed``.
CHANGES = ("both pass", "both fail", "fixed", "regressed", "missing")

#: With repeated trials an item may also be ``mixed``: its rate moved by less
#: than the step that makes it fixed or regressed (see :mod:`buddy_eval._trials`).
TRIAL_CHANGES = ("both pass", "both fail", "fixed", "regressed", "mixed", "missing")

#: The one sentence every view uses about missing results and the gate's rates.
MISSING_COUNTS_AS_FAILED = (
    "an item with no result in a version counts as failed in the gate's rate, never paired"
)

#: Pairs (items with a result in both versions) a comparison needs before a
#: p-value or a difference interval is computed: below it any statement of
#: significance would be noise. The gate and the task comparison share it.
#:
#: Examples
#: --------
#: >>> from buddy_eval.stats import MIN_PAIRED, is_ready
#: >>> MIN_PAIRED, is_ready(MIN_PAIRED - 1), is_ready(MIN_PAIRED)
#: (20, False, True)
MIN_PAIRED = 20

#: Exit statuses of every subcommand.
EXIT_RELEASE = 0
EXIT_BLOCK = 1
EXIT_INPUT_ERROR = 2
EXIT_COULD_NOT_FINISH = 3

#: The exit-status table shown in every subcommand's ``--help``.
EXIT_STATUS_HELP = """\
exit status:
  0  RELEASE (gate); the output was written (tasks, notebook); no finding at or
     above --fail-on (doctor)
  1  BLOCK (gate); a finding at or above --fail-on (doctor)
  2  input or usage error: one message on stderr, nothing on stdout
  3  could not finish: an I/O error (closed or full output, broken pipe),
     out of memory or an internal error; one line on stderr, never a verdict
"""
