"""Figures about the base bound of Men et al.: the rotary sum up to a length (Prop. 38).

For a head of width d with speeds w_i = b^(-2i/d), B(m) = sum_i cos(m w_i) is the
rotary score of a query with itself at offset m when every pair has length 1. In
posenc's reading of Men et al., the condition is B(m) >= 0 at every integer m up to
the context L, and the smallest base that meets it is posenc's reading of their lower
bound of the base for L (posenc's computation, not numbers from the paper). The
condition is not monotone in b. The figure draws, for width 128, the smallest base of
the grid 2 * 1.001^k that meets it, from the certificate data/base-bound.json
(written by tools/base_bound_table.py; Proposition 38's proof checks every entry), and
:data:`BOUNDS`, where :func:`posenc.similarity.base_bound`'s coarser search stops.

Reference: X. Men, M. Xu, B. Wang, Q. Zhang, H. Lin, X. Han, W. Chen, "Base of RoPE
Bounds Context Length", arXiv:2405.14591 (2024).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from .. import similarity
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_base_bound"]

#: The certificate: for each context, the smallest grid base that meets the condition.
CERTIFICATE = Path(__file__).resolve().parents[2] / "data/base-bound.json"

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
    ("Qwen2.5-7B-Instruct, Qwen3-8B", 1.0e6, 32768),
    ("SmolLM3-3B", 5.0e6, 65536),
    ("Qwen3-VL-8B", 5.0e6, 262144),
)
#: The row whose sum the right panel draws, and the offsets it shows.
_SHOWN = 0
_FROM = 3950
#: The right panel's vertical range: near 0, where the two curves part (they reach 17).
_YLIM = (-1.0, 5.0)


def _certificate() -> dict:
    return json.loads(CERTIFICATE.read_text(encoding="utf-8"))


def _grid_rows() -> list[tuple[int, int, float]]:
    """The certificate's rows: (L, k, b_k), b_k the smallest base of the grid
    ``start * ratio**k`` that meets the condition up to L (width 128)."""
    return [(int(r["length"]), int(r["index"]), float(r["base"])) for r in _certificate()["rows"]]


def fig_base_bound(width: int = 128) -> Figure:
    """The smallest grid base of Men et al.'s condition against the context, and the sum.

    Left: the smallest base of the grid 2 * 1.001^k that meets the condition up to L
    (:func:`_grid_rows`, the certificate) and, dashed, b*(L) of :data:`BOUNDS`, where
    posenc.similarity.base_bound's search stops, against L on log axes; the shipped kinds
    of :data:`MODELS` as points at (length, base): filled where B(m) >= 0 for every m up
    to the length (:func:`posenc.similarity.first_negative` finds no negative offset),
    crosses where it does not; a model whose colour repeats an earlier one's gets
    another marker. Right: B(m) for L = 4096 at the smallest grid base and at
    the grid base one step below, over the last offsets up to L, near 0: the second dips
    below 0 (circled).
    """
    width = int(width)
    if width != 128:
        raise ValueError(f"the bounds kept are for width 128, got {width!r}")
    fig = _figure(4.4)
    left, right = fig.subplots(1, 2)
    rows = _grid_rows()
    lengths = np.array([row[0] for row in rows], dtype=np.float64)  # (rows,)
    grid = np.array([row[2] for row in rows])  # (rows,)
    left.plot(
        lengths, grid, "o-", color=_INK, lw=1.2, ms=4, gid="grid",
        label="smallest base, grid $2 \\cdot 1.001^k$",
    )  # fmt: skip
    stops = np.array([row[1] for row in BOUNDS])  # (rows,)
    left.plot(
        [row[0] for row in BOUNDS], stops, "--", color=_MUTED, lw=1.0, gid="bound",
        label="$b^*(L)$: where base_bound stops",
    )  # fmt: skip
    for index, (name, base, length) in enumerate(MODELS):
        holds = similarity.first_negative(length, width, base=base) is None
        colour = _OKABE_ITO[index % len(_OKABE_ITO)]
        # The palette has fewer colours than there are models: a model that repeats a
        # colour gets another marker (a circle, or a plus where it fails).
        marker = ("s", "X") if index < len(_OKABE_ITO) else ("o", "P")
        left.plot(
            [length],
            [base],
            marker[0] if holds else marker[1],
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

    length, k, base = rows[_SHOWN]
    offsets = np.arange(_FROM, length + 1)  # (n,)
    for value, colour, tag, label in (
        (base, _OKABE_ITO[2], "at", "smallest grid base"),
        (similarity.grid_base(k - 1), _OKABE_ITO[1], "below", "one grid step (0.1%) lower"),
    ):
        right.plot(
            offsets,
            similarity.dot_profile(offsets, width, base=value),
            color=colour,
            lw=1.0,
            gid=f"sum-{tag}",
            label=label,
        )
    sums = similarity.dot_profile(offsets, width, base=similarity.grid_base(k - 1))  # (n,)
    lowest = int(np.argmin(sums))
    right.plot(
        [offsets[lowest]], [sums[lowest]], "o", ms=5, mfc="none", mec=_OKABE_ITO[1],
        gid="dip", label=f"$B < 0$ at $m$ = {int(offsets[lowest]):,}",
    )  # fmt: skip
    right.set_ylim(*_YLIM)
    right.axhline(0.0, color=_MUTED, lw=0.8, ls="--", gid="zero")
    right.set_xlabel(f"offset $m$ (width {width}, $L$ = {length:,})", fontsize=_FONT)
    right.set_ylabel(r"$B(m) = \sum_i \cos(m\, b^{-2i/d})$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    right.set_title("one grid step lower the sum dips under 0", fontsize=_SMALL, color=_INK)
    return fig
