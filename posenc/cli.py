"""The ``posenc`` command: position-code tables from the shell.

``posenc table --length 3 --width 4`` prints the table of Vaswani et al. (2017),
section 3.5, for positions 0, 1, 2 and width 4. Other formats (``csv``, ``json``,
``npy``) are for programs. ``posenc exercise check E1 my_solution.py`` marks a
reader's solution to an exercise of the pages (exit status 0 when it passes, 1 when
it does not). Bad input is reported on one line of standard error,
``posenc: error: <message>``, with exit status 2; there is never a traceback (a bug
in posenc is one line too, ``posenc: internal error: ...``, with status 70). Each run
plans its memory within one limit (``--memory MB``; by default 2000 MB or half the
machine's memory, :func:`posenc._validate.command_limit`).
Files written with ``-o`` are written atomically and never overwritten without
``--force`` (:mod:`posenc._output`); Ctrl-C and SIGTERM end the command with one line
and status 130 or 143.

Subcommands live in ``_COMMANDS``; each is a function that adds its parser and one
that runs it, so later ones (``identify``, ``exercise``) slot in beside ``table``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

import numpy as np

from posenc import (
    _cli_config,
    _cli_exercise,
    _cli_identify,
    _output,
    _progress,
    _validate,
    conventions,
    encoding,
)

__all__ = ["main"]

EXIT_OK = 0
EXIT_BROKEN_PIPE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 70  # EX_SOFTWARE of sysexits.h: a bug in posenc, not in its input


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

output files:
  -o FILE is written whole or not at all: into a temporary file beside FILE, which
  takes FILE's name only once every byte is on the disk. An existing FILE is never
  overwritten unless --force is given; a failure (a full disk, Ctrl-C) leaves it as
  it was. A FILE that is a device or a FIFO (/dev/stdout, a named pipe) is written
  in place.

sizes: a table that needs more memory (with its intermediates) than the limit is
refused before anything is computed, with the bytes it would need. The limit is
2000 MB, or half of this machine's memory if that is less; --memory MB sets
another (never above the machine's memory).

examples:
  posenc table --length 3 --width 4
  posenc table --length 1024 --width 512 --format csv -o table.csv
  posenc table --length 1024 --width 512 --format npy -o table.npy --force
  posenc table --length 8 --width 16 --start 100000 --dtype float32 --format json
  posenc table --length 4 --width 8 --convention fairseq --path emulated
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
        "--path",
        default="exact",
        choices=("exact", "emulated"),
        help="with --convention: the formula's values rounded once to the library's dtype "
        "(exact, the default), or the library's operations in order, in NumPy (emulated); "
        "the paper's table is the same either way",
    )
    parser.add_argument(
        "--format", default="text", choices=("text", "csv", "json", "npy"), dest="fmt"
    )
    parser.add_argument(
        "--precision", type=int, default=6, help="significant digits in text format (1..17)"
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically), not stdout"
    )
    parser.add_argument("-f", "--force", action="store_true", help="overwrite FILE if it exists")
    parser.set_defaults(run=_run_table)


def _run_table(args: argparse.Namespace, stdout: TextIO | None) -> int:
    if not 1 <= args.precision <= 17:
        raise _UsageError(f"precision must be an integer from 1 to 17, got {args.precision}")
    if args.output is not None:
        _output.check(args.output, force=args.force)  # refuse before computing, not after
    elif stdout is None:
        raise _UsageError("standard output is closed: give -o FILE")
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
            path=args.path,
        )
        if args.start is None:
            args.start = conventions.CONVENTIONS[args.convention].start
    # The column names, then a row of cells at a time: about 160 bytes per column.
    _validate.memory(f"width={table.shape[1]}", 160 * table.shape[1])
    names = _column_names(table.shape[1], args.convention)
    if args.fmt == "npy":
        _write_npy(table, args.output, args.force, stdout)
        return EXIT_OK
    # A status line on a terminal's standard error for a long write, unless the table
    # itself is being printed on that terminal.
    quiet = args.output is None and _isatty(stdout)
    with _progress.Status("posenc table", enabled=not quiet) as status:
        if args.fmt == "text":
            chunks = _as_text(table, args.start, args.precision, names, status)
        elif args.fmt == "csv":
            chunks = _as_csv(table, args.start, names)
        else:
            chunks = _as_json(table)
        rows = table.shape[0]
        step = max(1, _CHUNK_ENTRIES // max(1, table.shape[1]))
        if args.output is None:
            for k, chunk in enumerate(chunks):
                status(f"writing row {min(k * step, rows)} of {rows}")
                stdout.write(chunk)
            stdout.flush()
        else:
            with _output.atomic(args.output, force=args.force) as file:
                for k, chunk in enumerate(chunks):
                    status(f"writing row {min(k * step, rows)} of {rows}")
                    file.write(chunk)
    return EXIT_OK


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


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


#: Table entries formatted at a time: the text is written in pieces of about a megabyte,
#: so a table that fits in memory never needs its text to fit too.
_CHUNK_ENTRIES = 2**16


def _blocks(table: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, rows)`` of the table, a few thousand entries at a time."""
    rows = max(1, _CHUNK_ENTRIES // max(1, table.shape[1]))
    for top in range(0, table.shape[0], rows):
        yield top, table[top : top + rows]


def _shortest(table: np.ndarray) -> list[list[str]]:
    """Each value as the shortest decimal that reads back to the same number."""
    if table.dtype == np.float64:
        return [[repr(x + 0.0) for x in row] for row in table.tolist()]
    return [[str(x + 0) for x in row] for row in table]  # NumPy prints float32/16 shortest


def _as_text(
    table: np.ndarray, start: int, precision: int, names: list[str], status=None
) -> Iterator[str]:
    """The text table, in pieces: a first pass finds the column widths, a second writes."""

    def cells(top: int, block: np.ndarray) -> list[list[str]]:
        return [
            [str(start + top + r), *(f"{x + 0.0:.{precision}g}" for x in row)]  # + 0.0: no "-0"
            for r, row in enumerate(block.tolist())
        ]

    header = ["pos", *names]
    widths = [len(cell) for cell in header]
    for top, block in _blocks(table):
        if status is not None:
            status(f"measuring row {top} of {table.shape[0]}")
        for row in cells(top, block):
            widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(row: list[str]) -> str:
        return "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)) + "\n"

    yield line(header)
    for top, block in _blocks(table):
        yield "".join(line(row) for row in cells(top, block))


def _as_csv(table: np.ndarray, start: int, names: list[str]) -> Iterator[str]:
    yield ",".join(["pos", *names]) + "\n"
    for top, block in _blocks(table):
        rows = _shortest(block)
        yield "".join(",".join([str(start + top + r), *row]) + "\n" for r, row in enumerate(rows))


def _as_json(table: np.ndarray) -> Iterator[str]:
    if not table.shape[0]:
        yield "[]\n"
        return
    yield "[\n"
    for top, block in _blocks(table):
        rows = ["  [" + ", ".join(row) + "]" for row in _shortest(block)]
        yield ("" if top == 0 else ",\n") + ",\n".join(rows)
    yield "\n]\n"


def _write_npy(table: np.ndarray, output: str | None, force: bool, stdout: TextIO | None) -> None:
    if output is not None:
        with _output.atomic(output, force=force, binary=True) as file:
            np.save(file, table)
        return
    if stdout.isatty():
        raise _UsageError("npy output is binary: give -o FILE or redirect standard output")
    stdout.flush()
    np.save(stdout.buffer, table)
    stdout.buffer.flush()


# --------------------------------------------------------------------------------------
# The command line.

_COMMANDS: tuple[Callable[[argparse._SubParsersAction], None], ...] = (
    _add_table,
    _cli_identify.add_parser,
    _cli_config.add_parser,
    _cli_exercise.add_parser,
)


#: Subcommands that take ``--memory MB``, the limit of their run (``exercise check`` has
#: its own ``--memory``, the limit of the solution's process).
_MEMORY_OPTION = ("table", "identify")


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
    for name in _MEMORY_OPTION:
        _validate.add_memory_option(commands.choices[name])
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
        line on standard error), including input that would exhaust memory, nests too
        deeply or holds a number too large; 70 after a bug in posenc (one line,
        ``posenc: internal error: ...``; the traceback when the environment sets
        ``POSENC_DEBUG=1``); 130 after Ctrl-C and 143 after SIGTERM (one line,
        ``posenc: interrupted`` or ``posenc: terminated``, once every ``finally`` block
        has run: while ``main`` runs in the main thread, SIGTERM raises an exception, and
        the previous handler is restored when it returns).

    Examples
    --------
    >>> main(["table", "--length", "2", "--width", "2"])
    pos      sin0      cos0
      0         0         1
      1  0.841471  0.540302
    0
    """
    previous = _catch_sigterm()
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130, as a shell reports a process killed by Ctrl-C
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143


class _Terminated(BaseException):
    """SIGTERM, raised where the main thread is, so that every ``finally`` block runs.

    A ``BaseException``, as ``KeyboardInterrupt`` is, so that no ``except Exception``
    on the way swallows it (the exercise checker kills its children in ``finally``).
    """


def _on_sigterm(signum, frame):
    raise _Terminated


def _catch_sigterm():
    """Turn SIGTERM into :class:`_Terminated`; return the handler to restore, or None.

    Only the main thread may set a handler; called from another thread, ``main`` leaves
    SIGTERM alone.
    """
    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread of the main interpreter
        return None


#: Longest message printed, in characters: a message may quote its input, and the user
#: needs its two ends (what failed, and why), not 5 MB of a file between them.
_MAX_MESSAGE = 400


def _one_line(error: BaseException | str) -> str:
    """The message of ``error`` on one line, its middle elided past ``_MAX_MESSAGE``.

    >>> _one_line(ValueError("a\\n  b " + "x" * 1000 + " the end"))[-30:]
    'xxxxxxxxxxxxxxxxxxxxxx the end'
    >>> len(_one_line(ValueError("x" * 1000)))
    400
    """
    text = " ".join(str(error).split()) or type(error).__name__
    if len(text) <= _MAX_MESSAGE:
        return text
    cut = " ... "
    head = (_MAX_MESSAGE - len(cut)) * 2 // 3
    tail = _MAX_MESSAGE - len(cut) - head
    return text[:head] + cut + text[-tail:]


def _described(error: BaseException) -> str:
    """``Type: message``, on one line (for errors whose type says what happened)."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


#: Errors of the machine, not of an argument, that a hostile input can still cause, and
#: what to tell the user about each ({} is the error itself).
_EXHAUSTED = (
    (MemoryError, "out of memory ({}); with a lower --memory MB such input is refused sooner"),
    (RecursionError, "the input nests too deeply to be read ({})"),
    (OverflowError, "a number in the input is too large ({})"),
)


def _main(argv: Sequence[str] | None) -> int:
    stdout = sys.stdout  # None when the shell closed it (posenc ... >&-)
    try:
        args = _parser().parse_args(argv)
        if stdout is None and getattr(args, "output", None) is None:
            raise _UsageError("standard output is closed: there is nowhere to print")
        limit = _validate.command_limit(getattr(args, _validate.MEMORY_DEST, None))
        with _validate.limited(*limit):  # one limit for the whole run: every reader checks it
            return args.run(args, stdout)
    except (_UsageError, _output.OutputError, ValueError, TypeError) as error:
        print(f"posenc: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_USAGE
    except (MemoryError, RecursionError, OverflowError) as error:
        words = next(w for kind, w in _EXHAUSTED if isinstance(error, kind))
        print(f"posenc: error: {_one_line(words.format(_described(error)))}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away, as in `posenc table ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as error:  # for example a full disk while writing to standard output
        print(f"posenc: error: {_one_line(error)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("posenc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _Terminated:
        print("posenc: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except SystemExit as done:  # --help and --version
        if done.code is None:
            return EXIT_OK
        return done.code if isinstance(done.code, int) else EXIT_USAGE
    except Exception as error:  # a bug: one line a user can report, the traceback on request
        if os.environ.get("POSENC_DEBUG", "") not in ("", "0"):
            raise
        print(
            f"posenc: internal error: {_one_line(_described(error))} "
            "(please report it; POSENC_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
