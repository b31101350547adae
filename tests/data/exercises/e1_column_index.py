"""E1 with the column index j in the exponent, where the pair index j // 2 belongs."""

import math

import numpy as np


def solve(length, width, base=10000.0):
    table = np.zeros((length, width))
    for pos in range(length):
        for j in range(width):
            angle = pos / base ** (2 * j / width)  # the mistake: j, not j // 2
            table[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return table
