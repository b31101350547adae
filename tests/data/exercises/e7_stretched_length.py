"""E7 with the band edges taken from the stretched length factor * L0."""

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
    length = factor * original_max_position_embeddings  # the mistake: the stretched length
    w = base ** (-np.arange(0, head_dim, 2) / head_dim)
    wavelength = 2 * math.pi / w
    g = (length / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = np.where(wavelength > length / low_freq_factor, w / factor, w * ((1 - g) / factor + g))
    return np.where(wavelength < length / high_freq_factor, w, out)
