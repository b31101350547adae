"""``posenc exercise``: list the exercises, show one, check a reader's solution.

``posenc exercise check E1 my_solution.py`` runs the solution's ``solve`` through
:func:`posenc.exercises.check` and prints its report. Exit status: 0 when every case
passes, 1 when one does not, 2 on bad input (``posenc: error: ...`` on one line, from
``posenc.cli.main``).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from posenc import _validate, exercises
from posenc.exercises.checker import LONGEST, SOLUTION_LIMIT

__all__ = ["add_parser"]

EXIT_PASSED = 0
EXIT_NOT_PASSED = 1  # the solution does not pass yet

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
  posenc exercise check E1 my_solution.py --memory 4096

limits of check: your solve runs with a time limit (--timeout), a CPU-time limit to
match and a memory limit (--memory); no process it starts outlives the check. It
runs in a process that holds no answer and cannot import posenc: the answers are
compared in this one

exit status of check: 0 when every case passes, 1 when one does not, 2 on bad input
"""


def _keys() -> str:
    """The exercises as a range, 'E1 to E7', from the list itself."""
    keys = list(exercises.EXERCISES)
    return f"{keys[0]} to {keys[-1]}"


def add_parser(commands: argparse._SubParsersAction) -> None:
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
    show.add_argument("exercise", metavar="EXERCISE", help=_keys())
    show.set_defaults(run=_run_exercise_show)
    check = actions.add_parser(
        "check",
        help="run your solve on every case and report the first problem",
        description="Run the solve of FILE on every case of EXERCISE and report.",
        epilog="exit status: 0 when every case passes, 1 when one does not, 2 on bad input",
    )
    check.add_argument("exercise", metavar="EXERCISE", help=_keys())
    check.add_argument(
        "file",
        metavar="FILE",
        help=f"your Python file, which defines solve (at most {SOLUTION_LIMIT >> 20} MB)",
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=exercises.TIMEOUT,
        metavar="SECONDS",
        help=f"time allowed for all the cases together, above 0 and at most {LONGEST} "
        f"(default {exercises.TIMEOUT:g})",
    )
    check.add_argument(
        "--seed", type=int, default=0, help="draws other unseen cases (an integer >= 0; default 0)"
    )
    low, high = exercises.checker.MEMORY_RANGE
    check.add_argument(
        "--memory",
        type=int,
        default=exercises.MEMORY,
        metavar="MB",
        help=f"memory your solution may use, in MB from {low} to {high} "
        f"(default {exercises.MEMORY})",
    )
    check.set_defaults(run=_run_exercise_check)


def _run_exercise_list(args: argparse.Namespace, stdout: TextIO) -> int:
    stdout.write(exercises.listing())
    return EXIT_PASSED


def _run_exercise_show(args: argparse.Namespace, stdout: TextIO) -> int:
    stdout.write(exercises.show(args.exercise))
    return EXIT_PASSED


def _run_exercise_check(args: argparse.Namespace, stdout: TextIO) -> int:
    exercise = exercises.exercise(args.exercise)
    seed = _validate.integer("seed", args.seed)
    timeout, memory = exercises.checker.limits(args.timeout, args.memory)
    # The file is judged before anything runs: a FIFO, a device, a directory or a file
    # above the size limit is one line and exit status 2 (ValueError, in posenc.cli).
    report = exercises.check(exercise.key, args.file, timeout=timeout, seed=seed, memory=memory)
    stdout.write(report.text)
    stdout.flush()
    return EXIT_PASSED if report.passed else EXIT_NOT_PASSED
