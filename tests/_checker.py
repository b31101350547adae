"""Helpers shared by the tests of the exercise checker: solution files, live workers."""

from __future__ import annotations

import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
E1_SOLUTION = ROOT / "exercises" / "solutions" / "e1_sinusoidal_table.py"


def solution(folder: Path, name: str, source: str, out: Path | None = None) -> Path:
    """Write a solution file, with ``OUT`` replaced by the quoted path ``out``.

    The reference E1 solution goes beside it as ``my_e1.py``, for those that import it.
    """
    text = textwrap.dedent(source)
    if out is not None:
        text = text.replace("OUT", repr(str(out)))
    (folder / "my_e1.py").write_text(E1_SOLUTION.read_text(encoding="utf-8"), encoding="utf-8")
    path = folder / f"my_{name}.py"
    path.write_text(text, encoding="utf-8")
    return path


#: The environment variable that marks the processes one test started: the checker's
#: worker inherits the environment, and so does everything a solution forks.
OWNER = "POSENC_TEST_OWNER"


def alive(pid: int, owner: str | None = None) -> bool:
    """Whether ``pid`` is a running (not zombie) copy of the checker's worker.

    A pid counts only while it runs the worker's code, so a pid reused by another
    process does not; with ``owner``, only while its environment holds
    ``POSENC_TEST_OWNER=owner``, so that a pid reused by a worker of a check that
    another test runs at the same time (pids wrap at 32768 here) does not either:
    it is not reported, and not killed.
    """
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        environment = Path(f"/proc/{pid}/environ").read_bytes() if owner else b""
    except (OSError, IndexError):
        return False
    mine = owner is None or f"{OWNER}={owner}".encode() in environment.split(b"\0")
    return state != b"Z" and b"posenc/exercises/_child.py" in command and mine
