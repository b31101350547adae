"""Mark a reader's solution: run it in a child process, judge its answers, explain.

The child (``_child.work``) only calls ``solve`` and saves what it returns, under a
time limit. The parent computes the expected answers with the library and reports the
first problem in one paragraph: an answer of the wrong type or shape, the first wrong
entry, an exception with the solution's own line, a timeout, or a process that ended.
A wrong answer is then compared with the exercise's known mistakes (formulas written
out in ``e1``, ``e2``, ``e3``); if one of them reproduces every answer the solution
gave, its hint is shown. Nothing from the checker's own stack is ever printed.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from posenc.exercises._base import TOLERANCE, Case, Exercise, Mistake
from posenc.exercises._child import failure, fresh, record

#: Default time limit, in seconds, for loading a solution and answering every case.
TIMEOUT = 10.0

_WRAP = 78  # columns of the report's paragraphs: an 80-column terminal, or a page

# The child puts the directory that holds this copy of posenc first on its path, so it
# imports the same posenc as the parent and never a posenc.py in the current directory.
CHILD = (
    "import sys; sys.path[0] = sys.argv[1]; "
    "from posenc.exercises._child import work; work(sys.argv[2:])"
)


@dataclass(frozen=True)
class Report:
    """The outcome of a check: passed or not, the text to show, the mistake if known."""

    passed: bool
    text: str
    mistake: str | None = None


# --------------------------------------------------------------------------------------
# Running the child.


def _run(e: Exercise, solution: Path, out: Path, timeout: float, seed: int):
    """Run the child to the end or the time limit: ``(timed_out, returncode, stderr)``."""
    root = str(Path(__file__).resolve().parents[2])  # the directory that holds posenc/
    command = [sys.executable, "-c", CHILD, root, e.key, str(seed), str(solution), str(out)]
    posix = os.name == "posix"
    with open(out / "stderr.txt", "wb") as err:
        child = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # the solution's prints are caught inside the child
            stderr=err,
            start_new_session=posix,  # a group of its own, so a timeout stops all of it
        )
        try:
            child.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if child.poll() is None:
                if posix:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(child.pid, signal.SIGKILL)
                else:
                    child.kill()
                child.wait()
    stderr = (out / "stderr.txt").read_bytes()[:4000].decode("utf-8", "replace")
    return timed_out, child.returncode, stderr


def _json(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _answers(out: Path, cases: list[Case]) -> dict[int, tuple[dict, np.ndarray | None]]:
    """Case number -> (what the child saw, the answer as an array or None)."""
    found = {}
    for case in cases:
        meta = _json(out / f"{case.number}.json")
        if meta is None:
            break
        npy = out / f"{case.number}.npy"
        found[case.number] = (
            meta,
            np.load(npy, allow_pickle=False) if meta.get("array") else None,
        )
    return found


# --------------------------------------------------------------------------------------
# Words.


def _trim(text: object, limit: int = 100) -> str:
    """One printable line of at most ``limit`` characters."""
    line = " ".join(str(text).split())
    line = "".join(ch if ch.isprintable() else "?" for ch in line)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _numbers(want: float, got: float) -> tuple[str, str]:
    """Two numbers to 6 significant digits, or in full when those would look equal."""
    a, b = f"{float(want) + 0.0:.6g}", f"{float(got) + 0.0:.6g}"  # + 0.0: no "-0"
    if a == b:
        a, b = repr(float(want) + 0.0), repr(float(got) + 0.0)
    return a, b


def _fill(paragraph: str) -> str:
    """Wrap a paragraph, keeping each `code span` and short (bracket) on one line."""
    kept = re.sub(r"`[^`]*`|\([^()`]{1,24}\)", lambda m: m.group(0).replace(" ", "\0"), paragraph)
    return textwrap.fill(kept, _WRAP, break_long_words=False, break_on_hyphens=False).replace(
        "\0", " "
    )


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _case(e: Exercise, case: Case, total: int) -> str:
    kind = "a worked example" if case.worked else "an unseen case"
    return f"Case {case.number} of {total} ({kind}), {e.describe(*case.args)}"


# --------------------------------------------------------------------------------------
# Judging.


def _shape_problem(e: Exercise, meta: dict, array: np.ndarray | None, shape) -> str | None:
    """What is wrong with the type or the shape of an answer, or None."""
    if array is None:
        if meta["type"] == "NoneType":
            return (
                f"solve returned None. It must return {e.returns}. Is the return "
                "statement missing?"
            )
        what = f"solve returned {meta['type']} {_trim(meta['repr'], 60)}"
        if meta.get("problem"):  # NumPy could not make one array of it
            return (
                f"{what}, which does not make one array of numbers: are its rows of "
                f"different lengths? It must return {e.returns}."
            )
        return f"{what}, which is not numbers. It must return {e.returns}."
    if meta.get("kind") == "c":
        return f"solve returned complex numbers. It must return {e.returns}."
    if meta.get("kind") == "b":
        return f"solve returned True/False values. It must return {e.returns}."
    if array.shape == tuple(shape) or (array.size == 0 and math.prod(shape) == 0):
        return None
    text = f"solve returned an array of shape {array.shape}. It must have shape {tuple(shape)}."
    if len(shape) == 2 and array.shape == tuple(reversed(shape)):
        text += " Rows and columns look swapped."
    elif e.key == "E1" and array.shape == (shape[0], shape[1] // 2):
        text += " That is one column per pair; a pair needs two, its sine and its cosine."
    elif e.key == "E3":
        text += " Return the two largest differences, two numbers, not the arrays."
    return text


def _first_wrong(e: Exercise, case: Case, want: np.ndarray, got: np.ndarray) -> str | None:
    """The first wrong entry in reading order, in words, or None if all are right."""
    if want.size == 0:
        return None
    with np.errstate(all="ignore"):
        wrong = ~(np.abs(got - want) <= TOLERANCE)  # NaN is wrong too
    if not wrong.any():
        return None
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    a, b = _numbers(want[index], got[index])
    return f"the first wrong entry is {e.where(case.args, index)}: expected {a}, got {b}."


def _agrees(got: np.ndarray, theirs: np.ndarray, tolerance: float) -> bool:
    if got.shape != theirs.shape:
        return False
    with np.errstate(all="ignore"):
        close = np.abs(got - theirs) <= tolerance
        same = (got == theirs) | (np.isnan(got) & np.isnan(theirs))  # infinities, NaN
    return bool(np.all(close | same))


def mistake(e: Exercise, cases: list[Case], answers: dict[int, np.ndarray]) -> Mistake | None:
    """The first known mistake that gives every answer the solution gave, or None."""
    for known in e.mistakes:
        agrees = True
        for case in cases:
            if case.number not in answers:
                continue
            try:
                with np.errstate(all="ignore"):
                    theirs = np.asarray(known.formula(*case.args), dtype=np.float64)
            except (ArithmeticError, ValueError):  # the formula breaks here, and so would theirs
                continue
            if not _agrees(answers[case.number], theirs, known.tolerance):
                agrees = False
                break
        if agrees:
            return known
    return None


# --------------------------------------------------------------------------------------
# A solution that did not answer.


def _error_text(e: Exercise, name: str, error: dict, cases: list[Case]) -> str:
    """One paragraph on a solution that could not load, or whose solve did not return."""
    at = ""
    if error.get("line"):
        at = f", at line {error['line']} of {name}: `{_trim(error.get('code', ''), 70)}`"
    kind = error["kind"]
    if error["stage"] == "load":
        if kind == "syntax":
            where = f"line {error['line']}"
            where += f", column {error['column']}" if error.get("column") else ""
            return (
                f"Python cannot read {error.get('file') or name}: {error['message']}, at "
                f"{where}: `{_trim(error['code'], 70)}`. Fix that line and check again."
            )
        if kind == "no solve":
            return (
                f"{name} loads, but defines no function named solve. The checker calls "
                f"{e.signature}; `posenc exercise show {e.key}` prints the task."
            )
        if kind == "not callable":
            return (
                f"In {name}, solve is {_article(error['type'])} {error['type']}, not a "
                f"function. Write `def {e.signature}:` and return the answer."
            )
        if kind == "exit":
            return (
                f"Loading {name} ended the program with SystemExit({error['message']}){at}. "
                "The checker imports your file; put the code that tries your solution "
                'under `if __name__ == "__main__":`.'
            )
        return (
            f"Loading {name} raised {error['type']}: {_trim(error['message'])}{at}. The "
            "code outside solve runs when the checker imports the file. Fix it and check "
            "again."
        )
    words = _case(e, cases[error["case"] - 1], len(cases))
    if kind == "exit":
        return (
            f"{words}: solve ended the program with SystemExit({error['message']}){at}. "
            "solve must return its answer; sys.exit() and exit() stop the checker instead."
        )
    text = f"{words}: solve raised {error['type']}: {_trim(error['message'])}{at}."
    if not error.get("line") and error["type"] == "TypeError":
        text += f" The checker calls {e.signature}, with the arguments in that order."
    return text + " Fix the error and check again."


def _ended_text(e: Exercise, name: str, run, cases: list[Case], timeout: float) -> str:
    """One paragraph on a child that ran out of time, or ended without a word."""
    running = next((c for c in cases if c.number not in run.answers), None)
    if not run.loaded:
        doing = f"it was still loading {name} (the code outside solve)"
    elif running is not None:
        doing = f"it was still in {_case(e, running, len(cases)).replace('Case', 'case', 1)}"
    else:
        doing = "it had answered every case"
    if run.timed_out:
        return (
            f"Your solution did not finish within {timeout:g} s: {doing}, when the checker "
            "stopped it. Look for a loop that never ends, or one that does far more work "
            "than the formula needs. If it is only slow, allow more time with --timeout."
        )
    code = run.returncode
    how = f"exit status {code}"
    if code < 0:
        try:
            how = f"signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"signal {-code}"
    text = (
        f"The process running your solution ended ({how}) before solve returned: {doing}. "
        "Something in it ends the process, such as os._exit() or a crash in compiled "
        "code. solve must return its answer."
    )
    last = [line for line in run.stderr.splitlines() if line.strip()]
    if last:
        text += f" Its last words on standard error: '{_trim(last[-1], 80)}'."
    return text


def _printed(status: dict | None) -> str | None:
    printed = (status or {}).get("printed") or {}
    if not printed.get("chars"):
        return None
    lines = [line for line in printed["head"].splitlines() if line.strip()] or [""]
    return (
        f"Note: your solution printed {printed['chars']:,} characters while it was checked "
        f"(the first line: '{_trim(lines[0], 60)}'). That is fine while you work; the "
        "checker ignores it."
    )


# --------------------------------------------------------------------------------------
# The check.


@dataclass(frozen=True)
class Run:
    """What one run of a solution left: answers by case, final status, how it ended."""

    answers: dict[int, tuple[dict, np.ndarray | None]]
    status: dict | None
    loaded: bool
    timed_out: bool = False
    returncode: int = 0
    stderr: str = ""


def check(e: Exercise, solution: Path, *, timeout: float = TIMEOUT, seed: int = 0) -> Report:
    """Run ``solution`` on every case of ``e`` and judge; see :func:`posenc.exercises.check`."""
    cases = e.cases(seed)
    with tempfile.TemporaryDirectory(prefix="posenc-exercise-") as tmp:
        out = Path(tmp)
        timed_out, returncode, stderr = _run(e, solution, out, timeout, seed)
        run = Run(
            answers=_answers(out, cases),
            status=_json(out / "status.json"),
            loaded=(out / "loaded").is_file(),
            timed_out=timed_out,
            returncode=returncode,
            stderr=stderr,
        )
    return judge(e, cases, run, name=solution.name, timeout=timeout, seed=seed)


def check_function(e: Exercise, solve, *, seed: int = 0) -> Report:
    """Judge a ``solve`` function in this process: no time limit and no protection.

    For tests and notebooks. Warnings are recorded and dropped, as the child drops
    them; but a ``solve`` that hangs hangs the caller, and one that exits ends it.
    :func:`check` runs a file in a child process instead.
    """
    cases = e.cases(seed)
    source = Path(getattr(getattr(solve, "__code__", None), "co_filename", "<none>")).resolve()
    answers, status = {}, {"ok": True}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for case in cases:
            try:
                value = solve(*fresh(case.args))
            except Exception as error:
                status = {"error": failure(error, source, "solve", case.number)}
                break
            answers[case.number] = record(value)
    run = Run(answers=answers, status=status, loaded=True)
    return judge(e, cases, run, name=source.name, seed=seed)


def judge(
    e: Exercise, cases: list[Case], run: Run, *, name: str, timeout: float = TIMEOUT, seed: int = 0
) -> Report:
    """The report on one run: the first problem in case order, with a hint if known."""
    problem, known, hint = None, None, None
    arrays: dict[int, np.ndarray] = {}  # the answers of the right type and shape, by case
    for case in cases:
        if case.number not in run.answers:
            break
        meta, array = run.answers[case.number]
        shape = e.shape(*case.args)
        problem = _shape_problem(e, meta, array, shape)
        if problem is not None:
            problem = f"{_case(e, case, len(cases))}: {problem}"
            break
        arrays[case.number] = array.reshape(shape).astype(np.float64)
    for case in cases:  # a wrong entry comes before any later problem
        if case.number not in arrays:
            break
        wrong = _first_wrong(e, case, e.expected(*case.args), arrays[case.number])
        if wrong is not None:
            problem = f"{_case(e, case, len(cases))}: {wrong}"
            if e.extra is not None:
                problem += " " + e.extra(case.args, arrays[case.number])
            for later, (_, array) in run.answers.items():  # every answer is evidence
                shape = e.shape(*cases[later - 1].args)
                if later not in arrays and array is not None and array.size == math.prod(shape):
                    arrays[later] = array.reshape(shape).astype(np.float64)
            known = mistake(e, cases, arrays)
            hint = known.hint if known is not None else e.fallback(*case.args)
            break
    status = run.status
    if problem is None and status is not None and status.get("error"):
        problem = _error_text(e, name, status["error"], cases)
    elif problem is None and (run.timed_out or status is None or not status.get("ok")):
        problem = _ended_text(e, name, run, cases, timeout)
    title = f"{e.key}, {e.title[0].lower()}{e.title[1:]}"
    if problem is None:
        worked = sum(c.worked for c in cases)
        parts = [
            f"{title}: {name} passes all {len(cases)} cases ({worked} worked examples, "
            f"{len(cases) - worked} unseen ones drawn with seed {seed})."
        ]
    else:
        parts = [f"{title}: {name} does not pass yet.", problem]
        if hint is not None:
            parts.append(f"Hint: {hint}")
    note = _printed(status)
    if note is not None:
        parts.append(note)
    text = "\n\n".join(_fill(p) for p in parts)
    return Report(passed=problem is None, text=text + "\n", mistake=known and known.name)
