"""Render a ``posenc.figures`` function to SVG text, deterministically.

:func:`posenc.figures.to_svg` does the work: glyphs become paths (no font is
fetched or needed at read time), the SVG ids come from a fixed salt, and the
date is left out, so the same figure gives the same bytes on every build.
"""

from __future__ import annotations

import html
from pathlib import Path

from hooks import cache

ROOT = Path(__file__).resolve().parent.parent


def figure_svg(name: str) -> str:
    """The SVG of ``posenc.figures.<name>()``."""
    from posenc import figures

    function = getattr(figures, name, None)
    if function is None or not name.startswith("fig_"):
        raise KeyError(f"posenc.figures has no figure function {name!r}")
    return figures.to_svg(function())


class FigureCache:
    """:func:`figure_svg`, kept between builds (see :mod:`hooks.cache`).

    One generation per digest of ``posenc/``, ``data/``, this file and the
    versions of Python, NumPy and matplotlib: a change to any redraws every
    figure; nothing else does. ``base=None`` draws every figure afresh.
    """

    def __init__(self, base: Path | None, root: Path = ROOT) -> None:
        self.base = base
        self.folder: Path | None = None
        if base is not None:
            key = cache.digest(
                [
                    cache.library_digest(root),
                    Path(__file__).read_bytes(),
                    cache.versions("numpy", "matplotlib"),
                ]
            )
            self.folder = cache.generation(base, "figures", key)
        self.drawn: list[str] = []
        self.kept: list[str] = []

    def has(self, name: str) -> bool:
        """Whether ``name`` is kept: drawn before from this very library, so a figure function."""
        valid = name.isidentifier() and name.startswith("fig_")
        return valid and self.folder is not None and (self.folder / f"{name}.svg").is_file()

    def svg(self, name: str) -> str:
        if not (name.isidentifier() and name.startswith("fig_")):
            raise KeyError(f"posenc.figures has no figure function {name!r}")
        if self.folder is not None:
            text = cache.read_text(self.folder / f"{name}.svg")
            if text is not None:
                self.kept.append(name)
                return text
        text = figure_svg(name)
        self.drawn.append(name)
        if self.folder is not None:
            cache.write_text(self.folder / f"{name}.svg", text)
        return text


def redirect_page(target: str, title: str) -> str:
    """A static page that sends the reader to ``target`` (a relative URL).

    No JavaScript: a meta refresh, a canonical link for search engines, and a
    visible link for anyone whose browser does not follow the refresh. The
    title is plain text and the target a URL: both are escaped, so a title with
    ``<``, ``&`` or a quote cannot break the tags or add markup.
    """
    title, target = html.escape(title, quote=True), html.escape(target, quote=True)
    return (
        "<!doctype html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n"
        f'<meta name="description" content="Permanent link to {title}.">\n'
        f'<link rel="canonical" href="{target}">\n'
        f'<meta http-equiv="refresh" content="0; url={target}">\n'
        '<meta name="robots" content="noindex">\n'
        "</head>\n<body>\n"
        f'<p>This is the permanent link to <a href="{target}">{title}</a>.</p>\n'
        "</body>\n</html>\n"
    )
