"""Tests for the Proposition 4 figure: the two sentences' outputs, without and with the code.

Expected values are computed here with plain Python sums, :mod:`math` and the
paper's formula for the code, from the words of the proof file; the proof's
30-digit distances are the reference for the bars.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from posenc.figures import toy
from posenc.figures.toy import fig_dog_bites_man
from proofs import p04_dog_bites_man as proof
from proofs import runner


@pytest.fixture(scope="module")
def proven() -> dict:
    """The distances Proposition 4's proof computed in its run, as the page shows them."""
    [result] = runner.run([4])
    return {q["name"]: q for q in result.quantities}


FIRST, SECOND = ("dog", "bites", "man"), ("man", "bites", "dog")


def _pe(pos: int, width: int = 4) -> list[float]:
    """The paper's formula: (sin, cos) of pos * 10000^(-2i/d), pair by pair."""
    out = []
    for i in range(width // 2):
        angle = pos * 10000.0 ** (-2.0 * i / width)
        out += [math.sin(angle), math.cos(angle)]
    return out


def _attention(rows: list[list[float]]) -> list[list[float]]:
    """softmax(x_r . x_j / sqrt(d)) over j, mixing the rows themselves (Wq = Wk = Wv = I)."""
    d = len(rows[0])
    out = []
    for q in rows:
        scores = [math.fsum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(d) for k in rows]
        weights = [math.exp(s) for s in scores]
        total = math.fsum(weights)
        mixed = [math.fsum(w * k[c] for w, k in zip(weights, rows, strict=True)) for c in range(d)]
        out.append([m / total for m in mixed])
    return out


def _outputs(order: tuple[str, ...], code: bool) -> list[list[float]]:
    words = {w: [float(t) for t in proof.WORDS[w]] for w in proof.WORDS}  # exact rationals
    rows = [words[w] for w in order]
    if code:
        rows = [
            [a + b for a, b in zip(row, _pe(pos), strict=True)] for pos, row in enumerate(rows)
        ]
    return _attention(rows)


def _drawn(fig: Figure, gid: str) -> np.ndarray:
    found = [a for a in fig.findobj(AxesImage) if a.get_gid() == gid]
    assert len(found) == 1, gid
    return np.asarray(found[0].get_array())


def _bar(fig: Figure, gid: str) -> float:
    found = [a for a in fig.findobj(Rectangle) if a.get_gid() == gid]
    assert len(found) == 1, gid
    return found[0].get_width()


def test_white_page_width_figure_with_alt_text():
    fig = fig_dog_bites_man()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_dog_bites_man.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_words_are_those_of_the_proof():
    for word, vector in toy._WORDS.items():
        assert vector.tolist() == [float(t) for t in proof.WORDS[word]]


@pytest.mark.parametrize("code", [False, True])
def test_heatmaps_are_the_attention_outputs(code):
    fig = fig_dog_bites_man()
    tag = "code" if code else "plain"
    for n, order in ((1, FIRST), (2, SECOND)):
        drawn = _drawn(fig, f"out-{tag}-{n}")  # (3, 4), rows in sentence order
        np.testing.assert_allclose(drawn, _outputs(order, code), rtol=0, atol=1e-13)
        ax = next(a for a in fig.axes if a.get_gid() == f"out-{tag}-{n}")
        assert [t.get_text() for t in ax.get_yticklabels()] == list(order)
        written = sorted(float(t.get_text().replace("\u2212", "-")) for t in ax.texts)
        np.testing.assert_allclose(written, sorted(drawn.ravel()), atol=0.005)


def test_without_the_code_each_word_keeps_its_output():
    fig = fig_dog_bites_man()
    out1, out2 = _drawn(fig, "out-plain-1"), _drawn(fig, "out-plain-2")
    for w in FIRST:
        np.testing.assert_allclose(out1[FIRST.index(w)], out2[SECOND.index(w)], atol=1e-15)
        assert _bar(fig, f"distance-plain-{w}") < 1e-15
    assert not np.allclose(out1, out2)  # equivariant, not invariant: the rows moved


def test_with_the_code_the_bars_are_the_proven_distances(proven):
    fig = fig_dog_bites_man()
    for w in FIRST:
        width = _bar(fig, f"distance-code-{w}")
        assert f"{width:.6g}" == proven[f"distance_{w}"]["text"]
        first, second = _outputs(FIRST, True), _outputs(SECOND, True)
        by_hand = math.dist(first[FIRST.index(w)], second[SECOND.index(w)])
        assert width == pytest.approx(by_hand, abs=1e-13)
