"""Tests for the figures of Propositions 2 and 3: a stack without position, the causal mask.

Expected values are computed here with plain Python sums and :mod:`math`: the
encoder layer from its formula (post-norm, Vaswani et al. 2017, section 3.1),
the causal weights and outputs from softmax over the keys j <= r.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from posenc import EncoderLayerParams
from posenc.figures import layers
from posenc.figures.layers import fig_causal_mask_swap, fig_stack_equivariance
from proofs import p04_dog_bites_man as toy_proof

FIGURES = (fig_stack_equivariance, fig_causal_mask_swap)
FIRST, SECOND = ("dog", "bites", "man"), ("man", "bites", "dog")


def _drawn(fig: Figure, gid: str) -> np.ndarray:
    found = [a for a in fig.findobj(AxesImage) if a.get_gid() == gid]
    assert len(found) == 1, gid
    return np.ma.filled(np.ma.masked_invalid(found[0].get_array()), np.nan)


# --- both figures -------------------------------------------------------------


@pytest.mark.parametrize("make", FIGURES)
def test_white_page_width_figure_with_alt_text(make):
    fig = make()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = make.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


# --- Proposition 2 ------------------------------------------------------------


def _matmul(a, b):
    return [
        [math.fsum(r[k] * b[k][c] for k in range(len(b))) for c in range(len(b[0]))] for r in a
    ]


def _layer_by_hand(x: list[list[float]], p: EncoderLayerParams, heads: int) -> list[list[float]]:
    """out = LN2(H + FFN(H)), H = LN1(X + MHA(X)), written with Python floats."""
    d, d_k = len(x[0]), len(x[0]) // heads
    q, k, v = (_matmul(x, w.tolist()) for w in (p.Wq, p.Wk, p.Wv))
    heads_out = []
    for h in range(heads):
        cols = range(h * d_k, (h + 1) * d_k)
        block = []
        for qr in q:
            s = [math.fsum(qr[c] * kr[c] for c in cols) / math.sqrt(d_k) for kr in k]
            e = [math.exp(t - max(s)) for t in s]
            mixed = [math.fsum(w * vr[c] for w, vr in zip(e, v, strict=True)) for c in cols]
            block.append([t / math.fsum(e) for t in mixed])
        heads_out.append(block)
    joined = [[t for h in range(heads) for t in heads_out[h][r]] for r in range(len(x))]
    attended = _matmul(joined, p.Wo.tolist())

    def norm(rows, gain, bias):
        out = []
        for row in rows:
            mean = math.fsum(row) / d
            var = math.fsum((t - mean) ** 2 for t in row) / d
            scale = 1 / math.sqrt(var + p.eps)
            out.append([(row[c] - mean) * scale * gain[c] + bias[c] for c in range(d)])
        return out

    def add(a, b):
        return [[s + t for s, t in zip(r, u, strict=True)] for r, u in zip(a, b, strict=True)]

    hidden = norm(add(x, attended), p.gain1, p.bias1)
    inner = [
        [max(0.0, t) for t in r] for r in add(_matmul(hidden, p.W1.tolist()), [p.b1] * len(x))
    ]
    ffn = add(_matmul(inner, p.W2.tolist()), [p.b2] * len(x))
    return norm(add(hidden, ffn), p.gain2, p.bias2)


def test_stack_panels_are_the_layer_outputs():
    fig = fig_stack_equivariance()
    x = _drawn(fig, "stack-top-input").T  # (4, 8): the figure draws one column per token
    params = EncoderLayerParams.random(8, 16, seed=0)  # the stack's first layer
    np.testing.assert_allclose(
        _drawn(fig, "stack-top-1").T, _layer_by_hand(x.tolist(), params, 2), rtol=0, atol=1e-12
    )


def test_stack_carries_the_permutation_through_and_the_means_agree():
    fig = fig_stack_equivariance()
    perm = list(layers._PERM)
    for stage in ("input", "1", "2", "6"):
        top, bottom = _drawn(fig, f"stack-top-{stage}"), _drawn(fig, f"stack-bottom-{stage}")
        np.testing.assert_allclose(bottom, top[:, perm], rtol=0, atol=1e-12)  # columns moved
        if stage != "input":
            assert not np.allclose(bottom, top)  # ... they did move
    top_mean, bottom_mean = _drawn(fig, "pooled-top"), _drawn(fig, "pooled-bottom")
    np.testing.assert_allclose(bottom_mean, top_mean, rtol=0, atol=1e-12)
    last = _drawn(fig, "stack-top-6")  # (8, 4)
    np.testing.assert_allclose(top_mean[:, 0], last.mean(axis=1), rtol=0, atol=1e-15)


def test_stack_token_labels_follow_the_permutation():
    fig = fig_stack_equivariance()
    axes = {a.get_gid(): a for a in fig.axes if a.get_gid()}
    top = [t.get_text() for t in axes["stack-top-input"].get_xticklabels()]
    bottom = [t.get_text() for t in axes["stack-bottom-input"].get_xticklabels()]
    assert bottom == [top[j] for j in layers._PERM] and sorted(top) == sorted(bottom)


# --- Proposition 3 ------------------------------------------------------------


def _words() -> dict[str, list[float]]:
    return {w: [float(t) for t in v] for w, v in toy_proof.WORDS.items()}


def _causal_weights(order):
    rows = [_words()[w] for w in order]
    out = []
    for r, q in enumerate(rows):
        scores = [math.fsum(a * b for a, b in zip(q, k, strict=True)) / 2 for k in rows[: r + 1]]
        e = [math.exp(s) for s in scores]
        out.append([t / math.fsum(e) for t in e] + [math.nan] * (len(rows) - r - 1))
    return out


def _causal_outputs(order):
    rows = [_words()[w] for w in order]
    weights = _causal_weights(order)
    return [
        [math.fsum(weights[r][j] * rows[j][c] for j in range(r + 1)) for c in range(4)]
        for r in range(len(rows))
    ]


@pytest.mark.parametrize(("gid", "order"), [("weights-first", FIRST), ("weights-second", SECOND)])
def test_mask_panels_show_the_causal_weights(gid, order):
    fig = fig_causal_mask_swap()
    drawn = _drawn(fig, gid)  # (3, 3), NaN where masked
    np.testing.assert_allclose(drawn, _causal_weights(order), rtol=0, atol=1e-14, equal_nan=True)
    np.testing.assert_allclose(np.nansum(drawn, axis=1), 1.0, atol=1e-15)
    assert drawn[0, 0] == 1.0  # the first word sees only itself
    hatched = {a.get_gid() for a in fig.findobj(Rectangle) if (a.get_gid() or "").startswith(gid)}
    assert hatched == {f"{gid}-masked-01", f"{gid}-masked-02", f"{gid}-masked-12"}


def test_causal_bars_are_the_moved_distances():
    fig = fig_causal_mask_swap()
    out1, out2 = _causal_outputs(FIRST), _causal_outputs(SECOND)
    for w in FIRST:
        bar = next(a for a in fig.findobj(Rectangle) if a.get_gid() == f"causal-{w}")
        expected = math.dist(out1[FIRST.index(w)], out2[SECOND.index(w)])
        assert bar.get_width() == pytest.approx(expected, abs=1e-13)
        assert expected > 0.4  # every word's output depends on where it stands
    note = next(a for a in fig.axes if a.xaxis.label.get_gid() == "no-mask-note")
    assert "0.000" in note.get_xlabel()
