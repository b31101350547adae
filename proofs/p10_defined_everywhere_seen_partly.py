"""Proposition 10 (defined everywhere, seen only partly).

The sinusoidal code PE(pos) is defined at every position, and Propositions 5
and 8 hold there: every pair stays on its unit circle, |PE(pos)|^2 = d/2, and
PE(pos + k) = M_k PE(pos). Train on positions 0 .. L-1 (our convention: L
positions, counted from 0). Pair i then shows the angles 0, w_i, ..., (L-1) w_i,
so its hand sweeps the arc from 0 to (L-1) w_i: a fraction min(1, (L-1)/lambda_i)
of its circle, lambda_i = 2 pi / w_i. If lambda_i > L (that is, L w_i < 2 pi),
then at every position pos with L <= pos < lambda_i pair i shows an angle that
no training position showed, not even up to whole turns. At d = 512, b = 10000
this is so for 133, 114 and 95 of the 256 pairs when L = 512, 1024 and 2048.

Uses: 5, 8.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness

NUMBER = 10
TITLE = "Defined everywhere, seen only partly"
USES = (5, 8)

# Symbols, declared once. Positions are real (integers are the case that
# matters, nothing below needs integrality): pos a position, k an offset, n a
# training position; L is the training length.
pos, k, n = sp.symbols("pos k n", real=True)
L = sp.Symbol("L", positive=True)
b = sp.Symbol("b", positive=True)  # the base, b > 1 in the statement
d = sp.Symbol("d", positive=True, even=True)
i = sp.Symbol("i", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i (Proposition 5)
wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i = 2 pi / w_i

# The worked setting of the statement: the paper's width and base, three lengths.
WIDTH, BASE = 512, 10000
LENGTHS = (512, 1024, 2048)
PARTLY_SEEN = {512: 133, 1024: 114, 2048: 95}  # pairs with lambda_i > L

# pi enclosed by rationals: the float64 neighbours of pi bracket it.
PI_LOW = Fraction(3141592653589793, 10**15)
PI_HIGH = Fraction(3141592653589794, 10**15)


def pair(p: sp.Expr, w: sp.Expr = speed) -> sp.Matrix:
    """One pair of the code at position p, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(w * p), sp.cos(w * p)])


def block(angle: sp.Expr) -> sp.Matrix:
    """The rotation block of Proposition 8 for the (sin, cos) order."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def wavelength_exceeds(index: int, x: Fraction | int, width: int = WIDTH) -> bool:
    """Decide lambda_index > x exactly (base 10000), or raise if pi's enclosure is too loose.

    lambda = 2 pi b^(2i/d) > x > 0 holds exactly when (2 pi)^d b^(2i) > x^d, since
    t -> t^d is increasing on t > 0; pi is replaced by a rational bound on each side.
    """
    power = BASE ** (2 * index)  # b^(2i), an integer
    target = Fraction(x) ** width
    if (2 * PI_LOW) ** width * power > target:
        return True
    if (2 * PI_HIGH) ** width * power < target:
        return False
    raise ArithmeticError(f"pair {index} vs {x}: the enclosure of pi does not decide")


def count_longer_than(x: Fraction | int, width: int = WIDTH) -> int:
    """How many pairs of the given width have a wavelength longer than x, exactly."""
    return sum(wavelength_exceeds(index, x, width) for index in range(width // 2))


def checks(rec: Recorder) -> None:
    # Step 1. Proposition 8 does not stop at the training length: the code at
    # L - 1 + k, k positions past the last training row, is that row turned by
    # k w_i on every pair. Nothing in the formula or the rotation knows L.
    rec.identity(
        "PE(L - 1 + k) = M_k PE(L - 1), pair by pair",
        block(k * speed) * pair(L - 1) - pair(L - 1 + k),
        scope="all real L > 0 and k, integers i >= 0, even d > 0, b > 0",
    )

    # Step 2. The seen arc. Training shows pair i at the angles pos w_i,
    # pos = 0 .. L-1, an arithmetic progression with step w_i > 0; the hand
    # sweeps from 0 to (L-1) w_i. As a fraction of a full turn that is
    # (L-1) w_i / (2 pi) = (L-1) / lambda_i (capped at 1 once it wraps).
    rec.identity(
        "the seen arc (L-1) w_i is the fraction (L-1)/lambda_i of a turn",
        (L - 1) * speed / (2 * sp.pi) - (L - 1) / wavelength,
        scope="all L > 0, integers i >= 0, even d > 0, b > 0",
    )

    # Step 3. Why positions past L show new angles. For a training position n and
    # a later position pos, the two angles differ by (pos - n) w_i, and
    #   2 pi - (pos - n) w_i = w_i (lambda_i - pos + n).
    # For 0 <= n <= L-1 < L <= pos < lambda_i both (pos - n) w_i and the right
    # side are positive, so the difference lies strictly between 0 and a full
    # turn: the angles are different points of the circle. With n = 0 and
    # pos = L this is the criterion: L w_i < 2 pi exactly when lambda_i > L.
    rec.identity(
        "2 pi - (pos - n) w_i = w_i (lambda_i - pos + n)",
        2 * sp.pi - (pos - n) * speed - speed * (wavelength - pos + n),
        scope="all real pos, n, integers i >= 0, even d > 0, b > 0",
    )

    # Step 4. The counts at d = 512, b = 10000, decided pair by pair in exact
    # arithmetic (see wavelength_exceeds): pairs with lambda_i > L. No
    # wavelength falls in (L-1, L], so counting lambda_i > L - 1 (the pairs
    # whose seen fraction is below 1) gives the same pairs.
    for length in LENGTHS:
        rec.exact(
            f"at d = 512, L = {length}: {PARTLY_SEEN[length]} of 256 pairs have lambda_i > L",
            count_longer_than(length),
            PARTLY_SEEN[length],
            scope="every pair i = 0..255, b = 10000, 3.141592653589793 < pi < 3.141592653589794",
        )
    rec.exact(
        "no wavelength at d = 512 lies in (L-1, L] for these L",
        sum(count_longer_than(length - 1) - count_longer_than(length) for length in LENGTHS),
        0,
        scope="L in {512, 1024, 2048}, every pair, exact integer comparisons",
    )

    # Step 5. How little the slow pairs have seen: even at L = 2048, a pair with
    # lambda_i > 25 (L-1) = 51,175 has swept under 1/25 (4 per cent) of its
    # circle. At d = 512 that is the five slowest pairs, decided exactly.
    rec.exact(
        "at d = 512, L = 2048: 5 pairs have seen under 4% of their circle",
        count_longer_than(25 * (2048 - 1)),
        5,
        scope="every pair i = 0..255, b = 10000: lambda_i > 25 (L-1) decided exactly",
    )

    # Step 6. Numeric spot check of the identity of step 3 at sampled points.
    rng = np.random.default_rng(10)
    gap = sp.lambdify(
        (pos, n, b, d, i),
        2 * sp.pi - (pos - n) * speed - speed * (wavelength - pos + n),
        "numpy",
    )
    worst = 0.0
    for where, seen, base, index in rng.uniform([0, 0, 2, 0], [5000, 5000, 20000, 255], (50, 4)):
        worst = max(worst, abs(float(gap(where, seen, base, 512, np.floor(index)))))
    rec.numeric(
        "the identity of step 3 at sampled points",
        worst,
        tol=1e-9,
        scope="50 random (pos, n, b, i) in [0, 5000]^2 x [2, 20000] x {0..254}, d = 512, float64",
    )

    # Step 7. The library agrees. posenc.wavelengths gives the same counts, and
    # posenc.sinusoidal is defined far past any training length: rows at
    # positions near one million match mpmath and have |PE|^2 = d/2.
    lam = posenc.wavelengths(WIDTH)  # (256,)
    rec.numeric(
        "posenc.wavelengths(512) has the same number of wavelengths above L",
        max(abs(int(np.sum(lam > length)) - PARTLY_SEEN[length]) for length in LENGTHS),
        tol=0,
        scope="d = 512, L in {512, 1024, 2048}, float64 wavelengths",
    )
    start = 10**6 - 1
    far = posenc.sinusoidal(3, WIDTH, start=start)  # (3, 512): positions 999999 .. 1000001
    mpmath.mp.dps = 40
    worst = 0.0
    for row, p in enumerate(range(start, start + 3)):
        for index in range(0, WIDTH // 2, 15):
            angle = p * mpmath.power(BASE, mpmath.mpf(-2 * index) / WIDTH)
            worst = max(
                worst,
                float(abs(far[row, 2 * index] - mpmath.sin(angle))),
                float(abs(far[row, 2 * index + 1] - mpmath.cos(angle))),
            )
    rec.numeric(
        "posenc.sinusoidal at positions near 10^6 equals sin, cos of pos w_i",
        worst,
        tol=1e-15,
        scope="d = 512, positions 999,999..1,000,001, every 15th pair; mpmath at 40 digits",
    )
    norms = np.einsum("pd,pd->p", far, far)  # (3,): |PE(pos)|^2
    rec.numeric(
        "posenc.sinusoidal rows near 10^6 have |PE(pos)|^2 = d/2",
        float(np.abs(norms - WIDTH / 2).max()),
        tol=1e-12,
        scope="d = 512, positions 999,999..1,000,001, float64",
    )


# -- misreadings -------------------------------------------------------------------


def _seen_every_pattern(wit: Witness) -> None:
    # "Training on 0..L-1 has shown every pair every angle it will ever take."
    # At d = 512, L = 512 the slowest pair, i = 255, at pos = 2L = 1024: the
    # seen angles are n w for n = 0..511, and by step 3 the angle 1024 w
    # differs from each by (1024 - n) w, strictly between 0 and 2 pi, as soon
    # as L <= 1024 < lambda_255. Both inequalities are decided exactly.
    length, index, where = 512, 255, 1024
    wit.exact(
        length <= where and wavelength_exceeds(index, where),
        at=(
            "d = 512, L = 512, pair 255, pos = 1024: 512 <= 1024 < lambda_255 (about 60,611.5), "
            "so the angle 1024 w_255 (0.1062 rad) lies past the seen arc [0, 511 w_255] "
            "(0 to 0.0530 rad) and short of a full turn"
        ),
    )


def _stops_at_length(wit: Witness) -> None:
    # "Past the training length the sinusoidal code has nothing to offer, like a
    # learned table with L rows." The formula at pos = 10^6 is a unit vector on
    # every pair: |PE(10^6)|^2 = d/2 = 256, not 0.
    p = sp.Integer(10**6)
    norm = sum(
        sp.sin(p * sp.Integer(BASE) ** sp.Rational(-2 * index, WIDTH)) ** 2
        + sp.cos(p * sp.Integer(BASE) ** sp.Rational(-2 * index, WIDTH)) ** 2
        for index in range(WIDTH // 2)
    )
    wit.differs(norm, 0, at="d = 512, b = 10000, pos = 10^6, |PE(pos)|^2 from the formula")


MISREADINGS = [
    Misreading(
        "Training on positions 0..L-1 shows every pair all the angles it will take later,"
        " so a sinusoidal model has seen every position's pattern and extrapolates",
        _seen_every_pattern,
        why=(
            "A pair whose wavelength exceeds L has swept only the arc [0, (L-1) w_i];"
            " positions L..lambda_i - 1 put it at angles it never showed."
        ),
    ),
    Misreading(
        "The sinusoidal code stops at the training length, like a learned table",
        _stops_at_length,
        why="The formula is defined at every position; at 10^6 it is a unit vector per pair.",
    ),
]
