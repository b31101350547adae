"""Run a solution in a child process, under limits, and read its answers as they come.

:func:`run` starts the supervisor (``_supervise.py``, standard library only), which starts
the worker (``_child.py``, standard library and NumPy only, run as a script) in a session
of its own with limits on CPU time and memory, and kills everything below it when the
worker ends or when it is told to stop. Three threads here read three pipes: the
worker's messages (the channel, see ``_child``), the end of its standard error, and the
supervisor's two report lines. The channel's thread also writes to a fourth pipe, the
worker's inputs.

The worker holds no answer and cannot import posenc. The message that the solution
loaded carries the signature of its ``solve``, and this process makes the plan from it
(``_calls.plan``): which cases the answers must come for, in which order. It then sends
the call and the inputs of case 1 (:func:`inputs`: JSON, and arrays as ``.npy``
streams), reads the answer, sends case 2, and so on: one side writes while the other
reads, so neither waits on the other with a full pipe. The writes do not block: a
worker that stops reading leaves this thread free to see the time limit, and one that
has died (a broken pipe) leaves its last messages to be read and the check to fail.

The channel is read in order, a message at a time, with a cap on each: a JSON line of at
most 64 KiB, an ``.npy`` header of at most 4 KiB, and numbers of at most 16 times the
bytes of the expected answer plus 1 MiB. An answer whose header announces more numbers
than its cap is refused from its header alone (it is then judged by its shape) and the
worker is stopped. Nothing from the child is unpickled or trusted: a message that is
malformed, out of order or not numbers ends the reading, and the check fails.

On every way out of :func:`run` (the answers read, the time limit, an exception,
Ctrl-C) the supervisor is told to stop and is waited for; if it does not end within
``GRACE`` seconds, every process below it is killed (on Linux), then it, then the
worker's process group. This keeps mistakes and tampering from deciding a verdict or
leaving processes behind; it is no sandbox: a solution runs as the reader and can, for
example, kill the supervisor or delete files.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from posenc.exercises import _calls
from posenc.exercises._base import Case, Exercise

SUPERVISOR = Path(__file__).resolve().with_name("_supervise.py")
CHILD = Path(__file__).resolve().with_name("_child.py")

#: The folder that holds this process's NumPy: the one folder the worker adds to its path.
NUMPY = str(Path(np.__file__).parent.parent)

GRACE = 5.0  # seconds the supervisor has to stop everything before it is killed
KEPT_STDERR = 4000  # bytes kept of the end of the worker's standard error
LINE_LIMIT = 1 << 16  # bytes in one message line
HEADER_LIMIT = 1 << 12  # bytes in the header of an answer's .npy stream
NUMBERS = "biuf"  # dtype kinds an answer's numbers may have (complex arrives as its real part)


@dataclass(frozen=True)
class Answer:
    """What solve returned for one case: what the worker saw, and its numbers.

    ``shape`` is None when the answer is not numbers; ``array`` is None then, and also
    when the numbers were refused for their size (``shape`` says how many there were).
    """

    meta: dict
    shape: tuple[int, ...] | None = None
    array: np.ndarray | None = None


@dataclass
class Run:
    """What one run of a solution left: the answers by case, and how it ended."""

    answers: dict[int, Answer] = field(default_factory=dict)
    plan: _calls.Plan | None = None  # made here from the signature of solve, once loaded
    error: dict | None = None  # what the worker said went wrong: loading, or a case
    broken: str | None = None  # why the answers could not be read, when they could not
    ready: bool = False  # the worker started and knew its cases
    loaded: bool = True  # the solution was imported and has a solve
    ended: bool = False  # the worker said it had nothing more to send
    printed: dict | None = None
    timed_out: bool = False
    returncode: int | None = 0
    stderr: str = ""


class _Stopped(Exception):
    """The check stopped reading (or sending)."""


class _Closed(Exception):
    """The pipe ended: every process that could write to it has closed it."""


class _Broken(Exception):
    """The worker sent what the channel does not allow; the message says what."""


class _Pipe:
    """The reading end of a pipe, for a thread that the check can stop at any time."""

    def __init__(self, fd: int):
        self.fd, self.stop = fd, threading.Event()
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)  # an end or an error is reported too

    def _wait(self) -> None:
        while not self._poll.poll(100):
            if self.stop.is_set():
                raise _Stopped
        if self.stop.is_set():
            raise _Stopped

    def read(self, size: int) -> bytes:
        self._wait()
        return os.read(self.fd, size)

    def read_into(self, view: memoryview) -> int:
        self._wait()
        return os.readv(self.fd, [view])


class _Feed:
    """The writing end of the pipe to the worker, written without blocking.

    A write waits for room in the pipe a tenth of a second at a time, so that the
    thread sees ``stop``. A worker that has gone (``BrokenPipeError``) is not an error
    here: nothing more is sent, and what it sent before is still read.
    """

    def __init__(self, fd: int, stop: threading.Event):
        self.fd, self.stop, self.gone = fd, stop, False
        os.set_blocking(fd, False)
        self._poll = select.poll()
        self._poll.register(fd, select.POLLOUT)  # an error, the reader gone, is reported too

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view and not self.gone:
            ready = self._poll.poll(100)
            if self.stop.is_set():
                raise _Stopped
            if not ready:
                continue
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:  # the room was taken: wait again
                continue
            except BrokenPipeError:
                self.gone = True


def _plain(value: object) -> bool:
    return type(value) in (bool, int, float)


def _json(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is plain JSON data: dicts with string keys, lists, str, numbers."""
    if depth > 20:  # a config nests a few levels
        return False
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) is list:
        return all(_json(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _json(v, depth + 1) for k, v in value.items())
    return False


def inputs(number: int, args: tuple) -> bytes:
    """The inputs of case ``number`` as the worker reads them (``_child.Inputs.case``).

    One JSON line, then each NumPy array as an ``.npy`` stream (format 1.0), in order;
    ints, floats, bools and lists of them travel in the line itself, which keeps their
    Python types (``json`` writes a float so that it reads back exactly), and so does a
    dict of plain JSON data (E9's config), as ``{"json": value}``. Anything else
    is a TypeError: an exercise whose cases need more must teach both sides first.
    """
    values, streams = [], []
    for value in args:
        if isinstance(value, np.ndarray) and value.dtype.kind in NUMBERS:
            stream = io.BytesIO()
            np.lib.format.write_array(stream, value, version=(1, 0), allow_pickle=False)
            values.append({"npy": True})
            streams.append(stream.getvalue())
        elif _plain(value) or (type(value) is list and all(_plain(v) for v in value)):
            values.append(value)
        elif type(value) is dict and _json(value):  # a config (E9): JSON, marked as such
            values.append({"json": value})
        else:
            raise TypeError(f"the checker cannot send the worker a {type(value).__name__}")
    line = json.dumps({"kind": "case", "case": number, "args": values}) + "\n"
    return b"".join([line.encode(), *streams])


def _text(value: object, default: str = "", limit: int = 2000) -> str:
    return value[:limit] if isinstance(value, str) else default


def _number(value: object) -> int | None:
    return value if type(value) is int else None


def _meta(raw: object) -> dict:
    """The worker's description of an answer, keeping only fields of the right type."""
    if not isinstance(raw, dict):
        raise _Broken("an answer without its description")
    meta = {"type": _text(raw.get("type"), "object", 100), "repr": _text(raw.get("repr"))}
    if isinstance(raw.get("problem"), str):
        meta["problem"] = _text(raw["problem"])
    if isinstance(raw.get("kind"), str) and len(raw["kind"]) == 1:
        meta["kind"] = raw["kind"]
    meta["array"] = raw.get("array") is True
    return meta


def _error(raw: object, stage: str, case: int | None) -> dict:
    """The worker's account of an error, keeping only fields of the right type."""
    if not isinstance(raw, dict):
        raise _Broken("an error report without its description")
    error = {"stage": stage, "case": case, "kind": _text(raw.get("kind"), "raised", 20)}
    error["type"] = _text(raw.get("type"), "Exception", 100)
    for name in ("message", "code", "file"):
        error[name] = _text(raw.get(name))
    for name in ("line", "column"):
        error[name] = _number(raw.get(name))
    return error


def _header(text: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """Shape, Fortran order and dtype from the header of an ``.npy`` stream."""
    try:
        header = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise _Broken("an answer whose header cannot be read") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise _Broken("an answer whose header is not that of an .npy array")
    shape, fortran, descr = header["shape"], header["fortran_order"], header["descr"]
    if not (
        isinstance(shape, tuple)
        and len(shape) <= 32
        and all(type(n) is int and 0 <= n < 2**63 for n in shape)
        and type(fortran) is bool
        and isinstance(descr, str)
    ):
        raise _Broken("an answer whose header is not that of an .npy array")
    try:
        dtype = np.dtype(descr)
    except (TypeError, ValueError):
        raise _Broken(f"an answer of an unknown dtype {descr[:40]!r}") from None
    if dtype.kind not in NUMBERS:
        raise _Broken(f"an answer of dtype {descr[:40]!r}, which is not numbers")
    return shape, fortran, dtype


class _Channel:
    """Reads the worker's messages in order into a :class:`Run`, with a cap on each."""

    def __init__(self, fds: tuple[int, int], e: Exercise, cases: list[Case], finished):
        self.pipe, self.e, self.cases, self.finished = _Pipe(fds[0]), e, cases, finished
        self.feed = _Feed(fds[1], self.pipe.stop)  # the worker's inputs
        self.run, self.lock = Run(loaded=False), threading.Lock()
        self.buffer = bytearray()
        self.over = False  # reading has ended
        self.stop_worker = False  # it ended on something the worker must not go on with

    def __call__(self) -> None:
        try:
            self._read()
        except (_Stopped, _Closed):
            pass
        except _Broken as why:
            self._set(broken=str(why))
            self.stop_worker = True
        except Exception as error:  # whatever else the bytes provoke is their fault too
            self._set(broken=f"bytes that raised {type(error).__name__} when read")
            self.stop_worker = True
        finally:
            self.over = True
            self.finished.set()

    def snapshot(self) -> Run:
        with self.lock:
            return dataclasses.replace(self.run, answers=dict(self.run.answers))

    def _set(self, **values) -> None:
        with self.lock:
            for name, value in values.items():
                setattr(self.run, name, value)

    def _exact(self, size: int) -> bytearray:
        """The next ``size`` bytes, taken first from what a line read left over."""
        out = bytearray(size)
        view = memoryview(out)
        got = min(size, len(self.buffer))
        view[:got] = self.buffer[:got]
        del self.buffer[:got]
        while got < size:
            n = self.pipe.read_into(view[got:])
            if n == 0:
                raise _Closed
            got += n
        view.release()
        return out

    def _message(self) -> dict:
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > LINE_LIMIT:
                raise _Broken(f"a message longer than {LINE_LIMIT} bytes")
            chunk = self.pipe.read(LINE_LIMIT)
            if not chunk:
                raise _Closed
            self.buffer += chunk
        if end > LINE_LIMIT:
            raise _Broken(f"a message longer than {LINE_LIMIT} bytes")
        line = bytes(self.buffer[:end])
        del self.buffer[: end + 1]
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            raise _Broken("a message that is not JSON") from None
        if not isinstance(message, dict) or not isinstance(message.get("kind"), str):
            raise _Broken("a message without a kind")
        return message

    def _numbers(self, cap: int) -> tuple[tuple[int, ...], np.ndarray | None]:
        """An ``.npy`` stream: its shape, and its numbers unless there are too many."""
        magic = bytes(self._exact(8))
        if magic != np.lib.format.MAGIC_PREFIX + b"\x01\x00":
            raise _Broken("an answer that is not an .npy stream of format 1.0")
        length = int.from_bytes(self._exact(2), "little")
        if length > HEADER_LIMIT:
            raise _Broken(f"an answer whose header is longer than {HEADER_LIMIT} bytes")
        shape, fortran, dtype = _header(self._exact(length).decode("latin1"))
        size = math.prod(shape) * dtype.itemsize
        if size > cap:
            return shape, None  # not read: the worker is stopped
        data = self._exact(size)
        array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        return shape, array

    def _expect(self, message: dict, kind: str) -> None:
        if message["kind"] != kind:
            got = message["kind"][:20]
            raise _Broken(f"a message of kind {got!r} where {kind!r} was due")

    def _read(self) -> None:
        self._expect(self._message(), "ready")
        self._set(ready=True)
        message = self._message()
        if message["kind"] == "error":
            self._set(error=_error(message.get("error"), "load", None))
            return self._end(self._message())
        self._expect(message, "loaded")
        try:
            params = _calls.checked(message.get("signature"))
        except ValueError as why:
            raise _Broken(str(why)) from None
        plan = _calls.plan(self.e, self.cases, params)  # the cases decided here, not there
        self._set(loaded=True, plan=plan)
        if plan.call is not None:
            call = {"kind": "call", "names": plan.call.names, "positional": plan.call.positional}
            self.feed.send(json.dumps(call).encode() + b"\n")
        caps = _caps(self.e, plan.cases)
        for number, (case, cap) in enumerate(zip(plan.cases, caps, strict=True), start=1):
            self.feed.send(inputs(number, case.args[: len(plan.call.names)]))
            message = self._message()
            if message["kind"] == "end":
                return self._end(message)
            kind, case = message["kind"], _number(message.get("case"))
            if kind not in ("answer", "error") or case != number:
                raise _Broken(f"a message other than the answer to case {number}")
            if kind == "error":
                self._set(error=_error(message.get("error"), "solve", number))
                return self._end(self._message())
            meta = _meta(message.get("answer"))
            shape, array = self._numbers(cap) if meta["array"] else (None, None)
            with self.lock:
                self.run.answers[number] = Answer(meta, shape, array)
            if shape is not None and array is None:
                self.stop_worker = True  # far too large: stop it before it sends more
                return None
        self.feed.send(b'{"kind": "done"}\n')
        return self._end(self._message())

    def _end(self, message: dict) -> None:
        self._expect(message, "end")
        printed = message.get("printed")
        if isinstance(printed, dict) and _number(printed.get("chars")) is not None:
            printed = {"chars": max(printed["chars"], 0), "head": _text(printed.get("head"))}
        else:
            printed = None
        self._set(ended=True, printed=printed)


class _Tail:
    """Drains a pipe, keeping only its last ``KEPT_STDERR`` bytes."""

    def __init__(self, fd: int):
        self.pipe, self.data = _Pipe(fd), b""

    def __call__(self) -> None:
        with contextlib.suppress(_Stopped, OSError):
            while chunk := self.pipe.read(1 << 16):
                self.data = (self.data + chunk)[-KEPT_STDERR:]


class _Watcher:
    """Reads the supervisor's two lines: the worker's pid, then how it all ended."""

    def __init__(self, fd: int, finished: threading.Event):
        self.pipe, self.finished = _Pipe(fd), finished
        self.worker: int | None = None
        self.report: dict | None = None
        self.over = False  # the supervisor has ended (its standard output is closed)

    def __call__(self) -> None:
        buffer = b""
        try:
            while chunk := self.pipe.read(4096):
                if len(buffer) < 4096:  # two short lines; more is not the supervisor's
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        self._line(line)
        except (_Stopped, OSError):
            pass
        finally:
            self.over = True
            self.finished.set()

    def _line(self, line: bytes) -> None:
        with contextlib.suppress(ValueError, RecursionError):
            message = json.loads(line)
            if isinstance(message, dict) and _number(message.get("worker")) is not None:
                self.worker = message["worker"]
            elif isinstance(message, dict) and "returncode" in message:
                self.report = message


def cpu_seconds(timeout: float) -> int:
    """The CPU-time limit (soft; the hard one is a second more) for a time limit."""
    return math.ceil(timeout) + 1


def _caps(e: Exercise, cases: list[Case]) -> list[int]:
    """The most bytes of numbers accepted for each case: 16 times the expected, plus 1 MiB."""
    return [16 * 8 * math.prod(e.shape(*case.args)) + (1 << 20) for case in cases]


def _wait(channel: _Channel, watcher: _Watcher, finished: threading.Event, deadline: float):
    """Wait for the end of the answers, of the supervisor, or of the time: True on time."""
    while True:
        if channel.stop_worker or watcher.over or (channel.over and channel.run.ended):
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        finished.wait(min(left, 0.25))  # short waits: Ctrl-C is seen at once
        finished.clear()


def _below(supervisor: subprocess.Popen) -> None:
    """Kill what lives below a supervisor that hangs, while it still holds it (Linux).

    The supervisor is stopped first, so that it neither starts nor reaps anything; as a
    subreaper it keeps every orphan below it, so that what a solution took out of its
    session is found here, and not handed to init when the supervisor is killed.
    """
    if not (sys.platform.startswith("linux") and os.path.isdir("/proc/self")):
        return
    from posenc.exercises import _supervise  # its resource and ctypes: Unix only

    with contextlib.suppress(OSError):
        supervisor.send_signal(signal.SIGSTOP)
    _supervise.kill_below(supervisor.pid)


def _stop(supervisor: subprocess.Popen | None, watcher: _Watcher, thread: threading.Thread):
    """Stop the supervisor and wait for it; if it hangs, kill what is below it, then it."""
    if supervisor is None:
        return
    if supervisor.poll() is None:
        supervisor.send_signal(signal.SIGTERM)
        try:
            supervisor.wait(GRACE)
        except subprocess.TimeoutExpired:
            _below(supervisor)
            supervisor.kill()
            supervisor.wait()
    if thread.ident is not None:
        thread.join(GRACE)  # its last line says whether it left nothing behind
    if not (watcher.report or {}).get("clean") and watcher.worker is not None:
        with contextlib.suppress(OSError):
            os.killpg(watcher.worker, signal.SIGKILL)


def run(e: Exercise, cases: list[Case], solution: Path, *, timeout, memory) -> Run:
    """Run ``solution`` on ``cases``: ``timeout`` seconds, ``memory`` MB, CPU to match."""
    cpu = cpu_seconds(timeout)
    answers_r, answers_w = os.pipe()
    inputs_r, inputs_w = os.pipe()
    errors_r, errors_w = os.pipe()
    status_r, status_w = os.pipe()
    finished = threading.Event()
    channel = _Channel((answers_r, inputs_w), e, cases, finished)
    tail, watcher = _Tail(errors_r), _Watcher(status_r, finished)
    readers = (channel, tail, watcher)
    threads = [threading.Thread(target=reader, daemon=True) for reader in readers]
    worker = [sys.executable, "-I", "-S", "-B", str(CHILD), NUMPY, str(solution)]
    worker += [str(inputs_r), str(answers_w)]
    command = [sys.executable, "-I", "-S", str(SUPERVISOR), str(os.getpid()), str(cpu)]
    command += [str(memory << 20), f"{inputs_r},{answers_w}", "--", *worker]
    supervisor, timed_out = None, False
    try:
        try:
            supervisor = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=status_w,
                stderr=errors_w,
                pass_fds=(inputs_r, answers_w),
                start_new_session=True,  # Ctrl-C in a terminal reaches this process only
            )
        finally:
            for fd in (inputs_r, answers_w, errors_w, status_w):
                os.close(fd)  # the children hold them now: the pipes end when they do
        deadline = time.monotonic() + timeout
        for thread in threads:
            thread.start()
        timed_out = _wait(channel, watcher, finished, deadline)
    finally:
        _stop(supervisor, watcher, threads[2])
        for reader, thread in zip(readers, threads, strict=True):
            if thread.ident is not None and thread.is_alive():
                thread.join(GRACE)  # everything that wrote is dead: the rest is quick
                reader.pipe.stop.set()
                thread.join(1.0)
            if not thread.is_alive():
                os.close(reader.pipe.fd)
        if not threads[0].is_alive():
            os.close(channel.feed.fd)
    result = channel.snapshot()
    result.timed_out = timed_out
    result.returncode = _number((watcher.report or {}).get("returncode"))
    result.stderr = tail.data.decode("utf-8", "replace")
    return result
