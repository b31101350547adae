"""E4 with the right slopes, stored in half precision for a float16 model."""

import math

import numpy as np


def solve(num_heads):
    c = 2 ** math.floor(math.log2(num_heads))
    first = [2 ** (-8 * h / c) for h in range(1, c + 1)]
    extra = [2 ** (-8 * h / (2 * c)) for h in range(1, 2 * c + 1, 2)][: num_heads - c]
    return np.array(first + extra, dtype=np.float16)  # the mistake: float16
