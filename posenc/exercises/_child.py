"""The worker of the checker: load the solution, call ``solve`` on each case, send the answers.

It runs as ``python -c`` (see ``_run.CHILD``), below the supervisor, with four arguments:
the exercise key, the seed, the solution file and the number of the file descriptor it
writes to, the channel. It computes the cases before it loads the solution, so nothing
the solution does at import can change them, and it judges nothing. The channel carries
one JSON line per message, in this order:

- ``{"kind": "ready"}``: the cases are known; the solution is loaded next;
- ``{"kind": "loaded", "signature": [...]}`` once the file is imported and defines a
  callable ``solve``, with its parameters as ``_calls.read`` gives them (before any
  case), or ``{"kind": "error", "error": {...}}`` if it cannot be loaded;
- for case 1, 2, ... of the plan that ``_calls.plan`` makes from that signature (every
  case, or those the shorter call is judged on, or none), in turn,
  ``{"kind": "answer", "case": N, "answer": {...}}``, then the numbers as an ``.npy``
  stream (format 1.0, never pickled) when the answer's ``"array"`` is true; or
  ``{"kind": "error", "case": N, "error": {...}}`` when ``solve`` raised, after which
  no case follows;
- ``{"kind": "end", "printed": {"chars": ..., "head": ...}}``: what the solution printed.

The parent (``_run``) makes the plan itself from the signature received, checks the order
and the size of every message and compares every answer itself: a message here can make
a solution fail, never pass.
"""

from __future__ import annotations

import contextlib
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

from posenc.exercises import _calls

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = 6

_MESSAGE = 2000  # characters kept of an error message, so that every line stays small
_CHUNK = 1 << 20  # bytes per write of an answer's numbers


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


def _line_in(error: BaseException, solution: Path) -> dict:
    """The last line of the solution that the traceback passes through, if any."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve() == solution
    ]
    if not frames:
        return {}
    return {"line": frames[-1].lineno, "code": (frames[-1].line or "").strip()[:_MESSAGE]}


def failure(error: BaseException, solution: Path, stage: str, case: int | None) -> dict:
    """What went wrong, as plain data: stage, kind, type, message, line and code."""
    info = {"stage": stage, "case": case, "type": type(error).__name__}
    if isinstance(error, SyntaxError) and stage == "load":
        info.update(
            kind="syntax",
            message=str(error.msg)[:_MESSAGE],
            file=Path(error.filename or "").name,
            line=error.lineno,
            column=error.offset,
            code=(error.text or "").strip()[:_MESSAGE],
        )
        return info
    if isinstance(error, SystemExit):
        info.update(kind="exit", message=_SHORT.repr(error.code))
    elif isinstance(error, MemoryError):
        info.update(kind="memory", message="")
    else:
        try:
            message = str(error)[:_MESSAGE]
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
    """What solve returned: its type and a short repr, and its numbers as an array.

    A ``MemoryError`` while NumPy makes the array is raised, as if solve had raised it.
    """
    meta = {"type": type(value).__name__}
    try:
        meta["repr"] = _SHORT.repr(value)
    except Exception:  # a broken __repr__ is no reason to stop
        meta["repr"] = f"<{meta['type']}>"
    try:
        array = np.asarray(value)
    except MemoryError:
        raise
    except Exception as error:  # ragged lists and other things NumPy cannot hold
        meta["problem"] = f"{type(error).__name__}: {error}"[:_MESSAGE]
        return meta, None
    meta["kind"] = array.dtype.kind
    if array.dtype.kind not in "biufc":
        return meta, None
    meta["array"] = True
    return meta, np.ascontiguousarray(array.real)


class Channel:
    """The writing end of the pipe to the parent: JSON lines, and answers as ``.npy``."""

    def __init__(self, fd: int):
        self.fd = fd
        os.set_inheritable(fd, False)  # a program the solution runs does not get it

    def _write(self, data) -> None:
        view = memoryview(data).cast("B")
        while view:
            view = view[os.write(self.fd, view[:_CHUNK]) :]

    def send(self, message: dict) -> None:
        self._write((json.dumps(message) + "\n").encode())

    def answer(self, number: int, meta: dict, array: np.ndarray | None) -> None:
        """The answer to case ``number``: its meta line, then its numbers if it has them."""
        self.send({"kind": "answer", "case": number, "answer": meta})
        if array is None:
            return
        header = io.BytesIO()
        fields = np.lib.format.header_data_from_array_1_0(array)  # shape, dtype, order
        np.lib.format.write_array_header_1_0(header, fields)
        self._write(header.getvalue())
        self._write(array.reshape(-1).view(np.uint8))  # C order, no copy


def _load(solution: Path, channel: Channel):
    """Import the solution and return its ``solve``, or say why not and return None.

    The message that it loaded is left to the caller, which sends the signature with it.
    """
    sys.path.insert(0, str(solution.parent))  # as when the reader runs the file
    loader = importlib.machinery.SourceFileLoader("solution", str(solution))
    spec = importlib.util.spec_from_file_location("solution", solution, loader=loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    try:
        loader.exec_module(module)
        solve = getattr(module, "solve", None)
    except BaseException as error:
        channel.send({"kind": "error", "error": failure(error, solution, "load", None)})
        return None
    if not callable(solve):
        kind = "no solve" if solve is None else "not callable"
        error = {"stage": "load", "kind": kind, "type": type(solve).__name__}
        channel.send({"kind": "error", "error": error})
        return None
    return solve


def _work(argv: Sequence[str]) -> None:
    from posenc.exercises import exercise  # here: the parent imports this module first

    key, seed, solution, fd = argv
    channel = Channel(int(fd))
    e = exercise(key)
    cases, make_plan = e.cases(int(seed)), _calls.plan  # before the solution can change them
    solution = Path(solution).resolve()
    sys.dont_write_bytecode = True  # leave no __pycache__ beside the reader's file
    channel.send({"kind": "ready"})
    sink = Sink()
    sys.stdout = sys.stderr = sink
    solve = _load(solution, channel)
    if solve is not None:
        params = _calls.read(solve)
        plan = make_plan(e, cases, params)
        channel.send({"kind": "loaded", "signature": params})
        for case in plan.cases:
            try:
                args, keywords = plan.call.split(fresh(case.args))
                meta, array = record(solve(*args, **keywords))
            except BaseException as error:
                error = failure(error, solution, "solve", case.number)
                channel.send({"kind": "error", "case": case.number, "error": error})
                break
            channel.answer(case.number, meta, array)
    channel.send({"kind": "end", "printed": {"chars": sink.chars, "head": sink.head}})


def work(argv: Sequence[str]) -> None:
    """Run the solution on every case of the exercise; never returns.

    A failure of the worker itself (the parent stopped reading, say) goes to the real
    standard error, which the parent keeps the end of, and gives exit status 1.
    """
    status = 0
    try:
        _work(argv)
    except BaseException:
        status = 1
        with contextlib.suppress(BaseException):
            traceback.print_exc(file=sys.__stderr__)
    finally:
        os._exit(status)  # no waiting for the solution's threads or exit handlers
