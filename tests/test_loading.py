"""Math fonts preloaded on pages with formulas (hooks/loading.py), unit and built site."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

from hooks.loading import own_assets, preload_math_fonts, site_css

CSS = '<link rel="stylesheet" href="../../assets/katex/katex.min.css">'
MAIN = '<link rel="preload" href="../../assets/katex/fonts/KaTeX_Main-Regular.woff2"'
ITALIC = '<link rel="preload" href="../../assets/katex/fonts/KaTeX_Math-Italic.woff2"'


def _page(body: str) -> str:
    return f"<html><head>{CSS}</head><body>{body}</body></html>"


def test_fonts_of_the_formulas_are_preloaded_before_the_stylesheet():
    out = preload_math_fonts(_page('<span class="katex"><span class="mord mathnormal">k</span>'))
    assert out.index(MAIN) < out.index(CSS) and out.index(ITALIC) < out.index(CSS)
    assert out.count('as="font" type="font/woff2" crossorigin>') == 2


def test_only_fonts_in_use_are_preloaded():
    out = preload_math_fonts(_page('<span class="katex"><span class="mord">2</span></span>'))
    assert MAIN in out and ITALIC not in out
    # "katex-display" alone is not a formula's class; a page without formulas gets nothing
    assert preload_math_fonts(_page('<div class="katex-display-note">x</div>')) == _page(
        '<div class="katex-display-note">x</div>'
    )


def test_page_without_the_katex_stylesheet_is_left_alone():
    text = '<html><head></head><body><span class="katex">x</span></body></html>'
    assert preload_math_fonts(text) == text


def test_every_page_with_math_preloads_fonts_that_exist(site_dir: Path):
    checked = 0
    for path in sorted(site_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        hrefs = re.findall(r'<link rel="preload" href="([^"]+)" as="font"', text)
        has_math = re.search(r'class="katex"', text) is not None
        assert bool(hrefs) == has_math, f"{path.relative_to(site_dir)}: preloads {hrefs}"
        for href in hrefs:
            url = urljoin(path.relative_to(site_dir).as_posix(), href)
            assert (site_dir / url).is_file(), f"{path.relative_to(site_dir)}: {href} is missing"
        checked += has_math
    assert checked >= 14  # at least every proposition page


# -- our stylesheets inline where used, our script only where used ------------------------

STYLES = {
    "assets/katex/katex.min.css": site_css(
        "assets/katex/katex.min.css",
        "@font-face{src:url(fonts/KaTeX_Main-Regular.woff2)}.katex{x:url(data:a,b)}",
    ),
    "stylesheets/posenc.css": site_css("stylesheets/posenc.css", ".posenc{a:b}"),
    "stylesheets/widgets.css": site_css("stylesheets/widgets.css", ".posenc-widget{c:d}"),
}
HEAD = (
    '<link rel="stylesheet" href="{r}assets/stylesheets/main.12345678.min.css">'
    '<link rel="stylesheet" href="{r}assets/katex/katex.min.css">'
    '<link rel="stylesheet" href="{r}stylesheets/posenc.css">'
    '<link rel="stylesheet" href="{r}stylesheets/widgets.css">'
)
SCRIPT = '<script src="{r}javascripts/widgets.js"></script>'


def _full(body: str, root: str = "../../") -> str:
    script = SCRIPT.format(r=root)
    return f"<html><head>{HEAD.format(r=root)}</head><body>{body}{script}</body></html>"


def test_a_page_gets_inline_only_the_stylesheets_it_uses_in_their_place():
    out = own_assets(_full('<span class="katex">k</span>'), "../../", STYLES)
    head = out.split("</head>")[0]
    assert '<link rel="stylesheet" href="../../assets/stylesheets/main.12345678.min.css">' in head
    assert head.index('data-posenc-from="assets/katex') < head.index('data-posenc-from="stylesh')
    assert "url(../../assets/katex/fonts/KaTeX_Main-Regular.woff2)" in head
    assert "url(data:a,b)" in head, "a data: URL is not a file of ours"
    assert "widgets" not in out, "no widget: neither its stylesheet nor its script"
    assert "katex.min.css" not in re.sub(r'data-posenc-from="[^"]*"', "", out)


def test_a_widget_page_keeps_the_script_and_a_page_without_math_drops_katex():
    out = own_assets(_full('<div data-posenc-widget="heatmap"></div>', root=""), "", STYLES)
    assert '<script src="javascripts/widgets.js"></script>' in out
    assert 'data-posenc-from="stylesheets/widgets.css">.posenc-widget{c:d}</style>' in out
    assert "katex" not in out


def test_a_stylesheet_it_has_no_text_for_and_a_page_without_a_head_are_left_alone():
    page = _full("x")
    assert own_assets(page, "../../", {}) == page.replace(SCRIPT.format(r="../../"), "")
    assert own_assets("<p>no head</p>", "", STYLES) == "<p>no head</p>"
