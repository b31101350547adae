"""E1 in the layout of tensor2tensor: all the sines, then all the cosines."""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length)[:, None]
    i = np.arange(width // 2)
    angle = pos / base ** (2 * i / width)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # the mistake
