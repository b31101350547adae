"""The dependency graph of the propositions, drawn as an inline SVG.

One node per proposition, in columns by depth (a proposition sits one column
right of the deepest proposition it uses), each node a link to its page and
coloured by status. Colours come from CSS classes, so the site's stylesheet
can give the light and the dark theme their own palette.

Titles are plain text: every one is escaped (:mod:`hooks.escape`), and
:func:`block` wraps the SVG in a raw HTML block that Markdown leaves alone, so
that no extension (abbreviations, emphasis) puts HTML elements inside the SVG.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

from hooks.escape import html_text, markdown_text
from hooks.registry import Proposition

NODE_W, NODE_H = 190, 52
COL_GAP, ROW_GAP = 70, 22
PAD = 12
STATUS_CLASS = {
    "verified with all dependencies": "verified",
    "verified": "partial",
    "failed": "failed",
    "not run": "failed",
    "retired": "retired",
}


def depths(registry: Mapping[int, Proposition]) -> dict[int, int]:
    """Column of each proposition: 0 for those that use nothing."""
    depth: dict[int, int] = {}
    for n in sorted(registry):  # uses only name smaller numbers, so this order works
        depth[n] = 1 + max((depth[u] for u in registry[n].uses), default=-1)
    return depth


def layout(registry: Mapping[int, Proposition]) -> dict[int, tuple[float, float]]:
    """Top-left corner of each node."""
    depth = depths(registry)
    columns: dict[int, list[int]] = {}
    for n in sorted(registry):
        columns.setdefault(depth[n], []).append(n)
    tallest = max(len(c) for c in columns.values())
    places = {}
    for col, members in columns.items():
        offset = (tallest - len(members)) * (NODE_H + ROW_GAP) / 2  # centre short columns
        for row, n in enumerate(members):
            places[n] = (PAD + col * (NODE_W + COL_GAP), PAD + offset + row * (NODE_H + ROW_GAP))
    return places


def svg(registry: Mapping[int, Proposition], statuses: Mapping[int, str], base: str) -> str:
    """The graph as SVG markup; ``base`` is the relative path to the site root."""
    places = layout(registry)
    width = max(x for x, _ in places.values()) + NODE_W + PAD
    height = max(y for _, y in places.values()) + NODE_H + PAD
    parts = [
        f'<svg class="posenc-graph" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
        'aria-labelledby="posenc-graph-title">',
        '<title id="posenc-graph-title">Dependency graph of the propositions: '
        "an arrow from A to B means B uses A.</title>",
        '<defs><marker id="posenc-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" class="posenc-graph-arrowhead"/></marker></defs>',
    ]
    for n, entry in registry.items():
        x1, y1 = places[n]
        for used in entry.uses:
            x0, y0 = places[used]
            sx, sy = x0 + NODE_W, y0 + NODE_H / 2
            ex, ey = x1, y1 + NODE_H / 2
            mid = (sx + ex) / 2
            parts.append(
                f'<path class="posenc-graph-edge" d="M {sx:g} {sy:g} C {mid:g} {sy:g}, '
                f'{mid:g} {ey:g}, {ex - 2:g} {ey:g}" marker-end="url(#posenc-arrow)"/>'
            )
    for n, entry in registry.items():
        x, y = places[n]
        state = "retired" if entry.retired is not None else statuses.get(n, "not run")
        lines = textwrap.wrap(f"{n}. {entry.title}", 24)[:2]
        label = html_text(f"Proposition {n}: {entry.title} ({state})")
        parts.append(
            f'<a href="{base}{entry.url}" class="posenc-graph-node {STATUS_CLASS[state]}" '
            f'aria-label="{label}">'
            f'<rect x="{x:g}" y="{y:g}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
        )
        first = y + NODE_H / 2 - (len(lines) - 1) * 8 + 4
        for i, line in enumerate(lines):
            parts.append(
                f'<text x="{x + NODE_W / 2:g}" y="{first + i * 16:g}" text-anchor="middle">'
                f"{markdown_text(line, math=False)}</text>"
            )
        parts.append("</a>")
    parts.append("</svg>")
    return "".join(parts)


def block(registry: Mapping[int, Proposition], statuses: Mapping[int, str], base: str) -> str:
    """The graph for a Markdown page: the SVG in a ``div`` that Markdown copies as it is."""
    return f'<div class="posenc-graph-frame">\n{svg(registry, statuses, base)}\n</div>\n'
