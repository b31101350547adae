"""Every page on a 390 px phone: nothing wider than the screen, wide things scroll in place.

A wide formula, table, code block or figure may be wider than a phone, but it
must scroll sideways inside its own box, never push the page wider or run past
the box it sits in; and a box that scrolls must be reachable from the keyboard
(axe's rule scrollable-region-focusable: it is focusable, or holds something
that is). A statement box is stricter: its display formulas fit it, so that no
part of a claim (a case's condition) hides behind a scroll, unless a formula is
marked as scrolling on purpose (inside ``<div class="posenc-scroll" markdown>``).

The same sweep checks that deferring a page's later sections (hooks/loading.py)
moves none of its headings, on every page that defers some: at phone width
the margins differ most by kind of block (lists, admonitions, answers, code).

One browser context and one tab per page keep the check of every page of the
site within a minute.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import HEADINGS_WRAPPED_AND_NOT, heading_shifts, local_context, sample_of

from hooks import registry
from hooks.loading import LATER_CLASS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
PHONE = {"width": 390, "height": 844}
REFRESH = re.compile(r"<meta[^>]+http-equiv=[\"']?refresh", re.I)

# What sticks out, and what scrolls without a way in from the keyboard. An element
# must stay inside its box: the nearest ancestor with a border (a statement box,
# an admonition, a table cell), else the page's main column (.md-content, which
# includes the margins into which Material pulls code blocks, tables and formulas
# on a phone). A scroll container ends the check for what is inside it. A formula
# (.katex) and an SVG are checked as a whole: their insides overlap by design
# (KaTeX's negative spaces and laps).
MEASURE = """async () => {
  await document.fonts.ready;
  const column = document.querySelector('.md-content');
  const slack = 0.5;
  const focusable = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const name = (el) => {
    const cls = typeof el.className === 'string' ? el.className.trim() : '';
    const near = el.closest('[id]');
    const text = (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 50);
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls.split(/\\s+/).join('.') : ''}`
      + (near ? ` in #${near.id}` : '') + (text ? ` "${text}"` : '');
  };
  const stickOut = [], unreachable = [];
  const visit = (el, box) => {
    for (const child of el.children) {
      const rect = child.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0) continue;  // not laid out
      if (rect.left < box.left - slack || rect.right > box.right + slack) {
        stickOut.push({element: name(child), left: Math.round(rect.left),
                       right: Math.round(rect.right), box: [Math.round(box.left),
                       Math.round(box.right)]});
        continue;  // what is inside it sticks out too; report the outermost
      }
      const style = getComputedStyle(child);
      if (style.position === 'fixed') continue;
      const scrolls = ['auto', 'scroll'].includes(style.overflowX);
      if (scrolls && child.scrollWidth > child.clientWidth + 1
          && child.tabIndex < 0 && !child.querySelector(focusable)) {
        unreachable.push(name(child));
      }
      if (scrolls || child.matches('.katex, svg')) continue;
      const bordered = parseFloat(style.borderLeftWidth) > 0
        || parseFloat(style.borderRightWidth) > 0;
      visit(child, bordered ? rect : box);
    }
  };
  if (column) visit(column, column.getBoundingClientRect());
  // A statement's display formulas fit its box, unless marked as scrolling on purpose.
  const statementScrolls = [];
  for (const box of document.querySelectorAll('.admonition.proposition')) {
    for (const math of box.querySelectorAll('.katex-display')) {
      if (math.closest('.posenc-scroll')) continue;
      const frames = [math, math.closest('.arithmatex')].filter(Boolean);
      const over = Math.max(...frames.map((f) => f.scrollWidth - f.clientWidth));
      if (over > 1) statementScrolls.push({element: name(math), over});
    }
  }
  return {
    statementScrolls,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    hasColumn: column !== null,
    stickOut,
    unreachable,
  };
}"""


def site_pages(site: Path) -> list[str]:
    """Every page a reader can open: index.html files except redirects, and 404.html."""
    pages = []
    for path in sorted([*site.rglob("index.html"), site / "404.html"]):
        if path.is_file() and not REFRESH.search(path.read_text(encoding="utf-8")):
            pages.append(path.relative_to(site).as_posix().removesuffix("index.html"))
    return pages


@pytest.fixture(scope="module")
def phone(chromium, served_url):
    """A 390 px wide context; a request to any other host is aborted."""
    context = local_context(chromium, served_url, viewport=PHONE)
    yield context
    context.close()


def test_the_page_list_is_the_site(site_dir):
    pages = site_pages(site_dir)
    assert "" in pages and "graph/" in pages and "404.html" in pages
    assert not any(page.startswith("p/") for page in pages), "redirect stubs are left out"
    assert len(pages) >= 40, pages
    # Every proposition page defers its later sections, so each is checked for their spacing.
    entries = registry.load(ROOT / "docs", ROOT)
    assert {entry.url for entry in entries.values()} <= deferring(site_dir, pages)


def _file(url: str) -> str:
    """The HTML file of a page's URL (as ``site_pages`` gives it), relative to ``site``."""
    return url + "index.html" if url == "" or url.endswith("/") else url


def deferring(site: Path, urls: list[str]) -> set[str]:
    """The pages of ``urls`` that lay out some sections only as they near the screen."""
    marker = f'class="{LATER_CLASS}"'
    return {url for url in urls if marker in (site / _file(url)).read_text(encoding="utf-8")}


def measure_all(
    context, base: str, urls: list[str], deferred: set[str] = frozenset(), tabs: int = 4
) -> dict[str, dict]:
    """MEASURE on every page, ``tabs`` pages loading at once (the biggest goes first).

    On a page of ``deferred``, then, how far the wrappers of its deferred sections
    move each heading (``heading_shifts``): this undoes the wrappers, so it comes last.
    """
    reports: dict[str, dict] = {}
    waiting = iter(urls)
    loading = []

    def open_next() -> None:
        url = next(waiting, None)
        if url is not None:
            page = context.new_page()
            page.goto(base + url, wait_until="commit")
            loading.append((url, page))

    for _ in range(tabs):
        open_next()
    while loading:
        url, page = loading.pop(0)
        try:
            page.wait_for_load_state("load")
            reports[url] = page.evaluate(MEASURE)
            if url in deferred:
                measured = page.evaluate(HEADINGS_WRAPPED_AND_NOT)
                reports[url]["headingShifts"] = heading_shifts(measured, url)
        finally:
            page.close()
        open_next()
    return reports


def test_a_sample_of_pages_fits_a_390px_phone(site_dir, served_url, phone):
    """A page of each kind, and the newest proposition (conftest.sample_of): in make test."""
    pages = site_pages(site_dir)
    sample = set(sample_of(site_dir, [_file(url) for url in pages]))
    _check_phone([url for url in pages if _file(url) in sample], site_dir, served_url, phone)


#: The pages are measured in this many groups, each its own test, so that the groups can
#: run on both cores.
PHONE_GROUPS = 2


@pytest.mark.slow
@pytest.mark.parametrize(
    "group", range(PHONE_GROUPS), ids=lambda g: f"group{g + 1}of{PHONE_GROUPS}"
)
def test_every_page_fits_a_390px_phone(group, site_dir, served_url, phone):
    """Every page of one group: in make slow."""
    pages = sorted(site_pages(site_dir), key=lambda url: url != "propositions/all/")
    _check_phone(pages[group::PHONE_GROUPS], site_dir, served_url, phone)


def _check_phone(pages: list[str], site_dir: Path, served_url: str, phone) -> None:
    """MEASURE on ``pages``; fail listing every problem of every page."""
    assert pages
    problems = []
    deferred = deferring(site_dir, pages)
    for url, report in measure_all(phone, served_url, pages, deferred).items():
        where = url or "(home)"
        if report.get("headingShifts"):
            problems.append(
                f"{where}: headings moved by the wrappers of its deferred sections "
                f"(index, px): {report['headingShifts']}"
            )
        if not report["hasColumn"]:
            problems.append(f"{where}: no .md-content column")
        if report["scrollWidth"] > report["innerWidth"] + 0.5:
            problems.append(
                f"{where}: page is {report['scrollWidth']} px wide on a "
                f"{report['innerWidth']} px screen"
            )
        for item in report["stickOut"]:
            problems.append(
                f"{where}: {item['element']} spans {item['left']}..{item['right']} px, "
                f"outside its box {item['box'][0]}..{item['box'][1]} px"
            )
        for element in report["unreachable"]:
            problems.append(f"{where}: {element} scrolls but cannot be reached by keyboard")
        for item in report["statementScrolls"]:
            problems.append(
                f"{where}: a formula of the statement is {item['over']} px wider than its box: "
                "wrap it (aligned, or split it), or mark it scrolling on purpose by putting it "
                'in <div class="posenc-scroll" markdown> with the condition a reader needs first'
            )
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
