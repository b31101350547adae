"""E2 with the power applied to the quotient: (k / base) ** (2i / d)."""

import numpy as np


def solve(k, width, base=10000.0):
    i = np.arange(width // 2)
    a = np.float64(k / base) ** (2 * i / width)  # the mistake (NaN for k < 0)
    m = np.zeros((width, width))
    m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = np.cos(a), np.sin(a)
    m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = -np.sin(a), np.cos(a)
    return m
