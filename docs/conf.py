"""Sphinx configuration of the shuangkou documentation site.

Build it with ``python -m sphinx -W -b html docs docs/_build/html`` (``tests/test_docs.py``
does, with warnings as errors). Every ``docs/*.md`` page and every ``docs/guides/*.md`` guide
joins the site through glob toctrees in ``index.md``; the API reference (``docs/api/``,
generated, not committed) is written by ``_apigen.py`` at each build for every public module
found in the installed package, so a new public module needs no edit here.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _apigen  # noqa: E402  (docs/_apigen.py, beside this file)

import shuangkou  # noqa: E402

project = "shuangkou"
author = "the shuangkou authors"
copyright = "the shuangkou authors, MIT License"
release = shuangkou.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # [text](page.md#a-heading) links

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
napoleon_google_docstring = True
napoleon_numpy_docstring = True

# Furo: a theme made for API reference (signatures, a page table of contents, dark mode);
# _static/wide.css widens its column so 100-column code blocks do not scroll at 1280 px.
html_theme = "furo"
html_title = f"shuangkou {release}"
html_static_path = ["_static"]
html_css_files = ["wide.css"]

_apigen.write_pages(HERE / "api")


# The project's property and attribute docstrings are prose (their types come from the
# annotations), but napoleon reads a first line like "(n, 4): place of each seat" as
# "type: description". Such docstrings are set aside before napoleon runs and put back after.
_ATTRIBUTE_KINDS = ("attribute", "property", "data")
_set_aside: dict[str, list[str]] = {}


def _set_aside_attribute_docstring(app, what, name, obj, options, lines):  # type: ignore[no-untyped-def]
    if what in _ATTRIBUTE_KINDS:
        _set_aside[name] = lines[:]
        lines.clear()


def _restore_attribute_docstring(app, what, name, obj, options, lines):  # type: ignore[no-untyped-def]
    if what in _ATTRIBUTE_KINDS:
        lines[:] = _set_aside.pop(name, lines)


# The README, included on the home page (its API table), links the docs on GitHub, where it is
# read; on the site those links go to the site's own pages. Other repository files (examples/,
# src/) have no page here and keep their GitHub links.
_REPO_DOCS = re.compile(r"https://github\.com/shuangkou/shuangkou/blob/main/docs/([\w/.-]+?)\.md")


def own_pages(text: str, docname: str) -> str:
    """``text`` with every GitHub link to a page of docs/ made a link to that page of the
    site, relative to the document ``docname`` that includes it."""
    here = posixpath.dirname(docname)
    return _REPO_DOCS.sub(lambda m: posixpath.relpath(m.group(1), here or ".") + ".md", text)


def _own_pages_in_include(app, relative_path, parent_docname, content):  # type: ignore[no-untyped-def]
    content[0] = own_pages(content[0], parent_docname)


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("include-read", _own_pages_in_include)
    # napoleon's own autodoc-process-docstring handler has the default priority, 500
    app.connect("autodoc-process-docstring", _set_aside_attribute_docstring, priority=400)
    app.connect("autodoc-process-docstring", _restore_attribute_docstring, priority=600)
