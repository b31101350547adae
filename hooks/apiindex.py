"""The library reference's index: every documented name, and the page it is on.

The reference is one page per part of the library (docs/reference/api/): one
page with every name had 109 code blocks and 20 000 elements, and Material's
script measures each code block when a page starts, so that page blocked a
phone's main thread for most of a second. The index page, reference/api/,
lists every name the other pages document, grouped by page.

Until the split, every name lived on reference/api/ under an anchor of its own
(``reference/api/#posenc.rope.yarn_ramp``). Each entry of the list carries its
name as its id, so such a link still lands on the name, which links on to
where it is documented now.
"""

from __future__ import annotations

import html
import posixpath
import re

#: The folder of the reference's pages; its index.md is the index page.
FOLDER = "reference/api/"
INDEX = FOLDER + "index.md"
#: Where the list goes on the index page (the marker ``<!-- posenc:api-index -->``).
PLACEHOLDER = "<!-- posenc-api-index: every name of the reference goes here -->"
#: The heading mkdocstrings gives each documented object; its id is the dotted name.
_OBJECT = re.compile(r'<h[1-6] id="(posenc(?:\.[A-Za-z_][A-Za-z0-9_]*)*)" class="doc doc-heading"')


#: Names that moved to another module of the library: the old name keeps an entry, with
#: its own id, that links to where the name is documented now.
MOVED = {
    "posenc.rope.RopeConfig": "posenc.model_config.RopeConfig",
    "posenc.rope.RopeConfig.inv_freq": "posenc.model_config.RopeConfig.inv_freq",
    "posenc.rope.read_config": "posenc.model_config.read_config",
    "posenc.rope.cos_sin": "posenc.layouts.cos_sin",
    "posenc.rope.mrope_angles": "posenc.layouts.mrope_angles",
}


class ApiIndexError(ValueError):
    """The index page or a reference page is not as the list needs it."""


def names(page_html: str) -> list[str]:
    """The dotted names documented on a page, in the order of the page."""
    return _OBJECT.findall(page_html)


def is_reference_page(src: str) -> bool:
    """Whether ``src`` (a path under docs/) is one of the reference's pages, not its index."""
    return src.startswith(FOLDER) and src.endswith(".md") and src != INDEX


def block(pages: list[tuple[str, str, list[str]]]) -> str:
    """The list, as HTML: for each ``(title, url from the index page, names)``, the
    page's title as a link, then one entry per name, linking to it on that page."""
    seen: dict[str, str] = {}
    parts = ['<div class="posenc-api-index">']
    for title, url, documented in pages:
        parts.append(f'<p><a href="{html.escape(url)}">{html.escape(title)}</a></p>')
        parts.append("<ul>")
        for name in documented:
            if name in seen:
                raise ApiIndexError(f"{name} is documented on two pages: {seen[name]} and {url}")
            seen[name] = url
            target = html.escape(f"{url}#{name}")
            parts.append(
                f'<li id="{html.escape(name)}"><a href="{target}">'
                f"<code>{html.escape(name)}</code></a></li>"
            )
        parts.append("</ul>")
    moved = [(old, new) for old, new in MOVED.items() if new in seen]
    if moved:
        parts.append("<p>Moved to another part of the library:</p>")
        parts.append("<ul>")
        for old, new in moved:
            target = html.escape(f"{seen[new]}#{new}")
            parts.append(
                f'<li id="{html.escape(old)}"><code>{html.escape(old)}</code>: now '
                f'<a href="{target}"><code>{html.escape(new)}</code></a></li>'
            )
        parts.append("</ul>")
    parts.append("</div>")
    return "\n".join(parts)


def fill(index_html: str, pages: list[tuple[str, str, list[str]]]) -> str:
    """``index_html`` with :data:`PLACEHOLDER` replaced by :func:`block` of ``pages``."""
    if index_html.count(PLACEHOLDER) != 1:
        found = index_html.count(PLACEHOLDER)
        raise ApiIndexError(
            f"the marker <!-- posenc:api-index --> is there {found} times, not once"
        )
    if not pages or not any(documented for _, _, documented in pages):
        raise ApiIndexError(f"no page under {FOLDER} documents a name")
    return index_html.replace(PLACEHOLDER, block(pages))


def relative_url(index_url: str, page_url: str) -> str:
    """The link from the index page to a page, both given as site URLs ('reference/api/')."""
    return posixpath.relpath(page_url.rstrip("/") or ".", index_url.rstrip("/") or ".") + "/"
