"""Proposition 25 (NTK-aware scaling keeps the fastest pair and slows the slowest by exactly s).

A rotary model of even width d >= 4 with speeds w_i = b^(-2i/d) is stretched by the
factor s > 0. NTK-aware scaling (bloc97, 2023) keeps the positions and raises the
base to b' = b s^(d/(d-2)). Then w'_i = b'^(-2i/d) = w_i s^(-2i/(d-2)): pair i is
slowed by the factor s^(2i/(d-2)), which is 1 for pair 0 (its speed stays 1) and
exactly s for the slowest pair d/2 - 1, and increases with i in between when s > 1.
The wavelengths 2 pi / w'_i are those of Proposition 5 times the same factor: the
shortest stays 2 pi, the longest is multiplied by s. Position interpolation
(Proposition 24) divides every speed by s; NTK-aware scaling does so only for the
slowest pair.

posenc.rope.ntk_base rounds b s^(d/(d-2)) once to float64, and
posenc.rope.default_inv_freq rounds each speed of that float64 base once; the speeds
are then within 1.5 ulps of the true w'_i (the base's half ulp, worth 2i/d of an ulp
in w'_i, plus the speed's own half ulp).

Uses: 5, 24.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import sympy as sp

from posenc import rope
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 25
TITLE = "NTK-aware scaling keeps the fastest pair and slows the slowest by exactly s"
USES = (5, 24)

# The numbers this proposition chooses: the paper's base, and the head width and
# scale of the figure and the worked numbers (Llama's head width 128, s = 4).
INPUTS = {"base": 10000, "head_dim": 128, "scale": 4}

# Symbols, declared once. An even width d >= 4 is written d = 2h + 2 with h >= 1
# (h + 1 pairs, the slowest is pair h), so d - 2 = 2h is positive. The base and the
# scale are positive; x is a real stand-in for the pair index, to differentiate.
b, s = sp.symbols("b s", positive=True)
h = sp.Symbol("h", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
x = sp.Symbol("x", real=True)
d = 2 * h + 2

ntk = b * s ** (d / (d - 2))  # b' = b s^(d/(d-2))


def speed(index: sp.Expr, of: sp.Expr = b) -> sp.Expr:
    """w_i = base^(-2i/d)."""
    return of ** (-2 * index / d)


def slowdown(index: sp.Expr, new_base: sp.Expr) -> sp.Expr:
    """w_i / w'_i: the factor by which the base new_base slows pair ``index``."""
    return speed(index) / speed(index, new_base)


#: The library configurations checked (head_dim, base, s).
CONFIGS = [
    (dim, base, factor)
    for dim in (64, 96, 128, 256)
    for base in (10000, 500000, 1000000)
    for factor in (2.0, 4.0, 8.0, 2.5, 16.0)
]


def nearest_root(value: float, power: Fraction, root: int) -> bool:
    """Is ``value`` the float64 nearest to the positive real T with T**root = power?

    T lies strictly between the midpoints to the neighbouring floats, lo < T < hi,
    exactly when lo**root < power < hi**root (x -> x**root increases for x > 0):
    decided in integers. A tie would need T to be such a midpoint; the check then
    fails rather than pass.
    """
    here = Fraction(value)
    low = (here + Fraction(math.nextafter(value, 0.0))) / 2
    high = (here + Fraction(math.nextafter(value, math.inf))) / 2
    return low**root < power < high**root


def base_is_nearest(dim: int, base: int, factor: float) -> bool:
    """Is rope.ntk_base the float64 nearest to b s^(d/(d-2))? With d/(d-2) = p/r,
    T^r = b^r s^p."""
    exponent = Fraction(dim, dim - 2)
    p, r = exponent.numerator, exponent.denominator
    got = rope.ntk_base(float(base), factor, dim)
    return nearest_root(got, Fraction(base) ** r * Fraction(factor) ** p, r)


def speeds_nearest(dim: int, base: int, factor: float) -> int:
    """Pairs whose speed is the float64 nearest to B^(-2i/d), B the rounded base."""
    rounded = Fraction(rope.ntk_base(float(base), factor, dim))
    got = rope.default_inv_freq(dim, float(rounded))  # (d/2,)
    right = 0
    for j, value in enumerate(got.tolist()):
        exponent = Fraction(2 * j, dim)  # T = B^(-p/r), so T^r = B^(-p)
        p, r = exponent.numerator, exponent.denominator
        right += nearest_root(value, 1 / rounded**p, r)
    return right


def true_speeds(dim: int, base: int, factor: float) -> list[mpmath.mpf]:
    """w'_i = b^(-2i/d) s^(-2i/(d-2)) in mpmath, from the unrounded base."""
    with mpmath.workdps(60):
        b_, s_ = mpmath.mpf(base), mpmath.mpf(factor)
        return [
            b_ ** (-mpmath.mpf(2 * j) / dim) * s_ ** (-mpmath.mpf(2 * j) / (dim - 2))
            for j in range(dim // 2)
        ]


def ulps_from_base(dim: int, base: int, factor: float) -> list[float]:
    """posenc's NTK speeds against b'^(-2i/d), b' = b s^(d/(d-2)) unrounded (Step 1's
    left side, not true_speeds' product), in ulps of the float64 nearest each truth."""
    values = rope.default_inv_freq(dim, rope.ntk_base(float(base), factor, dim)).tolist()
    with mpmath.workdps(60):
        new_base = mpmath.mpf(base) * mpmath.mpf(factor) ** (mpmath.mpf(dim) / (dim - 2))
        truths = [new_base ** (-mpmath.mpf(2 * j) / dim) for j in range(dim // 2)]
        return [
            float(abs(mpmath.mpf(values[j]) - t) / math.ulp(float(t)))
            for j, t in enumerate(truths)
        ]


def checks(rec: Recorder) -> None:
    # Step 1. The new speeds. (b s^(d/(d-2)))^(-2i/d) = b^(-2i/d) s^(-2i/(d-2)): the
    # exponents multiply, d/(d-2) * 2i/d = 2i/(d-2). Both sides are positive, so the
    # kit is handed the difference of their logarithms.
    rec.identity(
        "w'_i = (b s^(d/(d-2)))^(-2i/d) = b^(-2i/d) s^(-2i/(d-2))",
        sp.log(speed(i, ntk)) - sp.log(speed(i) * s ** (-2 * i / (d - 2))),
        scope="every even d >= 4 (d = 2h + 2), base b > 0, scale s > 0 and pair i",
    )

    # Step 2. The two ends. Pair 0 turns at b'^0 = 1 whatever the base; the slowest
    # pair, i = d/2 - 1 = h, at (b s^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / s.
    rec.identity(
        "pair 0 keeps its speed: w'_0 = 1",
        sp.Subs(speed(i, ntk), i, 0) - 1,
        scope="every even d >= 4, b > 0 and s > 0",
    )
    rec.identity(
        "the slowest pair, i = d/2 - 1, is slowed by exactly s: w'_(d/2-1) = w_(d/2-1) / s",
        sp.log(sp.Subs(speed(i, ntk), i, h)) - sp.log(speed(h) / s),
        scope="every even d >= 4, b > 0 and s > 0",
    )

    # Step 3. The factor of each pair, w_i / w'_i = s^(2i/(d-2)). Its derivative in the
    # index is s^(2x/(d-2)) 2 ln s / (d - 2), positive for s > 1: the factor rises
    # from 1 at pair 0 to s at pair d/2 - 1.
    rec.identity(
        "pair i is slowed by w_i / w'_i = s^(2i/(d-2))",
        sp.log(slowdown(i, ntk)) - sp.log(s ** (2 * i / (d - 2))),
        scope="every even d >= 4, b > 0, s > 0 and pair i",
    )
    rec.identity(
        "d/dx s^(2x/(d-2)) = s^(2x/(d-2)) * 2 ln s / (d - 2)",
        sp.Derivative(s ** (2 * x / (d - 2)), x)
        - s ** (2 * x / (d - 2)) * 2 * sp.log(s) / (d - 2),
        scope="every even d >= 4, s > 0 and real x",
    )
    dim, factor = INPUTS["head_dim"], INPUTS["scale"]
    exponents = [Fraction(2 * j, dim - 2) for j in range(dim // 2)]
    rec.exact(
        "d = 128: the exponents 2i/(d-2) run from 0 to 1, strictly increasing (count of the "
        "two ends and the 63 rising steps that hold, against 2 + 63)",
        int(exponents[0] == 0)
        + int(exponents[-1] == 1)
        + sum(int(a < c) for a, c in itertools.pairwise(exponents)),
        dim // 2 + 1,
        scope="d = 128, i = 0..63, exact rationals",
    )

    # Step 4. Wavelengths (Proposition 5): 2 pi / w'_i = 2 pi b^(2i/d) s^(2i/(d-2)), each
    # the old one times the pair's factor; the longest, 2 pi b^((d-2)/d), times s.
    rec.identity(
        "lambda'_i = 2 pi / w'_i = 2 pi b^(2i/d) s^(2i/(d-2))",
        sp.log(2 * sp.pi / speed(i, ntk))
        - sp.log(2 * sp.pi * b ** (2 * i / d) * s ** (2 * i / (d - 2))),
        scope="every even d >= 4, b > 0, s > 0 and pair i",
    )
    rec.identity(
        "the longest wavelength becomes s * 2 pi b^((d-2)/d)",
        sp.log(sp.Subs(2 * sp.pi / speed(i, ntk), i, h))
        - sp.log(s * 2 * sp.pi * b ** ((d - 2) / d)),
        scope="every even d >= 4, b > 0 and s > 0",
    )

    # Against Proposition 24: at the last token of a text s L0 long, pair i has turned by
    # (s L0 - 1) w'_i = s^(1 - 2i/(d-2)) (L0 - 1/s) w_i, which is s^(1 - 2i/(d-2)) times
    # the largest angle under position interpolation; the factor exceeds 1 for every
    # pair but the slowest when s > 1.
    length = sp.Symbol("L0", positive=True)
    rec.identity(
        "(s L0 - 1) w'_i = s^(1 - 2i/(d-2)) (L0 - 1/s) w_i",
        sp.log((s * length - 1) * speed(i, ntk))
        - sp.log(s ** (1 - 2 * i / (d - 2)) * (length - 1 / s) * speed(i)),
        scope="every even d >= 4, b > 0, s > 0, L0 > 1/s and pair i",
    )

    # Step 5. The library. posenc.rope.ntk_base is the float64 nearest to b s^(d/(d-2)),
    # and posenc.rope.default_inv_freq of that float64 is, pair by pair, the float64
    # nearest to its power: two roundings, each decided in integers.
    # nearest_root itself, on cases decided by hand: sqrt is correctly rounded (IEEE 754),
    # so math.sqrt(2) is the float64 nearest to sqrt(2) and its two neighbours are not;
    # 1 + 2^-53 and 1 - 2^-54 are the midpoints around 1.0, ties the check refuses.
    root2 = math.sqrt(2.0)
    near = [(root2, 2, 2), (1.0, 1, 1)]
    not_near = [
        (math.nextafter(root2, 0.0), 2, 2),
        (math.nextafter(root2, 3.0), 2, 2),
        (1.0, Fraction(9007199254740993, 9007199254740992), 1),
        (1.0, Fraction(18014398509481983, 18014398509481984), 1),
    ]
    rec.exact(
        "the test 'nearest float64 to the r-th root' on cases known by hand: sqrt(2) and its "
        "neighbours, 1.0 and the ties around it (count decided as known, against 6)",
        sum(int(nearest_root(*case)) for case in near)
        + sum(int(not nearest_root(*case)) for case in not_near),
        6,
        scope="math.sqrt(2) correctly rounded; the midpoints 1 + 2^-53, 1 - 2^-54 exactly",
    )
    # The page counts the configurations: the check counts those where the base is the
    # nearest float64, against the number tried.
    rec.exact(
        "posenc.rope.ntk_base(b, s, d) is the float64 nearest to b s^(d/(d-2)) "
        "(count of configurations where it is, against the number tried)",
        sum(int(base_is_nearest(*config)) for config in CONFIGS),
        len(CONFIGS),
        scope="d = 64, 96, 128, 256; b = 10000, 500000, 1000000; s = 2, 4, 8, 2.5, 16; "
        "exact integer comparison of powers",
        quantity="configurations",
    )
    rec.exact(
        "posenc.rope.default_inv_freq(d, ntk_base(...)) is, pair by pair, the float64 "
        "nearest to B^(-2i/d) for the rounded base B (count of pairs where it is, against "
        "d/2 pairs per configuration)",
        sum(speeds_nearest(*config) for config in CONFIGS),
        sum(config[0] // 2 for config in CONFIGS),
        scope=f"the same {len(CONFIGS)} configurations, every pair; "
        "exact integer comparison of powers",
    )
    got = rope.default_inv_freq(dim, rope.ntk_base(float(INPUTS["base"]), float(factor), dim))
    plain = rope.default_inv_freq(dim, float(INPUTS["base"]))  # (64,)
    rec.exact(
        "posenc: pair 0 of the NTK speeds is exactly 1",
        Fraction(float(got[0])),
        1,
        scope="d = 128, b = 10000, s = 4; the float64 as an exact rational",
    )
    # Against the true speeds w_i s^(-2i/(d-2)) of the unrounded base: the base's
    # relative error, at most 2^-53, is multiplied by 2i/d in w'_i (at most 2i/d ulp),
    # and the speed's own rounding adds half an ulp: under 1.5 ulps in all.
    ulps = []
    for config in CONFIGS:
        dim_, base_, factor_ = config
        values = rope.default_inv_freq(dim_, rope.ntk_base(float(base_), factor_, dim_))
        for value, true in zip(values.tolist(), true_speeds(*config), strict=True):
            nearest = float(true)
            with mpmath.workdps(60):
                ulps.append(float(abs(mpmath.mpf(value) - true) / math.ulp(nearest)))
    rec.numeric(
        "the NTK speeds from posenc are within 1.5 ulps of the true w_i s^(-2i/(d-2))",
        ulps,
        tol=1.5,
        scope=f"the {len(CONFIGS)} configurations, every pair ({len(ulps)} speeds); truth in "
        "mpmath at 60 digits; in ulps of the float64 nearest the truth",
    )
    rec.close(
        "the largest of those distances, again against b'^(-2i/d) of the unrounded base",
        max(ulps),
        max(max(ulps_from_base(*config)) for config in CONFIGS),
        tol=1e-9,
        scope=f"the {len(CONFIGS)} configurations, every pair; mpmath at 60 digits",
        quantity="max_ulps",
        show=Show(sig=3),
    )
    # So a speed can be the neighbour of the float64 nearest its true value. For the
    # page's d = 128, b = 10000, s = 4 this is decided exactly: with h = d/2 - 1,
    # T = b^(-i/(h+1)) s^(-i/h) has T^(h(h+1)) = 1 / (b^(i h) s^(i (h+1))).
    off, far = [], 0
    pairs = dim // 2 - 1
    for j, value in enumerate(got.tolist()):
        power = 1 / (
            Fraction(INPUTS["base"]) ** (j * pairs) * Fraction(factor) ** (j * (pairs + 1))
        )
        if nearest_root(value, power, pairs * (pairs + 1)):
            continue
        off.append(j)
        steps = (math.nextafter(value, 0.0), math.nextafter(value, math.inf))
        far += not any(nearest_root(v, power, pairs * (pairs + 1)) for v in steps)
    rec.exact(
        "d = 128, b = 10000, s = 4: a speed that is not the float64 nearest to the true w'_i "
        "is its neighbour (count of pairs further away)",
        far,
        0,
        scope="d = 128, b = 10000, s = 4, every pair; exact integer comparison of powers",
    )
    # The page counts those pairs. Counted again the other way: the true w'_i at 60
    # digits, rounded to float64 by mpmath, against posenc's speed. The two counts
    # agree unless a true speed lay within 10^-60 of a midpoint between floats.
    truth = true_speeds(dim, INPUTS["base"], factor)
    rounded_off = [j for j, value in enumerate(got.tolist()) if value != float(truth[j])]
    rec.exact(
        "d = 128, b = 10000, s = 4: the pairs off the nearest float64, decided in integers, "
        "are as many as those that differ from the 60-digit truth rounded by mpmath",
        len(off),
        len(rounded_off),
        scope="d = 128, b = 10000, s = 4, every pair; mpmath at 60 digits",
        quantity="off_pairs",
    )
    rec.exact(
        "d = 128, b = 10000, s = 4: and they are the same pairs (count of pairs found by "
        "one way only)",
        len(set(off) ^ set(rounded_off)),
        0,
        scope="d = 128, b = 10000, s = 4, every pair",
    )
    last = dim // 2 - 1
    rec.exact(
        f"d = {dim}, b = {INPUTS['base']}, s = {factor}: the slowest pair's float64 speed is "
        f"one of them, one step below the default speed / {factor}",
        int(last in off) + int(float(got[last]) == math.nextafter(plain[last] / factor, 0.0)),
        2,
        scope=f"d = {dim}, b = {INPUTS['base']}, s = {factor}, pair {last}; float64 comparison",
    )

    # Step 6. The numbers of the page and the figure: d = 128, b = 10000, s = 4. The base
    # factor s^(d/(d-2)) = 4^(64/63), the middle pair's factor 4^(32/63), and the
    # library's ratios w_i / w'_i against s^(2i/(d-2)).
    middle_pair = dim // 4  # pair 32 of 64
    with mpmath.workdps(50):
        base_factor = mpmath.mpf(factor) ** (mpmath.mpf(dim) / (dim - 2))
        middle = mpmath.mpf(factor) ** (mpmath.mpf(2 * middle_pair) / (dim - 2))
    rec.rounds_to(
        "d = 128, s = 4: the base is multiplied by 4^(64/63), which shows as 4.09",
        float(base_factor),
        "4.09",
        show=Show(sig=3),
        scope="mpmath at 50 digits",
        quantity="base_factor",
    )
    rec.rounds_to(
        "d = 128, s = 4: pair 32 is slowed by 4^(32/63), which shows as 2.02",
        float(middle),
        "2.02",
        show=Show(sig=3),
        scope="mpmath at 50 digits",
        quantity="middle_factor",
    )
    rec.exact(
        "d = 128: pair 32's exponent 2i/(d-2) is 32/63",
        exponents[middle_pair],
        Fraction(32, 63),
        scope="d = 128, i = 32, exact",
        quantity="middle_exponent",
        show=Show(style="fraction"),
    )
    with mpmath.workdps(50):
        wanted = [mpmath.mpf(factor) ** (mpmath.mpf(2 * j) / (dim - 2)) for j in range(dim // 2)]
    rec.numeric(
        "posenc's ratios w_i / w'_i equal s^(2i/(d-2)), relative error",
        [float((mpmath.mpf(float(r)) - v) / v) for r, v in zip(plain / got, wanted, strict=True)],
        tol=1e-15,
        scope="d = 128, b = 10000, s = 4, every pair; mpmath at 50 digits",
    )
    ntk_value = rope.ntk_base(float(INPUTS["base"]), float(factor), dim)
    rec.rounds_to(
        "d = 128, s = 4: posenc.rope.ntk_base(10000, 4, 128) shows as 40,890",
        ntk_value,
        "40,890",
        show=Show(sig=4),
        scope="the float64 base",
        quantity="ntk_base_value",
    )


# -- misreadings -------------------------------------------------------------------


def _same_as_pi(wit: Witness) -> None:
    # "NTK-aware scaling divides every frequency by s." Pair 0 keeps speed 1 under
    # NTK, while PI gives it 1/s = 1/4; pair 32 of 64 is slowed by 4^(32/63), not 4.
    point = {b: 10000, s: 4, h: 63}
    wit.differs(
        [
            sp.Subs(speed(i, ntk), i, 0).doit().xreplace(point),
            slowdown(i, ntk).xreplace({**point, i: 32}),
        ],
        [sp.Rational(1, 4), 4],
        at="d = 128, b = 10000, s = 4: pair 0's NTK speed against PI's 1/s, and pair 32's "
        "NTK factor against PI's s",
        margin=sp.Rational(1, 2),
        by="half a unit",
    )


def _base_times_s(wit: Witness) -> None:
    # "NTK-aware scaling multiplies the base by s." With b' = b s the slowest pair is
    # slowed by s^((d-2)/d) = 4^(63/64), not by s: the exponent d/(d-2) is what
    # makes the slowest pair's factor exactly s.
    point = {b: 10000, s: 4, h: 63}
    factor = slowdown(h, b * s).xreplace(point)
    # Pinned: with b' = b s the slowest pair is slowed by exactly s^(2h/d) = 4^(63/64).
    if sp.simplify(factor - sp.Integer(4) ** sp.Rational(63, 64)) != 0:
        raise ValueError(f"the slowdown with b' = b s is not 4^(63/64): got {factor}")
    wit.differs(
        factor,
        4,
        at="d = 128, b = 10000, s = 4, slowest pair: the factor with b' = b s against s",
        margin=sp.Rational(1, 20),
        by="a twentieth; a true claim leaves exactly 0 at 50 digits",
    )


MISREADINGS = [
    Misreading(
        "NTK-aware scaling divides every frequency by s (that is position interpolation)",
        _same_as_pi,
        why="It divides pair i's speed by s^(2i/(d-2)): by 1 for pair 0, by s only for the "
        "slowest pair; Proposition 24's interpolation divides every speed by s.",
    ),
    Misreading(
        "NTK-aware scaling multiplies the base by s",
        _base_times_s,
        why="b' = b s slows the slowest pair by s^((d-2)/d), short of s; the exponent "
        "d/(d-2) on s makes that pair's factor exactly s.",
    ),
]
