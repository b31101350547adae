"""E1 with the ladder of tensor2tensor: exponent i / (d/2 - 1), not 2i / d."""

import math

import numpy as np


def solve(length, width, base=10000.0):
    half = width // 2
    step = math.log(base) / max(half - 1, 1)  # the mistake: log(base) * 2 / width
    w = np.exp(-step * np.arange(half))
    angle = np.arange(length)[:, None] * w
    table = np.zeros((length, width))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table
