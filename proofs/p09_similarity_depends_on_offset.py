"""Proposition 9 (similarity depends only on the offset, and not on its sign).

For the sinusoidal code of width d (even) and base b > 1, the dot product of
the codes of two positions is a function of their offset k = q - p alone:
PE(p) . PE(q) = S(k) = sum_i cos(w_i k), w_i = b^(-2i/d). Its largest value is
S(0) = d/2; it is even, S(-k) = S(k), so the code alone cannot tell a position
k steps before from one k steps after; and it is not monotone in |k|: at
d = 128 it falls from 64 to 47.067 at k = 6 and 42.344 at k = 11, then rises to
42.381 at k = 12.

Uses: 8.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.similarity import dot_profile, first_rise
from proofs.kit import Misreading, Recorder, Witness, reduce_to_zero

NUMBER = 9
TITLE = "Similarity depends only on the offset, and not on its sign"
USES = (8,)

# Symbols, declared once. Positions and offsets are real (integers are the case
# that matters); each pair turns at its own speed w > 0.
p, q, k, x = sp.symbols("p q k x", real=True)
w = sp.Symbol("w", positive=True)
b = sp.Symbol("b", positive=True)
d = sp.Symbol("d", positive=True, even=True)
i = sp.Symbol("i", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i (Proposition 5)


def pair(position: sp.Expr, rate: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at a position, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(rate * position), sp.cos(rate * position)])


def block(angle: sp.Expr) -> sp.Matrix:
    """The block of M_k for one pair (Proposition 8): block(w k) pair(p) = pair(p + k)."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def code(position: sp.Expr, width: int, base: sp.Expr = b) -> sp.Matrix:
    """PE(position) for the given width, symbolic in the base unless one is given."""
    rates = [base ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(position, rate) for rate in rates])


def nonnegative(expr: sp.Expr) -> sp.Expr:
    """max(0, -expr): it is 0 exactly when SymPy's assumptions decide ``expr >= 0``.

    For every value the symbols' assumptions allow; when they cannot decide,
    ``Max`` stays unevaluated and does not reduce to 0.
    """
    return sp.Max(0, -expr)


# -- exact enclosures of S(k) at width 128, base 10000 ------------------------------
# Integer arithmetic only. w_i = 10000^(-i/64) is enclosed between two fractions
# with denominator 10^20 by comparing 64th powers; each cosine is enclosed by its
# Taylor polynomial of degree 64 plus or minus the Lagrange bound on the
# remainder, |y|^66 / 66!, and by |cos u - cos v| <= |u - v|.

WIDTH, BASE = 128, 10000
DENOMINATOR = 10**20
TERMS = 32  # Taylor polynomial of degree 2 * TERMS


def speed_bounds() -> list[tuple[int, int]]:
    """(lo, hi) numerators over 10^20 around each w_i, from 40-digit mpmath values.

    The enclosure is checked exactly in step 7, not taken on trust.
    """
    with mpmath.workdps(40):
        return [
            (lo, lo + 1)
            for lo in (
                int(mpmath.floor(mpmath.power(BASE, mpmath.mpf(-2 * n) / WIDTH) * DENOMINATOR))
                for n in range(WIDTH // 2)
            )
        ]


# Every bound below is an integer over this one denominator, so sums stay integers.
COMMON = DENOMINATOR ** (2 * TERMS + 2) * math.factorial(2 * TERMS + 2)


def cos_bounds(numerator: int) -> tuple[int, int]:
    """Bounds on cos(y), y = numerator / 10^20 >= 0, as numerators over COMMON."""
    a2, q2 = numerator * numerator, DENOMINATOR * DENOMINATOR  # y^2 = a2 / q2
    top = math.factorial(2 * TERMS)
    # Horner in integers: sum_j (-1)^j y^(2j) / (2j)! times q2^TERMS * (2 TERMS)!.
    acc = (-1) ** TERMS
    for j in range(TERMS - 1, -1, -1):
        acc = acc * a2 + (-1) ** j * (top // math.factorial(2 * j)) * q2 ** (TERMS - j)
    value = acc * q2 * (2 * TERMS + 1) * (2 * TERMS + 2)  # over COMMON = q2^TERMS top * ...
    remainder = numerator ** (2 * TERMS + 2)  # y^66 / 66!, over COMMON
    return value - remainder, value + remainder


def dot_bounds(offset: int, speeds: list[tuple[int, int]]) -> tuple[Fraction, Fraction]:
    """Rational bounds on S(offset) = sum_i cos(offset w_i), for offset >= 0."""
    low = high = 0
    for lo, hi in speeds:
        c_low, c_high = cos_bounds(offset * lo)  # cos at the lower end of the angle
        spread = offset * (hi - lo) * (COMMON // DENOMINATOR)  # the angle interval's width
        low += c_low - spread
        high += c_high + spread
    return Fraction(low, COMMON), Fraction(high, COMMON)


def checks(rec: Recorder) -> None:
    # Step 1. One pair: the dot product of its points at p and q is
    # sin a sin c + cos a cos c = cos(a - c), which depends on q - p only.
    rec.identity(
        "one pair: pair(p) . pair(q) = cos(w (q - p))",
        pair(p).dot(pair(q)) - sp.cos(w * (q - p)),
        scope="all real p, q and every speed w > 0",
    )

    # Step 2. The same through Proposition 8: pair(p + k) = block(w k) pair(p),
    # so pair(p) . pair(p + k) = pair(p)^T block(w k) pair(p) = cos(w k): the
    # sine terms of the block cancel, and sin^2 + cos^2 = 1 is left.
    rec.identity(
        "pair(p)^T R(w k) pair(p) = cos(w k), R the block of M_k",
        (pair(p).T * block(w * k) * pair(p))[0, 0] - sp.cos(w * k),
        scope="all real p, k and every speed w > 0",
    )

    # Step 3. The whole code: the pairs add, with the speeds w_i = b^(-2i/d)
    # left symbolic in the base.
    def whole(width: int) -> sp.Expr:
        rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
        return code(p, width).dot(code(q, width)) - sum(sp.cos(r * (q - p)) for r in rates)

    rec.instances(
        "PE(p) . PE(q) = sum_i cos(w_i (q - p))",
        ((f"d = {width}", whole(width)) for width in (2, 4, 6, 8)),
        scope="widths d = 2, 4, 6, 8; symbolic p, q and base",
    )

    # Step 4. The maximum. At k = 0 every cosine is 1, so S(0) = d/2. And
    # d/2 - S(k) = sum_i (1 - cos(w_i k)) = sum_i 2 sin^2(w_i k / 2), a sum of
    # squares, so S(k) <= d/2 everywhere.
    s_zero = sp.Sum(sp.cos(0 * speed), (i, 0, d / 2 - 1)).doit()
    rec.identity("S(0) = d/2", s_zero - d / 2, scope="all b > 0, even d > 0")
    rec.identity(
        "each term: 1 - cos x = 2 sin^2(x / 2)",
        1 - sp.cos(x) - 2 * sp.sin(x / 2) ** 2,
        scope="all real x",
    )
    rec.identity(
        "each term is >= 0: 2 sin^2(x / 2) >= 0, so S(k) <= S(0)",
        nonnegative(2 * sp.sin(x / 2) ** 2),
        scope="all real x (sign decided by SymPy's assumptions)",
    )

    # Step 5. The sign of the offset: cos is even, so S(-k) = S(k). On the code
    # itself: for each pair, and so for the sum over pairs of any width, the
    # position k steps ahead and the one k steps behind score alike.
    rec.identity("S(-k) = S(k), term by term", sp.cos(-w * k) - sp.cos(w * k), scope="all real k")
    rec.identity(
        "one pair: pair(p) . pair(p + k) = pair(p) . pair(p - k)",
        pair(p).dot(pair(p + k)) - pair(p).dot(pair(p - k)),
        scope="all real p, k and every speed w > 0",
    )

    def ahead_behind(width: int) -> sp.Expr:
        here = code(p, width)
        return here.dot(code(p + k, width)) - here.dot(code(p - k, width))

    rec.instances(
        "PE(p) . PE(p + k) = PE(p) . PE(p - k), the whole code",
        ((f"d = {width}", ahead_behind(width)) for width in (2, 4)),
        scope="widths d = 2, 4; symbolic p, k and base",
    )

    # Step 6. Numeric spot check of step 3 at sampled integers, mpmath at 30 digits.
    mpmath.mp.dps = 30
    rng = np.random.default_rng(9)
    worst = 0.0
    for left, right in rng.integers(-(10**6), 10**6, size=(20, 2)):
        for width in (2, 16):
            rates = [mpmath.power(10000, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
            direct = mpmath.fsum(
                mpmath.sin(r * int(left)) * mpmath.sin(r * int(right))
                + mpmath.cos(r * int(left)) * mpmath.cos(r * int(right))
                for r in rates
            )
            offset = mpmath.fsum(mpmath.cos(r * int(right - left)) for r in rates)
            worst = max(worst, float(abs(direct - offset)))
    rec.numeric(
        "PE(p) . PE(q) = sum_i cos(w_i (q - p)) at sampled integers",
        worst,
        tol=1e-25,
        scope="20 random (p, q) in [-10^6, 10^6)^2, d in {2, 16}; mpmath at 30 digits",
    )

    # Step 7. Not monotone: the d = 128 figures in exact rational arithmetic.
    # First the enclosures of the speeds: lo < w_i < hi iff lo^64 10000^i < 1 <
    # hi^64 10000^i (64th powers, since w_i^64 = 10000^(-i)).
    speeds = speed_bounds()
    scale = DENOMINATOR**64
    rec.exact(
        "every w_i = 10000^(-i/64) lies above its lower bound lo_i",
        max(Fraction(lo**64 * BASE**n, scale) for n, (lo, _) in enumerate(speeds)),
        1,
        relation="<=",
        scope="d = 128, all 64 pairs: lo_i^64 10000^i <= 1, exact integers",
    )
    rec.exact(
        "... and below its upper bound hi_i = lo_i + 10^-20",
        1,
        min(Fraction(hi**64 * BASE**n, scale) for n, (_, hi) in enumerate(speeds)),
        relation="<",
        scope="d = 128, all 64 pairs: hi_i^64 10000^i > 1, exact integers",
    )
    bounds = [dot_bounds(offset, speeds) for offset in range(13)]  # S(0) .. S(12)
    rec.exact(
        "S falls at every step from k = 0 to k = 11: S(k) < S(k-1)",
        max(bounds[n][1] - bounds[n - 1][0] for n in range(1, 12)),
        0,
        relation="<",
        scope="d = 128, k = 1 .. 11; exact rational enclosures of each S(k)",
    )
    rec.exact(
        "then it rises: S(11) < S(12), so k = 12 is the first rise",
        bounds[11][1],
        bounds[12][0],
        relation="<",
        scope="d = 128; exact rational enclosures of S(11) and S(12)",
    )
    for offset, shown in ((6, "47.067"), (11, "42.344"), (12, "42.381")):
        half_unit = Fraction(1, 2000)
        low, high = bounds[offset]
        rec.exact(
            f"S({offset}) rounds to {shown} (0 < the smaller margin to the rounding limits)",
            0,
            min(low - (Fraction(shown) - half_unit), Fraction(shown) + half_unit - high),
            relation="<",
            scope=f"d = 128; exact rational enclosure of S({offset})",
        )

    # Step 8. The library computes the same profile: posenc.similarity.dot_profile
    # against mpmath, and against dot products of rows of posenc.sinusoidal.
    worst = 0.0
    for width in (2, 128, 512):
        offsets = [0, 1, 6, 11, 12, 100, 62832, 10**6, -12]
        got = dot_profile(offsets, width)
        for offset, value in zip(offsets, got.tolist(), strict=True):
            exact = mpmath.fsum(
                mpmath.cos(offset * mpmath.power(10000, mpmath.mpf(-2 * n) / width))
                for n in range(width // 2)
            )
            worst = max(worst, float(abs(value - exact)))
    rec.numeric(
        "posenc.similarity.dot_profile(k, d) = sum_i cos(w_i k)",
        worst,
        tol=1e-13,
        scope="d in {2, 128, 512}, k in {0, 1, 6, 11, 12, 100, 62832, 10^6, -12}; "
        "absolute error vs mpmath at 30 digits",
    )
    table = posenc.sinusoidal(400, 128)  # (400, 128)
    rows, cols = np.meshgrid(np.arange(0, 400, 7), np.arange(0, 400, 11), indexing="ij")
    dots = np.einsum("rcd,rcd->rc", table[rows], table[cols])  # (58, 37): PE(p) . PE(q)
    rec.numeric(
        "rows of posenc.sinusoidal: PE(p) . PE(q) = dot_profile(q - p)",
        float(np.abs(dots - dot_profile(cols - rows, 128)).max()),
        tol=1e-12,
        scope="d = 128, p in 0, 7, .., 399 and q in 0, 11, .., 396 (2,146 pairs); float64",
    )
    rec.exact(
        "posenc.similarity.first_rise(128) finds the same offset, 12",
        first_rise(128),
        12,
        scope="integer comparison; the library scans in float64",
    )

    # Step 9. Where the first rise falls at other widths: 4 for d <= 16, 6 at
    # d = 64, 44 at d = 512. The library against a scan of mpmath values.
    claimed = {2: 4, 16: 4, 64: 6, 512: 44}
    misses = 0
    for width, expected in claimed.items():
        rates = [mpmath.power(10000, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
        values = [mpmath.fsum(mpmath.cos(r * offset) for r in rates) for offset in range(60)]
        found = next(n for n in range(1, 60) if values[n] > values[n - 1])
        misses += (found != expected) + (first_rise(width) != expected)
    rec.numeric(
        "first rise at k = 4 (d = 2, 16), 6 (d = 64), 44 (d = 512): library and mpmath agree",
        misses,
        tol=0,
        scope="d in {2, 16, 64, 512}, k = 0 .. 59; mpmath at 30 digits, error = mismatches",
    )


# -- misreadings -------------------------------------------------------------------


def _falls_with_distance(wit: Witness) -> None:
    # "The dot product falls as positions move apart": then S(12) <= S(11) at
    # d = 128. The exact enclosures of step 7 put S(11) strictly below S(12).
    speeds = speed_bounds()
    _, high_11 = dot_bounds(11, speeds)
    low_12, _ = dot_bounds(12, speeds)
    wit.exact(
        high_11 < low_12,
        at=f"d = 128: S(11) < {float(high_11):.6f} < {float(low_12):.6f} < S(12), "
        "exact rational enclosures",
    )


def _tells_before_from_after(wit: Witness) -> None:
    # "The dot product tells whether q is before or after p": then it would
    # differ for q = p + k and q = p - k. At d = 4, base 10000, p = 5, k = 3 the
    # difference is exactly zero.
    point = {b: 10000}
    here, ahead, behind = (code(n, 4).subs(point) for n in (5, 8, 2))
    difference = here.dot(ahead) - here.dot(behind)
    how = reduce_to_zero(difference)
    wit.exact(
        how is not None,
        at=f"d = 4, base 10000: PE(5) . PE(8) - PE(5) . PE(2) reduces to exactly 0 ({how})",
    )


MISREADINGS = [
    Misreading(
        "The dot product of two codes falls as the positions move apart",
        _falls_with_distance,
        why="S(k) is a sum of cosines of different speeds; as the fast ones come round it "
        "rises again, first at k = 12 for d = 128.",
    ),
    Misreading(
        "The dot product of the codes tells whether a position lies before or after another",
        _tells_before_from_after,
        why="cos is even, so S(-k) = S(k): k steps ahead and k steps behind score the same.",
    ),
]
