"""E4 with the reference rule computed in float32, as PyTorch does by default."""

import math

import numpy as np


def series(n):
    start = np.float32(2 ** (-8 / n))
    return [start ** np.float32(h) for h in range(1, n + 1)]  # the mistake: float32


def solve(num_heads):
    c = 2 ** math.floor(math.log2(num_heads))
    slopes = series(c) + series(2 * c)[0::2][: num_heads - c]
    return np.array(slopes, dtype=np.float32)
