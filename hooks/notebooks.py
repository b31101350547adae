"""Notebook pages: offline, with math rendered at build time, and a .ipynb to download.

mkdocs-jupyter's template adds a MathJax configuration, an empty ``<script
src="">`` (which would request the page itself) and a module that imports
Mermaid from a CDN when a diagram is present. None of them is wanted: math is
rendered by KaTeX at build time and nothing may be fetched at read time.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext

_UNWANTED = (
    re.compile(r'<script src="">\s*</script>'),
    re.compile(r'<script type="text/x-mathjax-config">.*?</script>', re.S),
    re.compile(
        r'<script type="module">(?:(?!</script>).)*?https://cdn(?:(?!</script>).)*</script>', re.S
    ),
)
_TITLE_END = re.compile(r"</h1>")


def is_notebook(page_html: str) -> bool:
    return 'class="jp-Notebook' in page_html


def clean(page_html: str) -> str:
    """Drop the scripts mkdocs-jupyter adds for MathJax and CDN-hosted Mermaid."""
    for pattern in _UNWANTED:
        page_html = pattern.sub("", page_html)
    return page_html


def add_download_link(page_html: str, ipynb_name: str) -> str:
    """A link to the notebook file, right after the page title."""
    link = (
        f'</h1>\n<p class="posenc-download"><a href="../{ipynb_name}" download>'
        f"Download this notebook ({ipynb_name})</a></p>"
    )
    return _TITLE_END.sub(link, page_html, count=1)


def as_ipynb(source: Path) -> str:
    """The jupytext source as an (unexecuted) .ipynb document, the same bytes every build.

    nbformat gives each cell a random id; numbered ids keep the file reproducible.
    """
    notebook = jupytext.read(source)
    for number, cell in enumerate(notebook.cells, 1):
        cell["id"] = f"cell-{number}"
    return jupytext.writes(notebook, fmt="ipynb")
