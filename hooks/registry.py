"""The registry of propositions, read from the front matter of their pages.

A proposition page ``docs/propositions/pNN-<slug>.md`` starts with YAML front
matter that is its registry entry::

    number: 8                      # permanent, never reused
    title: A shift is a rotation   # one line of plain text
    statement: For every offset $k$ ...   # Markdown with TeX
    uses: [5]                      # smaller numbers only
    proof: proofs/p08_shift_is_rotation.py
    figures: [{name: fig_shift_rotation, alt: ...}]
    sources: [vaswani2017]         # keys of docs/sources.yml
    part: sinusoidal               # the part it is read in: docs/parts/sinusoidal.md
    question: Why can one linear map move every code k positions on?   # the reader's
    retired: {replaced_by: 9, why: ...}   # only for a retired number

Every field is checked for its type, and a field that is not one of these (or
of the few that MkDocs and Material read, see ``PAGE_FIELDS``) is an error: a
misspelt ``usess:`` would otherwise drop a dependency without a word. A YAML
key given twice is an error too, since YAML keeps only the last one. Problems
are reported all at once, each as ``page:line: field: what is wrong``.

Nothing here imports MkDocs: the build and the tests call these functions.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import yaml

PAGE_RE = re.compile(r"^p(\d{2})-([a-z0-9-]+)\.md$")
# As MkDocs reads it: a line of ---, the YAML, then a line of --- or ...
FRONT_RE = re.compile(r"\A---[ \t]*\n(.*?\n)??(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
FIGURE_RE = re.compile(r"^fig_[a-z0-9_]+$")
PART_RE = re.compile(r"^[a-z][a-z0-9-]*$")
#: The rule under a Markdown table's header: |---|:--:| (a table needs one).
TABLE_RULE_RE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$", re.M
)
#: The keys a retired number's ``retired:`` mapping may hold.
RETIRED_KEYS = ("replaced_by", "why")
#: What each field of a proposition's front matter holds, as error messages say it.
FIELDS = {
    "number": "the permanent number, a positive integer",
    "title": "one line of plain text",
    "short": "a shorter title for the navigation, one line of plain text",
    "statement": "the statement, Markdown with TeX",
    "uses": "a list of smaller proposition numbers, such as [3, 5]",
    "proof": "the proof file, proofs/pNN_<slug>.py",
    "figures": "a list of {name: fig_<name>, alt: <text read instead of the figure>}",
    "sources": "a list of keys of docs/sources.yml, such as [vaswani2017]",
    "retired": "{replaced_by: <number>, why: <text>}, only on a retired number",
    "part": "the key of the part it is read in, the name of a page docs/parts/<key>.md",
    "question": "the reader's question it answers, one line of plain text",
}
#: Fields that MkDocs or Material read from any page (not the registry).
PAGE_FIELDS = {
    "description": "one line of plain text for the page's description meta tag",
    "search": "Material's search settings, such as {exclude: true}",
    "hide": "a list of parts of the page Material hides, such as [toc]",
}


class RegistryError(ValueError):
    """The registry breaks one of its rules; the message says which and where."""


@dataclass(frozen=True)
class Figure:
    name: str
    alt: str


@dataclass(frozen=True)
class Proposition:
    number: int
    title: str
    slug: str
    page: str  # path relative to docs/, e.g. propositions/p08-shift-is-rotation.md
    statement: str
    uses: tuple[int, ...]
    proof: str | None
    figures: tuple[Figure, ...]
    sources: tuple[str, ...]
    retired: dict[str, Any] | None = None
    part: str | None = None
    short: str | None = None
    question: str | None = None
    used_by: tuple[int, ...] = field(default=(), compare=False)

    @property
    def url(self) -> str:
        """Canonical URL path, relative to the site root."""
        return f"propositions/p{self.number:02d}-{self.slug}/"

    @property
    def permalink(self) -> str:
        """The short permanent path that redirects to the canonical page."""
        return f"p/{self.number}/"

    @property
    def anchor(self) -> str:
        return f"proposition-{self.number}"


# -- reading front matter ---------------------------------------------------------


def front_matter(text: str, where: str = "") -> tuple[dict[str, Any], str]:
    """Split a Markdown file into (front matter, body).

    Broken YAML, a key given twice, or front matter that is not a mapping
    raise :class:`RegistryError` naming ``where`` and the line. (MkDocs itself
    would only drop such front matter and show it as text.)
    """
    data, body, _ = _read(text, where)
    return data, body


def _read(text: str, where: str) -> tuple[dict[str, Any], str, dict[str, int]]:
    """(front matter, body, line of each top-level key in the file)."""
    text = text.replace("\r\n", "\n")
    match = FRONT_RE.match(text)
    if not match:
        return {}, text, {}
    data, lines = _mapping(match.group(1) or "", where, first=2, what="front matter")
    return data, text[match.end() :], lines


#: libyaml's parser where PyYAML was built with it (its wheels are): the same YAML,
#: read several times faster than by the pure-Python one (every page's front matter
#: is read on every build).
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(loader_class, source: str, prefix: str, first: int) -> tuple[Any, Any]:
    """(node, data) of one YAML document; a key given twice is a RegistryError."""
    loader = loader_class(source)
    try:
        node = loader.get_single_node()
        if node is not None:
            _no_twice(node, prefix, first)
        return node, loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()


def _mapping(
    source: str, where: str, *, first: int, what: str
) -> tuple[dict[Any, Any], dict[str, int]]:
    """Parse YAML that must be a mapping; ``first`` is the file's line of its first line.

    Returns the mapping and the file's line of each of its keys.
    """
    prefix = f"{where}:" if where else "line "
    try:
        node, data = _parse(FAST_LOADER, source, prefix, first)
    except yaml.YAMLError:
        # libyaml found a problem; the pure-Python parser says it in the words (and with
        # the marks) that the messages below are written for.
        try:
            node, data = _parse(yaml.SafeLoader, source, prefix, first)
        except yaml.YAMLError as exc:
            raise RegistryError(_yaml_problem(exc, prefix, first, what)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RegistryError(
            f"{prefix}{first}: {what} must be a mapping (name: value), got {_kind(data)}"
        )
    lines: dict[str, int] = {}
    for key, _ in node.value if isinstance(node, yaml.MappingNode) else ():
        lines.setdefault(str(key.value), key.start_mark.line + first)
    return data, lines


def _no_twice(node: yaml.Node, prefix: str, first: int) -> None:
    """Refuse a mapping that gives one key twice (YAML would keep the last silently)."""
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    raise RegistryError(
                        f"{prefix}{key.start_mark.line + first}: '{key.value}' is given "
                        "twice; YAML would keep only the last one"
                    )
                seen.add(key.value)
            _no_twice(value, prefix, first)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _no_twice(item, prefix, first)


def _yaml_problem(exc: yaml.YAMLError, prefix: str, first: int, what: str) -> str:
    """The YAML error, at its line; a token that never ends (a quote) at its start."""
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    scanning = isinstance(exc, yaml.scanner.ScannerError) and context_mark is not None
    mark = context_mark if scanning else problem_mark
    line = mark.line + first if mark is not None else first
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if context:
        problem = f"{context}, {problem}"
    if scanning and problem_mark is not None and problem_mark.line != context_mark.line:
        problem += f" (on line {problem_mark.line + first})"
    hint = " (YAML indents with spaces, never tabs)" if "'\\t'" in problem else ""
    return f"{prefix}{line}: {what} is not valid YAML: {problem}{hint}"


def _kind(value: Any) -> str:
    """What a YAML value is, for an error message, with the usual YAML surprises."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return (
            f"the boolean {str(value).lower()} (YAML reads yes, no, on, off, true and false "
            "as booleans; quote text)"
        )
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, date):
        return f"the date {value.isoformat()} (YAML reads it as a date; quote text)"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return f"a list {value!r}"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _is_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


# -- checking one page ------------------------------------------------------------


class _Problems:
    """The problems found on one page, each with the line of its field."""

    def __init__(self, where: str, lines: dict[str, int]) -> None:
        self.where, self.lines, self.found = where, lines, []

    def add(self, key: str, message: str) -> None:
        line = self.lines.get(key)
        at = f"{self.where}:{line}" if line else self.where
        self.found.append(f"{at}: {key}: {message}")


def _check_fields(data: dict[str, Any], number: int, report: _Problems) -> None:
    known = {**FIELDS, **PAGE_FIELDS}
    for key in data:
        if str(key) not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            report.add(
                str(key),
                f"not a field of a proposition page{hint} (the fields are {', '.join(known)})",
            )
    for key in ("number", "title", "statement"):
        if key not in data:
            report.add(key, f"missing: give {FIELDS[key]}")
    value = data.get("number")
    if "number" in data and not _is_number(value):
        report.add("number", f"must be a positive integer, got {_kind(value)}")
    elif "number" in data and value != number:
        report.add("number", f"front matter says number {value}, the file name says {number:02d}")
    for key in ("title", "short", "description", "question"):
        value = data.get(key)
        if key in data and not (_is_text(value) and "\n" not in value.strip()):
            report.add(key, f"must be one line of plain text, got {_kind(value)}")
    value = data.get("part")
    if "part" in data and not (isinstance(value, str) and PART_RE.match(value)):
        report.add("part", f"must be {FIELDS['part']} (lower case, digits, -), got {_kind(value)}")
    value = data.get("statement")
    if "statement" in data and not _is_text(value):
        report.add("statement", f"must be Markdown text, got {_kind(value)}")
    elif "statement" in data and TABLE_RULE_RE.search(value):
        report.add(
            "statement",
            "holds a table; the box states the claim: put tables and worked numbers in the "
            "argument, and name them from there",
        )
    value = data.get("proof")
    if value is not None and not _is_text(value):
        report.add("proof", f"must be {FIELDS['proof']}, got {_kind(value)}")
    _check_uses(data.get("uses"), number, report)
    _check_list_of_text(data.get("sources"), "sources", report)
    _check_figures(data.get("figures"), report)
    if "retired" in data:
        _check_retired(data["retired"], number, report)
    if "search" in data and not isinstance(data["search"], dict):
        report.add("search", f"must be {PAGE_FIELDS['search']}, got {_kind(data['search'])}")
    if "hide" in data and not (
        isinstance(data["hide"], list) and all(isinstance(h, str) for h in data["hide"])
    ):
        report.add("hide", f"must be {PAGE_FIELDS['hide']}, got {_kind(data['hide'])}")


def _check_uses(uses: Any, number: int, report: _Problems) -> None:
    if uses is None:
        return
    if not isinstance(uses, list) or not all(_is_number(u) for u in uses):
        report.add("uses", f"must be {FIELDS['uses']}, got {_kind(uses)}")
        return
    if number in uses:
        report.add("uses", f"names {number}, its own number; a proposition never uses itself")
    twice = sorted({u for u in uses if uses.count(u) > 1})
    if twice:
        report.add("uses", f"lists {', '.join(map(str, twice))} more than once")


def _check_list_of_text(items: Any, key: str, report: _Problems) -> None:
    if items is None:
        return
    if not isinstance(items, list) or not all(_is_text(s) for s in items):
        report.add(key, f"must be {FIELDS[key]}, got {_kind(items)}")
        return
    twice = sorted({s for s in items if items.count(s) > 1})
    if twice:
        report.add(key, f"lists {', '.join(twice)} more than once")


def _check_figures(figures: Any, report: _Problems) -> None:
    if figures is None:
        return
    if not isinstance(figures, list):
        report.add("figures", f"must be {FIELDS['figures']}, got {_kind(figures)}")
        return
    names: list[str] = []
    for i, figure in enumerate(figures):
        if not isinstance(figure, dict):
            report.add(
                "figures", f"item {i + 1} must be {{name: ..., alt: ...}}, got {_kind(figure)}"
            )
            continue
        name = figure.get("name")
        label = f"item {i + 1} ({name})" if isinstance(name, str) else f"item {i + 1}"
        extra = sorted(str(k) for k in figure if k not in ("name", "alt"))
        if extra:
            report.add(
                "figures", f"{label} has unknown key(s) {', '.join(extra)}; it takes name and alt"
            )
        if not (isinstance(name, str) and FIGURE_RE.match(name)):
            report.add(
                "figures",
                f"{label}: name must be a figure function of posenc.figures, such as "
                f"fig_shift_rotation, got {_kind(name)}",
            )
        else:
            names.append(name)
        if "alt" not in figure:
            report.add(
                "figures",
                f"{label} has no alt text: give alt, what a reader who cannot see the "
                "figure is told instead",
            )
        elif not _is_text(figure["alt"]):
            report.add("figures", f"{label}: alt must be plain text, got {_kind(figure['alt'])}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        report.add("figures", f"lists {', '.join(twice)} more than once")


def _check_retired(retired: Any, number: int, report: _Problems) -> None:
    if not isinstance(retired, dict) or not retired:
        report.add("retired", f"must be {FIELDS['retired']}, got {_kind(retired)}")
        return
    extra = sorted(str(k) for k in retired if k not in RETIRED_KEYS)
    if extra:
        report.add(
            "retired", f"has unknown key(s) {', '.join(extra)}; retired takes only {RETIRED_KEYS}"
        )
    new = retired.get("replaced_by")
    if "replaced_by" in retired and not _is_number(new):
        report.add("retired", f"replaced_by must be a proposition number, got {_kind(new)}")
    elif new == number:
        report.add("retired", "replaced_by names the retired number itself")
    why = retired.get("why")
    if "why" in retired and not _is_text(why):
        report.add("retired", f"why must be plain text, got {_kind(why)}")


def _entry(path: Path, docs: Path) -> Proposition:
    where = path.relative_to(docs).as_posix()
    match = PAGE_RE.match(path.name)
    if not match:
        raise RegistryError(f"{where}: proposition pages are named pNN-<slug>.md")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RegistryError(f"{where}: is not UTF-8 text (byte {exc.start})") from None
    data, _, lines = _read(text, where)
    report = _Problems(where, lines)
    _check_fields(data, int(match.group(1)), report)
    if report.found:
        raise RegistryError("\n".join(report.found))
    return Proposition(
        number=data["number"],
        title=data["title"].strip(),
        slug=match.group(2),
        page=where,
        statement=data["statement"].strip(),
        uses=tuple(sorted(data.get("uses") or [])),
        proof=data.get("proof"),
        figures=tuple(Figure(f["name"], f["alt"]) for f in data.get("figures") or []),
        sources=tuple(data.get("sources") or []),
        retired=data.get("retired"),
        part=data.get("part"),
        short=data["short"].strip() if "short" in data else None,
        question=" ".join(data["question"].split()) if "question" in data else None,
    )


def check_pages(docs: Path) -> None:
    """The front matter of every page under ``docs`` (but snippets) parses, with text fields.

    MkDocs reads front matter leniently: with broken YAML it shows the whole
    file, front matter included, as the page's text, and it hands any value of
    ``title`` or ``description`` to the templates. Here either stops the build.
    """
    docs = Path(docs)
    problems = []
    for path in sorted(docs.rglob("*.md")):
        where = path.relative_to(docs).as_posix()
        if where.startswith("includes/"):
            continue
        try:
            data, _, lines = _read(path.read_text(encoding="utf-8"), where)
        except RegistryError as exc:
            problems.append(str(exc))
            continue
        except UnicodeDecodeError as exc:
            problems.append(f"{where}: is not UTF-8 text (byte {exc.start})")
            continue
        report = _Problems(where, lines)
        for key in ("title", "description"):
            value = data.get(key)
            if key in data and not (_is_text(value) and "\n" not in value.strip()):
                report.add(key, f"must be one line of plain text, got {_kind(value)}")
        problems += report.found
    if problems:
        raise RegistryError("\n".join(problems))


# -- the sources ------------------------------------------------------------------

SOURCE_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
URL_RE = re.compile(r"^https?://[^\s<>\"'`]+$")
#: What each entry of docs/sources.yml holds.
SOURCE_FIELDS = {
    "authors": "text",
    "title": "text",
    "venue": "text",
    "year": "a year, such as 2017",
    "url": "an http(s) URL",
}


def load_sources(path: Path) -> dict[str, dict[str, Any]]:
    """Read ``docs/sources.yml``: key -> {authors, title, venue, year, url}, each checked.

    Its text goes into pages, the bibliography and BibTeX, so a missing field
    or a URL that is not http(s) stops the build here, naming key and line.
    """
    path = Path(path)
    where = path.name
    data, lines = _mapping(path.read_text(encoding="utf-8"), where, first=1, what=where)
    problems = []
    for key, source in data.items():
        at = f"{where}:{lines.get(str(key), 1)}: {key}"
        if not (isinstance(key, str) and SOURCE_KEY_RE.match(key)):
            problems.append(f"{at}: a key is letters, digits and _.:- , starting with a letter")
        if not isinstance(source, dict):
            problems.append(f"{at}: must map {', '.join(SOURCE_FIELDS)}, got {_kind(source)}")
            continue
        for name, what in SOURCE_FIELDS.items():
            value = source.get(name)
            if name not in source:
                problems.append(f"{at}: lacks {name} ({what})")
            elif name == "year" and not _is_number(value):
                problems.append(f"{at}: year must be {what}, got {_kind(value)}")
            elif name == "url" and not (isinstance(value, str) and URL_RE.match(value)):
                problems.append(f"{at}: url must be {what}, got {_kind(value)}")
            elif name not in ("year", "url") and not _is_text(value):
                problems.append(f"{at}: {name} must be {what}, got {_kind(value)}")
        extra = sorted(str(k) for k in source if k not in SOURCE_FIELDS)
        if extra:
            problems.append(f"{at}: unknown field(s) {', '.join(extra)}")
    if problems:
        raise RegistryError("\n".join(problems))
    return data


# -- the whole registry -----------------------------------------------------------


def load(docs: Path, root: Path | None = None) -> dict[int, Proposition]:
    """Read and validate every proposition page under ``docs/propositions``.

    Checks: each page's fields (see the module docstring); numbers unique and
    matching their file names; ``uses`` names only smaller, known numbers (so
    the graph has no cycle); a retired number is replaced by a known one;
    every live proposition has a proof file whose ``NUMBER`` agrees;
    ``used_by`` is filled in. Every problem found is in the one error raised.
    """
    docs = Path(docs)
    root = Path(root) if root else docs.parent
    found: dict[int, Proposition] = {}
    problems: list[str] = []
    broken: set[int] = set()  # numbers of pages already reported: not "unknown" as well
    for path in sorted((docs / "propositions").glob("p*.md")):
        try:
            entry = _entry(path, docs)
        except RegistryError as exc:
            problems.append(str(exc))
            if match := PAGE_RE.match(path.name):
                broken.add(int(match.group(1)))
            continue
        if entry.number in found:
            first = found[entry.number].page
            problems.append(
                f"proposition {entry.number} is defined twice: {first} and {entry.page}"
            )
            continue
        found[entry.number] = entry
    for entry in found.values():
        problems += _cross_problems(entry, found, broken, root)
    if problems:
        raise RegistryError("\n".join(problems))
    used_by: dict[int, list[int]] = {n: [] for n in found}
    for entry in found.values():
        for used in entry.uses:
            used_by[used].append(entry.number)
    return {n: replace(found[n], used_by=tuple(sorted(used_by[n]))) for n in sorted(found)}


def _cross_problems(
    entry: Proposition, found: dict[int, Proposition], broken: set[int], root: Path
) -> list[str]:
    """What is wrong with ``entry`` given the other entries and the proof files."""
    problems = []
    for used in entry.uses:
        if used in broken:
            continue
        if used not in found:
            problems.append(f"{entry.page}: uses unknown proposition {used}")
        elif used >= entry.number:
            problems.append(
                f"{entry.page}: uses {used}, but a proposition may only use smaller numbers"
            )
    new = (entry.retired or {}).get("replaced_by")
    if new is not None and new not in found and new not in broken:
        problems.append(f"{entry.page}: retired: replaced_by names unknown proposition {new}")
    if entry.retired is None:
        try:
            _check_proof(entry, root)
        except RegistryError as exc:
            problems.append(str(exc))
    return problems


def _check_proof(entry: Proposition, root: Path) -> None:
    if not entry.proof:
        raise RegistryError(
            f"{entry.page}: a live proposition needs 'proof: proofs/pNN_<slug>.py'"
        )
    path = root / entry.proof
    if not path.is_file():
        raise RegistryError(f"{entry.page}: proof file {entry.proof} does not exist")
    if not path.name.startswith(f"p{entry.number:02d}_"):
        raise RegistryError(
            f"{entry.page}: proof {entry.proof} is not named p{entry.number:02d}_*.py"
        )
    declared = re.search(r"^NUMBER\s*=\s*(\d+)", path.read_text(encoding="utf-8"), re.M)
    if not declared or int(declared.group(1)) != entry.number:
        raise RegistryError(
            f"{entry.page}: proof {entry.proof} declares NUMBER = "
            f"{declared.group(1) if declared else 'nothing'}, the page says {entry.number}"
        )


def ancestors(registry: dict[int, Proposition], number: int) -> list[int]:
    """Every proposition that ``number`` uses, directly or through others."""
    seen: set[int] = set()
    stack = list(registry[number].uses)
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(registry[n].uses)
    return sorted(seen)
