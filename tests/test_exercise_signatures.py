"""The exercise checker reads the signature of solve (issue 16).

The classic E1 solution is ``solve(length, width)``: two nested loops, ``math.sin`` and
``math.cos``, a list of lists, base 10000 written into the formula. It is written out
below (``CLASSIC``), with its three-argument twin, and each classic slip is a one-line
change of it. A two-argument solve is judged on the cases with base 10000 only, and
the report says how many others were not run; a solve that takes base is judged on
every case; a solve the checker cannot call is told so before any case. The expected
counts are taken from the case list here, never from the report.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from posenc import shift_matrix, sinusoidal
from posenc.cli import main
from posenc.exercises import EXERCISES, check, exercise
from posenc.exercises import checker as checker_module
from posenc.exercises.checker import check_function

ROOT = Path(__file__).resolve().parent.parent

CLASSIC = """\
    import math

    import numpy as np


    def solve(length, width):
        table = []
        for pos in range(length):
            row = []
            for j in range(width):
                i = j // 2
                angle = pos / 10000 ** (2 * i / width)
                if j % 2 == 0:
                    row.append(math.sin(angle))
                else:
                    row.append(math.cos(angle))
            table.append(row)
        return table
    """

ANGLE = "angle = pos / 10000 ** (2 * i / width)"

# Each classic slip: the line of CLASSIC it changes, the new line, and the known mistake.
SLIPS = {
    "column index": (ANGLE, "angle = pos / 10000 ** (2 * j / width)", "column in exponent"),
    "power of the quotient": (
        ANGLE,
        "angle = (pos / 10000) ** (2 * i / width)",
        "power of the quotient",
    ),
    "exponent without brackets": (
        ANGLE,
        "angle = pos / 10000 ** 2 * i / width",
        "unbracketed exponent",
    ),
    "sine and cosine swapped": (
        "if j % 2 == 0:",
        "if j % 2 == 1:",
        "sine and cosine swapped",
    ),
    "float32 angles": (
        ANGLE,
        "angle = np.float32(pos) / np.float32(10000) ** np.float32(2 * i / width)",
        "float32",
    ),
    "positions from one": (
        "for pos in range(length):",
        "for pos in range(1, length + 1):",
        "positions from one",
    ),
}


def source(arguments: int, slip: str | None = None) -> str:
    """The classic solution with 2 or 3 arguments, with one slip or none."""
    text = textwrap.dedent(CLASSIC)
    if slip is not None:
        old, new, _ = SLIPS[slip]
        assert old in text
        text = text.replace(old, new)
    if arguments == 3:
        text = text.replace("def solve(length, width):", "def solve(length, width, base=10000.0):")
        text = text.replace("10000 **", "base **").replace("(10000)", "(base)")
        text = text.replace("(pos / 10000)", "(pos / base)")
        assert "10000 " not in text.split("def solve")[1]
    return text


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"signature_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def words(text: str) -> str:
    return " ".join(text.split())


def base_10000(key: str, seed: int = 0) -> tuple[int, int, int]:
    """Worked and unseen cases with base 10000, and the others, from the case list."""
    cases = exercise(key).cases(seed)
    kept = [c for c in cases if c.args[2] == 10000]
    return sum(c.worked for c in kept), sum(not c.worked for c in kept), len(cases) - len(kept)


def skipped_sentence(key: str, seed: int = 0) -> str:
    _, _, others = base_10000(key, seed)
    first = {"E1": "solve(length, width)", "E2": "solve(k, width)"}[key]
    return (
        f"The {others} unseen cases with a base other than 10000 were not run, because your "
        f"{first} has no base argument. Add a third argument, base, to be judged on them too"
    )


# --------------------------------------------------------------------------------------
# The classic solution, in both signatures.


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_classic_solution_passes_in_both_signatures(tmp_path, seed):
    solve = load(write(tmp_path, "classic", source(2))).solve
    report = check_function(exercise("E1"), solve, seed=seed)
    worked, unseen, others = base_10000("E1", seed)
    assert report.passed, report.text
    assert (report.judged, report.skipped) == (worked + unseen, others)
    assert worked == 4 and unseen >= 3 and others >= 1  # a real sample, and a real gap
    text = words(report.text)
    assert (
        f"classic.py passes all {worked + unseen} cases with base 10000 ({worked} worked "
        f"examples, {unseen} unseen ones drawn with seed {seed})."
    ) in text
    assert skipped_sentence("E1", seed) in text
    assert "passes all 10" not in text  # the skipped cases are never counted as passed
    full = check_function(
        exercise("E1"), load(write(tmp_path, "full", source(3))).solve, seed=seed
    )
    assert full.passed, full.text
    assert (full.judged, full.skipped) == (len(exercise("E1").cases(seed)), 0)
    assert "passes all 10 cases (4 worked examples, 6 unseen" in words(full.text)
    assert "not run" not in full.text


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_two_argument_solve_runs_a_long_case_and_a_narrow_one(tmp_path, seed):
    """The cases it is judged on are a real sample: those of the plan, numbered from 1."""
    from posenc.exercises import _calls  # new with issue 16

    for key in ("E1", "E2"):
        e = exercise(key)
        plan = _calls.plan(
            e,
            e.cases(seed),
            [
                {"name": "a", "kind": "POSITIONAL_OR_KEYWORD", "default": False},
                {"name": "b", "kind": "POSITIONAL_OR_KEYWORD", "default": False},
            ],
        )
        run = [c.args for c in plan.cases]
        assert all(args[2] == 10000 for args in run) and len(run) >= 7, key
        assert max(abs(args[0]) for args in run) >= 1000, key  # a long table, a long shift
        assert [c.number for c in plan.cases] == list(range(1, len(run) + 1))
    e1 = [
        c
        for c in _calls.plan(
            exercise("E1"),
            exercise("E1").cases(seed),
            [{"name": "a", "kind": "VAR_POSITIONAL", "default": False}],
        ).cases
    ]
    assert len(e1) == 10  # *args takes base: every case


@pytest.mark.parametrize("slip", list(SLIPS))
def test_each_classic_slip_is_refused_with_its_hint_in_either_signature(tmp_path, slip):
    name = SLIPS[slip][2]
    hint = next(m.hint for m in exercise("E1").mistakes if m.name == name)
    for arguments in (2, 3):
        solve = load(write(tmp_path, f"slip{arguments}", source(arguments, slip))).solve
        report = check_function(exercise("E1"), solve)
        assert not report.passed
        assert report.mistake == name, report.text
        assert "Hint: " + words(hint) in words(report.text)
        assert "the first wrong entry is" in words(report.text)
        assert (skipped_sentence("E1") in words(report.text)) == (arguments == 2)


def test_the_loop_over_even_columns_with_a_doubled_index_has_its_own_hint(tmp_path):
    doubled = source(2).replace(
        """        for j in range(width):
            i = j // 2
            angle = pos / 10000 ** (2 * i / width)
            if j % 2 == 0:
                row.append(math.sin(angle))
            else:
                row.append(math.cos(angle))""",
        """        for j in range(0, width, 2):
            angle = pos / 10000 ** (2 * j / width)
            row += [math.sin(angle), math.cos(angle)]""",
    )
    assert "range(0, width, 2)" in doubled
    report = check_function(exercise("E1"), load(write(tmp_path, "doubled", doubled)).solve)
    assert report.mistake == "doubled pair index", report.text
    assert "already has `j = 2 * i`" in words(report.text)


# --------------------------------------------------------------------------------------
# No mistake matches a right answer, not even float32, whose formula is close.


@pytest.mark.parametrize(
    ("key", "shorter"),
    [
        ("E1", False),
        ("E1", True),
        ("E2", True),
        ("E4", False),
        ("E5", False),
        ("E5", True),
        ("E6", False),
        ("E6", True),
        ("E7", False),
        ("E7", True),
        ("E8", False),
        ("E9", False),
    ],
)
def test_the_right_answers_are_no_known_mistake(key, shorter):
    """On every case, and on the cases of the shorter call, which only base 10000 sets apart."""
    e = EXERCISES[key]
    cases = e.cases(0)
    if shorter:
        cases = [c for c in cases if e.smaller.keeps(*c.args)]
    right = {c.number: np.asarray(e.expected(*c.args), dtype=float) for c in cases}
    for known in e.mistakes:
        alone = dataclasses.replace(e, mistakes=(known,))
        assert checker_module.mistake(alone, cases, right) is None, known.name


def test_float32_is_told_apart_from_the_right_table():
    """The float32 formula is further from the right table than its ``apart``, somewhere."""
    e = exercise("E1")
    float32 = next(m for m in e.mistakes if m.name == "float32")
    cases = [c for c in e.cases(0) if c.args[2] == 10000]
    gap = max(
        float(np.max(np.abs(float32.formula(*c.args) - e.expected(*c.args)), initial=0))
        for c in cases
    )
    assert gap > 10 * float32.apart
    assert float32.apart > 1e-9  # wider than the checker's own tolerance: right is right
    right = {c.number: e.expected(*c.args) for c in cases}
    assert checker_module.mistake(e, cases, right) is None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_e4_narrow_types_are_told_apart_from_the_right_slopes(seed):
    """float32 and float16 slopes are wrong somewhere, and the right ones match neither."""
    e = exercise("E4")
    cases = e.cases(seed)
    for name, least in (("float32", 1e-9), ("float16", 1e-5)):
        narrow = next(m for m in e.mistakes if m.name == name)
        gap = max(
            float(np.max(np.abs(narrow.formula(*c.args) - e.expected(*c.args)))) for c in cases
        )
        assert gap > least, name
        assert all(np.all(narrow.formula(*c.args) > 0) for c in cases)  # no slope flushed to 0
    right = {c.number: e.expected(*c.args) for c in cases}
    assert checker_module.mistake(e, cases, right) is None
    float32 = {c.number: e.expected(*c.args).astype(np.float32) for c in cases}
    assert checker_module.mistake(e, cases, float32).name == "float32"  # not float16


# --------------------------------------------------------------------------------------
# Which signatures are judged on what.

ALL, SHORT, NONE = "all", "short", "none"
SIGNATURES = {
    "def solve(length, width, base):": ALL,
    "def solve(length, width, base=10000.0):": ALL,
    "def solve(*args):": ALL,
    "def solve(length, width, *rest):": ALL,
    "def solve(length, width, *, base=10000.0):": ALL,
    "def solve(length, *, width, base):": ALL,
    "def solve(length, width, base=10000.0, scale=1.0):": ALL,
    "def solve(length, width):": SHORT,
    "def solve(n, d, /):": SHORT,
    "def solve(length, width, **options):": SHORT,
    "def solve(**kw):": NONE,
    "def solve(length, width, base, extra):": NONE,
    "def solve(length):": NONE,
    "def solve():": NONE,
    "def solve(length, width, *, scale):": NONE,
}


def body(first_line: str) -> str:
    """A right solution under ``first_line``, taking each argument from where it is."""
    return f"""\
from posenc import sinusoidal

CALLS = []


{first_line}
    scope = dict(locals())
    CALLS.append(scope)
    args = list(scope.pop("args", ())) + list(scope.pop("rest", ()))
    named = {{**scope.pop("kw", {{}}), **scope.pop("options", {{}})}}
    values = [*scope.values(), *args, *named.values()][:3]
    length, width = values[0], values[1]
    base = values[2] if len(values) > 2 else 10000.0
    return sinusoidal(length, width, base=base)
"""


def test_the_signature_decides_the_cases(tmp_path):
    e = exercise("E1")
    total = len(e.cases())
    worked, unseen, others = base_10000("E1")
    for index, (first_line, judged) in enumerate(SIGNATURES.items()):
        module = load(write(tmp_path, f"sig{index}", body(first_line)))
        report = check_function(e, module.solve)
        text = words(report.text)
        if judged == ALL:
            assert report.passed and report.judged == total, (first_line, report.text)
            assert report.skipped == 0 and "not run" not in text
        elif judged == SHORT:
            assert report.passed and report.judged == worked + unseen, (first_line, text)
            assert report.skipped == others and "were not run" in text
        else:
            assert not report.passed and report.judged == 0, (first_line, text)
            assert module.CALLS == [], first_line  # not called on any case
            assert "the checker cannot call it" in text and "So no case was run." in text
            assert "TypeError" not in text

    class Unreadable:  # a solve whose signature cannot be read gets every argument
        @property
        def __signature__(self):
            raise ValueError("no signature")

        def __call__(self, *args):
            return sinusoidal(args[0], args[1], base=args[2])

    report = check_function(e, Unreadable())
    assert report.passed and report.judged == total, report.text


@pytest.mark.parametrize(
    ("first_line", "why"),
    [
        (
            "def solve(**kw):",
            "solve is solve(**kw), and the checker cannot call it: it takes no argument by "
            "position, and the checker gives it 2 or 3.",
        ),
        (
            "def solve(a, b, c, d):",
            "solve is solve(a, b, c, d), and the checker cannot call it: it needs 4 "
            "arguments, and the checker gives it 2 or 3.",
        ),
        (
            "def solve(length, width, *, scale):",
            "its argument scale must be given by name and has no default",
        ),
    ],
)
def test_a_solve_the_checker_cannot_call_is_told_why_before_any_case(tmp_path, first_line, why):
    path = write(tmp_path, "odd", f"{first_line}\n    return 1 / 0\n")
    text = words(check_function(exercise("E1"), load(path).solve).text)
    assert why in text
    assert (
        "The checker calls solve(length, width, base), or solve(length, width) for the cases "
        "with base 10000 only, with the arguments in that order."
    ) in text
    assert "Case 1" not in text and "ZeroDivisionError" not in text


def test_e3_has_no_shorter_call_but_an_odd_solve_is_told_why(tmp_path):
    assert exercise("E3").smaller is None
    path = write(tmp_path, "odd", "def solve(X, order):\n    return (0.0, 1.0)\n")
    text = words(check_function(exercise("E3"), load(path).solve).text)
    assert (
        "solve is solve(X, order), and the checker cannot call it: it takes only 2 "
        "arguments by position, and the checker gives it 5."
    ) in text
    assert "Start solve with `def solve(X, Wq, Wk, Wv, order):`." in text


def test_e4_takes_one_argument_and_plain_python_answers(tmp_path):
    e = exercise("E4")
    assert e.smaller is None and e.signature == "solve(num_heads)"
    path = write(tmp_path, "odd", "def solve(num_heads, max_bias):\n    return [0.5]\n")
    text = words(check_function(e, load(path).solve).text)
    assert (
        "solve is solve(num_heads, max_bias), and the checker cannot call it: it needs 2 "
        "arguments, and the checker gives it 1."
    ) in text
    for convert in ("list(slopes)", "tuple(float(m) for m in slopes)", "slopes"):
        path = write(
            tmp_path,
            "plain",
            f"""\
            from posenc.relative import alibi_slopes


            def solve(*args):
                slopes = alibi_slopes(args[0])
                return {convert}
            """,
        )
        report = check_function(e, load(path).solve)
        assert report.passed and report.judged == len(e.cases()), report.text


def test_the_short_e5_solution_is_judged_on_t5_sizes_only(tmp_path):
    """solve(relative_position, bidirectional) with 32 and 128 built in: T5's cases only."""
    solution = (ROOT / "exercises" / "solutions" / "e5_t5_buckets.py").read_text()
    short = solution.replace(
        "def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):",
        "def solve(relative_position, bidirectional):\n    num_buckets, max_distance = 32, 128",
    )
    assert short != solution
    e = exercise("E5")
    cases = e.cases()
    t5 = [c for c in cases if c.args[2:] == (32, 128)]
    report = check_function(e, load(write(tmp_path, "short", short)).solve)
    assert report.passed, report.text
    assert (report.judged, report.skipped) == (len(t5), len(cases) - len(t5))
    text = words(report.text)
    assert f"passes all {len(t5)} cases with T5's 32 buckets and max_distance 128" in text
    assert (
        f"The {len(cases) - len(t5)} unseen cases with other sizes were not run, because your "
        "solve(relative_position, bidirectional) has no num_buckets and max_distance argument."
    ) in text
    full = check_function(e, load(write(tmp_path, "full", solution)).solve)
    assert full.passed and (full.judged, full.skipped) == (len(cases), 0), full.text


@pytest.mark.parametrize(
    ("key", "stem", "full", "fixed", "kept", "others", "left_out"),
    [
        (
            "E6",
            "e6_yarn_inv_freq",
            "beta_fast=32, beta_slow=1",
            "beta_fast, beta_slow = 32, 1",
            "with beta_fast 32 and beta_slow 1",
            "with other rotation counts",
            "beta_fast and beta_slow",
        ),
        (
            "E7",
            "e7_llama3_bands",
            "low_freq_factor=1.0, high_freq_factor=4.0",
            "low_freq_factor, high_freq_factor = 1.0, 4.0",
            "with low_freq_factor 1.0 and high_freq_factor 4.0",
            "with other band factors",
            "low_freq_factor and high_freq_factor",
        ),
    ],
)
def test_the_short_rope_solutions_are_judged_on_the_reference_values_only(
    tmp_path, key, stem, full, fixed, kept, others, left_out
):
    """solve(head_dim, base, factor, L0), the last two built in: those cases only."""
    solution = (ROOT / "exercises" / "solutions" / f"{stem}.py").read_text()
    head = "def solve(head_dim, base, factor, original_max_position_embeddings"
    flat = re.sub(r"def solve\(\s*head_dim,[^)]*\):", f"{head}, {full}):", solution)
    short = flat.replace(f"{head}, {full}):", f"{head}):\n    {fixed}")
    assert f"{head}):\n    {fixed}" in short  # the short signature, its values inside
    e = exercise(key)
    cases = e.cases()
    kept_cases = [c for c in cases if e.smaller.keeps(*c.args)]
    assert 0 < len(kept_cases) < len(cases)
    report = check_function(e, load(write(tmp_path, "short", short)).solve)
    assert report.passed, report.text
    assert (report.judged, report.skipped) == (len(kept_cases), len(cases) - len(kept_cases))
    text = words(report.text)
    assert f"passes all {len(kept_cases)} cases {kept}" in text
    assert (
        f"The {len(cases) - len(kept_cases)} unseen cases {others} were not run, because your "
        f"solve(head_dim, base, factor, original_max_position_embeddings) has no {left_out} "
        "argument."
    ) in text
    whole = check_function(e, load(write(tmp_path, "full", solution)).solve)
    assert whole.passed and (whole.judged, whole.skipped) == (len(cases), 0), whole.text


def test_a_list_of_python_ints_is_accepted_for_e5(tmp_path):
    path = write(
        tmp_path,
        "listed",
        """\
        from posenc.relative import t5_bucket


        def solve(relative_position, bidirectional, num_buckets, max_distance):
            return [
                int(b)
                for b in t5_bucket(
                    relative_position,
                    bidirectional=bidirectional,
                    num_buckets=num_buckets,
                    max_distance=max_distance,
                )
            ]
        """,
    )
    report = check_function(exercise("E5"), load(path).solve)
    assert report.passed, report.text


# --------------------------------------------------------------------------------------
# Plain Python answers, in the short form.


@pytest.mark.parametrize(
    "convert",
    [
        "table",
        "tuple(tuple(row) for row in table)",
        "[np.array(row) for row in table]",
        "np.array(table)",
    ],
)
def test_plain_python_answers_are_accepted(tmp_path, convert):
    text = source(2).replace("    return table\n", f"    return {convert}\n")
    report = check_function(exercise("E1"), load(write(tmp_path, "plain", text)).solve)
    assert report.passed, report.text
    assert report.skipped == base_10000("E1")[2]


def test_the_short_e2_solution_passes_and_says_what_it_skipped(tmp_path):
    path = write(
        tmp_path,
        "shift",
        """\
        import math


        def solve(k, width):
            m = [[0.0] * width for _ in range(width)]
            for i in range(width // 2):
                a = k / 10000 ** (2 * i / width)
                m[2 * i][2 * i], m[2 * i][2 * i + 1] = math.cos(a), math.sin(a)
                m[2 * i + 1][2 * i], m[2 * i + 1][2 * i + 1] = -math.sin(a), math.cos(a)
            return tuple(tuple(row) for row in m)
        """,
    )
    report = check_function(exercise("E2"), load(path).solve)
    worked, unseen, others = base_10000("E2")
    assert report.passed, report.text
    assert (report.judged, report.skipped) == (worked + unseen, others)
    assert skipped_sentence("E2") in words(report.text)
    for case in exercise("E2").cases():  # the cases run really are the library's M_k
        k, width, base = case.args
        if base == 10000:
            np.testing.assert_allclose(load(path).solve(k, width), shift_matrix(k, width))


# --------------------------------------------------------------------------------------
# End to end: the child reads the signature, the parent decides and sends the cases.

BROKEN_SHORT = {
    "hangs": "def solve(length, width):\n    while True:\n        pass\n",
    "raises": "def solve(length, width):\n    return [[1 / 0]]\n",
    "prints": source(2).replace("    table = []\n", "    table = []\n    print('hello')\n"),
    "classic": source(2),
}

# At import, the file makes the worker, which runs the call it is told, receive no call:
# it then calls solve on no case. The parent decided on 7 and waits for their answers.
DESERTS = textwrap.dedent(
    """\
        import sys

        sys.modules["__main__"].Inputs.call = lambda self: None
        """
) + textwrap.dedent(CLASSIC)

FORGES_THE_SIGNATURE = """\
    import os
    import stat

    import numpy as np

    for name in os.listdir("/proc/self/fd"):
        try:
            if int(name) > 2 and stat.S_ISFIFO(os.fstat(int(name)).st_mode):
                os.write(int(name), b'{"kind": "loaded", "signature": "solve(length, width)"}\\n')
        except OSError:
            pass


    def solve(length, width, base=10000.0):
        angle = np.arange(length)[:, None] / base ** (np.arange(0, width, 2) / width)
        return np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(length, width)
    """


@pytest.fixture(scope="module")
def ends(tmp_path_factory):
    """The checker's report on each end-to-end file, by name."""
    folder = tmp_path_factory.mktemp("signatures")
    runs = {name: (write(folder, f"my_{name}", text), 20.0) for name, text in BROKEN_SHORT.items()}
    runs["hangs"] = (runs["hangs"][0], 3.0)
    runs["deserts"] = (write(folder, "my_deserts", DESERTS), 20.0)
    runs["forges"] = (write(folder, "my_forges", FORGES_THE_SIGNATURE), 20.0)
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {
            name: pool.submit(check, "E1", path, timeout=timeout)
            for name, (path, timeout) in runs.items()
        }
        return {name: future.result() for name, future in futures.items()}


def test_end_to_end_the_classic_two_argument_solution_passes(ends):
    report = ends["classic"]
    worked, unseen, others = base_10000("E1")
    assert report.passed, report.text
    assert (report.judged, report.skipped) == (worked + unseen, others)
    assert skipped_sentence("E1") in words(report.text)


def test_end_to_end_the_real_fault_is_told_whatever_the_signature(ends):
    hangs, raises, prints = (words(ends[name].text) for name in ("hangs", "raises", "prints"))
    assert not ends["hangs"].passed and "did not finish within 3 s" in hangs
    assert any(  # on a loaded machine the worker may still be starting when time runs out
        doing in hangs
        for doing in (
            "it was still in case 1 of 7 (a worked example), solve(3, 4)",
            "it was still loading my_hangs.py",
            "Python and NumPy were still starting, before it loaded my_hangs.py",
        )
    )
    assert not ends["raises"].passed
    assert (
        "Case 1 of 7 (a worked example), solve(3, 4): solve raised ZeroDivisionError: "
        "division by zero, at line 2 of my_raises.py: `return [[1 / 0]]`."
    ) in raises
    assert ends["prints"].passed, ends["prints"].text
    assert "Note: your solution printed" in prints and "(the first line: 'hello')" in prints
    for text in (hangs, raises, prints):
        assert "TypeError" not in text
        assert skipped_sentence("E1") in text


def test_end_to_end_the_parent_decides_which_cases_are_run(ends):
    text = words(ends["deserts"].text)
    assert not ends["deserts"].passed
    assert (
        "Your solution stopped answering, without an error: no answer came for case 1 of 7 "
        "(a worked example), solve(3, 4)."
    ) in text


def test_end_to_end_a_forged_signature_fails(ends):
    text = words(ends["forges"].text)
    assert not ends["forges"].passed
    assert "the checker could not read the answers of your solution" in text
    assert "a signature that is not a list of parameters" in text


def test_the_command_passes_the_classic_solution_with_exit_status_0(tmp_path, capsys):
    path = write(tmp_path, "my_solution", source(2))
    assert main(["exercise", "check", "E1", str(path)]) == 0
    out = words(capsys.readouterr().out)
    assert "my_solution.py passes all 7 cases with base 10000" in out
    assert skipped_sentence("E1") in out


# --------------------------------------------------------------------------------------
# The pages say what is accepted, and show the checker's real words.


def test_the_e1_page_shows_the_real_report_on_the_classic_solution(tmp_path):
    markdown = (ROOT / "docs" / "exercises" / "e1-sinusoidal-table.md").read_text()
    blocks = re.findall(r"```text\n(.*?)```", markdown, flags=re.S)
    mine = write(tmp_path, "my_solution", source(2))
    assert check_function(exercise("E1"), load(mine).solve).text in blocks


@pytest.mark.parametrize(
    ("page", "phrases"),
    [
        (
            "e1-sinusoidal-table.md",
            ["`solve(length, width)`", "a list of rows, each row a list or a tuple of floats"],
        ),
        ("e2-shift-matrix.md", ["`solve(k, width)`", "a list of rows, each a list or a tuple"]),
        ("e3-order-blindness.md", ["a tuple, a list or a NumPy array", "no shorter version"]),
        ("e4-alibi-slopes.md", ["a list or a tuple of floats", "no shorter version"]),
        (
            "e5-t5-buckets.md",
            ["`solve(relative_position, bidirectional)`", "a list or a tuple of ints"],
        ),
        (
            "e6-yarn-inverse-frequencies.md",
            [
                "`solve(head_dim, base, factor, original_max_position_embeddings)`",
                "a list or a tuple of floats",
            ],
        ),
        (
            "e7-llama3-bands.md",
            [
                "`solve(head_dim, base, factor, original_max_position_embeddings)`",
                "a list or a tuple of floats",
            ],
        ),
        ("e8-proportional-ladder.md", ["a list or a tuple of floats", "no shorter version"]),
        ("e9-which-layers-rotate.md", ["a list of rows", "no shorter version"]),
        ("index.md", ["`solve(length, width)`", "lists of rows, or tuples", "`solve(**kw)`"]),
    ],
)
def test_the_pages_say_which_signatures_and_answers_are_accepted(page, phrases):
    text = words((ROOT / "docs" / "exercises" / page).read_text(encoding="utf-8"))
    for phrase in phrases:
        assert phrase in text, (page, phrase)
