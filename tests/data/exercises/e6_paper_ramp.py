"""E6 with the paper's ramp, linear in the rotation count r = L0 / wavelength."""

import math

import numpy as np


def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    alpha, beta = beta_slow, beta_fast
    theta = base ** (-np.arange(0, head_dim, 2) / head_dim)
    r = original_max_position_embeddings / (2 * math.pi / theta)  # turns in L0
    gamma = np.clip((r - alpha) / (beta - alpha), 0, 1)  # 1: keep, 0: interpolate
    speeds = (1 - gamma) * theta / factor + gamma * theta
    return np.append(speeds, (0.1 * math.log(factor) + 1) ** 2)
