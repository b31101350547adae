"""Proposition 7 (every position has its own signature).

For the sinusoidal code of width d (even) and base b > 1, the squared distance
between the codes of two positions depends only on their offset k = p - q:
|PE(p) - PE(q)|^2 = sum_i (2 - 2 cos(w_i k)) = sum_i 4 sin^2(w_i k / 2). The code
is injective on the integers: if PE(p) = PE(q) then pair 0, which turns by one
radian per position, gives p - q = 2*pi*n for an integer n, and p = q because pi
is irrational (Lambert 1761, cited, not proven here). Fast pairs tell
neighbours apart; slow pairs tell distant regions apart.

Uses: 5.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.similarity import distance_profile
from proofs.kit import Misreading, Recorder, Witness

NUMBER = 7
TITLE = "Every position has its own signature"
USES = (5,)

# Symbols, declared once. Positions are real here (integers are the case that
# matters; the identities do not need integrality); each pair turns at w > 0.
p, q, t = sp.symbols("p q t", real=True)
w = sp.Symbol("w", positive=True)
b = sp.Symbol("b", positive=True)
d = sp.Symbol("d", positive=True, even=True)
i = sp.Symbol("i", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i (Proposition 5)

# The figures of the per-group table on the page: the share of each third of the
# 256 pairs of width 512 in |PE(p) - PE(p + k)|, rounded to 4 decimals.
THIRDS = [range(0, 86), range(86, 171), range(171, 256)]  # fast, middle, slow
TABLE = {  # offset: (fast, middle, slow, all pairs)
    1: ("3.7103", "0.1718", "0.0081", "3.7143"),
    10: ("12.7078", "1.7103", "0.0807", "12.8227"),
    100: ("12.6502", "11.2881", "0.8062", "16.9735"),
    1000: ("13.3513", "13.7909", "7.3219", "20.5440"),
    10000: ("13.4061", "13.3002", "13.7245", "23.3448"),
}


def pair(position: sp.Expr, rate: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at a position, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(rate * position), sp.cos(rate * position)])


def code(position: sp.Expr, width: int) -> sp.Matrix:
    """PE(position) for the given width, symbolic in the base."""
    rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(position, rate) for rate in rates])


def exact_share(k: int, pairs: range) -> mpmath.mpf:
    """sqrt(sum over pairs of 4 sin^2(w_i k / 2)) at width 512, base 10000, 30 digits."""
    return mpmath.sqrt(
        mpmath.fsum(
            4 * mpmath.sin(k * mpmath.power(10000, mpmath.mpf(-2 * n) / 512) / 2) ** 2
            for n in pairs
        )
    )


def checks(rec: Recorder) -> None:
    # Step 1. One pair: the squared distance between its points at p and q is
    # 2 - 2 cos(w (p - q)), and 2 - 2 cos x = 4 sin^2(x/2). Only p - q appears.
    gap = pair(p) - pair(q)
    rec.identity(
        "one pair: |pair(p) - pair(q)|^2 = 2 - 2 cos(w (p - q))",
        gap.dot(gap) - (2 - 2 * sp.cos(w * (p - q))),
        scope="all real p, q and every speed w > 0",
    )
    rec.identity(
        "2 - 2 cos x = 4 sin^2(x / 2)",
        2 - 2 * sp.cos(t) - 4 * sp.sin(t / 2) ** 2,
        scope="all real x",
    )

    # Step 2. The whole code: the pairs' squared distances add, with the speeds
    # w_i = b^(-2i/d) of Proposition 5 left symbolic in the base. With step 1,
    # each term is also 4 sin^2(w_i (p - q) / 2) >= 0.
    def whole(width: int) -> sp.Expr:
        diff = code(p, width) - code(q, width)
        rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
        return diff.dot(diff) - sum(2 - 2 * sp.cos(r * (p - q)) for r in rates)

    rec.instances(
        "|PE(p) - PE(q)|^2 = sum_i (2 - 2 cos(w_i (p - q)))",
        ((f"d = {width}", whole(width)) for width in (2, 4, 6)),
        scope="widths d = 2, 4, 6; symbolic p, q and base",
    )

    # Step 3. Pair 0 turns at w_0 = b^0 = 1 radian per position, for every base
    # and width. So if PE(p) = PE(q), pair 0 alone gives 4 sin^2((p - q)/2) = 0,
    # that is p - q = 2 pi n for an integer n. For integers p != q this would make
    # pi = (p - q) / (2n) rational; Lambert (1761) proved it is not. That last
    # step is a cited theorem: nothing below proves pi irrational.
    rec.identity(
        "pair 0 turns at w_0 = 1 radian per position",
        speed.subs(i, 0) - 1,
        scope="all b > 0, even d > 0",
    )

    # Step 4. What can be checked of the irrationality step: no offset k in
    # 1 .. 10^6 turns pair 0 back to its start. With m the multiple of 2 pi
    # nearest to k, |k - 2 pi m| is bounded in exact integer arithmetic, with
    # 2 pi enclosed by floor and ceiling of 2 pi * 2^40 (from 50 digits of pi).
    scale = 40
    with mpmath.workdps(50):
        two_pi_low = int(mpmath.floor(2 * mpmath.pi * 2**scale))
    two_pi_high = two_pi_low + 1  # two_pi_low < 2 pi 2^40 < two_pi_high
    k = np.arange(1, 10**6 + 1, dtype=np.int64)  # (10^6,)
    m = np.rint(k / (2 * np.pi)).astype(np.int64)  # (10^6,): nearest multiple, checked below
    assert int(m.max()) * two_pi_high < 2**62 and (int(k.max()) << scale) < 2**62  # no overflow
    below = (k << scale) - m * two_pi_high  # (10^6,): <= (k - 2 pi m) 2^40
    above = (k << scale) - m * two_pi_low  # (10^6,): >= (k - 2 pi m) 2^40
    # |k - 2 pi m| < 2 pi - 2.8e-6 means no other multiple is nearer than 2.8e-6.
    rec.exact(
        "for k = 1 .. 10^6, m_k is the nearest multiple: |k - 2 pi m_k| < 6",
        Fraction(int(np.maximum(np.abs(below), np.abs(above)).max()), 2**scale),
        6,
        relation="<",
        scope="exact integers, every k = 1 .. 10^6; 2 pi enclosed to 2^-40",
    )
    distance = np.where(below > 0, below, np.where(above < 0, -above, 0))  # (10^6,)
    closest = int(np.argmin(distance))
    rec.exact(
        "no offset k = 1 .. 10^6 brings pair 0 within 2.8e-6 rad of a full turn",
        Fraction(28, 10**7),
        Fraction(int(distance[closest]), 2**scale),
        relation="<",
        scope="exact integers, every k = 1 .. 10^6; 2 pi enclosed to 2^-40",
    )
    rec.exact(
        "the closest return is at k = 312,689",
        int(k[closest]),
        312689,
        scope="exact integers: the k of the smallest lower bound above",
    )
    rec.exact(
        "... where pair 0 is less than 3e-6 rad from a full turn",
        Fraction(max(abs(int(below[closest])), abs(int(above[closest]))), 2**scale),
        Fraction(3, 10**6),
        relation="<",
        scope="exact integers, k = 312,689; 2 pi enclosed to 2^-40",
    )

    # Step 5. Numeric spot check of steps 1-2 at sampled points, mpmath at 30 digits.
    mpmath.mp.dps = 30
    rng = np.random.default_rng(7)
    worst = 0.0
    for left, right in rng.integers(-(10**6), 10**6, size=(20, 2)):
        for width in (2, 16):
            rates = [mpmath.power(10000, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
            direct = mpmath.fsum(
                (mpmath.sin(r * int(left)) - mpmath.sin(r * int(right))) ** 2
                + (mpmath.cos(r * int(left)) - mpmath.cos(r * int(right))) ** 2
                for r in rates
            )
            offset = mpmath.fsum(4 * mpmath.sin(r * int(left - right) / 2) ** 2 for r in rates)
            worst = max(worst, float(abs(direct - offset)))
    rec.numeric(
        "|PE(p) - PE(q)|^2 = sum_i 4 sin^2(w_i (p - q)/2) at sampled integers",
        worst,
        tol=1e-25,
        scope="20 random (p, q) in [-10^6, 10^6)^2, d in {2, 16}; mpmath at 30 digits",
    )

    # Step 6. Fast pairs separate neighbours, slow pairs separate regions: the
    # share of each third of the pairs at offsets 1 .. 10^4 (width 512), from
    # posenc.similarity.distance_profile against mpmath, and the page's table.
    worst_library = worst_table = 0.0
    for offset, row in TABLE.items():
        exact = [exact_share(offset, third) for third in THIRDS] + [
            exact_share(offset, range(256))
        ]
        got = [float(distance_profile(offset, 512, pairs=third)) for third in THIRDS]
        got.append(float(distance_profile(offset, 512)))
        for value, true, shown in zip(got, exact, row, strict=True):
            worst_library = max(worst_library, float(abs((value - true) / true)))
            worst_table = max(worst_table, float(abs(true - mpmath.mpf(shown))))
    rec.numeric(
        "posenc.similarity.distance_profile gives each third's share, as mpmath does",
        worst_library,
        tol=1e-14,
        scope="d = 512, offsets 1, 10, 100, 1000, 10^4, thirds 0-85, 86-170, 171-255; relative",
    )
    rec.numeric(
        "the table on the page: each share rounds to the 4 decimals shown",
        worst_table,
        tol=5e-5,
        scope="d = 512, the 20 entries of the table; mpmath at 30 digits",
    )

    # Step 7. 10^5 positions, pairwise distinct: by step 2 the distance between
    # positions p and q is the distance between rows 0 and |p - q|, so the
    # smallest distance among positions 0 .. L-1 is the smallest over offsets
    # 1 .. L-1. Computed from the library's table, in blocks of rows.
    length, width = 10**5, 512
    first = posenc.sinusoidal(1, width)[0]  # (512,): PE(0)
    nearest = np.inf
    for start in range(1, length, 8192):
        rows = posenc.sinusoidal(min(8192, length - start), width, start=start)  # (n, 512)
        gaps = np.linalg.norm(rows - first, axis=1)  # (n,): |PE(start + r) - PE(0)|
        nearest = min(nearest, float(gaps.min()))
    neighbour = float(exact_share(1, range(256)))
    rec.numeric(
        "among positions 0 .. 10^5 - 1 the closest codes are neighbours, 3.7143 apart",
        abs(nearest - neighbour),
        tol=1e-12,
        scope="d = 512, every offset 1 .. 99,999, rows of posenc.sinusoidal; float64",
    )


# -- misreadings -------------------------------------------------------------------


def _repeats_after_longest_wavelength(wit: Witness) -> None:
    # "About 63,000 distinct positions": the code would come back to its start
    # after 2 pi 10000 ~ 62,832 positions. At d = 512 positions 62,832 and 0
    # already differ on pair 0 (and on the slowest pair, 255).
    rates = [sp.Integer(10000) ** (-sp.Rational(2 * n, 512)) for n in (0, 255)]
    wit.differs(
        sp.Matrix.vstack(*[pair(62832, rate) for rate in rates]),
        sp.Matrix.vstack(*[pair(0, rate) for rate in rates]),
        at="d = 512, positions 62,832 and 0, columns 0, 1 (pair 0) and 510, 511 (pair 255)",
    )


MISREADINGS = [
    Misreading(
        "The code has only about 63,000 distinct positions: it repeats after 2 pi 10000",
        _repeats_after_longest_wavelength,
        why="Pair 0 never returns exactly to its start at an integer, since pi is irrational.",
    ),
]
