"""E2, the shift matrix: PE(pos + k) = M_k PE(pos), one rotation block per pair.

For the (sin, cos) column order, block i is [[cos a, sin a], [-sin a, cos a]], a = k w_i.
Check it with:  posenc exercise check E2 exercises/solutions/e2_shift_matrix.py
"""

import numpy as np


def solve(k, width, base=10000.0):
    i = np.arange(width // 2)  # (d/2,): pair index
    a = k / base ** (2 * i / width)  # (d/2,): pair i turns by w_i k
    c, s = np.cos(a), np.sin(a)  # (d/2,) each
    m = np.zeros((width, width))  # (d, d): zero outside the blocks
    row = 2 * i  # (d/2,): the first row (and column) of each block
    m[row, row], m[row, row + 1] = c, s  # new sine = cos a * sine + sin a * cosine
    m[row + 1, row], m[row + 1, row + 1] = -s, c  # new cosine = -sin a * sine + cos a * cosine
    return m


if __name__ == "__main__":
    from posenc import sinusoidal

    pe = sinusoidal(10, 6)  # (10, 6): positions 0 .. 9
    m = solve(3, 6)  # (6, 6)
    moved = pe[:7] @ m.T  # (7, 6): row pos is M_3 PE(pos), for pos = 0 .. 6
    print(np.abs(moved - pe[3:]).max())  # PE(pos + 3): about 1e-16
