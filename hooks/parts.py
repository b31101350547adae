"""The parts of the corpus: propositions grouped by what they answer, in reading order.

A part is a page ``docs/parts/<key>.md`` whose front matter says::

    number: 2                                  # its place: Part II
    title: The sinusoidal code                 # one line of plain text
    order: [5, 6, 7, 8, 9, 10, 11, 13, 14]     # its propositions, in reading order
    description: ...                           # as on any page

and every live proposition names its part (``part: sinusoidal``). The two
must agree: a part's ``order`` lists exactly the propositions that name it,
each once. Numbers stay permanent; a part only says where a proposition is
read. From the parts come the navigation (one section per part, its page
first), the home page's table, the graph's colours, the printable edition's
chapters, ``propositions.json`` and the questions page.

Nothing here imports MkDocs: the build and the tests call these functions.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hooks import registry
from hooks.escape import markdown_text
from hooks.registry import PART_RE, Proposition, RegistryError

FOLDER = "parts"
#: What each field of a part page's front matter holds.
FIELDS = {
    "number": "its place among the parts, a positive integer (1 is Part I)",
    "title": "one line of plain text",
    "order": "its propositions in reading order, a list of numbers such as [5, 6, 8]",
    "description": "one line of plain text for the page's description meta tag",
}
QUESTIONS_PAGE = "questions.md"


class PartError(ValueError):
    """The parts break one of their rules; the message says which and where."""


@dataclass(frozen=True)
class Part:
    key: str
    number: int
    title: str
    order: tuple[int, ...]
    page: str  # relative to docs/, e.g. parts/sinusoidal.md

    @property
    def roman(self) -> str:
        return roman(self.number)

    @property
    def heading(self) -> str:
        """'Part II. The sinusoidal code'."""
        return f"Part {self.roman}. {self.title}"

    @property
    def url(self) -> str:
        return f"{self.page.removesuffix('.md')}/"


def roman(number: int) -> str:
    """``number`` (1 to 3999) in Roman numerals."""
    if not 1 <= number <= 3999:
        raise ValueError(f"no Roman numeral for {number}")
    out = []
    for value, letters in (
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def load(docs: Path) -> dict[str, Part]:
    """Every part page under ``docs/parts``, checked, in the order of their numbers."""
    docs = Path(docs)
    found: list[Part] = []
    problems: list[str] = []
    for path in sorted((docs / FOLDER).glob("*.md")):
        where = path.relative_to(docs).as_posix()
        key = path.stem
        try:
            data, _ = registry.front_matter(path.read_text(encoding="utf-8"), where)
        except RegistryError as exc:
            problems.append(str(exc))
            continue
        mine = []
        if not PART_RE.match(key):
            mine.append(f"{where}: a part's file name is its key: lower case, digits and -")
        extra = sorted(str(k) for k in data if k not in FIELDS)
        if extra:
            mine.append(
                f"{where}: unknown field(s) {', '.join(extra)}; "
                f"a part page has {', '.join(FIELDS)}"
            )
        number, title, order = data.get("number"), data.get("title"), data.get("order")
        if not (isinstance(number, int) and not isinstance(number, bool) and number >= 1):
            mine.append(f"{where}: number: must be {FIELDS['number']}, got {number!r}")
        if not (isinstance(title, str) and title.strip() and "\n" not in title.strip()):
            mine.append(f"{where}: title: must be {FIELDS['title']}, got {title!r}")
        if not (
            isinstance(order, list)
            and order
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in order)
        ):
            mine.append(f"{where}: order: must be {FIELDS['order']}, got {order!r}")
        elif len(set(order)) != len(order):
            twice = sorted({n for n in order if order.count(n) > 1})
            mine.append(f"{where}: order: lists {', '.join(map(str, twice))} more than once")
        if mine:
            problems += mine
            continue
        found.append(Part(key, number, title.strip(), tuple(order), where))
    numbers: dict[int, str] = {}
    for part in found:
        if part.number in numbers:
            problems.append(
                f"{part.page}: number: {part.number} is also the number of {numbers[part.number]}"
            )
        numbers.setdefault(part.number, part.page)
    if problems:
        raise PartError("\n".join(problems))
    return {p.key: p for p in sorted(found, key=lambda p: p.number)}


def check(parts: Mapping[str, Part], entries: Mapping[int, Proposition]) -> list[str]:
    """Where the propositions' ``part:`` and the parts' ``order`` disagree."""
    problems = []
    named: dict[str, list[int]] = {}
    keys = ", ".join(parts) or "none yet"
    for number, entry in entries.items():
        if entry.retired is not None:
            if entry.part is not None:
                problems.append(
                    f"{entry.page}: part: a retired number is read in no part; remove it"
                )
            continue
        if entry.question is None:
            problems.append(
                f"{entry.page}: question: missing; give the reader's question it answers, "
                "one line (the questions page lists them)"
            )
        if entry.part is None:
            problems.append(
                f"{entry.page}: part: missing; every proposition is read in a part: "
                f"name one of {keys}"
            )
        elif entry.part not in parts:
            problems.append(
                f"{entry.page}: part: '{entry.part}' is not a part; the parts are {keys} "
                f"(a page docs/{FOLDER}/<key>.md each)"
            )
        else:
            named.setdefault(entry.part, []).append(number)
    for key, part in parts.items():
        mine = set(named.get(key, []))
        for n in sorted(mine - set(part.order)):
            problems.append(
                f"{part.page}: order: does not list Proposition {n}, whose page says "
                f"part: {key}; put it where it should be read"
            )
        for n in part.order:
            if n in mine:
                continue
            entry = entries.get(n)
            if entry is None:
                problems.append(f"{part.page}: order: lists {n}, which is no proposition")
            elif entry.retired is not None:
                problems.append(f"{part.page}: order: lists {n}, which is retired")
            else:
                problems.append(
                    f"{part.page}: order: lists {n}, whose page says part: {entry.part}"
                )
    return problems


def part_of(parts: Mapping[str, Part]) -> dict[int, Part]:
    """The part of each proposition a part lists."""
    return {n: part for part in parts.values() for n in part.order}


def reading_order(parts: Mapping[str, Part]) -> list[int]:
    """Every proposition of every part, part by part, each part in its order."""
    return [n for part in parts.values() for n in part.order]


def nav_title(entry: Proposition) -> str:
    """The entry's title in the navigation, as HTML: Material prints a nav title unescaped."""
    return html.escape(f"{entry.number}. {entry.short or entry.title}", quote=True)


def nav(parts: Mapping[str, Part], entries: Mapping[int, Proposition]) -> list[dict[str, Any]]:
    """The propositions' part of mkdocs.yml's nav: a section per part, its page first."""
    return [
        {
            html.escape(f"{part.roman}. {part.title}", quote=True): [
                part.page,
                *({nav_title(entries[n]): entries[n].page} for n in part.order),
            ]
        }
        for part in parts.values()
    ]


def contents(part: Part, entries: Mapping[int, Proposition], base: str) -> str:
    """A part page's reading list: its propositions in order, each with its question."""
    lines = []
    for place, n in enumerate(part.order, 1):
        entry = entries[n]
        lines.append(
            f"{place}. [Proposition {n}: {markdown_text(entry.title)}]({base}{entry.page})  \n"
            f"    *{markdown_text(entry.question or '')}*"
        )
    return "\n".join(lines) + "\n"


def questions(parts: Mapping[str, Part], entries: Mapping[int, Proposition], base: str) -> str:
    """The questions page: each proposition's question, part by part, in reading order."""
    out = []
    for part in parts.values():
        out.append(f"## [{part.heading}]({base}{part.page})\n")
        for n in part.order:
            entry = entries[n]
            out.append(
                f"- [{markdown_text(entry.question or entry.title)}]({base}{entry.page})"
                f" (Proposition {n})"
            )
        out.append("")
    return "\n".join(out)
