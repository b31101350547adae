"""E4 with the series for the next power of two, cut to H heads."""

import math


def solve(num_heads):
    n = 2 ** math.ceil(math.log2(num_heads))  # the mistake: round up, not down
    return [2 ** (-8 * h / n) for h in range(1, num_heads + 1)]
