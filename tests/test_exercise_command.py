"""``posenc exercise check`` under odd arguments (issue 32): a report or one line, never a trace.

Every outcome is exit status 0 or 1 with the checker's report on standard output and
nothing on standard error, or 2 with one line ``posenc: error: ...`` on standard error
and nothing on standard output. The paths include what once went wrong: a FIFO (the
command blocked forever on it), ``/dev/zero`` (a MemoryError traceback), and a time
limit of ``1e308`` (exit status 1 and a message about ``preexec_fn``, from the limit on
CPU time that no float that large fits).

The hypothesis profile is fixed, as in ``test_fuzz.py``: the same examples on every run.
A drawn call that gets as far as running a solution starts a child process, so the
number of examples is kept small, and the solutions answer at once.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from posenc.cli import main
from posenc.exercises import EXERCISES, checker

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=80,
    suppress_health_check=[HealthCheck.too_slow],
)

ONE_LINE = re.compile(r"posenc: error: [^\n]+\n")

# E4 answers at once: the slopes 2**(-8h/n), h = 1 .. n, for a power of two n, and the
# rule of the ALiBi code (the closest power of two, then every other slope of twice as
# many heads) for the others.
RIGHT = """\
import math


def solve(num_heads):
    def powers(n):
        return [2 ** (-8 * h / n) for h in range(1, n + 1)]

    closest = 2 ** math.floor(math.log2(num_heads))
    extra = powers(2 * closest)[0::2][: num_heads - closest]
    return powers(closest) + extra
"""

WRONG = "def solve(num_heads):\n    return [0.5] * num_heads\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Paths of every kind, by name: solutions, and what is not a solution file."""
    folder = tmp_path_factory.mktemp("command")
    (folder / "right.py").write_text(RIGHT)
    (folder / "wrong.py").write_text(WRONG)
    (folder / "empty.py").write_text("")
    (folder / "latin1.py").write_bytes(b"# caf\xe9\ndef solve(n):\n    return [0.5] * n\n")
    os.mkfifo(folder / "fifo.py")
    os.symlink(folder / "fifo.py", folder / "link_to_fifo.py")
    (folder / "folder.py").mkdir()
    with open(folder / "huge.py", "wb") as huge:  # sparse: no disk space taken
        huge.truncate(checker.SOLUTION_LIMIT + 1)
    paths = {path.stem: str(path) for path in folder.iterdir()}
    paths.update(zero="/dev/zero", null="/dev/null", missing=str(folder / "missing.py"))
    return paths


def run(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process; its exit status, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def assert_documented(status: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err
    if status == 2:
        assert out == "", out
        assert ONE_LINE.fullmatch(err), err
    else:
        assert status in (0, 1), (status, err)
        assert err == "", err
        assert re.match(r"E\d, .+: \S+ (passes all|does not pass yet)", out), out


numbers_as_text = st.one_of(
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e308", "1e-300", "86400", "86400.5", "0x10", ""]),
    st.text(max_size=6),
)
timeouts = st.one_of(st.sampled_from(["0.001", "0.5", "5", "30", "86400"]), numbers_as_text)
seeds = st.one_of(st.integers(0, 2**70).map(str), numbers_as_text)
memories = st.one_of(st.sampled_from(["256", "2048", "16777216"]), numbers_as_text)
SOLUTIONS = ["right", "wrong", "empty", "latin1"]
NOT_SOLUTIONS = ["fifo", "link_to_fifo", "folder", "huge", "zero", "null", "missing"]

# In range: every call runs a solution (a time limit of a millisecond runs out at once).
in_range = st.tuples(
    st.floats(min_value=0.001, max_value=86400).map(repr),
    st.integers(0, 2**70).map(str),
    st.sampled_from(["256", "300", "2048", "16777216"]),
)


def option(name: str, values) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [name, v]))


@FUZZ
@given(
    exercise=st.sampled_from(["E4", "e4", "4", "E1", "E9", ""]),
    name=st.one_of(st.sampled_from(SOLUTIONS), st.sampled_from(NOT_SOLUTIONS)),
    options=st.tuples(
        option("--timeout", timeouts), option("--seed", seeds), option("--memory", memories)
    ),
)
@example(exercise="E4", name="fifo", options=([], [], []))  # blocked forever once
@example(exercise="E4", name="zero", options=([], [], []))  # a MemoryError traceback once
@example(exercise="E4", name="right", options=(["--timeout", "1e308"], [], []))  # preexec_fn
@example(exercise="E4", name="right", options=([], [], ["--memory", str(2**64)]))
@example(exercise="E4", name="huge", options=([], [], []))
def test_check_arguments(files, exercise, name, options):
    argv = ["exercise", "check", exercise, files[name]]
    argv += [token for part in options for token in part]
    assert_documented(*run(argv))


@settings(FUZZ, max_examples=12)
@given(
    exercise=st.sampled_from(["E4", "e1", "7"]), name=st.sampled_from(SOLUTIONS), limits=in_range
)
def test_check_arguments_in_range_run_and_report(files, exercise, name, limits):
    timeout, seed, memory = limits
    argv = ["exercise", "check", exercise, files[name]]
    status, out, err = run([*argv, "--timeout", timeout, "--seed", seed, "--memory", memory])
    assert status in (0, 1), (status, err)
    assert_documented(status, out, err)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("fifo", "it is not a regular file (a FIFO)"),
        ("link_to_fifo", "it is not a regular file (a FIFO)"),
        ("zero", "it is not a regular file (a character device)"),
        ("null", "it is not a regular file (a character device)"),
        ("folder", "it is a directory"),
        ("missing", "no such file"),
        ("huge", f"it holds {checker.SOLUTION_LIMIT + 1} bytes, more than the 1048576 allowed"),
    ],
)
def test_a_file_that_is_not_a_solution_is_one_line(files, name, message):
    status, out, err = run(["exercise", "check", "E4", files[name]])
    assert (status, out) == (2, "")
    assert err == f"posenc: error: cannot read {files[name]!r}: {message}\n"


def test_a_fifo_in_a_shell_does_not_block(files):
    """As a reader runs it: exit status 2 at once, where the command once waited forever."""
    start = time.monotonic()
    child = subprocess.run(
        [sys.executable, "-m", "posenc", "exercise", "check", "E4", files["fifo"]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert child.returncode == 2 and child.stdout == ""
    assert ONE_LINE.fullmatch(child.stderr), child.stderr
    assert time.monotonic() - start < 30


TIMEOUT_RANGE = "timeout must be a number of seconds above 0 and at most 86400"
MEMORY_RANGE = "memory must be a whole number of MB from 256 to 16777216"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "1e308", f"{TIMEOUT_RANGE}, got 1e+308"),
        ("--timeout", "86400.5", f"{TIMEOUT_RANGE}, got 86400.5"),
        ("--timeout", "inf", f"{TIMEOUT_RANGE}, got inf"),
        ("--timeout", "0", f"{TIMEOUT_RANGE}, got 0.0"),
        ("--memory", "16777217", f"{MEMORY_RANGE}, got 16777217"),
        ("--memory", str(2**64), f"{MEMORY_RANGE}, got {2**64}"),
    ],
)
def test_limits_out_of_range_are_one_line_naming_the_range(files, option, value, message):
    status, out, err = run(["exercise", "check", "E4", files["right"], option, value])
    assert (status, out, err) == (2, "", f"posenc: error: {message}\n")


def test_the_largest_limits_are_accepted(files):
    status, out, err = run(
        ["exercise", "check", "E4", files["right"], "--timeout", "86400", "--memory", "16777216"]
    )
    assert (status, err) == (0, ""), err
    assert "right.py passes all 8 cases" in " ".join(out.split())


def test_help_names_every_exercise():
    keys = list(EXERCISES)
    assert keys[0] == "E1" and len(keys) == 9  # the exercises as they stand
    for action in ("check", "show"):
        status, out, _ = run(["exercise", action, "--help"])
        assert status == 0
        assert "E1 to E9" in out and "E1 to E7" not in out
