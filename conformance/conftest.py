"""Shared pieces of the conformance suite: posenc on the path, the record, the loaders.

The suite runs the libraries' own code in ``.venv-conformance`` (see README.md) and
writes what it measured to ``conformance/record.json`` at the end of the session:
one entry per library and case, with the library's version, the largest difference
from posenc, and a verdict.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # posenc from this checkout, not an installed copy

#: Where the set-up step leaves the sources that are loaded by file (fairseq's sdist).
SOURCES = Path(os.environ.get("POSENC_CONFORMANCE_SOURCES", ROOT / ".venv-conformance" / "src"))

#: Every subprocess of the suite must finish within this many seconds (a guard, not a test).
WORKER_TIMEOUT = 900

_RECORD: list[dict] = []


def version(distribution: str) -> str:
    """The installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def record(**entry) -> None:
    """Add one measured case to the session's record."""
    _RECORD.append(entry)


def pytest_sessionfinish(session, exitstatus) -> None:
    """Write the record atomically (a temporary file, then a rename)."""
    if not _RECORD:
        return
    data = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cases": sorted(_RECORD, key=lambda e: (e["library"], e["case"])),
    }
    target = Path(os.environ.get("POSENC_CONFORMANCE_RECORD", HERE / "record.json"))
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".record-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, allow_nan=False)
        handle.write("\n")
    os.chmod(temporary, 0o644)  # mkstemp makes it private; the record is for readers
    os.replace(temporary, target)


def load_fairseq_module(relative: str) -> types.ModuleType:
    """Import one module file of fairseq 0.12.2 without running fairseq's ``__init__``.

    fairseq 0.12.2 does not import on Python 3.11 (its dataclass configs have mutable
    defaults, and it needs hydra-core 1.0 and omegaconf 2.0). Its module files are
    plain Python on torch, so they are loaded from the sdist: the packages ``fairseq``
    and ``fairseq.modules`` are registered as empty packages over the sdist's folders,
    and Python then imports only the files asked for (and ``fairseq.utils``, which
    imports torch alone).
    """
    root = SOURCES / "fairseq-0.12.2" / "fairseq"
    if not (root / relative).is_file():
        pytest.skip(f"fairseq's sources are missing at {root}: run conformance/setup.sh")
    for name, path in (("fairseq", root), ("fairseq.modules", root / "modules")):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package
    dotted = "fairseq." + relative.removesuffix(".py").replace("/", ".")
    return importlib.import_module(dotted)


def run_worker(library: str, backend: str, cases: list, tmp_path: Path) -> dict:
    """Build tables in ``_worker.py`` in a fresh interpreter; skip with the reason if it fails."""
    cases_path = tmp_path / f"{library}-{backend}.json"
    out_path = tmp_path / f"{library}-{backend}.npz"
    cases_path.write_text(json.dumps(cases), encoding="utf-8")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [
            sys.executable,
            str(HERE / "_worker.py"),
            library,
            backend,
            str(cases_path),
            str(out_path),
        ],
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"{library} ({backend}) did not run: {last}")
    with np.load(out_path) as saved:
        return {key: saved[key] for key in saved.files}
