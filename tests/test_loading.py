"""Math fonts preloaded on pages with formulas (hooks/loading.py), unit and built site."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

from hooks.loading import preload_math_fonts

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
