"""Figures comparing attention temperatures: YaRN, LongRoPE, Llama 4, DeepSeek V3 (Prop. 35).

Each rule multiplies a logit by a factor that grows with the stretch ``s``: YaRN by
``(1 + 0.1 ln s)^2`` (its factor on both the cos and the sin cache), LongRoPE by
``1 + ln s / ln L0`` (the square of its cache factor), Llama 4 by
``1 + 0.1 ln(floor((p + 1) / F) + 1)`` on the queries of its layers without rotary, read here
at the last query of a context of ``s F`` positions, Ministral 3 by
``1 + 0.1 ln(1 + floor(p / L0))`` on every query, and DeepSeek V3 by ``(1 + 0.1 ln s)^2`` on
its softmax scale.

References: Transformers 5.24, ``modeling_rope_utils.py`` (``_compute_yarn_parameters``,
``_compute_longrope_parameters``), ``models/llama4/modeling_llama4.py``,
``models/ministral3/modeling_ministral3.py``, ``models/deepseek_v3/modeling_deepseek_v3.py``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import rope, temperature
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_temperatures"]

#: LongRoPE's training length (Phi-3.5-mini, Phi-4-mini), Llama 4's floor_scale, Ministral
#: 3's original_max_position_embeddings.
LONGROPE_LENGTH = 4096
LLAMA4_STEP = 8192
MINISTRAL_LENGTH = 16384


def _yarn(s: float) -> float:
    return rope.yarn_mscale(s) ** 2


def _longrope(s: float) -> float:
    _, a = rope.inv_freq(
        "longrope", 2, factor=s, original_max_position_embeddings=LONGROPE_LENGTH,
        short_factor=[1.0],
    )  # fmt: skip
    return a * a


def _llama4(s: float) -> float:
    last = max(int(np.ceil(s * LLAMA4_STEP)) - 1, 0)  # the last query of s F positions
    return float(temperature.llama4([last], 0.1, LLAMA4_STEP)[0])


def _ministral(s: float) -> float:
    last = max(int(np.ceil(s * MINISTRAL_LENGTH)) - 1, 0)
    return float(temperature.llama4_beta([last], 0.1, MINISTRAL_LENGTH)[0])


def _softmax(s: float) -> float:
    return rope.yarn_mscale(s, 1.0) ** 2


#: The factor on a logit at stretch s, by rule.
FACTORS = {
    "yarn": _yarn,
    "longrope": _longrope,
    "llama4": _llama4,
    "llama4_beta": _ministral,
    "softmax": _softmax,
}
#: Label, where the factor is applied, colour index, line style.
_DRAWN = (
    ("yarn", "YaRN: cos and sin caches ($a^2$)", 0, "-"),
    ("longrope", f"LongRoPE, $L_0$ = {LONGROPE_LENGTH}: cos and sin caches ($a^2$)", 2, "-"),
    ("llama4", "Llama 4: queries of layers without rotary (once)", 3, "-"),
    ("llama4_beta", "Ministral 3: every query (once)", 4, ":"),
)
#: Shipped configs as points: label, rule, s (the stretch; for Llama 4 and Ministral 3 the
#: context over the step, so the point is their last position).
SHIPPED = (
    ("Qwen3-8B YaRN", "yarn", 4.0),
    ("gpt-oss", "yarn", 32.0),
    ("Phi-3.5-mini", "longrope", 32.0),
    ("Scout, last position", "llama4", 32.0),
    ("Ministral 3, last position", "llama4_beta", 16.0),
    ("DeepSeek-V3", "softmax", 40.0),
    ("Kimi K2.5", "softmax", 64.0),
)
#: Where each point's label sits, in points from the point.
_OFFSETS = ((-62, 4), (-32, 4), (-70, 6), (5, -3), (4, -13), (5, -8), (5, -4))
STRETCHES = (4, 8, 32)


def fig_temperatures(points: int = 400) -> Figure:
    """The factor each rule puts on an attention logit, against the stretch s, on a log axis.

    Left: the factor at ``s`` from 1 to 1024 (for Llama 4 and Ministral 3, at the last
    query of a context ``s`` times their step), with shipped configs marked and dotted
    lines at s = 4, 8, 32; the legend says where each factor is applied. DeepSeek V3's
    softmax factor is YaRN's curve, marked at its own ``s``. Right: the factor less 1,
    over ``ln s``, for ``s`` up to 10^12: LongRoPE's is constant, Llama 4's tends to 0.1,
    and YaRN's, ``0.2 + 0.01 ln s``, keeps rising.
    """
    if isinstance(points, bool) or not isinstance(points, int) or not 10 <= points <= 5000:
        raise ValueError(f"points must be an integer in [10, 5000], got {points!r}")
    fig = _figure(4.8)
    left, right = fig.subplots(1, 2)
    grid = np.geomspace(1.0, 1024.0, points)  # (points,)
    for key, label, colour, style in _DRAWN:
        values = [FACTORS[key](float(x)) for x in grid]
        left.plot(
            grid, values, style, color=_OKABE_ITO[colour], lw=1.4, gid=f"factor-{key}",
            label=label,
        )  # fmt: skip
    for index, ((label, key, x), offset) in enumerate(zip(SHIPPED, _OFFSETS, strict=True)):
        left.plot(
            [x], [FACTORS[key](x)], "o" if key != "softmax" else "s", ms=4.5,
            color=_OKABE_ITO[1] if key == "softmax" else _INK, gid=f"shipped-{index}",
        )  # fmt: skip
        left.annotate(
            label, (x, FACTORS[key](x)), xytext=offset,
            textcoords="offset points", fontsize=_SMALL - 1.5, color=_MUTED,
        )  # fmt: skip
    for x in STRETCHES:
        left.axvline(x, color=_MUTED, lw=0.6, ls=":", gid=f"stretch-{x}")
    left.plot([], [], "s", color=_OKABE_ITO[1], ms=4.5, label="DeepSeek V3: softmax scale")
    left.set_xscale("log", base=2)
    left.set_xlabel("$s$: stretch, or context / step $F$ or $L_0$", fontsize=_FONT)
    left.set_ylabel("factor on a logit", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.set_title("where each factor goes, and its size", fontsize=_SMALL, color=_INK)
    fig.legend(
        handles=left.get_lines()[: len(_DRAWN)] + left.get_lines()[-1:],
        loc="outside lower center", ncols=2, fontsize=_SMALL - 1, frameon=False,
    )  # fmt: skip

    wide = np.unique(np.round(np.geomspace(2.0, 1.0e12, points)))  # (<= points,) whole s
    logs = np.log(wide)  # (n,)
    for key, _, colour, style in _DRAWN[:3]:
        excess = np.array([FACTORS[key](float(x)) - 1.0 for x in wide])  # (n,)
        right.plot(
            wide, excess / logs, style, color=_OKABE_ITO[colour], lw=1.4, gid=f"ratio-{key}"
        )
    right.axhline(0.1, color=_MUTED, lw=0.8, ls=":", gid="tenth")
    right.set_xscale("log")
    right.set_xlabel("stretch $s$", fontsize=_FONT)
    right.set_ylabel("(factor $-$ 1) / ln $s$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.set_title("YaRN's keeps rising: $0.2 + 0.01 \\ln s$", fontsize=_SMALL, color=_INK)
    return fig
