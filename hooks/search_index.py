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
