"""Tests of posenc.encoding against independent sources.

The references are: the worked examples of shared FACTS section 2, typed in by hand;
mpmath at 50 digits, evaluating sin(pos * w) with the exact real w = base**(-2i/d);
and identities that hold for every input (hypothesis).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import encoding, frequencies, shift_matrix, sinusoidal, wavelengths

WIDTHS = (2, 4, 64, 512, 4096)
FLOAT64_BOUND = 4e-16  # the promised absolute error of a float64 entry
TOP = 2**24  # positions below this are covered by the accuracy promise


# --------------------------------------------------------------------------------------
# The exact values, from mpmath.


def exact_w(i: int, width: int, base: float = 10000.0) -> mpmath.mpf:
    with mpmath.workdps(50):
        return mpmath.mpf(base) ** (mpmath.mpf(-2 * i) / width)


def exact_entry(pos: int, col: int, width: int, base: float = 10000.0) -> mpmath.mpf:
    """PE(pos, col) = sin or cos of pos * base**(-2i/width), to 50 digits."""
    with mpmath.workdps(50):
        angle = int(pos) * exact_w(int(col) // 2, width, base)
        return mpmath.sin(angle) if col % 2 == 0 else mpmath.cos(angle)


def abs_error(value, exact: mpmath.mpf) -> float:
    with mpmath.workdps(50):
        return float(abs(mpmath.mpf(float(value)) - exact))


def ulp_error(value, exact: mpmath.mpf, dtype) -> float:
    """Error of ``value`` in units of the last place of ``dtype`` at the exact value."""
    unit = np.spacing(dtype(abs(float(exact))))
    return abs_error(value, exact) / float(unit)


def sample_entries(rng, width, count, start_top=TOP):
    """``count`` (start, length, row, col) draws covering [0, start_top) and all columns."""
    draws = []
    for _ in range(count):
        length = int(rng.integers(1, 200))
        start = int(rng.integers(0, start_top - length))
        draws.append((start, length, int(rng.integers(0, length)), int(rng.integers(0, width))))
    return draws


def convergents(x: mpmath.mpf, limit: int) -> list[tuple[int, int]]:
    """Continued-fraction convergents p/q of x with p < limit: best rational approximations."""
    result = []
    p0, q0, p1, q1 = 0, 1, 1, 0
    with mpmath.workdps(50):
        for _ in range(80):
            a = int(mpmath.floor(x))
            p0, q0, p1, q1 = p1, q1, a * p1 + p0, a * q1 + q0
            if p1 >= limit:
                break
            result.append((p1, q1))
            x = 1 / (x - a)
    return result


def near_zero_positions(width: int, pairs) -> list[tuple[int, int]]:
    """(pos, col) where PE is nearly zero: pos * w_i close to a multiple of pi/2.

    If p/q is a convergent of pi / (2 w_i), then p * w_i is within w_i / q of q * pi/2:
    the sine is tiny when q is even, the cosine when q is odd.
    """
    result = []
    for i in pairs:
        with mpmath.workdps(50):
            target = mpmath.pi / (2 * exact_w(i, width))
        for p, q in convergents(target, TOP):
            result.append((p, 2 * i + (q % 2)))
    return result


# --------------------------------------------------------------------------------------
# The worked examples of FACTS section 2, to 6 significant digits.


def six_digits(table: np.ndarray) -> list[list[float]]:
    return [[float(f"{x:.6g}") for x in row] for row in table.tolist()]


@pytest.mark.parametrize(
    ("length", "width", "expected"),
    [
        (
            3,
            4,
            [
                [0, 1, 0, 1],
                [0.841471, 0.540302, 0.00999983, 0.99995],
                [0.909297, -0.416147, 0.0199987, 0.9998],
            ],
        ),
        (1, 4, [[0, 1, 0, 1]]),
        (0, 2, []),
        (2, 2, [[0, 1], [0.841471, 0.540302]]),
    ],
)
def test_worked_examples(length, width, expected):
    table = sinusoidal(length, width)
    assert table.shape == (length, width)
    assert table.dtype == np.float64
    assert six_digits(table) == expected


@pytest.mark.parametrize("width", [2, 4, 6, 512])
def test_length_zero_keeps_the_width(width):
    assert sinusoidal(0, width).shape == (0, width)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (np.float64, np.float64),
        (np.float32, np.float32),
        (np.float16, np.float16),
        ("float32", np.float32),
        ("float16", np.float16),
        (np.dtype("float32"), np.float32),
        (float, np.float64),
    ],
)
def test_dtype_spellings(dtype, expected):
    table = sinusoidal(5, 6, dtype=dtype)
    assert table.dtype == expected
    assert table.shape == (5, 6)


def test_classic_mistake_column_exponent_is_absent():
    # Using column j (not pair j // 2) in the exponent gives the two columns of a pair
    # different angles; then sin**2 + cos**2 != 1 for that pair.
    table = sinusoidal(50, 16, start=1000)
    pairs = table[:, 0::2] ** 2 + table[:, 1::2] ** 2
    np.testing.assert_allclose(pairs, 1.0, rtol=0, atol=1e-15)


def test_classic_mistake_bracketing_is_absent():
    # pos / 10000 ** (2i/d), not (pos / 10000) ** (2i/d): at pos 2, pair 1 of width 4
    # has angle 2 / 100, so sin is 0.0199987 (the wrong bracketing gives 0.0141...).
    assert f"{sinusoidal(3, 4)[2, 2]:.6g}" == "0.0199987"


# --------------------------------------------------------------------------------------
# Frequencies and wavelengths.


@pytest.mark.parametrize("width", [2, 4, 6, 10, 64, 512, 1000])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 2.0])
def test_frequencies_are_correctly_rounded(width, base):
    w = frequencies(width, base=base)
    assert w.shape == (width // 2,)
    assert w.dtype == np.float64
    for i, value in enumerate(w.tolist()):
        error = abs_error(value, exact_w(i, width, base))
        assert error <= np.spacing(value) / 2, (i, error)


@pytest.mark.parametrize("width", [2, 4, 6, 512])
def test_wavelengths_are_correctly_rounded(width):
    lam = wavelengths(width)
    for i, value in enumerate(lam.tolist()):
        with mpmath.workdps(50):
            exact = 2 * mpmath.pi / exact_w(i, width)
        assert abs_error(value, exact) <= np.spacing(value) / 2, i


def test_wavelength_ladder_facts():
    lam = wavelengths(512)
    ratio = lam[1:] / lam[:-1]
    assert f"{ratio.mean():.7g}" == "1.036633"
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-14)
    assert lam[0] == pytest.approx(2 * math.pi, rel=1e-16)
    assert f"{lam[-1] / (2 * math.pi):.7g}" == "9646.616"  # 10000 ** (510/512)
    assert f"{lam[-1]:.6g}" == "60611.5"  # not 2 pi 10000 = 62831.9
    assert len(lam) == 255 + 1  # the ratio is applied 255 times


def test_frequencies_returns_a_fresh_array():
    w = frequencies(8)
    w[:] = 0.0
    assert frequencies(8)[0] == 1.0


# --------------------------------------------------------------------------------------
# Accuracy against mpmath.


@pytest.mark.parametrize("width", WIDTHS)
def test_float64_accuracy_random_positions(width):
    rng = np.random.default_rng(width)
    worst = 0.0
    for start, length, row, col in sample_entries(rng, width, 40):
        table = sinusoidal(length, width, start=start)
        worst = max(worst, abs_error(table[row, col], exact_entry(start + row, col, width)))
        extra = rng.integers(0, width, 10)  # more columns of the same table
        for c in extra.tolist():
            worst = max(worst, abs_error(table[row, c], exact_entry(start + row, c, width)))
    assert worst < FLOAT64_BOUND


def test_float64_accuracy_long_table_near_the_top():
    # One long table, so anchors and offsets are many: 65536 rows ending at 2**24.
    width, length = 64, 2**16
    start = TOP - length
    table = sinusoidal(length, width, start=start)
    rng = np.random.default_rng(7)
    rows = rng.integers(0, length, 400)
    cols = rng.integers(0, width, 400)
    worst = max(
        abs_error(table[r, c], exact_entry(start + r, c, width))
        for r, c in zip(rows.tolist(), cols.tolist(), strict=True)
    )
    assert worst < FLOAT64_BOUND


@pytest.mark.parametrize("width", WIDTHS)
def test_float32_within_one_ulp_random_positions(width):
    rng = np.random.default_rng(100 + width)
    worst = 0.0
    for start, length, row, col in sample_entries(rng, width, 40):
        table = sinusoidal(length, width, start=start, dtype=np.float32)
        for c in [col, *rng.integers(0, width, 5).tolist()]:
            exact = exact_entry(start + row, c, width)
            worst = max(worst, ulp_error(table[row, c], exact, np.float32))
    assert worst <= 1.0


@pytest.mark.parametrize("width", WIDTHS)
def test_entries_near_zero(width):
    # The hardest entries: the angle is within a hair of a multiple of pi/2.
    half = width // 2
    pairs = sorted(
        {0, 1, 2, half // 7, half // 3, half // 2, half - 2, half - 1} & set(range(half))
    )
    cases = near_zero_positions(width, pairs)
    assert len(cases) >= 10
    tiny = 0
    for pos, col in cases:
        exact = exact_entry(pos, col, width)
        tiny += abs(exact) < 2**-24
        assert abs_error(sinusoidal(1, width, start=pos)[0, col], exact) < FLOAT64_BOUND
        value32 = sinusoidal(1, width, start=pos, dtype=np.float32)[0, col]
        assert ulp_error(value32, exact, np.float32) <= 1.0, (pos, col)
        value16 = sinusoidal(1, width, start=pos, dtype=np.float16)[0, col]
        assert ulp_error(value16, exact, np.float16) <= 1.0, (pos, col)
    if width == 2:
        assert tiny >= 1  # the float32 recomputation path really ran


@pytest.mark.parametrize("width", [2, 64, 512])
def test_entries_near_zero_inside_long_tables(width):
    # The same hard entries, now at a random row of a long table: the float32 entries
    # near zero are found from the anchors' and offsets' angles, not from the values.
    half = width // 2
    pairs = sorted({0, 1, half // 3, half - 1} & set(range(half)))
    rng = np.random.default_rng(width)
    for pos, col in near_zero_positions(width, pairs):
        row = int(rng.integers(0, min(pos, 2999) + 1))
        exact = exact_entry(pos, col, width)
        table32 = sinusoidal(3000, width, start=pos - row, dtype=np.float32)
        assert ulp_error(table32[row, col], exact, np.float32) <= 1.0, (pos, col, row)
        table64 = sinusoidal(3000, width, start=pos - row)
        assert abs_error(table64[row, col], exact) < FLOAT64_BOUND, (pos, col, row)


@pytest.mark.parametrize("row", [0, 7, 64, 999])
def test_float32_entries_a_hair_from_zero(row):
    # With base = (1000/pi)**2 rounded, pair 1 of width 4 turns by almost exactly
    # pi/1000: at positions 1000, 2000 and 3000 its sine is near 1e-14, where the
    # float64 product's 1e-16 is many float32 ulps. These must be recomputed.
    with mpmath.workdps(50):
        base = float((1000 / mpmath.pi) ** 2)
    table = sinusoidal(3500, 4, base=base, start=1000 - row, dtype=np.float32)
    for pos in (1000, 2000, 3000):
        exact = exact_entry(pos, 2, 4, base)
        assert abs(exact) < 1e-12
        assert ulp_error(table[pos - 1000 + row, 2], exact, np.float32) <= 1.0, pos


@pytest.mark.parametrize(("width", "base"), [(4, 1e20), (8, 1e20), (6, 1e12)])
def test_float32_columns_of_tiny_values(width, base):
    # A huge base makes the slow pairs turn by 1e-10 per position or less: whole
    # columns of sines below 2**-24, every one of which must be recomputed.
    start, length = 3, 700
    table = sinusoidal(length, width, base=base, start=start, dtype=np.float32)
    rng = np.random.default_rng(int(base) % 1000 + width)
    for r, c in zip(
        rng.integers(0, length, 150).tolist(), rng.integers(0, width, 150).tolist(), strict=True
    ):
        exact = exact_entry(start + r, c, width, base)
        assert ulp_error(table[r, c], exact, np.float32) <= 1.0, (r, c)


@settings(max_examples=30, deadline=None)
@given(
    length=st.integers(1, 3000),
    width=st.integers(1, 40).map(lambda h: 2 * h),
    start=st.integers(0, TOP),
    base=st.sampled_from([10000.0, 2.0, 500000.0, 1e12, 1e20]),
)
def test_every_small_float32_entry_is_a_candidate(length, width, start, base):
    # Whatever the table, every entry below 2**-23 in magnitude is among those the
    # float32 path recomputes (found from the angles, never from the values).
    table = sinusoidal(length, width, base=base, start=start)  # float64
    block = encoding._block_rows(length)
    anchor = encoding._anchors(base, width, start, block, -(-length // block))
    rows, pairs = encoding._near_quarter_turns(base, width, block, anchor, length)
    flagged = set(zip(rows.tolist(), pairs.tolist(), strict=True))
    small_r, small_c = np.nonzero(np.abs(table) < 2.0**-23)
    missed = {(r, c // 2) for r, c in zip(small_r.tolist(), small_c.tolist(), strict=True)}
    assert missed <= flagged


def test_float16_within_one_ulp():
    rng = np.random.default_rng(16)
    table = sinusoidal(40, 8, start=123456, dtype=np.float16)
    for row, col in zip(
        rng.integers(0, 40, 60).tolist(), rng.integers(0, 8, 60).tolist(), strict=True
    ):
        exact = exact_entry(123456 + row, col, 8)
        assert ulp_error(table[row, col], exact, np.float16) <= 1.0


def test_the_table_without_cached_rotations(monkeypatch):
    # Large anchor and offset tables are not kept between calls; check that path too.
    monkeypatch.setattr(encoding, "_CACHED_ELEMENTS", 0)
    start, width = 9_999_000, 512
    table = sinusoidal(700, width, start=start)
    rng = np.random.default_rng(11)
    rows, cols = rng.integers(0, 700, 200).tolist(), rng.integers(0, width, 200).tolist()
    worst = max(
        abs_error(table[r, c], exact_entry(start + r, c, width))
        for r, c in zip(rows, cols, strict=True)
    )
    assert worst < FLOAT64_BOUND


def test_position_zero_is_exact():
    row = sinusoidal(1, 10)[0]
    assert row.tolist() == [0.0, 1.0] * 5
    assert not np.signbit(row).any()


def test_results_are_fresh_arrays():
    table = sinusoidal(4, 6)
    table[:] = 9.0
    assert sinusoidal(4, 6)[1, 0] == pytest.approx(math.sin(1.0), abs=1e-16)
    assert sinusoidal(4, 6).flags.writeable


def test_the_naive_formula_would_fail_these_checks():
    # np.sin(pos * w) rounds the angle first (and w = 0.01 is not a float64): at
    # position ~1e6 that costs ~1e-12. This shows the accuracy tests above can fail.
    pos, width = 1_234_567, 4
    exact = exact_entry(pos, 2, width)
    naive = np.sin(pos * frequencies(width))  # (d/2,)
    assert abs_error(naive[1], exact) > 100 * FLOAT64_BOUND
    assert abs_error(sinusoidal(1, width, start=pos)[0, 2], exact) < FLOAT64_BOUND


@pytest.mark.parametrize("base", [2.0, 1.0001, 500000.0, 1e300])
def test_other_bases(base):
    start, width = 16_000_000, 8
    table = sinusoidal(5, width, base=base, start=start)
    worst = max(
        abs_error(table[r, c], exact_entry(start + r, c, width, base))
        for r in range(5)
        for c in range(width)
    )
    assert worst < FLOAT64_BOUND


def test_positions_up_to_two_to_the_53():
    start = 2**53 - 3
    table = sinusoidal(3, 4, start=start)
    worst = max(
        abs_error(table[r, c], exact_entry(start + r, c, 4)) for r in range(3) for c in range(4)
    )
    assert worst < 1e-15


# --------------------------------------------------------------------------------------
# Identities, for every input.

lengths = st.integers(min_value=1, max_value=300)
widths = st.integers(min_value=1, max_value=40).map(lambda h: 2 * h)
starts = st.integers(min_value=0, max_value=TOP)


@settings(max_examples=40, deadline=None)
@given(length=lengths, width=widths, start=starts)
def test_every_row_has_squared_norm_half_the_width(length, width, start):
    table = sinusoidal(length, width, start=start)
    np.testing.assert_allclose(np.sum(table**2, axis=1), width / 2, rtol=0, atol=1e-15 * width)


@settings(max_examples=40, deadline=None)
@given(length=lengths, width=widths, start=st.integers(0, 5000), extra=st.integers(0, 3000))
def test_start_gives_the_rows_of_a_longer_table(length, width, start, extra):
    longer = sinusoidal(start + length + extra, width)
    np.testing.assert_allclose(
        sinusoidal(length, width, start=start),
        longer[start : start + length],
        rtol=0,
        atol=2 * FLOAT64_BOUND,
    )


@settings(max_examples=40, deadline=None)
@given(width=widths, pos=st.integers(0, TOP), k=st.integers(-TOP, TOP))
def test_shift_matrix_moves_a_row(width, pos, k):
    pos = max(pos, -k)  # keep pos + k >= 0
    row = sinusoidal(1, width, start=pos)[0]
    moved = sinusoidal(1, width, start=pos + k)[0]
    np.testing.assert_allclose(shift_matrix(k, width) @ row, moved, rtol=0, atol=1e-15)


shifts = st.one_of(
    st.integers(-TOP, TOP),
    st.floats(min_value=-1e7, max_value=1e7, allow_nan=False, allow_infinity=False),
)


@settings(max_examples=40, deadline=None)
@given(width=widths, j=shifts, k=shifts)
def test_shift_matrices_compose(width, j, k):
    # M_j M_k = M_(j+k), when j + k is exact in float64.
    if Fraction(j) + Fraction(k) != Fraction(j + k):
        return
    np.testing.assert_allclose(
        shift_matrix(j, width) @ shift_matrix(k, width),
        shift_matrix(j + k, width),
        rtol=0,
        atol=1e-15,
    )


@settings(max_examples=40, deadline=None)
@given(width=widths, k=shifts)
def test_shift_back_is_the_transpose(width, k):
    forward = shift_matrix(k, width)
    assert np.array_equal(shift_matrix(-k, width), forward.T)
    np.testing.assert_allclose(forward @ forward.T, np.eye(width), rtol=0, atol=1e-15)


@pytest.mark.parametrize("width", [2, 8, 64])
def test_shift_zero_is_the_identity(width):
    assert np.array_equal(shift_matrix(0, width), np.eye(width))


def test_shift_matrix_block_by_hand():
    # width 2, k = 1: the block [[cos 1, sin 1], [-sin 1, cos 1]] (FACTS section 2 sign).
    m = shift_matrix(1, 2)
    with mpmath.workdps(50):
        c, s = mpmath.cos(1), mpmath.sin(1)
    for value, exact in ((m[0, 0], c), (m[0, 1], s), (m[1, 0], -s), (m[1, 1], c)):
        assert abs_error(value, exact) <= np.spacing(abs(value)) / 2
    assert m.dtype == np.float64
    assert m.shape == (2, 2)


@pytest.mark.parametrize("k", [0.5, -2.25, 1e6 + 0.1, 2**53])
def test_shift_matrix_for_real_and_large_shifts(k):
    width = 6
    m = shift_matrix(k, width)
    for i in range(width // 2):
        with mpmath.workdps(50):
            angle = mpmath.mpf(k) * exact_w(i, width)
            c, s = mpmath.cos(angle), mpmath.sin(angle)
        assert abs_error(m[2 * i, 2 * i], c) < 2e-16
        assert abs_error(m[2 * i, 2 * i + 1], s) < 2e-16
        assert abs_error(m[2 * i + 1, 2 * i], -s) < 2e-16


@pytest.mark.parametrize(
    ("offset", "expected"), [(0, "64"), (6, "47.067"), (11, "42.344"), (12, "42.381")]
)
def test_dot_product_depends_on_offset_and_is_not_monotone(offset, expected):
    # FACTS section 2, d = 128: PE(p) . PE(q) = sum_i cos(w_i (p - q)).
    table = sinusoidal(20, 128, start=1000)
    dot = float(table[3] @ table[3 + offset])
    assert f"{dot:.5g}" == expected
    assert float(table[3 + offset] @ table[3]) == pytest.approx(dot, abs=1e-13)


# --------------------------------------------------------------------------------------
# Bad input: the right error, naming the argument and the allowed range.

BAD_TABLE_ARGUMENTS = [
    ({"length": -1}, ValueError, r"length must be an integer >= 0, got -1"),
    ({"length": 3.0}, TypeError, r"length must be an integer >= 0"),
    ({"length": True}, TypeError, r"length must be an integer >= 0"),
    ({"length": "3"}, TypeError, r"length must be an integer >= 0"),
    ({"length": None}, TypeError, r"length must be an integer >= 0"),
    ({"width": 3}, ValueError, r"width must be an even integer >= 2, got 3"),
    ({"width": 0}, ValueError, r"width must be an even integer >= 2, got 0"),
    ({"width": -4}, ValueError, r"width must be an even integer >= 2, got -4"),
    ({"width": 1}, ValueError, r"width must be an even integer >= 2, got 1"),
    ({"width": 4.0}, TypeError, r"width must be an even integer >= 2"),
    ({"width": True}, TypeError, r"width must be an even integer >= 2"),
    ({"base": 1}, ValueError, r"base must be a finite real number > 1"),
    ({"base": 1.0}, ValueError, r"base must be a finite real number > 1"),
    ({"base": 0.5}, ValueError, r"base must be a finite real number > 1"),
    ({"base": -10.0}, ValueError, r"base must be a finite real number > 1"),
    ({"base": float("nan")}, ValueError, r"base must be a finite real number > 1"),
    ({"base": float("inf")}, ValueError, r"base must be a finite real number > 1"),
    ({"base": "10000"}, TypeError, r"base must be a finite real number > 1"),
    ({"base": True}, TypeError, r"base must be a finite real number > 1"),
    ({"base": 1e4 + 0j}, TypeError, r"base must be a finite real number > 1"),
    ({"start": -1}, ValueError, r"start must be an integer >= 0, got -1"),
    ({"start": 1.5}, TypeError, r"start must be an integer >= 0"),
    ({"start": False}, TypeError, r"start must be an integer >= 0"),
    ({"start": 2**53}, ValueError, r"start \+ length must be <= 2\*\*53"),
    ({"dtype": "int32"}, ValueError, r"dtype must be one of float16, float32, float64"),
    ({"dtype": np.int64}, ValueError, r"dtype must be one of float16, float32, float64"),
    ({"dtype": complex}, ValueError, r"dtype must be one of float16, float32, float64"),
    ({"dtype": "nonsense"}, TypeError, r"dtype must be one of float16, float32, float64"),
    ({"dtype": None}, TypeError, r"dtype must be one of float16, float32, float64"),
]


@pytest.mark.parametrize(("change", "error", "message"), BAD_TABLE_ARGUMENTS)
def test_sinusoidal_rejects_bad_input(change, error, message):
    arguments = {"length": 3, "width": 4} | change
    length, width = arguments.pop("length"), arguments.pop("width")
    with pytest.raises(error, match=message):
        sinusoidal(length, width, **arguments)


@pytest.mark.parametrize(
    ("length", "start"),
    [(np.int64(3), np.int32(2)), (np.uint8(3), 0), (3, np.int64(7))],
)
def test_numpy_integers_are_accepted(length, start):
    np.testing.assert_array_equal(
        sinusoidal(length, np.int16(4), start=start), sinusoidal(int(length), 4, start=int(start))
    )


@pytest.mark.parametrize(
    ("k", "error", "message"),
    [
        (float("nan"), ValueError, r"k must be a finite real number"),
        (float("inf"), ValueError, r"k must be a finite real number"),
        (-float("inf"), ValueError, r"k must be a finite real number"),
        ("1", TypeError, r"k must be a finite real number"),
        (True, TypeError, r"k must be a finite real number"),
        (1j, TypeError, r"k must be a finite real number"),
        (2**60, ValueError, r"k must be a finite real number with \|k\| <= 2\*\*53"),
        (-1e300, ValueError, r"k must be a finite real number with \|k\| <= 2\*\*53"),
    ],
)
def test_shift_matrix_rejects_bad_shifts(k, error, message):
    with pytest.raises(error, match=message):
        shift_matrix(k, 4)


@pytest.mark.parametrize("function", [frequencies, wavelengths])
@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"width": 3}, ValueError, r"width must be an even integer >= 2, got 3"),
        ({"width": 0}, ValueError, r"width must be an even integer >= 2"),
        ({"width": 4, "base": 1.0}, ValueError, r"base must be a finite real number > 1"),
        ({"width": 4, "base": float("nan")}, ValueError, r"base must be a finite real number"),
    ],
)
def test_ladders_reject_bad_input(function, arguments, error, message):
    with pytest.raises(error, match=message):
        function(**arguments)


def test_shift_matrix_rejects_bad_width_and_base():
    with pytest.raises(ValueError, match=r"width must be an even integer >= 2, got 5"):
        shift_matrix(1, 5)
    with pytest.raises(ValueError, match=r"base must be a finite real number > 1"):
        shift_matrix(1, 4, base=0.9)
