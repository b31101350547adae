"""Figures about stretching a rotary model's context (Propositions 24 and 25).

Position interpolation feeds position m as m / s, which divides every speed by s;
NTK-aware scaling raises the base instead, which slows pair i by s^(2i/(d-2)). Both
figures take their speeds from :mod:`posenc.rope`.

References: S. Chen, S. Wong, L. Chen, Y. Tian, "Extending Context Window of Large
Language Models via Positional Interpolation", arXiv:2306.15595 (2023); bloc97,
"NTK-Aware Scaled RoPE allows LLaMA models to have extended (8k+) context size without
any fine-tuning and minimal perplexity degradation", Reddit r/LocalLLaMA (2023).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_ntk_factors", "fig_position_interpolation"]

_PLAIN, _PI, _NTK = _MUTED, _OKABE_ITO[0], _OKABE_ITO[1]
_CIRCLE_POINTS = 6  # positions 0..5 on pair 0's circle


def _check_integer(name: str, value: object, low: int, high: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not low <= value <= high
    ):
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def _check_real(name: str, value: object, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a real number in ({low}, {high}], got {value!r}")
    number = float(value)
    if not low < number <= high:
        raise ValueError(f"{name} must be a real number in ({low}, {high}], got {value!r}")
    return number


def fig_position_interpolation(train_length: int = 16, scale: int = 4) -> Figure:
    """Position interpolation squeezes s L0 positions into [0, L0) and turns neighbours less.

    Left: the position fed to the model for each token m = 0 .. s L0 - 1. Without
    interpolation it is m itself and leaves the trained range [0, L0) (shaded); with
    position interpolation it is m / s, which ends at L0 - 1/s, just past the last
    trained position L0 - 1 (dashed) and below L0. Right: pair 0 (speed 1) on its
    circle for positions 0 .. 5, from ``posenc.rope.cos_sin``: the trained model
    turns neighbours 1 radian apart, position interpolation 1/s radian apart
    (Proposition 24).
    """
    train = _check_integer("train_length", train_length, 2, 64)
    factor = _check_integer("scale", scale, 2, 8)
    tokens = np.arange(factor * train)  # (L',): m = 0 .. s L0 - 1
    fed = tokens / factor  # (L',): the positions position interpolation feeds

    fig = _figure(3.9)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1.0]})
    left.axhspan(0.0, train, color="#e8e8e8", lw=0.0, gid="trained", zorder=0)
    left.axhline(train - 1, color=_INK, lw=0.8, ls="--", gid="last-trained")
    left.plot(
        tokens,
        tokens,
        ls="none",
        marker="o",
        ms=2.6,
        color=_PLAIN,
        gid="fed-plain",
        label="no interpolation: m",
    )
    left.plot(
        tokens,
        fed,
        ls="none",
        marker="o",
        ms=2.6,
        color=_PI,
        gid="fed-pi",
        label="position interpolation: m / s",
    )
    left.text(
        0.5, train + 0.6, f"trained range [0, {train})", fontsize=_SMALL, color=_INK, va="bottom"
    )
    left.set_xlim(-1, tokens[-1] + 1)
    left.set_ylim(-1, tokens[-1] + 1)
    left.set_xlabel(f"token position m (L0 = {train}, s = {factor})", fontsize=_FONT)
    left.set_ylabel("position fed to the model", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="upper left", fontsize=_SMALL, frameon=False, bbox_to_anchor=(0.0, 0.93))
    left.set_title("where the new positions land", fontsize=_SMALL, color=_INK)

    where = np.arange(_CIRCLE_POINTS)  # (6,)
    plain, _ = rope.inv_freq("default", 2)  # (1,): pair 0 turns at speed 1
    linear, _ = rope.inv_freq("linear", 2, factor=float(factor))  # (1,): speed 1/s
    circle = np.linspace(0.0, 2.0 * np.pi, 361)  # (361,)
    right.plot(np.cos(circle), np.sin(circle), color=_MUTED, lw=0.6)
    for speeds, colour, gid, label, reach in (
        (plain, _PLAIN, "circle-plain", "trained: 1 rad apart", 1.2),
        (linear, _PI, "circle-pi", f"interpolated: 1/{factor} rad apart", 0.78),
    ):
        cos, sin = rope.cos_sin(where, speeds, layout="pairs")  # (6, 1) each
        right.plot(
            cos[:, 0],
            sin[:, 0],
            ls="-",
            lw=0.8,
            marker="o",
            ms=4.5,
            color=colour,
            gid=gid,
            label=label,
        )
        for p in (1, 2):  # number the first steps: outside for training, inside for PI
            right.text(
                reach * cos[p, 0],
                reach * sin[p, 0],
                str(p),
                fontsize=_SMALL,
                color=colour,
                ha="center",
                va="center",
            )
    right.text(1.12, 0.0, "0", fontsize=_SMALL, color=_INK, va="center")
    right.set_aspect("equal")
    right.set_xlim(-1.35, 1.35)
    right.set_ylim(-2.0, 1.35)
    right.set_axis_off()
    right.legend(loc="lower center", fontsize=_SMALL, frameon=False)
    right.set_title(f"pair 0 at positions 0 .. {_CIRCLE_POINTS - 1}", fontsize=_SMALL, color=_INK)
    return fig


def fig_ntk_factors(head_dim: int = 128, scale: float = 4.0, base: float = 10000.0) -> Figure:
    """Per pair, position interpolation slows by s; NTK-aware scaling by 1 at pair 0 up to s.

    Left: the factor w_i / w'_i by which each pair i is slowed, for d = ``head_dim``
    and s = ``scale``: position interpolation (Hugging Face's "linear") divides every
    speed by s; NTK-aware scaling, with the base b s^(d/(d-2)), divides pair i's by
    s^(2i/(d-2)), from 1 at pair 0 to s at the slowest pair. Right: the wavelengths
    2 pi / w'_i on a log axis, unscaled and under both schemes. All speeds from
    ``posenc.rope`` (Propositions 24 and 25).
    """
    dim = _check_integer("head_dim", head_dim, 4, 512)
    if dim % 2:
        raise ValueError(f"head_dim must be even, got {head_dim!r}")
    factor = _check_real("scale", scale, 1.0, 64.0)
    b = _check_real("base", base, 1.0, 1e9)
    plain, _ = rope.inv_freq("default", dim, base=b)  # (d/2,)
    linear, _ = rope.inv_freq("linear", dim, base=b, factor=factor)  # (d/2,)
    ntk = rope.default_inv_freq(dim, rope.ntk_base(b, factor, dim))  # (d/2,)
    pairs = np.arange(dim // 2)  # (d/2,)

    fig = _figure(3.9)
    left, right = fig.subplots(1, 2)
    left.plot(
        pairs, plain / linear, color=_PI, lw=1.8, gid="factor-pi", label="position interpolation"
    )
    left.plot(pairs, plain / ntk, color=_NTK, lw=1.8, gid="factor-ntk", label="NTK-aware")
    for level in (1.0, factor):
        left.axhline(level, color=_MUTED, lw=0.6, ls=":")
    left.set_ylim(0.8, factor * 1.08)
    left.set_xlim(0, dim // 2 - 1)
    left.set_xlabel(f"pair i (d = {dim})", fontsize=_FONT)
    left.set_ylabel(r"slowed by $\omega_i / \omega'_i$", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="center right", fontsize=_SMALL, frameon=False)
    left.set_title(f"each pair's factor, s = {factor:g}", fontsize=_SMALL, color=_INK)

    for speeds, colour, style, gid, label in (
        (plain, _PLAIN, "-", "wavelength-default", "unscaled"),
        (linear, _PI, "-", "wavelength-pi", "position interpolation"),
        (ntk, _NTK, "--", "wavelength-ntk", "NTK-aware"),
    ):
        right.plot(
            pairs, rope.wavelengths(speeds), color=colour, ls=style, lw=1.6, gid=gid, label=label
        )
    right.set_yscale("log")
    right.set_xlim(0, dim // 2 - 1)
    right.set_xlabel(f"pair i (d = {dim})", fontsize=_FONT)
    right.set_ylabel(r"wavelength $2\pi / \omega'_i$ (positions)", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="upper left", fontsize=_SMALL, frameon=False)
    right.set_title("wavelengths", fontsize=_SMALL, color=_INK)
    return fig
