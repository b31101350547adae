"""E8 with NeoX partial rotary's exponent: over the rotated width, not the whole head."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    rotary_dim = int(head_dim * partial_rotary_factor)
    k = int(partial_rotary_factor * head_dim // 2)
    speeds = np.zeros(head_dim // 2)
    speeds[:k] = base ** (-np.arange(0, 2 * k, 2) / rotary_dim)  # the mistake: / rotary_dim
    return speeds
