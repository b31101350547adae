"""Machine-readable exports of the corpus: propositions.json, corpus.bib and CSL-JSON.

The JSON follows docs/propositions.schema.json (published beside it on the
site); a test validates the built file against that schema.

Both files are the same bytes for every build of the same sources: they hold
no run date and no duration (those stay in the proof runner's JSON report),
mappings come in a fixed order, and the year is the year of the sources.

The hash of each statement (hooks/statements.py) is in every export: in full in
propositions.json, and shortened in the ``note`` of the BibTeX and CSL-JSON.
Where ``hashes`` is not given, they are the hashes of the pages in docs/.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hooks import blocks, cite, statements
from hooks.parts import part_of as parts_of
from hooks.registry import Proposition

SCHEMA_URL = "propositions.schema.json"


def _hashes(hashes: Mapping[int, str] | None) -> Mapping[int, str]:
    return statements.current(cite.ROOT / "docs") if hashes is None else hashes


def _absolute(site_url: str, path: str) -> str:
    return site_url.rstrip("/") + "/" + path


def _ordered(mapping: Mapping[str, Any], first: tuple[str, ...]) -> dict[str, Any]:
    """``mapping`` with the keys of ``first`` in that order, then the others sorted.

    Nested mappings are sorted by key: however a result was made (run now, read
    from the cache), its record is written in the same order.
    """
    keys = [k for k in first if k in mapping] + sorted(k for k in mapping if k not in first)
    return {
        k: _ordered(mapping[k], ()) if isinstance(mapping[k], Mapping) else mapping[k]
        for k in keys
    }


def proposition_record(
    entry: Proposition,
    result: Any,
    state: str,
    sources: Mapping[str, Mapping[str, Any]],
    site_url: str,
    statement_sha256: str | None = None,
    part: Any = None,
) -> dict[str, Any]:
    """One proposition's record; ``statement_sha256`` defaults to its page's in docs/.

    ``part`` is the :class:`hooks.parts.Part` it is read in (None for a retired number).
    """
    if statement_sha256 is None:
        statement_sha256 = _hashes(None)[entry.number]
    record: dict[str, Any] = {
        "number": entry.number,
        "title": entry.title,
        "part": None if part is None else part.key,
        "question": entry.question,
        "statement": entry.statement,
        "statement_sha256": statement_sha256,
        "url": _absolute(site_url, entry.url),
        "permalink": _absolute(site_url, entry.permalink),
        "uses": list(entry.uses),
        "used_by": list(entry.used_by),
        "status": "retired" if entry.retired is not None else state,
        "retired": entry.retired,
        "checks": [],
        "misreadings": [],
        "quantities": [],
        "inputs": {},
        "proof": None,
        "sources": [
            {"key": key, **{f: sources[key][f] for f in ("authors", "title", "year", "url")}}
            for key in entry.sources
        ],
    }
    if result is not None:
        fields = ("number", "claim", "kind", "scope", "passed", "detail", "samples")
        record["checks"] = [
            {k: c.get(k, i + 1 if k == "number" else None) for k in fields}
            for i, c in enumerate(result.checks)
        ]
        first = ("name", "value", "exact", "show", "text", "tex", "check")
        record["quantities"] = [_ordered(q, first) for q in result.quantities]
        record["inputs"] = _ordered(result.inputs, ())
        record["misreadings"] = [
            {k: m[k] for k in ("claim", "refuted", "kind", "counterexample")}
            for m in result.misreadings
        ]
        record["proof"] = {
            "file": f"proofs/{result.file}",
            "sha256": result.sha256,
            "versions": _ordered(result.versions, ()),
        }
    return record


def propositions_json(
    registry: Mapping[int, Proposition],
    results: Mapping[int, Any],
    sources: Mapping[str, Mapping[str, Any]],
    *,
    site_url: str,
    version: str,
    hashes: Mapping[int, str] | None = None,
    parts: Mapping[str, Any] | None = None,
) -> str:
    """The corpus as JSON (docs/propositions.schema.json): its parts, then every proposition.

    ``parts`` are :class:`hooks.parts.Part` by key, in their order; each lists its
    propositions in reading order, and each proposition names its part.
    """
    hashes = _hashes(hashes)
    parts = parts or {}
    part_of = parts_of(parts)
    data = {
        "$schema": _absolute(site_url, SCHEMA_URL),
        "corpus": "posenc",
        "version": version,
        "site_url": site_url,
        "parts": [
            {
                "key": part.key,
                "number": part.number,
                "title": part.title,
                "url": _absolute(site_url, part.url),
                "propositions": list(part.order),
            }
            for part in parts.values()
        ],
        "propositions": [
            proposition_record(
                entry,
                results.get(n),
                blocks.status(entry, results, registry),
                sources,
                site_url,
                hashes[n],
                part=part_of.get(n),
            )
            for n, entry in registry.items()
        ],
    }
    return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=False) + "\n"


def corpus_bib(
    registry: Mapping[int, Proposition],
    results: Mapping[int, Any],
    *,
    site_url: str,
    version: str,
    year: str,
    hashes: Mapping[int, str] | None = None,
) -> str:
    """Every proposition's BibTeX entry, plus one for the corpus as a whole.

    Every entry names the same ``year``: the year of the sources, not of a run.
    """
    hashes = _hashes(hashes)
    entries = [
        "@misc{posenc:corpus,\n"
        f"  author       = {{{{{cite.AUTHOR}}}}},\n"
        f"  title        = {{{cite.CORPUS_TITLE}}},\n"
        f"  howpublished = {{\\url{{{site_url}}}}},\n"
        f"  url          = {{{site_url}}},\n"
        f"  year         = {{{year}}},\n"
        f"  version      = {{{version}}}\n"
        "}"
    ]
    for n, entry in registry.items():
        state = blocks.status(entry, results, registry)
        entries.append(
            cite.bibtex(
                entry,
                site_url=site_url,
                version=version,
                year=year,
                note=cite.record(results.get(n), state),
                statement=hashes[n],
            )
        )
    return "\n\n".join(entries) + "\n"


def csl_files(
    registry: Mapping[int, Proposition],
    results: Mapping[int, Any],
    *,
    site_url: str,
    version: str,
    date: datetime,
    hashes: Mapping[int, str] | None = None,
) -> dict[str, str]:
    """The CSL-JSON the site publishes, by path: one array per proposition, and the corpus.

    ``cite/pN.csl.json`` holds Proposition N's item alone; ``corpus.csl.json`` holds
    the item of the corpus as a whole (``posenc:corpus``), then every proposition's,
    the same items as the single files, in order of number.
    """
    hashes = _hashes(hashes)
    items = {
        n: cite.csl(
            entry,
            site_url=site_url,
            version=version,
            issued=cite.date_parts(date),
            note=cite.record(results.get(n), blocks.status(entry, results, registry)),
            statement=hashes[n],
        )
        for n, entry in registry.items()
    }
    files = {cite.csl_path(registry[n]): cite.csl_json([item]) for n, item in items.items()}
    corpus = cite.csl_corpus(site_url=site_url, version=version, date=date)
    files["corpus.csl.json"] = cite.csl_json([corpus, *items.values()])
    return files
