"""Each abbreviation or glossary term explained once per page, where it is first seen.

Every page gets the glossary's terms (docs/includes/abbreviations.md), and
Markdown's abbr extension marks every occurrence: Proposition 13's tables said
"float32" 165 times, each with a dotted underline and a tooltip that
Material's script sets up as the page starts (240 of them, a tenth of a second
of a phone's main thread). A reader needs the explanation once. So each term
keeps its ``<abbr>`` at its first occurrence that the page shows as it loads
(outside a closed block), or at its first occurrence if every one is inside a
closed block; the others become plain text.
"""

from __future__ import annotations

import re

from hooks import search_index

#: An occurrence as Python-Markdown's abbr extension writes it.
_ABBR = re.compile(r'<abbr title="[^"]*">([^<]*)</abbr>')


def first_only(page_html: str) -> str:
    """``page_html`` with each term's ``<abbr>`` kept once (see the module docstring)."""
    found = list(_ABBR.finditer(page_html))
    if len(found) < 2:
        return page_html
    hidden = search_index.closed_content(page_html)

    def is_hidden(position: int) -> bool:
        return any(start <= position < end for start, end in hidden)

    kept: dict[str, int] = {}
    for index, match in enumerate(found):
        term = match.group(1)
        if term not in kept or (
            is_hidden(found[kept[term]].start()) and not is_hidden(match.start())
        ):
            kept[term] = index
    keep = set(kept.values())
    out, pos = [], 0
    for index, match in enumerate(found):
        if index in keep:
            continue
        out.append(page_html[pos : match.start()])
        out.append(match.group(1))
        pos = match.end()
    out.append(page_html[pos:])
    return "".join(out)
