"""Reading the site: phone width, dark mode, and search, in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import HEADINGS_WRAPPED_AND_NOT, heading_shifts
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from hooks import registry
from hooks.highlight import PLAIN

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = registry.load(ROOT / "docs", ROOT)

# Every page at phone width: tests/test_phone.py (stricter: nothing leaves its box).


@pytest.fixture(scope="module")
def dark_context(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    yield context
    context.close()


#: The rule that gives a figure its white card (docs/stylesheets/posenc.css).
CARD_RULE = re.compile(r'\.md-typeset img\[src\$="\.svg"\] \{[^}]*background: #fff;[^}]*\}')


def test_every_proposition_page_carries_the_figures_white_card(site_dir):
    """The rule is inlined on every page with a figure, as the stylesheet has it."""
    [rule] = CARD_RULE.findall((ROOT / "docs" / "stylesheets" / "posenc.css").read_text())
    missing = [
        entry.url
        for entry in ENTRIES.values()
        if rule not in (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
    ]
    assert not missing, f"pages without the figures' white card: {missing}"


def _largest_proposition(site_dir) -> str:
    """The proposition page of the most bytes."""
    sizes = {e.url: (site_dir / e.url / "index.html").stat().st_size for e in ENTRIES.values()}
    return max(sizes, key=sizes.get)


def test_figures_and_graph_are_legible_in_dark_mode(site_dir, served_url, dark_context):
    """In the browser, on the first, the largest and the last proposition page and the graph.

    Every proposition page carries the same rule (the test above): what is checked
    here is that the rule does its work on a dark page.
    """
    first, last = ENTRIES[min(ENTRIES)].url, ENTRIES[max(ENTRIES)].url
    pages = [*sorted({first, _largest_proposition(site_dir), last}), "graph/"]
    page = dark_context.new_page()
    try:
        for path in pages:
            page.goto(served_url + path, wait_until="load")
            scheme = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
            assert scheme == "slate", f"{path}: dark mode not applied ({scheme})"
            # Figures are drawn on white; on a dark page they keep their white card.
            backgrounds = page.evaluate(
                """() => [...document.querySelectorAll('.md-typeset img[src$=".svg"]')]
                   .map(img => getComputedStyle(img).backgroundColor)"""
            )
            assert all(b == "rgb(255, 255, 255)" for b in backgrounds), (path, backgrounds)
        # The graph's node labels follow the theme: light text on a dark page.
        page.goto(served_url + "graph/", wait_until="load")
        fill = page.evaluate(
            "getComputedStyle(document.querySelector('.posenc-graph-node text')).fill"
        )
        channels = [int(c) for c in re.findall(r"\d+", fill)[:3]]
        assert min(channels) > 150, f"graph text is dark on a dark page: {fill}"
    finally:
        page.close()


_RESULTS = ".md-search-result__item > a"


def _search(page, served_url: str, query: str, expect: str | None = None) -> list[str]:
    """The result links for ``query``; with ``expect``, wait up to 15 s for a link to it.

    Material's search answers in a web worker while the query is typed, so the first
    results on screen can be those of a prefix ("Proposition " before "1"). Waiting
    for the expected link (or for the time to run out) reads the final answer.

    The page is loaded once and then reused (Material's worker indexes the site
    once per page load, which is most of a search's cost): before each query the
    field is emptied and the old results are waited away, so that no result of the
    previous query can be read as this one's.
    """
    if not page.url.startswith(served_url):
        page.goto(served_url, wait_until="load")
    box = page.locator("input.md-search__input")
    box.click()  # the search field is in the header at desktop width
    box.fill("")
    box.press("Backspace")  # a keyup on the empty field: Material clears the results
    page.wait_for_function(
        "selector => document.querySelectorAll(selector).length === 0",
        arg=".md-search-result__item",
        timeout=15_000,
    )
    # Material reads the query on keyup (and once more when its index is ready), so
    # setting the value alone is not seen; the last key is typed, and its keyup reads
    # the whole query. (Typed key by key, each prefix would be searched in turn.)
    box.fill(query[:-1])
    box.press(query[-1])
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    if expect is not None:
        try:
            page.wait_for_function(
                "([selector, url]) => [...document.querySelectorAll(selector)]"
                ".some(a => (a.getAttribute('href') || '').includes(url))",
                arg=[_RESULTS, expect],
                timeout=15_000,
            )
        except PlaywrightTimeout:
            pass  # the caller's assertion says what was found instead
    return page.eval_on_selector_all(_RESULTS, "links => links.map(a => a.getAttribute('href'))")


# Material completes the last word of a query as a prefix, so "Proposition 1" also
# matches the titles of Propositions 10 to 20, and with twenty propositions the first
# one no longer reaches the results shown; with thirty, "Proposition 2" matches the
# titles of Propositions 20 to 29 in the same way. A known defect of prefix search over
# numbers, not yet fixed. For those numbers only the search by title words is checked.
_PREFIX_CROWDED = {1, 2}


@pytest.fixture(scope="module")
def search_page(browser_context):
    """One page for every search below (see :func:`_search`)."""
    page = browser_context.new_page()
    yield page
    page.close()


#: Searched for in make test: the first, one of two digits, and the newest; every
#: proposition in make slow (each search is a second of the browser's time).
_SEARCHED_IN_MAKE_TEST = {min(ENTRIES), 10, max(ENTRIES)}


@pytest.mark.parametrize(
    "number",
    [
        pytest.param(n, marks=() if n in _SEARCHED_IN_MAKE_TEST else pytest.mark.slow)
        for n in sorted(ENTRIES)
    ],
)
def test_search_finds_each_proposition_by_number_and_title(served_url, search_page, number):
    entry = ENTRIES[number]
    words = " ".join(w for w in re.findall(r"[A-Za-z]+", entry.title) if len(w) > 3)
    queries = (words,) if number in _PREFIX_CROWDED else (f"Proposition {number}", words)
    for query in queries:
        found = _search(search_page, served_url, query, expect=entry.url)
        assert any(entry.url in href for href in found), (query, found[:8])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_spans_taken_out_of_code_looked_like_the_code_around_them(
    chromium, served_url, scheme
):
    """hooks/highlight.py unwraps the names and whitespace of highlighted code: a span of
    those classes, put back into a code block, has the block's colour and font."""
    context = chromium.new_context(color_scheme=scheme)
    try:
        page = context.new_page()
        page.goto(served_url + "propositions/p08-shift-is-rotation/", wait_until="load")
        looks = page.evaluate(
            """(classes) => {
              const code = document.querySelector(".highlight code");
              const look = (el) => { const s = getComputedStyle(el);
                return {color: s.color, weight: s.fontWeight, style: s.fontStyle,
                        background: s.backgroundColor}; };
              return [look(code), ...classes.map((name) => {
                const span = document.createElement("span");
                span.className = name; span.textContent = "x"; code.append(span);
                return look(span);
              })];
            }""",
            list(PLAIN),
        )
        assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == (
            "slate" if scheme == "dark" else "default"
        )
        code, *spans = looks
        for span in spans:  # the code's background shows through a span's
            assert span == {**code, "background": "rgba(0, 0, 0, 0)"}, looks
    finally:
        context.close()


# The search index waits for the reader (overrides/partials/search-on-demand.html).
_INDEX = "/search/search_index.json"


def _index_requests(page) -> list[str]:
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if _INDEX in r.url else None)
    return asked


def _results(page) -> int:
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    return page.locator(".md-search-result__item").count()


@pytest.mark.parametrize("how", ["phone icon", "desktop key"])
def test_the_search_index_is_fetched_when_the_reader_starts_a_search(chromium, served_url, how):
    phone = how == "phone icon"
    viewport = {"width": 390, "height": 800} if phone else {"width": 1280, "height": 900}
    context = chromium.new_context(viewport=viewport)
    try:
        page = context.new_page()
        asked = _index_requests(page)
        page.goto(served_url + "propositions/p08-shift-is-rotation/", wait_until="networkidle")
        page.wait_for_timeout(500)  # Material's script has long since asked for it, in vain
        assert asked == [], "the index was fetched before anyone searched"
        if phone:
            page.locator("label.md-header__button[for='__search']").click()
        else:
            page.keyboard.press("/")  # Material's shortcut focuses the search field
        page.keyboard.type("rotation")
        assert _results(page) > 0
        assert len(asked) == 1, asked
    finally:
        context.close()


def test_a_page_opened_to_highlight_a_search_gets_the_index_at_once(chromium, served_url):
    context = chromium.new_context()
    try:
        page = context.new_page()
        asked = _index_requests(page)
        page.goto(served_url + "propositions/p08-shift-is-rotation/?h=rotation", wait_until="load")
        page.wait_for_selector("mark[data-md-highlight]", timeout=15_000)
        assert len(asked) == 1, asked
    finally:
        context.close()


# ----------------------------------------------------------------------------
# Sections laid out as the reader reaches them (hooks/loading.py, defer_sections)

_LATER_DRAWN = """() => [...document.querySelectorAll('.posenc-later')].map(
  (s) => s.firstElementChild.checkVisibility({contentVisibilityAuto: true}))"""


def test_a_long_page_draws_its_later_sections_only_as_the_reader_reaches_them(
    site_dir, served_url, chromium
):
    context = chromium.new_context(viewport={"width": 390, "height": 800})
    try:
        page = context.new_page()
        page.goto(served_url + _largest_proposition(site_dir), wait_until="load")
        drawn = page.evaluate(_LATER_DRAWN)
        assert len(drawn) >= 5 and not any(drawn), drawn  # a phone sees the statement first
        page.locator("#cite").scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        assert page.evaluate(_LATER_DRAWN)[-1], "the last section was not drawn on arrival"
    finally:
        context.close()


def test_a_link_to_a_later_heading_lands_on_it(site_dir, served_url, chromium):
    context = chromium.new_context(viewport={"width": 390, "height": 800})
    try:
        page = context.new_page()
        page.goto(served_url + _largest_proposition(site_dir) + "#cite", wait_until="load")
        page.wait_for_timeout(500)
        top = page.evaluate("document.getElementById('cite').getBoundingClientRect().top")
        assert 0 <= top < 150, f"#cite is {top}px from the top of the window"
    finally:
        context.close()


def test_a_deferred_page_once_drawn_is_laid_out_as_if_it_were_not(site_dir, served_url, chromium):
    """The wrappers change no spacing: every heading at the same height, to the pixel.

    At desktop width, on three pages; every page with deferred sections is
    checked at phone width, where margins differ most by kind of block (lists,
    admonitions, closed answers, code), in the phone sweep (tests/test_phone.py).
    """
    deferred = [_largest_proposition(site_dir), "exercises/e1-sinusoidal-table/", "glossary/"]
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    moved = {}
    try:
        page = context.new_page()
        for path in deferred:
            page.goto(served_url + path, wait_until="load")
            page.evaluate("document.fonts.ready")
            shifts = heading_shifts(page.evaluate(HEADINGS_WRAPPED_AND_NOT), path)
            if shifts:
                moved[path] = shifts
    finally:
        context.close()
    assert not moved, f"at 1280px, headings moved by the wrappers (index, px): {moved}"


# ----------------------------------------------------------------------------
# The light/dark toggle (overrides/partials/palette.html and its script)


def _scheme(page) -> str:
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


def test_dark_system_gets_the_dark_palette_before_any_script_file_runs(served_url, chromium):
    # The palette is chosen by the inline script in the header, not by Material's
    # bundle: with every script file blocked, a dark system still reads in slate.
    context = chromium.new_context(color_scheme="dark")
    context.route("**/*.js", lambda route: route.abort())
    try:
        page = context.new_page()
        page.goto(served_url + "propositions/p08-shift-is-rotation/", wait_until="load")
        assert _scheme(page) == "slate"
        shown = page.locator("[data-posenc-palette] label:not([hidden])")
        assert shown.count() == 1
        assert shown.get_attribute("title") == "Switch to light mode"
    finally:
        context.close()


def test_toggle_switches_the_palette_and_the_choice_is_kept(served_url, chromium):
    context = chromium.new_context(color_scheme="light")
    try:
        page = context.new_page()
        page.goto(served_url, wait_until="load")
        assert _scheme(page) == "default"
        page.locator("[data-posenc-palette] label:not([hidden])").click()
        assert _scheme(page) == "slate"
        assert page.evaluate("getComputedStyle(document.body).colorScheme") == "dark"
        # Kept in Material's own place and format, so every page agrees.
        page.goto(served_url + "glossary/", wait_until="load")
        assert _scheme(page) == "slate"
        assert (
            page.locator("[data-posenc-palette] label:not([hidden])").get_attribute("title")
            == "Switch to light mode"
        )
        # Keyboard: Enter on the focused option moves to the next palette.
        page.locator("[data-posenc-palette] input:checked").focus()
        page.keyboard.press("Enter")
        assert _scheme(page) == "default"
        page.reload(wait_until="load")
        assert _scheme(page) == "default"
    finally:
        context.close()


def test_the_js_class_is_set_before_the_body(site_dir):
    # Material's script swaps no-js for js at the end of the page, restyling every
    # element; the head does it first (overrides/main.html), so that swap is a no-op.
    text = (site_dir / "index.html").read_text(encoding="utf-8")
    head = text.split("<body", 1)[0]
    assert '<html lang="en" class="no-js">' in head  # without JavaScript nothing changes
    assert 'document.documentElement.classList.replace("no-js", "js")' in head
    assert 'data-md-component="palette"' not in text  # Material's palette component is unused
