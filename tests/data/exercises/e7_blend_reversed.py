"""E7 with the two weights of the blend swapped."""

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
    wavelength = 2 * math.pi / w
    g = (L0 / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = g * w / factor + (1 - g) * w  # the mistake: g belongs with w, 1 - g with w / s
    out = np.where(wavelength > L0 / low_freq_factor, w / factor, blended)
    return np.where(wavelength < L0 / high_freq_factor, w, out)
