"""Citations of single propositions: BibTeX, plain text, and the Cite block.

Every URL is built from the one ``site_url`` of mkdocs.yml; the corpus version
comes from pyproject.toml; the verification record comes from the proof run.

The year of a citation is the year of the sources, never of the build: it
comes from ``SOURCE_DATE_EPOCH`` (the Makefile sets it to the time of the last
commit), else from the last commit itself, else it is 1970 (epoch 0, as in the
Makefile). Two builds of the same sources, today or next year, cite alike.
"""

from __future__ import annotations

import functools
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hooks.registry import Proposition

AUTHOR = "The posenc authors"
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


def bibtex(entry: Proposition, *, site_url: str, version: str, year: str, note: str) -> str:
    url = permalink(site_url, entry)
    fields = [
        ("author", f"{{{AUTHOR}}}"),
        ("title", f"Proposition {entry.number}: {_bib_escape(entry.title)}"),
        ("howpublished", f"\\url{{{url}}}"),
        ("url", url),
        ("year", year),
        ("version", version),
        ("note", f"posenc corpus, version {version}. {_bib_escape(note)}"),
    ]
    body = ",\n".join(f"  {name:<12} = {{{value}}}" for name, value in fields)
    return f"@misc{{posenc:p{entry.number},\n{body}\n}}"


def plain(entry: Proposition, *, site_url: str, version: str, year: str) -> str:
    return (
        f"{AUTHOR} ({year}). Proposition {entry.number}: {entry.title}. "
        f"posenc, version {version}. {permalink(site_url, entry)}"
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


def cite_block(entry: Proposition, *, site_url: str, version: str, year: str, note: str) -> str:
    """Markdown for the Cite section: BibTeX, plain text, permanent link (each copyable)."""
    link = permalink(site_url, entry)
    bib = bibtex(entry, site_url=site_url, version=version, year=year, note=note)
    text = plain(entry, site_url=site_url, version=version, year=year)
    return (
        f"Permanent link: <{link}>\n\n"
        f'```bibtex title="BibTeX"\n{bib}\n```\n\n'
        f'```text title="Plain text"\n{text}\n```\n\n'
        f'```text title="Permanent link"\n{link}\n```\n'
    )
