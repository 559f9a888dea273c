"""Sphinx configuration of the buddy_eval documentation site (built offline by `make docs`)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

project = "buddy_eval"
author = "buddy_eval contributors"
copyright = "buddy_eval contributors"  # noqa: A001 - Sphinx's own setting name
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.doctest", "numpydoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "ci/*.yml"]
myst_heading_anchors = 3
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_member_order = "bysource"
html_theme = "alabaster"
html_static_path: list[str] = []
# Deterministic output: no "last updated" stamp, no source links that embed paths.
html_last_updated_fmt = None
html_show_sourcelink = False
html_copy_source = False

# `make docs` also runs every `>>>` example of the API reference (`-b doctest`). Each runs from
# the repository root, so `data/example.txt` is the bundled file, with `import buddy_eval as be`
# and charts drawn off screen. As under `python -m doctest`, an example may use the public names
# of the module that documents it (`format_fraction`, `wilson_interval`, `load_golden`, ...).
doctest_global_setup = f"""
import os
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
_doctest_cwd = os.getcwd()
os.chdir({str(ROOT)!r})

import buddy_eval as be
from buddy_eval.formatting import *
from buddy_eval.ledger import *
from buddy_eval.stats import *
from buddy_eval.tasks import *
from buddy_eval import *
"""
doctest_global_cleanup = """
import matplotlib.pyplot

matplotlib.pyplot.close("all")
os.chdir(_doctest_cwd)
"""
