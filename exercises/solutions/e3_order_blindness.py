"""E3, order blindness: attention follows any reordering, until the code is added.

Returns the largest difference between Attn(X[order]) and Attn(X)[order], without and
with the sinusoidal code added by place.
Check it with:  posenc exercise check E3 exercises/solutions/e3_order_blindness.py
"""

import numpy as np


def sinusoidal(length, width, base=10000.0):
    """The table of E1: your own solve, copied in (a checked solution cannot import posenc)."""
    pos = np.arange(length, dtype=np.float64)[:, None]  # (L, 1): positions 0 .. L-1
    i = np.arange(width // 2)  # (d/2,): one index per pair
    angle = pos / base ** (2 * i / width)  # (L, d/2)
    table = np.empty((length, width))  # (L, d)
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)  # sine, cosine of pair i
    return table


def attention(X, Wq, Wk, Wv):
    q, k, v = X @ Wq, X @ Wk, X @ Wv  # (n, d_k), (n, d_k), (n, d_v)
    scores = q @ k.T / np.sqrt(q.shape[1])  # (n, n): row r = how query r scores each key
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))  # (n, n), no overflow
    weights /= weights.sum(axis=-1, keepdims=True)  # each row sums to 1
    return weights @ v  # (n, d_v)


def solve(X, Wq, Wk, Wv, order):
    n, d = X.shape
    pe = sinusoidal(n, d)  # (n, d): row r is the code of place r
    plain = attention(X[order], Wq, Wk, Wv) - attention(X, Wq, Wk, Wv)[order]  # (n, d_v)
    coded = attention(X[order] + pe, Wq, Wk, Wv) - attention(X + pe, Wq, Wk, Wv)[order]
    return float(np.abs(plain).max()), float(np.abs(coded).max())


if __name__ == "__main__":
    dog, bites, man = [1, 0, 0.5, 0], [0, 1, 0, 0.5], [0.5, 0, 0, 1]
    X = np.array([dog, bites, man])  # (3, 4): "dog bites man"
    eye = np.eye(4)  # each word is its own query, key and value
    print(solve(X, eye, eye, eye, [2, 1, 0]))  # against "man bites dog"
