"""A status line on a terminal for work that takes long: identify a big table, write a big one.

The line is drawn on standard error, only when it is a terminal (a script that reads the
output, or a log, gets nothing), only once the work has run for ``DELAY`` seconds (short
work draws nothing), at most ``RATE`` times a second, and is erased when the work ends,
so that what the command prints after it, or an error line, starts on a clean line.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Status"]

DELAY = 1.0  # seconds of work before the first line
RATE = 4.0  # lines a second, at most


class Status:
    """``with Status("posenc: identify") as status: status("judging ...")``."""

    def __init__(self, prefix: str, stream: TextIO | None = None, *, enabled: bool = True):
        self.prefix = prefix
        self.stream = sys.stderr if stream is None else stream
        try:
            self.on = enabled and bool(self.stream.isatty())
        except (AttributeError, ValueError):  # None (closed), or an odd stream
            self.on = False
        self.start = time.monotonic()
        self.last = 0.0
        self.width = 0  # characters of the line drawn last, to erase it

    def __call__(self, text: str) -> None:
        if not self.on:
            return
        now = time.monotonic()
        if now - self.start < DELAY or now - self.last < 1.0 / RATE:
            return
        self.last = now
        line = f"{self.prefix}: {text} ({now - self.start:.0f} s)"
        self._draw(line)

    def _draw(self, line: str) -> None:
        pad = max(0, self.width - len(line))
        try:
            self.stream.write("\r" + line + " " * pad)
            self.stream.flush()
        except (OSError, ValueError):
            self.on = False
            return
        self.width = len(line)

    def __enter__(self) -> Status:
        return self

    def __exit__(self, *exc) -> None:
        if self.on and self.width:
            self._draw("")
            try:
                self.stream.write("\r")
                self.stream.flush()
            except (OSError, ValueError):
                pass
