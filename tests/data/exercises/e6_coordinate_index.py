"""E6 whose correction dimension lacks the 2 of 2 ln b: a coordinate, not a pair."""

import math

import numpy as np


def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    d, L0 = head_dim, original_max_position_embeddings
    low = math.floor(d * math.log(L0 / (beta_fast * 2 * math.pi)) / math.log(base))  # the mistake
    high = math.ceil(d * math.log(L0 / (beta_slow * 2 * math.pi)) / math.log(base))
    low, high = max(low, 0), min(high, d - 1)
    w = base ** (-np.arange(0, d, 2) / d)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    speeds = w * (1 - ramp) + w / factor * ramp
    return np.append(speeds, (0.1 * math.log(factor) + 1) ** 2)
