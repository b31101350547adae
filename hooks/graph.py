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

from collections.abc import Mapping
from typing import Any

from hooks.escape import html_text, markdown_text
from hooks.parts import part_of as parts_of
from hooks.registry import Proposition

FONT = 13  # px at natural size; the page never shows it below 12 px (posenc.css)
LINE = 17  # baseline to baseline
NODE_W = 150
PAD_X, PAD_Y = 9, 7  # inside a node, around its text
COL_GAP, ROW_GAP = 32, 12
PAD = 8  # around the drawing, room for the focus outline
STATUS_CLASS = {
    "verified with all dependencies": "verified",
    "verified": "partial",
    "failed": "failed",
    "not run": "failed",
    "retired": "retired",
}
# Advance widths in em, rounded up, of the wider of DejaVu Sans Bold and Liberation
# Sans Bold (the sans-serif fonts a Linux reader most likely gets); any other
# character counts as the widest glyph of either.
_WIDTHS = {
    0.35: "ijl' ",
    0.4: "I,./:;\\|",
    0.45: "f-",
    0.5: "rt!()[]`",
    0.55: '"*',
    0.6: "cszJ_",
    0.65: "xL?",
    0.7: "0123456789aekovyEFT$",
    0.75: "bdghnpquCPSYZ{}",
    0.8: "ABKRVX",
    0.85: "DGHNU#+<=>^~",
    0.9: "OQ&",
    0.95: "w",
    1.05: "Mm%@",
}
_EM = {char: width for width, chars in _WIDTHS.items() for char in chars}
_WIDEST = 1.15  # W


def text_width(text: str) -> float:
    """A width in px at ``FONT`` that the rendered text does not exceed."""
    return FONT * sum(_EM.get(char, _WIDEST) for char in text)


def wrap(text: str, width: float) -> list[str]:
    """Words of ``text`` greedily filled into lines no wider than ``width`` px.

    A word wider than a line gets a line of its own (:func:`node_width` makes
    the nodes wide enough that this does not happen).
    """
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def label(n: int, entry: Proposition) -> str:
    return f"{n}. {entry.title}"


def node_width(registry: Mapping[int, Proposition]) -> float:
    """``NODE_W``, or wider if a single word of some title would not fit."""
    words = (w for n, e in registry.items() for w in label(n, e).split())
    return max(NODE_W, max((text_width(w) for w in words), default=0) + 2 * PAD_X)


def lines_of(registry: Mapping[int, Proposition]) -> dict[int, list[str]]:
    """Each node's text, one string per line; joined by spaces they are the label."""
    width = node_width(registry) - 2 * PAD_X
    return {n: wrap(label(n, e), width) for n, e in registry.items()}


def node_height(lines: int) -> float:
    return 2 * PAD_Y + lines * LINE


def depths(registry: Mapping[int, Proposition]) -> dict[int, int]:
    """Column of each proposition: 0 for those that use nothing."""
    depth: dict[int, int] = {}
    for n in sorted(registry):  # uses only name smaller numbers, so this order works
        depth[n] = 1 + max((depth[u] for u in registry[n].uses), default=-1)
    return depth


def layout(registry: Mapping[int, Proposition]) -> dict[int, tuple[float, float]]:
    """Top-left corner of each node: columns by depth, each node as tall as its text."""
    depth = depths(registry)
    heights = {n: node_height(len(lines)) for n, lines in lines_of(registry).items()}
    step = node_width(registry) + COL_GAP
    columns: dict[int, list[int]] = {}
    for n in sorted(registry):
        columns.setdefault(depth[n], []).append(n)
    extent = {c: sum(heights[n] + ROW_GAP for n in m) - ROW_GAP for c, m in columns.items()}
    tallest = max(extent.values())
    places = {}
    for col, members in columns.items():
        y = PAD + (tallest - extent[col]) / 2  # centre short columns
        for n in members:
            places[n] = (PAD + col * step, y)
            y += heights[n] + ROW_GAP
    return places


#: The width of the stripe of a part's colour at the left edge of each node.
STRIPE = 5


def svg(
    registry: Mapping[int, Proposition],
    statuses: Mapping[int, str],
    base: str,
    parts: Mapping[str, Any] | None = None,
) -> str:
    """The graph as SVG markup; ``base`` is the relative path to the site root.

    With ``parts`` (:class:`hooks.parts.Part` by key), each node carries a stripe
    in its part's colour (CSS class ``part-<number>``), and its name says the part.

    Each node holds its whole title, wrapped onto as many lines as it needs. The
    natural width goes to the stylesheet as ``--posenc-graph-width``: the page
    shrinks the drawing to fit, but not below 12 px text, and scrolls it instead.
    """
    part_of = parts_of(parts or {})
    places = layout(registry)
    lines = lines_of(registry)
    node_w = node_width(registry)
    mid_y = {n: places[n][1] + node_height(len(lines[n])) / 2 for n in registry}
    width = max(x for x, _ in places.values()) + node_w + PAD
    height = max(places[n][1] + node_height(len(lines[n])) for n in registry) + PAD
    parts = [
        f'<svg class="posenc-graph" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width:g} {height:g}" width="{width:g}" height="{height:g}" '
        f'style="--posenc-graph-width: {width:g}px" font-size="{FONT}" '
        'aria-labelledby="posenc-graph-title">',
        '<title id="posenc-graph-title">Dependency graph of the propositions: '
        "an arrow from A to B means B uses A.</title>",
        '<defs><marker id="posenc-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" class="posenc-graph-arrowhead"/></marker></defs>',
    ]
    for n, entry in registry.items():
        x1, _ = places[n]
        for used in entry.uses:
            sx, sy = places[used][0] + node_w, mid_y[used]
            ex, ey = x1, mid_y[n]
            mid = (sx + ex) / 2
            parts.append(
                f'<path class="posenc-graph-edge" d="M {sx:g} {sy:g} C {mid:g} {sy:g}, '
                f'{mid:g} {ey:g}, {ex - 2:g} {ey:g}" marker-end="url(#posenc-arrow)"/>'
            )
    for n, entry in registry.items():
        x, y = places[n]
        state = "retired" if entry.retired is not None else statuses.get(n, "not run")
        part = part_of.get(n)
        within = f", Part {part.roman}: {part.title}" if part is not None else ""
        name = html_text(f"Proposition {n}: {entry.title} ({state}{within})")
        parts.append(
            f'<a href="{base}{entry.url}" class="posenc-graph-node {STATUS_CLASS[state]}" '
            f'aria-label="{name}">'
            f'<rect x="{x:g}" y="{y:g}" width="{node_w:g}" '
            f'height="{node_height(len(lines[n])):g}" rx="6"/>'
            + (
                f'<rect class="posenc-graph-part part-{part.number}" x="{x + 2:g}" '
                f'y="{y + 4:g}" width="{STRIPE}" height="{node_height(len(lines[n])) - 8:g}" '
                'rx="2"/>'
                if part is not None
                else ""
            )
            + f'<text x="{x + node_w / 2:g}" text-anchor="middle">'
        )
        # A space between lines keeps the text a sentence for copying and searching.
        parts.append(
            " ".join(
                f'<tspan x="{x + node_w / 2:g}" y="{y + PAD_Y + i * LINE + 0.95 * FONT:g}">'
                f"{markdown_text(line, math=False)}</tspan>"
                for i, line in enumerate(lines[n])
            )
        )
        parts.append("</text></a>")
    parts.append("</svg>")
    return "".join(parts)


def block(
    registry: Mapping[int, Proposition],
    statuses: Mapping[int, str],
    base: str,
    parts: Mapping[str, Any] | None = None,
) -> str:
    """The graph for a Markdown page: the SVG in a ``div`` that Markdown copies as it is,
    and, with ``parts``, the key to the colours of the parts, each linked to its page."""
    drawn = f'<div class="posenc-graph-frame">\n{svg(registry, statuses, base, parts)}\n</div>\n'
    if not parts:
        return drawn
    items = "".join(
        f'<li><span class="posenc-part-swatch part-{p.number}"></span>'
        f'<a href="{base}{p.url}">{html_text(p.heading)}</a></li>'
        for p in parts.values()
    )
    return drawn + f'<div class="posenc-graph-legend posenc-graph-parts"><ul>{items}</ul></div>\n'
