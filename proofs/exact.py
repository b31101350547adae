"""Exact and unevaluated building blocks shared by the proofs.

Two kinds of tool live here, each written once for every proof that needs it.

Expressions kept as written
    SymPy evaluates while it builds: it sorts and collects the terms of a sum
    and multiplies out the 0s and 1s of a permutation matrix. The two sides of
    an identity can then be the same expression before any check has looked
    at them, and the kit records such a row as a definition, not as evidence
    (see :meth:`proofs.kit.Recorder.identity`). The helpers below build sums,
    means, products and differences unevaluated, so that the kit has to carry
    them out itself (and says so): :func:`in_order`, :func:`mean_rows`,
    :func:`product`, :func:`minus`; :func:`evaluated` and :func:`for_the_kit`
    decide cheaply what to hand to the kit.

Exact enclosures and rounding cells
    A figure on a page is right when the true value, not only a float near it,
    shows as the page's digits. The proofs enclose the true value between two
    rationals and check, in exact arithmetic, that the whole enclosure lies in
    the rounding cell of the shown text: :data:`PI_LOW` and :data:`PI_HIGH`
    with :func:`enclose_pi`, :func:`sin_bounds`, :func:`cell` and
    :func:`inside_cell`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

import sympy as sp

from proofs.kit import Check, Recorder
from proofs.numbers import Show, render

__all__ = [
    "PI_HIGH",
    "PI_LOW",
    "Cell",
    "cell",
    "enclose_pi",
    "evaluated",
    "for_the_kit",
    "in_order",
    "inside_cell",
    "mean_rows",
    "minus",
    "product",
    "sin_bounds",
]

#: A scalar or a matrix of scalars: what a check hands to the kit.
Expression = sp.Expr | sp.MatrixBase


# -- expressions kept as written --------------------------------------------------


def in_order(terms: list[sp.Expr]) -> sp.Expr:
    """A sum kept unevaluated, with its terms in the order given.

    The proofs of Propositions 2 to 4 sum over tokens (a softmax denominator, a
    weighted mix of values, a mean). SymPy would sort the terms of every such
    sum at once, so F(P X) and P F(X) would be the same expression as written
    and the check would show nothing. Kept in the tokens' order, the two sides
    differ as written, and the check is that evaluating them (which reorders
    each sum) makes them equal. One term is returned as it is.
    """
    return terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False)


def mean_rows(m: sp.Matrix) -> sp.Matrix:
    """The mean over the rows of M, each column's sum kept in row order.

    Shape: (n, d) -> (1, d); entry t is (M[0, t] + ... + M[n-1, t]) / n, the
    sum built with :func:`in_order`.
    """
    return sp.Matrix([[in_order(list(m.col(t))) / m.rows for t in range(m.cols)]])


def product(left: sp.Matrix, right: sp.Matrix) -> sp.Matrix:
    """The matrix product written out as sums of products, left unevaluated.

    Entry (r, c) is sum_t left[r, t] * right[t, c], every product and the sum
    built with ``evaluate=False``. Shapes: (a, b) times (b, c) -> (a, c).
    SymPy multiplies by the 0s and 1s of a permutation matrix as it builds an
    ordinary product, so identities such as P^T P = I or R_half = Pi^T R Pi
    would cancel as written and show nothing. Written out this way, the kit
    has to carry out every product and sum itself (``doit``), and says so.
    """
    return sp.Matrix(
        left.rows,
        right.cols,
        lambda r, c: sp.Add(
            *(sp.Mul(left[r, t], right[t, c], evaluate=False) for t in range(left.cols)),
            evaluate=False,
        ),
    )


def minus(left: sp.Matrix, right: sp.Matrix) -> sp.Matrix:
    """left - right, entry by entry, without evaluating the subtraction.

    Entry (r, c) is left[r, c] + (-1) * right[r, c], both the sum and the
    product by -1 unevaluated, so that equal sides do not cancel before the
    kit looks at them. The two matrices have the same shape.
    """
    return sp.Matrix(
        left.rows,
        left.cols,
        lambda r, c: sp.Add(left[r, c], sp.Mul(-1, right[r, c], evaluate=False), evaluate=False),
    )


def evaluated(expr: Expression) -> Expression:
    """``expr`` rebuilt with SymPy's automatic evaluation, each shared subtree once.

    Rebuilding a node from its arguments evaluates what ``evaluate=False`` kept
    as written (the sums of :func:`in_order`, say): they are sorted and
    collected. Objects that only ``doit`` carries out (``Sum``, ``Subs``) stay
    as they are. The layer formulas of the proofs reuse the same subtrees many
    times; a memo rebuilds each one once, so this is a cheap look ahead at a
    difference (see :func:`for_the_kit`).
    """
    memo: dict[sp.Basic, sp.Basic] = {}

    def walk(e: sp.Basic) -> sp.Basic:
        if e not in memo:
            memo[e] = e.func(*[walk(a) for a in e.args]) if e.args else e
        return memo[e]

    return expr.applyfunc(walk) if isinstance(expr, sp.MatrixBase) else walk(expr)


def for_the_kit(lhs: Expression, rhs: Expression | None = None) -> Expression:
    """The difference ``lhs - rhs`` (or ``lhs``, already a difference) for a check.

    When the difference vanishes once its sums are evaluated, the kit gets it
    as built and must evaluate it itself. When it does not (a false claim,
    such as the broken copies of the tests), the kit gets the evaluated sides
    with their repeated parts named (``sp.cse``), and their difference: naming
    cannot make a nonzero difference vanish (putting the definitions back
    restores it), and it spares the simplifier a long search before it fails.
    """
    built = lhs if rhs is None else lhs - rhs
    settled = evaluated(built)
    entries = settled if isinstance(settled, sp.MatrixBase) else [settled]
    if all(entry == 0 for entry in entries):
        return built
    if rhs is None:
        _, (reduced,) = sp.cse([settled], optimizations=None)
        return reduced
    _, (left, right) = sp.cse([evaluated(lhs), evaluated(rhs)], optimizations=None)
    return left - right


# -- exact enclosures ----------------------------------------------------------------

#: Rationals that enclose pi, 10^-20 apart: PI_LOW < pi < PI_HIGH. A proof that
#: uses them proves the enclosure first (:func:`enclose_pi`).
PI_LOW, PI_HIGH = Fraction("3.14159265358979323846"), Fraction("3.14159265358979323847")


def sin_bounds(x: Fraction, terms: int = 30) -> tuple[Fraction, Fraction]:
    """Exact rationals lo <= sin(x) <= hi, for 0 < x < 4, from the Taylor series.

    The series x - x^3/3! + x^5/5! - ... alternates, and for 0 < x < 4 its terms
    shrink from the second one on (the ratio of neighbours is
    x^2 / ((2n+2)(2n+3)) < 16/20), so its partial sums from the second on lie
    alternately above and below sin(x). The last two partial sums, one ending
    on a plus term and one on a minus term, bracket it.
    """
    assert 0 < x < 4 and terms >= 2
    total, term, sums = Fraction(0), x, []
    for n in range(terms + 1):
        total += term if n % 2 == 0 else -term
        sums.append(total)
        term = term * x * x / ((2 * n + 2) * (2 * n + 3))
    last, before = sums[-1], sums[-2]
    return min(last, before), max(last, before)


def enclose_pi(rec: Recorder) -> Check:
    """Check PI_LOW < pi < PI_HIGH in exact arithmetic, and return the check.

    sin(PI_LOW) > 0 > sin(PI_HIGH), from the lower bound on the first and the
    upper bound on the second (:func:`sin_bounds`); sin is continuous and its
    only zero in (3, 4) is pi, so pi lies between them. Recorded as a band:
    0 lies in [upper bound of sin(PI_HIGH), lower bound of sin(PI_LOW)].
    """
    below_low, _ = sin_bounds(PI_LOW)
    _, above_high = sin_bounds(PI_HIGH)
    return rec.band(
        "pi lies between 3.14159265358979323846 and ...847: sin(low) > 0 > sin(high)",
        0,
        low=above_high,
        high=below_low,
        scope="exact rationals: Taylor partial sums bracket sin; pi is sin's only zero in (3, 4)",
    )


# -- rounding cells --------------------------------------------------------------------


class Cell(NamedTuple):
    """A shown text and its rounding cell: every number in (low, high) shows as text."""

    text: str
    low: Fraction
    high: Fraction


#: "2.9 × 10⁻⁶", or "10⁻⁶" when the mantissa is 1: how numbers.render writes a power.
_POWER = re.compile(r"^(?:(?P<mantissa>-?[0-9.]+) × )?10(?P<exponent>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)$")
_PLAIN_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _exponent(x: Fraction) -> int:
    """e with 10^e <= x < 10^(e+1), for x > 0, in exact arithmetic."""
    # x = p/q with a and b digits: 10^(a-1-b) < x < 10^(a-b+1), so e is a-b or a-b-1.
    e = len(str(x.numerator)) - len(str(x.denominator))
    return e - 1 if Fraction(10) ** e > x else e


def cell(value: float | Fraction | int, show: Show) -> Cell:
    """The text ``value`` shows as under ``show``, and the cell of numbers that show the same.

    Rounding to nearest with a last shown place of 10^-p puts in the cell every
    number less than half a unit, 10^-p / 2, from the shown number t:
    (t - 10^-p / 2, t + 10^-p / 2). Its ends round half to even, either way,
    so a check asks an enclosure to lie strictly inside. The last place is
    the rule's: ``decimals`` digits after the point, or ``sig`` significant
    digits (16,800,000 to 3 digits has its last place at 10^5). One case is
    not symmetric: with ``sig``, a shown power of ten (10.0) is also reached
    from just below it in magnitude, where the numbers carry one more digit
    (9.96 shows as 9.96), so on that side the cell reaches only a tenth as
    far (9.995). Under ``percent`` the cell is of the number itself, not of
    100 times it.
    """
    if show.rounding != "nearest":
        raise ValueError("a rounding cell is for rounding to nearest")
    if show.style == "fraction":
        raise ValueError("a fraction is shown exactly: its cell is the number itself")
    if show.sig is None and show.decimals is None:
        raise ValueError("an integer rule shows integers only: it has no rounding cell")
    text = render(value, show, "text")
    body = text.removesuffix(f" {show.unit}") if show.unit else text
    body = body.removesuffix("%") if show.percent else body
    power = _POWER.match(body)
    if power:  # 2.9 × 10⁻⁶: mantissa times a power of ten
        exponent = int(power["exponent"].translate(_PLAIN_DIGITS))
        shown = Fraction(power["mantissa"] or 1) * Fraction(10) ** exponent
    else:  # 60,611.5
        shown = Fraction(body.replace(",", ""))
    if show.sig is not None:
        if shown == 0:
            return Cell(text, Fraction(0), Fraction(0))  # only 0 shows as 0: no room inside
        magnitude = _exponent(abs(shown))
        places = show.sig - 1 - magnitude  # the last significant digit's place
    else:
        places = show.decimals  # digits after the point
    half = Fraction(1, 2) / Fraction(10) ** places
    toward_zero = half
    if show.sig is not None and abs(shown) == Fraction(10) ** magnitude:
        toward_zero = half / 10  # 10.0: below it the numbers have one more digit
    if shown > 0:
        low, high = shown - toward_zero, shown + half
    else:
        low, high = shown - half, shown + toward_zero
    scale = Fraction(1, 100) if show.percent else Fraction(1)
    return Cell(text, low * scale, high * scale)


def pick(enclosure: tuple[Fraction, Fraction]) -> Fraction:
    """A short exact value inside the enclosure [low, high]: its midpoint, rounded to the
    fewest decimals that keep it inside.

    A quantity bound to an enclosure must lie in it; a float near the midpoint can fall
    outside an enclosure far narrower than a float's spacing, and the midpoint itself
    can be a rational of hundreds of digits. Raises ValueError for an empty enclosure.
    """
    low, high = enclosure
    if not low <= high:
        raise ValueError(f"pick: the enclosure is empty (low {low} > high {high})")
    middle = (low + high) / 2
    if low == high:  # a point: itself (1/3 has no decimal inside)
        return middle
    places = 0
    while True:
        near = Fraction(round(middle * 10**places), 10**places)
        if low <= near <= high:
            return near
        places += 1


def inside_cell(
    rec: Recorder, claim: str, enclosure: tuple[Fraction, Fraction], shown: Cell, *, scope: str
) -> Check:
    """Check that the exact enclosure [lo, hi] lies strictly inside the rounding cell.

    The recorded number is the room to the cell's nearer edge,
    min(lo - cell.low, cell.high - hi), which must be > 0: then every number
    of the enclosure, the true value among them, shows as ``shown.text``.
    """
    low, high = enclosure
    if not low <= high:
        raise ValueError(f"inside_cell: the enclosure is empty (low {low} > high {high})")
    return rec.exact(
        claim,
        min(low - shown.low, shown.high - high),
        0,
        relation=">",
        scope=scope,
        within=(low, high),
    )
