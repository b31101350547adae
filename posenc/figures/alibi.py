"""Figures about ALiBi: a linear penalty on distance (Proposition 16).

Reference: O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention
with Linear Biases Enables Input Length Extrapolation", ICLR 2022,
arXiv:2108.12409 (the slopes of its reference code).
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..relative import alibi_bias
from ._style import _FONT, _INK, _MUTED, _SMALL, _figure, _number

__all__ = ["fig_alibi"]

_REACH_LENGTH = 512  # the right panel's row: query 512 sees distances 0 .. 512


def _colours(heads: int) -> list[tuple[float, float, float, float]]:
    """One colour per head, dark (steep) to light (flat): viridis, readable in grey."""
    ramp = mpl.colormaps["viridis"]
    return [ramp(0.9 * h / max(heads - 1, 1)) for h in range(heads)]


def _check_range(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


def fig_alibi(heads: int = 8, query: int = 16, future: int = 4) -> Figure:
    """ALiBi's bias row for each of 8 heads, and how far each head looks before e^-1.

    Left: the bias -m_h (i - j) that head h adds to the score of query i =
    ``query`` and key j, for the keys j = 0 .. i (from ``posenc.alibi_bias``);
    the ``future`` keys after i are masked (hatched). Each head's row is a
    straight line through 0 at the diagonal j = i, steeper for the early heads.
    Right: with equal content scores, the weight of a key relative to the
    diagonal's, e^(-m_h d), against the distance d = i - j on a log axis (row
    512 of the same bias). Each curve crosses e^-1 (dashed) at d = 1/m_h, marked
    by a dot: 2, 4, ..., 256 for eight heads.
    """
    for name, value, low, high in (("heads", heads, 1, 16), ("query", query, 1, 64)):
        _check_range(name, value, low, high)
    _check_range("future", future, 0, 16)
    near = alibi_bias(query + 1, heads)[:, query, :]  # (H, i + 1): row i, keys 0 .. i
    far = alibi_bias(_REACH_LENGTH + 1, heads)[:, _REACH_LENGTH, ::-1]  # (H, 513): by distance
    slopes = -near[:, query - 1]  # (H,): the bias one key back is -m_h
    colours = _colours(heads)

    fig = _figure(4.2)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.0, 1.15]})
    keys = np.arange(query + 1)  # (i + 1,)
    for h in range(heads):
        left.plot(
            keys,
            near[h],
            color=colours[h],
            lw=1.6,
            marker="o",
            ms=2.6,
            gid=f"bias-head-{h + 1}",
            label=rf"$h = {h + 1}$: $m = 2^{{-{_exponent(slopes[h])}}}$",
        )
    bottom = float(near.min())
    left.add_patch(
        Rectangle(
            (query + 0.5, bottom * 1.06),
            future,
            -bottom * 1.1,
            facecolor="none",
            edgecolor=_MUTED,
            hatch="///",
            lw=0.0,
            gid="masked",
        )
    )
    left.text(
        query + 0.5 + future / 2,
        bottom * 0.5,
        "masked\n(j > i)",
        ha="center",
        va="center",
        fontsize=_SMALL,
        color=_MUTED,
        bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
    )
    left.axhline(0.0, color=_MUTED, lw=0.6, ls=":")
    left.set_xlim(-0.5, query + 0.5 + future)
    left.set_ylim(bottom * 1.06, -bottom * 0.04)
    left.set_xlabel(f"key position j (query i = {query})", fontsize=_FONT)
    left.set_ylabel(r"bias $-m_h\,(i - j)$", fontsize=_FONT)
    left.tick_params(labelsize=_SMALL)
    left.set_title("bias row of query i, per head", fontsize=_SMALL, color=_INK)

    distance = np.arange(_REACH_LENGTH + 1)  # (513,)
    for h in range(heads):
        right.plot(
            distance[1:],
            np.exp(far[h, 1:]),  # e^(bias): the weight relative to the diagonal's
            color=colours[h],
            lw=1.6,
            gid=f"weight-head-{h + 1}",
        )
        reach = 1.0 / slopes[h]
        right.plot(
            [reach],
            [np.exp(-1.0)],
            "o",
            color=colours[h],
            ms=5,
            mec="white",
            mew=0.8,
            gid=f"reach-head-{h + 1}",
            zorder=3,
        )
    right.axhline(np.exp(-1.0), color=_INK, lw=0.9, ls="--", gid="e-fold")
    right.text(1.08, np.exp(-1.0) - 0.02, r"$e^{-1}$", fontsize=_SMALL, color=_INK, va="top")
    right.set_xscale("log", base=2)
    right.set_xlim(1, _REACH_LENGTH)
    right.set_ylim(0.0, 1.02)
    ticks = [2**p for p in range(0, 10)]
    right.set_xticks(ticks, [str(t) for t in ticks])
    right.set_xlabel("distance d = i \u2212 j (log scale)", fontsize=_FONT)
    right.set_ylabel(r"weight / diagonal weight, $e^{-m_h d}$", fontsize=_FONT)
    right.tick_params(labelsize=_SMALL)
    right.set_title(
        r"equal content: $e^{-1}$ at $d = 1/m_h$ (dots)",
        fontsize=_SMALL,
        color=_INK,
    )
    fig.legend(
        loc="outside right center",
        fontsize=_SMALL,
        frameon=False,
        handlelength=1.2,
        title="head",
        title_fontsize=_SMALL,
    )
    return fig


def _exponent(slope: float) -> str:
    """q with slope = 2^-q, as text: an integer, or a short decimal (0.5, 1.5)."""
    q = -np.log2(slope)
    return str(round(q)) if abs(q - round(q)) < 1e-9 else _number(q, 2).rstrip("0")
