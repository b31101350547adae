"""Proposition 4 (dog bites man).

Give the words "dog", "bites" and "man" the hand-made vectors
dog = (1, 1/2, 0, -1/2), bites = (0, -1, 1/2, 1), man = (-1/2, 0, 1, 1/2), and
let every word attend to all three with its own vector as query, key and value
(Wq = Wk = Wv = I, scores divided by sqrt(4) = 2). Without a position signal,
each word gets exactly the same output in "dog bites man" and in "man bites
dog": the distance between its two outputs is 0. After adding the sinusoidal
code PE = posenc.sinusoidal(3, 4) to the rows, the outputs differ: the
distances are 0.975951 for dog, 0.251825 for bites and 1.07323 for man.

Uses: 1.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness, reduce_to_zero

NUMBER = 4
TITLE = "Dog bites man"
USES = (1,)

WIDTH = 4
half = sp.Rational(1, 2)
WORDS = {
    "dog": sp.Matrix([[1, half, 0, -half]]),
    "bites": sp.Matrix([[0, -1, half, 1]]),
    "man": sp.Matrix([[-half, 0, 1, half]]),
}
FIRST = ("dog", "bites", "man")  # "dog bites man"
SECOND = ("man", "bites", "dog")  # "man bites dog"

#: The distances the page states, to 6 significant digits (checked in step 5).
DISTANCES = {"dog": "0.975951", "bites": "0.251825", "man": "1.07323"}


def sentence(words: dict[str, sp.Matrix], order: tuple[str, ...]) -> sp.Matrix:
    """The input matrix: one row per word, in sentence order."""
    return sp.Matrix.vstack(*[words[w] for w in order])


def attention(m: sp.Matrix) -> sp.Matrix:
    """softmax(M M^T / sqrt(d)) M: each row's query, key and value is the row itself."""
    scores = m * m.T / sp.sqrt(WIDTH)
    rows = []
    for a in range(m.rows):
        weight = [sp.exp(scores[a, b]) for b in range(m.rows)]
        rows.append(sum((weight[b] * m.row(b) for b in range(m.rows)), sp.zeros(1, WIDTH)))
        rows[-1] /= sp.Add(*weight)
    return sp.Matrix.vstack(*rows)


def code(length: int) -> sp.Matrix:
    """PE(pos, 2i) = sin(pos w_i), PE(pos, 2i+1) = cos(pos w_i), w_i = 10000^(-2i/4)."""
    speeds = [sp.Integer(10000) ** sp.Rational(-2 * i, WIDTH) for i in range(WIDTH // 2)]
    return sp.Matrix(
        length,
        WIDTH,
        lambda pos, col: (sp.sin if col % 2 == 0 else sp.cos)(pos * speeds[col // 2]),
    )


def word_gaps(words: dict[str, sp.Matrix], pe: sp.Matrix) -> dict[str, sp.Matrix]:
    """For each word: its output in "dog bites man" minus its output in "man bites dog"."""
    out1 = attention(sentence(words, FIRST) + pe)  # (3, 4)
    out2 = attention(sentence(words, SECOND) + pe)  # (3, 4)
    return {w: out1.row(FIRST.index(w)) - out2.row(SECOND.index(w)) for w in FIRST}


def named(gap: sp.Matrix) -> sp.Matrix:
    """``gap``; unless it cancels as written, with its repeated parts named (``sp.cse``).

    Naming common subexpressions cannot turn a nonzero difference into zero
    (putting the definitions back restores it), and it keeps a false claim
    from sending the simplifier into a long search before it fails.
    """
    if all(entry == 0 for entry in gap):
        return gap
    _, (reduced,) = sp.cse([gap], optimizations=None)
    return reduced


def stacked(gaps: dict[str, sp.Matrix]) -> sp.Matrix:
    return sp.Matrix.vstack(*gaps.values())  # (3, 4): one row per word


def checks(rec: Recorder) -> None:
    # Step 1. Proposition 1 for this toy, with every word left symbolic: the
    # second sentence is the first with rows 0 and 2 swapped, so each word's
    # output row moves with the word and does not change.
    symbolic = {
        w: sp.Matrix(1, WIDTH, lambda _, col, w=w: sp.Symbol(f"{w}_{col}", real=True))
        for w in FIRST
    }
    zero_code = sp.zeros(3, WIDTH)
    rec.identity(
        "no position signal: each word's output is the same in both sentences",
        named(stacked(word_gaps(symbolic, zero_code))),
        scope="every choice of the three word vectors in R^4 (12 real symbols)",
    )

    # Step 2. The same at the hand-made words, in exact arithmetic (rationals
    # and exponentials of rationals): the distance is exactly 0.
    rec.instances(
        "at the hand-made words: output in sentence 1 - output in sentence 2 = 0",
        ((w, named(gap)) for w, gap in word_gaps(WORDS, zero_code).items()),
        scope="the three words dog, bites, man as listed (exact rationals)",
    )

    # Step 3. The code for 3 positions and width 4. Pair 1 turns at
    # 10000^(-2/4) = 1/100 exactly, and posenc.sinusoidal gives the table.
    rec.exact(
        "width 4: the speed of pair 1 is 10000^(-1/2) = 1/100",
        sp.Integer(10000) ** sp.Rational(-2, 4),
        sp.Rational(1, 100),
        scope="exact rationals",
    )
    pe = code(3)  # rows (0, 1, 0, 1), (sin 1, cos 1, sin 1/100, cos 1/100), ...
    with mpmath.workdps(30):
        exact_table = np.array(
            [[float(mpmath.mpf(str(sp.N(e, 30)))) for e in pe.row(a)] for a in range(3)]
        )  # (3, 4), each entry rounded once from 30 digits
    rec.numeric(
        "posenc.sinusoidal(3, 4) equals the code's formula",
        float(np.abs(posenc.sinusoidal(3, 4) - exact_table).max()),
        tol=4e-16,
        scope="all 12 entries, against 30-digit values",
    )

    # Step 4. With the code added, the distances |out_1(w) - out_2(w)|, from
    # the exact expressions at 30 digits, and from posenc in float64.
    gaps = word_gaps(WORDS, pe)
    exact_distance = {w: sp.N(sp.sqrt(sum(t**2 for t in gap)), 30) for w, gap in gaps.items()}
    identity = np.eye(WIDTH)
    table = posenc.sinusoidal(3, WIDTH)  # (3, 4)

    def run(order: tuple[str, ...]) -> np.ndarray:
        rows = np.array([[float(t) for t in WORDS[w]] for w in order])  # (3, 4)
        return posenc.attention(rows + table, identity, identity, identity)  # (3, 4)

    out1, out2 = run(FIRST), run(SECOND)
    worst = 0.0
    for w in FIRST:
        got = np.linalg.norm(out1[FIRST.index(w)] - out2[SECOND.index(w)])
        worst = max(worst, abs(got - float(exact_distance[w])))
    rec.numeric(
        "with the code: posenc distances equal the exact ones (30 digits)",
        worst,
        tol=1e-12,
        scope="the three words, float64 posenc.attention vs the symbolic outputs at 30 digits",
    )

    # Step 5. The values written on the page: each is the 30-digit distance
    # rounded to 6 significant digits, so the distances are not 0.
    worst = 0.0
    with mpmath.workdps(30):
        for w, shown in DISTANCES.items():
            digits = len(shown.replace(".", "").lstrip("0"))
            exponent = mpmath.floor(mpmath.log10(mpmath.mpf(shown)))
            half_ulp = mpmath.mpf(10) ** (exponent - digits + 1) / 2
            error = abs(mpmath.mpf(str(exact_distance[w])) - mpmath.mpf(shown))
            worst = max(worst, float(error / half_ulp))
    rec.numeric(
        "with the code: distances dog 0.975951, bites 0.251825, man 1.07323",
        worst,
        tol=1.0,
        scope="each 30-digit distance within half a unit of the stated last digit "
        "(largest error shown in those half units)",
    )


# -- misreadings -------------------------------------------------------------------


def _constant_vector(wit: Witness) -> None:
    # "Adding any fixed vector to every word breaks the symmetry." The same
    # vector c on every row is not a position signal: each word's output is
    # still the same in both sentences, for every c.
    shift = sp.Matrix(1, WIDTH, lambda _, col: sp.Symbol(f"c_{col}", real=True))
    same = sp.Matrix.vstack(*[shift] * 3)  # (3, 4): c on every row
    wit.exact(
        reduce_to_zero(named(stacked(word_gaps(WORDS, same)))) is not None,
        at="the hand-made words plus the same vector c (4 free symbols) on every row: "
        "each word's two outputs differ by exactly 0",
    )


def _invariant(wit: Witness) -> None:
    # "Attention is permutation-invariant: both sentences give the same output
    # matrix." Without the code the rows are the same, but they move.
    first = attention(sentence(WORDS, FIRST))  # (3, 4)
    second = attention(sentence(WORDS, SECOND))  # (3, 4)
    wit.differs(
        first.row(0),
        second.row(0),
        at="the hand-made words, no position signal, row 0 (dog's output vs man's)",
    )


def _middle_word(wit: Witness) -> None:
    # "With the code, a word that keeps its place keeps its output": "bites"
    # is at position 1 in both sentences, but its neighbours swapped codes.
    gap = word_gaps(WORDS, code(3))["bites"]
    wit.differs(gap, sp.zeros(1, WIDTH), at="the word bites, position 1 in both sentences")


MISREADINGS = [
    Misreading(
        "Adding any fixed vector to every word breaks the symmetry between the two sentences",
        _constant_vector,
        why="A vector that is the same at every position carries no position: it is content.",
    ),
    Misreading(
        "Attention is permutation-invariant: both sentences give the same output matrix",
        _invariant,
        why="Each word keeps its output, so the rows move with the words.",
    ),
    Misreading(
        "With the code added, 'bites' keeps its output, since it stays in the middle",
        _middle_word,
        why="Its output mixes the other words, whose codes were exchanged.",
    ),
]
