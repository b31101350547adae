"""The dependency graph shows every title whole, legible on a desktop and on a phone.

The unit tests read the titles from the registry and measure each line of a node
with the advance widths of real bold sans-serif fonts (fontTools, independent of
the estimate in hooks/graph.py). The browser tests look at the built page at
1280 px and 390 px: each node's text lies inside its box and is shown at 12 px
or more (the drawing scrolls in its frame rather than shrink below that).
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
import pytest
from fontTools.ttLib import TTFont

from hooks import graph, registry
from hooks.registry import Proposition

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = registry.load(ROOT / "docs", ROOT)
SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = 'Order <script>alert(1)</script> & "quotes" *and* {: #x } $a$ W_q'
FONTS = [
    Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf",
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    Path("/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"),
]


def nodes(svg_markup: str) -> list[tuple[str, ET.Element, list[str]]]:
    """(href, rect, lines of text) of each node; the markup must be well-formed XML."""
    root = ET.fromstring(svg_markup)
    found = []
    for link in root.iter(f"{SVG}a"):
        rect = link.find(f"{SVG}rect")
        lines = [span.text or "" for span in link.iter(f"{SVG}tspan")]
        found.append((link.get("href"), rect, lines))
    return found


@functools.cache
def _metrics(path: Path) -> tuple[dict[int, str], dict[str, tuple[int, int]], int]:
    font = TTFont(path)
    return font.getBestCmap(), dict(font["hmtx"].metrics), font["head"].unitsPerEm


def widest_advance(text: str, size: float) -> float:
    """Width in px of ``text`` at ``size`` px in the widest of the fonts at hand."""
    widths = []
    for path in FONTS:
        if not path.is_file():
            continue
        cmap, metrics, em = _metrics(path)
        units = sum(metrics[cmap[ord(c)]][0] if ord(c) in cmap else em for c in text)
        widths.append(units / em * size)
    assert widths, "no font to measure with"
    return max(widths)


def _entry(number: int, title: str, uses: tuple[int, ...] = ()) -> Proposition:
    base = ENTRIES[min(ENTRIES)]
    return Proposition(
        **{
            **base.__dict__,
            "number": number,
            "title": title,
            "slug": f"s{number}",
            "page": f"propositions/p{number:02d}-s{number}.md",
            "uses": uses,
        }
    )


def test_every_node_holds_its_whole_title():
    found = {href: lines for href, _, lines in nodes(graph.svg(ENTRIES, {}, "../"))}
    assert len(found) == len(ENTRIES)
    for n, entry in ENTRIES.items():
        lines = found[f"../{entry.url}"]
        assert " ".join(lines) == f"{n}. {entry.title}", n
        assert all(line and line == line.strip() for line in lines), (n, lines)


def test_no_line_is_wider_than_its_node():
    markup = graph.svg(ENTRIES, {}, "../")
    size = float(ET.fromstring(markup).get("font-size"))
    assert size >= 12
    for href, rect, lines in nodes(markup):
        room = float(rect.get("width"))
        for line in lines:
            assert widest_advance(line, size) < room - 2, (href, line)


def test_lines_fit_the_height_of_their_node():
    for href, rect, lines in nodes(graph.svg(ENTRIES, {}, "../")):
        assert float(rect.get("height")) >= len(lines) * graph.LINE, href


def test_a_hostile_long_title_is_whole_and_inert():
    entries = {1: _entry(1, HOSTILE * 2), 2: _entry(2, "Short", (1,))}
    markup = graph.svg(entries, {1: "verified"}, "../")
    (href, _, lines), _ = nodes(markup)  # parses: nothing in the title became markup
    assert " ".join(lines) == f"1. {HOSTILE * 2}"
    assert href == "../" + entries[1].url
    assert "<script>" not in markup and len(lines) > 3


def test_a_word_longer_than_a_node_widens_every_node():
    long_word = "Supercalifragilisticexpialidocious-positional-encodings"
    markup = graph.svg({1: _entry(1, long_word)}, {}, "")
    ((_, rect, lines),) = nodes(markup)
    assert lines == ["1.", long_word]
    assert widest_advance(long_word, graph.FONT) < float(rect.get("width"))


# -- in the browser -------------------------------------------------------------------

MEASURE = """() => {
  const svg = document.querySelector('svg.posenc-graph');
  const frame = svg.closest('.posenc-graph-frame');
  const scale = svg.getScreenCTM().a;
  const out = [];
  for (const link of svg.querySelectorAll('a.posenc-graph-node')) {
    const box = link.querySelector('rect').getBoundingClientRect();
    const text = link.querySelector('text');
    const ink = text.getBoundingClientRect();
    out.push({
      href: link.getAttribute('href'),
      size: parseFloat(getComputedStyle(text).fontSize) * scale,
      inside: ink.left >= box.left - 0.5 && ink.right <= box.right + 0.5
        && ink.top >= box.top - 0.5 && ink.bottom <= box.bottom + 0.5,
      text: text.textContent,
    });
  }
  return {nodes: out, scrolls: frame.scrollWidth > frame.clientWidth + 1,
          page: document.documentElement.scrollWidth, screen: window.innerWidth};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 390])
def test_the_graph_is_legible_at(width, chromium, is_local, served_url):
    context = chromium.new_context(
        viewport={"width": width, "height": 900}, service_workers="block"
    )
    context.route(lambda url: not is_local(url), lambda route: route.abort())
    try:
        page = context.new_page()
        page.goto(served_url + "graph/", wait_until="load")
        page.evaluate("document.fonts.ready")
        report = page.evaluate(MEASURE)
    finally:
        context.close()
    assert len(report["nodes"]) == len(ENTRIES)
    titles = {f"../{e.url}": f"{n}. {e.title}" for n, e in ENTRIES.items()}
    for node in report["nodes"]:
        assert node["inside"], f"at {width} px the text of {node['href']} leaves its box"
        assert node["size"] >= 12 - 1e-6, f"at {width} px {node['href']}: {node['size']} px"
        assert node["text"] == titles[node["href"]]
    assert report["page"] <= report["screen"] + 0.5, "the graph widens the page"
    print(
        f"{width} px: text {min(n['size'] for n in report['nodes']):.1f} px, "
        f"{'scrolls in its frame' if report['scrolls'] else 'fits'}"
    )
