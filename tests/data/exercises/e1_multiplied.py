"""E1 with pos multiplied by base ** (2i / d) instead of divided."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length)[:, None]
    i = np.arange(width // 2)
    angle = pos * base ** (2 * i / width)  # the mistake
    table = np.zeros((length, width))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table
