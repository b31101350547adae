"""Figures about slow rotary pairs, which carry almost no position (Prop. 32).

Over a context of C positions, pair i of a rotary head never turns by more than
``w_i * C`` radians between a query and a key, so when ``w_i * C <= delta`` its term of
the score stays within ``delta * |q_i| |k_i|`` of the position-free ``q_i . k_i``.

Reference: F. Barbero, A. Vitvitskyi, C. Perivolaropoulos, R. Pascanu, P. Velickovic,
"Round and Round We Go! What makes Rotary Positional Encodings useful?",
arXiv:2410.06205 (ICLR 2025): the slowest pairs as semantic channels, and p-RoPE.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_slow_pairs"]

#: Shipped rotary ladders, as their config.json files give them: name, scheme, head
#: width, partial_rotary_factor, base, and the context (max_position_embeddings).
LADDERS = (
    ("Llama 2 7B", "default", 128, 1.0, 1.0e4, 4096),
    ("Code Llama 7B", "default", 128, 1.0, 1.0e6, 16384),
    ("SmolLM3-3B", "default", 128, 1.0, 5.0e6, 65536),
    ("Qwen3-VL-8B", "default", 128, 1.0, 5.0e6, 262144),
    ("Gemma 4 31B, global", "proportional", 512, 0.25, 1.0e6, 262144),
)
#: The ladder of the right panel (an index into LADDERS) and the pairs it follows.
_SHOWN = 2


def _speeds(scheme: str, head_dim: int, share: float, base: float) -> np.ndarray:
    """The speeds of one ladder, from :func:`posenc.rope.inv_freq` (0 for stopped pairs)."""
    if scheme == "proportional":
        return rope.inv_freq(scheme, head_dim, base=base, partial_rotary_factor=share)[0]
    return rope.inv_freq(scheme, head_dim, base=base)[0]


def fig_slow_pairs(delta: float = 0.1) -> Figure:
    """Slow rotary pairs in shipped configs: the most each pair turns over the context.

    Left: for each ladder of :data:`LADDERS`, ``w_i * C`` (the largest angle pair ``i``
    turns between a query and a key within the context ``C``) against ``i / (d/2)``, on a
    log axis; the dashed line is ``delta``, and the pairs below it are slow. Stopped pairs
    (speed 0) are left out. Right: for SmolLM3-3B, the term of one pair in the score
    against the offset, for unit ``q`` and ``k = R(-pi/2) q`` (so ``q . k = 0``): its
    slowest pair stays inside the band ``+-delta``, a faster pair sweeps the whole range.
    """
    if isinstance(delta, bool) or not isinstance(delta, int | float) or not 0 < delta < np.pi:
        raise ValueError(f"delta must be a real number in (0, pi), got {delta!r}")
    fig = _figure(4.6)
    left, right = fig.subplots(1, 2)
    for index, (name, scheme, width, share, base, context) in enumerate(LADDERS):
        w = _speeds(scheme, width, share, base)  # (d/2,)
        turning = w > 0
        where = np.flatnonzero(turning) / w.size  # (turning,)
        left.plot(
            where,
            w[turning] * context,
            "o-",
            ms=2.0,
            lw=0.8,
            color=_OKABE_ITO[index % len(_OKABE_ITO)],
            gid=f"angles-{index}",
            label=f"{name}, $C$ = {context:,}",
        )
    left.axhline(delta, color=_INK, lw=1.0, ls="--", gid="delta")
    left.set_yscale("log")
    left.set_xlabel("pair $i$ / ($d$/2)", fontsize=_FONT)
    left.set_ylabel(r"largest angle $\omega_i C$ (radians)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    fig.legend(
        handles=left.get_lines()[: len(LADDERS)],
        loc="outside lower center",
        ncols=3,
        fontsize=_SMALL - 1,
        frameon=False,
    )
    left.set_title(f"below the dashed line ($\\delta$ = {delta:g}): slow", fontsize=_SMALL)

    name, scheme, width, share, base, context = LADDERS[_SHOWN]
    w = _speeds(scheme, width, share, base)  # (d/2,)
    offsets = np.linspace(0, context, 801)  # (801,)
    slowest, faster = w.size - 1, w.size - 24
    for pair, colour, tag in ((slowest, _OKABE_ITO[2], "slowest"), (faster, _MUTED, "faster")):
        # q = (1, 0), k = R(-pi/2) q = (0, -1): q^T R(t) k = sin(t).
        right.plot(
            offsets,
            np.sin(offsets * w[pair]),
            color=colour,
            lw=1.4,
            gid=f"term-{tag}",
            label=f"pair {pair}: $\\omega C$ = {w[pair] * context:.3g}",
        )
    right.axhspan(-delta, delta, color=_OKABE_ITO[2], alpha=0.15, lw=0, gid="band")
    right.set_xlabel(f"offset $n - m$ ({name})", fontsize=_FONT)
    right.set_ylabel(r"term $q^\top R((n-m)\omega) k$, $q^\top k = 0$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="lower left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    right.set_title(r"a slow pair stays within $\pm\delta$", fontsize=_SMALL, color=_INK)
    return fig
