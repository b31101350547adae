"""Citations of single propositions: BibTeX, plain text, and the Cite block.

Every URL is built from the one ``site_url`` of mkdocs.yml; the corpus version
comes from pyproject.toml; the verification record comes from the proof run.
"""

from __future__ import annotations

from typing import Any

from hooks.registry import Proposition

AUTHOR = "The posenc authors"


def permalink(site_url: str, entry: Proposition) -> str:
    return site_url.rstrip("/") + "/" + entry.permalink


def record(result: Any, state: str) -> str:
    """One sentence saying what was verified, with what."""
    if result is None:
        return "Not verified in this build."
    v = result.versions
    kinds = ", ".join(result.kinds)
    return (
        f"Machine check {state}: {sum(c['passed'] for c in result.evidence)}/"
        f"{len(result.evidence)} "
        f"checks ({kinds}), {sum(m['refuted'] for m in result.misreadings)}/"
        f"{len(result.misreadings)} misreadings refuted; proof {result.file} sha256 "
        f"{result.sha256[:16]}; Python {v['python']}, SymPy {v['sympy']}, NumPy {v['numpy']}; "
        f"{result.date[:10]}"
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
