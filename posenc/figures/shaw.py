"""Figures about Shaw et al.'s clipped relative positions (Proposition 18).

Reference: P. Shaw, J. Uszkoreit, A. Vaswani, "Self-Attention with Relative
Position Representations", NAACL 2018, section 3.2 (arXiv:1803.02155).
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure

from .._validate import integer
from ..relative import shaw_index
from ._style import _DIVERGING, _FONT, _INK, _MINUS, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_shaw_clipping"]

_CURVE, _WINDOW, _EDGE = _OKABE_ITO[0], _OKABE_ITO[2], _OKABE_ITO[1]


def _label(value: int) -> str:
    """An integer with a typographic minus sign."""
    return str(value).replace("-", _MINUS)


def fig_shaw_clipping(length: int = 8, k: int = 2) -> Figure:
    """The clipped offset clip(j - i, k) of Shaw et al.: 2k + 1 values, offsets beyond k merged.

    Left: for a sequence of ``length`` tokens, the clipped offset clip(j - i, k)
    for query i (down) and key j (across), computed by
    ``posenc.relative.shaw_index`` minus k, each cell labelled; one colour per
    learned vector, 2k + 1 colours in all. Right: the clipped offset against the
    offset j - i from -(length - 1) to length - 1. Inside the shaded window
    |j - i| <= k each offset has a vector of its own; outside it the offsets
    share the edge vectors of -k and k (Proposition 18).
    """
    length = integer("length", length, minimum=2)
    k = integer("k", k)
    if k >= length - 1:
        raise ValueError(f"k must be < length - 1 = {length - 1} so that some offset is clipped")
    where = np.arange(length)  # (L,)
    offsets = where[None, :] - where[:, None]  # (L, L): j - i, row i, column j
    clipped = shaw_index(offsets, k) - k  # (L, L): clip(j - i, k)
    reach = np.arange(-(length - 1), length)  # (2L - 1,): every offset of the sequence
    curve = shaw_index(reach, k) - k  # (2L - 1,)

    fig = _figure(3.9)
    grid = fig.add_gridspec(1, 2, width_ratios=[1.0, 1.15])
    ax = fig.add_subplot(grid[0, 0])
    levels = 2 * k + 1
    shades = colormaps[_DIVERGING](np.linspace(0.1, 0.9, levels))  # (2k + 1, 4): one per vector
    colours = ListedColormap([tuple(c) for c in shades])
    norm = BoundaryNorm(np.arange(-k - 0.5, k + 1.5), levels)
    image = ax.imshow(
        clipped,
        cmap=colours,
        norm=norm,
        interpolation="nearest",
        extent=(-0.5, length - 0.5, length - 0.5, -0.5),
    )
    image.set_gid("clip-matrix")
    for i in range(length):
        for j in range(length):
            value = int(clipped[i, j])
            ax.text(
                j,
                i,
                _label(value),
                ha="center",
                va="center",
                fontsize=_SMALL,
                color="white" if abs(value) == k and k > 0 else _INK,
            )
    ax.set_xticks(where)
    ax.set_yticks(where)
    ax.set_xlim(-0.5, length - 0.5)
    ax.set_ylim(length - 0.5, -0.5)  # row 0 at the top, as in a matrix
    ax.tick_params(labelsize=_SMALL)
    ax.set_xlabel("key position j", fontsize=_FONT)
    ax.set_ylabel("query position i", fontsize=_FONT)
    ax.set_title(
        f"clip(j {_MINUS} i, k) for k = {k}: {levels} distinct values",
        fontsize=_SMALL,
        color=_INK,
    )

    side = fig.add_subplot(grid[0, 1])
    side.axvspan(-k - 0.5, k + 0.5, color=_WINDOW, alpha=0.2, lw=0, gid="window")
    side.plot(reach, reach, color=_MUTED, lw=0.8, ls=":", gid="no-clipping")
    side.plot(reach, curve, "o-", color=_CURVE, ms=4, lw=1.4, gid="clip-curve")
    merged = np.abs(reach) > k  # (2L - 1,): offsets that share an edge vector
    side.plot(
        reach[merged],
        curve[merged],
        "o",
        color=_EDGE,
        ms=5,
        ls="none",
        gid="merged",
    )
    side.text(
        0.0,
        k + 1.2,
        f"{levels} vectors",
        ha="center",
        va="bottom",
        fontsize=_SMALL,
        color=_WINDOW,
        fontweight="bold",
    )
    for sign in (-1, 1):
        side.annotate(
            f"share the vector of {_label(sign * k)}",
            (sign * (length - 1), sign * k),
            xytext=(0, -12 * sign),
            textcoords="offset points",
            ha="right" if sign > 0 else "left",
            va="top" if sign > 0 else "bottom",
            fontsize=_SMALL,
            color=_EDGE,
        )
    ticks = range(-(length - 1), length, 2 if length > 6 else 1)
    side.set_xticks(list(ticks), [_label(v) for v in ticks])
    side.set_yticks(range(-k, k + 1), [_label(v) for v in range(-k, k + 1)])
    side.set_xlim(-(length - 1) - 0.8, length - 1 + 0.8)
    side.set_ylim(-k - 2.2, k + 2.2)
    side.tick_params(labelsize=_SMALL)
    side.set_xlabel(f"offset j {_MINUS} i", fontsize=_FONT)
    side.set_ylabel(f"clip(j {_MINUS} i, k)", fontsize=_FONT)
    side.set_title(
        f"inside |j {_MINUS} i| \u2264 {k}: one vector each;\nbeyond: the edge vector",
        fontsize=_SMALL,
        color=_INK,
    )
    return fig
