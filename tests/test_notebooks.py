"""The notebook pages: executed, styled by the site, with alt text and a .ipynb download."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from hooks.notebooks import NotebookPageError, clean

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "docs" / "notebooks").glob("*.py"))


@pytest.fixture(params=[path.stem for path in SOURCES])
def notebook(request, site_dir: Path) -> tuple[str, str]:
    page = site_dir / "notebooks" / request.param / "index.html"
    assert page.is_file(), f"{page} was not built"
    return request.param, page.read_text(encoding="utf-8")


def test_there_are_notebooks():
    assert len(SOURCES) >= 2


def test_page_carries_none_of_jupyterlabs_styles_or_scripts(notebook):
    name, text = notebook
    assert "<style" not in text, f"{name}: inline stylesheet left in the page"
    assert "clipboard-copy" not in text and "MathJax" not in text
    assert "highlight-ipynb" not in text and 'class="anchor-link"' not in text
    assert len(text.encode()) < 400_000, f"{name}: {len(text.encode())} bytes"


def test_code_cells_are_site_code_blocks(notebook):
    name, text = notebook
    cells = len(re.findall(r'class="jp-Cell jp-CodeCell', text))
    blocks = re.findall(
        r'<div class="language-python highlight"><pre id="(nb-code-\d+)"><code>', text
    )
    assert blocks, name
    assert len(blocks) == len(set(blocks))  # ids are unique: Material's copy button targets them
    assert len(blocks) <= cells


def test_cells_were_executed(notebook):
    name, text = notebook
    outputs = re.findall(r'class="jp-(?:RenderedText|RenderedSVG) jp-OutputArea-output', text)
    assert len(outputs) >= 3, f"{name}: {len(outputs)} outputs"
    assert "Traceback" not in text


def test_figures_have_their_svg_title_as_alt_text(site_dir: Path):
    text = (site_dir / "notebooks" / "clocks-and-signatures" / "index.html").read_text()
    figures = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]+)">', text)
    assert figures, "the clocks notebook draws a figure"
    for data, alt in figures:
        svg = base64.b64decode(data).decode()
        assert f"<title>{alt}</title>" in svg
        assert "No description" not in alt


def test_download_is_the_source_as_a_notebook(notebook, site_dir: Path):
    name, text = notebook
    assert f'href="../{name}.ipynb" download' in text
    downloaded = nbformat.reads((site_dir / "notebooks" / f"{name}.ipynb").read_text(), 4)
    nbformat.validate(downloaded)
    source = jupytext.read(ROOT / "docs" / "notebooks" / f"{name}.py")
    assert [c.source for c in downloaded.cells] == [c.source for c in source.cells]
    assert [c.id for c in downloaded.cells] == [
        f"cell-{n}" for n in range(1, len(source.cells) + 1)
    ]
    assert json.loads((site_dir / "notebooks" / f"{name}.ipynb").read_text())["nbformat"] == 4


# ----------------------------------------------------------------------------
# clean(), on pages that are not what it expects

HEAD = "<script>\n(function (global, factory) {})</script><style>big</style>"


def _figure(svg: str) -> str:
    data = base64.b64encode(svg.encode()).decode()
    return (
        '<div class="jp-RenderedSVG jp-OutputArea-output" data-mime-type="image/svg+xml">\n'
        '<img alt="No description has been provided for this image" '
        f'src="data:image/svg+xml;base64,{data}"/>'
    )


def test_clean_refuses_a_page_without_mkdocs_jupyters_header():
    with pytest.raises(NotebookPageError, match="template"):
        clean('<div class="jupyter-wrapper"></div>')


def test_clean_refuses_a_figure_without_a_title():
    page = HEAD + '<div class="jupyter-wrapper">' + _figure("<svg><g/></svg>") + "</div>"
    with pytest.raises(NotebookPageError, match="alt text"):
        clean(page)


def test_clean_gives_a_figure_its_title_as_alt_and_drops_the_header():
    svg = '<svg xmlns="http://www.w3.org/2000/svg">\n <title>a &amp; "b"</title><g/></svg>'
    out = clean(HEAD + '<div class="jupyter-wrapper">' + _figure(svg) + "</div>")
    assert out.startswith('<div class="jupyter-wrapper">')
    assert 'alt="a &amp; &quot;b&quot;">' in out
