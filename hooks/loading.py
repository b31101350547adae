"""Math fonts, asked for before the page is laid out.

KaTeX's fonts use ``font-display: block``: text in a formula stays invisible
until its font has arrived, and the browser only asks for a font once it has
laid the formula out. A page with math therefore names, in its ``<head>``, the
two fonts almost every formula uses (KaTeX_Main for upright symbols, KaTeX_Math
for italic letters), so they download alongside the stylesheets.

The other speed changes are in the theme templates (``overrides/``).
"""

from __future__ import annotations

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
