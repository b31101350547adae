"""Hostile solutions against the exercise checker (issue 11): verdicts are earned.

Each solution below does what a careless or hostile reader's file could: forge a pass
(change the checker's cases, write its old status file, write to its channel, stop
answering half way), leave processes behind (a fork, a fork that leaves its session,
a solution still looping when the checker is killed or interrupted), or exhaust
memory, CPU time, the size of an answer or standard error. Every forged verdict must
fail with a message that names the case without an answer; no process a solution
starts may outlive the check; and the checker's own memory must stay small.

The solutions are written to ``tmp_path`` with ``OUT``, where present, replaced by
the path of a file they record into (their pids, or what they saw). A recorded pid
counts as alive while it runs the checker's worker code, so a reused pid does not. A
solution cannot import posenc (issue 32), so those that need the right table import the
reader's own E1 solve from ``my_e1.py``, written beside them as a reader would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _checker import OWNER, alive, solution

from posenc import exercises
from posenc.cli import main
from posenc.exercises import check

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the guarantees are Linux's (prctl, /proc)"
)

ROOT = Path(__file__).resolve().parent.parent
LONG = 60.0  # a time limit no solution here should need: each one ends sooner, or is ended


def words(text: str) -> str:
    return " ".join(text.split())


def recorded(path: Path) -> list[int]:
    if not path.is_file():
        return []
    return [int(line) for line in path.read_text().split()]


def until(condition, seconds: float) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass: whether it held."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture(autouse=True)
def owner(tmp_path, monkeypatch) -> str:
    """Mark every process this test starts (see ``_checker.alive``)."""
    monkeypatch.setenv(OWNER, str(tmp_path))
    return str(tmp_path)


def survivors(pids: list[int]) -> list[int]:
    """This test's pids still alive after a generous wait; those are killed, so none is left."""
    mark = os.environ[OWNER]
    until(lambda: not any(alive(pid, mark) for pid in pids), 30)
    left = [pid for pid in pids if alive(pid, mark)]
    for pid in left:  # on a checker that leaks them, do not leave them to the machine
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


def peak_growth(action):
    """``action()`` and how far it raised this process's peak resident memory, in bytes."""

    def peak() -> int:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmHWM:")[1].split()[0]) * 1024

    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from now
    before = peak()
    result = action()
    return result, peak() - before


# --------------------------------------------------------------------------------------
# Forged verdicts: each of these passed on the old checker, or would pass on forged data.

# A file that writes, where the old checker's child kept its files, that all went well.
FORGE_STATUS = """\
    import json
    import os
    import sys
    from pathlib import Path

    from my_e1 import solve as sinusoidal

    CALLS = []


    def forge():
        out = Path(sys.argv[-1])
        if out.is_dir():
            status = {"ok": True, "printed": {"chars": 0, "head": ""}}
            (out / "status.json").write_text(json.dumps(status))


    def solve(length, width, base=10000.0):
        CALLS.append(length)
        if len(CALLS) == STOP_AT:
            forge()
            os._exit(0)
        return sinusoidal(length, width, base=base)
    """

FORGED = {
    "replaces_the_cases": (
        """\
        import numpy as np

        import posenc.exercises
        from posenc.exercises import _base

        # The checker asks the exercise for its cases: let it find none.
        _base.Exercise.cases = lambda self, seed=0: []
        posenc.exercises.exercise = lambda name: None


        def solve(length, width, base=10000.0):
            return np.zeros((length, width))
        """,
        [
            "Loading my_replaces_the_cases.py raised ImportError: posenc cannot be imported "
            "by a solution under check: the checker's answers come from it, at line 3 of "
            "my_replaces_the_cases.py: `import posenc.exercises`."
        ],
    ),
    "ends_the_inputs": (
        """\
        import gc

        from my_e1 import solve as sinusoidal


        def solve(length, width, base=10000.0):
            # The worker reads the cases it is sent through an object: let it read no more.
            for thing in gc.get_objects():
                if type(thing).__name__ == "Inputs":
                    thing.case = lambda: None
            return sinusoidal(length, width, base=base)
        """,
        [
            "Your solution stopped answering after case 1, without an error: no answer "
            "came for case 2 of 10 (a worked example), solve(1, 4, 10000.0)."
        ],
    ),
    "writes_the_status_then_exits": (
        FORGE_STATUS.replace("STOP_AT", "1"),
        [
            "ended (exit status 0) before solve returned: it was still in case 1 of 10 "
            "(a worked example), solve(3, 4, 10000.0)"
        ],
    ),
    "answers_some_cases_then_exits": (
        FORGE_STATUS.replace("STOP_AT", "4"),
        [
            "ended (exit status 0) before solve returned: it stopped answering after "
            "case 3, in case 4 of 10 (a worked example), solve(2, 2, 10000.0)"
        ],
    ),
}

# A right solution that, on import, writes bytes to every pipe it has beside 0, 1 and 2:
# the checker's channel, if it has one.
FORGE_BYTES = """\
    import os
    import stat

    from my_e1 import solve as sinusoidal


    def forge(payload):
        for name in os.listdir("/proc/self/fd"):
            try:
                if int(name) > 2 and stat.S_ISFIFO(os.fstat(int(name)).st_mode):
                    os.write(int(name), payload)
            except OSError:
                pass


    forge(PAYLOAD)


    def solve(length, width, base=10000.0):
        return sinusoidal(length, width, base=base)
    """

CASE_1 = "Case 1 of 10 (a worked example), solve(3, 4, 10000.0): "
PAYLOADS = {
    "garbage": (
        b'\x93NUMPY\x01\x00{"passed": true}\n',
        [CASE_1 + "the checker could not read the answers of your solution"],
    ),
    "out_of_order": (
        b'{"kind": "loaded"}\n{"kind": "answer", "case": 2, "answer": {"type": "int"}}\n',
        [CASE_1 + "the checker could not read the answers of your solution", "case 1"],
    ),
    "an_early_end": (
        b'{"kind": "loaded"}\n{"kind": "end", "printed": {"chars": 0, "head": ""}}\n',
        [
            "Your solution stopped answering, without an error: no answer came for case 1 "
            "of 10 (a worked example), solve(3, 4, 10000.0)."
        ],
    ),
    "a_huge_header": (
        b'{"kind": "loaded"}\n{"kind": "answer", "case": 1, "answer": {"type": "ndarray", '
        b'"repr": "array", "kind": "f", "array": true}}\n\x93NUMPY\x01\x00F\x00'
        b"{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }          \n",
        [CASE_1 + "solve returned an array of shape (1000000000000,)."],
    ),
}


def _checked(tmp_path: Path, name: str, source: str) -> str:
    path = solution(tmp_path, name, source)
    report = check("E1", path, timeout=LONG)
    assert not report.passed, report.text
    assert words(report.text).startswith(f"E1, the sinusoidal table: my_{name}.py does not pass")
    assert "Traceback" not in report.text
    return words(report.text)


@pytest.mark.parametrize("name", list(FORGED))
def test_a_forged_verdict_fails_and_names_the_case(tmp_path, name):
    source, phrases = FORGED[name]
    text = _checked(tmp_path, name, source)
    for phrase in phrases:
        assert words(phrase) in text


@pytest.mark.parametrize("name", list(PAYLOADS))
def test_bytes_forged_on_the_channel_fail(tmp_path, name):
    payload, phrases = PAYLOADS[name]
    text = _checked(tmp_path, name, FORGE_BYTES.replace("PAYLOAD", repr(payload)))
    for phrase in phrases:
        assert words(phrase) in text


# --------------------------------------------------------------------------------------
# Orphans: no process a solution starts outlives the check.

FORKS = """\
    import os
    import time

    from my_e1 import solve as sinusoidal


    def solve(length, width, base=10000.0):
        pid = os.fork()
        if pid == 0:  # the copy sleeps on, long after the answer
            time.sleep(600)
            os._exit(0)
        with open(OUT, "a") as pids:
            pids.write(f"{pid}\\n")
        return sinusoidal(length, width, base=base)
    """

# escape() leaves a grandchild in a session of its own, whose parent has exited: no
# process group or session of the checker's holds it.
ESCAPE = """\
    import os
    import time

    from my_e1 import solve as sinusoidal


    def escape():
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(write, f"{os.getpid()}\\n".encode())
                time.sleep(600)
            os._exit(0)
        os.waitpid(pid, 0)
        os.close(write)
        grandchild = os.read(read, 100).decode()
        with open(OUT, "a") as pids:
            pids.write(grandchild)
    """

ESCAPES = (
    ESCAPE
    + """

    ESCAPED = []


    def solve(length, width, base=10000.0):
        if not ESCAPED:
            ESCAPED.append(escape())
        return sinusoidal(length, width, base=base)
    """
)

LOOPS = (
    ESCAPE
    + """

    def solve(length, width, base=10000.0):
        escape()
        with open(OUT, "a") as pids:
            pids.write(f"{os.getpid()}\\n")
        while True:
            pass
    """
)


@pytest.mark.parametrize(
    ("name", "source", "count"), [("forks", FORKS, 10), ("escapes", ESCAPES, 1)]
)
def test_no_fork_outlives_a_passing_check(tmp_path, name, source, count):
    pids = tmp_path / "pids"
    report = check("E1", solution(tmp_path, name, source, pids), timeout=LONG)
    assert report.passed, report.text  # the answers are right: forks do not change that
    assert len(recorded(pids)) == count
    assert survivors(recorded(pids)) == []


# The same escape, then the supervisor frozen: it cannot clean up, and the checker kills it
# once GRACE has passed. The grandchild, orphaned below it, must be killed first (when the
# supervisor was simply killed, it went to init and slept on).
FREEZES = (
    ESCAPE
    + """

    import signal

    FROZEN = []


    def solve(length, width, base=10000.0):
        if not FROZEN:
            escape()
            FROZEN.append(os.kill(os.getppid(), signal.SIGSTOP))
        return sinusoidal(length, width, base=base)
    """
)


def test_no_escape_outlives_a_supervisor_that_hangs(tmp_path):
    pids = tmp_path / "pids"
    report = check("E1", solution(tmp_path, "freezes", FREEZES, pids), timeout=LONG)
    assert report.passed, report.text
    assert len(recorded(pids)) == 1
    assert survivors(recorded(pids)) == []


def test_no_child_outlives_the_command_killed_with_sigterm(tmp_path):
    pids = tmp_path / "pids"
    path = solution(tmp_path, "loops", LOOPS, pids)
    command = [sys.executable, "-m", "posenc", "exercise", "check", "E1", str(path)]
    cli = subprocess.Popen(
        [*command, "--timeout", str(LONG)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert until(lambda: len(recorded(pids)) == 2, LONG), "the solution never started"
        cli.send_signal(signal.SIGTERM)
        cli.wait(LONG)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    assert survivors(recorded(pids)) == []


@pytest.fixture
def ctrl_c_heard():
    """Python's Ctrl-C handler, for the test's length.

    A process started as a ``&`` job of a shell without job control ignores SIGINT
    from birth, and Python then never installs its handler, so a Ctrl-C would go
    unheard (``make test`` run that way failed the test below): install the handler
    a terminal's Python has, and put back what was there.
    """
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_no_child_outlives_ctrl_c(tmp_path, ctrl_c_heard):
    pids = tmp_path / "pids"
    path = solution(tmp_path, "loops", LOOPS, pids)
    main = threading.main_thread().ident
    seen: list[bool] = []

    def press_ctrl_c() -> None:
        if until(lambda: len(recorded(pids)) == 2, LONG):
            # Both looping processes carry this test's mark, so survivors() can see them.
            seen.extend(alive(pid, os.environ[OWNER]) for pid in recorded(pids))
            signal.pthread_kill(main, signal.SIGINT)  # as a terminal's Ctrl-C reaches Python

    presser = threading.Thread(target=press_ctrl_c, daemon=True)
    presser.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            check("E1", path, timeout=LONG)
    finally:
        presser.join()
    assert len(recorded(pids)) == 2
    assert seen == [True, True], "the looping processes must carry the test's mark"
    assert survivors(recorded(pids)) == []


# --------------------------------------------------------------------------------------
# Limits: memory, CPU time, the size of an answer and of standard error.

SEES_ITS_LIMITS = """\
    import json
    import os
    import resource

    from my_e1 import solve as sinusoidal


    def solve(length, width, base=10000.0):
        names = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_CORE")
        seen = {name: resource.getrlimit(getattr(resource, name)) for name in names}
        blas = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
        seen["threads"] = [os.environ.get(name) for name in blas]
        seen["session"] = os.getsid(0) == os.getpid()
        with open(OUT, "w") as out:
            json.dump(seen, out)
        return sinusoidal(length, width, base=base)
    """


def test_the_solution_runs_under_limits(tmp_path):
    out = tmp_path / "seen.json"
    path = solution(tmp_path, "limits", SEES_ITS_LIMITS, out)
    report = check("E1", path, timeout=20.5, memory=1024)
    assert report.passed, report.text
    seen = json.loads(out.read_text())
    assert seen["RLIMIT_AS"] == [1024 << 20, 1024 << 20]
    soft, hard = seen["RLIMIT_CPU"]
    assert 20.5 < soft <= 23 and soft < hard <= 24  # about the time limit, plus a second
    assert seen["RLIMIT_CORE"] == [0, 0]
    assert seen["threads"] == ["1", "1", "1"]
    assert seen["session"]


MEMORY_HOG = """\
    import numpy as np


    def solve(length, width, base=10000.0):
        hog = np.empty(10**9)  # 8 GB of address space, never touched
        del hog
        return np.zeros((length, width))
    """


def test_a_solution_that_wants_8_gb_hits_the_memory_limit(tmp_path):
    text = _checked(tmp_path, "memory", MEMORY_HOG)
    assert (
        words(
            CASE_1 + "solve ran out of memory (MemoryError), at line 5 of my_memory.py: "
            "`hog = np.empty(10**9) # 8 GB of address space, never touched`."
        )
        in text
    )
    assert "The checker lets it use 2,048 MB." in text and "--memory" in text


def test_the_command_passes_its_memory_limit_on(tmp_path, capsys):
    path = solution(tmp_path, "memory", MEMORY_HOG)
    assert main(["exercise", "check", "E1", str(path), "--memory", "512"]) == 1
    text = words(capsys.readouterr().out)
    assert "solve ran out of memory" in text and "The checker lets it use 512 MB." in text


CPU_HOG = """\
    import resource


    def solve(length, width, base=10000.0):
        # As if the checker allowed a second of CPU time: the loop soon uses it up.
        resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))
        while True:
            pass
    """


def test_a_loop_that_uses_up_its_cpu_time_is_stopped_and_told_so(tmp_path):
    text = _checked(tmp_path, "cpu", CPU_HOG)
    assert "The process running your solution used up its CPU time" in text
    assert "it was still in case 1 of 10 (a worked example)" in text


HUGE_ANSWER = """\
    import numpy as np


    def solve(length, width, base=10000.0):
        return np.zeros((10**5, 10**4))  # 8 GB of zeros, where (length, width) is asked
    """


def test_a_huge_answer_is_refused_by_its_shape_unread(tmp_path):
    path = solution(tmp_path, "huge", HUGE_ANSWER)
    # Memory enough for the zeros (untouched pages), so that the answer is really sent.
    report, growth = peak_growth(lambda: check("E1", path, timeout=LONG, memory=12 * 1024))
    assert not report.passed
    assert words(
        CASE_1 + "solve returned an array of shape (100000, 10000). It must have shape (3, 4)."
    ) in words(report.text)
    assert growth < 200 << 20, f"the checker's peak memory grew by {growth >> 20} MB"


STDERR_FLOOD = """\
    import os


    def solve(length, width, base=10000.0):
        chunk = (b"x" * 1023 + b"\\n") * 1024  # 1 MiB of lines
        for _ in range(1024):  # 1 GiB in all
            view = memoryview(chunk)
            while view:
                view = view[os.write(2, view) :]
        os.write(2, b"the last words\\n")
        os._exit(3)
    """


def test_a_flood_on_standard_error_is_drained_and_its_last_line_quoted(tmp_path):
    path = solution(tmp_path, "flood", STDERR_FLOOD)
    report, growth = peak_growth(lambda: check("E1", path, timeout=LONG))
    text = words(report.text)
    assert not report.passed
    assert "ended (exit status 3) before solve returned: it was still in case 1 of 10" in text
    assert "Its last words on standard error: 'the last words'." in text
    assert len(report.text) < 1500
    assert growth < 200 << 20, f"the checker's peak memory grew by {growth >> 20} MB"


def test_the_page_states_the_real_limits():
    text = words((ROOT / "docs" / "exercises" / "index.md").read_text(encoding="utf-8"))
    assert f"with a time limit of {exercises.TIMEOUT:g} seconds" in text
    assert f"and {exercises.MEMORY} MB of memory (`--memory` allows more)" in text
