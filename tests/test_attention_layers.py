"""Tests of the position-wise pieces and the encoder layer of posenc.attention.

The references are plain-Python loops written here from the formulas in the module
docstring (math for sums and exp, mpmath.erf for the exact GELU), independent of the
NumPy code under test:

    FFN(x)          = act(x W1 + b1) W2 + b2
    LayerNorm(x)    = (x - mean(x)) / sqrt(var(x) + eps) * g + b
    EncoderLayer(X) = LN2(H + FFN(H)),  H = LN1(X + MHA(X))
"""

from __future__ import annotations

import math
from dataclasses import fields, replace

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import EncoderLayerParams, causal_mask, encoder_layer, feed_forward, layer_norm

TOL = {"rtol": 1e-12, "atol": 1e-12}


# --------------------------------------------------------------------------------------
# References by hand: lists of floats, loops, math and mpmath only


def _rows(a):
    return np.asarray(a, dtype=float).tolist()


def _matmul(A, B):
    A, B = _rows(A), _rows(B)
    return [[sum(a[m] * B[m][c] for m in range(len(a))) for c in range(len(B[0]))] for a in A]


def _gelu(h):
    # h * Phi(h) = h * (1 + erf(h / sqrt 2)) / 2, evaluated with 30 digits
    with mpmath.workdps(30):
        x = mpmath.mpf(h)
        return float(x * (1 + mpmath.erf(x / mpmath.sqrt(2))) / 2)


def ffn_by_hand(X, W1, b1, W2, b2, activation):
    act = {"relu": lambda h: max(0.0, h), "gelu": _gelu}[activation]
    hidden = [[act(h + b) for h, b in zip(row, _rows(b1), strict=True)] for row in _matmul(X, W1)]
    return [[o + b for o, b in zip(row, _rows(b2), strict=True)] for row in _matmul(hidden, W2)]


def layer_norm_by_hand(X, eps, gain, bias):
    out = []
    for x in _rows(X):
        mean = sum(x) / len(x)
        var = sum((v - mean) ** 2 for v in x) / len(x)  # population variance
        scale = 1.0 / math.sqrt(var + eps)
        gb = zip(x, _rows(gain), _rows(bias), strict=True)
        out.append([(v - mean) * scale * g + b for v, g, b in gb])
    return out


def mha_by_hand(X, Wq, Wk, Wv, Wo, heads, mask):
    n, d = len(X), len(X[0])
    d_k = d // heads
    q, k, v = _matmul(X, Wq), _matmul(X, Wk), _matmul(X, Wv)
    concat = [[0.0] * d for _ in range(n)]
    for h in range(heads):
        cols = range(h * d_k, (h + 1) * d_k)
        for i in range(n):
            keys = [j for j in range(n) if mask is None or mask[i][j]]
            s = {j: sum(q[i][c] * k[j][c] for c in cols) / math.sqrt(d_k) for j in keys}
            top = max(s.values())
            w = {j: math.exp(s[j] - top) for j in keys}
            total = sum(w.values())
            for c in cols:
                concat[i][c] = sum(w[j] * v[j][c] for j in keys) / total
    return _matmul(concat, Wo)


def _add(A, B):
    return [[a + b for a, b in zip(r, s, strict=True)] for r, s in zip(A, B, strict=True)]


def encoder_by_hand(X, p, heads, mask=None):
    # post-norm: H = LN1(X + MHA(X)), out = LN2(H + FFN(H))
    X = _rows(X)
    attended = mha_by_hand(X, p.Wq, p.Wk, p.Wv, p.Wo, heads, mask)
    H = layer_norm_by_hand(_add(X, attended), p.eps, p.gain1, p.bias1)
    ffn = ffn_by_hand(H, p.W1, p.b1, p.W2, p.b2, p.activation)
    return np.array(layer_norm_by_hand(_add(H, ffn), p.eps, p.gain2, p.bias2))


# --------------------------------------------------------------------------------------
# feed_forward and layer_norm


@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("seed", range(4))
def test_feed_forward_matches_loops(activation, seed):
    rng = np.random.default_rng(seed)
    n, d, f, d_out = rng.integers(1, 6, size=4)
    X, W1, b1 = rng.normal(size=(n, d)), rng.normal(size=(d, f)), rng.normal(size=f)
    W2, b2 = rng.normal(size=(f, d_out)), rng.normal(size=d_out)
    expected = ffn_by_hand(X, W1, b1, W2, b2, activation)
    got = feed_forward(X, W1, b1, W2, b2, activation=activation)
    assert got.shape == (n, d_out)
    np.testing.assert_allclose(got, expected, **TOL)


@pytest.mark.parametrize("seed", range(4))
def test_layer_norm_matches_loops(seed):
    rng = np.random.default_rng(seed)
    n, d = rng.integers(1, 7), rng.integers(2, 7)
    X, gain, bias = 3.0 * rng.normal(size=(n, d)) + 5.0, rng.normal(size=d), rng.normal(size=d)
    eps = float(rng.uniform(1e-6, 0.5))
    expected = layer_norm_by_hand(X, eps, gain, bias)
    np.testing.assert_allclose(layer_norm(X, eps, gain, bias), expected, **TOL)


def test_layer_norm_rows_have_mean_zero_and_variance_near_one():
    X = 4.0 * np.random.default_rng(7).normal(size=(5, 16)) - 2.0
    eps = 1e-5
    out = layer_norm(X, eps)
    np.testing.assert_allclose(out.mean(axis=1), 0.0, atol=1e-12)
    # closed form: the variance becomes var / (var + eps), just under 1
    var = X.var(axis=1)
    np.testing.assert_allclose(out.var(axis=1), var / (var + eps), **TOL)
    np.testing.assert_allclose(out.var(axis=1), 1.0, atol=1e-5)


# --------------------------------------------------------------------------------------
# encoder_layer


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize(("seed", "heads", "activation"), [(0, 1, "relu"), (1, 2, "gelu")])
def test_encoder_layer_matches_composition(seed, heads, activation, masked):
    p = replace(EncoderLayerParams.random(d_model=4, d_ff=6, seed=seed), activation=activation)
    X = np.random.default_rng(seed + 100).normal(size=(5, 4))
    mask = causal_mask(5) if masked else None
    expected = encoder_by_hand(X, p, heads, None if mask is None else mask.tolist())
    np.testing.assert_allclose(encoder_layer(X, p, heads=heads, mask=mask), expected, **TOL)


def test_encoder_layer_default_norms_and_mapping_params():
    # gains None -> ones, biases None -> zeros; a mapping of the fields works the same
    p = replace(EncoderLayerParams.random(d_model=4, d_ff=3, seed=3), eps=1e-3)
    p = replace(p, gain1=None, bias1=None, gain2=None, bias2=None)
    X = np.random.default_rng(4).normal(size=(3, 4))
    by_hand = replace(p, gain1=np.ones(4), bias1=np.zeros(4), gain2=np.ones(4), bias2=np.zeros(4))
    expected = encoder_by_hand(X, by_hand, 2)
    np.testing.assert_allclose(encoder_layer(X, p, heads=2), expected, **TOL)
    mapping = {f.name: getattr(p, f.name) for f in fields(p)}
    np.testing.assert_allclose(encoder_layer(X, mapping, heads=2), expected, **TOL)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), perm=st.permutations(range(5)))
def test_encoder_layer_is_permutation_equivariant_without_mask(seed, perm):
    p = EncoderLayerParams.random(d_model=4, d_ff=8, seed=seed)
    X = np.random.default_rng(seed).normal(size=(5, 4))
    perm = list(perm)
    out = encoder_layer(X, p, heads=2)
    np.testing.assert_allclose(encoder_layer(X[perm], p, heads=2), out[perm], atol=1e-12)


def test_causal_mask_breaks_permutation_equivariance():
    p = EncoderLayerParams.random(d_model=4, d_ff=8, seed=5)
    X = np.random.default_rng(6).normal(size=(4, 4))
    perm = [3, 2, 1, 0]
    out = encoder_layer(X, p, heads=2, mask=causal_mask(4))
    swapped = encoder_layer(X[perm], p, heads=2, mask=causal_mask(4))
    assert not np.allclose(swapped, out[perm], atol=1e-6)


# --------------------------------------------------------------------------------------
# Errors name the argument


def test_feed_forward_rejects_bad_arguments():
    good = {"X": np.ones((2, 3)), "W1": np.ones((3, 4)), "b1": np.zeros(4)}
    good |= {"W2": np.ones((4, 3)), "b2": np.zeros(3), "activation": "relu"}
    cases = [
        ("X", {"X": np.ones(3)}),
        ("X", {"X": np.ones((0, 3))}),
        ("W1", {"W1": np.ones((2, 4))}),
        ("b1", {"b1": np.zeros(3)}),
        ("W2", {"W2": np.ones((3, 3))}),
        ("b2", {"b2": np.zeros((1, 3))}),
        ("activation", {"activation": "tanh"}),
    ]
    for name, changes in cases:
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            feed_forward(**(good | changes))


def test_layer_norm_rejects_bad_arguments():
    cases = [
        ("X", {"X": np.ones((2, 2, 2))}),
        ("eps", {"eps": 0.0}),
        ("eps", {"eps": -1.0}),
        ("gain", {"gain": np.ones(2)}),
        ("bias", {"bias": np.zeros(4)}),
    ]
    for name, changes in cases:
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            layer_norm(**({"X": np.ones((2, 3))} | changes))


def test_encoder_layer_rejects_bad_arguments():
    p, X = EncoderLayerParams.random(d_model=4, d_ff=6, seed=0), np.ones((3, 4))
    cases = [
        ("X", {"X": np.ones(4)}),
        ("heads", {"heads": 3}),
        ("mask", {"mask": causal_mask(4)}),
        ("mask", {"mask": np.ones((3, 3))}),
        ("W2", {"params": replace(p, W2=np.ones((6, 5)), b2=np.zeros(5))}),
        ("activation", {"params": replace(p, activation="swish")}),
        ("params", {"params": {"Wq": p.Wq}}),
    ]
    for name, changes in cases:
        kwargs = {"X": X, "params": p, "heads": 2} | changes
        with pytest.raises(ValueError, match=rf"^{name}\b"):
            encoder_layer(**kwargs)


# --------------------------------------------------------------------------------------
# EncoderLayerParams.random


def test_random_params_shapes_and_defaults():
    d, f = 6, 10
    p = EncoderLayerParams.random(d_model=d, d_ff=f, seed=1)
    expected = {"Wq": (d, d), "Wk": (d, d), "Wv": (d, d), "Wo": (d, d), "W1": (d, f)}
    expected |= {"b1": (f,), "W2": (f, d), "b2": (d,)}
    expected |= {name: (d,) for name in ("gain1", "bias1", "gain2", "bias2")}
    assert {name: getattr(p, name).shape for name in expected} == expected
    assert (p.eps, p.activation) == (1e-5, "relu")


def test_random_params_deterministic_by_seed():
    arrays = [f.name for f in fields(EncoderLayerParams) if f.name not in ("eps", "activation")]
    a, b, c = (EncoderLayerParams.random(d_model=4, d_ff=8, seed=s) for s in (3, 3, 4))
    for name in arrays:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert not np.array_equal(getattr(a, name), getattr(c, name)), name


def test_random_params_scales():
    # std 1/sqrt(fan_in) for matrices, 0.1 for biases, gains 1 + 0.1 * normal
    d, f = 64, 256
    p = EncoderLayerParams.random(d_model=d, d_ff=f, seed=0)
    for W, fan_in in ((p.Wq, d), (p.Wo, d), (p.W1, d), (p.W2, f)):
        assert abs(W.std() * math.sqrt(fan_in) - 1.0) < 0.1
    assert abs(p.b1.std() - 0.1) < 0.02
    assert abs(p.gain1.mean() - 1.0) < 0.05 and abs(p.gain1.std() - 0.1) < 0.03


@pytest.mark.parametrize("name", ["d_model", "d_ff"])
def test_random_params_reject_zero_sizes(name):
    with pytest.raises(ValueError, match=rf"^{name}\b"):
        EncoderLayerParams.random(**({"d_model": 4, "d_ff": 4} | {name: 0}))
