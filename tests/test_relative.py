"""Tests of posenc.relative against mpmath, the published figures and the paper's rules.

T5's buckets are checked against the floor of the real logarithm, computed by mpmath
at 50 digits; ALiBi's slopes against ``2**(-q)`` from mpmath and the values the
sources state (FACTS-modern section 1: the slopes for 8 and 12 heads, the last T5
bucket from 91 and, causal, from 113). The real libraries (transformers' T5, BLOOM,
MPT) are compared in ``conformance/`` (``make conformance``).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from posenc.relative import alibi_bias, alibi_slopes, shaw_index, t5_bucket


def t5_reference(offset: int, *, bidirectional: bool, num_buckets: int, max_distance: int):
    """The bucket from its definition, the logarithm's floor taken at 50 digits."""
    bucket, half = 0, num_buckets
    if bidirectional:
        half = num_buckets // 2
        bucket = half if offset > 0 else 0
        distance = abs(offset)
    else:
        distance = max(-offset, 0)
    exact = half // 2
    if distance < exact:
        return bucket + distance
    with mpmath.workdps(50):
        ratio = mpmath.log(mpmath.mpf(distance) / exact) / mpmath.log(
            mpmath.mpf(max_distance) / exact
        )
        large = exact + int(mpmath.floor(ratio * (half - exact)))
    return bucket + min(large, half - 1)


CONFIGS = [(32, 128), (32, 256), (64, 128), (16, 64), (8, 20), (128, 1024)]


@pytest.mark.parametrize(("num_buckets", "max_distance"), CONFIGS)
@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets_against_the_real_logarithm(num_buckets, max_distance, bidirectional):
    offsets = np.arange(-1500, 1501)
    got = t5_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    want = [
        t5_reference(
            int(x),
            bidirectional=bidirectional,
            num_buckets=num_buckets,
            max_distance=max_distance,
        )
        for x in offsets
    ]
    assert got.dtype == np.int64
    assert got.tolist() == want


def test_t5_figures_from_the_sources():
    offsets = np.arange(0, 400)
    encoder = t5_bucket(offsets)  # positive offsets: the upper half, 16..31
    assert encoder[1:8].tolist() == list(range(17, 24))  # exact below 8 (0 is bucket 0)
    assert int(np.argmax(encoder == 31)) == 91  # the last bucket begins at 91
    decoder = t5_bucket(-offsets, bidirectional=False)
    assert decoder[:16].tolist() == list(range(16))  # exact below 16
    assert int(np.argmax(decoder == 31)) == 113
    assert t5_bucket(offsets, bidirectional=False).tolist() == [0] * 400  # no future


def test_t5_shapes_and_sharing():
    grid = np.arange(5)[None, :] - np.arange(5)[:, None]  # key - query
    assert t5_bucket(grid).shape == (5, 5)
    assert t5_bucket(np.int32(3)).tolist() == 19  # a scalar stays a scalar
    # Buckets are monotone in the distance, and each is a run of consecutive offsets.
    far = t5_bucket(np.arange(0, 5000))
    assert np.all(np.diff(far) >= 0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"relative_position": [1.5]},
            TypeError,
            "relative_position must be an array of integers",
        ),
        ({"relative_position": [True]}, TypeError, "relative_position must be an array"),
        ({"relative_position": [1], "num_buckets": 31}, ValueError, "num_buckets must be even"),
        ({"relative_position": [1], "num_buckets": 1}, ValueError, "num_buckets must be an"),
        ({"relative_position": [1], "max_distance": 8}, ValueError, "max_distance must be > 8"),
        ({"relative_position": [1], "bidirectional": 1}, TypeError, "bidirectional must be"),
    ],
)
def test_t5_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        t5_bucket(**kwargs)


def test_shaw_clipping_leaves_2k_plus_1_vectors():
    for k in (0, 1, 4, 16):
        offsets = np.arange(-3 * k - 5, 3 * k + 6)
        rows = shaw_index(offsets, k)
        assert sorted(set(rows.tolist())) == list(range(2 * k + 1))
        inside = np.abs(offsets) <= k
        assert rows[inside].tolist() == (offsets[inside] + k).tolist()  # one each
        assert set(rows[offsets > k].tolist()) == {2 * k}  # beyond k: one shared row
    with pytest.raises(ValueError, match="k must be an integer >= 0"):
        shaw_index([1], -1)


def slope_reference(num_heads: int, max_bias: int = 8) -> list[float]:
    """The reference rule, written from its description, each slope by mpmath."""
    closest = 2 ** math.floor(math.log2(num_heads))
    exponents = [mpmath.mpf(max_bias) * h / closest for h in range(1, closest + 1)]
    series = [mpmath.mpf(max_bias) * h / (2 * closest) for h in range(1, 2 * closest + 1)]
    exponents += series[0::2][: num_heads - closest]
    with mpmath.workprec(200):
        return [float(mpmath.power(2, -q)) for q in exponents]


@pytest.mark.parametrize("num_heads", [1, 2, 3, 5, 6, 7, 8, 12, 16, 20, 24, 40, 64, 96, 100])
def test_alibi_slopes_against_mpmath(num_heads):
    assert alibi_slopes(num_heads).tolist() == slope_reference(num_heads)


def test_alibi_slopes_from_the_sources():
    assert alibi_slopes(8).tolist() == [2.0**-h for h in range(1, 9)]
    twelve = alibi_slopes(12)
    assert twelve[:8].tolist() == [2.0**-h for h in range(1, 9)]
    np.testing.assert_allclose(twelve[8:], 2.0 ** -np.array([0.5, 1.5, 2.5, 3.5]), rtol=1e-15)
    # The misreading: 2**(-8h/12) is not what the reference code uses for 12 heads.
    naive = 2.0 ** (-8 * np.arange(1, 13) / 12)
    assert np.max(np.abs(twelve - naive)) > 0.1
    assert alibi_slopes(4, max_bias=4).tolist() == [0.5, 0.25, 0.125, 0.0625]


def test_alibi_bias_is_linear_and_softmax_ignores_a_row_constant():
    bias = alibi_bias(6, 4)  # (H, L, L)
    slopes = alibi_slopes(4)
    i, j = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
    np.testing.assert_array_equal(bias, -slopes[:, None, None] * (i - j)[None])
    # BLOOM's form m_h * j differs by m_h * i per row: the same softmax over j <= i.
    bloom = slopes[:, None, None] * j[None].astype(float)
    causal = j <= i
    for row in range(6):
        keys = causal[row]
        a = np.exp(bias[:, row, keys] - bias[:, row, keys].max(axis=-1, keepdims=True))
        b = np.exp(bloom[:, row, keys] - bloom[:, row, keys].max(axis=-1, keepdims=True))
        np.testing.assert_allclose(
            a / a.sum(-1, keepdims=True), b / b.sum(-1, keepdims=True), rtol=1e-12
        )
    assert alibi_bias(0, 3).shape == (3, 0, 0)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: alibi_slopes(0), ValueError, "num_heads must be an integer >= 1"),
        (lambda: alibi_slopes(2.0), TypeError, "num_heads must be an integer"),
        (lambda: alibi_slopes(8, max_bias=0), ValueError, "max_bias must be a finite number > 0"),
        (lambda: alibi_slopes(8, max_bias=True), TypeError, "max_bias must be"),
        (lambda: alibi_bias(-1, 2), ValueError, "length must be an integer >= 0"),
        (lambda: alibi_bias(10**6, 64), MemoryError, "needs about"),
    ],
)
def test_alibi_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
