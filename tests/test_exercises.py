"""Tests of the exercises and their checker: ``posenc.exercises`` and ``posenc exercise``.

The worked examples are checked against FACTS section 2 (typed in by hand) and against
closed forms computed here with ``math`` alone. The reference solutions must pass; each
classic mistake, written the way a reader would write it (``tests/data/exercises/``),
must fail with its own hint; a solution that raises, hangs, returns the wrong thing,
prints, exits or does not parse must get one clear paragraph and never a traceback.
The end-to-end checks start a child process each, so they run a few at a time.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from posenc import shift_matrix, sinusoidal
from posenc.cli import main
from posenc.exercises import EXERCISES, check, exercise, listing, show
from posenc.exercises import checker as checker_module
from posenc.exercises.checker import check_function

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = {
    "E1": ROOT / "exercises" / "solutions" / "e1_sinusoidal_table.py",
    "E2": ROOT / "exercises" / "solutions" / "e2_shift_matrix.py",
    "E3": ROOT / "exercises" / "solutions" / "e3_order_blindness.py",
    "E4": ROOT / "exercises" / "solutions" / "e4_alibi_slopes.py",
    "E5": ROOT / "exercises" / "solutions" / "e5_t5_buckets.py",
    "E6": ROOT / "exercises" / "solutions" / "e6_yarn_inv_freq.py",
    "E7": ROOT / "exercises" / "solutions" / "e7_llama3_bands.py",
    "E8": ROOT / "exercises" / "solutions" / "e8_proportional_ladder.py",
    "E9": ROOT / "exercises" / "solutions" / "e9_which_layers_rotate.py",
}
MISTAKES = Path(__file__).resolve().parent / "data" / "exercises"

FACTS_3x4 = [
    [0, 1, 0, 1],
    [0.841471, 0.540302, 0.00999983, 0.99995],
    [0.909297, -0.416147, 0.0199987, 0.9998],
]

# Each mistake file, and the known mistake (posenc.exercises.eN.MISTAKES) it commits.
MISTAKE_FILES = {
    "e1_column_index": "column in exponent",
    "e1_column_over_width": "column over width",
    "e1_doubled_pair_index": "doubled pair index",
    "e1_power_of_quotient": "power of the quotient",
    "e1_unbracketed_exponent": "unbracketed exponent",
    "e1_multiplied": "multiplied",
    "e1_swapped": "sine and cosine swapped",
    "e1_from_one": "positions from one",
    "e1_concatenated": "concatenated layout",
    "e1_t2t_ladder": "tensor2tensor ladder",
    "e1_fixed_base": "fixed base",
    "e1_float32": "float32",
    "e2_rotation_sign": "rotation sign",
    "e2_no_speed": "no speed",
    "e2_column_index": "column in exponent",
    "e2_power_of_quotient": "power of the quotient",
    "e2_multiplied": "multiplied",
    "e2_swapped_block": "swapped block",
    "e2_split_halves": "split halves",
    "e2_fixed_base": "fixed base",
    "e3_code_moves": "code moves with the words",
    "e3_outputs_not_reordered": "outputs not reordered",
    "e3_inverse_order": "inverse order",
    "e3_softmax_axis": "softmax axis",
    "e3_unscaled": "unscaled scores",
    "e3_model_width": "scaled by the model width",
    "e3_code_from_one": "code from position one",
    "e3_mean": "mean",
    "e3_signed_maximum": "signed maximum",
    "e4_plain_series": "plain series",
    "e4_from_zero": "heads from zero",
    "e4_from_zero_plain": "heads from zero, plain series",
    "e4_first_extra": "first extra slopes",
    "e4_wrong_half": "wrong half",
    "e4_rounded_up": "rounded up",
    "e4_float32": "float32",
    "e4_float16": "float16",
    "e5_query_minus_key": "query minus key",
    "e5_exact_to_max_distance": "exact up to max_distance",
    "e5_causal_as_bidirectional": "causal as bidirectional",
    "e5_future_by_size": "future by its size",
    "e5_no_cap": "no cap",
    "e5_float64": "float floor on a boundary",
    "e5_float32": "float floor on a boundary",
    "e6_temperature_once": "temperature once",
    "e6_ramp_reversed": "ramp reversed",
    "e6_multiplied": "multiplied by the factor",
    "e6_not_rounded": "range not rounded",
    "e6_coordinate_index": "coordinate index",
    "e6_paper_ramp": "the paper's ramp",
    "e6_float32": "float32",
    "e7_factor_fixed": "factor fixed at 8",
    "e7_speed_against_wavelengths": "speed against wavelengths",
    "e7_bands_swapped": "bands swapped",
    "e7_blend_reversed": "blend reversed",
    "e7_stretched_length": "stretched length",
    "e7_no_two_pi": "wavelength without 2 pi",
    "e7_float32": "float32",
    "e8_rotated_width": "exponent over the rotated width",
    "e8_neox_partial": "NeoX partial rotary",
    "e8_zeros_dropped": "zeros dropped",
    "e8_zeros_first": "zeros first",
    "e8_fast_stopped": "fast pairs stopped",
    "e8_partial_ignored": "partial factor ignored",
    "e8_float32": "float32",
    "e9_factor_every_layer": "factor on every layer",
    "e9_no_rope_backwards": "no_rope_layers read backwards",
    "e9_global_base": "sliding layers given the global base",
    "e9_factor_on_no_layer": "factor on no layer",
    "e9_every_layer_rotates": "every layer rotates",
}

# Mistakes recognised by the shape of the answer: the report names the shape, not an entry.
SHAPE_MISTAKES = {"e8_neox_partial", "e8_zeros_dropped"}


def load(path: Path):
    """The module in ``path``, imported in this process."""
    spec = importlib.util.spec_from_file_location(f"exercise_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def one_paragraph_each(text: str) -> None:
    """A report is a verdict line and paragraphs, with nothing from a traceback."""
    assert "Traceback" not in text and 'File "' not in text
    assert "posenc/exercises" not in text  # no line of the checker's own code
    assert text.endswith("\n") and "\n\n\n" not in text
    assert all(len(line) <= 120 for line in text.splitlines())


# --------------------------------------------------------------------------------------
# The worked examples are right.


def test_e1_worked_examples_are_the_facts():
    e = exercise("E1")
    np.testing.assert_allclose(e.expected(3, 4, 10000.0), FACTS_3x4, rtol=0, atol=5e-7)
    np.testing.assert_allclose(e.expected(1, 4, 10000.0), [[0, 1, 0, 1]], rtol=0, atol=0)
    assert e.expected(0, 2, 10000.0).shape == (0, 2)
    np.testing.assert_allclose(
        e.expected(2, 2, 10000.0), [[0, 1], [0.841471, 0.540302]], rtol=0, atol=5e-7
    )
    assert [args for args in e.worked] == [
        (3, 4, 10000.0),
        (1, 4, 10000.0),
        (0, 2, 10000.0),
        (2, 2, 10000.0),
    ]


def test_e2_worked_examples_by_hand():
    e = exercise("E2")
    c1, s1, c3, s3 = math.cos(1), math.sin(1), math.cos(3), math.sin(3)
    np.testing.assert_allclose(e.expected(1, 2, 10000.0), [[c1, s1], [-s1, c1]], atol=1e-15)
    np.testing.assert_allclose(e.expected(3, 2, 10000.0), [[c3, s3], [-s3, c3]], atol=1e-15)
    np.testing.assert_array_equal(e.expected(0, 4, 10000.0), np.eye(4))
    c2, s2, cs, ss = math.cos(2), math.sin(2), math.cos(0.02), math.sin(0.02)
    block = [[c2, s2, 0, 0], [-s2, c2, 0, 0], [0, 0, cs, ss], [0, 0, -ss, cs]]
    np.testing.assert_allclose(e.expected(2, 4, 10000.0), block, atol=1e-15)
    np.testing.assert_allclose(
        e.expected(1, 2, 10000.0), [[0.540302, 0.841471], [-0.841471, 0.540302]], atol=5e-7
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_e2_expected_moves_the_code(seed):
    """On every case, the expected M_k takes PE(pos) to PE(pos + k)."""
    for case in exercise("E2").cases(seed):
        k, width, base = case.args
        first = max(0, -k)
        pe = sinusoidal(first + abs(k) + 5, width, base=base)  # (L, d)
        moved = pe[first : first + 5] @ shift_matrix(k, width, base).T  # (5, d)
        np.testing.assert_allclose(moved, pe[first + k : first + k + 5], atol=1e-9)


def _attention_by_hand(rows):
    """Attention with identity projections, from the formula, in plain Python."""
    out = []
    for q in rows:
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) / 2.0 for k in rows]  # sqrt(4)
        weights = [math.exp(s) for s in scores]
        total = sum(weights)
        out.append(
            [sum(w * v[c] for w, v in zip(weights, rows, strict=True)) / total for c in range(4)]
        )
    return out


@pytest.mark.parametrize(("order", "gap"), [([2, 1, 0], 0.908160), ([1, 2, 0], 0.746569)])
def test_e3_worked_examples_by_hand(order, gap):
    words = [[1, 0, 0.5, 0], [0, 1, 0, 0.5], [0.5, 0, 0, 1]]  # dog, bites, man
    code = [[math.sin(p), math.cos(p), math.sin(p / 100), math.cos(p / 100)] for p in range(3)]

    def plus(a, b):
        return [[x + y for x, y in zip(r, s, strict=True)] for r, s in zip(a, b, strict=True)]

    moved = [words[r] for r in order]
    plain = np.subtract(_attention_by_hand(moved), [_attention_by_hand(words)[r] for r in order])
    coded = np.subtract(
        _attention_by_hand(plus(moved, code)),
        [_attention_by_hand(plus(words, code))[r] for r in order],
    )
    assert np.abs(plain).max() < 1e-15
    assert np.abs(coded).max() == pytest.approx(gap, abs=5e-7)
    eye = np.eye(4)
    np.testing.assert_allclose(
        exercise("E3").expected(np.array(words), eye, eye, eye, order), [0, gap], atol=5e-7
    )


def alibi_exponents_by_hand(num_heads: int) -> list[Fraction]:
    """The exponents q_h of ALiBi's slopes 2**(-q_h), from Press et al.'s rule, exactly.

    c is found by doubling, the series for c and 2c heads are written as fractions.
    """
    c = 1
    while 2 * c <= num_heads:
        c *= 2
    first = [Fraction(8 * h, c) for h in range(1, c + 1)]
    between = [Fraction(8 * h, 2 * c) for h in range(1, 2 * c + 1) if h % 2 == 1]
    return first + between[: num_heads - c]


def test_e4_worked_examples_by_hand():
    e = exercise("E4")
    assert [args for args in e.worked] == [(8,), (6,), (12,)]
    assert e.expected(8).tolist() == [1 / 2**k for k in range(1, 9)]  # exact: powers of two
    assert e.expected(6).tolist() == [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]
    assert alibi_exponents_by_hand(12)[8:] == [Fraction(k, 2) for k in (1, 3, 5, 7)]
    np.testing.assert_allclose(
        e.expected(12)[8:], [0.707107, 0.353553, 0.176777, 0.0883883], rtol=0, atol=5e-7
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_e4_expected_is_the_rule_written_out(seed):
    """On every case, the expected slopes are 2**(-q_h) with q_h from the rule, exactly."""
    for case in exercise("E4").cases(seed):
        (num_heads,) = case.args
        want = [2.0 ** -float(q) for q in alibi_exponents_by_hand(num_heads)]
        np.testing.assert_allclose(exercise("E4").expected(num_heads), want, rtol=2e-15, atol=0)


def test_e4_cases_have_powers_of_two_and_others():
    """The plain series is right on powers of two only: both kinds must be among the cases."""
    for seed in range(5):
        heads = [case.args[0] for case in exercise("E4").cases(seed)]
        powers = [h for h in heads if h & (h - 1) == 0]
        assert len(powers) >= 2 and len(heads) - len(powers) >= 4, heads
        assert any(h - (1 << (h.bit_length() - 1)) >= 2 for h in heads)  # first != every other


def t5_bucket_by_hand(offset: int, bidirectional: bool, num_buckets: int, max_distance: int):
    """T5's bucket from its definition, the floor found with fractions: (n/e)^a >= (M/e)^q."""
    half = num_buckets // 2 if bidirectional else num_buckets
    e, a = half // 2, half - half // 2
    upper = half if bidirectional and offset > 0 else 0
    n = abs(offset) if bidirectional else max(-offset, 0)
    if n < e:
        return upper + n
    q = max(q for q in range(a) if Fraction(n, e) ** a >= Fraction(max_distance, e) ** q)
    return upper + e + q  # q <= a - 1: the cap at h - 1


def test_e5_worked_examples_by_hand():
    e = exercise("E5")
    shown = {  # the worked examples of the task and the page, typed in
        (0, 1, 7, 8, 12, 90, 91, 500): (True, [0, 17, 23, 24, 25, 30, 31, 31]),
        (0, -1, -7, -8, -91): (True, [0, 1, 7, 8, 15]),
        (3, 0, -15, -16, -113): (False, [0, 0, 15, 16, 31]),
    }
    assert [tuple(args[0].tolist()) for args in e.worked] == list(shown)
    for args in e.worked:
        bidirectional, want = shown[tuple(args[0].tolist())]
        assert args[1:] == (bidirectional, 32, 128)
        assert e.expected(*args).tolist() == want
        assert [t5_bucket_by_hand(int(r), *args[1:]) for r in args[0]] == want


@pytest.mark.parametrize("seed", [0, 1])
def test_e5_expected_is_the_definition(seed):
    for case in exercise("E5").cases(seed):
        offsets, *config = case.args
        by_hand = [t5_bucket_by_hand(int(r), *config) for r in offsets]
        assert exercise("E5").expected(*case.args).tolist() == by_hand, config


def t5_float(offsets, bidirectional, num_buckets, max_distance, dtype):
    """T5's formula in floating point, in the order of its code, floor by truncation."""
    half = num_buckets // 2 if bidirectional else num_buckets
    e = half // 2
    out = []
    for r in offsets.tolist():
        n = abs(r) if bidirectional else max(-r, 0)
        upper = half if bidirectional and r > 0 else 0
        if n < e:
            out.append(upper + n)
            continue
        x = np.log(dtype(n) / dtype(e)) / dtype(math.log(max_distance / e)) * dtype(half - e)
        out.append(upper + min(e + int(x), half - 1))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_e5_has_a_float64_and_a_float32_trap(seed):
    """Two unseen cases where T5's formula in float64 or float32 puts a distance too low."""
    e = exercise("E5")
    caught = set()
    for case in e.cases(seed):
        right = e.expected(*case.args).tolist()
        for dtype in (np.float64, np.float32):
            if t5_float(*case.args, dtype) != right:
                caught.add(dtype)
        if case.args[2:] == (32, 128):  # T5's own sizes: float32, as T5 computes, is right
            assert t5_float(*case.args, np.float32) == right
    assert caught == {np.float64, np.float32}


def yarn_by_hand(head_dim, base, factor, length, beta_fast, beta_slow):
    """YaRN's speeds and logit scale from the definition, in mpmath at 40 digits."""
    with mp.workdps(40):
        d, b, s = head_dim, mp.mpf(base), mp.mpf(factor)

        def dim(rho):  # the pair index that turns rho times in the training length
            return d * mp.log(length / (2 * mp.pi * rho)) / (2 * mp.log(b))

        low, high = max(int(mp.floor(dim(beta_fast))), 0), min(int(mp.ceil(dim(beta_slow))), d - 1)
        out = []
        for j in range(d // 2):
            w = mp.power(b, mp.mpf(-2 * j) / d)
            t = min(max(mp.mpf(j - low) / (high - low), 0), 1)
            out.append(float(w * (1 - t) + w / s * t))
        out.append(float((mp.mpf("0.1") * mp.log(s) + 1) ** 2))
        return out, (low, high)


def test_e6_worked_examples_by_hand():
    e = exercise("E6")
    assert list(e.worked) == [(16, 10000.0, 4.0, 2048, 32, 1), (128, 10000.0, 8.0, 4096, 32, 1)]
    # d = 16, b = 10^4: w_j = 10^(-j/2); the range is pairs 2 to 6, a ramp in quarters.
    ramp = [0, 0, 0, 0.25, 0.5, 0.75, 1, 1]
    closed = [10 ** (-j / 2) * (1 - t + t / 4) for j, t in enumerate(ramp)]
    closed.append((0.1 * math.log(4) + 1) ** 2)
    np.testing.assert_allclose(e.expected(*e.worked[0]), closed, rtol=1e-15, atol=0)
    shown = [1, 0.316228, 0.1, 0.0256935, 0.00625, 0.0013835, 0.00025, 7.90569e-05, 1.29648]
    np.testing.assert_allclose(e.expected(*e.worked[0]), shown, rtol=5e-6, atol=0)
    by_hand, span = yarn_by_hand(*e.worked[1])
    assert span == (20, 46)
    np.testing.assert_allclose(e.expected(*e.worked[1]), by_hand, rtol=1e-15, atol=0)
    assert by_hand[0] == 1.0
    assert by_hand[63] == pytest.approx(1.44348e-05, rel=5e-6)
    assert by_hand[64] == pytest.approx(1.4591, abs=5e-5)  # FACTS: 1.4591 at s = 8
    assert round(by_hand[64], 5) == 1.45913


@pytest.mark.parametrize("seed", [0, 1])
def test_e6_expected_is_the_definition(seed):
    for case in exercise("E6").cases(seed):
        by_hand, _ = yarn_by_hand(*case.args)
        np.testing.assert_allclose(exercise("E6").expected(*case.args), by_hand, rtol=1e-14)


def llama3_by_hand(head_dim, base, factor, length, low, high):
    """Llama 3's speeds and the band of each pair from the definition, in mpmath."""
    with mp.workdps(40):
        d, s = head_dim, mp.mpf(factor)
        speeds, bands = [], []
        for i in range(d // 2):
            w = mp.power(mp.mpf(base), mp.mpf(-2 * i) / d)
            wave = 2 * mp.pi / w
            if wave < mp.mpf(length) / high:
                speeds.append(w)
                bands.append("kept")
            elif wave > mp.mpf(length) / low:
                speeds.append(w / s)
                bands.append("divided")
            else:
                g = (length / wave - low) / (mp.mpf(high) - low)
                speeds.append(w * ((1 - g) / s + g))
                bands.append("blended")
        return [float(v) for v in speeds], bands


def test_e7_worked_examples_by_hand():
    e = exercise("E7")
    llama31 = (128, 500000.0, 8.0, 8192, 1.0, 4.0)
    assert list(e.worked) == [
        (16, 500000.0, 8.0, 8192, 1.0, 4.0),
        llama31,
        (64, 500000.0, 32.0, 8192, 1.0, 4.0),
    ]
    for args in e.worked:
        by_hand, _ = llama3_by_hand(*args)
        np.testing.assert_allclose(e.expected(*args), by_hand, rtol=1e-15, atol=0)
    shown = [1, 0.193923, 0.037606, 0.00729266, 0.000524846, 3.4281e-05, 6.64787e-06, 1.28917e-06]
    np.testing.assert_allclose(e.expected(*e.worked[0]), shown, rtol=5e-6, atol=0)
    _, bands = llama3_by_hand(*llama31)
    # FACTS: for d = 128, b = 5e5, s = 8, pairs 0-28 unchanged, 29-34 blended, 35-63 divided.
    assert bands == ["kept"] * 29 + ["blended"] * 6 + ["divided"] * 29
    _, small = llama3_by_hand(*e.worked[0])
    assert small == ["kept"] * 4 + ["blended"] + ["divided"] * 3


@pytest.mark.parametrize("seed", [0, 1])
def test_e7_expected_is_the_definition(seed):
    for case in exercise("E7").cases(seed):
        by_hand, _ = llama3_by_hand(*case.args)
        np.testing.assert_allclose(exercise("E7").expected(*case.args), by_hand, rtol=1e-14)


def proportional_by_hand(d: int, base: float, p: float) -> list[mp.mpf]:
    """Transformers' proportional rotary written out: k = int(p d // 2) pairs turn."""
    k = int(p * d // 2)
    return [mp.power(base, -mp.mpf(2 * i) / d) if i < k else mp.mpf(0) for i in range(d // 2)]


def test_e8_worked_examples_by_hand():
    e = exercise("E8")
    with mp.workdps(30):
        small = proportional_by_hand(16, 10000, 0.5)
        gemma = proportional_by_hand(512, 1000000, 0.25)
    shown = [1, 0.316228, 0.1, 0.0316228, 0, 0, 0, 0]  # the task's first worked example
    np.testing.assert_allclose(e.expected(*e.worked[0]), shown, rtol=5e-6, atol=0)
    np.testing.assert_allclose(e.expected(*e.worked[0]), [float(v) for v in small], rtol=1e-15)
    gemma4 = e.expected(*e.worked[1])
    np.testing.assert_allclose(gemma4, [float(v) for v in gemma], rtol=1e-15)
    assert np.count_nonzero(gemma4) == 64 and gemma4.shape == (256,)
    assert f"{gemma4[63]:.6g}" == "0.0333762"
    np.testing.assert_allclose(
        e.expected(*e.worked[2]), 10000.0 ** (-np.arange(0, 128, 2) / 128), rtol=1e-15
    )


def test_e8_slowest_turning_wavelengths_are_the_facts():
    """FACTS-zoo section 2: d = 256, p = 0.25, base 1e6: about 178 proportional, 4.08e6 NeoX."""
    from posenc.exercises import e8

    speeds = exercise("E8").expected(256, 1000000.0, 0.25)
    slowest = 2 * math.pi / speeds[np.count_nonzero(speeds) - 1]
    assert round(slowest) == 178
    assert f"{2 * math.pi / e8.neox(256, 1000000.0, 0.25)[-1]:.3g}" == "4.08e+06"


@pytest.mark.parametrize("seed", [0, 1])
def test_e8_expected_is_the_definition(seed):
    e = exercise("E8")
    for case in e.cases(seed):
        with mp.workdps(30):
            by_hand = [float(v) for v in proportional_by_hand(*case.args)]
        np.testing.assert_allclose(e.expected(*case.args), by_hand, rtol=1e-15)


def text_part(name: str) -> dict:
    """The text part of the config data/configs/<name>.json, read here with json."""
    config = json.loads((ROOT / "data" / "configs" / f"{name}.json").read_text())
    return config.get("text_config", config)


def test_e9_worked_examples_are_the_configs():
    e = exercise("E9")
    gemma3, smol, gemma4 = (e.expected(*args) for args in e.worked)
    # Gemma 3 27B: 62 layers, every sixth global (1e6, linear 8), the others 1e4 unscaled.
    assert gemma3.shape == (62, 3)
    for i, row in enumerate(gemma3):
        want = [1, 1e6, 8] if (i + 1) % 6 == 0 else [1, 1e4, 1]
        assert row.tolist() == want, i
    # SmolLM3: no_rope_layers as published, 1 = the layer rotates; base 5e6.
    flags = text_part("smollm3-3b")["no_rope_layers"]
    assert [i for i, f in enumerate(flags) if not f] == list(range(3, 36, 4))
    for i, row in enumerate(smol):
        assert row.tolist() == ([1, 5e6, 1] if flags[i] else [0, 0, 0]), i
    # Gemma 4 31B: the layer types as listed; proportional global layers, factor 1.
    types = text_part("gemma-4-31b")["layer_types"]
    assert types.count("full_attention") == 10 and len(types) == 60
    for i, row in enumerate(gemma4):
        want = [1, 1e6, 1] if types[i] == "full_attention" else [1, 1e4, 1]
        assert row.tolist() == want, i


def test_e9_cases_come_from_the_configs_and_are_named():
    e = exercise("E9")
    for case in e.cases(0):
        words = e.describe(*case.args)
        name = re.search(r"config (\S+\.json)", words).group(1)
        assert (ROOT / "data" / "configs" / name).is_file(), words


def test_e9_a_solve_that_changes_its_config_changes_no_case():
    """check_function hands solve a copy: the expected answer is read from the case itself."""
    solve = load(SOLUTIONS["E9"]).solve

    def greedy(config):
        answer = solve(config)
        config.clear()  # the config, emptied after the answer
        return answer

    assert check_function(exercise("E9"), greedy).passed


@pytest.mark.parametrize("key", ["E8", "E9"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_e8_e9_mistakes_are_wrong_on_an_unseen_case(key, seed):
    """Each mistake differs from the right answer on an unseen case, by shape or entry."""
    e = exercise(key)
    unseen = [c for c in e.cases(seed) if not c.worked]
    for known in e.mistakes:
        wrong = False
        for case in unseen:
            theirs, want = np.asarray(known.formula(*case.args)), e.expected(*case.args)
            if theirs.shape != want.shape or np.max(np.abs(theirs - want)) > known.apart:
                wrong = True
        assert wrong, (known.name, seed)


def test_e8_e9_unknown_mistakes_fail_with_the_fallback_hint():
    e8 = load(SOLUTIONS["E8"]).solve
    report = check_function(exercise("E8"), lambda d, b, p: e8(d, b, p) * 1.5)
    assert not report.passed and report.mistake is None
    assert "pairs 4 to 7 have speed 0" in " ".join(report.text.split())
    e9 = load(SOLUTIONS["E9"]).solve

    def halved(config):
        rows = e9(config)
        rows[:, 1] /= 2  # every base halved: no known mistake
        return rows

    report = check_function(exercise("E9"), halved)
    assert not report.passed and report.mistake is None
    text = " ".join(report.text.split())
    assert "Of this config's 62 layers, 52 rotate with base 10000 and factor 1" in text


def test_e9_rows_of_the_wrong_length_fail():
    e9 = load(SOLUTIONS["E9"]).solve
    report = check_function(exercise("E9"), lambda config: e9(config)[:-1])
    assert not report.passed and "It must have shape (62, 3)" in " ".join(report.text.split())


@pytest.mark.parametrize("key", ["E6", "E7"])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_rope_mistakes_are_wrong_on_the_unseen_cases_and_the_short_call(key, seed):
    """Each mistake is further than the tolerance from the right answer on an unseen case,
    and on a case the four-argument solve is judged on, so its hint can always be shown."""
    e = exercise(key)
    cases = e.cases(seed)
    unseen = [c for c in cases if not c.worked]
    short = [c for c in cases if e.smaller.keeps(*c.args)]
    for known in e.mistakes:
        for group in (unseen, short):
            gaps = [
                np.max(np.abs(np.asarray(known.formula(*c.args)) - e.expected(*c.args)))
                for c in group
            ]
            assert max(gaps) > max(known.apart, 1e-9), (known.name, seed)


def test_cases_are_seeded_and_differ_between_seeds():
    for e in EXERCISES.values():
        first, again = e.cases(3), e.cases(3)
        assert [repr(c.args) for c in first] == [repr(c.args) for c in again]
        assert [repr(c.args) for c in first] != [repr(c.args) for c in e.cases(4)]
        assert [c.number for c in first] == list(range(1, len(first) + 1))
        assert sum(c.worked for c in first) == len(e.worked) >= 2


# --------------------------------------------------------------------------------------
# The known mistakes are real mistakes, and each one is caught.


@pytest.mark.parametrize("key", list(EXERCISES))
def test_every_known_mistake_is_wrong_somewhere(key):
    """A mistake that gave the right answer on every case could never be recognised."""
    e = EXERCISES[key]
    cases = e.cases(0)
    for known in e.mistakes:
        differs = False
        for case in cases:
            with np.errstate(all="ignore"):
                theirs = np.asarray(known.formula(*case.args), dtype=float)
            want = e.expected(*case.args)
            if theirs.shape != want.shape or not np.all(np.abs(theirs - want) <= 1e-9):
                differs = True
        assert differs, f"{key}: the mistake {known.name!r} is never wrong"


def test_every_known_mistake_has_a_file():
    names = {(key, m.name) for key, e in EXERCISES.items() for m in e.mistakes}
    files = {(stem[:2].upper(), name) for stem, name in MISTAKE_FILES.items()}
    assert names == files
    assert {p.stem for p in MISTAKES.glob("e*.py")} == set(MISTAKE_FILES)


@pytest.mark.parametrize("stem", list(MISTAKE_FILES))
def test_each_mistake_is_rejected_with_its_hint(stem):
    e = exercise(stem[:2])
    report = check_function(e, load(MISTAKES / f"{stem}.py").solve)
    assert not report.passed
    assert report.mistake == MISTAKE_FILES[stem], report.text
    hint = next(m.hint for m in e.mistakes if m.name == MISTAKE_FILES[stem])
    assert " ".join(report.text.split()).endswith("Hint: " + " ".join(hint.split()))
    if stem in SHAPE_MISTAKES:
        assert "It must have shape" in " ".join(report.text.split())
    else:
        assert "the first wrong entry is" in " ".join(report.text.split())
    one_paragraph_each(report.text)


def test_the_pair_hint_names_the_pair_index():
    report = check_function(exercise("E1"), load(MISTAKES / "e1_column_index.py").solve)
    text = " ".join(report.text.split())
    assert "at position 1, column 1 (the cosine of pair 0): expected 0.540302, got 0.99995" in text
    assert "use the pair index in the exponent" in text and "`i = j // 2`" in text


def test_the_rotation_sign_hint_says_pos_minus_k():
    report = check_function(exercise("E2"), load(MISTAKES / "e2_rotation_sign.py").solve)
    text = " ".join(report.text.split())
    assert "expected 0.841471, got -0.841471" in text
    assert "PE(pos - k)" in text and "`[[cos a, sin a], [-sin a, cos a]]`" in text


def test_an_unknown_mistake_gets_the_fallback_hint():
    def solve(length, width, base=10000.0):
        return sinusoidal(length, width, base=base) * 1.5

    report = check_function(exercise("E1"), solve)
    assert not report.passed and report.mistake is None
    assert "posenc table --length 3 --width 4 --base 10000" in report.text


@pytest.mark.parametrize("key", list(EXERCISES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reference_solutions_pass_in_process(key, seed):
    report = check_function(EXERCISES[key], load(SOLUTIONS[key]).solve, seed=seed)
    assert report.passed, report.text


def test_a_list_of_rows_is_accepted_and_so_is_an_empty_list():
    def solve(length, width, base=10000.0):
        return sinusoidal(length, width, base=base).tolist()  # [] when length is 0

    assert check_function(exercise("E1"), solve).passed


def test_float32_answers_are_caught():
    def solve(length, width, base=10000.0):
        return sinusoidal(length, width, base=base, dtype="float32")

    report = check_function(exercise("E1"), solve)
    assert report.mistake == "float32"


# --------------------------------------------------------------------------------------
# End to end: a child process per solution, several at a time.

GOOD = {f"good_{key}": (key, path, 20.0) for key, path in SOLUTIONS.items()}
WRONG = {
    "wrong_e1": ("E1", MISTAKES / "e1_column_index.py", 20.0),
    "wrong_e2": ("E2", MISTAKES / "e2_rotation_sign.py", 20.0),
    "wrong_e3": ("E3", MISTAKES / "e3_code_moves.py", 20.0),
    "wrong_e4": ("E4", MISTAKES / "e4_wrong_half.py", 20.0),
    "wrong_e5": ("E5", MISTAKES / "e5_query_minus_key.py", 20.0),
    "wrong_e6": ("E6", MISTAKES / "e6_temperature_once.py", 20.0),
    "wrong_e7": ("E7", MISTAKES / "e7_factor_fixed.py", 20.0),
    "wrong_e8": ("E8", MISTAKES / "e8_zeros_dropped.py", 20.0),
    "wrong_e9": ("E9", MISTAKES / "e9_factor_every_layer.py", 20.0),
}
BAD = {
    "raises": """\
        import numpy as np


        def solve(length, width, base=10000.0):
            table = np.zeros((length, width))
            return table / undefined_name
        """,
    "hangs": """\
        def solve(length, width, base=10000.0):
            while True:
                pass
        """,
    "hangs_on_import": """\
        import time

        time.sleep(60)
        """,
    "transposed": """\
        import numpy as np


        def solve(length, width, base=10000.0):
            return np.zeros((width, length))
        """,
    "syntax": """\
        import numpy as np


        def solve(length width, base=10000.0):
            return np.zeros((length, width))
        """,
    "prints": """\
        import sys

        import numpy as np

        print("loading \\x1b[31mred\\x1b[0m \\x07 done")


        def solve(length, width, base=10000.0):
            print("debug", length, width)
            sys.stdout.write("#" * 50000)
            sys.stderr.write("to stderr\\n")
            pos = np.arange(length)[:, None]
            angle = pos / base ** (2 * np.arange(width // 2) / width)
            table = np.empty((length, width))
            table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
            return table
        """,
    "sys_exit": """\
        import sys


        def solve(length, width, base=10000.0):
            sys.exit(3)
        """,
    "os_exit": """\
        import os


        def solve(length, width, base=10000.0):
            os._exit(7)
        """,
    "exit_on_import": """\
        import sys

        sys.exit("usage: python my_solution.py")
        """,
    "no_solve": """\
        def sinusoidal(length, width, base=10000.0):
            return []
        """,
    "not_callable": "solve = 42\n",
    "import_error": """\
        import numpy as np
        import no_such_module_here
        """,
}
IN_PROCESS = {
    "returns_text": """\
        def solve(length, width, base=10000.0):
            return "a table"
        """,
    "ragged": """\
        def solve(length, width, base=10000.0):
            return [[0.0], [1.0, 2.0]]
        """,
    "two_arguments": """\
        def solve(length, width):
            return [[0.0] * width] * length
        """,
    "returns_none": """\
        import numpy as np


        def solve(length, width, base=10000.0):
            table = np.zeros((length, width))
        """,
}

HANG_TIMEOUT = 2.0


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The checker's report on every end-to-end solution, by name."""
    folder = tmp_path_factory.mktemp("solutions")
    runs = {**GOOD, **WRONG}
    for name, source in BAD.items():
        path = folder / f"my_{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        timeout = HANG_TIMEOUT if name.startswith("hangs") else 20.0
        runs[name] = ("E1", path, timeout)
    shadowed = tmp_path_factory.mktemp("shadowed")  # a posenc.py and numpy.py beside it
    for name in ("posenc.py", "numpy.py"):
        (shadowed / name).write_text("raise SystemExit('the wrong module')\n")
    (shadowed / "mine.py").write_text(SOLUTIONS["E3"].read_text())  # imports numpy
    runs["shadowed"] = ("E3", shadowed / "mine.py", 20.0)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {
            name: pool.submit(check, key, path, timeout=timeout)
            for name, (key, path, timeout) in runs.items()
        }
        done = {name: future.result() for name, future in futures.items()}
    assert not list(folder.glob("__pycache__")), "the child wrote bytecode beside the file"
    return done


@pytest.mark.parametrize("name", list(GOOD))
def test_reference_solutions_pass(reports, name):
    report = reports[name]
    assert report.passed, report.text
    assert report.text.count("\n") == 2 and "passes all" in report.text
    one_paragraph_each(report.text)


@pytest.mark.parametrize(
    ("name", "mistake"),
    [
        ("wrong_e1", "column in exponent"),
        ("wrong_e2", "rotation sign"),
        ("wrong_e3", "code moves with the words"),
        ("wrong_e4", "wrong half"),
        ("wrong_e5", "query minus key"),
        ("wrong_e6", "temperature once"),
        ("wrong_e7", "factor fixed at 8"),
        ("wrong_e8", "zeros dropped"),
        ("wrong_e9", "factor on every layer"),
    ],
)
def test_mistakes_are_named_end_to_end(reports, name, mistake):
    report = reports[name]
    assert not report.passed and report.mistake == mistake
    one_paragraph_each(report.text)


# name: phrases the report must contain (whitespace-insensitive)
MESSAGES = {
    "raises": [
        "Case 1 of 10 (a worked example), solve(3, 4, 10000.0): solve raised NameError:",
        "name 'undefined_name' is not defined, at line 6 of my_raises.py:",
        "`return table / undefined_name`",
    ],
    "hangs": [f"did not finish within {HANG_TIMEOUT:g} s: it was still", "--timeout"],
    "hangs_on_import": ["it was still loading my_hangs_on_import.py (the code outside solve)"],
    "transposed": ["returned an array of shape (4, 3). It must have shape (3, 4).", "swapped"],
    "syntax": [
        "Python cannot read my_syntax.py: invalid syntax",
        "at line 4",
        "`def solve(length width, base=10000.0):`",
    ],
    "sys_exit": ["solve ended the program with SystemExit(3), at line 5", "`sys.exit(3)`"],
    "os_exit": ["ended (exit status 7) before solve returned", "case 1 of 10", "os._exit()"],
    "exit_on_import": [
        "Loading my_exit_on_import.py ended the program",
        'if __name__ == "__main__":',
    ],
    "no_solve": ["defines no function named solve", "posenc exercise show E1"],
    "not_callable": ["solve is an int, not a function"],
    "returns_none": ["solve returned None.", "Is the return statement missing?"],
    "returns_text": ["solve returned str 'a table', which is not numbers."],
    "ragged": ["which does not make one array of numbers"],
    "import_error": [
        "Loading my_import_error.py raised ModuleNotFoundError:",
        "No module named 'no_such_module_here', at line 2",
    ],
    "two_arguments": [
        "Case 1 of 7 (a worked example), solve(3, 4): the first wrong entry is at position 0, "
        "column 1 (the cosine of pair 0): expected 1, got 0.",
        "The 3 unseen cases with a base other than 10000 were not run",
    ],
}


@pytest.mark.parametrize("name", [name for name in MESSAGES if name in BAD])
def test_a_broken_solution_gets_one_clear_paragraph(reports, name):
    report = reports[name]
    assert not report.passed
    text = " ".join(report.text.split())
    for phrase in MESSAGES[name]:
        assert " ".join(phrase.split()) in text, report.text
    assert report.text.startswith(f"E1, the sinusoidal table: my_{name}.py does not pass yet.")
    assert len([p for p in report.text.split("\n\n") if p.strip()]) == 2  # verdict, paragraph
    one_paragraph_each(report.text)


@pytest.mark.parametrize("name", list(IN_PROCESS))
def test_a_wrong_type_or_call_gets_one_clear_paragraph(tmp_path, name):
    path = tmp_path / f"my_{name}.py"
    path.write_text(textwrap.dedent(IN_PROCESS[name]), encoding="utf-8")
    report = check_function(exercise("E1"), load(path).solve)
    assert not report.passed
    text = " ".join(report.text.split())
    for phrase in MESSAGES[name]:
        assert " ".join(phrase.split()) in text, report.text
    one_paragraph_each(report.text)


def test_a_hang_is_placed_in_its_case(reports):
    text = " ".join(reports["hangs"].text.split())
    # On a loaded machine the child may still be importing NumPy when time runs out.
    assert any(
        doing in text
        for doing in (
            "it was still in case 1 of 10 (a worked example), solve(3, 4, 10000.0)",
            "it was still loading my_hangs.py",
            "Python and NumPy were still starting, before it loaded my_hangs.py",
        )
    )


def test_printing_is_noted_and_does_not_matter(reports):
    report = reports["prints"]
    assert report.passed, report.text
    text = " ".join(report.text.split())
    assert re.search(
        r"Note: your solution printed [\d,]{6,} characters while it was checked", text
    )
    assert "(the first line: 'loading ?[31mred?[0m ? done')" in text  # control bytes hidden
    assert "\x1b" not in report.text and "\x07" not in report.text
    one_paragraph_each(report.text)


# --------------------------------------------------------------------------------------
# The command line.


def test_list_and_show(capsys):
    assert main(["exercise", "list"]) == 0
    out = capsys.readouterr().out
    assert out == listing()
    keys = ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9"]
    assert [line.split()[0] for line in out.splitlines()] == keys
    for name in ("E1", "e2", "3", "e4", "5", "e6", "7", "E8", "9"):
        assert main(["exercise", "show", name]) == 0
        out = capsys.readouterr().out
        assert out == show(name)
        e = exercise(name)
        assert out.startswith(f"{e.key}. {e.title}\n")
        assert f"def {e.signature.replace(')', '')}" in out.replace("=10000.0", "")
        assert f"posenc exercise check {e.key} my_solution.py" in out


def test_show_carries_the_worked_numbers():
    assert "0.00999983" in show("E1") and "-0.416147" in show("E1")
    assert "0.540302" in show("E2") and "-0.989992" in show("E2")
    assert "0.908160" in show("E3") and "0.746569" in show("E3")
    assert "0.00390625" in show("E4") and "0.0883883" in show("E4")
    assert "[0, 17, 23, 24, 25, 30, 31, 31]" in show("E5") and "[0, 0, 15, 16, 31]" in show("E5")
    assert "0.0256935" in show("E6") and "1.29648" in show("E6") and "1.45913" in show("E6")
    assert "0.000524846" in show("E7") and "29 to 34 blended" in show("E7")
    assert "0.0316228, 0, 0, 0, 0]" in show("E8") and "0.0333762" in show("E8")
    assert "every sixth (5, 11, ..., 59) rotates" in show("E9")


def test_check_exit_status_pass_and_fail(capsys):
    assert main(["exercise", "check", "E2", str(SOLUTIONS["E2"])]) == 0
    assert "passes all 9 cases" in capsys.readouterr().out
    assert main(["exercise", "check", "e1", str(MISTAKES / "e1_swapped.py"), "--seed", "5"]) == 1
    out = capsys.readouterr().out
    assert "does not pass yet" in out and "Sine and cosine are swapped" in out


USAGE = [
    (
        ["exercise", "check", "E10", "x.py"],
        "exercise must be one of E1, E2, E3, E4, E5, E6, E7, E8, E9, got 'E10'",
    ),
    (["exercise", "check", "E1", "/no/such/file.py"], "cannot read '/no/such/file.py'"),
    (["exercise", "check", "E1", str(ROOT / "exercises")], "it is a directory"),
    (["exercise", "check", "E1", str(SOLUTIONS["E1"]), "--timeout", "0"], "timeout must be"),
    (["exercise", "check", "E1", str(SOLUTIONS["E1"]), "--timeout", "nan"], "timeout must be"),
    (["exercise", "check", "E1", str(SOLUTIONS["E1"]), "--seed", "-1"], "seed must be"),
    (
        ["exercise", "check", "E1", str(SOLUTIONS["E1"]), "--memory", "100"],
        "memory must be a whole number of MB from 256 to 16777216, got 100",
    ),
    (
        ["exercise", "check", "E1", str(SOLUTIONS["E1"]), "--memory", "lots"],
        "argument --memory: invalid int value: 'lots'",
    ),
    (["exercise", "check", "E1"], "the following arguments are required: FILE"),
    (
        ["exercise", "show", "E0"],
        "exercise must be one of E1, E2, E3, E4, E5, E6, E7, E8, E9, got 'E0'",
    ),
    (["exercise"], "the following arguments are required: ACTION"),
    (["exercise", "grade"], "invalid choice: 'grade'"),
]


@pytest.mark.parametrize(("args", "message"), USAGE)
def test_usage_errors(capsys, args, message):
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("posenc: error: ") and message in err
    assert err.count("\n") == 1


def test_help(capsys):
    assert main(["exercise", "--help"]) == 0
    out = capsys.readouterr().out
    assert "list" in out and "show" in out and "check" in out and "exit status" in out
    assert main(["exercise", "check", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--timeout" in out and "--seed" in out and "FILE" in out
    assert "--memory MB" in out and "2048)" in out


def test_real_exit_status_and_no_traceback(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def solve(length, width, base=10000.0):\n    return 1 / 0\n")
    done = subprocess.run(
        [sys.executable, "-m", "posenc", "exercise", "check", "E1", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stderr == ""
    assert "ZeroDivisionError: division by zero, at line 2 of broken.py" in " ".join(
        done.stdout.split()
    )
    assert "Traceback" not in done.stdout


def test_the_child_imports_this_numpy_not_a_file_beside_the_solution(reports):
    """A numpy.py in the reader's folder must not replace the NumPy of the worker."""
    assert reports["shadowed"].passed, reports["shadowed"].text


def test_checker_module_names_its_timeout():
    assert checker_module.TIMEOUT == 10.0


# --------------------------------------------------------------------------------------
# The pages show what the checker really says, and include the files it really runs.

PAGES = {
    "E1": ("docs/exercises/e1-sinusoidal-table.md", MISTAKES / "e1_column_index.py"),
    "E2": ("docs/exercises/e2-shift-matrix.md", MISTAKES / "e2_rotation_sign.py"),
    "E3": ("docs/exercises/e3-order-blindness.md", MISTAKES / "e3_code_moves.py"),
    "E4": ("docs/exercises/e4-alibi-slopes.md", MISTAKES / "e4_plain_series.py"),
    "E5": ("docs/exercises/e5-t5-buckets.md", MISTAKES / "e5_float64.py"),
    "E6": ("docs/exercises/e6-yarn-inverse-frequencies.md", MISTAKES / "e6_temperature_once.py"),
    "E7": ("docs/exercises/e7-llama3-bands.md", MISTAKES / "e7_factor_fixed.py"),
    "E8": ("docs/exercises/e8-proportional-ladder.md", MISTAKES / "e8_rotated_width.py"),
    "E9": ("docs/exercises/e9-which-layers-rotate.md", MISTAKES / "e9_factor_every_layer.py"),
}


def report_as_my_solution(key: str, source: Path, folder: Path) -> str:
    """The checker's report on ``source`` saved as my_solution.py, as on the pages."""
    mine = folder / "my_solution.py"
    mine.write_text(source.read_text())
    return check_function(exercise(key), load(mine).solve).text


def first_text_block(page: str) -> str:
    markdown = (ROOT / page).read_text(encoding="utf-8")
    return re.search(r"```text\n(.*?)```", markdown, flags=re.S).group(1)


@pytest.mark.parametrize("key", list(PAGES))
def test_each_page_shows_the_checkers_real_words(key, tmp_path):
    page, source = PAGES[key]
    assert first_text_block(page) == report_as_my_solution(key, source, tmp_path)


def test_the_index_shows_a_real_pass(tmp_path):
    shown = first_text_block("docs/exercises/index.md")
    assert shown == report_as_my_solution("E1", SOLUTIONS["E1"], tmp_path)


@pytest.mark.parametrize("key", list(PAGES))
def test_each_page_states_the_task_and_includes_the_solution(key):
    e = exercise(key)
    assert PAGES[key][0] == f"docs/{e.page}"
    markdown = (ROOT / PAGES[key][0]).read_text(encoding="utf-8")
    include = f'--8<-- "{SOLUTIONS[key].relative_to(ROOT).as_posix()}"'
    assert include in markdown
    name, params = e.signature.removesuffix(")").split("(")
    assert f"def {name}({params}" in markdown  # the signature the checker calls
    for heading in ("## Words to know", "## How it works", "## A worked example"):
        assert heading in markdown
    assert "## Your task" in markdown and '??? success "Solution"' in markdown
    assert '??? tip "Hint 1"' in markdown and '??? tip "Hint 3"' in markdown
    assert '!!! warning "Watch out' in markdown


def test_abbreviations_are_one_line_each_and_safe():
    lines = (ROOT / "docs" / "includes" / "abbreviations.md").read_text().splitlines()
    keys = []
    for line in lines:
        match = re.fullmatch(r"\*\[([^\]]+)\]: (.+)", line)
        assert match, line
        keys.append(match.group(1))
        definition = match.group(2)
        assert "$" not in definition and "\\" not in definition  # no TeX in a tooltip
        assert definition.count(". ") == 0  # one sentence
    assert len(keys) == len(set(keys))


def test_exercises_import_without_the_repository(tmp_path):
    # posenc installed on its own (no data/configs beside it) must still list and run the
    # exercises that need no config; E9, which reads data/configs, says what is missing.
    import shutil

    shutil.copytree(
        Path(__file__).resolve().parents[1] / "posenc",
        tmp_path / "site" / "posenc",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    script = textwrap.dedent(
        """
        from posenc.exercises import EXERCISES
        print(sorted(EXERCISES))
        try:
            EXERCISES["E9"].cases(0)
        except FileNotFoundError as exc:
            print("E9:", exc)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    first, second = run.stdout.splitlines()
    assert first == str(sorted(f"E{n}" for n in range(1, 10)))
    assert second.startswith("E9: E9 reads its configs from data/configs")
