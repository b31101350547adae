"""Figures about combining content and position in the score (Proposition 11)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..encoding import sinusoidal
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _SMALL, _figure

__all__ = ["fig_score_terms"]

_TOKENS = ("the", "dog", "saw", "the", "cat")
# Hand-made content vectors, width 4; the two rows of "the" are equal, so any
# difference between them in a score comes from position alone.
_X = np.array(
    [
        [1.0, 0.0, 0.5, -0.5],
        [0.0, 1.0, -0.5, 0.5],
        [-0.5, 0.5, 1.0, 0.0],
        [1.0, 0.0, 0.5, -0.5],
        [0.5, -1.0, 0.0, 1.0],
    ]
)  # (5, 4): one row per token
_WQ = np.array(
    [[1.0, 0.5, 0.0, 0.0], [0.0, 1.0, 0.5, 0.0], [0.5, 0.0, 1.0, -0.5], [0.0, -0.5, 0.0, 1.0]]
)  # (4, 4)
_WK = np.array(
    [[1.0, 0.0, 0.5, 0.0], [0.5, 1.0, 0.0, 0.0], [0.0, 0.5, 1.0, 0.5], [0.0, 0.0, -0.5, 1.0]]
)  # (4, 4)

# Each term: its name, the block of the score matrix it reads (A when adding;
# diag(A, A) has A on the diagonal blocks and 0 off them), and its (row, column)
# in a 2 x 2 grid, query part down, key part across.
_TERMS = (
    ("content\u2013content", "x", "y", 0, 0),
    ("content\u2013position", "x", "q", 0, 1),
    ("position\u2013content", "p", "y", 1, 0),
    ("position\u2013position", "p", "q", 1, 1),
)


def _mm(*factors: np.ndarray) -> np.ndarray:
    """A matrix product summed in a fixed order (math.fsum), so every run gives the same bits.

    BLAS kernels depend on memory alignment and can differ in the last bit between runs,
    which would change the figure's SVG from one build to the next.
    """
    out = factors[0]
    for right in factors[1:]:
        rows, inner = out.shape
        out = np.array(
            [
                [
                    math.fsum(out[r, k] * right[k, c] for k in range(inner))
                    for c in range(right.shape[1])
                ]
                for r in range(rows)
            ]
        )  # (rows, cols)
    return out


def score_terms(concatenate: bool = False) -> tuple[np.ndarray, ...]:
    """The four parts of the example's score matrix, (n, n) each, in the order cc, cp, pc, pp.

    Adding: the score of query r against key j is (x_r + p_r)^T A (x_j + p_j)
    with ``A = Wq Wk^T / sqrt(d_k)`` and ``p = posenc.sinusoidal(n, 4)``; the
    parts are X A X^T, X A P^T, P A X^T and P A P^T. Concatenating: the
    score is [x_r; p_r]^T B [x_j; p_j] with B = diag(A, A); the parts are
    X B_cc X^T, X B_cp P^T, P B_pc X^T and P B_pp P^T for the four blocks of B.
    """
    n, width = _X.shape
    P = sinusoidal(n, width)  # (n, d)
    A = _mm(_WQ, _WK.T) / np.sqrt(_WK.shape[1])  # (d, d)
    if not concatenate:
        return _mm(_X, A, _X.T), _mm(_X, A, P.T), _mm(P, A, _X.T), _mm(P, A, P.T)  # (n, n) each
    B = np.block([[A, np.zeros_like(A)], [np.zeros_like(A), A]])  # (2d, 2d): diag(A, A)
    cc, cp = B[:width, :width], B[:width, width:]  # (d, d) each
    pc, pp = B[width:, :width], B[width:, width:]  # (d, d) each
    return _mm(_X, cc, _X.T), _mm(_X, cp, P.T), _mm(P, pc, _X.T), _mm(P, pp, P.T)  # (n, n) each


def _panel(
    ax: Axes,
    values: np.ndarray,
    vmax: float,
    title: str,
    labels: Sequence[str],
    left: bool,
    bottom: bool,
    gid: str,
) -> None:
    """One term as a heatmap, queries down and keys across."""
    # Matrix products may differ in the last bit from run to run (BLAS kernels depend on
    # memory alignment); rounding what is drawn keeps the SVG the same bytes every build.
    values, vmax = np.round(values, 10) + 0.0, round(float(vmax), 10)  # (n, n)
    image = ax.imshow(values, cmap=_DIVERGING, vmin=-vmax, vmax=vmax, interpolation="nearest")
    image.set_gid(gid)
    if not np.any(values):
        centre = {"ha": "center", "va": "center", "transform": ax.transAxes}
        ax.text(0.5, 0.5, "0", fontsize=22, color=_MUTED, **centre)
    ax.set_title(title, fontsize=_SMALL, color=_INK, pad=3)
    ax.set_xticks(range(len(labels)), labels if bottom else [], rotation=90)
    ax.set_yticks(range(len(labels)), labels if left else [])
    ax.tick_params(labelsize=_SMALL, length=0)
    if left:
        ax.set_ylabel("query", fontsize=_SMALL, color=_MUTED)
    if bottom:
        ax.set_xlabel("key", fontsize=_SMALL, color=_MUTED, labelpad=2)
    for spine in ax.spines.values():
        spine.set_color(_MUTED)


def fig_score_terms() -> Figure:
    """The four score terms when position is added, and the two left when it is concatenated.

    Five tokens, "the dog saw the cat", with hand-made content vectors x of
    width 4 and the sinusoidal code p = PE(pos) of width 4. Left, adding:
    the score (x+p)^T A (y+q) splits into content-content, content-position,
    position-content and position-position terms, drawn as four heatmaps
    (queries down, keys across). Right, concatenating [x; p] with the
    block-diagonal matrix diag(A, A): the same content-content and
    position-position terms, and both cross terms exactly zero
    (Proposition 11).
    """
    terms = score_terms()  # four (n, n) arrays
    vmax = max(float(np.abs(t).max()) for t in terms)
    labels = [f"{word} {pos}" for pos, word in enumerate(_TOKENS)]
    halves = (
        ("adding:  $(x+p)^\\top A\\,(y+q)$", "add", terms),
        (
            "concatenating:  $[x;p]^\\top \\mathrm{diag}(A, A)\\,[y;q]$",
            "concat",
            score_terms(concatenate=True),
        ),
    )

    fig = _figure(4.3)
    sides = fig.subfigures(1, 2, width_ratios=[1.0, 1.08], wspace=0.03)
    for number, (side, (heading, key, values)) in enumerate(zip(sides, halves, strict=True)):
        side.set_facecolor("white")
        side.suptitle(heading, fontsize=_FONT, color=_INK)
        grid = side.add_gridspec(2, 2)
        axes = []
        for (name, left_vector, right_vector, r, c), term in zip(_TERMS, values, strict=True):
            ax = side.add_subplot(grid[r, c])
            block = "0" if key == "concat" and r != c else "A"  # off-diagonal blocks of diag(A, A)
            formula = rf"${left_vector}^\top\! {block}\, {right_vector}$"
            _panel(
                ax,
                term,
                vmax,
                f"{name}\n{formula}",
                labels,
                left=c == 0 and number == 0,  # both halves share the rows
                bottom=r == 1,
                gid=f"{key}-{name.replace(chr(0x2013), '-')}",
            )
            axes.append(ax)
    cbar = sides[1].colorbar(axes[0].images[0], ax=axes, shrink=0.85, aspect=25, pad=0.03)
    cbar.ax.tick_params(labelsize=_SMALL)
    cbar.set_label("part of the score", fontsize=_SMALL)
    return fig
