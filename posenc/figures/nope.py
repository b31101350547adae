"""Figures about a model with no position code: a causal layer counts (Proposition 17).

The layer is the one of the construction in Kazemnejad et al. 2023, Theorem 1:
the first token is a start marker (coordinate 0 equal to 1, every other token 0
there), the query projection is zero, so every allowed key gets the same weight,
and the value copies the marker coordinate.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .. import _validate
from ..attention import attention, causal_mask
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_nope_counts"]

_CAUSAL, _BIDIRECTIONAL = _OKABE_ITO[0], _OKABE_ITO[1]
_LONGEST = 32  # the longest sequence the figure will draw legibly


def _tokens(length: int) -> np.ndarray:
    """A start marker, then ``length - 1`` tokens without it: (length, 3).

    Coordinate 0 is the marker. Coordinates 1 and 2 are fixed, varied content,
    so the figure never depends on a random generator's stream; with a zero
    query projection the content cannot change a weight.
    """
    where = np.arange(length)  # (L,)
    content = np.stack([np.cos(1.7 * where), np.sin(0.9 * where + 0.3)], axis=1)  # (L, 2)
    marker = (where == 0).astype(np.float64)[:, None]  # (L, 1): 1 only at the start
    return np.concatenate([marker, content], axis=1)  # (L, 3)


def _nope_layer(length: int) -> dict[str, np.ndarray]:
    """The construction, computed by ``posenc.attention``.

    Returns the causal and the bidirectional attention weights, (L, L) each
    (read off as the outputs of the identity tokens e_0 .. e_(L-1) with
    W_V = I), and the marker coordinate of the two outputs, (L,) each.
    """
    zero_q = np.zeros((3, 2))  # (d_model, d_k): W_Q = 0, so every score is 0
    w_k = np.array([[0.4, -1.1], [0.7, 0.2], [-0.5, 0.9]])  # (3, 2): any W_K will do
    w_v = np.eye(3)  # (3, 3): the value copies the token, marker included
    mask = causal_mask(length)  # (L, L)
    x = _tokens(length)  # (L, 3)
    eye = np.eye(length)  # (L, L): token j is e_j, so output row i is row i of the weights
    blank = np.zeros((length, 2))  # (L, 2)
    return {
        "causal_weights": attention(eye, blank, blank, eye, mask=mask),  # (L, L)
        "bidirectional_weights": attention(eye, blank, blank, eye),  # (L, L)
        "causal_marker": attention(x, zero_q, w_k, w_v, mask=mask)[:, 0],  # (L,)
        "bidirectional_marker": attention(x, zero_q, w_k, w_v)[:, 0],  # (L,)
    }


def _weights_panel(ax: Axes, weights: np.ndarray, masked: bool, gid: str, title: str) -> None:
    """One weight matrix, queries down and keys across; masked cells hatched out."""
    length = weights.shape[0]
    shown = np.where(causal_mask(length), weights, np.nan) if masked else weights
    image = ax.imshow(shown, cmap="Blues", vmin=0.0, vmax=1.0, aspect="equal")
    image.set_gid(gid)
    if masked:
        for (r, c), ok in np.ndenumerate(causal_mask(length)):
            if not ok:
                cell = Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#eeeeee", hatch="///")
                cell.set(edgecolor="white", linewidth=0)
                ax.add_patch(cell)
    ticks = range(0, length, max(1, length // 4))
    ax.set_xticks(list(ticks))
    ax.set_yticks(list(ticks))
    ax.tick_params(labelsize=_SMALL, length=0)
    ax.set_xlabel("key j", fontsize=_SMALL, color=_MUTED)
    ax.set_ylabel("query i", fontsize=_SMALL, color=_MUTED)
    ax.set_title(title, fontsize=_FONT, color=_INK)
    for spine in ax.spines.values():
        spine.set_visible(False)


def fig_nope_counts(length: int = 8) -> Figure:
    """With zero query weights, causal attention writes 1/(i+1) at position i; no mask, 1/n.

    Left: the causal attention weights of the layer, queries down and keys
    across; row i gives 1/(i+1) to each of the keys 0..i, and the hatched
    cells are masked. Middle: the same layer without the mask; every weight is
    1/n. Right: the output's marker coordinate at each position i, when the
    first token carries the marker 1 and the others 0. Under the causal mask it
    is 1/(i+1), different at every position, so i = 1/y - 1 can be read off;
    without the mask it is 1/n at every position. All values are computed by
    ``posenc.attention`` (Proposition 17).
    """
    length = _validate.integer("length", length, minimum=2)
    if length > _LONGEST:
        raise ValueError(f"length must be an integer in 2..{_LONGEST}, got {length}")
    layer = _nope_layer(length)
    where = np.arange(length)  # (L,)

    fig = _figure(3.6)
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 1.0, 1.25], wspace=0.1)
    _weights_panel(
        fig.add_subplot(grid[0, 0]), layer["causal_weights"], True, "causal-weights", "causal"
    )
    _weights_panel(
        fig.add_subplot(grid[0, 1]),
        layer["bidirectional_weights"],
        False,
        "bidirectional-weights",
        "no mask",
    )

    ax = fig.add_subplot(grid[0, 2])
    ax.plot(
        where,
        layer["causal_marker"],
        color=_CAUSAL,
        marker="o",
        ms=4,
        lw=1.4,
        label="causal: 1/(i+1)",
        gid="causal-marker",
    )
    ax.plot(
        where,
        layer["bidirectional_marker"],
        color=_BIDIRECTIONAL,
        marker="s",
        ms=3.5,
        lw=1.4,
        ls="--",
        label=f"no mask: 1/{length}",
        gid="bidirectional-marker",
    )
    read = min(3, length - 1)  # the position whose reading is spelled out
    ax.annotate(
        f"i = {read}: y = 1/{read + 1},\nso i = 1/y \u2212 1",
        xy=(read, layer["causal_marker"][read]),
        xytext=(read + 0.6, 0.55),
        fontsize=_SMALL,
        color=_INK,
        arrowprops={"arrowstyle": "-", "color": _MUTED, "lw": 0.8},
        gid="reading",
    )
    ax.set_xticks(list(range(0, length, max(1, length // 4))))
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel("position i", fontsize=_SMALL, color=_MUTED)
    ax.set_ylabel("output, marker coordinate", fontsize=_SMALL, color=_MUTED)
    ax.tick_params(labelsize=_SMALL, length=2)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=_SMALL, frameon=False, loc="upper right")
    ax.set_title("what each position can read", fontsize=_FONT, color=_INK)
    return fig
