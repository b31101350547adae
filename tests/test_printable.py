"""The printable page is the proposition pages' HTML, one heading level down (hooks/printable.py).

The unit tests give ``assemble`` small pages and check what it renames and
what it leaves alone; the last test reads the built site and checks that each
proposition's part of the printable page says exactly what its own page says.
"""

from __future__ import annotations

import html as entities
import re
from collections import Counter
from pathlib import Path

import pytest
from mkdocs.structure.toc import get_toc

from hooks import parts, printable, registry

ROOT = Path(__file__).resolve().parent.parent

MARK = "posenc-source:"


def _toc(*tokens):
    return get_toc(list(tokens))


def _token(level, id_, name, children=()):
    return {"level": level, "id": id_, "name": name, "children": list(children)}


def _page(number: int, extra: str = "") -> str:
    return (
        f'<h1 id="proposition-{number}">Proposition {number}</h1>\n'
        '<h2 id="argument">Argument<a class="headerlink" href="#argument">¶</a></h2>\n'
        f'<p>See <a href="#argument">the argument</a> and <a href="../p08/#argument">P8</a>.'
        f'<sup id="fnref:1"><a href="#fn:1">1</a></sup></p>\n'
        '<div class="footnote"><ol><li id="fn:1"><a href="#fnref:1">↩</a></li></ol></div>\n'
        f"{extra}"
    )


INTRO = f'<h1 id="the-whole-corpus">The whole corpus</h1>\n<div>\n{printable.PLACEHOLDER}\n</div>'


def _assemble(pages: dict[int, str], intro: str = INTRO, chapters=None):
    parts = [
        (
            n,
            f"propositions/p{n:02d}.md",
            text,
            _toc(
                _token(1, f"proposition-{n}", f"Proposition {n}", [_token(2, "argument", "Arg")])
            ),
        )
        for n, text in pages.items()
    ]
    intro_toc = _toc(_token(1, "the-whole-corpus", "The whole corpus"))
    return printable.assemble(intro, intro_toc, parts, MARK, chapters)


def test_every_heading_goes_one_level_down_and_nothing_else_does():
    text = '<h1 id="a">A</h1><h5>E</h5><h6>F</h6><pre><code>&lt;h1&gt;</code></pre><header>'
    assert printable.demote(text) == (
        '<h2 id="a">A</h2><h6>E</h6><h6>F</h6><pre><code>&lt;h1&gt;</code></pre><header>'
    )


def test_shared_ids_are_prefixed_with_the_part_and_so_are_the_references_to_them():
    page, _ = _assemble({1: _page(1), 2: _page(2)})
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert not [name for name, count in Counter(ids).items() if count > 1], ids
    for n in (1, 2):
        assert f'<h3 id="p{n}-argument">' in page
        assert f'href="#p{n}-argument">the argument</a>' in page
        assert f'<sup id="p{n}-fnref:1"><a href="#p{n}-fn:1">' in page
        assert f'<li id="p{n}-fn:1"><a href="#p{n}-fnref:1">' in page
        # An id only one part has keeps its name: permanent anchors stay what they were.
        assert f'<h2 id="proposition-{n}">' in page
    # A link to another page is not a reference into this one.
    assert page.count('href="../p08/#argument"') == 2


def test_references_in_svg_and_aria_follow_a_renamed_id():
    extra = (
        '<svg><defs><clipPath id="clip"></clipPath></defs>'
        '<g clip-path="url(#clip)"><use xlink:href="#clip"/></g></svg>'
        '<div role="group" aria-labelledby="t d" id="t"></div><p id="d"></p>'
        '<label for="d">x</label>'
    )
    page, _ = _assemble({3: _page(3, extra), 4: _page(4, extra)})
    for n in (3, 4):
        assert f'<clipPath id="p{n}-clip">' in page and f"url(#p{n}-clip)" in page
        assert f'xlink:href="#p{n}-clip"' in page
        assert f'aria-labelledby="p{n}-t p{n}-d"' in page and f'for="p{n}-d"' in page


def test_an_id_only_one_part_has_is_left_alone_unless_the_intro_has_it():
    page, _ = _assemble({5: _page(5, '<p id="mine"></p>'), 6: _page(6)})
    assert '<p id="mine">' in page
    clashing = INTRO.replace("<div>", '<div id="mine">')
    page, _ = _assemble({5: _page(5, '<p id="mine"></p>'), 6: _page(6)}, intro=clashing)
    assert '<div id="mine">' in page and '<p id="p5-mine">' in page


def test_each_part_opens_with_its_source_page_in_order():
    page, _ = _assemble({2: _page(2), 10: _page(10)})
    marks = re.findall(rf"<!-- {MARK} (\S+) -->", page)
    assert marks == ["propositions/p02.md", "propositions/p10.md"]
    assert printable.PLACEHOLDER not in page
    assert page.index("Proposition 2") < page.index("Proposition 10")


def test_the_table_of_contents_holds_every_part_renamed_and_demoted():
    _, toc = _assemble({1: _page(1), 2: _page(2)})
    [top] = toc.items
    assert (top.id, top.level) == ("the-whole-corpus", 1)
    assert [(i.id, i.level) for i in top.children] == [("proposition-1", 2), ("proposition-2", 2)]
    assert [(c.id, c.level) for c in top.children[1].children] == [("p2-argument", 3)]


def test_a_chapter_opens_before_its_first_proposition_and_holds_the_rest_in_the_contents():
    chapters = {5: ("part-two", "Part II. Two & more"), 1: ("part-one", "Part I. One")}
    page, toc = _assemble({1: _page(1), 2: _page(2), 5: _page(5)}, chapters=chapters)
    heads = re.findall(r'<h2 class="posenc-chapter" id="([^"]+)">([^<]*)<', page)
    assert heads == [("part-one", "Part I. One"), ("part-two", "Part II. Two &amp; more")]
    assert page.index('id="part-one"') < page.index("Proposition 1") < page.index("Proposition 2")
    assert page.index("Proposition 2") < page.index('id="part-two"') < page.index("Proposition 5")
    [top] = toc.items
    assert [(c.id, c.level) for c in top.children] == [("part-one", 2), ("part-two", 2)]
    one, two = top.children
    assert [c.id for c in one.children] == ["proposition-1", "proposition-2"]
    assert [c.id for c in two.children] == ["proposition-5"]


def test_a_chapter_whose_id_is_taken_is_refused():
    with pytest.raises(printable.PrintableError, match="already an id on the page: argument"):
        _assemble({1: _page(1)}, chapters={1: ("argument", "Part I")})


@pytest.mark.parametrize("times", [0, 2])
def test_a_page_without_its_placeholder_once_is_refused(times):
    intro = "<h1>x</h1>" + printable.PLACEHOLDER * times
    with pytest.raises(printable.PrintableError, match=f"found {times}"):
        _assemble({1: _page(1)}, intro=intro)


# -- the proof scripts are named, not printed ------------------------------------------------

SCRIPT = (
    '<details class="example" data-search-exclude>\n<summary>The proof script, '
    "<code>proofs/p07_seven.py</code></summary>\n"
    '<div class="highlight"><pre><span>x = 1</span></pre></div>\n</details>'
)


def test_a_proof_script_is_replaced_by_a_line_naming_it_and_its_page():
    html = f"<p>before</p>\n{SCRIPT}\n<details><summary>kept</summary>x</details><p>after</p>"
    out = printable.without_scripts(html, {7: "../p07-seven/"})
    assert "x = 1" not in out and "highlight" not in out
    assert "<code>proofs/p07_seven.py</code>" in out
    assert '<a href="../p07-seven/#machine-check">' in out
    assert "<code>python -m proofs 7</code>" in out
    assert out.startswith("<p>before</p>\n<p class=")
    assert out.endswith("\n<details><summary>kept</summary>x</details><p>after</p>")


def test_a_script_block_with_a_block_inside_ends_at_its_own_closing_tag():
    inner = SCRIPT.replace("</div>\n</details>", "</div><details>n</details>\n</details>")
    out = printable.without_scripts(inner + "<p>after</p>", {7: "../p07-seven/"})
    assert out.endswith("runs it.</p><p>after</p>")


@pytest.mark.parametrize(
    ("html", "said"),
    [(SCRIPT.removesuffix("</details>"), "not closed"), (SCRIPT, "belongs to no proposition")],
)
def test_a_script_block_that_cannot_be_replaced_is_refused(html, said):
    pages = {7: "../p07-seven/"} if "not closed" in said else {8: "../p08/"}
    with pytest.raises(printable.PrintableError, match=said):
        printable.without_scripts(html, pages)


# -- the built site ------------------------------------------------------------------------

ARTICLE_RE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
TAG_RE = re.compile(r"<[^>]+>")


def _words(fragment: str) -> list[str]:
    fragment = re.sub(r"<(script|style)\b.*?</\1>", " ", fragment, flags=re.S)
    return entities.unescape(TAG_RE.sub(" ", fragment)).split()


def test_each_part_of_the_printable_page_says_what_its_own_page_says(site_dir):
    """Word for word, but for the proof script: the part names it, the page shows it."""
    entries = registry.load(ROOT / "docs", ROOT)
    order = parts.reading_order(parts.load(ROOT / "docs"))
    order += [n for n in entries if n not in order]
    whole = ARTICLE_RE.search((site_dir / "propositions" / "all" / "index.html").read_text())
    assert whole, "the printable page has no article"
    starts = [
        (n, m.start())
        for n in order
        for m in [re.search(rf'<h2 id="proposition-{n}-', whole.group(1))]
        if m
    ]
    assert [n for n, _ in starts] == order, "every proposition, part by part in reading order"
    assert [s for _, s in starts] == sorted(s for _, s in starts), "in that order on the page"
    # A part ends where the next begins, or at the heading of the next chapter.
    chapters = [m.start() for m in re.finditer(r'<h2 class="posenc-chapter"', whole.group(1))]
    nexts = [s for _, s in starts[1:]] + [len(whole.group(1))]
    ends = [
        min([e, *(c for c in chapters if s < c < e)])
        for (_, s), e in zip(starts, nexts, strict=True)
    ]
    pages = {n: f"../{entry.url.removeprefix('propositions/')}" for n, entry in entries.items()}
    for (number, start), end in zip(starts, ends, strict=True):
        own_page = site_dir / entries[number].url.strip("/") / "index.html"
        own = ARTICLE_RE.search(own_page.read_text())
        assert own, own_page
        part = whole.group(1)[start:end]
        assert len(printable.SCRIPT_RE.findall(own.group(1))) == 1, own_page
        assert "<summary>The proof script" not in part, f"Proposition {number}: a script printed"
        [note] = re.findall(r'<p class="posenc-print-script">.*?</p>', part)
        [link] = re.findall(r'href="([^"#]*)#machine-check"', note)
        assert (site_dir / "propositions" / "all" / link / "index.html").resolve() == (
            own_page.resolve()
        )
        assert _words(part) == _words(printable.without_scripts(own.group(1), pages)), (
            f"Proposition {number}: the printable part differs from {own_page}"
        )
        # What the script found is printed: its table of checks.
        assert own.group(1).count('class="posenc-checks"') == part.count('class="posenc-checks"')
