"""A warm worker for ``make mutants``: one proof's mutants without a fresh Python each.

Run as ``python -m proofs N --first-failure``, a mutant costs two Python processes
that each import SymPy, NumPy and posenc before the proof starts: on two cores that
is most of a mutant's time. ``serve`` imports what the proof imports once, then
answers each request on a Unix socket by forking: the child loads the proof file as
it now is on disk (the mutant Cosmic Ray wrote there), runs it as the runner's own
child process would (``runner.run_one``, stopped at the first failed check, its
result passed through JSON as the runner reads it), and its exit status is the
answer. A fork shares nothing back with the server, so no mutant sees another's
state. ``ask`` is Cosmic Ray's test command: it exits 0 if the proof verified and 1
if not. Where the server cannot answer (not started, gone, a broken reply) ``ask``
runs the cold command instead, so a broken server never counts as a killed mutant.

    python tools/mutant_worker.py serve SOCKET PROOF SECONDS   # in the scratch copy
    python tools/mutant_worker.py ask SOCKET -- COMMAND...     # COMMAND: the cold fallback
"""

from __future__ import annotations

import os
import socket
import sys

#: What ``ask`` sends, and the server's two answers.
RUN, VERIFIED, FAILED = b"run\n", b"0", b"1"


def ask(path: str, fallback: list[str]) -> int:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(path)
            conn.sendall(RUN)
            reply = conn.recv(1)
    except OSError:
        reply = b""
    if reply == VERIFIED:
        return 0
    if reply == FAILED:
        return 1
    print(f"mutant_worker: no answer on {path}: running {fallback[0]} cold", file=sys.stderr)
    os.execvp(fallback[0], fallback)  # does not return


def warm(proof: str) -> None:
    """Import the modules the proof imports at its top level (never the proof itself)."""
    import ast
    import importlib

    tree = ast.parse(open(proof, encoding="utf-8").read())
    names = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{alias.name}" for alias in node.names]
    for name in names:
        if name == "__future__" or name.startswith("__future__."):
            continue
        try:
            importlib.import_module(name)
        except ImportError:  # a name imported from a module, not a module of its own
            pass


def run_child(proof: str, seconds: float) -> int:
    """In the forked child: the proof's verdict, as ``python -m proofs`` would give it."""
    import json
    import signal
    from pathlib import Path

    from proofs import runner

    os.setsid()  # its own session: whatever it starts is killed with it
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, seconds)  # SIGALRM's default action ends the process
    try:
        result = runner.run_one(Path(proof), first_failure=True)
        fields = json.loads(json.dumps(result.as_dict()))
        fields = {k: v for k, v in fields.items() if k not in ("status", "cached")}
        return 0 if runner.Result(**fields).passed else 1
    except BaseException:  # an exit, a crash: the runner's parent reads no result, a failure
        return 1


def serve(path: str, proof: str, seconds: float) -> int:
    import signal

    sys.path.insert(0, os.getcwd())
    from proofs import runner  # noqa: F401 - imported once, for every child

    warm(proof)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen()
        served = 0
        while True:
            conn, _ = server.accept()
            with conn:
                if conn.recv(len(RUN)) != RUN:
                    print(f"mutant_worker: served {served}", flush=True)
                    return 0
                child = os.fork()
                if child == 0:
                    server.close()
                    conn.close()
                    os._exit(run_child(proof, seconds))
                _, status = os.waitpid(child, 0)
                try:
                    os.killpg(child, signal.SIGKILL)  # anything the proof left running
                except (ProcessLookupError, PermissionError):
                    pass
                served += 1
                conn.sendall(VERIFIED if os.waitstatus_to_exitcode(status) == 0 else FAILED)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "serve":
        return serve(argv[1], argv[2], float(argv[3]))
    if len(argv) >= 4 and argv[0] == "ask" and argv[2] == "--":
        return ask(argv[1], argv[3:])
    usage = [line.strip() for line in __doc__.strip().splitlines()[-2:]]
    print("usage:\n  " + "\n  ".join(usage), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
