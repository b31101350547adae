"""Tests of posenc.rotary against independent sources.

The references are: a d = 4 example worked by hand; mpmath at 50 digits, rotating
each pair by the exact real angle pos * base**(-2i/d); closed forms written out
here (the rotation of one pair, the score <q, R(n - m) k> as a sum over pairs, the
permutation between the layouts from its definition); and identities that hold
for every input (hypothesis).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.rotary import (
    PAIRINGS,
    pairing_permutation,
    rotary,
    rotary_angles,
    rotary_matrix,
)

BOUND = 4e-16  # promised error of an output pair, relative to the input pair's length


def members(i: int, width: int, pairing: str) -> tuple[int, int]:
    """The two coordinates of pair i: (2i, 2i+1) interleaved, (i, i + d/2) split halves."""
    return (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + width // 2)


def exact_rotation(vector, pos: int, pairing: str, base: float = 10000.0):
    """The rotated vector at 50 digits, pair by pair, as mpmath numbers."""
    width = len(vector)
    out = [None] * width
    with mpmath.workdps(50):
        for i in range(width // 2):
            a, b = members(i, width, pairing)
            angle = mpmath.mpf(pos) * mpmath.mpf(base) ** (mpmath.mpf(-2 * i) / width)
            xa, xb = mpmath.mpf(float(vector[a])), mpmath.mpf(float(vector[b]))
            out[a] = xa * mpmath.cos(angle) - xb * mpmath.sin(angle)
            out[b] = xa * mpmath.sin(angle) + xb * mpmath.cos(angle)
    return out


def relative_error(got, vector, pos: int, pairing: str, base: float = 10000.0) -> float:
    """Largest error of a pair of ``got``, divided by the length of the input pair."""
    exact = exact_rotation(vector, pos, pairing, base)
    width = len(vector)
    worst = 0.0
    with mpmath.workdps(50):
        for i in range(width // 2):
            a, b = members(i, width, pairing)
            size = mpmath.sqrt(
                mpmath.mpf(float(vector[a])) ** 2 + mpmath.mpf(float(vector[b])) ** 2
            )
            if size == 0:
                continue
            for j in (a, b):
                worst = max(worst, float(abs(mpmath.mpf(float(got[j])) - exact[j]) / size))
    return worst


def closed_score(q, k, offset: int, base: float = 10000.0) -> float:
    """<q, R(offset) k>, interleaved, as sum_i (q.k)_i cos(o w_i) + (q x k)_i sin(o w_i)."""
    width = len(q)
    terms = []
    for i in range(width // 2):
        w = base ** (-2.0 * i / width)
        qa, qb, ka, kb = q[2 * i], q[2 * i + 1], k[2 * i], k[2 * i + 1]
        terms.append((qa * ka + qb * kb) * math.cos(offset * w))
        terms.append((qb * ka - qa * kb) * math.sin(offset * w))
    return math.fsum(terms)


# --------------------------------------------------------------------------------------
# A worked example, by hand.


def test_hand_computed_width_4():
    # d = 4, base 10000: w_0 = 1, w_1 = 10000**(-1/2) = 0.01. x = (1, 2, 3, 4) at
    # position 1. Interleaved: pair (1, 2) turns by 1 rad, pair (3, 4) by 0.01 rad.
    # Split halves: pair (x_0, x_2) = (1, 3) turns by 1, pair (x_1, x_3) = (2, 4) by 0.01.
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    c1, s1, c2, s2 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
    interleaved = rotary(x, [1])[0]
    half = rotary(x, [1], pairing="half")[0]
    # The closed forms, then the same numbers typed in to 7 decimals.
    expected = [c1 - 2 * s1, s1 + 2 * c1, 3 * c2 - 4 * s2, 3 * s2 + 4 * c2]
    np.testing.assert_allclose(interleaved, expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(
        interleaved, [-1.1426397, 1.9220756, 2.9598507, 4.0297995], rtol=0, atol=5e-8
    )
    expected = [c1 - 3 * s1, 2 * c2 - 4 * s2, s1 + 3 * c1, 2 * s2 + 4 * c2]
    np.testing.assert_allclose(half, expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(half, [-1.9841106, 1.9599007, 2.4623779, 4.0197997], atol=5e-8)


def test_hand_computed_scores_width_4():
    # q = e_0 at m = 0 and k = e_1 at n = 1. Interleaved, e_0 and e_1 form pair 0:
    # the key turns to (-sin 1, cos 1, 0, 0), so the score is -sin 1. Split halves,
    # e_1 is in pair 1 and stays orthogonal to e_0: the score is 0.
    q, k = np.eye(4)[[0]], np.eye(4)[[1]]
    inter = float(rotary(q, [0])[0] @ rotary(k, [1])[0])
    half = float(rotary(q, [0], pairing="half")[0] @ rotary(k, [1], pairing="half")[0])
    assert inter == pytest.approx(-math.sin(1.0), abs=1e-16)
    assert half == 0.0


# --------------------------------------------------------------------------------------
# Accuracy, against mpmath.


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize("width", [2, 4, 16, 128])
def test_matches_mpmath(pairing, width):
    rng = np.random.default_rng(width)
    where = [0, 1, 2, 37, 1000, 65535, 10**6 + 3, 2**31 - 1, 10**12 + 39, 2**53, -7]
    x = rng.normal(size=(len(where), width))  # (L, d)
    got = rotary(x, where, pairing=pairing)  # (L, d)
    for row, pos in enumerate(where):
        assert relative_error(got[row], x[row], pos, pairing) <= BOUND, pos


@pytest.mark.parametrize("base", [2.0, 500000.0, 1e6])
def test_matches_mpmath_at_other_bases(base):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3, 8))  # (L, d)
    where = [5, 4096, 123456789]
    for pairing in PAIRINGS:
        got = rotary(x, where, base=base, pairing=pairing)
        for row, pos in enumerate(where):
            assert relative_error(got[row], x[row], pos, pairing, base) <= BOUND


def test_angles_are_rounded_once():
    where = [0, 1, 3, 1000, 10**9 + 7, 2**53 - 1]
    width = 64
    got = rotary_angles(where, width)  # (L, d/2)
    assert got.shape == (len(where), width // 2)
    with mpmath.workdps(50):
        for row, pos in enumerate(where):
            for i in range(width // 2):
                exact = mpmath.mpf(pos) * mpmath.mpf(10000) ** (mpmath.mpf(-2 * i) / width)
                error = abs(mpmath.mpf(float(got[row, i])) - exact)
                assert error <= 0.5000001 * np.spacing(got[row, i]) + 1e-300, (pos, i)


def test_angles_example():
    np.testing.assert_array_equal(rotary_angles([0, 1, 2], 4), [[0, 0], [1, 0.01], [2, 0.02]])


# --------------------------------------------------------------------------------------
# The proposition: the score depends only on the offset; lengths are kept.


@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(-(10**7), 10**7),
    n=st.integers(-(10**7), 10**7),
    shift=st.integers(-(10**7), 10**7),
    seed=st.integers(0, 2**32 - 1),
    pairing=st.sampled_from(PAIRINGS),
)
def test_score_depends_only_on_the_offset(m, n, shift, seed, pairing):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(2, 1, 16))  # (1, d) each

    def score(a, b):
        return float(rotary(q, [a], pairing=pairing)[0] @ rotary(k, [b], pairing=pairing)[0])

    scale = float(np.linalg.norm(q) * np.linalg.norm(k))
    assert score(m, n) == pytest.approx(score(m + shift, n + shift), abs=1e-14 * scale)
    assert score(m, n) == pytest.approx(score(0, n - m), abs=1e-14 * scale)


def test_score_matrix_is_toeplitz_and_matches_the_closed_form():
    rng = np.random.default_rng(12)
    width, length = 32, 40
    q, k = rng.normal(size=(2, width))  # (d,) each
    queries = rotary(np.tile(q, (length, 1)), np.arange(length))  # (L, d)
    keys = rotary(np.tile(k, (length, 1)), np.arange(length))  # (L, d)
    scores = queries @ keys.T  # (L, L): row m, column n
    for m in range(length):
        for n in range(length):
            assert scores[m, n] == pytest.approx(closed_score(q, k, n - m), abs=1e-13)
    # Not symmetric in the offset: the score tells before from after.
    assert abs(scores[0, 5] - scores[5, 0]) > 1e-3


@pytest.mark.parametrize("pairing", PAIRINGS)
def test_lengths_are_kept(pairing):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 50, 24))  # (B, L, d)
    out = rotary(x, rng.integers(-(10**6), 10**6, size=50), pairing=pairing)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-15
    )


def test_rotation_is_not_a_shift():
    # R q - q changes with q, so no position vector p_m could stand for it.
    x = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]])  # (L, d): three tokens
    moved = rotary(x, [1, 1, 1]) - x  # (L, d)
    assert not np.allclose(moved[0], moved[1])
    np.testing.assert_allclose(moved[2], 2 * moved[0], rtol=1e-15)  # linear in q


def test_position_zero_is_the_identity_and_negative_positions_undo():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 10))  # (L, d)
    np.testing.assert_array_equal(rotary(x, np.zeros(5, dtype=int)), x)
    where = np.array([3, 77, 1000, 2**40, 5])
    back = rotary(rotary(x, where), -where)  # (L, d)
    np.testing.assert_allclose(back, x, rtol=0, atol=2e-15)


# --------------------------------------------------------------------------------------
# The two pairings and the permutation between them.


def pi_from_definition(width: int) -> np.ndarray:
    """Pi as a matrix: (Pi x)_(2i) = x_i and (Pi x)_(2i+1) = x_(i + d/2)."""
    matrix = np.zeros((width, width))
    for i in range(width // 2):
        matrix[2 * i, i] = 1.0
        matrix[2 * i + 1, i + width // 2] = 1.0
    return matrix


@pytest.mark.parametrize("width", [2, 4, 6, 8, 64])
def test_pairing_permutation_is_pi(width):
    perm = pairing_permutation(width)
    assert perm.shape == (width,) and perm.dtype.kind == "i"
    assert sorted(perm.tolist()) == list(range(width))
    x = np.arange(width, dtype=float) * 1.5 + 1.0
    np.testing.assert_array_equal(x[perm], pi_from_definition(width) @ x)
    evens_then_odds = list(range(0, width, 2)) + list(range(1, width, 2))
    assert np.argsort(perm).tolist() == evens_then_odds


@pytest.mark.parametrize("width", [2, 4, 6, 8, 30])
def test_half_is_interleaved_conjugated_by_pi(width):
    rng = np.random.default_rng(width)
    x = rng.normal(size=(3, 9, width))  # (B, L, d)
    where = rng.integers(0, 10**6, size=9)
    pi = pi_from_definition(width)
    half = rotary(x, where, pairing="half")  # (B, L, d)
    via_pi = rotary(x @ pi.T, where) @ pi  # rows: Pi^T rotary_int(Pi x)
    np.testing.assert_array_equal(half, via_pi)  # the same arithmetic, relabelled
    for pos in (0, 1, 12345):
        np.testing.assert_array_equal(
            rotary_matrix(pos, width, pairing="half"), pi.T @ rotary_matrix(pos, width) @ pi
        )


def test_pairings_give_different_scores_unless_the_weights_are_permuted():
    rng = np.random.default_rng(7)
    width = 16
    perm = pairing_permutation(width)
    inverse = np.argsort(perm)  # Pi^T y = y[inverse]: interleaved to split halves
    q, k = rng.normal(size=(2, 1, width))  # (1, d) each
    m, n = 3, 11

    def score(qv, kv, pairing):
        return float(rotary(qv, [m], pairing=pairing)[0] @ rotary(kv, [n], pairing=pairing)[0])

    assert abs(score(q, k, "interleaved") - score(q, k, "half")) > 1e-3
    moved = score(q[:, inverse], k[:, inverse], "half")  # weights permuted by Pi^T
    assert moved == pytest.approx(score(q, k, "interleaved"), abs=1e-14)


def test_moving_weight_columns_moves_the_model():
    # A query projection W (d_model, d) trained for the interleaved pairing runs
    # unchanged under the split-half pairing once its output columns are permuted.
    rng = np.random.default_rng(8)
    tokens, wq, wk = rng.normal(size=(6, 8)), rng.normal(size=(8, 12)), rng.normal(size=(8, 12))
    inverse = np.argsort(pairing_permutation(12))
    where = np.arange(6) + 100
    scores = rotary(tokens @ wq, where) @ rotary(tokens @ wk, where).T  # (L, L)
    q_half = rotary(tokens @ wq[:, inverse], where, pairing="half")  # (L, d)
    k_half = rotary(tokens @ wk[:, inverse], where, pairing="half")  # (L, d)
    np.testing.assert_allclose(q_half @ k_half.T, scores, rtol=0, atol=1e-13)


# --------------------------------------------------------------------------------------
# rotary_matrix.


def block_matrix(pos: float, width: int, base: float = 10000.0) -> np.ndarray:
    """Block-diagonal [[cos t, -sin t], [sin t, cos t]], t = pos * base**(-2i/d)."""
    matrix = np.zeros((width, width))
    for i in range(width // 2):
        t = pos * base ** (-2.0 * i / width)
        matrix[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [math.cos(t), -math.sin(t)],
            [math.sin(t), math.cos(t)],
        ]
    return matrix


@pytest.mark.parametrize("pairing", PAIRINGS)
@pytest.mark.parametrize(("pos", "width"), [(0, 2), (1, 2), (3, 8), (-20, 6), (250, 16)])
def test_rotary_matrix(pos, width, pairing):
    matrix = rotary_matrix(pos, width, pairing=pairing)  # (d, d)
    assert matrix.shape == (width, width) and matrix.dtype == np.float64
    if pairing == "interleaved":
        np.testing.assert_allclose(matrix, block_matrix(pos, width), rtol=0, atol=1e-13)
    np.testing.assert_allclose(matrix.T @ matrix, np.eye(width), rtol=0, atol=1e-15)
    rng = np.random.default_rng(0)
    v = rng.normal(size=width)  # (d,)
    np.testing.assert_allclose(
        matrix @ v, rotary(v[None], [pos], pairing=pairing)[0], rtol=0, atol=1e-15
    )
    # R(m)^T R(n) = R(n - m)
    other = rotary_matrix(pos + 13, width, pairing=pairing)
    np.testing.assert_allclose(
        matrix.T @ other, rotary_matrix(13, width, pairing=pairing), rtol=0, atol=1e-15
    )


# --------------------------------------------------------------------------------------
# Shapes and dtypes.


def test_shapes_and_batches():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 5, 8))  # (B, H, L, d)
    where = [0, 4, 9, 16, 25]
    out = rotary(x, where)
    assert out.shape == x.shape and out.dtype == np.float64
    for b in range(2):
        for h in range(3):
            np.testing.assert_array_equal(out[b, h], rotary(x[b, h], where))
    assert rotary(np.zeros((0, 4)), []).shape == (0, 4)
    assert rotary(np.zeros((3, 0, 6)), np.array([], dtype=int)).shape == (3, 0, 6)


def test_input_is_not_modified():
    x = np.arange(8, dtype=float).reshape(2, 4)
    before = x.copy()
    rotary(x, [1, 2])
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_low_precision_is_the_float64_result_rounded_once(dtype):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(20, 8)).astype(dtype)  # (L, d)
    where = np.arange(20) * 1000
    got = rotary(x, where)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, rotary(x.astype(np.float64), where).astype(dtype))


def test_integer_input_gives_float64():
    out = rotary(np.array([[1, 0]]), [1])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [[math.cos(1), math.sin(1)]], atol=1e-16)


# --------------------------------------------------------------------------------------
# Bad input.


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"pairing": "rotate_half"}, ValueError, "pairing"),
        ({"pairing": None}, TypeError, "pairing"),
        ({"base": 1.0}, ValueError, "base"),
        ({"base": True}, TypeError, "base"),
        ({"base": float("nan")}, ValueError, "base"),
    ],
)
def test_rejects_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        rotary(np.zeros((2, 4)), [0, 1], **kwargs)


@pytest.mark.parametrize(
    ("x", "positions", "error", "match"),
    [
        (np.zeros((2, 4)), [0], ValueError, "len\\(positions\\)"),
        (np.zeros(4), [0], ValueError, "shape"),
        (np.zeros((1, 3)), [0], ValueError, "even"),
        (np.zeros((1, 0)), [0], ValueError, "even"),
        (np.zeros((1, 4), dtype=complex), [0], TypeError, "real"),
        (np.zeros((1, 4), dtype=bool), [0], TypeError, "real"),
        (np.array([[np.inf, 0.0]]), [0], ValueError, "finite"),
        (np.zeros((2, 4)), [[0, 1]], ValueError, "1-D"),
        (np.zeros((1, 4)), [True], TypeError, "positions"),
        (np.zeros((1, 4)), ["1"], TypeError, "positions"),
        (np.zeros((1, 4)), [np.nan], ValueError, "finite"),
        (np.zeros((1, 4)), [2**53 + 2], ValueError, "2\\*\\*53"),
        (np.zeros((1, 4)), [2.0**60], ValueError, "2\\*\\*53"),
        (np.zeros((1, 4)), [10**30], ValueError, "2\\*\\*53"),
    ],
)
def test_rejects_bad_arrays(x, positions, error, match):
    with pytest.raises(error, match=match):
        rotary(x, positions)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((1, 3), {}, ValueError, "width"),
        ((1, 4.0), {}, TypeError, "width"),
        ((True, 4), {}, TypeError, "position"),
        ((float("inf"), 4), {}, ValueError, "position"),
        ((2**54, 4), {}, ValueError, "2\\*\\*53"),
        ((1, 4), {"pairing": "Half"}, ValueError, "pairing"),
    ],
)
def test_rotary_matrix_rejects_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        rotary_matrix(*args, **kwargs)


@pytest.mark.parametrize(("width", "error"), [(5, ValueError), (0, ValueError), (2.0, TypeError)])
def test_pairing_permutation_rejects_bad_width(width, error):
    with pytest.raises(error, match="width"):
        pairing_permutation(width)


def test_rotary_angles_rejects_bad_input():
    with pytest.raises(ValueError, match="width"):
        rotary_angles([0, 1], 7)
    with pytest.raises(ValueError, match="1-D"):
        rotary_angles(3, 4)
