"""Figures about the training length: how much of each clock training showed (Proposition 10)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..encoding import frequencies, sinusoidal, wavelengths
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_seen_arcs"]

_SEEN = _OKABE_ITO[0]  # blue: angles shown in training
_UNSEEN = "#d9d9d9"  # light grey: the rest of the circle
_TWICE = _OKABE_ITO[1]  # vermillion: position 2L
_FOUR = _OKABE_ITO[3]  # reddish purple: position 4L


def _point(theta: np.ndarray | float, radius: float = 1.0) -> np.ndarray:
    """Where angle ``theta`` sits in the (sin, cos) plane: 0 at the top, turning clockwise."""
    theta = np.asarray(theta, dtype=np.float64)
    return radius * np.stack([np.sin(theta), np.cos(theta)], axis=-1)  # (..., 2)


def _seen_fractions(width: int, length: int) -> np.ndarray:
    """min(1, (L-1) / lambda_i): the share of each circle that positions 0..L-1 sweep."""
    return np.minimum(1.0, (length - 1) / wavelengths(width))  # (d/2,)


def _lands_on_seen_arc(position: int, omega: float, length: int) -> bool:
    """Whether ``position`` puts the pair at an angle within the arc swept by 0..L-1."""
    sweep = (length - 1) * omega
    return bool(sweep >= 2.0 * np.pi or (position * omega) % (2.0 * np.pi) <= sweep)


def _bars(ax: Axes, width: int, length: int, pairs: Sequence[int]) -> None:
    """Seen fraction per pair, each bar a circle unrolled: seen part blue, the rest grey."""
    seen = _seen_fractions(width, length)  # (d/2,)
    index = np.arange(width // 2)  # (d/2,)
    ax.bar(index, np.ones_like(seen), width=0.8, color=_UNSEEN, gid="unseen-fraction")
    ax.bar(index, seen, width=0.8, color=_SEEN, gid="seen-fraction")
    partly = int(np.sum(wavelengths(width) > length))  # pairs with lambda_i > L
    edge = width // 2 - partly - 0.5  # between the last full circle and the first partial one
    ax.axvline(edge, color=_INK, lw=1.0, ls="--")
    ax.text(
        edge + 0.4,
        1.06,
        f"\u03bb\u1d62 > L: {partly} of {width // 2} pairs see only part of their circle \u2192",
        fontsize=_SMALL,
        color=_INK,
        va="bottom",
    )
    ax.text(
        edge - 0.4,
        1.06,
        "\u2190 full circle seen",
        fontsize=_SMALL,
        color=_INK,
        va="bottom",
        ha="right",
    )
    ax.set_xlim(-0.7, width // 2 - 0.3)
    ax.set_ylim(0.0, 1.2)
    ax.set_yticks([0, 0.5, 1], ["0", "50%", "100%"])
    ticks = sorted({0, *pairs, width // 2 - 1})
    ax.set_xticks(ticks)
    ax.tick_params(labelsize=_SMALL)
    for tick, i in zip(ax.get_xticklabels(), ticks, strict=True):
        tick.set_fontweight("bold" if i in pairs else "normal")  # the pairs drawn below
    ax.set_xlabel("pair i (slower to the right)", fontsize=_SMALL)
    ax.set_ylabel("circle seen", fontsize=_SMALL)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _circle(ax: Axes, i: int, width: int, length: int) -> None:
    """Pair ``i``'s circle: the arc swept by positions 0..L-1, and where 2L and 4L land."""
    omega = float(frequencies(width)[i])
    lam = float(wavelengths(width)[i])
    full = _point(np.linspace(0.0, 2.0 * np.pi, 361))  # (361, 2)
    ax.plot(full[:, 0], full[:, 1], color=_UNSEEN, lw=5.0, solid_capstyle="butt")
    sweep = min((length - 1) * omega, 2.0 * np.pi)  # the angle of the last training position
    arc = _point(np.linspace(0.0, sweep, 361))  # (361, 2)
    ax.plot(arc[:, 0], arc[:, 1], color=_SEEN, lw=5.0, solid_capstyle="butt", gid=f"arc-{i}")
    ax.plot([0.0, 0.0], [0.84, 1.16], color=_INK, lw=1.2)  # position 0, at the top
    ax.text(0.0, 1.2, "0", ha="center", va="bottom", fontsize=_SMALL, color=_INK)

    for factor, colour, marker in ((2, _TWICE, "o"), (4, _FOUR, "D")):
        code = sinusoidal(1, width, start=factor * length)[0, 2 * i : 2 * i + 2]  # (2,)
        ax.plot([0.0, code[0]], [0.0, code[1]], color=colour, lw=1.0, ls="--")
        ax.plot(
            *code,
            marker,
            color=colour,
            ms=7.5,
            mec="white",
            mew=1.0,
            gid=f"pos-{factor}L-{i}",
        )
    ax.plot(0.0, 0.0, "o", color=_MUTED, ms=2.5)
    verdicts = [_lands_on_seen_arc(factor * length, omega, length) for factor in (2, 4)]
    if verdicts[0] == verdicts[1]:
        words = "2L, 4L:\n" + ("angles seen before" if verdicts[0] else "angles never seen")
    else:
        words = "\n".join(
            f"{name}: {'seen' if hit else 'new'}"
            for name, hit in zip(("2L", "4L"), verdicts, strict=True)
        )
    ax.text(0.0, -1.3, words, ha="center", va="top", fontsize=_SMALL, color=_INK)
    ax.set_title(
        f"pair {i}, \u03bb = {lam:,.1f}\nseen {min(1.0, (length - 1) / lam):.0%}",
        fontsize=_SMALL,
        color=_INK,
    )
    ax.set_aspect("equal")
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.75, 1.45)
    ax.set_axis_off()


def fig_seen_arcs(
    width: int = 64, length: int = 128, pairs: Sequence[int] = (6, 12, 16, 24)
) -> Figure:
    """How much of each pair's circle training showed, and where positions 2L and 4L land.

    Width ``width``, training positions 0..``length`` - 1. Top: one bar per
    pair, the fraction min(1, (L-1)/lambda_i) of its circle swept in training
    in blue, the rest in grey; a dashed line separates the pairs whose
    wavelength exceeds L. Bottom: the circles of ``pairs`` in the (sin, cos)
    plane, position 0 at the top, turning clockwise; the blue arc is what
    positions 0..L-1 swept, and markers show where positions 2L and 4L land
    (taken from ``posenc.sinusoidal``). A fast pair brings 2L back to an angle
    it has seen; a slow pair puts it where training never went (Proposition 10).
    """
    half = width // 2
    if any(not 0 <= i < half for i in pairs):
        raise ValueError(f"pairs must lie in 0..{half - 1} for width {width}, got {pairs}")
    if length < 1:
        raise ValueError(f"length must be at least 1, got {length}")

    fig = _figure(5.3)
    grid = fig.add_gridspec(2, len(pairs), height_ratios=[1.0, 1.45])
    _bars(fig.add_subplot(grid[0, :]), width, length, pairs)
    for column, i in enumerate(pairs):
        _circle(fig.add_subplot(grid[1, column]), i, width, length)
    handles = [
        Patch(color=_SEEN, label=f"swept by training, positions 0\u2013{length - 1}"),
        Patch(color=_UNSEEN, label="never shown"),
        Line2D([], [], marker="o", color=_TWICE, ls="", ms=7, label=f"position 2L = {2 * length}"),
        Line2D([], [], marker="D", color=_FOUR, ls="", ms=6, label=f"position 4L = {4 * length}"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=_SMALL, frameon=False)
    fig.suptitle(
        f"width {width}, training length L = {length}: how much of each clock training showed",
        fontsize=_FONT,
        color=_INK,
    )
    return fig
