"""Figures about the base bound of Men et al.: the rotary sum up to a length (Prop. 38).

For a head of width d with speeds w_i = b^(-2i/d), B(m) = sum_i cos(m w_i) is the
rotary score of a query with itself at offset m when every pair has length 1. Men et
al. ask that B(m) >= 0 for every m up to the context L, and call the smallest such base
the lower bound of the base for L. The condition is not monotone in b, so
:func:`posenc.similarity.base_bound` says how "smallest" is searched; its results for
width 128 are kept in :data:`BOUNDS` (a search at a million positions takes minutes),
and Proposition 38's proof checks each row.

Reference: X. Men, M. Xu, B. Wang, Q. Zhang, H. Lin, X. Han, W. Chen, "Base of RoPE
Bounds Context Length", arXiv:2405.14591 (2024).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import similarity
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_base_bound"]

#: Width 128, from posenc.similarity.base_bound(L) with its defaults: the length L, the
#: base b*(L) it returns, the offset where B is smallest at b*(L), the lower end of its
#: last bracket (a base less than 10^-6 below b*(L)) and an offset where B < 0 there.
BOUNDS = (
    (4096, 28628.686780674052, 3634, 28628.667856068714, 3634),
    (8192, 96421.92373786813, 7525, 96421.85999946242, 7525),
    (32768, 990823.9097739935, 28390, 990823.2548032786, 28390),
    (131072, 9124367.143925194, 109344, 9124361.112385973, 109344),
    (1048576, 407537581.55249494, 822082, 407537312.1553008, 822082),
)
#: Shipped kinds of layer with a head of width 128 that rotates every pair by the
#: ladder b^(-2i/d), as their config.json files give them: name, base, and the length
#: the plain ladder serves (the sliding window, else original_max_position_embeddings
#: for a scaled model, else max_position_embeddings).
MODELS = (
    ("Gemma 3 27B, sliding", 1.0e4, 1024),
    ("Llama 2 7B", 1.0e4, 4096),
    ("Command R7B, sliding", 5.0e4, 4096),
    ("Llama 3.1 8B, Llama 4 Scout", 5.0e5, 8192),
    ("Code Llama 7B, Ministral 3 3B", 1.0e6, 16384),
    ("Qwen2.5-7B, Qwen3-8B", 1.0e6, 32768),
    ("SmolLM3-3B", 5.0e6, 65536),
    ("Qwen3-VL-8B", 5.0e6, 262144),
)
#: The row of BOUNDS whose sum the right panel draws, and the offsets it shows.
_SHOWN = 0
_FROM = 3000


def fig_base_bound(width: int = 128) -> Figure:
    """The base bound of Men et al. against the context, and the rotary sum near it.

    Left: b*(L) of :data:`BOUNDS` against L, on log axes, with the shipped kinds of
    :data:`MODELS` as points at (length, base): filled where B(m) >= 0 for every m up to
    the length (:func:`posenc.similarity.first_negative` finds no negative offset), open
    where it does not. Right: B(m) for L = 4096 at b*(L) and at b*(L) (1 - 10^-3), over
    the last offsets up to L: the second dips below zero.
    """
    width = int(width)
    if width != 128:
        raise ValueError(f"the bounds kept are for width 128, got {width!r}")
    fig = _figure(4.4)
    left, right = fig.subplots(1, 2)
    lengths = np.array([row[0] for row in BOUNDS], dtype=np.float64)  # (rows,)
    bases = np.array([row[1] for row in BOUNDS])  # (rows,)
    left.plot(lengths, bases, "o-", color=_INK, lw=1.2, ms=4, gid="bound", label="$b^*(L)$")
    for index, (name, base, length) in enumerate(MODELS):
        holds = similarity.first_negative(length, width, base=base) is None
        colour = _OKABE_ITO[index % len(_OKABE_ITO)]
        left.plot(
            [length],
            [base],
            "s" if holds else "X",
            ms=6,
            mfc=colour if holds else "white",
            mec=colour,
            mew=1.4,
            ls="none",
            gid=f"model-{index}-{'holds' if holds else 'fails'}",
            label=name,
        )
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("context $L$ (positions)", fontsize=_FONT)
    left.set_ylabel("base $b$", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.set_title(r"filled: $B(m) \geq 0$ up to $L$; cross: not", fontsize=_SMALL)
    fig.legend(
        handles=left.get_lines(),
        loc="outside lower center",
        ncols=3,
        fontsize=_SMALL - 1,
        frameon=False,
    )

    length, base = BOUNDS[_SHOWN][:2]
    offsets = np.arange(_FROM, length + 1)  # (n,)
    for value, colour, tag, label in (
        (base, _OKABE_ITO[2], "at", "$b^*$"),
        (base * (1 - 1e-3), _OKABE_ITO[1], "below", r"$b^*(1 - 10^{-3})$"),
    ):
        right.plot(
            offsets,
            similarity.dot_profile(offsets, width, base=value),
            color=colour,
            lw=1.0,
            gid=f"sum-{tag}",
            label=label,
        )
    right.axhline(0.0, color=_MUTED, lw=0.8, ls="--", gid="zero")
    right.set_xlabel(f"offset $m$ (width {width}, $L$ = {length:,})", fontsize=_FONT)
    right.set_ylabel(r"$B(m) = \sum_i \cos(m\, b^{-2i/d})$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    right.set_title("just below the bound the sum dips under 0", fontsize=_SMALL, color=_INK)
    return fig
