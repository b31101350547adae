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

The other speed changes are in the theme templates (``overrides/``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

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
    """``page_html`` less what a closed ``<details>`` hides (its summary is shown).

    The browser does not lay out a closed block's content, so it asks for no
    font for it until the reader opens the block: preloading those would fetch,
    with the page, fonts that most readers never need.
    """
    out, pos = [], 0
    for start, end in search_index.closed_content(page_html):
        out.append(page_html[pos:start])
        pos = end
    out.append(page_html[pos:])
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
