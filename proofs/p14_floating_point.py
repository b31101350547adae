"""Proposition 14 (where the formula meets floating point).

A binary floating-point format whose significand has p bits holds every integer
from 0 to 2^p, and not 2^p + 1. So positions are exact only up to 256 in bfloat16
(p = 8), 2048 in float16 (p = 11) and 2^24 in float32 (p = 24). Computing the
angles in float32, as the PyTorch tutorial does (exp(-ln(10000) 2i/d), its
product with pos, and sin, all in float32), leaves an absolute error that grows
with the position: measured at width 512, about 1e-2 at positions 10^4 to 10^5
and about 0.09 near 10^6. In float64, frequencies computed as
exp(-ln(10000) 2i/d) are up to 14 ulp off, while the power 10000^(-2i/d) is
within one ulp when 2i/d is exact (d a power of two). posenc.sinusoidal in
float32 is within one float32 ulp.

Uses: 5.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc import conventions, precision, sinusoidal
from proofs.kit import Misreading, Recorder, Witness

NUMBER = 14
TITLE = "Where the formula meets floating point"
USES = (5,)

# Symbols, declared once: p significand bits and m a significand; pos a position,
# w a speed, delta a relative error of the speed; a and c two angles.
p = sp.Symbol("p", integer=True, positive=True)
m = sp.Symbol("m", integer=True)
pos = sp.Symbol("pos", positive=True)
w = sp.Symbol("w", positive=True)
delta = sp.Symbol("delta", real=True)
a, c = sp.symbols("a c", real=True)

# The formats, as (name, p, the limit FACTS states).
FORMATS = (("bfloat16", 8, 256), ("float16", 11, 2048), ("float32", 24, 2**24))
WIDTH = 512  # the measurements are at the paper's base width
DIGITS = 30  # mpmath's working precision for every true value below


def first_inexact_integer(name: str, stop: int) -> int:
    """The least n >= 0 that does not survive a round trip through the format."""
    convert = {
        "bfloat16": precision.to_bfloat16,
        "float16": lambda x: x.astype(np.float16),
        "float32": lambda x: x.astype(np.float32),
    }[name]
    chunk = 1 << 22
    for low in range(0, stop, chunk):
        n = np.arange(low, min(low + chunk, stop), dtype=np.int64)  # (chunk,)
        back = convert(n.astype(np.float64)).astype(np.int64)  # (chunk,)
        bad = np.flatnonzero(back != n)
        if bad.size:
            return int(n[bad[0]])
    return stop


def bfloat16_exact(x: Fraction) -> Fraction | float:
    """x rounded to bfloat16 from the definition: 8 significant bits, ties to even."""
    if x == 0:
        return Fraction(0)
    size = abs(x)
    e = size.numerator.bit_length() - size.denominator.bit_length()  # 2^e <= size < 2^(e+1)
    e += 1 if Fraction(2) ** (e + 1) <= size else 0
    e -= 1 if Fraction(2) ** e > size else 0
    quantum = Fraction(2) ** (max(e, -126) - 7)
    steps, rest = divmod(size / quantum, 1)
    steps += 1 if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and steps % 2) else 0
    value = steps * quantum
    if value >= 2**128:
        return math.copysign(math.inf, x)
    return value if x > 0 else -value


def exact_speeds(width: int) -> list[mpmath.mpf]:
    return [mpmath.power(10000, mpmath.mpf(-2 * i) / width) for i in range(width // 2)]


def largest_error(rows: np.ndarray, positions, speeds) -> tuple[float, int, int]:
    """max |table - PE| over the given rows, the true PE at 30 digits; and where."""
    worst, where = 0.0, (0, 0)
    for row, position in zip(rows.astype(np.float64).tolist(), positions, strict=True):
        for i, speed in enumerate(speeds):
            angle = int(position) * speed
            for col, true in ((2 * i, mpmath.sin(angle)), (2 * i + 1, mpmath.cos(angle))):
                error = float(abs(row[col] - true))
                if error > worst:
                    worst, where = error, (int(position), col)
    return worst, *where


def tutorial_rows(positions) -> np.ndarray:
    """The PyTorch tutorial's float32 table at the given positions."""
    rows = [conventions.table("pytorch-tutorial", 1, WIDTH, start=int(n)) for n in positions]
    return np.concatenate(rows)  # (n, 512) float32


MIDDLE = np.unique(np.round(np.logspace(4, 5, 12)).astype(np.int64))  # 10^4 .. 10^5
NEAR_A_MILLION = 10**6 + 37 * np.arange(8)  # 10^6 .. 10^6 + 259


def checks(rec: Recorder) -> None:
    mpmath.mp.dps = DIGITS

    # Step 1. Why 2^p + 1 is the first integer lost. A number with a p-bit
    # significand in [2^p, 2^(p+1)) is m * 2^(p - p + 1) = 2m for an integer m:
    # it is even. 2^p + 1 lies in that range and is odd. (Every integer below
    # 2^p fits in p bits, and 2^p is a power of two.)
    rec.identity(
        "every p-bit number in [2^p, 2^(p+1)) is even: m 2^(p - p + 1) = 0 mod 2",
        sp.Mod(m * 2 ** (p - p + 1), 2),
        scope="every integer p >= 1 and integer significand m",
    )
    rec.identity(
        "2^p + 1 is odd",
        sp.Mod(2**p + 1, 2) - 1,
        scope="every integer p >= 1",
    )

    # Step 2. Every integer up to the limit, converted and converted back: the
    # first one that does not survive is 2^p + 1 (float16 and float32 by NumPy,
    # bfloat16 by posenc.precision's bit-level rounding).
    for name, bits, limit in FORMATS:
        rec.exact(
            f"{name}: every integer 0..{limit} is exact, and {limit} + 1 is not",
            first_inexact_integer(name, 2**bits + 2),
            2**bits + 1,
            scope=f"all integers 0..2^{bits} + 1 (first that fails the round trip)",
        )
        rec.exact(
            f"posenc.precision.exact_integer_limit({name!r}) = {limit}",
            precision.exact_integer_limit(name),
            limit,
            scope=f"p = {bits}",
        )

    # Step 3. The bfloat16 rounding of posenc.precision agrees with the
    # definition (written above with fractions) on random float32 bit patterns
    # and on the halfway cases around the integers of Step 2.
    rng = np.random.default_rng(14)
    samples = rng.integers(0, 2**32, size=3000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    samples = np.concatenate(
        [samples[np.isfinite(samples)], np.arange(250, 270, 0.5, dtype=np.float32)]
    )
    rounded = precision.to_bfloat16(samples).astype(np.float64).tolist()
    mismatches = sum(
        got != bfloat16_exact(Fraction(float(x)))
        for x, got in zip(samples.tolist(), rounded, strict=True)
    )
    rec.exact(
        "posenc.precision.to_bfloat16 rounds to nearest, ties to even",
        mismatches,
        0,
        scope=f"{samples.size} float32 values: random bit patterns and 250..269.5 by halves",
    )

    # Step 4. How a small error in the frequency grows with the position. If
    # the speed carries a relative error delta, the angle is off by pos*w*delta,
    # and sin moves by at most that much: sin a - sin c = 2 cos((a+c)/2) sin((a-c)/2),
    # with |cos| <= 1 and |sin t| <= |t|. The error's growth rate in delta is
    # pos*w*cos(pos*w): proportional to the position.
    rec.identity(
        "sin a - sin c = 2 cos((a+c)/2) sin((a-c)/2)",
        sp.sin(a) - sp.sin(c) - 2 * sp.cos((a + c) / 2) * sp.sin((a - c) / 2),
        scope="all real a, c",
    )
    rec.identity(
        "d/d(delta) sin(pos w (1 + delta)) at delta = 0 is pos w cos(pos w)",
        sp.diff(sp.sin(pos * w * (1 + delta)), delta).subs(delta, 0) - pos * w * sp.cos(pos * w),
        scope="all pos > 0, w > 0",
    )
    rec.exact(
        "float32 numbers near 10^6 are 1/16 apart, so rounding an angle there costs up to 1/32",
        Fraction(float(precision.ulp(1e6, "float32"))),
        Fraction(1, 16),
        scope="2^19 <= 10^6 < 2^20: spacing 2^(19 - 23)",
    )

    # Step 5. Measured: the tutorial's float32 table against the true PE at 30
    # digits, every one of the 512 columns, at sampled positions.
    speeds = exact_speeds(WIDTH)
    small, _, _ = largest_error(tutorial_rows([100, 300, 1000]), [100, 300, 1000], speeds)
    rec.numeric(
        "float32 tutorial formula: error about 1e-4 at position 1000",
        small,
        tol=2e-4,
        scope="width 512, all columns, positions 100, 300, 1000; mpmath 30 digits",
    )
    middle, _, _ = largest_error(tutorial_rows(MIDDLE), MIDDLE, speeds)
    rec.numeric(
        "float32 tutorial formula: error about 1e-2 at positions 10^4..10^5",
        middle,
        tol=2e-2,
        scope="width 512, all columns, 12 positions log-spaced in [10^4, 10^5]; mpmath",
    )
    large, _, _ = largest_error(tutorial_rows(NEAR_A_MILLION), NEAR_A_MILLION, speeds)
    rec.numeric(
        "float32 tutorial formula: error about 0.09 near position 10^6",
        large,
        tol=0.2,
        scope="width 512, all columns, positions 10^6 + 37 j, j = 0..7; mpmath",
    )
    naive = np.array(
        [[fn(n * float(s)) for s in speeds for fn in (math.sin, math.cos)] for n in NEAR_A_MILLION]
    )  # (8, 512): the same formula in float64
    float64_error, _, _ = largest_error(naive, NEAR_A_MILLION, speeds)
    rec.numeric(
        "the same formula in float64: error about 1e-10 near 10^6",
        float64_error,
        tol=1e-9,
        scope="width 512, all columns, positions 10^6 + 37 j; float64 angles pos * w",
    )

    # Step 6. Frequencies in float64: exp(-ln(10000) 2i/d) against the power
    # 10000^(-2i/d), in ulps of the true value (mpmath, 30 digits).
    worst_exp, worst_pow, worst_512 = 0.0, 0.0, (0, 0.0, 0.0)
    for width in (64, 128, 256, 512, 1024, 2048, 4096):
        two_i = np.arange(0, width, 2)  # (d/2,)
        via_exp = np.exp(two_i * (-math.log(10000.0) / width))  # (d/2,) float64
        via_pow = np.power(10000.0, -two_i / width)  # (d/2,) float64
        for index, true in enumerate(exact_speeds(width)):
            unit = math.ulp(float(true))
            error_exp = float(abs(via_exp[index] - true)) / unit
            worst_exp = max(worst_exp, error_exp)
            worst_pow = max(worst_pow, float(abs(via_pow[index] - true)) / unit)
            if width == 512 and error_exp > worst_512[1]:
                worst_512 = (index, error_exp, float(via_exp[index]))
    rec.numeric(
        "float64 frequencies via exp and log: up to 14 ulp off",
        worst_exp,
        tol=20,
        scope="d = 64, 128, .., 4096 (powers of two), every pair; in ulps, mpmath 30 digits",
    )
    rec.numeric(
        "float64 frequencies via a power: within one ulp",
        worst_pow,
        tol=1.0,
        scope="d = 64, 128, .., 4096 (2i/d exact), every pair; in ulps, mpmath 30 digits",
    )
    index, _, value = worst_512
    rec.exact(
        "at d = 512 the worst exp/log frequency is at least 12 whole ulps off",
        12,
        _whole_ulps(512, index, value),
        relation="<=",
        scope=f"d = 512, i = {index}; rational powers compared exactly",
    )
    two_i = np.arange(0, 768, 2)
    via_pow = np.power(10000.0, -two_i / 768)
    worst_768 = max(
        float(abs(via_pow[n] - true)) / math.ulp(float(true))
        for n, true in enumerate(exact_speeds(768))
    )
    rec.numeric(
        "when 2i/d itself is rounded (d = 768), the power is still within 4 ulp",
        worst_768,
        tol=4.0,
        scope="d = 768, every pair; in ulps, mpmath 30 digits",
    )

    # Step 7. posenc.sinusoidal in float32 (built from exactly reduced angles,
    # Proposition 8 used as an algorithm) stays within one float32 ulp, even
    # where the tutorial's formula has lost two decimal digits.
    worst_ulps = 0.0
    for start in rng.integers(0, 2**24 - 8, size=24):
        rows = sinusoidal(2, 64, start=int(start), dtype=np.float32)  # (2, 64)
        for r, row in enumerate(rows.tolist()):
            for i, speed in enumerate(exact_speeds(64)):
                angle = (int(start) + r) * speed
                for col, true in ((2 * i, mpmath.sin(angle)), (2 * i + 1, mpmath.cos(angle))):
                    unit = float(precision.ulp(float(true), "float32"))
                    worst_ulps = max(worst_ulps, float(abs(row[col] - true)) / unit)
    rec.numeric(
        "posenc.sinusoidal float32 is within one float32 ulp",
        worst_ulps,
        tol=1.0,
        scope="width 64, 48 random positions below 2^24, every column; in ulps, mpmath",
    )


def _whole_ulps(width: int, index: int, value: float) -> int:
    """The number N of whole ulps between ``value`` and 10000^(-2i/d), exactly.

    10000^(-2i/d) = 10^(-s/t) in lowest terms, and for x > 0, x > 10^(-s/t) iff
    x^t > 10^(-s): comparing rational powers decides which side x is on.
    """
    ratio = Fraction(8 * index, width)  # 10000^(-2i/d) = 10^(-8i/d)
    s, t = ratio.numerator, ratio.denominator
    true_power = Fraction(1, 10**s)
    x, unit = Fraction(value), Fraction(math.ulp(value))
    above = x**t > true_power
    steps = 0
    while True:  # step towards the true value while it is not yet crossed
        nearer = x - (steps + 1) * unit if above else x + (steps + 1) * unit
        if (nearer**t > true_power) != above or nearer**t == true_power:
            return steps
        steps += 1


# -- misreadings -------------------------------------------------------------------


def _float16_positions(wit: Witness) -> None:
    # A 4096-token context in float16: position 2049 becomes 2048, so two
    # tokens get the same code (Keras-Hub computes positions in its compute dtype).
    wit.differs(int(np.float16(2049)), 2049, at="float16(2049), position 2049 of a 4096 context")


def _float32_is_accurate(wit: Witness) -> None:
    # The tutorial's float32 entry against the true value, where Step 5 found
    # its largest error.
    with mpmath.workdps(DIGITS):
        _, where, col = largest_error(
            tutorial_rows(NEAR_A_MILLION), NEAR_A_MILLION, exact_speeds(WIDTH)
        )
    value = conventions.table("pytorch-tutorial", 1, WIDTH, start=where)[0, col]
    angle = where * sp.Integer(10000) ** sp.Rational(-2 * (col // 2), WIDTH)
    true = sp.sin(angle) if col % 2 == 0 else sp.cos(angle)
    wit.differs(
        sp.Rational(float(value)),
        true,
        at=f"pos = {where}, column {col}, width 512 (one float32 ulp there is at most 6e-8)",
    )


def _bfloat16_has_the_range(wit: Witness) -> None:
    # bfloat16 keeps float32's exponent, hence its range, but not its precision.
    wit.differs(sp.Rational(float(precision.to_bfloat16(257))), 257, at="bfloat16(257)")


MISREADINGS = [
    Misreading(
        "Float16 positions are fine for any realistic context length",
        _float16_positions,
        why="Float16 holds integers exactly only up to 2048; past it, neighbouring positions "
        "share a value, and so share a code.",
    ),
    Misreading(
        "Computing the table in float32 is accurate to float32 precision",
        _float32_is_accurate,
        why="Each rounding in the frequency and the product is multiplied by the position: "
        "near 10^6 the error is about 0.09, over a million float32 ulps.",
    ),
    Misreading(
        "Bfloat16 has float32's range, so positions are as safe in bfloat16 as in float32",
        _bfloat16_has_the_range,
        why="Range comes from the exponent, exact integers from the significand: bfloat16 "
        "has 8 significant bits and loses 257.",
    ),
]
