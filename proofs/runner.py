"""Find, run and cache the proof scripts; summarise what they established.

A result is cached under a key made of the proof file, the checking kit, the
``posenc`` sources (when the proof imports ``posenc``) and the versions of
Python, SymPy, NumPy and mpmath, so a rebuild re-runs exactly the proofs whose
inputs changed. The cache lives in ``.cache/proofs`` of the checkout, or in
the directory named by ``POSENC_PROOF_CACHE``.

A result records when it ran and how long it took (``date``, ``seconds``).
Those two belong to the JSON report (``build/proofs-report.json``) and to the
terminal, never to the site: a fresh result and a cached one, or two fresh
ones, differ only there. Everything else a result holds is put in one order
(mappings by key), so that fresh and cached results serialise alike.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import os
import platform
import re
import secrets
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from proofs.kit import KINDS, NAME_RE, Check, Recorder, Refutation, StopAtFailure, refute

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROOF_GLOB = "p[0-9][0-9]_*.py"
DEFAULT_CACHE = ROOT / ".cache" / "proofs"
#: Names another cache directory (for a build that must not see earlier results).
CACHE_ENV = "POSENC_PROOF_CACHE"
DEFAULT_REPORT = ROOT / "build" / "proofs-report.json"
#: Seconds one proof may take before it is stopped (``POSENC_PROOF_TIMEOUT`` overrides).
DEFAULT_TIMEOUT = 600.0
#: Bump when the shape of a cached result changes.
CACHE_FORMAT = 2


@dataclass
class Result:
    """Everything one run of one proof established, as recorded in the report.

    ``date`` and ``seconds`` say when the proof ran and for how long: they go
    into the JSON report, not into the site. Every mapping is kept in key order.
    """

    number: int
    title: str
    slug: str
    file: str
    sha256: str
    uses: list[int]
    statement: str
    checks: list[dict[str, Any]]
    misreadings: list[dict[str, Any]]
    seconds: float
    date: str
    versions: dict[str, str]
    error: str = ""
    quantities: list[dict[str, Any]] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)
    cached: bool = field(default=False, compare=False)

    def __post_init__(self) -> None:
        # A fresh result keeps the order in which things were recorded, a cached
        # one the order of its JSON file: one canonical order makes them alike.
        self.checks = _canonical(self.checks)
        self.misreadings = _canonical(self.misreadings)
        self.quantities = _canonical(self.quantities)
        self.inputs = _canonical(self.inputs)
        self.versions = _canonical(self.versions)

    @property
    def evidence(self) -> list[dict[str, Any]]:
        """The checks that are evidence: not definitions, not crashes."""
        return [c for c in self.checks if c["kind"] in KINDS]

    @property
    def definitions(self) -> list[dict[str, Any]]:
        return [c for c in self.checks if c["kind"] == "definition"]

    @property
    def passed(self) -> bool:
        return (
            not self.error
            and bool(self.evidence)
            and all(c["passed"] for c in self.checks)
            and all(m["refuted"] for m in self.misreadings)
        )

    @property
    def status(self) -> str:
        return "verified" if self.passed else "failed"

    @property
    def kinds(self) -> list[str]:
        """The evidence kinds this proof rests on (definitions and crashes are not evidence)."""
        return sorted({c["kind"] for c in self.evidence})

    def failures(self) -> list[str]:
        """One line per failed check or unrefuted misreading."""
        lines = [f"error: {self.error}"] if self.error else []
        lines += [
            f"check crashed: {c['claim']} ({c['detail']})"
            if c["kind"] == "crash"
            else f"check failed: {c['claim']} ({c['detail']})"
            for c in self.checks
            if not c["passed"]
        ]
        lines += [
            f"misreading not refuted: {m['claim']} ({m['counterexample']})"
            for m in self.misreadings
            if not m["refuted"]
        ]
        if not self.evidence and not self.error:
            lines.append("the proof recorded no checks that are evidence (only definitions?)")
        return lines

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status
        return data


def _canonical(value: Any) -> Any:
    """``value`` with every mapping in it sorted by key (lists keep their order)."""
    if isinstance(value, dict):
        return {key: _canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def discover(directory: Path = HERE) -> list[Path]:
    """Proof files in ``directory``, in order of their number."""
    return sorted(Path(directory).glob(PROOF_GLOB))


def number_of(path: Path) -> int:
    return int(path.name[1:3])


def slug_of(path: Path) -> str:
    return path.stem.split("_", 1)[1].replace("_", "-")


def versions() -> dict[str, str]:
    """The versions a result depends on, in key order (the cache stores them so)."""
    import mpmath
    import numpy
    import sympy

    return {
        "mpmath": mpmath.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "sympy": sympy.__version__,
    }


def cache_directory() -> Path:
    """Where results are cached: ``$POSENC_PROOF_CACHE`` if set, else ``.cache/proofs``."""
    named = os.environ.get(CACHE_ENV, "")
    return Path(named).resolve() if named else DEFAULT_CACHE


def _imports_posenc(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "posenc" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "posenc":
            return True
    return False


def cache_key(path: Path) -> str:
    """Hash of everything a proof's outcome can depend on."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT}\n".encode())
    source = path.read_bytes()
    inputs = [path.name.encode(), source]
    # Every shared module a proof can import (kit, numbers, exact, ...), not the
    # other proofs, the runner or its command line.
    shared = sorted(
        q
        for q in HERE.glob("*.py")
        if not q.match(PROOF_GLOB) and q.name not in ("runner.py", "__main__.py")
    )
    inputs += [q.read_bytes() for q in shared]
    if _imports_posenc(source.decode()):
        inputs += [p.read_bytes() for p in sorted((ROOT / "posenc").rglob("*.py"))]
    if b"data/configs/" in source:  # the model configs Propositions 28 and 29 read
        data = ROOT / "data" / "configs"
        inputs += [
            p.relative_to(data).as_posix().encode() + b"\0" + p.read_bytes()
            for p in sorted(data.rglob("*"))
            if p.is_file()
        ]
    # A data file the proof names (Proposition 38's certificate, data/base-bound.json).
    for name in sorted(set(re.findall(rb"data/[\w.-]+\.json", source))):
        file = ROOT / name.decode()
        inputs.append(name + b"\0" + (file.read_bytes() if file.is_file() else b""))
    for blob in inputs:
        digest.update(hashlib.sha256(blob).digest())
    digest.update(json.dumps(versions(), sort_keys=True).encode())
    return digest.hexdigest()


def load(path: Path):
    """Import a proof file as a fresh module (also for copies outside proofs/)."""
    name = f"_posenc_proof_{path.stem}_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


#: The error of a proof stopped at its first failed check (``first_failure=True``).
STOPPED = (
    "stopped at its first failed check (--first-failure): "
    "the checks after it and the misreadings did not run"
)
#: Tells the child process to stop at the first failed check.
FIRST_FAILURE_ENV = "POSENC_PROOF_FIRST_FAILURE"


def run_one(path: Path, *, first_failure: bool = False) -> Result:
    """Run one proof file now, with no cache.

    ``first_failure=True`` stops the proof at its first failed check: the
    result holds the checks up to it, no misreadings, and the error
    :data:`STOPPED` (a failed result, never cached).
    """
    path = Path(path)
    started = time.perf_counter()
    date = datetime.now(UTC).replace(microsecond=0).isoformat()
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    number, title, uses, statement = number_of(path), slug_of(path), [], ""
    checks: list[Check] = []
    refutations: list[Refutation] = []
    quantities: list[dict[str, Any]] = []
    inputs: dict[str, Any] = {}
    error = ""
    try:
        module = load(path)
        if getattr(module, "NUMBER", None) != number:
            raise ValueError(
                f"NUMBER = {getattr(module, 'NUMBER', None)!r} but the file says {number}"
            )
        title, uses = module.TITLE, [int(u) for u in module.USES]
        statement = (module.__doc__ or "").strip()
        inputs = _inputs(module)
        _inputs_are_read(path.read_text(encoding="utf-8"), inputs, number)
        recorder = Recorder(stop_at_failure=first_failure, proof=f"Proposition {number}")
        stopped = False
        try:
            module.checks(recorder)
        except StopAtFailure:
            stopped = True
        except Exception as exc:  # a crash is a row of its own, not a failed claim
            recorder.crash(exc)
        checks = recorder.checks
        quantities = [q.as_dict() for q in recorder.quantities.values()]
        if stopped:
            error = STOPPED
        else:
            _name_inputs_apart(inputs, recorder.quantities)
            refutations = [refute(m) for m in module.MISREADINGS]
            if not module.MISREADINGS:
                raise ValueError("a proof must name at least one misreading it refutes")
    except Exception as exc:
        error = "".join(traceback.format_exception_only(exc)).strip()
        if not isinstance(exc, ValueError | ImportError | AttributeError):
            error += "\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
    return Result(
        number=number,
        title=title,
        slug=slug_of(path),
        file=path.name,
        sha256=sha,
        uses=uses,
        statement=statement,
        checks=[c.as_dict() for c in checks],
        misreadings=[r.as_dict() for r in refutations],
        seconds=round(time.perf_counter() - started, 3),
        date=date,
        versions=versions(),
        error=error,
        quantities=quantities,
        inputs=inputs,
    )


def _inputs(module) -> dict[str, Any]:
    """The proof's declared inputs: ``INPUTS = {"d": 512, "base": 10000}`` (optional).

    These are the numbers a page may type: they are chosen, not computed.
    Values are integers or fractions, stored as strings ('512', '1/2').
    """
    declared = getattr(module, "INPUTS", {})
    if not isinstance(declared, dict):
        raise ValueError(f"INPUTS must be a dict of name -> number, got {type(declared).__name__}")
    out = {}
    for name, value in declared.items():
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ValueError(f"INPUTS: a name is lower_case_with_digits, got {name!r}")
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise ValueError(f"INPUTS[{name!r}] must be an integer or a Fraction, got {value!r}")
        out[name] = str(value)
    return out


def _inputs_are_read(source: str, inputs: dict[str, Any], number: int) -> None:
    """Refuse a declared input that no code of the proof reads as ``INPUTS["name"]``.

    A page may type an input, so an input must be what the checks use: a value
    declared beside a constant that the checks read instead (``K = 2`` next to
    ``INPUTS = {"k": 2}``) lets the two drift apart with the page still bound.
    """
    read = {
        node.slice.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name)
        and node.value.id == "INPUTS"
        and isinstance(node.slice, ast.Constant)
    }
    unread = sorted(set(inputs) - read)
    if unread:
        raise ValueError(
            f"Proposition {number}: input(s) {', '.join(unread)} declared in INPUTS but never"
            ' read as INPUTS["name"]: the checks must use the value the page may type'
        )


def _name_inputs_apart(inputs: dict[str, Any], quantities: dict[str, Any]) -> None:
    clash = sorted(set(inputs) & set(quantities))
    if clash:
        raise ValueError(f"names used both as an input and as a quantity: {', '.join(clash)}")


def _timeout() -> float:
    raw = os.environ.get("POSENC_PROOF_TIMEOUT", "")
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        raise ValueError(
            f"POSENC_PROOF_TIMEOUT must be a number of seconds, got {raw!r}"
        ) from None
    if not value > 0:
        raise ValueError(f"POSENC_PROOF_TIMEOUT must be positive, got {raw!r}")
    return value


def _failed(path: Path, error: str, seconds: float) -> Result:
    """The result of a proof that gave none: it exited, hung or died."""
    return Result(
        number=number_of(path),
        title=slug_of(path),
        slug=slug_of(path),
        file=path.name,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        uses=[],
        statement="",
        checks=[],
        misreadings=[],
        seconds=round(seconds, 3),
        date=datetime.now(UTC).replace(microsecond=0).isoformat(),
        versions=versions(),
        error=error,
    )


def run_isolated(
    path: Path, timeout: float | None = None, *, first_failure: bool = False
) -> Result:
    """Run one proof in a process of its own, stopped after ``timeout`` seconds.

    The child prints its result after a marker that only the parent knows; a
    proof that exits, hangs, is killed or prints no result fails, and the
    error says which. The child gets its own session, so that whatever it
    started is killed with it.
    """
    path = Path(path).resolve()
    limit = _timeout() if timeout is None else timeout
    marker = secrets.token_hex(16)
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "proofs.runner", "--child", str(path)],
        cwd=ROOT,
        env={
            **os.environ,
            "POSENC_RESULT_MARKER": marker,
            "PYTHONPATH": str(ROOT),
            FIRST_FAILURE_ENV: "1" if first_failure else "",
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill(child)
        child.communicate()
        return _failed(
            path,
            f"the proof did not finish within {limit:g} s and was stopped "
            "(set POSENC_PROOF_TIMEOUT to allow longer)",
            time.perf_counter() - started,
        )
    finally:
        _kill(child)  # anything the proof left running in its session
    seconds = time.perf_counter() - started
    text = out.decode("utf-8", "replace")
    _, found, payload = text.rpartition(f"\n{marker}\n")
    if not found:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
        how = (
            f"exited with status {child.returncode}"
            if child.returncode >= 0
            else f"was killed by signal {-child.returncode}"
        )
        detail = f": {' / '.join(tail)}" if tail else ""
        return _failed(path, f"the proof {how} before reporting a result{detail}", seconds)
    try:
        data = json.loads(payload)
        fields = {k: v for k, v in data.items() if k not in ("status", "cached")}
        return Result(**fields)
    except (json.JSONDecodeError, TypeError) as exc:
        return _failed(path, f"the proof's result could not be read: {exc}", seconds)


def _kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child(path: Path) -> int:
    """In the child: run the proof and print its result after the marker."""
    marker = os.environ["POSENC_RESULT_MARKER"]
    result = run_one(path, first_failure=os.environ.get(FIRST_FAILURE_ENV) == "1")
    sys.stdout.flush()
    sys.stdout.write(f"\n{marker}\n{json.dumps(result.as_dict())}")
    sys.stdout.flush()
    return 0


def _cached(path: Path, cache_dir: Path) -> Result | None:
    entry = cache_dir / f"{path.stem}.json"
    if not entry.is_file():
        return None
    try:
        data = json.loads(entry.read_text())
        if data.get("key") != cache_key(path):
            return None
        fields = {k: v for k, v in data["result"].items() if k not in ("status", "cached")}
        return Result(**fields, cached=True)
    except (OSError, json.JSONDecodeError, AttributeError, KeyError, TypeError):
        return None  # a damaged entry is a miss


def _store(path: Path, result: Result, cache_dir: Path) -> None:
    payload = {"key": cache_key(path), "result": {**result.as_dict(), "cached": False}}
    _write_atomically(
        cache_dir / f"{path.stem}.json", json.dumps(payload, indent=1, sort_keys=True)
    )


def _write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``.

    A reader (another build, a crash halfway) sees the old file or the new one,
    never half of one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    # Not tempfile.mkstemp: its files are private (0600); this one takes the umask.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


Progress = Callable[[int, int, Path, Result | None], None]


def run(
    numbers: Iterable[int] | None = None,
    *,
    directory: Path = HERE,
    cache_dir: Path | Literal["default"] | None = "default",
    refresh: bool = False,
    progress: Progress | None = None,
    isolate: bool = True,
    timeout: float | None = None,
    first_failure: bool = False,
) -> list[Result]:
    """Run the selected proofs (all by default), reusing cached results.

    ``progress(index, total, path, result)`` is called before each proof with
    ``result=None`` and after it with the result. ``refresh=True`` re-runs
    every proof and stores the fresh results; ``cache_dir=None`` neither reads
    nor writes a cache; by default the cache is :func:`cache_directory`. Each
    proof runs in a process of its own with a time limit (``timeout``
    seconds, default ``POSENC_PROOF_TIMEOUT`` or ``DEFAULT_TIMEOUT``);
    ``isolate=False`` runs them in this process. ``first_failure=True`` stops
    each proof at its first failed check (see :func:`run_one`). Unknown
    numbers raise ``ValueError``.
    """
    if cache_dir == "default":
        cache_dir = cache_directory()
    paths = discover(directory)
    if numbers is not None:
        wanted = sorted(set(numbers))
        known = {number_of(p): p for p in paths}
        missing = [n for n in wanted if n not in known]
        if missing:
            raise ValueError(
                f"no proof for proposition {', '.join(map(str, missing))}; "
                f"known: {', '.join(map(str, sorted(known)))}"
            )
        paths = [known[n] for n in wanted]
    results = []
    for index, path in enumerate(paths, 1):
        if progress:
            progress(index, len(paths), path, None)
        result = _cached(path, cache_dir) if cache_dir and not refresh else None
        if result is None:
            result = (
                run_isolated(path, timeout, first_failure=first_failure)
                if isolate
                else run_one(path, first_failure=first_failure)
            )
            if cache_dir and result.passed:
                _store(path, result, cache_dir)
        if progress:
            progress(index, len(paths), path, result)
        results.append(result)
    return results


def report(results: list[Result]) -> dict[str, Any]:
    """The JSON report: one entry per proposition, plus a summary.

    It is the one place that keeps each run's date and duration.
    """
    return {
        "verified": all(r.passed for r in results),
        "propositions": [r.as_dict() for r in results],
    }


def write_report(results: list[Result], path: Path = DEFAULT_REPORT) -> Path:
    path = Path(path)
    _write_atomically(path, json.dumps(report(results), indent=1, sort_keys=True) + "\n")
    return path


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        sys.exit(_child(Path(sys.argv[2])))
    sys.exit("usage: python -m proofs.runner --child PROOF (run by the runner itself)")
