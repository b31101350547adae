"""Tests of posenc.precision against exact rational rounding and NumPy's own formats.

The reference rounding here is written from the IEEE 754 definition with Python
fractions: a finite value is m * 2**(e - p + 1) with |m| < 2**p and e at least
the smallest normal exponent; round to nearest, ties to the even m.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.precision import FORMATS, exact_integer_limit, round_to, to_bfloat16, ulp

# (significand bits p, smallest normal exponent, largest exponent), from IEEE 754 and
# the bfloat16 definition (float32's exponent, 8 significand bits).
SPEC = {
    "bfloat16": (8, -126, 127),
    "float16": (11, -14, 15),
    "float32": (24, -126, 127),
    "float64": (53, -1022, 1023),
}


def exponent_of(a: Fraction) -> int:
    """The e with 2**e <= a < 2**(e+1), for a > 0."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_exact(x: Fraction, name: str) -> float:
    """x rounded to the format, nearest with ties to even; +-inf past the largest finite."""
    p, emin, emax = SPEC[name]
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = max(exponent_of(a), emin)
    quantum = Fraction(2) ** (e - p + 1)
    m = a / quantum
    n = math.floor(m)
    rest = m - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    value = n * quantum
    if value >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(value)  # exact: value has at most p <= 53 significant bits


# --------------------------------------------------------------------------------------
# The exact integer limits.


def test_formats_match_the_standard():
    for name, (p, emin, emax) in SPEC.items():
        fmt = FORMATS[name]
        assert (fmt.significand_bits, fmt.min_exponent, fmt.max_exponent) == (p, emin, emax)
    for name in ("float16", "float32", "float64"):
        info = np.finfo(name)
        assert FORMATS[name].significand_bits == info.nmant + 1
        assert FORMATS[name].min_exponent == info.minexp
        assert FORMATS[name].max_exponent == info.maxexp - 1


@pytest.mark.parametrize(
    ("dtype", "limit"),
    [
        ("bfloat16", 256),
        ("float16", 2048),
        ("float32", 2**24),
        ("float64", 2**53),
        (np.float16, 2048),
        (np.dtype("float32"), 2**24),
    ],
)
def test_exact_integer_limit(dtype, limit):
    assert exact_integer_limit(dtype) == limit


def test_every_integer_up_to_the_limit_is_exact_in_float16_and_bfloat16():
    for name, convert in (("float16", np.float16), ("bfloat16", to_bfloat16)):
        top = exact_integer_limit(name)
        n = np.arange(0, top + 2)  # 0 .. 2**p + 1
        back = np.asarray(convert(n), dtype=np.float64)
        assert np.array_equal(back[:-1], n[:-1]), name  # 0 .. 2**p all exact
        assert back[-1] == top  # 2**p + 1 ties to the even neighbour 2**p
        assert back[-1] == round_exact(Fraction(top + 1), name)


def test_float32_limit_at_the_edge():
    top = exact_integer_limit("float32")
    n = np.arange(top - 3, top + 4, dtype=np.int64)
    back = n.astype(np.float32).astype(np.int64)
    assert back.tolist() == [top - 3, top - 2, top - 1, top, top, top + 2, top + 4]


# --------------------------------------------------------------------------------------
# Rounding to bfloat16.


@given(st.floats(allow_nan=False, width=64))
@settings(max_examples=400, deadline=None)
def test_to_bfloat16_rounds_float64_once(x):
    expected = round_exact(Fraction(x), "bfloat16") if math.isfinite(x) else x
    got = float(to_bfloat16(x))
    assert got == expected or (got == 0 and expected == 0), (x, got, expected)
    if got == 0:
        assert math.copysign(1, got) == math.copysign(1, x)  # the sign of zero survives


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=400, deadline=None)
def test_to_bfloat16_rounds_every_float32_bit_pattern(bits):
    x = np.array([bits], dtype=np.uint32).view(np.float32)[0]
    got = to_bfloat16(x)
    assert got.dtype == np.float32
    if np.isnan(x):
        assert np.isnan(got)
        return
    expected = round_exact(Fraction(float(x)), "bfloat16") if np.isfinite(x) else float(x)
    assert float(got) == expected


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (1.0 + 2.0**-8, 1.0),  # halfway between 1 and 1 + 2**-7: ties to even (1)
        (1.0 + 3 * 2.0**-8, 1.0 + 2.0**-6),  # halfway: ties to even (1 + 2**-6)
        (1.0 + 2.0**-8 + 2.0**-40, 1.0 + 2.0**-7),  # just above halfway, seen in float64
        (3.3895313892515355e38, 3.3895313892515355e38),  # the largest bfloat16
        (3.4e38, math.inf),  # past it: infinity
        (1e39, math.inf),  # past float32 too
        (-1e39, -math.inf),
        (2.0**-133, 2.0**-133),  # the smallest subnormal bfloat16
        (2.0**-134, 0.0),  # halfway to it: ties to even (0)
        (2.0**-134 * 1.5, 2.0**-133),
    ],
)
def test_to_bfloat16_edges(x, expected):
    assert float(to_bfloat16(x)) == expected
    assert round_exact(Fraction(x), "bfloat16") == expected  # the reference agrees


def test_to_bfloat16_special_values_shapes_and_types():
    values = np.array([[np.nan, np.inf], [-np.inf, -0.0]])
    got = to_bfloat16(values)
    assert got.shape == (2, 2) and got.dtype == np.float32
    assert np.isnan(got[0, 0]) and got[0, 1] == np.inf and got[1, 0] == -np.inf
    assert got[1, 1] == 0 and np.signbit(got[1, 1])
    assert to_bfloat16(np.float16(0.1)) == to_bfloat16(0.1)  # float16 is exact in float32
    assert to_bfloat16([1, 2, 3]).tolist() == [1.0, 2.0, 3.0]
    assert to_bfloat16(np.array(7, dtype=np.int64)).shape == ()
    with pytest.raises(TypeError, match="real numbers"):
        to_bfloat16(np.array(["a"]))
    with pytest.raises(TypeError, match="real numbers"):
        to_bfloat16(1 + 2j)


# --------------------------------------------------------------------------------------
# round_to and ulp.


@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
@settings(max_examples=300, deadline=None)
def test_round_to_is_correct_rounding(x):
    for name in ("float16", "float32", "bfloat16"):
        assert round_to(x, name).item() == round_exact(Fraction(x), name), (name, x)
    assert round_to(x, "float64").item() == x


@given(st.floats(min_value=2.0**-1022, max_value=1e300, allow_nan=False))
@settings(max_examples=300, deadline=None)
def test_ulp_matches_numpy_spacing(x):
    for name in ("float16", "float32", "float64"):
        with np.errstate(over="ignore"):
            rounded = np.array(x).astype(name)
        if not np.isfinite(rounded) or rounded == np.finfo(name).max:
            continue  # no finite number above the largest one: spacing overflows
        expected = float(np.spacing(rounded))  # the gap above a positive number
        assert ulp(float(rounded), name).item() == expected, (name, x)


@pytest.mark.parametrize(
    ("x", "name", "expected"),
    [
        (1.0, "bfloat16", 2.0**-7),
        (256.0, "bfloat16", 2.0),
        (255.0, "bfloat16", 1.0),
        (0.0, "bfloat16", 2.0**-133),
        (2.0**-130, "bfloat16", 2.0**-133),  # subnormal: the smallest quantum
        (1e6, "float32", 0.0625),
        (-1e6, "float32", 0.0625),
        (2048.0, "float16", 2.0),
        (2047.0, "float16", 1.0),
        (0.0, "float16", 2.0**-24),
    ],
)
def test_ulp_by_hand(x, name, expected):
    assert ulp(x, name).item() == expected


def test_ulp_refuses_infinite_and_out_of_range_values():
    with pytest.raises(ValueError, match="finite"):
        ulp(np.inf, "float32")
    with pytest.raises(ValueError, match="range of float16"):
        ulp(70000.0, "float16")


@pytest.mark.parametrize(
    ("dtype", "error", "message"),
    [
        ("int32", ValueError, "got int32"),
        ("float128x", TypeError, "dtype must be one of"),
        (None, TypeError, "dtype must be one of"),
        (True, TypeError, "dtype must be one of"),
        ("complex64", ValueError, "got complex64"),
    ],
)
def test_bad_dtypes_are_refused(dtype, error, message):
    with pytest.raises(error, match=message):
        exact_integer_limit(dtype)
    with pytest.raises(error, match=message):
        round_to(1.0, dtype)


@pytest.mark.parametrize("bad", [",", "i4,", "(2)f8", "not a dtype"])
def test_a_string_numpy_cannot_read_as_one_type_is_a_type_error(bad):
    # NumPy reads "," as a record specification and raises SyntaxError from inside
    # ast; the library names the formats it takes instead (found by tests/test_fuzz).
    with pytest.raises((TypeError, ValueError), match="dtype must be one of"):
        exact_integer_limit(bad)
