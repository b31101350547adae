"""Figures about Llama 3's scaling: three bands, continuous at both edges (Proposition 28).

Reference: A. Grattafiori et al., "The Llama 3 Herd of Models", arXiv:2407.21783
(2024); the scaling itself is ``apply_scaling`` in Meta's reference code
(github.com/meta-llama/llama-models), not described in the paper.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_llama3_scaling"]

# Llama 3.1's rotary configuration (its config.json and Meta's reference code).
_HEAD_DIM = 128
_BASE = 500000.0
_L0 = 8192
_LOW_FF, _HIGH_FF = 1.0, 4.0
#: A wide head whose 2048 pairs sample the scaling densely, as a curve in the wavelength.
_DENSE = 4096

_BEFORE, _AFTER, _OTHER = _OKABE_ITO[0], _OKABE_ITO[1], _OKABE_ITO[2]  # blue, vermillion, green
_SHADES = {"high": "#f2f2f2", "blend": "#fde3c8", "low": "#dceaf6"}
_NAMES = {"high": "unchanged", "blend": "blended"}


def _check_factor(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 < value <= 64:
        raise ValueError(f"{name} must be a number in (1, 64], got {value!r}")
    return float(value)


def _scaled(head_dim: int, factor: float) -> np.ndarray:
    """Llama 3's speeds for a head of ``head_dim`` with Llama 3.1's base, L0 and bands."""
    speeds, _ = rope.inv_freq(
        "llama3",
        head_dim,
        base=_BASE,
        factor=factor,
        original_max_position_embeddings=_L0,
        low_freq_factor=_LOW_FF,
        high_freq_factor=_HIGH_FF,
    )
    return speeds  # (head_dim // 2,)


def fig_llama3_scaling(factor: float = 8.0, other_factor: float = 32.0) -> Figure:
    """Llama 3.1's wavelengths before and after its scaling, in three bands, and theta'/theta.

    Left: the wavelength 2 pi / theta of each of the 64 pairs of a 128-wide head (base
    5e5) before the scaling and after it with factor ``factor``, on a log axis; the
    bands of ``posenc.rope.llama3_bands`` shaded, and the edges L0/4 and L0 (L0 = 8192)
    dashed. Right: the factor theta'/theta against the old wavelength, from the 2048
    pairs of a 4096-wide head with the same base (a dense sample of the same function),
    for ``factor`` and ``other_factor``: 1 below L0/4, 1/s above L0, a continuous blend
    between; the 64 pairs of the left panel as dots.
    """
    factor = _check_factor("factor", factor)
    other_factor = _check_factor("other_factor", other_factor)
    plain = rope.default_inv_freq(_HEAD_DIM, _BASE)  # (64,)
    scaled = _scaled(_HEAD_DIM, factor)  # (64,)
    bands = rope.llama3_bands(
        _HEAD_DIM,
        base=_BASE,
        factor=factor,
        original_max_position_embeddings=_L0,
        low_freq_factor=_LOW_FF,
        high_freq_factor=_HIGH_FF,
    )  # (64,)
    edges = (_L0 / _HIGH_FF, _L0 / _LOW_FF)
    pairs = np.arange(plain.size)  # (64,)

    fig = _figure(4.3)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
    for kind in ("high", "blend", "low"):
        members = pairs[bands == kind]
        left.axvspan(
            members[0] - 0.5,
            members[-1] + 0.5,
            color=_SHADES[kind],
            lw=0,
            zorder=0,
            gid=f"band-{kind}",
        )
        left.text(
            (members[0] + members[-1]) / 2,
            3.6,
            f"divided by {factor:g}" if kind == "low" else _NAMES[kind],
            ha="center",
            va="bottom",
            rotation=90 if kind == "blend" else 0,
            fontsize=_SMALL,
            color=_INK,
        )
    left.plot(
        pairs,
        rope.wavelengths(plain),
        "o",
        ms=3.0,
        mfc="white",
        mec=_BEFORE,
        mew=1.0,
        gid="before",
        label="before",
    )
    left.plot(
        pairs, rope.wavelengths(scaled), "o", ms=2.6, color=_AFTER, gid="after", label="after"
    )
    for value, gid, text in ((edges[0], "edge-high", "$L_0/4$"), (edges[1], "edge-low", "$L_0$")):
        left.axhline(value, color=_MUTED, lw=0.9, ls="--", gid=gid)
        left.text(0.5, value * 1.15, text, fontsize=_SMALL, color=_MUTED, va="bottom")
    left.set_yscale("log")
    left.set_xlim(-0.5, pairs[-1] + 0.5)
    left.set_ylim(3.0, 2.0e7)
    left.set_xlabel("pair $i$", fontsize=_FONT)
    left.set_ylabel(r"wavelength $2\pi/\theta_i$ (positions)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="center right", fontsize=_SMALL, frameon=False)
    left.set_title(f"Llama 3.1, $d = {_HEAD_DIM}$, $s = {factor:g}$", fontsize=_SMALL, color=_INK)

    dense = rope.default_inv_freq(_DENSE, _BASE)  # (2048,)
    waves = rope.wavelengths(dense)  # (2048,)
    right.axvspan(*edges, color=_SHADES["blend"], lw=0, zorder=0, gid="blend-window")
    # L0/4 is labelled on its left (the plateau at 1), L0 on its right (the plateau 1/s).
    for value, gid, text, side in (
        (edges[0], "window-high", "$L_0/4$", "right"),
        (edges[1], "window-low", "$L_0$", "left"),
    ):
        right.axvline(value, color=_MUTED, lw=0.9, ls="--", gid=gid)
        nudge = 1.08 if side == "left" else 1 / 1.08
        right.text(value * nudge, 0.6, text, fontsize=_SMALL, color=_MUTED, ha=side, va="center")
    for s, colour, style in ((factor, _AFTER, "-"), (other_factor, _OTHER, (0, (4, 2)))):
        right.plot(
            waves,
            _scaled(_DENSE, s) / dense,  # theta'/theta
            color=colour,
            lw=1.6,
            ls=style,
            gid=f"factor-{s:g}",
            label=f"$s = {s:g}$",
        )
    right.plot(
        rope.wavelengths(plain),
        scaled / plain,
        "o",
        ms=3.2,
        color=_AFTER,
        mec="white",
        mew=0.5,
        gid="pairs",
        label=f"the {plain.size} pairs, $s = {factor:g}$",
        zorder=3,
    )
    right.set_xscale("log", base=2)
    right.set_xlim(2.0**8, 2.0**16)
    ticks = [2**k for k in range(8, 17, 2)]
    right.set_xticks(ticks, [f"{t:,}" for t in ticks])
    right.set_ylim(0.0, 1.08)
    right.set_xlabel(r"old wavelength $2\pi/\theta$ (log scale)", fontsize=_FONT)
    right.set_ylabel(r"new speed / old speed, $\theta'/\theta$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper right", fontsize=_SMALL, frameon=False)
    right.set_title("the same edges for every $s$", fontsize=_SMALL, color=_INK)
    return fig
