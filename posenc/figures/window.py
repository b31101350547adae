"""Figures about position per layer type: sliding-window and global layers (Prop. 33).

A sliding-window layer of width W lets the query at position m score only the keys at
n with 0 <= m - n < W, so its rotary angles are (n - m) w_i for offsets below W at any
context length. Gemma 3 gives its sliding layers base 10^4 and no scaling, its global
layers base 10^6 and linear scaling by 8; dividing a sliding layer's speeds by that 8
changes the angle of every pair at every visible offset, not only beyond W.

Reference: Hugging Face Transformers, ``Gemma3TextConfig`` (``rope_local_base_freq``,
``sliding_window_pattern``) and ``masking_utils.sliding_window_overlay``
(``kv_idx > q_idx - sliding_window``).
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_window_layers"]

#: Gemma 3 27B as its config gives it (data/configs/gemma-3-27b-it.json, the class
#: defaults for what the file leaves out): layers, every pattern-th layer global, the
#: window, the head width, the sliding layers' base, the global layers' base and linear
#: factor.
GEMMA3 = {
    "name": "Gemma 3 27B",
    "layers": 62,
    "pattern": 6,
    "window": 1024,
    "head_dim": 128,
    "sliding_base": 1.0e4,
    "global_base": 1.0e6,
    "factor": 8.0,
}
_SLIDING = _OKABE_ITO[0]
_GLOBAL = _OKABE_ITO[1]
_MISREAD = _OKABE_ITO[3]


def _speeds(kind: str, factor: float | None = None) -> np.ndarray:
    """One kind's speeds from :func:`posenc.rope.inv_freq` (``factor``: linear scaling)."""
    base = GEMMA3["sliding_base"] if kind == "sliding" else GEMMA3["global_base"]
    if factor is None:
        return rope.inv_freq("default", GEMMA3["head_dim"], base=base)[0]
    return rope.inv_freq("linear", GEMMA3["head_dim"], base=base, factor=factor)[0]


def first_long_pair() -> int:
    """The first pair of a sliding head whose wavelength exceeds the window."""
    waves = rope.wavelengths(_speeds("sliding"))  # (d/2,)
    return int(np.flatnonzero(waves > GEMMA3["window"])[0])


def fig_window_layers() -> Figure:
    """Gemma 3 27B layer by layer, and what the global factor would do to a sliding layer.

    Left: for each of the 62 layers, the wavelength of its slowest rotary pair on a log
    axis, blue for the sliding-window layers (base 10^4, unscaled) and vermilion for the
    global ones (base 10^6, linear factor 8); a dashed line marks the window W, and
    crosses mark where the sliding layers' slowest wavelength would sit with the factor
    applied to them. Right: for the first pair of a sliding head whose wavelength exceeds
    W, the term ``q^T R(j w) q`` of a unit ``q`` against the offset ``j`` over the
    window, with the trained speed and with the speed divided by 8.
    """
    fig = _figure(4.4)
    left, right = fig.subplots(1, 2, width_ratios=(1.25, 1))
    pattern, count, window = GEMMA3["pattern"], GEMMA3["layers"], GEMMA3["window"]
    sliding_wave = rope.wavelengths(_speeds("sliding"))[-1]
    global_wave = rope.wavelengths(_speeds("global", GEMMA3["factor"]))[-1]
    misread_wave = rope.wavelengths(_speeds("sliding", GEMMA3["factor"]))[-1]
    index = np.arange(count)  # (L,)
    is_global = (index + 1) % pattern == 0  # (L,)
    for mask, wave, colour, tag, label in (
        (~is_global, sliding_wave, _SLIDING, "sliding", "sliding window: base $10^4$"),
        (is_global, global_wave, _GLOBAL, "global", "global: base $10^6$, factor 8"),
    ):
        left.bar(
            index[mask],
            np.full(int(mask.sum()), wave),
            width=0.8,
            color=colour,
            gid=f"layers-{tag}",
            label=label,
        )
    left.plot(
        index[~is_global],
        np.full(int((~is_global).sum()), misread_wave),
        "x",
        ms=3.0,
        color=_MISREAD,
        gid="layers-misread",
        label="sliding, factor 8 misapplied",
    )
    left.axhline(window, color=_INK, lw=1.0, ls="--", gid="window")
    left.text(
        count - 1,
        window * 1.4,
        f"window $W$ = {window}",
        ha="right",
        fontsize=_SMALL,
        bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
    )
    left.set_yscale("log")
    left.set_ylim(100, global_wave * 20)
    left.set_xlabel(f"layer ({GEMMA3['name']})", fontsize=_FONT)
    left.set_ylabel("slowest wavelength (positions)", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.legend(loc="upper left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)

    pair = first_long_pair()
    trained = _speeds("sliding")[pair]
    scaled = _speeds("sliding", GEMMA3["factor"])[pair]
    offsets = np.arange(window)  # (W,): every offset the layer scores
    for speed, colour, tag, label in (
        (trained, _SLIDING, "trained", "trained speed"),
        (scaled, _MISREAD, "misread", "speed / 8"),
    ):
        # q = k = (1, 0): q^T R(t) k = cos(t).
        right.plot(
            offsets, np.cos(offsets * speed), color=colour, lw=1.4, gid=f"term-{tag}", label=label
        )
    right.axvline(np.pi / trained, color=_MUTED, lw=0.8, ls=":", gid="half-turn")
    right.set_xlim(0, window - 1)
    right.set_xlabel(f"offset $j$ within the window (pair {pair})", fontsize=_FONT)
    right.set_ylabel(r"term $q^\top R(j\omega)\,q$, $|q| = 1$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.legend(loc="lower left", fontsize=_SMALL - 1, frameon=True, framealpha=0.9)
    right.set_title(
        f"wavelength {2 * np.pi / trained:.0f} > $W$, yet nearly a whole turn within it",
        fontsize=_SMALL,
        color=_INK,
    )
    return fig
