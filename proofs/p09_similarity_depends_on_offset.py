"""Proposition 9 (similarity depends only on the offset, and not on its sign).

For the sinusoidal code of width d (even) and base b > 1, the dot product of
the codes of two positions is a function of their offset k = q - p alone:
PE(p) . PE(q) = S(k) = sum_i cos(w_i k), w_i = b^(-2i/d). Its largest value is
S(0) = d/2; it is even, S(-k) = S(k), so the code alone cannot tell a position
k steps before from one k steps after; and it is not monotone in |k|: at
d = 128 and b = 10000 it falls at every step from k = 0 to k = 11 and rises
from k = 11 to k = 12. The values the page shows are computed with mpmath and
each is proven to round as shown by an exact rational enclosure.

Uses: 8.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import ladder
from posenc.similarity import dot_profile, first_rise
from proofs.exact import cell, inside_cell, pick
from proofs.kit import Check, Misreading, Recorder, Show, Witness, reduce_to_zero
from proofs.numbers import render

NUMBER = 9
TITLE = "Similarity depends only on the offset, and not on its sign"
USES = (8,)

# The numbers this proposition chooses: the width and base of the worked
# counterexample, the widest width at which the first rise is located, and
# the widest code of the distance check (widths 2, 4, ..).
INPUTS = {"width": 128, "base": 10000, "width_wide": 512, "distance_max_width": 4}

# Symbols, declared once. Positions and offsets are real (integers are the case
# that matters); each pair turns at its own speed w > 0.
p, q, k, x = sp.symbols("p q k x", real=True)
w = sp.Symbol("w", positive=True)
b = sp.Symbol("b", positive=True)
d = sp.Symbol("d", positive=True, even=True)
i = sp.Symbol("i", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i (Proposition 5)


def pair(position: sp.Expr, rate: sp.Expr = w) -> sp.Matrix:
    """One pair of the code at a position, in the paper's (sin, cos) order."""
    return sp.Matrix([sp.sin(rate * position), sp.cos(rate * position)])


def block(angle: sp.Expr) -> sp.Matrix:
    """The block of M_k for one pair (Proposition 8): block(w k) pair(p) = pair(p + k)."""
    return sp.Matrix([[sp.cos(angle), sp.sin(angle)], [-sp.sin(angle), sp.cos(angle)]])


def code(position: sp.Expr, width: int, base: sp.Expr = b) -> sp.Matrix:
    """PE(position) for the given width, symbolic in the base unless one is given."""
    rates = [base ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
    return sp.Matrix.vstack(*[pair(position, rate) for rate in rates])


def nonnegative(expr: sp.Expr) -> sp.Expr:
    """max(0, -expr), left unevaluated: it is 0 exactly when SymPy decides ``expr >= 0``.

    For every value the symbols' assumptions allow. Built unevaluated, so the
    kit evaluates it (and says so); when the assumptions cannot decide,
    ``Max`` stays as it is and does not reduce to 0.
    """
    return sp.Max(0, -expr, evaluate=False)


# -- exact enclosures of S(k) at width 128, base 10000 ------------------------------
# Integer arithmetic only. w_i = 10000^(-i/64) is enclosed between two fractions
# with denominator 10^20 by comparing 64th powers; each cosine is enclosed by its
# Taylor polynomial of degree 64 plus or minus the Lagrange bound on the
# remainder, |y|^66 / 66!, and by |cos u - cos v| <= |u - v|.

WIDTH, BASE = INPUTS["width"], INPUTS["base"]
DENOMINATOR = 10**20
TERMS = 32  # Taylor polynomial of degree 2 * TERMS


def speed_bounds() -> list[tuple[int, int]]:
    """(lo, hi) numerators over 10^20 around each w_i, from 40-digit mpmath values.

    The enclosure is checked exactly in step 7, not taken on trust.
    """
    with mpmath.workdps(40):
        return [
            (lo, lo + 1)
            for lo in (
                int(mpmath.floor(mpmath.power(BASE, mpmath.mpf(-2 * n) / WIDTH) * DENOMINATOR))
                for n in range(WIDTH // 2)
            )
        ]


# Every bound below is an integer over this one denominator, so sums stay integers.
COMMON = DENOMINATOR ** (2 * TERMS + 2) * math.factorial(2 * TERMS + 2)


def cos_bounds(numerator: int) -> tuple[int, int]:
    """Bounds on cos(y), y = numerator / 10^20 >= 0, as numerators over COMMON."""
    a2, q2 = numerator * numerator, DENOMINATOR * DENOMINATOR  # y^2 = a2 / q2
    top = math.factorial(2 * TERMS)
    # Horner in integers: sum_j (-1)^j y^(2j) / (2j)! times q2^TERMS * (2 TERMS)!.
    acc = (-1) ** TERMS
    for j in range(TERMS - 1, -1, -1):
        acc = acc * a2 + (-1) ** j * (top // math.factorial(2 * j)) * q2 ** (TERMS - j)
    value = acc * q2 * (2 * TERMS + 1) * (2 * TERMS + 2)  # over COMMON = q2^TERMS top * ...
    remainder = numerator ** (2 * TERMS + 2)  # y^66 / 66!, over COMMON
    return value - remainder, value + remainder


def dot_bounds(offset: int, speeds: list[tuple[int, int]]) -> tuple[Fraction, Fraction]:
    """Rational bounds on S(offset) = sum_i cos(offset w_i), for offset >= 0."""
    low = high = 0
    for lo, hi in speeds:
        c_low, c_high = cos_bounds(offset * lo)  # cos at the lower end of the angle
        spread = offset * (hi - lo) * (COMMON // DENOMINATOR)  # the angle interval's width
        low += c_low - spread
        high += c_high + spread
    return Fraction(low, COMMON), Fraction(high, COMMON)


def mp_profile(offsets: list[int], width: int) -> list[mpmath.mpf]:
    """S(k) for each offset at the given width, base 10000, mpmath at 40 digits."""
    with mpmath.workdps(40):
        rates = [mpmath.power(BASE, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
        return [mpmath.fsum(mpmath.cos(r * offset) for r in rates) for offset in offsets]


def rounds_as_shown(
    rec: Recorder,
    claim: str,
    enclosure: tuple[Fraction, Fraction],
    value: float,
    show: Show,
    *,
    scope: str,
    quantity: str | None = None,
) -> Check:
    """Prove that the true value rounds to what ``value`` shows: exact enclosure vs limits.

    ``value`` is the mpmath value; shown under ``show`` (``decimals=``) it reads
    some text t. The check is exact: the enclosure lies strictly inside
    (t - half a unit, t + half a unit), so the true value reads t too, under
    any rounding rule. With ``quantity=``, the shortest decimal inside the
    enclosure becomes that quantity: a number the check proved to lie within
    the enclosure's width of the true value (a float from mpmath need not).
    """
    shown = cell(value, show)
    check = inside_cell(
        rec,
        f"{claim} rounds to {shown.text}: its enclosure lies inside "
        f"({float(shown.low)}, {float(shown.high)})",
        enclosure,
        shown,
        scope=scope,
    )
    if quantity is not None:
        rec.quantity(quantity, pick(enclosure), show=show, by=check)
    return check


#: How the page shows a value of S: three decimals, as FACTS and the figure do.
THREE = Show(decimals=3)
#: The first rise at d = 128, decided by the exact enclosures of step 7.
FIRST_RISE = 12
#: The other widths at which step 9 locates the first rise by an mpmath scan.
OTHER_WIDTHS = (2, 16, 64, INPUTS["width_wide"])


def checks(rec: Recorder) -> None:
    # Step 1. One pair: the dot product of its points at p and q is
    # sin a sin c + cos a cos c = cos(a - c), which depends on q - p only.
    rec.identity(
        "one pair: pair(p) . pair(q) = cos(w (q - p))",
        pair(p).dot(pair(q)) - sp.cos(w * (q - p)),
        scope="all real p, q and every speed w > 0",
    )

    # Step 2. The same through Proposition 8: pair(p + k) = block(w k) pair(p),
    # so pair(p) . pair(p + k) = pair(p)^T block(w k) pair(p) = cos(w k): the
    # sine terms of the block cancel, and sin^2 + cos^2 = 1 is left.
    rec.identity(
        "pair(p)^T B(k) pair(p) = cos(w k), B(k) = R(w k)^T the block of M_k",
        (pair(p).T * block(w * k) * pair(p))[0, 0] - sp.cos(w * k),
        scope="all real p, k and every speed w > 0",
    )

    # Step 3. The whole code: the pairs add, with the speeds w_i = b^(-2i/d)
    # left symbolic in the base. And since |PE|^2 = d/2 (Proposition 5), the
    # squared distance is d - 2 S: checked directly at small widths.
    def whole(width: int) -> sp.Expr:
        rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
        return code(p, width).dot(code(q, width)) - sum(sp.cos(r * (q - p)) for r in rates)

    rec.instances(
        "PE(p) . PE(q) = sum_i cos(w_i (q - p))",
        ((f"d = {width}", whole(width)) for width in (2, 4, 6, 8)),
        scope="widths d = 2, 4, 6, 8; symbolic p, q and base",
    )

    def distance(width: int) -> sp.Expr:
        rates = [b ** (-sp.Rational(2 * n, width)) for n in range(width // 2)]
        gap = code(p, width) - code(q, width)
        return gap.dot(gap) - (width - 2 * sum(sp.cos(r * (q - p)) for r in rates))

    distance_widths = range(2, INPUTS["distance_max_width"] + 1, 2)
    rec.instances(
        "|PE(p) - PE(q)|^2 = d - 2 S(q - p)",
        ((f"d = {width}", distance(width)) for width in distance_widths),
        scope=f"widths d = {', '.join(map(str, distance_widths))}; symbolic p, q and base",
    )
    rec.exact(
        "the distance identity is checked up to the width the page names",
        max(distance_widths),
        INPUTS["distance_max_width"],
        scope="the last width of the instances against the input (integer comparison)",
    )

    # Step 4. The maximum. At k = 0 every cosine is 1, so S(0) = d/2: the sum
    # is built at k and k is put to 0 unevaluated, for every even d. And
    # d/2 - S(k) = sum_i (1 - cos(w_i k)) = sum_i 2 sin^2(w_i k / 2), a sum of
    # squares, so S(k) <= d/2 everywhere.
    s_of_k = sp.Sum(sp.cos(speed * k), (i, 0, d / 2 - 1))  # S(k), any even d
    rec.identity(
        "S(0) = d/2",
        sp.Sum(sp.Subs(sp.cos(speed * k), k, 0), (i, 0, d / 2 - 1)) - d / 2,
        scope="all b > 0, every even d > 0",
    )
    term = 2 * sp.sin(x / 2) ** 2  # one term of d/2 - S(k), x = w_i k; both checks read it

    def tied(width: int) -> sp.Expr:
        return code(p, width).dot(code(q, width)) - s_of_k.subs({d: width, k: q - p}).doit()

    rec.instances(
        "the S(k) of steps 4 and 5 is the dot product: S(q - p) = PE(p) . PE(q)",
        ((f"d = {width}", tied(width)) for width in (2, 4)),
        scope="widths d = 2, 4; symbolic p, q and base",
    )
    rec.identity(
        "each term: 1 - cos x = 2 sin^2(x / 2)",
        1 - sp.cos(x) - term,
        scope="all real x",
    )
    rec.identity(
        "each term is >= 0: 2 sin^2(x / 2) >= 0, so S(k) <= S(0)",
        nonnegative(term),
        scope="all real x (sign decided by SymPy's assumptions)",
    )

    # Step 5. The sign of the offset: cos is even, so S(-k) = S(k) for every
    # even d (the sum is built at k and k is put to -k unevaluated). On the
    # code itself: for each pair, and so for the sum over pairs of any width,
    # the position k steps ahead and the one k steps behind score alike.
    ahead, behind = p + k, p - k  # the positions k steps after p and k steps before it
    rec.exact(
        "the positions compared are 2k apart: 8 and 2 at p = 5, k = 3",
        (ahead - behind).subs({p: 5, k: 3}),
        6,
        scope="p = 5, k = 3, the misreading's example (integer comparison)",
    )
    rec.identity(
        "S(-k) = S(k)",
        sp.Subs(s_of_k, k, behind - p) - s_of_k,
        scope="all real k, b > 0, every even d > 0",
    )
    rec.identity(
        "one pair: pair(p) . pair(p + k) = pair(p) . pair(p - k)",
        pair(p).dot(pair(ahead)) - pair(p).dot(pair(behind)),
        scope="all real p, k and every speed w > 0",
    )

    def ahead_behind(width: int) -> sp.Expr:
        here = code(p, width)
        return here.dot(code(ahead, width)) - here.dot(code(behind, width))

    rec.instances(
        "PE(p) . PE(p + k) = PE(p) . PE(p - k), the whole code",
        ((f"d = {width}", ahead_behind(width)) for width in (2, 4)),
        scope="widths d = 2, 4; symbolic p, k and base",
    )

    # Step 6. Numeric spot check of step 3 at sampled integers, mpmath at 30 digits.
    rng = np.random.default_rng(9)
    errors = []
    with mpmath.workdps(30):
        for left, right in rng.integers(-(10**6), 10**6, size=(20, 2)):
            for width in (2, 16):
                rates = [mpmath.power(BASE, mpmath.mpf(-2 * n) / width) for n in range(width // 2)]
                direct = mpmath.fsum(
                    mpmath.sin(r * int(left)) * mpmath.sin(r * int(right))
                    + mpmath.cos(r * int(left)) * mpmath.cos(r * int(right))
                    for r in rates
                )
                offset = mpmath.fsum(mpmath.cos(r * int(right - left)) for r in rates)
                errors.append(float(abs(direct - offset)))
    rec.numeric(
        "PE(p) . PE(q) = sum_i cos(w_i (q - p)) at sampled integers",
        errors,
        tol=1e-25,
        scope="20 random (p, q) in [-10^6, 10^6)^2, d in {2, 16}; mpmath at 30 digits",
    )

    # Step 7. Not monotone: the d = 128 figures in exact rational arithmetic.
    # First the enclosures of the speeds: lo < w_i < hi iff lo^64 10000^i < 1 <
    # hi^64 10000^i (64th powers, since w_i^64 = 10000^(-i)).
    speeds = speed_bounds()
    half = WIDTH // 2  # w_i^half = BASE^(-i)
    scale = DENOMINATOR**half
    lower = [Fraction(lo**half * BASE**n, scale) for n, (lo, _) in enumerate(speeds)]
    rec.exact(
        "every w_i = 10000^(-i/64) lies above its lower bound lo_i",
        max(lower),
        1,
        relation="<=",
        scope="d = 128, all 64 pairs: lo_i^64 10000^i <= 1, exact integers",
    )
    rec.exact(
        "... and within 10^-20 of it: (lo_i / w_i)^64 > 1 - 10^-13",
        min(lower),
        Fraction("0.9999999999999"),
        relation=">",
        scope="d = 128, all 64 pairs: lo_i^64 10000^i > 1 - 10^-13 (64 10^-20 / w_63 < 10^-14), "
        "exact integers",
    )
    rec.exact(
        "... and below its upper bound hi_i = lo_i + 10^-20",
        1,
        min(Fraction(hi**half * BASE**n, scale) for n, (_, hi) in enumerate(speeds)),
        relation="<",
        scope="d = 128, all 64 pairs: hi_i^64 10000^i > 1, exact integers",
    )
    # The cosine enclosures against mpmath at 120 digits, at the angles
    # y = 1 .. 13 that pair 0 (w_0 = 1) and the d = 2 check of step 10 use.
    misses = []
    with mpmath.workdps(120):
        for angle in range(1, 14):
            c_low, c_high = cos_bounds(angle * DENOMINATOR)
            cosine = mpmath.cos(angle)
            low_gap = mpmath.mpf(c_low) / COMMON - cosine
            high_gap = cosine - mpmath.mpf(c_high) / COMMON
            misses.append(float(max(0, low_gap, high_gap)))
    rec.numeric(
        "each cosine enclosure (Taylor polynomial +- Lagrange bound) contains cos y",
        misses,
        tol=1e-100,
        scope="y = 1 .. 13; how far cos y lies outside [low, high], mpmath at 120 digits",
    )
    shown = range(FIRST_RISE + 2)  # S(0) .. S(13)
    bounds = [dot_bounds(offset, speeds) for offset in shown]
    rec.exact(
        f"S falls at every step from k = 0 to k = {FIRST_RISE - 1}: S(k) < S(k-1)",
        max(bounds[n][1] - bounds[n - 1][0] for n in range(1, FIRST_RISE)),
        0,
        relation="<",
        scope=f"d = 128, k = 1 .. {FIRST_RISE - 1}; exact rational enclosures of each S(k)",
    )
    rec.exact(
        f"then it rises: S({FIRST_RISE - 1}) < S({FIRST_RISE}), so k = {FIRST_RISE} "
        "is the first rise",
        bounds[FIRST_RISE - 1][1],
        bounds[FIRST_RISE][0],
        relation="<",
        scope=f"d = 128; exact rational enclosures of S({FIRST_RISE - 1}) and S({FIRST_RISE})",
    )
    # The offset the page names is read off the enclosures: the first k whose
    # enclosure lies wholly above that of k - 1 (the two checks above prove
    # that every step before it is a fall and that it is a rise).
    proven = next(n for n in range(1, len(bounds)) if bounds[n - 1][1] < bounds[n][0])
    rec.exact(
        f"the exact enclosures put the first rise at k = {FIRST_RISE}, the offset the "
        "statement names",
        proven,
        FIRST_RISE,
        scope=f"d = 128, k = 1 .. {len(bounds) - 1}; the first k whose enclosure lies above "
        "that of k - 1",
        quantity="rise_d128",
        show=Show(),
    )

    # The values the page and the figure show, S(6) and S(10) .. S(13) and the
    # rise S(12) - S(11): mpmath at 40 digits gives each value, the exact
    # enclosure proves it rounds as shown, and FACTS' three figures are read
    # off the run with rounds_to.
    values = dict(zip(shown, mp_profile(list(shown), WIDTH), strict=True))
    outside, ends_mp, ends = [], [], []
    with mpmath.workdps(40):
        for n, (low, high) in enumerate(bounds):
            low_mp = mpmath.mpf(low.numerator) / low.denominator
            high_mp = mpmath.mpf(high.numerator) / high.denominator
            outside.append(float(max(0, low_mp - values[n], values[n] - high_mp)))
            ends_mp += [low_mp, high_mp]
            ends += [low, high]
    rec.close(
        "the ends compared below are the enclosures' exact fractions, each to 40 digits",
        ends_mp,
        ends,
        tol=1e-35,
        scope="d = 128, k = 0 .. 13; both ends of each enclosure (mpmath, 40 digits) against "
        "the exact Fraction",
    )
    rec.numeric(
        "each enclosure of S(k) contains the mpmath value",
        outside,
        tol=1e-30,
        scope="d = 128, k = 0 .. 13; how far S(k) (mpmath, 40 digits) lies outside its enclosure",
    )
    facts = {6: "47.067", 11: "42.344", 12: "42.381"}  # FACTS section 2
    bound_values = 0
    for offset in (6, 10, 11, 12, 13):
        bound_values += 1
        name = f"s128_{offset}"
        scope = f"d = 128; exact rational enclosure of S({offset}) vs mpmath at 40 digits"
        if offset in facts:
            rounds_as_shown(
                rec, f"S({offset})", bounds[offset], float(values[offset]), THREE, scope=scope
            )
            rec.rounds_to(
                f"S({offset}) at d = 128 reads {facts[offset]}, the figure FACTS section 2 gives",
                float(values[offset]),
                facts[offset],
                show=THREE,
                scope="d = 128, b = 10000; mpmath at 40 digits",
                quantity=name,
            )
        else:
            rounds_as_shown(
                rec,
                f"S({offset})",
                bounds[offset],
                float(values[offset]),
                THREE,
                scope=scope,
                quantity=name,
            )
    rec.exact(
        "all five values of S at d = 128 that the page shows are proven to round as shown",
        bound_values,
        5,
        scope="S(6), S(10), S(11), S(12), S(13): a count of the loop's rounds",
    )
    (low_11, high_11), (low_12, high_12) = bounds[FIRST_RISE - 1], bounds[FIRST_RISE]
    rounds_as_shown(
        rec,
        f"the rise S({FIRST_RISE}) - S({FIRST_RISE - 1})",
        (low_12 - high_11, high_12 - low_11),
        float(values[FIRST_RISE] - values[FIRST_RISE - 1]),
        THREE,
        scope="d = 128; exact enclosures of S(11) and S(12) vs mpmath at 40 digits",
        quantity="s128_rise",
    )

    # Step 8. The library computes the same profile: posenc.similarity.dot_profile
    # against mpmath, and against dot products of rows of posenc.sinusoidal.
    # The figure writes dot_profile's values to three decimals: they read as
    # the quantities above.
    errors = []
    offsets = [0, 1, 6, 11, 12, 100, 62832, 10**6, -12]
    for width in (2, WIDTH, INPUTS["width_wide"]):
        got = dot_profile(offsets, width)
        for value, exact in zip(got.tolist(), mp_profile(offsets, width), strict=True):
            errors.append(float(abs(value - exact)))
    rec.numeric(
        "posenc.similarity.dot_profile(k, d) = sum_i cos(w_i k)",
        errors,
        tol=1e-13,
        scope=f"d in {{2, {WIDTH}, {INPUTS['width_wide']}}}, "
        "k in {0, 1, 6, 11, 12, 100, 62832, 10^6, -12}; "
        "absolute error vs mpmath at 40 digits",
    )
    table = posenc.sinusoidal(400, WIDTH)  # (400, 128)
    rows, cols = np.meshgrid(np.arange(0, 400, 7), np.arange(0, 400, 11), indexing="ij")
    dots = np.einsum("rcd,rcd->rc", table[rows], table[cols])  # (58, 37): PE(p) . PE(q)
    rec.numeric(
        "rows of posenc.sinusoidal: PE(p) . PE(q) = dot_profile(q - p)",
        dots - dot_profile(cols - rows, WIDTH),  # (58, 37)
        tol=1e-12,
        scope="d = 128, p in 0, 7, .., 399 and q in 0, 11, .., 396 (2,146 pairs); float64",
    )
    rec.exact(
        "the figure (posenc.figures.ladder.fig_similarity_offset) is drawn at width 128",
        inspect.signature(ladder.fig_similarity_offset).parameters["width"].default,
        WIDTH,
        scope="the figure's default width against the input (integer comparison)",
    )
    figure = dot_profile([10, 11, 12, 13], WIDTH).tolist()  # (4,): the figure's close-up
    pairs = list(zip(figure, (values[n] for n in (10, 11, 12, 13)), strict=True))
    pairs.append((figure[2] - figure[1], values[12] - values[11]))  # the rise it writes in
    rec.numeric(
        "the figure's close-up (dot_profile, float64) reads the same three decimals",
        [float(render(got, THREE) != render(float(exact), THREE)) for got, exact in pairs],
        tol=0,
        scope="d = 128, S(10) .. S(13) and S(12) - S(11); error = 1 where the texts differ",
    )
    rec.exact(
        f"posenc.similarity.first_rise(128) finds the same offset, {FIRST_RISE}",
        first_rise(WIDTH),
        FIRST_RISE,
        scope="integer comparison; the library scans in float64",
    )

    # Step 9. Where the first rise falls at other widths. A scan of mpmath
    # values finds it; the library's first_rise must agree, width by width.
    # The smallest step |S(n) - S(n-1)| in the scan is far above 40-digit
    # rounding, so the scan decides every sign.
    scanned = 0
    for width in OTHER_WIDTHS:
        scanned += 1
        scan = mp_profile(list(range(60)), width)
        found = next(n for n in range(1, 60) if scan[n] > scan[n - 1])
        smallest = min(float(abs(scan[n] - scan[n - 1])) for n in range(1, found + 1))
        rec.close(
            f"d = {width}: the mpmath scan's first rise, k = {found}, is "
            "posenc.similarity.first_rise's",
            found,
            first_rise(width),
            tol=0,
            scope=f"d = {width}, k = 0 .. 59; mpmath at 40 digits (smallest step seen "
            f"{smallest:.1e}) against the library's float64 scan",
            quantity=f"rise_d{width}",
            show=Show(),
        )
    rec.exact(
        "the first rise is located at all four other widths the page names",
        scanned,
        4,
        scope="d = 2, 16, 64, 512: a count of the scan's rounds",
    )

    # Step 10. The worked answer of the page's "Check yourself": at d = 2 the
    # only speed is w_0 = 1, so S(k) = cos k, enclosed exactly like the d = 128
    # values (with the speed exactly 1, the angle interval has width 0).
    unit = [(DENOMINATOR, DENOMINATOR)]  # w_0 = 1 exactly
    cosines = mp_profile([1, 2, 3, 4], 2)
    rounded = 0
    for offset, value in zip((1, 2, 3, 4), cosines, strict=True):
        rounded += 1
        rounds_as_shown(
            rec,
            f"d = 2: S({offset}) = cos {offset}",
            dot_bounds(offset, unit),
            float(value),
            THREE,
            scope=f"d = 2; exact rational enclosure of cos {offset} vs mpmath at 40 digits",
            quantity=f"s2_{offset}",
        )
    rec.exact(
        "all four values cos 1 .. cos 4 of the page's answer are proven to round as shown",
        rounded,
        4,
        scope="d = 2, k = 1 .. 4: a count of the loop's rounds",
    )


# -- misreadings -------------------------------------------------------------------


def _falls_with_distance(wit: Witness) -> None:
    # "The dot product falls as positions move apart": then S(12) <= S(11) at
    # d = 128. The exact enclosures of step 7 put S(11) strictly below S(12).
    speeds = speed_bounds()
    before, after = 11, 12  # the rise that step 7 proves first, FIRST_RISE = 12
    _, high = dot_bounds(before, speeds)
    low, _ = dot_bounds(after, speeds)
    wit.exact(
        high < low,
        at=f"d = 128: S({before}) < {float(high):.6f} < {float(low):.6f} < S({after}), "
        "exact rational enclosures",
    )


def _tells_before_from_after(wit: Witness) -> None:
    # "The dot product tells whether q is before or after p": then it would
    # differ for q = p + k and q = p - k. At d = 4, base 10000, p = 5, k = 3 the
    # difference is exactly zero.
    point = {b: 10000}
    here, ahead, behind = (code(n, 4).subs(point) for n in (5, 8, 2))
    difference = here.dot(ahead) - here.dot(behind)
    how = reduce_to_zero(difference)
    wit.exact(
        how is not None,
        at=f"d = 4, base 10000: PE(5) . PE(8) - PE(5) . PE(2) reduces to exactly 0 ({how})",
    )


MISREADINGS = [
    Misreading(
        "The dot product of two codes falls as the positions move apart",
        _falls_with_distance,
        why="S(k) is a sum of cosines of different speeds; as the fast ones come round it "
        "rises again, first at k = {{ rise_d128 }} for d = 128.",
    ),
    Misreading(
        "The dot product of the codes tells whether a position lies before or after another",
        _tells_before_from_after,
        why="cos is even, so S(-k) = S(k): k steps ahead and k steps behind score the same.",
    ),
]
