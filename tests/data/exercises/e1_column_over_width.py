"""E1 with base ** (j / d): right for the sine columns, wrong for the cosine columns."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length)[:, None]
    j = np.arange(width)
    angle = pos / np.power(base, j / width)  # the mistake: j / d, not 2 (j // 2) / d
    return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))
