"""Proposition 4 (dog bites man).

Give the words "dog", "bites" and "man" the hand-made vectors
dog = (1, 1/2, 0, -1/2), bites = (0, -1, 1/2, 1), man = (-1/2, 0, 1, 1/2), and
let every word attend to all three with its own vector as query, key and value
(Wq = Wk = Wv = I, scores divided by sqrt(4) = 2). Without a position signal,
each word gets exactly the same output in "dog bites man" and in "man bites
dog": the distance between its two outputs is 0. After adding the sinusoidal
code PE = posenc.sinusoidal(3, 4) to the rows, the outputs differ: the proof
computes each word's distance exactly and evaluates it at 30 digits.

Uses: 1.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import posenc
from posenc.figures import toy as figure
from proofs.exact import for_the_kit, in_order
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 4
TITLE = "Dog bites man"
USES = (1,)

# What the proposition chooses rather than computes: the width of the words
# and of the code, the length of the sentences, the paper's base, and how many
# digits every exact value below is evaluated at.
INPUTS = {"width": 4, "length": 3, "base": 10000, "digits": 30}

WIDTH = INPUTS["width"]
LENGTH = INPUTS["length"]
BASE = INPUTS["base"]
DIGITS = INPUTS["digits"]

half = sp.Rational(1, 2)
WORDS = {
    "dog": sp.Matrix([[1, half, 0, -half]]),
    "bites": sp.Matrix([[0, -1, half, 1]]),
    "man": sp.Matrix([[-half, 0, 1, half]]),
}
FIRST = ("dog", "bites", "man")  # "dog bites man"
SECOND = ("man", "bites", "dog")  # "man bites dog"

#: The worked example of the sinusoidal code at length 3, width 4 (FACTS,
#: section 2), rows 1 and 2, as the source writes them.
WORKED = {
    1: ("0.841471", "0.540302", "0.00999983", "0.99995"),
    2: ("0.909297", "-0.416147", "0.0199987", "0.9998"),
}


def sentence(words: dict[str, sp.Matrix], order: tuple[str, ...]) -> sp.Matrix:
    """The input matrix: one row per word, in sentence order."""
    return sp.Matrix.vstack(*[words[w] for w in order])


def attention(m: sp.Matrix) -> sp.Matrix:
    """softmax(M M^T / sqrt(d)) M: each row's query, key and value is the row itself."""
    scores = m * m.T / sp.sqrt(WIDTH)
    rows = []
    for a in range(m.rows):
        weight = [sp.exp(scores[a, b]) for b in range(m.rows)]
        total = in_order(weight)  # the softmax denominator, a sum over the words
        mixed = [in_order([weight[b] * m[b, col] for b in range(m.rows)]) for col in range(WIDTH)]
        rows.append(sp.Matrix([mixed]) / total)
    return sp.Matrix.vstack(*rows)


def speeds() -> list[sp.Expr]:
    """w_i = 10000^(-2i/4), i = 0, 1."""
    return [sp.Integer(BASE) ** sp.Rational(-2 * i, WIDTH) for i in range(WIDTH // 2)]


def code(length: int) -> sp.Matrix:
    """PE(pos, 2i) = sin(pos w_i), PE(pos, 2i+1) = cos(pos w_i), w_i = 10000^(-2i/4)."""
    w = speeds()
    return sp.Matrix(
        length,
        WIDTH,
        lambda pos, col: (sp.sin if col % 2 == 0 else sp.cos)(pos * w[col // 2]),
    )


def word_gaps(words: dict[str, sp.Matrix], pe: sp.Matrix) -> dict[str, sp.Matrix]:
    """For each word: its output in "dog bites man" minus its output in "man bites dog"."""
    out1 = attention(sentence(words, FIRST) + pe)  # (3, 4)
    out2 = attention(sentence(words, SECOND) + pe)  # (3, 4)
    return {w: out1.row(FIRST.index(w)) - out2.row(SECOND.index(w)) for w in FIRST}


def stacked(gaps: dict[str, sp.Matrix]) -> sp.Matrix:
    return sp.Matrix.vstack(*gaps.values())  # (3, 4): one row per word


def distance(gap: sp.Matrix) -> sp.Expr:
    return sp.sqrt(sum(t**2 for t in gap))


def significant(text: str) -> int:
    """How many significant digits a decimal as written has ("0.00999983" -> 6)."""
    return len(text.lstrip("-").replace(".", "").lstrip("0"))


def checks(rec: Recorder) -> None:
    # Step 1. Proposition 1 for this toy, with every word left symbolic: the
    # second sentence is the first with rows 0 and 2 swapped, so each word's
    # output row moves with the word and does not change. Each sum over the
    # words is kept in its sentence's order until the check evaluates it.
    symbolic = {
        w: sp.Matrix(1, WIDTH, lambda _, col, w=w: sp.Symbol(f"{w}_{col}", real=True))
        for w in FIRST
    }
    zero_code = sp.zeros(LENGTH, WIDTH)
    rec.identity(
        "no position signal: each word's output is the same in both sentences",
        for_the_kit(stacked(word_gaps(symbolic, zero_code))),
        scope="every choice of the three word vectors in R^4 (12 real symbols)",
    )

    # Step 2. The same at the hand-made words, in exact arithmetic (rationals
    # and exponentials of rationals): the distance is exactly 0.
    rec.instances(
        "at the hand-made words: output in sentence 1 - output in sentence 2 = 0",
        ((w, for_the_kit(gap)) for w, gap in word_gaps(WORDS, zero_code).items()),
        scope="the three words dog, bites, man as listed (exact rationals)",
    )

    # Step 3. The code for 3 positions and width 4. Pair 1 turns at
    # 10000^(-2/4) = 1/100 exactly, so at position 2 its angle is 1/50; and
    # posenc.sinusoidal gives the table, which matches the worked example.
    w = speeds()
    rec.exact(
        "width 4: the speed of pair 1 is 10000^(-2/4) = 1/100",
        w[1],
        sp.Rational(1, 100),
        scope="exact rationals",
        quantity="speed_1",
        show=Show(style="fraction"),
    )
    rec.exact(
        "the angle of pair 1 at position 2 is 2 w_1 = 1/50",
        2 * w[1],
        sp.Rational(1, 50),
        scope="exact rationals",
        quantity="angle_2_pair_1",
        show=Show(style="fraction"),
    )
    pe = code(LENGTH)  # rows (0, 1, 0, 1), (sin 1, cos 1, sin 1/100, cos 1/100), ...
    exact_table = np.array(
        [[float(sp.N(e, DIGITS)) for e in pe.row(a)] for a in range(LENGTH)]
    )  # (3, 4), each entry rounded once from DIGITS digits
    rec.numeric(
        "posenc.sinusoidal(3, 4) equals the code's formula",
        np.abs(posenc.sinusoidal(LENGTH, WIDTH) - exact_table),
        tol=4e-16,
        scope=f"all 12 entries, against {DIGITS}-digit values",
    )
    for pos, row in WORKED.items():
        for col, text in enumerate(row):
            rec.rounds_to(
                f"PE({pos})[{col}] reads {text}, as in the worked example",
                float(sp.N(pe[pos, col], DIGITS)),
                text,
                show=Show(sig=significant(text)),
                scope=f"the formula at {DIGITS} digits, shown with the digits FACTS gives",
                quantity=f"pe_{pos}_{col}",
            )

    # Step 4. With the code added, the distances |out_1(w) - out_2(w)|, from
    # the exact expressions at DIGITS digits, and from posenc in float64. The page
    # shows the posenc values, the very numbers the check compares with the exact ones.
    gaps = word_gaps(WORDS, pe)
    # (each DIGITS-digit value as the exact rational it is)
    exact_distance = {w: sp.Rational(sp.N(distance(gap), DIGITS)) for w, gap in gaps.items()}
    identity = np.eye(WIDTH)
    table = posenc.sinusoidal(LENGTH, WIDTH)  # (3, 4)

    def run(order: tuple[str, ...]) -> np.ndarray:
        rows = np.array([[float(t) for t in WORDS[w]] for w in order])  # (3, 4)
        return posenc.attention(rows + table, identity, identity, identity)  # (3, 4)

    out1, out2 = run(FIRST), run(SECOND)
    measured = {
        w: float(np.linalg.norm(out1[FIRST.index(w)] - out2[SECOND.index(w)])) for w in FIRST
    }
    computed = rec.close(
        f"with the code: posenc distances equal the exact ones ({DIGITS} digits)",
        [measured[w] for w in FIRST],
        [exact_distance[w] for w in FIRST],
        tol=1e-12,
        scope=f"the three words, float64 posenc.attention vs the symbolic outputs at {DIGITS} "
        "digits",
    )
    for w in FIRST:
        rec.quantity(f"distance_{w}", measured[w], show=Show(sig=6), by=computed)

    # Step 5. The figure draws what is proven: its bars (posenc.attention on
    # its own copy of the words) against the exact distances, with the code,
    # and 0 up to rounding without it. The page quotes the bars as drawn.
    drawn = [float(bar) for bar in figure._distances(True)]  # the bars of the bottom row
    bars = rec.close(
        "figure, with the code: each bar equals the exact distance",
        drawn,
        [exact_distance[w] for w in FIRST],
        tol=1e-12,
        scope=f"the three bars of the bottom row, float64, vs the symbolic distances at "
        f"{DIGITS} digits",
    )
    for w in FIRST:
        rec.quantity(f"bar_{w}", drawn[FIRST.index(w)], show=Show(decimals=3), by=bars)
    rec.numeric(
        "figure, no position signal: each bar is 0 up to rounding",
        figure._distances(False),
        tol=1e-12,
        scope="the three bars of the top row, float64",
    )


# -- misreadings -------------------------------------------------------------------

#: Every output is a weighted mean of the three input rows, whose entries lie
#: in [-1, 1] without the code: a hundredth of that range is far above the
#: 50-digit rounding of an exact equality, and far below the witnesses.
_MARGIN = sp.Rational(1, 50)
_BY = "a hundredth of the range [-1, 1] of the words' entries"


def _constant_vector(wit: Witness) -> None:
    # "Adding any fixed vector to every word breaks the symmetry." The same
    # vector c on every row is not a position signal: each word's output is
    # still the same in both sentences, for every c.
    shift = sp.Matrix(1, WIDTH, lambda _, col: sp.Symbol(f"c_{col}", real=True))
    same = sp.Matrix.vstack(*[shift] * LENGTH)  # (3, 4): c on every row
    wit.exact(
        reduce_to_zero(for_the_kit(stacked(word_gaps(WORDS, same)))) is not None,
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
        margin=_MARGIN,
        by=_BY,
    )


def _middle_word(wit: Witness) -> None:
    # "With the code, a word that keeps its place keeps its output": "bites"
    # is at position 1 in both sentences, but its neighbours swapped codes.
    gap = word_gaps(WORDS, code(LENGTH))["bites"]
    wit.differs(
        gap,
        sp.zeros(1, WIDTH),
        at="the word bites, position 1 in both sentences",
        margin=_MARGIN,
        by=_BY,
    )


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
