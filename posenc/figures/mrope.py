"""Figures about M-RoPE, Qwen2-VL's rotary embedding over time, height and width (Prop. 30).

Reference: P. Wang et al., "Qwen2-VL: Enhancing Vision-Language Model's Perception of
the World at Any Resolution", arXiv:2409.12191 (2024); the section layout follows
Hugging Face's ``apply_multimodal_rotary_pos_emb`` (contiguous sections, split halves).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_mrope_sections"]

# Qwen2-VL's rotary configuration: head width, base and mrope_section (pairs per axis).
_HEAD_DIM = 128
_BASE = 1.0e6
_SECTIONS = (16, 24, 24)
_AXES = ("temporal", "height", "width")
_COLOURS = (_OKABE_ITO[0], _OKABE_ITO[1], _OKABE_ITO[2])


def _score(offsets: np.ndarray, axis: int) -> np.ndarray:
    """Score of q = k = (1, ..., 1) with the key moved by ``offsets`` along one axis."""
    inv = rope.default_inv_freq(_HEAD_DIM, _BASE)  # (64,)
    thw = np.zeros((3, offsets.size), dtype=np.int64)  # (3, L)
    thw[axis] = offsets
    angles = rope.mrope_angles(thw, inv, _SECTIONS)  # (L, 64)
    # With q = k the pair (j, j + d/2) contributes |q_j|^2 cos(angle) = 2 cos(angle).
    return 2.0 * np.cos(angles).sum(axis=1)  # (L,)


def fig_mrope_sections(max_offset: int = 100) -> Figure:
    """Qwen2-VL's 64 rotary pairs in three contiguous sections, and the score along each axis.

    Left: the wavelength 2 pi / theta_j of each pair of a 128-wide head (base 1e6), on a
    log axis, coloured by the axis that turns it (``posenc.rope.mrope_angles`` probed
    with a unit step on each axis): temporal pairs 0-15, height 16-39, width 40-63.
    Right: the score of q = k = (1, ..., 1) against the key's offset along one axis,
    0 to ``max_offset``, for each axis: time moves it fastest, width hardly at all.
    """
    if isinstance(max_offset, bool) or not isinstance(max_offset, int) or not 1 <= max_offset:
        raise ValueError(f"max_offset must be a positive integer, got {max_offset!r}")
    inv = rope.default_inv_freq(_HEAD_DIM, _BASE)  # (64,)
    waves = rope.wavelengths(inv)  # (64,)
    pairs = np.arange(inv.size)  # (64,)

    fig = _figure(4.0)
    left, right = fig.subplots(1, 2)
    for axis, name in enumerate(_AXES):
        probe = np.zeros((3, 1), dtype=np.int64)
        probe[axis, 0] = 1
        mine = rope.mrope_angles(probe, inv, _SECTIONS)[0] != 0  # (64,)
        left.plot(
            pairs[mine],
            waves[mine],
            "o",
            ms=3.0,
            color=_COLOURS[axis],
            gid=f"pairs-{name}",
            label=name,
        )
    left.set_yscale("log")
    left.set_xlabel("pair $j$", fontsize=_FONT)
    left.set_ylabel(r"wavelength $2\pi/\theta_j$ (positions)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="upper left", fontsize=_SMALL, frameon=False)
    left.set_title("Qwen2-VL, $d = 128$, sections 16, 24, 24", fontsize=_SMALL, color=_INK)

    offsets = np.arange(max_offset + 1)  # (L,)
    for axis, name in enumerate(_AXES):
        right.plot(
            offsets,
            _score(offsets, axis),
            color=_COLOURS[axis],
            lw=1.5,
            gid=f"score-{name}",
            label=f"key moved in {name}",
        )
    right.set_xlabel("offset along one axis", fontsize=_FONT)
    right.set_ylabel(r"score $q^\top R k$, $q = k = \mathbf{1}$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="lower left", fontsize=_SMALL, frameon=False)
    right.set_title("the same distance, three different scores", fontsize=_SMALL, color=_INK)
    return fig
