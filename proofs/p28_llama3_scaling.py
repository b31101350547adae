"""Proposition 28 (Llama 3's scaling: three bands, continuous at both edges).

Meta's reference code for Llama 3.1 (apply_scaling) changes the speed theta of each
rotated pair according to its wavelength lambda = 2 pi / theta. With the training
length L0, a factor s and band factors 0 < a < c (low_freq_factor, high_freq_factor):
a pair with lambda < L0/c keeps theta; a pair with lambda > L0/a gets theta/s; a pair
in between gets theta ((1 - g)/s + g), g = (L0/lambda - a)/(c - a).

(1) As a function of the old speed (or of the wavelength) the new speed is
continuous: at lambda = L0/c, g = 1 and the blend gives theta; at lambda = L0/a,
g = 0 and it gives theta/s. For s >= 1 it is strictly increasing in theta (so
strictly decreasing in lambda, and the order of the pairs is kept): on the blend band
its derivative is 1/s + (1 - 1/s)(2u - a)/(c - a) > 0, u = L0 theta/(2 pi). Its slope
jumps at both edges, by (1 - 1/s) c/(c - a) and (1 - 1/s) a/(c - a): a corner, not
a step. For s < 1 the blend is not monotone (s = 1/2: slope -1/3 at the upper edge).

(2) By Proposition 22, lambda_i < L exactly when i < (d/2) ln(L/(2 pi))/ln b. Llama 3.1
(d = 128, b = 5 x 10^5, L0 = 8192, s = 8, a = 1, c = 4): the thresholds for L0/4 and
L0 are about 28.22 and 34.98, so pairs 0-28 are unchanged, 29-34 blended, 35-63
divided by 8 (Llama 3.1's parameters compared with its config.json; each band's ends
with the floors of the thresholds). Llama 3.2 1B (d = 64, s = 32, read from its
config.json): pairs 0-14, 15-17, 18-31. Every comparison is decided in exact rational
arithmetic from an enclosure of pi (both sides raised to the power d/2); the nearest call
is pair 35 of Llama 3.1, about 0.33% beyond L0.

(3) The band of a pair is decided by lambda_i, L0, a and c alone; s does not enter.
The speeds of the blended and divided pairs depend on s; on the divided band the
scaling is position interpolation by s (Proposition 24).

(4) The rule is the YaRN paper's "NTK-by-parts" ramp (Peng et al., section 3.2) with
alpha = low_freq_factor and beta = high_freq_factor, 1 and 4 in Llama 3, and without
YaRN's temperature: the paper's gamma(r), r = L0/lambda, is Meta's g clipped to [0, 1].
For every pair of both heads the paper's speed lies in the exact enclosure of Meta's.
It is not Hugging Face's yarn with beta_fast = 4 and beta_slow = 1 (linear in the index).

posenc.rope.inv_freq("llama3", ...) is checked against the exact values: each speed
is the float64 nearest the real number, decided in rational arithmetic.

Uses: 22, 24, 27.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from proofs import kit
from proofs.exact import PI_HIGH, PI_LOW, cell, enclose_pi, inside_cell, pick
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero, substitute

NUMBER = 28
TITLE = "Llama 3's scaling: three bands, continuous at both edges"
USES = (22, 24, 27)

# The numbers this proposition takes from Llama 3.1's configuration (Meta's
# reference code and its config.json): base, head width, training length, factor and
# band factors; the training length of the page's "Check yourself" (made up: a little
# above pair 35's wavelength); and the width of the dense ladder on which continuity
# is sampled (the figure's right panel uses the same).
INPUTS = {
    "base": 500000,
    "head_dim": 128,
    "l0": 8192,
    "factor": 8,
    "low_freq_factor": 1,
    "high_freq_factor": 4,
    "l0_shifted": 8220,
    "dense_head_dim": 4096,
}

BASE = Fraction(INPUTS["base"])
L0 = Fraction(INPUTS["l0"])
LOW_FF, HIGH_FF = Fraction(INPUTS["low_freq_factor"]), Fraction(INPUTS["high_freq_factor"])
WIDTH = INPUTS["head_dim"]
#: Llama 3.1 8B's and Llama 3.2 1B's published config.json (their rotary fields).
CONFIG_31 = Path(kit.__file__).resolve().parent.parent / "data/configs/llama-3.1-8b.json"
CONFIG_32 = Path(kit.__file__).resolve().parent.parent / "data/configs/llama-3.2-1b.json"

# Symbols, declared once. Speeds, wavelengths, the training length and the factors
# are positive; the upper band factor is a + delta with delta > 0. sigma = s - 1 and
# t = u - a are the non-negative offsets of the monotonicity argument.
theta, lam, length = sp.symbols("theta lambda L_0", positive=True)
s, a, delta = sp.symbols("s a delta", positive=True)
u = sp.Symbol("u", positive=True)  # L0 theta / (2 pi): the turns within L0
sigma, t = sp.symbols("sigma t", nonnegative=True)
c = a + delta  # high_freq_factor > low_freq_factor


# -- the scaling in symbols -------------------------------------------------------


def blend_of_wavelength(wave: sp.Expr) -> sp.Expr:
    """The blend band's new speed at wavelength lambda: (2 pi/lambda)((1 - g)/s + g)."""
    g = (length / wave - a) / (c - a)
    return (2 * sp.pi / wave) * ((1 - g) / s + g)


def blend_of_speed(speed: sp.Expr) -> sp.Expr:
    """The same as a function of the old speed: g = (L0 theta/(2 pi) - a)/(c - a)."""
    g = (length * speed / (2 * sp.pi) - a) / (c - a)
    return speed * ((1 - g) / s + g)


def blend_slope(turns: sp.Expr) -> sp.Expr:
    """The claimed d theta'/d theta on the blend band, with u = L0 theta/(2 pi)."""
    return 1 / s + (1 - 1 / s) * (2 * turns - a) / (c - a)


def edge_jumps() -> tuple[sp.Expr, sp.Expr]:
    """Blend minus neighbour at both edges, the substitutions left to the kit (sp.Subs)."""
    high_edge, low_edge = length / c, length / a
    return (
        sp.Subs(blend_of_wavelength(lam), lam, high_edge)
        - sp.Subs(2 * sp.pi / lam, lam, high_edge),
        sp.Subs(blend_of_wavelength(lam), lam, low_edge)
        - sp.Subs(2 * sp.pi / (s * lam), lam, low_edge),
    )


# -- exact enclosures ---------------------------------------------------------------


def exact(x: mpmath.mpf) -> Fraction:
    """The exact value of a binary mpmath number."""
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def encloses_speed(lo: Fraction, hi: Fraction, pair: int, width: int) -> bool:
    """Is lo < b^(-2 pair/width) < hi? With q = width/2: lo^q b^pair < 1 < hi^q b^pair, exactly."""
    q = width // 2
    power = BASE**pair
    return lo**q * power < 1 < hi**q * power


def speed_enclosure(pair: int, width: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < b^(-2 pair/width) < hi, about 1e-45 apart, proven by a power.

    With q = width/2, theta^q = b^(-pair): lo^q b^pair < 1 < hi^q b^pair is checked in
    integers, so the enclosure holds whatever mpmath computed.
    """
    q = width // 2
    with mpmath.workdps(60):
        approx = exact(mpmath.mpf(INPUTS["base"]) ** (mpmath.mpf(-pair) / q))
    lo, hi = approx * (1 - Fraction(1, 10**45)), approx * (1 + Fraction(1, 10**45))
    if not encloses_speed(lo, hi, pair, width):
        raise ArithmeticError(f"the enclosure of pair {pair} failed its exact test")
    return lo, hi


def wavelength_enclosure(pair: int, width: int) -> tuple[Fraction, Fraction]:
    """Rationals enclosing lambda_i = 2 pi / theta_i, from PI_LOW < pi < PI_HIGH."""
    lo, hi = speed_enclosure(pair, width)
    return 2 * PI_LOW / hi, 2 * PI_HIGH / lo


def below(pair: int, width: int, edge: Fraction) -> bool | None:
    """Is lambda_i < edge? Decided exactly: (2 pi)^q b^pair against edge^q, q = width/2.

    lambda_i = 2 pi b^(pair/q), so lambda_i < edge exactly when (2 pi)^q b^pair < edge^q.
    With PI_LOW < pi < PI_HIGH the answer is yes if (2 PI_HIGH)^q b^pair < edge^q and no
    if (2 PI_LOW)^q b^pair > edge^q; None if the enclosure cannot tell (never here).
    """
    q = width // 2
    target = edge**q
    if (2 * PI_HIGH) ** q * BASE**pair < target:
        return True
    if (2 * PI_LOW) ** q * BASE**pair > target:
        return False
    return None


def band_of(pair: int, width: int, l0: Fraction = L0) -> str | None:
    """The band of pair i, from its wavelength, L0 and the band factors: s is no input."""
    short, long = below(pair, width, l0 / HIGH_FF), below(pair, width, l0 / LOW_FF)
    if short is None or long is None:
        return None
    return "high" if short else "low" if not long else "blend"


def bands_of(width: int, l0: Fraction = L0) -> list[str | None]:
    return [band_of(i, width, l0) for i in range(width // 2)]


def runs(bands: list[str | None]) -> dict[str, tuple[int, int]]:
    """First and last pair of each band, in ladder order (a band is a run: lambda_i grows)."""
    kinds = [k for k in ("high", "blend", "low") if k in bands]
    return {k: (bands.index(k), len(bands) - 1 - bands[::-1].index(k)) for k in kinds}


def threshold_between(width: int, edge: Fraction, low: Fraction, high: Fraction) -> bool:
    """Is low < (d/2) ln(edge/(2 pi))/ln b < high? Decided in exact integers.

    With q = d/2 and r = low/q = n/m, the threshold exceeds low exactly when
    edge/(2 pi) > b^r, that is (edge/(2 pi))^m > b^n; pi is replaced by the bound
    that makes each side of the test hold for every pi in (PI_LOW, PI_HIGH).
    """
    q = width // 2
    lo, hi = low / q, high / q
    above_low = (edge / (2 * PI_HIGH)) ** lo.denominator > BASE**lo.numerator
    below_high = (edge / (2 * PI_LOW)) ** hi.denominator < BASE**hi.numerator
    return above_low and below_high


def threshold_floor(width: int, edge: Fraction) -> int:
    """The whole number k with k < (d/2) ln(edge/(2 pi))/ln b < k + 1, decided exactly.

    Proposition 22's threshold, read from the logarithm (threshold_between), not from the
    pair-by-pair comparisons of band_of. Every k in 0..d/2 - 1 is tested, both sides of each
    test deciding: -1 unless exactly one k qualifies.
    """
    found = [
        k
        for k in range(width // 2)
        if threshold_between(width, edge, Fraction(k), Fraction(k + 1))
    ]
    return found[0] if len(found) == 1 else -1


def distance_to_edges(pair: int, width: int) -> tuple[Fraction, Fraction]:
    """Rationals enclosing min over the two edges of |lambda_i/edge - 1|."""
    lo, hi = wavelength_enclosure(pair, width)
    ends = []
    for edge in (L0 / HIGH_FF, L0 / LOW_FF):
        low, high = lo / edge - 1, hi / edge - 1
        if low > 0:
            ends.append((low, high))
        elif high < 0:
            ends.append((-high, -low))
        else:
            ends.append((Fraction(0), max(-low, high)))
    return min(e[0] for e in ends), min(e[1] for e in ends)


def new_speed_enclosure(pair: int, width: int, factor: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals enclosing theta'_i, the speed after Llama 3's scaling.

    On the blend band theta' = theta/s + (1 - 1/s) theta (L0 theta/(2 pi) - a)/(c - a)
    grows with theta there (step 2) and falls as pi grows, so its smallest value over
    the enclosures is at (lo, PI_HIGH) and its largest at (hi, PI_LOW).
    """
    lo, hi = speed_enclosure(pair, width)
    band = band_of(pair, width)
    if band == "high":
        return lo, hi
    if band == "low":
        return lo / factor, hi / factor

    def blended(speed: Fraction, pi: Fraction) -> Fraction:
        g = (L0 * speed / (2 * pi) - LOW_FF) / (HIGH_FF - LOW_FF)
        return speed * ((1 - g) / factor + g)

    return blended(lo, PI_HIGH), blended(hi, PI_LOW)


def reference_speed(pair: int, width: int, factor: int) -> mpmath.mpf:
    """theta'_i by Meta's rule in 50-digit mpmath, band decided there: a reference independent
    of the exact enclosures (the inputs read from INPUTS, not from the rationals above)."""
    with mpmath.workdps(50):
        speed = mpmath.mpf(INPUTS["base"]) ** (mpmath.mpf(-2 * pair) / width)
        turns = INPUTS["l0"] * speed / (2 * mpmath.pi)  # L0/lambda
        low, high = INPUTS["low_freq_factor"], INPUTS["high_freq_factor"]
        if turns > high:
            return +speed
        if turns < low:
            return speed / factor
        g = (turns - low) / (high - low)
        return speed * ((1 - g) / factor + g)


def yarn_paper_speed(pair: int, width: int, factor: int, alpha: int, beta: int) -> mpmath.mpf:
    """theta'_i by the YaRN paper's "NTK-by-parts" rule, in 50-digit mpmath.

    Peng et al. (section 3.2): r = L0/lambda_i counts the turns of pair i within L0; the
    ramp gamma(r) is 0 below alpha, 1 above beta and (r - alpha)/(beta - alpha) between;
    the new speed is (1 - gamma) theta/s + gamma theta. Written from the paper's formula
    (a clip of r), not from Meta's case analysis of the wavelength; no temperature enters.
    """
    with mpmath.workdps(50):
        speed = mpmath.mpf(INPUTS["base"]) ** (mpmath.mpf(-2 * pair) / width)
        turns = INPUTS["l0"] * speed / (2 * mpmath.pi)  # r = L0/lambda
        gamma = min(mpmath.mpf(1), max(mpmath.mpf(0), (turns - alpha) / (beta - alpha)))
        return (1 - gamma) * speed / factor + gamma * speed


def reference_distance(pair: int, width: int) -> mpmath.mpf:
    """min over the two edges of |lambda_i/edge - 1| in 50-digit mpmath (the reference)."""
    with mpmath.workdps(50):
        wave = 2 * mpmath.pi * mpmath.mpf(INPUTS["base"]) ** (mpmath.mpf(2 * pair) / width)
        return min(
            abs(wave * f / INPUTS["l0"] - 1)
            for f in (INPUTS["high_freq_factor"], INPUTS["low_freq_factor"])
        )


def nearest_float(value: float, enclosure: tuple[Fraction, Fraction]) -> bool:
    """Is ``value`` the float64 nearest every number of the enclosure?

    The enclosure must lie strictly between the midpoints from ``value`` to its two
    neighbouring floats (exact rationals).
    """
    if not math.isfinite(value) or value <= 0:
        return False
    here = Fraction(value)
    down = (here + Fraction(math.nextafter(value, 0.0))) / 2
    up = (here + Fraction(math.nextafter(value, math.inf))) / 2
    return down < enclosure[0] and enclosure[1] < up


def run_ends(rec: Recorder, bands: list[str | None], width: int, suffix: str, name: str):
    """Check the first and last pair of each band against Proposition 22's thresholds.

    The bands come from comparing each wavelength with each edge (band_of); the thresholds
    floor c(L0/c) and floor c(L0/a) from the logarithm (threshold_floor). The last unchanged
    pair is the first, the first blended one more, and so on; the last divided pair is the
    head's last, d/2 - 1. Each end becomes the quantity ``{end}_{suffix}``; returns the checks.
    """
    high_floor = threshold_floor(width, L0 / HIGH_FF)
    low_floor = threshold_floor(width, L0 / LOW_FF)
    found = runs(bands)
    checks = {}
    for end, kind, index, want, formula in (
        ("last_high", "high", 1, high_floor, "floor c(L0/4)"),
        ("first_blend", "blend", 0, high_floor + 1, "floor c(L0/4) + 1"),
        ("last_blend", "blend", 1, low_floor, "floor c(L0)"),
        ("first_low", "low", 0, low_floor + 1, "floor c(L0) + 1"),
        ("last_low", "low", 1, width // 2 - 1, "d/2 - 1, the last pair"),
    ):
        quantity = f"{end}_{suffix}"
        which = {"high": "unchanged", "blend": "blended", "low": "divided"}[kind]
        checks[quantity] = rec.exact(
            f"{name}: the {end.split('_')[0]} {which} pair is {formula} = {want}",
            found.get(kind, (-1, -1))[index],
            want,
            scope=f"d = {width}: the bands decided pair by pair, against c(L) = (d/2) "
            "ln(L/(2 pi))/ln b between two whole numbers (exact integers)",
            quantity=quantity,
            show=Show(),
        )
    return checks


def scaled(width: int, factor: float, l0: int = INPUTS["l0"]) -> tuple[np.ndarray, float]:
    """posenc's Llama 3 speeds for a head of ``width`` with Llama 3.1's base and bands."""
    return rope.inv_freq(
        "llama3",
        width,
        base=float(BASE),
        factor=factor,
        original_max_position_embeddings=l0,
        low_freq_factor=float(LOW_FF),
        high_freq_factor=float(HIGH_FF),
    )


def checks(rec: Recorder) -> None:
    # Step 1. Continuity at both edges. At lambda = L0/c the blend's weight g is
    # (c - a)/(c - a) = 1 and the blend is theta; at lambda = L0/a, g = 0 and it is
    # theta/s. Each formula is continuous in lambda > 0, so the two sides meet.
    at_high, at_low = edge_jumps()
    rec.identity(
        "at lambda = L0/c the blend equals the unchanged speed 2 pi/lambda",
        at_high,
        scope="every L0 > 0, s > 0 and band factors 0 < a < c",
    )
    rec.identity(
        "at lambda = L0/a the blend equals the divided speed 2 pi/(s lambda)",
        at_low,
        scope="every L0 > 0, s > 0 and band factors 0 < a < c",
    )

    # Step 2. Monotone. On the outer bands theta' is theta or theta/s, increasing. On
    # the blend band, as a function of theta, its derivative is
    # 1/s + (1 - 1/s)(2u - a)/(c - a) with u = L0 theta/(2 pi) in [a, c].
    slope = sp.Derivative(blend_of_speed(theta), theta)
    rec.identity(
        "d/d theta of the blend = 1/s + (1 - 1/s)(2u - a)/(c - a), u = L0 theta/(2 pi)",
        slope - blend_slope(length * theta / (2 * sp.pi)),
        scope="every theta, L0 > 0, s > 0 and 0 < a < c",
    )
    # With s = 1 + sigma and u = a + t (sigma, t >= 0 for s >= 1 and u in the band)
    # the slope is (1 + sigma (a + 2t)/delta)/(1 + sigma): every term is >= 0 and the
    # 1 makes it > 0. The sign is read off this form (the argument).
    rec.identity(
        "with s = 1 + sigma, u = a + t: the slope is (1 + sigma (a + 2t)/delta)/(1 + sigma)",
        substitute(blend_slope(u), {s: 1 + sigma, u: a + t})
        - (1 + sigma * (a + 2 * t) / delta) / (1 + sigma),
        scope="every sigma, t >= 0 and a, delta > 0 (c = a + delta)",
    )
    # The slope jumps at both edges: a corner, not a step.
    rec.identity(
        "slope at the upper edge u = c, inside minus outside (1), is (1 - 1/s) c/(c - a)",
        sp.Subs(slope, theta, 2 * sp.pi * c / length) - 1 - (1 - 1 / s) * c / (c - a),
        scope="every L0 > 0, s > 0 and 0 < a < c",
    )
    rec.identity(
        "slope at the lower edge u = a, inside minus outside (1/s), is (1 - 1/s) a/(c - a)",
        sp.Subs(slope, theta, 2 * sp.pi * a / length) - 1 / s - (1 - 1 / s) * a / (c - a),
        scope="every L0 > 0, s > 0 and 0 < a < c",
    )
    # The hypothesis s >= 1 is needed: with s = 1/2 the slope at the upper edge is < 0.
    rec.exact(
        "s = 1/2, a = 1, c = 4: the blend's slope at the upper edge is -1/3",
        substitute(blend_slope(u), {s: sp.Rational(1, 2), a: 1, delta: 3, u: 4}),
        sp.Rational(-1, 3),
        scope="one exact point; monotonicity needs s >= 1",
    )

    # Step 3. Llama 3.1. Its parameters are those of its published config.json: each one
    # this proof uses is compared with the file. The edges are L0/4 = 2048 and L0/1 = 8192.
    # Each wavelength 2 pi b^(i/64) is compared with them exactly: raise both sides to the
    # 64th power and enclose pi (Proposition 22: lambda_i = L never holds exactly).
    raw31 = json.loads(CONFIG_31.read_text(encoding="utf-8"))
    scaling31 = raw31["rope_scaling"]
    rec.exact(
        "Llama 3.1's config.json: rope_theta, head width hidden_size/num_attention_heads, "
        "original_max_position_embeddings, factor, low_freq_factor and high_freq_factor are "
        "the values used here (count of the six that differ)",
        sum(
            int(Fraction(in_file) != used)
            for in_file, used in (
                (raw31["rope_theta"], INPUTS["base"]),
                (Fraction(raw31["hidden_size"], raw31["num_attention_heads"]), INPUTS["head_dim"]),
                (scaling31["original_max_position_embeddings"], INPUTS["l0"]),
                (scaling31["factor"], INPUTS["factor"]),
                (scaling31["low_freq_factor"], INPUTS["low_freq_factor"]),
                (scaling31["high_freq_factor"], INPUTS["high_freq_factor"]),
            )
        ),
        0,
        scope="data/configs/llama-3.1-8b.json, read as JSON",
    )
    enclose_pi(rec)
    q = WIDTH // 2
    rec.exact(
        "the upper edge L0/high_freq_factor is 2048",
        L0 / HIGH_FF,
        2048,
        scope="exact rationals",
        quantity="edge_high",
    )
    for pair, edge, relation in (
        (28, 2048, "<"),
        (29, 2048, ">"),
        (34, 8192, "<"),
        (35, 8192, ">"),
    ):
        # Both ends of pi's enclosure: the comparison then holds for every pi between.
        rec.exact(
            f"pair {pair}: (2 pi)^64 b^{pair} {relation} {edge}^64 with pi at its lower bound",
            (2 * PI_LOW) ** q * BASE**pair,
            Fraction(edge) ** q,
            relation=relation,
            scope="d = 128, b = 5e5; pi replaced by PI_LOW (exact integers)",
        )
        rec.exact(
            f"pair {pair}: (2 pi)^64 b^{pair} {relation} {edge}^64 with pi at its upper bound, "
            f"so lambda {relation} {edge}",
            (2 * PI_HIGH) ** q * BASE**pair,
            Fraction(edge) ** q,
            relation=relation,
            scope="d = 128, b = 5e5; pi replaced by PI_HIGH (exact integers)",
        )
    # Proposition 22's threshold c(L) = (d/2) ln(L/(2 pi))/ln b for both edges, shown to
    # two decimals: the threshold lies strictly inside the rounding cell of its text, the
    # enclosure the check establishes.
    two = Show(decimals=2)
    bands31 = bands_of(WIDTH)
    for name, edge, kind in (
        ("threshold_high_31", L0 / HIGH_FF, "high"),
        ("threshold_low_31", L0 / LOW_FF, "blend"),
    ):
        with mpmath.workdps(50):
            value = float(
                q * mpmath.log(edge.numerator / (2 * mpmath.pi)) / mpmath.log(BASE.numerator)
            )
        shown = cell(value, two)
        check = rec.exact(
            f"d = 128, L = {edge}: (d/2) ln(L/(2 pi))/ln b lies in the cell of {shown.text}",
            int(threshold_between(WIDTH, edge, shown.low, shown.high)),
            1,
            scope="exact integers: (L/(2 pi))^m against b^n at both ends of the cell",
            within=(shown.low, shown.high),
        )
        rec.quantity(name, value, show=two, by=check)
        # The page reads the threshold's whole part as the last pair below L: the pairs
        # decided one by one (band_of) end there.
        rec.exact(
            f"d = 128, L = {edge}: the last pair below L, decided pair by pair, is the whole "
            f"part of the threshold shown",
            runs(bands31)[kind][1],
            math.floor(shown.low),
            scope="d = 128: the band ends of the 64 exact decisions against the cell's floor",
        )
    rec.exact(
        "every pair decided: 0-28 unchanged, 29-34 blended, 35-63 divided (count of differences)",
        sum(
            int(got != want)
            for got, want in zip(
                bands31, ["high"] * 29 + ["blend"] * 6 + ["low"] * 29, strict=True
            )
        ),
        0,
        scope="d = 128, b = 5e5, L0 = 8192, a = 1, c = 4: all 64 pairs, both edges, exact",
    )
    ends31 = run_ends(rec, bands31, WIDTH, "31", "Llama 3.1")
    rec.quantity("last_pair_31", q - 1, show=Show(), by=ends31["last_low_31"])
    # How many pairs each band holds: counted from the pair-by-pair decision, against the
    # thresholds (floor c(L0/4) + 1 unchanged, the rest up to floor c(L0) blended).
    high_floor, low_floor = threshold_floor(WIDTH, L0 / HIGH_FF), threshold_floor(WIDTH, L0)
    for kind, want, formula in (
        ("high", high_floor + 1, "floor c(L0/4) + 1"),
        ("blend", low_floor - high_floor, "floor c(L0) - floor c(L0/4)"),
        ("low", q - 1 - low_floor, "d/2 - 1 - floor c(L0)"),
    ):
        rec.exact(
            f"Llama 3.1: the {kind} band holds {formula} = {want} pairs",
            bands31.count(kind),
            want,
            scope="d = 128: the exact band of each pair counted, against Proposition 22's "
            "thresholds decided exactly",
            quantity=f"count_{kind}_31",
            show=Show(),
        )
    rec.exact(
        "posenc.rope.llama3_bands(128) is the exact decision (count of differing pairs)",
        sum(int(x != y) for x, y in zip(rope.llama3_bands(WIDTH).tolist(), bands31, strict=True)),
        0,
        scope="d = 128, Llama 3.1's defaults; posenc decides in 50-digit Decimal",
    )
    # The wavelengths next to the edges, to five digits, each exact enclosure inside the
    # rounding cell of its text; and the room to the nearest edge, in per cent.
    five, per_cent = Show(sig=5), Show(sig=2, percent=True)
    for pair in (28, 29, 34, 35):
        enclosure = wavelength_enclosure(pair, WIDTH)
        shown = cell(pick(enclosure), five)
        check = inside_cell(
            rec,
            f"lambda_{pair} = 2 pi b^({pair}/64) shows as {shown.text}",
            enclosure,
            shown,
            scope=f"d = 128, b = 5e5, pair {pair}: exact enclosure (pi and a 64th root)",
        )
        rec.quantity(f"wave_{pair}", pick(enclosure), show=five, by=check)
    for name, pair, edge, sign in (
        ("below_edge_28", 28, 2048, -1),
        ("above_edge_35", 35, 8192, 1),
    ):
        lo, hi = wavelength_enclosure(pair, WIDTH)
        room = tuple(sorted((sign * (lo / edge - 1), sign * (hi / edge - 1))))
        rec.exact(
            f"pair {pair} lies {'below' if sign < 0 else 'above'} the edge {edge}: its room "
            "is positive",
            room[0],
            0,
            relation=">",
            scope=f"d = 128, b = 5e5, pair {pair}: the exact enclosure's nearer end",
        )
        shown = cell(pick(room), per_cent)
        check = inside_cell(
            rec,
            f"pair {pair} lies {shown.text} {'below' if sign < 0 else 'above'} the edge {edge}",
            room,
            shown,
            scope=f"d = 128, b = 5e5, pair {pair}: |lambda/edge - 1| from the exact enclosure",
        )
        rec.quantity(name, pick(room), show=per_cent, by=check)
    # Pair 35 is the closest call and pair 28 the next: every other pair's distance to its
    # nearer edge, |lambda/edge - 1|, is larger than theirs, enclosure against enclosure.
    distance = {i: distance_to_edges(i, WIDTH) for i in range(q)}
    rec.exact(
        "the exact enclosure of each pair's distance |lambda_i/edge - 1| to its nearer edge "
        "holds the 50-digit mpmath value (count of failures)",
        sum(
            int(not distance[i][0] < exact(reference_distance(i, WIDTH)) < distance[i][1])
            for i in range(q)
        ),
        0,
        scope="d = 128, b = 5e5, edges 2048 and 8192: all 64 pairs, mpmath at 50 digits",
    )
    rec.exact(
        "pair 35 is the nearest of the 64 pairs to an edge (count of other pairs not decided "
        "farther)",
        sum(int(not distance[35][1] < distance[i][0]) for i in range(q) if i != 35),
        0,
        scope="d = 128, b = 5e5, edges 2048 and 8192: all 64 pairs, exact enclosures of "
        "|lambda_i/edge - 1|",
    )
    rec.exact(
        "pair 28 is the next nearest (count of the other 62 pairs not decided farther)",
        sum(int(not distance[28][1] < distance[i][0]) for i in range(q) if i not in (28, 35)),
        0,
        scope="d = 128, b = 5e5, edges 2048 and 8192: all 64 pairs, exact enclosures of "
        "|lambda_i/edge - 1|",
    )

    # Step 4. The library's speeds for Llama 3.1. Each float64 of posenc.rope.inv_freq
    # ("llama3", ...) is the float64 nearest the true speed: the exact enclosure of
    # the new speed lies strictly between the midpoints to its neighbouring floats.
    factor = Fraction(INPUTS["factor"])
    by8, attention = scaled(WIDTH, float(factor))
    # The exact tests, and the enclosures, against what they must tell apart: the test of a
    # speed enclosure refuses the enclosures of the neighbouring pairs; the nearest-float
    # test refuses the two floats next to posenc's value, and 0 and infinity; each enclosure
    # of a new speed holds Meta's rule computed in 50-digit mpmath.
    rec.exact(
        "the exact test lo^64 b^i < 1 < hi^64 b^i refuses pair i - 1's and pair i + 1's "
        "enclosures as enclosures of theta_i (count accepted)",
        sum(
            int(encloses_speed(*speed_enclosure(j, WIDTH), i, WIDTH))
            for i in range(1, q - 1)
            for j in (i - 1, i + 1)
        ),
        0,
        scope="d = 128, b = 5e5, pairs 1-62 against both neighbours",
    )
    enclosures = [new_speed_enclosure(i, WIDTH, factor) for i in range(q)]
    rec.exact(
        "each exact enclosure of theta'_i holds theta'_i by Meta's rule in 50-digit mpmath "
        "(count of failures)",
        sum(
            int(not lo < exact(reference_speed(i, WIDTH, INPUTS["factor"])) < hi)
            for i, (lo, hi) in enumerate(enclosures)
        ),
        0,
        scope="Llama 3.1: d = 128, s = 8, all 64 pairs; mpmath at 50 digits, its own bands",
    )
    rec.exact(
        "the nearest-float test refuses the float64 on either side of posenc's value, and "
        "0 and infinity (count accepted)",
        sum(
            int(nearest_float(w, enclosure))
            for v, enclosure in zip(by8.tolist(), enclosures, strict=True)
            for w in (math.nextafter(v, 0.0), math.nextafter(v, math.inf), 0.0, math.inf)
        ),
        0,
        scope="Llama 3.1: d = 128, s = 8, all 64 pairs",
    )
    rec.exact(
        "posenc.rope.inv_freq('llama3') is the nearest float64 to each theta'_i (failures)",
        sum(
            int(not nearest_float(float(v), enclosure))
            for v, enclosure in zip(by8.tolist(), enclosures, strict=True)
        ),
        0,
        scope="Llama 3.1: d = 128, s = 8, all 64 pairs; exact rationals, pi enclosed",
    )
    rec.exact(
        "Llama 3's scaling leaves the logits alone: posenc's attention factor is 1",
        Fraction(attention),
        1,
        scope="Llama 3.1's parameters (Hugging Face's llama3 init keeps the default's 1.0)",
    )

    # Step 5. Llama 3.2 1B, from its published config.json: factor 32, head width 64,
    # the same base, L0 and band factors. Its bands, and posenc's speeds, exactly.
    spec = rope.read_config(CONFIG_32)
    params = spec.params
    rec.exact(
        "Llama 3.2 1B's config.json: rope_scaling factor 32",
        Fraction(params["factor"]),
        32,
        scope="data/configs/llama-3.2-1b.json, read with posenc.rope.read_config",
        quantity="config_factor_32",
    )
    small = spec.head_dim
    rec.exact(
        "Llama 3.2 1B's config.json: head_dim 64",
        small,
        64,
        scope="data/configs/llama-3.2-1b.json, read with posenc.rope.read_config",
        quantity="config_head_dim",
        show=Show(),
    )
    rec.exact(
        "Llama 3.2 1B: the rest as Llama 3.1 (count of differing fields)",
        sum(
            int(x != y)
            for x, y in (
                (spec.scheme, "llama3"),
                (Fraction(spec.base), BASE),
                (Fraction(params["original_max_position_embeddings"]), L0),
                (Fraction(params["low_freq_factor"]), LOW_FF),
                (Fraction(params["high_freq_factor"]), HIGH_FF),
            )
        ),
        0,
        scope="the same config.json: rope_type, rope_theta, L0, band factors",
    )
    bands32 = bands_of(small)
    rec.exact(
        "Llama 3.2 1B: 0-14 unchanged, 15-17 blended, 18-31 divided (count of differences)",
        sum(
            int(got != want)
            for got, want in zip(
                bands32, ["high"] * 15 + ["blend"] * 3 + ["low"] * 14, strict=True
            )
        ),
        0,
        scope="d = 64, b = 5e5, L0 = 8192, a = 1, c = 4: all 32 pairs, exact",
    )
    run_ends(rec, bands32, small, "32", "Llama 3.2 1B")
    speeds32, _ = spec.inv_freq()
    enclosures32 = [
        new_speed_enclosure(i, small, Fraction(params["factor"])) for i in range(small // 2)
    ]
    rec.exact(
        "Llama 3.2 1B: each exact enclosure of theta'_i holds theta'_i by Meta's rule in "
        "50-digit mpmath (count of failures)",
        sum(
            int(not lo < exact(reference_speed(i, small, int(params["factor"]))) < hi)
            for i, (lo, hi) in enumerate(enclosures32)
        ),
        0,
        scope="d = 64, s = 32 from the config, all 32 pairs; mpmath at 50 digits",
    )
    rec.exact(
        "posenc's speeds for Llama 3.2 1B are the nearest float64s (count of failures)",
        sum(
            int(not nearest_float(float(v), enclosure))
            for v, enclosure in zip(speeds32.tolist(), enclosures32, strict=True)
        ),
        0,
        scope="d = 64, s = 32 from the config, all 32 pairs; exact rationals, pi enclosed",
    )

    # Step 5b. Llama 3's rule is the YaRN paper's ramp with alpha = low_freq_factor = 1 and
    # beta = high_freq_factor = 4: the paper's speed, computed from its own formula, lies in
    # the exact enclosure of Meta's theta'_i for every pair of both heads. Its temperature
    # is left out: the attention factor 1 is checked above.
    alpha, beta = INPUTS["low_freq_factor"], INPUTS["high_freq_factor"]
    tied = [(i, WIDTH, INPUTS["factor"], box) for i, box in enumerate(enclosures)]
    tied += [(i, small, int(params["factor"]), box) for i, box in enumerate(enclosures32)]
    rec.exact(
        "the tie to YaRN's ramp covers every pair of both heads (count)",
        len(tied),
        64 + 32,
        scope="Llama 3.1 (d = 128, s = 8) and Llama 3.2 1B (d = 64, s = 32)",
    )
    rec.exact(
        "the YaRN paper's (1 - gamma(r)) theta/s + gamma(r) theta with alpha = 1, beta = 4 "
        "lies in the exact enclosure of Llama 3's theta'_i (count of failures)",
        sum(
            int(not lo < exact(yarn_paper_speed(i, w, f, alpha, beta)) < hi)
            for i, w, f, (lo, hi) in tied
        ),
        0,
        scope="every pair of Llama 3.1 and Llama 3.2 1B; the paper's ramp in 50-digit mpmath",
    )

    # Step 6. The band does not depend on s: band_of never reads it (the definition),
    # and posenc's llama3_bands agrees with the exact decision for every factor tried.
    rec.exact(
        "posenc.rope.llama3_bands gives the same exact decision for every s (differences)",
        sum(
            int(x != y)
            for f in (1.5, 2.0, 8.0, 16.0, 32.0, 100.0)
            for w, want in ((WIDTH, bands31), (small, bands32))
            for x, y in zip(rope.llama3_bands(w, factor=f).tolist(), want, strict=True)
        ),
        0,
        scope="s = 1.5, 2, 8, 16, 32, 100; d = 128 and 64; every pair",
    )
    # The speeds do depend on s: with s = 32 instead of 8, the divided pairs are 4
    # times slower (exactly, in float64: the division is by a power of two), the
    # unchanged ones are the same, and every blended one is slower.
    by32, _ = scaled(WIDTH, 32.0)
    ratios = [
        (band, Fraction(x) / Fraction(y))
        for band, x, y in zip(bands31, by8.tolist(), by32.tolist(), strict=True)
    ]
    rec.exact(
        "d = 128, s = 8 against 32: theta'(8)/theta'(32) is 1 on every unchanged pair and 4 "
        "on every divided one (count of other ratios)",
        sum(int(r != {"high": 1, "low": 4}[band]) for band, r in ratios if band != "blend"),
        0,
        scope="the 58 unchanged and divided pairs of d = 128, b = 5e5; float64 values as "
        "exact rationals",
    )
    rec.exact(
        "d = 128: every blended pair is slower with s = 32 (the smallest theta'(8)/theta'(32) "
        "of the blend band exceeds 1)",
        min(r for band, r in ratios if band == "blend"),
        1,
        relation=">",
        scope="the 6 blended pairs of d = 128, b = 5e5; float64 values as exact rationals",
    )

    # Step 7. The order of the pairs is kept (step 2), on the real ladders and on a
    # dense one; and the dense ladder shows no jump: between neighbouring pairs the
    # factor theta'/theta moves by little more than the ladder's own step.
    dense = INPUTS["dense_head_dim"]
    ladders = ((WIDTH, 8.0), (WIDTH, 32.0), (small, 32.0), (dense, 8.0), (dense, 32.0))
    falls = [
        Fraction(x) / Fraction(y)
        for w, f in ladders
        for x, y in itertools.pairwise(scaled(w, f)[0].tolist())
    ]
    rec.exact(
        "posenc's new speeds: every neighbouring pair of each ladder compared (count)",
        len(falls),
        sum(w // 2 - 1 for w, _ in ladders),
        scope="d = 128 (s = 8, 32), d = 64 (s = 32), d = 4096 (s = 8, 32)",
    )
    rec.exact(
        "posenc's new speeds fall strictly along the ladder (the smallest theta'_i/theta'_(i+1) "
        "exceeds 1)",
        min(falls),
        1,
        relation=">",
        scope="d = 128 (s = 8, 32), d = 64 (s = 32), d = 4096 (s = 8, 32); float64 as rationals",
    )
    plain = rope.default_inv_freq(dense, float(BASE))  # (2048,)
    # One ladder step multiplies theta by b^(-2/d); g then moves by at most
    # c/(c - a) (1 - b^(-2/d)) < 0.0086, and theta'/theta by (1 - 1/s) times that.
    steps = [np.diff(scaled(dense, f)[0] / plain) for f in (8.0, 32.0)]  # (2047,) each
    rec.exact(
        "the dense ladder of width 4096 has 2048 pairs",
        plain.size,
        2048,
        scope="posenc.rope.default_inv_freq(4096, 5e5)",
        quantity="dense_pairs",
    )
    rec.numeric(
        "d = 4096: theta'/theta changes by < 0.01 between neighbouring pairs (no jump)",
        np.concatenate(steps),
        tol=0.01,
        scope="2 x 2047 neighbouring pairs of a 4096-wide ladder, s = 8 and 32; float64",
        quantity="largest_factor_step",
        show=Show(sig=2),
    )

    # Step 8. "Check yourself": Llama 3.1 with L0 = 8220 instead of 8192. Pair 35
    # (lambda about 8218.7) moves into the blend band, with a tiny weight g: its speed
    # is (theta/s)(1 + (s - 1) g), barely above theta/8.
    shifted = Fraction(INPUTS["l0_shifted"])
    moved = bands_of(WIDTH, l0=shifted)
    rec.exact(
        "L0 = 8220: pairs 0-28 unchanged, 29-35 blended, 36-63 divided (count of differences)",
        sum(
            int(x != y)
            for x, y in zip(moved, ["high"] * 29 + ["blend"] * 7 + ["low"] * 28, strict=True)
        ),
        0,
        scope="d = 128, b = 5e5, a = 1, c = 4, L0 = 8220: all 64 pairs, exact",
    )
    rec.exact(
        "L0 = 8220: the last blended pair is floor c(8220), Proposition 22's threshold",
        runs(moved).get("blend", (-1, -1))[1],
        threshold_floor(WIDTH, shifted / LOW_FF),
        scope="d = 128, b = 5e5: the bands decided pair by pair, against c(8220) between two "
        "whole numbers (exact integers)",
        quantity="last_blend_shifted",
        show=Show(),
    )
    rec.exact(
        "L0 = 8220: the upper edge L0/4 is 2055",
        shifted / HIGH_FF,
        2055,
        scope="exact rationals",
        quantity="edge_high_shifted",
    )
    lo, hi = wavelength_enclosure(35, WIDTH)
    weights = (
        (shifted / hi - LOW_FF) / (HIGH_FF - LOW_FF),
        (shifted / lo - LOW_FF) / (HIGH_FF - LOW_FF),
    )
    tiny = Show(sig=2)
    check = inside_cell(
        rec,
        f"L0 = {shifted}: pair 35's weight ({shifted}/lambda_35 - 1)/3 shows as "
        f"{cell(pick(weights), tiny).text}",
        weights,
        cell(pick(weights), tiny),
        scope="d = 128, b = 5e5, pair 35: exact enclosure of lambda_35",
    )
    rec.quantity("g_shifted", pick(weights), show=tiny, by=check)
    rises = ((factor - 1) * weights[0], (factor - 1) * weights[1])
    check = inside_cell(
        rec,
        f"pair 35's speed is theta/{factor} times 1 + {factor - 1}g: "
        f"{cell(pick(rises), per_cent).text} above theta/{factor}",
        rises,
        cell(pick(rises), per_cent),
        scope=f"d = 128, b = 5e5, pair 35, L0 = {shifted}, s = {factor}: exact enclosure",
    )
    rec.quantity("speed_rise_shifted", pick(rises), show=per_cent, by=check)


# -- misreadings -------------------------------------------------------------------


def _every_speed_divided(wit: Witness) -> None:
    # "Llama 3 divides every frequency by 8." Pair 0 has wavelength 2 pi < 2048: it
    # keeps its speed 1. posenc's value, an exact binary number, is 1.
    speeds, _ = scaled(WIDTH, 8.0)
    wit.differs(
        sp.Rational(Fraction(float(speeds[0]))),
        sp.Rational(1, 8),
        at="Llama 3.1, pair 0 (lambda = 2 pi): its new speed against 1/8 of its old speed 1",
        margin=sp.Rational(1, 2),
        by="half the old speed",
    )


def _blend_is_a_jump(wit: Witness) -> None:
    # "The blend is a jump: at the band edges the speed switches between theta and
    # theta/s." The jump at each edge reduces to 0 for every L0, s, a < c.
    wit.exact(
        all(reduce_to_zero(jump) is not None for jump in edge_jumps()),
        at="both edges lambda = L0/c and L0/a, every L0, s > 0, 0 < a < c: the difference "
        "of the two sides' speeds reduces to 0",
    )


def _factor_fixed_at_eight(wit: Witness) -> None:
    # "The scaling factor is 8 for every Llama 3 model." Llama 3.2 1B's config says 32.
    spec = rope.read_config(CONFIG_32)
    wit.differs(
        sp.Rational(Fraction(spec.params["factor"])),
        8,
        at="Llama 3.2 1B's config.json, rope_scaling.factor, read with posenc.rope.read_config",
        margin=0,
        by="exact, against a claim of exact equality",
    )


def _more_pairs_divided(wit: Witness) -> None:
    # "A larger factor divides more pairs." The bands for s = 32 and s = 8 are the same.
    eight = rope.llama3_bands(WIDTH, factor=8.0).tolist()
    thirty_two = rope.llama3_bands(WIDTH, factor=32.0).tolist()
    wit.exact(
        eight.count("low") == thirty_two.count("low") and thirty_two == bands_of(WIDTH),
        at="d = 128, b = 5e5, L0 = 8192: as many divided pairs with s = 32 as with s = 8 "
        "(the same 29), and posenc's bands equal the exact decision",
    )


def _huggingface_yarn(wit: Witness) -> None:
    # "Llama 3's scaling is YaRN as Hugging Face computes it, with beta_fast = 4 and
    # beta_slow = 1." That code ramps linearly in the pair index, not in r, and rounds the
    # ends outwards: at pair 33 of Llama 3.1 its speed is about 1.38 times Llama 3's.
    ours, _ = scaled(WIDTH, 8.0)
    theirs, _ = rope.inv_freq(
        "yarn",
        WIDTH,
        base=float(BASE),
        factor=8.0,
        original_max_position_embeddings=INPUTS["l0"],
        beta_fast=float(HIGH_FF),
        beta_slow=float(LOW_FF),
    )
    llama3 = Fraction(float(ours[33]))
    wit.differs(
        Fraction(float(theirs[33])),
        llama3,
        at="Llama 3.1, pair 33 (blended): posenc's yarn speed with beta_fast = 4, "
        "beta_slow = 1, against its llama3 speed",
        margin=sp.Rational(3, 10) * llama3,
        by="three tenths of Llama 3's speed",
    )


MISREADINGS = [
    Misreading(
        "Llama 3 divides every frequency by 8",
        _every_speed_divided,
        why="Only the pairs whose wavelength exceeds L0 are divided; those shorter than L0/4 "
        "keep their speed, and the ones between are blended.",
    ),
    Misreading(
        "The blend is a jump: at the band edges the speed switches between theta and theta/s",
        _blend_is_a_jump,
        why="At each edge the blend's weight is exactly 1 or 0, so the blended speed meets "
        "its neighbour: only the slope changes there.",
    ),
    Misreading(
        "The scaling factor is fixed at 8 for every Llama 3 model",
        _factor_fixed_at_eight,
        why="8 is Llama 3.1's factor; the Llama 3.2 1B and 3B configs give 32, and code that "
        "kept the constant 8 of the reference implementation ran them with the wrong one "
        "(llama-models#166, #241).",
    ),
    Misreading(
        "A larger scaling factor divides more pairs",
        _more_pairs_divided,
        why="The band of a pair depends on its wavelength, L0 and the two band factors, never "
        "on s; s changes only how much the slow pairs are slowed.",
    ),
    Misreading(
        "Llama 3's scaling is YaRN as Hugging Face computes it, with beta_fast = 4 and "
        "beta_slow = 1",
        _huggingface_yarn,
        why="Llama 3 is the YaRN paper's ramp, linear in the turns r = L0/lambda; Hugging "
        "Face's yarn ramps linearly in the pair index between rounded ends, and adds YaRN's "
        "temperature on the cos and sin caches.",
    ),
]
