"""The generated parts of a proposition page, as Markdown.

A page marks where each generated block goes with an HTML comment
(``<!-- posenc:checks -->`` and so on, see ``MARKERS``); ``fill`` replaces the
markers. Every function here takes plain data (registry entries, proof results,
the site URL) and returns a string, so tests call them without MkDocs.

Text from the registry, ``docs/sources.yml`` and the proofs is plain text: it
goes through :mod:`hooks.escape`, so a title such as ``a <b> & "c"`` shows as
written and never becomes markup (inline ``$...$`` math still renders).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from hooks.bind import REF_RE
from hooks.escape import html_text, markdown_alt, markdown_text
from hooks.registry import Proposition, ancestors

#: The markers every live proposition page must carry, in page order.
MARKERS = ("statement", "status", "checks", "misreadings", "relations", "sources", "cite")
MARKER_RE = re.compile(r"^[ \t]*<!-- posenc:([a-z-]+) -->[ \t]*$", re.M)


class BlockError(ValueError):
    """A page cannot take its generated blocks; the message names the page and why."""


KIND_WORDS = {
    "identity": "identity: proven symbolically for all allowed values",
    "instances": "instances: proven symbolically for each member of a finite family",
    "exact": "exact: exact integer or rational arithmetic",
    "numeric": "numeric: sampled in floating point, samples counted, tolerance stated",
    "definition": "definition: both sides are the same expression as written; "
    "it restates a definition and is not counted as evidence",
    "crash": "crash: the proof raised an exception before its next check",
}


def status(
    entry: Proposition, results: Mapping[int, Any], registry: Mapping[int, Proposition]
) -> str:
    """'verified with all dependencies', 'verified', 'failed', 'not run' or 'retired'."""
    if entry.retired is not None:
        return "retired"
    own = results.get(entry.number)
    if own is None:
        return "not run"
    if not own.passed:
        return "failed"
    below = [results.get(n) for n in ancestors(dict(registry), entry.number)]
    if all(r is not None and r.passed for r in below):
        return "verified with all dependencies"
    return "verified"


def retired_notice(entry: Proposition, registry: Mapping[int, Proposition], base: str) -> str:
    """What a retired number's page says: that it is retired, why, and what replaced it."""
    info = entry.retired or {}
    new = info.get("replaced_by")
    where = ""
    if new in registry:
        where = f" It is replaced by [Proposition {new} ({markdown_text(registry[new].title)})]"
        where += f"({base}{registry[new].page})."
    why = f" {markdown_text(info['why'])}" if info.get("why") else ""
    return (
        f'<span id="{entry.anchor}"></span>\n\n'
        f'!!! warning "Proposition {entry.number} is retired"\n\n'
        f"    Its number stays reserved for it and is never reused.{where}{why}\n"
    )


def numbered_title(markdown: str, entry: Proposition) -> str:
    """The page's H1 '# Title' becomes '# Proposition N: Title'.

    The H1 must repeat the registry's title, so that a page cannot show one
    title while its citation, the graph and the corpus table show another.
    """
    heading = f"# Proposition {entry.number}: {markdown_text(entry.title)}"
    numbered, found = re.subn(
        rf"^# {re.escape(entry.title)}[ \t]*$",
        lambda _: heading,
        markdown,
        count=1,
        flags=re.M,
    )
    if not found:
        raise BlockError(
            f"{entry.page}: the page's title heading must be '# {entry.title}', "
            "the title of its front matter"
        )
    return numbered


def statement_box(entry: Proposition) -> str:
    """The statement, in an admonition titled 'Proposition N (title)', with an id."""
    body = "\n".join(f"    {line}" if line else "" for line in entry.statement.splitlines())
    return (
        f'<span id="{entry.anchor}"></span>\n\n'
        f'!!! proposition "Proposition {entry.number} ({markdown_text(entry.title)})"\n\n'
        f"{body}\n"
    )


def figure_alts(markdown: str, entry: Proposition) -> str:
    """Each figure of the page gets the alt text of its registry entry.

    The front matter's ``alt`` is the one description of a figure: it is what
    a screen reader hears, and its numbers are bound like the rest of the page.
    """
    for figure in entry.figures:
        target = r"((?:\.\./)*figures/" + re.escape(figure.name) + r"\.svg)"
        pattern = re.compile(r"!\[[^\]]*\]\(" + target + r"\)")
        alt = markdown_alt(figure.alt)
        markdown = pattern.sub(lambda m, a=alt: f"![{a}]({m.group(1)})", markdown)
    return markdown


def status_line(entry: Proposition, result: Any, state: str) -> str:
    """The verification record: outcome, evidence, hash, versions.

    No run date and no duration: they differ from run to run, and they stay in
    the proof runner's JSON report, so that two builds write the same page.
    """
    if result is None:
        return '!!! failure "Not verified: the proof was not run in this build."\n'
    kinds = ", ".join(result.kinds)
    passed = sum(c["passed"] for c in result.evidence)
    refuted = sum(m["refuted"] for m in result.misreadings)
    definitions = len(result.definitions)
    restated = (
        f" {definitions} definition{'s' if definitions != 1 else ''} restated, "
        "not counted as evidence."
        if definitions
        else ""
    )
    crashed = sum(c["kind"] == "crash" for c in result.checks)
    versions = result.versions
    kind = "success" if result.passed else "failure"
    title = state[0].upper() + state[1:]
    lines = [
        f'!!! {kind} "{title}"',
        "",
        f"    {passed} of {len(result.evidence)} checks passed ({kinds}); "
        f"{refuted} of {len(result.misreadings)} misreadings refuted.{restated}"
        + (f" The proof crashed ({crashed})." if crashed else ""),
        f"    Proof file `{result.file}`, SHA-256 `{result.sha256[:16]}`; "
        f"Python {versions['python']}, SymPy {versions['sympy']}, NumPy {versions['numpy']}, "
        f"mpmath {versions['mpmath']}.",
    ]
    if state == "verified":
        lines.append(
            "    Some proposition it uses is not verified, so this result is not yet complete."
        )
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Plain text made safe inside a Markdown table cell or list item."""
    escaped = html.escape(str(text)).replace("\n", " ")
    for char, entity in (("|", "&#124;"), ("*", "&#42;"), ("_", "&#95;"), ("`", "&#96;")):
        escaped = escaped.replace(char, entity)
    return escaped


def checks_table(result: Any) -> str:
    """What the proof checked: claim, evidence kind, scope, result (timings: the report)."""
    if result is None:
        return ""
    rows = ["| Claim | Evidence | Scope | Result |", "|---|---|---|---|"]
    for check in result.checks:
        outcome = "passed" if check["passed"] else "**FAILED**"
        if check["kind"] == "definition":
            outcome = "definition, not evidence"
        elif check["kind"] == "crash":
            outcome = "**CRASHED**"
        rows.append(
            f"| {_cell(check['claim'])} | `{check['kind']}` | {_cell(check['scope'])} "
            f"| {outcome}: {_cell(check['detail'])} |"
        )
    shown = sorted({c["kind"] for c in result.checks})
    legend = "; ".join(KIND_WORDS[k] for k in shown)
    table = "\n".join(rows)
    return (
        f'<div class="posenc-checks" markdown>\n\n{table}\n\n</div>\n\n'
        f"What the kinds in this table mean: {legend}.\n"
    )


def misreadings_list(result: Any) -> str:
    if result is None:
        return ""
    items = []
    for m in result.misreadings:
        verdict = "Refuted" if m["refuted"] else "**Not refuted**"
        why = f" {markdown_text(m['why'], keep=REF_RE)}" if m.get("why") else ""
        witness = _cell(m["counterexample"])
        items.append(f"- *“{_cell(m['claim'])}”*  \n  {verdict} ({m['kind']}): {witness}.{why}")
    return "\n".join(items) + "\n"


def relations(
    entry: Proposition,
    registry: Mapping[int, Proposition],
    base: str,
    families: int = 0,
) -> str:
    """'Depends on' and 'Used by', generated from the registry; and, when ``families``
    rows of the model atlas link to it, a line that sends the reader there."""

    def names(numbers: tuple[int, ...]) -> str:
        if not numbers:
            return "nothing"
        return ", ".join(
            f"[Proposition {n} ({markdown_text(registry[n].title)})]({base}{registry[n].page})"
            for n in numbers
        )

    out = f"**Depends on:** {names(entry.uses)}.\n\n**Used by:** {names(entry.used_by)}.\n"
    if families:
        which = "family links" if families == 1 else "families link"
        out += (
            f"\n**In the models:** {families} model {which} here from the "
            f"[model atlas]({base}atlas/index.md), which reads the position scheme of every "
            "model family in the pinned Transformers.\n"
        )
    return out


def reference(source: Mapping[str, Any]) -> str:
    """One source, formatted: authors (year). Title. Venue. URL."""
    s = {k: markdown_text(v) for k, v in source.items() if k != "url"}
    return f"{s['authors']} ({s['year']}). *{s['title']}*. {s['venue']}. <{source['url']}>"


def sources_list(
    entry: Proposition, sources: Mapping[str, Mapping[str, Any]], bibliography: str | None = None
) -> str:
    """The page's sources; each links to its entry in the bibliography when there is one."""
    items = []
    for key in entry.sources:
        if key not in sources:
            raise KeyError(f"{entry.page}: unknown source '{key}' (add it to docs/sources.yml)")
        link = f" [In the bibliography]({bibliography}#{key})." if bibliography else ""
        items.append(f"- {reference(sources[key])}{link}")
    return "\n".join(items) + "\n" if items else "None beyond the argument above.\n"


def bibliography(
    sources: Mapping[str, Mapping[str, Any]], cited_by: Mapping[str, list[str]]
) -> str:
    """Every source, sorted by key, with an anchor per key and the pages that cite it."""
    items = []
    for key in sorted(sources):
        users = cited_by.get(key, [])
        where = f"  \n  Cited by {', '.join(users)}." if users else ""
        anchor = html_text(key)
        items.append(f'- <span id="{anchor}"></span>`{key}`: {reference(sources[key])}{where}')
    return "\n".join(items) + "\n"


def fill(markdown: str, blocks: Mapping[str, str]) -> str:
    """Replace each ``<!-- posenc:NAME -->`` line by ``blocks[NAME]``."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in blocks:
            raise BlockError(
                f"unknown marker <!-- posenc:{name} -->; known: {', '.join(sorted(blocks))}"
            )
        return blocks[name]

    return MARKER_RE.sub(one, markdown)


def corpus_table(
    registry: Mapping[int, Proposition],
    results: Mapping[int, Any],
    base: str,
    parts: Mapping[str, Any] | None = None,
) -> str:
    """The list of propositions with their status, for the home page.

    With ``parts`` (:class:`hooks.parts.Part` by key, in their order), one table
    per part, under the part's heading, in its reading order; the numbers no
    part lists (retired ones) follow in a table of their own.
    """
    head = ["| N | Proposition | Uses | Evidence | Status |", "|--:|---|---|---|---|"]

    def row(n: int) -> str:
        entry, result = registry[n], results.get(n)
        title = markdown_text(entry.title)
        if entry.retired is not None:
            return f"| {n} | [{title}]({base}{entry.page}) | | | retired |"
        uses = ", ".join(str(u) for u in entry.uses) or "none"
        kinds = ", ".join(result.kinds) if result else ""
        return (
            f"| {n} | [{title}]({base}{entry.page}) | {uses} | {kinds} "
            f"| {status(entry, results, registry)} |"
        )

    if not parts:
        return "\n".join([*head, *(row(n) for n in registry)]) + "\n"
    out = []
    listed = set()
    for part in parts.values():
        out += [f"### [{markdown_text(part.heading)}]({base}{part.page})", ""]
        out += [*head, *(row(n) for n in part.order if n in registry), ""]
        listed.update(part.order)
    rest = [n for n in registry if n not in listed]
    if rest:
        out += ["### Retired numbers", "", *head, *(row(n) for n in rest), ""]
    return "\n".join(out)
