"""Tests for the NoPE figure (Proposition 17): a causal layer with no position code counts.

Expected values are exact fractions computed here: with every score 0, row i
of the causal softmax gives 1/(i + 1) to each key j <= i and 0 to the others,
and without the mask every weight is 1/n; the marker coordinate of the output
is then 1/(i + 1) and 1/n.

Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

from posenc.figures import nope as module
from posenc.figures.nope import fig_nope_counts


def _causal(n: int) -> list[list[Fraction]]:
    return [[Fraction(1, i + 1) if j <= i else Fraction(0) for j in range(n)] for i in range(n)]


def test_page_width_white_and_alt_text():
    fig = fig_nope_counts()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_nope_counts.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize("n", [2, 5, 8, 13])
def test_weight_matrices_are_the_exact_fractions(n):
    fig = fig_nope_counts(n)
    causal = np.ma.filled(
        np.ma.masked_invalid(_by_gid(fig, AxesImage, "causal-weights").get_array()), np.nan
    )  # (n, n)
    want = _causal(n)
    for i in range(n):
        for j in range(n):
            if j <= i:
                assert abs(Fraction(float(causal[i, j])) - want[i][j]) <= want[i][j] * 2**-53
            else:
                assert np.isnan(causal[i, j])  # masked: not drawn
    plain = np.asarray(_by_gid(fig, AxesImage, "bidirectional-weights").get_array())  # (n, n)
    assert plain.shape == (n, n)
    assert all(
        abs(Fraction(float(w)) - Fraction(1, n)) <= Fraction(1, n) * 2**-53 for w in plain.ravel()
    )


@pytest.mark.parametrize("n", [2, 8, 32])
def test_readings_are_one_over_i_plus_one_and_flat(n):
    fig = fig_nope_counts(n)
    causal = _by_gid(fig, Line2D, "causal-marker").get_xydata()  # (n, 2)
    flat = _by_gid(fig, Line2D, "bidirectional-marker").get_xydata()  # (n, 2)
    assert causal[:, 0].tolist() == list(range(n)) == flat[:, 0].tolist()
    for i, reading in enumerate(causal[:, 1].tolist()):
        assert abs(Fraction(reading) - Fraction(1, i + 1)) <= Fraction(1, i + 1) * 2**-53
        assert round(1 / reading - 1) == i  # the position read back
    for reading in flat[:, 1].tolist():
        assert abs(Fraction(reading) - Fraction(1, n)) <= Fraction(1, n) * 2**-53
        assert round(1 / reading - 1) == n - 1  # the same reading everywhere


def test_the_tokens_carry_the_marker_only_at_the_start():
    x = module._tokens(6)  # (6, 3)
    assert x[:, 0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert np.ptp(x[1:, 1]) > 0.5  # the content varies: it is not what the layer counts


def test_uses_posenc_attention(monkeypatch):
    calls = []
    real = module.attention

    def spy(x, wq, wk, wv, mask=None):
        calls.append((np.shape(x), mask is not None))
        return real(x, wq, wk, wv, mask=mask)

    monkeypatch.setattr(module, "attention", spy)
    fig_nope_counts(5)
    assert sorted(calls) == sorted(
        [((5, 5), True), ((5, 5), False), ((5, 3), True), ((5, 3), False)]
    )


@pytest.mark.parametrize(
    ("length", "error"), [(1, ValueError), (33, ValueError), (4.0, TypeError), (True, TypeError)]
)
def test_rejects_bad_lengths(length, error):
    with pytest.raises(error, match="length"):
        fig_nope_counts(length)
