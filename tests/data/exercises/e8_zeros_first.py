"""E8 with the zeros put before the turning speeds."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    k = int(partial_rotary_factor * head_dim // 2)
    turning = base ** (-np.arange(0, 2 * k, 2) / head_dim)
    return np.concatenate([np.zeros(head_dim // 2 - k), turning])  # the mistake: zeros first
