"""E2 with the textbook rotation block, which turns (sin, cos) pairs the wrong way."""

import numpy as np


def solve(k, width, base=10000.0):
    m = np.zeros((width, width))
    for i in range(width // 2):
        a = k / base ** (2 * i / width)
        m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [np.cos(a), -np.sin(a)],  # the mistake: the signs of the sines
            [np.sin(a), np.cos(a)],
        ]
    return m
