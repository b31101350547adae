"""A copy of what a build reads, for the tests and the benchmark that build a changed project."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The repository's proof results (proofs/runner.py, found by content).
PROOF_CACHE = ROOT / ".cache" / "proofs"
#: Everything under these is read by a build (data/: the model configs that
#: Propositions 28 and 29 and their figures read, and the statement ledger).
TREES = ("docs", "proofs", "hooks", "posenc", "overrides", "exercises", "data")
FILES = ("mkdocs.yml", "pyproject.toml", "conformance/record.json")


def copy_project(
    dest: Path, proof_cache: Path | None = PROOF_CACHE, build_cache: Path | None = None
) -> Path:
    """Copy the sources a build reads to ``dest``, with the proof results in ``proof_cache``.

    ``proof_cache=None`` gives the copy no proof results: every proof runs in its
    build. ``build_cache`` (hooks/cache.py), if given, is copied in as the copy's
    own, so that its build makes only what the copy changed; by default the copy
    starts with none. The npm packages (KaTeX) are linked, not copied.
    """
    for name in TREES:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, dest / name)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    if proof_cache is not None and proof_cache.is_dir():
        shutil.copytree(proof_cache, dest / ".cache" / "proofs")
    if build_cache is not None and build_cache.is_dir():
        shutil.copytree(build_cache, dest / ".cache" / "build")
    return dest
