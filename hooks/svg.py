"""Render a ``posenc.figures`` function to SVG text, deterministically.

:func:`posenc.figures.to_svg` does the work: glyphs become paths (no font is
fetched or needed at read time), the SVG ids come from a fixed salt, and the
date is left out, so the same figure gives the same bytes on every build.
"""

from __future__ import annotations

import html


def figure_svg(name: str) -> str:
    """The SVG of ``posenc.figures.<name>()``."""
    from posenc import figures

    function = getattr(figures, name, None)
    if function is None or not name.startswith("fig_"):
        raise KeyError(f"posenc.figures has no figure function {name!r}")
    return figures.to_svg(function())


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
