"""E7, Llama 3's bands: keep the short wavelengths, divide the long ones, blend between.

Pair i turns at w_i = b**(-2i/d), once every lambda_i = 2 pi / w_i positions. Below
L0 / high_freq_factor the speed is kept, above L0 / low_freq_factor it is divided by s,
and between it is w ((1 - g) / s + g), with g going from 0 at the slow edge to 1 at the
fast one, so that the new speed has no jump at either edge.
Check it with:  posenc exercise check E7 exercises/solutions/e7_llama3_bands.py
"""

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
    d, length = head_dim, original_max_position_embeddings
    w = base ** (-np.arange(0, d, 2) / d)  # (d/2,): the speeds before stretching
    wavelength = 2 * math.pi / w  # (d/2,): positions per turn
    g = (length / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = w * ((1 - g) / factor + g)  # (d/2,): g = 0 gives w / s, g = 1 gives w
    short = wavelength < length / high_freq_factor  # turns often in L0: keep
    long = wavelength > length / low_freq_factor  # turns less than once in L0: divide
    return np.where(short, w, np.where(long, w / factor, blended))  # (d/2,)


if __name__ == "__main__":
    print([float(f"{v:.6g}") for v in solve(16, 500000.0, 8.0, 8192)])
