"""Mark a reader's solution: run it in a child process, judge its answers, explain.

The child only calls ``solve`` on the inputs it is sent and sends back what it returns
(``_run`` starts it, below a supervisor, with limits on time, CPU and memory, feeds it
and reads its answers; ``_child`` is the child). It holds no expected value and cannot
import posenc. Before any case it sends the signature of ``solve``, and the plan made
here from it (``_calls``) says which cases are run: all of them, or for a shorter
``solve`` such as E1's ``solve(length, width)`` those with base 10000, the report saying
how many others were not run; or none, with the reason, for a ``solve`` the checker
cannot call.
The verdict is decided here, case by case: a solution passes only when every case of the
plan has an answer, read here and compared with the expected value that the library
computes here; a case not run is never counted as passed. A missing answer is a failure
that says which case and, when it is known, why: an exception with the solution's own
line, a timeout, running out of memory or CPU time, a process that ended or stopped
answering, or answers that could not be read. Otherwise the report names the first
problem in case order: an answer of the wrong type or shape, or the first wrong entry. A
wrong answer is then compared with the exercise's known mistakes (formulas written out
in ``e1`` to ``e9``), and so is an answer of the wrong shape, shape and all (E8's speeds
without their zeros); if one of them reproduces every answer the solution gave, its hint
is shown. Nothing from the checker's own stack is ever printed.

The child is not a sandbox: it keeps mistakes and tampering from deciding a verdict or
leaving processes behind, but a solution runs as the reader and can harm what the
reader can.
"""

from __future__ import annotations

import copy
import math
import numbers
import re
import signal
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from posenc.exercises import _calls, _run
from posenc.exercises._base import TOLERANCE, Case, Exercise, Mistake
from posenc.exercises._child import failure, record
from posenc.exercises._run import Answer, Run

#: Default time limit, in seconds, for loading a solution and answering every case.
TIMEOUT = 10.0

#: Default memory limit of the child, in MB (2**20 bytes): its address space.
MEMORY = 2048

#: The memory limits accepted, in MB: below the least, Python and NumPy cannot start.
MEMORY_RANGE = (256, 2**24)

#: The longest time limit accepted, in seconds: a day. The CPU-time limit follows it, and
#: the operating system takes no number as large as any float.
LONGEST = 86400

#: The largest solution file accepted, in bytes: a solution is a small Python file.
SOLUTION_LIMIT = 1 << 20

_WRAP = 78  # columns of the report's paragraphs: an 80-column terminal, or a page


@dataclass(frozen=True)
class Report:
    """The outcome of a check: passed or not, the text to show, the mistake if known.

    ``judged`` counts the cases ``solve`` was to be judged on and ``skipped`` those not
    run for its signature (a shorter ``solve``); a pass is a pass of the judged ones.
    """

    passed: bool
    text: str
    mistake: str | None = None
    judged: int = 0
    skipped: int = 0


def limits(timeout: object, memory: object) -> tuple[float, int]:
    """The time limit in seconds and the memory limit in MB, checked; or a clear error.

    Examples
    --------
    >>> limits(2.5, 512)
    (2.5, 512)
    >>> limits(1e308, 512)
    Traceback (most recent call last):
    ...
    ValueError: timeout must be a number of seconds above 0 and at most 86400, got 1e+308
    """
    message = f"timeout must be a number of seconds above 0 and at most {LONGEST}, got {timeout!r}"
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise TypeError(message)
    if not (math.isfinite(timeout) and 0 < timeout <= LONGEST):
        raise ValueError(message)
    low, high = MEMORY_RANGE
    message = f"memory must be a whole number of MB from {low} to {high}, got {memory!r}"
    if isinstance(memory, bool) or not isinstance(memory, numbers.Integral):
        raise TypeError(message)
    if not low <= memory <= high:
        raise ValueError(message)
    return float(timeout), int(memory)


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


def _case(e: Exercise, case: Case, total: int, call: _calls.Call | None = None) -> str:
    kind = "a worked example" if case.worked else "an unseen case"
    words = e.describe(*case.args) if call is None else call.describe(e, case.args)
    return f"Case {case.number} of {total} ({kind}), {_trim(words, 200)}"


# --------------------------------------------------------------------------------------
# Judging.


def _shape_problem(e: Exercise, answer: Answer, shape) -> str | None:
    """What is wrong with the type or the shape of an answer, or None."""
    meta = answer.meta
    if answer.shape is None:
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
    got = answer.shape
    if got == tuple(shape) or (math.prod(got) == 0 and math.prod(shape) == 0):
        return None
    text = f"solve returned an array of shape {_trim(got)}. It must have shape {tuple(shape)}."
    if len(shape) == 2 and got == tuple(reversed(shape)):
        text += " Rows and columns look swapped."
    elif e.key == "E1" and got == (shape[0], shape[1] // 2):
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


def matches(
    e: Exercise, known: Mistake, cases: list[Case], answers: dict[int, np.ndarray]
) -> bool:
    """Whether the answers are those of a known mistake, and not the right ones.

    Every answer must be within the mistake's tolerance of its formula, and one at
    least further than its ``apart`` from the right answer: right answers match no
    mistake, not even one whose formula differs from the right one by very little.
    """
    apart = False
    for case in cases:
        if case.number not in answers:
            continue
        got = answers[case.number]
        try:
            with np.errstate(all="ignore"):
                theirs = np.asarray(known.formula(*case.args), dtype=np.float64)
        except (ArithmeticError, ValueError):  # the formula breaks here, and so would theirs
            continue
        if not _agrees(got, theirs, known.tolerance):
            return False
        apart = apart or not _agrees(got, e.expected(*case.args), known.apart)
    return apart


def _misshapen(e: Exercise, cases: list[Case], run: Run) -> Mistake | None:
    """The known mistake whose answers have the shape these have (E8's dropped zeros), or None.

    Answers of the wrong shape are compared with each mistake's formula as they came, shape
    and all; a mistake that gives answers of the right shape cannot match them. The
    verdict is a failure either way: this only chooses the hint.
    """
    given = {
        number: answer.array.astype(np.float64)
        for number, answer in run.answers.items()
        if answer.array is not None and answer.meta.get("kind") in ("i", "u", "f")
    }
    return mistake(e, cases, given) if given else None


def mistake(e: Exercise, cases: list[Case], answers: dict[int, np.ndarray]) -> Mistake | None:
    """The first known mistake that gives every answer the solution gave, or None."""
    return next((known for known in e.mistakes if matches(e, known, cases, answers)), None)


# --------------------------------------------------------------------------------------
# A case without an answer.


def _memory_text(memory: int | None) -> str:
    if memory is None:  # check_function: no limit but the machine's
        return "Look for an array far larger than the answer needs."
    return (
        f"The checker lets it use {memory:,} MB. Look for an array far larger than the "
        "answer needs; if it really needs more, allow more with --memory."
    )


_OWN_CODE = (
    "Write that part yourself; to build on another exercise (E1's table in E3, say), copy "
    "your own solve of it into this file."
)


def _error_text(e: Exercise, name: str, error: dict, cases: list[Case], memory, call) -> str:
    """One paragraph on a solution that could not load, or whose solve did not return."""
    at = ""
    if error.get("line"):
        at = f", at line {error['line']} of {name}: `{_trim(error.get('code', ''), 70)}`"
    kind, message = error["kind"], error.get("message", "")
    if error["stage"] == "load":
        if kind == "syntax":
            where = f", at line {error['line']}" if error.get("line") else ""
            where += f", column {error['column']}" if error.get("column") else ""
            code = f": `{_trim(error['code'], 70)}`" if error.get("code") else ""
            return (
                f"Python cannot read {error.get('file') or name}: {_trim(message)}{where}"
                f"{code}. Fix that line and check again."
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
                f"Loading {name} ended the program with SystemExit({_trim(message, 60)}){at}. "
                "The checker imports your file; put the code that tries your solution "
                'under `if __name__ == "__main__":`.'
            )
        if kind == "memory":
            return f"Loading {name} ran out of memory{at}. " + _memory_text(memory)
        if kind == "posenc":
            return f"Loading {name} raised ImportError: {_trim(message)}{at}. {_OWN_CODE}"
        return (
            f"Loading {name} raised {error['type']}: {_trim(message)}{at}. The "
            "code outside solve runs when the checker imports the file. Fix it and check "
            "again."
        )
    words = _case(e, cases[error["case"] - 1], len(cases), call)
    if kind == "exit":
        return (
            f"{words}: solve ended the program with SystemExit({_trim(message, 60)}){at}. "
            "solve must return its answer; sys.exit() and exit() stop the checker instead."
        )
    if kind == "memory":
        return f"{words}: solve ran out of memory (MemoryError){at}. " + _memory_text(memory)
    if kind == "posenc":
        return f"{words}: solve raised ImportError: {_trim(message)}{at}. {_OWN_CODE}"
    text = f"{words}: solve raised {error['type']}: {_trim(message)}{at}."
    if not error.get("line") and error["type"] == "TypeError":
        calls = e.signature if call is None else call.words
        text += f" The checker calls {calls}, with the arguments in that order."
    return text + " Fix the error and check again."


def _how(code: int | None) -> str:
    """How a process ended, from its status as :mod:`subprocess` gives it."""
    if code is None:  # the supervisor did not say
        return "its exit status is not known"
    if code >= 0:
        return f"exit status {code}"
    try:
        return f"signal {signal.Signals(-code).name}"
    except ValueError:
        return f"signal {-code}"


def _last_words(run: Run) -> str:
    last = [line for line in run.stderr.splitlines() if line.strip()]
    if not last:
        return ""
    return f" Its last words on standard error: '{_trim(last[-1], 80)}'."


def _missing_text(e: Exercise, name: str, run: Run, cases: list[Case], allowed) -> str:
    """One paragraph on the first case without an answer: why, when it is known."""
    timeout, memory = allowed
    call = run.plan.call if run.plan is not None else None
    missing = next(c for c in cases if c.number not in run.answers)
    answered = missing.number - 1
    if run.broken is not None:
        where = _case(e, missing, len(cases), call)
        return (
            f"{where}: the checker could not read the answers of your solution: it "
            f"received {_trim(run.broken, 200)}. Does your file write to file descriptors "
            "it did not open? Only what solve returns counts."
        )
    if run.error is not None:
        return _error_text(e, name, run.error, cases, memory, call)
    in_case = _case(e, missing, len(cases), call).replace("Case", "case", 1)
    if not run.ready:
        doing = f"Python and NumPy were still starting, before it loaded {name}"
    elif not run.loaded:
        doing = f"it was still loading {name} (the code outside solve)"
    elif answered:
        doing = f"it stopped answering after case {answered}, in {in_case}"
    else:
        doing = f"it was still in {in_case}"
    if run.timed_out:
        return (
            f"Your solution did not finish within {timeout:g} s: {doing}, when the checker "
            "stopped it. Look for a loop that never ends, or one that does far more work "
            "than the formula needs. If it is only slow, allow more time with --timeout."
        )
    if not run.ready:
        text = (
            f"The checker could not start the process that runs your solution "
            f"({_how(run.returncode)}), before it loaded {name}.{_last_words(run)}"
        )
        if "memory" in run.stderr.lower():
            text += " If it ran out of memory, allow more with --memory."
        return text
    if run.returncode == -signal.SIGXCPU:
        return (
            f"The process running your solution used up its CPU time, "
            f"{_run.cpu_seconds(timeout)} s for a --timeout of {timeout:g} s: {doing}. Work "
            "done in several threads counts several times. Look for a loop that never "
            "ends, or one that does far more work than the formula needs."
        )
    if run.ended:  # it said it was done, with cases left: the checker's own state was changed
        after = f" after case {answered}" if answered else ""
        return (
            f"Your solution stopped answering{after}, without an error: no answer came "
            f"for {in_case}. Does your file change the checker (its cases, or the "
            "functions it calls)? solve must only return its answer."
        )
    return (
        f"The process running your solution ended ({_how(run.returncode)}) before solve "
        f"returned: {doing}. Something in it ends the process, such as os._exit() or a "
        f"crash in compiled code. solve must return its answer.{_last_words(run)}"
    )


def _broken_text(run: Run, total: int) -> str:
    """One paragraph on a channel that broke after the last answer was read."""
    return (
        f"After the answers to all {total} cases, the checker could not read the answers "
        f"of your solution: it received {_trim(run.broken, 200)}. Does your file write to "
        "file descriptors it did not open? Only what solve returns counts."
    )


def _printed(printed: dict | None) -> str | None:
    if not (printed or {}).get("chars"):
        return None
    lines = [line for line in printed.get("head", "").splitlines() if line.strip()] or [""]
    return (
        f"Note: your solution printed {printed['chars']:,} characters while it was checked "
        f"(the first line: '{_trim(lines[0], 60)}'). That is fine while you work; the "
        "checker ignores it."
    )


# --------------------------------------------------------------------------------------
# The check.


def check(
    e: Exercise,
    solution: Path,
    *,
    timeout: float = TIMEOUT,
    seed: int = 0,
    memory: int = MEMORY,
) -> Report:
    """Run ``solution`` on every case of ``e`` and judge; see :func:`posenc.exercises.check`.

    The child and everything it starts are stopped before this returns or raises,
    Ctrl-C (``KeyboardInterrupt``) included.
    """
    timeout, memory = limits(timeout, memory)
    cases = e.cases(seed)
    run = _run.run(e, cases, solution, timeout=timeout, memory=memory)
    return judge(e, cases, run, name=solution.name, timeout=timeout, seed=seed, memory=memory)


def _fresh(args: tuple) -> tuple:
    """Copies of the arguments, so a solve that changes them changes no case."""
    return tuple(
        a.copy()
        if isinstance(a, np.ndarray)
        else copy.deepcopy(a)
        if isinstance(a, list | dict)
        else a
        for a in args
    )


def check_function(e: Exercise, solve, *, seed: int = 0) -> Report:
    """Judge a ``solve`` function in this process: no time limit and no protection.

    For tests and notebooks. Its signature decides the plan, as in :func:`check`.
    Warnings are recorded and dropped, as the child drops them; but a ``solve`` that
    hangs hangs the caller, and one that exits ends it. :func:`check` runs a file in a
    child process instead.
    """
    cases = e.cases(seed)
    source = Path(getattr(getattr(solve, "__code__", None), "co_filename", "<none>")).resolve()
    plan = _calls.plan(e, cases, _calls.read(solve))
    run = Run(ready=True, ended=True, plan=plan)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        for case in plan.cases:
            try:
                args, keywords = plan.call.split(_fresh(case.args))
                meta, array = record(solve(*args, **keywords))
            except Exception as error:
                run.error = failure(error, source, "solve", case.number)
                break
            shape = None if array is None else array.shape
            run.answers[case.number] = Answer(meta, shape, array)
    return judge(e, cases, run, name=source.name, seed=seed, memory=None)


def _refused_text(e: Exercise, name: str, plan: _calls.Plan) -> str:
    """One paragraph on a solve that no call of the checker fits: why, and what to write."""
    return (
        f"In {name}, solve is {_trim(plan.signature, 100)}, and the checker cannot call "
        f"it: {plan.refusal}. The checker calls {_calls.calls_text(e)}, with the "
        f"arguments in that order. So no case was run. Start solve with "
        f"`def {e.signature}:`."
    )


def _count(worked: int, unseen: int) -> str:
    """'3 unseen cases', '1 worked example', or '4 cases (1 worked example, 3 unseen)'."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}" + ("s" if n != 1 else "")

    if not worked:
        return plural(unseen, "unseen case")
    if not unseen:
        return plural(worked, "worked example")
    both = f"{plural(worked, 'worked example')}, {unseen} unseen"
    return f"{plural(worked + unseen, 'case')} ({both})"


def _skipped_text(e: Exercise, plan: _calls.Plan) -> str:
    """One paragraph on the cases not run for a shorter solve: how many, and how to opt in."""
    worked = sum(c.worked for c in plan.skipped)
    count = _count(worked, len(plan.skipped) - worked)
    verb = "was" if len(plan.skipped) == 1 else "were"
    left_out = " and ".join(e.params[len(plan.call.names) :])
    return (
        f"The {count} {e.smaller.others} {verb} not run, because your "
        f"{_trim(plan.signature, 100)} has no {left_out} argument. {e.smaller.opt_in}"
    )


def judge(
    e: Exercise,
    cases: list[Case],
    run: Run,
    *,
    name: str,
    timeout: float = TIMEOUT,
    seed: int = 0,
    memory: int | None = MEMORY,
) -> Report:
    """The report on one run: the first problem in case order, with a hint if known.

    Only the answers decide: every case of the plan (``run.plan``, made from the
    signature of solve; every case until the solution is loaded) needs one, compared
    here with the expected value. What the child said about how it ended only explains
    a missing answer. Cases the plan does not run are said to be not run, never passed.
    """
    plan = run.plan
    if plan is not None:
        cases = list(plan.cases)
    call = plan.call if plan is not None else None
    problem, known, hint = None, None, None
    if plan is not None and plan.call is None:
        problem = _refused_text(e, name, plan)
    arrays: dict[int, np.ndarray] = {}  # the answers of the right type and shape, by case
    for case in cases:
        answer = run.answers.get(case.number)
        if answer is None:
            break
        shape = e.shape(*case.args)
        problem = _shape_problem(e, answer, shape)
        if problem is None and answer.array is None:  # refused, yet of the right shape
            problem = "the checker could not read this answer."
        if problem is not None:
            problem = f"{_case(e, case, len(cases), call)}: {problem}"
            known = _misshapen(e, cases, run)
            hint = known.hint if known is not None else None
            break
        arrays[case.number] = answer.array.reshape(shape).astype(np.float64)
    for case in cases:  # a wrong entry comes before any later problem
        if case.number not in arrays:
            break
        wrong = _first_wrong(e, case, e.expected(*case.args), arrays[case.number])
        if wrong is not None:
            problem = f"{_case(e, case, len(cases), call)}: {wrong}"
            if e.extra is not None:
                problem += " " + e.extra(case.args, arrays[case.number])
            for later, answer in run.answers.items():  # every answer is evidence
                shape = e.shape(*cases[later - 1].args)
                array = answer.array
                if later not in arrays and array is not None and array.size == math.prod(shape):
                    arrays[later] = array.reshape(shape).astype(np.float64)
            known = mistake(e, cases, arrays)
            hint = known.hint if known is not None else e.fallback(*case.args)
            break
    if problem is None and len(run.answers) < len(cases):
        problem = _missing_text(e, name, run, cases, (timeout, memory))
    elif problem is None and run.broken is not None:
        problem = _broken_text(run, len(cases))
    title = f"{e.key}, {e.title[0].lower()}{e.title[1:]}"
    if problem is None:
        worked = sum(c.worked for c in cases)
        kept = f" {e.smaller.kept}" if plan is not None and plan.smaller else ""
        parts = [
            f"{title}: {name} passes all {len(cases)} cases{kept} ({worked} worked "
            f"examples, {len(cases) - worked} unseen ones drawn with seed {seed})."
        ]
    else:
        parts = [f"{title}: {name} does not pass yet.", problem]
        if hint is not None:
            parts.append(f"Hint: {hint}")
    if plan is not None and plan.smaller:
        parts.append(_skipped_text(e, plan))
    note = _printed(run.printed)
    if note is not None:
        parts.append(note)
    text = "\n\n".join(_fill(p) for p in parts)
    skipped = len(plan.skipped) if plan is not None and plan.smaller else 0
    return Report(
        passed=problem is None,
        text=text + "\n",
        mistake=known and known.name,
        judged=len(cases),
        skipped=skipped,
    )
