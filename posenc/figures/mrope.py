"""Figures about M-RoPE, rotary over time, height and width, in its two layouts (Prop. 30).

References: P. Wang et al., "Qwen2-VL: Enhancing Vision-Language Model's Perception of
the World at Any Resolution", arXiv:2409.12191 (2024); Transformers 5.24,
``models/qwen2_vl/modeling_qwen2_vl.py`` (chunked sections) and
``models/qwen3_vl/modeling_qwen3_vl.py`` (interleaved), both with split halves.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_mrope_sections"]

#: The two models drawn: Qwen2-VL (chunked) and Qwen3-VL 8B (interleaved, as its config
#: data/configs/qwen3-vl-8b-instruct.json gives it): head width, base, mrope_section.
MODELS = (
    {"name": "Qwen2-VL", "tag": "", "head_dim": 128, "base": 1.0e6,
     "sections": (16, 24, 24), "layout": "chunked"},
    {"name": "Qwen3-VL 8B", "tag": "q3-", "head_dim": 128, "base": 5.0e6,
     "sections": (24, 20, 20), "layout": "interleaved_thw"},
)  # fmt: skip
_AXES = ("temporal", "height", "width")
_COLOURS = (_OKABE_ITO[0], _OKABE_ITO[1], _OKABE_ITO[2])


def _score(model: dict, offsets: np.ndarray, axis: int) -> np.ndarray:
    """Score of q = k = (1, ..., 1) with the key moved by ``offsets`` along one axis."""
    inv = rope.default_inv_freq(model["head_dim"], model["base"])  # (P,)
    thw = np.zeros((3, offsets.size), dtype=np.int64)  # (3, L)
    thw[axis] = offsets
    angles = rope.mrope_angles(thw, inv, model["sections"], model["layout"])  # (L, P)
    # With q = k the pair (j, j + d/2) contributes |q_j|^2 cos(angle) = 2 cos(angle).
    return 2.0 * np.cos(angles).sum(axis=1)  # (L,)


def _row(left, right, model: dict, offsets: np.ndarray) -> None:
    inv = rope.default_inv_freq(model["head_dim"], model["base"])  # (P,)
    waves = rope.wavelengths(inv)  # (P,)
    pairs = np.arange(inv.size)  # (P,)
    tag, name = model["tag"], model["name"]
    for axis, axis_name in enumerate(_AXES):
        probe = np.zeros((3, 1), dtype=np.int64)
        probe[axis, 0] = 1
        mine = rope.mrope_angles(probe, inv, model["sections"], model["layout"])[0] != 0  # (P,)
        left.plot(
            pairs[mine],
            waves[mine],
            "o",
            ms=3.0,
            color=_COLOURS[axis],
            gid=f"{tag}pairs-{axis_name}",
            label=axis_name,
        )
        right.plot(
            offsets,
            _score(model, offsets, axis),
            color=_COLOURS[axis],
            lw=1.5,
            gid=f"{tag}score-{axis_name}",
            label=f"key moved in {axis_name}",
        )
    layout = "chunked" if model["layout"] == "chunked" else "interleaved"
    sections = ", ".join(str(n) for n in model["sections"])
    left.set_yscale("log")
    left.set_ylabel(r"wavelength $2\pi/\theta_j$", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.set_title(f"{name}: {layout}, sections {sections}", fontsize=_SMALL, color=_INK)
    right.set_ylabel(r"score, $q = k = \mathbf{1}$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.set_title(f"{name}: the same distance, three scores", fontsize=_SMALL, color=_INK)


def fig_mrope_sections(max_offset: int = 100) -> Figure:
    """M-RoPE's pairs by axis, chunked (Qwen2-VL) and interleaved (Qwen3-VL), and the scores.

    Each row is one model. Left: the wavelength 2 pi / theta_j of each pair of a 128-wide
    head on a log axis, coloured by the axis that turns it (``posenc.rope.mrope_angles``
    probed with a unit step on each axis). Top, Qwen2-VL (base 1e6, chunked 16, 24, 24):
    temporal pairs 0-15, height 16-39, width 40-63. Bottom, Qwen3-VL 8B (base 5e6,
    interleaved 24, 20, 20): height 1, 4, ..., 58, width 2, 5, ..., 59, temporal the rest.
    Right: the score of q = k = (1, ..., 1) against the key's offset along one axis,
    0 to ``max_offset``, for each axis, in the same colours (one legend, top left).
    """
    if isinstance(max_offset, bool) or not isinstance(max_offset, int) or not 1 <= max_offset:
        raise ValueError(f"max_offset must be a positive integer, got {max_offset!r}")
    offsets = np.arange(max_offset + 1)  # (L,)
    fig = _figure(5.5)
    axes = fig.subplots(2, 2)
    for (left, right), model in zip(axes, MODELS, strict=True):
        _row(left, right, model, offsets)
    axes[0][0].legend(loc="upper left", fontsize=_SMALL, frameon=False)
    axes[1][0].set_xlabel("pair $j$", fontsize=_FONT)
    axes[1][1].set_xlabel("offset along one axis", fontsize=_FONT)
    return fig
