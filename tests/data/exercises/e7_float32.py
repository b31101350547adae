"""E7 computed in float32, as a PyTorch implementation would by default."""

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
    f32 = np.float32
    L0 = f32(original_max_position_embeddings)
    w = f32(1) / f32(base) ** (np.arange(0, head_dim, 2, dtype=f32) / f32(head_dim))  # float32
    wavelength = f32(2 * math.pi) / w
    low, high, s = f32(low_freq_factor), f32(high_freq_factor), f32(factor)
    g = (L0 / wavelength - low) / (high - low)
    out = np.where(wavelength > L0 / low, w / s, (f32(1) - g) * w / s + g * w)
    return np.where(wavelength < L0 / high, w, out)
