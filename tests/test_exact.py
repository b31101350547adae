"""The shared building blocks of the proofs (proofs.exact), against independent facts."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from proofs import kit
from proofs.exact import (
    PI_HIGH,
    PI_LOW,
    cell,
    enclose_pi,
    evaluated,
    for_the_kit,
    in_order,
    inside_cell,
    mean_rows,
    minus,
    product,
    sin_bounds,
)
from proofs.numbers import Show, render


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda r, c: sp.Symbol(f"{name}_{r}{c}"))


# -- pi and sin ---------------------------------------------------------------------


def test_pi_enclosure_holds_at_50_digits():
    with mpmath.workdps(50):
        assert _mp(PI_LOW) < mpmath.pi < _mp(PI_HIGH)
    assert PI_HIGH - PI_LOW == Fraction(1, 10**20)


@pytest.mark.parametrize("x", ["0.5", "1", "1.5707963", "3", "3.14159265358979323846", "3.99"])
def test_sin_bounds_bracket_mpmath(x):
    low, high = sin_bounds(Fraction(x))
    # The bracket is 10^-100 to 10^-50 wide, and near pi sin(x) is 10^-21: at 200
    # digits mpmath's own rounding stays far below both.
    with mpmath.workdps(200):
        true = mpmath.sin(_mp(Fraction(x)))
        assert _mp(low) <= true <= _mp(high)
        assert _mp(high) - _mp(low) < mpmath.mpf(10) ** -45  # 30 terms: tight


def test_sin_bounds_refuse_arguments_outside_the_proven_range():
    with pytest.raises(AssertionError):
        sin_bounds(Fraction(4))


def test_enclose_pi_records_a_passing_exact_check():
    rec = kit.Recorder()
    check = enclose_pi(rec)
    assert check.passed and check.kind == "exact"
    assert rec.checks == [check]


# -- expressions kept as written ------------------------------------------------------

a, b, c = sp.symbols("a b c")


def test_in_order_keeps_the_terms_as_given_until_evaluated():
    kept = in_order([c, a, b])
    assert kept.args == (c, a, b)
    assert kept != in_order([a, b, c])  # as written, two different sums
    assert sp.exp(kept) - sp.exp(in_order([a, b, c])) != 0  # and they do not cancel
    assert evaluated(kept) == a + b + c
    assert in_order([a]) is a


def test_mean_rows_is_the_mean_of_the_rows():
    m = _matrix("m", 3, 2)
    expected = sp.Matrix([[sum(m[:, t]) / 3 for t in range(2)]])
    assert (mean_rows(m).doit() - expected).applyfunc(sp.expand) == sp.zeros(1, 2)


def test_product_equals_the_evaluated_product_after_doit():
    left, right = _matrix("l", 2, 3), _matrix("r", 3, 2)
    assert (product(left, right).doit() - left * right).applyfunc(sp.expand) == sp.zeros(2, 2)


def test_product_and_minus_do_not_cancel_as_written():
    swap = sp.Matrix([[0, 1], [1, 0]])
    difference = minus(product(swap.T, swap), sp.eye(2))  # P^T P - I
    assert any(entry != 0 for entry in difference)  # not 0 as built
    assert kit.reduce_to_zero(difference) not in (None, kit.AS_WRITTEN)  # the kit does it
    x = _matrix("x", 2, 2)
    assert any(entry != 0 for entry in minus(x, x))
    assert minus(x, x).doit() == sp.zeros(2, 2)


def test_evaluated_leaves_sums_for_doit():
    total = sp.Sum(a, (b, 0, 2))
    assert evaluated(sp.Add(total, total, evaluate=False)) == 2 * total
    assert evaluated(sp.Matrix([[sp.Add(a, a, evaluate=False)]])) == sp.Matrix([[2 * a]])


def test_for_the_kit_hands_over_a_true_difference_as_built():
    lhs = sp.Matrix([[sp.exp(in_order([a, b])), in_order([a, b]) / in_order([b, c])]])
    rhs = sp.Matrix([[sp.exp(in_order([b, a])), in_order([b, a]) / in_order([c, b])]])
    handed = for_the_kit(lhs, rhs)
    assert handed == lhs - rhs  # still unevaluated: the kit must evaluate it
    assert kit.reduce_to_zero(handed) not in (None, kit.AS_WRITTEN)
    assert for_the_kit(lhs - rhs) == lhs - rhs


@pytest.mark.parametrize("two_sided", [True, False])
def test_for_the_kit_keeps_a_false_difference_nonzero(two_sided):
    shared = sp.exp(in_order([a, b]))  # a repeated part, which cse names
    lhs = sp.Matrix([[in_order([a * shared, b * shared]), 1 / shared]])
    rhs = sp.Matrix([[in_order([a * shared, a * shared]), 1 / shared]])
    if two_sided:
        handed = for_the_kit(lhs, rhs)
        names, _ = sp.cse([evaluated(lhs), evaluated(rhs)], optimizations=None)
    else:
        handed = for_the_kit(lhs - rhs)
        names, _ = sp.cse([evaluated(lhs - rhs)], optimizations=None)
    assert names  # the repeated part was named
    assert kit.reduce_to_zero(handed) is None
    # Naming keeps the value: put the named parts back, last first.
    for name, part in reversed(names):
        handed = handed.subs(name, part)
    point = {a: 1, b: 2}
    got, true = handed.subs(point), (lhs - rhs).doit().subs(point)
    assert all(abs(sp.N(g - t, 30)) < 1e-25 for g, t in zip(got, true, strict=True))
    assert abs(sp.N(true[0], 30)) > 1  # (b - a) e^3: far from 0


# -- rounding cells ----------------------------------------------------------------------

RULES = [
    (Fraction(1036633, 10**6), Show(sig=7)),  # 1.036633
    (Fraction(60611543, 1000), Show(decimals=1)),  # 60,611.5
    (Fraction(366, 10**4), Show(sig=3, percent=True)),  # 3.66%
    (Fraction(29, 10**7), Show(sig=2)),  # 2.9 × 10⁻⁶
    (Fraction(168000), Show(sig=2)),  # 170,000: last place 10^4
    (Fraction(-42344, 1000), Show(decimals=3)),  # -42.344
    (Fraction(9996, 1000), Show(sig=3)),  # 10.0, a power of ten
    (Fraction(-9996, 1000), Show(sig=3)),  # -10.0
    (Fraction(1, 10**6), Show(sig=1)),  # 10⁻⁶
    (Fraction(1, 2), Show(sig=2, unit="ulp")),  # 0.50 ulp
]


@pytest.mark.parametrize("value, show", RULES, ids=[render(v, s) for v, s in RULES])
def test_the_cell_holds_exactly_the_numbers_that_show_as_its_text(value, show):
    shown = cell(value, show)
    assert shown.text == render(value, show)
    assert shown.low < value < shown.high
    eps = (shown.high - shown.low) / 10**6
    inside = [shown.low + eps, (shown.low + shown.high) / 2, shown.high - eps]
    outside = [shown.low - eps, shown.high + eps]
    assert all(render(x, show) == shown.text for x in inside)
    assert all(render(x, show) != shown.text for x in outside)


def test_a_cell_is_only_for_rounding_to_nearest():
    with pytest.raises(ValueError, match="nearest"):
        cell(0.5, Show(sig=2, rounding="up"))
    with pytest.raises(ValueError, match="fraction"):
        cell(Fraction(1, 3), Show(style="fraction"))
    with pytest.raises(ValueError, match="integer"):
        cell(12, Show())


def test_inside_cell_passes_only_strictly_inside():
    shown = cell(Fraction(1036633, 10**6), Show(sig=7))
    rec = kit.Recorder()
    near = (shown.low + Fraction(1, 10**9), shown.high - Fraction(1, 10**9))
    assert inside_cell(rec, "inside", near, shown, scope="test").passed
    assert not inside_cell(rec, "at the edge", (shown.low, near[1]), shown, scope="test").passed
    wide = (shown.low - 1, shown.high)
    assert not inside_cell(rec, "wider", wide, shown, scope="test").passed
