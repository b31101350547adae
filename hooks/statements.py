"""Statement hashes: what a citation pins, and the ledger of them per corpus version.

A citation names a proposition by its permanent number, and pins the statement
it cited by a hash: the SHA-256 of the statement's text, normalised (see
:func:`normalise`). What is hashed is the ``statement:`` of the registry entry
as written in the page's front matter, with quantities as references
(``{{ name }}``), not with the values a run wrote in: so the hash is the same on
every machine and needs no proof run, and it can be computed at any old commit.
A quantity's value is pinned by the proof record beside it (the proof's SHA-256).

``data/statements.json`` is the ledger: for each corpus version
(``project.version`` of pyproject.toml), the hash of every statement. The entry
of the current version follows the sources (``python -m hooks.statements
record`` writes it); the entries of earlier versions are history, and a page
says when its statement differs from theirs. A test fails when the statements
and the current version's entry disagree, so no statement changes unrecorded.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
import sys
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hooks import registry
from hooks.bind import REF_RE

ROOT = Path(__file__).resolve().parent.parent
LEDGER = ROOT / "data" / "statements.json"
#: How many hex digits of the hash a page and a citation show.
SHORT = 12
#: What the ledger is, written into it so the file explains itself.
ABOUT = (
    "SHA-256 of the normalised statement of every proposition, for each corpus "
    "version (project.version in pyproject.toml); docs/cite.md says what is hashed. "
    "Write the current version's entry with: python -m hooks.statements record"
)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPACE = re.compile(r"\s+")


class LedgerError(ValueError):
    """data/statements.json is not what a ledger holds; the message says why."""


def normalise(statement: str) -> str:
    """The text that is hashed: one line per paragraph, paragraphs apart by one blank line.

    1. Unicode NFC, so that é typed as one character or as e and an accent is the
       same text; line endings ``\\r\\n`` and ``\\r`` become ``\\n``.
    2. A quantity reference is written one way, ``{{ name }}`` or ``{{ p14.name }}``.
    3. Paragraphs are split at blank lines; inside one, every run of white space
       (spaces, tabs, line breaks) becomes one space, and ends are trimmed.

    So rewrapping a statement in its source, or spacing a reference differently,
    changes nothing that Markdown shows; a new word, a changed formula or a new
    paragraph break changes the hash.
    """
    text = unicodedata.normalize("NFC", statement).replace("\r\n", "\n").replace("\r", "\n")
    text = REF_RE.sub(_reference, text)
    paragraphs = (_SPACE.sub(" ", p).strip() for p in _BLANK_LINE.split(text))
    return "\n\n".join(p for p in paragraphs if p)


def _reference(match: re.Match[str]) -> str:
    number, name = match.group("number"), match.group("name")
    return "{{ " + (f"p{int(number)}." if number else "") + name + " }}"


def digest(statement: str) -> str:
    """The SHA-256 of the normalised statement, UTF-8, as 64 lowercase hex digits."""
    return hashlib.sha256(normalise(statement).encode("utf-8")).hexdigest()


def short(full: str) -> str:
    """The display form of a hash: its first :data:`SHORT` hex digits."""
    return full[:SHORT]


def of_text(page: str, where: str = "") -> tuple[int, str] | None:
    """(number, hash of the statement) of a proposition page's text; None if it has none."""
    data, _ = registry.front_matter(page, where)
    number, statement = data.get("number"), data.get("statement")
    if not isinstance(number, int) or not isinstance(statement, str):
        return None
    return number, digest(statement)


def current(docs: Path) -> dict[int, str]:
    """The hash of every proposition's statement, as the pages in ``docs`` write it."""
    found: dict[int, str] = {}
    for path in sorted((docs / "propositions").glob("p[0-9][0-9]-*.md")):
        entry = of_text(path.read_text(encoding="utf-8"), str(path))
        if entry is not None:
            found[entry[0]] = entry[1]
    return dict(sorted(found.items()))


def at_commit(commit: str, root: Path = ROOT) -> dict[int, str]:
    """The same hashes at a commit of the git checkout ``root`` (for seeding the ledger)."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
        ).stdout

    found: dict[int, str] = {}
    for path in git("ls-tree", "--name-only", f"{commit}:docs/propositions").split():
        if registry.PAGE_RE.match(path):
            text = git("show", f"{commit}:docs/propositions/{path}")
            entry = of_text(text, f"{commit}:{path}")
            if entry is not None:
                found[entry[0]] = entry[1]
    return dict(sorted(found.items()))


# -- the ledger ------------------------------------------------------------------


@dataclass(frozen=True)
class Version:
    """One corpus version of the ledger: the hash of every statement it had."""

    version: str
    statements: dict[int, str]


def load(path: Path = LEDGER) -> list[Version]:
    """The versions of the ledger, in its order (oldest first)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(
            f"{path}: no ledger; write one with python -m hooks.statements record"
        ) from None
    except ValueError as exc:
        raise LedgerError(f"{path}: not JSON: {exc}") from None
    versions = data.get("versions") if isinstance(data, dict) else None
    if not isinstance(versions, list):
        raise LedgerError(f"{path}: must be an object with a list 'versions'")
    found: list[Version] = []
    for item in versions:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("version"), str)
            and isinstance(item.get("statements"), dict)
            and all(k.isdigit() and _is_hash(v) for k, v in item["statements"].items())
        ):
            raise LedgerError(
                f"{path}: each version is {{'version': text, 'statements': "
                f"{{number: 64 hex digits}}}}, got {item!r:.120}"
            )
        found.append(Version(item["version"], {int(k): v for k, v in item["statements"].items()}))
    names = [v.version for v in found]
    if len(set(names)) != len(names):
        raise LedgerError(f"{path}: a version is given twice: {names}")
    return found


def _is_hash(value: object) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) is not None


def dumps(versions: list[Version]) -> str:
    data = {
        "about": ABOUT,
        "versions": [
            {
                "version": v.version,
                "statements": {str(n): h for n, h in sorted(v.statements.items())},
            }
            for v in versions
        ],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def recorded(versions: list[Version], version: str, hashes: Mapping[int, str]) -> list[Version]:
    """The ledger with the entry of ``version`` set to ``hashes`` (added last if new)."""
    entry = Version(version, dict(sorted(hashes.items())))
    if any(v.version == version for v in versions):
        return [entry if v.version == version else v for v in versions]
    return [*versions, entry]


def problems(versions: list[Version], version: str, hashes: Mapping[int, str]) -> list[str]:
    """What differs between the statements and the ledger's entry for ``version``."""
    entry = next((v for v in versions if v.version == version), None)
    if entry is None:
        return [f"the ledger has no entry for corpus version {version}"]
    found = []
    for n in sorted(set(entry.statements) | set(hashes)):
        was, now = entry.statements.get(n), hashes.get(n)
        if was is None:
            found.append(f"Proposition {n} is new: its statement is not in the ledger")
        elif now is None:
            found.append(f"Proposition {n} is in the ledger but has no page")
        elif was != now:
            found.append(
                f"the statement of Proposition {n} has changed: the ledger has "
                f"{short(was)}, the page hashes to {short(now)}"
            )
    if versions[-1].version != version:
        found.append(f"corpus version {version} is not the last entry of the ledger")
    return found


# -- what changed, and when --------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A statement that differs between two consecutive versions of the ledger."""

    number: int
    before: str  # the earlier version
    after: str  # the later one
    was: str | None  # the hash before (None: the proposition was new)
    now: str | None  # the hash after (None: it was gone)

    @property
    def kind(self) -> str:
        if self.was is None:
            return "added"
        return "removed" if self.now is None else "changed"


def timeline(versions: list[Version], version: str, hashes: Mapping[int, str]) -> list[Version]:
    """The versions before ``version`` in the ledger, then ``version`` with ``hashes``.

    The current version's statements are the pages' own, not the ledger's copy,
    so a page never shows a stale hash (the test keeps the two equal).
    """
    names = [v.version for v in versions]
    earlier = versions[: names.index(version)] if version in names else versions
    return [*earlier, Version(version, dict(hashes))]


def changes(versions: list[Version]) -> list[Change]:
    """Every statement added, changed or removed from one version to the next."""
    found = []
    for old, new in itertools.pairwise(versions):
        for n in sorted(set(old.statements) | set(new.statements)):
            was, now = old.statements.get(n), new.statements.get(n)
            if was != now:
                found.append(Change(n, old.version, new.version, was, now))
    return found


def history_markdown(versions: list[Version], pages: Mapping[int, str], base: str) -> str:
    """The versions with how many statements each has, then each change, newest first.

    ``versions`` is a :func:`timeline` (oldest first, the current version last);
    ``pages`` gives the page of each number, relative to the docs, which ``base``
    leads to from the history page.
    """
    rows = "".join(
        f"| {v.version}{' (this build)' if v is versions[-1] else ''} | {len(v.statements)} |\n"
        for v in versions
    )
    text = "| Corpus version | Statements |\n|---|---|\n" + rows + "\n"
    found = changes(versions)
    if not found:
        names = ", ".join(v.version for v in versions)
        return text + (
            f"No statement has changed between the corpus versions of the ledger ({names}).\n"
        )
    for old, new in reversed(list(itertools.pairwise(versions))):
        here = [c for c in found if (c.before, c.after) == (old.version, new.version)]
        text += f"### Version {new.version}, since {old.version}\n\n"
        text += "".join(f"- {_line(c, pages, base)}\n" for c in here) if here else "No change.\n"
        text += "\n"
    return text


def _line(change: Change, pages: Mapping[int, str], base: str) -> str:
    page = pages.get(change.number)
    name = f"Proposition {change.number}"
    name = f"[{name}]({base}{page})" if page else name
    if change.kind == "added":
        return f"{name}: new, `{short(change.now or '')}`"
    if change.kind == "removed":
        return f"{name}: no longer in the corpus (was `{short(change.was or '')}`)"
    return f"{name}: changed, `{short(change.was or '')}` became `{short(change.now or '')}`"


def pages(docs: Path) -> dict[int, str]:
    """The page of each proposition number, relative to ``docs``."""
    found = {}
    for path in (docs / "propositions").glob("p[0-9][0-9]-*.md"):
        match = registry.PAGE_RE.match(path.name)
        if match:
            found[int(match.group(1))] = f"propositions/{path.name}"
    return dict(sorted(found.items()))


def _write(path: Path, text: str) -> None:
    """Write atomically: a reader sees the old ledger or the whole new one, never half."""
    from hooks.cache import write_text

    write_text(path, text)


def main(argv: list[str]) -> int:
    if argv != ["record"]:
        print("usage: python -m hooks.statements record", file=sys.stderr)
        return 2
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    versions = load(LEDGER) if LEDGER.exists() else []
    hashes = current(ROOT / "docs")
    _write(LEDGER, dumps(recorded(versions, version, hashes)))
    print(f"{LEDGER.relative_to(ROOT)}: version {version}, {len(hashes)} statements")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
