"""No raw TeX where a reader looks, and no list that Markdown ended early.

Math reaches a page as ``$...$`` or ``$$...$$`` in Markdown; pymdownx.arithmatex
finds it and KaTeX renders it. Where arithmatex does not see a formula (a
display written inside a list item without blank lines around it is the usual
case), the reader gets the TeX itself: dollar signs, ``\\frac``, ``^{...}``. And a
numbered part that follows a table or a display inside a list can fall out of
the list into a paragraph, where it shows as ``4. *A temperature ...*`` run into
the text before it. Neither breaks the build or trips the browser tests, so
this module looks for both in a page's finished HTML:

* **TeX**: a ``$``, a backslash command (``\\theta``), a TeX bracket (``\\(``,
  ``\\[``) or a sub- or superscript group (``_{``, ``^{``) in text a reader sees,
  that is outside code, outside KaTeX's output and its annotations, and outside
  scripts and styles; also in ``alt``, ``title`` and ``aria-label``, which a
  screen reader or a tooltip shows.
* **A list ended early**: a line of a paragraph (or of a list item, a table
  cell, a heading) of the page's text that starts like a list item (``4. ``,
  ``- ``, ``* ``).

Nothing here imports MkDocs: the build calls :func:`find` on every page and
:func:`source_line` to name the line of the page's source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

#: Elements whose text is code, machine data, or KaTeX's MathML (never prose).
SKIP_TAGS = frozenset(
    {"code", "pre", "kbd", "samp", "script", "style", "textarea", "math", "annotation", "template"}
)
#: KaTeX's output: the visible glyphs are not TeX, the MathML holds the TeX as annotation.
SKIP_CLASSES = frozenset({"katex", "katex-display", "katex-mathml", "katex-html"})
#: The elements whose text is read as one block for the list check.
BLOCKS = frozenset(
    {"p", "li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption"}
)
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
ATTRIBUTES = ("alt", "title", "aria-label")
#: Material's class for the page's text: the list check reads only there (the navigation's
#: entries are "1. Self-attention ..." on lines of their own, and are no list).
PROSE_CLASS = "md-typeset"

TEX = re.compile(r"\$|\\[A-Za-z]{2,}|\\[()\[\]]|[_^]\{")
#: A list marker at the start of a line of text: "4. x", "4) x", "- x", "* x".
ITEM = re.compile(r"(?:\A|\n)[ \t]*(?P<marker>\d{1,2}[.)]|[-*+])[ \t]+(?P<rest>\S[^\n]{0,40})")


@dataclass(frozen=True)
class Finding:
    kind: str  # "tex" or "list"
    text: str  # what was found, with a little of the text around it
    before: str  # the words just before it, to find its line in the source
    offset: int  # where in the HTML
    token: str = ""  # the TeX found ("$", "\\frac", "_{"), or the list marker ("4.")
    after: str = ""  # the text that starts with it, as far as the piece of text goes


@dataclass
class _Open:
    """An open element, as the reader keeps it."""

    tag: str
    skips: bool  # its text is not prose (code, KaTeX, script, ...)
    prose: bool  # it is the page's text (class md-typeset)
    items: int = 0  # an <ol>'s number of items so far (its start attribute counted)
    number: int | None = None  # an <li>'s number in its <ol>
    #: The last list that closed directly inside this element, as (tag, last number); a
    #: heading clears it. A paragraph after it that goes on with the next number is that
    #: list's next item, fallen out of it.
    last_list: tuple[str, int] | None = None


class _Reader(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.starts = [0]
        for match in re.finditer("\n", html):
            self.starts.append(match.end())
        self.stack: list[_Open] = []
        self.skipping = 0
        self.prose = 0  # how many open elements are the page's text
        #: The open blocks: (the list that closed just before, the number of the list item
        #: they are in, their text).
        self.blocks: list[tuple[tuple[str, int] | None, int | None, list[tuple[str, int]]]] = []
        self.findings: list[Finding] = []
        self.recent = ""  # the last visible text read, to find a finding's line by

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def _attributes(self, attrs) -> None:
        for name, value in attrs:
            if name in ATTRIBUTES and value and not self.skipping:
                self._tex(value, self._offset(), f"{name}=")

    def handle_starttag(self, tag, attrs):
        self._attributes(attrs)
        if tag in VOID:
            return
        values = dict(attrs)
        classes = set((values.get("class") or "").split())
        parent = self.stack[-1] if self.stack else None
        node = _Open(tag, tag in SKIP_TAGS or bool(classes & SKIP_CLASSES), PROSE_CLASS in classes)
        if tag == "ol":
            start = values.get("start") or "1"
            node.items = int(start) - 1 if start.isdigit() else 0
        if tag == "li" and parent is not None and parent.tag == "ol":
            parent.items += 1
            node.number = parent.items
        if parent is not None and tag in HEADINGS:
            parent.last_list = None
        self.stack.append(node)
        self.skipping += node.skips
        self.prose += node.prose
        if tag in BLOCKS and not self.skipping and self.prose:
            item = next((o.number for o in reversed(self.stack) if o.number is not None), None)
            self.blocks.append((parent.last_list if parent else None, item, []))

    def handle_startendtag(self, tag, attrs):
        self._attributes(attrs)

    def handle_endtag(self, tag):
        if tag in VOID or not any(o.tag == tag for o in self.stack):
            return
        while self.stack:
            node = self.stack.pop()
            self.skipping -= node.skips
            if node.tag in BLOCKS and not self.skipping and self.prose and self.blocks:
                self._lists(*self.blocks.pop())
            self.prose -= node.prose
            if node.tag in ("ol", "ul") and self.stack:
                self.stack[-1].last_list = (node.tag, node.items)
            if node.tag == tag:
                break

    def handle_data(self, data):
        if self.skipping or not data:
            return
        offset = self._offset()
        self._tex(data, offset, "")
        if self.blocks:
            self.blocks[-1][2].append((data, offset))
        self.recent = (self.recent + data)[-200:]

    def _tex(self, text: str, offset: int, where: str) -> None:
        """One finding for a piece of text (its first TeX), however much TeX it holds."""
        for match in TEX.finditer(text):
            start, end = match.start(), match.end()
            shown = " ".join(text[max(0, start - 30) : end + 30].split())
            before = " ".join((self.recent + text[:start]).split()[-8:])
            found = Finding(
                "tex", where + shown.strip(), before, offset + start, match.group(), text[start:]
            )
            self.findings.append(found)
            return

    def _lists(
        self, last: tuple[str, int] | None, item: int | None, chunks: list[tuple[str, int]]
    ) -> None:
        """A line of this block's text that is an item Markdown did not put in a list.

        A bullet ("- x") at the start of a line is one. A number is one only where it
        goes on from a list: "4." in the text of item 3 (taken into it as a lazy
        continuation line) or after a list that ended at 3 (the list fell apart at a
        table or a display), or "1." with "2." on a later line (a list that never
        began, for want of a blank line before it). Elsewhere a line that starts with
        a number is a sentence that wrapped there ("... for head\n8. Closer ...").
        """
        text = "".join(c for c, _ in chunks)
        if not text.strip():
            return
        found = list(ITEM.finditer(text))
        numbers = {m.group("marker")[:-1] for m in found if m.group("marker")[0].isdigit()}
        for match in found:
            marker = match.group("marker")
            if marker[0].isdigit():
                n = int(marker[:-1])
                goes_on = item == n - 1 or (last is not None and last == ("ol", n - 1))
                begins = n == 1 and "2" in numbers
                if not (goes_on or begins):
                    continue
            shown = f"{marker} {match.group('rest')}"
            before = " ".join(text[: match.start()].split()[-8:])
            self.findings.append(Finding("list", shown, before, chunks[0][1], marker))


def find(html: str) -> list[Finding]:
    """The raw TeX and the early-ended lists in the ``<body>`` of a page's HTML."""
    start = html.find("<body")
    body = html[start:] if start >= 0 else html
    reader = _Reader(body)
    reader.feed(body)
    reader.close()
    shift = start if start >= 0 else 0
    return [
        Finding(f.kind, f.text, f.before, f.offset + shift, f.token, f.after)
        for f in sorted(reader.findings, key=lambda f: f.offset)
    ]


def source_line(source: str, finding: Finding) -> int | None:
    """The line of ``source`` (a page's Markdown) that holds what ``finding`` found.

    Found by the words just before it, as few as name one place in the source
    (they may run over a line break); ``None`` where they name none or several.
    """
    # The text that starts with the finding, if it holds a few words: "$5 and no formula".
    after = finding.after.split()[:6]
    if finding.kind == "tex" and len(after) >= 3:
        probe = re.compile(r"\s+".join(re.escape(w) for w in after))
        hits = list(probe.finditer(source))
        if len(hits) == 1:
            return source.count("\n", 0, hits[0].start()) + 1
    probes = []
    # The words before the finding, as few as still name one line (never one word alone:
    # "and" is on every page). Rendered math is not in them, so they are the prose.
    words = [w for w in finding.before.split() if w.isalpha() or w[:-1].isalpha()]
    for n in range(2, min(len(words), 6) + 1):
        probes.append(re.compile(r"\b" + r"\W+".join(re.escape(w) for w in words[-n:])))
    for probe in probes:
        hits = list(probe.finditer(source))
        if len(hits) == 1:
            end = hits[0].end()
            # What was found comes next: the item on a line that starts with its marker,
            # the TeX where it is written.
            if finding.kind == "list":
                token = re.compile(rf"^[ \t]*{re.escape(finding.token)}[ \t]", re.M)
            else:
                token = re.compile(re.escape(finding.token))
            after = token.search(source, end) if finding.token else None
            if after is not None:
                end = after.start() + len(after.group()) - len(after.group().lstrip())
            return source.count("\n", 0, end) + 1
    return None


def describe(finding: Finding) -> str:
    if finding.kind == "tex":
        return f"raw TeX shows as text: '{finding.text}'"
    return (
        f"a list item fell out of its list into the text: '{finding.text}' (a table or a "
        "display inside a list item needs a blank line before and after it, indented to the item)"
    )
