"""Check the internal links of the built site, raw HTML included.

MkDocs validates the links written in Markdown (``validation:`` in
mkdocs.yml), but a link written as raw HTML (``<a href="...">``,
``<img src="...">``, a link inside a generated SVG) reaches the page
untouched and unchecked. This module reads every built HTML page once, after
the build, and checks that:

* each internal ``href``/``src`` names a file of the built site (a URL ending
  in ``/`` names its ``index.html``);
* each ``#fragment`` names an ``id`` (or an ``<a name>``) of the target page,
  when the target is an HTML page.

What it skips, on purpose: external links (any URL with a scheme, such as
``https:``, ``mailto:`` or ``data:``, and ``//host`` URLs), since the build
uses no network; ``srcset`` and CSS ``url()``; fragments of files that are not
HTML (an SVG's or a notebook's); and text inside comments and ``<script>``
bodies, which is not markup.

It scans with regular expressions, not :mod:`html.parser`: on the 8 MB of the
built site (46 pages) the parser took about 1.9 s, the scan takes about 0.1 s.
The scan reads lower-case tags with attribute values in quotes (or bare), which
is what MkDocs, Material and the hooks write; what it cannot read, it skips.

Plain Python, no MkDocs import: the hook logs what :func:`check_site` returns.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["Broken", "check_site", "page_links"]

# Each pattern starts with a literal character and is case-sensitive: that keeps the
# scan fast (re.IGNORECASE made it five times slower). MkDocs, Material and the
# hooks write tags and attributes in lower case; so should a page's raw HTML.
# Comments are dropped; a <script> keeps its opening tag (for its src) but not its body.
_NOT_MARKUP = re.compile(r"<(?:!--.*?-->|(script\b[^>]*>).*?</script\s*>)", re.S)
_LINKING_TAG = re.compile(
    r"<(a|area|link|img|script|iframe|source|audio|video|embed|track|image|use)\s([^>]*)>"
)
_URL_ATTR = re.compile(
    r"""(?:^|\s)(href|src|xlink:href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))"""
)
# An id (or a name, as <a name> defines one) anywhere in the markup.
_ID_ATTR = re.compile(r"""\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


@dataclass(frozen=True)
class Broken:
    """One link that does not resolve: the page it is on, the link, and why."""

    page: str
    link: str
    why: str

    def __str__(self) -> str:
        return f"{self.page}: link '{self.link}' {self.why}"


@dataclass(frozen=True)
class _Page:
    links: tuple[str, ...]
    ids: frozenset[str]


def page_links(page_html: str) -> tuple[list[str], set[str]]:
    """The URLs a page links to (href and src, entities decoded) and the ids it defines."""
    markup = _NOT_MARKUP.sub(lambda m: "<" + m.group(1) if m.group(1) else "", page_html)
    links = []
    for tag in _LINKING_TAG.finditer(markup):
        for attr in _URL_ATTR.finditer(tag.group(2)):
            value = next(v for v in attr.groups()[1:] if v is not None)
            links.append(html.unescape(value).strip())
    ids = {html.unescape(a or b) for a, b in _ID_ATTR.findall(markup)}
    return links, ids


def _internal_target(link: str, page: str, root_path: str) -> tuple[str | None, str, str]:
    """(site path of the target file or None if external, fragment, problem or '')."""
    if link.startswith("//") or _SCHEME.match(link):
        return None, "", ""
    parts = urlsplit(link)
    path, fragment = unquote(parts.path), unquote(parts.fragment)
    if not path:
        return page, fragment, ""
    if path.startswith("/"):
        if not path.startswith(root_path):
            return "", fragment, f"is outside the site's root {root_path}"
        joined = path[len(root_path) :]
    else:
        joined = posixpath.join(posixpath.dirname(page), path)
    target = posixpath.normpath(joined) if joined else "."
    if target == ".." or target.startswith("../"):
        return "", fragment, "points outside the site"
    if path.endswith("/") or target == ".":
        target = posixpath.join(target, "index.html") if target != "." else "index.html"
    return target, fragment, ""


def check_site(site: Path, site_url: str | None = None) -> list[Broken]:
    """Every internal link of the built ``site`` that names no file or no anchor.

    ``site_url`` (mkdocs.yml's) says where the site's root is, for links that
    start with ``/``.
    """
    site = Path(site)
    root_path = urlsplit(site_url or "/").path or "/"
    if not root_path.endswith("/"):
        root_path += "/"
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    pages: dict[str, _Page] = {}
    for name in sorted(f for f in files if f.endswith(".html")):
        links, ids = page_links((site / name).read_text(encoding="utf-8", errors="replace"))
        pages[name] = _Page(tuple(links), frozenset(ids))
    broken: list[Broken] = []
    for name, page in pages.items():
        for link in dict.fromkeys(page.links):  # each distinct link once per page
            problem = _problem(link, name, root_path, files, pages)
            if problem:
                broken.append(Broken(name, link, problem))
    return broken


def _problem(
    link: str, page: str, root_path: str, files: set[str], pages: dict[str, _Page]
) -> str:
    target, fragment, problem = _internal_target(link, page, root_path)
    if target is None or problem:
        return problem
    if target not in files and f"{target}/index.html" in files:
        target = f"{target}/index.html"  # a directory URL written without its slash
    if target not in files:
        hint = ""
        if target.endswith(".md"):
            hint = " (MkDocs does not rewrite raw HTML links: link to the page's URL)"
        return f"names {target}, which is not in the built site{hint}"
    if fragment and target in pages and fragment not in pages[target].ids:
        return f"names the anchor #{fragment}, which {target} does not have"
    return ""
