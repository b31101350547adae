"""posenc.rope against independent references: mpmath at 60 digits, closed forms, and the
numbers of ../shared/FACTS-modern.md (recomputed there, recomputed here).

The references are written from the schemes' definitions, not from posenc's code: each
test computes what the scheme means in mpmath and asks posenc's float64 to be the nearest
float64 to it (the module's promise: one rounding), or within a stated number of ulps
where posenc's own rounding order differs from the definition's.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import mpmath
import numpy as np
import pytest

from posenc import rope
from posenc.layouts import mrope_axes
from posenc.precision import round_to

mpmath.mp.dps = 60
CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"


def mp_ladder(dim, base):
    """``base**(-2i/dim)`` in mpmath, i = 0 .. dim/2 - 1."""
    b = mpmath.mpf(base)
    return [b ** (-mpmath.mpf(2 * i) / dim) for i in range(dim // 2)]


def nearest(values):
    """The float64 nearest each mpmath value."""
    return np.array([float(v) for v in values])


def ulps(got, want):
    """|got - want| in ulps of want (float64), per entry."""
    want = np.asarray(want, dtype=np.float64)
    return np.abs(np.asarray(got) - want) / np.spacing(np.abs(want))


# --------------------------------------------------------------------------------------
# default, linear, partial rotary


@pytest.mark.parametrize(
    ("head_dim", "base"), [(128, 1e4), (128, 5e5), (128, 1e6), (64, 1e4), (96, 1e4), (256, 1e6)]
)
def test_default_is_the_nearest_float64_to_the_ladder(head_dim, base):
    w, factor = rope.inv_freq("default", head_dim, base=base)
    assert factor == 1.0
    assert np.array_equal(w, nearest(mp_ladder(head_dim, base)))


def test_linear_divides_every_speed_by_the_factor():
    w, factor = rope.inv_freq("linear", 128, base=1e4, factor=4.0)
    assert factor == 1.0
    assert np.array_equal(w, nearest(v / 4 for v in mp_ladder(128, 1e4)))
    w3, _ = rope.inv_freq("linear", 128, base=1e4, factor=3.0)  # not a power of two
    assert np.array_equal(w3, nearest(v / 3 for v in mp_ladder(128, 1e4)))


@pytest.mark.parametrize(
    ("head_dim", "share", "rotated"), [(96, 0.25, 24), (256, 0.25, 64), (80, 0.4, 32)]
)
def test_partial_rotary_puts_the_exponent_over_the_rotated_width(head_dim, share, rotated):
    # GPT-NeoX-20B (96, 25 %), GPT-J-6B (256: 64 rotated), Phi-2 (80, 0.4).
    assert rope.rotary_dim(head_dim, share) == rotated
    w, _ = rope.inv_freq("default", head_dim, partial_rotary_factor=share)
    assert np.array_equal(w, nearest(mp_ladder(rotated, 1e4)))
    wrong = nearest(mp_ladder(head_dim, 1e4))[: rotated // 2]  # exponent over head_dim
    assert w[-1] < wrong[-1]  # the rotated pairs reach further down than the wrong ladder


def test_partial_rotary_truncates_the_product_in_float64():
    assert 100 * 0.29 < 29  # float64: 28.999999999999996, so int() gives 28, as in HF
    assert rope.rotary_dim(100, 0.29) == 28
    with pytest.raises(ValueError, match=r"int\(100 \* 0.31\) = 31 must be even"):
        rope.rotary_dim(100, 0.31)


# --------------------------------------------------------------------------------------
# NTK and dynamic NTK


@pytest.mark.parametrize(("dim", "s"), [(128, 4.0), (64, 8.0), (96, 2.5)])
def test_ntk_keeps_the_fastest_pair_and_slows_the_slowest_by_exactly_s(dim, s):
    base = rope.ntk_base(1e4, s, dim)
    want = mpmath.mpf(1e4) * mpmath.mpf(s) ** (mpmath.mpf(dim) / (dim - 2))
    assert base == float(want)
    w = rope.default_inv_freq(dim, base)
    assert w[0] == 1.0
    slowest = mpmath.mpf(1e4) ** (-mpmath.mpf(dim - 2) / dim) / s
    # The base was rounded once (half an ulp, worth (d-2)/d of it in w) and w once more.
    assert ulps(w[-1], float(slowest)) <= 1.5
    # Every pair in between is slowed by s**(2i/(d-2)): less than s, more than 1.
    plain = rope.default_inv_freq(dim, 1e4)
    ratio = plain / w
    assert np.all(np.diff(ratio) > 0) and ratio[1] > 1 and abs(ratio[-1] - s) < 1e-12 * s


def test_dynamic_at_s_times_the_training_length_is_not_static_ntk():
    # FACTS-modern section 4: (s^2 - s + 1)^(d/(d-2)) = 13.54 against s^(d/(d-2)) = 4.09.
    s, dim, length = 4.0, 128, 4096
    dynamic = rope.dynamic_base(1e4, s, int(s * length), length, dim) / 1e4
    static = rope.ntk_base(1e4, s, dim) / 1e4
    exponent = mpmath.mpf(dim) / (dim - 2)
    assert dynamic == pytest.approx(float(mpmath.mpf(13) ** exponent), rel=1e-15)
    assert static == pytest.approx(float(mpmath.mpf(4) ** exponent), rel=1e-15)
    assert round(dynamic, 2) == 13.54 and round(static, 2) == 4.09


def test_dynamic_grows_with_the_current_length_only_past_the_training_length():
    short, _ = rope.inv_freq("dynamic", 128, factor=2.0, max_position_embeddings=4096, seq_len=100)
    at, _ = rope.inv_freq("dynamic", 128, factor=2.0, max_position_embeddings=4096, seq_len=4096)
    unset, _ = rope.inv_freq("dynamic", 128, factor=2.0, max_position_embeddings=4096)
    plain, _ = rope.inv_freq("default", 128)
    assert np.array_equal(short, plain) and np.array_equal(at, plain)
    assert np.array_equal(unset, plain)
    longer, _ = rope.inv_freq(
        "dynamic", 128, factor=2.0, max_position_embeddings=4096, seq_len=6000
    )
    base = mpmath.mpf(1e4) * (mpmath.mpf(2) * 6000 / 4096 - 1) ** (mpmath.mpf(128) / 126)
    assert np.array_equal(longer, nearest(mp_ladder(128, base)))


# --------------------------------------------------------------------------------------
# YaRN


def mp_correction_dim(rotations, dim, base, length):
    return dim * mpmath.log(length / (rotations * 2 * mpmath.pi)) / (2 * mpmath.log(base))


@pytest.mark.parametrize(
    ("dim", "base", "s", "length"),
    [(128, 1e4, 8.0, 4096), (128, 1e6, 4.0, 32768), (64, 1e4, 40.0, 4096), (96, 5e5, 16.0, 8192)],
)
def test_yarn_against_the_reference_codes_ramp_in_mpmath(dim, base, s, length):
    w, attention = rope.inv_freq(
        "yarn", dim, base=base, factor=s, original_max_position_embeddings=length
    )
    low = max(math.floor(mp_correction_dim(32, dim, base, length)), 0)
    high = min(math.ceil(mp_correction_dim(1, dim, base, length)), dim - 1)
    want = []
    for j, v in enumerate(mp_ladder(dim, base)):
        ramp = min(max(mpmath.mpf(j - low) / (high - low), 0), 1)  # 1: interpolate
        want.append(v * (1 - ramp) + v / s * ramp)
    assert np.array_equal(w, nearest(want))
    # Below the range: unchanged, exactly; above it: divided by s, exactly.
    plain = nearest(mp_ladder(dim, base))
    assert np.array_equal(w[: low + 1], plain[: low + 1])
    assert np.array_equal(w[high:], nearest(v / s for v in mp_ladder(dim, base)[high:]))
    assert attention == float(mpmath.mpf("0.1") * mpmath.log(s) + 1)


def test_yarn_temperature_squared_is_the_logit_factor_of_facts():
    # FACTS-modern: sqrt(1/t) = 0.1 ln s + 1 on both cos and sin: logits x 1.4591 at s = 8.
    _, attention = rope.inv_freq("yarn", 128, factor=8.0, original_max_position_embeddings=4096)
    assert round(attention**2, 4) == 1.4591
    assert round(attention, 4) != 1.4591  # the misreading: once, not squared


def test_yarn_deepseek_mscale_ratio_and_explicit_attention_factor():
    kwargs = {"factor": 40.0, "original_max_position_embeddings": 4096}
    _, same = rope.inv_freq("yarn", 64, mscale=1.0, mscale_all_dim=1.0, **kwargs)
    assert same == 1.0
    _, ratio = rope.inv_freq("yarn", 64, mscale=0.707, mscale_all_dim=1.0, **kwargs)
    want = (mpmath.mpf("0.0707") * mpmath.log(40) + 1) / (mpmath.mpf("0.1") * mpmath.log(40) + 1)
    assert ratio == pytest.approx(float(want), rel=4e-16)
    _, given = rope.inv_freq("yarn", 64, attention_factor=1.25, **kwargs)
    assert given == 1.25


def test_yarn_without_truncation_keeps_the_correction_range_fractional():
    low, high = rope.yarn_correction_range(32, 1, 128, 1e4, 4096, truncate=False)
    assert low == pytest.approx(float(mp_correction_dim(32, 128, 1e4, 4096)), rel=1e-14)
    assert high == pytest.approx(float(mp_correction_dim(1, 128, 1e4, 4096)), rel=1e-14)
    assert rope.yarn_correction_range(32, 1, 128, 1e4, 4096) == (math.floor(low), math.ceil(high))
    cut, _ = rope.inv_freq("yarn", 128, factor=8.0, original_max_position_embeddings=4096)
    smooth, _ = rope.inv_freq(
        "yarn", 128, factor=8.0, original_max_position_embeddings=4096, truncate=False
    )
    assert not np.array_equal(cut, smooth)


def test_yarn_factor_from_the_lengths():
    a, fa = rope.inv_freq(
        "yarn", 64, original_max_position_embeddings=4096, max_position_embeddings=163840
    )
    b, fb = rope.inv_freq("yarn", 64, factor=40.0, original_max_position_embeddings=4096)
    assert np.array_equal(a, b) and fa == fb


# --------------------------------------------------------------------------------------
# Llama 3 and LongRoPE


LLAMA31 = {
    "base": 5e5,
    "factor": 8.0,
    "original_max_position_embeddings": 8192,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
}


def test_llama3_bands_of_llama_3_1_are_those_of_facts():
    # FACTS-modern: d = 128, b = 5e5, s = 8: pairs 0-28 unchanged, 29-34 blended, 35-63 divided.
    bands = rope.llama3_bands(128)
    assert bands.tolist() == ["high"] * 29 + ["blend"] * 6 + ["low"] * 29
    waves = [2 * mpmath.pi / v for v in mp_ladder(128, 5e5)]
    assert waves[28] < 2048 < waves[29] and waves[34] < 8192 < waves[35]


def test_llama3_speeds_against_mpmath_and_continuity_at_both_edges():
    w, attention = rope.inv_freq("llama3", 128, **LLAMA31)
    assert attention == 1.0
    want = []
    for v in mp_ladder(128, 5e5):
        wave = 2 * mpmath.pi / v
        if wave < 2048:
            want.append(v)
        elif wave > 8192:
            want.append(v / 8)
        else:
            g = (8192 / wave - 1) / 3
            want.append((1 - g) * v / 8 + g * v)
    assert np.array_equal(w, nearest(want))
    # The blend, written as a function of the wavelength, meets both neighbours.
    for edge, outside in ((mpmath.mpf(2048), 1), (mpmath.mpf(8192), mpmath.mpf(1) / 8)):
        speed = 2 * mpmath.pi / edge
        g = (8192 / edge - 1) / 3
        assert abs(((1 - g) / 8 + g) * speed - outside * speed) < mpmath.mpf(10) ** -50


def test_llama_3_2_uses_factor_32():
    spec = rope.read_config(CONFIGS / "llama-3.2-1b.json")
    assert spec.params["factor"] == 32.0 and spec.head_dim == 64
    w, _ = spec.inv_freq()
    plain = rope.default_inv_freq(64, 5e5)
    assert w[-1] == plain[-1] / 32


def test_longrope_switches_at_the_training_length_and_its_attention_factor():
    short = np.linspace(1.0, 1.5, 48)
    long = np.linspace(1.0, 40.0, 48)
    kwargs = {
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "short_factor": short,
        "long_factor": long,
    }
    at, attention = rope.inv_freq("longrope", 96, seq_len=4096, **kwargs)
    past, _ = rope.inv_freq("longrope", 96, seq_len=4097, **kwargs)
    unset, _ = rope.inv_freq("longrope", 96, **kwargs)
    ladder = mp_ladder(96, 1e4)
    assert np.array_equal(
        at, nearest(v / mpmath.mpf(f) for v, f in zip(ladder, short, strict=True))
    )
    assert np.array_equal(
        past, nearest(v / mpmath.mpf(f) for v, f in zip(ladder, long, strict=True))
    )
    assert np.array_equal(unset, at)
    # FACTS-modern: sqrt(1 + ln s / ln L0) = 1.1902 for 128k over 4k, i.e. sqrt(17/12).
    assert attention == float(mpmath.sqrt(mpmath.mpf(17) / 12))
    assert round(attention, 4) == 1.1902


# --------------------------------------------------------------------------------------
# Caches


def test_exact_cache_is_the_correctly_rounded_cosine_and_sine():
    rng = np.random.default_rng(3)
    positions = np.concatenate([np.arange(16), rng.integers(0, 2**20, 48)])
    w, _ = rope.inv_freq("llama3", 128, **LLAMA31)
    cos, sin = rope.cos_sin(positions, w, layout="pairs")
    for m in range(0, positions.size, 7):
        for i in range(0, w.size, 5):
            angle = mpmath.mpf(int(positions[m])) * mpmath.mpf(float(w[i]))
            assert cos[m, i] == float(mpmath.cos(angle))
            assert sin[m, i] == float(mpmath.sin(angle))


def test_cache_layouts_dtypes_and_the_attention_factor():
    w = np.array([1.0, 0.1, 0.01])
    c, _ = rope.cos_sin([0, 5], w, layout="pairs")
    half, _ = rope.cos_sin([0, 5], w)
    inter, _ = rope.cos_sin([0, 5], w, layout="interleaved")
    assert half.shape == inter.shape == (2, 6)
    assert np.array_equal(half, np.concatenate([c, c], axis=1))
    assert np.array_equal(inter[:, 0::2], c) and np.array_equal(inter[:, 1::2], c)
    scaled, _ = rope.cos_sin([0, 5], w, attention_factor=1.25, layout="pairs")
    assert np.array_equal(scaled, c * 1.25)
    for dtype in ("float32", "float16", "bfloat16"):
        low, _ = rope.cos_sin([0, 5], w, layout="pairs", dtype=dtype)
        assert np.array_equal(low.astype(np.float64), round_to(c, dtype))
    assert rope.cos_sin([1], w, dtype="float16")[0].dtype == np.float16
    assert rope.cos_sin([1], w, dtype="bfloat16")[0].dtype == np.float32


def test_float32_path_is_the_phase_of_a_float32_angle():
    positions = np.array([1, 1000, 99999, 131071])
    w = np.array([1.0, 0.3, 1e-4])
    cos, _ = rope.cos_sin(positions, w, layout="pairs", path="float32", dtype="float32")
    exact, _ = rope.cos_sin(positions, w, layout="pairs")
    for m, p in enumerate(positions):
        for i, v in enumerate(w):
            angle = np.float32(p) * np.float32(v)  # float32 product, rounded
            want = np.float32(float(mpmath.cos(mpmath.mpf(float(angle)))))
            assert cos[m, i] == want
    # The phase error grows with the angle: 0.3 is not a float32, and 99999 x 0.3 rounded
    # to float32 (spacing 2**-9 near 30000) is off by up to 2**-10 rad; cos moves by
    # nearly as much. At position 1 the whole error is the last rounding, below 2**-24.
    assert 1e-4 < np.abs(cos[2, 1] - exact[2, 1]) <= 2**-10 + 2**-24
    assert np.abs(cos[0, :] - exact[0, :]).max() < 2**-24


def test_mrope_with_equal_axes_is_one_dimensional_rotary():
    w = rope.default_inv_freq(128, 1e6)
    p = np.arange(50) * 37
    angles = rope.mrope_angles(np.stack([p, p, p]), w, (16, 24, 24))
    want = np.array([[float(mpmath.mpf(int(t)) * mpmath.mpf(float(v))) for v in w] for t in p])
    assert np.array_equal(angles, want)
    mixed = rope.mrope_angles(np.stack([p, p + 1, p + 2]), w, (16, 24, 24))
    assert np.array_equal(mixed[:, :16], angles[:, :16])
    assert not np.array_equal(mixed[:, 16:], angles[:, 16:])


@pytest.mark.parametrize(
    ("sections", "pairs"),
    [((3, 4, 3), None), ((4, 3, 4), None), ((0, 1, 1), None), ((1, 1, 2), 5)],
)
def test_interleaved_mrope_refuses_sections_whose_last_pair_is_missing(sections, pairs):
    # At the boundary (last height pair 3 n_h - 2, or last width pair 3 n_w - 1, equal to
    # the number of pairs) the old guard passed and the axis silently lost a pair.
    with pytest.raises(ValueError, match="past the"):
        mrope_axes("interleaved_thw", sections, pairs)


@pytest.mark.parametrize(
    ("sections", "pairs"),
    [
        ((24, 20, 20), None),
        ((11, 11, 10), None),
        ((11, 11, 10), 64),
        ((12, 10, 10), None),
        ((4, 3, 3), None),
        ((4, 4, 3), 12),
        ((1, 1, 2), 6),
    ],
)
def test_interleaved_mrope_gives_each_axis_its_section_when_its_pairs_exist(sections, pairs):
    axes = mrope_axes("interleaved_thw", sections, pairs)
    total = sum(sections) if pairs is None else pairs
    counts = np.bincount(axes, minlength=3).tolist()
    assert counts == [total - sections[1] - sections[2], sections[1], sections[2]]


# --------------------------------------------------------------------------------------
# config.json


def test_both_forms_of_llama_3_1_read_the_same():
    old = rope.read_config(CONFIGS / "llama-3.1-8b.json")
    new = rope.read_config(CONFIGS / "llama-3.1-8b-rope-parameters.json")
    assert (old.form, new.form) == ("rope_scaling", "rope_parameters")
    assert old.scheme == new.scheme == "llama3" and old.params == new.params
    assert np.array_equal(old.inv_freq()[0], rope.inv_freq("llama3", 128, **LLAMA31)[0])


@pytest.mark.parametrize(
    ("name", "scheme", "head_dim", "base", "attention"),
    [
        ("llama-2-7b", "default", 128, 1e4, 1.0),
        ("code-llama-7b", "default", 128, 1e6, 1.0),
        ("llama-2-7b-linear-4", "linear", 128, 1e4, 1.0),
        ("llama-2-7b-dynamic-2", "dynamic", 128, 1e4, 1.0),
        ("qwen2.5-7b-yarn-4", "yarn", 128, 1e6, float(mpmath.mpf("0.1") * mpmath.log(4) + 1)),
        ("deepseek-v3", "yarn", 64, 1e4, 1.0),
        ("phi-3-mini-128k-shape", "longrope", 96, 1e4, float(mpmath.sqrt(mpmath.mpf(17) / 12))),
        ("gpt-neox-20b", "default", 96, 1e4, 1.0),
    ],
)
def test_configs_name_their_scheme(name, scheme, head_dim, base, attention):
    spec = rope.read_config(CONFIGS / f"{name}.json")
    assert (spec.scheme, spec.head_dim, spec.base) == (scheme, head_dim, base)
    assert spec.inv_freq()[1] == pytest.approx(attention, rel=1e-15)


def test_phi3_takes_the_top_level_training_length_and_derives_its_factor():
    spec = rope.read_config(CONFIGS / "phi-3-mini-128k-shape.json")
    assert spec.params["original_max_position_embeddings"] == 4096
    assert "factor" not in spec.params and spec.params["max_position_embeddings"] == 131072
    config = json.loads((CONFIGS / "phi-3-mini-128k-shape.json").read_text())
    long = np.array(config["rope_scaling"]["long_factor"])
    w, _ = spec.inv_freq(seq_len=5000)
    assert np.array_equal(
        w, nearest(v / mpmath.mpf(f) for v, f in zip(mp_ladder(96, 1e4), long, strict=True))
    )


def test_per_layer_configs_need_a_layer_type():
    path = CONFIGS / "gemma-3-4b-rope-parameters.json"
    with pytest.raises(ValueError, match=r"per layer type .*full_attention, sliding_attention"):
        rope.read_config(path)
    full = rope.read_config(path, layer_type="full_attention")
    local = rope.read_config(path, layer_type="sliding_attention")
    assert (full.scheme, full.base, local.scheme, local.base) == ("linear", 1e6, "default", 1e4)


# --------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rope.inv_freq("ntk", 128), ValueError, "scheme must be one of"),
        (lambda: rope.inv_freq(3, 128), TypeError, "scheme must be one of"),
        (lambda: rope.inv_freq("linear", 128), ValueError, "needs factor"),
        (lambda: rope.inv_freq("linear", 128, factor=0), ValueError, "factor must be"),
        (lambda: rope.inv_freq("default", 128, factor=2.0), ValueError, "does not read factor"),
        (lambda: rope.inv_freq("default", 127), ValueError, "must be even"),
        (lambda: rope.inv_freq("default", 128, base=1.0), ValueError, "base must be"),
        (
            lambda: rope.inv_freq("default", 128, partial_rotary_factor=1.5),
            ValueError,
            r"\(0, 1\]",
        ),
        (lambda: rope.inv_freq("dynamic", 128, factor=2.0), ValueError, "max_position_emb"),
        (lambda: rope.inv_freq("yarn", 128, factor=2.0), ValueError, "original_max_position"),
        (lambda: rope.inv_freq("llama3", 128, factor=8.0), ValueError, "original_max_position"),
        (
            lambda: rope.inv_freq(
                "llama3",
                128,
                factor=8.0,
                original_max_position_embeddings=8192,
                low_freq_factor=4.0,
                high_freq_factor=1.0,
            ),
            ValueError,
            "high_freq_factor must be >= low_freq_factor",
        ),
        (
            lambda: rope.inv_freq(
                "longrope",
                96,
                factor=2.0,
                original_max_position_embeddings=4096,
                short_factor=[1.0] * 47,
            ),
            ValueError,
            r"one factor per rotated pair \(48\)",
        ),
        (lambda: rope.inv_freq("linear", 8, factor=2.0, truncate=False), ValueError, "truncate"),
        (lambda: rope.cos_sin([0], [1.0], layout="rows"), ValueError, "layout must be"),
        (lambda: rope.cos_sin([0], [1.0], dtype="int8"), ValueError, "dtype must be"),
        (lambda: rope.cos_sin([0], [1.0], path="fast"), ValueError, "path must be"),
        (lambda: rope.cos_sin([0], [[1.0]]), ValueError, "1-D"),
        (lambda: rope.cos_sin([2.0**60], [1.0]), ValueError, "2\\*\\*53"),
        (lambda: rope.mrope_angles([[0], [0]], [1.0], (1, 0, 0)), ValueError, r"\(3, L\)"),
        (lambda: rope.mrope_angles([[0], [0], [0]], [1.0], (1, 1, 0)), ValueError, "summing"),
        (lambda: rope.read_config([1, 2]), TypeError, "config must be a dict"),
        (lambda: rope.read_config("/nonexistent/config.json"), ValueError, "cannot read"),
        (
            lambda: rope.read_config({"head_dim": 64, "rope_scaling": {"type": "xpos"}}),
            ValueError,
            "'xpos' is not one posenc computes",
        ),
        (
            lambda: rope.read_config({"rope_theta": 1e4}),
            ValueError,
            "neither head_dim nor hidden_size",
        ),
    ],
)
def test_bad_input_is_refused_with_the_arguments_name(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_bad_value_in_a_config_is_refused_when_it_is_read(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"head_dim": 64, "rope_scaling": {"type": "linear", "factor": -2}}')
    with pytest.raises(ValueError, match="factor must be a finite real number > 0"):
        rope.read_config(path)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        rope.read_config(path)


# --------------------------------------------------------------------------------------
# Hostile values: each refused with the name of its key (issue 32). The 400-digit
# numbers were OverflowErrors, num_attention_heads 0 a ZeroDivisionError, a string
# rope_theta was read as a number and a list rope_scaling named nothing.

HUGE = 10**399
LLAMA3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        ({"head_dim": 64, "rope_theta": HUGE}, ValueError, r"^rope_theta must be .*400 digits$"),
        ({"head_dim": HUGE}, ValueError, r"^head_dim must be an integer from 2 to 2\*\*53"),
        ({"qk_rope_head_dim": "64"}, TypeError, r"^qk_rope_head_dim must be an integer"),
        ({"hidden_size": 64, "num_attention_heads": 0}, ValueError, r"^num_attention_heads "),
        ({"hidden_size": 64, "num_attention_heads": 2.0}, TypeError, r"^num_attention_heads "),
        ({"hidden_size": 64, "num_attention_heads": 64}, ValueError, r"= 64 // 64 = 1 must be"),
        ({"hidden_size": [64], "num_attention_heads": 1}, TypeError, r"^hidden_size must be"),
        (
            {"head_dim": 64, "max_position_embeddings": HUGE, "rope_scaling": {"type": "yarn"}},
            ValueError,
            r"^max_position_embeddings must be an integer from 1 to 2\*\*53",
        ),
        (
            {
                "head_dim": 64,
                "original_max_position_embeddings": 2**53 + 1,
                "rope_scaling": LLAMA3,
            },
            ValueError,
            r"^original_max_position_embeddings must be an integer from 1 to 2\*\*53",
        ),
        ({"head_dim": 64, "rope_theta": "1e4"}, TypeError, r"^rope_theta .* got str '1e4'$"),
        ({"head_dim": 64, "rope_theta": None, "rotary_emb_base": False}, TypeError, "^rotary_emb"),
        ({"head_dim": 64, "rope_theta": float("nan")}, ValueError, r"^rope_theta .* got nan$"),
        ({"head_dim": 64, "rotary_pct": "0.25"}, TypeError, r"^rotary_pct must be"),
        ({"head_dim": 64, "rope_scaling": "linear"}, TypeError, r"^rope_scaling must be a JSON"),
        ({"head_dim": 64, "rope_parameters": [1]}, TypeError, r"^rope_parameters must be a JSON"),
        ({"head_dim": 64, "rope_scaling": {"type": 3}}, TypeError, r"^rope_scaling's type must"),
        (
            {"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": HUGE}},
            ValueError,
            r"^factor must be a finite real number, got an integer of 400 digits$",
        ),
        (
            {"head_dim": 64, "rope_scaling": {"type": "x" * 10**6}},
            ValueError,
            r"^rotary scheme 'x{40}\.\.\.x{15}' \(1000000 characters\) is not one",
        ),
    ],
)
def test_read_config_names_the_key_of_a_hostile_value(config, error, message):
    with pytest.raises(error, match=message):
        rope.read_config(config)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"head_dim": HUGE}, ValueError, r"^head_dim must be an integer from 2 to 2\*\*53"),
        ({"head_dim": 10**6}, ValueError, r"= 1000000 is more than 8192, the widest posenc"),
        ({"base": HUGE}, ValueError, r"^base must be a finite real number > 1, got an integer"),
        ({"scheme": "linear", "factor": -HUGE}, ValueError, r"got a negative integer of 400 "),
        (
            {"scheme": "yarn", "factor": 2.0, "original_max_position_embeddings": HUGE},
            ValueError,
            r"^original_max_position_embeddings must be an integer from 1 to 2\*\*53",
        ),
        (
            {
                "scheme": "yarn",
                "original_max_position_embeddings": 4096,
                "max_position_embeddings": HUGE,  # the factor is derived from it: overflowed
            },
            ValueError,
            r"^max_position_embeddings must be an integer from 1 to 2\*\*53",
        ),
        (
            {"scheme": "dynamic", "factor": 2.0, "max_position_embeddings": HUGE},
            ValueError,
            r"^max_position_embeddings must be an integer from 1 to 2\*\*53",
        ),
        (
            {
                "scheme": "yarn",
                "factor": 2.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": 1e-320,
            },
            ValueError,
            r"^beta_fast = 1e-320 is too small",
        ),
        (
            {
                "scheme": "longrope",
                "factor": 2.0,
                "original_max_position_embeddings": 1,
                "short_factor": [1.0] * 32,
            },
            ValueError,
            r"^original_max_position_embeddings must be >= 2 for longrope's attention factor",
        ),
    ],
)
def test_inv_freq_names_the_argument_of_a_hostile_value(kwargs, error, message):
    kwargs = {"scheme": "default", "head_dim": 64, **kwargs}
    with pytest.raises(error, match=message):
        rope.inv_freq(kwargs.pop("scheme"), kwargs.pop("head_dim"), **kwargs)


def test_the_widest_rotary_dim_is_computed_and_one_more_pair_is_not():
    """At MAX_ROTARY_DIM the ladder is still each float64 nearest b**(-2i/d) (mpmath)."""
    widest = rope.MAX_ROTARY_DIM
    w = rope.default_inv_freq(widest, 5e5)
    for i in (0, 1, 777, widest // 2 - 1):
        assert w[i] == float(mpmath.mpf(5e5) ** (-mpmath.mpf(2 * i) / widest))
    assert rope.check_pairs(widest // 2) == widest // 2
    with pytest.raises(ValueError, match="has 4097 rotated pairs"):
        rope.check_pairs(widest // 2 + 1, "the vector")
    with pytest.raises(ValueError, match=r"^rotary_dim must be at most 8192, got 8194: real"):
        rope.default_inv_freq(widest + 2)


def test_a_config_file_is_read_within_bounds(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"it is not a regular file \(a FIFO\)$"):
        rope.read_config(fifo)  # opened without blocking: no writer needed
    with pytest.raises(ValueError, match=r"it is a directory$"):
        rope.read_config(tmp_path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 10**5 + "]" * 10**5)
    with pytest.raises(ValueError, match="nests its JSON too deeply to be read"):
        rope.read_config(deep)
    big = tmp_path / "big.json"
    with open(big, "wb") as file:
        file.truncate(rope.CONFIG_LIMIT + 1)
    with pytest.raises(ValueError, match=r"holds 16000001 bytes, more than the 16000000 allowed"):
        rope.read_config(big)
