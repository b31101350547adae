"""Figures about Transformer-XL's relative score (Proposition 19).

Reference: Z. Dai, Z. Yang, Y. Yang, J. Carbonell, Q. V. Le, R. Salakhutdinov,
"Transformer-XL: Attentive Language Models Beyond a Fixed-Length Context",
ACL 2019, arXiv:1901.02860, section 3.3 (the four terms of the score).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..encoding import sinusoidal
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _SMALL, _figure

__all__ = ["fig_txl_terms"]

#: The panels' titles, in the paper's order (a) to (d).
TITLES = (
    "(a) content\u2013content",
    "(b) content\u2013position",
    "(c) global content bias",
    "(d) global position bias",
)


def _check_range(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def example(length: int = 8, width: int = 8, head: int = 4, seed: int = 19) -> dict:
    """The figure's random example: tokens, weights, biases and the table R.

    ``E`` (L, d) holds the tokens' content; ``W_q``, ``W_kE`` and ``W_kR`` (h, d)
    are the projections; ``u`` and ``v`` (h,) the global biases; ``R`` (L, d) is
    ``posenc.sinusoidal(L, d)``, so row k is the code of the offset k.
    """
    _check_range("length", length, 2, 32)
    _check_range("width", width, 2, 64)
    _check_range("head", head, 1, 64)
    if width % 2:
        raise ValueError(f"width must be even, got {width!r}")
    _check_range("seed", seed, 0, 2**32 - 1)
    rng = np.random.default_rng(seed)
    scale = 1.0 / np.sqrt(width)
    return {
        "E": rng.normal(size=(length, width)),  # (L, d)
        "W_q": rng.normal(size=(head, width)) * scale,  # (h, d)
        "W_kE": rng.normal(size=(head, width)) * scale,  # (h, d)
        "W_kR": rng.normal(size=(head, width)) * scale,  # (h, d)
        "u": rng.normal(size=head),  # (h,)
        "v": rng.normal(size=head),  # (h,)
        "R": sinusoidal(length, width),  # (L, d): row k is R_k
    }


def txl_terms(parts: dict) -> tuple[np.ndarray, ...]:
    """The four terms (a), (b), (c), (d) of the score, each (L, L); NaN where j > i.

    Query i is the row, key j the column. Only keys j <= i are scored (the
    layer is causal), so the offset i - j is a row of ``R``.
    """
    E, R = parts["E"], parts["R"]  # (L, d) each
    length = E.shape[0]
    queries = E @ parts["W_q"].T  # (L, h): W_q E_i
    content_keys = E @ parts["W_kE"].T  # (L, h): W_kE E_j
    position_keys = R @ parts["W_kR"].T  # (L, h): W_kR R_k, row k
    terms = [np.full((length, length), np.nan) for _ in range(4)]  # 4 x (L, L)
    for i in range(length):
        for j in range(i + 1):
            key = position_keys[i - j]  # (h,): W_kR R_(i-j)
            terms[0][i, j] = queries[i] @ content_keys[j]
            terms[1][i, j] = queries[i] @ key
            terms[2][i, j] = parts["u"] @ content_keys[j]
            terms[3][i, j] = parts["v"] @ key
    return tuple(terms)


def fig_txl_terms(length: int = 8, width: int = 8, head: int = 4, seed: int = 19) -> Figure:
    """Transformer-XL's four score terms over query i and key j, for a random example.

    Four heatmaps, queries down and keys across, keys after the query blank
    (causal): (a) content-content, (b) content-position, (c) the global content
    bias, the same down every column, and (d) the global position bias, the
    same along every diagonal i - j. Each panel has its own symmetric colour
    scale, red positive and blue negative.
    """
    terms = txl_terms(example(length, width, head, seed))
    fig = _figure(3.6)
    axes = fig.subplots(1, 4)
    for n, (ax, term, title) in enumerate(zip(axes, terms, TITLES, strict=True)):
        top = float(np.nanmax(np.abs(term))) or 1.0
        image = ax.imshow(term, cmap=_DIVERGING, vmin=-top, vmax=top)
        image.set_gid(f"term-{'abcd'[n]}")
        ax.set_title(title, fontsize=_SMALL, color=_INK)
        ax.set_xticks(range(0, length, 2))
        ax.set_yticks(range(0, length, 2))
        ax.tick_params(labelsize=_SMALL, colors=_MUTED)
        ax.set_xlabel("key j", fontsize=_FONT)
        if n == 0:
            ax.set_ylabel("query i", fontsize=_FONT)
        fig.colorbar(image, ax=ax, orientation="horizontal", shrink=0.85, pad=0.12).ax.tick_params(
            labelsize=_SMALL - 1
        )
    return fig
