"""Figures about proportional rotary (Gemma 4's global layers) against NeoX partial (Prop. 31).

Both schemes read ``partial_rotary_factor`` p. Proportional rotary turns the first
``floor(p d / 2)`` pairs of a width-``d`` head at ``b**(-2i/d)``, the exponent over the
whole head, and stops the rest; pair ``i`` is the coordinates ``(i, i + d/2)``. NeoX
partial rotary turns the first ``r = floor(p d)`` coordinates at ``b**(-2i/r)``, pair ``i``
being ``(i, i + r/2)``, and passes the other ``d - r`` through.

Reference: Hugging Face Transformers 5.24, ``_compute_proportional_rope_parameters`` and
``_compute_default_rope_parameters`` in ``modeling_rope_utils.py``.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_proportional_ladders"]

_PROPORTIONAL = _OKABE_ITO[0]
_PARTIAL = _OKABE_ITO[1]


def _coordinate_waves(speeds: np.ndarray, width: int) -> np.ndarray:
    """The wavelength of the pair each of ``width`` coordinates belongs to, NaN if it passes.

    ``speeds`` are those of the pairs ``(i, i + len(speeds))`` of the first
    ``2 len(speeds)`` coordinates (the split-half layout); a pair of speed 0 and every
    coordinate past ``2 len(speeds)`` pass through.
    """
    waves = np.full(width, np.nan)  # (width,)
    pairs = speeds.size
    turning = speeds > 0  # (pairs,)
    per_pair = np.full(pairs, np.nan)
    per_pair[turning] = rope.wavelengths(speeds[turning])
    waves[:pairs] = per_pair
    waves[pairs : 2 * pairs] = per_pair
    return waves


def _base_tex(base: float) -> str:
    """``10^{6}`` for a power of ten, else the number as ``%g`` writes it."""
    exponent = round(math.log10(base))
    return f"10^{{{exponent}}}" if 10.0**exponent == base else f"{base:g}"


def fig_proportional_ladders(
    head_dim: int = 256, partial_rotary_factor: float = 0.25, base: float = 1.0e6
) -> Figure:
    """Proportional and NeoX partial rotary with one factor: their ladders and their coordinates.

    Left: the wavelength ``2 pi / w_i`` of pair ``i`` on a log axis. Grey: default rotary
    over the whole head. Blue: proportional rotary, which keeps the first
    ``floor(p d / 2)`` of those grey rungs and stops the rest (crosses along the top).
    Orange: NeoX partial rotary, whose ``floor(p d) / 2`` pairs climb the ladder of a head
    of width ``floor(p d)``. Right: for each of the ``d`` coordinates of the head, the
    wavelength of the pair it belongs to (colour, log scale) or light grey where it passes
    through unturned; the top strip is proportional (pairs ``(i, i + d/2)``), the bottom
    one NeoX partial (pairs ``(i, i + r/2)`` inside the first ``r``). All speeds come from
    :func:`posenc.rope.inv_freq`.
    """
    proportional, _ = rope.inv_freq(
        "proportional", head_dim, base=base, partial_rotary_factor=partial_rotary_factor
    )  # (d/2,)
    partial, _ = rope.inv_freq(
        "default", head_dim, base=base, partial_rotary_factor=partial_rotary_factor
    )  # (r/2,)
    whole = rope.default_inv_freq(head_dim, base)  # (d/2,)
    pairs = np.arange(whole.size)  # (d/2,)
    turning = proportional > 0  # (d/2,)

    fig = _figure(4.0)
    left, right = fig.subplots(1, 2, width_ratios=(1.0, 1.15))
    left.plot(
        pairs,
        rope.wavelengths(whole),
        color=_MUTED,
        lw=1.0,
        gid="default-whole-head",
        label="default, whole head",
    )
    left.plot(
        pairs[turning],
        rope.wavelengths(proportional[turning]),
        "o",
        ms=3.0,
        color=_PROPORTIONAL,
        gid="proportional-turning",
        label="proportional, turning",
    )
    left.plot(
        np.arange(partial.size),
        rope.wavelengths(partial),
        "s",
        ms=2.6,
        color=_PARTIAL,
        gid="partial-turning",
        label="NeoX partial",
    )
    top = blended_transform_factory(left.transData, left.transAxes)
    left.plot(
        pairs[~turning],
        np.full(int(np.sum(~turning)), 0.97),
        "|",
        ms=4.0,
        mew=0.6,
        color=_PROPORTIONAL,
        transform=top,
        gid="proportional-stopped",
        label="proportional, stopped",
    )
    left.set_yscale("log")
    left.set_xlabel("pair $i$", fontsize=_FONT)
    left.set_ylabel(r"wavelength $2\pi/\omega_i$ (positions)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="upper left", bbox_to_anchor=(0.24, 0.93), fontsize=_SMALL - 1, frameon=False)
    left.set_title(
        f"$d = {head_dim}$, $p = {partial_rotary_factor:g}$, $b = {_base_tex(base)}$",
        fontsize=_SMALL,
        color=_INK,
    )

    strips = np.vstack(
        [_coordinate_waves(proportional, head_dim), _coordinate_waves(partial, head_dim)]
    )  # (2, d)
    cmap = colormaps["viridis"].with_extremes(bad="#e6e6e6")
    finite = strips[np.isfinite(strips)]
    image = right.imshow(
        np.ma.masked_invalid(strips),
        cmap=cmap,
        norm=LogNorm(vmin=finite.min(), vmax=finite.max()),
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, head_dim - 0.5, 1.5, -0.5),
        gid="coordinates",
    )
    right.set_yticks([0, 1], ["proportional", "NeoX partial"], fontsize=_SMALL)
    right.set_xlabel("coordinate (grey: passes through)", fontsize=_FONT)
    right.tick_params(axis="x", labelsize=_SMALL)
    right.set_title("which coordinates turn, and how slowly", fontsize=_SMALL, color=_INK)
    bar = fig.colorbar(image, ax=right, location="bottom", shrink=0.9, pad=0.02)
    bar.ax.tick_params(labelsize=_SMALL)
    bar.set_label("wavelength of the coordinate's pair (positions)", fontsize=_SMALL)
    return fig
