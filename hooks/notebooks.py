"""Notebook pages: offline, with math rendered at build time, and a .ipynb to download.

mkdocs-jupyter's template puts before the cells a MathJax configuration, an
empty ``<script src="">`` (which would request the page itself), a module that
imports Mermaid from a CDN when a diagram is present, a clipboard web component
and JupyterLab's stylesheets, inline: about 590 kB of CSS on every notebook
page, which made the page slow to style and lay out. None of it is wanted: math
is rendered by KaTeX at build time, nothing may be fetched at read time, and a
few rules in ``posenc.css`` style the cells.

Two things on an executed notebook page change from run to run, and are made
fixed here (:func:`settle`): nbformat gives each cell a random id, and the
kernel sends what a cell prints in as many pieces as it happened to flush, each
becoming an output block of its own.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import jupytext

# Everything mkdocs-jupyter puts before the cells: the clipboard web component,
# its handler, the JupyterLab stylesheets (about 590 kB, inline, on every
# notebook page), MathJax and Mermaid. It all goes; the site's own styles and
# Material's code blocks take over (see posenc.css, "Notebook pages").
_HEAD = re.compile(
    r"(<script>\s*\(function \(global, factory\).*?)(<div class=\"jupyter-wrapper\">)", re.S
)
_UNWANTED = (
    # The copy button of each code cell and the hidden copy of its source:
    # Material's own copy button serves the code blocks made below.
    re.compile(r'<div class="zeroclipboard-container">.*?</clipboard-copy>\s*</div>\n?', re.S),
    re.compile(r'<div class="clipboard-copy-txt" id="[^"]*">.*?</div>\n?', re.S),
)
# A highlighted input cell, as mkdocs-jupyter writes it.
_CODE = re.compile(
    r'<div class="highlight-ipynb hl-(\w+)"><pre>(?:<span></span>)?(.*?)</pre></div>', re.S
)
# A figure output: nbconvert writes the SVG as a data URL in an <img> whose alt
# text says "No description has been provided for this image".
_SVG_IMG = re.compile(
    r'(<div class="jp-RenderedSVG[^>]*>\s*)<img (?:alt="[^"]*" )?'
    r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=\s]+)"\s*/?>'
)
_SVG_TITLE = re.compile(r"<svg[^>]*>\s*<title>(.*?)</title>", re.S)
_TITLE_END = re.compile(r"</h1>")
# The random id nbformat gives a cell, as nbconvert writes it.
_CELL_ID = re.compile(r' id="cell-id=[^"]*"')
# One output block of printed text (stdout, or text/plain display data; an
# execute result's block carries a class of its own and is left alone). Its
# text is escaped, so it cannot hold "</pre>": the match stops at the first one.
_TEXT_OUTPUT = (
    r'<div class="jp-OutputArea-child">\s*'
    r'<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>\s*'
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"[^>]*>\s*'
    r"<pre>(?P<{name}>(?:(?!</pre>).)*)</pre>\s*</div>\s*</div>"
)
_TWO_TEXT_OUTPUTS = re.compile(
    "(?P<first>" + _TEXT_OUTPUT.format(name="a") + r")\s*" + _TEXT_OUTPUT.format(name="b"), re.S
)


class NotebookPageError(ValueError):
    """A notebook page is not shaped as this module expects."""


def is_notebook(page_html: str) -> bool:
    return 'class="jp-Notebook' in page_html


def clean(page_html: str) -> str:
    """A notebook page without mkdocs-jupyter's scripts and stylesheets.

    Input cells become code blocks like every other on the site
    (``<div class="highlight"><pre><code>``), so Material colours them in both
    palettes and gives each its copy button.
    """
    page_html, found = _HEAD.subn(r"\2", page_html, count=1)
    if not found:
        raise NotebookPageError(
            "mkdocs-jupyter's header (clipboard script ... jupyter-wrapper) was not found: "
            "has its template changed? See hooks/notebooks.py."
        )
    for pattern in _UNWANTED:
        page_html = pattern.sub("", page_html)
    number = 0

    def code_block(match: re.Match[str]) -> str:
        nonlocal number
        number += 1
        language, body = match.groups()
        return (
            f'<div class="language-{language} highlight"><pre id="nb-code-{number}">'
            f"<code>{body}</code></pre></div>"
        )

    page_html = _CODE.sub(code_block, settle(page_html))
    # Heading anchors look and behave like the theme's own.
    page_html = page_html.replace(
        '<a class="anchor-link" ', '<a class="headerlink" title="Permanent link" '
    )
    return _SVG_IMG.sub(_figure_with_alt, page_html)


def settle(page_html: str) -> str:
    """A notebook page without what varies between two runs of the same notebook.

    Cells get ids numbered in order (``nb-cell-1``, ...) instead of nbformat's
    random ones, and consecutive blocks of printed text in one cell become one
    block, as if the kernel had sent it all at once. Applying it twice changes
    nothing.
    """
    number = 0

    def cell_id(_: re.Match[str]) -> str:
        nonlocal number
        number += 1
        return f' id="nb-cell-{number}"'

    page_html = _CELL_ID.sub(cell_id, page_html)

    def join(match: re.Match[str]) -> str:
        # The first block, with the second one's text appended to its own.
        first, cut = match.group("first"), match.end("a") - match.start()
        return first[:cut] + match.group("b") + first[cut:]

    merged = 1
    while merged:  # each pass joins pairs; a run of n blocks needs about log2(n) passes
        page_html, merged = _TWO_TEXT_OUTPUTS.subn(join, page_html)
    return page_html


def _figure_with_alt(match: re.Match[str]) -> str:
    """An SVG output's <img>, with the SVG's own <title> as its alt text."""
    data = "".join(match.group(2).split())
    svg = base64.b64decode(data).decode("utf-8")
    title = _SVG_TITLE.search(svg)
    if title is None:
        raise NotebookPageError(
            "a notebook figure has no <title> to serve as its alt text: display it with "
            "SVG(posenc.figures.to_svg(fig, title=...))"
        )
    alt = html.escape(html.unescape(title.group(1)).strip())
    return f'{match.group(1)}<img src="data:image/svg+xml;base64,{data}" alt="{alt}">'


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
