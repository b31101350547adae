"""Tests of posenc.attention against hand computations and FACTS section 1.

The reference for attention values is a plain-Python loop written from the formula
softmax(q_i . k_j / sqrt(d_k)) v_j, independent of the NumPy code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from posenc import attention, causal_mask, multi_head_attention, sinusoidal, softmax


def attention_by_hand(X, Wq, Wk, Wv, mask=None):
    """Attention from the formula, with Python lists and math.exp only."""
    X, Wq, Wk, Wv = (np.asarray(a, dtype=float).tolist() for a in (X, Wq, Wk, Wv))

    def project(W):
        return [[sum(x[m] * W[m][c] for m in range(len(x))) for c in range(len(W[0]))] for x in X]

    q, k, v = project(Wq), project(Wk), project(Wv)
    d_k, n = len(q[0]), len(X)
    out = []
    for i in range(n):
        keys = [j for j in range(n) if mask is None or mask[i][j]]
        scores = {
            j: sum(a * b for a, b in zip(q[i], k[j], strict=True)) / math.sqrt(d_k) for j in keys
        }
        top = max(scores.values())
        weights = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(weights.values())
        out.append([sum(weights[j] * v[j][c] for j in keys) / total for c in range(len(v[0]))])
    return np.array(out)


# --------------------------------------------------------------------------------------
# softmax


def test_softmax_closed_forms():
    np.testing.assert_allclose(softmax([0.0, math.log(3.0)]), [0.25, 0.75], rtol=1e-15)
    np.testing.assert_allclose(softmax([2.0, 2.0, 2.0, 2.0]), [0.25] * 4, rtol=1e-15)
    e = math.e
    np.testing.assert_allclose(softmax([1.0, 0.0]), [e / (e + 1), 1 / (e + 1)], rtol=1e-15)


def test_softmax_is_stable_for_large_scores():
    np.testing.assert_allclose(softmax([1000.0, 1000.0]), [0.5, 0.5], rtol=1e-15)
    np.testing.assert_allclose(softmax([-1000.0, -1000.0 + math.log(3.0)]), [0.25, 0.75])


def test_softmax_gives_minus_infinity_zero_weight():
    assert softmax([0.0, -np.inf, 0.0]).tolist() == [0.5, 0.0, 0.5]


def test_softmax_axis():
    x = np.array([[0.0, math.log(3.0)], [0.0, 0.0]])
    np.testing.assert_allclose(softmax(x, axis=0), [[0.5, 0.75], [0.5, 0.25]], rtol=1e-15)
    np.testing.assert_allclose(softmax(x), [[0.25, 0.75], [0.5, 0.5]], rtol=1e-15)


@pytest.mark.parametrize("x", [[-np.inf, -np.inf], [np.inf, 0.0], [np.nan, 1.0]])
def test_softmax_rejects_slices_without_a_finite_maximum(x):
    with pytest.raises(ValueError, match="softmax needs a finite largest entry"):
        softmax(x)


@settings(max_examples=50, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
        elements=st.floats(-50, 50),
    )
)
def test_softmax_sums_to_one_and_ignores_shifts(x):
    p = softmax(x)
    assert p.shape == x.shape
    assert np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(softmax(x + 7.5), p, rtol=1e-12, atol=1e-300)


# --------------------------------------------------------------------------------------
# causal_mask


def test_causal_mask_by_hand():
    assert causal_mask(3).tolist() == [
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]
    assert causal_mask(1).tolist() == [[True]]
    assert causal_mask(0).shape == (0, 0)
    assert causal_mask(4).dtype == np.bool_


@pytest.mark.parametrize(
    ("n", "error"), [(-1, ValueError), (2.0, TypeError), (True, TypeError), ("3", TypeError)]
)
def test_causal_mask_rejects_bad_n(n, error):
    with pytest.raises(error, match=r"n must be an integer >= 0"):
        causal_mask(n)


# --------------------------------------------------------------------------------------
# attention


def test_attention_two_tokens_closed_form():
    # Identity projections, tokens 2 e_1 and 2 e_2: scores 4/sqrt(2) on the diagonal,
    # 0 off it; each output is 2 (p, 1 - p) with p = 1 / (1 + exp(-4/sqrt(2))).
    p = 1.0 / (1.0 + math.exp(-4.0 / math.sqrt(2.0)))
    out = attention(2.0 * np.eye(2), np.eye(2), np.eye(2), np.eye(2))
    np.testing.assert_allclose(out, [[2 * p, 2 - 2 * p], [2 - 2 * p, 2 * p]], rtol=1e-15)


def test_attention_matches_the_formula_by_hand():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5, 4))
    Wq, Wk = rng.normal(size=(2, 4, 3))
    Wv = rng.normal(size=(4, 2))
    np.testing.assert_allclose(
        attention(X, Wq, Wk, Wv), attention_by_hand(X, Wq, Wk, Wv), rtol=1e-12
    )
    mask = causal_mask(5)
    np.testing.assert_allclose(
        attention(X, Wq, Wk, Wv, mask=mask),
        attention_by_hand(X, Wq, Wk, Wv, mask.tolist()),
        rtol=1e-12,
    )


def test_first_row_under_a_causal_mask_is_its_own_value():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(4, 3))
    Wv = rng.normal(size=(3, 3))
    out = attention(X, np.eye(3), np.eye(3), Wv, mask=causal_mask(4))
    np.testing.assert_allclose(out[0], X[0] @ Wv, rtol=1e-13)


def test_attention_accepts_lists():
    out = attention([[1.0, 0.0], [0.0, 1.0]], np.eye(2), np.eye(2), [[1.0], [2.0]])
    assert out.shape == (2, 1)
    assert out.dtype == np.float64


matrices = st.integers(2, 6).flatmap(
    lambda n: st.tuples(
        hnp.arrays(np.float64, (n, 4), elements=st.floats(-3, 3)),
        hnp.arrays(np.float64, (3, 4, 4), elements=st.floats(-3, 3)),
        st.permutations(range(n)),
    )
)


@settings(max_examples=60, deadline=None)
@given(matrices)
def test_attention_is_permutation_equivariant(case):
    # FACTS section 1: Attn(P X) = P Attn(X), for every permutation P.
    X, (Wq, Wk, Wv), perm = case
    perm = list(perm)
    np.testing.assert_allclose(
        attention(X[perm], Wq, Wk, Wv), attention(X, Wq, Wk, Wv)[perm], rtol=1e-9, atol=1e-9
    )


def test_a_causal_mask_breaks_equivariance():
    # The mask is defined by index, not content: order leaks in (FACTS section 1).
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    I2 = np.eye(2)
    perm = [2, 0, 1]
    mask = causal_mask(3)
    moved_first = attention(X[perm], I2, I2, I2, mask=mask)
    moved_after = attention(X, I2, I2, I2, mask=mask)[perm]
    assert np.max(np.abs(moved_first - moved_after)) > 0.1


def words():
    """Three hand-made 4-number words (the project's own lists)."""
    return {
        "dog": np.array([0.9, -0.2, 0.4, 0.1]),
        "bites": np.array([-0.3, 0.8, 0.0, 0.5]),
        "man": np.array([0.2, 0.3, -0.7, 0.6]),
    }


def test_dog_bites_man_without_and_with_position():
    # Each word's query, key and value are its own list: identity projections.
    w = words()
    I4 = np.eye(4)
    first = np.stack([w["dog"], w["bites"], w["man"]])  # "dog bites man"
    second = np.stack([w["man"], w["bites"], w["dog"]])  # "man bites dog"
    out1, out2 = attention(first, I4, I4, I4), attention(second, I4, I4, I4)
    # Without position: the same word gets the same output in both sentences.
    np.testing.assert_allclose(out1[0], out2[2], rtol=0, atol=1e-15)  # dog
    np.testing.assert_allclose(out1[2], out2[0], rtol=0, atol=1e-15)  # man
    np.testing.assert_allclose(out1[1], out2[1], rtol=0, atol=1e-15)  # bites
    # With the sinusoidal code added, they differ.
    pe = sinusoidal(3, 4)
    out1, out2 = attention(first + pe, I4, I4, I4), attention(second + pe, I4, I4, I4)
    assert np.linalg.norm(out1[0] - out2[2]) > 0.05
    assert np.linalg.norm(out1[1] - out2[1]) > 0.01


# --------------------------------------------------------------------------------------
# multi_head_attention


def test_multi_head_is_concatenated_heads_times_wo():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 6))
    Wq, Wk, Wv, Wo = rng.normal(size=(4, 6, 6))
    heads = [
        attention_by_hand(X, Wq[:, c : c + 2], Wk[:, c : c + 2], Wv[:, c : c + 2])
        for c in (0, 2, 4)
    ]
    expected = np.concatenate(heads, axis=1) @ Wo
    np.testing.assert_allclose(
        multi_head_attention(X, Wq, Wk, Wv, Wo, heads=3), expected, rtol=1e-12
    )


def test_one_head_with_identity_output_is_attention():
    rng = np.random.default_rng(4)
    X, Wq, Wk, Wv = rng.normal(size=(4, 4, 4))
    mask = causal_mask(4)
    np.testing.assert_allclose(
        multi_head_attention(X, Wq, Wk, Wv, np.eye(4), heads=1, mask=mask),
        attention_by_hand(X, Wq, Wk, Wv, mask.tolist()),
        rtol=1e-12,
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.sampled_from([1, 2, 4]), st.randoms(use_true_random=False))
def test_multi_head_is_permutation_equivariant(n, heads, random):
    rng = np.random.default_rng(random.randrange(2**32))
    X = rng.normal(size=(n, 4))
    Wq, Wk, Wv, Wo = rng.normal(size=(4, 4, 4))
    perm = rng.permutation(n)
    np.testing.assert_allclose(
        multi_head_attention(X[perm], Wq, Wk, Wv, Wo, heads=heads),
        multi_head_attention(X, Wq, Wk, Wv, Wo, heads=heads)[perm],
        rtol=1e-9,
        atol=1e-12,
    )


# --------------------------------------------------------------------------------------
# Bad shapes: a ValueError naming the argument and the expected shape.

GOOD = {"X": np.ones((3, 4)), "Wq": np.ones((4, 2)), "Wk": np.ones((4, 2)), "Wv": np.ones((4, 5))}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("X", np.ones(4), r"X must have shape \(n, d_model\)"),
        ("X", np.ones((2, 3, 4)), r"X must have shape \(n, d_model\)"),
        ("Wq", np.ones((3, 2)), r"Wq must have shape \(d_model, d_k\)"),
        ("Wq", np.ones(4), r"Wq must have shape \(d_model, d_k\)"),
        ("Wk", np.ones((4, 3)), r"Wk must have shape \(d_model, d_k\) = \(4, 2\)"),
        ("Wk", np.ones((5, 2)), r"Wk must have shape \(d_model, d_k\)"),
        ("Wv", np.ones((3, 5)), r"Wv must have shape \(d_model, d_v\)"),
        ("mask", np.ones((3, 2), dtype=bool), r"mask must be a bool array of shape \(n, n\)"),
        ("mask", np.ones((3, 3)), r"mask must be a bool array of shape \(n, n\) = \(3, 3\)"),
        ("mask", np.zeros((3, 3), dtype=bool), r"mask must allow every query at least one key"),
    ],
)
def test_attention_rejects_bad_shapes(name, value, message):
    arguments = GOOD | {name: value}
    with pytest.raises(ValueError, match=message):
        attention(**arguments)


SQUARE = {name: np.eye(4) for name in ("Wq", "Wk", "Wv", "Wo")}


@pytest.mark.parametrize("name", ["Wq", "Wk", "Wv", "Wo"])
@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (4,)])
def test_multi_head_rejects_non_square_weights(name, shape):
    arguments = SQUARE | {name: np.ones(shape)}
    with pytest.raises(
        ValueError, match=rf"{name} must have shape \(d_model, d_model\) = \(4, 4\)"
    ):
        multi_head_attention(np.ones((3, 4)), **arguments, heads=2)


@pytest.mark.parametrize(
    ("heads", "error"),
    [(3, ValueError), (0, ValueError), (-2, ValueError), (2.0, TypeError), (True, TypeError)],
)
def test_multi_head_rejects_bad_head_counts(heads, error):
    with pytest.raises(error, match=r"heads must be a positive integer dividing d_model = 4"):
        multi_head_attention(np.ones((3, 4)), **SQUARE, heads=heads)
