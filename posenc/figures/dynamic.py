"""Figures about dynamic NTK scaling (Proposition 26).

Dynamic NTK grows a rotary model's base with the current length ``L``: past the
training length ``L0`` it is ``b * (s L / L0 - (s - 1))**(d/(d-2))``, and up to
``L0`` it is ``b``. Static NTK-aware scaling uses ``b * s**(d/(d-2))`` at every
length. Both bases come from :mod:`posenc.rope` (``dynamic_base`` and
``ntk_base``), the functions Proposition 26 checks against mpmath.

References: emozilla, "Dynamically Scaled RoPE further increases performance of
long context LLaMA with zero fine-tuning", Reddit r/LocalLLaMA (2023), no paper;
Hugging Face Transformers, ``ROPE_INIT_FUNCTIONS["dynamic"]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_dynamic_ntk"]

_BASE = 10000.0
_STEPS = 64  # lengths drawn per training length: L = L0 k / 64


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


def _check_factor(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1 < value <= 16:
        raise ValueError(f"{name} must be a number > 1 and <= 16, got {value!r}")
    return float(value)


def _factors(value: object) -> tuple[float, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str) or not 1 <= len(value) <= 4:
        raise ValueError(f"factors must be a sequence of 1 to 4 numbers, got {value!r}")
    return tuple(_check_factor("each factor", v) for v in value)


def _slowest_reach(
    bases: np.ndarray, lengths: np.ndarray, train_length: int, dim: int
) -> np.ndarray:
    """The slowest pair's angle at offset L, over its angle at offset L0 in training.

    With base B the slowest pair turns at B**(-(d-2)/d), so the ratio is
    (L / L0) * (b / B)**((d-2)/d): L / L0 without scaling, L / (c L0) when
    B = b c**(d/(d-2)) (Proposition 25: that pair is slowed by exactly c).
    """
    return lengths / train_length * (_BASE / bases) ** ((dim - 2) / dim)


def fig_dynamic_ntk(
    factors: Sequence[float] = (2, 4, 8), head_dim: int = 128, train_length: int = 4096
) -> Figure:
    """Dynamic NTK's base factor grows with the length and passes static NTK's at (2s - 1) L0 / s.

    Left: the base factor b'(L)/b of dynamic NTK against L/L0, for each factor
    s in ``factors`` (from ``posenc.rope.dynamic_base``), on a log axis, with
    static NTK's factor s**(d/(d-2)) as a dashed horizontal line of the same
    colour (``posenc.rope.ntk_base``). Each curve is 1 up to L = L0, crosses
    its line at L = (2s - 1) L0 / s (open circle) and is marked at L = s L0
    (dot), where it is (s**2 - s + 1)**(d/(d-2)). Right: the slowest pair's
    angle at offset L over its angle at offset L0 in training, from the same
    bases: L/L0 with no scaling (grey), L/(s L0) under static NTK (dashed) and
    L/(c L0) under dynamic NTK (solid), c = s L/L0 - (s - 1) past L0.
    """
    factors = _factors(factors)
    head_dim = _check_int("head_dim", head_dim, 4, 256)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even, got {head_dim}")
    train_length = _check_int("train_length", train_length, 64, 1 << 16)

    right_end = max(factors) + 0.5
    lengths = train_length * np.arange(1, int(right_end * _STEPS) + 1) // _STEPS  # (K,)
    ratio = lengths / train_length  # (K,): L / L0
    fig = _figure(4.0)
    left, right = fig.subplots(1, 2)
    right.plot(ratio, ratio, color=_MUTED, lw=1.0, gid="reach-none", label="no scaling")
    for colour, s in zip(_OKABE_ITO, factors, strict=False):
        grown = np.array(
            [rope.dynamic_base(_BASE, s, int(n), train_length, head_dim) for n in lengths]
        )  # (K,)
        static = rope.ntk_base(_BASE, s, head_dim)
        left.plot(ratio, grown / _BASE, color=colour, lw=1.7, gid=f"dynamic-s{s:g}")
        left.axhline(static / _BASE, color=colour, lw=1.0, ls="--", gid=f"static-s{s:g}")
        target = round(s * train_length)
        at_target = rope.dynamic_base(_BASE, s, target, train_length, head_dim) / _BASE
        left.plot(
            [target / train_length],
            [at_target],
            "o",
            color=colour,
            ms=5,
            mec="white",
            mew=0.8,
            gid=f"target-s{s:g}",
            zorder=3,
        )
        left.plot(
            [(2 * s - 1) / s],
            [static / _BASE],
            "o",
            mfc="white",
            mec=colour,
            ms=5,
            mew=1.2,
            gid=f"crossing-s{s:g}",
            zorder=3,
        )
        right.plot(
            ratio,
            _slowest_reach(grown, lengths, train_length, head_dim),
            color=colour,
            lw=1.7,
            gid=f"reach-dynamic-s{s:g}",
            label=f"$s = {s:g}$",
        )
        right.plot(
            ratio,
            _slowest_reach(np.full(ratio.shape, static), lengths, train_length, head_dim),
            color=colour,
            lw=1.0,
            ls="--",
            gid=f"reach-static-s{s:g}",
        )
    for axes in (left, right):
        axes.axvline(1.0, color=_MUTED, lw=0.7, ls=":")
        axes.set_xlim(0.0, right_end)
        axes.set_xlabel(r"current length $L / L_0$", fontsize=_FONT)
        axes.tick_params(labelsize=_SMALL)
    left.set_yscale("log")
    left.set_ylabel(r"base factor $b'(L)/b$ (log scale)", fontsize=_FONT)
    left.set_title(
        "dynamic (solid), static NTK (dashed); dot at $L = sL_0$", fontsize=_SMALL, color=_INK
    )
    right.axhline(1.0, color=_INK, lw=0.8, ls=":", gid="trained-reach")
    right.set_ylim(0.0, 2.0)
    right.set_ylabel("slowest pair: angle at offset $L$ / at $L_0$", fontsize=_FONT)
    right.set_title("1 = the largest angle seen in training", fontsize=_SMALL, color=_INK)
    right.legend(fontsize=_SMALL, frameon=False, loc="upper right")
    return fig
