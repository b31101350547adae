"""Proposition 14 (where the formula meets floating point).

A binary floating-point format whose significand has p bits holds every integer
from 0 to 2^p, and not 2^p + 1. So positions are exact only up to 2^8 in
bfloat16 (p = 8), 2^11 in float16 (p = 11) and 2^24 in float32 (p = 24).
Computing the angles in float32, as the PyTorch tutorial does (exp(-ln(10000)
2i/d), its product with pos, and sin, all in float32), leaves an absolute error
that grows with the position, about tenfold per decade: the proof measures it
at width 512 at stated positions, against mpmath, on posenc's emulation of the
tutorial's float32 operations (conventions.table(..., path="emulated"): the
same steps and float32 arguments in NumPy, not the tutorial's own bits, from
which it differs by at most (4 t + 2) float32 eps, t = pos * speed). In float64, frequencies
computed as exp(-ln(10000) 2i/d) are several ulp off, while the power
10000^(-2i/d) is within one ulp when 2i/d is exact (d a power of two).
posenc.sinusoidal in float32 is within one float32 ulp.

Uses: 5.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc import conventions, precision, sinusoidal
from proofs.kit import Misreading, Recorder, Show, Witness

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

# What the proposition chooses rather than computes: a page may type these.
INPUTS = {
    "d": 512,
    "base": 10000,
    "position_1e3": 1000,
    "position_1e4": 10**4,
    "position_1e5": 10**5,
    "position_1e6": 10**6,
    "context": 4096,  # the float16 context of Check yourself
    "last_position": 4095,
    "width_768": 768,  # a width whose 2i/d is not exact in binary
    "sampled_100": 100,  # the small positions of Step 5
    "sampled_300": 300,
}

# The formats, as (name, p, the limit FACTS states).
FORMATS = (("bfloat16", 8, 256), ("float16", 11, 2048), ("float32", 24, 2**24))
WIDTH = INPUTS["d"]  # the measurements are at the paper's base width
BASE = INPUTS["base"]
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
    return [mpmath.power(BASE, mpmath.mpf(-2 * i) / width) for i in range(width // 2)]


def errors(rows: np.ndarray, positions, speeds) -> tuple[list[float], int, int]:
    """Every |table - PE| over the given rows (true PE at 30 digits), and where the largest is."""
    found, worst, where = [], -1.0, (0, 0)
    for row, position in zip(rows.astype(np.float64).tolist(), positions, strict=True):
        for i, speed in enumerate(speeds):
            angle = int(position) * speed
            for col, true in ((2 * i, mpmath.sin(angle)), (2 * i + 1, mpmath.cos(angle))):
                error = float(abs(row[col] - true))
                found.append(error)
                if error > worst:
                    worst, where = error, (int(position), col)
    return found, *where


def tutorial_row(position: int) -> np.ndarray:
    """posenc's emulation of the PyTorch tutorial's float32 operations, one row (1, 512).

    The tutorial's steps in their order with its float32 arguments, in NumPy. torch's
    float32 exp, sin and cos may round differently, so these are not the tutorial's
    own bits; they are within (4 t + 2) float32 eps of them, t = pos * speed (the
    model of conformance/README.md).
    """
    return conventions.table("pytorch-tutorial", 1, WIDTH, start=position, path="emulated")


def tutorial_rows(positions) -> np.ndarray:
    """The emulated float32 tutorial table at the given positions (see tutorial_row)."""
    return np.concatenate([tutorial_row(int(n)) for n in positions])  # (n, 512) float32


SMALL = [INPUTS["sampled_100"], INPUTS["sampled_300"], INPUTS["position_1e3"]]
MIDDLE = np.unique(  # 12 positions log-spaced from 10^4 to 10^5
    np.round(
        np.logspace(math.log10(INPUTS["position_1e4"]), math.log10(INPUTS["position_1e5"]), 12)
    ).astype(np.int64)
)
NEAR_A_MILLION = INPUTS["position_1e6"] + 37 * np.arange(8)  # 10^6 .. 10^6 + 259


def checks(rec: Recorder) -> None:
    mpmath.mp.dps = DIGITS

    # Step 1. Why 2^p + 1 is the first integer lost. A finite number of the
    # format is m 2^(e - p + 1) with an integer significand |m| < 2^p. In
    # [2^p, 2^(p+1)) the exponent is e = p, so the number is 2m: it is even.
    # 2^p + 1 lies in that range and is odd. (Every integer below 2^p fits in
    # p bits, and 2^p is a power of two.) Both facts are built unevaluated, so
    # SymPy has to evaluate the substitution and the remainder to reach 0.
    e = sp.Symbol("e", integer=True)
    number, odd = m * 2 ** (e - p + 1), 2**p + 1
    rec.identity(
        "with exponent e = p, the number m 2^(e - p + 1) is 2m",
        sp.Subs(number, e, p) - 2 * m,
        scope="every integer p >= 1 and integer significand m",
    )
    rec.identity(
        "with exponent e = p, a number m 2^(e - p + 1) is even: its remainder mod 2 is 0",
        sp.Subs(sp.Mod(number, 2), e, p),
        scope="every integer p >= 1 and integer significand m",
    )
    rec.exact(
        "the odd number below is 2^p + 1: at p = 8 it is 257",
        odd.subs(p, 8),
        257,
        scope="p = 8 (bfloat16)",
    )
    rec.identity(
        "2^p + 1 is odd: its remainder mod 2 is 1",
        sp.Add(sp.Mod(odd, 2, evaluate=False), -1, evaluate=False),
        scope="every integer p >= 1",
    )

    # Step 2. Every integer up to the limit, converted and converted back: the
    # first one that does not survive is 2^p + 1 (float16 and float32 by NumPy,
    # bfloat16 by posenc.precision's bit-level rounding), as FACTS states.
    formats_checked = 0
    for name, bits, limit in FORMATS:
        formats_checked += 1
        first = first_inexact_integer(name, 2**bits + 2)
        rec.exact(
            f"{name}: the first integer that does not survive the round trip is 2^{bits} + 1",
            first,
            limit + 1,
            scope=f"all integers 0..2^{bits} + 1, converted and converted back",
            quantity=f"{name}_first_lost",
            show=Show(),
        )
        rec.exact(
            f"posenc.precision.exact_integer_limit({name!r}) is the last integer before it",
            precision.exact_integer_limit(name),
            first - 1,
            scope=f"p = {bits}",
            quantity=f"{name}_limit",
            show=Show(),
        )
    rec.exact(
        "the round trip above ran for all three formats",
        formats_checked,
        3,
        scope="bfloat16, float16, float32",
    )
    largest_half = np.finfo(np.float16).max
    rec.exact(
        "the largest float16 is (2 - 2^-10) 2^15",
        Fraction(float(largest_half)),
        (2 - Fraction(1, 2**10)) * 2**15,
        scope="numpy.finfo(float16).max",
        quantity="float16_max",
        show=Show(),
    )
    largest_bf16 = (2 - Fraction(1, 2**7)) * Fraction(2) ** 127
    ten_38 = 10**38
    rec.exact(
        "the largest bfloat16, (2 - 2^-7) 2^127, exceeds 10^38: float32's range",
        largest_bf16,
        ten_38,
        relation=">",
        scope="8-bit exponent of float32, 8 significant bits",
        quantity="bfloat16_max",
        show=Show(sig=2),
    )
    rec.band(
        "it is 3.4 10^38 to two digits",
        largest_bf16 / ten_38,
        low=Fraction(335, 100),
        high=Fraction(345, 100),
        scope="(2 - 2^-7) 2^127 / 10^38, exact",
    )
    rec.exact(
        "posenc.precision.to_bfloat16 keeps (2 - 2^-7) 2^127 finite and exact",
        Fraction(float(precision.to_bfloat16(float(largest_bf16)))),
        largest_bf16,
        scope="the largest finite bfloat16",
    )

    # Step 3. The bfloat16 rounding of posenc.precision agrees with the
    # definition (written above with fractions) on random float32 bit patterns
    # and on the halfway cases around the integers of Step 2.
    rng = np.random.default_rng(14)
    samples = rng.integers(0, 2**32, size=3000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    rec.exact(
        "the random bit patterns cover the exponent range: more than 200 binary exponents",
        len(set(np.frexp(samples[np.isfinite(samples)])[1].tolist())),
        200,
        relation=">",
        scope="3000 random float32 bit patterns, finite ones; float32 has 277 exponents",
    )
    samples = np.concatenate(
        [
            samples[np.isfinite(samples)],
            np.arange(250, 270, 0.5, dtype=np.float32),
            np.array([np.finfo(np.float32).max], dtype=np.float32),  # rounds up to infinity
        ]
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
        scope=f"{samples.size} float32 values: random bit patterns, 250..269.5 by halves "
        "and the largest float32",
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
        sp.Subs(sp.Derivative(sp.sin(pos * w * (1 + delta)), delta), delta, 0)
        - pos * w * sp.cos(pos * w),
        scope="all pos > 0, w > 0",
    )
    spacing = Fraction(float(precision.ulp(1e6, "float32")))
    rec.exact(
        "float32 numbers near 10^6 are 2^(19 - 23) = 1/16 apart",
        spacing,
        Fraction(1, 16),
        scope="2^19 <= 10^6 < 2^20: spacing 2^(19 - 23)",
        quantity="float32_spacing_1e6",
        show=Show(style="fraction"),
    )
    rec.exact(
        "so rounding an angle near 10^6 can cost half of that",
        spacing / 2,
        Fraction(1, 32),
        scope="round to nearest: at most half a spacing",
        quantity="float32_half_spacing_1e6",
        show=Show(style="fraction"),
    )
    unit = Fraction(float(precision.ulp(1.0, "float32"))) / 2
    rec.exact(
        "float32 resolves numbers near 1 to 2^-24 (half an ulp of 1)",
        unit,
        Fraction(1, 2**24),
        scope="float32 at 1: ulp 2^-23, rounding error at most half of it",
        quantity="float32_unit_roundoff",
        show=Show(sig=1),
    )

    # Step 5. Measured: the tutorial's float32 operations (posenc's emulation of
    # them in NumPy) against the true PE at 30 digits, every one of the 512
    # columns, at sampled positions. The page
    # states these values; each is checked from both sides by a band, and the
    # growth from one decade to the next is checked as its own quantity.
    rec.exact(
        "the middle positions start at 10^4",
        int(MIDDLE[0]),
        10**4,
        scope=f"{len(MIDDLE)} positions log-spaced up to {MIDDLE[-1]}",
    )
    rec.exact(
        "the positions near 10^6 end at 10^6 + 7 * 37 = 10^6 + 259",
        int(NEAR_A_MILLION[-1]),
        10**6 + 259,
        scope=f"{NEAR_A_MILLION.size} positions {NEAR_A_MILLION[0]} + 37 j",
    )
    speeds = exact_speeds(WIDTH)
    small, _, _ = errors(tutorial_rows(SMALL), SMALL, speeds)
    rec.band(
        "float32 tutorial formula (emulated): largest error at positions up to 1000 "
        "is of order 10^-4",
        max(small),
        low=2e-5,
        high=5e-4,
        samples=len(small),
        scope=f"width {WIDTH}, all columns, positions {', '.join(map(str, SMALL))}; "
        "mpmath 30 digits",
        quantity="tutorial_error_1e3",
        show=Show(sig=2),
    )
    middle, _, _ = errors(tutorial_rows(MIDDLE), MIDDLE, speeds)
    rec.band(
        "float32 tutorial formula (emulated): largest error at positions 10^4..10^5 "
        "is of order 10^-2",
        max(middle),
        low=2e-3,
        high=5e-2,
        samples=len(middle),
        scope=f"width {WIDTH}, all columns, {len(MIDDLE)} positions log-spaced in "
        f"[{MIDDLE[0]}, {MIDDLE[-1]}]; mpmath",
        quantity="tutorial_error_1e5",
        show=Show(sig=2),
    )
    large, where, col = errors(tutorial_rows(NEAR_A_MILLION), NEAR_A_MILLION, speeds)
    rec.band(
        "float32 tutorial formula (emulated): largest error near position 10^6 is of order 10^-1",
        max(large),
        low=2e-2,
        high=0.5,
        samples=len(large),
        scope=f"width {WIDTH}, all columns, positions {NEAR_A_MILLION[0]} + 37 j, j = 0..7; "
        "mpmath",
        quantity="tutorial_error_1e6",
        show=Show(sig=2),
    )
    growth = (max(large) / max(small)) ** (1 / 3)  # three decades, 10^3 to 10^6
    rec.band(
        "the error grows about tenfold per decade of position (from 10^3 to 10^6)",
        growth,
        low=5.0,
        high=20.0,
        samples=len(small) + len(large),
        scope="cube root of the ratio of the largest errors near 10^6 and up to 10^3",
        quantity="tutorial_growth_per_decade",
        show=Show(sig=2),
    )
    # Entries lie in [-1, 1], where float32 rounds to within 2^-24: how many
    # times that resolution is the error near 10^6?
    rec.band(
        "near 10^6 that error is more than 10^5 times float32's resolution near 1 (2^-24)",
        max(large) / float(unit),
        low=1e5,
        high=1e8,
        samples=len(large),
        scope=f"the worst entry of Step 5 near 10^6 (position {where}, column {col})",
        quantity="tutorial_error_1e6_resolutions",
        show=Show(sig=2),
    )
    naive = np.array(
        [[fn(n * float(s)) for s in speeds for fn in (math.sin, math.cos)] for n in NEAR_A_MILLION]
    )  # (8, 512): the same formula in float64
    float64_errors, _, _ = errors(naive, NEAR_A_MILLION, speeds)
    rec.band(
        "the same formula in float64: largest error near 10^6 is of order 10^-10",
        max(float64_errors),
        low=1e-11,
        high=1e-9,
        samples=len(float64_errors),
        scope=f"width {WIDTH}, all columns, positions {NEAR_A_MILLION[0]} + 37 j; float64 "
        "angles pos * w",
        quantity="float64_error_1e6",
        show=Show(sig=1),
    )

    # Step 6. Frequencies in float64: exp(-ln(10000) 2i/d) against the power
    # 10000^(-2i/d), in ulps of the true value (mpmath, 30 digits).
    exp_ulps, pow_ulps, worst_512 = [], [], (0, -1.0, 0.0)
    for width in (64, 128, 256, 512, 1024, 2048, 4096):
        two_i = np.arange(0, width, 2)  # (d/2,)
        via_exp = np.exp(two_i * (-math.log(float(BASE)) / width))  # (d/2,) float64
        via_pow = np.power(float(BASE), -two_i / width)  # (d/2,) float64
        for index, true_speed in enumerate(exact_speeds(width)):
            spacing64 = math.ulp(float(true_speed))
            exp_ulps.append(float(abs(via_exp[index] - true_speed)) / spacing64)
            pow_ulps.append(float(abs(via_pow[index] - true_speed)) / spacing64)
            if width == WIDTH and exp_ulps[-1] > worst_512[1]:
                worst_512 = (index, exp_ulps[-1], float(via_exp[index]))
    rec.band(
        "float64 frequencies via exp and log: the worst is several ulp off (between 5 and 50)",
        max(exp_ulps),
        low=5.0,
        high=50.0,
        samples=len(exp_ulps),
        scope="d = 64, 128, .., 4096 (powers of two), every pair; in ulps, mpmath 30 digits",
        quantity="exp_log_worst_ulps",
        show=Show(decimals=1),
    )
    rec.numeric(
        "float64 frequencies via a power: within one ulp",
        pow_ulps,
        tol=1.0,
        scope="d = 64, 128, .., 4096 (2i/d exact), every pair; in ulps, mpmath 30 digits",
        quantity="power_worst_ulps",
        show=Show(sig=2, rounding="up"),
    )
    rec.band(
        "the largest power error is a visible fraction of an ulp (rounding leaves up to 1/2)",
        max(pow_ulps),
        low=0.25,
        high=1.0,
        samples=len(pow_ulps),
        scope="d = 64, 128, .., 4096, every pair; in ulps, mpmath 30 digits",
    )
    index, worst_ulps, value = worst_512
    whole = _whole_ulps(WIDTH, index, value)
    rec.exact(
        f"at d = {WIDTH} the worst exp/log frequency is at least 5 whole ulps off",
        whole,
        5,
        relation=">=",
        scope=f"d = {WIDTH}, i = {index}; rational powers compared exactly",
        quantity="exp_log_whole_ulps_512",
        show=Show(),
    )
    rec.exact(
        "the exact count is the whole part of the mpmath measurement of that frequency",
        whole,
        math.floor(worst_ulps),
        scope=f"d = {WIDTH}, i = {index}; the same ulp on both sides",
    )
    odd_width = INPUTS["width_768"]
    two_i = np.arange(0, odd_width, 2)
    via_pow = np.power(float(BASE), -two_i / odd_width)
    ulps_768 = [
        float(abs(via_pow[n] - true_speed)) / math.ulp(float(true_speed))
        for n, true_speed in enumerate(exact_speeds(odd_width))
    ]
    rec.band(
        f"when 2i/d itself is rounded (d = {odd_width}), the power is off by more than one ulp, "
        "but by fewer than 10",
        max(ulps_768),
        low=1.0,
        high=10.0,
        samples=len(ulps_768),
        scope=f"d = {odd_width}, every pair; in ulps, mpmath 30 digits",
        quantity="power_worst_ulps_768",
        show=Show(sig=2, rounding="up"),
    )

    # Step 7. posenc.sinusoidal in float32 (built from exactly reduced angles,
    # Proposition 8 used as an algorithm) stays within one float32 ulp, even
    # where the tutorial's formula has lost two decimal digits.
    table_ulps = []
    starts = rng.integers(0, 2**24 - 8, size=24)
    rec.exact(
        "the sampled positions reach past 10^6, where the tutorial's error is of order 10^-1",
        int(starts.max()),
        10**6,
        relation=">",
        scope="24 random starts below 2^24 - 8 (seed 14)",
    )
    for start in starts:
        rows = sinusoidal(2, 64, start=int(start), dtype=np.float32)  # (2, 64)
        for r, row in enumerate(rows.tolist()):
            for i, speed in enumerate(exact_speeds(64)):
                angle = (int(start) + r) * speed
                for col_, true_ in ((2 * i, mpmath.sin(angle)), (2 * i + 1, mpmath.cos(angle))):
                    spacing32 = float(precision.ulp(float(true_), "float32"))
                    table_ulps.append(float(abs(row[col_] - true_)) / spacing32)
    rec.numeric(
        "posenc.sinusoidal float32 is within one float32 ulp",
        table_ulps,
        tol=1.0,
        scope="width 64, 48 random positions below 2^24, every column; in ulps, mpmath",
        quantity="posenc_float32_worst_ulps",
        show=Show(sig=2, rounding="up"),
    )
    rec.band(
        "its largest error is a visible fraction of an ulp (one rounding leaves up to 1/2)",
        max(table_ulps),
        low=0.25,
        high=1.0,
        samples=len(table_ulps),
        scope="width 64, 48 random positions below 2^24, every column; in ulps, mpmath",
    )

    # Step 8. Check yourself: positions 0..4095 stored in float16. Counted
    # directly, and by the argument: 0..2048 exact (2049 values), the even
    # positions 2050..4094 exact (1023 more), and 4095 rounding up to 4096.
    context, last = INPUTS["context"], INPUTS["last_position"]
    rec.exact(
        f"the last position of a {context}-token context, counted from 0, is {last}",
        last,
        context - 1,
        scope="positions 0 .. context - 1",
    )
    stored = np.arange(context).astype(np.float16)
    distinct = len(set(stored.tolist()))
    exact_low = 2**11 + 1
    evens = (last - 1 - 2050) // 2 + 1  # 2050, 2052, .., last - 1 (last is odd)
    rec.exact(
        "exact from 0 to 2048: 2^11 + 1 values",
        exact_low,
        first_inexact_integer("float16", 2**11 + 2),
        scope="float16, positions 0..2048",
        quantity="float16_exact_low",
        show=Show(),
    )
    rec.exact(
        f"the even positions 2050..{last - 1} are exact: ({last - 1} - 2050)/2 + 1 values",
        sum(int(x) == n for n, x in enumerate(stored.astype(np.int64).tolist()) if n > 2048),
        evens,
        scope=f"float16, positions 2049..{last}",
        quantity="float16_even_values",
        show=Show(),
    )
    rec.exact(
        f"the last position, {last}, rounds up to {context} in float16",
        int(stored[last]),
        context,
        scope=f"float16({last}), converted by NumPy",
    )
    rec.exact(
        f"positions 0..{last} in float16 take 2049 + 1023 + 1 distinct values",
        distinct,
        exact_low + evens + 1,
        scope=f"every position 0..{last}, converted by NumPy",
        quantity="float16_distinct_4096",
        show=Show(),
    )
    rec.exact(
        "so that many positions have lost a code of their own",
        context - distinct,
        evens,
        scope=f"{context} positions minus the distinct values",
        quantity="float16_lost_4096",
        show=Show(),
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
    # tokens get the same code (Keras-Hub computes positions in its compute
    # dtype). The claim is that the position survives exactly: any exact
    # difference contradicts it.
    wit.differs(
        int(np.float16(2049)),
        2049,
        at="float16(2049), position 2049 of a 4096 context",
        margin=0,
    )


def _float32_is_accurate(wit: Witness) -> None:
    # The tutorial's float32 entry against the true value, where Step 5 found
    # its largest error. A float32-accurate entry is within half an ulp of the
    # true value; the witness must be off by more than 100 ulps.
    with mpmath.workdps(DIGITS):
        _, where, col = errors(tutorial_rows(NEAR_A_MILLION), NEAR_A_MILLION, exact_speeds(WIDTH))
    value = tutorial_row(where)[0, col]
    angle = where * sp.Integer(BASE) ** sp.Rational(-2 * (col // 2), WIDTH)
    true = sp.sin(angle) if col % 2 == 0 else sp.cos(angle)
    # The true value is confirmed by posenc.sinusoidal in float64 (exactly reduced
    # angles): a wrong reference would make any entry look far off.
    reference = sinusoidal(1, WIDTH, start=where, dtype=np.float64)[0, col]
    if abs(float(true) - reference) > 1e-12:
        raise ValueError(f"true value {float(true)} is not posenc.sinusoidal's {reference}")
    # Every entry lies in [-1, 1], where a float32 ulp is at most that of 1.
    spacing = sp.Rational(float(precision.ulp(1.0, "float32")))
    wit.differs(
        sp.Rational(float(value)),
        true,
        at=f"pos = {where}, column {col}, width {WIDTH}",
        margin=100 * spacing,
        by="100 float32 ulps of 1: no float32-accurate entry in [-1, 1] is that far off",
    )


def _bfloat16_has_the_range(wit: Witness) -> None:
    # bfloat16 keeps float32's exponent, hence its range, but not its
    # precision. The claim is that positions survive as in float32 (257 does
    # there): any exact difference contradicts it.
    wit.differs(sp.Rational(float(precision.to_bfloat16(257))), 257, at="bfloat16(257)", margin=0)


MISREADINGS = [
    Misreading(
        "Float16 positions are fine for any realistic context length",
        _float16_positions,
        why="Float16 holds integers exactly only up to {{ float16_limit }}; past it, "
        "neighbouring positions share a value, and so share a code.",
    ),
    Misreading(
        "Computing the table in float32 is accurate to float32 precision",
        _float32_is_accurate,
        why="Each rounding in the frequency and the product is multiplied by the position: "
        "near $10^6$ the largest error is {{ tutorial_error_1e6 }}, "
        "{{ tutorial_error_1e6_resolutions }} times float32's resolution near 1.",
    ),
    Misreading(
        "Bfloat16 has float32's range, so positions are as safe in bfloat16 as in float32",
        _bfloat16_has_the_range,
        why="Range comes from the exponent, exact integers from the significand: bfloat16 "
        "has 8 significant bits and loses {{ bfloat16_first_lost }}.",
    ),
]
