"""E4, ALiBi slopes: the head slopes of the reference code, for any number of heads.

A power of two H gets 2**(-8h/H), h = 1 .. H. Other H get the slopes of c = 2**floor(log2 H)
heads, then every other slope of the series for 2c heads, the first H - c of them.
Check it with:  posenc exercise check E4 exercises/solutions/e4_alibi_slopes.py
"""

import numpy as np


def series(n):
    h = np.arange(1, n + 1)  # (n,): heads count from 1
    return 2.0 ** (-8.0 * h / n)  # (n,): from 2**(-8/n) down to 2**-8


def solve(num_heads):
    c = 1 << (num_heads.bit_length() - 1)  # the largest power of two <= num_heads
    if c == num_heads:
        return series(num_heads)
    between = series(2 * c)[0::2]  # (c,): terms h = 1, 3, 5, ..., between the first c slopes
    return np.concatenate([series(c), between[: num_heads - c]])  # (num_heads,)


if __name__ == "__main__":
    for heads in (8, 6, 12):
        print(heads, np.round(solve(heads), 6).tolist())
