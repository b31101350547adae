"""The worked answers typed on the exercise pages, against computations written here.

The exercise pages (``docs/exercises/``) are not linted by ``hooks.bind``: they state
tasks, and their data are inputs. Their worked answers are claims all the same, and
this file checks them. Every value is recomputed here from the formulas, with mpmath
at 50 digits (the sinusoidal code, the shift matrix, attention with the identity as
its weights), never with posenc. A number is right when it reads exactly as the true
value rounded to the precision the page shows: ``0.2250`` must be the true value
rounded to four decimals, ``0.99995`` to five.

Three sweeps cover a page:

* every decimal in its text (outside Python code and included files) is matched, in
  page order, with the value it stands for, so a page that gains, loses or changes a
  decimal fails, naming the page, the line and the quantity;
* tables, matrices and vectors are read whole, integers included;
* a few sentences that state an integer or an order of magnitude are read one by one.

``test_a_changed_digit_fails`` then changes every digit of every number these checks
read, one at a time, and requires each change to be caught. The checker's own reports
(the ``text`` blocks) are compared word for word with the real checker by
``tests/test_exercises.py``; here their numbers are recomputed as well.
"""

from __future__ import annotations

import functools
import itertools
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from posenc.exercises import TOLERANCE, exercise

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "docs" / "exercises"
DIGITS = 50  # working precision of every value below
BASE = 10000

# -- the mathematics, written out independently of posenc ----------------------------


def mpf(value) -> mp.mpf:
    if isinstance(value, Fraction):
        return mp.mpf(value.numerator) / value.denominator
    return mp.mpf(value)


def speed(i: int, width: int, base: int = BASE) -> mp.mpf:
    """omega_i = base^(-2i/d)."""
    return mp.power(base, -mp.mpf(2 * i) / width)


def code(pos: int, width: int) -> list[mp.mpf]:
    """PE(pos): (sin, cos) of pos * omega_i for each pair i, interleaved."""
    row = []
    for i in range(width // 2):
        row += [mp.sin(pos * speed(i, width)), mp.cos(pos * speed(i, width))]
    return row


def table(length: int, width: int) -> list[list[mp.mpf]]:
    return [code(pos, width) for pos in range(length)]


def shift(k: int, width: int, *, sign: int = 1) -> list[list[mp.mpf]]:
    """M_k: block i is [[cos a, s sin a], [-s sin a, cos a]] with a = k omega_i.

    ``sign=-1`` is the textbook rotation block, the mistake E2 warns about.
    """
    m = [[mp.mpf(0)] * width for _ in range(width)]
    for i in range(width // 2):
        a = k * speed(i, width)
        r = 2 * i
        m[r][r], m[r][r + 1] = mp.cos(a), sign * mp.sin(a)
        m[r + 1][r], m[r + 1][r + 1] = -sign * mp.sin(a), mp.cos(a)
    return m


def matvec(m, v):
    return [mp.fsum(a * b for a, b in zip(row, v, strict=True)) for row in m]


def vecmat(v, m):
    return [mp.fsum(v[r] * m[r][c] for r in range(len(v))) for c in range(len(m[0]))]


def attention(x):
    """softmax(X X^T / sqrt(d)) X: each word its own query, key and value."""
    scale = mp.sqrt(len(x[0]))
    out = []
    for query in x:
        scores = [mp.fsum(a * b for a, b in zip(query, key, strict=True)) / scale for key in x]
        weights = [mp.exp(s) for s in scores]
        total = mp.fsum(weights)
        out.append(
            [
                mp.fsum(w * key[c] for w, key in zip(weights, x, strict=True)) / total
                for c in range(len(query))
            ]
        )
    return out


def plus(x, y):
    return [[a + b for a, b in zip(r, s, strict=True)] for r, s in zip(x, y, strict=True)]


def largest(x, y):
    return max(abs(a - b) for r, s in zip(x, y, strict=True) for a, b in zip(r, s, strict=True))


#: E3's words, as the task gives them (data, not answers).
WORDS = {
    "dog": [1, 0, Fraction(1, 2), 0],
    "bites": [0, 1, 0, Fraction(1, 2)],
    "man": [Fraction(1, 2), 0, 0, 1],
}
SENTENCE = ["dog", "bites", "man"]


@functools.cache
def e3_outputs(order: tuple[int, ...]):
    """Each word's output in both sentences, without and with the code, and the gaps."""
    with mp.workdps(DIGITS):
        x = [[mpf(v) for v in WORDS[w]] for w in SENTENCE]
        moved = [x[o] for o in order]
        pe = table(len(x), len(x[0]))
        result = {}
        for name, first, second in (
            ("plain", attention(x), attention(moved)),
            ("coded", attention(plus(x, pe)), attention(plus(moved, pe))),
        ):
            words = SENTENCE
            result[name] = {
                w: (first[words.index(w)], second[order.index(words.index(w))]) for w in words
            }
            result[name + " gap"] = largest(second, [first[o] for o in order])
        return result


def float32_table(length: int, width: int) -> np.ndarray:
    """E1's formula with every step in float32, as a PyTorch table is computed."""
    pos = np.arange(length, dtype=np.float32)[:, None]  # (L, 1)
    i = np.arange(width // 2, dtype=np.float32)  # (d/2,)
    angle = pos / np.float32(BASE) ** (np.float32(2) * i / np.float32(width))  # (L, d/2)
    out = np.empty((length, width), dtype=np.float32)  # (L, d)
    out[:, 0::2], out[:, 1::2] = np.sin(angle), np.cos(angle)
    return out


# -- how a page shows a number --------------------------------------------------------

DECIMAL = re.compile(r"(?<![\w.])[-−]?\d+\.\d+(?:e[-+]?\d+)?")
NUMBER = re.compile(r"[-−]?\d+(?:\.\d+)?")


def as_shown(value, shown: str) -> str:
    """``value`` rounded to the decimals ``shown`` has, written the same way."""
    places = len(shown.partition(".")[2])
    with mp.workdps(DIGITS):
        exact = (
            Decimal(str(value))
            if isinstance(value, int)
            else Decimal(mp.nstr(mpf(value), DIGITS, strip_zeros=False))
        )
    text = str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))
    return "0" + text[2:] if text.startswith("-0") and Decimal(text) == 0 else text


@dataclass(frozen=True)
class Order:
    """A value given only as an order of magnitude: it lies in [10^e, 10^(e+1))."""

    value: float


@dataclass(frozen=True)
class Noise:
    """A floating-point rounding of an exact zero: shown as it came out, below ``limit``."""

    limit: float = 1e-14


@dataclass
class Page:
    """One exercise page, with its code blanked out, and what the checks found."""

    name: str
    text: str
    problems: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # digits a check read

    @classmethod
    def read(cls, name: str, text: str | None = None) -> Page:
        raw = (EXERCISES / name).read_text(encoding="utf-8") if text is None else text
        return cls(name, blank_code(raw))

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def expect(self, span: tuple[int, int], value, what: str) -> None:
        shown = self.text[span[0] : span[1]].replace("−", "-")
        where = f"{self.name}:{self.line(span[0])}: {what}"
        if isinstance(value, Noise):
            if not abs(float(shown)) < value.limit:
                self.problems.append(
                    f"{where}: {shown} is not rounding noise below {value.limit:g}"
                )
            return  # its digits are the checker's own rounding, not a worked answer
        self.spans.append(span)
        if isinstance(value, Order):
            exponent = int(shown)
            if not 10.0**exponent <= value.value < 10.0 ** (exponent + 1):
                self.problems.append(
                    f"{where}: the value {value.value:.3g} is not of the order 10^{exponent}"
                )
            return
        right = as_shown(value, shown)
        if shown != right:
            self.problems.append(f"{where}: the page shows {shown}, the value is {right}")


def blank_code(text: str) -> str:
    """Python fences and included files blanked out, every offset kept."""
    out, fenced = [], False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        fence = stripped.startswith("```") and (fenced or stripped.startswith("```python"))
        if fence:
            fenced = not fenced
        blank = fence or fenced or "--8<--" in line
        out.append(re.sub(r"[^\n]", " ", line) if blank else line)
    return "".join(out)


def sweep(page: Page, expected: list[tuple[str, object]]) -> None:
    """Every decimal of the page, in order, against the value it stands for."""
    found = list(DECIMAL.finditer(page.text))
    if len(found) != len(expected):
        page.problems.append(
            f"{page.name}: {len(found)} decimals on the page, {len(expected)} expected: "
            + ", ".join(f"{m.group()} (line {page.line(m.start())})" for m in found)
        )
    for match, (what, value) in zip(found, expected, strict=False):
        page.expect(match.span(), value, what)


def numbers_in(page: Page, start: int, end: int) -> Iterator[re.Match[str]]:
    yield from NUMBER.finditer(page.text, start, end)


def expect_all(page: Page, start: int, end: int, values, what: str) -> None:
    """The numbers between offsets start and end are exactly ``values``, in order."""
    found = list(numbers_in(page, start, end))
    values = list(values)
    if len(found) != len(values):
        page.problems.append(
            f"{page.name}:{page.line(start)}: {what}: {len(found)} numbers "
            f"shown, {len(values)} expected"
        )
    for index, (match, value) in enumerate(zip(found, values, strict=False)):
        page.expect(match.span(), value, f"{what}, entry {index}")


def find(page: Page, pattern: str) -> re.Match[str]:
    match = re.search(pattern, page.text, flags=re.S | re.M)
    if match is None:
        page.problems.append(f"{page.name}: the sentence /{pattern}/ is missing")
    return match


def flat(rows) -> list:
    return [v for row in rows for v in row]


# -- E1 -----------------------------------------------------------------------------


def check_e1(page: Page) -> None:
    w1 = speed(1, 4)  # 1/100
    pe1, pe2 = code(1, 4), code(2, 4)
    sweep(
        page,
        [
            ("omega_1 = 10000^(-2/4)", w1),
            ("angle of pair 1 at position 1", 1 * w1),
            ("angle of pair 1 at position 2", 2 * w1),
            ("speed of pair 1 in the column 2 heading", w1),
            ("speed of pair 1 in the column 3 heading", w1),
            *[(f"PE(1, {j})", pe1[j]) for j in range(4)],
            *[(f"PE(2, {j})", pe2[j]) for j in range(4)],
            ("angle of pair 1 at position 1, in the row length", w1),
            ("angle of pair 1 at position 1, in the row length", w1),
            ("PE(1, 0) at width 2", code(1, 2)[0]),
            ("PE(1, 1) at width 2", code(1, 2)[1]),
            ("the base in the checker's report", BASE),
            ("expected PE(1, 1) = cos 1", pe1[1]),
            (
                "the column-index mistake's PE(1, 1): cos(1 / 10000^(2/4))",
                mp.cos(1 / mp.power(BASE, mp.mpf(2 * 1) / 4)),
            ),
            ("PE(1, 0), the first entry of row 1", pe1[0]),
        ],
    )
    # The worked table, cell by cell (row 0 and the position column included).
    head = find(page, r"\| \$pos\$ \| column 0")
    if head:
        for pos in range(3):
            row = re.compile(rf"^\| {pos} \|.*$", re.M).search(page.text, head.end())
            if row is None:
                page.problems.append(f"{page.name}: no row for position {pos}")
                continue
            cells = list(numbers_in(page, row.start(), row.end()))
            page.expect(cells[0].span(), pos, "the position column")
            for j, match in enumerate(cells[1:]):
                page.expect(match.span(), code(pos, 4)[j], f"PE({pos}, {j})")
    # The row length: sin^2 1 + cos^2 1 + sin^2 0.01 + cos^2 0.01 = 1 + 1 = 2 = d/2.
    length = find(page, r"= 1 \+ 1 = (\d+)\$,\s+which is \$d/2\$")
    if length:
        page.expect(length.span(1), mp.fsum(v**2 for v in pe1), "the squared length of row 1")
    # The three smaller cases.
    for count, width, shown in re.findall(
        r"(one|two) positions? of width (\d) (?:is|are)\s+`(\[\[.*?\]\])`", page.text
    ):
        start = page.text.index(shown)
        rows = table({"one": 1, "two": 2}[count], int(width))
        expect_all(page, start, start + len(shown), flat(rows), f"{count} rows of width {width}")
    # The speeds of the worked example: omega_0 = 10000^(-0/4) = 1.
    zero = find(page, r"\\omega_0 = 10000\^\{-0/4\} = (\d+)")
    if zero:
        page.expect(zero.span(1), speed(0, 4), "omega_0")
    # "off by a few times 10^-8 even at position 1": the float32 table of the example.
    f32 = find(page, r"off by a few times \$10\^\{(-\d+)\}\$ even at position 1")
    if f32:
        error = max(abs(float(a) - b) for a, b in zip(float32_table(3, 4)[1], pe1, strict=True))
        page.expect(f32.span(1), Order(float(error)), "the float32 error at position 1")


# -- E2 -----------------------------------------------------------------------------


def check_e2(page: Page) -> None:
    m1, m2 = shift(1, 2), shift(2, 4)
    w1 = speed(1, 4)
    moved = matvec(m2, code(1, 4))  # M_2 PE(1), which the page says is PE(3)
    textbook_gap = max(  # max |R_textbook(1) PE(pos) - PE(pos + 1)| over pos = 0..7
        abs(a - b)
        for pos in range(8)
        for a, b in zip(matvec(shift(1, 2, sign=-1), code(pos, 2)), code(pos + 1, 2), strict=True)
    )
    sweep(
        page,
        [
            *[(f"M_1 at width 2, entry {e}", v) for e, v in enumerate(flat(m1))],
            *[(f"M_1 PE(0), entry {e}", v) for e, v in enumerate(matvec(m1, code(0, 2)))],
            ("cos 3", mp.cos(3)),
            ("sin 3", mp.sin(3)),
            ("omega_1 at width 4", w1),
            ("angle of pair 1 for k = 2", 2 * w1),
            *[(f"M_2 at width 4, entry {e}", v) for e, v in enumerate(flat(m2)) if v != 0],
            *[(f"PE(1), entry {j}", v) for j, v in enumerate(code(1, 4))],
            *[(f"M_2 PE(1), entry {j}", v) for j, v in enumerate(moved)],
            ("angle of pair 1 at position 3", 3 * w1),
            ("the base in the checker's report", BASE),
            ("expected M_1[0, 1] = sin 1", m1[0][1]),
            ("the textbook block's M_1[0, 1] = -sin 1", shift(1, 2, sign=-1)[0][1]),
            ("how far the textbook M_1 misses PE(pos + 1), pos = 0..7", textbook_gap),
            *[(f"PE(1) M_2, entry {j}", v) for j, v in enumerate(vecmat(code(1, 4), m2))],
        ],
    )
    # The matrices written out, zeros included: M_1 at width 2, M_2 at width 4.
    numeric = [
        m
        for m in re.finditer(r"\\begin\{pmatrix\}(.*?)\\end\{pmatrix\}", page.text, re.S)
        if not re.search(r"[a-z]", m.group(1))
    ]
    if len(numeric) != 2:
        page.problems.append(f"{page.name}: {len(numeric)} numeric matrices, 2 expected")
    for match, (name, m) in zip(numeric, (("M_1", m1), ("M_2", m2)), strict=False):
        expect_all(page, match.start(1), match.end(1), flat(m), name)
    # Every vector written as PE(pos) = (...), and what M_k turns it into.
    for match in re.finditer(r"\\mathrm\{PE\}\((-?\d+)\) = \(([^)]*)\)", page.text):
        pos, width = int(match.group(1)), match.group(2).count(",") + 1
        page.expect(match.span(1), pos, "a position")  # read, so that a changed digit shows
        expect_all(page, match.start(2), match.end(2), code(pos, width), f"PE({pos})")
    for pattern, value, what in (
        (r"to \$\(([^)]*)\)\$, which is\s+\$\\mathrm\{PE\}\(1\)\$", code(1, 2), "M_1 PE(0)"),
        (
            r"and you\s+get \$\(([^)]*)\)\$\. That is \$\\mathrm\{PE\}\(3\)\$",
            code(3, 4),
            "M_2 PE(1), which is PE(3)",
        ),
    ):
        match = find(page, pattern)
        if match:
            expect_all(page, match.start(1), match.end(1), value, what)
    if moved and largest([moved], [code(3, 4)]) > mp.mpf(10) ** (-40):
        page.problems.append(f"{page.name}: M_2 PE(1) is not PE(3)")
    # "prints the largest error, about 10^-16": what the solution file really prints.
    about = find(page, r"prints the largest error, about \$10\^\{(-\d+)\}\$")
    if about:
        page.expect(about.span(1), Order(e2_solution_prints()), "what the E2 solution prints")


@functools.cache
def e2_solution_prints() -> float:
    script = ROOT / "exercises" / "solutions" / "e2_shift_matrix.py"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return float(done.stdout.strip())


# -- E3 -----------------------------------------------------------------------------


def check_e3(page: Page) -> None:
    swap, turn = e3_outputs((2, 1, 0)), e3_outputs((1, 2, 0))

    def outputs(kind: str):
        for word in SENTENCE:
            for sentence in (0, 1):
                for c, v in enumerate(swap[kind][word][sentence]):
                    yield (f"{kind} output of {word} in sentence {sentence + 1}, entry {c}", v)

    halves = [
        (f"{w}, entry {c}", mpf(v))
        for w in SENTENCE
        for c, v in enumerate(WORDS[w])
        if mpf(v) != int(mpf(v))
    ]
    sweep(
        page,
        [
            *halves,
            *outputs("plain"),
            *outputs("coded"),
            (
                "largest difference with the code, dog bites man against man bites dog",
                swap["coded gap"],
            ),
            ("largest difference with the code, order [1, 2, 0]", turn["coded gap"]),
            ("the checker's expected second number", swap["coded gap"]),
            ("the mistaken solution's second number (an exact 0, rounded)", Noise()),
        ],
    )
    # The word table, and the two output tables, entry by entry.
    for word in SENTENCE:
        match = find(page, rf"^\| {word} \| \$\(([^)]*)\)\$ \|$")
        if match:
            expect_all(page, match.start(1), match.end(1), WORDS[word], f"the vector of {word}")
    for heading, kind in (("**Without the code.**", "plain"), ("**With the code.**", "coded")):
        start = page.text.find(heading)
        for word in SENTENCE:
            row = re.compile(rf"^\| {word} \| \$\(([^)]*)\)\$ \| \$\(([^)]*)\)\$ \|$", re.M)
            match = row.search(page.text, start)
            if start < 0 or match is None:
                page.problems.append(f"{page.name}: no {kind} row for {word}")
                continue
            for group in (1, 2):
                expect_all(
                    page,
                    match.start(group),
                    match.end(group),
                    swap[kind][word][group - 1],
                    f"{kind} output of {word}",
                )
    # Sentences that state an integer, or where the difference lies.
    zero = find(page, r"the largest difference is \$(\d+)\$\.")
    if zero:
        page.expect(zero.span(1), swap["plain gap"], "largest difference without the code")
    pair = find(page, r"the two numbers are \$(\d+)\$ and")
    if pair:
        page.expect(pair.span(1), turn["plain gap"], "order [1, 2, 0] without the code")
    where = find(page, r"in the (\w+) entry for \"(\w+)\"")
    if where:
        gaps = {
            (w, c): abs(a - b)
            for w in SENTENCE
            for c, (a, b) in enumerate(zip(*swap["coded"][w], strict=True))
        }
        word, entry = max(gaps, key=gaps.get)
        ordinal = ["first", "second", "third", "fourth"][entry]
        if (where.group(1), where.group(2)) != (ordinal, word):
            page.problems.append(
                f"{page.name}:{page.line(where.start())}: the largest "
                f"difference is in the {ordinal} entry for {word!r}"
            )
    scale = find(
        page, r"so \$d_k = (\d)\$\s+and the scores are dot products divided\s+by \$(\d)\$"
    )
    if scale:
        page.expect(scale.span(1), len(WORDS["dog"]), "d_k")
        page.expect(scale.span(2), mp.sqrt(len(WORDS["dog"])), "sqrt(d_k)")


# -- E4 -----------------------------------------------------------------------------


def alibi_exponents(num_heads: int) -> list[Fraction]:
    """q_h of the slopes 2^(-q_h): the series for c heads, then the odd terms for 2c."""
    c = 1
    while 2 * c <= num_heads:
        c *= 2
    first = [Fraction(8 * h, c) for h in range(1, c + 1)]
    odd = [Fraction(8 * h, 2 * c) for h in range(1, 2 * c + 1, 2)]
    return first + odd[: num_heads - c]


def alibi(num_heads: int) -> list[mp.mpf]:
    return [mp.power(2, -mpf(q)) for q in alibi_exponents(num_heads)]


def check_e4(page: Page) -> None:
    eight, six, twelve = alibi(8), alibi(6), alibi(12)
    plain = mp.power(2, mpf(Fraction(-8, 6)))  # the plain series' head 1 for six heads
    half = Fraction(float(np.float16(2**-0.5)))  # 2^(-1/2) stored in float16
    sweep(
        page,
        [
            *[(f"slope of head {h + 1} of eight", m) for h, m in enumerate(eight)],
            ("the slope of head 1 of eight", eight[0]),
            ("minus that slope, in the bias formula", -eight[0]),
            ("the bias of key 0 for query 3", -eight[0] * 3),
            ("the bias of key 2 for query 3", -eight[0] * 1),
            *[(f"slope of head {h + 1} of six", m) for h, m in enumerate(six)],
            ("the plain series' slope of head 1 of six", plain),
            *[(f"slope of head {h + 9} of twelve", m) for h, m in enumerate(twelve[8:])],
            ("the checker's expected slope of head 1 of six", six[0]),
            ("the plain series' slope in the checker's report", plain),
            ("2^(-1/2) in float16", half),
        ],
    )
    # The table, heads and slopes, and the rows written out whole.
    heads = find(page, r"^\| \$h\$ \|([^\n]*)\|$")
    slopes = find(page, r"^\| \$m_h\$ \|([^\n]*)\|$")
    if heads and slopes:
        expect_all(page, heads.start(1), heads.end(1), range(1, 9), "the heads of the table")
        expect_all(page, slopes.start(1), slopes.end(1), eight, "the slopes of the table")
    for pattern, values, what in (
        (r"keys at positions ([\d, and]+) get", range(4), "the key positions"),
        (
            r"get the biases (\$.*?\$ and \$\d+\$)\.",
            [-eight[0] * (3 - j) for j in range(4)],
            "the biases of query 3",
        ),
        (r"So six heads get\s+`\[([^]]*)\]`", six, "the six slopes"),
        (r"take the first\s+four:\s+`\[([^]]*)\]`", twelve[8:], "heads 9 to 12"),
    ):
        match = find(page, pattern)
        if match:
            expect_all(page, match.start(1), match.end(1), values, what)
    # The powers of two and the exponents written in the text: 2^{-q}, base and exponent.

    def powers(exponents):
        return [v for q in exponents for v in (2, -q)]

    for pattern, values, what in (
        (r"Six heads: \$c = (\d+)\$", [4], "c for six heads"),
        (r"Twelve heads: \$c = (\d+)\$", [8], "c for twelve heads"),
        (r"slopes for four heads,\s+\$([^$]*)\$", powers(alibi_exponents(4)), "four"),
        (
            r"every other term, from the first, is \$([^$]*)\$",
            powers(alibi_exponents(8)[::2]),
            "the odd terms for eight heads",
        ),
        (r"and heads (\d) and (\d) take", [5, 6], "the heads that take them"),
        (r"slope \$2\^\{-8/(\d)\}\$ instead", [6], "the head count of the plain series"),
        (r"Heads (\d+) to (\d+) take", [9, 12], "the heads of the odd terms"),
    ):
        match = find(page, pattern)
        if match:
            groups = range(1, (match.lastindex or 0) + 1)
            start, end = match.start(groups[0]), match.end(groups[-1])
            expect_all(page, start, end, values, what)


# -- E5 -----------------------------------------------------------------------------


#: E5's worked offsets, as the task gives them (data, not answers): encoder, decoder.
E5_WORKED = (
    (True, [0, 1, 7, 8, 12, 90, 91, 500]),
    (True, [0, -1, -7, -8, -91]),
    (False, [3, 0, -15, -16, -113]),
)


def t5_sizes(bidirectional: bool, num_buckets: int) -> tuple[int, int]:
    """h, the buckets of a half, and e, the exact ones."""
    half = num_buckets // 2 if bidirectional else num_buckets
    return half, half // 2


def t5_of_distance(n: int, half: int, max_distance: int) -> int:
    """The floor of ln(n/e) / ln(M/e) * (h - e), decided with fractions, capped."""
    e, a = half // 2, half - half // 2
    if n < e:
        return n
    ratio, top = Fraction(n, e), Fraction(max_distance, e)
    return e + max(q for q in range(a) if ratio**a >= top**q)


def t5(offset: int, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128) -> int:
    half, _ = t5_sizes(bidirectional, num_buckets)
    if bidirectional:
        return (half if offset > 0 else 0) + t5_of_distance(abs(offset), half, max_distance)
    return t5_of_distance(max(-offset, 0), half, max_distance)


def t5_argument(n: int, half: int, max_distance: int) -> mp.mpf:
    e = half // 2
    return mp.log(mpf(Fraction(n, e))) / mp.log(mpf(Fraction(max_distance, e))) * (half - e)


def t5_first(bucket: int, half: int, max_distance: int) -> int:
    """The smallest distance of a bucket."""
    return next(n for n in range(10**4) if t5_of_distance(n, half, max_distance) == bucket)


def check_e5(page: Page) -> None:
    import math  # the float64 computation the page quotes, as Python does it

    sweep(
        page,
        [
            ("the argument for distance 12 in T5's encoder", t5_argument(12, 16, 128)),
            ("the argument for distance 90", t5_argument(90, 16, 128)),
            ("the argument for distance 91", t5_argument(91, 16, 128)),
            ("ln(80/5) / ln(160/5) * 5 in float64", math.log(80 / 5) / math.log(160 / 5) * 5),
        ],
    )
    # The table of T5's encoder: the distances of each bucket, and the buckets.
    firsts = [t5_first(b, 16, 128) for b in range(8, 16)]  # buckets 8 .. 15
    ranges = [0, e - 1] if (e := t5_sizes(True, 32)[1]) else []
    for lo, after in itertools.pairwise(firsts):
        ranges += [lo, after - 1]  # bucket lo's distances, up to the next bucket's first
    ranges.append(firsts[-1])  # "... and more"
    distances = find(page, r"^\| distance \$n\$ \|([^\n]*)\|$")
    row = find(page, r"^\| bucket \| \$n\$ \|([^\n]*)\|$")
    if distances and row:
        expect_all(page, distances.start(1), distances.end(1), ranges, "the distances")
        expect_all(page, row.start(1), row.end(1), range(8, 16), "the buckets of the table")
    # Every list of offsets and the buckets the page gives them, T5's sizes.
    pairs = list(re.finditer(r"`\[([^]]*)\]` gets `\[([^]]*)\]`", page.text))
    if len(pairs) != 3:
        page.problems.append(f"{page.name}: {len(pairs)} worked lists, 3 expected")
    for match, (bidirectional, offsets) in zip(pairs, E5_WORKED, strict=False):
        expect_all(page, match.start(1), match.end(1), offsets, "the offsets")
        buckets = [t5(r, bidirectional) for r in offsets]
        expect_all(page, match.start(2), match.end(2), buckets, f"the buckets of {offsets}")
    # Sentences that state an integer.
    h, e = t5_sizes(True, 32)
    hd, ed = t5_sizes(False, 32)
    for pattern, values, what in (
        (r"so \$h = (\d+)\$, \$e = (\d+)\$, and\s+\$h - e = (\d+)\$", [h, e, h - e], "sizes"),
        (r"stretch from distance (\d+) to (\d+)\.", [e, 128], "the logarithmic range"),
        (r"Distance 12 gives.*?floor \$(\d+)\$, bucket \$(\d+)\$", [1, t5(-12, True)], "12"),
        (r"begins at distance (\d+), long before", [firsts[-1]], "the last bucket"),
        (r"`max_distance`\s+(\d+): distance (\d+) gives", [128, firsts[-1] - 1], "90"),
        (r"and (\d+) gives \$", [firsts[-1]], "91"),
        (
            r"A key (\d+) positions after\s+the query gets bucket \$(\d+) \+ (\d+) = (\d+)\$",
            [12, h, t5(-12, True), t5(12, True)],
            "a key 12 after",
        ),
        (r"one (\d+) positions before it, bucket \$(\d+)\$", [12, t5(-12, True)], "12 before"),
        (r"so \$h = (\d+)\$ and \$e = (\d+)\$\.", [hd, ed], "the decoder's sizes"),
        (r"Distances up to (\d+) are exact", [ed - 1], "the decoder's exact distances"),
        (
            r"last bucket begins at distance (\d+)\. So",
            [t5_first(hd - 1, hd, 128)],
            "the decoder's last bucket",
        ),
        (r"the key (\d+) positions in\s+the future has distance \$(\d+)\$", [3, 0], "future"),
        (r"is (\d+) for\s+the encoder\.", [firsts[-1]], "watch out: the last bucket"),
        (r"\$e\$ is (\d+) for T5", [ed], "watch out: the decoder's e"),
        (r"below (\d+) for T5's\s+encoder", [e], "watch out: the encoder's e"),
    ):
        match = find(page, pattern)
        if match:
            groups = range(1, (match.lastindex or 0) + 1)
            for group, value in zip(groups, values, strict=True):
                page.expect(match.span(group), value, what)
    # The floor that floating point gets wrong: 10 causal buckets, max_distance 160.
    hf, ef = t5_sizes(False, 10)
    trap = find(page, r"\$h = (\d+)\$, \$e = (\d+)\$ and \$M/e = (\d+)\$")
    if trap:
        for group, value in zip((1, 2, 3), (hf, ef, Fraction(160, ef)), strict=True):
            page.expect(trap.span(group), value, "the trap's sizes")
    exact = find(
        page,
        r"\$(\d) \\ln (\d+) / \\ln (\d+) = (\d)\$ exactly, "
        r"and the bucket is \$(\d) \+ (\d) = (\d)\$",
    )
    if exact:
        q = t5_argument(80, hf, 160)
        if abs(q - mp.nint(q)) > mp.mpf(10) ** (-40):
            page.problems.append(f"{page.name}: the argument at 80 is not a whole number")
        values = [hf - ef, Fraction(80, ef), Fraction(160, ef), mp.nint(q), ef, mp.nint(q)]
        values.append(t5(-80, False, 10, 160))
        for group, value in zip(range(1, 8), values, strict=True):
            page.expect(exact.span(group), value, "the trap's argument and bucket")
    powers = find(page, r"\$(\d+)\^(\d) \\cdot (\d)\^(\d) = (\d+)\^(\d) \\cdot (\d)\^(\d)\$")
    if powers:
        n, a, e1, q, m, q2, e2, a2 = (int(g) for g in powers.groups())
        if n**a * e1**q != m**q2 * e2**a2:
            page.problems.append(f"{page.name}: {powers.group(0)} is false")
        for group, value in zip(
            range(1, 9), [80, hf - ef, ef, 4, 160, 4, ef, hf - ef], strict=True
        ):
            page.expect(powers.span(group), value, "the identity in integers")
    wrong = find(page, r"`int` makes it (\d): bucket (\d)")
    if wrong:
        truncated = int(math.log(80 / 5) / math.log(160 / 5) * 5)
        page.expect(wrong.span(1), truncated, "the truncated float")
        page.expect(wrong.span(2), ef + truncated, "the bucket it gives")


# -- E6 -----------------------------------------------------------------------------


def yarn_dim(rho, d: int, base, length: int) -> mp.mpf:
    """The pair index that turns rho times in length positions: d ln(L0/(2 pi rho)) / (2 ln b)."""
    return d * mp.log(mpf(length) / (2 * mp.pi * rho)) / (2 * mp.log(mpf(base)))


def yarn_rows(d: int, base, factor, length: int, fast: int = 32, slow: int = 1):
    """(w_j, t_j, w'_j) for every pair, and the cache factor a = 0.1 ln s + 1."""
    low = max(int(mp.floor(yarn_dim(fast, d, base, length))), 0)
    high = min(int(mp.ceil(yarn_dim(slow, d, base, length))), d - 1)
    rows = []
    for j in range(d // 2):
        w = mp.power(mpf(base), -mpf(2 * j) / d)
        t = min(max(mpf(j - low) / (high - low), mpf(0)), mpf(1))
        rows.append((w, t, (1 - t) * w + t * w / mpf(factor)))
    return rows, (low, high), mpf(Fraction(1, 10)) * mp.log(mpf(factor)) + 1


TENTH = Fraction(1, 10)  # the 0.1 of YaRN's temperature, a constant of the formula


def check_e6(page: Page) -> None:
    small, (low, high), a = yarn_rows(16, 10000, 4, 2048)
    big, (big_low, big_high), big_a = yarn_rows(128, 10000, 8, 4096)
    table_decimals = [
        (f"pair {j}, {name}", v)
        for j, row in enumerate(small)
        for name, v in zip(("speed", "ramp", "new speed"), row, strict=True)
        if v != int(v)
    ]
    sweep(
        page,
        [
            ("the 0.1 of the temperature", TENTH),
            ("c(32) for d = 16, L0 = 2048", yarn_dim(32, 16, 10000, 2048)),
            ("c(1) for d = 16, L0 = 2048", yarn_dim(1, 16, 10000, 2048)),
            *table_decimals,
            ("pair 4's old speed", small[4][0]),
            ("pair 4's new speed", small[4][2]),
            ("the 0.1 of the temperature", TENTH),
            ("the cache factor at s = 4", a),
            ("the logit factor at s = 4", a**2),
            ("the last entry of the answer", a**2),
            ("c(32) for Llama 2", yarn_dim(32, 128, 10000, 4096)),
            ("c(1) for Llama 2", yarn_dim(1, 128, 10000, 4096)),
            ("pair 63's new speed, Llama 2", big[63][2]),
            ("the logit factor at s = 8", big_a**2),
            ("the base in the checker's report", BASE),
            ("the factor in the checker's report", 4),
            ("the checker's expected logit factor", a**2),
            ("the mistake's answer, the cache factor", a),
            ("the 0.1 of the temperature, in the hint", TENTH),
            ("the 0.1 of the temperature, in the hint's code", TENTH),
            ("the 0.1 of the temperature, watch out", TENTH),
            ("the 0.1 of the temperature, watch out", TENTH),
            ("the 0.1 of the temperature, hint 3", TENTH),
        ],
    )
    # The table, row by row, integers included.
    for j, row in enumerate(small):
        match = find(page, rf"^\| {j} \|([^\n]*)\|$")
        if match:
            page.expect((match.start() + 2, match.start() + 2 + len(str(j))), j, "the pair")
            expect_all(page, match.start(1), match.end(1), row, f"the row of pair {j}")
    for pattern, values, what in (
        (
            r"A head of width \$d = (\d+)\$, base \$10\^(\d)\$, trained on "
            r"\$L_0 = (\d+)\$ positions and\s+stretched \$s = (\d)\$ times",
            [16, 4, 2048, 4],
            "the first worked example's inputs",
        ),
        (
            r"so the ramp runs from\s+pair \$(\d+)\$ to pair \$(\d+)\$, in steps",
            [low, high],
            "the range",
        ),
        (r"returns the last column, then \$[\d.]+\$: (\w+) numbers", [], ""),
        (
            r"\$d = (\d+)\$, base \$10\^(\d)\$, \$L_0 = (\d+)\$,\s+\$s = (\d)\$\. Here",
            [128, 4, 4096, 8],
            "the Llama 2 example's inputs",
        ),
        (
            r"the ramp runs from\s+pair \$(\d+)\$ to pair \$(\d+)\$\. Pair",
            [big_low, big_high],
            "Llama 2's range",
        ),
        (
            r"Pair \$(\d)\$ keeps speed \$(\d)\$, pair \$(\d+)\$ gets",
            [0, big[0][2], 63],
            "the ends",
        ),
    ):
        match = find(page, pattern)
        if match and values:
            for group, value in zip(range(1, len(values) + 1), values, strict=True):
                page.expect(match.span(group), value, what)
        elif match:
            words = [
                "zero",
                "one",
                "two",
                "three",
                "four",
                "five",
                "six",
                "seven",
                "eight",
                "nine",
            ]
            if match.group(1) != words[len(small) + 1]:
                page.problems.append(f"{page.name}: the answer has {len(small) + 1} numbers")


# -- E7 -----------------------------------------------------------------------------


def llama3_rows(d: int, base, factor, length: int, low=1, high=4):
    """(w_i, lambda_i, band, w'_i) for every pair, from Meta's rule written out."""
    rows = []
    for i in range(d // 2):
        w = mp.power(mpf(base), -mpf(2 * i) / d)
        wave = 2 * mp.pi / w
        if wave < mpf(length) / high:
            rows.append((w, wave, "kept", w))
        elif wave > mpf(length) / low:
            rows.append((w, wave, "divided", w / factor))
        else:
            g = (length / wave - low) / (mpf(high) - low)
            rows.append((w, wave, "blended", w * ((1 - g) / factor + g)))
    return rows


def bands_of(rows) -> list[int]:
    """First and last pair of each band, in the order kept, blended, divided."""
    out = []
    for band in ("kept", "blended", "divided"):
        pairs = [i for i, row in enumerate(rows) if row[2] == band]
        out += [pairs[0], pairs[-1]]
    return out


LLAMA_31, LLAMA_32 = Fraction(31, 10), Fraction(32, 10)  # the names, read as numbers


def check_e7(page: Page) -> None:
    small = llama3_rows(16, 500000, 8, 8192)
    w4, wave4 = small[4][0], small[4][1]
    turns = 8192 / wave4
    g = (turns - 1) / 3
    l31, l32 = llama3_rows(128, 500000, 8, 8192), llama3_rows(64, 500000, 32, 8192)
    fixed = llama3_rows(64, 500000, 8, 8192)  # the mistake: s = 8 in place of 32
    table_decimals = [
        (f"pair {i}, {name}", v)
        for i, (w, wave, _, new) in enumerate(small)
        for name, v in (("speed", w), ("wavelength", wave), ("new speed", new))
        if v != int(v)
    ]
    first_divided = bands_of(l31)[4]
    sweep(
        page,
        [
            ("Llama 3.1, in the introduction", LLAMA_31),
            ("Llama 3.1's settings", LLAMA_31),
            ("Llama 3.1's other settings", LLAMA_31),
            *table_decimals,
            ("pair 4's wavelength", wave4),
            ("pair 4's turns in L0", turns),
            ("pair 4's turns in L0", turns),
            ("g_4", g),
            ("g_4", g),
            ("g_4", g),
            ("pair 4's multiplier", (1 - g) / 8 + g),
            ("Llama 3.1's own head", LLAMA_31),
            (f"pair {first_divided}'s wavelength", l31[first_divided][1]),
            ("Llama 3.2 1B", LLAMA_32),
            ("the rest as Llama 3.1", LLAMA_31),
            ("Llama 3.1 in the checker's cases", LLAMA_31),
            ("Llama 3.2 1B in the checker's cases", LLAMA_32),
            ("Llama 3.1 again", LLAMA_31),
            ("Llama 3.1's factor", LLAMA_31),
            ("the base in the checker's report", 500000),
            ("the factor in the checker's report", 32),
            ("the low band factor in the report", 1),
            ("the high band factor in the report", 4),
            ("pair 15's wavelength at d = 64", l32[15][1]),
            ("the expected speed of pair 15, Llama 3.2 1B", l32[15][3]),
            ("pair 15 with the factor fixed at 8", fixed[15][3]),
            ("Llama 3.1 in the hint", LLAMA_31),
            ("Llama 3.2 in the hint", LLAMA_32),
            ("Llama 3.2 in watch out", LLAMA_32),
            ("Llama 3.1 in watch out", LLAMA_31),
        ],
    )
    # The table, row by row, integers included (the band is a word between the numbers).
    for i, (w, wave, band, new) in enumerate(small):
        match = find(page, rf"^\| {i} \| ([^|]*) \| ([^|]*) \| (\w+) \| ([^|]*) \|$")
        if not match:
            continue
        page.expect((match.start() + 2, match.start() + 2 + len(str(i))), i, "the pair")
        for group, value in ((1, w), (2, wave), (4, new)):
            expect_all(page, match.start(group), match.end(group), [value], f"pair {i}")
        if match.group(3) != band:
            page.problems.append(f"{page.name}: pair {i} is {band}, not {match.group(3)}")
    edges = [8192 // 4, 8192]
    for pattern, values, what in (
        (r"the edges are wavelengths (\d+) and (\d+)\.", edges, "the edges"),
        (
            r"pairs (\d+) to (\d+) are kept, (\d+) to (\d+) blended and\s+(\d+) to (\d+) "
            r"divided by (\d)\.",
            [*bands_of(l31), 8],
            "Llama 3.1's bands",
        ),
        (r"The closest call is pair (\d+), with", [first_divided], "the closest call"),
        (r"just beyond (\d+)\.", [8192], "the edge it passes"),
        (r"has \$d = (\d+)\$ and \$s = (\d+)\$", [64, 32], "Llama 3.2 1B's head"),
        (
            r"Llama 3\.1: pairs (\d+) to (\d+) are kept, (\d+) to (\d+) blended and (\d+) to "
            r"(\d+) divided by\s+(\d+)\.",
            [*bands_of(l32), 32],
            "Llama 3.2 1B's bands",
        ),
        (r"Pair 4 turns \$(\d+) / ", [8192], "L0"),
        (r"\$g_4 = \([\d.]+ - (\d)\)/(\d) = ", [1, 3], "the blend's constants"),
    ):
        match = find(page, pattern)
        if match:
            for group, value in zip(range(1, len(values) + 1), values, strict=True):
                page.expect(match.span(group), value, what)
    if abs(small[4][3] - w4 * ((1 - g) / 8 + g)) > mp.mpf(10) ** (-40):
        page.problems.append(f"{page.name}: the multiplier does not give pair 4's speed")


# -- E8 -----------------------------------------------------------------------------


def proportional(d: int, base, p: Fraction) -> list[mp.mpf]:
    """Transformers' proportional rotary: k = floor(p d / 2) pairs at base^(-2i/d), then 0."""
    k = int(p * d // 2)
    return [speed(i, d, base) if i < k else mp.mpf(0) for i in range(d // 2)]


def check_e8(page: Page) -> None:
    half = Fraction(1, 2)
    prop = proportional(16, 10000, half)
    neox = [speed(i, 8, 10000) for i in range(4)]  # r = int(16 * 1/2) = 8
    cases = len(exercise("E8").cases())
    sweep(
        page,
        [
            *[
                (f"pair {i}, {name}", value)
                for i in (1, 2, 3)
                for name, value in (("proportional", prop[i]), ("NeoX", neox[i]))
            ],
            ("the base in solve(16, 10000.0, 0.5)", 10000),
            ("p in solve(16, 10000.0, 0.5)", half),
            ("the base in the checker's report", 10000),
            ("p in the checker's report", half),
            ("the expected speed of pair 1, in the report", prop[1]),
            ("pair 1 with the exponent over r = 8, in the report", neox[1]),
        ],
    )
    # The table, row by row: pair, proportional speed, NeoX speed (none from pair 4 on).
    for i in range(8):
        match = find(page, rf"^\| {i} \| ([^|]*) \| ([^|]*) \|$")
        if not match:
            continue
        page.expect((match.start() + 2, match.start() + 2 + len(str(i))), i, "the pair")
        expect_all(page, match.start(1), match.end(1), [prop[i]], f"pair {i}, proportional")
        neox_i = [neox[i]] if i < 4 else []
        expect_all(page, match.start(2), match.end(2), neox_i, f"pair {i}, NeoX")
    k_gemma = int(Fraction(1, 4) * 512 // 2)
    for pattern, values, what in (
        (r"A head of width \$d = (\d+)\$, base \$b = 10\^(\d)\$, \$p = 1/(\d)\$", [16, 4, 2], "E"),
        (r"Then \$k = (\d+)\$ of the\s+\$(\d+)\$ pairs turn", [int(half * 16 // 2), 8], "k"),
        (r"NeoX partial, \$r = (\d+)\$", [8], "NeoX's rotated width"),
        (
            r"global head has \$d = (\d+)\$, \$b = 10\^(\d)\$ and \$p = 1/(\d)\$: pairs 0 to\s+"
            r"(\d+) turn, the slowest at \$10\^\{-(\d) \\cdot (\d+)/(\d+)\}\$, and pairs (\d+) "
            r"to (\d+) are\s+stopped",
            [512, 6, 4, k_gemma - 1, 6, 2 * (k_gemma - 1), 512, k_gemma, 255],
            "Gemma 4 31B's global head",
        ),
        (r"Case 1 of (\d+) \(a worked example\)", [cases], "the number of cases"),
        (r"which turns: (\d+) of the (\d+) pairs turn", [4, 8], "the pairs that turn"),
        (r"For \$d = (\d+)\$ and \$p = 1/(\d)\$ it is (\d+)\.", [16, 2, 4], "hint 2"),
    ):
        match = find(page, pattern)
        if match:
            for group, value in zip(range(1, len(values) + 1), values, strict=True):
                page.expect(match.span(group), value, what)


# -- E9 -----------------------------------------------------------------------------


def text_config(name: str) -> dict:
    """The text part of data/configs/<name>.json, read with json alone."""
    import json

    config = json.loads((ROOT / "data" / "configs" / f"{name}.json").read_text())
    return config.get("text_config", config)


def check_e9(page: Page) -> None:
    sweep(page, [])  # the page states no decimal
    gemma3 = text_config("gemma-3-27b-it")
    layers, factor = gemma3["num_hidden_layers"], int(gemma3["rope_scaling"]["factor"])
    pattern = 6  # Gemma3TextConfig's default sliding_window_pattern (not in the file)
    glob = [i for i in range(layers) if (i + 1) % pattern == 0]
    smol = text_config("smollm3-3b")["no_rope_layers"]
    still = [i for i, f in enumerate(smol) if not f]
    types = text_config("gemma-4-31b")["layer_types"]
    full = types.count("full_attention")
    for regex, values, what in (
        (r"a Gemma 3 text model that does not say has \$P = (\d+)\$", [pattern], "P"),
        (r"with \$P = (\d+)\$, layers", [pattern], "P in the example"),
        (
            r"layers (\d+), (\d+), \.\.\., (\d+) are global, ten of\s+them, and the other (\d+) "
            r"slide",
            [glob[0], glob[1], glob[-1], layers - len(glob)],
            "Gemma 3's global layers",
        ),
        (r"and the factor (\d+) of `rope_scaling`", [factor], "Gemma 3's factor"),
        (r"So `solve` returns (\d+) rows", [layers], "Gemma 3's layers"),
        (
            r"^\| (\d+) to (\d+), (\d+) to (\d+), \.\.\., (\d+) and (\d+) \| sliding \| "
            r"\[(\d+), (\d+), (\d+)\] \|$",
            [0, glob[0] - 1, glob[0] + 1, glob[1] - 1, glob[-1] + 1, layers - 1, 1, 10000, 1],
            "the sliding row",
        ),
        (
            r"^\| (\d+), (\d+), \.\.\., (\d+) \| global \| \[(\d+), (\d+), (\d+)\] \|$",
            [glob[0], glob[1], glob[-1], 1, 1000000, factor],
            "the global row",
        ),
        (
            r"lists (\d+) flags in `no_rope_layers`: 0 at\s+layers (\d+), (\d+), \.\.\., (\d+)\. "
            r"Those (\d+) layers get \[0, 0, 0\]; the other (\d+) rotate with\s+\[1, (\d+), 1\]",
            [
                *(len(smol), still[0], still[1], still[-1], len(still), len(smol) - len(still)),
                int(text_config("smollm3-3b")["rope_theta"]),
            ],
            "SmolLM3",
        ),
        (
            r"its (\d+) global layers rotate with \[1, (\d+), 1\] \(proportional\s+rotary, no "
            r"factor\), its (\d+) sliding ones with \[1, (\d+), 1\]",
            [full, 1000000, len(types) - full, 10000],
            "Gemma 4 31B",
        ),
        (r"Case 1 of (\d+) \(a worked example\)", [len(exercise("E9").cases())], "cases"),
        (r"\(its factor\): expected (\d+), got (\d+)\.", [1, factor], "the report"),
        (
            r"SmolLM3's:\s+(\d+) of (\d+)\.",
            [len(smol) - len(still), len(smol)],
            "hint 2",
        ),
    ):
        match = find(page, regex)
        if match:
            for group, value in zip(range(1, len(values) + 1), values, strict=True):
                page.expect(match.span(group), value, what)


CHECKS: dict[str, Callable[[Page], None]] = {
    "e1-sinusoidal-table.md": check_e1,
    "e2-shift-matrix.md": check_e2,
    "e3-order-blindness.md": check_e3,
    "e4-alibi-slopes.md": check_e4,
    "e5-t5-buckets.md": check_e5,
    "e6-yarn-inverse-frequencies.md": check_e6,
    "e7-llama3-bands.md": check_e7,
    "e8-proportional-ladder.md": check_e8,
    "e9-which-layers-rotate.md": check_e9,
}


def checked(name: str, text: str | None = None) -> Page:
    page = Page.read(name, text)
    with mp.workdps(DIGITS):
        CHECKS[name](page)
    return page


# -- the tests ----------------------------------------------------------------------


def test_every_exercise_page_is_checked():
    pages = {p.name for p in EXERCISES.glob("e*.md")}
    assert pages == set(CHECKS)


@pytest.mark.parametrize("name", list(CHECKS))
def test_the_worked_answers_are_the_true_values(name):
    page = checked(name)
    problems, spans = page.problems, page.spans
    assert not problems, "\n".join(problems)
    assert spans, "nothing was checked"


@pytest.mark.parametrize("name", list(CHECKS))
def test_a_changed_digit_fails(name):
    """Change each digit of each checked number by one: every change must be caught."""
    page = checked(name)
    raw = (EXERCISES / name).read_text(encoding="utf-8")
    assert len(page.text) == len(raw)  # offsets in the blanked text are offsets in raw
    digits = sorted(
        {i for start, end in page.spans for i in range(start, end) if raw[i].isdigit()}
    )
    assert digits
    missed = []
    for i in digits:
        changed = raw[:i] + str((int(raw[i]) + 1) % 10) + raw[i + 1 :]
        if not checked(name, changed).problems:
            missed.append(f"line {page.line(i)}: {raw[max(0, i - 12) : i + 12]!r}")
    assert not missed, "changes not caught:\n" + "\n".join(missed)


@pytest.mark.parametrize("name", list(CHECKS))
def test_an_extra_decimal_fails(name):
    raw = (EXERCISES / name).read_text(encoding="utf-8")
    assert checked(name, raw + "\nAbout 0.5 more.\n").problems


def test_the_pages_describe_the_checker_they_send_you_to():
    """Tolerance and case counts are the checker's: it is their only source."""
    assert TOLERANCE == 1e-9
    for name, key, worked, unseen in (
        ("e1-sinusoidal-table.md", "E1", "four", "six"),
        ("e2-shift-matrix.md", "E2", "four", "five"),
        ("e3-order-blindness.md", "E3", "two", "three"),
        ("e4-alibi-slopes.md", "E4", "three", "five"),
        ("e5-t5-buckets.md", "E5", "three", "six"),
        ("e6-yarn-inverse-frequencies.md", "E6", "two", "six"),
        ("e7-llama3-bands.md", "E7", "three", "five"),
        ("e8-proportional-ladder.md", "E8", "three", "five"),
        ("e9-which-layers-rotate.md", "E9", "three", "seven"),
    ):
        text = " ".join((EXERCISES / name).read_text(encoding="utf-8").split())
        assert "within $10^{-9}$ of the exact value" in text
        cases = exercise(key).cases()
        words = ["zero", "one", "two", "three", "four", "five", "six", "seven"]
        shown = sum(1 for c in cases if c.worked), sum(1 for c in cases if not c.worked)
        assert (words[shown[0]], words[shown[1]]) == (worked, unseen), (key, shown)
        assert re.search(
            rf"on the {worked} (?:cases|matrices|worked examples) above|"
            rf"on the {worked} worked examples",
            text,
        ), key
        assert f"{unseen} unseen" in text, key
