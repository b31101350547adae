"""Figures about the clocks: the sinusoidal code (Proposition 5) and its shifts (Proposition 8)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..encoding import frequencies, shift_matrix, sinusoidal, wavelengths
from ._style import _DIVERGING, _FONT, _INK, _MINUS, _MUTED, _OKABE_ITO, _SMALL, _figure, _number

__all__ = ["fig_clock_bank", "fig_shift_rotation"]

# Proposition 5: the sinusoidal code is a bank of clocks


def fig_clock_bank(length: int = 40, width: int = 32, pairs: Sequence[int] = (0, 2, 6)) -> Figure:
    """The sinusoidal code as a heatmap, with three of its dimensions drawn as waves beneath.

    Top: ``posenc.sinusoidal(length, width)``, positions left to right,
    dimensions top to bottom (even rows are sines, odd rows cosines), values in
    [-1, 1]. Beneath: the sine dimension 2i of each pair i in ``pairs``,
    as a continuous curve sin(w_i t) with the table's values at the integer
    positions marked; each is labelled with its wavelength 2 pi / w_i. Fast
    pairs separate neighbours, slow pairs separate distant regions
    (Proposition 5).
    """
    half = width // 2
    if any(not 0 <= i < half for i in pairs):
        raise ValueError(f"pairs must lie in 0..{half - 1} for width {width}, got {pairs}")
    table = sinusoidal(length, width)  # (L, d)
    omega = frequencies(width)  # (d/2,)
    lam = wavelengths(width)  # (d/2,)
    t = np.linspace(-0.5, length - 0.5, 40 * max(length, 1) + 1)  # (T,): fine grid
    positions = np.arange(length)  # (L,)
    dims = [2 * i for i in pairs]

    fig = _figure(5.2)
    grid = fig.add_gridspec(
        1 + len(pairs), 2, width_ratios=[1.0, 0.025], height_ratios=[3.2] + [1.0] * len(pairs)
    )
    heat = fig.add_subplot(grid[0, 0])
    image = heat.imshow(
        table.T,  # (d, L): one row per dimension
        cmap=_DIVERGING,
        vmin=-1.0,
        vmax=1.0,
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, length - 0.5, width - 0.5, -0.5),
    )
    image.set_gid("sinusoidal-table")
    colorbar = fig.colorbar(image, cax=fig.add_subplot(grid[0, 1]), ticks=[-1, 0, 1])
    colorbar.ax.tick_params(labelsize=_SMALL)
    colorbar.set_label("value", fontsize=_SMALL)
    colours = [_OKABE_ITO[n % len(_OKABE_ITO)] for n in range(len(pairs))]
    # Long coloured ticks on both sides point at the rows drawn as waves below.
    heat.set_yticks(dims, [f"dim {d}" for d in dims], fontsize=_SMALL, fontweight="bold")
    heat.tick_params(axis="y", length=9, width=3, left=True, right=True)
    for tick, colour in zip(heat.yaxis.get_major_ticks(), colours, strict=True):
        tick.label1.set_color(colour)
        tick.tick1line.set_markeredgecolor(colour)
        tick.tick2line.set_markeredgecolor(colour)
    heat.set_ylabel("dimension", fontsize=_FONT)
    heat.set_title(
        f"sinusoidal code, {length} positions \u00d7 {width} dimensions"
        " (even rows sin, odd rows cos)",
        fontsize=_FONT,
        color=_INK,
    )
    heat.tick_params(labelbottom=False, labelsize=_SMALL)

    for row, (i, dim, colour) in enumerate(zip(pairs, dims, colours, strict=True), start=1):
        ax = fig.add_subplot(grid[row, 0], sharex=heat)
        ax.axhline(0.0, color=_MUTED, lw=0.6)
        ax.plot(t, np.sin(omega[i] * t), color=colour, lw=1.6)
        ax.plot(positions, table[:, dim], "o", color=colour, ms=3.2, gid=f"samples-dim-{dim}")
        ax.set_ylim(-1.25, 1.25)
        ax.set_yticks([-1, 1], [f"{_MINUS}1", "1"])
        ax.tick_params(labelsize=_SMALL, labelbottom=row == len(pairs))
        ax.set_ylabel(
            f"dim {dim}, sin\n\u03bb = {lam[i]:.4g}",
            color=colour,
            fontweight="bold",
            rotation=0,
            ha="right",
            va="center",
            fontsize=_SMALL,
        )
    ax.set_xlabel("position", fontsize=_FONT)
    heat.set_xlim(-0.5, length - 0.5)
    fig.align_ylabels()
    return fig


# ---------------------------------------------------------------------------
# Proposition 8: a shift of position is a rotation of every pair


def _point(theta: np.ndarray | float, radius: float = 1.0) -> np.ndarray:
    """Where angle ``theta`` sits in the (sin, cos) plane: (r sin theta, r cos theta)."""
    theta = np.asarray(theta, dtype=np.float64)
    return radius * np.stack([np.sin(theta), np.cos(theta)], axis=-1)  # (..., 2)


def _turn(ax: Axes, start: float, stop: float, radius: float, colour: str, gid: str) -> None:
    """An arc with an arrowhead, from angle ``start`` to ``stop``, drawn at ``radius``."""
    arc = _point(np.linspace(start, stop, 200), radius)  # (200, 2)
    ax.plot(arc[:-4, 0], arc[:-4, 1], color=colour, lw=2.2, gid=gid, solid_capstyle="round")
    ax.annotate(
        "",
        xy=tuple(arc[-1]),
        xytext=tuple(arc[-5]),
        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.2, "mutation_scale": 14},
    )


_CELL_W, _CELL_H = 0.19, 0.085  # one matrix entry, in axes fractions of the text panel


def _matrix(
    ax: Axes, x: float, y: float, entries: np.ndarray, caption: str, colour: str = _INK
) -> float:
    """Write ``entries`` (rows, cols) in brackets, top-left at (x, y), captioned below.

    Returns the right edge, so the next term of an equation can follow it.
    """
    rows, cols = entries.shape
    for (r, c), v in np.ndenumerate(entries):
        ax.text(
            x + (c + 0.5) * _CELL_W,
            y - (r + 0.5) * _CELL_H,
            _number(v, 3),
            ha="center",
            va="center",
            fontsize=_FONT,
            color=colour,
        )
    right = x + cols * _CELL_W
    bottom = y - rows * _CELL_H
    for edge, serif in ((x, 0.015), (right, -0.015)):
        ax.plot([edge + serif, edge, edge, edge + serif], [y, y, bottom, bottom], color=_INK, lw=1)
    ax.text(
        (x + right) / 2,
        bottom - 0.03,
        caption,
        ha="center",
        va="top",
        fontsize=_SMALL,
        color=colour,
    )
    return right


def _operator(ax: Axes, x: float, y: float, symbol: str) -> float:
    """Write a binary operator centred in a gap after ``x``; return where the next term starts."""
    gap = 0.07
    ax.text(x + gap / 2, y, symbol, ha="center", va="center", fontsize=12, color=_INK)
    return x + gap


def fig_shift_rotation(pair: int = 0, width: int = 8, pos: int = 2, k: int = 3) -> Figure:
    """Shifting by k positions turns a sinusoidal pair by the same angle w_i k from any start.

    Left: the unit circle of pair ``pair``, in the pair's own coordinate order
    (PE[2i], PE[2i+1]) = (sin(w_i pos), cos(w_i pos)), sine on the horizontal
    axis and cosine on the vertical, so position 0 sits at the top and
    positions advance clockwise. Dots are the library's table for positions
    0, 1, 2, ...; PE(pos) and PE(pos + k) are highlighted, joined by an arc of
    angle w_i k. A second start is moved by the same arc. Right: the 2x2 block
    of ``posenc.shift_matrix(k, width)`` for this pair, applied to both starts
    (Proposition 8).
    """
    if not 0 <= pair < width // 2:
        raise ValueError(f"pair must lie in 0..{width // 2 - 1} for width {width}, got {pair}")
    other = 0 if pos != 0 else k  # a second starting position
    last = max(pos, other) + k
    cols = slice(2 * pair, 2 * pair + 2)
    code = sinusoidal(last + 1, width)[:, cols]  # (last+1, 2): (sin, cos) per position
    block = shift_matrix(k, width)[cols, cols]  # (2, 2): [[cos a, sin a], [-sin a, cos a]]
    omega = float(frequencies(width)[pair])
    angle = omega * k

    fig = _figure(4.0)
    grid = fig.add_gridspec(1, 2, width_ratios=[1.0, 1.05])
    ax = fig.add_subplot(grid[0, 0])
    circle = _point(np.linspace(0.0, 2.0 * np.pi, 361))  # (361, 2)
    ax.plot(circle[:, 0], circle[:, 1], color=_MUTED, lw=0.8)
    ax.axhline(0.0, color=_MUTED, lw=0.5, ls=":")
    ax.axvline(0.0, color=_MUTED, lw=0.5, ls=":")
    ax.plot(code[:, 0], code[:, 1], "o", color=_INK, ms=4.5, gid="positions")
    for p, (s, c) in enumerate(code):
        ax.annotate(
            str(p),
            (s, c),
            xytext=(s * 1.17, c * 1.17),
            ha="center",
            va="center",
            fontsize=_SMALL,
            color=_INK,
        )

    main, second = _OKABE_ITO[1], _OKABE_ITO[0]
    for start, colour, radius, gid in ((pos, main, 0.72, "turn"), (other, second, 0.5, "turn-2")):
        _turn(ax, omega * start, omega * (start + k), radius, colour, gid)
        for end in (start, start + k):  # spokes from the centre make the angle visible
            ax.plot([0.0, code[end, 0]], [0.0, code[end, 1]], color=colour, lw=0.9, ls="--")
        ends = code[[start, start + k]]  # (2, 2)
        ax.plot(ends[:, 0], ends[:, 1], "o", color=colour, ms=9, mfc="none", mew=2.0)
    ax.plot(*code[pos], "o", color=main, ms=6, gid="pe-start")
    ax.plot(*code[pos + k], "o", color=main, ms=6, gid="pe-end")

    mid = _point(omega * (pos + k / 2.0), 0.72 - 0.2)  # (2,)
    ax.text(*mid, rf"$\omega_{{{pair}}} k$", ha="center", va="center", fontsize=_FONT, color=main)
    ax.set_aspect("equal")
    ax.set_xlim(-1.32, 1.32)
    ax.set_ylim(-1.32, 1.32)
    ax.set_xticks([-1, 0, 1], [f"{_MINUS}1", "0", "1"])
    ax.set_yticks([-1, 0, 1], [f"{_MINUS}1", "0", "1"])
    ax.tick_params(labelsize=_SMALL)
    ax.set_xlabel(
        rf"$\mathrm{{PE}}_{{{2 * pair}}} = \sin(\omega_{{{pair}}}\,\mathit{{pos}})$",
        fontsize=_FONT,
    )
    ax.set_ylabel(
        rf"$\mathrm{{PE}}_{{{2 * pair + 1}}} = \cos(\omega_{{{pair}}}\,\mathit{{pos}})$",
        fontsize=_FONT,
    )
    ax.set_title(f"pair {pair} of width {width}, positions 0\u2013{last}", fontsize=_FONT)

    text = fig.add_subplot(grid[0, 1])
    text.set_axis_off()
    text.set_xlim(0.0, 1.0)
    text.set_ylim(0.0, 1.0)
    text.text(
        0.0,
        0.97,
        f"shift by k = {k}: rotation by $\\omega_{{{pair}}} k$ = {_number(angle, 3)} rad",
        fontsize=_FONT,
        va="top",
        color=_INK,
    )
    text.text(
        0.0,
        0.87,
        f"block of $M_{{{k}}}$ for pair {pair}, the same for every start:",
        fontsize=_SMALL,
        va="top",
        color=_MUTED,
    )
    for top, start, colour in ((0.74, pos, main), (0.36, other, second)):
        middle = top - _CELL_H
        moved = block @ code[start]  # (2,): M_k PE(start), equals the table's PE(start + k)
        right = _matrix(text, 0.0, top, block, rf"$M_{{{k}}}$, pair {pair}")
        right = _matrix(
            text,
            _operator(text, right, middle, "\u00d7"),
            top,
            code[start][:, None],
            f"PE({start})",
            colour,
        )
        _matrix(
            text,
            _operator(text, right, middle, "="),
            top,
            moved[:, None],
            f"PE({start + k})",
            colour,
        )
    return fig
