"""Math fonts, asked for before the page is laid out.

KaTeX's fonts use ``font-display: block``: text in a formula stays invisible
until its font has arrived, and the browser only asks for a font once it has
laid the formula out, a round trip after the stylesheet. A page with math
therefore names, in its ``<head>``, every KaTeX font its formulas use, so they
download alongside the stylesheets. Which fonts those are is read from KaTeX's
own stylesheet (:func:`katex_faces`): each rule that sets a KaTeX font family
names the classes that select it, and a page uses the font if an element of
the page carries those classes (``tests/test_loading.py`` checks the result
against the fonts Chromium actually loads).

A long page is also laid out in parts (:func:`defer_sections`): each of its
sections after the first waits, with ``content-visibility: auto``, until it
nears the screen, so a proposition's argument and machine check cost nothing
as the page starts. Their fonts are not preloaded: the browser asks for them
when the section is drawn.

The other speed changes are in the theme templates (``overrides/``).
"""

from __future__ import annotations

import itertools
import posixpath
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from hooks import search_index


@dataclass(frozen=True)
class Face:
    """A font file of KaTeX's, and what selects it.

    ``needs`` is one set of classes per compound of the rule's selector (after
    ``.katex``): a page uses the face if, for each set, one element carries all
    of its classes. ``file`` is the woff2 file, relative to the stylesheet.
    """

    needs: tuple[frozenset[str], ...]
    file: str


_BLOCK = re.compile(r"([^{}]+)\{([^{}]*)\}")
_FAMILY = re.compile(r"(?:font-family:|font:[^;]*?)\s*(KaTeX_[A-Za-z0-9]+)")
_WOFF2 = re.compile(r"url\(['\"]?([^'\")]+\.woff2)['\"]?\)")
_CLASSES = re.compile(r"\.([A-Za-z0-9_-]+)")


def _declared(declarations: str, name: str, default: str) -> str:
    found = re.search(rf"(?:^|;)\s*{name}\s*:\s*([^;]+)", declarations)
    value = found.group(1).strip() if found else default
    return {"bold": "700", "normal": "400"}.get(value, value) if name == "font-weight" else value


def katex_faces(css: str) -> list[Face]:
    """Every (selector, font file) pair of KaTeX's stylesheet ``css``."""
    files: dict[tuple[str, str, str], str] = {}
    rules: list[tuple[str, str]] = []
    for selectors, declarations in _BLOCK.findall(css):
        if selectors.strip().endswith("@font-face"):
            family = re.search(r"font-family:\s*['\"]?(KaTeX_[A-Za-z0-9]+)", declarations)
            woff2 = _WOFF2.search(declarations)
            if family and woff2:
                key = (
                    family.group(1),
                    _declared(declarations, "font-weight", "400"),
                    _declared(declarations, "font-style", "normal"),
                )
                files[key] = woff2.group(1)
        else:
            rules.append((selectors, declarations))
    faces = []
    for selectors, declarations in rules:
        family = _FAMILY.search(declarations)
        if family is None and not re.search(r"font-(?:weight|style):", declarations):
            continue
        key = (
            # A weight or a style alone (\\textbf, \\textit) changes the face of the
            # family it inherits: KaTeX_Main, the family of every formula.
            family.group(1) if family else "KaTeX_Main",
            _declared(declarations, "font-weight", "400"),
            _declared(declarations, "font-style", "normal"),
        )
        if key not in files:
            continue
        for selector in selectors.split(","):
            compounds = selector.replace(">", " ").split()
            if not compounds or compounds[0] != ".katex":
                continue
            # A compound without a class (``span``) tells nothing about the page.
            needs = tuple(
                classes
                for compound in compounds[1:]
                if (classes := frozenset(_CLASSES.findall(compound)))
            ) or (frozenset({"katex"}),)
            faces.append(Face(needs, files[key]))
    return faces


_KATEX_CSS = re.compile(r'<link rel="stylesheet" href="([^"]*)katex\.min\.css">')
_CLASS_ATTR = re.compile(r'class="([^"]*)"')


def shown_at_load(page_html: str) -> str:
    """``page_html`` less what the browser does not lay out as the page starts.

    That is the content of a closed ``<details>`` (its summary is shown) and of
    a section :func:`defer_sections` put off. The browser asks for no font for
    either until the reader opens the block or scrolls to the section:
    preloading those would fetch, with the page, fonts that most readers never
    need.
    """
    return _without(page_html, search_index.closed_content(page_html) + deferred(page_html))


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` less each ``(start, end)`` span; a span inside another counts once."""
    out, pos = [], 0
    for start, end in sorted(spans):
        if start < pos:
            continue  # a closed block inside a section already left out
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def fonts_used(page_html: str, faces: list[Face]) -> list[str]:
    """The font files of ``faces`` that the page's elements select, each once, in order."""
    on_elements = {frozenset(value.split()) for value in _CLASS_ATTR.findall(page_html)}

    def present(classes: frozenset[str]) -> bool:
        return any(classes <= element for element in on_elements)

    used = (face.file for face in faces if all(present(c) for c in face.needs))
    return list(dict.fromkeys(used))


def preload_math_fonts(page_html: str, faces: list[Face]) -> str:
    """Add ``<link rel="preload">`` for the KaTeX fonts the page's formulas use."""
    stylesheet = _KATEX_CSS.search(page_html)
    if stylesheet is None:
        return page_html
    folder = stylesheet.group(1)
    links = "".join(
        f'<link rel="preload" href="{folder}{font}" as="font" type="font/woff2" crossorigin>'
        for font in fonts_used(shown_at_load(page_html.partition("</head>")[2]), faces)
    )
    return page_html[: stylesheet.start()] + links + page_html[stylesheet.start() :]


# -- sections laid out when they near the screen -------------------------------------
#
# Chromium lays out the whole page before its first frame, and again as fonts
# and images arrive; on a proposition with a long argument (Proposition 20:
# about 9 000 elements open, two thirds of them formulas) that layout was most
# of Lighthouse's blocking time. A section wrapped in an element with
# ``content-visibility: auto`` is laid out only when it nears the viewport; it
# stays in the document, the accessibility tree and find-in-page. Its height
# until then is :func:`estimated_height`; ``auto`` makes the browser remember
# the real one once the section has been drawn.

LATER_CLASS = "posenc-later"
_LATER_OPEN = f'<div class="{LATER_CLASS}"'
#: Elements with no end tag: they do not change the depth.
_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())


class _TopLevel(HTMLParser):
    """Offsets of the ``<h2>`` start tags at the top level of a fragment."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=False)
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.depth = 0
        self.headings: list[int] = []

    def position(self) -> int:
        line, column = self.getpos()
        return self.lines[line - 1] + column

    def handle_starttag(self, tag, attrs):
        if tag == "h2" and self.depth == 0:
            self.headings.append(self.position())
        if tag not in _VOID:
            self.depth += 1

    def handle_startendtag(self, tag, attrs):
        pass  # <svg .../>, <path/>: no depth

    def handle_endtag(self, tag):
        if tag not in _VOID:
            self.depth -= 1


def _top_level_h2(fragment: str) -> list[int]:
    parser = _TopLevel(fragment)
    parser.feed(fragment)
    parser.close()
    if parser.depth != 0:
        raise ValueError(f"unbalanced HTML: depth {parser.depth} at the end of the page")
    return parser.headings


_TEXT = re.compile(r"<[^>]*>|&[#\w]+;")


def estimated_height(section_html: str) -> int:
    """A guess, in CSS pixels, at the height of ``section_html`` on a phone.

    Only a placeholder: the scroll bar is this much off until the section is
    first drawn, then the browser keeps the true height. Lines of text at about
    45 characters and 26 px each, a display formula or a figure a few lines.
    """
    shown = _without(section_html, search_index.closed_content(section_html))
    text = _TEXT.sub("", shown)
    lines = len(text) / 45
    lines += 3 * shown.count('class="katex-display"')
    lines += 12 * (shown.count("<img") + shown.count("<svg "))
    lines += 2 * len(re.findall(r"<(?:p|li|tr|summary|h[3-6])\b", shown))
    return max(120, round(26 * lines))


def defer_sections(fragment: str) -> str:
    """Wrap each ``<h2>`` section of ``fragment`` after the first so that the
    browser lays it out only when it nears the screen.

    ``fragment`` is a page's content as Markdown renders it (MkDocs'
    ``on_page_content``). A section runs from the end of one top-level ``<h2>``
    to the next (the headings stay outside, so the table of contents and links
    to them behave as before); what comes before the first ``<h2>`` and the
    first section are left as they are, to be drawn at once.
    """
    if _LATER_OPEN in fragment:
        return fragment  # already done
    headings = _top_level_h2(fragment)
    if len(headings) < 2:
        return fragment
    bounds = [*headings[1:], len(fragment)]
    out = [fragment[: bounds[0]]]
    for start, end in itertools.pairwise(bounds):
        close = fragment.index("</h2>", start) + len("</h2>")
        inner = fragment[close:end]
        out.append(fragment[start:close])
        if inner.strip():
            style = f"contain-intrinsic-block-size:auto {estimated_height(inner)}px"
            out.append(f'{_LATER_OPEN} style="{style}">{inner}</div>')
        else:
            out.append(inner)
    return "".join(out)


def deferred(page_html: str) -> list[tuple[int, int]]:
    """Where the content of each section :func:`defer_sections` wrapped lies,
    as ``(start, end)`` offsets into ``page_html``."""
    spans = []
    for match in re.finditer(re.escape(_LATER_OPEN) + r"[^>]*>", page_html):
        end = search_index.element_end(page_html, match.start(), "div")
        if end is not None:
            spans.append((match.end(), end - len("</div>")))
    return spans


# -- our stylesheets and script: inline where needed, absent where not -----------------
#
# Material links its own two stylesheets from every page's <head>; the site adds
# four more (mkdocstrings', KaTeX's, ours and the widgets'), and the widgets'
# script. On a phone over a slow network each linked stylesheet is one more
# request the first paint waits for. So each page gets only what it uses, and
# gets it inline: a <style> where the <link> was (same place, same cascade),
# its url()s rewritten to be relative to the page. Material's stylesheets and
# script stay as they are: cached from page to page, and theirs to change.

#: Site path of each stylesheet we manage, and what in a page's <body> shows that it
#: needs it (None: every page).
STYLESHEETS = {
    "assets/_mkdocstrings.css": 'class="doc doc-',
    "assets/katex/katex.min.css": 'class="katex',
    "stylesheets/posenc.css": None,
    "stylesheets/widgets.css": "data-posenc-widget",
}
#: Site path of each script we manage, and what shows a page needs it.
SCRIPTS = {"javascripts/widgets.js": "data-posenc-widget"}
_URL_RE = re.compile(r"""url\((['"]?)([^'")]+)\1\)""")
_ROOT_MARK = "\0posenc-root\0"


def site_css(path: str, text: str) -> str:
    """``text``, the stylesheet at site path ``path``, with its relative url()s made
    relative to the site's root (behind a mark that :func:`own_assets` replaces)."""
    folder = posixpath.dirname(path)

    def one(match: re.Match[str]) -> str:
        quote, url = match.groups()
        if re.match(r"^(?:[a-z][a-z0-9+.-]*:|/|#)", url, re.I):
            return match.group(0)  # data:, http:, absolute or a fragment: not a file of ours
        return f"url({quote}{_ROOT_MARK}{posixpath.normpath(posixpath.join(folder, url))}{quote})"

    return _URL_RE.sub(one, text)


def _needed(body: str, sign: str | None) -> bool:
    return sign is None or sign in body


def own_assets(page_html: str, root: str, styles: dict[str, str]) -> str:
    """``page_html`` with each managed stylesheet inlined if needed and dropped if not,
    and each managed script dropped if not needed.

    ``root`` is the page's relative path to the site root ('' or '../../');
    ``styles`` maps site paths to their text, as :func:`site_css` gives it.
    """
    head, split, body = page_html.partition("</head>")
    if not split:
        return page_html
    for path, sign in STYLESHEETS.items():
        link = re.compile(
            rf'<link rel="stylesheet" href="{re.escape(root)}{re.escape(path)}(?:\?[^"]*)?">'
        )
        found = link.search(head)
        if found is None or path not in styles:
            continue
        if _needed(body, sign):
            css = styles[path].replace(_ROOT_MARK, root).replace("</", "<\\/")
            tag = f'<style data-posenc-from="{path}">{css}</style>'
        else:
            tag = ""
        head = head[: found.start()] + tag + head[found.end() :]
    for path, sign in SCRIPTS.items():
        if not _needed(body, sign):
            script = rf'<script src="{re.escape(root)}{re.escape(path)}(?:\?[^"]*)?"></script>'
            body = re.sub(script, "", body, count=1)
    return head + split + body
