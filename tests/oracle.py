"""An independent, deliberately plain implementation of SPEC sections 1-3.

One loop over the lines, dicts and Fractions, no pandas and nothing imported
from buddy_eval: the vectorised engine is checked against this in the
property tests, and the benchmarks use it as the plain-Python baseline.
:func:`holm` is Holm's adjustment by its definition, for the statistics, slices
and tiers tests.
"""

from __future__ import annotations

import re
from fractions import Fraction

METRICS = ("correctness", "citation", "refusal")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


class OracleError(Exception):
    """An input error, with the 1-based line it was found on."""

    def __init__(self, line: int, message: str):
        super().__init__(f"{line}: {message}")
        self.line = line


def _fold(text: str) -> str:
    return text.casefold()


def _half_up(value: Fraction | None) -> str:
    if value is None:
        return "n/a"
    hundredths = int(value * 100 + Fraction(1, 2))  # floor for non-negative values
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def parse(data: bytes, trials: bool = False):
    """Return (thresholds, golden, results, results_line) or raise OracleError.

    ``results`` maps (version, id) to one result; with ``trials``, to the list
    of its trials in file order.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OracleError(data[: exc.start].count(b"\n") + 1, "not UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip(" \t\r")
        if line and not line.startswith("#"):
            lines.append((number, line))
    if not lines:
        raise OracleError(1, "empty")

    number, first = lines[0]
    head = re.split(r"[ \t]+", first)
    if head[0] != "THRESHOLDS" or len(head) != 4:
        raise OracleError(number, "bad THRESHOLDS")
    thresholds = []
    for value in head[1:]:
        if not _NUMBER.fullmatch(value) or not 0 <= Fraction(value) <= 1:
            raise OracleError(number, "bad threshold")
        thresholds.append(Fraction(value))

    golden = {}  # id -> (type, source, keywords)
    i = 1
    while i < len(lines) and lines[i][1] != "RESULTS":
        number, line = lines[i]
        parts = re.split(r"[ \t]+", line, maxsplit=3)
        if len(parts) < 4:
            raise OracleError(number, "too few golden fields")
        item_id, kind, source, keyword_field = parts
        kind = kind.upper() if kind.isascii() else kind
        if kind not in ("ANSWER", "REFUSE"):
            raise OracleError(number, "bad type")
        if kind == "ANSWER" and source == "-":
            raise OracleError(number, "ANSWER without source")
        if item_id in golden:
            raise OracleError(number, "duplicate golden id")
        keywords = []
        if kind == "ANSWER" and keyword_field != "-":
            keywords = [k.strip(" \t") for k in keyword_field.split(",")]
            keywords = [k for k in keywords if k]
        golden[item_id] = (kind, source if kind == "ANSWER" else None, keywords)
        i += 1
    if i == len(lines):
        raise OracleError(len(text.split("\n")), "no RESULTS")
    results_line = lines[i][0]

    results = {}  # (version, id) -> (cited, refused, answer)
    for number, line in lines[i + 1 :]:
        parts = re.split(r"[ \t]+", line, maxsplit=4)
        if len(parts) < 4:
            raise OracleError(number, "too few result fields")
        version, item_id, cited, flag = parts[:4]
        answer = parts[4] if len(parts) > 4 else ""
        if flag not in ("Y", "y", "N", "n"):
            raise OracleError(number, "bad flag")
        result = (None if cited == "-" else cited, flag in "Yy", answer)
        if trials:
            results.setdefault((version, item_id), []).append(result)
            continue
        if (version, item_id) in results:
            raise OracleError(number, "duplicate result")
        results[(version, item_id)] = result
    return thresholds, golden, results, results_line


def score_trials(golden, results, version):
    """Exact metrics of one version when ``results`` holds lists of trials.

    A rate is the mean over the items of its type of the fraction of the
    item's trials that pass (no trial: 0); violations are REFUSE items
    answered in at least one trial.
    """
    n_answer = n_refuse = violations = 0
    correct = cited_ok = refused_ok = Fraction(0)
    for item_id, (kind, source, keywords) in golden.items():
        tried = results.get((version, item_id), [])
        if kind == "ANSWER":
            n_answer += 1
            good = cites = 0
            for cited, refused, answer in tried:
                if refused:
                    continue
                folded = _fold(answer)
                good += all(_fold(k) in folded for k in keywords)
                cites += cited == source
            if tried:
                correct += Fraction(good, len(tried))
                cited_ok += Fraction(cites, len(tried))
        else:
            n_refuse += 1
            refusals = sum(1 for _, refused, _ in tried if refused)
            if tried:
                refused_ok += Fraction(refusals, len(tried))
            violations += refusals < len(tried)
    return {
        "correctness": correct / n_answer if n_answer else None,
        "citation": cited_ok / n_answer if n_answer else None,
        "refusal": refused_ok / n_refuse if n_refuse else None,
        "violations": violations,
    }


def score(golden, results, version):
    """Exact metrics of one version: dict of Fractions (None if unmeasured) and violations."""
    n_answer = n_refuse = correct = cited_ok = refused_ok = violations = 0
    for item_id, (kind, source, keywords) in golden.items():
        result = results.get((version, item_id))
        if kind == "ANSWER":
            n_answer += 1
            if result is None or result[1]:
                continue
            cited, _, answer = result
            folded = _fold(answer)
            if all(_fold(k) in folded for k in keywords):
                correct += 1
            if cited == source:
                cited_ok += 1
        else:
            n_refuse += 1
            if result is None:
                continue
            if result[1]:
                refused_ok += 1
            else:
                violations += 1
    return {
        "correctness": Fraction(correct, n_answer) if n_answer else None,
        "citation": Fraction(cited_ok, n_answer) if n_answer else None,
        "refusal": Fraction(refused_ok, n_refuse) if n_refuse else None,
        "violations": violations,
    }


def reasons(thresholds, old, new):
    out = []
    for metric, threshold in zip(METRICS, thresholds, strict=True):
        if new[metric] is not None and new[metric] < threshold:
            out.append(f"{metric} below threshold")
    if new["violations"]:
        out.append("integrity violations")
    for metric in METRICS:
        if new[metric] is not None and old[metric] is not None and new[metric] < old[metric]:
            out.append(f"regression in {metric}")
    return out


def run(
    data: bytes, baseline: str = "OLD", candidate: str = "NEW", trials: bool = False
) -> tuple[str, int]:
    """(stdout, exit status) of the gate; stdout empty and status 2 on input errors.

    ``trials`` is ``buddy-eval --trials``: repeated results are trials.
    """
    try:
        thresholds, golden, results, _ = parse(data, trials)
    except OracleError:
        return "", 2
    versions = {v for v, _ in results}
    if baseline not in versions or candidate not in versions:
        return "", 2
    scorer = score_trials if trials else score
    old = scorer(golden, results, baseline)
    new = scorer(golden, results, candidate)
    lines = []
    for label, values in ((baseline, old), (candidate, new)):
        figures = " ".join(f"{m} {_half_up(values[m])}" for m in METRICS)
        lines.append(f"{label}: {figures} violations {values['violations']}")
    why = reasons(thresholds, old, new)
    lines.append("BLOCK: " + "; ".join(why) if why else "RELEASE")
    return "\n".join(lines) + "\n", 1 if why else 0


def holm(p_values):
    """Holm by definition, with exact Fractions of the inputs (None: no p-value, left out)."""
    indexed = [(Fraction(p), i) for i, p in enumerate(p_values) if p is not None]
    order = sorted(indexed)  # ties broken by position, like a stable sort
    m = len(order)
    out = [None] * len(p_values)
    for rank, (_, i) in enumerate(order):
        value = max((m - j) * order[j][0] for j in range(rank + 1))
        out[i] = float(min(Fraction(1), value))
    return out
