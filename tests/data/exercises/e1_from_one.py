"""E1 with positions counted from 1."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(1, length + 1)[:, None]  # the mistake
    i = np.arange(width // 2)
    angle = pos / base ** (2 * i / width)
    table = np.zeros((length, width))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table
