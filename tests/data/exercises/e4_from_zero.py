"""E4 with the reference rule, but the heads counted from 0."""

import math


def series(n):
    return [2 ** (-8 * h / n) for h in range(n)]  # the mistake: h = 0 .. n - 1


def solve(num_heads):
    c = 2 ** math.floor(math.log2(num_heads))
    return series(c) + series(2 * c)[0::2][: num_heads - c]
