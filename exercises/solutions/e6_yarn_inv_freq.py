"""E6, YaRN's speeds: keep the fast pairs, divide the slow ones by s, ramp between.

Pair j turns at w_j = b**(-2j/d). The pair that turns rho times in the training length
L0 is c(rho) = d ln(L0 / (2 pi rho)) / (2 ln b). Between floor(c(beta_fast)) and
ceil(c(beta_slow)) a ramp t rises from 0 to 1 in the pair index, and the new speed is
w (1 - t) + (w / s) t. Both caches carry 0.1 ln s + 1, so the logits gain its square.
Check it with:  posenc exercise check E6 exercises/solutions/e6_yarn_inv_freq.py
"""

import math

import numpy as np


def correction_dim(rotations, head_dim, base, length):
    # pair c turns length * b**(-2c/d) / (2 pi) times; solve that for c
    return head_dim * math.log(length / (2 * math.pi * rotations)) / (2 * math.log(base))


def solve(head_dim, base, factor, original_max_position_embeddings, beta_fast=32, beta_slow=1):
    d, length = head_dim, original_max_position_embeddings
    w = base ** (-np.arange(0, d, 2) / d)  # (d/2,): the speeds before stretching
    low = math.floor(correction_dim(beta_fast, d, base, length))  # turns > beta_fast: keep
    high = math.ceil(correction_dim(beta_slow, d, base, length))  # turns < beta_slow: divide
    low, high = max(low, 0), min(high, d - 1)  # the reference code clips to [0, d - 1]
    if high == low:
        high += 0.001  # as the reference code does, so that the ramp has a width
    t = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)  # (d/2,): 0 keep, 1 divide
    speeds = w * (1 - t) + (w / factor) * t  # (d/2,)
    logits = (0.1 * math.log(factor) + 1) ** 2  # the cache factor, once on q and once on k
    return np.append(speeds, logits)  # (d/2 + 1,)


if __name__ == "__main__":
    print([float(f"{v:.6g}") for v in solve(16, 10000.0, 4.0, 2048)])
