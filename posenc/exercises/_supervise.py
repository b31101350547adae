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
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
ROUNDS = 500  # passes of kill, reap and look again, for processes that keep forking

_stopping = False


class Stop(Exception):
    """The parent asked for everything to stop (or died)."""


def _stop(signum: int, frame) -> None:
    global _stopping
    if not _stopping:  # the first signal stops the run; later ones must not stop the cleanup
        _stopping = True
        raise Stop(signum)


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
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # blocked here around the fork
        _lower(resource.RLIMIT_CPU, cpu, cpu + 1)
        _lower(resource.RLIMIT_AS, memory, memory)
        _lower(resource.RLIMIT_CORE, 0, 0)

    return apply


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, from the parent pids in ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
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
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


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
    """Until the worker ends, reaping the orphans that end first.

    The worker itself is left unreaped where ``waitid`` allows, so that its process
    group still exists, and cannot be taken by a new process, when it is killed.
    """
    while True:
        if hasattr(os, "waitid"):
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
            if info.si_pid == worker:
                return
            os.waitpid(info.si_pid, 0)  # an orphan that ended first
        else:
            pid, status = os.waitpid(-1, 0)
            ended[pid] = os.waitstatus_to_exitcode(status)
            if pid == worker:
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
    for attempt in range(ROUNDS):
        below = _descendants(os.getpid())
        for pid in below:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap(ended)
        if not below:
            return True
        time.sleep(min(0.001 * attempt, 0.05))  # let the killed die and their orphans arrive
    return False


def main(argv: list[str]) -> None:
    """Run the worker, wait for it or for a signal, kill all that is left, report, exit."""
    parent, cpu, memory = (int(a) for a in argv[:3])
    keep = tuple(int(fd) for fd in argv[3].split(","))
    command = argv[5:]  # after "--"
    worker, ended, linux = None, {}, False
    for number in STOP_SIGNALS:
        signal.signal(number, _stop)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # ignored, it would leave nothing to wait for
    try:
        linux = _prctl(PR_SET_CHILD_SUBREAPER, 1) and _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        linux = linux and os.path.isdir("/proc/self")
        if os.getppid() != parent:  # it died before PR_SET_PDEATHSIG could tell us
            return
        env = dict(os.environ, **dict.fromkeys(BLAS_THREADS, "1"))
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # no Stop mid-fork
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
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for fd in keep:
            os.close(fd)
        _say({"worker": worker})
        _wait(worker, ended)
    except Stop:
        pass
    except Exception as error:  # the worker could not start: say why, on standard error
        with contextlib.suppress(OSError):
            os.write(2, f"posenc checker: cannot run the solution: {error}\n".encode())
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        clean = _kill_all(worker, linux, ended)
        _say({"returncode": ended.get(worker), "clean": clean})
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
