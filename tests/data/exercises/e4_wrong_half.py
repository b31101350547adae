"""E4 whose extra slopes are the even terms of the doubled series: repeats."""

import numpy as np


def solve(num_heads):
    c = 1 << (num_heads.bit_length() - 1)
    first = 2.0 ** (-8.0 * np.arange(1, c + 1) / c)
    doubled = 2.0 ** (-8.0 * np.arange(1, 2 * c + 1) / (2 * c))
    extra = doubled[1::2][: num_heads - c]  # the mistake: [1::2] instead of [0::2]
    return np.concatenate([first, extra])
