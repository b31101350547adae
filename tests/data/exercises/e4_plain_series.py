"""E4 with the power-of-two series used for every head count."""

import numpy as np


def solve(num_heads):
    h = np.arange(1, num_heads + 1)
    return 2.0 ** (-8.0 * h / num_heads)  # the mistake: right only when H is a power of two
