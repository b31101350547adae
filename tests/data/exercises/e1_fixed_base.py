"""E1 that always uses 10000 and ignores its base argument."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length)[:, None]
    i = np.arange(width // 2)
    angle = pos / 10000 ** (2 * i / width)  # the mistake
    table = np.zeros((length, width))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table
