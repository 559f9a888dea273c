"""``python -m buddy_eval INPUT``: the same as ``buddy-eval INPUT``."""

from ._cli import console_main

console_main()
