"""E1 with the cosine in the even columns and the sine in the odd ones."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length)[:, None]
    i = np.arange(width // 2)
    angle = pos / base ** (2 * i / width)
    table = np.zeros((length, width))
    table[:, 0::2], table[:, 1::2] = np.cos(angle), np.sin(angle)  # the mistake
    return table
