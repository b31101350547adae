"""E2 with sine and cosine traded in each block."""

import numpy as np


def solve(k, width, base=10000.0):
    i = np.arange(width // 2)
    a = k / base ** (2 * i / width)
    m = np.zeros((width, width))
    m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = np.sin(a), np.cos(a)  # the mistake
    m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = -np.cos(a), np.sin(a)
    return m
