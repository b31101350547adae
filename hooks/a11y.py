"""Small accessibility repairs to the theme's HTML, applied to every page.

Material's search overlay is a ``role="dialog"`` element with no accessible
name; screen readers then announce an anonymous dialog (and Lighthouse's
accessibility audit fails). We name it.
"""

from __future__ import annotations

_SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
_NAMED = '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'


def repair(page_html: str) -> str:
    return page_html.replace(_SEARCH_DIALOG, _NAMED)
