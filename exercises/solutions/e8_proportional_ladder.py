"""E8, the proportional ladder: default rotary over the whole head, the slow pairs stopped.

Pair i of a head of width d turns at b**(-2i/d), the exponent over the whole head, as in
default rotary. Proportional rotary (Gemma 4's global layers) keeps only the first
k = int(p * d // 2) pairs turning, the fastest, and gives the other d/2 - k speed 0, so
the answer always has d/2 entries.
Check it with:  posenc exercise check E8 exercises/solutions/e8_proportional_ladder.py
"""

import numpy as np


def solve(head_dim, base, partial_rotary_factor):
    d = head_dim
    k = int(partial_rotary_factor * d // 2)  # the pairs that turn, as Transformers counts
    w = base ** (-np.arange(0, d, 2) / d)  # (d/2,): the default ladder, exponent over d
    w[k:] = 0.0  # (d/2,): the slowest d/2 - k pairs stopped
    return w


if __name__ == "__main__":
    print([float(f"{v:.6g}") for v in solve(16, 10000.0, 0.5)])
