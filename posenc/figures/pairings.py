"""Figures about the two rotary pairings and the permutation between them (Proposition 23).

References: J. Su et al., "RoFormer: Enhanced Transformer with Rotary Position
Embedding", arXiv:2104.09864 (2021), section 3 (the adjacent pairing); the
split-half layout is that of Hugging Face Transformers' ``rotate_half``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..rotary import pairing_permutation, rotary_matrix
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_rope_pairings"]

_LEFT, _RIGHT = 0.0, 1.0  # x of the adjacent and the split-half column
_BOX = 0.2  # width of a coordinate's box


def _colours(pairs: int) -> list[str]:
    """One Okabe-Ito colour per pair (at most six pairs)."""
    return list(_OKABE_ITO[:pairs])


def _slots(ax: Axes, x: float, pair_of: list[int], colours: list[str], name: str) -> None:
    """A column of boxes, coordinate 0 at the top, each in the colour of its pair."""
    for j, pair in enumerate(pair_of):
        ax.add_patch(
            Rectangle(
                (x - _BOX / 2, -j - 0.4),
                _BOX,
                0.8,
                facecolor=colours[pair],
                edgecolor="white",
                lw=1.0,
                gid=f"{name}-slot-{j}",
            )
        )
        ax.text(x, -j, str(j), ha="center", va="center", fontsize=_SMALL, color="white")


def _bracket(ax: Axes, x: float, rows: tuple[int, int], reach: float, colour: str, gid: str):
    """A square bracket outside a column joining the two coordinates of a pair."""
    top, bottom = -rows[0], -rows[1]
    ax.plot(
        [x, x + reach, x + reach, x], [top, top, bottom, bottom], color=colour, lw=1.4, gid=gid
    )


def _arrow(ax: Axes, start: int, stop: int, colour: str, gid: str) -> None:
    """Coordinate ``start`` of the adjacent column goes to place ``stop`` on the right."""
    tail = (_LEFT + _BOX / 2 + 0.02, -start)
    head = (_RIGHT - _BOX / 2 - 0.02, -stop)
    ax.plot([tail[0], head[0]], [tail[1], head[1]], color=colour, lw=1.3, gid=gid)
    ax.annotate(
        "",
        xy=head,
        xytext=(head[0] - 0.06, head[1] + 0.06 * (tail[1] - head[1]) / (head[0] - tail[0])),
        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 1.3, "mutation_scale": 10},
    )


def _pattern(ax: Axes, matrix: np.ndarray, pair_of: list[int], colours: list[str], gid: str):
    """The nonzero entries of a rotary matrix, each in the colour of its row's pair."""
    width = matrix.shape[0]
    shown = np.full((width, width), np.nan)  # (d, d): NaN where the matrix is 0
    rows, cols = np.nonzero(matrix)
    shown[rows, cols] = np.array(pair_of)[rows]
    ax.imshow(
        shown,
        cmap=ListedColormap(colours),
        vmin=-0.5,
        vmax=len(colours) - 0.5,
        interpolation="nearest",
        gid=gid,
    )
    ticks = list(range(width))
    ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=_SMALL)
    ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=_SMALL)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_color(_MUTED)


def fig_rope_pairings(width: int = 8, position: int = 1) -> Figure:
    """The adjacent and split-half rotary layouts of a head of width 8, and the rows' moves.

    Left: the ``width`` coordinates of one head in the adjacent layout (pair i
    is 2i, 2i+1; Meta's Llama code, GPT-J, RoFormer, llama.cpp NORM) and in the
    split-half layout (pair i is i, i + d/2; Hugging Face's rotate_half,
    GPT-NeoX, llama.cpp NEOX), coloured by pair, with brackets joining the two
    members of each pair. An arrow from adjacent coordinate j to split-half
    place p_j, p = ``posenc.rotary.pairing_permutation(width)``: the move
    W' = P W applied to the rows of W_q and W_k. Right: the nonzero entries of
    ``posenc.rotary_matrix(position, width)`` in both layouts, coloured by pair:
    2 x 2 blocks on the diagonal, and the same blocks spread to rows and columns
    (i, i + d/2), which is P R P^T (Proposition 23).
    """
    if isinstance(width, bool) or not isinstance(width, int) or width % 2 or not 2 <= width <= 12:
        raise ValueError(f"width must be an even integer from 2 to 12, got {width!r}")
    if isinstance(position, bool) or not isinstance(position, int) or not 1 <= position <= 100:
        raise ValueError(f"position must be an integer from 1 to 100, got {position!r}")
    half = width // 2
    places = pairing_permutation(width).tolist()  # (d,): adjacent j -> split-half places[j]
    colours = _colours(half)
    adjacent_pair = [j // 2 for j in range(width)]  # pair of each adjacent coordinate
    half_pair = [0] * width  # pair of each split-half place, carried by the arrows
    for j, place in enumerate(places):
        half_pair[place] = adjacent_pair[j]

    fig = _figure(4.0)
    left, middle, right = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1.25, 1.0, 1.0]})
    _slots(left, _LEFT, adjacent_pair, colours, "adjacent")
    _slots(left, _RIGHT, half_pair, colours, "half")
    for i in range(half):
        _bracket(
            left, _LEFT - _BOX / 2, (2 * i, 2 * i + 1), -0.08, colours[i], f"adjacent-pair-{i}"
        )
        first, second = (r for r in range(width) if half_pair[r] == i)
        reach = 0.08 + 0.05 * i
        _bracket(left, _RIGHT + _BOX / 2, (first, second), reach, colours[i], f"half-pair-{i}")
    for j, place in enumerate(places):
        _arrow(left, j, place, colours[adjacent_pair[j]], f"move-{j}")
    left.set_xlim(-0.45, 1.55)
    left.set_ylim(-width - 0.6, 1.6)
    left.axis("off")
    left.text(_LEFT, 0.9, "adjacent\n(2i, 2i+1)", ha="center", fontsize=_SMALL, color=_INK)
    left.text(_RIGHT, 0.9, "split halves\n(i, i + d/2)", ha="center", fontsize=_SMALL, color=_INK)
    for x, users in (
        (_LEFT, "Meta Llama, GPT-J,\nllama.cpp NORM"),
        (_RIGHT, "HF rotate_half,\nGPT-NeoX, NEOX"),
    ):
        left.text(x, -width + 0.4, users, ha="center", va="top", fontsize=_SMALL, color=_MUTED)
    left.set_title(r"row $j$ moves to place $p_j$", fontsize=_FONT, color=_INK)

    _pattern(
        middle,
        rotary_matrix(position, width, pairing="interleaved"),
        adjacent_pair,
        colours,
        "matrix-adjacent",
    )
    middle.set_title(rf"$R_{{\mathrm{{adj}}}}(m)$, $m = {position}$", fontsize=_FONT, color=_INK)
    _pattern(
        right, rotary_matrix(position, width, pairing="half"), half_pair, colours, "matrix-half"
    )
    right.set_title(
        r"$R_{\mathrm{half}}(m) = P R_{\mathrm{adj}}(m) P^{\top}$", fontsize=_FONT, color=_INK
    )
    return fig
