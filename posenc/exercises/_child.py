"""The child process of the checker: load the solution, call ``solve``, save the answers.

It runs as ``python -c`` (see ``checker.CHILD``) with four arguments: the exercise key,
the seed, the solution file and an output directory. It judges nothing: the parent
reads what it leaves behind.

- ``loaded``: the file was imported and defines a callable ``solve``;
- ``N.json`` for case N, with ``N.npy`` when the answer is an array of numbers;
- ``status.json``: ``{"ok": true}`` or ``{"error": {...}}``, and what was printed.

A case with no ``N.json`` was still running when the process ended or was stopped.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import json
import os
import reprlib
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = 6


class Sink(io.TextIOBase):
    """Stands in for stdout and stderr: keeps the first characters, counts them all."""

    def __init__(self, keep: int = 2000):
        self.head, self.chars, self.keep = "", 0, keep

    def writable(self) -> bool:
        return True

    def write(self, text) -> int:
        text = str(text)
        if len(self.head) < self.keep:
            self.head += text[: self.keep - len(self.head)]
        self.chars += len(text)
        return len(text)


def dump(path: Path, data: dict) -> None:
    """Write JSON so that a reader of ``path`` never sees half a file."""
    part = path.with_suffix(".part")
    part.write_text(json.dumps(data), encoding="utf-8")
    part.replace(path)


def _line_in(error: BaseException, solution: Path) -> dict:
    """The last line of the solution that the traceback passes through, if any."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve() == solution
    ]
    if not frames:
        return {}
    return {"line": frames[-1].lineno, "code": (frames[-1].line or "").strip()}


def failure(error: BaseException, solution: Path, stage: str, case: int | None) -> dict:
    """What went wrong, as plain data: stage, kind, type, message, line and code."""
    info = {"stage": stage, "case": case, "type": type(error).__name__}
    if isinstance(error, SyntaxError) and stage == "load":
        info.update(
            kind="syntax",
            message=error.msg,
            file=Path(error.filename or "").name,
            line=error.lineno,
            column=error.offset,
            code=(error.text or "").strip(),
        )
        return info
    if isinstance(error, SystemExit):
        info.update(kind="exit", message=repr(error.code))
    else:
        try:
            message = str(error)
        except Exception:  # an exception whose __str__ fails is still an exception
            message = ""
        info.update(kind="raised", message=message)
    info.update(_line_in(error, solution))
    return info


def fresh(args: tuple) -> tuple:
    """Copies of the arguments, so a solve that changes them changes nothing else."""
    return tuple(
        a.copy() if isinstance(a, np.ndarray) else list(a) if isinstance(a, list) else a
        for a in args
    )


def record(value: object) -> tuple[dict, np.ndarray | None]:
    """What solve returned: its type and a short repr, and its numbers as an array."""
    meta = {"type": type(value).__name__}
    try:
        meta["repr"] = _SHORT.repr(value)
    except Exception:  # a broken __repr__ is no reason to stop
        meta["repr"] = f"<{meta['type']}>"
    try:
        array = np.asarray(value)
    except Exception as error:  # ragged lists and other things NumPy cannot hold
        meta["problem"] = f"{type(error).__name__}: {error}"
        return meta, None
    meta["kind"] = array.dtype.kind
    if array.dtype.kind not in "biufc":
        return meta, None
    meta["array"] = True
    return meta, np.asarray(array.real)


def save(out: Path, number: int, value: object) -> None:
    """Save :func:`record` of an answer: ``N.npy`` for the numbers, then ``N.json``."""
    meta, array = record(value)
    if array is not None:
        np.save(out / f"{number}.npy", array, allow_pickle=False)
    dump(out / f"{number}.json", meta)


def work(argv: Sequence[str]) -> None:
    """Run the solution on every case of the exercise; never returns."""
    from posenc.exercises import exercise  # here: the parent imports this module first

    key, seed, solution, out = argv
    solution, out = Path(solution).resolve(), Path(out).resolve()
    sys.dont_write_bytecode = True  # leave no __pycache__ beside the reader's file
    sink = Sink()
    sys.stdout = sys.stderr = sink
    status: dict = {}
    try:
        sys.path.insert(0, str(solution.parent))  # as when the reader runs the file
        loader = importlib.machinery.SourceFileLoader("solution", str(solution))
        spec = importlib.util.spec_from_file_location("solution", solution, loader=loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules["solution"] = module
        try:
            loader.exec_module(module)
        except BaseException as error:
            status["error"] = failure(error, solution, "load", None)
            return
        solve = getattr(module, "solve", None)
        if not callable(solve):
            kind = "no solve" if solve is None else "not callable"
            status["error"] = {"stage": "load", "kind": kind, "type": type(solve).__name__}
            return
        (out / "loaded").touch()
        for case in exercise(key).cases(int(seed)):
            try:
                value = solve(*fresh(case.args))
            except BaseException as error:
                status["error"] = failure(error, solution, "solve", case.number)
                return
            save(out, case.number, value)
        status["ok"] = True
    finally:
        status["printed"] = {"chars": sink.chars, "head": sink.head}
        dump(out / "status.json", status)
        os._exit(0)  # no waiting for the solution's threads or exit handlers
