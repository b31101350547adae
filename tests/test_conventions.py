"""Tests of posenc.conventions against the libraries' formulas, written out here.

Each reference below is typed in from shared FACTS section 4 (and the libraries'
public code it summarises), one column at a time, without calling the module's
helpers. Two kinds of comparison:

- bit for bit, against the formula evaluated here in the library's precision
  (float32 step by step, or float64 then float32): this pins the precision path;
- against the exact formula at 40 digits (mpmath), within a tolerance that the
  library's precision explains: this pins the mathematics.
"""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from posenc.conventions import (
    CONVENTIONS,
    ROTARY_PAIRINGS,
    Convention,
    columns,
    concatenated_order,
    rotary_pairs,
    table,
)
from posenc.precision import to_bfloat16

NAMES = (
    "paper",
    "tensor2tensor",
    "fairseq",
    "xlm",
    "marian",
    "pytorch-tutorial",
    "keras-hub",
    "whisper",
)
F32 = np.float32
EPS32 = 2.0**-24  # float32 unit roundoff


# --------------------------------------------------------------------------------------
# The libraries' formulas, written out column by column.


def positions32(start: int, length: int) -> np.ndarray:
    return np.array([F32(p) for p in range(start, start + length)], dtype=F32)


def ref_tutorial(length: int, width: int, start: int = 0) -> np.ndarray:
    """PyTorch tutorial: div_term = exp(2i * (-ln 10000 / d)), all float32; interleaved."""
    out = np.zeros((length, width), dtype=F32)
    pos = positions32(start, length)
    factor = F32(-math.log(10000.0) / width)
    for i in range(width // 2):
        frequency = np.exp(np.array([F32(2 * i) * factor], dtype=F32))[0]
        angle = pos * frequency
        out[:, 2 * i] = np.sin(angle)
        out[:, 2 * i + 1] = np.cos(angle)
    return out


def ref_fairseq(length: int, width: int, start: int, padding_idx: int = 1) -> np.ndarray:
    """fairseq: exp(i * -(ln 10000 / (h-1))) in float32; sines, cosines, zero column."""
    h = width // 2
    step = F32(-(math.log(10000) / (h - 1)))
    out = np.zeros((length, width), dtype=F32)
    pos = positions32(start, length)
    for i in range(h):
        frequency = np.exp(np.array([F32(i) * step], dtype=F32))[0]
        out[:, i] = np.sin(pos * frequency)
        out[:, h + i] = np.cos(pos * frequency)
    for r, p in enumerate(range(start, start + length)):
        if p == padding_idx:
            out[r] = 0
    return out


def ref_whisper(length: int, width: int) -> np.ndarray:
    """Whisper: inv = exp(-(ln 10000 / (h-1)) * i) in float32; sines then cosines."""
    h = width // 2
    out = np.zeros((length, width), dtype=F32)
    pos = positions32(0, length)
    for i in range(h):
        inverse = np.exp(np.array([F32(-(np.log(10000.0) / (h - 1))) * F32(i)], dtype=F32))[0]
        out[:, i] = np.sin(pos * inverse)
        out[:, h + i] = np.cos(pos * inverse)
    return out


def ref_tensor2tensor(length, width, start=0, min_timescale=1.0, max_timescale=1e4):
    """tensor2tensor: min * exp(i * -(log(max/min) / max(h-1, 1))), float32; zero column."""
    h = width // 2
    increment = F32(math.log(max_timescale / min_timescale)) / F32(max(h - 1, 1))
    out = np.zeros((length, width), dtype=F32)
    pos = positions32(start, length)
    for i in range(h):
        inverse = F32(min_timescale) * np.exp(np.array([F32(i) * -increment], dtype=F32))[0]
        out[:, i] = np.sin(pos * inverse)
        out[:, h + i] = np.cos(pos * inverse)
    return out


def ref_xlm_angles(length: int, width: int, start: int = 0) -> np.ndarray:
    """pos / 10000**(2(j//2)/d), float64, column by column (Python's own arithmetic)."""
    angles = np.empty((length, width))
    for j in range(width):
        denominator = np.power(10000, 2 * (j // 2) / width)
        for r, p in enumerate(range(start, start + length)):
            angles[r, j] = p / denominator
    return angles


def ref_xlm(length: int, width: int, start: int = 0) -> np.ndarray:
    """XLM: interleaved, float64 sin/cos, then float32."""
    angles = ref_xlm_angles(length, width, start)
    out = np.empty((length, width), dtype=F32)
    for j in range(width):
        out[:, j] = np.sin(angles[:, j]) if j % 2 == 0 else np.cos(angles[:, j])
    return out


def ref_marian(length: int, width: int, start: int = 0) -> np.ndarray:
    """Marian: ceil(d/2) sines (even j) then floor(d/2) cosines (odd j), float64 then f32."""
    angles = ref_xlm_angles(length, width, start)
    sines = [np.sin(angles[:, j]) for j in range(0, width, 2)]
    cosines = [np.cos(angles[:, j]) for j in range(1, width, 2)]
    return np.stack(sines + cosines, axis=1).astype(F32)


def ref_keras16(length: int, width: int, start: int = 0) -> np.ndarray:
    """Keras-Hub under float16: NumPy's own float16 arithmetic, step by step."""
    h16 = np.float16
    pos = (np.arange(length) + start).astype(h16)
    min_freq = h16(1 / 10000)
    j = np.arange(width)
    exponent = (2 * (j // 2)).astype(h16) / h16(width)
    timescales = np.power(min_freq, exponent)
    angles = pos[:, None] * timescales[None, :]
    cos_mask = (j % 2).astype(h16)
    sin_mask = h16(1) - cos_mask
    return np.sin(angles) * sin_mask + np.cos(angles) * cos_mask


def exact_column(kind: str, speed, pos: int) -> mpmath.mpf:
    angle = pos * speed
    return {"sin": mpmath.sin, "cos": mpmath.cos}[kind](angle) if kind != "zero" else 0


def largest_error(got: np.ndarray, kinds, speeds, start: int) -> float:
    """max |got - kind(pos * speed)|, the exact side at 40 digits."""
    worst = mpmath.mpf(0)
    with mpmath.workdps(40):
        for r, row in enumerate(got.astype(np.float64).tolist()):
            for value, kind, speed in zip(row, kinds, speeds, strict=True):
                worst = max(worst, abs(mpmath.mpf(value) - exact_column(kind, speed, start + r)))
    return float(worst)


def formula(name: str, width: int, min_timescale: float = 1.0):
    """(kinds, speeds) of FACTS section 4 as mpmath numbers at 40 digits, by convention."""
    with mpmath.workdps(40):
        return _formula(name, width, min_timescale)


def _formula(name: str, width: int, min_timescale: float):
    h = width // 2
    b = mpmath.mpf(10000)
    if name in ("tensor2tensor", "fairseq", "whisper"):
        low = mpmath.mpf(min_timescale) if name == "tensor2tensor" else 1
        top = max(h - 1, 1)
        rates = [low * (b / low) ** (-mpmath.mpf(i) / top) for i in range(h)]
        return ["sin"] * h + ["cos"] * h + ["zero"] * (width % 2), rates + rates + [0] * (
            width % 2
        )
    rates = [b ** (-mpmath.mpf(2 * (j // 2)) / width) for j in range(width)]
    kinds = ["sin" if j % 2 == 0 else "cos" for j in range(width)]
    if name == "marian":
        evens, odds = list(range(0, width, 2)), list(range(1, width, 2))
        return [kinds[j] for j in evens + odds], [rates[j] for j in evens + odds]
    return kinds, rates


# --------------------------------------------------------------------------------------
# The registry.


def test_registry_holds_every_convention_of_facts_section_4():
    assert tuple(CONVENTIONS) == NAMES
    for key, convention in CONVENTIONS.items():
        assert isinstance(convention, Convention)
        assert convention.name == key
        assert convention.layout in ("interleaved", "concatenated", "marian")
        assert convention.odd_width in ("error", "zero column", "extra sine")
        assert convention.base == 10000.0
        assert convention.libraries and convention.notes and convention.title
        with pytest.raises(dataclasses.FrozenInstanceError):
            convention.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "layout", "exponent", "start"),
    [
        ("paper", "interleaved", "2i/d", 0),
        ("tensor2tensor", "concatenated", "i/(h-1)", 0),
        ("fairseq", "concatenated", "i/(h-1)", 2),
        ("xlm", "interleaved", "2(j//2)/d", 0),
        ("marian", "marian", "2(j//2)/d", 0),
        ("pytorch-tutorial", "interleaved", "2i/d", 0),
        ("keras-hub", "interleaved", "2(j//2)/d", 0),
        ("whisper", "concatenated", "i/(h-1)", 0),
    ],
)
def test_registry_rows_match_facts(name, layout, exponent, start):
    convention = CONVENTIONS[name]
    assert convention.layout == layout
    assert convention.exponent.startswith(exponent)
    assert convention.start == start


def test_libraries_named_in_facts_are_listed():
    everything = " ".join(" ".join(c.libraries) for c in CONVENTIONS.values())
    for library in ("FSMT", "M2M100", "Speech2Text", "DistilBERT", "Pegasus", "Annotated"):
        assert library in everything


# --------------------------------------------------------------------------------------
# Bit for bit: the library's precision path.


@pytest.mark.parametrize("width", [2, 4, 8, 16, 64])
@pytest.mark.parametrize("start", [0, 1000, 2**24 - 3])
def test_pytorch_tutorial_bit_for_bit(width, start):
    assert np.array_equal(
        table("pytorch-tutorial", 7, width, start=start), ref_tutorial(7, width, start)
    )


@pytest.mark.parametrize("width", [4, 5, 8, 9, 64])
@pytest.mark.parametrize(("start", "padding_idx"), [(None, 1), (0, 1), (0, 0), (5, 7)])
def test_fairseq_bit_for_bit(width, start, padding_idx):
    got = table("fairseq", 12, width, start=start, padding_idx=padding_idx)
    first = padding_idx + 1 if start is None else start
    assert np.array_equal(got, ref_fairseq(12, width, first, padding_idx))


@pytest.mark.parametrize("width", [4, 6, 8, 384])
def test_whisper_bit_for_bit(width):
    assert np.array_equal(table("whisper", 9, width), ref_whisper(9, width))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 8, 64])
@pytest.mark.parametrize(
    ("start", "min_timescale", "max_timescale"), [(0, 1.0, 1e4), (17, 2.0, 5e3)]
)
def test_tensor2tensor_bit_for_bit(width, start, min_timescale, max_timescale):
    got = table(
        "tensor2tensor", 6, width, start=start, min_timescale=min_timescale, base=max_timescale
    )
    assert np.array_equal(got, ref_tensor2tensor(6, width, start, min_timescale, max_timescale))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 8, 64])
def test_xlm_and_marian_bit_for_bit(width):
    assert np.array_equal(table("xlm", 10, width, start=3), ref_xlm(10, width, 3))
    assert np.array_equal(table("marian", 10, width, start=3), ref_marian(10, width, 3))


@pytest.mark.parametrize("width", [1, 2, 5, 8, 16])
@pytest.mark.parametrize("start", [0, 2040, 60000])
def test_keras_hub_float16_bit_for_bit(width, start):
    got = table("keras-hub", 12, width, start=start, dtype="float16")
    assert got.dtype == np.float16
    assert np.array_equal(got, ref_keras16(12, width, start), equal_nan=True)


def test_paper_is_posenc_sinusoidal():
    for dtype in (np.float64, np.float32, np.float16):
        assert np.array_equal(
            table("paper", 20, 8, start=5, dtype=dtype),
            posenc.sinusoidal(20, 8, start=5, dtype=dtype),
        )


# --------------------------------------------------------------------------------------
# Against the exact formula (40-digit mpmath).

TOLERANCE = {  # for positions below 64 and widths up to 16
    "paper": 4e-16,  # posenc's float64 promise
    "xlm": 2.0**-25 + 1e-15,  # one rounding of an accurate float64 to float32
    "marian": 2.0**-25 + 1e-15,
    # float32 throughout: exp turns the rounding of its argument (up to ln 10000 = 9.2)
    # into up to ~16 ulp of the frequency, and the angle (below 64) multiplies that.
    # Measured: at most 21 EPS32; a wrong layout or exponent is off by 1e-2 or more.
    "pytorch-tutorial": 64 * 16 * EPS32,
    "tensor2tensor": 64 * 16 * EPS32,
    "fairseq": 64 * 16 * EPS32,
    "whisper": 64 * 16 * EPS32,
    "keras-hub": 64 * 16 * EPS32,
}


# Every convention at widths 4, 5, 8, 16, odd ones only where the library allows them.
VALID = [
    (name, width)
    for name in NAMES
    for width in (4, 5, 8, 16)
    if not (width % 2 and CONVENTIONS[name].odd_width == "error")
]


@pytest.mark.parametrize(("name", "width"), VALID)
def test_table_matches_the_exact_formula(name, width):
    convention = CONVENTIONS[name]
    kinds, speeds = formula(name, width)
    got = table(name, 60, width)  # positions start .. start + 59, below 64
    error = largest_error(got, kinds, speeds, convention.start)
    assert error <= TOLERANCE[name], (name, width, error)


@pytest.mark.parametrize(("name", "width"), VALID)
def test_columns_is_the_exact_formula(name, width):
    kinds, speeds = columns(name, width)
    want_kinds, want_speeds = formula(name, width)
    assert list(kinds) == want_kinds
    with mpmath.workdps(40):
        for got, want in zip(speeds.tolist(), want_speeds, strict=True):
            assert abs(got - want) <= np.spacing(abs(got)) / 2 + 1e-300, (name, width)


def test_columns_tensor2tensor_min_timescale_multiplies():
    kinds, speeds = columns("tensor2tensor", 8, min_timescale=2.0, base=5000.0)
    # FACTS: the frequencies are min * (max/min)**(-i/(h-1)), not (1/min) * (...)
    assert speeds[0] == 2.0
    assert speeds[3] == pytest.approx(2.0 / 2500.0, rel=1e-15)
    assert kinds == ("sin",) * 4 + ("cos",) * 4


# --------------------------------------------------------------------------------------
# Facts about the conventions.


@pytest.mark.parametrize("width", [4, 8, 64, 512])
def test_h_minus_1_ladders_end_exactly_at_the_base(width):
    for name in ("tensor2tensor", "fairseq", "whisper"):
        _, speeds = columns(name, width)
        h = width // 2
        assert speeds[h - 1] == 1e-4  # wavelength exactly 2 pi * 10000
        assert speeds[0] == 1.0
    _, paper = columns("paper", width)
    assert paper[-1] > 1e-4  # the paper's ladder stops one rung short


@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 9])
def test_marian_is_xlm_with_columns_permuted(width):
    xlm = table("xlm", 15, width, start=4)
    assert np.array_equal(table("marian", 15, width, start=4), xlm[:, concatenated_order(width)])


@pytest.mark.parametrize("width", [4, 6, 8, 512])
def test_fairseq_and_whisper_agree_off_the_padding_row(width):
    fairseq = table("fairseq", 30, width, start=0)
    whisper = table("whisper", 30, width)
    assert np.array_equal(np.delete(fairseq, 1, axis=0), np.delete(whisper, 1, axis=0))
    assert not fairseq[1].any() and whisper[1].any()


def test_fairseq_first_position_and_padding_row():
    # A sequence of 3 tokens gets rows padding_idx + 1, + 2, + 3 of the weight table.
    weights = table("fairseq", 6, 8, start=0)
    assert np.array_equal(table("fairseq", 3, 8), weights[2:5])
    assert not weights[1].any()
    weights = table("fairseq", 6, 8, start=0, padding_idx=0)
    assert np.array_equal(table("fairseq", 3, 8, padding_idx=0), weights[1:4])
    assert not weights[0].any()
    assert np.array_equal(weights[2], table("whisper", 3, 8)[2])


@pytest.mark.parametrize("name", ["tensor2tensor", "fairseq"])
def test_odd_width_gives_a_zero_last_column(name):
    got = table(name, 9, 9)
    assert not got[:, 8].any()
    assert np.array_equal(got[:, :8], table(name, 9, 8))  # h = 4 either way
    assert columns(name, 9)[0][-1] == "zero"


@pytest.mark.parametrize("name", ["xlm", "keras-hub"])
def test_interleaved_odd_width_ends_with_a_sine(name):
    got = table(name, 5, 5).astype(np.float64)
    w = 10000.0 ** (-4 / 5)
    for pos in range(5):
        assert got[pos, 4] == pytest.approx(math.sin(pos * w), abs=1e-6)


def test_float32_conventions_lose_positions_past_two_to_the_24():
    top = 2**24
    for name in ("pytorch-tutorial", "fairseq", "whisper", "tensor2tensor"):
        rows = table(name, 2, 8, start=top)
        assert np.array_equal(rows[0], rows[1]), name  # 2**24 + 1 rounds to 2**24
    rows = table("xlm", 2, 8, start=top)
    assert not np.array_equal(rows[0], rows[1])  # float64 positions are still exact


def test_keras_hub_positions_in_the_compute_dtype():
    half = table("keras-hub", 2, 8, start=2048, dtype="float16")
    assert np.array_equal(half[0], half[1])  # 2049 is 2048 in float16
    brain = table("keras-hub", 2, 8, start=256, dtype="bfloat16")
    assert brain.dtype == np.float32
    assert np.array_equal(brain[0], brain[1])  # 257 is 256 in bfloat16
    assert np.array_equal(brain, to_bfloat16(brain))  # bfloat16 values
    single = table("keras-hub", 2, 8, start=2048)
    assert not np.array_equal(single[0], single[1])
    far = table("keras-hub", 1, 4, start=70000, dtype="float16")
    assert np.isnan(far).all()  # 70000 overflows float16: inf, and sin(inf) is NaN
    wide = table("keras-hub", 3, 6, dtype="float64")
    assert wide.dtype == np.float64
    assert np.abs(wide - table("paper", 3, 6)).max() < 1e-15


@pytest.mark.parametrize("name", NAMES)
def test_shapes_types_and_range(name):
    width = 8
    got = table(name, 11, width)
    assert got.shape == (11, width)
    assert got.dtype == (np.float64 if name == "paper" else np.float32)
    assert got.flags.c_contiguous
    assert np.abs(got).max() <= 1.0
    assert table(name, 0, width).shape == (0, width)


@given(
    name=st.sampled_from(NAMES),
    length=st.integers(0, 16),
    width=st.integers(1, 40),
    start=st.integers(0, 10**6),
)
@settings(max_examples=120, deadline=None)
def test_any_valid_call_gives_a_bounded_table(name, length, width, start):
    convention = CONVENTIONS[name]
    if width < convention.min_width or (width % 2 and convention.odd_width == "error"):
        with pytest.raises(ValueError, match="width"):
            table(name, length, width, start=start)
        return
    got = table(name, length, width, start=start)
    assert got.shape == (length, width)
    assert np.isfinite(got).all()
    assert np.abs(got).max(initial=0) <= 1.0
    # Each sine/cosine pair lies on the unit circle, up to float32 rounding.
    kinds, _ = columns(name, width)
    sines = [j for j, k in enumerate(kinds) if k == "sin"]
    cosines = [j for j, k in enumerate(kinds) if k == "cos"]
    rows = [r for r in range(length) if not (name == "fairseq" and start + r == 1)]  # padding
    for s, c in zip(sines, cosines, strict=False):  # an odd width has one sine more
        norm = got[rows, s].astype(float) ** 2 + got[rows, c].astype(float) ** 2
        assert np.all(np.abs(norm - 1) < 1e-6)


# --------------------------------------------------------------------------------------
# The permutation and the rotary pairings.


@pytest.mark.parametrize("width", [1, 2, 3, 8, 9, 512])
def test_concatenated_order_is_a_permutation(width):
    order = concatenated_order(width)
    assert sorted(order.tolist()) == list(range(width))
    sines = (width + 1) // 2
    assert all(j % 2 == 0 for j in order[:sines]) and all(j % 2 == 1 for j in order[sines:])
    assert np.array_equal(np.argsort(order)[order], np.arange(width))


def test_concatenated_layout_is_the_interleaved_one_permuted():
    # The same frequencies in both layouts: permuting the paper's columns gives the
    # table with all sines first, column by column.
    paper = table("paper", 6, 8)
    concatenated = paper[:, concatenated_order(8)]
    for i in range(4):
        assert np.array_equal(concatenated[:, i], paper[:, 2 * i])
        assert np.array_equal(concatenated[:, 4 + i], paper[:, 2 * i + 1])
    # Dot products between codes do not see the permutation.
    assert np.allclose(concatenated @ concatenated.T, paper @ paper.T, rtol=0, atol=1e-13)


@pytest.mark.parametrize("width", [2, 4, 8, 64])
def test_rotary_pairings(width):
    interleaved = rotary_pairs("interleaved", width)
    half = rotary_pairs("half", width)
    assert interleaved.shape == half.shape == (width // 2, 2)
    for pairs in (interleaved, half):
        assert sorted(pairs.ravel().tolist()) == list(range(width))
    # Pair i of "half" is where pair i of "interleaved" lands in the concatenated layout.
    inverse = np.argsort(concatenated_order(width))
    assert np.array_equal(inverse[interleaved], half)
    assert set(ROTARY_PAIRINGS) == {"interleaved", "half"}


# --------------------------------------------------------------------------------------
# Bad input.


@pytest.mark.parametrize(
    ("name", "width", "message"),
    [
        ("paper", 5, "even for 'paper'"),
        ("pytorch-tutorial", 7, "even for 'pytorch-tutorial'.*crashes"),
        ("whisper", 5, "even for 'whisper'.*asserts"),
        ("whisper", 2, ">= 4 for 'whisper'.*NaN"),
        ("fairseq", 2, ">= 4 for 'fairseq'.*ZeroDivisionError"),
        ("fairseq", 3, ">= 4 for 'fairseq'.*ZeroDivisionError"),
        ("fairseq", 1, ">= 4 for 'fairseq'"),
        ("xlm", 0, "width must be an integer >= 1"),
    ],
)
def test_widths_the_library_cannot_compute_are_refused(name, width, message):
    with pytest.raises(ValueError, match=message):
        table(name, 3, width)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": "llama"}, ValueError, "name must be one of"),
        ({"name": 3}, TypeError, "name must be one of"),
        ({"length": -1}, ValueError, "length must be an integer >= 0"),
        ({"length": 2.0}, TypeError, "length must be an integer"),
        ({"width": True}, TypeError, "width must be an integer"),
        ({"base": 1.0}, ValueError, "base must be a finite real number > 1"),
        ({"base": "10000"}, TypeError, "base"),
        ({"start": -2}, ValueError, "start must be an integer >= 0"),
        ({"start": 2**53}, ValueError, "2\\*\\*53"),
        ({"min_timescale": 2.0}, ValueError, "min_timescale applies to 'tensor2tensor' only"),
        ({"padding_idx": 0}, ValueError, "padding_idx applies to 'fairseq' only"),
        ({"dtype": "float16"}, ValueError, "dtype applies to 'paper' and 'keras-hub' only"),
        ({"name": "keras-hub", "dtype": "int8"}, ValueError, "dtype must be one of bfloat16"),
        ({"name": "paper", "dtype": "int8"}, ValueError, "dtype must be one of"),
        ({"name": "tensor2tensor", "min_timescale": 0.0}, ValueError, "min_timescale .* > 0"),
        ({"name": "tensor2tensor", "start": 2**31}, ValueError, "2\\*\\*31 for 'tensor2tensor'"),
        ({"name": "keras-hub", "start": 2**31 - 1, "length": 2}, ValueError, "int32"),
        ({"name": "fairseq", "padding_idx": -1}, ValueError, "padding_idx must be"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, message):
    call = {"name": "xlm", "length": 3, "width": 8} | kwargs
    name = call.pop("name")
    with pytest.raises(error, match=message):
        table(name, **call)


def test_int32_limit_allows_the_last_position():
    assert table("tensor2tensor", 1, 4, start=2**31 - 1).shape == (1, 4)


def test_helpers_reject_bad_input():
    with pytest.raises(ValueError, match="width"):
        concatenated_order(0)
    with pytest.raises(ValueError, match="pairing must be one of"):
        rotary_pairs("spiral", 8)
    with pytest.raises(TypeError, match="pairing"):
        rotary_pairs(None, 8)
    with pytest.raises(ValueError, match="even"):
        rotary_pairs("half", 7)
    with pytest.raises(ValueError, match="min_timescale applies"):
        columns("fairseq", 8, min_timescale=2.0)
    with pytest.raises(ValueError, match="even for 'whisper'"):
        columns("whisper", 7)


def test_results_are_fresh_arrays():
    first = table("fairseq", 4, 8)
    first[:] = 7
    assert table("fairseq", 4, 8).max() <= 1
