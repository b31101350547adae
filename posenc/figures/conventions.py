"""Figures about how libraries compute the code: Propositions 13 and 14.

- :func:`fig_library_conventions`: one table in the paper's interleaved layout
  and in the concatenated layout, the permutation between them, and the two
  ladders of wavelengths, 2i/d against i/(h-1) (Proposition 13).
- :func:`fig_floating_point`: how far the float32 formula of the PyTorch
  tutorial drifts from the true code as the position grows (posenc's emulation
  of the tutorial's float32 operations), beside the same formula in float64 and
  posenc's float32 table, with the exact-integer limits of bfloat16, float16 and
  float32 marked (Proposition 14).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..conventions import columns, concatenated_order, table
from ..encoding import sinusoidal
from ..precision import exact_integer_limit
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_floating_point", "fig_library_conventions"]

_PAPER, _STRETCHED = _OKABE_ITO[0], _OKABE_ITO[1]  # blue, vermillion

# ---------------------------------------------------------------------------
# Proposition 13: the same ladder in other clothes


def _column_labels(width: int) -> list[str]:
    """Names of the interleaved columns: sin w0, cos w0, sin w1, ..."""
    return [rf"$\{'sin' if j % 2 == 0 else 'cos'}\,\omega_{{{j // 2}}}$" for j in range(width)]


def _heatmap(ax: Axes, values: np.ndarray, labels: list[str], title: str, gid: str) -> None:
    """Rows = columns of the table (top to bottom), positions left to right."""
    length, width = values.shape
    image = ax.imshow(
        values.T,  # (d, L)
        cmap=_DIVERGING,
        vmin=-1.0,
        vmax=1.0,
        aspect="auto",
        interpolation="nearest",
        extent=(-0.5, length - 0.5, width - 0.5, -0.5),
    )
    image.set_gid(gid)
    ax.set_yticks(range(width), labels, fontsize=_SMALL)
    ax.set_xticks(range(0, length, 5))
    ax.tick_params(labelsize=_SMALL)
    ax.set_xlabel("position", fontsize=_SMALL)
    ax.set_title(title, fontsize=_FONT, color=_INK)


def fig_library_conventions(length: int = 24, width: int = 8) -> Figure:
    """One table in the paper's interleaved layout and in the sines-first layout, and two ladders.

    Top left: the paper's table (``posenc.conventions.table("paper", ...)``),
    one row per column of the code (sin w0, cos w0, sin w1, ...), positions left
    to right. Top right: the same numbers in the concatenated layout (all sines,
    then all cosines, as Marian and Pegasus store them); the lines between the
    two panels are the column permutation. Bottom: the wavelength 2 pi / w_i of
    each pair on a log scale, for the paper's exponent 2i/d and for the (h-1)
    exponent of tensor2tensor, fairseq and Whisper, which ends exactly at
    2 pi 10000 (Proposition 13).
    """
    if width < 4 or width % 2:
        raise ValueError(f"width must be an even integer >= 4, got {width}")
    paper = table("paper", length, width)  # (L, d)
    order = concatenated_order(width)  # (d,): concatenated column k is paper column order[k]
    concatenated = paper[:, order]  # (L, d)
    labels = _column_labels(width)

    fig = _figure(5.2)
    grid = fig.add_gridspec(2, 3, width_ratios=[1.0, 0.22, 1.0], height_ratios=[1.35, 1.0])
    left = fig.add_subplot(grid[0, 0])
    middle = fig.add_subplot(grid[0, 1])
    right = fig.add_subplot(grid[0, 2])
    _heatmap(left, paper, labels, "paper: interleaved", "interleaved-table")
    _heatmap(
        right,
        concatenated,
        [labels[j] for j in order],
        "sines first (Marian, Pegasus)",
        "concatenated-table",
    )
    right.yaxis.tick_right()

    # The permutation: row j of the left panel is row inverse[j] of the right one.
    inverse = np.argsort(order)  # (d,)
    middle.set_xlim(0.0, 1.0)
    middle.set_ylim(width - 0.5, -0.5)
    middle.set_axis_off()
    for j in range(width):  # sines solid, cosines dashed
        style = "-" if j % 2 == 0 else (0, (3, 2))
        middle.plot([0.0, 1.0], [j, inverse[j]], color=_INK, lw=1.1, ls=style, gid=f"move-{j}")
    middle.text(
        0.5,
        -0.9,
        "same columns,\nnew order",
        ha="center",
        va="bottom",
        fontsize=_SMALL,
        color=_MUTED,
    )

    ladder = fig.add_subplot(grid[1, :])
    half = width // 2
    pairs = np.arange(half)  # (h,)
    for name, colour, label, marker in (
        ("paper", _PAPER, "2i/d: paper, tutorial, XLM, Marian, Keras", "o"),
        ("whisper", _STRETCHED, "i/(h\u22121): tensor2tensor, fairseq, Whisper", "s"),
    ):
        kinds, speeds = columns(name, width)
        rungs = 2.0 * np.pi / speeds[np.array(kinds) == "sin"]  # (h,): one wavelength per pair
        ladder.plot(
            pairs,
            rungs,
            marker=marker,
            color=colour,
            lw=1.4,
            ms=6,
            label=label,
            gid=f"ladder-{name}",
        )
        for i, value in zip(pairs, rungs, strict=True):
            ladder.annotate(
                # Grouped from five digits on (62,832 but 6283), as the pages show numbers.
                (f"{value:,.0f}" if value >= 10_000 else f"{value:.0f}")
                if value >= 100
                else f"{value:.2f}",
                (i, value),
                xytext=(6, -12 if name == "paper" else 5),
                textcoords="offset points",
                fontsize=_SMALL,
                color=colour,
            )
    top = 2.0 * np.pi * 10000.0
    ladder.axhline(top, color=_MUTED, lw=1.0, ls=(0, (4, 3)), gid="two-pi-base")
    ladder.text(1.5, top * 1.5, "2\u03c0\u00b710000", fontsize=_SMALL, color=_MUTED, ha="center")
    ladder.set_yscale("log")
    ladder.set_ylim(2.0, top * 12)
    ladder.set_xlim(-0.2, half - 0.5)
    ladder.set_xticks(pairs, [f"pair {i}" for i in pairs])
    ladder.tick_params(labelsize=_SMALL)
    ladder.set_ylabel("wavelength\n(positions)", fontsize=_SMALL)
    ladder.set_title(f"the two ladders at width {width}", fontsize=_FONT, color=_INK)
    ladder.legend(fontsize=_SMALL, loc="lower right", frameon=False)
    for side in ("top", "right"):
        ladder.spines[side].set_visible(False)
    return fig


# ---------------------------------------------------------------------------
# Proposition 14: where the formula meets floating point

_TUTORIAL, _FLOAT64, _POSENC = _OKABE_ITO[1], _OKABE_ITO[2], _OKABE_ITO[0]
_LIMITS = ("bfloat16", "float16", "float32")


@functools.lru_cache(maxsize=4)
def _errors(width: int, positions: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """Largest error over all columns at each position: tutorial float32, float64, posenc.

    The true code is evaluated with mpmath at 30 digits (a dependency of SymPy,
    imported only here).
    """
    import mpmath

    with mpmath.workdps(30):
        speeds = [mpmath.power(10000, mpmath.mpf(-2 * i) / width) for i in range(width // 2)]
        result = np.zeros((3, len(positions)))  # (3, n)
        for n, pos in enumerate(positions):
            true = np.empty(width, dtype=object)  # (d,) of mpf
            for i, speed in enumerate(speeds):
                angle = pos * speed
                true[2 * i], true[2 * i + 1] = mpmath.sin(angle), mpmath.cos(angle)
            rows = (
                table("pytorch-tutorial", 1, width, start=pos, path="emulated")[0],
                _float64_formula(pos, width),
                sinusoidal(1, width, start=pos, dtype=np.float32)[0],
            )
            for k, row in enumerate(rows):
                result[k, n] = max(
                    float(abs(mpmath.mpf(float(v)) - t)) for v, t in zip(row, true, strict=True)
                )
    result.flags.writeable = False  # cached: shared between calls
    return tuple(result)


def _float64_formula(pos: int, width: int) -> np.ndarray:
    """The tutorial's formula in float64: exp(-ln(10000) 2i/d), times pos, then sin, cos."""
    frequency = np.exp(np.arange(0, width, 2) * (-math.log(10000.0) / width))  # (d/2,)
    angles = float(pos) * frequency  # (d/2,)
    row = np.empty(width)  # (d,)
    row[0::2], row[1::2] = np.sin(angles), np.cos(angles)
    return row


def fig_floating_point(width: int = 512, per_decade: int = 3, top: int = 10**8) -> Figure:
    """Error of the float32 formula grows with position; bfloat16, float16, float32 limits marked.

    The largest absolute error over all ``width`` columns, against the true code
    (mpmath, 30 digits), at positions 1 .. ``top`` (``per_decade`` per decade,
    log-log axes): the PyTorch tutorial's formula in float32
    (``posenc.conventions.table("pytorch-tutorial", ..., path="emulated")``:
    posenc's emulation of the tutorial's float32 operations in NumPy, not the
    tutorial's own bits, which torch's float32 ``exp``, ``sin`` and ``cos`` may
    round differently), the same formula in float64, and ``posenc.sinusoidal``
    in float32. Dashed vertical lines mark
    the last position each format holds exactly: 256 (bfloat16), 2048
    (float16), 2^24 (float32); the dotted line is one float32 ulp of 1
    (Proposition 14).
    """
    decades = round(math.log10(top))
    if per_decade < 1 or decades < 1 or 10**decades != top:
        raise ValueError(
            f"top must be a power of ten and per_decade >= 1, got {top}, {per_decade}"
        )
    raw = np.round(np.logspace(0, decades, decades * per_decade + 1)).astype(np.int64)
    positions = tuple(int(p) for p in np.unique(raw))
    tutorial, float64, posenc32 = _errors(width, positions)  # (n,) each

    fig = _figure(4.6)
    ax = fig.add_subplot()
    x = np.array(positions)  # (n,)
    floor = 1e-17  # an error that happens to be 0 is drawn here
    for values, colour, marker, label, gid in (
        (
            tutorial,
            _TUTORIAL,
            "o",
            "float32, the tutorial's steps (emulated)",
            "error-tutorial-float32",
        ),
        (float64, _FLOAT64, "^", "float64, the same formula", "error-float64"),
        (posenc32, _POSENC, "s", "float32, posenc.sinusoidal", "error-posenc-float32"),
    ):
        ax.plot(
            x,
            np.maximum(values, floor),
            marker=marker,
            ms=4.5,
            lw=1.6,
            color=colour,
            label=label,
            gid=gid,
        )
    ulp = 2.0**-23
    ax.axhline(ulp, color=_MUTED, lw=1.0, ls=":", gid="float32-ulp")
    ax.text(3e4, ulp * 1.6, "one float32 ulp of 1", fontsize=_SMALL, color=_MUTED)
    for name in _LIMITS:
        limit = exact_integer_limit(name)
        ax.axvline(limit, color=_INK, lw=0.9, ls=(0, (5, 3)), gid=f"limit-{name}")
        shown = "2\u00b2\u2074" if name == "float32" else f"{limit:,}"
        right_of_line = name == "float16"  # the others sit left of their line
        ax.text(
            limit * (1.15 if right_of_line else 0.87),
            6e-18,
            f"{name}\nexact to {shown}",
            fontsize=_SMALL,
            color=_INK,
            va="bottom",
            ha="left" if right_of_line else "right",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.8, top * 1.4)
    ax.set_ylim(3e-18, 10.0)
    ax.set_xlabel("position", fontsize=_FONT)
    ax.set_ylabel(f"largest |error| over {width} columns", fontsize=_FONT)
    ax.tick_params(labelsize=_SMALL)
    ax.set_title(
        f"the sinusoidal table at width {width}, against the exact values",
        fontsize=_FONT,
        color=_INK,
    )
    ax.legend(fontsize=_SMALL, loc="upper left", frameon=False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
