"""The checker's worker holds no answer (issue 32).

A solution under check runs in the worker process. Before issue 32 that process imported
the exercise itself, so a solution of a dozen lines could walk up ``sys._getframe()`` to
the ``Exercise`` object and return ``e.expected(*args)``: it passed E1, E3, E4, E5 and
E6 while computing nothing, and so did ``from posenc.exercises.e1 import expected``.
Now the worker is sent the inputs of each case and nothing else, and cannot import
posenc. Here:

- a solution that searches every frame, every module and every object of the worker
  for a reference answer finds none, on every exercise, and fails saying so;
- a solution that imports posenc (the answers, the library, a copy in its own folder)
  fails with one paragraph that says why;
- the worker's modules, path and finders are those it should have;
- every case of every exercise reaches the worker as it is (types and values);
- the pipe that carries the inputs cannot hang the check: a worker that stops reading
  still meets the time limit, one that closes the pipe still gets a report;
- no solution or mistake file imports posenc, and the pages say what a pass guarantees.

Run against the checker before issue 32 (commit cadcc1e, in a worktree of its own), the
frame-walking solution passed all seven exercises, having found about 150 objects of
posenc in its process; each solution that imports posenc passed E1; and the worker
held 25 posenc modules.
"""

from __future__ import annotations

import ast
import io
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from _checker import alive
from _checker import solution as write

from posenc.exercises import EXERCISES, _child, _run, check, checker, exercise

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the worker's pipes are checked with /proc"
)

ROOT = Path(__file__).resolve().parent.parent
LONG = 60.0  # no solution here needs it: each ends sooner, or is ended
REFUSED = "posenc cannot be imported by a solution under check: the checker's answers come from it"


def words(text: str) -> str:
    return " ".join(text.split())


# --------------------------------------------------------------------------------------
# A solution that looks for the answer in its own process.

# It collects every value of every frame's locals and globals (up to the worker's main
# frame), every module and every object the garbage collector tracks, and keeps
# anything with an ``expected`` function or that comes from posenc. It returns the
# first reference answer it found, as the exploit of issue 32 did.
WALKS = """\
    import gc
    import json
    import sys
    import types


    def from_posenc(thing):
        if isinstance(thing, types.ModuleType):
            name = thing.__name__
        else:
            name = getattr(type(thing), "__module__", None) or ""
        return name == "posenc" or name.startswith("posenc.")


    def look():
        values = []
        frame = sys._getframe()
        while frame is not None:
            values += [*frame.f_locals.values(), *frame.f_globals.values()]
            frame = frame.f_back
        values += [*sys.modules.values(), *gc.get_objects()]
        found, reference = [], None
        for thing in values:
            try:
                expected = getattr(thing, "expected", None)
                if callable(expected) or from_posenc(thing):
                    found.append(repr(thing)[:100])
                    if callable(expected) and reference is None:
                        reference = expected
            except Exception:  # an object that breaks when asked is not the answer
                continue
        return found, reference


    def solve(*args):
        found, reference = look()
        with open(OUT, "w") as out:
            json.dump(found, out)
        if reference is None:
            raise LookupError("found no reference answer in this process")
        return reference(*args)
    """


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """Per exercise: the report on the frame-walking solution, and what it found."""
    folder = tmp_path_factory.mktemp("walks")
    runs = {}
    for key in EXERCISES:
        out = folder / f"found_{key}.json"
        runs[key] = (write(folder, f"walks_{key}", WALKS, out), out)
    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = {
            key: pool.submit(check, key, path, timeout=LONG) for key, (path, _) in runs.items()
        }
        return {
            key: (reports[key].result(), json.loads(out.read_text()))
            for key, (_, out) in runs.items()
        }


@pytest.mark.parametrize("key", list(EXERCISES))
def test_a_solution_that_searches_its_process_finds_no_answer(walked, key):
    report, found = walked[key]
    assert found == []  # no frame, module or object of posenc, nothing with `expected`
    assert not report.passed
    text = words(report.text)
    assert "solve raised LookupError: found no reference answer in this process" in text
    assert f"of my_walks_{key}.py: `raise LookupError(" in text


# --------------------------------------------------------------------------------------
# Solutions that import posenc.

IMPORTS = {
    "imports_the_answer": (
        """\
        from posenc.exercises.e1 import expected


        def solve(length, width, base=10000.0):
            return expected(length, width, base)
        """,
        "Loading my_imports_the_answer.py raised ImportError: "
        f"{REFUSED}, at line 1 of my_imports_the_answer.py: "
        "`from posenc.exercises.e1 import expected`.",
    ),
    "imports_posenc": (
        """\
        import posenc


        def solve(length, width, base=10000.0):
            return posenc.sinusoidal(length, width, base=base)
        """,
        f"Loading my_imports_posenc.py raised ImportError: {REFUSED}, at line 1 of "
        "my_imports_posenc.py: `import posenc`.",
    ),
    "imports_in_solve": (
        """\
        import importlib


        def solve(length, width, base=10000.0):
            posenc = importlib.import_module("posenc")
            return posenc.sinusoidal(length, width, base=base)
        """,
        f"Case 1 of 10 (a worked example), solve(3, 4, 10000.0): solve raised ImportError: "
        f"{REFUSED}, at line 5 of my_imports_in_solve.py: "
        '`posenc = importlib.import_module("posenc")`.',
    ),
}


@pytest.mark.parametrize("name", list(IMPORTS))
def test_a_solution_that_imports_posenc_fails_and_is_told_why(tmp_path, name):
    source, paragraph = IMPORTS[name]
    report = check("E1", write(tmp_path, name, source), timeout=LONG)
    assert not report.passed
    text = words(report.text)
    assert text.startswith(f"E1, the sinusoidal table: my_{name}.py does not pass yet.")
    assert paragraph in text
    assert "copy your own solve of it into this file." in text
    assert "Traceback" not in report.text


def test_a_copy_of_posenc_in_the_readers_folder_is_refused_too(tmp_path):
    """A reader who checks a file in a clone of posenc: its posenc/ is beside the file."""
    fake = tmp_path / "posenc"
    fake.mkdir()
    (fake / "__init__.py").write_text("from my_e1 import solve as sinusoidal\n")
    path = write(
        tmp_path,
        "clone",
        """\
        from posenc import sinusoidal


        def solve(length, width, base=10000.0):
            return sinusoidal(length, width, base)
        """,
    )
    report = check("E1", path, timeout=LONG)
    assert not report.passed
    assert f"raised ImportError: {REFUSED}, at line 1" in words(report.text)


def test_without_the_finder_posenc_is_not_on_the_workers_path(tmp_path):
    """Under -S no .pth file runs: the editable install of posenc is not there at all."""
    if (Path(_run.NUMPY) / "posenc").is_dir():
        pytest.skip("posenc is installed beside NumPy: only the finder keeps it out")
    path = write(
        tmp_path,
        "unrefused",
        """\
        import sys

        sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "Refuse"]
        import posenc
        """,
    )
    text = words(check("E1", path, timeout=LONG).text)
    assert "raised ModuleNotFoundError: No module named 'posenc', at line 4" in text


# --------------------------------------------------------------------------------------
# What the worker has: modules, path, finders.

SEES_ITS_WORLD = """\
    import json
    import sys

    from my_e1 import solve as sinusoidal


    def solve(length, width, base=10000.0):
        seen = {
            "modules": sorted(sys.modules),
            "path": sys.path,
            "finders": [type(finder).__name__ for finder in sys.meta_path],
            "flags": [sys.flags.isolated, sys.flags.no_site, sys.flags.dont_write_bytecode],
            "argv": sys.argv,
        }
        with open(OUT, "w") as out:
            json.dump(seen, out)
        return sinusoidal(length, width, base=base)
    """


def test_the_worker_has_no_posenc_module_and_a_short_path(tmp_path):
    out = tmp_path / "seen.json"
    report = check("E1", write(tmp_path, "world", SEES_ITS_WORLD, out), timeout=LONG)
    assert report.passed, report.text
    seen = json.loads(out.read_text())
    assert [m for m in seen["modules"] if m == "posenc" or m.startswith("posenc.")] == []
    assert "numpy" in seen["modules"] and "solution" in seen["modules"]
    assert seen["finders"][0] == "Refuse"
    assert seen["flags"] == [1, 1, 1]  # -I, -S, -B
    # The reader's folder, Python's own library, and the folder that holds NumPy: no more.
    path = seen["path"]
    assert path[0] == str(tmp_path) and path[-1] == _run.NUMPY
    assert all(Path(p).is_relative_to(sys.base_prefix) for p in path[1:-1]), path
    assert str(ROOT) not in path
    # Its arguments: the script, NumPy's folder, the file, two pipes. No exercise, no seed.
    assert seen["argv"][:3] == [str(_run.CHILD), _run.NUMPY, str(tmp_path / "my_world.py")]
    assert len(seen["argv"]) == 5 and "E1" not in seen["argv"]


# --------------------------------------------------------------------------------------
# Every case reaches the worker as it is.


def same(got: object, want: object) -> bool:
    """Equal and of the same type all the way down (arrays: dtype, shape and entries)."""
    if type(got) is not type(want):
        return False
    if isinstance(want, np.ndarray):
        return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    if isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict):  # E9's configs: the same keys, in order, and the same values
        return list(got) == list(want) and all(same(got[k], want[k]) for k in want)
    if isinstance(want, float):
        return got.hex() == want.hex()  # bit for bit: -0.0 is not 0.0
    return got == want


@pytest.mark.parametrize("key", list(EXERCISES))
def test_every_case_reaches_the_worker_as_it_is(key):
    e = exercise(key)
    for seed in (0, 1, 2, 3, 7, 2**40):
        cases = e.cases(seed)
        stream = b"".join(_run.inputs(case.number, case.args) for case in cases)
        inputs = _child.Inputs(io.BytesIO(stream + b'{"kind": "done"}\n'))
        for case in cases:
            number, args = inputs.case()
            assert number == case.number
            assert len(args) == len(case.args)
            assert all(same(g, w) for g, w in zip(args, case.args, strict=True)), case
        assert inputs.case() is None


def test_a_config_reaches_the_worker_as_plain_json():
    """A dict of JSON data (E9) travels in the line, marked, and reads back unchanged."""
    config = {"npy": True, "rope": {"factor": 8.0, "types": ["a", None, True, 1, 0.1]}}
    stream = _run.inputs(1, (config,)) + b'{"kind": "done"}\n'
    inputs = _child.Inputs(io.BytesIO(stream))
    number, args = inputs.case()
    assert number == 1 and same(args[0], config)
    assert inputs.case() is None


def test_the_call_reaches_the_worker():
    stream = b'{"kind": "call", "names": ["length", "width"], "positional": 1}\n'
    assert _child.Inputs(io.BytesIO(stream)).call() == (("length", "width"), 1)
    assert _child.Inputs(io.BytesIO(b'{"kind": "done"}\n')).call() is None


@pytest.mark.parametrize(
    "value",
    [
        (1, 2),
        {1: "a"},
        {"a": (1, 2)},
        {"a": {"b": np.float64(1.0)}},
        "text",
        np.float64(1.0),
        np.array(["a"]),
        [1, "a"],
        [[1, 2]],
        None,
    ],
)
def test_an_argument_the_worker_cannot_read_is_refused_when_sent(value):
    with pytest.raises(TypeError, match="the checker cannot send the worker a "):
        _run.inputs(1, (value,))


# --------------------------------------------------------------------------------------
# The pipe of inputs cannot hang the check.


def test_a_write_that_waits_for_a_reader_stops_when_told():
    read, write_end = os.pipe()
    stop = threading.Event()
    feed = _run._Feed(write_end, stop)
    outcome = []

    def send() -> None:
        try:
            feed.send(b"x" * (1 << 20))  # far more than a pipe holds, and no one reads
            outcome.append("sent")
        except _run._Stopped:
            outcome.append("stopped")

    sender = threading.Thread(target=send)
    sender.start()
    try:
        time.sleep(0.3)
        assert sender.is_alive()  # waiting for room, not failing
        stop.set()
        sender.join(2)
        assert not sender.is_alive() and outcome == ["stopped"]
    finally:
        stop.set()
        os.close(read)
        sender.join()
        os.close(write_end)


def test_a_reader_that_has_gone_ends_the_sending_not_the_check():
    read, write_end = os.pipe()
    os.close(read)
    feed = _run._Feed(write_end, threading.Event())
    feed.send(b"x" * 100_000)  # a broken pipe: no exception, nothing more sent
    assert feed.gone
    os.close(write_end)


FIND_PIPES = """\
    import fcntl
    import os
    import stat


    def pipes():
        \"\"\"The worker's two pipes beside 0, 1 and 2: (inputs, channel).\"\"\"
        found = {}
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
                    found[fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE] = fd
            except OSError:
                pass
        return found[os.O_RDONLY], found[os.O_WRONLY]
    """

CLOSES_ITS_INPUTS = (
    FIND_PIPES
    + """

    os.close(pipes()[0])  # the checker's next write finds no reader: a broken pipe


    def solve(length, width, base=10000.0):
        return [[0.0] * width] * length
    """
)


def test_a_worker_that_closes_its_inputs_gets_a_report(tmp_path):
    start = time.monotonic()
    report = check("E1", write(tmp_path, "closes", CLOSES_ITS_INPUTS), timeout=LONG)
    assert time.monotonic() - start < LONG / 2  # the broken pipe ended it, not the time
    text = words(report.text)
    assert not report.passed
    assert (
        "The process running your solution ended (exit status 1) before solve returned: it "
        "was still in case 1 of 10 (a worked example), solve(3, 4, 10000.0)."
    ) in text
    assert "Bad file descriptor" in text


# E5's inputs are arrays of offsets, up to 801 of them. This solution shrinks the pipe of
# its inputs to one page, forges the right answers to the three worked examples (typed
# in below by the test) and never reads: the checker's inputs for case 4 do not fit.
STALLS = (
    FIND_PIPES
    + """

    import io
    import json
    import time

    import numpy as np

    ANSWERS = WORKED_ANSWERS
    PARAMETERS = ("relative_position", "bidirectional", "num_buckets", "max_distance")

    inputs, channel = pipes()
    fcntl.fcntl(inputs, fcntl.F_SETPIPE_SZ, 4096)
    signature = [
        {"name": p, "kind": "POSITIONAL_OR_KEYWORD", "default": False} for p in PARAMETERS
    ]
    os.write(channel, json.dumps({"kind": "loaded", "signature": signature}).encode() + b"\\n")
    for number, answer in enumerate(ANSWERS, start=1):
        meta = {"type": "ndarray", "repr": "", "kind": "i", "array": True}
        message = {"kind": "answer", "case": number, "answer": meta}
        os.write(channel, json.dumps(message).encode() + b"\\n")
        stream = io.BytesIO()
        np.lib.format.write_array(stream, np.array(answer, dtype=np.int64), version=(1, 0))
        os.write(channel, stream.getvalue())
    with open(OUT, "w") as out:
        out.write(f"{os.getpid()}\\n")
    time.sleep(600)
    """
)


def test_a_worker_that_stops_reading_still_meets_the_time_limit(tmp_path):
    e = exercise("E5")
    worked = [[int(b) for b in e.expected(*args)] for args in e.worked]
    pid = tmp_path / "pid"
    path = write(tmp_path, "stalls", STALLS.replace("WORKED_ANSWERS", repr(worked)), pid)
    start = time.monotonic()
    report = check("E5", path, timeout=3.0)
    assert time.monotonic() - start < 3.0 + _run.GRACE + 5
    text = words(report.text)
    assert not report.passed
    assert (
        "Your solution did not finish within 3 s: it stopped answering after case 3, in "
        "case 4 of 9 (an unseen case)"
    ) in text
    assert not alive(int(pid.read_text()))  # the worker asleep in its import was killed


# --------------------------------------------------------------------------------------
# The files a reader is shown, and the pages, say what is true now.


def imports_posenc(path: Path) -> list[int]:
    """Lines that import posenc when the checker loads or calls the file (not __main__)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    main = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)
    ]
    skipped = {id(n) for block in main for n in ast.walk(block)}
    lines = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(name == "posenc" or name.startswith("posenc.") for name in names):
            lines.append(node.lineno)
    return lines


def test_no_solution_or_mistake_file_imports_posenc():
    files = [*sorted((ROOT / "exercises" / "solutions").glob("*.py"))]
    files += sorted((ROOT / "tests" / "data" / "exercises").glob("*.py"))
    assert len(files) > 50
    assert {path.name: imports_posenc(path) for path in files if imports_posenc(path)} == {}
    probe = ROOT / "exercises" / "solutions" / "e2_shift_matrix.py"  # its __main__ block does
    assert "from posenc import sinusoidal" in probe.read_text()


def test_the_pages_say_what_a_pass_guarantees():
    index = words((ROOT / "docs" / "exercises" / "index.md").read_text(encoding="utf-8"))
    for phrase in (
        "A pass is the exit status of the `posenc` command you started",
        "it compares each answer of your `solve` with the value it computes itself",
        "which holds no answer: it receives the inputs of one case at a time",
        "It cannot import posenc either.",
        "It is a check of your numbers, not a proctored exam.",
        "it can read posenc's files from disk",
        "on your own machine you can always edit the checker",
        "larger than 1 MB or not a plain file",
    ):
        assert phrase in index, phrase
    e3 = words((ROOT / "docs" / "exercises" / "e3-order-blindness.md").read_text())
    assert "posenc.sinusoidal" not in e3
    assert "copy your E1 `solve` into the same file" in e3
    assert checker.SOLUTION_LIMIT == 1 << 20  # the 1 MB the index states
