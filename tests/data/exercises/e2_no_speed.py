"""E2 that turns every pair by the angle k, forgetting each pair's speed."""

import numpy as np


def solve(k, width, base=10000.0):
    m = np.zeros((width, width))
    for i in range(width // 2):
        a = k  # the mistake: k / base ** (2 * i / width)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]
    return m
