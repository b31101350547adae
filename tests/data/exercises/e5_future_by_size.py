"""E5 whose causal buckets take the size of a future offset, instead of 0."""

import math

import numpy as np


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    r = np.asarray(relative_position)
    half = num_buckets // 2 if bidirectional else num_buckets
    upper = np.where(r > 0, half, 0) if bidirectional else 0
    n = np.abs(r)  # the mistake: causal needs max(-r, 0)
    exact = half // 2
    with np.errstate(divide="ignore"):
        log_part = np.log(n / exact) / math.log(max_distance / exact) * (half - exact)
    large = np.minimum(exact + log_part.astype(np.int64), half - 1)
    return upper + np.where(n < exact, n, large)
