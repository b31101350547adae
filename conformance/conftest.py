"""Shared pieces of the conformance suite: posenc on the path, the real tables, the record.

The suite runs the libraries' own code in ``.venv-conformance`` (see README.md). Every
real table is built once per session (:class:`RealTables`, the ``real`` fixture) and
shared by the test files. At the end of the session the suite writes what it measured
to ``conformance/record.json`` (schema 1, described in README.md): one entry per
library, kind and case, sorted, with no timings, dates or paths, so that two runs on
the same machine write the same bytes.
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
import warnings
from dataclasses import dataclass
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

#: The kinds of case in the record.
KINDS = ("sinusoidal", "rotary", "relative", "refusal", "identify", "zoo", "config")

_RECORD: dict[tuple[str, str, str], dict] = {}


def version(distribution: str) -> str:
    """The installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _check_verdict(verdict: str) -> None:
    fixed = ("bit-identical", "within the float32 model", "within the float64 model")
    fixed += ("agrees", "differs")
    prefixes = ("recorded only: ", "not run: ")
    if verdict not in fixed and not verdict.startswith(prefixes):
        raise ValueError(f"not a verdict of the record's schema: {verdict!r}")


def record(
    *,
    library: str,
    version: str,
    kind: str,
    case: str,
    convention: str,
    compared: str,
    dtype: str,
    largest_difference: float | None,
    verdict: str,
    **extra,
) -> None:
    """Add one case to the session's record (a case recorded twice keeps its first entry)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    _check_verdict(verdict)
    entry = {
        "library": library,
        "version": version,
        "kind": kind,
        "case": case,
        "convention": convention,
        "compared": compared,
        "dtype": dtype,
        "largest_difference": None if largest_difference is None else float(largest_difference),
        "verdict": verdict,
        **extra,
    }
    _RECORD.setdefault((kind, library, case), entry)


def not_run(library: str, kind: str, reason: str, *, convention: str = "", version_=None):
    """Record a library that could not run, then skip the test with the reason."""
    record(
        library=library,
        version=version_ or "not installed",
        kind=kind,
        case="all",
        convention=convention,
        compared="nothing",
        dtype="",
        largest_difference=None,
        verdict="not run: " + reason,
    )
    pytest.skip(f"{library}: {reason}")


def _clean(value):
    """Plain JSON values: NumPy scalars to Python, non-finite floats to None."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else None
    return value


_RAN_FILES: set[str] = set()


def pytest_collection_modifyitems(session, config, items) -> None:
    """Note which test files run after selection (-k, -m, file arguments)."""
    _RAN_FILES.update(Path(str(item.path)).name for item in items)
    _RAN_FILES.add("" if config.option.keyword or config.option.markexpr else "unfiltered")


def _whole_suite() -> bool:
    """Whether every test file of the suite ran, unfiltered: only then is the record whole."""
    every = {path.name for path in HERE.glob("test_*.py")}
    return "unfiltered" in _RAN_FILES and "" not in _RAN_FILES and every <= _RAN_FILES


def pytest_sessionfinish(session, exitstatus) -> None:
    """Write the record atomically (a temporary file, then a rename).

    ``record.json`` (committed; Proposition 13 is built from it) is written only by a
    run of the whole suite; a partial run writes ``record-partial.json`` instead.
    """
    if not _RECORD:
        return
    data = {
        "schema": 1,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cases": [_clean(_RECORD[key]) for key in sorted(_RECORD)],
    }
    whole = HERE / ("record.json" if _whole_suite() else "record-partial.json")
    target = Path(os.environ.get("POSENC_CONFORMANCE_RECORD", whole))
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".record-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, allow_nan=False, sort_keys=False)
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
    imports torch alone). Raises ImportError when the sources are missing.
    """
    root = SOURCES / "fairseq-0.12.2" / "fairseq"
    if not (root / relative).is_file():
        raise ImportError(f"fairseq's sources are missing at {root}: run conformance/setup.sh")
    for name, path in (("fairseq", root), ("fairseq.modules", root / "modules")):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(path)]
            sys.modules[name] = package
    dotted = "fairseq." + relative.removesuffix(".py").replace("/", ".")
    return importlib.import_module(dotted)


# --------------------------------------------------------------------------------------
# The libraries and the tables the suite asks them for.


@dataclass(frozen=True)
class Library:
    """One library (or one backend of it) and how the suite calls it."""

    name: str
    convention: str
    family: str  # "fairseq", "whisper", "float64", "tensor2tensor", "keras"
    distribution: str
    backend: str = "-"  # the worker's backend argument for "tensor2tensor" and "keras"

    @property
    def in_worker(self) -> bool:
        return self.family in ("tensor2tensor", "keras")

    @property
    def dtypes(self) -> tuple[str, ...]:
        return ("float32", "float64") if self.family == "keras" else ("float32",)


LIBRARIES = {
    lib.name: lib
    for lib in (
        Library("fairseq", "fairseq", "fairseq", "fairseq"),
        Library("transformers FSMT", "fairseq", "fairseq", "transformers"),
        Library("transformers M2M100", "fairseq", "fairseq", "transformers"),
        Library("transformers Speech2Text", "fairseq", "fairseq", "transformers"),
        Library("openai-whisper", "whisper", "whisper", "openai-whisper"),
        Library("transformers Whisper", "whisper", "whisper", "transformers"),
        Library("transformers XLM", "xlm", "float64", "transformers"),
        Library("transformers DistilBERT", "xlm", "float64", "transformers"),
        Library("transformers Marian", "marian", "float64", "transformers"),
        Library("transformers Pegasus", "marian", "float64", "transformers"),
        Library("tensor2tensor", "tensor2tensor", "tensor2tensor", "tensor2tensor"),
        Library("keras-hub tensorflow", "keras-hub", "keras", "keras-hub", "tensorflow"),
        Library("keras-hub jax", "keras-hub", "keras", "keras-hub", "jax"),
        Library("keras-hub torch", "keras-hub", "keras", "keras-hub", "torch"),
    )
}

#: (length, width) from position 0: tiny, odd, ordinary and wide tables.
SIZES = [(1, 4), (3, 5), (7, 6), (50, 16), (129, 63), (2048, 64), (2048, 512)]
#: Far rows, where one ulp of a speed is worth most: 16 rows from position 100,000.
FAR_START, FAR_ROWS = 100_000, 16
#: A table from a start argument, for identify (tensor2tensor and Keras-Hub only).
OFFSET = (512, 64, 12_345)
#: Widths around the narrow end, at 4 rows from position 0 (test_refusals.py).
NARROW_WIDTHS = (0, 1, 2, 3, 5)


@dataclass(frozen=True)
class Spec:
    """One real table: rows from ``start``, and the dtype asked for."""

    length: int
    width: int
    start: int = 0
    dtype: str = "float32"

    @property
    def key(self) -> str:
        text = f"{self.dtype} {self.length}x{self.width}"
        return text + (f" from {self.start}" if self.start else "")


def sinusoidal_specs(lib: Library) -> list[Spec]:
    """The tables test_sinusoidal.py compares for a library (and identify reads)."""
    if lib.family == "fairseq":  # a 1-row table is an IndexError at padding row 1
        sizes = [s for s in SIZES if s[0] >= 2]
    elif lib.family == "whisper":  # even widths of 4 and more only
        sizes = [s for s in SIZES if s[1] % 2 == 0 and s[1] >= 4]
    else:
        sizes = list(SIZES)
    specs = [Spec(n, d, 0, dtype) for dtype in lib.dtypes for n, d in sizes]
    for dtype in lib.dtypes:
        if lib.in_worker:  # a start argument: only the far rows themselves
            specs.append(Spec(FAR_ROWS, 64, FAR_START, dtype))
            specs.append(Spec(OFFSET[0], OFFSET[1], OFFSET[2], dtype))
        else:  # the whole table up to the far rows; the double loop of XLM is Python
            width = 16 if lib.family == "float64" else 64
            specs.append(Spec(FAR_START + FAR_ROWS, width, 0, dtype))
    return specs


def narrow_specs(lib: Library) -> list[Spec]:
    """The narrow and odd widths test_refusals.py asks each library for."""
    return [Spec(4, d) for d in NARROW_WIDTHS]


class LibraryFailed(Exception):
    """The library (or its worker) could not run at all: the test is skipped."""


class RealTables:
    """Real tables built once per session: ``get(library, spec)``.

    A table the library refuses comes back as a :class:`Refused` holding the
    exception's name and message. In-process libraries are called on demand; the
    TensorFlow and JAX ones (and Keras-Hub on torch) run all their tables in one
    worker process per library, on first use.
    """

    def __init__(self, folder: Path):
        self._folder = folder
        self._cache: dict[tuple[str, Spec], object] = {}
        self._workers: dict[str, dict] = {}
        self._broken: dict[str, str] = {}
        self._versions: dict[str, str] = {}

    def version(self, name: str) -> str:
        lib = LIBRARIES[name]
        if name in self._versions:
            return self._versions[name]
        if lib.name == "fairseq":
            return "0.12.2"
        return version(lib.distribution)

    def get(self, name: str, spec: Spec):
        """The table as a NumPy array, or a :class:`Refused`; raises LibraryFailed."""
        if name in self._broken:
            raise LibraryFailed(self._broken[name])
        key = (name, spec)
        if key not in self._cache:
            lib = LIBRARIES[name]
            try:
                if lib.in_worker:
                    self._cache[key] = self._from_worker(lib, spec)
                else:
                    self._cache[key] = call_library(lib, spec)
            except ImportError as error:
                self._broken[name] = f"import failed: {type(error).__name__}: {error}"
                raise LibraryFailed(self._broken[name]) from None
        return self._cache[key]

    def _from_worker(self, lib: Library, spec: Spec):
        if lib.name not in self._workers:
            specs = sinusoidal_specs(lib) + narrow_specs(lib)
            cases = [[s.key, s.length, s.width, s.start, s.dtype] for s in specs]
            try:
                tables = run_worker(lib.family, lib.backend, cases, self._folder)
            except RuntimeError as error:
                self._broken[lib.name] = str(error)
                raise LibraryFailed(str(error)) from None
            self._workers[lib.name] = tables
            if lib.family == "keras":
                self._versions[lib.name] = (
                    f"{tables['meta:keras_hub']} (keras {tables['meta:keras']}, {lib.backend})"
                )
            else:
                stubbed = str(tables["meta:stubbed"])
                text = f"{version('tensor2tensor')} on TensorFlow {version('tensorflow')}"
                self._versions[lib.name] = text + (f" (stubbed: {stubbed})" if stubbed else "")
        tables = self._workers[lib.name]
        if spec.key in tables:
            return tables[spec.key]
        if "error:" + spec.key in tables:
            name, _, message = str(tables["error:" + spec.key]).partition(": ")
            return Refused(name, message)
        raise KeyError(f"{lib.name}: the worker was not asked for {spec.key}")


@dataclass(frozen=True)
class Refused:
    """A library's failure on one table: its exception's name and message."""

    exception: str
    message: str


def call_library(lib: Library, spec: Spec):
    """Call an in-process (torch-based) library; a refusal comes back as Refused."""
    function = _function(lib.name)
    # A library's own warnings are not failures here (pytest.ini turns warnings into
    # errors): OpenAI's Whisper at width 2 divides by zero in NumPy and returns NaN.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = _build(lib, function, spec)
    except ImportError:
        raise
    except Exception as error:  # a refusal is data here
        return Refused(type(error).__name__, str(error))
    return result.detach().numpy()  # (L, d)


def _build(lib: Library, function, spec: Spec):
    import torch

    if lib.family == "fairseq":
        return function(spec.length, spec.width, 1)  # padding_idx 1: row 1 is zero
    if lib.name in ("transformers XLM", "transformers DistilBERT"):
        result = torch.empty(spec.length, spec.width)  # (L, d), filled in place
        function(spec.length, spec.width, result)
        return result
    if lib.family == "float64":
        return function(spec.length, spec.width).create_weight()
    return function(spec.length, spec.width)


def _function(name: str):
    """The library's own function (or class) that builds the table."""
    if name == "fairseq":
        module = load_fairseq_module("modules/sinusoidal_positional_embedding.py")
        return module.SinusoidalPositionalEmbedding.get_embedding
    if name == "transformers FSMT":
        from transformers.models.fsmt import modeling_fsmt

        return modeling_fsmt.SinusoidalPositionalEmbedding.get_embedding
    if name == "transformers M2M100":
        from transformers.models.m2m_100 import modeling_m2m_100

        return modeling_m2m_100.M2M100SinusoidalPositionalEmbedding.get_embedding
    if name == "transformers Speech2Text":
        from transformers.models.speech_to_text import modeling_speech_to_text as s2t

        return s2t.Speech2TextSinusoidalPositionalEmbedding.get_embedding
    if name == "openai-whisper":
        import whisper.model

        return whisper.model.sinusoids
    if name == "transformers Whisper":
        from transformers.models.whisper import modeling_whisper

        return modeling_whisper.sinusoids
    if name == "transformers XLM":
        from transformers.models.xlm.modeling_xlm import create_sinusoidal_embeddings

        return create_sinusoidal_embeddings
    if name == "transformers DistilBERT":
        from transformers.models.distilbert import modeling_distilbert

        return modeling_distilbert.create_sinusoidal_embeddings
    if name == "transformers Marian":
        from transformers.models.marian.modeling_marian import (
            MarianSinusoidalPositionalEmbedding,
        )

        return MarianSinusoidalPositionalEmbedding
    if name == "transformers Pegasus":
        from transformers.models.pegasus.modeling_pegasus import (
            PegasusSinusoidalPositionalEmbedding,
        )

        return PegasusSinusoidalPositionalEmbedding
    raise KeyError(name)


@pytest.fixture(scope="session")
def real(tmp_path_factory) -> RealTables:
    """The session's real tables, shared by every test file."""
    return RealTables(tmp_path_factory.mktemp("real-tables"))


def real_table(real: RealTables, name: str, spec: Spec, kind: str):
    """A real table from the session's cache, or a skip (recorded) if the library is broken."""
    try:
        return real.get(name, spec)
    except LibraryFailed as error:
        not_run(name, kind, str(error), convention=LIBRARIES[name].convention)


def run_worker(library: str, backend: str, cases: list, folder: Path) -> dict:
    """Build tables in ``_worker.py`` in a fresh interpreter; RuntimeError if it fails."""
    cases_path = folder / f"{library}-{backend}.json"
    out_path = folder / f"{library}-{backend}.npz"
    cases_path.write_text(json.dumps(cases), encoding="utf-8")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONWARNINGS": "ignore"}
    paths = [str(cases_path), str(out_path)]
    if backend == "jax":
        env["JAX_ENABLE_X64"] = "1"  # else JAX quietly computes float64 as float32
    done = subprocess.run(
        [sys.executable, str(HERE / "_worker.py"), library, backend, *paths],
        capture_output=True,
        text=True,
        timeout=WORKER_TIMEOUT,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{library} ({backend}) did not run: {last}")
    with np.load(out_path) as saved:
        return {key: saved[key] for key in saved.files}
