"""The CLI reference, generated from the ``posenc`` command's own argument parser.

The help text on the page is the text ``posenc ... --help`` prints, so the two
cannot disagree.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager

WIDTH = "88"  # columns argparse wraps to, fixed so every build prints the same


@contextmanager
def _columns(width: str) -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = width
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before


def _commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every sub-command parser, depth first, with their full names."""
    yield parser.prog, parser
    for action in parser._actions:  # argparse keeps sub-commands here; there is no public API
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _commands(sub)


def markdown(parser: argparse.ArgumentParser) -> str:
    """One section per command: its name as a heading and its --help in a code block."""
    sections = []
    with _columns(WIDTH):
        for name, command in _commands(parser):
            anchor = name.replace(" ", "-")
            sections.append(
                f"## `{name}` {{#{anchor}}}\n\n```text\n{command.format_help().rstrip()}\n```\n"
            )
    return "\n".join(sections)
