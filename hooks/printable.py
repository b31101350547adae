"""The printable page (propositions/all.md), put together from the rendered proposition pages.

The page used to be one long Markdown document: every proposition page's
source, filled in, bound and demoted, rendered again as part of the printable
page. That second rendering was a fifth of every build (Pygments highlighting
each proof script twice, Python-Markdown parsing 8 MB of output again). The
HTML of each proposition page exists by the time MkDocs calls ``on_env``, so
the printable page now takes that HTML, in order of number, and changes only
what must change on one shared page:

- every heading goes one level down, so that each proposition's title is an
  ``h2`` under the page's own ``h1``;
- an ``id`` that more than one part uses (each has an ``argument`` and a
  ``cite`` heading, and may have footnotes ``fn:1``) is prefixed with the
  part's number, ``p8-argument``, in that part, and so is every reference to
  it inside the part (``href="#…"``, ``url(#…)``, ``aria-labelledby`` …);
- the table of contents is the parts' tables, renamed and demoted alike.

Nothing else is touched: links to other pages stay as they are (the printable
page sits in the same folder as the proposition pages, so a relative link
means the same there), and each part is preceded by a comment naming its
source page, which the KaTeX error message reads (see mkdocs_hooks).

One thing is left out, once the page is whole (:func:`without_scripts`): the
proof scripts. Each proposition page shows its script, highlighted, in a
collapsed block; printed, the thirty scripts were half the PDF (about 300 of
630 A4 pages) and a third of the page's bytes, and printing took twice as
long. A script is for running, not for reading on paper: the printed part
keeps the table of checks and the misreadings refuted (what the script
found) and names the script, its page and the command that runs it.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from html import escape as html_escape

from mkdocs.structure.toc import AnchorLink, TableOfContents

from hooks import search_index

#: Where the parts go: the printable page's ``<!-- posenc:all -->`` block becomes this
#: comment, which Python-Markdown passes through as it is.
PLACEHOLDER = "<!-- posenc-printable: the proposition pages go here -->"

ID_RE = re.compile(r'(?<=\sid=")[^"]*(?=")')
HEADING_RE = re.compile(r"<(/?)h([1-5])(?=[\s>])")
#: Attributes whose value is one id, or a list of ids separated by spaces.
ONE_ID_RE = re.compile(r'(\s(?:id|for)=")([^"]*)(")')
ID_LIST_RE = re.compile(r'(\saria-(?:labelledby|describedby|controls|owns)=")([^"]*)(")')
#: References to an id by fragment: links (HTML and SVG) and CSS ``url(#…)`` in SVG.
FRAGMENT_RE = re.compile(r'(\s(?:xlink:)?href="#)([^"]*)(")|(url\(#)([^)]*)(\))')


#: A proof script's block as a proposition page shows it (search_index marks it
#: data-search-exclude): a collapsed block whose summary names the file.
SCRIPT_RE = re.compile(
    r'<details class="example"[^>]*>\s*<summary>The proof script, <code>proofs/'
    r"(p(\d+)_\w+\.py)</code></summary>"
)


class PrintableError(Exception):
    """The printable page cannot be put together (its placeholder is missing or repeated)."""


def ids(html: str) -> list[str]:
    """Every ``id`` attribute value in ``html``, in order."""
    return ID_RE.findall(html)


def shared_ids(parts: Iterable[str], also: str = "") -> set[str]:
    """The ids that appear in more than one part, or in a part and in ``also``."""
    counts: Counter[str] = Counter()
    for part in parts:
        counts.update(set(ids(part)))
    outside = set(ids(also))
    return {name for name, count in counts.items() if count > 1 or name in outside}


def rename(html: str, names: Mapping[str, str]) -> str:
    """``html`` with each id in ``names`` renamed, and every reference to it inside."""
    if not names:
        return html

    def one(match: re.Match[str]) -> str:
        return match[1] + names.get(match[2], match[2]) + match[3]

    def listed(match: re.Match[str]) -> str:
        return match[1] + " ".join(names.get(n, n) for n in match[2].split()) + match[3]

    def fragment(match: re.Match[str]) -> str:
        if match[1] is not None:
            return match[1] + names.get(match[2], match[2]) + match[3]
        return match[4] + names.get(match[5], match[5]) + match[6]

    html = ONE_ID_RE.sub(one, html)
    html = ID_LIST_RE.sub(listed, html)
    return FRAGMENT_RE.sub(fragment, html)


def demote(html: str) -> str:
    """Every heading ``h1`` … ``h5`` one level down."""
    return HEADING_RE.sub(lambda m: f"<{m[1]}h{int(m[2]) + 1}", html)


def _toc_items(items: Iterable[AnchorLink], names: Mapping[str, str]) -> list[AnchorLink]:
    """Copies of ``items``, one level down, with their ids renamed."""
    out = []
    for item in items:
        level = min(item.level + 1, 6)
        link = AnchorLink(item.title, names.get(item.id, item.id), level)
        link.children = _toc_items(item.children, names)
        out.append(link)
    return out


def assemble(
    intro: str,
    intro_toc: TableOfContents,
    parts: Sequence[tuple[int, str, str, TableOfContents]],
    mark: str,
    chapters: Mapping[int, tuple[str, str]] | None = None,
) -> tuple[str, TableOfContents]:
    """The printable page's HTML and table of contents.

    ``intro`` is the printable page's own rendered HTML, holding
    :data:`PLACEHOLDER` once; ``parts`` are ``(number, source page, HTML,
    table of contents)`` for each proposition, in order; ``mark`` is the text
    of the comment that opens each part (it is followed by the source page).
    ``chapters`` maps the number of a proposition that opens a chapter (a part
    of the corpus) to the chapter's ``(id, title)``: its heading comes before
    that proposition, and in the table of contents the chapter holds the
    propositions up to the next one.
    """
    if intro.count(PLACEHOLDER) != 1:
        found = intro.count(PLACEHOLDER)
        raise PrintableError(
            f"the printable page must hold its <!-- posenc:all --> line once, found {found}"
        )
    chapters = chapters or {}
    shared = shared_ids((html for _, _, html, _ in parts), also=intro)
    taken = set(ids(intro)) | {i for _, _, html, _ in parts for i in ids(html)}
    clash = sorted(i for i, _ in chapters.values() if i in taken)
    if clash:
        raise PrintableError(f"a chapter's id is already an id on the page: {', '.join(clash)}")
    pieces: list[str] = []
    toc: list[AnchorLink] = []
    into = toc  # where the next proposition's entries go: the page, or the open chapter
    for number, page, html, part_toc in parts:
        if number in chapters:
            anchor, title = chapters[number]
            pieces.append(
                f'<h2 class="posenc-chapter" id="{anchor}">{html_escape(title)}'
                f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a></h2>'
            )
            chapter = AnchorLink(title, anchor, 2)
            toc.append(chapter)
            into = chapter.children
        names = {name: f"p{number}-{name}" for name in set(ids(html)) & shared}
        pieces.append(f"<!-- {mark} {page} -->\n{demote(rename(html, names))}")
        into.extend(_toc_items(part_toc.items, names))
    items = [copy.copy(item) for item in intro_toc.items]
    if items and items[0].level == 1:
        # The page's title holds every proposition, as the headings on the page do.
        items[0].children = list(items[0].children) + toc
    else:
        items.extend(toc)
    return intro.replace(PLACEHOLDER, "\n".join(pieces)), TableOfContents(items)


def without_scripts(html: str, pages: Mapping[int, str]) -> str:
    """The printable page with each proof script's block replaced by a line naming it.

    ``pages`` maps a proposition's number to its page's URL relative to the
    printable page (``../p15-t5-buckets/``), where the script is shown.
    """
    out, pos = [], 0
    for match in SCRIPT_RE.finditer(html):
        if match.start() < pos:
            raise PrintableError(f"a proof script's block inside another: {match.group(1)}")
        name, number = match.group(1), int(match.group(2))
        if number not in pages:
            raise PrintableError(f"the proof script {name} belongs to no proposition page")
        out += [
            html[pos : match.start()],
            f'<p class="posenc-print-script">The proof script, <code>proofs/{name}</code>, '
            "is not printed: it is on "
            f'<a href="{pages[number]}#machine-check">the page of Proposition {number}</a> '
            f"and in the repository; <code>python -m proofs {number}</code> runs it.</p>",
        ]
        pos = search_index.element_end(html, match.start(), "details")
        if pos is None:
            raise PrintableError(f"a proof script's block is not closed: {name}")
    return "".join(out) + html[pos:]
