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


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running (not zombie) copy of the checker's worker.

    A pid counts only while it runs the worker's code, so a pid reused by another
    process does not.
    """
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, IndexError):
        return False
    return state != b"Z" and b"posenc/exercises/_child.py" in command
