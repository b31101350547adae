"""E1, the sinusoidal table (Vaswani et al. 2017, section 3.5).

PE[pos, 2i] = sin(pos / base ** (2i / d)) and PE[pos, 2i + 1] = cos(pos / base ** (2i / d)).
Check it with:  posenc exercise check E1 exercises/solutions/e1_sinusoidal_table.py
"""

import numpy as np


def solve(length, width, base=10000.0):
    pos = np.arange(length, dtype=np.float64)[:, None]  # (L, 1): positions 0 .. L-1
    i = np.arange(width // 2)  # (d/2,): one index per pair, not per column
    angle = pos / base ** (2 * i / width)  # (L, d/2): the power binds before the division
    table = np.empty((length, width))  # (L, d)
    table[:, 0::2] = np.sin(angle)  # column 2i: the sine of pair i
    table[:, 1::2] = np.cos(angle)  # column 2i + 1: the cosine of the same angle
    return table


if __name__ == "__main__":
    print(solve(3, 4).round(6))
