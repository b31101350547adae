"""Figures about the toy sentences "dog bites man" and "man bites dog" (Proposition 4).

Three hand-made words of width 4; each word's query, key and value is its own
vector (``Wq = Wk = Wv = I``) and every word attends to all three
(``posenc.attention``). The same words feed the causal-mask figure of
Proposition 3 (:mod:`posenc.figures.layers`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..attention import attention
from ..encoding import sinusoidal
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure, _number

__all__ = ["fig_dog_bites_man"]

# The words of Proposition 4, as in proofs/p04_dog_bites_man.py (exact in binary).
_WORDS = {
    "dog": np.array([1.0, 0.5, 0.0, -0.5]),
    "bites": np.array([0.0, -1.0, 0.5, 1.0]),
    "man": np.array([-0.5, 0.0, 1.0, 0.5]),
}
_FIRST = ("dog", "bites", "man")
_SECOND = ("man", "bites", "dog")
_COLOURS = dict(zip(_FIRST, _OKABE_ITO, strict=False))  # one colour per word, both sentences


def _sentence(order: Sequence[str]) -> np.ndarray:
    return np.stack([_WORDS[w] for w in order])  # (3, 4): one row per word


def _outputs(order: Sequence[str], code: bool) -> np.ndarray:
    """Attention outputs of the sentence, with or without the sinusoidal code added."""
    rows = _sentence(order)  # (3, 4)
    if code:
        rows = rows + sinusoidal(len(order), rows.shape[1])  # (3, 4): word + PE(pos)
    eye = np.eye(rows.shape[1])  # (4, 4): query = key = value = the row itself
    return attention(rows, eye, eye, eye)  # (3, 4)


def _distances(code: bool) -> np.ndarray:
    """|output of w in sentence 1 - output of w in sentence 2| for w = dog, bites, man."""
    out1, out2 = _outputs(_FIRST, code), _outputs(_SECOND, code)  # (3, 4) each
    return np.array(
        [np.linalg.norm(out1[_FIRST.index(w)] - out2[_SECOND.index(w)]) for w in _FIRST]
    )  # (3,)


def _word_heatmap(ax: Axes, values: np.ndarray, order: Sequence[str], vmax: float) -> None:
    """``values`` (3, 4) as cells with their numbers, rows labelled by word in colour."""
    image = ax.imshow(values, cmap=_DIVERGING, vmin=-vmax, vmax=vmax, aspect="auto")
    for (r, c), v in np.ndenumerate(values):
        shade = "white" if abs(v) > 0.55 * vmax else _INK
        ax.text(c, r, _number(v), ha="center", va="center", color=shade, fontsize=_SMALL)
    ax.set_yticks(range(len(order)), order, fontsize=_FONT, fontweight="bold")
    for tick, word in zip(ax.yaxis.get_major_ticks(), order, strict=True):
        tick.label1.set_color(_COLOURS[word])
    ax.set_xticks(range(values.shape[1]), [f"{c}" for c in range(values.shape[1])])
    ax.tick_params(length=0, labelsize=_SMALL)
    for spine in ax.spines.values():
        spine.set_visible(False)
    image.set_gid(ax.get_gid())


def _distance_bars(ax: Axes, distances: np.ndarray, top: float, gid: str) -> None:
    """One horizontal bar per word, its length written beside it."""
    ys = np.arange(len(_FIRST))
    bars = ax.barh(ys, distances, color=[_COLOURS[w] for w in _FIRST], height=0.55)
    for bar, word in zip(bars, _FIRST, strict=True):
        bar.set_gid(f"{gid}-{word}")
    for y, value in zip(ys, distances, strict=True):
        ax.text(value + 0.03 * top, y, _number(value, 3), va="center", fontsize=_SMALL, color=_INK)
    ax.set_yticks(ys, _FIRST, fontsize=_FONT, fontweight="bold")
    for tick, word in zip(ax.yaxis.get_major_ticks(), _FIRST, strict=True):
        tick.label1.set_color(_COLOURS[word])
    ax.set_ylim(len(_FIRST) - 0.5, -0.5)
    ax.set_xlim(0.0, top)
    ax.tick_params(labelsize=_SMALL, length=2)
    ax.spines[["top", "right"]].set_visible(False)


def fig_dog_bites_man() -> Figure:
    """A word's attention output in both word orders: equal without a position code, not with it.

    Top row: the outputs of one attention layer (each word's query, key and
    value is its own hand-made vector) for the two sentences, rows in sentence
    order; every word has exactly the same output in both, so the distances on
    the right are 0. Bottom row: the same after adding posenc.sinusoidal(3, 4)
    to the words; now each word's two outputs differ, even those of "bites",
    which stays in the middle (Proposition 4).
    """
    panels = {
        (code, n): _outputs(order, code)
        for code in (False, True)
        for n, order in enumerate((_FIRST, _SECOND), start=1)
    }  # (3, 4) each
    vmax = float(max(np.abs(v).max() for v in panels.values()))
    distances = {code: _distances(code) for code in (False, True)}  # (3,) each
    top = 1.25 * float(distances[True].max())

    fig = _figure(4.6)
    grid = fig.add_gridspec(2, 3, width_ratios=[1.0, 1.0, 0.95], hspace=0.12)
    for row, code in enumerate((False, True)):
        tag = "code" if code else "plain"
        for n, order in enumerate((_FIRST, _SECOND), start=1):
            ax = fig.add_subplot(grid[row, n - 1], gid=f"out-{tag}-{n}")
            _word_heatmap(ax, panels[code, n], order, vmax)
            sentence = " ".join(order)
            ax.set_title(f"\u201c{sentence}\u201d", fontsize=_FONT, color=_INK)
            if n == 1:
                what = "with the sinusoidal code" if code else "no position signal"
                ax.set_ylabel(what, fontsize=_FONT, color=_MUTED, labelpad=6)
            if row == 1:
                ax.set_xlabel("output feature", fontsize=_SMALL, color=_MUTED)
        bars = fig.add_subplot(grid[row, 2])
        _distance_bars(bars, distances[code], top, f"distance-{tag}")
        bars.set_title("distance between a word\u2019s\ntwo outputs", fontsize=_SMALL, color=_INK)
    return fig
