"""Figures about layers without position code inside rotary stacks (Prop. 34).

Llama 4 Scout, SmolLM3-3B and Command R7B each leave every fourth attention layer
without rotary (NoPE). Llama 4 scales the queries of those layers, and of no others, by
``tau(p) = 1 + attn_scale * ln(floor((p + 1) / floor_scale) + 1)``: a step function of the
position, 1 below ``p = floor_scale - 1``.

Reference: Hugging Face Transformers 5.24, ``models/llama4/modeling_llama4.py``
(``attn_temperature_tuning``), ``configuration_llama4.py`` and ``configuration_smollm3.py``
(``no_rope_layers``, ``no_rope_layer_interval``), ``modeling_cohere2.py`` (rotary on the
sliding-window layers only).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .. import temperature
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_nope_layers"]

#: The stacks as their configs give them (data/configs): the model, its layers, and the
#: interval of its NoPE layers (layer i has no rotary when (i + 1) % interval == 0).
STACKS = {
    "scout": {"name": "Llama 4 Scout", "layers": 48, "interval": 4},
    "smol": {"name": "SmolLM3-3B", "layers": 36, "interval": 4},
    "command": {"name": "Command R7B", "layers": 32, "interval": 4},
}
#: Llama 4 Scout's temperature (Llama4TextConfig's defaults) and its context.
LLAMA4 = {"attn_scale": 0.1, "floor_scale": 8192, "context": 262144}
_ROTARY = _OKABE_ITO[0]
_NOPE = _OKABE_ITO[1]


def nope_layers(stack: dict) -> tuple[int, ...]:
    """The layers of ``stack`` without rotary."""
    return tuple(i for i in range(stack["layers"]) if (i + 1) % stack["interval"] == 0)


def step_starts() -> np.ndarray:
    """The positions where Llama 4's temperature steps up, within Scout's context."""
    step, length = LLAMA4["floor_scale"], LLAMA4["context"]
    return np.arange(1, length // step + 1) * step - 1  # (K,)


def fig_nope_layers() -> Figure:
    """Which layers carry no position code, and Llama 4's temperature on them.

    Left: one row of cells per model, one cell per layer, blue for a rotary layer and
    vermilion for a layer without position code (every fourth). Right: Llama 4's factor
    ``tau(p)`` on the queries of its NoPE layers against the position ``p`` on a log
    axis, over Scout's context: 1 up to ``p = floor_scale - 2``, then a step up at each
    ``p = k floor_scale - 1``, marked by dots.
    """
    fig = _figure(4.0)
    left, right = fig.subplots(1, 2, width_ratios=(1.15, 1))
    keys = list(STACKS)
    for row, key in enumerate(keys):
        stack = STACKS[key]
        index = np.arange(stack["layers"])  # (L,)
        nope = np.isin(index, nope_layers(stack))  # (L,)
        y = len(keys) - 1 - row
        for mask, colour, tag in ((~nope, _ROTARY, "rotary"), (nope, _NOPE, "nope")):
            left.bar(
                index[mask],
                np.full(int(mask.sum()), 0.7),
                bottom=y - 0.35,
                width=0.8,
                color=colour,
                gid=f"{key}-{tag}",
            )
        left.text(-1.0, y, stack["name"], ha="right", va="center", fontsize=_SMALL, color=_INK)
    handles = [
        Patch(color=_ROTARY, label="rotary layer"),
        Patch(color=_NOPE, label="no position code (NoPE)"),
    ]
    left.set_xlim(-0.8, max(s["layers"] for s in STACKS.values()) - 0.2)
    left.set_ylim(-0.6, len(keys) + 0.4)
    left.set_yticks([])
    left.set_xlabel("layer", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    for side in ("left", "right", "top"):
        left.spines[side].set_visible(False)
    left.legend(handles=handles, loc="upper center", ncol=2, fontsize=_SMALL - 1, frameon=False)

    step, length = LLAMA4["floor_scale"], LLAMA4["context"]
    starts = step_starts()  # (K,)
    # The ends of each flat piece, and the starts of the next: exact corners of the steps.
    p = np.unique(np.concatenate(([1, step - 2], starts, starts[1:] - 1, [length - 1])))
    tau = temperature.llama4(p, LLAMA4["attn_scale"], step)  # (P,)
    right.step(p, tau, where="post", color=_NOPE, lw=1.4, gid="tau")
    right.plot(
        starts,
        temperature.llama4(starts, LLAMA4["attn_scale"], step),
        "o",
        ms=2.2,
        color=_NOPE,
        gid="steps",
    )
    right.axvline(step - 1, color=_MUTED, lw=0.8, ls=":", gid="first-step")
    right.axhline(1.0, color=_INK, lw=0.6, gid="one")
    right.text(2, 1.008, "rotary layers: 1 at every $p$", fontsize=_SMALL, color=_ROTARY)
    right.set_xscale("log")
    right.set_xlim(1, length)
    right.set_xlabel("position $p$ (Llama 4 Scout's context)", fontsize=_FONT)
    right.set_ylabel(r"query factor $\tau(p)$ on NoPE layers", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.set_title(
        f"steps at $p = kF - 1$, $F$ = {step}",
        fontsize=_SMALL,
        color=_INK,
    )
    return fig
