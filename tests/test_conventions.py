"""Tests of posenc.conventions against the libraries' formulas, written out here.

Each reference below is typed in from shared FACTS section 4 (and the libraries'
public code it summarises), one column at a time, without calling the module's
helpers. Three kinds of comparison:

- the exact path (the default) against the formula at 50 digits (mpmath): every
  float32 entry is the nearest float32, every float64 entry within 4e-16, at
  positions up to 2**31 and widths from 1 to 1024;
- the emulated path bit for bit against the library's operations written out here
  in the library's precision (float32 step by step, or float64 then float32);
- the emulated path against the exact formula, within a bound the library's
  float32 arguments explain.
"""

from __future__ import annotations

import dataclasses
import json
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


def _formula(name: str, width: int, min_timescale: float, base: float = 10000):
    h = width // 2
    b = mpmath.mpf(base)
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


@pytest.mark.parametrize("name", NAMES)
def test_width_fields_say_what_the_library_computes(name):
    convention = CONVENTIONS[name]
    assert all(w >= convention.min_width for w in convention.refused_widths)
    for width in range(1, 12):
        fields = (
            width >= convention.min_width
            and width not in convention.refused_widths
            and not (width % 2 and width >= 3 and convention.odd_width == "error")
            and not (width == 1 and convention.min_width > 1)
        )
        assert fields == computes(name, width), (name, width)


def test_libraries_named_in_facts_are_listed():
    everything = " ".join(" ".join(c.libraries) for c in CONVENTIONS.values())
    for library in ("FSMT", "M2M100", "Speech2Text", "DistilBERT", "Pegasus", "Annotated"):
        assert library in everything


# --------------------------------------------------------------------------------------
# The emulated path, bit for bit against the library's operations written out.


@pytest.mark.parametrize("width", [2, 4, 8, 16, 64])
@pytest.mark.parametrize("start", [0, 1000, 2**24 - 3])
def test_pytorch_tutorial_bit_for_bit(width, start):
    assert np.array_equal(
        table("pytorch-tutorial", 7, width, start=start, path="emulated"),
        ref_tutorial(7, width, start),
    )


@pytest.mark.parametrize("width", [4, 5, 8, 9, 64])
@pytest.mark.parametrize(("start", "padding_idx"), [(None, 1), (0, 1), (0, 0), (5, 7)])
def test_fairseq_bit_for_bit(width, start, padding_idx):
    got = table("fairseq", 12, width, start=start, padding_idx=padding_idx, path="emulated")
    first = padding_idx + 1 if start is None else start
    assert np.array_equal(got, ref_fairseq(12, width, first, padding_idx))


@pytest.mark.parametrize("width", [4, 6, 8, 384])
def test_whisper_bit_for_bit(width):
    assert np.array_equal(table("whisper", 9, width, path="emulated"), ref_whisper(9, width))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 8, 64])
@pytest.mark.parametrize(
    ("start", "min_timescale", "max_timescale"), [(0, 1.0, 1e4), (17, 2.0, 5e3)]
)
def test_tensor2tensor_bit_for_bit(width, start, min_timescale, max_timescale):
    got = table(
        "tensor2tensor",
        6,
        width,
        start=start,
        min_timescale=min_timescale,
        base=max_timescale,
        path="emulated",
    )
    assert np.array_equal(got, ref_tensor2tensor(6, width, start, min_timescale, max_timescale))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 7, 8, 64])
def test_xlm_and_marian_bit_for_bit(width):
    for name, ref in (("xlm", ref_xlm), ("marian", ref_marian)):
        assert np.array_equal(table(name, 10, width, start=3, path="emulated"), ref(10, width, 3))


@pytest.mark.parametrize("width", [1, 2, 5, 8, 16])
@pytest.mark.parametrize("start", [0, 2040, 60000])
def test_keras_hub_float16_bit_for_bit(width, start):
    got = table("keras-hub", 12, width, start=start, dtype="float16", path="emulated")
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


def computes(name: str, width: int) -> bool:
    """Whether the library computes this width (found by running the libraries)."""
    if name == "paper":
        return width % 2 == 0
    if name == "whisper":  # odd: assertion or ValueError; width 2: NaN or ZeroDivisionError
        return width >= 4 and width % 2 == 0
    if name == "pytorch-tutorial":  # odd widths from 3 fail to broadcast; width 1 is sin(pos)
        return width == 1 or width % 2 == 0
    if name == "fairseq":  # h - 1 = 0: ZeroDivisionError; width 1 is a zero column
        return width not in (2, 3)
    return True


# Every convention at widths 1 to 5, 8, 16, where the library computes them.
VALID = [
    (name, width) for name in NAMES for width in (1, 2, 3, 4, 5, 8, 16) if computes(name, width)
]


def nearest_or_tied(value: float, true: mpmath.mpf, dtype) -> bool:
    """``value`` is the ``dtype`` number nearest to ``true``, or ``true`` is within 1e-15
    of the midpoint between two neighbours (where 4e-16 of float64 error may tip it)."""
    below = np.nextafter(dtype(float(true)), dtype(-np.inf))  # three candidates around true
    candidates = [below, np.nextafter(below, dtype(np.inf))]
    candidates.append(np.nextafter(candidates[1], dtype(np.inf)))
    distances = sorted((abs(mpmath.mpf(float(c)) - true), float(c)) for c in candidates)
    if float(value) == distances[0][1]:
        return True
    return abs(distances[0][0] - distances[1][0]) <= 2e-15 and float(value) == distances[1][1]


def exact_entry(name: str, width: int, column: int, pos: int, base=10000, low=1) -> mpmath.mpf:
    kinds, speeds = _formula(name, width, low, base)
    return exact_column(kinds[column], speeds[column], pos)


# (name, width, first position of the sample, extra arguments): far positions, large
# and small widths; the int32 conventions up to 2**31 - 1.
EXACT_CASES = [
    ("tensor2tensor", 1, 2**31 - 40, {}),
    ("tensor2tensor", 9, 2**31 - 40, {"min_timescale": 2.0, "base": 5000.0}),
    ("tensor2tensor", 1024, 2**31 - 40, {}),
    ("keras-hub", 3, 2**31 - 40, {}),
    ("keras-hub", 1023, 2**31 - 40, {}),
    ("keras-hub", 64, 2**31 - 40, {"dtype": "float64"}),
    ("keras-hub", 16, 10**6, {"dtype": "float16"}),
    ("keras-hub", 16, 10**6, {"dtype": "bfloat16"}),
    ("fairseq", 1, 0, {}),
    ("fairseq", 5, 2**31 - 40, {}),
    ("fairseq", 1024, 10**5, {}),
    ("xlm", 1, 10**12, {}),
    ("xlm", 1023, 2**31 - 40, {}),
    ("marian", 7, 2**40, {}),
    ("marian", 512, 0, {}),
    ("pytorch-tutorial", 1, 2**31, {}),
    ("pytorch-tutorial", 1024, 10**6, {}),
    ("whisper", 4, 2**31 - 40, {}),
    ("whisper", 384, 10**5, {}),
]


@pytest.mark.parametrize(("name", "width", "first", "extra"), EXACT_CASES)
def test_exact_path_is_the_formula_rounded_once(name, width, first, extra):
    got = table(name, 40, width, start=first, **extra)  # (40, d)
    low = extra.get("min_timescale", 1)
    base = extra.get("base", 10000)
    want = {"float64": np.float64, "float16": np.float16}.get(extra.get("dtype"), np.float32)
    assert got.dtype == want
    rng = np.random.default_rng(width + first % 1000)
    rows, cols = rng.integers(0, 40, 60).tolist(), rng.integers(0, width, 60).tolist()
    with mpmath.workdps(50):
        for r, j in zip(rows, cols, strict=True):
            true = exact_entry(name, width, j, first + r, base, low)
            if name == "fairseq" and first + r == 1:
                true = mpmath.mpf(0)  # the padding row
            value = got[r, j]
            if want is np.float64:
                assert abs(mpmath.mpf(float(value)) - true) <= 4e-16, (r, j)
            elif extra.get("dtype") == "bfloat16":
                assert value == to_bfloat16(np.float64(true)), (r, j)  # 8 bits: far from ties
            else:
                assert nearest_or_tied(value, true, want), (r, j, float(value), true)


#: Numerators of continued-fraction convergents of pi: sin(n) is tiny, down to 1e-16.
NEAR_MULTIPLES_OF_PI = (355, 103993, 833719, 80143857, 411557987, 1068966896, 14885392687)
NEAR_MULTIPLES_OF_PI += (1783366216531, 139755218526789, 428224593349304, 5706674932067741)


@pytest.mark.parametrize("n", NEAR_MULTIPLES_OF_PI)
def test_exact_path_tiny_entries_are_nearest_too(n):
    # There 4e-16 is many float32 ulps of the entry; the row is built from an anchor
    # and an offset (37 rows into a table), not from its own angle.
    got = table("xlm", 64, 1, start=n - 37)[37, 0]
    with mpmath.workdps(60):
        assert got == np.float32(float(mpmath.sin(n)))
    assert abs(float(got)) < 4e-5


def emulation_bound(speeds: list, pos: np.ndarray) -> np.ndarray:
    """|emulated - exact| allowed by the library's float32 steps, column by column.

    A speed ``s = exp(x)`` (or Keras-Hub's ``pow``) is computed from an argument ``x``
    that is a float32 product of roundings, off by up to ``2 |x| eps`` (eps = 2**-23);
    exp or pow is faithful (1 eps relative) and the angle product rounds (1/2 eps),
    so the angle ``t = pos * s`` is off by ``(2 |x| + 2) t eps``. sin and cos are
    faithful (1 eps), and the exact side is off by half an ulp: ``+ 2 eps``. The
    float64 pipelines (XLM, Marian) round once more than the exact path: 1 eps.
    """
    eps = 2.0**-23
    s = np.array([float(v) for v in speeds])  # (d,)
    x = np.abs(np.log(np.where(s > 0, s, 1.0)))  # (d,): |x|, 0 for zero columns
    return pos * s * (2 * x + 2) * eps + 2 * eps  # (L, d)


@pytest.mark.parametrize(("name", "width"), VALID)
@pytest.mark.parametrize("start", [0, 1000, 10**5])
def test_emulated_path_is_within_its_model_of_the_exact_one(name, width, start):
    exact = table(name, 60, width, start=start).astype(np.float64)
    emulated = table(name, 60, width, start=start, path="emulated").astype(np.float64)
    positions = np.arange(start, start + 60, dtype=np.float64)[:, None]  # (60, 1)
    bound = emulation_bound(formula(name, width)[1], positions)  # (60, d)
    if name in ("xlm", "marian", "paper"):
        bound = np.full_like(bound, 2.0**-23)
    assert np.all(np.abs(emulated - exact) <= bound), (name, width, start)
    # Far out the float32 pipelines drift from the formula (the model's point), once
    # there is a speed other than exp(0) = 1.
    if start and width >= 8 and CONVENTIONS[name].compute_dtype == "float32":
        assert np.abs(emulated - exact).max() > 2.0**-20, (name, width, start)


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
        rows = table(name, 2, 8, start=top, path="emulated")
        assert np.array_equal(rows[0], rows[1]), name  # 2**24 + 1 rounds to 2**24
        assert not np.array_equal(*table(name, 2, 8, start=top)), name  # exact positions
    rows = table("xlm", 2, 8, start=top, path="emulated")
    assert not np.array_equal(rows[0], rows[1])  # float64 positions are still exact


def test_keras_hub_positions_in_the_compute_dtype():
    def keras(length, width, **kwargs):
        return table("keras-hub", length, width, path="emulated", **kwargs)

    half = keras(2, 8, start=2048, dtype="float16")
    assert np.array_equal(half[0], half[1])  # 2049 is 2048 in float16
    brain = keras(2, 8, start=256, dtype="bfloat16")
    assert brain.dtype == np.float32
    assert np.array_equal(brain[0], brain[1])  # 257 is 256 in bfloat16
    assert np.array_equal(brain, to_bfloat16(brain))  # bfloat16 values
    single = keras(2, 8, start=2048)
    assert not np.array_equal(single[0], single[1])
    far = keras(1, 4, start=70000, dtype="float16")
    assert np.isnan(far).all()  # 70000 overflows float16: inf, and sin(inf) is NaN
    wide = keras(3, 6, dtype="float64")
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
    if not computes(name, width):
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
        ("paper", 1, "even for 'paper'"),
        ("pytorch-tutorial", 3, "even or 1 for 'pytorch-tutorial'.*broadcast.*got 3"),
        ("pytorch-tutorial", 7, "even or 1 for 'pytorch-tutorial'.*broadcast"),
        ("whisper", 5, "even for 'whisper'.*asserts.*ValueError"),
        ("whisper", 1, "even for 'whisper'"),
        ("whisper", 2, ">= 4 for 'whisper'.*NaN.*ZeroDivisionError.*got 2"),
        ("fairseq", 2, "not be 2 or 3 for 'fairseq'.*ZeroDivisionError.*got 2"),
        ("fairseq", 3, "not be 2 or 3 for 'fairseq'.*ZeroDivisionError.*got 3"),
        ("xlm", 0, "width must be an integer >= 1"),
    ],
)
def test_widths_the_library_cannot_compute_are_refused(name, width, message):
    for path in ("exact", "emulated"):
        with pytest.raises(ValueError, match=message):
            table(name, 3, width, path=path)
    with pytest.raises(ValueError, match=message):
        columns(name, width)


@pytest.mark.parametrize("path", ["exact", "emulated"])
def test_width_one_is_what_the_libraries_return(path):
    # Found by running the libraries: fairseq and tensor2tensor have no pair and pad
    # the odd width with zeros; XLM, Marian, Keras-Hub and the tutorial's code give
    # one sine of speed base**0 = 1.
    for name in ("fairseq", "tensor2tensor"):
        got = table(name, 5, 1, start=0, path=path)
        assert got.shape == (5, 1) and got.dtype == np.float32
        assert not got.any(), name
        assert columns(name, 1)[0] == ("zero",)
    sines = np.array([math.sin(p) for p in range(7)])
    for name in ("xlm", "marian", "keras-hub", "pytorch-tutorial"):
        got = table(name, 7, 1, path=path)
        assert got.shape == (7, 1) and got.dtype == np.float32
        assert np.abs(got[:, 0] - sines).max() <= 2.0**-24, name
        assert columns(name, 1) == (("sin",), pytest.approx(np.array([1.0])))


def test_narrow_widths_the_libraries_compute():
    # tensor2tensor at width 2 and 3: one pair of speed min_timescale (h - 1 taken as 1).
    for width in (2, 3):
        got = table("tensor2tensor", 4, width)
        assert np.abs(got[:, 0] - np.sin(np.arange(4))).max() <= 2.0**-24
        assert np.abs(got[:, 1] - np.cos(np.arange(4))).max() <= 2.0**-24
    assert not table("tensor2tensor", 4, 3)[:, 2].any()
    # XLM at width 3: sin, cos of speed 1, then sin of speed 10000**(-2/3).
    got = table("xlm", 4, 3)
    assert np.abs(got[3, 2] - math.sin(3 * 10000 ** (-2 / 3))) <= 2.0**-24
    assert np.array_equal(table("marian", 4, 3), got[:, [0, 2, 1]])


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("fast", ValueError, "path must be 'exact' or 'emulated', got 'fast'"),
        ("EXACT", ValueError, "path must be 'exact' or 'emulated'"),
        (None, TypeError, "path must be 'exact' or 'emulated', got NoneType"),
        (1, TypeError, "path must be 'exact' or 'emulated', got int"),
    ],
)
def test_path_must_be_exact_or_emulated(path, error, message):
    for name in ("paper", "fairseq"):
        with pytest.raises(error, match=message):
            table(name, 3, 8, path=path)


def test_paper_has_one_path():
    assert np.array_equal(
        table("paper", 9, 8, start=3), table("paper", 9, 8, start=3, path="emulated")
    )


def test_exact_path_refuses_angles_it_cannot_reduce():
    with pytest.raises(ValueError, match="2\\*\\*53"):
        table("tensor2tensor", 1, 4, start=2**31 - 1, min_timescale=2.0**23)


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


# --------------------------------------------------------------------------------------
# The command line's --path.


@pytest.mark.parametrize("path", ["exact", "emulated"])
def test_cli_table_path(path, capsys):
    from posenc.cli import main

    argv = ["table", "--length", "3", "--width", "8", "--convention", "pytorch-tutorial"]
    assert main([*argv, "--start", "1000000", "--format", "json", "--path", path]) == 0
    got = np.array(json.loads(capsys.readouterr().out), dtype=np.float32)  # (3, 8)
    with mpmath.workdps(40):
        kinds, speeds = formula("pytorch-tutorial", 8)
        error = largest_error(got, kinds, speeds, 10**6)
    # The exact path is within half a float32 ulp; the float32 steps drift by ~1e-2.
    assert (error <= 2.0**-25) == (path == "exact"), (path, error)


def test_cli_table_path_is_checked(capsys):
    from posenc.cli import main

    assert main(["table", "--length", "3", "--width", "8", "--path", "fast"]) == 2
    assert "--path" in capsys.readouterr().err
