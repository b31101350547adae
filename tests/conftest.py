"""Shared fixtures for the tests that look at the built site.

The site is whatever ``make site`` (``mkdocs build --strict``) wrote: the
directory named by ``POSENC_SITE_DIR``, by default ``<repo>/site``. It is
served from 127.0.0.1 on a free port, under the same path as the configured
``site_url`` so that pages with absolute links (404.html) load as deployed.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

from tools.chromium import ARGS, CHROMIUM

REPO = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = list(ARGS)

# The builds of copies of the project (hostile input, a false claim, a typed number)
# share this checkout's build cache instead of drawing every figure, running every
# notebook and rendering every formula again in each copy. Entries are found by the
# content of what they depend on (hooks/cache.py), so a copy gets only what its own
# sources would make; the tests that are about a cold build turn it off themselves.
os.environ.setdefault("POSENC_BUILD_CACHE", str(REPO / ".cache" / "build"))


def _site_dir_path() -> Path:
    """Where the built site should be (it may not exist)."""
    return Path(os.environ.get("POSENC_SITE_DIR", REPO / "site")).resolve()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test asking for ``site_page`` runs once per HTML file of the site."""
    if "site_page" not in metafunc.fixturenames:
        return
    site = _site_dir_path()
    if (site / "index.html").is_file():
        pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html"))
    else:
        pages = ["(no built site)"]  # the site_dir fixture then fails, saying what to run
    metafunc.parametrize("site_page", pages)


@pytest.fixture(scope="session")
def site_dir() -> Path:
    """The built site; fails, saying what to run, when there is none."""
    path = _site_dir_path()
    if not (path / "index.html").is_file():
        pytest.fail(
            f"no built site at {path} (no index.html): run `make site` first, "
            "or set POSENC_SITE_DIR to a directory built by `mkdocs build --strict`",
            pytrace=False,
        )
    return path


def _base_path(site: Path) -> str:
    """The path part of ``site_url`` (MkDocs setting) ("/" if unset), read from the sitemap."""
    sitemap = site / "sitemap.xml"
    if not sitemap.is_file():
        return "/"
    locs = [el.text or "" for el in ET.parse(sitemap).iter() if el.tag.endswith("loc")]
    paths = [urlsplit(loc.strip()).path for loc in locs if loc.strip()]
    if not paths:
        return "/"
    shortest = min(paths, key=len)  # the home page, whose URL is site_url itself
    return shortest if shortest.endswith("/") else shortest.rsplit("/", 1)[0] + "/"


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site under ``base``; quiet; no directory listings."""

    base: ClassVar[str] = "/"
    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".json": "application/json",
        ".svg": "image/svg+xml",
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".ttf": "font/ttf",
        ".webmanifest": "application/manifest+json",
    }

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.base):
            return os.path.join(self.directory, "\0-outside-the-site")  # does not exist: 404
        return super().translate_path("/" + path[len(self.base) :])

    def list_directory(self, path):  # a directory without index.html is a broken link
        self.send_error(404, "No index.html here")
        return None

    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="session")
def served_url(site_dir: Path) -> Iterator[str]:
    """Base URL of the site, served from a thread for the whole session."""
    base = _base_path(site_dir)
    handler = type("Handler", (_SiteHandler,), {"base": base})
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(site_dir))
    )
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}{base}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def chromium():
    """One headless Debian Chromium for the session, driven by Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - environment problem, say so plainly
        pytest.fail("the playwright Python package is not installed", pytrace=False)
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium package", pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


def off_site(served_url: str) -> re.Pattern[str]:
    """The URLs a page of the site may not request: any but the test server's, or data
    held in the page (``data:``, ``blob:``).

    A regular expression, so that Playwright's driver matches it: routing with a
    Python predicate makes every request of every page a round trip to the test.
    """
    parts = urlsplit(served_url)
    origin = re.escape(f"{parts.scheme}://{parts.netloc}/")
    return re.compile(f"^(?!{origin}|data:|blob:)")


@pytest.fixture(scope="session")
def is_local(served_url: str) -> Callable[[str], bool]:
    """Whether a page may request a URL: what :func:`off_site` does not match."""
    parts = urlsplit(served_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    blocked = off_site(served_url)
    return lambda url: url == origin or blocked.match(url) is None


def local_context(chromium, served_url: str, **options):
    """A new browser context (desktop-sized unless ``options`` say otherwise, no
    service workers) in which a request to any other host is aborted."""
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = chromium.new_context(service_workers="block", **options)
    context.route(off_site(served_url), lambda route: route.abort())
    return context


@pytest.fixture(scope="session")
def browser_context(chromium, served_url: str):
    """One context for every page; a request to any other host is aborted."""
    context = local_context(chromium, served_url)
    try:
        yield context
    finally:
        context.close()


def sample_of(site: Path, files: list[str]) -> list[str]:
    """The few of ``files`` (HTML files, relative to ``site``) that make test opens.

    Opening every page of the site in Chromium, at two widths, takes minutes that
    grow with the corpus, so make test opens a sample and ``make slow`` (run by CI)
    every page. The sample: the first page of each folder of the site (and each
    page at its root), and of the propositions the first, the largest and the
    newest, which is the one just written. Not the printable page of every
    proposition, which alone costs as much as a dozen.
    """
    chosen: dict[str, str] = {}
    for name in sorted(files):
        if name != "propositions/all/index.html":
            chosen.setdefault(name.split("/")[0], name)
    number = re.compile(r"propositions/p(\d+)-")
    numbered = sorted(
        (name for name in files if number.match(name)),
        key=lambda name: int(number.match(name).group(1)),
    )
    if numbered:
        largest = max(numbered, key=lambda name: (site / name).stat().st_size)
        chosen.update(first=numbered[0], largest=largest, newest=numbered[-1])
    return sorted(set(chosen.values()))


#: The tests that take long, with a rough cost in seconds on two busy cores: a key
#: with "::" is a test (each of its parametrized cases costs that much), a key
#: without is a module that moves as a whole (its module-scoped fixtures are set
#: up once). Everything else takes a second or less.
LONG = {
    # make slow (tests marked slow)
    "tests/test_reproducible.py::test_a_cold_build_and_builds_from_the_cache_in_another"
    "_checkout_are_byte_identical": 400,
    "tests/test_citations.py::test_make_pdf_writes_the_corpus": 40,
    "tests/test_browser.py::test_pages_render_cleanly[group1of4]": 25,  # the printable page
    "tests/test_browser.py::test_pages_render_cleanly": 17,
    # make test, and make slow
    "tests/test_phone.py": 20,  # in make slow, 60
    "tests/test_browser.py::test_a_sample_of_pages_renders_cleanly": 15,
    "tests/test_proofs.py::test_a_broken_copy_makes_the_runner_fail": 18,
    "tests/test_build_hostile.py": 15,
    "tests/test_site.py": 10,
}


def _long_key(nodeid: str) -> str | None:
    for key in LONG:
        if nodeid == key or nodeid.startswith(key + ("::" if "::" not in key else "")):
            return key
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Lay the tests out so that, spread over the cores, the workers end together.

    ``make test`` runs pytest -n auto --dist worksteal: xdist hands the first
    half of this list to one worker and the second half to the other (with N
    workers, N runs in a row), and a worker that runs out takes the last tests
    waiting on the busiest one. So the long tests are shared out first, the
    longest to the least loaded worker, and each worker's go at the head of its
    run; the short tests fill the runs in their usual order, and what is left of
    them at the end is what moves.
    """
    workers = int(getattr(config, "workerinput", {}).get("workercount", 1))
    units: dict[str, list[pytest.Item]] = {}
    short: list[pytest.Item] = []
    for item in items:
        key = _long_key(item.nodeid)
        if key is None:
            short.append(item)
        else:  # a module is one unit; a test's cases are one unit each
            units.setdefault(key if "::" not in key else item.nodeid, []).append(item)
    cost = {unit: LONG[_long_key(unit) or unit] for unit in units}
    bins: list[list[str]] = [[] for _ in range(workers)]
    load = [0.0] * workers
    for unit in sorted(units, key=lambda u: -cost[u]):  # stable: ties keep their order
        least = load.index(min(load))
        bins[least].append(unit)
        load[least] += cost[unit]
    # xdist's first hand-out: worker i gets (what is left) // (workers - i) tests.
    laid: list[pytest.Item] = []
    waiting = iter(short)
    left = len(items)
    for index, units_here in enumerate(bins):
        size = left // (workers - index)
        run = [item for unit in units_here for item in units[unit]]
        run += [item for _, item in zip(range(size - len(run)), waiting, strict=False)]
        laid += run
        left -= len(run)
    laid += list(waiting)
    assert sorted(map(id, laid)) == sorted(map(id, items))
    items[:] = laid


# ----------------------------------------------------------------------------
# Sections laid out as the reader reaches them (hooks/loading.py, defer_sections):
# the wrappers must change no spacing.

# The top of every h2 and of the footer, drawn in full: first with the sections
# wrapped as built, then with each wrapper replaced by its content.
HEADINGS_WRAPPED_AND_NOT = """async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const tops = () => [...document.querySelectorAll('article h2, .md-footer')].map(
    (h) => h.getBoundingClientRect().top + window.scrollY);
  const later = [...document.querySelectorAll('.posenc-later')];
  for (const s of later) s.style.contentVisibility = 'visible';
  await frame();
  const wrapped = tops();
  for (const s of later) s.replaceWith(...s.childNodes);
  await frame();
  return [later.length, wrapped, tops()];
}"""


def heading_shifts(measured: list, path: str) -> list[tuple[int, float]]:
    """What ``HEADINGS_WRAPPED_AND_NOT`` measured: each heading that moved, and by how much.

    Fails if the page has no deferred section or the two lists differ in length.
    """
    count, wrapped, plain = measured
    assert count >= 1, f"{path}: no deferred section"
    assert len(wrapped) == len(plain), path
    pairs = enumerate(zip(wrapped, plain, strict=True))
    return [(i, b - a) for i, (a, b) in pairs if abs(a - b) > 0.5]
