"""The ``posenc`` command: position-code tables from the shell.

``posenc table --length 3 --width 4`` prints the table of Vaswani et al. (2017),
section 3.5, for positions 0, 1, 2 and width 4. Other formats (``csv``, ``json``,
``npy``) are for programs. ``posenc exercise check E1 my_solution.py`` marks a
reader's solution to an exercise of the pages (exit status 0 when it passes, 1 when
it does not). Bad input is reported on one line of standard error,
``posenc: error: <message>``, with exit status 2; there is never a traceback.

Subcommands live in ``_COMMANDS``; each is a function that adds its parser and one
that runs it, so later ones (``identify``, ``exercise``) slot in beside ``table``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from posenc import _cli_identify, _validate, conventions, encoding, exercises

__all__ = ["main"]

EXIT_OK = 0
EXIT_BROKEN_PIPE = 1
EXIT_NOT_PASSED = 1  # posenc exercise check: the solution does not pass yet
EXIT_USAGE = 2


class _UsageError(Exception):
    """Bad input: reported as one line on standard error, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, not usage plus a message."""

    def error(self, message: str):  # argparse calls this for every bad argument
        raise _UsageError(f"{message} (see '{self.prog} --help')")


# --------------------------------------------------------------------------------------
# posenc table

_TABLE_EPILOG = """\
formats:
  text  a table for reading: a 'pos' column, then sin0 cos0 sin1 cos1 ...,
        values with --precision significant digits (default 6)
  csv   a header line 'pos,sin0,cos0,...' then one line per position; each value is
        the shortest decimal that reads back to the same float (full precision)
  json  a list of rows, each a list of numbers at full precision
  npy   NumPy's binary .npy file of the table, in --dtype; written to -o FILE, or to
        standard output only when that is not a terminal (posenc table ... > t.npy)

examples:
  posenc table --length 3 --width 4
  posenc table --length 1024 --width 512 --format csv -o table.csv
  posenc table --length 8 --width 16 --start 100000 --dtype float32 --format json
"""


def _add_table(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "table",
        help="print the sinusoidal position code (Vaswani et al. 2017, section 3.5)",
        description=(
            "Print the sinusoidal position code: row pos holds sin(pos * w_i) and\n"
            "cos(pos * w_i) for each pair i, with w_i = base**(-2i/width)."
        ),
        epilog=_TABLE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--length", type=int, required=True, help="number of positions (>= 0)")
    parser.add_argument("--width", type=int, required=True, help="model width (even, >= 2)")
    parser.add_argument(
        "--convention",
        metavar="NAME",
        choices=sorted(conventions.CONVENTIONS),
        help="build the table as this library does (one of: %(choices)s); "
        "default: the paper's formula, computed exactly",
    )
    parser.add_argument(
        "--base", type=float, help="frequency base (> 1); default 10000 or the convention's"
    )
    parser.add_argument(
        "--start", type=int, help="first position (>= 0); default 0 or the convention's"
    )
    parser.add_argument(
        "--dtype",
        choices=_validate.DTYPES,
        help="output type (default float64); with --convention, the compute type where the "
        "library has one (keras-hub)",
    )
    parser.add_argument(
        "--format", default="text", choices=("text", "csv", "json", "npy"), dest="fmt"
    )
    parser.add_argument(
        "--precision", type=int, default=6, help="significant digits in text format (1..17)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    parser.set_defaults(run=_run_table)


def _run_table(args: argparse.Namespace, stdout: TextIO) -> int:
    if not 1 <= args.precision <= 17:
        raise _UsageError(f"precision must be an integer from 1 to 17, got {args.precision}")
    if args.convention is None:
        args.start = 0 if args.start is None else args.start
        table = encoding.sinusoidal(
            args.length,
            args.width,
            base=10000.0 if args.base is None else args.base,
            start=args.start,
            dtype=args.dtype or "float64",
        )
    else:
        table = conventions.table(
            args.convention,
            args.length,
            args.width,
            base=args.base,
            start=args.start,
            dtype=args.dtype,
        )
        if args.start is None:
            args.start = conventions.CONVENTIONS[args.convention].start
    names = _column_names(table.shape[1], args.convention)
    if args.fmt == "npy":
        _write_npy(table, args.output, stdout)
        return EXIT_OK
    if args.fmt == "text":
        text = _as_text(table, args.start, args.precision, names)
    elif args.fmt == "csv":
        text = _as_csv(table, args.start, names)
    else:
        text = _as_json(table)
    if args.output is None:
        stdout.write(text)
        stdout.flush()
    else:
        with _open(args.output, "w") as file:
            file.write(text)
    return EXIT_OK


def _column_names(width: int, convention: str | None = None) -> list[str]:
    """sin0 cos0 sin1 ... in the paper's order, or in the convention's own layout."""
    if convention is None:
        kinds = ["cos" if j % 2 else "sin" for j in range(width)]
    else:
        kinds = list(conventions.columns(convention, width)[0])
    seen: dict[str, int] = {}
    names = []
    for kind in kinds:  # number each kind of column in order: sin0 sin1 ... cos0 cos1 ...
        names.append(f"{kind}{seen.get(kind, 0)}")
        seen[kind] = seen.get(kind, 0) + 1
    return names


def _shortest(table: np.ndarray) -> list[list[str]]:
    """Each value as the shortest decimal that reads back to the same number."""
    if table.dtype == np.float64:
        return [[repr(x + 0.0) for x in row] for row in table.tolist()]
    return [[str(x + 0) for x in row] for row in table]  # NumPy prints float32/16 shortest


def _as_text(table: np.ndarray, start: int, precision: int, names: list[str]) -> str:
    header = ["pos", *names]
    rows = [
        [str(start + r), *(f"{x + 0.0:.{precision}g}" for x in row)]  # + 0.0: no "-0"
        for r, row in enumerate(table.tolist())
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = [
        "  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True))
        for line in (header, *rows)
    ]
    return "\n".join(lines) + "\n"


def _as_csv(table: np.ndarray, start: int, names: list[str]) -> str:
    lines = [",".join(["pos", *names])]
    lines += [",".join([str(start + r), *row]) for r, row in enumerate(_shortest(table))]
    return "\n".join(lines) + "\n"


def _as_json(table: np.ndarray) -> str:
    rows = ["  [" + ", ".join(row) + "]" for row in _shortest(table)]
    return "[\n" + ",\n".join(rows) + "\n]\n" if rows else "[]\n"


def _write_npy(table: np.ndarray, output: str | None, stdout: TextIO) -> None:
    if output is not None:
        with _open(output, "wb") as file:
            np.save(file, table)
        return
    if stdout.isatty():
        raise _UsageError("npy output is binary: give -o FILE or redirect standard output")
    stdout.flush()
    np.save(stdout.buffer, table)
    stdout.buffer.flush()


def _open(path: str, mode: str):
    try:
        if "b" in mode:
            return open(path, mode)  # closed by the caller's with-block
        return open(path, mode, encoding="utf-8", newline="\n")
    except OSError as error:
        raise _UsageError(f"cannot write {path!r}: {error.strerror or error}") from None


# --------------------------------------------------------------------------------------
# posenc exercise

_EXERCISE_EPILOG = """\
Each exercise is a page of the posenc site (Exercises). Write a Python file that
defines solve, then check it: it runs in a separate process, on the worked examples
of the page and on unseen cases, and the report names the first wrong entry and, when
it recognises the mistake, what to change.

examples:
  posenc exercise list
  posenc exercise show E1
  posenc exercise check E1 my_solution.py
  posenc exercise check E3 my_solution.py --timeout 30 --seed 7

exit status of check: 0 when every case passes, 1 when one does not, 2 on bad input
"""


def _add_exercise(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "exercise",
        help="list, show and check the exercises of the posenc pages",
        description="The exercises of the posenc pages: read a task, then check your solution.",
        epilog=_EXERCISE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(title="actions", dest="action", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="list the exercises")
    listing.set_defaults(run=_run_exercise_list)
    show = actions.add_parser("show", help="print the task of an exercise")
    show.add_argument("exercise", metavar="EXERCISE", help="E1, E2 or E3")
    show.set_defaults(run=_run_exercise_show)
    check = actions.add_parser(
        "check",
        help="run your solve on every case and report the first problem",
        description="Run the solve of FILE on every case of EXERCISE and report.",
        epilog="exit status: 0 when every case passes, 1 when one does not, 2 on bad input",
    )
    check.add_argument("exercise", metavar="EXERCISE", help="E1, E2 or E3")
    check.add_argument("file", metavar="FILE", help="your Python file, which defines solve")
    check.add_argument(
        "--timeout",
        type=float,
        default=exercises.TIMEOUT,
        metavar="SECONDS",
        help=f"time allowed for all the cases together (default {exercises.TIMEOUT:g})",
    )
    check.add_argument(
        "--seed", type=int, default=0, help="draws other unseen cases (an integer >= 0; default 0)"
    )
    check.set_defaults(run=_run_exercise_check)


def _run_exercise_list(args: argparse.Namespace, stdout: TextIO) -> int:
    stdout.write(exercises.listing())
    return EXIT_OK


def _run_exercise_show(args: argparse.Namespace, stdout: TextIO) -> int:
    stdout.write(exercises.show(args.exercise))
    return EXIT_OK


def _run_exercise_check(args: argparse.Namespace, stdout: TextIO) -> int:
    exercise = exercises.exercise(args.exercise)
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise _UsageError(f"timeout must be a number of seconds > 0, got {args.timeout!r}")
    seed = _validate.integer("seed", args.seed)
    path = Path(args.file)
    if path.is_dir():
        raise _UsageError(f"cannot read {args.file!r}: it is a directory, not a Python file")
    try:
        path.read_bytes()
    except OSError as error:
        raise _UsageError(f"cannot read {args.file!r}: {error.strerror or error}") from None
    report = exercises.check(exercise.key, path, timeout=args.timeout, seed=seed)
    stdout.write(report.text)
    stdout.flush()
    return EXIT_OK if report.passed else EXIT_NOT_PASSED


# --------------------------------------------------------------------------------------
# The command line.

_COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    _add_table,
    _cli_identify.add_parser,
    _add_exercise,
)


def _parser() -> _Parser:
    parser = _Parser(
        prog="posenc",
        description=(
            "Positional encodings in transformers: exact tables in any library's convention, "
            "identifying a table, and the checker of the exercises."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    commands.required = True
    for add in _COMMANDS:
        add(commands)
    return parser


def _version() -> str:
    from posenc import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``posenc`` command line and return its exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        0 on success; 1 when ``exercise check`` finds the solution does not pass yet, or
        ``identify`` finds no convention that explains the table; 2 on bad input (after one
        line on standard error).

    Examples
    --------
    >>> main(["table", "--length", "2", "--width", "2"])
    pos      sin0      cos0
      0         0         1
      1  0.841471  0.540302
    0
    """
    stdout = sys.stdout
    try:
        args = _parser().parse_args(argv)
        return args.run(args, stdout)
    except (_UsageError, ValueError, TypeError) as error:
        print(f"posenc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away, as in `posenc table ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as error:  # for example a full disk while writing -o FILE
        print(f"posenc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as done:  # --help and --version
        if done.code is None:
            return EXIT_OK
        return done.code if isinstance(done.code, int) else EXIT_USAGE
