"""Proposition 5 (the bank of clocks).

In the sinusoidal code of width d (even) and base b > 1, pair i (columns 2i and
2i+1, i = 0 .. d/2 - 1) is a clock hand that turns at the angular speed
w_i = b^(-2i/d) radians per position. Its wavelength 2*pi*b^(2i/d) is the
number of positions for one full turn; the wavelengths form a geometric
progression with ratio b^(2/d). Every pair lies on the unit circle, so
|PE(pos)|^2 = d/2 at every position.

Uses: none.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness

NUMBER = 5
TITLE = "The bank of clocks"
USES = ()

# Symbols, declared once, with the assumptions the statement makes.
pos = sp.Symbol("pos", real=True)
b = sp.Symbol("b", positive=True)  # the base; b > 1 in the statement, b > 0 suffices below
d = sp.Symbol("d", positive=True, even=True)
i, n = sp.symbols("i n", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i
wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i


def pe_pair(p: sp.Expr, index: sp.Expr = i) -> tuple[sp.Expr, sp.Expr]:
    """Columns 2i and 2i+1 of the paper's formula at position p."""
    angle = p / b ** (2 * index / d)
    return sp.sin(angle), sp.cos(angle)


def checks(rec: Recorder) -> None:
    # Step 1. The paper writes pos / b^(2i/d); that is pos times w_i.
    rec.identity(
        "the angle of pair i is pos * w_i, w_i = b^(-2i/d)",
        pos / b ** (2 * i / d) - pos * speed,
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 2. The angle grows by exactly w_i per position: a hand turning at a
    # constant rate (the derivative in pos is the same constant).
    rec.identity(
        "d(angle)/d(pos) = w_i",
        sp.diff(pos * speed, pos) - speed,
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 3. One full turn takes lambda_i positions: the pair repeats after
    # its wavelength, and lambda_i * w_i = 2 pi.
    rec.identity(
        "lambda_i * w_i = 2 pi", wavelength * speed - 2 * sp.pi, scope="b > 0, d > 0, i >= 0"
    )
    s_now, c_now = pe_pair(pos)
    s_later, c_later = pe_pair(pos + wavelength)
    rec.identity(
        "PE(pos + lambda_i) = PE(pos) on pair i",
        sp.Matrix([s_later - s_now, c_later - c_now]),
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 4. Neighbouring wavelengths have the constant ratio b^(2/d), so the
    # ladder is geometric: lambda_i = lambda_0 * (b^(2/d))^i.
    rec.identity(
        "lambda_(i+1) / lambda_i = b^(2/d)",
        wavelength.subs(i, i + 1) / wavelength - b ** (2 / d),
        scope="b > 0, even d > 0, integers i >= 0",
    )
    rec.identity(
        "lambda_i = 2 pi (b^(2/d))^i",
        wavelength - 2 * sp.pi * (b ** (2 / d)) ** i,
        scope="b > 0, even d > 0, integers i >= 0",
    )

    # Step 5. Each pair is a point on the unit circle, so the squared length of
    # the code is the number of pairs, d/2, whatever the position.
    s, c = pe_pair(pos)
    rec.identity(
        "sin^2 + cos^2 = 1 on every pair", s**2 + c**2 - 1, scope="all real pos, i, d, b > 0"
    )
    norm_squared = sp.Sum(sp.simplify(s**2 + c**2), (i, 0, d / 2 - 1)).doit()
    rec.identity(
        "|PE(pos)|^2 = d/2",
        norm_squared - d / 2,
        scope="all real pos, even d > 0, b > 0 (sum over i = 0 .. d/2 - 1)",
    )

    # Step 6. The d = 512, b = 10000 figures, in exact integer arithmetic:
    # r = 10000^(2/512) is the positive root of r^256 = 10000, so a < r < c
    # exactly when a^256 < 10000 < c^256 (powers are increasing on r > 0).
    low, high = Fraction("1.0366325"), Fraction("1.0366335")
    rec.exact(
        "at d = 512 the ratio 10000^(2/512) rounds to 1.036633 (low side)",
        low**256,
        10000,
        relation="<",
        scope="exact rationals: 1.0366325^256 < 10000",
    )
    rec.exact(
        "at d = 512 the ratio 10000^(2/512) rounds to 1.036633 (high side)",
        10000,
        high**256,
        relation="<",
        scope="exact rationals: 10000 < 1.0366335^256",
    )
    # The last rung: 10000^((d-2)/d) = 10000^(255/256) lies in (9646.6155, 9646.6165)
    # iff low^256 < 10000^255 < high^256.
    low, high = Fraction("9646.6155"), Fraction("9646.6165")
    rec.exact(
        "at d = 512 the last rung is 10000^(510/512) = 9646.616 (low side)",
        low**256,
        10000**255,
        relation="<",
        scope="exact integers and rationals",
    )
    rec.exact(
        "at d = 512 the last rung is 10000^(510/512) = 9646.616 (high side)",
        10000**255,
        high**256,
        relation="<",
        scope="exact integers and rationals",
    )
    # 2 pi times it, with pi enclosed by rationals (Archimedes' kind of bound,
    # here the float64 neighbours of pi, which bracket it).
    pi_low, pi_high = Fraction(3141592653589793, 10**15), Fraction(3141592653589794, 10**15)
    rec.exact(
        "the longest wavelength at d = 512 is 60,611.5 positions (to 0.1)",
        2 * pi_high * Fraction("9646.6165"),
        Fraction("60611.55"),
        relation="<",
        scope="exact rationals, pi < 3.141592653589794",
    )
    rec.exact(
        "... and more than 60,611.45",
        Fraction("60611.45"),
        2 * pi_low * Fraction("9646.6155"),
        relation="<",
        scope="exact rationals, pi > 3.141592653589793",
    )

    # Step 7. Numeric spot check of the symbolic result: mpmath at 30 digits
    # against the closed forms, at a few widths.
    mpmath.mp.dps = 30
    worst = 0.0
    for width in (2, 8, 512):
        for index in range(0, width // 2, max(1, width // 16)):
            w_exact = mpmath.power(10000, mpmath.mpf(-2 * index) / width)
            lam = 2 * mpmath.pi * mpmath.power(10000, mpmath.mpf(2 * index) / width)
            worst = max(worst, float(abs(w_exact * lam - 2 * mpmath.pi)))
    rec.numeric(
        "lambda_i * w_i = 2 pi at sampled (d, i)",
        worst,
        tol=1e-25,
        scope="d in {2, 8, 512}, i sampled; mpmath at 30 digits",
    )

    # Step 8. The library computes the same clocks: posenc.frequencies and
    # posenc.wavelengths against mpmath, and the norm of posenc.sinusoidal rows.
    worst_speed = worst_length = 0.0
    for width in (2, 4, 64, 512):
        exact_speeds = [mpmath.power(10000, mpmath.mpf(-2 * k) / width) for k in range(width // 2)]
        got_speeds = posenc.frequencies(width)
        got_lengths = posenc.wavelengths(width)
        for k, true in enumerate(exact_speeds):
            worst_speed = max(worst_speed, float(abs((got_speeds[k] - true) / true)))
            worst_length = max(
                worst_length,
                float(abs((got_lengths[k] - 2 * mpmath.pi / true) * true / (2 * mpmath.pi))),
            )
    rec.numeric(
        "posenc.frequencies and posenc.wavelengths match b^(-2i/d), 2 pi b^(2i/d)",
        max(worst_speed, worst_length),
        tol=4e-16,
        scope="d in {2, 4, 64, 512}, every i; relative error against mpmath at 30 digits",
    )
    table = posenc.sinusoidal(2000, 128)  # (2000, 128)
    norms = np.einsum("pd,pd->p", table, table)  # (2000,): |PE(pos)|^2
    rec.numeric(
        "posenc.sinusoidal rows have |PE(pos)|^2 = d/2",
        float(np.abs(norms - 64).max()),
        tol=1e-12,
        scope="d = 128, positions 0..1999, float64",
    )


# -- misreadings -------------------------------------------------------------------


def _ends_at_base(wit: Witness) -> None:
    # The paper's prose: "wavelengths form a geometric progression from 2 pi to
    # 10000 * 2 pi". The formula's last pair is i = d/2 - 1, whose exponent is
    # (d-2)/d < 1. At d = 512: the largest wavelength 2 pi 10000^(255/256) is
    # below 2 pi 10000, because 10000^255 < 10000^256.
    top = wavelength.subs({i: 255, d: 512, b: 10000})
    wit.differs(top, 2 * sp.pi * 10000, at="d = 512, i = 255 (the last pair)")


def _linear_ladder(wit: Witness) -> None:
    # "The wavelengths grow evenly (an arithmetic ladder)": the gaps between
    # rungs differ: at d = 6 the rungs are 2 pi times 1, 10000^(1/3), 10000^(2/3).
    at = {d: 6, b: 10000}
    gap_0 = (wavelength.subs(i, 1) - wavelength.subs(i, 0)).subs(at)
    gap_1 = (wavelength.subs(i, 2) - wavelength.subs(i, 1)).subs(at)
    wit.differs(gap_0, gap_1, at="d = 6, b = 10000, rungs i = 0, 1, 2")


MISREADINGS = [
    Misreading(
        "For the paper's formula the wavelengths run from 2*pi up to 10000 * 2*pi",
        _ends_at_base,
        why="The last pair is i = d/2 - 1; the rung 2*pi*b is one step past it.",
    ),
    Misreading(
        "The wavelengths are evenly spaced",
        _linear_ladder,
        why="Their ratio, not their difference, is constant: the ladder is geometric.",
    ),
]
