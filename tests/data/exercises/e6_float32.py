"""E6 computed in float32, as a PyTorch implementation would by default."""

import math

import numpy as np


def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    d, L0 = head_dim, original_max_position_embeddings
    low = math.floor(d * math.log(L0 / (beta_fast * 2 * math.pi)) / (2 * math.log(base)))
    high = math.ceil(d * math.log(L0 / (beta_slow * 2 * math.pi)) / (2 * math.log(base)))
    low, high = max(low, 0), min(high, d - 1)
    f32 = np.float32
    w = f32(1) / f32(base) ** (np.arange(0, d, 2, dtype=f32) / f32(d))  # the mistake: float32
    ramp = np.clip((np.arange(d // 2, dtype=f32) - f32(low)) / f32(high - low), 0, 1)
    extrapolation = f32(1) - ramp
    speeds = w / f32(factor) * (f32(1) - extrapolation) + w * extrapolation
    return np.append(speeds, f32((0.1 * math.log(factor) + 1) ** 2))
