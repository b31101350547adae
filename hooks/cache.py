"""What a build keeps between builds, found by the content of what it depends on.

Five outputs are slow to make and depend on little: the SVG figures (drawn
by matplotlib from ``posenc``), the executed notebooks (run by a kernel,
again from ``posenc``), the rendered math (KaTeX, in Node.js), the API
reference (mkdocstrings' templates) and the highlighted code (Pygments). Each is kept
under a key that hashes everything its bytes can depend on, so that a change
to any of it, and only such a change, makes it again:

* **figures**: every file of ``posenc/``, ``data/configs/`` and
  ``data/base-bound.json``, ``hooks/svg.py``, and the versions of Python, NumPy and
  matplotlib;
* **notebooks**: the same library digest and the versions of the kernel's
  stack (mkdocs-jupyter hashes the notebook's own bytes and its options; this
  adds what the notebook imports, which it cannot know);
* **math**: the KaTeX version in ``node_modules``, the worker script, the
  macros and the strictness; a formula is then found by its TeX and mode.
* **the API reference**: each object's rendered docstrings, under the library
  digest, ``mkdocs.yml`` and the versions of the renderers (hooks/apidoc.py).
* **code**: each highlighted code block (the proof scripts above all), under
  its source, language, options and the versions of Pygments and PyMdown
  (hooks/highlight.py).

The key is a digest of file *contents* (and relative paths), never of times,
so a fresh clone with a copied cache, or a file touched but not changed,
hits. Nothing that failed or warned is kept: an error stops the build every
time, and a warning is printed every time.

The cache lives in ``.cache/build`` of the checkout; ``POSENC_BUILD_CACHE``
names another directory, or turns the cache off with ``off``. Old entries
are pruned: the newest :data:`KEEP` generations of each kind stay, and none
written in the last :data:`GRACE` seconds is removed (another build, say a
test's, may be using it).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE_ENV = "POSENC_BUILD_CACHE"
#: Bump when the layout or the meaning of a cached entry changes.
FORMAT = 1
#: Generations of each kind kept (one generation = one library digest, say).
KEEP = 6
#: Entries younger than this many seconds are never pruned.
GRACE = 3600.0
_OFF = {"off", "0", "no", "false"}


def directory(root: Path = ROOT) -> Path | None:
    """The cache directory, or None when ``POSENC_BUILD_CACHE=off``."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named.lower() in _OFF:
        return None
    return Path(named).resolve() if named else Path(root) / ".cache" / "build"


def _files(paths: Iterable[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += [
                p
                for p in path.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            ]
        elif path.is_file():
            found.append(path)
    return sorted(set(found))


def digest(parts: Iterable[str | bytes]) -> str:
    """SHA-256 of a sequence of parts, each hashed on its own (so no two sequences collide)."""
    total = hashlib.sha256(f"posenc build cache {FORMAT}\n".encode())
    for part in parts:
        blob = part.encode() if isinstance(part, str) else part
        total.update(hashlib.sha256(blob).digest())
    return total.hexdigest()


def files_digest(paths: Iterable[Path], root: Path = ROOT) -> str:
    """Digest of the relative paths and bytes of every file in ``paths`` (dirs recursed)."""
    parts: list[str | bytes] = []
    for path in _files(paths):
        try:
            name = path.relative_to(root).as_posix()
        except ValueError:
            name = path.as_posix()
        parts += [name, path.read_bytes()]
    return digest(parts)


def versions(*distributions: str) -> str:
    """``name==version`` of Python and each distribution (``-`` when not installed)."""
    found = [f"python=={platform.python_version()}"]
    for name in distributions:
        try:
            found.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{name}==-")
    return "\n".join(found)


#: What the figures and the notebooks compute from. Not the rest of ``data/``: the
#: statement ledger there changes no figure. The base-bound certificate is drawn by
#: Proposition 38's figure.
LIBRARY = ("posenc", "data/configs", "data/base-bound.json")


def library_digest(root: Path = ROOT) -> str:
    """Digest of what the figures and the notebooks compute from (:data:`LIBRARY`)."""
    return files_digest([Path(root) / name for name in LIBRARY], Path(root))


def generation(base: Path, kind: str, key: str) -> Path:
    """The directory of one generation of ``kind`` (made if missing, its time refreshed)."""
    where = base / kind / key[:24]
    where.mkdir(parents=True, exist_ok=True)
    os.utime(where)  # the newest generations are the ones kept
    return where


def prune(base: Path, kind: str, keep: int = KEEP, grace: float = GRACE) -> list[Path]:
    """Remove all but the newest ``keep`` generations of ``kind``; return what went."""
    folder = base / kind
    if not folder.is_dir():
        return []
    gone: list[Path] = []
    now = time.time()
    entries = []
    for entry in folder.iterdir():
        try:
            entries.append((entry.stat().st_mtime, entry))
        except OSError:
            continue  # removed by another build meanwhile
    entries.sort(reverse=True)
    for mtime, entry in entries[keep:]:
        if now - mtime < grace:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        gone.append(entry)
    return gone


def read_text(path: Path) -> str | None:
    """The text at ``path``, or None if it is not there (or went while we looked)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def write_text(path: Path, text: str) -> None:
    """Write atomically: a reader sees the old file or the whole new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> dict | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None  # a damaged entry is a miss, and is written again
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` as JSON, atomically (see :func:`write_text`)."""
    write_text(path, json.dumps(data, ensure_ascii=False, sort_keys=True))


def read_strings(path: Path) -> dict[str, str]:
    """The string entries of the JSON object at ``path`` (none if missing or damaged)."""
    return {k: v for k, v in (read_json(path) or {}).items() if isinstance(v, str)}


def keep_used(
    path: Path | None,
    kept: dict[str, str],
    used: dict[str, str],
    complete: bool,
    indent: int | None = None,
) -> dict[str, str]:
    """Write back a file of renders and return what it now holds.

    After a whole build (``complete``) the file keeps what this build used; after
    one that stopped part way, those and every earlier entry too, since the pages
    not reached may still need them. Nothing is written when nothing changed.
    """
    keep = used if complete else {**kept, **used}
    if path is None or not keep or keep == kept:
        return kept
    write_text(path, json.dumps(keep, ensure_ascii=False, sort_keys=True, indent=indent))
    return dict(keep)
