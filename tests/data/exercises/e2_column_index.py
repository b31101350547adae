"""E2 with the column index j = 2i in the exponent, where the pair index i belongs."""

import numpy as np


def solve(k, width, base=10000.0):
    m = np.zeros((width, width))
    for j in range(0, width, 2):
        a = k / base ** (2 * j / width)  # the mistake: j is the column, 2i
        m[j : j + 2, j : j + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return m
