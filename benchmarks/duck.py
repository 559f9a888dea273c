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

Run as ``python -m benchmarks.duck FILE``: prints the report on stdout, then
the query's own time on stderr as ``query_seconds=<float>``.
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

__all__ = ["QUERY", "metrics", "report"]

LAST_QUERY_SECONDS = [0.0]

QUERY = r"""
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
    SELECT version, is_answer,
           is_answer AND NOT refused AND (
               len(keywords) = 0
               OR list_bool_and(list_transform(keywords, lambda k: contains(folded, k)))
           ) AS correct,
           is_answer AND NOT refused AND cited IS NOT DISTINCT FROM src AS cited_ok,
           NOT is_answer AND refused AS refused_ok,
           NOT is_answer AND NOT refused AS violation
    FROM (
        SELECT r.version, r.refused, r.cited, g.is_answer, g.src, g.keywords,
               replace(lower(CASE WHEN contains(r.answer, chr(9)) OR contains(r.answer, '  ')
                                  THEN regexp_replace(r.answer, '[ \t]+', ' ', 'g')
                                  ELSE r.answer END), 'ß', 'ss') AS folded
        FROM results r JOIN golden g ON r.id = g.id
    )
)
SELECT version,
       (SELECT count(*) FILTER (WHERE is_answer) FROM golden) AS n_answer,
       (SELECT count(*) FILTER (WHERE NOT is_answer) FROM golden) AS n_refuse,
       count(*) FILTER (WHERE correct) AS correct,
       count(*) FILTER (WHERE cited_ok) AS cited_ok,
       count(*) FILTER (WHERE refused_ok) AS refused_ok,
       count(*) FILTER (WHERE violation) AS violations,
       (SELECT regexp_split_to_array(l, '[ \t]+') FROM kept, head WHERE n = first_line)
           AS thresholds
FROM scored
GROUP BY version
"""


def metrics(path: str, baseline: str = "OLD", candidate: str = "NEW"):
    """Run :data:`QUERY`; return ``(thresholds, {version: metrics})`` with exact values."""
    import duckdb

    con = duckdb.connect()
    start = time.perf_counter()
    rows = con.execute(QUERY, {"path": path}).fetchall()
    LAST_QUERY_SECONDS[0] = time.perf_counter() - start
    out, thresholds = {}, None
    for version, n_answer, n_refuse, correct, cited_ok, refused_ok, violations, t in rows:
        thresholds = [Fraction(x) for x in t[1:]]
        out[version] = {
            "correctness": Fraction(correct, n_answer) if n_answer else None,
            "citation": Fraction(cited_ok, n_answer) if n_answer else None,
            "refusal": Fraction(refused_ok, n_refuse) if n_refuse else None,
            "violations": violations,
        }
    return thresholds, out


def report(path: str, baseline: str = "OLD", candidate: str = "NEW") -> str:
    """The three canonical lines from the query's metrics (oracle formatting)."""
    from tests import oracle

    thresholds, values = metrics(path, baseline, candidate)
    lines = []
    for label in (baseline, candidate):
        v = values[label]
        figures = " ".join(f"{m} {oracle._half_up(v[m])}" for m in oracle.METRICS)
        lines.append(f"{label}: {figures} violations {v['violations']}")
    why = oracle.reasons(thresholds, values[baseline], values[candidate])
    lines.append("BLOCK: " + "; ".join(why) if why else "RELEASE")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    text = report(sys.argv[1])
    sys.stdout.write(text)
    sys.stderr.write(f"query_seconds={LAST_QUERY_SECONDS[0]:.6f}\n")
