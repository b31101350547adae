"""E7 that compares each speed, not each wavelength, with the band edges."""

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
    freqs = base ** (-np.arange(0, head_dim, 2) / head_dim)
    out = []
    for f in freqs:
        if f < L0 / high_freq_factor:  # the mistake: f is a speed, the edge a wavelength
            out.append(f)
        elif f > L0 / low_freq_factor:
            out.append(f / factor)
        else:
            g = (L0 * f / (2 * np.pi) - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append(f * ((1 - g) / factor + g))
    return np.array(out)
