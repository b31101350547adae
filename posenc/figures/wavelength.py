"""Figures about the base of a rotary head and the wavelengths of its pairs (Proposition 22).

Pair i of a rotary head of width d with base b turns once every
``lambda_i = 2*pi * b**(2i/d)`` positions. Which pairs complete a turn within a
model's training length L0 depends on b, d and L0; with partial rotary, only the
first ``rotary_dim`` coordinates rotate and d is ``rotary_dim``.

References: J. Su et al., "RoFormer", arXiv:2104.09864 (2021); H. Touvron et al.,
"Llama 2", arXiv:2307.09288 (2023); A. Grattafiori et al., "The Llama 3 Herd of
Models", arXiv:2407.21783 (2024); B. Rozière et al., "Code Llama", arXiv:2308.12950
(2023); S. Black et al., "GPT-NeoX-20B" (2022).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_wavelength_ladder"]

#: The full-rotary models drawn on the left: key, label, base, training length L0.
MODELS = (
    ("llama2", "Llama 2", 10000.0, 4096),
    ("llama3", "Llama 3", 500000.0, 8192),
    ("code_llama", "Code Llama", 1000000.0, 16384),
)
#: Their head width.
HEAD_DIM = 128
#: GPT-NeoX-20B, drawn on the right: head_dim 6144/64, rotary_pct 0.25, base, L0.
NEOX = ("GPT-NeoX-20B", 96, 0.25, 10000.0, 2048)


def _ladder(ax, x, lam, length, colour, key, label):
    """One ladder: a thin line through every rung, filled dots below L0, hollow above."""
    below = lam < length  # (pairs,): the pairs that turn within L0
    ax.plot(x, lam, color=colour, lw=0.8, alpha=0.6, gid=f"ladder-{key}")
    ax.plot(
        x[below],
        lam[below],
        "o",
        color=colour,
        ms=3.6,
        gid=f"turns-{key}",
        label=f"{label}: {int(below.sum())} of {len(lam)} turn",
    )
    ax.plot(
        x[~below],
        lam[~below],
        "o",
        mfc="white",
        mec=colour,
        mew=0.9,
        ms=3.6,
        gid=f"never-{key}",
    )
    ax.axhline(length, color=colour, lw=0.9, ls="--", gid=f"l0-{key}")


def fig_wavelength_ladder() -> Figure:
    """Rotary wavelengths per pair for three bases and for partial rotary, with each L0.

    Left: the wavelength 2 pi b^(2i/128) of every pair i of a 128-wide head, on a
    log axis, for Llama 2 (b = 10^4), Llama 3 (5 x 10^5) and Code Llama (10^6),
    from ``posenc.rope``. Each model's training length L0 (4096, 8192, 16384) is a
    dashed line of its colour; filled dots are the pairs that complete a turn
    within L0, hollow dots those that do not. All three ladders start at 2 pi.
    Right: GPT-NeoX-20B, whose heads rotate only 24 of 96 coordinates: its 12
    rotated pairs with the exponent over rotary_dim = 24 (as the code does), and
    the same pairs under the misreading with the exponent over head_dim = 96
    (grey crosses), against L0 = 2048.
    """
    colours = _OKABE_ITO[:3]
    fig = _figure(4.4)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1.0]})

    pairs = np.arange(HEAD_DIM // 2)  # (64,)
    for (key, label, base, length), colour in zip(MODELS, colours, strict=True):
        inv, _ = rope.inv_freq("default", HEAD_DIM, base=base)  # (64,)
        lam = rope.wavelengths(inv)  # (64,)
        _ladder(left, pairs, lam, length, colour, key, label)
        left.text(
            pairs[-1] + 14.5,
            length * 1.06,
            f"$L_0$ = {length:,}",
            fontsize=_SMALL,
            color=colour,
            va="bottom",
            ha="right",
        )
    left.axhline(2 * np.pi, color=_MUTED, lw=0.6, ls=":", gid="two-pi")
    left.text(
        pairs[-1] + 14.5,
        2 * np.pi * 1.06,
        r"$2\pi$",
        fontsize=_SMALL,
        color=_MUTED,
        va="bottom",
        ha="right",
    )
    left.set_yscale("log")
    left.set_xlim(-1.5, pairs[-1] + 15)
    left.set_xlabel(f"pair i (head width d = {HEAD_DIM})", fontsize=_FONT)
    left.set_ylabel(r"wavelength $2\pi\, b^{2i/d}$ (positions, log scale)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.set_title("filled: turns within $L_0$; hollow: never", fontsize=_SMALL, color=_INK)
    left.legend(loc="upper left", fontsize=_SMALL, frameon=False, handlelength=1.0)

    name, head_dim, factor, base, length = NEOX
    dim = rope.rotary_dim(head_dim, factor)
    inv, _ = rope.inv_freq("default", head_dim, base=base, partial_rotary_factor=factor)
    rotated = np.arange(dim // 2)  # (12,)
    lam = rope.wavelengths(inv)  # (12,)
    _ladder(right, rotated, lam, length, _OKABE_ITO[3], "neox", f"exponent over {dim}")
    misread = rope.wavelengths(rope.default_inv_freq(head_dim, base)[: dim // 2])  # (12,)
    right.plot(
        rotated,
        misread,
        "x",
        color=_MUTED,
        ms=4.5,
        mew=1.1,
        gid="misread-neox",
        label=f"misreading: over {head_dim}",
    )
    right.text(
        rotated[0] - 0.4,
        length * 1.06,
        f"$L_0$ = {length:,}",
        fontsize=_SMALL,
        color=_OKABE_ITO[3],
        ha="left",
        va="bottom",
    )
    right.set_yscale("log")
    right.set_ylim(left.get_ylim())
    right.set_xlim(-0.7, rotated[-1] + 0.7)
    right.set_xticks(rotated[::2])
    right.set_xlabel(f"rotated pair i ({dim} of {head_dim} rotate)", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.set_title(f"{name}: partial rotary", fontsize=_SMALL, color=_INK)
    right.legend(loc="upper left", fontsize=_SMALL, frameon=False, handlelength=1.0)
    return fig
