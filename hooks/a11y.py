"""Small accessibility repairs to the theme's HTML, applied to every page.

Material's search overlay is a ``role="dialog"`` element with no accessible
name; screen readers then announce an anonymous dialog (and Lighthouse's
accessibility audit fails). We name it.

A display formula scrolls sideways inside its own box when it is wider than the
screen (``div.arithmatex``, see ``posenc.css``). A box that scrolls must be
reachable from the keyboard (axe's rule scrollable-region-focusable), and a
formula holds nothing focusable, so every display formula is made focusable.
So is every plain table: Material wraps it, in the browser, in a box that
scrolls (``.md-typeset__scrollwrap``), and a focusable table inside makes that
box reachable too (the arrow keys then scroll it). Which of them scroll depends
on the reader's screen, which the build cannot know; one that fits costs one
more stop for the Tab key.
"""

from __future__ import annotations

_SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
_NAMED = '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search">'
_FORMULA = '<div class="arithmatex">'
_FOCUSABLE_FORMULA = '<div class="arithmatex" tabindex="0">'
_TABLE = "<table>"  # Material wraps only tables without a class
_FOCUSABLE_TABLE = '<table tabindex="0">'


def repair(page_html: str) -> str:
    return (
        page_html.replace(_SEARCH_DIALOG, _NAMED)
        .replace(_FORMULA, _FOCUSABLE_FORMULA)
        .replace(_TABLE, _FOCUSABLE_TABLE)
    )
