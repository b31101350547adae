"""Proposition 8 (a shift is a rotation).

For every offset k there is one matrix M_k, the same for every position, with
PE(pos + k) = M_k PE(pos). M_k is block-diagonal: block i rotates pair i by the
angle w_i k, and for the (sin, cos) order of the 2017 paper the block is
[[cos w_i k, sin w_i k], [-sin w_i k, cos w_i k]]. The matrices form a group
under multiplication: M_0 = I, M_k M_k' = M_(k+k') and M_(-k) = M_k^T.

Uses: 5.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Show, Witness, substitute

NUMBER = 8
TITLE = "A shift is a rotation"
USES = (5,)

# The numbers this proposition chooses: the paper's base, used wherever the
# library is compared with the symbols (nothing on the page is measured at
# it), and the widest code of the stacked check of step 2 (widths 2, 4, ..).
INPUTS = {"base": 10000, "max_width": 8}
#: The widths at which step 2 checks PE(pos + k) = M_k PE(pos): 2, 4, .., max_width.
STACKED_WIDTHS = tuple(range(2, INPUTS["max_width"] + 1, 2))

# Symbols, declared once. A pair turns at angular speed w > 0; positions and
# offsets are real numbers (integers are the case that matters, but nothing
# below needs integrality).
pos, k, j = sp.symbols("pos k j", real=True)
w = sp.Symbol("w", positive=True)
base, i = sp.Symbol("base", positive=True), sp.Symbol("i", integer=True, nonnegative=True)


def pair(p: sp.Expr, speed: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at position p, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(speed * p), sp.cos(speed * p)])


def block(angle: sp.Expr) -> sp.Matrix:
    """The rotation block claimed for the (sin, cos) order."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def at(matrix: sp.Matrix, symbol: sp.Symbol, value: sp.Expr) -> sp.Matrix:
    """``matrix`` with ``symbol`` put to ``value``, left unevaluated (sp.Subs per entry).

    SymPy would simplify block(w * 0) to I on sight; built this way, the
    kit has to evaluate the substitution itself, so the check shows work.
    """
    return matrix.applyfunc(lambda entry: sp.Subs(entry, symbol, value))


def shift_matrix(offset: sp.Expr, width: int) -> sp.Matrix:
    """M_offset for a code of the given width, one block per pair."""
    speeds = [base ** (-2 * sp.Integer(n) / width) for n in range(width // 2)]
    return sp.diag(*[block(speed * offset) for speed in speeds])


def code(p: sp.Expr, width: int) -> sp.Matrix:
    """PE(p) for the given width, symbolic in the base."""
    speeds = [base ** (-2 * sp.Integer(n) / width) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(p, speed) for speed in speeds])


def checks(rec: Recorder) -> None:
    # Step 1. One pair: rotating PE(pos) by w k lands on PE(pos + k). This is
    # the angle-addition formula, read as a matrix acting on (sin, cos). The
    # block contains w k and nothing else, so the same block serves every pos.
    rec.identity(
        "block(w k) (sin w pos, cos w pos) = (sin w (pos+k), cos w (pos+k))",
        block(w * k) * pair(pos) - pair(pos + k),
        scope="all real pos, k and every speed w > 0",
    )

    # Step 2. Stacking the pairs: the whole code, width by width, with the
    # speeds w_i = base^(-2i/d) of Proposition 5 left symbolic in the base.
    stacked = rec.instances(
        "PE(pos + k) = M_k PE(pos)",
        (
            (f"d = {d}", shift_matrix(k, d) * code(pos, d) - code(pos + k, d))
            for d in STACKED_WIDTHS
        ),
        scope=f"widths d = {', '.join(map(str, STACKED_WIDTHS))}; symbolic pos, k and base",
    )
    rec.exact(
        f"step 2 ran one case for each even width 2..{INPUTS['max_width']} the page names",
        stacked.samples,
        INPUTS["max_width"] // 2,
        scope="the cases of step 2, counted, against max_width / 2 (the even widths 2..max_width)",
    )

    # Step 3. The group law, block by block (a block-diagonal product is the
    # product of the blocks, so the blocks suffice for every width). M_0 and
    # M_(-k) are the block of step 1 with k put to 0 and to -k, the
    # substitution left for the kit to evaluate (cos 0 = 1, sin 0 = 0; cos is
    # even and sin is odd).
    rec.identity(
        "M_0 = I: the block at k = 0 is the identity",
        at(block(w * k), k, 0) - sp.eye(2),
        scope="every speed w > 0",
    )
    rec.identity(
        "M_k M_k' = M_(k+k') (in the script j stands for k')",
        block(w * j) * block(w * k) - block(w * (j + k)),
        scope="all real j, k and every speed w > 0",
    )
    rec.identity(
        "M_(-k) = M_k^T: the block at -k is the transpose of the block at k",
        at(block(w * k), k, -k) - block(w * k).T,
        scope="all real k and every speed w > 0",
    )
    rec.identity(
        "M_k is orthogonal: M_k^T M_k = I",
        block(w * k).T * block(w * k) - sp.eye(2),
        scope="all real k and every speed w > 0",
    )

    # Step 4. Numeric spot check of the symbolic result at 50 sampled points:
    # every entry of every difference is kept, so the kit counts them.
    rng = np.random.default_rng(8)
    numeric_block = sp.lambdify((w, k, pos), block(w * k) * pair(pos) - pair(pos + k), "numpy")
    points = rng.uniform([1e-4, -500, -500], [2, 500, 500], size=(50, 3))  # (50, 3)
    errors = [np.asarray(numeric_block(*point), dtype=float).ravel() for point in points]
    rec.numeric(
        "the identity of step 1 at sampled points",
        np.concatenate(errors),  # (100,): two entries per point
        tol=1e-10,
        scope="50 random (w, k, pos) in [1e-4, 2] x [-500, 500]^2, float64, both entries",
    )

    # Step 5. The library draws what is proven: posenc.shift_matrix equals the
    # symbolic M_k, and moves rows of posenc.sinusoidal by k.
    matrix_errors = []
    for width, offset in ((2, 1), (8, 3), (8, -5), (16, 40)):
        exact = shift_matrix(offset, width).subs(base, INPUTS["base"]).evalf(30)
        exact = np.array(exact, dtype=float)  # (width, width)
        got = posenc.shift_matrix(offset, width, base=float(INPUTS["base"]))  # (width, width)
        matrix_errors.append((got - exact).ravel())
    rec.numeric(
        "posenc.shift_matrix(k, d) equals the symbolic M_k",
        np.concatenate(matrix_errors),
        tol=1e-15,
        scope=f"(d, k) in {{(2, 1), (8, 3), (8, -5), (16, 40)}}, base {INPUTS['base']}, "
        "every entry",
    )
    row_errors = []
    table = posenc.sinusoidal(600, 64)  # (600, 64)
    for offset in (1, 7, 100, -50):
        rows = np.arange(max(0, -offset), min(600, 600 - offset))  # positions with pos+k in range
        moved = table[rows] @ posenc.shift_matrix(offset, 64).T  # (n, 64): M_k PE(pos), row-wise
        row_errors.append((moved - table[rows + offset]).ravel())
    rec.numeric(
        "posenc.shift_matrix(k) @ posenc.sinusoidal row pos = row pos + k",
        np.concatenate(row_errors),
        tol=1e-12,
        scope="width 64, positions 0..599, k in {1, 7, 100, -50}, every entry",
    )

    # Step 6. The worked example of the page's "Check yourself": at d = 2 the
    # only speed is w_0 = 1, and M_3 PE(0) = (sin 3, cos 3) = PE(3). Each entry
    # of the library's M_3 PE(0) is compared with mpmath at 30 digits, and the
    # page shows the entries compared; the whole vector is also PE(3).
    moved = posenc.shift_matrix(3, 2) @ posenc.sinusoidal(1, 2)[0]  # (2,): M_3 PE(0)
    scope = "d = 2, k = 3; posenc.shift_matrix and posenc.sinusoidal against mpmath at 30 digits"
    with mpmath.workdps(30):
        rec.close(
            "d = 2: the first entry of posenc's M_3 PE(0) is sin 3",
            float(moved[0]),
            mpmath.sin(3),
            tol=1e-15,
            scope=scope,
            quantity="sin3",
            show=Show(decimals=4),
        )
        rec.close(
            "d = 2: the second entry of posenc's M_3 PE(0) is cos 3",
            float(moved[1]),
            mpmath.cos(3),
            tol=1e-15,
            scope=scope,
            quantity="cos3",
            show=Show(decimals=4),
        )
    rec.numeric(
        "d = 2: posenc's M_3 PE(0) is posenc's PE(3)",
        moved - posenc.sinusoidal(4, 2)[3],
        tol=1e-15,
        scope="d = 2, k = 3, float64, both entries",
    )


# -- misreadings -------------------------------------------------------------------

# A correct block gives a difference of exactly 0 at every point; both sides are
# points on unit circles, evaluated at 50 digits. A tenth of the radius is far
# above any rounding and far below the differences the wrong blocks produce.
MARGIN = sp.Rational(1, 10)


def _wrong_sign(wit: Witness) -> None:
    # The textbook rotation [[cos, -sin], [sin, cos]] turns (x, y) the other
    # way: for the (sin, cos) order it moves PE(pos) to PE(pos - k).
    wrong = sp.Matrix([[sp.cos(w * k), -sp.sin(w * k)], [sp.sin(w * k), sp.cos(w * k)]])
    point = {w: 1, k: 1, pos: 0}
    wit.differs(
        substitute(wrong * pair(pos), point),
        substitute(pair(pos + k), point),
        at="w = 1, k = 1, pos = 0",
        margin=MARGIN,
        by="a tenth of the unit circle's radius",
    )


def _same_angle_for_all(wit: Witness) -> None:
    # "A shift by k turns every pair by the same angle": at width 4 the second
    # pair turns at w_1 = base^(-1/2), so a turn by k misses it. The misread
    # matrix is set against the M_k of step 2 acting on the same PE(pos).
    same = sp.diag(block(k), block(k))
    point = {base: INPUTS["base"], k: 1, pos: 0}
    wit.differs(
        substitute(same * code(pos, 4), point),
        substitute(shift_matrix(k, 4) * code(pos, 4), point),
        at=f"d = 4, base = {INPUTS['base']}, k = 1, pos = 0",
        margin=MARGIN,
        by="a tenth of the unit circle's radius",
    )


MISREADINGS = [
    Misreading(
        "For the (sin, cos) order the shift block is [[cos a, -sin a], [sin a, cos a]]",
        _wrong_sign,
        why="That block turns the pair backwards: it sends PE(pos) to PE(pos - k).",
    ),
    Misreading(
        "A shift by k turns every pair by the same angle k",
        _same_angle_for_all,
        why="Pair i turns by w_i k: the angle scales with the pair's speed.",
    ),
]
