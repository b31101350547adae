"""Plain text made inert: it shows as written, and never becomes markup.

Titles, reasons, source names and alt texts come from front matter and
``docs/sources.yml``: plain text, typed by people. Wherever a hook puts such
text into a page, it goes through one of these functions, so that a ``<``, an
``&``, a quote, a ``*`` or a ``{`` shows as itself. Escaping is the default;
the one markup kept is inline math between dollar signs, which
``pymdownx.arithmatex`` turns into a formula (and escapes itself).

* :func:`html_text`: text or an attribute value in HTML that no Markdown
  processor reads (the redirect pages).
* :func:`markdown_text`: text in Markdown the hooks generate, including raw
  HTML inside that Markdown (a link label, a table cell, an admonition title,
  the graph's SVG): HTML's special characters and Markdown's become numeric
  character references, which both HTML and Python-Markdown pass through.
* :func:`markdown_alt`: the alt text of a Markdown image, which Python-Markdown
  copies into an attribute (and escapes there) without reading entities.
"""

from __future__ import annotations

import html
import re

from pymdownx.arithmatex import RE_SMART_DOLLAR_INLINE

__all__ = ["html_text", "markdown_alt", "markdown_text"]

# Characters that start markup in the Markdown of this site: HTML (< > &),
# quotes (attribute values, admonition titles), backslash escapes, code, emphasis,
# links and footnotes, attr_list's {: ...}, table cells, math, and a heading's #.
_ACTIVE = re.compile(r"""[<>&"'\\`*_\[\]{}|$#!]""")
# The same rule arithmatex applies to inline $...$ (mkdocs.yml uses its defaults).
_MATH = re.compile(RE_SMART_DOLLAR_INLINE, re.S)


def html_text(text: object) -> str:
    """``text`` for HTML text or a quoted attribute value."""
    return html.escape(str(text), quote=True)


def _references(text: str) -> str:
    return _ACTIVE.sub(lambda m: f"&#{ord(m.group(0))};", text)


def markdown_text(text: object, *, math: bool = True, keep: re.Pattern[str] | None = None) -> str:
    """``text`` for generated Markdown: one line, every markup character inert.

    With ``math=True`` an inline formula ``$...$`` is kept for arithmatex (its
    ``|`` written ``\\vert``, so that it cannot split a table cell); with
    ``math=False`` (SVG text, where no formula can render) the dollars show.
    Matches of ``keep`` (such as quantity references ``{{ name }}``, which the
    build replaces later) are kept as they are.
    """
    line = " ".join(str(text).split())
    spans = []
    if math:
        spans += [(m.start(), m.end()) for m in _MATH.finditer(line) if m.group(2) == "$"]
    if keep is not None:
        spans += [(m.start(), m.end()) for m in keep.finditer(line)]
    out, pos = [], 0
    for start, end in sorted(spans):
        if start < pos:  # overlaps a span already kept
            continue
        out.append(_references(line[pos:start]))
        kept = line[start:end]
        out.append(kept.replace("|", r"\vert{}") if kept.startswith("$") else kept)
        pos = end
    out.append(_references(line[pos:]))
    return "".join(out)


def markdown_alt(text: object) -> str:
    """``text`` for the ``[...]`` of ``![...](url)``: one line, no link, code or math.

    Python-Markdown escapes the alt attribute itself but turns backslash
    escapes, code and math inside the brackets into their text first, so those
    are escaped with backslashes here.
    """
    line = " ".join(str(text).split())
    return re.sub(r"([\\\[\]`$])", r"\\\1", line)
