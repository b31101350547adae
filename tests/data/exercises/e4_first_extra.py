"""E4 whose extra slopes are the first ones of the doubled series, not every other one."""

import math


def series(n):
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # 2**(-8/n), as the reference code writes it
    return [start * start**i for i in range(n)]


def solve(num_heads):
    if math.log2(num_heads).is_integer():
        return series(num_heads)
    c = 2 ** math.floor(math.log2(num_heads))
    return series(c) + series(2 * c)[: num_heads - c]  # the mistake: [0::2] left out
