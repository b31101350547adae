"""The notebook pages: executed, styled by the site, with alt text and a .ipynb download."""

from __future__ import annotations

import base64
import html
import json
import math
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from _configs import ONE_LADDER

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
    # Ours, inlined by hooks/loading.py, carry data-posenc-from; Jupyter's would not.
    foreign = [s for s in re.findall(r"<style\b[^>]*>", text) if "data-posenc-from" not in s]
    assert not foreign, f"{name}: inline stylesheet left in the page: {foreign[:3]}"
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


def test_figures_have_their_svg_title_as_alt_text(notebook):
    name, text = notebook
    figures = re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]+)">', text)
    source = (ROOT / "docs" / "notebooks" / f"{name}.py").read_text(encoding="utf-8")
    draws = source.count("SVG(to_svg(")
    assert len(figures) == draws, f"{name}: {draws} figures drawn, {len(figures)} on the page"
    for data, alt in figures:
        svg = base64.b64decode(data).decode()
        assert f"<title>{alt}</title>" in svg
        assert "No description" not in alt


def test_the_figure_notebooks_draw_figures():
    for name in ("clocks-and-signatures", "which-scaling"):
        assert "SVG(to_svg(" in (ROOT / "docs" / "notebooks" / f"{name}.py").read_text()


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
# "Which scaling does my model use?": what it prints, against the configs themselves


def _printed(site_dir: Path, name: str) -> list[str]:
    text = (site_dir / "notebooks" / name / "index.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="jp-RenderedText[^>]*>\s*<pre>(.*?)</pre>', text, re.S)
    return [line for block in blocks for line in html.unescape(block).splitlines()]


def _declared(config: dict) -> dict[str, tuple[str, str]]:
    """Row label suffix -> (form, scheme), as the file itself spells them."""
    for form in ("rope_parameters", "rope_scaling"):
        if config.get(form) is not None:
            entry = config[form]
            break
    else:
        return {"": ("none", "default")}
    nested = {k: v for k, v in entry.items() if isinstance(v, dict)}
    if nested:
        return {f" [{k}]": (form, v.get("rope_type", v.get("type"))) for k, v in nested.items()}
    return {"": (form, entry.get("rope_type", entry.get("type", "default")))}


def test_which_scaling_names_the_form_and_scheme_of_every_config(site_dir: Path):
    lines = _printed(site_dir, "which-scaling")
    assert len(ONE_LADDER) == 12
    for path in ONE_LADDER:
        for suffix, (form, scheme) in _declared(json.loads(path.read_text())).items():
            label = path.name + suffix
            rows = [line[len(label) :].split() for line in lines if line.startswith(label + " ")]
            assert [form, scheme] in [row[:2] for row in rows], f"{label}: {rows}"


def test_which_scaling_prints_the_llama3_bands_and_attention_factors(site_dir: Path):
    text = "\n".join(_printed(site_dir, "which-scaling"))
    llama = json.loads((ROOT / "data/configs/llama-3.1-8b.json").read_text())
    scaling, dim = llama["rope_scaling"], llama["hidden_size"] // llama["num_attention_heads"]
    length = scaling["original_max_position_embeddings"]
    waves = [2 * math.pi * llama["rope_theta"] ** (2 * i / dim) for i in range(dim // 2)]
    high = sum(w < length / scaling["high_freq_factor"] for w in waves)
    low = sum(w > length / scaling["low_freq_factor"] for w in waves)
    assert f"{high} kept, {dim // 2 - high - low} blended," in text
    assert f"{low} divided by s = {scaling['factor']:g}" in text
    yarn = 0.1 * math.log(4) + 1  # Qwen2.5, s = 4
    longrope = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))  # Phi-3, 128k over 4k
    assert f"yarn     s 4   a = {yarn:.4f}, logits times {yarn**2:.4f}" in text
    assert f"longrope s 32  a = {longrope:.4f}, logits times {longrope**2:.4f}" in text
    assert "exit status 0" in text and "read: llama3, base 500000" in text


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
