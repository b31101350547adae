"""Proposition 8 (a shift is a rotation).

For every offset k there is one matrix M_k, the same for every position, with
PE(pos + k) = M_k PE(pos). M_k is block-diagonal: block i rotates pair i by the
angle w_i k, and for the (sin, cos) order of the 2017 paper the block is
[[cos w_i k, sin w_i k], [-sin w_i k, cos w_i k]]. The matrices form a group
under multiplication: M_0 = I, M_j M_k = M_(j+k) and M_(-k) = M_k^T.

Uses: 5.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness, substitute

NUMBER = 8
TITLE = "A shift is a rotation"
USES = (5,)

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
    rec.instances(
        "PE(pos + k) = M_k PE(pos)",
        ((f"d = {d}", shift_matrix(k, d) * code(pos, d) - code(pos + k, d)) for d in (2, 4, 6, 8)),
        scope="widths d = 2, 4, 6, 8; symbolic pos, k and base",
    )

    # Step 3. The group law, block by block (a block-diagonal product is the
    # product of the blocks, so the blocks suffice for every width).
    rec.identity("M_0 = I", block(w * 0) - sp.eye(2), scope="every speed w > 0")
    rec.identity(
        "M_j M_k = M_(j+k)",
        block(w * j) * block(w * k) - block(w * (j + k)),
        scope="all real j, k and every speed w > 0",
    )
    rec.identity(
        "M_(-k) = M_k^T",
        block(w * -k) - block(w * k).T,
        scope="all real k and every speed w > 0",
    )
    rec.identity(
        "M_k is orthogonal: M_k^T M_k = I",
        block(w * k).T * block(w * k) - sp.eye(2),
        scope="all real k and every speed w > 0",
    )

    # Step 4. Numeric spot check of the symbolic result at 50 sampled points.
    rng = np.random.default_rng(8)
    worst = 0.0
    numeric_block = sp.lambdify((w, k, pos), block(w * k) * pair(pos) - pair(pos + k), "numpy")
    for speed, offset, where in rng.uniform([1e-4, -500, -500], [2, 500, 500], size=(50, 3)):
        worst = max(worst, float(np.abs(numeric_block(speed, offset, where)).max()))
    rec.numeric(
        "the identity of step 1 at sampled points",
        worst,
        tol=1e-10,
        scope="50 random (w, k, pos) in [1e-4, 2] x [-500, 500]^2, float64",
    )

    # Step 5. The library draws what is proven: posenc.shift_matrix equals the
    # symbolic M_k, and moves rows of posenc.sinusoidal by k.
    worst_matrix = 0.0
    for width, offset in ((2, 1), (8, 3), (8, -5), (16, 40)):
        exact = np.array(shift_matrix(offset, width).subs(base, 10000).evalf(30), dtype=float)
        worst_matrix = max(worst_matrix, np.abs(posenc.shift_matrix(offset, width) - exact).max())
    rec.numeric(
        "posenc.shift_matrix(k, d) equals the symbolic M_k",
        worst_matrix,
        tol=1e-15,
        scope="(d, k) in {(2, 1), (8, 3), (8, -5), (16, 40)}, base 10000",
    )
    worst_rows = 0.0
    table = posenc.sinusoidal(600, 64)  # (600, 64)
    for offset in (1, 7, 100, -50):
        rows = np.arange(max(0, -offset), min(600, 600 - offset))  # positions with pos+k in range
        moved = table[rows] @ posenc.shift_matrix(offset, 64).T  # (n, 64): M_k PE(pos), row-wise
        worst_rows = max(worst_rows, np.abs(moved - table[rows + offset]).max())
    rec.numeric(
        "posenc.shift_matrix(k) @ posenc.sinusoidal row pos = row pos + k",
        worst_rows,
        tol=1e-12,
        scope="width 64, positions 0..599, k in {1, 7, 100, -50}",
    )


# -- misreadings -------------------------------------------------------------------


def _wrong_sign(wit: Witness) -> None:
    # The textbook rotation [[cos, -sin], [sin, cos]] turns (x, y) the other
    # way: for the (sin, cos) order it moves PE(pos) to PE(pos - k).
    wrong = sp.Matrix([[sp.cos(w * k), -sp.sin(w * k)], [sp.sin(w * k), sp.cos(w * k)]])
    point = {w: 1, k: 1, pos: 0}
    wit.differs(
        substitute(wrong * pair(pos), point),
        substitute(pair(pos + k), point),
        at="w = 1, k = 1, pos = 0",
    )


def _same_angle_for_all(wit: Witness) -> None:
    # "A shift by k turns every pair by the same angle": at width 4 the second
    # pair turns at w_1 = base^(-1/2), so a turn by k misses it.
    same = sp.diag(block(k), block(k))
    point = {base: 10000, k: 1, pos: 0}
    wit.differs(
        substitute(same * code(pos, 4), point),
        substitute(code(pos + k, 4), point),
        at="d = 4, base = 10000, k = 1, pos = 0",
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
