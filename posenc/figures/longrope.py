"""Figures about LongRoPE: per-pair factors, two lists switched at L0 (Proposition 29).

Reference: Y. Ding et al., "LongRoPE: Extending LLM Context Window Beyond 2 Million
Tokens", arXiv:2402.13753 (2024). The lists drawn are Microsoft's, from
Phi-3.5-mini-instruct's config (data/configs/phi-3.5-mini-instruct.json).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_longrope_switch"]

_CONFIG = Path(__file__).resolve().parents[2] / "data/configs/phi-3.5-mini-instruct.json"
_SHORT, _LONG = _OKABE_ITO[0], _OKABE_ITO[1]  # blue, vermillion


def _check_length(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**20:
        raise ValueError(f"{name} must be an integer in [1, 2**20], got {value!r}")
    return value


def fig_longrope_switch(before: int = 4096, after: int = 4097) -> Figure:
    """LongRoPE's two factor lists, and the speeds a cache holds at two lengths.

    Left: ``short_factor`` and ``long_factor`` of Phi-3.5-mini's config, pair by pair, on
    a log axis, with the single factor s = 32 of position interpolation dashed. Right:
    the wavelength 2 pi / speed of every pair, from ``posenc.rope`` at the current lengths
    ``before`` and ``after`` (by default 4096 = L0 and 4097), and without scaling.
    """
    before = _check_length("before", before)
    after = _check_length("after", after)
    spec = rope.read_config(_CONFIG)
    short = np.asarray(spec.params["short_factor"], dtype=np.float64)  # (48,)
    long = np.asarray(spec.params["long_factor"], dtype=np.float64)  # (48,)
    l0 = spec.params["original_max_position_embeddings"]
    s = spec.params["max_position_embeddings"] / l0
    pairs = np.arange(short.size)  # (48,)

    fig = _figure(4.0)
    left, right = fig.subplots(1, 2)
    left.plot(pairs, short, "o", ms=3.0, color=_SHORT, gid="short", label="short_factor")
    left.plot(pairs, long, "o", ms=3.0, color=_LONG, gid="long", label="long_factor")
    left.axhline(s, color=_MUTED, lw=0.9, ls="--", gid="uniform")
    left.text(0.5, s * 1.1, f"PI: $s = {s:g}$ for every pair", fontsize=_SMALL, color=_MUTED)
    left.set_yscale("log")
    left.set_xlabel("pair $i$", fontsize=_FONT)
    left.set_ylabel(r"factor $\lambda_i$", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="lower right", fontsize=_SMALL, frameon=False)
    left.set_title("one factor per pair, two lists", fontsize=_SMALL, color=_INK)

    plain = rope.default_inv_freq(spec.head_dim, spec.base)  # (48,)
    right.plot(
        pairs, rope.wavelengths(plain), color=_MUTED, lw=1.0, gid="unscaled", label="unscaled"
    )
    for length, colour, marker in ((before, _SHORT, "o"), (after, _LONG, "s")):
        speeds, _ = spec.inv_freq(seq_len=length)  # (48,)
        right.plot(
            pairs,
            rope.wavelengths(speeds),
            marker,
            ms=3.0,
            color=colour,
            gid=f"length-{length}",
            label=f"current length {length}",
        )
    right.set_yscale("log")
    right.set_xlabel("pair $i$", fontsize=_FONT)
    right.set_ylabel(r"wavelength $2\pi\lambda_i/\theta_i$ (positions)", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper left", fontsize=_SMALL, frameon=False)
    right.set_title(f"the list switches above $L_0 = {l0}$", fontsize=_SMALL, color=_INK)
    return fig
