"""Time the gate's stages in-process: ``python -m benchmarks.stages [--trials] FILE``.

Prints ``import=<s> load=<s> score=<s> report=<s>``: importing the package,
:func:`buddy_eval.load`, scoring and deciding (:class:`buddy_eval.Evaluation`),
and formatting the three lines. Like ``buddy-eval FILE``, it keeps pandas out
(see :func:`buddy_eval._cli.console_main`), so the stages add up to the
process. ``--trials`` loads the file as repeated trials (``buddy-eval --trials``).
"""

from __future__ import annotations

import sys
import time

if __name__ == "__main__":
    t0 = time.perf_counter()
    from buddy_eval import Evaluation, load
    from buddy_eval._cli.gate import _without_pandas

    t1 = time.perf_counter()
    with _without_pandas(True):
        data = load(sys.argv[-1], trials="--trials" in sys.argv[1:-1])
        t2 = time.perf_counter()
        evaluation = Evaluation(data, "OLD", "NEW")
        t3 = time.perf_counter()
        evaluation.report()
        t4 = time.perf_counter()
    print(f"import={t1 - t0:.6f} load={t2 - t1:.6f} score={t3 - t2:.6f} report={t4 - t3:.6f}")
