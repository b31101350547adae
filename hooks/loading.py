"""Math fonts, asked for before the page is laid out.

KaTeX's fonts use ``font-display: block``: text in a formula stays invisible
until its font has arrived, and the browser only asks for a font once it has
laid the formula out. A page with math therefore names, in its ``<head>``, the
two fonts almost every formula uses (KaTeX_Main for upright symbols, KaTeX_Math
for italic letters), so they download alongside the stylesheets.

The other speed changes are in the theme templates (``overrides/``).
"""

from __future__ import annotations

import posixpath
import re

#: KaTeX font files, relative to the KaTeX stylesheet's folder, and the class
#: that shows a page uses each one. ``katex`` is on every formula.
FONTS = (
    ("katex", "fonts/KaTeX_Main-Regular.woff2"),
    ("mathnormal", "fonts/KaTeX_Math-Italic.woff2"),
)
_KATEX_CSS = re.compile(r'<link rel="stylesheet" href="([^"]*)katex\.min\.css">')


def _uses_class(page_html: str, name: str) -> bool:
    return re.search(rf'class="(?:[^"]* )?{name}(?: [^"]*)?"', page_html) is not None


def preload_math_fonts(page_html: str) -> str:
    """Add ``<link rel="preload">`` for the KaTeX fonts the page's formulas use."""
    stylesheet = _KATEX_CSS.search(page_html)
    if stylesheet is None:
        return page_html
    folder = stylesheet.group(1)
    links = "".join(
        f'<link rel="preload" href="{folder}{font}" as="font" type="font/woff2" crossorigin>'
        for name, font in FONTS
        if _uses_class(page_html, name)
    )
    return page_html[: stylesheet.start()] + links + page_html[stylesheet.start() :]


# -- our stylesheets and script: inline where needed, absent where not -----------------
#
# Material links its own two stylesheets from every page's <head>; the site adds
# four more (mkdocstrings', KaTeX's, ours and the widgets'), and the widgets'
# script. On a phone over a slow network each linked stylesheet is one more
# request the first paint waits for. So each page gets only what it uses, and
# gets it inline: a <style> where the <link> was (same place, same cascade),
# its url()s rewritten to be relative to the page. Material's stylesheets and
# script stay as they are: cached from page to page, and theirs to change.

#: Site path of each stylesheet we manage, and what in a page's <body> shows that it
#: needs it (None: every page).
STYLESHEETS = {
    "assets/_mkdocstrings.css": 'class="doc doc-',
    "assets/katex/katex.min.css": 'class="katex',
    "stylesheets/posenc.css": None,
    "stylesheets/widgets.css": "data-posenc-widget",
}
#: Site path of each script we manage, and what shows a page needs it.
SCRIPTS = {"javascripts/widgets.js": "data-posenc-widget"}
_URL_RE = re.compile(r"""url\((['"]?)([^'")]+)\1\)""")
_ROOT_MARK = "\0posenc-root\0"


def site_css(path: str, text: str) -> str:
    """``text``, the stylesheet at site path ``path``, with its relative url()s made
    relative to the site's root (behind a mark that :func:`own_assets` replaces)."""
    folder = posixpath.dirname(path)

    def one(match: re.Match[str]) -> str:
        quote, url = match.groups()
        if re.match(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", url, re.I):
            return match.group(0)  # data:, http:, absolute or a fragment: not a file of ours
        return f"url({quote}{_ROOT_MARK}{posixpath.normpath(posixpath.join(folder, url))}{quote})"

    return _URL_RE.sub(one, text)


def _needed(body: str, sign: str | None) -> bool:
    return sign is None or sign in body


def own_assets(page_html: str, root: str, styles: dict[str, str]) -> str:
    """``page_html`` with each managed stylesheet inlined if needed and dropped if not,
    and each managed script dropped if not needed.

    ``root`` is the page's relative path to the site root ('' or '../../');
    ``styles`` maps site paths to their text, as :func:`site_css` gives it.
    """
    head, split, body = page_html.partition("</head>")
    if not split:
        return page_html
    for path, sign in STYLESHEETS.items():
        link = re.compile(
            rf'<link rel="stylesheet" href="{re.escape(root)}{re.escape(path)}(?:\?[^"]*)?">'
        )
        found = link.search(head)
        if found is None or path not in styles:
            continue
        if _needed(body, sign):
            css = styles[path].replace(_ROOT_MARK, root).replace("</", "<\\/")
            tag = f'<style data-posenc-from="{path}">{css}</style>'
        else:
            tag = ""
        head = head[: found.start()] + tag + head[found.end() :]
    for path, sign in SCRIPTS.items():
        if not _needed(body, sign):
            script = rf'<script src="{re.escape(root)}{re.escape(path)}(?:\?[^"]*)?"></script>'
            body = re.sub(script, "", body, count=1)
    return head + split + body
