"""Proposition 7 (every position has its own signature).

For the sinusoidal code of width d (even) and base b > 1, the squared distance
between the codes of two positions depends only on their offset k = p - q:
|PE(p) - PE(q)|^2 = sum_i (2 - 2 cos(w_i k)) = sum_i 4 sin^2(w_i k / 2). The code
is injective on the integers: if PE(p) = PE(q) then pair 0, which turns by one
radian per position, gives p - q = 2*pi*n for an integer n, and p = q because pi
is irrational (Lambert 1761: cited, not checked). Fast pairs tell
neighbours apart; slow pairs tell distant regions apart.

What the proof computes besides: how close pair 0 comes to a full turn over a
finite range of offsets (exact integers), the share of the fast, middle and
slow thirds of the pairs in the distance at width 512, and the smallest
distance between the codes of a range of positions.

Uses: 5.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.similarity import distance_profile
from proofs.exact import PI_HIGH, PI_LOW, cell, enclose_pi, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 7
TITLE = "Every position has its own signature"
USES = (5,)

#: Numbers the proposition chooses: the width and base of the examples, the
#: range of offsets searched for a return of pair 0, the range of positions
#: compared, the offsets of the table, and where the table splits the pairs.
INPUTS = {
    "d": 512,
    "base": 10000,
    "offsets": 10**6,
    "positions": 10**5,
    "offset_100": 100,
    "offset_1000": 1000,
    "fast_last": 85,
    "middle_first": 86,
    "middle_last": 170,
    "slow_first": 171,
    "last_pair": 255,
}

# Symbols, declared once. Positions are real here (integers are the case that
# matters; the identities do not need integrality); each pair turns at w > 0.
p, q, t = sp.symbols("p q t", real=True)
w = sp.Symbol("w", positive=True)
b = sp.Symbol("b", positive=True)
d = sp.Symbol("d", positive=True, even=True)
i = sp.Symbol("i", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i (Proposition 5)

#: The table on the page: thirds of the 256 pairs of width 512, and offsets.
THIRDS = {"fast": range(0, 86), "middle": range(86, 171), "slow": range(171, 256)}
OFFSETS = (1, 10, 100, 1000, 10000)


def pair(position: sp.Expr, rate: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at a position, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(rate * position), sp.cos(rate * position)])


def code(position: sp.Expr, width: int) -> sp.Matrix:
    """PE(position) for the given width, symbolic in the base."""
    rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(position, rate) for rate in rates])


def exact_share(k: int, pairs: range, width: int = 512) -> mpmath.mpf:
    """sqrt(sum over pairs of 4 sin^2(w_i k / 2)), base 10000, at mpmath's precision."""
    return mpmath.sqrt(
        mpmath.fsum(
            4 * mpmath.sin(k * mpmath.power(10000, mpmath.mpf(-2 * n) / width) / 2) ** 2
            for n in pairs
        )
    )


def sweep(first: int, last: int, pairs: range) -> np.ndarray:
    """The share of ``pairs`` in |PE(p) - PE(p + k)| for k = first .. last, in float64."""
    rates = 10000.0 ** (-2.0 * np.arange(pairs.start, pairs.stop) / 512)  # (m,)
    out = []
    for start in range(first, last + 1, 4096):
        k = np.arange(start, min(start + 4096, last + 1), dtype=np.float64)  # (n,)
        out.append(np.sqrt((4 * np.sin(np.outer(k, rates) / 2) ** 2).sum(axis=1)))
    return np.concatenate(out)  # (last - first + 1,)


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
        "pair 0 turns at w_0 = b^0 = 1 radian per position",
        sp.Subs(speed, i, 0) - 1,
        scope="all b > 0, even d > 0",
    )

    # Step 4. What can be checked of the irrationality step: how close pair 0
    # comes to a full turn for k = 1 .. 10^6. First pi, enclosed exactly: sin
    # changes sign between PI_LOW and PI_HIGH, and pi is sin's only zero in (3, 4).
    enclose_pi(rec)
    # With m the multiple of 2 pi nearest to k, |k - 2 pi m| is bounded in exact
    # integers, in units of 2^-40, with 2 pi 2^40 enclosed by two integers.
    scale = 40
    two_pi_low = int(2 * PI_LOW * 2**scale)  # floor: <= 2 pi 2^40
    two_pi_high = -int(-2 * PI_HIGH * 2**scale)  # ceiling: >= 2 pi 2^40
    k = np.arange(1, 10**6 + 1, dtype=np.int64)  # (10^6,)
    m = np.rint(k / (2 * np.pi)).astype(np.int64)  # (10^6,): a multiple; checked below
    assert int(m.max()) * two_pi_high < 2**62 and (int(k.max()) << scale) < 2**62  # no overflow
    below = (k << scale) - m * two_pi_high  # (10^6,): <= (k - 2 pi m) 2^40
    above = (k << scale) - m * two_pi_low  # (10^6,): >= (k - 2 pi m) 2^40
    rec.exact(
        "for k = 1 .. 10^6, |k - 2 pi m_k| < 6, so every other multiple of 2 pi is farther",
        Fraction(int(np.maximum(np.abs(below), np.abs(above)).max()), 2**scale),
        6,
        relation="<",
        scope="exact integers, every k = 1 .. 10^6; 2 pi enclosed to 2^-40",
    )
    # Every other multiple is then more than 2 pi - 6 > 0.28 away, far more than
    # the closest return below, so |k - 2 pi m_k| is the distance to a full turn.
    low = np.where(below > 0, below, np.where(above < 0, -above, 0))  # (10^6,): lower bounds
    closest = int(np.argmin(low))
    # At that offset, a finer enclosure, straight from the bounds on pi: the
    # distance to the nearest full turn lies between |k - 2 PI_HIGH m| and
    # |k - 2 PI_LOW m| (both have the same sign there, which the check shows).
    k_star, m_star = int(k[closest]), int(m[closest])
    ends = sorted(abs(k_star - 2 * bound * m_star) for bound in (PI_LOW, PI_HIGH))
    same_sign = (k_star - 2 * PI_LOW * m_star) * (k_star - 2 * PI_HIGH * m_star) > 0
    lower, upper = ends if same_sign else (Fraction(0), ends[1])
    others = np.delete(low, closest)  # (10^6 - 1,)
    alone = rec.exact(
        "no other offset k <= 10^6 brings pair 0 as close to a full turn as the closest one",
        Fraction(int(others.min()), 2**scale),
        upper,
        relation=">",
        scope="exact integers: the smallest lower bound elsewhere above the upper bound there",
    )
    rec.quantity("closest_return_offset", k_star, show=Show(), by=alone)
    gap_show = Show(sig=2)
    shown = cell(float((lower + upper) / 2), gap_show)
    inside = inside_cell(
        rec,
        f"at that offset pair 0 is {shown.text} rad from a full turn (enclosure inside the cell)",
        (lower, upper),
        shown,
        scope="exact rationals, with the enclosure of pi above",
    )
    rec.quantity("closest_return_gap", float((lower + upper) / 2), show=gap_show, by=inside)

    # Step 5. Numeric spot check of steps 1-2 at sampled points, mpmath at 30 digits.
    mpmath.mp.dps = 30
    rng = np.random.default_rng(7)
    errors = []
    for left, right in rng.integers(-(10**6), 10**6, size=(20, 2)):
        for width in (2, 16):
            rates = [mpmath.power(10000, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
            direct = mpmath.fsum(
                (mpmath.sin(r * int(left)) - mpmath.sin(r * int(right))) ** 2
                + (mpmath.cos(r * int(left)) - mpmath.cos(r * int(right))) ** 2
                for r in rates
            )
            offset = mpmath.fsum(4 * mpmath.sin(r * int(left - right) / 2) ** 2 for r in rates)
            errors.append(float(abs(direct - offset)))
    rec.numeric(
        "|PE(p) - PE(q)|^2 = sum_i 4 sin^2(w_i (p - q)/2) at sampled integers",
        errors,
        tol=1e-25,
        scope="20 random (p, q) in [-10^6, 10^6)^2, d in {2, 16}; mpmath at 30 digits",
    )

    # Step 6. Fast pairs separate neighbours, slow pairs separate regions. The
    # thirds are the figure's (numpy.array_split of the 256 pairs into three).
    split = np.array_split(np.arange(256), 3)
    rec.exact(
        "the thirds of the table are the figure's: pairs 0-85, 86-170, 171-255",
        sum(list(part) != list(third) for part, third in zip(split, THIRDS.values(), strict=True)),
        0,
        scope="exact integers: numpy.array_split(range(256), 3) against the table's thirds",
    )
    # The share of each third at the table's offsets, from
    # posenc.similarity.distance_profile against mpmath at 30 digits.
    exact, relative = {}, []
    for offset in OFFSETS:
        for name, third in [*THIRDS.items(), ("all", range(256))]:
            true = exact_share(offset, third)
            got = float(distance_profile(offset, 512, pairs=np.arange(third.start, third.stop)))
            exact[offset, name] = true
            relative.append(float(abs(got / true - 1)))
    table = rec.numeric(
        "posenc.similarity.distance_profile gives each third's share, as mpmath does",
        relative,
        tol=1e-14,
        scope="d = 512, offsets 1, 10, 100, 1000, 10^4, the three thirds and all pairs; relative",
    )
    for (offset, name), value in exact.items():
        rec.quantity(f"share_{offset}_{name}", float(value), show=Show(decimals=4), by=table)
    # How the slow third grows: the factor from one offset of the table to the next.
    for before, after in itertools.pairwise(OFFSETS):
        growth = exact[after, "slow"] / exact[before, "slow"]
        rec.quantity(f"slow_growth_{after}", float(growth), show=Show(sig=3), by=table)
    # Where each share settles: the typical level sqrt(2 n) of n pairs (a pair's
    # squared distance 2 - 2 cos averages 2), for 85 or 86 pairs and for all 256.
    levels = rec.exact(
        "sqrt(2 n) shows as 13 for both n = 85 and n = 86: 12.5^2 < 170 < 172 < 13.5^2",
        min(170 - Fraction(25, 2) ** 2, Fraction(27, 2) ** 2 - 172),
        0,
        relation=">",
        scope="exact rationals",
    )
    rec.quantity("typical_level_third", float(np.sqrt(170)), show=Show(sig=2), by=levels)
    all_text, all_low, all_high = cell(float(np.sqrt(512)), Show(sig=3))
    level_all = rec.band(
        f"sqrt(512) shows as {all_text}: its square 512 lies in the cell's squares",
        512,
        low=all_low**2,
        high=all_high**2,
        scope="exact rationals",
    )
    rec.quantity("typical_level_all", float(np.sqrt(512)), show=Show(sig=3), by=level_all)
    # The shares at every offset, not only the table's: the fast third from
    # k = 10 on, and the whole distance from k = 10^4 on, up to 10^5, swept in
    # float64 and checked against posenc.similarity at sampled offsets and at
    # the extremes of each sweep.
    fast = sweep(10, 10**5, THIRDS["fast"])  # (99,991,)
    late = sweep(10**4, 10**5, range(256))  # (90,001,)
    errors = []
    for values, first, third in ((fast, 10, THIRDS["fast"]), (late, 10**4, range(256))):
        picks = np.unique(
            np.concatenate(
                [[np.argmin(values), np.argmax(values)], rng.integers(0, values.size, 40)]
            )
        )
        pairs = np.arange(third.start, third.stop)
        library = distance_profile(picks + first, 512, pairs=pairs)  # (n,)
        errors.extend(np.abs(values[picks] - library))
    sweeps = rec.numeric(
        "float64 sweeps of the fast third (k = 10 .. 10^5) and of all pairs (k = 10^4 .. 10^5)"
        " agree with posenc.similarity",
        errors,
        tol=1e-9,
        scope="d = 512; each sweep's minimum, maximum and 40 random offsets; absolute error",
    )
    for name, values in (("fast_share", fast), ("late_share", late)):
        rec.quantity(f"{name}_min", float(values.min()), show=Show(decimals=1), by=sweeps)
        rec.quantity(f"{name}_max", float(values.max()), show=Show(decimals=1), by=sweeps)

    # Step 7. 10^5 positions, pairwise distinct: by step 2 the distance between
    # positions p and q is the distance between rows 0 and |p - q|, so the
    # smallest distance among positions 0 .. L-1 is the smallest over offsets
    # 1 .. L-1. From the library's table, in blocks of rows: by how much does
    # any offset come closer than the neighbours (offset 1)?
    length, width = 10**5, 512
    first = posenc.sinusoidal(1, width)[0]  # (512,): PE(0)
    neighbour = float(exact[1, "all"])
    shortfall = []
    for start in range(1, length, 8192):
        rows = posenc.sinusoidal(min(8192, length - start), width, start=start)  # (n, 512)
        gaps = np.linalg.norm(rows - first, axis=1)  # (n,): |PE(start + r) - PE(0)|
        shortfall.append(np.maximum(0.0, neighbour - gaps))
    rec.numeric(
        "among positions 0 .. 10^5 - 1 no two codes are closer than neighbours",
        np.concatenate(shortfall),
        tol=1e-12,
        scope="d = 512, every offset 1 .. 99,999, rows of posenc.sinusoidal; float64",
    )

    # Step 8. The question at the end of the page: width 2, one pair, distance
    # 2 |sin(k/2)|, at k = 6 and k = 710; and 710 positions are nearly a whole
    # number of turns of pair 0.
    errors, values = [], {}
    for offset in (6, 710):
        true = 2 * abs(mpmath.sin(mpmath.mpf(offset) / 2))
        values[offset] = true
        errors.append(float(abs(distance_profile(offset, 2) / true - 1)))
    small = rec.numeric(
        "width 2: posenc.similarity gives 2 |sin(k/2)| at k = 6 and 710, as mpmath does",
        errors,
        tol=1e-12,
        scope="d = 2, k in {6, 710}; relative error against mpmath at 30 digits",
    )
    rec.quantity("distance_d2_6", float(values[6]), show=Show(sig=3), by=small)
    rec.quantity("distance_d2_710", float(values[710]), show=Show(sig=2), by=small)
    turns = rec.exact(
        "710 positions are 113 turns of pair 0 to within 10^-5 of a turn: 710/(2 pi) near 113",
        min(
            Fraction(710) / (2 * PI_HIGH) - (113 - Fraction(1, 10**5)),
            (113 + Fraction(1, 10**5)) - Fraction(710) / (2 * PI_LOW),
        ),
        0,
        relation=">",
        scope="exact rationals, with the enclosure of pi of step 4",
    )
    rec.quantity("turns_710", 113, show=Show(), by=turns)

    # Step 9. The misreading's witness, in numbers: the code of the first
    # integer past 2 pi 10000, against the code of position 0, at width 512
    # (mpmath and posenc.similarity); and what a true period of 2 pi 10000
    # would leave there, the distance across the fraction 62,832 - 2 pi 10000.
    far = exact_share(62832, range(256))
    witness = rec.numeric(
        "|PE(62,832) - PE(0)| at d = 512: posenc.similarity agrees with mpmath",
        [float(abs(distance_profile(62832, 512) / far - 1))],
        tol=1e-14,
        scope="d = 512, k = 62,832; relative error against mpmath at 30 digits",
    )
    rec.quantity("distance_62832", float(far), show=Show(decimals=1), by=witness)
    fraction = 62832 - 20000 * mpmath.pi  # 0.147 positions past 2 pi 10000
    left = mpmath.sqrt(
        mpmath.fsum(
            4 * mpmath.sin(fraction * mpmath.power(10000, mpmath.mpf(-2 * n) / 512) / 2) ** 2
            for n in range(256)
        )
    )
    rec.band(
        "a true period of 2 pi 10000 would leave PE(62,832) less than 1 from PE(0)",
        float(left),
        low=0,
        high=1,
        samples=1,
        scope="d = 512: the distance across 62,832 - 2 pi 10000 positions; mpmath at 30 digits",
        quantity="repeat_distance",
        show=Show(sig=2),
    )


# -- misreadings -------------------------------------------------------------------


def _repeats_after_longest_wavelength(wit: Witness) -> None:
    # "About 63,000 distinct positions": the code would come back to its start
    # after 2 pi 10000 = 62,831.85... positions. If it did, position 62,832
    # would sit 0.147 positions past a full period, and its code would be
    # |PE(0.147) - PE(0)|, about 0.56, from PE(0). It is more than 20 away: the
    # margin 1 is nearly twice what a true period would leave, and far below
    # the distance found.
    mpmath.mp.dps = 30
    distance = exact_share(62832, range(256))
    wit.differs(
        float(distance),
        0,
        at="d = 512: |PE(62,832) - PE(0)|",
        margin=1,
        by="1, nearly twice the 0.56 that a true period of 2 pi 10000 would leave",
    )


MISREADINGS = [
    Misreading(
        "The code has only about 63,000 distinct positions: it repeats after 2 pi 10000",
        _repeats_after_longest_wavelength,
        why=(
            "A wavelength is the period of one pair, not of the code; pair 0 never returns "
            "exactly to its start at an integer, since pi is irrational."
        ),
    ),
]
