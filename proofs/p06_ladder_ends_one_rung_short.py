"""Proposition 6 (the ladder ends one rung short).

In the sinusoidal code of width d (even) and base b > 1, the wavelengths
lambda_i = 2*pi*b^(2i/d), i = 0 .. d/2 - 1, run from 2*pi up to
2*pi*b^((d-2)/d), not up to 2*pi*b. The top rung lies exactly one ratio step
b^(2/d) below 2*pi*b, which is the rung i = d/2, one pair past the last. At
d = 512 and b = 10000 the ratio is 1.0366, the longest wavelength is about
60,611.5 positions and 2*pi*b is about 62,831.9. The variant with exponent
i/(h-1), h = d/2 (tensor2tensor, fairseq, Whisper), has wavelengths
2*pi*b^(i/(h-1)), i = 0 .. h-1, which run from 2*pi to exactly 2*pi*b.

Uses: 5.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness

NUMBER = 6
TITLE = "The ladder ends one rung short"
USES = (5,)

# Symbols, declared once, with the assumptions the statement makes.
b = sp.Symbol("b", positive=True)  # the base; b > 1 where the sign matters (step 3)
s = sp.Symbol("s", positive=True)  # b = 1 + s, to state b > 1 as an assumption
d = sp.Symbol("d", positive=True, even=True)  # the width
h = sp.Symbol("h", positive=True, integer=True)  # pairs in the (h-1) variant, h >= 2
i = sp.Symbol("i", integer=True, nonnegative=True)

wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i of the paper (Proposition 5)
top = 2 * sp.pi * b ** ((d - 2) / d)  # the claimed last rung
step = b ** (2 / d)  # the ratio of neighbouring rungs
variant = 2 * sp.pi * b ** (i / (h - 1))  # lambda_i with the (h-1) denominator


def positive(expr: sp.Expr) -> sp.Expr:
    """sign(expr) - 1: it is 0 exactly when SymPy's assumptions decide ``expr > 0``.

    For every value the symbols' assumptions allow; when they cannot decide,
    ``sign`` stays unevaluated and the difference does not reduce to 0.
    """
    return sp.sign(expr) - 1


def checks(rec: Recorder) -> None:
    # Step 1. The last pair is i = d/2 - 1 (Proposition 5 counts i from 0), and
    # its wavelength is 2 pi b^((d-2)/d).
    rec.identity(
        "the last rung, i = d/2 - 1, is 2 pi b^((d-2)/d)",
        wavelength.subs(i, d / 2 - 1) - top,
        scope="all b > 0, even d > 0",
    )

    # Step 2. The prose's end point 2 pi b is the rung i = d/2, which does not
    # exist; it lies exactly one ratio step above the last rung.
    rec.identity(
        "2 pi b is the rung i = d/2, one pair past the last",
        wavelength.subs(i, d / 2) - 2 * sp.pi * b,
        scope="all b > 0, even d > 0",
    )
    rec.identity(
        "2 pi b = b^(2/d) times the last rung: exactly one step above it",
        step * top - 2 * sp.pi * b,
        scope="all b > 0, even d > 0",
    )

    # Step 3. The step goes up: for b > 1 the ratio exceeds 1, so the last rung
    # lies below 2 pi b. With b = 1 + s, s > 0, the log of the ratio is
    # (2/d) log(1 + s), which SymPy's assumptions decide is positive.
    rec.identity(
        "log of the ratio: log(b^(2/d)) = (2/d) log b",
        sp.log(step) - 2 * sp.log(b) / d,
        scope="all b > 0, even d > 0",
    )
    rec.identity(
        "for b > 1 the ratio exceeds 1: (2/d) log b > 0",
        positive((2 * sp.log(b) / d).subs(b, 1 + s)),
        scope="b = 1 + s with s > 0, even d > 0 (sign decided by SymPy's assumptions)",
    )
    rec.identity(
        "the missing length: 2 pi b - the last rung = 2 pi b (1 - b^(-2/d))",
        2 * sp.pi * b - top - 2 * sp.pi * b * (1 - b ** (-2 / d)),
        scope="all b > 0, even d > 0",
    )

    # Step 4. The (h-1) variant: exponent i/(h-1) for i = 0 .. h-1 with h = d/2
    # pairs. Its ladder starts at 2 pi, ends at exactly 2 pi b, and is geometric
    # with the slightly larger ratio b^(1/(h-1)).
    rec.identity(
        "(h-1) variant: the first rung is 2 pi",
        variant.subs(i, 0) - 2 * sp.pi,
        scope="all b > 0, integers h >= 2",
    )
    rec.identity(
        "(h-1) variant: the last rung, i = h - 1, is exactly 2 pi b",
        variant.subs(i, h - 1) - 2 * sp.pi * b,
        scope="all b > 0, integers h >= 2",
    )
    rec.identity(
        "(h-1) variant: neighbouring rungs differ by b^(1/(h-1))",
        variant.subs(i, i + 1) / variant - b ** (1 / (h - 1)),
        scope="all b > 0, integers h >= 2, i >= 0",
    )

    # Step 5. The d = 512, b = 10000 figures, in exact integer arithmetic. As in
    # Proposition 5, a power comparison encloses a root: for r > 0,
    # lo < r^(1/n) < hi exactly when lo^n < r < hi^n. A two-sided claim
    # lo < x < hi is recorded as "0 < the smaller of x - lo and hi - x".
    ratio_low, ratio_high = Fraction("1.03655"), Fraction("1.03665")
    rec.exact(
        "at d = 512 the ratio 10000^(1/256) rounds to 1.0366",
        0,
        min(10000 - ratio_low**256, ratio_high**256 - 10000),
        relation="<",
        scope="exact rationals: 1.03655^256 < 10000 < 1.03665^256",
    )
    rung_low, rung_high = Fraction("9646.6161"), Fraction("9646.6163")
    rec.exact(
        "the last rung's factor 10000^(255/256) lies in (9646.6161, 9646.6163)",
        0,
        min(10000**255 - rung_low**256, rung_high**256 - 10000**255),
        relation="<",
        scope="exact integers and rationals: 9646.6161^256 < 10000^255 < 9646.6163^256",
    )
    # pi lies between its float64 neighbours 3.141592653589793 and ...794.
    pi_low, pi_high = Fraction(3141592653589793, 10**15), Fraction(3141592653589794, 10**15)
    # The longest wavelength and the gap, each enclosed from both sides.
    longest = (2 * pi_low * rung_low, 2 * pi_high * rung_high)  # encloses 2 pi 10000^(255/256)
    prose = (20000 * pi_low, 20000 * pi_high)  # encloses 2 pi 10000
    gap = (prose[0] - longest[1], prose[1] - longest[0])  # encloses the difference
    for claim, (low, high), (floor, ceiling) in (
        (
            "the longest wavelength at d = 512, 2 pi 10000^(255/256), rounds to 60,611.5",
            longest,
            ("60611.45", "60611.55"),
        ),
        (
            "2 pi 10000, the rung the prose names, rounds to 62,831.9",
            prose,
            ("62831.85", "62831.95"),
        ),
        (
            "the missing length, 2 pi 10000 - 2 pi 10000^(255/256), rounds to 2,220.4",
            gap,
            ("2220.35", "2220.45"),
        ),
    ):
        rec.exact(
            f"{claim} (above {floor})",
            Fraction(floor),
            low,
            relation="<",
            scope="exact rationals, with the enclosures of pi and of 10000^(255/256) above",
        )
        rec.exact(
            f"... (below {ceiling})",
            high,
            Fraction(ceiling),
            relation="<",
            scope="exact rationals, with the enclosures of pi and of 10000^(255/256) above",
        )
    variant_low, variant_high = Fraction("1.03675"), Fraction("1.03685")
    rec.exact(
        "(h-1) variant at d = 512: its ratio 10000^(1/255) rounds to 1.0368",
        0,
        min(10000 - variant_low**255, variant_high**255 - 10000),
        relation="<",
        scope="exact rationals: 1.03675^255 < 10000 < 1.03685^255",
    )

    # Step 6. Numeric spot check of the symbolic result: at sampled (d, b), mpmath
    # at 30 digits gives b^(2/d) * lambda_(d/2-1) = 2 pi b.
    mpmath.mp.dps = 30
    worst = 0.0
    for width in (2, 4, 10, 512, 4096):
        for base in (2, 10000, 500000):
            last = 2 * mpmath.pi * mpmath.power(base, mpmath.mpf(width - 2) / width)
            ratio = mpmath.power(base, mpmath.mpf(2) / width)
            worst = max(worst, float(abs(ratio * last / (2 * mpmath.pi * base) - 1)))
    rec.numeric(
        "b^(2/d) times the last rung = 2 pi b at sampled (d, b)",
        worst,
        tol=1e-27,
        scope="d in {2, 4, 10, 512, 4096}, b in {2, 10000, 500000}; mpmath at 30 digits",
    )

    # Step 7. The library's ladder stops where the proof says: the last value of
    # posenc.wavelengths is 2 pi b^((d-2)/d), one step b^(2/d) short of 2 pi b.
    worst = 0.0
    for width in (2, 4, 64, 512, 4096):
        for base in (10000.0, 500000.0):
            got = posenc.wavelengths(width, base=base)[-1]
            exact = 2 * mpmath.pi * mpmath.power(base, mpmath.mpf(width - 2) / width)
            worst = max(worst, float(abs((got - exact) / exact)))
    rec.numeric(
        "posenc.wavelengths(d)[-1] = 2 pi b^((d-2)/d), not 2 pi b",
        worst,
        tol=2.0**-53,
        scope="d in {2, 4, 64, 512, 4096}, b in {10000, 500000}; relative error vs mpmath",
    )
    ladder = posenc.wavelengths(512)  # (256,)
    ratios = ladder[1:] / ladder[:-1]  # (255,)
    rec.numeric(
        "posenc.wavelengths(512): 255 steps, each the ratio 10000^(1/256)",
        float(np.abs(ratios / float(mpmath.power(10000, mpmath.mpf(1) / 256)) - 1).max()),
        tol=1e-15,
        scope="d = 512, b = 10000, every neighbouring pair of rungs; float64",
    )


# -- misreadings -------------------------------------------------------------------


def _ends_at_base(wit: Witness) -> None:
    # "The wavelengths run from 2 pi to 10000 * 2 pi." At d = 4 there are two
    # pairs; the last, i = 1, has wavelength 2 pi * 10000^(1/2) = 2 pi * 100.
    at = {d: 4, b: 10000, i: 1}
    wit.differs(
        wavelength.subs(at) / (2 * sp.pi), 10000, at="d = 4, b = 10000, the last pair i = 1"
    )


def _same_as_variant(wit: Witness) -> None:
    # "tensor2tensor, fairseq and Whisper compute the paper's ladder." At d = 8
    # (h = 4) pair 1 has 2 pi * 10000^(1/4) = 2 pi * 10 in the paper and
    # 2 pi * 10000^(1/3) = 2 pi * 21.54 in the (h-1) variant.
    paper = wavelength.subs({d: 8, b: 10000, i: 1})
    other = variant.subs({h: 4, b: 10000, i: 1})
    wit.differs(paper / (2 * sp.pi), other / (2 * sp.pi), at="d = 8, b = 10000, pair i = 1")


MISREADINGS = [
    Misreading(
        "For the paper's formula the wavelengths run from 2 pi up to 10000 times 2 pi",
        _ends_at_base,
        why="That end point is the rung i = d/2; the last pair is i = d/2 - 1, one step below.",
    ),
    Misreading(
        "The (h-1) libraries (tensor2tensor, fairseq, Whisper) use the paper's wavelengths",
        _same_as_variant,
        why="Their ratio is b^(1/(h-1)), not b^(1/h): every rung after the first moves.",
    ),
]
