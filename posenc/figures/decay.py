"""Figures about RoPE's long-term decay: a bound that falls, a score that need not (Prop. 21).

RoFormer bounds the rotary score by Abel summation,
|s(r)| <= max_j |h_j - h_(j-1)| * sum_j |S_j(r)|, with S_j(r) = sum_(t<j) e^(i r w_t)
and w_t = base^(-2t/d), and plots the relative upper bound
B(r) = (1/N) sum_(j=1..N) |S_j(r)|, N = d/2, against the offset r. This module draws
that factor and, beside it, actual scores computed with ``posenc.rotary``.

Reference: J. Su, Y. Lu, S. Pan, A. Murtadha, B. Wen, Y. Liu, "RoFormer: Enhanced
Transformer with Rotary Position Embedding", arXiv:2104.09864, section 3.4.3 and
its Figure 2.
"""

from __future__ import annotations

import itertools

import numpy as np
from matplotlib.figure import Figure

from ..rotary import rotary, rotary_angles
from ._style import _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_rope_decay"]

_FIRST_WINDOW = 64  # the window means cover [0, 64), [64, 128), [128, 256), ...
_BOUND, _ALIGNED, _ONES = _OKABE_ITO[0], _OKABE_ITO[1], _MUTED


def _relative_bound(offsets: np.ndarray, width: int, base: float) -> np.ndarray:
    """B(r) = (1/N) sum_(j=1..N) |S_j(r)| for each offset r, N = width/2.

    S_j(r) = sum_(t<j) e^(i r w_t) is the j-th partial sum of the turning unit
    vectors; the angles r w_t come from ``posenc.rotary_angles``.
    """
    angles = rotary_angles(offsets, width, base=base)  # (L, N): r w_t
    partial = np.cumsum(np.exp(1j * angles), axis=1)  # (L, N): S_1 .. S_N
    return np.abs(partial).mean(axis=1)  # (L,)


def _scores(offsets: np.ndarray, width: int, base: float, peak: int) -> tuple[np.ndarray, ...]:
    """Scores of a query at position r and a key at position 0, over |q| |k| = d.

    The query is q = (1, ..., 1). Two keys: k = q (RoFormer's choice for its
    figure) and k = R_peak q, the query turned as if it stood at position
    ``peak``; for the second, <R_r q, k> = <q, R_(peak - r) q> is |q|^2 = d at
    r = peak. Both are computed with ``posenc.rotary``; returns (ones, aligned).
    """
    ones = np.ones(width)  # (d,)
    queries = rotary(np.tile(ones, (offsets.size, 1)), offsets, base=base)  # (L, d)
    aligned = rotary(ones[None, :], [peak], base=base)[0]  # (d,): R_peak q
    return queries @ ones / width, queries @ aligned / width  # (L,) each


def _windows(length: int) -> list[tuple[int, int]]:
    """[0, 64), [64, 128), [128, 256), ...: doubling windows that fit in [0, length)."""
    edges = [0, _FIRST_WINDOW]
    while 2 * edges[-1] <= length:
        edges.append(2 * edges[-1])
    return list(itertools.pairwise(edges))


def _check(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int, if it is an integer (not a bool) from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def fig_rope_decay(
    width: int = 128, base: float = 10000.0, length: int = 512, peak: int = 400
) -> Figure:
    """RoFormer's decay bound falls with the offset; a rotary score can still rise to its maximum.

    Top: the relative upper bound B(r) = (1/N) sum_j |S_j(r)| of RoFormer's
    section 3.4.3 for width d = 128 and base 10000, offsets r = 0 .. length-1,
    with its mean over the windows [0, 64), [64, 128), [128, 256), [256, 512)
    (steps) and the level B = 1, below which the bound for q = k = (1, ..., 1)
    would say more than |s| <= |q| |k|. Bottom: scores over |q| |k| from
    ``posenc.rotary``, query at position r and key at 0: k = q (grey), which
    wanders down, and k = R_peak q, which rises to exactly 1 at r = peak, where
    the bound has long fallen.
    """
    width = _check("width", width, 4, 4096)
    if width % 2:
        raise ValueError(f"width must be even, got {width}")
    length = _check("length", length, 2 * _FIRST_WINDOW, 8192)
    peak = _check("peak", peak, 1, length - 1)
    if isinstance(base, bool) or not isinstance(base, int | float) or not 1 < base < 1e12:
        raise ValueError(f"base must be a real number in (1, 1e12), got {base!r}")
    offsets = np.arange(length)  # (L,)
    bound = _relative_bound(offsets, width, float(base))  # (L,)
    ones, aligned = _scores(offsets, width, float(base), peak)  # (L,) each

    fig = _figure(5.2)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [1.0, 1.0]})
    top.plot(offsets, bound, color=_BOUND, lw=1.1, gid="relative-bound", label=r"$B(r)$")
    for a, b in _windows(length):
        top.plot(
            [a, b],
            [bound[a:b].mean()] * 2,
            color=_INK,
            lw=2.0,
            gid=f"window-mean-{a}-{b}",
            label="mean over a window" if a == 0 else None,
        )
    top.axhline(1.0, color=_MUTED, lw=0.9, ls="--", gid="trivial-level")
    top.text(
        length * 0.99,
        1.6,
        r"$B = 1$: only below it would the bound for $q = k = \mathbf{1}$ beat "
        r"$|s| \leq |q|\,|k|$",
        ha="right",
        va="bottom",
        fontsize=_SMALL,
        color=_MUTED,
    )
    top.axvline(peak, color=_ALIGNED, lw=0.8, ls=":", gid="peak-line-top")
    top.set_ylim(0.0, (width // 2 + 1) / 2 * 1.06)
    top.set_ylabel(r"$B(r) = \frac{1}{N}\sum_j |S_j(r)|$", fontsize=_FONT)
    top.set_title(
        f"RoFormer's relative upper bound, d = {width}, base {base:g}: it falls on average",
        fontsize=_SMALL,
        color=_INK,
    )
    top.legend(loc="upper right", fontsize=_SMALL, frameon=False)
    top.tick_params(labelsize=_SMALL)

    bottom.plot(offsets, ones, color=_ONES, lw=1.0, gid="score-ones", label=r"$k = q$")
    bottom.plot(
        offsets,
        aligned,
        color=_ALIGNED,
        lw=1.3,
        gid="score-aligned",
        label=rf"$k = R_{{{peak}}}\,q$",
    )
    bottom.plot([peak], [aligned[peak]], "o", color=_ALIGNED, ms=5, mec="white", gid="peak")
    bottom.axvline(peak, color=_ALIGNED, lw=0.8, ls=":", gid="peak-line-bottom")
    bottom.axhline(0.0, color=_MUTED, lw=0.5, ls=":")
    bottom.set_ylim(min(0.0, float(ones.min()), float(aligned.min())) - 0.05, 1.1)
    bottom.set_xlim(0, length - 1)
    bottom.set_xlabel("offset r = m \u2212 n (query position minus key position)", fontsize=_FONT)
    bottom.set_ylabel(r"score $s(r)\,/\,(|q|\,|k|)$", fontsize=_FONT)
    bottom.set_title(
        r"the scores themselves, $q = \mathbf{1}$: the turned key peaks at $r$ = " + f"{peak}",
        fontsize=_SMALL,
        color=_INK,
    )
    bottom.legend(loc="upper left", fontsize=_SMALL, frameon=False)
    bottom.tick_params(labelsize=_SMALL)
    return fig
