"""E3 with the code of positions 1 .. n instead of 0 .. n - 1."""

import numpy as np


def sinusoidal(length, width):
    """The table of E1: the reader's own solve, copied in (a checked file cannot import posenc)."""
    angle = np.arange(length)[:, None] / 10000 ** (np.arange(0, width, 2) / width)  # (L, d/2)
    table = np.empty((length, width))  # (L, d)
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def attention(X, Wq, Wk, Wv):
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    scores = q @ k.T / np.sqrt(q.shape[1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def solve(X, Wq, Wk, Wv, order):
    n, d = X.shape
    pe = sinusoidal(n + 1, d)[1:]
    plain = attention(X[order], Wq, Wk, Wv) - attention(X, Wq, Wk, Wv)[order]
    coded = attention(X[order] + pe, Wq, Wk, Wv) - attention(X + pe, Wq, Wk, Wv)[order]
    return float(np.abs(plain).max()), float(np.abs(coded).max())
