"""E6 whose last entry is the cache factor 0.1 ln s + 1, not its square."""

import math

import numpy as np


def find_dim(rot, dim, base, max_pos):
    return dim * math.log(max_pos / (rot * 2 * math.pi)) / (2 * math.log(base))


def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    inv_freq = 1.0 / base ** (np.arange(0, head_dim, 2) / head_dim)
    low = max(math.floor(find_dim(beta_fast, head_dim, base, original_max_position_embeddings)), 0)
    high = math.ceil(find_dim(beta_slow, head_dim, base, original_max_position_embeddings))
    high = min(high, head_dim - 1)
    ramp = np.clip((np.arange(head_dim // 2) - low) / (high - low), 0, 1)
    new = inv_freq * (1 - ramp) + inv_freq / factor * ramp
    return [*new, 0.1 * math.log(factor) + 1]  # the mistake: the logits gain its square
