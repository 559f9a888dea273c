"""``python -m buddy_eval INPUT``: the same as ``buddy-eval INPUT``."""

import sys

from .cli import main

sys.exit(main())
