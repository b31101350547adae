"""E5 as T5's PyTorch code computes it: the floor of a float32 logarithm."""

import math

import numpy as np


def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):
    r = np.asarray(relative_position)
    half = num_buckets // 2 if bidirectional else num_buckets
    upper = np.where(r > 0, half, 0) if bidirectional else np.zeros_like(r)
    n = np.abs(r) if bidirectional else np.maximum(-r, 0)
    exact = half // 2
    ratio = np.maximum(n, 1).astype(np.float32) / np.float32(exact)  # the mistake: float32
    scaled = np.log(ratio) / np.float32(math.log(max_distance / exact)) * np.float32(half - exact)
    large = np.minimum(exact + scaled.astype(np.int64), half - 1)
    return upper + np.where(n < exact, n, large)
