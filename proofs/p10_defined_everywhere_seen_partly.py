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

import inspect
import itertools
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import extrapolation
from proofs.kit import Check, Misreading, Recorder, Show, Witness

NUMBER = 10
TITLE = "Defined everywhere, seen only partly"
USES = (5, 8)

# The numbers this proposition chooses: the paper's width and base, three
# training lengths, a far position, the width and length of the figure and of
# the worked question, and a sourced constant (GPT-2's learned table has 1,024
# rows, Radford et al. 2019).
INPUTS = {
    "d": 512,
    "base": 10000,
    "length_short": 512,
    "length_mid": 1024,
    "length_long": 2048,
    "far_position": 10**6,
    "fig_width": 64,
    "fig_length": 128,
    "fig_twice": 256,
    "fig_four_times": 512,
    "question_length": 100,
    "gpt2_positions": 1024,
}

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
WIDTH, BASE = INPUTS["d"], INPUTS["base"]
LENGTHS = (INPUTS["length_short"], INPUTS["length_mid"], INPUTS["length_long"])
PARTLY_SEEN = {512: 133, 1024: 114, 2048: 95}  # pairs with lambda_i > L
SLOWEST = WIDTH // 2 - 1  # pair 255

# pi enclosed by rationals: the float64 neighbours of pi bracket it.
PI_LOW = Fraction(3141592653589793, 10**15)
PI_HIGH = Fraction(3141592653589794, 10**15)
#: A speed w_i = b^(-2i/d) is enclosed between two fractions with this denominator.
SPEED_DENOMINATOR = 10**12


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


def speed_enclosure(index: int, width: int = WIDTH) -> tuple[Fraction, Fraction]:
    """(lo, hi) with lo <= w_index < hi, two fractions over 10^12, from mpmath.

    Not taken on trust: :func:`speed_enclosure_holds` decides it in integers.
    """
    with mpmath.workdps(40):
        top = int(mpmath.floor(mpmath.power(BASE, mpmath.mpf(-2 * index) / width) * 10**12))
    return Fraction(top, SPEED_DENOMINATOR), Fraction(top + 1, SPEED_DENOMINATOR)


def encloses(lo: Fraction, hi: Fraction, index: int, width: int = WIDTH) -> bool:
    """lo^d b^(2i) <= 1 < hi^d b^(2i), exact: so lo <= w_i < hi, as w_i^d = b^(-2i)."""
    power = BASE ** (2 * index)
    return lo**width * power <= 1 < hi**width * power


def speed_enclosure_holds(index: int, width: int = WIDTH) -> bool:
    """The enclosure of :func:`speed_enclosure` holds, decided by :func:`encloses`."""
    lo, hi = speed_enclosure(index, width)
    return encloses(lo, hi, index, width)


def mp_speed(index: int, width: int = WIDTH) -> mpmath.mpf:
    """w_index at 40 digits."""
    with mpmath.workdps(40):
        return mpmath.power(BASE, mpmath.mpf(-2 * index) / width)


def formula_norm(position: int) -> sp.Expr:
    """|PE(position)|^2 from the formula at d = 512, b = 10000: sin^2 + cos^2 summed over pairs."""
    p = sp.Integer(position)
    return sum(
        sp.sin(p * sp.Integer(BASE) ** sp.Rational(-2 * index, WIDTH)) ** 2
        + sp.cos(p * sp.Integer(BASE) ** sp.Rational(-2 * index, WIDTH)) ** 2
        for index in range(WIDTH // 2)
    )


def in_band(
    rec: Recorder,
    name: str,
    claim: str,
    value: mpmath.mpf,
    bounds: tuple[Fraction, Fraction],
    show: Show,
    *,
    scope: str,
) -> Check:
    """The mpmath value lies inside the exact enclosure: it becomes quantity ``name``."""
    low, high = sorted(bounds)
    return rec.band(
        claim,
        float(value),
        low=low,
        high=high,
        scope=scope,
        samples=1,
        quantity=name,
        show=show,
    )


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
    # (L-1) w_i / (2 pi) = (L-1) / lambda_i (capped at 1 once it wraps): this
    # is lambda_i = 2 pi / w_i restated, and SymPy sees it as written.
    rec.identity(
        "by definition of lambda_i = 2 pi / w_i, the seen arc (L-1) w_i is the fraction "
        "(L-1)/lambda_i of a turn",
        (L - 1) * speed / (2 * sp.pi) - (L - 1) / wavelength,
        scope="all L > 0, integers i >= 0, even d > 0, b > 0",
    )

    # Step 3. Why positions past L show new angles. For a training position n and
    # a later position pos, the two angles differ by (pos - l) w_i, and
    #   2 pi - (pos - l) w_i = w_i (lambda_i - pos + l).
    # For 0 <= l <= L-1 < L <= pos < lambda_i both (pos - n) w_i and the right
    # side are positive, so the difference lies strictly between 0 and a full
    # turn: the angles are different points of the circle. With n = 0 and
    # pos = L this is the criterion: L w_i < 2 pi exactly when lambda_i > L.
    rec.identity(
        "2 pi - (pos - l) w_i = w_i (lambda_i - pos + l), l a training position",
        2 * sp.pi - (pos - n) * speed - speed * (wavelength - pos + n),
        scope="all real pos, n, integers i >= 0, even d > 0, b > 0",
    )

    # Step 4. The counts at d = 512, b = 10000, decided pair by pair in exact
    # arithmetic (see wavelength_exceeds): pairs with lambda_i > L. No
    # wavelength falls in (L-1, L], so counting lambda_i > L - 1 (the pairs
    # whose seen fraction is below 1) gives the same pairs.
    lam = posenc.wavelengths(WIDTH)  # (256,)
    rec.exact(
        "posenc.wavelengths(512) has d/2 entries, one per pair",
        len(lam),
        WIDTH // 2,
        scope="d = 512",
        quantity="pairs",
        show=Show(),
    )
    first_partly = {}
    for length in LENGTHS:
        rec.exact(
            f"at d = 512, L = {length}: {PARTLY_SEEN[length]} of 256 pairs have lambda_i > L",
            count_longer_than(length),
            PARTLY_SEEN[length],
            scope="every pair i = 0..255, b = 10000, 3.141592653589793 < pi < 3.141592653589794",
            quantity=f"partly_l{length}",
            show=Show(),
        )
        first_partly[length] = next(
            index for index in range(WIDTH // 2) if wavelength_exceeds(index, length)
        )
        rec.exact(
            f"L = {length}: the pairs with lambda_i > L are i = {first_partly[length]} .. 255, "
            "the slowest ones",
            first_partly[length],
            WIDTH // 2 - count_longer_than(length),
            scope="d = 512; the first pair with lambda_i > L, and the count, both exact",
            quantity=f"first_l{length}",
            show=Show(),
        )
    rec.exact(
        "no wavelength at d = 512 lies in (L-1, L] for these L",
        sum(count_longer_than(length - 1) - count_longer_than(length) for length in LENGTHS),
        0,
        scope="L in {512, 1024, 2048}, every pair, exact integer comparisons",
    )

    # The threshold behind the counts: lambda_i > L exactly when
    # i > t_L = (d/2) log_b(L / 2 pi). Its value (mpmath) lies between the last
    # fully seen pair and the first partly seen one, as the exact counts say.
    # Doubling L adds (d/2) log_b 2 to t_L (an identity), and the exact counts
    # drop by that much up to rounding to whole pairs.
    def threshold(length: sp.Expr) -> sp.Expr:
        return d / 2 * sp.log(length / (2 * sp.pi)) / sp.log(b)

    rec.identity(
        "doubling L moves the threshold by (d/2) log_b 2: t_(2L) - t_L = (d/2) log_b 2",
        threshold(2 * L) - threshold(L) - d / 2 * sp.log(2) / sp.log(b),
        scope="all L > 0, b > 0 (b != 1), even d > 0",
    )
    thresholds = {}
    with mpmath.workdps(40):
        for length in LENGTHS:
            value = WIDTH / 2 * mpmath.log(length / (2 * mpmath.pi)) / mpmath.log(BASE)
            thresholds[length] = value
            rec.band(
                f"t_L = (d/2) log_b(L / 2 pi) lies between pairs {first_partly[length] - 1} "
                f"and {first_partly[length]} (L = {length})",
                float(value),
                low=first_partly[length] - 1,
                high=first_partly[length],
                scope="d = 512, b = 10000; mpmath at 40 digits vs the exact counts",
                samples=1,
                quantity=f"threshold_l{length}",
                show=Show(decimals=1),
            )
        per_doubling = WIDTH / 2 * mpmath.log(2) / mpmath.log(BASE)
        rec.close(
            "the mpmath thresholds step by (d/2) log_b 2 from L = 512 to 1024 to 2048",
            [thresholds[c] - thresholds[a] for a, c in itertools.pairwise(LENGTHS)],
            [per_doubling, per_doubling],
            tol=1e-30,
            scope="d = 512, b = 10000; mpmath at 40 digits",
        )
    drops = [PARTLY_SEEN[a] - PARTLY_SEEN[c] for a, c in itertools.pairwise(LENGTHS)]
    # Within one whole pair of every drop: (d/2) log_b 2 lies in
    # [max(drops) - 1, min(drops) + 1].
    rec.band(
        "each doubling of L drops the exact count by (d/2) log_b 2, up to one whole pair",
        float(per_doubling),
        low=max(drops) - 1,
        high=min(drops) + 1,
        scope="d = 512, L = 512 -> 1024 -> 2048; counts exact, (d/2) log_b 2 in mpmath",
        samples=1,
        quantity="per_doubling",
        show=Show(decimals=1),
    )
    rec.exact(
        f"both doublings move the same number of pairs, {drops[0]}",
        max(drops),
        min(drops),
        scope="d = 512, L = 512 -> 1024 -> 2048; differences of the exact counts",
        quantity="drop_per_doubling",
        show=Show(),
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

    # The slowest pair, i = 255, in numbers: its wavelength (FACTS: 60,611.5),
    # the share (L-1)/lambda of its circle seen at L = 512, and its angles at
    # the last training position 511 and at 1024 = 2L. Each mpmath value lies
    # inside an exact enclosure built from w_255 between two fractions (checked
    # in integers) and pi between two fractions.
    rec.exact(
        "w_255 = 10000^(-255/256) lies in [lo, lo + 10^-12)",
        int(speed_enclosure_holds(SLOWEST)),
        1,
        scope="d = 512: lo^512 10000^510 <= 1 < hi^512 10000^510, exact integers",
    )
    lo, hi = speed_enclosure(SLOWEST)
    step = Fraction(1, SPEED_DENOMINATOR)
    rec.exact(
        "the same test rejects the neighbouring intervals [lo - 10^-12, lo) and [hi, hi + 10^-12)",
        int(any((encloses(lo - step, lo, SLOWEST), encloses(hi, hi + step, SLOWEST)))),
        0,
        scope="d = 512, pair 255: a control, exact integers",
    )
    omega = mp_speed(SLOWEST)
    last, twice = LENGTHS[0] - 1, 2 * LENGTHS[0]
    scope = "d = 512, pair 255; mpmath at 40 digits inside exact bounds on w_255 and pi"
    with mpmath.workdps(40):
        slow_lambda = 2 * mpmath.pi / omega
        in_band(
            rec,
            "lambda_255",
            "lambda_255 = 2 pi / w_255",
            slow_lambda,
            (2 * PI_LOW / hi, 2 * PI_HIGH / lo),
            Show(decimals=1),
            scope=scope,
        )
        rec.rounds_to(
            "lambda_255 reads 60,611.5, the figure FACTS section 2 gives",
            float(slow_lambda),
            "60,611.5",
            show=Show(decimals=1),
            scope="d = 512, b = 10000; mpmath at 40 digits",
        )
        in_band(
            rec,
            "seen_slowest_l512",
            "L = 512: pair 255 has seen (L-1)/lambda_255 of its circle",
            last / slow_lambda,
            (last * lo / (2 * PI_HIGH), last * hi / (2 * PI_LOW)),
            Show(sig=2, percent=True),
            scope=scope,
        )
        in_band(
            rec,
            "arc_slowest_l512",
            "L = 512: the seen arc of pair 255 ends at (L-1) w_255 rad",
            last * omega,
            (last * lo, last * hi),
            Show(decimals=4),
            scope=scope,
        )
        in_band(
            rec,
            "angle_slowest_2l",
            "pair 255 at position 2L = 1024 sits at 1024 w_255 rad",
            twice * omega,
            (twice * lo, twice * hi),
            Show(decimals=4),
            scope=scope,
        )
        slow_rows = [
            posenc.sinusoidal(1, WIDTH, start=p)[0] for p in (LENGTHS[0] - 1, 2 * LENGTHS[0])
        ]
        rec.close(
            "posenc.sinusoidal's rows 511 and 1024 put pair 255 at (L-1) w_255 and 2L w_255 rad",
            [last * omega, twice * omega],
            [mpmath.atan2(row[2 * SLOWEST], row[2 * SLOWEST + 1]) for row in slow_rows],
            tol=1e-15,
            scope="d = 512, pair 255, positions 511 and 1024; float64 library vs mpmath",
        )

    # Step 6. Numeric spot check of the identity of step 3 at sampled points.
    rng = np.random.default_rng(10)
    gap = sp.lambdify(
        (pos, n, b, d, i),
        2 * sp.pi - (pos - n) * speed - speed * (wavelength - pos + n),
        "numpy",
    )
    points = rng.uniform([0, 0, 2, 0], [5000, 5000, 20000, 255], (50, 4))  # (50, 4)
    rec.numeric(
        "the identity of step 3 at sampled points",
        [
            float(gap(where, seen, base, 512, np.floor(index)))
            for where, seen, base, index in points
        ],
        tol=1e-9,
        scope="50 random (pos, n, b, i) in [0, 5000]^2 x [2, 20000] x {0..254}, d = 512, float64",
    )

    # Step 7. The library agrees. posenc.wavelengths gives the same counts, and
    # posenc.sinusoidal is defined far past any training length: rows at
    # positions near one million match mpmath and have |PE|^2 = d/2.
    rec.numeric(
        "posenc.wavelengths(512) has the same number of wavelengths above L",
        [
            abs(int(np.sum(lam > x)) - PARTLY_SEEN[length])
            for length in LENGTHS
            for x in (length - 1, length)
        ],
        tol=0,
        scope="d = 512, L in {512, 1024, 2048}, counted above L - 1 and above L, float64",
    )
    start = INPUTS["far_position"] - 1
    rec.exact(
        "the far positions checked below lie past every training length",
        start,
        max(LENGTHS),
        relation=">",
        scope="positions 999,999..1,000,001 against L = 2048",
    )
    rec.close(
        "the formula's |PE(10^6)|^2 (sin^2 + cos^2 over 256 pairs) equals d/2",
        formula_norm(INPUTS["far_position"]),
        WIDTH // 2,
        tol=1e-30,
        scope="d = 512, b = 10000, pos = 10^6; SymPy at 50 digits",
    )
    far = posenc.sinusoidal(3, WIDTH, start=start)  # (3, 512): positions 999999 .. 1000001
    errors = []
    with mpmath.workdps(40):
        for row, p in enumerate(range(start, start + 3)):
            for index in range(0, WIDTH // 2, 15):
                angle = p * mpmath.power(BASE, mpmath.mpf(-2 * index) / WIDTH)
                errors.append(float(abs(far[row, 2 * index] - mpmath.sin(angle))))
                errors.append(float(abs(far[row, 2 * index + 1] - mpmath.cos(angle))))
    rec.numeric(
        "posenc.sinusoidal at positions near 10^6 equals sin, cos of pos w_i",
        errors,
        tol=1e-15,
        scope="d = 512, positions 999,999..1,000,001, every 15th pair; mpmath at 40 digits",
    )
    norms = np.einsum("pd,pd->p", far, far)  # (3,): |PE(pos)|^2
    rec.numeric(
        "posenc.sinusoidal rows near 10^6 have |PE(pos)|^2 = d/2",
        norms - WIDTH / 2,
        tol=1e-12,
        scope="d = 512, positions 999,999..1,000,001, float64",
    )
    # GPT-2's learned table has rows 0 .. 1023 (Radford et al. 2019): position
    # 1024 has none. The sinusoidal code has a row there, of the usual length.
    missing = INPUTS["gpt2_positions"]
    row = posenc.sinusoidal(1, WIDTH, start=missing)[0]  # (512,): PE(1024)
    rec.numeric(
        f"position {missing}, the first with no row in GPT-2's table of {missing}, has a "
        "sinusoidal row with |PE|^2 = d/2",
        [float(row @ row - WIDTH / 2)],
        tol=1e-12,
        scope=f"d = 512, position {missing}, float64",
    )

    # Step 8. The figure: width 64, training length 128. The pairs that have
    # seen their whole circle and those with lambda_i > L, exactly; the share
    # pairs 16 and 24 have seen (the figure's titles, to whole per cents); and
    # where positions 2L and 4L land on pairs 6, 12, 16 and 24. The error of a
    # landing is how far the point is on the wrong side of the seen arc's end
    # (0 when the figure's verdict holds), in mpmath.
    width, length = INPUTS["fig_width"], INPUTS["fig_length"]
    new = {6: False, 12: False, 16: True, 24: True}  # the verdicts the figure draws
    drawn = inspect.signature(extrapolation.fig_seen_arcs).parameters
    rec.exact(
        f"the figure is drawn at width {width} and L = {length}, for pairs "
        f"{', '.join(map(str, new))}, and marks 2L = {INPUTS['fig_twice']} and "
        f"4L = {INPUTS['fig_four_times']}",
        int(drawn["width"].default != width)
        + int(drawn["length"].default != length)
        + int(tuple(drawn["pairs"].default) != tuple(new))
        + int(INPUTS["fig_twice"] != 2 * length)
        + int(INPUTS["fig_four_times"] != 4 * length),
        0,
        scope="posenc.figures.extrapolation.fig_seen_arcs's defaults against the inputs "
        "(count of mismatches)",
    )
    partly = count_longer_than(length, width)
    rec.exact(
        f"figure, d = 64, L = 128: {partly} pairs have lambda_i > L, the same as lambda_i > L - 1",
        partly,
        count_longer_than(length - 1, width),
        scope="every pair i = 0..31, b = 10000, decided exactly",
        quantity="fig_partly",
        show=Show(),
    )
    full = rec.exact(
        "figure: the other pairs have lambda_i <= L - 1 and have seen their whole circle",
        width // 2 - partly,
        sum(not wavelength_exceeds(index, length - 1, width) for index in range(width // 2)),
        scope="every pair i = 0..31, decided exactly",
    )
    rec.quantity("fig_full", width // 2 - partly, show=Show(), by=full)
    shares = {}
    title_show = Show(decimals=0, percent=True)  # the figure's titles: whole per cents
    for index in (16, 24):
        low, high = speed_enclosure(index, width)
        with mpmath.workdps(40):
            share = (length - 1) * mp_speed(index, width) / (2 * mpmath.pi)
        shares[index] = share
        in_band(
            rec,
            f"fig_seen_{index}",
            f"figure: pair {index} has seen (L-1)/lambda_{index}",
            share,
            ((length - 1) * low / (2 * PI_HIGH), (length - 1) * high / (2 * PI_LOW)),
            title_show,
            scope="d = 64, L = 128; mpmath inside exact bounds on w_i and pi",
        )
    # The page's shares read as the figure's titles do ("seen {:.0%}" of
    # (L-1)/lambda from posenc.wavelengths).
    lam_fig = posenc.wavelengths(width)  # (32,)
    rec.rounds_to(
        "figure: pair 16's share reads as the figure's title for it",
        float(shares[16]),
        f"{(length - 1) / lam_fig[16]:.0%}",
        show=title_show,
        scope="d = 64, L = 128; mpmath value vs posenc.wavelengths in the figure's format",
    )
    rec.rounds_to(
        "figure: pair 24's share reads as the figure's title for it",
        float(shares[24]),
        f"{(length - 1) / lam_fig[24]:.0%}",
        show=title_show,
        scope="d = 64, L = 128; mpmath value vs posenc.wavelengths in the figure's format",
    )
    landing = []
    with mpmath.workdps(40):
        for index, expect_new in new.items():
            omega = mp_speed(index, width)
            sweep = (length - 1) * omega
            for position in (INPUTS["fig_twice"], INPUTS["fig_four_times"]):
                angle = mpmath.fmod(position * omega, 2 * mpmath.pi)
                if expect_new:
                    landing.append(float(max(0, sweep - angle)))
                elif sweep < 2 * mpmath.pi:
                    landing.append(float(max(0, angle - sweep)))
                else:
                    # the whole circle was seen: 0 as long as sweep >= 2 pi
                    landing.append(float(max(0, 2 * mpmath.pi - sweep)))
    rec.numeric(
        "figure: 2L and 4L land on the seen arc for pairs 6 and 12, past it for 16 and 24",
        landing,
        tol=0,
        scope="d = 64, L = 128, positions 256 and 512; mpmath at 40 digits",
    )

    # Step 9. The worked question of the page: d = 4, L = 100. w_1 = 10000^(-1/2)
    # = 1/100 exactly; lambda_0 = 2 pi < L - 1 < L < lambda_1 = 200 pi, and
    # position 200 lies below lambda_1. The shown values lie inside bounds
    # from pi's enclosure.
    length = INPUTS["question_length"]
    rec.exact(
        "d = 4: w_1 = 10000^(-1/2) = 1/100",
        sp.Integer(BASE) ** sp.Rational(-1, 2),
        Fraction(1, 100),
        scope="exact",
        quantity="question_speed",
        show=Show(decimals=2),
    )
    facts = (
        not wavelength_exceeds(0, length - 1, 4),  # lambda_0 <= L - 1: the whole circle seen
        wavelength_exceeds(1, length, 4),  # lambda_1 > L: only part of it
        wavelength_exceeds(1, 200, 4),  # position 200 still lies below lambda_1
    )
    rec.exact(
        "d = 4, L = 100: lambda_0 <= L - 1, lambda_1 > L and lambda_1 > 200 (all three hold)",
        sum(facts),
        len(facts),
        scope="d = 4, L = 100, decided exactly",
    )
    rec.exact(
        "d = 4: the seen arc of pair 1 ends at (L-1) w_1 = 99/100 rad",
        (length - 1) * Fraction(1, 100),
        Fraction(99, 100),
        scope="exact",
        quantity="question_arc",
        show=Show(decimals=2),
    )
    with mpmath.workdps(40):
        two_pi = 2 * mpmath.pi
        in_band(
            rec,
            "question_lambda0",
            "d = 4: lambda_0 = 2 pi",
            two_pi,
            (2 * PI_LOW, 2 * PI_HIGH),
            Show(decimals=2),
            scope="pi enclosed exactly",
        )
        in_band(
            rec,
            "question_lambda1",
            "d = 4: lambda_1 = 200 pi",
            100 * two_pi,
            (200 * PI_LOW, 200 * PI_HIGH),
            Show(decimals=1),
            scope="pi enclosed exactly",
        )
        in_band(
            rec,
            "question_share",
            "d = 4, L = 100: pair 1 has seen (L-1)/lambda_1",
            (length - 1) / (100 * two_pi),
            (Fraction(length - 1) / (200 * PI_HIGH), Fraction(length - 1) / (200 * PI_LOW)),
            Show(sig=3, percent=True),
            scope="pi enclosed exactly",
        )


# -- misreadings -------------------------------------------------------------------


def _seen_every_pattern(wit: Witness) -> None:
    # "Training on 0..L-1 has shown every pair every angle it will ever take."
    # At d = 512, L = 512 the slowest pair, i = 255, at pos = 2L = 1024: the
    # seen angles are n w for n = 0..511, and by step 3 the angle 1024 w
    # differs from each by (1024 - n) w, strictly between 0 and 2 pi, as soon
    # as L <= 1024 < lambda_255. Both inequalities are decided exactly.
    length, index, where = LENGTHS[0], SLOWEST, 2 * LENGTHS[0]
    omega = mp_speed(index)
    with mpmath.workdps(40):
        shown = (
            f"{mpmath.nstr(2 * mpmath.pi / omega, 7)}",
            f"{mpmath.nstr(where * omega, 4)}",
            f"{mpmath.nstr((length - 1) * omega, 3)}",
        )
    wit.exact(
        length <= where and wavelength_exceeds(index, where),
        at=(
            f"d = 512, L = {length}, pair {index}, pos = {where}: {length} <= {where} < "
            f"lambda_{index} (about {shown[0]}), so the angle {where} w_{index} "
            f"({shown[1]} rad) lies past the seen arc [0, {length - 1} w_{index}] "
            f"(0 to {shown[2]} rad) and short of a full turn"
        ),
    )


def _stops_at_length(wit: Witness) -> None:
    # "Past the training length the sinusoidal code has nothing to offer, like a
    # learned table with L rows": no vector there, squared length 0. The formula
    # at pos = 10^6 is a unit vector on every pair: |PE(10^6)|^2 = d/2, not 0.
    # formula_norm is pinned to d/2 at this position by a check of step 7.
    wit.differs(
        formula_norm(INPUTS["far_position"]),
        0,
        at="d = 512, b = 10000, pos = 10^6, |PE(pos)|^2 from the formula",
        margin=1,
        by="the squared length of one pair's unit vector",
    )


MISREADINGS = [
    Misreading(
        "Training on positions 0..L-1 shows every pair all the angles it will take later,"
        " so a sinusoidal model has seen every position's pattern and extrapolates",
        _seen_every_pattern,
        why=(
            "A pair whose wavelength exceeds L has swept only the arc [0, (L-1) w_i];"
            " positions from L up to lambda_i put it at angles it never showed."
        ),
    ),
    Misreading(
        "The sinusoidal code stops at the training length, like a learned table",
        _stops_at_length,
        why="The formula is defined at every position; at 10^6 it is a unit vector per pair.",
    ),
]
