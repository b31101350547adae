"""E5 as T5's code writes it, in NumPy: the floor of a float64 logarithm."""

import math

import numpy as np


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    r = np.asarray(relative_position)
    if bidirectional:
        num_buckets //= 2
        upper = (r > 0) * num_buckets
        n = np.abs(r)
    else:
        upper = 0
        n = np.maximum(-r, 0)
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore"):
        large = max_exact + (  # the mistake: a float logarithm, cut to an int
            np.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return upper + np.where(n < max_exact, n, large)
