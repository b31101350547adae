"""E8 with partial_rotary_factor left out: every pair turns."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    return base ** (-np.arange(0, head_dim, 2) / head_dim)  # the factor is never read
