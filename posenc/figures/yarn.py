"""Figures about YaRN: the ramp between keeping and interpolating a speed (Proposition 27).

YaRN stretches a rotary model by s: pairs that turn often in the training length L0 keep
their speed, pairs that turn less than once are slowed by s, and the pairs between are
blended. The paper blends linearly in the rotation count r = L0 theta / (2 pi); the
reference code (and Hugging Face, and :func:`posenc.rope.inv_freq`) blends linearly in the
pair index between the floor and the ceiling of the correction dimensions.

References: B. Peng, J. Quesnelle, H. Fan, E. Shippole, "YaRN: Efficient Context Window
Extension of Large Language Models", ICLR 2024, arXiv:2309.00071 (the ramp gamma(r),
alpha = 1, beta = 32).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_yarn_ramps"]

#: The two stretched heads drawn: key, label, rotated width, base, L0, scale s.
MODELS = (
    ("llama2", "Llama 2", 128, 10000.0, 4096, 16.0),
    ("qwen25", "Qwen2.5", 128, 1000000.0, 32768, 4.0),
)
#: The ramp's ends in rotations within L0: the paper's beta and alpha are the code's
#: beta_fast and beta_slow.
BETA_FAST, BETA_SLOW = 32.0, 1.0
ALPHA, BETA = BETA_SLOW, BETA_FAST
#: The pair where the code's and the paper's speeds differ most in both heads.
_MARKED_PAIR = 30


def _paper_ratio(dim: int, base: float, length: int, factor: float) -> np.ndarray:
    """New speed over old under the paper's ramp: gamma + (1 - gamma)/s, for every pair.

    gamma = clamp((r - alpha)/(beta - alpha), 0, 1), r = L0 theta / (2 pi) the rotations
    of the pair in L0 positions (1 keeps the speed, 0 divides it by s). In float64: the
    figure's curve, not a checked value (Proposition 27's proof encloses it exactly).
    """
    speeds = rope.default_inv_freq(dim, base)  # (d/2,)
    turns = length * speeds / (2 * np.pi)  # (d/2,)
    gamma = np.clip((turns - ALPHA) / (BETA - ALPHA), 0.0, 1.0)  # (d/2,)
    return gamma + (1.0 - gamma) / factor


def _panel(ax, key, label, dim, base, length, factor, colours):
    pairs = np.arange(dim // 2)  # (d/2,)
    kwargs = {"base": base, "factor": factor, "original_max_position_embeddings": length}
    plain = rope.default_inv_freq(dim, base)  # (d/2,)
    code, _ = rope.inv_freq("yarn", dim, **kwargs)  # (d/2,)
    low, high = rope.yarn_correction_range(BETA_FAST, BETA_SLOW, dim, base, length)
    fast, slow = rope.yarn_correction_range(
        BETA_FAST, BETA_SLOW, dim, base, length, truncate=False
    )
    ax.axvspan(low, high, color=_MUTED, alpha=0.13, lw=0, gid=f"range-{key}")
    for value, name in ((fast, "fast"), (slow, "slow")):
        ax.axvline(value, color=_MUTED, lw=0.8, ls=":", gid=f"{name}-{key}")
    ax.axhline(1.0 / factor, color=_MUTED, lw=0.6, ls="--", gid=f"floor-{key}")
    ax.plot(
        pairs,
        code / plain,
        color=colours[0],
        lw=1.3,
        marker="o",
        ms=2.8,
        gid=f"code-{key}",
        label="code: linear in the pair index",
    )
    paper = _paper_ratio(dim, base, length, factor)  # (d/2,)
    ax.plot(
        pairs,
        paper,
        color=colours[1],
        lw=1.3,
        ls="--",
        marker="s",
        ms=2.6,
        gid=f"paper-{key}",
        label=r"paper: linear in $r = L_0\theta/2\pi$",
    )
    # The pair where the two forms differ most, for both heads drawn.
    j = _MARKED_PAIR
    ax.plot([j, j], [paper[j], code[j] / plain[j]], color=_INK, lw=0.9, gid=f"gap-{key}")
    ax.text(
        j + 0.8,
        (paper[j] + code[j] / plain[j]) / 2,
        f"pair {j}",
        fontsize=_SMALL,
        color=_INK,
        va="center",
    )
    ax.text(
        (low + high) / 2,
        1.035,
        f"correction range [{low:g}, {high:g}]",
        ha="center",
        va="bottom",
        fontsize=_SMALL,
        color=_INK,
    )
    ax.text(
        pairs[-1],
        1.0 / factor + 0.02,
        f"1/s = 1/{factor:g}",
        ha="right",
        va="bottom",
        fontsize=_SMALL,
        color=_MUTED,
    )
    ax.set_xlim(-1, pairs[-1] + 1)
    ax.set_ylim(0.0, 1.1)
    ax.set_xlabel("pair i", fontsize=_FONT)
    ax.tick_params(labelsize=_SMALL)
    power = round(np.log10(base))
    ax.set_title(
        f"{label}: $b = 10^{{{power}}}$, $L_0$ = {length:,}, $s$ = {factor:g}",
        fontsize=_SMALL,
        color=_INK,
    )


def fig_yarn_ramps() -> Figure:
    """YaRN's new speed over old per pair: the code's ramp in the index, the paper's in r.

    For a Llama 2 head stretched 16 times (d = 128, b = 10^4, L0 = 4096) and a Qwen2.5
    head stretched 4 times (d = 128, b = 10^6, L0 = 32768): each pair's new speed over
    its old one, from ``posenc.rope.inv_freq("yarn")`` (the reference code's ramp,
    linear in the pair index between floor c(32) and ceil c(1)) and from the paper's
    ramp gamma(r), linear in the rotation count r. The correction range is shaded; the
    unrounded correction dimensions c(32) and c(1) are dotted; 1/s is dashed. Both forms
    keep the pairs left of the range and divide those right of it by s. Inside, the
    paper's ratio falls faster and lies lower, except at Llama 2's pair 21, next to the
    lower edge, where the code's widened ramp has already begun. A bar marks pair 30.
    """
    fig = _figure(4.2)
    axes = fig.subplots(1, 2, sharey=True)
    colours = (_OKABE_ITO[0], _OKABE_ITO[1])
    for ax, model in zip(axes, MODELS, strict=True):
        _panel(ax, *model, colours)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=2,
        fontsize=_SMALL,
        frameon=False,
        handlelength=2.2,
    )
    axes[0].set_ylabel(r"new speed / old speed, $\theta'_i/\theta_i$", fontsize=_FONT)
    return fig
