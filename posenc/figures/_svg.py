"""A figure as SVG text: the same bytes on every run, readable without fonts."""

from __future__ import annotations

import hashlib
import html
import io
import re

import matplotlib
from matplotlib.figure import Figure

#: Seed of the ids matplotlib writes into an SVG; fixed, so the output is reproducible.
SALT = "posenc"

# matplotlib names each clip path by a hash of its rectangle, to full float
# precision. Layout arithmetic can differ in the last bit from run to run (SIMD
# sums depend on memory alignment) while every drawn coordinate, written with
# fewer digits, is the same; so the names are replaced by ones made from the
# rest of the file, in order of appearance.
_CLIP_ID = re.compile(r'(?<=id=")p[0-9a-f]{10}(?=")|(?<=url\(#)p[0-9a-f]{10}(?=\))')


def _stable_clip_ids(svg: str) -> str:
    names = list(dict.fromkeys(_CLIP_ID.findall(svg)))
    if not names:
        return svg
    digest = hashlib.sha256(_CLIP_ID.sub("p", svg).encode()).hexdigest()[:8]
    renamed = {name: f"clip{digest}-{number}" for number, name in enumerate(names)}
    return _CLIP_ID.sub(lambda match: renamed[match.group(0)], svg)


def to_svg(figure: Figure, title: str | None = None) -> str:
    """``figure`` as SVG text, reproducible byte for byte.

    Text becomes paths (no font is needed to read it), element ids come from a
    fixed salt and the drawing itself, and no date is written. With ``title``, the SVG gets a
    ``<title>`` (its accessible name, and the tooltip of a standalone file).

    >>> from posenc.figures import fig_shift_rotation
    >>> def draw():
    ...     return fig_shift_rotation(pair=0, width=8, pos=2, k=3)
    >>> svg = to_svg(draw(), title="A & B")
    >>> svg.count("<title>A &amp; B</title>"), svg == to_svg(draw(), title="A & B")
    (1, True)
    """
    if title is not None and not title.strip():
        raise ValueError("title must not be blank: it is the figure's accessible name")
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": SALT, "svg.fonttype": "path"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = _stable_clip_ids(buffer.getvalue())
    if title is not None:
        start = svg.index("<svg")
        end = svg.index(">", start) + 1
        svg = f"{svg[:end]}\n <title>{html.escape(title.strip(), quote=False)}</title>{svg[end:]}"
    return svg
