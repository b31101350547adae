"""Tests of posenc.similarity against independent sources.

The references are mpmath at 40 digits, evaluating sum_i cos(k * w_i) and
sum_i 4 sin(k * w_i / 2)**2 with the exact real w_i = base**(-2i/d); the figures
of shared FACTS section 2 typed in by hand; and identities that hold for every
input (hypothesis), such as |PE(p) - PE(q)|**2 = d - 2 PE(p).PE(q).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import sinusoidal
from posenc.similarity import (
    _grid,  # the exact grid of smallest_grid_base
    base_bound,
    distance_profile,
    dot_profile,
    first_negative,
    first_rise,
    lowest_dot,
    smallest_grid_base,
)

MAX = 2**53


def exact_w(i: int, width: int, base: float = 10000.0) -> mpmath.mpf:
    return mpmath.mpf(base) ** (mpmath.mpf(-2 * i) / width)


def exact_dot(k: int, width: int, pairs=None, base: float = 10000.0) -> mpmath.mpf:
    """sum_i cos(k w_i), to 40 digits."""
    pairs = range(width // 2) if pairs is None else pairs
    with mpmath.workdps(40):
        return mpmath.fsum(mpmath.cos(k * exact_w(i, width, base)) for i in pairs)


def exact_distance(k: int, width: int, pairs=None, base: float = 10000.0) -> mpmath.mpf:
    """sqrt(sum_i 4 sin(k w_i / 2)**2), to 40 digits (no cancellation in this form)."""
    pairs = range(width // 2) if pairs is None else pairs
    with mpmath.workdps(40):
        terms = (4 * mpmath.sin(k * exact_w(i, width, base) / 2) ** 2 for i in pairs)
        return mpmath.sqrt(mpmath.fsum(terms))


OFFSETS = [0, 1, 2, 5, 11, 12, 100, 710, 62832, 312689, 10**6, 2**40 + 3, 2**53, -3, -(2**50)]


# --------------------------------------------------------------------------------------
# Values against mpmath.


@pytest.mark.parametrize("width", [2, 4, 128, 512])
def test_dot_profile_matches_mpmath(width):
    got = dot_profile(OFFSETS, width)
    assert got.shape == (len(OFFSETS),)
    assert got.dtype == np.float64
    for k, value in zip(OFFSETS, got.tolist(), strict=True):
        assert abs(value - float(exact_dot(k, width))) <= width * 1e-16, k


@pytest.mark.parametrize("width", [2, 4, 128, 512])
def test_distance_profile_matches_mpmath_relatively(width):
    got = distance_profile(OFFSETS, width)
    for k, value in zip(OFFSETS, got.tolist(), strict=True):
        exact = exact_distance(k, width)
        if k == 0:
            assert value == 0.0
        else:
            assert abs(value - float(exact)) <= 4e-16 * float(exact), k


def test_tiny_distances_keep_their_relative_accuracy():
    # The slowest pair of width 4096 at offset 1: 2 - 2 cos(1e-4) would lose half its digits.
    width, slow = 4096, [2047]
    value = float(distance_profile(1, width, pairs=slow))
    exact = float(exact_distance(1, width, slow))
    assert exact < 2e-4
    assert abs(value - exact) <= 4e-16 * exact


@pytest.mark.parametrize("base", [2.0, 500000.0])
def test_other_bases(base):
    for k in (1, 7, 1000):
        assert float(dot_profile(k, 16, base=base)) == pytest.approx(
            float(exact_dot(k, 16, base=base)), abs=1e-14
        )
        assert float(distance_profile(k, 16, base=base)) == pytest.approx(
            float(exact_distance(k, 16, base=base)), rel=1e-15
        )


# --------------------------------------------------------------------------------------
# The figures of FACTS section 2 and of Propositions 7 and 9.


def test_facts_at_width_128():
    values = dot_profile([0, 6, 11, 12], 128)
    assert [f"{v:.3f}" for v in values.tolist()] == ["64.000", "47.067", "42.344", "42.381"]
    assert first_rise(128) == 12


@pytest.mark.parametrize(
    ("width", "expected"), [(2, 4), (4, 4), (16, 4), (32, 5), (64, 6), (128, 12), (512, 44)]
)
def test_first_rise_against_mpmath(width, expected):
    # The first k with S(k) > S(k-1), found here from 40-digit values.
    k = 1
    while exact_dot(k, width) <= exact_dot(k - 1, width):
        k += 1
    assert k == expected
    assert first_rise(width) == expected


def test_group_shares_at_width_512():
    # Thirds of the 256 pairs: 0..85 (fast), 86..170, 171..255 (slow).
    groups = np.array_split(np.arange(256), 3)
    for k in (1, 10, 100, 1000, 10000):
        shares = [float(distance_profile(k, 512, pairs=g)) for g in groups]
        for share, group in zip(shares, groups, strict=True):
            exact = exact_distance(k, 512, group.tolist())
            assert share == pytest.approx(float(exact), rel=1e-14)
        total = float(distance_profile(k, 512))
        assert math.fsum(s * s for s in shares) == pytest.approx(total * total, rel=1e-14)
    assert f"{float(distance_profile(1, 512)):.4f}" == "3.7143"


def test_profiles_agree_with_the_table():
    # Any two rows of posenc.sinusoidal: the dot product and distance depend on q - p only.
    table = sinusoidal(300, 64)  # (300, 64)
    rng = np.random.default_rng(9)
    p, q = rng.integers(0, 300, size=(2, 200))  # (200,) each
    dots = np.einsum("nd,nd->n", table[p], table[q])  # (200,)
    gaps = np.linalg.norm(table[p] - table[q], axis=1)  # (200,)
    np.testing.assert_allclose(dots, dot_profile(q - p, 64), rtol=0, atol=1e-13)
    np.testing.assert_allclose(gaps, distance_profile(q - p, 64), rtol=0, atol=1e-13)


# --------------------------------------------------------------------------------------
# Identities for every input.

offsets = st.integers(min_value=-MAX, max_value=MAX)
widths = st.integers(min_value=1, max_value=300).map(lambda h: 2 * h)


@settings(max_examples=60, deadline=None)
@given(k=offsets, width=widths)
def test_even_in_the_offset(k, width):
    assert dot_profile(k, width) == dot_profile(-k, width)
    assert distance_profile(k, width) == distance_profile(-k, width)


@settings(max_examples=60, deadline=None)
@given(k=offsets, width=widths)
def test_distance_and_dot_product_are_one_quantity(k, width):
    # |PE(p) - PE(q)|^2 = |PE(p)|^2 + |PE(q)|^2 - 2 PE(p).PE(q) = d - 2 S(k).
    dist, dot = float(distance_profile(k, width)), float(dot_profile(k, width))
    assert dist * dist == pytest.approx(width - 2 * dot, abs=width * 1e-15)
    assert -width / 2 - 1e-12 <= dot <= width / 2 + 1e-12


@settings(max_examples=40, deadline=None)
@given(k=offsets, width=widths, cut=st.floats(0, 1))
def test_group_shares_add_in_squares(k, width, cut):
    half = width // 2
    split = int(cut * half)
    fast, slow = np.arange(split), np.arange(split, half)
    whole = float(distance_profile(k, width)) ** 2
    parts = float(distance_profile(k, width, pairs=fast)) ** 2
    parts += float(distance_profile(k, width, pairs=slow)) ** 2
    assert parts == pytest.approx(whole, abs=width * 1e-15)
    assert float(dot_profile(k, width, pairs=fast)) + float(
        dot_profile(k, width, pairs=slow)
    ) == pytest.approx(float(dot_profile(k, width)), abs=width * 1e-15)


def test_shapes():
    assert dot_profile(3, 8).shape == ()
    assert dot_profile([[0, 1, 2], [3, 4, 5]], 8).shape == (2, 3)
    assert dot_profile([], 8).shape == (0,)
    assert distance_profile(np.arange(5, dtype=np.uint8), 8).shape == (5,)
    assert float(dot_profile(0, 10)) == 5.0
    assert float(dot_profile(7, 10, pairs=[])) == 0.0


# --------------------------------------------------------------------------------------
# Bad input: clear errors naming the argument.


@pytest.mark.parametrize("function", [dot_profile, distance_profile])
@pytest.mark.parametrize(
    ("offsets", "error"),
    [
        (1.0, TypeError),
        ([1, 2.5], TypeError),
        (True, TypeError),
        (np.array([True, False]), TypeError),
        ("3", TypeError),
        (2**53 + 1, ValueError),
        ([0, -(2**53) - 1], ValueError),
    ],
)
def test_bad_offsets(function, offsets, error):
    with pytest.raises(error, match="offsets"):
        function(offsets, 8)


@pytest.mark.parametrize("function", [dot_profile, distance_profile])
@pytest.mark.parametrize(
    ("pairs", "error"),
    [
        ([4], ValueError),
        ([-1], ValueError),
        ([0, 0], ValueError),
        ([0.5], TypeError),
        ([[0, 1]], TypeError),
        (True, TypeError),
    ],
)
def test_bad_pairs(function, pairs, error):
    with pytest.raises(error, match="pairs"):
        function(1, 8, pairs=pairs)


@pytest.mark.parametrize("function", [dot_profile, distance_profile])
def test_bad_width_and_base(function):
    with pytest.raises(ValueError, match="width"):
        function(1, 7)
    with pytest.raises(TypeError, match="width"):
        function(1, 8.0)
    with pytest.raises(ValueError, match="base"):
        function(1, 8, base=1.0)
    with pytest.raises(ValueError, match="width"):
        first_rise(0)


# -- the lowest value up to a length, and the base bound (Proposition 38) -----------


def _brute_lowest(length: int, width: int, base: float) -> tuple[float, int]:
    values = dot_profile(np.arange(length + 1), width, base=base)
    return float(values.min()), int(np.argmin(values))


@pytest.mark.parametrize(
    ("length", "width", "base"),
    [(0, 8, 10.0), (1023, 16, 100.0), (1024, 16, 100.0), (5000, 128, 1e4), (3000, 64, 2e5)],
)
def test_lowest_dot_matches_the_accurate_profile(length, width, base):
    value, at = lowest_dot(length, width, base=base)
    want, where = _brute_lowest(length, width, base)
    assert abs(value - want) < 1e-11
    assert abs(float(dot_profile(at, width, base=base)) - want) < 1e-11
    assert 0 <= at <= length and (at == where or abs(value - want) < 1e-11)


def test_first_negative_is_a_real_negative_offset_or_none():
    k = first_negative(4096, 128)
    assert k is not None and float(exact_dot(k, 128)) < 0
    assert first_negative(4096, 128, base=1e6) is None
    assert _brute_lowest(4096, 128, 1e6)[0] >= 0


def test_base_bound_brackets_the_condition_at_1024():
    found = base_bound(1024, 64)
    assert found.below < found.base <= found.below * (1 + 1e-6)
    assert _brute_lowest(1024, 64, found.base)[0] >= 0
    assert float(exact_dot(found.witness, 64, base=found.below)) < 0
    assert found.missed < 0 and found.lowest >= 0
    for base, miss in found.misses:  # every grid base below fails, with an offset to show it
        assert base < found.base and float(exact_dot(miss, 64, base=base)) < 0
    assert found.misses[0][0] == 2.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"length": 0}, ValueError),
        ({"length": 1.5}, TypeError),
        ({"length": 64, "ratio": 1.0}, ValueError),
        ({"length": 64, "rtol": 0.5}, ValueError),
        ({"length": 64, "start": 1e9}, ValueError),
    ],
)
def test_base_bound_refuses_bad_input(kwargs, error):
    with pytest.raises(error):
        base_bound(**kwargs)


def test_smallest_grid_base_passes_and_every_grid_base_below_fails():
    found = smallest_grid_base(1024, 64, ratio=1.01)
    assert found.index == len(found.misses) > 0
    assert found.base == float(2 * Fraction(101, 100) ** found.index)  # the exact grid
    assert _brute_lowest(1024, 64, found.base)[0] >= 0 and found.lowest >= 0
    for k, miss in enumerate(found.misses):  # every grid base below fails, at its offset
        base = float(2 * Fraction(101, 100) ** k)
        assert 0 <= miss <= 1024 and float(exact_dot(miss, 64, base=base)) < 0
    # base_bound's answer for the same length is not below this one on a finer grid
    assert base_bound(1024, 64).base >= found.base / 1.01


def test_smallest_grid_base_uses_the_exact_grid_of_the_certificate():
    # Proposition 38's grid: 2 * (1001/1000)^k rounded once to float64. The float64
    # power 2.0 * 1.001**k drifts from it (it differs at the certificate's last index,
    # and at this answer's index for ratio 1.01, where the old code returned it).
    grid = _grid(2.0, 1.001, 17310, 4)
    assert grid.tolist() == [float(2 * Fraction(1001, 1000) ** k) for k in range(17310, 17314)]
    assert grid[2] != 2.0 * 1.001**17312
    found = smallest_grid_base(1024, 64, ratio=1.01)
    assert found.base != 2.0 * 1.01**found.index
    assert found.base == float(Fraction(2) * Fraction(101, 100) ** found.index)


@pytest.mark.parametrize("function", [base_bound, smallest_grid_base])
def test_width_2_is_refused_not_searched_to_overflow(function):
    # B(m) = cos m at width 2 for every base, and cos 2 < 0: no base meets the condition
    with pytest.raises(ValueError, match="width 2"):
        function(100, 2)


def test_short_lengths_need_a_lower_start():
    # lengths 1 and 2 at width 128 are met from base 2 up: the default start is refused
    with pytest.raises(ValueError, match="start lower"):
        base_bound(2)
    assert base_bound(2, start=1.01).base < 2
    assert smallest_grid_base(2).index == 0
