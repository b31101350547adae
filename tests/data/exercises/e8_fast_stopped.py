"""E8 stopping the fast pairs and keeping the slow ones."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    k = int(partial_rotary_factor * head_dim // 2)
    w = base ** (-np.arange(0, head_dim, 2) / head_dim)
    w[: head_dim // 2 - k] = 0.0  # the mistake: the fastest pairs stopped
    return w
