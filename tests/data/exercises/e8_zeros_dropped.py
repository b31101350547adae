"""E8 with the right speeds of the turning pairs, and no zeros for the stopped ones."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    rope_angles = int(partial_rotary_factor * head_dim // 2)
    return 1.0 / base ** (np.arange(0, 2 * rope_angles, 2) / head_dim)  # (k,), not (d/2,)
