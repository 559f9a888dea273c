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


# A public constant (`buddy_eval.stats.MIN_PAIRED`) is documented by the `#:` comment above its
# assignment, in the private module that defines it. autodoc reads comments of the module it
# documents only, so without this a constant re-exported by a public package would show the
# docstring of its type (int, str, tuple) instead.
_TYPE_DOCSTRINGS = {kind.__doc__ for kind in (int, float, str, tuple, dict)}


def _modules():
    """buddy_eval and its modules (not the command line: importing __main__ would run it)."""
    import importlib
    import pkgutil

    import buddy_eval

    yield buddy_eval
    for found in pkgutil.walk_packages(buddy_eval.__path__, "buddy_eval."):
        if not found.name.startswith(("buddy_eval._cli", "buddy_eval.__main__")):
            yield importlib.import_module(found.name)


def _doc_comment(name: str, value) -> list[str]:
    """The `#:` comment of ``name`` in the buddy_eval module that assigns ``value`` to it."""
    from sphinx.pycode import ModuleAnalyzer

    for module in _modules():
        module_name = module.__name__
        if module.__dict__.get(name) is not value:
            continue
        comment = ModuleAnalyzer.for_module(module_name).find_attr_docs().get(("", name))
        if comment:
            return list(comment)
    return []


def _constant_docstring(app, what, name, obj, options, lines) -> None:
    if what == "data" and getattr(obj, "__doc__", None) in _TYPE_DOCSTRINGS:
        lines[:] = _doc_comment(name.rsplit(".", 1)[-1], obj)


# What the public API returns but does not export (History, Check, ...) lives in private
# modules: `.. returned-type:: History` in api.md finds the class by its name and documents it
# (`autoclass`, with the given `:members:`), so the pages name no private module.
def _private_class(name: str) -> str:
    found = [
        f"{module.__name__}.{name}"
        for module in _modules()
        if getattr(module.__dict__.get(name), "__module__", None) == module.__name__
    ]
    if len(found) != 1:
        raise ValueError(f"returned-type {name}: one class of that name expected, found {found}")
    return found[0]


def _returned_type_directive():
    from docutils.parsers.rst import directives
    from sphinx.util.docutils import SphinxDirective

    class ReturnedType(SphinxDirective):
        required_arguments = 1
        option_spec = {"members": directives.unchanged}

        def run(self):
            text = f".. autoclass:: {_private_class(self.arguments[0])}\n"
            if "members" in self.options:
                text += f"   :members: {self.options['members']}\n"
            return self.parse_text_to_nodes(text)

    return ReturnedType


def setup(app):
    # Before numpydoc (priority 500), which then reads the comment's sections.
    app.connect("autodoc-process-docstring", _constant_docstring, priority=100)
    app.add_directive("returned-type", _returned_type_directive())
