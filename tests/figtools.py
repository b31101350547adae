"""Shared pieces of the figure tests (``tests/test_fig_*.py``, ``tests/test_figures.py``)."""

from __future__ import annotations

from matplotlib.figure import Figure


def by_gid(fig: Figure, kind: type, gid: str):
    """The one artist of type ``kind`` whose gid is ``gid``; fails unless there is exactly one."""
    found = [a for a in fig.findobj(kind) if a.get_gid() == gid]
    assert len(found) == 1, f"expected one {kind.__name__} with gid {gid!r}, found {len(found)}"
    return found[0]
