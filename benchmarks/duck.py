"""Baseline: the gate's metrics computed by one DuckDB SQL query over the file.

This is what a data engineer might write instead of the package: read the
file as text, cut it into numbered lines, split the fields with regular
expressions, join the results onto the golden items and count. Only the
formatting of the three lines (half-up rounding and the reasons, done by the
plain-Python oracle's helpers) happens outside SQL. Input validation
(duplicates, bad flags, ...) is not done, which favours DuckDB.

Case folding: DuckDB has ``lower`` but no Unicode case folding; the query adds
the one fold the generated inputs need (``ß`` -> ``ss``). The benchmark runner
checks that the metrics equal the oracle's on every generated file.

Repeated trials (``--trials``, :data:`TRIALS_QUERY`): the same scoring of
every result line, then one group per (version, item) counting its trials and
the passing ones, and one row per (version, trial count) summing them; the
exact rates (mean over items of each item's fraction of passing trials) are
added up from those few rows with Fractions.

Run as ``python -m benchmarks.duck [--trials] FILE``: prints the report on
stdout, then the query's own time on stderr as ``query_seconds=<float>``.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

__all__ = ["QUERY", "TRIALS_QUERY", "metrics", "report"]

LAST_QUERY_SECONDS = [0.0]

_SCORED = r"""
WITH
raw AS (
    -- One VARCHAR column per line: no delimiter or quote character can match.
    SELECT row_number() OVER () AS n, l
    FROM read_csv($path, columns = {'l': 'VARCHAR'}, delim = chr(1), quote = '', escape = '',
                  header = false, auto_detect = false, strict_mode = false)
),
kept AS MATERIALIZED (
    SELECT n, CASE WHEN regexp_matches(l, '^[ \t\r]|[ \t\r]$')
                   THEN trim(l, chr(32) || chr(9) || chr(13)) ELSE l END AS l
    FROM raw
    WHERE NOT regexp_full_match(l, '[ \t\r]*(#.*)?')
),
head AS MATERIALIZED (
    SELECT min(n) AS first_line,
           min(n) FILTER (WHERE l = 'RESULTS' AND n > (SELECT min(n) FROM kept)) AS results_line
    FROM kept
),
golden AS MATERIALIZED (
    SELECT g.id, upper(g.kind) = 'ANSWER' AS is_answer, g.src,
           CASE WHEN upper(g.kind) = 'ANSWER' AND g.kw <> '-' THEN list_filter(
               list_transform(
                   string_split(g.kw, ','),
                   lambda k: replace(lower(regexp_replace(trim(k, chr(32) || chr(9)), '[ \t]+',
                                                          ' ', 'g')), 'ß', 'ss')
               ),
               lambda k: k <> ''
           ) ELSE [] END AS keywords
    FROM (
        SELECT regexp_extract(
            l, '^([^ \t]+)[ \t]+([^ \t]+)[ \t]+([^ \t]+)[ \t]+(.+)$', ['id', 'kind', 'src', 'kw']
        ) AS g
        FROM kept, head WHERE n > first_line AND n < results_line
    )
),
results AS (
    -- The answer is the rest of the line after the fourth field: cut by length, since a
    -- capture group for it makes the regular expression several times slower.
    SELECT r.version, r.id, nullif(r.cited, '-') AS cited, upper(r.flag) = 'Y' AS refused,
           ltrim(l[length(r.fields) + 1:], chr(32) || chr(9)) AS answer
    FROM (
        SELECT l, regexp_extract(
            l, '^(([^ \t]+)[ \t]+([^ \t]+)[ \t]+([^ \t]+)[ \t]+([^ \t]+))',
            ['fields', 'version', 'id', 'cited', 'flag']
        ) AS r
        FROM kept, head WHERE n > results_line
    )
),
scored AS (
    SELECT version, id, is_answer,
           is_answer AND NOT refused AND (
               len(keywords) = 0
               OR list_bool_and(list_transform(keywords, lambda k: contains(folded, k)))
           ) AS correct,
           is_answer AND NOT refused AND cited IS NOT DISTINCT FROM src AS cited_ok,
           NOT is_answer AND refused AS refused_ok,
           NOT is_answer AND NOT refused AS violation
    FROM (
        SELECT r.version, r.id, r.refused, r.cited, g.is_answer, g.src, g.keywords,
               replace(lower(CASE WHEN contains(r.answer, chr(9)) OR contains(r.answer, '  ')
                                  THEN regexp_replace(r.answer, '[ \t]+', ' ', 'g')
                                  ELSE r.answer END), 'ß', 'ss') AS folded
        FROM results r JOIN golden g ON r.id = g.id
    )
)
"""

_HEAD = r"""
SELECT version,
       (SELECT count(*) FILTER (WHERE is_answer) FROM golden) AS n_answer,
       (SELECT count(*) FILTER (WHERE NOT is_answer) FROM golden) AS n_refuse,
"""

QUERY = (
    _SCORED
    + _HEAD
    + r"""
       1 AS trials,
       count(*) FILTER (WHERE correct) AS correct,
       count(*) FILTER (WHERE cited_ok) AS cited_ok,
       count(*) FILTER (WHERE refused_ok) AS refused_ok,
       count(*) FILTER (WHERE violation) AS violations,
       (SELECT regexp_split_to_array(l, '[ \t]+') FROM kept, head WHERE n = first_line)
           AS thresholds
FROM scored
GROUP BY version
"""
)

TRIALS_QUERY = (
    _SCORED
    + r""",
per_item AS (
    SELECT version, count(*) AS trials,
           count(*) FILTER (WHERE correct) AS correct,
           count(*) FILTER (WHERE cited_ok) AS cited_ok,
           count(*) FILTER (WHERE refused_ok) AS refused_ok,
           bool_or(violation) AS violation
    FROM scored
    GROUP BY version, id
)"""
    + _HEAD
    + r"""
       trials,
       sum(correct) AS correct,
       sum(cited_ok) AS cited_ok,
       sum(refused_ok) AS refused_ok,
       count(*) FILTER (WHERE violation) AS violations,
       (SELECT regexp_split_to_array(l, '[ \t]+') FROM kept, head WHERE n = first_line)
           AS thresholds
FROM per_item
GROUP BY version, trials
"""
)


def metrics(path: str, baseline: str = "OLD", candidate: str = "NEW", trials: bool = False):
    """Run :data:`QUERY` (:data:`TRIALS_QUERY` with ``trials``).

    Returns ``(thresholds, {version: metrics})`` with exact values: a rate is
    the sum over the (version, trial count) rows of ``passing / trials``,
    divided by the items of its type (one trial: a plain count).
    """
    import duckdb

    con = duckdb.connect()
    start = time.perf_counter()
    rows = con.execute(TRIALS_QUERY if trials else QUERY, {"path": path}).fetchall()
    LAST_QUERY_SECONDS[0] = time.perf_counter() - start
    sums, thresholds = {}, None
    for version, n_answer, n_refuse, n, correct, cited_ok, refused_ok, violations, t in rows:
        thresholds = [Fraction(x) for x in t[1:]]
        zero = Fraction(0)
        total = sums.setdefault(version, [n_answer, n_refuse, zero, zero, zero, 0])
        total[2] += Fraction(correct, n)
        total[3] += Fraction(cited_ok, n)
        total[4] += Fraction(refused_ok, n)
        total[5] += violations
    out = {
        version: {
            "correctness": correct / n_answer if n_answer else None,
            "citation": cited_ok / n_answer if n_answer else None,
            "refusal": refused_ok / n_refuse if n_refuse else None,
            "violations": violations,
        }
        for version, (n_answer, n_refuse, correct, cited_ok, refused_ok, violations) in sums.items()
    }
    return thresholds, out


def report(path: str, baseline: str = "OLD", candidate: str = "NEW", trials: bool = False) -> str:
    """The three canonical lines from the query's metrics (oracle formatting)."""
    from tests import oracle

    thresholds, values = metrics(path, baseline, candidate, trials)
    lines = []
    for label in (baseline, candidate):
        v = values[label]
        figures = " ".join(f"{m} {oracle._half_up(v[m])}" for m in oracle.METRICS)
        lines.append(f"{label}: {figures} violations {v['violations']}")
    why = oracle.reasons(thresholds, values[baseline], values[candidate])
    lines.append("BLOCK: " + "; ".join(why) if why else "RELEASE")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    args = sys.argv[1:]
    text = report(args[-1], trials="--trials" in args[:-1])
    sys.stdout.write(text)
    sys.stderr.write(f"query_seconds={LAST_QUERY_SECONDS[0]:.6f}\n")
