"""Math fonts preloaded on pages with formulas (hooks/loading.py), unit and built site."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import pytest

from hooks.loading import (
    LATER_CLASS,
    defer_sections,
    deferred,
    estimated_height,
    fonts_used,
    katex_faces,
    own_assets,
    preload_math_fonts,
    shown_at_load,
    site_css,
)

CSS = '<link rel="stylesheet" href="../../assets/katex/katex.min.css">'
MAIN = '<link rel="preload" href="../../assets/katex/fonts/KaTeX_Main-Regular.woff2"'
ITALIC = '<link rel="preload" href="../../assets/katex/fonts/KaTeX_Math-Italic.woff2"'
#: A stylesheet shaped as KaTeX's is: faces by family, weight and style; rules that
#: choose a family, a weight alone, a grouped selector, a child combinator.
KATEX_LIKE = (
    "@font-face{font-display:block;font-family:KaTeX_Main;font-style:normal;font-weight:400;"
    'src:url(fonts/KaTeX_Main-Regular.woff2) format("woff2"),url(fonts/x.woff) format("woff")}'
    "@font-face{font-family:KaTeX_Main;font-style:normal;font-weight:700;"
    "src:url(fonts/KaTeX_Main-Bold.woff2) format('woff2')}"
    "@font-face{font-family:KaTeX_Math;font-style:italic;font-weight:400;"
    "src:url(fonts/KaTeX_Math-Italic.woff2)}"
    "@font-face{font-family:KaTeX_Size1;font-style:normal;font-weight:400;"
    "src:url(fonts/KaTeX_Size1-Regular.woff2)}"
    "@font-face{font-family:KaTeX_AMS;font-style:normal;font-weight:400;"
    "src:url(fonts/KaTeX_AMS-Regular.woff2)}"
    ".katex{font:normal 1.21em KaTeX_Main,Times New Roman,serif;line-height:1.2}"
    ".katex .mathnormal{font-family:KaTeX_Math;font-style:italic}"
    ".katex .textbf{font-weight:700}"
    ".katex .amsrm,.katex .mathbb{font-family:KaTeX_AMS}"
    ".katex .delimsizing.mult .delim-size1>span{font-family:KaTeX_Size1}"
    ".katex .vlist{display:table-cell}"
)
FACES = katex_faces(KATEX_LIKE)


def _page(body: str) -> str:
    return f"<html><head>{CSS}</head><body>{body}</body></html>"


def test_each_rule_that_picks_a_katex_face_names_its_classes_and_file():
    found = {(tuple(sorted(tuple(sorted(c)) for c in face.needs)), face.file) for face in FACES}
    assert found == {
        ((("katex",),), "fonts/KaTeX_Main-Regular.woff2"),
        ((("mathnormal",),), "fonts/KaTeX_Math-Italic.woff2"),
        ((("textbf",),), "fonts/KaTeX_Main-Bold.woff2"),  # a weight alone: KaTeX_Main's
        ((("amsrm",),), "fonts/KaTeX_AMS-Regular.woff2"),
        ((("mathbb",),), "fonts/KaTeX_AMS-Regular.woff2"),
        ((("delim-size1",), ("delimsizing", "mult")), "fonts/KaTeX_Size1-Regular.woff2"),
    }


def test_a_face_is_used_when_its_classes_are_on_one_element_each():
    size1 = '<span class="delimsizing mult"><span class="delim-size1"><span>(</span>'
    assert fonts_used(f'<span class="katex">{size1}</span>', FACES) == [
        "fonts/KaTeX_Main-Regular.woff2",
        "fonts/KaTeX_Size1-Regular.woff2",
    ]
    # "delimsizing" and "mult" on two elements do not select the rule's element
    apart = '<span class="delimsizing"><span class="mult delim-size1">('
    assert fonts_used(f'<span class="katex">{apart}</span>', FACES) == [
        "fonts/KaTeX_Main-Regular.woff2"
    ]


def test_the_fonts_of_the_formulas_are_preloaded_before_the_stylesheet():
    out = preload_math_fonts(
        _page('<span class="katex"><span class="mord mathnormal">k</span></span>'), FACES
    )
    assert out.index(MAIN) < out.index(CSS) and out.index(ITALIC) < out.index(CSS)
    assert out.count('as="font" type="font/woff2" crossorigin>') == 2


def test_only_fonts_in_use_are_preloaded():
    out = preload_math_fonts(
        _page('<span class="katex"><span class="mord">2</span></span>'), FACES
    )
    assert MAIN in out and ITALIC not in out
    # "katex-display-note" is not a formula's class; a page without formulas gets nothing
    page = _page('<div class="katex-display-note">x</div>')
    assert preload_math_fonts(page, FACES) == page


def test_a_closed_block_keeps_its_summary_and_hides_its_content():
    page = (
        '<p class="a"></p><details class="q"><summary class="s">Q <b class="t"></b></summary>'
        '<p class="hidden"><details open><summary>in</summary><i class="deeper"></i></details>'
        '</p></details><details open><summary>open</summary><p class="shown"></p></details>'
    )
    kept = shown_at_load(page)
    for seen in ('class="a"', 'class="s"', 'class="t"', 'class="shown"'):
        assert seen in kept
    for hidden in ('class="hidden"', 'class="deeper"'):
        assert hidden not in kept
    formula_in_answer = (
        '<span class="katex">x</span><details><summary>Answer</summary>'
        '<span class="katex"><span class="mathbb">R</span></span></details>'
    )
    out = preload_math_fonts(_page(formula_in_answer), FACES)
    assert "KaTeX_AMS" not in out and MAIN in out


SECTIONS = (
    "<p>statement</p>\n"
    '<h2 id="intuition">Intuition</h2>\n<p class="first">soon</p>\n'
    '<h2 id="argument">Argument</h2>\n<p class="later">step</p>\n'
    '<div class="admonition"><h2 id="nested">Inside</h2><p>deep</p></div>\n'
    '<h2 id="cite">Cite</h2>\n<pre><code>@misc{x}</code></pre>\n'
)


def test_every_top_level_section_after_the_first_is_deferred():
    out = defer_sections(SECTIONS)
    wrappers = out.count(f'class="{LATER_CLASS}"')
    assert wrappers == 2  # argument and cite; not the nested heading's section
    # Headings stay outside, in order; the text is all there, once.
    assert re.sub(r'<div class="posenc-later"[^>]*>|</div>(?=\n?<h2|$)', "", out) == SECTIONS
    before_first = out[: out.index('<h2 id="argument">')]
    assert LATER_CLASS not in before_first and 'class="first"' in before_first
    spans = [out[a:b] for a, b in deferred(out)]
    assert 'class="later"' in spans[0] and 'id="nested"' in spans[0]
    assert "@misc{x}" in spans[1] and "<h2" not in "".join(spans[1:])
    assert defer_sections(out) == out


@pytest.mark.parametrize(
    "fragment",
    [
        "<p>no headings</p>",
        '<h2 id="a">A</h2><p>one section only</p>',
        "<div><h2>a</h2><p>x</p><h2>b</h2><p>y</p></div>",
    ],
)
def test_a_page_with_fewer_than_two_top_level_sections_is_left_alone(fragment):
    assert defer_sections(fragment) == fragment


def test_void_and_self_closed_elements_do_not_hide_a_top_level_heading():
    fragment = (
        '<h2>a</h2><p>x<br><img src="f.svg" alt="f"></p>'
        '<span class="katex"><svg><path d="M0"/></svg></span>'
        "<h2>b</h2><p>y</p>"
    )
    assert defer_sections(fragment).count(LATER_CLASS) == 1


def test_unbalanced_html_is_refused_not_cut_in_the_wrong_place():
    with pytest.raises(ValueError, match="unbalanced"):
        defer_sections("<h2>a</h2><div><p>x</p><h2>b</h2><p>y</p>")


def test_the_height_guess_grows_with_what_the_section_shows():
    short = estimated_height("<p>one line</p>")
    long = estimated_height("<p>" + "word " * 400 + "</p>")
    with_math = estimated_height('<p>x</p><span class="katex-display">m</span>' * 10)
    closed = estimated_height(
        "<p>x</p><details><summary>s</summary><p>" + "word " * 4000 + "</p></details>"
    )
    assert short < long and short < with_math
    assert closed < long  # a closed block counts as its summary only


def test_fonts_of_a_deferred_section_are_not_preloaded():
    later = defer_sections(
        '<h2>a</h2><span class="katex">x</span>'
        '<h2>b</h2><span class="katex"><span class="mathbb">R</span></span>'
    )
    assert "mathbb" not in shown_at_load(later)
    out = preload_math_fonts(_page(later), FACES)
    assert "KaTeX_AMS" not in out and MAIN in out


def test_page_without_the_katex_stylesheet_is_left_alone():
    text = '<html><head></head><body><span class="katex">x</span></body></html>'
    assert preload_math_fonts(text, FACES) == text


def test_the_real_stylesheet_picks_all_but_two_of_the_font_files_it_declares(site_dir: Path):
    css = (site_dir / "assets/katex/katex.min.css").read_text(encoding="utf-8")
    declared = set(re.findall(r"url\((fonts/[^)]+\.woff2)\)", css))
    assert len(declared) == 20
    chosen = {face.file for face in katex_faces(css)}
    # Two faces no rule picks alone (bold calligraphic, bold italic upright text come
    # from a weight and a style met on two elements, which this reading leaves out).
    assert declared - chosen == {
        "fonts/KaTeX_Caligraphic-Bold.woff2",
        "fonts/KaTeX_Main-BoldItalic.woff2",
    }


def test_every_page_with_math_preloads_fonts_that_exist(site_dir: Path):
    checked = 0
    for path in sorted(site_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        hrefs = re.findall(r'<link rel="preload" href="([^"]+)" as="font"', text)
        # Math the page draws as it loads: not in a closed block or a deferred section
        # (the glossary's formulas are all in sections after its first).
        shown = shown_at_load(text.partition("</head>")[2])
        has_math = re.search(r'class="katex"', shown) is not None
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
