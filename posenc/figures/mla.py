"""Figures about multi-head latent attention's decoupled rotary part (Prop. 36).

MLA caches, per token and layer, a latent ``c`` of ``kv_lora_rank`` numbers and one rotary
key ``k_R`` of ``qk_rope_head_dim`` numbers shared by every head; multi-head attention with
the same heads would cache each head's key and value. A head's score splits into a content
part ``q_C . k_C``, which does not depend on the positions, and a rotary part
``q_R^T R(n - m) k_R``, which depends on them through the offset only.

Reference: DeepSeek-AI, "DeepSeek-V2: A Strong, Economical, and Efficient
Mixture-of-Experts Language Model", arXiv:2405.04434, sections 2.1.2 to 2.1.4.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_mla_cache"]

#: DeepSeek-V3 as its config gives it (data/configs/deepseek-v3.json): heads, the widths
#: of a head's content key, rotary part and value, the latent, and the rotary scheme.
DEEPSEEK_V3 = {
    "name": "DeepSeek-V3",
    "heads": 128,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "kv_lora_rank": 512,
    "base": 1.0e4,
    "yarn": {
        "factor": 40,
        "beta_fast": 32,
        "beta_slow": 1,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "max_position_embeddings": 163840,
    },
}
#: The content part of the right panel: a fixed number, whatever the positions.
CONTENT = 0.5


def speeds() -> np.ndarray:
    """DeepSeek-V3's rotary speeds, from :func:`posenc.rope.inv_freq` (YaRN)."""
    table = DEEPSEEK_V3
    return rope.inv_freq("yarn", table["qk_rope_head_dim"], base=table["base"], **table["yarn"])[0]


def cache_parts() -> dict[str, dict[str, int]]:
    """Numbers cached per token per layer, by kind of attention and by part."""
    t = DEEPSEEK_V3
    return {
        "multi-head attention": {
            "keys": t["heads"] * (t["qk_nope_head_dim"] + t["qk_rope_head_dim"]),
            "values": t["heads"] * t["v_head_dim"],
        },
        "MLA": {"latent $c$": t["kv_lora_rank"], "rotary key $k_R$": t["qk_rope_head_dim"]},
    }


def fig_mla_cache(offsets: int = 200) -> Figure:
    """DeepSeek-V3's cache per token per layer, MHA against MLA, and a score split in two.

    Left: horizontal stacked bars of the numbers cached per token per layer, on a log axis:
    multi-head attention with DeepSeek-V3's heads (every head's key and value) and MLA (the
    latent and the one rotary key). Right: the score of one head against the offset
    ``j = m - n`` for ``j = 0 .. offsets``: a content part fixed at :data:`CONTENT`, a
    rotary part ``q_R^T R(-j w) k_R`` with ``q_R = k_R`` holding ``(1, 0)`` in every pair,
    scaled to unit length, at DeepSeek-V3's speeds, and their sum.
    """
    if isinstance(offsets, bool) or not isinstance(offsets, int) or not 8 <= offsets <= 4096:
        raise ValueError(f"offsets must be an integer in [8, 4096], got {offsets!r}")
    fig = _figure(4.2)
    left, right = fig.subplots(1, 2, width_ratios=(1.0, 1.2))
    parts = cache_parts()
    colours = iter(_OKABE_ITO)
    for row, (kind, pieces) in enumerate(parts.items()):
        start = 1.0
        for name, size in pieces.items():
            left.barh(
                row,
                size,
                left=start,
                height=0.6,
                color=next(colours),
                gid=f"cache-{kind}-{name}",
                label=f"{name}: {size:,}",
            )
            start += size
        left.text(start * 1.15, row, f"{start - 1:,.0f}", va="center", fontsize=_SMALL, color=_INK)
    left.set_xscale("log")
    left.set_xlim(1, 4e5)
    left.set_yticks(range(len(parts)), list(parts), fontsize=_SMALL)
    left.invert_yaxis()
    left.set_xlabel("numbers cached per token per layer", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.22),
        ncols=2,
        fontsize=_SMALL - 1,
        frameon=False,
    )
    left.set_title(f"{DEEPSEEK_V3['name']}, {DEEPSEEK_V3['heads']} heads", fontsize=_SMALL)

    w = speeds()  # (P,)
    j = np.arange(offsets + 1)  # (J,)
    rotary_part = np.cos(j[:, None] * w[None, :]).sum(axis=1) / w.size  # (J,)
    content = np.full(j.shape, CONTENT)  # (J,)
    right.plot(j, content, color=_OKABE_ITO[0], lw=1.4, gid="content", label="content part")
    right.plot(j, rotary_part, color=_OKABE_ITO[1], lw=1.2, gid="rotary", label="rotary part")
    right.plot(j, content + rotary_part, color=_INK, lw=1.0, ls="--", gid="total", label="score")
    right.axhline(0, color=_MUTED, lw=0.6)
    right.set_xlabel("offset $j = m - n$", fontsize=_FONT)
    right.set_ylabel("term of the score", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper right", fontsize=_SMALL - 1, frameon=False)
    right.set_title("only the rotary part moves with the offset", fontsize=_SMALL, color=_INK)
    return fig
