"""Figures about T5's relative position buckets (Proposition 15).

Reference: Raffel et al. 2020, *Exploring the Limits of Transfer Learning with a
Unified Text-to-Text Transformer*, JMLR 21, section 2.1 (arXiv:1910.10683).
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .._validate import integer
from ..relative import t5_bucket
from ._style import _FONT, _INK, _MINUS, _MUTED, _OKABE_ITO, _SMALL, _figure

__all__ = ["fig_t5_buckets"]

_STEP, _EXACT, _LAST, _MAX = _OKABE_ITO[0], _OKABE_ITO[2], _OKABE_ITO[1], _MUTED


def _landmarks(past: np.ndarray) -> tuple[int, int]:
    """(least distance sharing its bucket, least distance in the last bucket).

    ``past`` (R + 1,) holds the buckets of the distances 0..R on the past side.
    """
    values, counts = np.unique(past, return_counts=True)
    shared = np.isin(past, values[counts > 1])  # (R + 1,)
    return int(np.argmax(shared)), int(np.argmax(past == past.max()))


def _panel(
    ax: Axes,
    offsets: np.ndarray,
    buckets: np.ndarray,
    tag: str,
    max_distance: int,
    sides: tuple[int, ...],
) -> tuple[int, int]:
    """Draw one scheme's buckets; return its exact range and last bucket's start."""
    exact, last = _landmarks(buckets[offsets <= 0][::-1])
    low = -(exact - 0.5)
    high = exact - 0.5 if 1 in sides else 0.5
    ax.axvspan(low, high, color=_EXACT, alpha=0.22, lw=0, gid=f"exact-{tag}")
    ax.step(offsets, buckets, where="mid", color=_STEP, lw=1.4, gid=f"buckets-{tag}")
    for side in sides:
        name = "future" if side > 0 else "past"
        ax.axvline(side * last, color=_LAST, lw=1.3, ls="--", gid=f"last-start-{tag}-{name}")
        ax.axvline(side * max_distance, color=_MAX, lw=1.0, ls=":", gid=f"max-{tag}-{name}")
    top = int(buckets.max())
    for side in sides:  # labels in the empty corners below the steps
        sign = "" if side > 0 else _MINUS
        away = "left" if side > 0 else "right"
        ax.annotate(
            f"last bucket\nfrom {sign}{last}",
            (side * last, 0.0),
            xytext=(-4 * side, 2),
            textcoords="offset points",
            ha="right" if side > 0 else "left",
            va="bottom",
            fontsize=_SMALL,
            color=_LAST,
        )
        ax.annotate(
            "max_distance",
            (side * max_distance, 0.3 * top),
            xytext=(3 * side, 0),
            textcoords="offset points",
            ha=away,
            va="center",
            rotation=90,
            fontsize=_SMALL,
            color=_MAX,
        )
    ax.text(
        0.0,
        -0.06,
        f"exact: distance < {exact}",
        transform=ax.get_xaxis_transform(),
        ha="center",
        va="top",
        fontsize=_SMALL,
        color=_EXACT,
        fontweight="bold",
    )
    ax.set_xlim(offsets[0] - 0.5, offsets[-1] + 0.5)
    ax.set_ylim(-0.8, top + 0.8)
    ax.tick_params(labelsize=_SMALL)
    ax.set_xlabel("offset key \u2212 query", fontsize=_FONT, labelpad=14)
    return exact, last


def fig_t5_buckets(num_buckets: int = 32, max_distance: int = 128, reach: int = 160) -> Figure:
    """T5's bucket of each offset: exact near zero, then logarithmic; the last bucket starts early.

    Left: the encoder's (bidirectional) bucket of every offset key - query from
    -reach to reach, computed by ``posenc.relative.t5_bucket``; the shaded band is
    the exact range (a bucket per distance), dashed lines the start of the last
    bucket on each side, dotted lines +-max_distance. Right: the decoder's (causal)
    bucket, all buckets for the past and bucket 0 for every key after the query
    (Proposition 15).
    """
    num_buckets = integer("num_buckets", num_buckets, minimum=4)
    max_distance = integer("max_distance", max_distance, minimum=1)
    reach = integer("reach", reach, minimum=1)
    if reach <= max_distance:
        raise ValueError(f"reach must be > max_distance = {max_distance}, got {reach}")
    offsets = np.arange(-reach, reach + 1)  # (2R + 1,)
    fig = _figure(4.0)
    axes = fig.subplots(1, 2, sharex=True)
    for ax, causal in zip(axes, (False, True), strict=True):
        tag = "causal" if causal else "bidirectional"
        buckets = t5_bucket(
            offsets,
            bidirectional=not causal,
            num_buckets=num_buckets,
            max_distance=max_distance,
        )  # (2R + 1,)
        sides = (-1,) if causal else (-1, 1)
        exact, last = _panel(ax, offsets, buckets, tag, max_distance, sides)
        title = "decoder (causal)" if causal else "encoder (bidirectional)"
        ax.set_title(
            f"{title}: {num_buckets} buckets, max_distance {max_distance}\n"
            f"exact below {exact}, last bucket from {last}",
            fontsize=_SMALL,
            color=_INK,
        )
    axes[0].set_ylabel("bucket", fontsize=_FONT)
    return fig
