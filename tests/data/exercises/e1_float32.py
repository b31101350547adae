"""E1 computed in float32, as in the PyTorch tutorial formula."""

import math

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length, dtype=np.float32)[:, None]
    speed = np.exp(np.arange(0, width, 2, dtype=np.float32) * np.float32(-math.log(base) / width))
    table = np.zeros((length, width), dtype=np.float32)  # the mistake: float32 throughout
    table[:, 0::2] = np.sin(pos * speed)
    table[:, 1::2] = np.cos(pos * speed)
    return table
