"""E7 that takes 1 / w for the wavelength, without the 2 pi."""

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
    wavelength = 1 / w  # the mistake: one turn is 2 pi radians, so 2 pi / w positions
    g = (L0 / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    out = np.where(wavelength > L0 / low_freq_factor, w / factor, w * ((1 - g) / factor + g))
    return np.where(wavelength < L0 / high_freq_factor, w, out)
