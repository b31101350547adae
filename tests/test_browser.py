"""Every page of the built site, opened in headless Chromium.

make test opens a sample of the pages (a page of each kind, and the newest
proposition: ``conftest.sample_of``); ``make slow``, which CI runs, opens every
one. For each ``.html`` file opened (``make site`` first), served locally:

- no console error and no uncaught exception;
- no failed request, no HTTP status >= 400, and no request to any other host
  (such requests are also aborted, so nothing leaves the machine);
- every formula rendered at build time: no raw TeX left in the text outside
  code, every visible ``.katex`` element has a size, no ``.katex-error``,
  the KaTeX stylesheet applied (MathML copy visually hidden, HTML shown) and
  the KaTeX_Main font loaded, no font face failed; the KaTeX fonts the page
  preloads are exactly those it uses as it loads (hooks/loading.py), less those
  that only a deferred section uses (Chromium may draw one as the page loads);
- every ``<img>`` loaded with non-empty alt text; every ``<figure>`` holds
  something drawn, and an inline ``<svg>`` in a figure is drawn, sized and
  named (``role="img"`` with ``aria-label``, ``aria-labelledby`` or ``<title>``);
- nothing wider than the window.

Closed ``<details>`` (the "check yourself" answers) are opened first, so the
math and figures inside them are checked too. Redirect stubs (``p/N/``) are
followed: the stub must load cleanly and land, in the browser, on a page of
the site, which is itself checked on its own visit (so it is not inspected a
second time through each of its stubs: that was a third of this module's time).

Each page is inspected once the network has gone quiet (Playwright's
``networkidle``: nothing in flight for half a second), so that a request made
after ``load`` (the icon, the search worker) is seen too. No page may ask for
the search index: it is fetched when the reader starts a search
(overrides/partials/search-on-demand.html; tests/test_reading.py searches).
That wait is most of the time a page takes, so the pages are checked in a few groups (each
a test), a few tabs loading at once in each: every page is still loaded,
waited for and inspected on its own tab, and a failure names each page with
all its problems.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import local_context, sample_of

pytestmark = pytest.mark.browser

# TeX that should have become KaTeX HTML: math delimiters, or a control word
# that only math uses.
_RAW_TEX = re.compile(
    r"\\[(\[]|\\[)\]]|\$\$"
    r"|\\(?:frac|sum|prod|sqrt|sin|cos|omega|theta|lambda|pi|mathrm|mathbf|operatorname"
    r"|left|right|begin|end|cdot|top|le|ge|neq|approx|in|mapsto|to|infty|text)(?![A-Za-z])"
    r"|\$[^$\n]{0,200}?[\\^_][^$\n]{0,200}?\$"
)
#: Fetched only when the reader starts a search (overrides/partials/search-on-demand.html).
SEARCH_INDEX = "/search/search_index.json"
# A redirect stub (the short links p/N/): a meta refresh or a script that moves on.
_REDIRECT = re.compile(
    r"<meta[^>]+http-equiv=[\"']?refresh|location\.replace\(|location\.href\s*=", re.IGNORECASE
)

# One pass over the loaded page; returns plain data for Python to judge.
_INSPECT = """
async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  // The KaTeX fonts the page used as it loaded, before any block is opened, and the
  // ones it preloads (hooks/loading.py), both as "family weight style".
  await document.fonts.ready;
  const face = (family, weight, style) =>
    `${family.replace(/["']/g, "")} ${weight || "400"} ${style || "normal"}`;
  const files = new Map();
  for (const sheet of document.styleSheets) {
    for (const rule of sheet.cssRules) {
      if (!(rule instanceof CSSFontFaceRule)) continue;
      const url = /url\\(["']?([^"')]+\\.woff2)/.exec(rule.style.getPropertyValue("src"));
      const css = (name) => rule.style.getPropertyValue(name);
      if (url) files.set(new URL(url[1], sheet.href || location.href).href,
                         face(css("font-family"), css("font-weight"), css("font-style")));
    }
  }
  const preloaded = [...document.querySelectorAll('link[rel="preload"][as="font"]')]
    .map((link) => files.get(link.href) || link.href);
  const usedAtLoad = [...document.fonts]
    .filter((f) => f.status === "loaded" && f.family.includes("KaTeX"))
    .map((f) => face(f.family, f.weight, f.style));
  // The faces formulas' text is set in, outside the deferred sections (hooks/loading.py)
  // and inside them. A deferred section's fonts are not preloaded, but Chromium may draw
  // the section as the page loads: because it is near the screen, or because a script
  // asked where something inside it is.
  const facesOf = (elements) => {
    const found = new Set();
    for (const el of elements) {
      if (el.closest("details:not([open])")) continue;
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.trim())) continue;
      const css = getComputedStyle(el);
      found.add(face(css.fontFamily.split(",")[0], css.fontWeight, css.fontStyle));
    }
    return [...found];
  };
  const earlyFonts = facesOf([...document.querySelectorAll(".katex-html *")]
    .filter((el) => !el.closest(".posenc-later")));
  for (const d of document.querySelectorAll("details")) d.open = true;
  for (const img of document.images) img.loading = "eager";
  await Promise.all([...document.images].map((img) => img.decode().catch(() => null)));
  await frame(); await frame();
  await document.fonts.ready;

  const shown = (el) => el.checkVisibility();
  const size = (el) => { const r = el.getBoundingClientRect(); return [r.width, r.height]; };
  const short = (el) => el.outerHTML.slice(0, 160);

  const skip = "code, pre, script, style, textarea, noscript, template, kbd, samp, .katex";
  const text = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && !node.parentElement.closest(skip)) text.push(node.nodeValue);
  }

  const katex = [...document.querySelectorAll(".katex")];
  const unsized = katex.filter((k) => shown(k) && size(k).some((v) => v <= 0));
  const mathml = document.querySelector(".katex .katex-mathml");
  const html = document.querySelector(".katex .katex-html");

  const figures = [...document.querySelectorAll("figure")].map((fig) => ({
    html: short(fig),
    shown: shown(fig),
    size: size(fig),
    drawn: fig.querySelector("img, svg, picture, canvas, video, table, pre") !== null,
  }));
  const svgs = [...document.querySelectorAll("figure svg")]
    .filter((svg) => !svg.parentElement.closest("svg"))
    .map((svg) => ({
      html: short(svg),
      shown: shown(svg),
      size: size(svg),
      role: svg.getAttribute("role"),
      name: (svg.getAttribute("aria-label")
             || (svg.getAttribute("aria-labelledby") || "").split(/\\s+/)
                  .map((id) => document.getElementById(id)?.textContent || "").join(" ")
             || svg.querySelector(":scope > title")?.textContent || "").trim(),
      marks: svg.querySelectorAll("path, use, image, rect, circle, line, polyline, polygon, text")
               .length,
    }));

  // Last: asking for the style of elements in a section not yet drawn makes Chromium lay
  // out, with no size, the formulas the checks above measure.
  const laterFonts = facesOf([...document.querySelectorAll(".posenc-later .katex-html *")]);

  return {
    text: text.join("\\u0000"),
    katex: katex.length,
    katexUnsized: unsized.map(short),
    katexErrors: [...document.querySelectorAll(".katex-error")].map(short),
    katexFont: katex.length ? getComputedStyle(katex[0]).fontFamily : "",
    mathmlSize: mathml ? size(mathml) : null,
    mathmlPosition: mathml ? getComputedStyle(mathml).position : null,
    htmlDisplay: html ? getComputedStyle(html).display : null,
    preloaded,
    usedAtLoad,
    earlyFonts,
    laterFonts,
    fonts: [...document.fonts].map((f) => ({
      family: f.family.replace(/["']/g, ""), status: f.status, weight: f.weight, style: f.style,
    })),
    images: [...document.images].map((img) => ({
      src: img.currentSrc || img.src,
      complete: img.complete,
      naturalWidth: img.naturalWidth,
      alt: img.getAttribute("alt"),
      shown: shown(img),
      size: size(img),
    })),
    figures,
    svgs,
    overflow: document.documentElement.scrollWidth - window.innerWidth,
  };
}
"""


def _math_problems(report: dict) -> list[str]:
    problems = [
        f"raw TeX in the page text: {m.group(0)!r}" for m in _RAW_TEX.finditer(report["text"])
    ]
    problems += [f"KaTeX error rendered: {html}" for html in report["katexErrors"]]
    problems += [f"formula with no size: {html}" for html in report["katexUnsized"]]
    if not report["katex"]:
        return problems
    if "KaTeX_Main" not in report["katexFont"]:
        problems.append(f"KaTeX CSS not applied: .katex font-family is {report['katexFont']!r}")
    if report["mathmlSize"] is not None and (
        report["mathmlPosition"] != "absolute" or max(report["mathmlSize"]) > 1
    ):
        problems.append(
            "KaTeX CSS not applied: the MathML copy is visible "
            f"(position {report['mathmlPosition']}, size {report['mathmlSize']})"
        )
    if report["htmlDisplay"] in (None, "none"):
        problems.append("KaTeX HTML is missing or hidden")
    preloaded, used = set(report["preloaded"]), set(report["usedAtLoad"])
    if preloaded - used:
        problems.append(
            f"fonts preloaded but not used as the page loads: {sorted(preloaded - used)}"
        )
    # Fonts that only deferred sections use are not preloaded: the only ones allowed to
    # arrive late. Which of those sections Chromium draws as the page loads depends on
    # timing (CI once saw a section drawn without its state-change event), so any is allowed.
    only_later = set(report["laterFonts"]) - set(report["earlyFonts"])
    late = used - preloaded - only_later
    if late:
        problems.append(f"fonts used as the page loads but not preloaded: {sorted(late)}")
    loaded = {f["family"] for f in report["fonts"] if f["status"] == "loaded"}
    if "KaTeX_Main" not in loaded:
        problems.append(f"KaTeX_Main font not loaded (loaded: {sorted(loaded)})")
    return problems


def _media_problems(report: dict) -> list[str]:
    problems = [
        f"font failed to load: {f['family']} {f['weight']} {f['style']}"
        for f in report["fonts"]
        if f["status"] == "error"
    ]
    for img in report["images"]:
        if not img["complete"] or img["naturalWidth"] <= 0:
            problems.append(f"image did not load: {img['src']}")
        if not (img["alt"] or "").strip():
            problems.append(f"image without alt text: {img['src']}")
        if img["shown"] and min(img["size"]) <= 0:
            problems.append(f"image drawn with no size: {img['src']}")
    for fig in report["figures"]:
        if not fig["drawn"]:
            problems.append(f"figure with nothing drawn in it: {fig['html']}")
        elif fig["shown"] and min(fig["size"]) <= 0:
            problems.append(f"figure with no size: {fig['html']}")
    for svg in report["svgs"]:
        if svg["role"] != "img" or not svg["name"]:
            problems.append(f'inline SVG figure needs role="img" and a name: {svg["html"]}')
        if svg["marks"] == 0:
            problems.append(f"inline SVG figure is empty: {svg['html']}")
        if svg["shown"] and min(svg["size"]) <= 0:
            problems.append(f"inline SVG figure with no size: {svg['html']}")
    if report["overflow"] > 0:
        problems.append(f"page is {report['overflow']} px wider than the window")
    return problems


#: The pages are checked in this many groups, each its own test, so that the tests
#: can share the cores; within a group, TABS pages load at once, so that one
#: page's wait for the network to go quiet overlaps the others' loading.
GROUPS = 4
TABS = 4
#: A guard against a hang, not a speed limit: the printable page is big.
LOAD_TIMEOUT_MS = 180_000


def site_pages(site: Path) -> list[str]:
    """Every HTML file of the site, relative to its root; the printable page first."""
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html"))
    return sorted(pages, key=lambda path: path != "propositions/all/index.html")


class _Visit:
    """One page of the site loading in a tab, with everything it reported."""

    def __init__(self, context, served_url: str, path: str, is_local) -> None:
        self.path = path  # one HTML file of the site, relative to its root
        self.url = served_url + path.removesuffix("index.html")
        self.problems: list[str] = []
        self.page = page = context.new_page()

        def on_console(message) -> None:
            if message.type == "error":
                where = message.location.get("url", "")
                self.problems.append(f"console error: {message.text} [{where}]")

        def on_request(request) -> None:
            if not is_local(request.url):
                self.problems.append(f"request off the site (aborted): {request.url}")
            elif request.url.split("?")[0].endswith(SEARCH_INDEX):
                self.problems.append(f"search index asked for before any search: {request.url}")

        def on_failed(request) -> None:
            if is_local(request.url):  # off-site ones are reported above
                self.problems.append(f"request failed: {request.url} ({request.failure})")

        def on_response(response) -> None:
            if response.status >= 400:
                self.problems.append(f"HTTP {response.status}: {response.url}")

        page.on("console", on_console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))
        page.on("request", on_request)
        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        page.goto(self.url, wait_until="commit", timeout=LOAD_TIMEOUT_MS)

    def check(self, site_dir: Path, served_url: str) -> list[str]:
        """Wait for the page as a reader gets it, inspect it, close it; its problems."""
        page = self.page
        try:
            page.wait_for_load_state("load", timeout=LOAD_TIMEOUT_MS)
            if _REDIRECT.search((site_dir / self.path).read_text(encoding="utf-8")):
                page.wait_for_url(
                    lambda now: now.split("#")[0] != self.url,
                    wait_until="load",
                    timeout=LOAD_TIMEOUT_MS,
                )
                landed = page.url.split("#")[0]
                if not landed.startswith(served_url):
                    return [*self.problems, f"redirects off the site, to {landed}"]
                target = landed.removeprefix(served_url)
                if not (site_dir / target / "index.html").is_file():
                    return [*self.problems, f"redirects to {target}, not a page of the site"]
                return self.problems  # the page it lands on has a visit of its own
            page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT_MS)
            report = page.evaluate(_INSPECT)
        finally:
            page.close()
        return self.problems + _math_problems(report) + _media_problems(report)


def test_the_page_list_is_every_html_file(site_dir: Path) -> None:
    pages = site_pages(site_dir)
    assert pages[0] == "propositions/all/index.html" and "index.html" in pages
    assert len(pages) == len(set(pages)) == len(list(site_dir.rglob("*.html")))


@pytest.fixture(scope="module")
def pages_context(chromium, served_url):
    """A desktop context; requests off the site are aborted."""
    context = local_context(chromium, served_url)
    try:
        yield context
    finally:
        context.close()


def _check_pages(pages: list[str], site_dir: Path, served_url: str, is_local, context) -> None:
    """Load ``pages``, TABS at a time; fail naming each page with problems, and all of them."""
    waiting = iter(pages)
    loading: list[_Visit] = []
    failed: dict[str, list[str]] = {}
    checked = 0

    def open_next() -> None:
        path = next(waiting, None)
        if path is not None:
            loading.append(_Visit(context, served_url, path, is_local))

    try:
        for _ in range(TABS):
            open_next()
        while loading:
            visit = loading.pop(0)
            problems = visit.check(site_dir, served_url)
            checked += 1
            if problems:
                failed[visit.path] = problems
            open_next()
    finally:
        for visit in loading:  # left open by a failure: the context serves other tests
            visit.page.close()
    assert checked == len(pages) > 0
    if failed:
        pytest.fail(
            "\n".join(f"{path}:\n  " + "\n  ".join(found) for path, found in failed.items()),
            pytrace=False,
        )


def test_a_sample_of_pages_renders_cleanly(
    site_dir: Path, served_url: str, is_local, pages_context
) -> None:
    """A page of each kind, and the newest proposition (conftest.sample_of): in make test."""
    sample = sample_of(site_dir, site_pages(site_dir))
    _check_pages(sample, site_dir, served_url, is_local, pages_context)


@pytest.mark.slow
@pytest.mark.parametrize("group", range(GROUPS), ids=lambda g: f"group{g + 1}of{GROUPS}")
def test_pages_render_cleanly(
    group: int, site_dir: Path, served_url: str, is_local, pages_context
) -> None:
    """Every page of one group (every GROUPS-th HTML file of the site): in make slow."""
    pages = site_pages(site_dir)[group::GROUPS]
    _check_pages(pages, site_dir, served_url, is_local, pages_context)
