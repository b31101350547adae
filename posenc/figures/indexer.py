"""Figures about two rotary pairings in one model: the sparse-attention indexer (Prop. 37).

DeepSeek-V3.2's lightning indexer turns the first ``qk_rope_head_dim`` coordinates of each
index head with the split-half pairing (coordinate ``i`` with ``i + r/2``), while the
attention's rotary part of the same model pairs adjacent coordinates; GLM-5's indexer pairs
adjacent ones. Adjacent-trained weights (GLM-5's) run split-half turn coordinate ``c`` at
the speed ``w_(c mod r/2)`` instead of the trained ``w_(floor(c/2))``; the figure uses
DeepSeek-V3.2-Exp's speeds as the example, since no GLM-5 config is kept.

Reference: Hugging Face Transformers 5.24, ``models/deepseek_v32/modeling_deepseek_v32.py``
(``DeepseekV32Indexer``, ``apply_rotary_pos_emb``, ``apply_rotary_pos_emb_interleave``) and
``models/glm_moe_dsa/modeling_glm_moe_dsa.py``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_indexer_pairings"]

#: DeepSeek-V3.2-Exp's rotary as its config gives it (data/configs/deepseek-v3.2-exp.json):
#: the rotated width qk_rope_head_dim, the base and the YaRN block.
DEEPSEEK = {
    "name": "DeepSeek-V3.2-Exp",
    "rope_width": 64,
    "base": 1.0e4,
    "factor": 40.0,
    "original_max_position_embeddings": 4096,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
}
_TRAINED = _OKABE_ITO[0]
_WRONG = _OKABE_ITO[3]


def speeds() -> np.ndarray:
    """DeepSeek-V3.2-Exp's rotary speeds, from :func:`posenc.rope.inv_freq` (YaRN)."""
    params = {k: v for k, v in DEEPSEEK.items() if k not in ("name", "rope_width", "base")}
    return rope.inv_freq("yarn", DEEPSEEK["rope_width"], base=DEEPSEEK["base"], **params)[0]


def coordinate_speeds(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The speed of each coordinate c: trained adjacent ``w[c // 2]``, split-half ``w[c % h]``."""
    c = np.arange(2 * w.size)  # (r,)
    return w[c // 2], w[c % w.size]


def fig_indexer_pairings(offsets: int = 48) -> Figure:
    """An adjacent-trained rotary part read split-half: one coordinate's score, and every speed.

    Left: for DeepSeek-V3.2-Exp's speeds (an example), the score of a unit query and key
    both equal to ``e_h`` (``h = r/2``) against the offset ``0 .. offsets``: trained
    (adjacent) it is ``cos(j w_(h/2))``, nearly flat; split-half code turns it at
    ``w_0 = 1``, ``cos(j)``.
    Right: the speed of each coordinate ``c`` of the rotated slice, trained
    (``w_(floor(c/2))``) and under the split-half code (``w_(c mod h)``), on a log axis;
    only ``c = 0`` and ``c = r - 1`` keep theirs.
    """
    if isinstance(offsets, bool) or not isinstance(offsets, int) or not 4 <= offsets <= 4096:
        raise ValueError(f"offsets must be an integer in [4, 4096], got {offsets!r}")
    w = speeds()  # (h,)
    half = w.size
    fig = _figure(4.6)
    left, right = fig.subplots(1, 2)
    j = np.arange(offsets + 1)  # (J,)
    left.plot(j, np.cos(j * w[half // 2]), "o-", ms=2.5, lw=1.2, color=_TRAINED,
              gid="score-trained", label=f"trained (adjacent): pair {half // 2}")  # fmt: skip
    left.plot(j, np.cos(j * w[0]), "s-", ms=2.5, lw=1.0, color=_WRONG,
              gid="score-wrong", label="split-half code: pair 0")  # fmt: skip
    left.axhline(0, color=_INK, lw=0.5)
    left.set_xlabel(f"offset $j = n - m$ ({DEEPSEEK['name']})", fontsize=_FONT)
    left.set_ylabel(f"score of $q = k = e_{{{half}}}$", fontsize=_FONT)
    left.set_ylim(-1.1, 1.75)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="upper right", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    left.set_title("one coordinate, two pairings", fontsize=_SMALL)

    trained, wrong = coordinate_speeds(w)  # (r,) each
    c = np.arange(trained.size)  # (r,)
    right.plot(c, trained, "o", ms=3.0, color=_TRAINED, gid="speed-trained",
               label=r"trained: $\omega_{\lfloor c/2 \rfloor}$")  # fmt: skip
    right.plot(c, wrong, "x", ms=3.5, color=_WRONG, gid="speed-wrong",
               label=r"split-half code: $\omega_{c \,\mathrm{mod}\, h}$")  # fmt: skip
    right.set_yscale("log")
    right.set_xlabel(f"coordinate $c$ of the rotated slice ($r$ = {trained.size})", fontsize=_FONT)
    right.set_ylabel(r"speed (radians per position)", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="lower left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    right.set_title("only the first and last keep their speed", fontsize=_SMALL)
    return fig
