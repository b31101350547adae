"""Figures about whole layers: a stack without position (Proposition 2) and the causal mask (3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..attention import EncoderLayerParams, attention, causal_mask, encoder_layer, softmax
from ._style import _DIVERGING, _FONT, _INK, _MUTED, _OKABE_ITO, _SMALL, _figure, _number
from .toy import _COLOURS, _FIRST, _SECOND, _WORDS

__all__ = ["fig_causal_mask_swap", "fig_stack_equivariance"]

# ---------------------------------------------------------------------------
# Proposition 2: a stack of position-wise layers carries the permutation through

_TOKENS = ("the", "cat", "sat", "down")
_PERM = (2, 0, 3, 1)  # row r of PX is row _PERM[r] of X: "sat the down cat"
_WIDTH, _HIDDEN, _HEADS, _LAYERS = 8, 16, 2, 6
_SHOWN = (1, 2, 6)  # the layers whose outputs are drawn


def _stack(x: np.ndarray) -> list[np.ndarray]:
    """``x`` and the output of every layer of the fixed six-layer stack, (n, d) each."""
    outputs = [x]
    for seed in range(_LAYERS):
        params = EncoderLayerParams.random(_WIDTH, _HIDDEN, seed=seed)
        outputs.append(encoder_layer(outputs[-1], params, heads=_HEADS))  # (n, d)
    return outputs


def _column_heatmap(
    ax: Axes, values: np.ndarray, labels: Sequence[str], colours: Sequence[str], vmax: float
) -> None:
    """``values`` (n, d) drawn transposed: one column per token, features downwards."""
    image = ax.imshow(values.T, cmap=_DIVERGING, vmin=-vmax, vmax=vmax, aspect="auto")
    image.set_gid(ax.get_gid())
    ax.xaxis.tick_top()
    ax.set_xticks(range(len(labels)), labels, fontsize=_SMALL, fontweight="bold", rotation=90)
    for tick, colour in zip(ax.xaxis.get_major_ticks(), colours, strict=True):
        tick.label2.set_color(colour)
    ax.set_yticks([])
    ax.tick_params(length=0, pad=2)
    for spine in ax.spines.values():
        spine.set_color(_MUTED)
        spine.set_linewidth(0.6)


def _step(ax: Axes, label: str) -> None:
    """A right-pointing arrow filling ``ax``, labelled above."""
    ax.set_axis_off()
    ax.annotate(
        "",
        xy=(0.95, 0.5),
        xytext=(0.05, 0.5),
        xycoords="axes fraction",
        arrowprops={"arrowstyle": "-|>", "color": _INK, "lw": 1.3, "mutation_scale": 11},
    )
    ax.text(
        0.5,
        0.56,
        label,
        ha="center",
        va="bottom",
        fontsize=_SMALL,
        color=_INK,
        transform=ax.transAxes,
    )


def fig_stack_equivariance() -> Figure:
    """Six encoder layers without position: reordered tokens, reordered outputs, equal means.

    Top row: four tokens with eight fixed random features each (one column per
    token) pass through a fixed stack of six post-norm encoder layers
    (``posenc.encoder_layer``); the outputs after layers 1, 2 and 6 are shown,
    then their mean over positions. Bottom row: the same tokens reordered by
    P. At every stage the bottom columns are the top columns, moved by the same
    P, and the two means are identical (Proposition 2).
    """
    x = np.random.default_rng(20).normal(size=(len(_TOKENS), _WIDTH))  # (4, 8)
    perm = np.array(_PERM)
    top = _stack(x)  # 7 arrays (4, 8): input, layers 1..6
    bottom = _stack(x[perm])  # the same for P X
    colours = _OKABE_ITO[: len(_TOKENS)]
    moved = ([_TOKENS[j] for j in perm], [colours[j] for j in perm])
    rows = (
        ("original order", top, list(_TOKENS), list(colours), "top"),
        ("reordered by P", bottom, *moved, "bottom"),
    )
    vmax_in = float(np.abs(x).max())
    vmax_out = float(max(np.abs(np.concatenate(top[1:] + bottom[1:])).max(), 1e-12))

    fig = _figure(4.4)
    stages = len(_SHOWN) + 1  # input and the layers drawn
    ratios = []
    for _ in range(stages):
        ratios += [1.0, 0.42]
    ratios.append(0.3)  # the mean over positions
    grid = fig.add_gridspec(2, len(ratios), width_ratios=ratios, hspace=0.35, wspace=0.05)
    steps = ["layer 1", "layer 2", "layers\n3 to 6", "mean over\npositions"]
    for r, (name, outs, labels, cols, tag) in enumerate(rows):
        shown = [outs[0]] + [outs[k] for k in _SHOWN]
        titles = ["input"] + [f"after layer {k}" for k in _SHOWN]
        for s, values in enumerate(shown):
            ax = fig.add_subplot(grid[r, 2 * s], gid=f"stack-{tag}-{titles[s].split()[-1]}")
            _column_heatmap(ax, values, labels, cols, vmax_in if s == 0 else vmax_out)
            ax.set_xlabel(titles[s], fontsize=_SMALL, color=_MUTED, labelpad=3)
            if s == 0:
                ax.set_ylabel(f"{name}\n\nfeature", fontsize=_FONT, color=_INK)
            _step(fig.add_subplot(grid[r, 2 * s + 1]), steps[s])
        mean = outs[-1].mean(axis=0, keepdims=True)  # (1, d): mean over positions
        pooled = fig.add_subplot(grid[r, -1], gid=f"pooled-{tag}")
        _column_heatmap(pooled, mean, ["mean"], [_INK], vmax_out)
    note = "the two\nmeans are\nequal"
    fig.text(0.985, 0.5, note, ha="right", va="center", fontsize=_SMALL, color=_INK)
    return fig


# ---------------------------------------------------------------------------
# Proposition 3: the causal mask decides by index who sees whom


def _causal_weights(order: Sequence[str]) -> np.ndarray:
    """Attention weights of the toy sentence under the causal mask, (3, 3); 0 where masked."""
    rows = np.stack([_WORDS[w] for w in order])  # (3, 4)
    scores = rows @ rows.T / np.sqrt(rows.shape[1])  # (3, 3): q = k = the word itself
    allowed = causal_mask(len(order))  # (3, 3)
    return softmax(np.where(allowed, scores, -np.inf), axis=-1)  # (3, 3)


def _moved_distances(mask: np.ndarray | None) -> np.ndarray:
    """For each word, |its output in sentence 1 - its output in sentence 2|, (3,)."""
    eye = np.eye(4)
    out1 = attention(np.stack([_WORDS[w] for w in _FIRST]), eye, eye, eye, mask)  # (3, 4)
    out2 = attention(np.stack([_WORDS[w] for w in _SECOND]), eye, eye, eye, mask)  # (3, 4)
    return np.array(
        [np.linalg.norm(out1[_FIRST.index(w)] - out2[_SECOND.index(w)]) for w in _FIRST]
    )


def _mask_panel(ax: Axes, order: Sequence[str], gid: str, first: bool) -> None:
    """Who sees whom: the causal weights, with masked cells greyed out."""
    weights = _causal_weights(order)  # (3, 3)
    allowed = causal_mask(len(order))  # (3, 3)
    shown = np.where(allowed, weights, np.nan)  # masked cells are not drawn
    image = ax.imshow(shown, cmap="Blues", vmin=0.0, vmax=1.0, aspect="equal")
    image.set_gid(gid)
    for (r, c), ok in np.ndenumerate(allowed):
        if ok:
            shade = "white" if weights[r, c] > 0.6 else _INK
            text = _number(weights[r, c])
            ax.text(c, r, text, ha="center", va="center", fontsize=_SMALL, color=shade)
        else:
            cell = Rectangle((c - 0.5, r - 0.5), 1, 1, facecolor="#eeeeee", hatch="///")
            cell.set(edgecolor="white", linewidth=0, gid=f"{gid}-masked-{r}{c}")
            ax.add_patch(cell)
    ax.set_yticks(range(3), order, fontsize=_FONT, fontweight="bold")
    ax.set_xticks(range(3), order, fontsize=_SMALL)
    for tick, word in zip(ax.yaxis.get_major_ticks(), order, strict=True):
        tick.label1.set_color(_COLOURS[word])
    for tick, word in zip(ax.xaxis.get_major_ticks(), order, strict=True):
        tick.label1.set_color(_COLOURS[word])
    if first:
        ax.set_ylabel("query: who looks", fontsize=_SMALL, color=_MUTED)
    ax.set_xlabel("key: who is seen", fontsize=_SMALL, color=_MUTED)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(f"\u201c{' '.join(order)}\u201d", fontsize=_FONT, color=_INK)


def fig_causal_mask_swap() -> Figure:
    """Causal weights in both word orders: the mask, fixed by position, decides who sees whom.

    Left and middle: the causal attention weights of the two sentences (each
    word's query, key and value is its own hand-made vector); grey hatched
    cells are masked. First, "dog" sees only itself; last, it sees all three
    words. Right: for each word, the distance between its outputs in the two
    sentences, without a mask (0, Proposition 1) and with the causal mask
    (Proposition 3).
    """
    fig = _figure(3.6)
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 1.0, 0.95], wspace=0.08)
    _mask_panel(fig.add_subplot(grid[0, 0]), _FIRST, "weights-first", first=True)
    _mask_panel(fig.add_subplot(grid[0, 1]), _SECOND, "weights-second", first=False)

    ax = fig.add_subplot(grid[0, 2])
    plain = _moved_distances(None)  # (3,): zero up to rounding
    masked = _moved_distances(causal_mask(3))  # (3,)
    ys = np.arange(3)
    bars = ax.barh(ys, masked, height=0.55, color=[_COLOURS[w] for w in _FIRST])
    for bar, word in zip(bars, _FIRST, strict=True):
        bar.set_gid(f"causal-{word}")
    for y, value in zip(ys, masked, strict=True):
        ax.text(value + 0.02, y, _number(value, 3), va="center", fontsize=_SMALL, color=_INK)
    ax.set_yticks(ys, _FIRST, fontsize=_FONT, fontweight="bold")
    for tick, word in zip(ax.yaxis.get_major_ticks(), _FIRST, strict=True):
        tick.label1.set_color(_COLOURS[word])
    ax.set_ylim(2.5, -0.5)
    ax.set_xlim(0.0, 1.2)
    ax.set_xticks([0.0, 0.5, 1.0])
    ax.tick_params(labelsize=_SMALL, length=2)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("distance between a word\u2019s\ntwo outputs, causal mask", fontsize=_SMALL)
    worst = float(plain.max())
    note = f"no mask: {_number(worst, 3)} for\nevery word (Proposition 1)"
    ax.set_xlabel(note, fontsize=_SMALL, color=_MUTED, gid="no-mask-note")
    return fig
