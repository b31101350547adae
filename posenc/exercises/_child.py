"""The worker of the checker: load the solution, call ``solve`` on the inputs it is sent.

It runs as a script, ``python -I -S -B _child.py NUMPY SOLUTION IN OUT`` (see ``_run``),
below the supervisor, and it holds no answer: it imports the standard library and
NumPy only. Its ``sys.path`` is Python's own library, NUMPY (the folder that holds the
parent's NumPy) and, once the solution loads, the solution's folder; a finder put first
in ``sys.meta_path`` refuses ``posenc`` and every ``posenc.*`` module (:class:`Refuse`),
wherever a copy of it sits. No expected value, no code that computes one, not even the
list of cases is here: the parent sends the inputs of one case at a time, after the
answer to the one before, and compares the answers itself.

File descriptor IN carries JSON lines from the parent:

- ``{"kind": "call", "names": [...], "positional": P}``: how ``solve`` is called, the
  first P arguments by position and the rest by name (the parent makes the plan from
  the signature this process sent); or ``{"kind": "done"}`` when no case is run;
- ``{"kind": "case", "case": N, "args": [...]}``: the inputs of case N, where each
  ``{"npy": true}`` stands for a NumPy array, sent after the line as an ``.npy`` stream
  (format 1.0, never pickled), in order, and each ``{"json": value}`` for a dict
  (E9's config); ints, floats, bools and lists are JSON;
- ``{"kind": "done"}``: no case follows.

File descriptor OUT carries JSON lines to the parent, in this order:

- ``{"kind": "ready"}``: Python and NumPy are up; the solution is loaded next;
- ``{"kind": "loaded", "signature": [...]}`` once the file is imported and defines a
  callable ``solve``, with its parameters as :func:`read` gives them, or ``{"kind":
  "error", "error": {...}}`` if it cannot be loaded;
- for each case received, ``{"kind": "answer", "case": N, "answer": {...}}``, then the
  numbers as an ``.npy`` stream when the answer's ``"array"`` is true; or ``{"kind":
  "error", "case": N, "error": {...}}`` when ``solve`` raised, after which no case
  follows;
- ``{"kind": "end", "printed": {"chars": ..., "head": ...}}``: what the solution printed.

The parent checks the order and the size of every message: a message here can make a
solution fail, never pass. The checker also imports this file as a module, for
:func:`read`, :func:`failure` and :func:`record`, which it uses on a ``solve`` run in
its own process.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":  # the worker: NumPy from the parent's folder, before any import
    sys.path.append(sys.argv[1])

import contextlib
import importlib.machinery
import importlib.util
import inspect
import io
import json
import os
import reprlib
import traceback
from pathlib import Path

import numpy as np

#: Why a solution under check cannot import posenc; the reader sees these words.
REFUSED = "posenc cannot be imported by a solution under check: the checker's answers come from it"

MOST_PARAMETERS = 64  # parameters sent; a signature with more is sent cut short
LONGEST_NAME = 100  # characters kept of a parameter's name

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlist = _SHORT.maxtuple = 6

_MESSAGE = 2000  # characters kept of an error message, so that every line stays small
_CHUNK = 1 << 20  # bytes per write of an answer's numbers


class Refused(ImportError):
    """An import of posenc by the solution: refused, with :data:`REFUSED` as its message."""


class Refuse:
    """A ``sys.meta_path`` finder that refuses ``posenc`` and its modules, before any other.

    The checker's expected answers are computed by posenc, so a solution that could
    import it could return them instead of its own. Without ``.pth`` files (``-S``) an
    editable install is not on the path, but an installed copy sits beside NumPy, and a
    checkout may sit in the solution's folder: this finder refuses them all.
    """

    def find_spec(self, name, path=None, target=None):
        if name == "posenc" or name.startswith("posenc."):
            raise Refused(REFUSED, name=name)
        return None  # not ours: the next finder looks


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


def read(solve) -> list[dict] | None:
    """The parameters of ``solve`` as plain data: name, kind, and whether it has a default.

    None when the signature cannot be read. Runs in the worker, on the reader's object;
    the parent checks what arrives (``_calls.checked``) and plans from it.
    """
    try:
        parameters = list(inspect.signature(solve).parameters.values())
    except Exception:  # a builtin without a signature, or an object whose signature breaks
        return None
    return [
        {
            "name": str(p.name)[:LONGEST_NAME],
            "kind": p.kind.name,
            "default": p.default is not inspect.Parameter.empty,
        }
        for p in parameters[:MOST_PARAMETERS]
    ]


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
    elif isinstance(error, Refused):
        info.update(kind="posenc", type="ImportError", message=REFUSED)
    else:
        try:
            message = str(error)[:_MESSAGE]
        except Exception:  # an exception whose __str__ fails is still an exception
            message = ""
        info.update(kind="raised", message=message)
    info.update(_line_in(error, solution))
    return info


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


class _Bytes:
    """A stream seen through its ``read`` alone, so that NumPy reads it as bytes, not a file."""

    def __init__(self, stream):
        self.read = stream.read


class Inputs:
    """The reading end of the pipe from the parent: the call, then each case's inputs.

    ``stream`` is a binary stream with ``readline`` and ``read``: the pipe, or in a
    test the bytes that ``_run.inputs`` makes. The parent is trusted; a stream that
    ends early is an ``EOFError``.
    """

    def __init__(self, stream):
        self.stream = stream

    def _message(self) -> dict:
        line = self.stream.readline()
        if not line.endswith(b"\n"):
            raise EOFError("the checker's pipe ended in the middle of its inputs")
        return json.loads(line)

    def call(self) -> tuple[tuple[str, ...], int] | None:
        """The names of the call's arguments and how many go by position; None if no case."""
        message = self._message()
        if message["kind"] == "done":
            return None
        return tuple(message["names"]), message["positional"]

    def case(self) -> tuple[int, tuple] | None:
        """The next case's number and arguments, or None when no case follows."""
        message = self._message()
        if message["kind"] == "done":
            return None
        args = tuple(
            value
            if not isinstance(value, dict)
            else value["json"]
            if "json" in value
            else np.lib.format.read_array(_Bytes(self.stream), allow_pickle=False)
            for value in message["args"]
        )
        return message["case"], args


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


def _answer(solve, solution: Path, inputs: Inputs, channel: Channel) -> None:
    """Call ``solve`` on each case received, in turn, and send each answer as it comes."""
    call = inputs.call()
    if call is None:
        return
    names, positional = call
    while (case := inputs.case()) is not None:
        number, args = case
        keywords = dict(zip(names[positional:], args[positional:], strict=True))
        try:
            meta, array = record(solve(*args[:positional], **keywords))
        except BaseException as error:
            error = failure(error, solution, "solve", number)
            channel.send({"kind": "error", "case": number, "error": error})
            return
        channel.answer(number, meta, array)


def _work(argv: list[str]) -> None:
    solution, fd_in, fd_out = argv
    sys.meta_path.insert(0, Refuse())  # before the solution, and before anything it runs
    channel = Channel(int(fd_out))
    os.set_inheritable(int(fd_in), False)
    inputs = Inputs(os.fdopen(int(fd_in), "rb"))
    solution = Path(solution).resolve()
    with contextlib.suppress(ImportError):  # exit() and quit(), which -S leaves out
        import site

        site.setquit()
    channel.send({"kind": "ready"})
    sink = Sink()
    sys.stdout = sys.stderr = sink
    solve = _load(solution, channel)
    if solve is not None:
        channel.send({"kind": "loaded", "signature": read(solve)})
        _answer(solve, solution, inputs, channel)
    channel.send({"kind": "end", "printed": {"chars": sink.chars, "head": sink.head}})


def work(argv: list[str]) -> None:
    """Run the solution on every case the parent sends; never returns.

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


if __name__ == "__main__":
    work(sys.argv[2:])
