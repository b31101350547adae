"""Proposition 13 (library conventions are the same ladder in other clothes).

Let d be the width and h = d // 2. The concatenated layout (all sines, then all
cosines) is the interleaved layout of the 2017 paper with its columns permuted by
the fixed permutation sigma(k) = 2k on the sine block, sigma(h + k) = 2k + 1 on
the cosine block; for odd d the same rule gives the ceil(d/2)/floor(d/2) split
of Marian. The exponent i/(h-1) (tensor2tensor, fairseq, Whisper) instead of 2i/d
stretches the ladder so that it runs from 2*pi to exactly 2*pi*b, b the largest
timescale; tensor2tensor's min_timescale multiplies the frequencies, which is
right only for min_timescale = 1. A permutation matrix is orthogonal, so dot
products between codes do not depend on the layout; but a table added to learned
embeddings meets each coordinate's own weights, so the two layouts give a trained
model different inputs and checkpoints do not transfer.

Uses: 5, 6, 9.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

from posenc import conventions
from proofs.kit import Misreading, Recorder, Witness, substitute

NUMBER = 13
TITLE = "Library conventions are the same ladder in other clothes"
USES = (5, 6, 9)

# Symbols, declared once. Positions are real; the base (largest timescale) b and
# tensor2tensor's smallest timescale m are positive; h is the number of pairs and
# n = h - 1 >= 1 the number of steps of an (h-1) ladder (h >= 2 there).
pos, q = sp.symbols("pos q", real=True)
b, m = sp.symbols("b m", positive=True)
h = sp.Symbol("h", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
k, i = sp.symbols("k i", integer=True, nonnegative=True)
a, c = sp.symbols("a c", real=True)  # two angles
w = sp.Function("w")  # w(k): the angular speed of pair k, any positive numbers


def sigma(column: int, width: int) -> int:
    """Interleaved column that column ``column`` of the concatenated layout holds."""
    sines = (width + 1) // 2  # ceil(d/2) sines; floor(d/2) cosines
    return 2 * column if column < sines else 2 * (column - sines) + 1


def _sigma_list(width: int) -> list[int]:
    return [sigma(col, width) for col in range(width)]


def permutation_matrix(width: int) -> sp.Matrix:
    """P with (P x)[k] = x[sigma(k)]: P times an interleaved row is the concatenated row."""
    return sp.Matrix(width, width, lambda r, c: 1 if c == sigma(r, width) else 0)


def speeds(width: int) -> list[sp.Symbol]:
    """Generic positive speeds w_0, w_1, ...: the layout does not care what they are."""
    return list(sp.symbols(f"w0:{(width + 1) // 2}", positive=True))


def interleaved(p: sp.Expr, width: int) -> sp.Matrix:
    """The paper's layout: column j holds sin (j even) or cos (j odd) of p * w_(j//2)."""
    ws = speeds(width)
    return sp.Matrix([(sp.sin if j % 2 == 0 else sp.cos)(p * ws[j // 2]) for j in range(width)])


def concatenated(p: sp.Expr, width: int) -> sp.Matrix:
    """All sines first, then all cosines, written from that definition alone."""
    ws = speeds(width)
    sines = [sp.sin(p * ws[t]) for t in range((width + 1) // 2)]
    cosines = [sp.cos(p * ws[t]) for t in range(width // 2)]
    return sp.Matrix(sines + cosines)


# The exponents of the two ladders, for pair i of h = n + 1 pairs.
paper_exponent = i / (n + 1)  # 2i/d with d = 2h
stretched_exponent = i / n  # i/(h-1)


def library_formula(name: str, width: int) -> list[tuple[str, sp.Expr]]:
    """(function, exact speed) of every column, from shared FACTS section 4."""
    base = sp.Integer(10000)
    half = width // 2
    if name in ("tensor2tensor", "fairseq", "whisper"):
        rates = [base ** (-sp.Rational(t, max(half - 1, 1))) for t in range(half)]
        zero = [("zero", sp.Integer(0))] * (width % 2)
        return [("sin", r) for r in rates] + [("cos", r) for r in rates] + zero
    rates = [base ** (-sp.Rational(2 * (j // 2), width)) for j in range(width)]
    row = [("sin" if j % 2 == 0 else "cos", rates[j]) for j in range(width)]
    if name == "marian":
        return [row[sigma(c, width)] for c in range(width)]
    return row


# Tolerances for positions below 50 and widths up to 9 (see Step 8).
EPS32 = 2.0**-24
TOLERANCE = {
    "paper": 4e-16,
    "xlm": 2.0**-25 + 1e-15,
    "marian": 2.0**-25 + 1e-15,
    "pytorch-tutorial": 50 * 16 * EPS32,
    "tensor2tensor": 50 * 16 * EPS32,
    "fairseq": 50 * 16 * EPS32,
    "whisper": 50 * 16 * EPS32,
    "keras-hub": 50 * 16 * EPS32,
}
PRECISION = {
    "paper": "posenc.sinusoidal, float64",
    "xlm": "float64, rounded once to float32",
    "marian": "float64, rounded once to float32",
}


def checks(rec: Recorder) -> None:
    # Step 1. The index map, for every width at once. Concatenated column k
    # (k < h) holds sin(pos w_k); it comes from interleaved column 2k, which
    # holds sin(pos w_(2k // 2)). Concatenated column h + k holds cos(pos w_k)
    # and comes from interleaved column 2((h + k) - h) + 1 = 2k + 1, which holds
    # cos(pos w_((2k+1) // 2)). Both differences vanish for every integer k, h.
    rec.identity(
        "concatenated column k (a sine) is interleaved column 2k",
        sp.sin(pos * w(sp.floor(2 * k / sp.Integer(2)))) - sp.sin(pos * w(k)),
        scope="every integer pair index k >= 0, every speed function w, real pos",
    )
    source = 2 * ((h + k) - h) + 1
    rec.identity(
        "concatenated column h + k (a cosine) is interleaved column 2k + 1",
        sp.cos(pos * w(sp.floor(source / sp.Integer(2)))) - sp.cos(pos * w(k)),
        scope="every integer k >= 0 and h >= 1, every speed function w, real pos",
    )

    # Step 2. Whole rows, written from each layout's own definition: the
    # concatenated row is P times the interleaved row, with P the permutation
    # matrix of sigma. Odd widths give the Marian split (one more sine).
    rec.instances(
        "concatenated(pos) = P interleaved(pos)",
        (
            (f"d = {d}", concatenated(pos, d) - permutation_matrix(d) * interleaved(pos, d))
            for d in range(1, 11)
        ),
        scope="widths d = 1..10 (odd d: ceil(d/2) sines, floor(d/2) cosines); "
        "symbolic pos and speeds",
    )
    rec.exact(
        "posenc.conventions.concatenated_order(d) is sigma",
        sum(
            int(conventions.concatenated_order(d)[c] != sigma(c, d))
            for d in range(1, 65)
            for c in range(d)
        ),
        0,
        scope="d = 1..64, every column (count of mismatches)",
    )

    # Step 3. The stretched ladder. With exponent i/(h-1) = i/n, the wavelength
    # of pair i is 2 pi b^(i/n): it starts at 2 pi, ends at exactly 2 pi b (pair
    # i = n = h - 1), and is geometric with ratio b^(1/n). The paper's last rung,
    # 2 pi b^(n/(n+1)) (Proposition 6), is a factor b^(1/h) lower.
    wavelength = 2 * sp.pi * b**stretched_exponent
    rec.identity(
        "(h-1) ladder starts at 2 pi",
        wavelength.subs(i, 0) - 2 * sp.pi,
        scope="b > 0, n = h - 1 >= 1",
    )
    rec.identity(
        "(h-1) ladder ends at exactly 2 pi b (pair i = h - 1)",
        wavelength.subs(i, n) - 2 * sp.pi * b,
        scope="b > 0, n = h - 1 >= 1",
    )
    rec.identity(
        "(h-1) ladder is geometric with ratio b^(1/(h-1))",
        wavelength.subs(i, i + 1) / wavelength - b ** (1 / n),
        scope="b > 0, n = h - 1 >= 1, integer i >= 0",
    )
    rec.identity(
        "the (h-1) ladder is the paper's ladder with base b^(h/(h-1))",
        b**stretched_exponent - (b ** ((n + 1) / n)) ** paper_exponent,
        scope="b > 0, n = h - 1 >= 1, integer i >= 0 (d = 2h)",
    )
    paper_top = 2 * sp.pi * b ** paper_exponent.subs(i, n)
    rec.identity(
        "2 pi b is a factor b^(1/h) above the paper's last rung",
        2 * sp.pi * b / paper_top - b ** (1 / (n + 1)),
        scope="b > 0, h = n + 1 >= 2",
    )

    # Step 4. tensor2tensor's min_timescale m. The code computes the frequency
    # m * exp(-i log(b/m) / (h-1)) = m (b/m)^(-i/(h-1)); the timescale it means
    # is m (b/m)^(i/(h-1)). Their product is m^2, not 1: right only for m = 1.
    computed = m * sp.exp(-i * sp.log(b / m) / n)
    intended_timescale = m * (b / m) ** (i / n)
    rec.identity(
        "tensor2tensor: computed frequency x intended timescale = min_timescale^2",
        sp.expand_log(computed * intended_timescale) - m**2,
        scope="b, m > 0, n = h - 1 >= 1, integer i >= 0",
    )
    _, rates = conventions.columns("tensor2tensor", 8, min_timescale=2.0, base=5000.0)
    expected = [2 * (5000 / 2) ** (-t / 3) for t in range(4)]
    rec.numeric(
        "posenc.conventions.columns follows tensor2tensor's rule for min_timescale = 2",
        float(np.abs(rates[:4] - np.array(expected)).max() / 2),
        tol=1e-15,
        scope="d = 8, min_timescale 2, max_timescale 5000; relative to the first speed",
    )

    # Step 5. Dot products. P is orthogonal (P^T P = I), so P x . P y = x . y;
    # in particular PE_c(pos) . PE_c(q) = PE(pos) . PE(q), and for every pair
    # sin a sin c + cos a cos c = cos(a - c) (Proposition 9).
    rec.instances(
        "P^T P = I",
        (
            (f"d = {d}", permutation_matrix(d).T * permutation_matrix(d) - sp.eye(d))
            for d in range(1, 11)
        ),
        scope="widths d = 1..10",
    )
    rec.instances(
        "concatenated(pos) . concatenated(q) = interleaved(pos) . interleaved(q)",
        (
            (
                f"d = {d}",
                (concatenated(pos, d).T * concatenated(q, d))[0]
                - (interleaved(pos, d).T * interleaved(q, d))[0],
            )
            for d in (2, 4, 6, 8)
        ),
        scope="widths d = 2, 4, 6, 8; symbolic pos, q and speeds",
    )
    rec.identity(
        "one pair: sin a sin c + cos a cos c = cos(a - c)",
        sp.sin(a) * sp.sin(c) + sp.cos(a) * sp.cos(c) - sp.cos(a - c),
        scope="all real a, c",
    )

    # Step 6. Adding a table to embeddings. With e the token's embedding,
    # e + P p = P (P^T e + p): the concatenated model sees the interleaved
    # model's input in a permuted basis. A checkpoint moves across only if its
    # embedding table and every weight that reads or writes the residual stream
    # are permuted with it.
    rec.instances(
        "e + P p = P (P^T e + p)",
        ((f"d = {d}", _ported(d)) for d in (2, 4, 6)),
        scope="widths d = 2, 4, 6; symbolic embedding e, pos and speeds",
    )

    # Step 7. Numeric spot check of Steps 2 and 5 with the library: the paper's
    # table, permuted, keeps every dot product (float64, width 64).
    paper = conventions.table("paper", 200, 64, start=1000)  # (200, 64)
    permuted = paper[:, conventions.concatenated_order(64)]  # (200, 64)
    rec.numeric(
        "dot products of posenc's codes do not change under the permutation",
        float(np.abs(permuted @ permuted.T - paper @ paper.T).max()),
        tol=1e-12,
        scope="positions 1000..1199, width 64, all 40,000 dot products, float64",
    )
    _, fairseq_rates = conventions.columns("fairseq", 512)
    rec.numeric(
        "posenc: the slowest fairseq wavelength is 2 pi 10000",
        abs(2 * np.pi / fairseq_rates[255] / (2 * np.pi * 10000) - 1),
        tol=2e-16,
        scope="d = 512, pair 255 of 256; relative error, float64",
    )

    # Step 8. posenc.conventions builds each library's table as FACTS section 4
    # says: every entry against the formula written above, at 30 digits, with
    # the tolerance that the library's precision explains (float32 throughout:
    # exp turns the rounding of its argument, up to ln 10000, into ~16 ulp of the
    # frequency, times an angle below 50).
    mpmath.mp.dps = 30
    for name, convention in conventions.CONVENTIONS.items():
        widths = (8,) if convention.odd_width == "error" else (8, 9)
        worst = 0.0
        for width in widths:
            got = conventions.table(name, 48, width)  # (48, width), positions start..start+47
            formula = [
                (kind, mpmath.mpf(sp.N(rate, 30))) for kind, rate in library_formula(name, width)
            ]
            for r, row in enumerate(got.astype(np.float64).tolist()):
                for value, (kind, rate) in zip(row, formula, strict=True):
                    exact = _entry(kind, (convention.start + r) * rate)
                    worst = max(worst, float(abs(mpmath.mpf(value) - exact)))
        rec.numeric(
            f"table({name!r}) matches the formula of {convention.title}",
            worst,
            tol=TOLERANCE[name],
            scope=f"{'widths' if len(widths) > 1 else 'width'} {', '.join(map(str, widths))}, "
            f"positions {convention.start}.."
            f"{convention.start + 47}; {PRECISION.get(name, 'float32 throughout')}",
        )

    # Step 9. Exact facts of the precision path: Marian's table is XLM's with
    # its columns permuted, bit for bit (both round the same float64 numbers);
    # fairseq and Whisper compute the same float32 operations and differ only
    # in fairseq's zero padding row; odd tensor2tensor widths end in zeros.
    mismatches = 0
    for width in (1, 2, 3, 8, 9, 64):
        xlm = conventions.table("xlm", 40, width)  # (40, width)
        marian = conventions.table("marian", 40, width)
        mismatches += int(
            np.count_nonzero(marian.view(np.uint32) != xlm[:, _sigma_list(width)].view(np.uint32))
        )
    rec.exact(
        "Marian's table is XLM's with columns permuted by sigma, bit for bit",
        mismatches,
        0,
        scope="widths 1, 2, 3, 8, 9, 64; positions 0..39 (count of differing float32 entries)",
    )
    fairseq = conventions.table("fairseq", 40, 64, start=0)  # (40, 64), rows = positions 0..39
    whisper = conventions.table("whisper", 40, 64)
    rec.exact(
        "fairseq's table is Whisper's except its padding row, which is zero",
        int(
            np.count_nonzero(
                np.delete(fairseq, 1, 0).view(np.uint32)
                != np.delete(whisper, 1, 0).view(np.uint32)
            )
        )
        + int(np.count_nonzero(fairseq[1])),
        0,
        scope="width 64, positions 0..39, padding_idx 1 (count of differing entries)",
    )
    rec.exact(
        "tensor2tensor and fairseq give an odd width a zero last column",
        int(np.count_nonzero(conventions.table("tensor2tensor", 40, 9)[:, 8]))
        + int(np.count_nonzero(conventions.table("fairseq", 40, 9)[:, 8])),
        0,
        scope="width 9, 40 positions each (count of nonzero entries)",
    )


def _entry(kind: str, angle: mpmath.mpf) -> mpmath.mpf:
    """One table entry from its column's function: sin, cos, or the zero column."""
    return {"sin": mpmath.sin, "cos": mpmath.cos}[kind](angle) if kind != "zero" else 0


def _ported(width: int) -> sp.Matrix:
    """(e + P p) - P (P^T e + p) for a symbolic embedding e and the code p at pos."""
    e = sp.Matrix(sp.symbols(f"e0:{width}", real=True))
    p, perm = interleaved(pos, width), permutation_matrix(width)
    return (e + perm * p) - perm * (perm.T * e + p)


# -- misreadings -------------------------------------------------------------------


def _concatenated_example_is_the_paper(wit: Witness) -> None:
    # An explainer's d = 4 "real example", computed with tensor2tensor's
    # function: [sin(pos), sin(pos/10000), cos(pos), cos(pos/10000)]. The paper's
    # row is [sin(pos), cos(pos), sin(pos/100), cos(pos/100)].
    example = sp.Matrix(
        [
            sp.sin(pos * r) if kind == "sin" else sp.cos(pos * r)
            for kind, r in library_formula("tensor2tensor", 4)
        ]
    )
    paper = sp.Matrix(
        [
            sp.sin(pos * r) if kind == "sin" else sp.cos(pos * r)
            for kind, r in library_formula("paper", 4)
        ]
    )
    wit.differs(substitute(example, {pos: 1}), substitute(paper, {pos: 1}), at="d = 4, pos = 1")


def _checkpoints_transfer(wit: Witness) -> None:
    # The same embedding table and the same frequencies, the two layouts: the
    # first layer's input differs, coordinate by coordinate.
    e = sp.Matrix([sp.Rational(1, 2), sp.Rational(-1, 4), sp.Rational(1, 8), 1])
    point = {s: v for s, v in zip(speeds(4), (1, sp.Rational(1, 100)), strict=True)} | {pos: 1}
    wit.differs(
        substitute(e + interleaved(pos, 4), point),
        substitute(e + concatenated(pos, 4), point),
        at="d = 4, pos = 1, paper frequencies, embedding e = (1/2, -1/4, 1/8, 1)",
    )


def _same_frequencies(wit: Witness) -> None:
    # "The libraries differ only in column order": at d = 4 the paper's pair 1
    # (its column 2) turns at 10000^(-2/4) = 1/100; tensor2tensor's pair 1 (its
    # column 1) at 10000^(-1/(h-1)) = 1/10000.
    _, stretched = library_formula("tensor2tensor", 4)[1]
    _, paper = library_formula("paper", 4)[2]
    wit.differs(stretched, paper, at="d = 4, pair 1: 10000^(-1/(h-1)) vs 10000^(-2/d)")


MISREADINGS = [
    Misreading(
        "This d = 4 example [sin(pos), sin(pos/10000), cos(pos), cos(pos/10000)] is the "
        "paper's encoding",
        _concatenated_example_is_the_paper,
        why="It is tensor2tensor's table: sines first, and the (h-1) exponent; the paper "
        "interleaves and its second pair turns at 1/100.",
    ),
    Misreading(
        "Dot products between codes agree, so a checkpoint trained with one layout works "
        "with the other",
        _checkpoints_transfer,
        why="The code is added to learned embeddings, and each coordinate meets its own "
        "weights; tensor2tensor kept its layout because changing it broke trained models.",
    ),
    Misreading(
        "The libraries all use the paper's frequencies and differ only in column order",
        _same_frequencies,
        why="The (h-1) exponent changes every speed but the first; at d = 4 it moves the "
        "second wavelength from 2π·100 to 2π·10000.",
    ),
]
