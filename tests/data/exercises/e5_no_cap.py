"""E5 whose logarithmic buckets are not capped at the last bucket of the half."""

import math

import numpy as np


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    r = np.asarray(relative_position)
    half = num_buckets // 2 if bidirectional else num_buckets
    upper = np.where(r > 0, half, 0) if bidirectional else 0
    n = np.abs(r) if bidirectional else np.maximum(-r, 0)
    exact = half // 2
    with np.errstate(divide="ignore"):
        log_part = np.log(n / exact) / math.log(max_distance / exact) * (half - exact)
    large = exact + log_part.astype(np.int64)  # the mistake: no min(large, half - 1)
    return upper + np.where(n < exact, n, large)
