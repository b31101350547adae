"""Proposition 6 (the ladder ends one rung short).

In the sinusoidal code of width d (even) and base b > 1, the wavelengths
lambda_i = 2*pi*b^(2i/d), i = 0 .. d/2 - 1, run from 2*pi up to
2*pi*b^((d-2)/d), not up to 2*pi*b. The top rung lies exactly one ratio step
b^(2/d) below 2*pi*b, which is the rung i = d/2, one pair past the last. The
variant with exponent i/(h-1), h = d/2 (tensor2tensor, fairseq, Whisper), has
wavelengths 2*pi*b^(i/(h-1)), i = 0 .. h-1, which run from 2*pi to exactly
2*pi*b.

At d = 512 and b = 10000 the proof computes the ratio, the longest
wavelength, 2*pi*b and the gap between them, and encloses each between exact
rationals that fix the digits the page shows.

Uses: 5.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import mpmath
import sympy as sp

import posenc
from posenc.figures import ladder as figure
from proofs.exact import PI_HIGH, PI_LOW, cell, enclose_pi, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 6
TITLE = "The ladder ends one rung short"
USES = (5,)

#: Numbers the proposition chooses: the paper's width and base.
INPUTS = {"d": 512, "base": 10000}
D = INPUTS["d"]
B = INPUTS["base"]
HALF = D // 2  # the number of pairs, h = d/2

# Symbols, declared once, with the assumptions the statement makes.
b = sp.Symbol("b", positive=True)  # the base; b > 1 where the sign matters (step 3)
s = sp.Symbol("s", positive=True)  # b = 1 + s, to state b > 1 as an assumption
d = sp.Symbol("d", positive=True, even=True)  # the width
h = sp.Symbol("h", positive=True, integer=True)  # pairs in the (h-1) variant, h >= 2
i = sp.Symbol("i", integer=True, nonnegative=True)

wavelength = 2 * sp.pi * b ** (2 * i / d)  # lambda_i of the paper (Proposition 5)
top = 2 * sp.pi * b ** ((d - 2) / d)  # the claimed last rung
step = b ** (2 / d)  # the ratio of neighbouring rungs
variant = 2 * sp.pi * b ** (i / (h - 1))  # lambda_i with the (h-1) denominator
prose_end = 2 * sp.pi * b  # the end point the paper's prose names
log_ratio = 2 * sp.log(b) / d  # log of the ratio, (2/d) log b (step 3 checks it)


def positive(expr: sp.Expr) -> sp.Expr:
    """sign(expr) - 1, left unevaluated: it reduces to 0 when SymPy decides ``expr > 0``.

    For every value the symbols' assumptions allow; when they cannot decide,
    ``sign`` stays unevaluated and the difference does not reduce to 0. The sign
    is built as an unevaluated substitution, so the kit evaluates it (an identity,
    not a definition).
    """
    t = sp.Dummy("t")
    return sp.Subs(sp.sign(t), t, expr) - 1


def root_bounds(value: int, n: int, digits: int = 12) -> tuple[Fraction, Fraction]:
    """Rationals 10^-digits apart around value^(1/n), from mpmath (step 5 checks them)."""
    with mpmath.workdps(digits + 15):
        root = mpmath.root(value, n)
        low = int(mpmath.floor(root * 10**digits))
    return Fraction(low, 10**digits), Fraction(low + 1, 10**digits)


def checks(rec: Recorder) -> None:
    # Step 1. The last pair is i = d/2 - 1 (Proposition 5 counts i from 0), and
    # its wavelength is 2 pi b^((d-2)/d).
    rec.identity(
        "the last rung, i = d/2 - 1, is 2 pi b^((d-2)/d)",
        wavelength.subs(i, d / 2 - 1) - top,
        scope="all b > 0, even d > 0",
    )

    # Step 2. The prose's end point 2 pi b is the rung i = d/2, which does not
    # exist; it lies exactly one ratio step above the last rung.
    rec.identity(
        "2 pi b is the rung i = d/2, one pair past the last",
        sp.Subs(wavelength, i, d / 2) - prose_end,
        scope="all b > 0, even d > 0",
    )
    rec.identity(
        "2 pi b = b^(2/d) times the last rung: exactly one step above it",
        step * top - prose_end,
        scope="all b > 0, even d > 0",
    )

    # Step 3. The step goes up: for b > 1 the ratio exceeds 1, so the last rung
    # lies below 2 pi b. With b = 1 + s, s > 0, the log of the ratio is
    # (2/d) log(1 + s), which SymPy's assumptions decide is positive.
    rec.identity(
        "log of the ratio: log(b^(2/d)) = (2/d) log b",
        sp.log(step) - log_ratio,
        scope="all b > 0, even d > 0",
    )
    rec.identity(
        "for b > 1 the ratio exceeds 1: (2/d) log b > 0",
        positive(log_ratio.subs(b, 1 + s)),
        scope="b = 1 + s with s > 0, even d > 0 (sign decided by SymPy's assumptions)",
    )
    rec.identity(
        "the missing length: 2 pi b - the last rung = 2 pi b (1 - b^(-2/d))",
        prose_end - top - 2 * sp.pi * b * (1 - b ** (-2 / d)),
        scope="all b > 0, even d > 0",
    )

    # Step 4. The (h-1) variant: exponent i/(h-1) for i = 0 .. h-1 with h = d/2
    # pairs. Its ladder starts at 2 pi, ends at exactly 2 pi b, and is geometric
    # with the slightly larger ratio b^(1/(h-1)).
    rec.identity(
        "(h-1) variant: the first rung, i = 0, is 2 pi",
        sp.Subs(variant, i, 0) - 2 * sp.pi,
        scope="all b > 0, integers h >= 2",
    )
    rec.identity(
        "(h-1) variant: the last rung, i = h - 1, is exactly 2 pi b",
        sp.Subs(variant, i, h - 1) - prose_end,
        scope="all b > 0, integers h >= 2",
    )
    rec.identity(
        "(h-1) variant: neighbouring rungs differ by b^(1/(h-1))",
        variant.subs(i, i + 1) / variant - b ** (1 / (h - 1)),
        scope="all b > 0, integers h >= 2, i >= 0",
    )

    # Step 5. The d = 512, b = 10000 figures (D and B), in exact rational arithmetic.
    # (a) pi: sin changes sign between PI_LOW and PI_HIGH, and the only zero
    # of sin between 3 and 4 is pi, so PI_LOW < pi < PI_HIGH.
    enclose_pi(rec)
    # (b) The ratio r = 10000^(1/256) is the positive root of r^256 = 10000, so
    # lo < r < hi exactly when lo^256 < 10000 < hi^256 (powers increase on r > 0).
    # Each band must also be narrow: hi^n - lo^n is about n * 10000^((n-1)/n) * 10^-12,
    # below 2.5e-6, so both of its ends are the powers of lo and hi, not looser values.
    r_low, r_high = root_bounds(B, HALF)
    r_powers = (r_low**HALF, r_high**HALF)
    rec.band(
        f"{B}^(1/{HALF}) lies between two rationals 10^-12 apart: lo^{HALF} <= {B} <= hi^{HALF}",
        B,
        low=r_powers[0],
        high=r_powers[1],
        scope="exact rationals",
    )
    rec.exact(
        f"the band is narrow: hi^{HALF} - lo^{HALF} < 2.5e-6",
        r_powers[1] - r_powers[0],
        Fraction(25, 10000000),
        relation="<",
        scope="exact rationals",
    )
    v_low, v_high = root_bounds(B, HALF - 1)
    v_powers = (v_low ** (HALF - 1), v_high ** (HALF - 1))
    rec.band(
        f"(h-1) variant: {B}^(1/{HALF - 1}) lies between two rationals 10^-12 apart",
        B,
        low=v_powers[0],
        high=v_powers[1],
        scope="exact rationals",
    )
    rec.exact(
        f"the (h-1) band is narrow: hi^{HALF - 1} - lo^{HALF - 1} < 2.5e-6",
        v_powers[1] - v_powers[0],
        Fraction(25, 10000000),
        relation="<",
        scope="exact rationals",
    )
    # (c) Every figure is a monotone function of r and pi, so it lies in an
    # interval of exact rationals. The page shows its digits; the interval must
    # lie inside the cell of numbers that show the same digits.
    mpmath.mp.dps = 40
    r = mpmath.root(B, HALF)
    pi20k = 2 * B * mpmath.pi  # 2 pi b
    figures = (
        # name, what it is, value at 40 digits, how it is shown, the text a
        # source quotes (None: no source), its interval from the enclosures
        ("ratio_512", "the ratio 10000^(1/256)", r, Show(sig=7), "1.036633", (r_low, r_high)),
        (
            "ratio_512_percent",
            "the step 10000^(1/256) - 1",
            r - 1,
            Show(sig=3, percent=True),
            "3.66%",
            (r_low - 1, r_high - 1),
        ),
        (
            "top_power_512",
            "the last rung's factor 10000^(255/256) = 10000 / r",
            B / r,
            Show(decimals=3),
            "9646.616",
            (B / r_high, B / r_low),
        ),
        (
            "longest_wavelength_512",
            "the longest wavelength 2 pi 10000^(255/256)",
            pi20k / r,
            Show(decimals=1),
            "60,611.5",
            (2 * B * PI_LOW / r_high, 2 * B * PI_HIGH / r_low),
        ),
        (
            "prose_wavelength",
            "2 pi 10000, the rung the prose names",
            pi20k,
            Show(decimals=1),
            "62,831.9",
            (2 * B * PI_LOW, 2 * B * PI_HIGH),
        ),
        (
            "wavelength_gap_512",
            "the missing length 2 pi 10000 (1 - 1/r)",
            pi20k * (1 - 1 / r),
            Show(decimals=1),
            None,
            (2 * B * PI_LOW * (1 - 1 / r_low), 2 * B * PI_HIGH * (1 - 1 / r_high)),
        ),
        (
            "wavelength_gap_512_percent",
            "the missing length as a share of 2 pi 10000, 1 - 1/r",
            1 - 1 / r,
            Show(sig=2, percent=True),
            None,
            (1 - 1 / r_low, 1 - 1 / r_high),
        ),
        (
            "variant_ratio_512",
            "the (h-1) variant's ratio 10000^(1/255)",
            mpmath.root(B, HALF - 1),
            Show(sig=5),
            None,
            (v_low, v_high),
        ),
    )
    for name, what, value, show, quoted, (low, high) in figures:
        shown = cell(float(value), show)
        enclosed = inside_cell(
            rec,
            f"{what} shows as {shown.text}: its exact enclosure lies inside that rounding cell",
            (low, high),
            shown,
            scope="exact rationals, from the enclosures above; the margin to the cell's edges",
        )
        if quoted is None:
            rec.quantity(name, float(value), show=show, by=enclosed)
        else:
            rec.rounds_to(
                f"{what} shows as the source's {quoted}",
                float(value),
                quoted,
                show=show,
                scope="mpmath at 40 digits",
                quantity=name,
            )

    # Step 6. Numeric spot check of the symbolic result: at sampled (d, b), mpmath
    # at 30 digits gives b^(2/d) * lambda_(d/2-1) = 2 pi b.
    mpmath.mp.dps = 30
    errors = []
    for width in (2, 4, 10, D, 4096):
        for base in (2, B, 500000):
            last = 2 * mpmath.pi * mpmath.power(base, mpmath.mpf(width - 2) / width)
            ratio = mpmath.power(base, mpmath.mpf(2) / width)
            errors.append(float(abs(ratio * last / (2 * mpmath.pi * base) - 1)))
    rec.numeric(
        "b^(2/d) times the last rung = 2 pi b at sampled (d, b)",
        errors,
        tol=1e-27,
        scope=f"d in {{2, 4, 10, {D}, 4096}}, b in {{2, {B}, 500000}}; mpmath at 30 digits",
    )

    # Step 7. The library's ladder stops where the proof says: the last value of
    # posenc.wavelengths is 2 pi b^((d-2)/d), one step b^(2/d) short of 2 pi b.
    errors = []
    for width in (2, 4, 64, D, 4096):
        for base in (float(B), 500000.0):
            got = posenc.wavelengths(width, base=base)[-1]
            exact = 2 * mpmath.pi * mpmath.power(base, mpmath.mpf(width - 2) / width)
            errors.append(float(abs((got - exact) / exact)))
    rec.numeric(
        "posenc.wavelengths(d)[-1] = 2 pi b^((d-2)/d), not 2 pi b",
        errors,
        tol=1.1102230246251565e-16,  # 2^-53, half an ulp of 1
        scope=f"d in {{2, 4, 64, {D}, 4096}}, b in {{{B}, 500000}}; relative error vs mpmath",
    )
    ladder = posenc.wavelengths(D, base=B)  # (d/2,)
    ratios = ladder[1:] / ladder[:-1]  # (d/2 - 1,)
    rec.numeric(
        f"posenc.wavelengths({D}): each step is the ratio {B}^(1/{HALF})",
        ratios / float(r) - 1,
        tol=1e-15,
        scope=f"d = {D}, b = {B}, every neighbouring pair of rungs; float64",
    )
    rec.exact(
        f"posenc.wavelengths({D}) has d/2 = {HALF} rungs, so the ladder takes d/2 - 1 steps",
        ratios.size,
        HALF - 1,
        scope="exact integers: the length of the library's ladder",
        quantity="steps_512",
        show=Show(),
    )

    # Step 8. The small ladders the page draws and asks about. At width 8 the
    # paper's ratio is an exact integer.
    rec.exact(
        f"at d = 8, b = {B} the paper's ratio is b^(2/8) = 10",
        sp.Integer(B) ** sp.Rational(2, 8),
        10,
        scope=f"exact integers: the fourth root of {B}",
        quantity="paper_ratio_8",
        show=Show(),
    )
    # The figure the page describes is posenc.figures.ladder.fig_ladder_rung_short
    # with its defaults: width 16 on the left, and on the right the width d and
    # base b of step 5.
    parameters = inspect.signature(figure.fig_ladder_rung_short).parameters
    drawn_at = {name: parameters[name].default for name in ("width", "base", "top_width")}
    rec.exact(
        f"the figure draws width 16 and width {D} at base {B}, as the page says",
        sum(drawn != wanted for drawn, wanted in zip(drawn_at.values(), (16, B, D), strict=True)),
        0,
        scope="exact integers: fig_ladder_rung_short's defaults, mismatches counted",
    )
    # The rungs at width 16 (the figure) and width 8 (the question at the end):
    # the paper's from posenc.wavelengths and the (h-1) variant's as the figure
    # draws them, each rung against its formula in mpmath at 30 digits. The
    # page shows the rungs as drawn, the very numbers the check compares.
    drawn, true, where = [], [], {}  # where[(ladder, width, k)]: index into true
    for width in (8, 16):
        half = width // 2
        ladders = {
            "paper": posenc.wavelengths(width, base=B),  # (h,)
            "variant": figure._variant_wavelengths(width, float(B)),  # (h,)
        }
        for ladder, rungs in ladders.items():
            for k in range(half):
                # the exponent of b: 2i/d for the paper, i/(h-1) for the variant
                exponent = (
                    mpmath.mpf(2 * k) / width if ladder == "paper" else mpmath.mpf(k) / (half - 1)
                )
                where[ladder, width, k] = len(true)
                drawn.append(float(rungs[k]))
                true.append(2 * mpmath.pi * mpmath.power(B, exponent))
    rungs = rec.close(
        "the ladders at d = 8 and 16: posenc.wavelengths and the figure's (h-1) ladder "
        "equal 2 pi b^(2i/d) and 2 pi b^(i/(h-1))",
        drawn,
        true,
        tol=1e-10,
        scope=f"d = 8 and 16, b = {B}, every rung of both ladders; absolute error against "
        "mpmath at 30 digits",
    )
    for k in (1, 2, 3):  # the question at the end of the page
        for ladder in ("paper", "variant"):
            value = drawn[where[ladder, 8, k]]
            rec.quantity(f"{ladder}_8_{k}", value, show=Show(decimals=1), by=rungs)
    rec.quantity("first_rung", drawn[where["paper", 8, 0]], show=Show(decimals=1), by=rungs)
    top_16 = drawn[where["paper", 16, 7]]  # the figure's top rung, i = 16/2 - 1
    rec.quantity("paper_top_16", top_16, show=Show(decimals=1), by=rungs)
    # ... and the ratio of neighbouring rungs of each ladder, as drawn, against
    # the roots b^(1/h) and b^(1/(h-1)).
    names = {
        ("variant", 8): ("variant_ratio_8", Show(sig=4)),
        ("paper", 16): ("paper_ratio_16", Show(sig=3)),
        ("variant", 16): ("variant_ratio_16", Show(sig=3)),
    }
    drawn_ratios, true_ratios, order = [], [], []
    for width in (8, 16):
        half = width // 2
        for ladder, root in (("paper", half), ("variant", half - 1)):
            first, second = (drawn[where[ladder, width, k]] for k in (0, 1))
            drawn_ratios.append(second / first)
            true_ratios.append(mpmath.root(B, root))
            order.append((ladder, width))
    ratios_check = rec.close(
        "the ratio of neighbouring rungs at d = 8 and 16: b^(1/h) for the paper's ladder, "
        "b^(1/(h-1)) for the variant's",
        drawn_ratios,
        true_ratios,
        tol=1e-13,
        scope=f"d = 8 and 16, b = {B}, rung 1 over rung 0 of each ladder as drawn; absolute "
        "error against mpmath at 30 digits",
    )
    for key, (name, show) in names.items():
        value = drawn_ratios[order.index(key)]
        rec.quantity(name, value, show=show, by=ratios_check)


# -- misreadings -------------------------------------------------------------------


def _ends_at_base(wit: Witness) -> None:
    # "The wavelengths run from 2 pi to 10000 * 2 pi." At d = 4 there are two
    # pairs; the last, i = 1, has wavelength 2 pi * 10000^(1/2) = 2 pi * 100.
    # The claim is off by far more than 1 per cent of 2 pi * 10000 (628.3...), so
    # even a loose reading of "up to 10000 * 2 pi" fails. Both sides are the
    # expressions steps 1 and 2 check, with no arithmetic of their own.
    at = {d: 4, b: 10000, i: 1}
    wit.differs(
        wavelength.subs(at),
        prose_end.subs(at),
        at="d = 4, b = 10000, the last pair i = 1",
        margin=628,
        by="628, under 1 per cent of 2 pi 10000",
    )


def _same_as_variant(wit: Witness) -> None:
    # "tensor2tensor, fairseq and Whisper compute the paper's ladder." At d = 8
    # (h = 4) pair 1 has 2 pi * 10000^(1/4) = 2 pi * 10 in the paper and
    # 2 pi * 10000^(1/3) = 2 pi * 21.54 in the (h-1) variant: more than twice as
    # long, far beyond any rounding.
    wit.differs(
        wavelength.subs({d: 8, b: 10000, i: 1}),
        variant.subs({h: 4, b: 10000, i: 1}),
        at="d = 8, b = 10000, pair i = 1",
        margin=62,
        by="62, just under the paper's whole value 20 pi = 62.83",
    )


MISREADINGS = [
    Misreading(
        "For the paper's formula the wavelengths run from 2 pi up to 10000 times 2 pi",
        _ends_at_base,
        why="That end point is the rung i = d/2; the last pair is i = d/2 - 1, one step below.",
    ),
    Misreading(
        "The (h-1) libraries (tensor2tensor, fairseq, Whisper) use the paper's wavelengths",
        _same_as_variant,
        why="Their ratio is b^(1/(h-1)), not b^(1/h): every rung after the first moves.",
    ),
]
