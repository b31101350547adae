"""E8 computed in float32, as Transformers computes it (torch.float)."""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    f32 = np.float32
    k = int(partial_rotary_factor * head_dim // 2)
    exponents = np.arange(0, 2 * k, 2).astype(f32) / f32(head_dim)
    turning = f32(1.0) / f32(base) ** exponents  # float32, as torch.float
    return np.concatenate([turning, np.zeros(head_dim // 2 - k, dtype=f32)])
