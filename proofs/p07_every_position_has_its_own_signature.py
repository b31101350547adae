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

import inspect
import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import ladder as figure
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
    "symbolic_d": 6,
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

D = INPUTS["d"]
B = INPUTS["base"]
HALF = D // 2  # the number of pairs

#: The table on the page: thirds of the d/2 pairs (step 6 checks they are the
#: figure's), and the offsets of its rows.
THIRDS = {
    "fast": range(0, INPUTS["fast_last"] + 1),
    "middle": range(INPUTS["middle_first"], INPUTS["middle_last"] + 1),
    "slow": range(INPUTS["slow_first"], INPUTS["last_pair"] + 1),
}
OFFSETS = (1, 10, INPUTS["offset_100"], INPUTS["offset_1000"], 10**4)

#: The first integer past 2 pi b, 62,832 at b = 10000: the witness of the
#: misreading (step 9 checks that it is the first).
PAST = int(2 * B * PI_HIGH) + 1


def pair(position: sp.Expr, rate: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at a position, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(rate * position), sp.cos(rate * position)])


def code(position: sp.Expr, width: int) -> sp.Matrix:
    """PE(position) for the given width, symbolic in the base."""
    rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(position, rate) for rate in rates])


def exact_share(k: int, pairs: range, width: int = D) -> mpmath.mpf:
    """sqrt(sum over pairs of 4 sin^2(w_i k / 2)), base b, at mpmath's precision."""
    return mpmath.sqrt(
        mpmath.fsum(
            4 * mpmath.sin(k * mpmath.power(B, mpmath.mpf(-2 * n) / width) / 2) ** 2 for n in pairs
        )
    )


def sweep(first: int, last: int, pairs: range) -> np.ndarray:
    """The share of ``pairs`` in |PE(p) - PE(p + k)| for k = first .. last, in float64."""
    rates = float(B) ** (-2.0 * np.arange(pairs.start, pairs.stop) / D)  # (m,)
    out = []
    for start in range(first, last + 1, 4096):
        k = np.arange(start, min(start + 4096, last + 1), dtype=np.float64)  # (n,)
        out.append(np.sqrt((4 * np.sin(np.outer(k, rates) / 2) ** 2).sum(axis=1)))
    return np.concatenate(out)  # (last - first + 1,)


def sqrt_enclosure(n: int, digits: int = 12) -> tuple[Fraction, Fraction]:
    """Rationals lo <= sqrt(n) < hi, 10^-digits apart (a check squares them)."""
    scale = 10**digits
    root = math.isqrt(n * scale * scale)
    return Fraction(root, scale), Fraction(root + 1, scale)


def convergent_denominators(low: Fraction, high: Fraction, limit: int) -> list[int] | None:
    """The convergent denominators q_0 = 1, q_1, ... of every x in [low, high], to past ``limit``.

    x = [a_0; a_1, a_2, ...] has q_(-1) = 0, q_0 = 1 and q_n = a_n q_(n-1) + q_(n-2).
    The numbers whose first terms are a_0 .. a_n form an interval, so while the
    terms of ``low`` and ``high`` agree, every x between them has those terms
    too. The list ends with the first denominator past ``limit``; None if the
    terms of the two ends part before it.
    """
    whole = low.numerator // low.denominator
    if high.numerator // high.denominator != whole:
        return None
    low, high = low - whole, high - whole
    before, now, out = 0, 1, [1]
    while now <= limit:
        if low == 0 or high == 0:
            return None
        low, high = 1 / low, 1 / high
        term = low.numerator // low.denominator
        if high.numerator // high.denominator != term:
            return None
        low, high = low - term, high - term
        before, now = now, term * now + before
        out.append(now)
    return out


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

    widths = range(2, INPUTS["symbolic_d"] + 1, 2)  # every even width up to symbolic_d
    whole_code = rec.instances(
        "|PE(p) - PE(q)|^2 = sum_i (2 - 2 cos(w_i (p - q)))",
        ((f"d = {width}", whole(width)) for width in widths),
        scope=f"widths d = {', '.join(map(str, widths))}; symbolic p, q and base",
    )
    rec.exact(
        "the whole-code cases are one for each even width 2 .. symbolic_d",
        whole_code.samples,
        INPUTS["symbolic_d"] // 2,
        scope="exact integers: the cases checked against the widths the page names",
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
    # comes to a full turn for k = 1 .. 10^6 (the input offsets). First pi,
    # enclosed exactly: sin changes sign between PI_LOW and PI_HIGH, and pi is
    # sin's only zero in (3, 4).
    enclose_pi(rec)
    # With m the multiple of 2 pi nearest to k, |k - 2 pi m| is bounded in exact
    # integers, in units of 2^-40, with 2 pi 2^40 enclosed by two integers.
    searched = INPUTS["offsets"]
    scale = 40
    two_pi_low = int(2 * PI_LOW * 2**scale)  # floor: <= 2 pi 2^40
    two_pi_high = math.ceil(2 * PI_HIGH * 2**scale)  # ceiling: >= 2 pi 2^40
    rec.exact(
        "2 pi 2^40 lies between two integers 1 apart: floor(2 PI_LOW 2^40), ceil(2 PI_HIGH 2^40)",
        two_pi_high - two_pi_low,
        1,
        scope="exact integers, from the enclosure of pi",
    )
    k = np.arange(1, searched + 1, dtype=np.int64)  # (searched,)
    m = np.rint(k / (2 * np.pi)).astype(np.int64)  # (searched,): a multiple; checked below
    assert int(m.max()) * two_pi_high < 2**62 and (int(k.max()) << scale) < 2**62  # no overflow
    rec.exact(
        f"the search looks at every offset k = 1 .. {searched:,}",
        (k.size != searched) + (int(k[0]) != 1) + (int(k[-1]) != searched),
        0,
        scope="exact integers: the number, first and last of the offsets searched against the "
        "range the page names, mismatches counted",
    )
    below = (k << scale) - m * two_pi_high  # (searched,): <= (k - 2 pi m) 2^40
    above = (k << scale) - m * two_pi_low  # (searched,): >= (k - 2 pi m) 2^40
    rec.exact(
        f"for k = 1 .. {searched:,}, |k - 2 pi m_k| < 6, so every other multiple of 2 pi is "
        "farther",
        Fraction(int(np.maximum(np.abs(below), np.abs(above)).max()), 2**scale),
        6,
        relation="<",
        scope=f"exact integers, every k = 1 .. {searched:,}; 2 pi enclosed to 2^-40",
    )
    # Every other multiple is then more than 2 pi - 6 > 0.28 away, far more than
    # the closest return below, so |k - 2 pi m_k| is the distance to a full turn.
    low = np.where(below > 0, below, np.where(above < 0, -above, 0))  # (searched,): lower bounds
    closest = int(np.argmin(low))
    # At that offset, a finer enclosure, straight from the bounds on pi: the
    # distance to the nearest full turn lies between |k - 2 PI_HIGH m| and
    # |k - 2 PI_LOW m| (both have the same sign there, which the check shows).
    k_star, m_star = int(k[closest]), int(m[closest])
    ends = sorted(abs(k_star - 2 * bound * m_star) for bound in (PI_LOW, PI_HIGH))
    same_sign = (k_star - 2 * PI_LOW * m_star) * (k_star - 2 * PI_HIGH * m_star) > 0
    lower, upper = ends if same_sign else (Fraction(0), ends[1])
    others = np.delete(low, closest)  # (searched - 1,)
    runner_up = Fraction(int(others.min()), 2**scale)  # the smallest lower bound elsewhere
    rec.exact(
        f"no other offset k <= {searched:,} brings pair 0 as close to a full turn as the "
        "closest one",
        runner_up,
        upper,
        relation=">",
        scope="exact integers: the smallest lower bound elsewhere above the upper bound there",
    )
    # That lower bound, against the distance at its own offset enclosed straight
    # from the bounds on pi, as at the closest offset: 2 pi 2^40 is rounded to an
    # integer by less than 1, so the bound lies below the enclosure by less than m 2^-40.
    spot = int(np.argmin(others))
    spot += spot >= closest  # its index in k, past the closest offset
    k_next, m_next = int(k[spot]), int(m[spot])
    near = [k_next - 2 * bound * m_next for bound in (PI_LOW, PI_HIGH)]
    near_low = min(abs(near[0]), abs(near[1])) if near[0] * near[1] > 0 else Fraction(0)
    rec.band(
        "the smallest lower bound elsewhere lies within m 2^-40 below the distance to a full "
        "turn at its offset",
        runner_up,
        low=near_low - Fraction(m_next, 2**scale),
        high=near_low,
        scope="exact rationals: at that offset k, |k - 2 pi m| enclosed with the enclosure of "
        "pi (both ends of one sign); m the multiple of 2 pi nearest to k",
    )
    # The offset the search found, against where the theory of continued
    # fractions puts it: |k - 2 pi m| = 2 pi |k / (2 pi) - m|, and among k <= N
    # it is smallest at the largest convergent denominator q_n <= N of 1/(2 pi)
    # (best approximations of the second kind, Lagrange: cited, not checked).
    # The continued fraction is read off both ends of the enclosure of 1/(2 pi).
    denominators = convergent_denominators(1 / (2 * PI_HIGH), 1 / (2 * PI_LOW), searched)
    assert denominators is not None, "the enclosure of pi is too wide for this range"
    rec.exact(
        f"the closest return is at the largest convergent denominator of 1/(2 pi) up to "
        f"{searched:,}",
        k_star,
        denominators[-2],
        scope="exact rationals: the search above against the continued fraction of 1/(2 pi), "
        "its terms the same at both ends of the enclosure of pi",
        quantity="closest_return_offset",
        show=Show(),
    )
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
            rates = [mpmath.power(B, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
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
    # thirds are the figure's: numpy.array_split of the pairs of its default
    # width (d) into three, as posenc.figures.ladder.fig_position_signature does.
    drawn_width = inspect.signature(figure.fig_position_signature).parameters["width"].default
    split = np.array_split(np.arange(drawn_width // 2), 3)
    rec.exact(
        "the thirds of the table are the figure's: pairs "
        + ", ".join(f"{third.start}-{third.stop - 1}" for third in THIRDS.values()),
        sum(list(part) != list(third) for part, third in zip(split, THIRDS.values(), strict=True)),
        0,
        scope=f"exact integers: numpy.array_split(range({drawn_width // 2}), 3), the figure's "
        "thirds, against the table's",
    )
    # The share of each third at the table's offsets, from
    # posenc.similarity.distance_profile against mpmath at 30 digits. The page
    # shows the library's values, the very numbers the check compares with mpmath.
    exact, got = {}, {}
    for offset in OFFSETS:
        for name, third in [*THIRDS.items(), ("all", range(HALF))]:
            exact[offset, name] = exact_share(offset, third)
            chosen = np.arange(third.start, third.stop)
            got[offset, name] = float(distance_profile(offset, D, base=B, pairs=chosen))
    keys = list(exact)
    table = rec.close(
        "posenc.similarity.distance_profile gives each third's share, as mpmath does",
        [got[key] for key in keys],
        [exact[key] for key in keys],
        tol=1e-12,
        scope=f"d = {D}, offsets {', '.join(map(str, OFFSETS))}, the three thirds and all "
        "pairs; absolute error",
    )
    for offset, name in keys:
        value = got[offset, name]
        rec.quantity(f"share_{offset}_{name}", value, show=Show(decimals=4), by=table)
    # How the slow third grows: the factor from one offset of the table to the
    # next, the library's ratio against mpmath's.
    steps = list(itertools.pairwise(OFFSETS))
    growth_got = [got[after, "slow"] / got[before, "slow"] for before, after in steps]
    growth_true = [exact[after, "slow"] / exact[before, "slow"] for before, after in steps]
    growth = rec.close(
        "the slow third's growth from one offset of the table to the next, as mpmath gives it",
        growth_got,
        growth_true,
        tol=1e-12,
        scope=f"d = {D}, the slow third, neighbouring offsets of the table; absolute error",
    )
    for (_, after), value in zip(steps, growth_got, strict=True):
        rec.quantity(f"slow_growth_{after}", value, show=Show(sig=3), by=growth)
    # Where each share settles: the typical level sqrt(2 n) of n pairs (a pair's
    # squared distance 2 - 2 cos averages 2), for the pairs of a third (85 or
    # 86) and for all d/2. Each sqrt(2 n) is enclosed by rationals whose
    # squares bracket 2 n; the enclosures must lie inside the cell of the text shown.
    sizes = sorted({len(third) for third in THIRDS.values()})  # the pairs of each third
    counted, bounds = {}, {}  # by the number n of pairs: the check, and lo, hi
    for n in sizes:
        bounds[n] = sqrt_enclosure(2 * n)
        lo, hi = bounds[n]
        band_low, band_high = lo**2 / 2, hi**2 / 2
        counted[n] = rec.band(
            f"a third of {n} pairs: sqrt(2 n) lies in [lo, hi], 10^-12 apart: "
            "lo^2 / 2 <= n <= hi^2 / 2",
            n,
            low=band_low,
            high=band_high,
            scope="exact rationals",
        )
        rec.exact(
            f"a third of {n} pairs: the band [lo^2 / 2, hi^2 / 2] is 10^-12 (lo + hi) / 2 wide, "
            "as lo and hi 10^-12 apart make it",
            band_high - band_low,
            Fraction(1, 10**12) * (lo + hi) / 2,
            scope="exact rationals: the ends of the band above against hi - lo = 10^-12",
        )
    fewest, most = sizes[0], sizes[-1]
    # Three thirds of d/2 pairs hold floor(d/6) or ceil(d/6) pairs each: the page's
    # "85 or 86" against the split the figure and the shares use.
    rec.exact(
        "the smallest third holds floor(d / 6) pairs",
        fewest,
        HALF // 3,
        scope="the thirds of the d/2 pairs the shares are taken over",
        quantity="third_pairs_fewest",
        show=Show(),
    )
    rec.exact(
        "the largest third holds ceil(d / 6) pairs",
        most,
        -(-HALF // 3),
        scope="the thirds of the d/2 pairs the shares are taken over",
        quantity="third_pairs_most",
        show=Show(),
    )
    third_low, third_high = bounds[fewest][0], bounds[most][1]  # sqrt(2 n) grows with n
    third_shown = cell(float(third_low), Show(sig=2))
    levels = inside_cell(
        rec,
        f"sqrt(2 n) shows as {third_shown.text} for every third's n: the enclosures lie "
        "inside that rounding cell",
        (third_low, third_high),
        third_shown,
        scope="exact rationals, from the enclosures above",
    )
    level = float(sum(bounds[fewest]) / 2)  # sqrt(2 n) for the fewest pairs
    rec.quantity("typical_level_third", level, show=Show(sig=2), by=levels)
    all_low, all_high = sqrt_enclosure(2 * HALF)
    square_low, square_high = all_low**2, all_high**2
    rec.band(
        f"all {HALF} pairs: sqrt(2 n) lies in [lo, hi], 10^-12 apart: lo^2 <= 2 n <= hi^2",
        2 * HALF,
        low=square_low,
        high=square_high,
        scope="exact rationals",
    )
    rec.exact(
        f"all {HALF} pairs: the band [lo^2, hi^2] is 10^-12 (lo + hi) wide, as lo and hi "
        "10^-12 apart make it",
        square_high - square_low,
        Fraction(1, 10**12) * (all_low + all_high),
        scope="exact rationals: the ends of the band above against hi - lo = 10^-12",
    )
    all_shown = cell(float(all_low), Show(sig=3))
    level_all = inside_cell(
        rec,
        f"sqrt({2 * HALF}) shows as {all_shown.text}: its enclosure lies inside that cell",
        (all_low, all_high),
        all_shown,
        scope="exact rationals, from the enclosure above",
    )
    rec.quantity(
        "typical_level_all", float((all_low + all_high) / 2), show=Show(sig=3), by=level_all
    )
    # The shares at every offset, not only the table's: the fast third from
    # k = 10 on, and the whole distance from the table's last offset on, up to
    # the input positions (10^5), swept in float64 and checked against
    # posenc.similarity at sampled offsets and at the extremes of each sweep.
    length = INPUTS["positions"]
    fast = sweep(10, length, THIRDS["fast"])  # (length - 9,)
    late = sweep(OFFSETS[-1], length, range(HALF))  # (length - 10^4 + 1,)
    swept, library = [], []
    for values, first, third in ((fast, 10, THIRDS["fast"]), (late, OFFSETS[-1], range(HALF))):
        picks = np.unique(
            np.concatenate(
                [[np.argmin(values), np.argmax(values)], rng.integers(0, values.size, 40)]
            )
        )
        pairs = np.arange(third.start, third.stop)
        swept.extend(float(v) for v in values[picks])
        library.extend(float(v) for v in distance_profile(picks + first, D, base=B, pairs=pairs))
    sweeps = rec.close(
        f"float64 sweeps of the fast third (k = 10 .. {length:,}) and of all pairs "
        f"(k = {OFFSETS[-1]:,} .. {length:,}) agree with posenc.similarity",
        swept,
        library,
        tol=1e-9,
        scope=f"d = {D}; each sweep's minimum, maximum and 40 random offsets; absolute error",
    )
    for name, values in (("fast_share", fast), ("late_share", late)):
        rec.quantity(f"{name}_min", float(values.min()), show=Show(decimals=1), by=sweeps)
        rec.quantity(f"{name}_max", float(values.max()), show=Show(decimals=1), by=sweeps)
    # The page says "every k": each sweep holds one value per offset it names.
    rec.exact(
        f"the sweeps hold every offset k = 10 .. {length:,} and {OFFSETS[-1]:,} .. {length:,}",
        (fast.size != length - 10 + 1) + (late.size != length - OFFSETS[-1] + 1),
        0,
        scope="exact integers: the length of each sweep against its range, mismatches counted",
    )

    # Step 7. The first 10^5 positions (the input), pairwise distinct: by step 2
    # the distance between positions p and q is the distance between rows 0 and
    # |p - q|, so the smallest distance among positions 0 .. L-1 is the
    # smallest over offsets 1 .. L-1. From the library's table, in blocks of
    # rows: by how much does any offset come closer than the neighbours (offset 1)?
    first = posenc.sinusoidal(1, D)[0]  # (d,): PE(0)
    neighbour = got[1, "all"]  # the page's share_1_all
    shortfall, distances = [], []
    for start in range(1, length, 8192):
        rows = posenc.sinusoidal(min(8192, length - start), D, start=start)  # (n, d)
        gaps = np.linalg.norm(rows - first, axis=1)  # (n,): |PE(start + r) - PE(0)|
        shortfall.append(np.maximum(0.0, neighbour - gaps))
        distances.append(gaps)
    apart = rec.numeric(
        f"among positions 0 .. {length:,} - 1 no two codes are closer than neighbours",
        np.concatenate(shortfall),
        tol=1e-12,
        scope=f"d = {D}, every offset 1 .. {length - 1:,}, rows of posenc.sinusoidal; float64",
    )
    rec.exact(
        f"the comparison above looked at every offset 1 .. {length - 1:,}",
        apart.samples,
        length - 1,
        scope="exact integers: the offsets compared against the range the page names",
    )
    # The distances the comparison read, against mpmath at 30 digits at offset 1,
    # at the smallest and largest, and at 40 random offsets; and the smallest is
    # the neighbours'.
    distances = np.concatenate(distances)  # (length - 1,): offsets 1 .. length - 1
    picks = np.unique(
        np.concatenate(
            [[1, np.argmin(distances) + 1, np.argmax(distances) + 1], rng.integers(1, length, 40)]
        )
    )
    rec.close(
        "the rows of posenc.sinusoidal give |PE(k) - PE(0)| as mpmath does",
        [float(distances[offset - 1]) for offset in picks],
        [exact_share(int(offset), range(HALF)) for offset in picks],
        tol=1e-12,
        scope=f"d = {D}; offset 1, the offsets of the smallest and largest distance and 40 "
        f"random offsets in 1 .. {length - 1:,}; absolute error against mpmath at 30 digits",
    )
    rec.exact(
        f"among offsets 1 .. {length - 1:,} the distance from PE(0) is smallest at offset 1",
        int(np.argmin(distances)) + 1,
        1,
        scope="exact integers: the offset of the smallest distance compared above",
    )

    # Step 8. The question at the end of the page: width 2, one pair, distance
    # 2 |sin(k/2)|, at k = 6 and k = 710; and 710 positions are nearly a whole
    # number of turns of pair 0.
    for offset, show in ((6, Show(sig=3)), (710, Show(sig=2))):
        true = 2 * abs(mpmath.sin(mpmath.mpf(offset) / 2))
        library_value = float(distance_profile(offset, 2, base=B))
        small = rec.close(
            f"width 2: posenc.similarity gives 2 |sin(k/2)| at k = {offset}, as mpmath does",
            library_value,
            true,
            tol=1e-12 * float(true),
            scope=f"d = 2, k = {offset}; within 10^-12 of the value, against mpmath at 30 digits",
        )
        rec.quantity(f"distance_d2_{offset}", library_value, show=show, by=small)
    # The whole number n of turns nearest to 710/(2 pi), and what is left over,
    # 710/(2 pi) - n, enclosed with the enclosure of pi of step 4 and checked
    # against mpmath.
    turns = round(Fraction(710) / (2 * PI_LOW))
    rec.exact(
        "the whole number of turns nearest to 710/(2 pi) is the one mpmath gives",
        turns,
        int(mpmath.nint(710 / (2 * mpmath.pi))),
        scope="exact integers: 710 / (2 PI_LOW) rounded, against mpmath at 30 digits rounded",
        quantity="turns_710",
        show=Show(),
    )
    over = sorted(Fraction(710) / (2 * bound) - turns for bound in (PI_LOW, PI_HIGH))
    rec.band(
        f"mpmath's 710/(2 pi) - {turns} lies in its enclosure from the bounds on pi",
        float(710 / (2 * mpmath.pi) - turns),
        low=over[0],
        high=over[1],
        samples=1,
        scope="exact rationals, with the enclosure of pi of step 4; mpmath at 30 digits",
    )
    over_shown = cell(float(sum(over) / 2), Show(sig=2))
    inside_cell(
        rec,
        f"710 positions are {turns} turns of pair 0 and {over_shown.text} of a turn more "
        "(enclosure inside the cell)",
        (over[0], over[1]),
        over_shown,
        scope="exact rationals, with the enclosure of pi of step 4",
    )

    # Step 9. The misreading's witness, in numbers: the first integer past
    # 2 pi b (62,832), its code against the code of position 0 at width d
    # (mpmath and posenc.similarity); and what a true period of 2 pi b would
    # leave there, the distance across the fraction 62,832 - 2 pi b.
    # PAST - 1 is the floor of 2 b PI_HIGH by its definition; the same floor at
    # 2 b PI_LOW puts 2 pi b, between the two, strictly between PAST - 1 and PAST.
    rec.exact(
        f"{PAST:,} is the first integer past 2 pi b: {PAST - 1:,} < 2 pi b < {PAST:,}, "
        "the floor of 2 b pi the same at both ends of the enclosure of pi",
        int(2 * B * PI_LOW),
        PAST - 1,
        scope=f"exact rationals, b = {B}, with the enclosure of pi of step 4",
    )
    far = exact_share(PAST, range(HALF))
    measured = float(distance_profile(PAST, D, base=B))
    witness = rec.close(
        f"|PE({PAST:,}) - PE(0)| at d = {D}: posenc.similarity agrees with mpmath",
        measured,
        far,
        tol=1e-12,
        scope=f"d = {D}, k = {PAST:,}; absolute error against mpmath at 30 digits",
    )
    rec.quantity(f"distance_{PAST}", measured, show=Show(decimals=1), by=witness)
    fraction = PAST - 2 * B * mpmath.pi  # 0.147 positions past 2 pi 10000
    left = mpmath.sqrt(
        mpmath.fsum(
            4 * mpmath.sin(fraction * mpmath.power(B, mpmath.mpf(-2 * n) / D) / 2) ** 2
            for n in range(HALF)
        )
    )
    # The library's value: PE(0) moved by the fraction with posenc.shift_matrix,
    # whose M_k takes PE(p) to PE(p + k) for every real k (its documentation);
    # nothing rests on that: the check compares the result with mpmath.
    moved = posenc.shift_matrix(float(fraction), D, base=B) @ first  # (d,): PE(fraction)
    repeat = float(np.linalg.norm(moved - first))
    rec.close(
        f"|PE({PAST:,} - 2 pi b) - PE(0)|: posenc.shift_matrix moving PE(0) gives it as "
        "mpmath does",
        repeat,
        left,
        tol=1e-12,
        scope=f"d = {D}, k = {PAST:,} - 2 pi b; absolute error against mpmath at 30 digits",
        quantity="repeat_distance",
        show=Show(sig=2),
    )
    rec.band(
        f"a true period of 2 pi b would leave PE({PAST:,}) less than 1 from PE(0)",
        repeat,
        low=0,
        high=1,
        samples=1,
        scope=f"d = {D}: the distance across {PAST:,} - 2 pi b positions, from the library",
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
    distance = exact_share(PAST, range(HALF))
    wit.differs(
        float(distance),
        0,
        at=f"d = {D}: |PE({PAST:,}) - PE(0)|",
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
