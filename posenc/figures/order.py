"""Figures about order: attention without a position signal (Proposition 1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..attention import attention
from ._style import _DIVERGING, _FONT, _INK, _OKABE_ITO, _SMALL, _figure, _number

__all__ = ["fig_permutation_equivariance"]


_TOKENS = ("the", "cat", "sat", "down")
# Hand-made numbers, so the figure never depends on a random generator's stream.
_X = np.array(
    [
        [1.0, 0.0, 0.5],
        [0.0, 1.0, -1.0],
        [-1.0, 0.5, 1.0],
        [0.5, -1.0, 0.0],
    ]
)  # (4, 3): one row per token, three features
_WQ = np.array([[1.5, 0.0, -0.5], [0.5, 1.0, 0.0], [0.0, -1.0, 1.5]])  # (3, 3)
_WK = np.array([[1.0, 0.5, 0.0], [0.0, 1.5, 0.5], [-0.5, 0.0, 1.0]])  # (3, 3)
_WV = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.0], [0.5, -0.5, 1.0]])  # (3, 3)
_PERM = (2, 0, 3, 1)  # row r of PX is row _PERM[r] of X: "sat the down cat"


def _annotated_heatmap(
    ax: Axes, values: np.ndarray, labels: Sequence[str], colours: Sequence[str], vmax: float
) -> None:
    """Draw ``values`` (rows, cols) as cells with their numbers written in."""
    ax.imshow(values, cmap=_DIVERGING, vmin=-vmax, vmax=vmax, aspect="auto")
    for (r, c), v in np.ndenumerate(values):
        shade = "white" if abs(v) > 0.55 * vmax else _INK
        ax.text(c, r, _number(v), ha="center", va="center", color=shade, fontsize=_SMALL)
    ax.set_yticks(range(len(labels)), labels, fontsize=_FONT, fontweight="bold")
    for tick, colour in zip(ax.yaxis.get_major_ticks(), colours, strict=True):
        tick.label1.set_color(colour)  # left labels
        tick.label2.set_color(colour)  # right labels, if the axis moves them there
    ax.set_xticks([])
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _wires(ax: Axes, perm: Sequence[int], colours: Sequence[str]) -> None:
    """Lines from row ``perm[r]`` on the left to row ``r`` on the right."""
    n = len(perm)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(n - 0.5, -0.5)  # the same row coordinates as the heatmaps beside it
    ax.set_axis_off()
    for r, source in enumerate(perm):
        ax.annotate(
            "",
            xy=(0.97, r),
            xytext=(0.03, source),
            arrowprops={
                "arrowstyle": "-|>",
                "color": colours[source],
                "lw": 1.8,
                "shrinkA": 0,
                "shrinkB": 0,
                "mutation_scale": 12,
            },
        )


def _down_arrow(ax: Axes, label: str) -> None:
    """A downward arrow filling ``ax``, labelled on its right."""
    ax.set_axis_off()
    ax.annotate(
        "",
        xy=(0.5, 0.05),
        xytext=(0.5, 0.95),
        xycoords="axes fraction",
        arrowprops={"arrowstyle": "-|>", "color": _INK, "lw": 1.5, "mutation_scale": 14},
    )
    ax.text(0.54, 0.5, label, transform=ax.transAxes, va="center", fontsize=_FONT, color=_INK)


def fig_permutation_equivariance() -> Figure:
    """Attention without position: reordering the input rows reorders the output rows the same way.

    Four tokens with three hand-made features each (X) go through one
    attention layer with fixed weights (``posenc.attention``). On the right,
    the same tokens in another order (PX) go through the same layer. The
    coloured lines are the permutation P; the output Attn(PX) is exactly the
    rows of Attn(X), moved by the same P (Proposition 1).
    """
    perm = np.array(_PERM)  # (4,)
    x = _X  # (4, 3)
    px = x[perm]  # (4, 3): P X
    out = attention(x, _WQ, _WK, _WV)  # (4, 3)
    out_p = attention(px, _WQ, _WK, _WV)  # (4, 3): equals out[perm]

    colours = _OKABE_ITO[: len(_TOKENS)]
    tokens_p = [_TOKENS[j] for j in perm]
    colours_p = [colours[j] for j in perm]
    in_max = float(np.abs(x).max())
    out_max = float(np.abs(np.concatenate([out, out_p])).max())

    fig = _figure(4.4)
    grid = fig.add_gridspec(3, 3, width_ratios=[1.0, 0.5, 1.0], height_ratios=[1.0, 0.32, 1.0])
    ax_x, ax_px = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 2])
    ax_out, ax_out_p = fig.add_subplot(grid[2, 0]), fig.add_subplot(grid[2, 2])

    _annotated_heatmap(ax_x, x, _TOKENS, colours, in_max)
    _annotated_heatmap(ax_px, px, tokens_p, colours_p, in_max)
    _annotated_heatmap(ax_out, out, _TOKENS, colours, out_max)
    _annotated_heatmap(ax_out_p, out_p, tokens_p, colours_p, out_max)
    for ax in (ax_px, ax_out_p):
        ax.yaxis.tick_right()

    titles = {
        ax_x: r"input $X$",
        ax_px: r"reordered input $PX$",
        ax_out: r"output $\mathrm{Attn}(X)$",
        ax_out_p: r"output $\mathrm{Attn}(PX) = P\,\mathrm{Attn}(X)$",
    }
    for ax, title in titles.items():
        ax.set_title(title, fontsize=_FONT, color=_INK)

    for row in (0, 2):
        wire_ax = fig.add_subplot(grid[row, 1])
        _wires(wire_ax, _PERM, colours)
        wire_ax.text(0.5, -0.62, "$P$", ha="center", va="bottom", fontsize=_FONT + 1, color=_INK)
    _down_arrow(fig.add_subplot(grid[1, 0]), r"$\mathrm{Attn}$ (same weights)")
    _down_arrow(fig.add_subplot(grid[1, 2]), r"$\mathrm{Attn}$ (same weights)")
    return fig
