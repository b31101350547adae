"""E5 whose buckets are exact all the way to max_distance."""

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
    large = np.minimum(exact + log_part.astype(np.int64), half - 1)
    is_small = n < max_distance  # the mistake: n < exact
    return upper + np.where(is_small, n, large)
