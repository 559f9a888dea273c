"""Sphinx configuration of the buddy_eval documentation site (built offline by `make docs`)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

project = "buddy_eval"
author = "buddy_eval contributors"
copyright = "buddy_eval contributors"  # noqa: A001 - Sphinx's own setting name
extensions = ["myst_parser", "sphinx.ext.autodoc", "numpydoc"]
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
