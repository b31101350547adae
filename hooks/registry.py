"""The registry of propositions, read from the front matter of their pages.

A proposition page ``docs/propositions/pNN-<slug>.md`` starts with YAML front
matter that is its registry entry::

    number: 8                      # permanent, never reused
    title: A shift is a rotation
    statement: For every offset $k$ ...   # Markdown with TeX
    uses: [5]                      # smaller numbers only
    proof: proofs/p08_shift_is_rotation.py
    figures: [{name: fig_shift_rotation, alt: ...}]
    sources: [vaswani2017]         # keys of docs/sources.yml
    retired: {replaced_by: 9, why: ...}   # only for a retired number

Nothing here imports MkDocs: the build and the tests call these functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

PAGE_RE = re.compile(r"^p(\d{2})-([a-z0-9-]+)\.md$")
FRONT_RE = re.compile(r"\A---\n(.*?)\n---\n", re.S)
#: Numbers that were once used and must never be reused or dropped.
RETIRED_KEYS = ("replaced_by", "why")


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


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Split a Markdown file into (front matter, body)."""
    match = FRONT_RE.match(text)
    if not match:
        return {}, text
    data = yaml.safe_load(match.group(1)) or {}
    if not isinstance(data, dict):
        raise RegistryError("front matter must be a mapping")
    return data, text[match.end() :]


def _entry(path: Path, docs: Path) -> Proposition:
    match = PAGE_RE.match(path.name)
    if not match:
        raise RegistryError(f"{path.name}: proposition pages are named pNN-<slug>.md")
    data, _ = front_matter(path.read_text(encoding="utf-8"))
    where = path.relative_to(docs).as_posix()
    for key in ("number", "title", "statement"):
        if key not in data:
            raise RegistryError(f"{where}: front matter lacks '{key}'")
    number = data["number"]
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise RegistryError(f"{where}: number must be a positive integer, got {number!r}")
    if number != int(match.group(1)):
        raise RegistryError(
            f"{where}: front matter says number {number}, the file name says {match.group(1)}"
        )
    uses = data.get("uses") or []
    if not all(isinstance(u, int) for u in uses):
        raise RegistryError(f"{where}: uses must list proposition numbers, got {uses!r}")
    retired = data.get("retired")
    if retired is not None and set(retired) - set(RETIRED_KEYS):
        raise RegistryError(f"{where}: retired takes only {RETIRED_KEYS}")
    figures = tuple(Figure(f["name"], f["alt"]) for f in data.get("figures") or [])
    return Proposition(
        number=number,
        title=str(data["title"]),
        slug=match.group(2),
        page=where,
        statement=str(data["statement"]).strip(),
        uses=tuple(sorted(uses)),
        proof=data.get("proof"),
        figures=figures,
        sources=tuple(data.get("sources") or []),
        retired=retired,
    )


def load(docs: Path, root: Path | None = None) -> dict[int, Proposition]:
    """Read and validate every proposition page under ``docs/propositions``.

    Checks: numbers unique and matching their file names; ``uses`` names only
    smaller, known numbers; every live proposition has a proof file whose
    ``NUMBER`` agrees; ``used_by`` is filled in.
    """
    docs = Path(docs)
    root = Path(root) if root else docs.parent
    found: dict[int, Proposition] = {}
    for path in sorted((docs / "propositions").glob("p*.md")):
        entry = _entry(path, docs)
        if entry.number in found:
            first = found[entry.number].page
            raise RegistryError(
                f"proposition {entry.number} is defined twice: {first} and {entry.page}"
            )
        found[entry.number] = entry
    for entry in found.values():
        for used in entry.uses:
            if used not in found:
                raise RegistryError(f"{entry.page}: uses unknown proposition {used}")
            if used >= entry.number:
                raise RegistryError(
                    f"{entry.page}: uses {used}, but a proposition may only use smaller numbers"
                )
        if entry.retired is None:
            _check_proof(entry, root)
    used_by: dict[int, list[int]] = {n: [] for n in found}
    for entry in found.values():
        for used in entry.uses:
            used_by[used].append(entry.number)
    return {n: replace(found[n], used_by=tuple(sorted(used_by[n]))) for n in sorted(found)}


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
