"""E2 with pair i on coordinates (i, i + d/2), the rotate_half layout."""

import numpy as np


def solve(k, width, base=10000.0):
    half = width // 2
    i = np.arange(half)
    a = k / base ** (2 * i / width)
    m = np.zeros((width, width))
    m[i, i], m[i, i + half] = np.cos(a), np.sin(a)  # the mistake: i + half, not 2i + 1
    m[i + half, i], m[i + half, i + half] = -np.sin(a), np.cos(a)
    return m
