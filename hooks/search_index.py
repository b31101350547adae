"""Keep the search index to what readers search for.

Material's search worker downloads the whole index and builds it in the
reader's browser on every page load. Half of our index was the machine-check
section of each proposition: the proof script, the table of checks, and the
BibTeX entry. Readers look for statements, arguments and names, not for lines
of SymPy; the index was 550 kB and took the worker about half a second to
build on a laptop, competing with the first paint on a two-core phone.

Those blocks are marked ``data-search-exclude``, which Material's search
plugin honours. They stay on the page.
"""

from __future__ import annotations

import re

#: Opening tags of the blocks left out of the index, each with the text that
#: follows it on the page, so that nothing else with the same tag is caught.
EXCLUDED = (
    # The proof script, in the Machine check section.
    re.compile(r'<details class="example">(?=\s*<summary>The proof script)'),
    # The table of checks, right after it.
    re.compile(r'<div class="posenc-checks">'),
    # The BibTeX entry of the Cite section.
    re.compile(r'<div class="highlight">(?=<span class="filename">BibTeX</span>)'),
)


def exclude_boilerplate(page_html: str) -> str:
    """``page_html`` with the blocks above marked ``data-search-exclude``."""
    for pattern in EXCLUDED:
        page_html = pattern.sub(lambda m: m.group(0)[:-1] + " data-search-exclude>", page_html)
    return page_html


# -- what the search plugin does not need to read ----------------------------------------
#
# Material's plugin parses each page's whole HTML with Python's HTMLParser and
# only then skips what is marked data-search-exclude. On a proposition page the
# marked blocks (a highlighted proof script above all) are half the HTML, and
# parsing them was most of the plugin's time: about a second of every build. So
# they are taken out before the plugin reads the page and put back right after
# (mkdocs_hooks: on_page_content, then on_page_context after the plugin's).

EXCLUDED_OPEN = re.compile(r"<(details|div)\b[^>]*\sdata-search-exclude[\s>]")
HIDDEN = "<!-- posenc-search-hidden {} -->"
HIDDEN_RE = re.compile(r"<!-- posenc-search-hidden (\d+) -->")


def element_end(page_html: str, start: int, tag: str) -> int | None:
    """Where the element opening at ``start`` ends (after its closing tag), or None."""
    depth = 0
    for match in re.compile(rf"<(/?){tag}(?=[\s>])").finditer(page_html, start):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            close = page_html.find(">", match.end())
            return None if close < 0 else close + 1
    return None


_CLOSED_DETAILS = re.compile(r"<details(?![^>]*\sopen\b)(?=[\s>])")


def closed_content(page_html: str) -> list[tuple[int, int]]:
    """Where the content of each closed ``<details>`` lies (its summary excluded),
    outermost blocks only, as ``(start, end)`` offsets into ``page_html``."""
    spans: list[tuple[int, int]] = []
    for match in _CLOSED_DETAILS.finditer(page_html):
        if spans and match.start() < spans[-1][1]:
            continue  # inside a closed block already found
        end = element_end(page_html, match.start(), "details")
        if end is None:
            continue
        summary = page_html.find("</summary>", match.start(), end)
        start = match.start() if summary < 0 else summary + len("</summary>")
        spans.append((start, end - len("</details>")))
    return spans


class Hidden:
    """The excluded blocks of every page of one build, kept aside while search reads."""

    def __init__(self) -> None:
        self.blocks: list[str] = []

    def hide(self, page_html: str) -> str:
        """``page_html`` with each excluded block replaced by a numbered comment."""
        out, pos = [], 0
        for match in EXCLUDED_OPEN.finditer(page_html):
            if match.start() < pos:
                continue  # inside a block already taken out
            end = element_end(page_html, match.start(), match.group(1))
            if end is None:
                continue  # not closed: left where it is, and the plugin skips it as before
            out += [page_html[pos : match.start()], HIDDEN.format(len(self.blocks))]
            self.blocks.append(page_html[match.start() : end])
            pos = end
        return "".join(out) + page_html[pos:]

    def restore(self, page_html: str) -> str:
        """``page_html`` with every block :meth:`hide` took out put back."""
        return HIDDEN_RE.sub(lambda m: self.blocks[int(m.group(1))], page_html)
