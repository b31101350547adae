"""The checker's supervisor: run one command so that nothing it starts outlives it.

The checker runs this file as a script, ``python -I -S _supervise.py PARENT CPU MEMORY
FDS -- COMMAND...``, so that it starts fast and imports the standard library only. It
runs COMMAND (the worker) in a session of its own, with its standard input and output on
``/dev/null``, its standard error shared, the file descriptors FDS (numbers separated by
commas: the worker's inputs and its channel) left open for it, and these limits: CPU
seconds (``RLIMIT_CPU``: CPU soft, CPU + 1 hard), bytes of address space (``RLIMIT_AS``:
MEMORY) and no core file (``RLIMIT_CORE`` 0); the BLAS libraries get one thread each, so
that NumPy fits the memory limit and spares the other cores.

On Linux it is a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): every process the
worker starts stays below it, even one whose parent has exited or that called
``setsid()``. It asks for SIGTERM when the thread that started it dies
(``PR_SET_PDEATHSIG``), then checks that PARENT is still its parent, since that death may
come before the request. When the worker ends, on SIGTERM, SIGINT or SIGHUP, and so when
the parent dies, it kills every process below it with SIGKILL (found in ``/proc``),
reaps them and looks again, until none is left; then it exits.

No signal handler runs here. The stop signals and SIGCHLD are blocked from the first
line and taken with ``sigwait``, so a stop is a value that the waiting loop reads, never
an exception that could land anywhere, the cleanup included. (An earlier version raised
from a handler; a SIGTERM that came as the worker ended could land on the first line of
the cleanup and skip it, and a process that had left the worker's session outlived the
check.) :func:`kill_below` is also what the checker uses, should this process hang, to
kill what is below it before it kills this process.

It writes two JSON lines on standard output: ``{"worker": PID}`` once the worker runs,
and ``{"returncode": CODE, "clean": BOOL}`` at the end, where CODE is the worker's status
as :mod:`subprocess` gives it (negative for a signal; null if it never ran) and ``clean``
says that no process was left. Without ``prctl`` or ``/proc`` (not Linux), it kills the
worker's process group only, so a process that leaves it with ``setsid()`` can outlive
the check.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
WAITED = {*STOP_SIGNALS, signal.SIGCHLD}  # blocked for this process's whole life
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
ROUNDS = 500  # passes of kill, reap and look again, for processes that keep forking


def _say(message: dict) -> None:
    """One JSON line to the parent; nothing if the parent has gone."""
    with contextlib.suppress(OSError):
        os.write(1, (json.dumps(message) + "\n").encode())


def _prctl(option: int, value: int) -> bool:
    """Linux ``prctl(option, value)``; False where there is no such call or it fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _lower(which: int, soft: int, hard: int) -> None:
    """Set a limit, never above the hard limit already in force (which cannot be raised)."""
    _, ceiling = resource.getrlimit(which)
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(hard, ceiling)
    resource.setrlimit(which, (soft, hard))


def _limits(cpu: int, memory: int, mask: set):
    """What the worker does between fork and exec: its signal mask back, and the limits."""

    def apply() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # the supervisor's blocks them
        _lower(resource.RLIMIT_CPU, cpu, cpu + 1)
        _lower(resource.RLIMIT_AS, memory, memory)
        _lower(resource.RLIMIT_CORE, 0, 0)

    return apply


def descendants(root: int, *, living: bool = False) -> list[int]:
    """Every process below ``root``, from the parent pids in ``/proc/*/stat``.

    With ``living``, zombies are left out (they are dead, and wait for their parent).
    """
    children: dict[int, list[int]] = {}
    dead: set[int] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                text = stat.read()
        except OSError:  # it ended while we looked
            continue
        fields = text[text.rindex(b")") + 2 :].split()  # the name in brackets may hold spaces
        children.setdefault(int(fields[1]), []).append(int(name))
        if fields[0] == b"Z":
            dead.add(int(name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return [pid for pid in found if not (living and pid in dead)]


def _reap(ended: dict[int, int]) -> None:
    """Collect every child that has ended, recording its status."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        ended[pid] = os.waitstatus_to_exitcode(status)


def _wait(worker: int, ended: dict[int, int]) -> None:
    """Until the worker ends or a stop signal comes, reaping the orphans that end first.

    The worker itself is left unreaped where ``waitid`` allows, so that its process
    group still exists, and cannot be taken by a new process, when it is killed. A
    child that ends after the look and before ``sigwait`` leaves its SIGCHLD pending,
    so the wait returns at once and the loop looks again.
    """
    while True:
        if hasattr(os, "waitid"):
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is not None:
                if info.si_pid == worker:
                    return
                os.waitpid(info.si_pid, 0)  # an orphan that ended first
                continue
        else:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid:
                ended[pid] = os.waitstatus_to_exitcode(status)
                if pid == worker:
                    return
                continue
        if signal.sigwait(WAITED) in STOP_SIGNALS:
            return


def _kill_all(worker: int | None, linux: bool, ended: dict[int, int]) -> bool:
    """Kill and reap the worker and everything below this process; True if none is left."""
    if worker is not None and worker not in ended:
        with contextlib.suppress(OSError):
            os.killpg(worker, signal.SIGKILL)  # its session and group have its pid
    if not linux:
        if worker is not None and worker not in ended:
            with contextlib.suppress(ChildProcessError):
                _, status = os.waitpid(worker, 0)
                ended[worker] = os.waitstatus_to_exitcode(status)
        _reap(ended)
        return False  # nothing tells what left the group
    return kill_below(os.getpid(), reap=lambda: _reap(ended))


def kill_below(root: int, reap=None) -> bool:
    """Kill every process below ``root`` with SIGKILL and look again, until none is left.

    ``reap`` collects the killed when ``root`` is this process; without it (``root`` is
    another process, which cannot reap here) zombies count as gone. True if none is left
    after ``ROUNDS`` passes.
    """
    for attempt in range(ROUNDS):
        below = descendants(root, living=reap is None)
        for pid in below:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if reap is not None:
            reap()
        if not below:
            return True
        time.sleep(min(0.001 * attempt, 0.05))  # let the killed die and their orphans arrive
    return False


def main(argv: list[str]) -> None:
    """Run the worker, wait for it or for a stop signal, kill all that is left, report, exit."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)  # the worker gets this one back
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # ignored, it would leave nothing to wait for
    parent, cpu, memory = (int(a) for a in argv[:3])
    keep = tuple(int(fd) for fd in argv[3].split(","))
    command = argv[5:]  # after "--"
    worker, ended = None, {}
    linux = _prctl(PR_SET_CHILD_SUBREAPER, 1) and _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    linux = linux and os.path.isdir("/proc/self")
    # The parent may have died before PR_SET_PDEATHSIG, or asked to stop already.
    if os.getppid() == parent and not signal.sigpending() & set(STOP_SIGNALS):
        env = dict(os.environ, **dict.fromkeys(BLAS_THREADS, "1"))
        try:
            worker = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=keep,
                start_new_session=True,
                preexec_fn=_limits(cpu, memory, mask),
                env=env,
            ).pid
        except Exception as error:  # the worker could not start: say why, on standard error
            with contextlib.suppress(OSError):
                os.write(2, f"posenc checker: cannot run the solution: {error}\n".encode())
    for fd in keep:
        with contextlib.suppress(OSError):
            os.close(fd)
    if worker is not None:
        _say({"worker": worker})
        _wait(worker, ended)
    clean = _kill_all(worker, linux, ended)
    _say({"returncode": ended.get(worker), "clean": clean})
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
