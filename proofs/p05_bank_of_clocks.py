"""Proposition 5 (the bank of clocks).

In the sinusoidal code of width d (even) and base b > 1, pair i (columns 2i and
2i+1, i = 0 .. d/2 - 1) is a clock hand that turns at the angular speed
w_i = b^(-2i/d) radians per position. Its wavelength 2*pi*b^(2i/d) is the
number of positions for one full turn; the wavelengths form a geometric
progression with ratio b^(2/d). Every pair lies on the unit circle, so
|PE(pos)|^2 = d/2 at every position.

The proof also computes the worked example every implementation must
reproduce (3 positions, width 4, base 10000) at 50 digits, compares it with
the figures the source quotes and with posenc.sinusoidal, and computes the
wavelengths the page's figure shows.

Uses: none.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import clocks as figure
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 5
TITLE = "The bank of clocks"
USES = ()

#: Numbers the proposition chooses: the paper's base and the width of the
#: question at the top of the page (the numeric checks sample it too).
INPUTS = {"base": 10000, "d": 512}
B = INPUTS["base"]
D = INPUTS["d"]

#: The figure as the page describes it: positions 0 .. 39 of width 32, with
#: the waves of pairs 0, 2 and 6 drawn beneath (step 8 checks the figure's defaults).
FIGURE = {"length": 40, "width": 32, "pairs": (0, 2, 6)}

# Symbols, declared once, with the assumptions the statement makes.
pos, t = sp.symbols("pos t", real=True)
b = sp.Symbol("b", positive=True)  # the base; b > 1 in the statement, b > 0 suffices below
d = sp.Symbol("d", positive=True, even=True)
i, j = sp.symbols("i j", integer=True, nonnegative=True)

speed = b ** (-2 * i / d)  # w_i
wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i
ratio = b ** (2 / d)  # the ratio of neighbouring wavelengths

#: The worked example as the source quotes it (FACTS section 2), to 6
#: significant digits, written out in full: "0.99995" there is 0.999950 here.
WORKED = {  # (pos, column): the text the value must show as
    (1, 0): "0.841471",
    (1, 1): "0.540302",
    (1, 2): "0.00999983",
    (1, 3): "0.999950",
    (2, 0): "0.909297",
    (2, 1): "-0.416147",
    (2, 2): "0.0199987",
    (2, 3): "0.999800",
}


def pe_pair(p: sp.Expr, index: sp.Expr = i) -> tuple[sp.Expr, sp.Expr]:
    """Columns 2i and 2i+1 of the paper's formula at position p."""
    angle = p / b ** (2 * index / d)
    return sp.sin(angle), sp.cos(angle)


def pe_exact(position: int, column: int, width: int, base: int = B) -> mpmath.mpf:
    """PE(position, column) at the working precision of mpmath, from the formula."""
    angle = position / mpmath.power(base, mpmath.mpf(2 * (column // 2)) / width)
    return mpmath.sin(angle) if column % 2 == 0 else mpmath.cos(angle)


def checks(rec: Recorder) -> None:
    # Step 1. The paper writes the angle as pos / b^(2i/d); calling its rate w_i
    # is a definition, not a fact.
    rec.identity(
        "by definition, the angle of pair i is pos * w_i with w_i = b^(-2i/d)",
        pos / b ** (2 * i / d) - pos * speed,
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 2. The angle grows at the constant rate w_i: its derivative in pos,
    # taken by SymPy, does not depend on pos. A hand turning at constant speed.
    rec.identity(
        "d(angle)/d(pos) = w_i, the same at every position",
        sp.Derivative(pos * speed, pos) - speed,
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 3. The wavelength is defined as the shift that adds one full turn,
    # 2 pi / w_i. That the pair then repeats is a fact about sin and cos: shift
    # the position by lambda_i inside the formula and compare.
    rec.identity(
        "by definition, lambda_i = 2 pi / w_i (one full turn of the angle)",
        wavelength - 2 * sp.pi / speed,
        scope="b > 0, even d > 0, integers i >= 0",
    )
    s_now, c_now = pe_pair(pos)
    s_later, c_later = pe_pair(pos + wavelength)
    rec.identity(
        "PE(pos + lambda_i) = PE(pos) on pair i",
        sp.Matrix([s_later - s_now, c_later - c_now]),
        scope="all real pos, integers i >= 0, even d > 0, b > 0",
    )

    # Step 4. Neighbouring wavelengths have the constant ratio b^(2/d), so the
    # ladder is geometric: i steps of that ratio from lambda_0 = 2 pi give
    # lambda_i (the product is evaluated by SymPy).
    rec.identity(
        "lambda_(i+1) / lambda_i = b^(2/d), the same for every i",
        wavelength.subs(i, i + 1) / wavelength - ratio,
        scope="b > 0, even d > 0, integers i >= 0",
    )
    rec.identity(
        "lambda_i = 2 pi times i steps of the ratio: 2 pi prod_(j < i) b^(2/d)",
        2 * sp.pi * sp.Product(ratio, (j, 0, i - 1)) - wavelength,
        scope="b > 0, even d > 0, integers i >= 0",
    )

    # Step 5. Each pair is a point on the unit circle, so the squared length of
    # the code is the number of pairs, d/2, whatever the position: SymPy counts
    # the terms of the sum over i = 0 .. d/2 - 1 for symbolic d.
    s, c = pe_pair(pos)
    rec.identity(
        "sin^2 + cos^2 = 1 on every pair", s**2 + c**2 - 1, scope="all real pos, i, d, b > 0"
    )
    rec.identity(
        "|PE(pos)|^2 = sum over the d/2 pairs of 1 = d/2 (each pair is 1 by the check above)",
        sp.Sum(1, (i, 0, d / 2 - 1)) - d / 2,
        scope="every even d > 0: the sum runs over i = 0 .. d/2 - 1",
    )
    # At d = 4 the ratio is 10000^(2/4), an exact integer: the two wavelengths of
    # the question at the end of the page are 2 pi and 2 pi times it.
    rec.exact(
        f"at d = 4, b = {B}: lambda_1 / lambda_0 = b^(2/4) = 100",
        sp.Integer(B) ** sp.Rational(2, 4),
        100,
        scope=f"exact integers: the square root of {B}",
        quantity="ratio_4",
        show=Show(),
    )

    # Step 6. The worked example: 3 positions, width 4, base 10000. Each entry
    # of rows 1 and 2 from the formula at 50 digits, against the figures the
    # source quotes (6 significant digits), then posenc.sinusoidal against the
    # same 50-digit values, row 0 included.
    mpmath.mp.dps = 50
    for (position, column), text in WORKED.items():
        rec.rounds_to(
            f"PE({position}, {column}) at width 4 shows as the source's {text}",
            float(pe_exact(position, column, 4)),
            text,
            show=Show(sig=6),
            scope="mpmath at 50 digits; 6 significant figures",
            quantity=f"pe_{position}_{column}",
        )
    table = posenc.sinusoidal(3, 4)  # (3, 4)
    small = posenc.sinusoidal(2, 2)  # (2, 2): the source's second example
    errors = [
        float(abs(table[p, col] - pe_exact(p, col, 4))) for p in range(3) for col in range(4)
    ]
    errors += [
        float(abs(small[p, col] - pe_exact(p, col, 2))) for p in range(2) for col in range(2)
    ]
    rec.numeric(
        "posenc.sinusoidal(3, 4) and (2, 2) reproduce the worked examples",
        errors,
        tol=2e-16,
        scope="every entry of both tables; absolute error against mpmath at 50 digits",
    )

    # Step 7. Numeric spot check of steps 3 and 5 at 30 digits: the pair repeats
    # after its wavelength, and its squared length is 1, at sampled (d, i, pos).
    mpmath.mp.dps = 30
    repeats, lengths = [], []
    for width in (2, 8, D):
        for index in range(0, width // 2, max(1, width // 16)):
            # The speed from mpmath, the wavelength from SymPy's lambda_i of step 3:
            # two independent evaluations, so a wrong speed breaks the repeat.
            w_exact = mpmath.power(B, mpmath.mpf(-2 * index) / width)
            lam = mpmath.mpf(wavelength.subs({b: B, d: width, i: index}).evalf(30))
            repeats.append(abs(lam * w_exact / (2 * mpmath.pi) - 1))  # one full turn
            for start in (0, 1, 7, 1000, 123456):
                now, later = start * w_exact, (start + lam) * w_exact
                repeats.append(abs(mpmath.sin(later) - mpmath.sin(now)))
                repeats.append(abs(mpmath.cos(later) - mpmath.cos(now)))
                lengths.append(abs(mpmath.sin(now) ** 2 + mpmath.cos(now) ** 2 - 1))
    # Five positions at each sampled pair: 1 pair of d = 2, 4 of d = 8, 8 of d = D.
    rec.exact(
        "step 7 sampled five positions at each of the 13 pairs",
        len(lengths),
        5 * (1 + 4 + 8),
        scope="d = 2 (1 pair), 8 (4 pairs), D (every D/16-th pair: 8); "
        "pos in {0, 1, 7, 1000, 123456}",
    )
    rec.numeric(
        "lambda_i w_i = 2 pi, PE(pos + lambda_i) = PE(pos) and sin^2 + cos^2 = 1 on pair i, "
        "at sampled (d, i, pos)",
        [float(e) for e in repeats + lengths],
        tol=1e-24,
        scope=f"d in {{2, 8, {D}}}, i sampled, pos in {{0, 1, 7, 1000, 123456}}; mpmath at "
        "30 digits",
    )

    # Step 8. The library computes the same clocks: posenc.frequencies and
    # posenc.wavelengths against mpmath (relative errors) at every pair of
    # sampled widths.
    relative = []
    for width in (2, 4, 32, 64, D):
        got_speeds = posenc.frequencies(width, base=B)
        got_lengths = posenc.wavelengths(width, base=B)
        for k in range(width // 2):
            true = mpmath.power(B, mpmath.mpf(-2 * k) / width)
            relative.append(float(abs(mpmath.mpf(got_speeds[k]) / true - 1)))
            relative.append(float(abs(got_lengths[k] * true / (2 * mpmath.pi) - 1)))
    rec.numeric(
        "posenc.frequencies and posenc.wavelengths match b^(-2i/d) and 2 pi b^(2i/d)",
        relative,
        tol=4e-16,
        scope=f"d in {{2, 4, 32, 64, {D}}}, every i; relative error against mpmath at 30 digits",
    )
    # The figure the page describes is posenc.figures.clocks.fig_clock_bank as
    # drawn, with its defaults: they must be the length, width and pairs the
    # page names.
    parameters = inspect.signature(figure.fig_clock_bank).parameters
    drawn = {name: parameters[name].default for name in FIGURE}
    rec.exact(
        "the figure draws positions 0 .. 39 of width 32 and waves of pairs 0, 2 and 6",
        sum(
            tuple(np.atleast_1d(drawn[name])) != tuple(np.atleast_1d(FIGURE[name]))
            for name in FIGURE
        ),
        0,
        scope="exact integers: fig_clock_bank's defaults against the page's, mismatches counted",
    )
    # The wavelengths the page quotes: the three the figure labels (width 32,
    # pairs 0, 2 and 6) and pair 1 of width 4, from posenc.wavelengths against
    # 2 pi b^(2i/d) at 30 digits. The page shows the library's values, the
    # very numbers this check compares with the formula.
    quoted = (*((FIGURE["width"], k) for k in FIGURE["pairs"]), (4, 1))  # (width, pair)
    library = [float(posenc.wavelengths(width, base=B)[k]) for width, k in quoted]
    truth = [2 * mpmath.pi * mpmath.power(B, mpmath.mpf(2 * k) / width) for width, k in quoted]
    wavelengths = rec.close(
        "posenc.wavelengths at the pairs the page quotes equals 2 pi b^(2i/d)",
        library,
        truth,
        tol=1e-12,
        scope="d = 32, pairs 0, 2, 6 and d = 4, pair 1; absolute error against mpmath at "
        "30 digits",
    )
    # One call per quantity (no loop that could be emptied unnoticed).
    rec.quantity("wavelength_pair_0", library[0], show=Show(sig=4), by=wavelengths)
    rec.quantity("two_pi", library[0], show=Show(sig=3), by=wavelengths)
    rec.quantity("wavelength_32_2", library[1], show=Show(sig=4), by=wavelengths)
    rec.quantity("wavelength_32_6", library[2], show=Show(sig=4), by=wavelengths)
    rec.quantity("wavelength_4_1", library[3], show=Show(sig=4), by=wavelengths)
    # The figure's slowest wave (pair 6 of width 32) is drawn over positions
    # 0 .. 39: by then it has turned by less than a quarter turn, pi/2.
    slowest, last, width = max(FIGURE["pairs"]), FIGURE["length"] - 1, FIGURE["width"]
    turned = float(last * mpmath.power(B, mpmath.mpf(-2 * slowest) / width) / (mpmath.pi / 2))
    # By hand: 39 w_6 / (pi/2) with w_6 = 10000^(-12/32) = 1000^(-1/2) is 78 / (pi sqrt(1000)).
    rec.close(
        f"the turn of pair {slowest} of width {width} at position {last}, in quarter turns, "
        "is 78 / (pi sqrt(1000))",
        turned,
        78 / (sp.pi * sp.sqrt(1000)),
        tol=1e-15,
        scope="position 39, pair 6 of width 32, b = 10000: mpmath at 30 digits against the "
        "closed form",
    )
    rec.band(
        f"pair {slowest} of width {width} has turned less than a quarter turn at position {last}",
        turned,
        low=0,
        high=1,
        samples=1,
        scope=f"{last} w_{slowest} / (pi/2) at d = {width}, b = {B}; mpmath at 30 digits",
    )
    norms = []
    for length, width in ((2000, 128), (8, 4)):
        table = posenc.sinusoidal(length, width)  # (L, d)
        norms.append(np.einsum("pd,pd->p", table, table) - width / 2)  # (L,): |PE|^2 - d/2
    rec.numeric(
        "posenc.sinusoidal rows have |PE(pos)|^2 = d/2",
        np.concatenate(norms),
        tol=1e-12,
        scope="d = 128, positions 0 .. 1999, and d = 4, positions 0 .. 7; float64",
    )


# -- misreadings -------------------------------------------------------------------


def _ends_at_base(wit: Witness) -> None:
    # The paper's prose: "wavelengths form a geometric progression from 2 pi to
    # 10000 * 2 pi". The formula's last pair is i = d/2 - 1. At d = 512 its
    # wavelength 2 pi 10000^(255/256) falls short of 2 pi 10000 by more than 1
    # per cent of 2 pi 10000, so even a loose reading of "up to" fails.
    top = wavelength.subs({i: 255, d: 512, b: 10000})
    # The misread end 2 pi 10000 is the rung i = d/2 = 256: 2 pi 10000^(512/512).
    misread_end = wavelength.subs({i: 256, d: 512, b: 10000})
    wit.differs(
        top,
        misread_end,
        at="d = 512, i = 255 (the last pair)",
        margin=Fraction(628),
        by="628 positions, under 1 per cent of 2 pi 10000",
    )


def _linear_ladder(wit: Witness) -> None:
    # "The wavelengths grow evenly (an arithmetic ladder)": at d = 6 the rungs
    # are 2 pi times 1, 10000^(1/3), 10000^(2/3), and the second gap exceeds the
    # first by far more than the first gap itself (about 129 positions).
    at = {d: 6, b: 10000}
    gap_0 = (wavelength.subs(i, 1) - wavelength.subs(i, 0)).subs(at)
    gap_1 = (wavelength.subs(i, 2) - wavelength.subs(i, 1)).subs(at)
    # The two gaps pinned to their closed forms, so the difference shown cannot move.
    third = sp.Integer(10000) ** sp.Rational(1, 3)
    if sp.simplify(gap_0 - 2 * sp.pi * (third - 1)) != 0:
        raise ValueError(f"the first gap is not 2 pi (10000^(1/3) - 1): got {gap_0}")
    if sp.simplify(gap_1 - 2 * sp.pi * (third**2 - third)) != 0:
        raise ValueError(f"the second gap is not 2 pi (10000^(2/3) - 10000^(1/3)): got {gap_1}")
    wit.differs(
        gap_1,
        gap_0,
        at="d = 6, b = 10000, rungs i = 0, 1, 2",
        margin=Fraction(1000),
        by="1,000 positions, several times the first gap",
    )


MISREADINGS = [
    Misreading(
        "For the paper's formula the wavelengths run from 2*pi up to 10000 * 2*pi",
        _ends_at_base,
        why="The last pair is i = d/2 - 1; the rung 2*pi*b is one step past it.",
    ),
    Misreading(
        "The wavelengths are evenly spaced",
        _linear_ladder,
        why="Their ratio, not their difference, is constant: the ladder is geometric.",
    ),
]
