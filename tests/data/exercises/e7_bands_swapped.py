"""E7 that turns the edges into speeds but keeps the comparisons made for wavelengths."""

import math

import numpy as np


def solve(
    head_dim,
    base,
    factor,
    original_max_position_embeddings,
    low_freq_factor=1.0,
    high_freq_factor=4.0,
):
    L0 = original_max_position_embeddings
    w = base ** (-np.arange(0, head_dim, 2) / head_dim)
    high_freq = 2 * math.pi * high_freq_factor / L0  # the speed at the fast edge
    low_freq = 2 * math.pi * low_freq_factor / L0  # the speed at the slow edge
    g = (L0 * w / (2 * math.pi) - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = w * ((1 - g) / factor + g)
    # the mistake: "below the edge" meant a short wavelength, and now means a slow pair
    return np.where(w < high_freq, w, np.where(w > low_freq, w / factor, blended))
