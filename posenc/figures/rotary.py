"""Figures about rotary embeddings: the offset enters the score (Proposition 12)."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..encoding import frequencies
from ..rotary import rotary
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_rotary_score"]

# Hand-made query and key of width 8, so the figure never depends on a random
# generator's stream. In pair 1 (coordinates 2 and 3) both point along the first
# axis, so the angle between them after rotation is exactly (n - m) w_1.
_Q = np.array([0.3, 0.1, 1.0, 0.0, 0.5, 0.2, -0.2, 0.4])  # (8,)
_K = np.array([0.2, -0.3, 0.8, 0.0, -0.4, -0.3, 0.3, 0.1])  # (8,)
_PAIR = 1  # the pair drawn on the circle; it turns at w_1 = 10000**(-1/4) = 0.1 rad/position
_QUERY, _KEY, _OFFSET = _OKABE_ITO[1], _OKABE_ITO[0], _OKABE_ITO[2]


def _arrow(ax: Axes, tip: np.ndarray, colour: str, gid: str, dashed: bool) -> None:
    """A vector from the origin to ``tip`` (2,), with an arrowhead; the shaft carries ``gid``."""
    style = "--" if dashed else "-"
    ax.plot([0.0, tip[0]], [0.0, tip[1]], color=colour, lw=2.0, ls=style, gid=gid)
    ax.annotate(
        "",
        xy=tuple(tip),
        xytext=tuple(0.9 * tip),
        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.0, "mutation_scale": 14},
    )


def _arc(ax: Axes, start: float, stop: float, radius: float, gid: str, dashed: bool) -> None:
    """The angle between two vectors: an arc from ``start`` to ``stop`` (radians)."""
    theta = np.linspace(start, stop, 60)  # (60,)
    ax.plot(
        radius * np.cos(theta),
        radius * np.sin(theta),
        color=_OFFSET,
        lw=2.6,
        ls=(0, (2.0, 1.2)) if dashed else "-",
        gid=gid,
    )


def fig_rotary_score(m: int = 2, n: int = 7, shift: int = 10, length: int = 24) -> Figure:
    """Rotated query and key meet at an angle set by n - m; the score is constant on diagonals.

    Left: pair 1 of a query and a key of width 8 (interleaved pairing), in the
    plane of its two coordinates. Both start along the first axis; rotary turns
    the query by m w_1 and the key by n w_1 (anticlockwise), so the angle between
    them is (n - m) w_1. Solid: positions (m, n); dashed: both moved on by
    ``shift``, where the angle between them is the same. Right: the score
    <rotary(q, m), rotary(k, n)> of the full vectors for m, n = 0 .. length-1,
    computed by ``posenc.rotary``: each diagonal n - m = const has one colour
    (a Toeplitz matrix). The two drawn configurations are outlined (Proposition 12).
    """
    width = _Q.size
    if not (0 <= m < length - shift and 0 <= n < length - shift):
        raise ValueError(
            f"m and n must lie in 0..length - shift - 1 = {length - shift - 1}, got m={m}, n={n}"
        )
    omega = float(frequencies(width)[_PAIR])
    cols = slice(2 * _PAIR, 2 * _PAIR + 2)
    where = np.arange(length)  # (L,)
    queries = rotary(np.tile(_Q, (length, 1)), where)  # (L, d): the query at every position
    keys = rotary(np.tile(_K, (length, 1)), where)  # (L, d): the key at every position
    scores = queries @ keys.T  # (L, L): row m, column n

    fig = _figure(4.1)
    grid = fig.add_gridspec(1, 2, width_ratios=[1.0, 1.05])
    ax = fig.add_subplot(grid[0, 0])
    circle = np.linspace(0.0, 2.0 * np.pi, 361)  # (361,)
    for radius in (np.linalg.norm(_Q[cols]), np.linalg.norm(_K[cols])):
        ax.plot(radius * np.cos(circle), radius * np.sin(circle), color=_MUTED, lw=0.6)
    ax.axhline(0.0, color=_MUTED, lw=0.5, ls=":")
    ax.axvline(0.0, color=_MUTED, lw=0.5, ls=":")
    ax.plot(*_Q[cols], "o", color=_QUERY, ms=4, mfc="white", mew=1.2, gid="query-start")
    ax.plot(*_K[cols], "o", color=_KEY, ms=4, mfc="white", mew=1.2, gid="key-start")
    ax.text(0.9, -0.05, "position 0", ha="center", va="top", fontsize=_SMALL, color=_MUTED)

    for p_q, p_k, dashed, tag in ((m, n, False, ""), (m + shift, n + shift, True, "-moved")):
        tip_q, tip_k = queries[p_q, cols], keys[p_k, cols]  # (2,) each
        _arrow(ax, tip_q, _QUERY, f"query{tag}", dashed)
        _arrow(ax, tip_k, _KEY, f"key{tag}", dashed)
        _arc(ax, omega * p_q, omega * p_k, 0.42, f"offset-angle{tag}", dashed)
        for tip, text, colour in (
            (tip_q, f"q\nm = {p_q}", _QUERY),
            (tip_k, f"k\nn = {p_k}", _KEY),
        ):
            c, s = tip / np.linalg.norm(tip)  # the label sits just outside the tip, radially
            ax.annotate(
                text,
                tuple(tip),
                xytext=(9 * c, 9 * s),
                textcoords="offset points",
                ha="left" if c > 0.35 else "right" if c < -0.35 else "center",
                va="bottom" if s > 0.35 else "top" if s < -0.35 else "center",
                fontsize=_SMALL,
                color=colour,
                fontweight="bold",
                linespacing=1.0,
            )
    for p_q in (m, m + shift):  # the angle's name, in the gap between the two arrows
        middle = omega * (p_q + (n - m) / 2.0)
        ax.text(
            0.6 * np.cos(middle),
            0.6 * np.sin(middle),
            rf"${n - m}\,\omega_{_PAIR}$",
            ha="center",
            va="center",
            fontsize=_SMALL,
            color=_OFFSET,
            fontweight="bold",
        )
    ax.set_aspect("equal")
    ax.set_xlim(-0.45, 1.4)
    ax.set_ylim(-0.15, 1.3)
    ax.set_xticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax.set_yticks([0, 0.5, 1], ["0", "0.5", "1"])
    ax.tick_params(labelsize=_SMALL)
    ax.set_xlabel(f"coordinate {2 * _PAIR} (first of pair {_PAIR})", fontsize=_SMALL)
    ax.set_ylabel(f"coordinate {2 * _PAIR + 1}", fontsize=_SMALL)
    ax.set_title(
        f"pair {_PAIR} turns {omega:g} rad per position;\n"
        f"solid m, n = {m}, {n}; dashed {m + shift}, {n + shift}",
        fontsize=_SMALL,
        color=_INK,
    )

    heat = fig.add_subplot(grid[0, 1])
    top = float(np.abs(scores).max())
    image = heat.imshow(
        scores,
        cmap=_DIVERGING,
        vmin=-top,
        vmax=top,
        interpolation="nearest",
        extent=(-0.5, length - 0.5, length - 0.5, -0.5),
    )
    image.set_gid("score-matrix")
    first = max(0, m - n)  # the diagonal n - m = const runs over rows first .. last
    last = min(length, length - (n - m)) - 1
    heat.plot(
        [first + (n - m) - 0.5, last + (n - m) + 0.5],  # from the corner of its first cell
        [first - 0.5, last + 0.5],  # to the far corner of its last
        color=_OFFSET,
        lw=1.0,
        ls="--",
        gid="offset-diagonal",
    )
    for p_q, p_k, style, tag in ((m, n, "-", ""), (m + shift, n + shift, "--", "-moved")):
        heat.add_patch(
            Rectangle(
                (p_k - 0.5, p_q - 0.5),
                1.0,
                1.0,
                fill=False,
                ec=_INK,
                lw=1.8,
                ls=style,
                gid=f"cell{tag}",
            )
        )
    ticks = range(0, length, 5)
    heat.set_xticks(ticks)
    heat.set_yticks(ticks)
    heat.set_xlim(-0.5, length - 0.5)
    heat.set_ylim(length - 0.5, -0.5)  # row 0 at the top, as in a matrix
    heat.set_xlabel("key position n", fontsize=_FONT)
    heat.set_ylabel("query position m", fontsize=_FONT)
    heat.tick_params(labelsize=_SMALL)
    heat.set_title(
        "score of the full vectors (d = 8):\none colour along each diagonal n \u2212 m",
        fontsize=_SMALL,
        color=_INK,
    )
    colorbar = fig.colorbar(image, ax=heat, fraction=0.05, pad=0.03)
    colorbar.ax.tick_params(labelsize=_SMALL)
    colorbar.set_label("score", fontsize=_SMALL)
    return fig
