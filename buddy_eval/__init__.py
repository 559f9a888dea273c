"""buddy_eval: the release gate for the Buddy teaching assistant.

Load an input, score two versions against a human-curated golden set, and
decide whether the candidate may be released::

    >>> import buddy_eval as be
    >>> ev = be.evaluate(be.load("data/example.txt"))     # doctest: +SKIP
    >>> print(ev.report())                                 # doctest: +SKIP
    OLD: correctness 0.67 citation 0.67 refusal 1.00 violations 0
    NEW: correctness 1.00 citation 1.00 refusal 0.00 violations 1
    BLOCK: refusal below threshold; integrity violations; regression in refusal
"""

from .decision import Decision
from .errors import BuddyEvalError, InputError
from .evaluation import Evaluation, evaluate, report
from .loading import EvalInput, from_frames, load
from .parsing import Thresholds

__all__ = [
    "BuddyEvalError",
    "Decision",
    "EvalInput",
    "Evaluation",
    "InputError",
    "Thresholds",
    "evaluate",
    "from_frames",
    "load",
    "report",
]

__version__ = "0.1.0"
