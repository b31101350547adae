"""Citations of single propositions: BibTeX, CSL-JSON, plain text, and the Cite block.

Every URL is built from the one ``site_url`` of mkdocs.yml; the corpus version
comes from pyproject.toml; the verification record comes from the proof run.

The year of a citation is the year of the sources, never of the build: it
comes from ``SOURCE_DATE_EPOCH`` (the Makefile sets it to the time of the last
commit), else from the last commit itself, else it is 1970 (epoch 0, as in the
Makefile). Two builds of the same sources, today or next year, cite alike.

Every citation pins the statement it cites by the statement's hash (see
hooks/statements.py), and the Cite block says when that statement differs from
the one of an earlier corpus version.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hooks import statements
from hooks.registry import Proposition

AUTHOR = "The posenc authors"
#: The corpus as a whole: the title of its own BibTeX entry, and each CSL item's container.
CORPUS_TITLE = "posenc: Positional Encodings in Transformers, as Machine-Checked Propositions"
ROOT = Path(__file__).resolve().parent.parent
#: Used when SOURCE_DATE_EPOCH is unset and the sources are not a git checkout.
FALLBACK_EPOCH = 0


def source_epoch(root: Path = ROOT) -> int:
    """Seconds since 1970 of the sources: SOURCE_DATE_EPOCH, the last commit, or 0.

    A malformed SOURCE_DATE_EPOCH raises ``ValueError`` (the reproducible-builds
    specification asks a build to stop rather than guess).
    """
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if raw:
        if not (raw.isascii() and raw.isdigit()):
            raise ValueError(
                "SOURCE_DATE_EPOCH must be a whole number of seconds since 1970-01-01 UTC, "
                f"got {raw!r}"
            )
        return int(raw)
    return _commit_epoch(root)


@functools.cache  # asked once per page; the last commit does not change during a build
def _commit_epoch(root: Path) -> int:
    """The time of the last commit, if ``root`` is the top of a git checkout; else 0."""
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
            return FALLBACK_EPOCH  # not a checkout, or a copy inside someone else's
        done = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%ct"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return FALLBACK_EPOCH  # no git
    stamp = done.stdout.strip()
    return int(stamp) if done.returncode == 0 and stamp.isdigit() else FALLBACK_EPOCH


def source_date(root: Path = ROOT) -> datetime:
    """The date of the sources (see :func:`source_epoch`), in UTC."""
    return datetime.fromtimestamp(source_epoch(root), UTC)


def year(root: Path = ROOT) -> str:
    """The year a citation names: the year of the sources."""
    return str(source_date(root).year)


def permalink(site_url: str, entry: Proposition) -> str:
    return site_url.rstrip("/") + "/" + entry.permalink


def record(result: Any, state: str) -> str:
    """One sentence saying what was verified, with what.

    No date and no duration: those are the run's, and they stay in the JSON
    report, so that every build of the same sources writes the same sentence.
    """
    if result is None:
        return "Not verified in this build."
    v = result.versions
    kinds = ", ".join(result.kinds)
    return (
        f"Machine check {state}: {sum(c['passed'] for c in result.evidence)}/"
        f"{len(result.evidence)} "
        f"checks ({kinds}), {sum(m['refuted'] for m in result.misreadings)}/"
        f"{len(result.misreadings)} misreadings refuted; proof {result.file} sha256 "
        f"{result.sha256[:16]}; Python {v['python']}, SymPy {v['sympy']}, NumPy {v['numpy']}"
    )


def _bib_escape(text: str) -> str:
    return (
        text.replace("\\", r"\textbackslash{}")
        .replace("{", r"\{")
        .replace("}", r"\}")
        .replace("&", r"\&")
        .replace("%", r"\%")
        .replace("#", r"\#")
        .replace("_", r"\_")
    )


def bibtex(
    entry: Proposition,
    *,
    site_url: str,
    version: str,
    year: str,
    note: str,
    statement: str | None = None,
) -> str:
    """The BibTeX entry of one proposition; ``statement`` is the full hash of its statement.

    Without ``statement``, the hash of the statement of the page in docs/.
    """
    url = permalink(site_url, entry)
    if statement is None:
        statement = pinned(entry, ROOT / "docs", version).statement
    pin = f"statement SHA-256 {statements.short(statement)}"
    fields = [
        ("author", f"{{{AUTHOR}}}"),
        ("title", f"Proposition {entry.number}: {_bib_escape(entry.title)}"),
        ("howpublished", f"\\url{{{url}}}"),
        ("url", url),
        ("year", year),
        ("version", version),
        ("note", f"posenc corpus, version {version}, {pin}. {_bib_escape(note)}"),
    ]
    body = ",\n".join(f"  {name:<12} = {{{value}}}" for name, value in fields)
    return f"@misc{{posenc:p{entry.number},\n{body}\n}}"


def csl(
    entry: Proposition,
    *,
    site_url: str,
    version: str,
    issued: tuple[int, ...],
    note: str,
    statement: str,
) -> dict[str, Any]:
    """The CSL-JSON item of one proposition, as Zotero and pandoc read it.

    A ``webpage`` (the permanent link is what is cited) inside the corpus
    (``container-title``), issued on the date of the sources, with the corpus
    version as ``version`` and the statement's hash and the verification record
    in ``note``. The ``id`` is the BibTeX key. ``issued`` is (year, month, day) or
    (year,), as :func:`date_parts` gives it.
    """
    return {
        "id": f"posenc:p{entry.number}",
        "type": "webpage",
        "title": f"Proposition {entry.number}: {entry.title}",
        "author": [{"literal": AUTHOR}],
        "container-title": CORPUS_TITLE,
        "issued": {"date-parts": [list(issued)]},
        "URL": permalink(site_url, entry),
        "version": version,
        "note": f"Statement SHA-256 {statements.short(statement)}. {note}",
    }


def date_parts(date: datetime) -> tuple[int, int, int]:
    """A date as CSL-JSON's ``date-parts`` name it: (year, month, day)."""
    return (date.year, date.month, date.day)


def csl_corpus(*, site_url: str, version: str, date: datetime) -> dict[str, Any]:
    """The CSL-JSON item of the corpus as a whole (``posenc:corpus``, as in corpus.bib)."""
    return {
        "id": "posenc:corpus",
        "type": "webpage",
        "title": CORPUS_TITLE,
        "author": [{"literal": AUTHOR}],
        "issued": {"date-parts": [[date.year, date.month, date.day]]},
        "URL": site_url,
        "version": version,
    }


def csl_json(items: list[dict[str, Any]]) -> str:
    """CSL-JSON text: always an array of items, even of one, as the schema wants.

    One field a line, each value on its line (a name list or a date stays whole),
    so that the Cite block reads like the BibTeX beside it.
    """

    def one(item: dict[str, Any]) -> str:
        fields = (
            f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in item.items()
        )
        return " {\n" + ",\n".join(fields) + "\n }"

    return "[\n" + ",\n".join(one(item) for item in items) + "\n]\n"


def csl_path(entry: Proposition) -> str:
    """Where the site publishes one proposition's CSL-JSON, relative to its root."""
    return f"cite/p{entry.number}.csl.json"


def plain(entry: Proposition, *, site_url: str, version: str, year: str, statement: str) -> str:
    return (
        f"{AUTHOR} ({year}). Proposition {entry.number}: {entry.title}. "
        f"posenc, version {version}, statement {statements.short(statement)}. "
        f"{permalink(site_url, entry)}"
    )


def scholar_tags(entry: Proposition, *, site_url: str, date: datetime) -> list[tuple[str, str]]:
    """The Highwire Press ``citation_*`` meta tags of a proposition page, as (name, content).

    Google Scholar and Zotero read these to see a citable item: the title (with its
    permanent number, as the plain citation gives it), the author, the date of the
    sources (not of the build) and the permanent link. No ``citation_pdf_url``: the
    site publishes no PDF of a single proposition.
    """
    return [
        ("citation_title", f"Proposition {entry.number}: {entry.title}"),
        ("citation_author", AUTHOR),
        ("citation_publication_date", date.strftime("%Y/%m/%d")),
        ("citation_public_url", permalink(site_url, entry)),
    ]


def changed_notice(entry: Proposition, changes: Sequence[statements.Change], base: str) -> str:
    """An admonition saying how this statement differs from earlier versions' ('' if not)."""
    own = [c for c in changes if c.number == entry.number and c.kind == "changed"]
    if not own:
        return ""
    lines = [
        f"- from version {c.before} to {c.after}: `{statements.short(c.was or '')}` "
        f"became `{statements.short(c.now or '')}`"
        for c in own
    ]
    return (
        f'!!! warning "Statement changed since corpus version {own[0].before}"\n\n'
        f"    A citation of an earlier version pinned a different statement:\n\n"
        + "".join(f"    {line}\n" for line in lines)
        + f"\n    Every change is listed on [Statement history]({base}history.md).\n\n"
    )


def cite_block(
    entry: Proposition,
    *,
    site_url: str,
    version: str,
    note: str,
    date: datetime | None = None,
    year: str | None = None,
    pin: Pin | None = None,
    base: str = "",
) -> str:
    """Markdown for the Cite section: statement hash, BibTeX, CSL-JSON, plain text, link.

    ``date`` is the date of the sources; given ``year`` alone, the CSL item is
    issued in that year only. ``pin`` holds the statement's full hash and its
    changes (only this proposition's are shown); without it, the pin is read from
    the page in docs/ and the ledger. ``base`` leads from the page to the root of
    the docs.
    """
    if date is None and year is None:
        raise TypeError("cite_block needs the date or the year of the sources")
    if date is not None and year is not None and year != str(date.year):
        raise ValueError(f"the year {year} is not the year of the date {date:%Y-%m-%d}")
    year = str(date.year) if date is not None else str(year)
    issued = date_parts(date) if date is not None else (int(year),)
    if pin is None:
        pin = pinned(entry, ROOT / "docs", version)
    statement = pin.statement
    link = permalink(site_url, entry)
    common = {"site_url": site_url, "version": version, "statement": statement}
    bib = bibtex(entry, year=year, note=note, **common)
    item = csl(entry, issued=issued, note=note, **common)
    text = plain(entry, year=year, **common)
    return (
        f"Permanent link: <{link}>\n\n"
        f"Statement SHA-256: `{statements.short(statement)}` (the first {statements.SHORT} "
        f"hex digits; [what is hashed]({base}cite.md#statement-hashes)).\n\n"
        + changed_notice(entry, pin.changes, base)
        + f'```bibtex title="BibTeX"\n{bib}\n```\n\n'
        f'```json title="CSL-JSON"\n{csl_json([item])}```\n\n'
        f"[Download the CSL-JSON]({base}{csl_path(entry)}): Zotero imports it, and pandoc "
        "reads it as a bibliography.\n\n"
        f'```text title="Plain text"\n{text}\n```\n\n'
        f'```text title="Permanent link"\n{link}\n```\n'
    )


@dataclass(frozen=True)
class Pin:
    """What a citation pins: the statement's full hash, and its changes since earlier versions."""

    statement: str
    changes: tuple[statements.Change, ...] = ()


def pinned(entry: Proposition, docs: Path, version: str, ledger: Path = statements.LEDGER) -> Pin:
    """The :class:`Pin` of a proposition, from its page in ``docs`` and the ledger.

    A build without a ledger (a copy of the sources that left data/ out) knows
    no earlier version, so it shows no change; the tests require the ledger.
    """
    found = statements.of_text((docs / entry.page).read_text(encoding="utf-8"), entry.page)
    if found is None:
        raise ValueError(f"{entry.page}: no statement in the front matter")
    versions = statements.load(ledger) if ledger.exists() else []
    history = statements.changes(statements.timeline(versions, version, {entry.number: found[1]}))
    return Pin(found[1], tuple(c for c in history if c.number == entry.number))


def history_block(docs: Path, version: str, base: str, ledger: Path = statements.LEDGER) -> str:
    """Markdown for the history page: the ledger's versions, and every statement change."""
    if not ledger.exists():
        return "No ledger of statements (data/statements.json) was found by this build.\n"
    versions = statements.timeline(statements.load(ledger), version, statements.current(docs))
    return statements.history_markdown(versions, statements.pages(docs), base)
