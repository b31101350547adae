"""Figures about the ladder of wavelengths and what it buys: Propositions 6, 7 and 9.

- :func:`fig_ladder_rung_short`: the paper's ladder stops one rung below 2 pi b;
  the (h-1) variant of tensor2tensor, fairseq and Whisper reaches it (Proposition 6).
- :func:`fig_position_signature`: how far apart the codes of positions k apart
  are, split by fast, middle and slow pairs (Proposition 7).
- :func:`fig_similarity_offset`: the dot product of two codes against their
  offset: even, largest at 0, and not monotone (Proposition 9).
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from ..encoding import wavelengths
from ..similarity import distance_profile, dot_profile, first_rise
from ._style import _FONT, _INK, _MINUS, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_ladder_rung_short", "fig_position_signature", "fig_similarity_offset"]

_PAPER, _VARIANT = _OKABE_ITO[0], _OKABE_ITO[1]  # blue, vermillion


def _variant_wavelengths(width: int, base: float) -> np.ndarray:
    """The (h-1) ladder: 2 pi base**(i/(h-1)), i = 0 .. h-1, h = width/2 >= 2."""
    half = width // 2
    return 2.0 * np.pi * base ** (np.arange(half) / (half - 1))  # (h,)


def _thousands(value: float, digits: int = 1) -> str:
    """``value`` grouped from five digits on, as the pages show numbers: 60,611.5 but 2220.4."""
    return f"{value:,.{digits}f}" if abs(value) >= 10_000 else f"{value:.{digits}f}"


# ---------------------------------------------------------------------------
# Proposition 6: the ladder ends one rung short


def _ladder(
    ax: Axes,
    x: float,
    rungs: np.ndarray,
    colour: str,
    gid: str,
    label_side: str,
    digits: int,
    half_width: float = 0.26,
) -> None:
    """Draw ``rungs`` as the rungs of a ladder centred at ``x``, values written beside."""
    low, high = float(rungs.min()), float(rungs.max())
    for rail in (x - half_width, x + half_width):
        ax.plot([rail, rail], [low, high], color=colour, lw=1.2, alpha=0.45)
    ax.hlines(rungs, x - half_width, x + half_width, colors=colour, lw=2.6, gid=gid)
    offset, align = (
        (-half_width - 0.04, "right") if label_side == "left" else (half_width + 0.04, "left")
    )
    for value in rungs:
        ax.text(
            x + offset,
            value,
            _thousands(value, digits),
            ha=align,
            va="center",
            fontsize=_SMALL,
            color=colour,
        )


def _missing_rung(ax: Axes, x: float, value: float, half_width: float = 0.26) -> None:
    """The rung 2 pi b, drawn dashed on the paper's ladder where it would be."""
    ax.hlines(
        [value],
        x - half_width,
        x + half_width,
        colors=_MUTED,
        lw=2.0,
        linestyles=(0, (3, 2)),
        gid="missing-rung",
    )


def fig_ladder_rung_short(width: int = 16, base: float = 10000.0, top_width: int = 512) -> Figure:
    """The paper's wavelengths stop one rung below 2 pi b; the (h-1) variant's reach it.

    Left: width ``width`` on a log scale, the paper's wavelengths
    2 pi b^(2i/d), i = 0 .. d/2 - 1 (``posenc.wavelengths``), beside the (h-1)
    variant's 2 pi b^(i/(h-1)), h = d/2; the rung 2 pi b, which the paper's
    formula would reach only at i = d/2, is drawn dashed. Right: the top end of
    both ladders at width ``top_width``, on a linear scale, with the gap between
    the paper's last rung and 2 pi b (Proposition 6).
    """
    if width < 4 or top_width < 4:
        raise ValueError(f"widths must be at least 4, got {width} and {top_width}")
    fig = _figure(4.6)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
    target = 2.0 * np.pi * base

    paper, variant = wavelengths(width, base=base), _variant_wavelengths(width, base)
    _ladder(left, 0.0, paper, _PAPER, "paper-rungs", "left", 1)
    _ladder(left, 1.0, variant, _VARIANT, "variant-rungs", "right", 1)
    _missing_rung(left, 0.0, target)
    left.text(
        0.0,
        target * 1.6,
        f"2\u03c0\u00b7{base:g} = {_thousands(target)}\nwould be pair i = {width // 2}",
        ha="center",
        va="bottom",
        fontsize=_SMALL,
        color=_MUTED,
    )
    left.set_yscale("log")
    left.set_ylim(paper[0] / 2.2, target * 9)
    left.set_xlim(-1.05, 2.05)
    left.set_xticks(
        [0.0, 1.0],
        ["paper\n$2\\pi\\, b^{2i/d}$", f"(h{_MINUS}1) variant\n$2\\pi\\, b^{{i/(h-1)}}$"],
    )
    for tick, colour in zip(left.get_xticklabels(), (_PAPER, _VARIANT), strict=True):
        tick.set_color(colour)
        tick.set_fontweight("bold")
    left.tick_params(axis="x", length=0, labelsize=_SMALL)
    left.tick_params(axis="y", labelsize=_SMALL)
    left.set_ylabel("wavelength (positions), log scale", fontsize=_FONT)
    left.set_title(f"all {width // 2} rungs at width d = {width}", fontsize=_FONT, color=_INK)
    for side in ("top", "right"):
        left.spines[side].set_visible(False)

    top_paper = wavelengths(top_width, base=base)[-6:]  # (6,): the last six rungs
    top_variant = _variant_wavelengths(top_width, base)[-6:]  # (6,)
    _ladder(right, 0.0, top_paper, _PAPER, "paper-top-rungs", "left", 1)
    _ladder(right, 1.0, top_variant, _VARIANT, "variant-top-rungs", "right", 1)
    _missing_rung(right, 0.0, target)
    right.text(
        -0.3,
        target,
        f"{_thousands(target)} = 2\u03c0\u00b7{base:g}\npair {top_width // 2}: none",
        ha="right",
        va="center",
        fontsize=_SMALL,
        color=_MUTED,
    )
    gap = target - top_paper[-1]
    right.annotate(
        "",
        xy=(0.42, target),
        xytext=(0.42, top_paper[-1]),
        arrowprops={"arrowstyle": "<->", "color": _INK, "lw": 1.0, "shrinkA": 0, "shrinkB": 0},
    )
    right.text(
        0.47,
        (target + top_paper[-1]) / 2,
        f"missing:\n{_thousands(gap)}",
        ha="left",
        va="center",
        fontsize=_SMALL,
        color=_INK,
    )
    right.set_ylim(top_paper[0] - 1500, target + 1800)
    right.set_xlim(-1.05, 2.05)
    right.set_xticks([0.0, 1.0], ["paper", f"(h{_MINUS}1) variant"])
    for tick, colour in zip(right.get_xticklabels(), (_PAPER, _VARIANT), strict=True):
        tick.set_color(colour)
        tick.set_fontweight("bold")
    right.tick_params(axis="x", length=0, labelsize=_SMALL)
    right.yaxis.set_major_locator(NullLocator())
    right.set_title(f"the top six rungs at width d = {top_width}", fontsize=_FONT, color=_INK)
    for side in ("top", "right", "left"):
        right.spines[side].set_visible(False)
    return fig


# ---------------------------------------------------------------------------
# Proposition 7: every position has its own signature

_GROUPS = (
    ("fast third", _OKABE_ITO[0]),
    ("middle third", _OKABE_ITO[4]),
    ("slow third", _OKABE_ITO[2]),
)


def fig_position_signature(width: int = 512, top: int = 100_000) -> Figure:
    """Distance between codes k positions apart, for fast, middle and slow thirds of the pairs.

    For offsets k = 1 .. ``top`` (log-spaced integers), the share of each third
    of the pairs in |PE(p) - PE(p + k)|, and the whole distance
    (``posenc.similarity.distance_profile``); it is the same for every p.
    Dotted lines mark each curve's typical level sqrt(2 n) for n pairs, the
    root mean square of a pair's distance over all offsets. Fast pairs reach
    it at the first step; slow pairs grow in proportion to k and get there only
    after thousands of positions (Proposition 7).
    """
    half = width // 2
    if half < 3:
        raise ValueError(f"width must be at least 6 to split the pairs in thirds, got {width}")
    offsets = np.unique(np.round(np.geomspace(1, top, 400)).astype(np.int64))  # (n,)
    marks = np.array([m for m in (1, 10, 100, 1000, 10000) if m <= top])  # the page's table
    thirds = np.array_split(np.arange(half), 3)  # fast, middle, slow
    fig = _figure(4.4)
    ax = fig.add_subplot()
    # The whole distance first, wide and pale, so the fast third stays visible on top.
    whole = distance_profile(offsets, width)  # (n,)
    ax.plot(
        offsets,
        whole,
        color=_MUTED,
        lw=4.0,
        alpha=0.45,
        gid="share-all",
        label=f"all {half} pairs",
        solid_capstyle="butt",
    )
    ax.plot(marks, distance_profile(marks, width), "o", color=_MUTED, ms=5)
    for (name, colour), pairs in zip(_GROUPS, thirds, strict=True):
        share = distance_profile(offsets, width, pairs=pairs)  # (n,)
        ax.plot(
            offsets,
            share,
            color=colour,
            lw=1.6,
            gid=f"share-{name.split()[0]}",
            label=f"{name}: pairs {pairs[0]}\u2013{pairs[-1]}",
        )
        ax.plot(marks, distance_profile(marks, width, pairs=pairs), "o", color=colour, ms=4)
    # Typical levels: a pair's squared distance 2 - 2 cos(w k) averages 2 over k.
    third = np.sqrt(2 * thirds[1].size)
    for level, text in (
        (np.sqrt(width), f"\u221a{width} \u2248 {np.sqrt(width):.1f}"),
        (third, f"\u221a(2\u00b7{thirds[1].size}) \u2248 {third:.1f}"),
    ):
        ax.axhline(level, color=_MUTED, lw=0.8, ls=":")
        ax.text(1.15, level * 1.08, text, fontsize=_SMALL, color=_MUTED, va="bottom")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, top)
    ax.set_ylim(distance_profile(1, width, pairs=thirds[2]) / 2, 2.6 * np.sqrt(width))
    ax.set_xlabel("offset k between the two positions (log scale)", fontsize=_FONT)
    ax.set_ylabel("|PE(p) \u2212 PE(p + k)|, share of each group", fontsize=_FONT)
    ax.set_title(
        f"width {width}: fast pairs separate neighbours, slow pairs separate regions",
        fontsize=_FONT,
        color=_INK,
    )
    ax.tick_params(labelsize=_SMALL)
    ax.grid(True, which="major", color="#e6e6e6", lw=0.6)
    ax.legend(fontsize=_SMALL, loc="lower right", frameon=False)
    return fig


# ---------------------------------------------------------------------------
# Proposition 9: similarity depends only on the offset


def fig_similarity_offset(width: int = 128, span: int = 40) -> Figure:
    """The dot product of two codes against their offset: largest at 0, even, rising again at 12.

    Left: S(k) = PE(p) . PE(p + k) = sum_i cos(w_i k) for k = -``span`` ..
    ``span`` (``posenc.similarity.dot_profile``), the same for every p: the
    maximum d/2 at k = 0, the same value at -k as at k. Right: a close-up of
    the offsets around the first rise (``posenc.similarity.first_rise``),
    where S stops falling, with the values at the two offsets on either side
    written in (Proposition 9).
    """
    rise = first_rise(width)
    if span < rise + 2:
        raise ValueError(f"span must be at least {rise + 2} to show the first rise, got {span}")
    k = np.arange(-span, span + 1)  # (2 span + 1,)
    values = dot_profile(k, width)  # (2 span + 1,)
    fig = _figure(4.2)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1.0]})

    left.plot(k, values, "-", color=_PAPER, lw=0.9, alpha=0.6)
    left.plot(k, values, "o", color=_PAPER, ms=3.0, gid="dot-profile")
    left.axvline(0.0, color=_MUTED, lw=0.6, ls=":")
    left.annotate(
        f"S(0) = d/2 = {width // 2}",
        xy=(0, width / 2),
        xytext=(span * 0.22, width / 2 - 1.5),
        fontsize=_SMALL,
        color=_INK,
        va="center",
        arrowprops={"arrowstyle": "-", "color": _MUTED, "lw": 0.8},
    )
    for sign in (-1, 1):  # the first rise and its mirror image
        pair = np.array([sign * (rise - 1), sign * rise])
        left.plot(pair, dot_profile(pair, width), "o", ms=7, mfc="none", mec=_VARIANT, mew=1.6)
    low = float(values.min())
    left.set_ylim(low - 3, width / 2 + 3)
    left.set_xlim(-span - 1, span + 1)
    left.set_xlabel("offset k = q \u2212 p", fontsize=_FONT)
    left.set_ylabel("PE(p) \u00b7 PE(q)", fontsize=_FONT)
    left.set_title(f"width {width}: S(\u2212k) = S(k)", fontsize=_FONT, color=_INK)
    left.tick_params(labelsize=_SMALL)
    left.xaxis.set_major_formatter(lambda v, _: f"{v:.0f}".replace("-", _MINUS))

    near = np.arange(max(0, rise - 2), rise + 2)  # (4,): two steps down, the rise, one more
    close = dot_profile(near, width)  # (4,)
    right.plot(near, close, "-", color=_PAPER, lw=1.0, alpha=0.6)
    right.plot(near, close, "o", color=_PAPER, ms=5, gid="close-up")
    before, after = dot_profile([rise - 1, rise], width)
    right.plot(
        [rise - 1, rise],
        [before, after],
        "o",
        ms=10,
        mfc="none",
        mec=_VARIANT,
        mew=1.8,
        gid="first-rise",
    )
    for n, value in zip(near, close, strict=True):
        # Place each value where the line is not: above the falling points,
        # below-left of the last fall, above the rise, below what follows.
        if n < rise - 1:
            where, ha, va = (0, 9), "center", "bottom"
        elif n == rise - 1:
            where, ha, va = (-6, -6), "right", "top"
        elif n == rise:
            where, ha, va = (0, 9), "center", "bottom"
        else:
            where, ha, va = (0, -9), "center", "top"
        right.annotate(
            f"{value:.3f}",
            (n, value),
            xytext=where,
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=_SMALL,
            color=_VARIANT if n in (rise - 1, rise) else _PAPER,
        )
    right.annotate(
        f"+{after - before:.3f}",
        (rise - 0.5, (before + after) / 2),
        xytext=(4, -10),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=_SMALL,
        color=_VARIANT,
    )
    right.set_xticks(near)
    right.set_xlim(near[0] - 0.5, near[-1] + 0.5)
    right.set_ylim(float(close.min()) - 0.3, float(close.max()) + 0.25)
    right.set_xlabel("offset k", fontsize=_FONT)
    right.set_title(f"first rise: k = {rise - 1} \u2192 {rise}", fontsize=_FONT, color=_INK)
    right.tick_params(labelsize=_SMALL)
    return fig
