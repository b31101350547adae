"""Tests for the ALiBi figure (Proposition 16): pure, and true to the closed forms.

Expected values come from the paper's formulas computed here with :mod:`math`:
the slopes 2^(-8h/H) of a power-of-two head count (for 12 heads, the reference
code's rule written out by hand), the bias -m_h (i - j) and the relative weight
e^(-m_h d). Determinism, untouched rcParams and the absence of pyplot are
checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import alibi as module
from posenc.figures.alibi import fig_alibi


def _slopes(heads: int) -> list[float]:
    """The paper's slopes for 8 heads, and the reference rule's for 12, by hand."""
    if heads == 8:
        return [2.0 ** (-h) for h in range(1, 9)]
    assert heads == 12  # 8 slopes of 8 heads, then the odd ones of the series for 16
    return [2.0 ** (-h) for h in range(1, 9)] + [2.0 ** (-(2 * t - 1) / 2) for t in range(1, 5)]


def test_page_width_white_and_alt_text():
    fig = fig_alibi()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_alibi.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("heads", "query"), [(8, 16), (8, 5), (12, 16)])
def test_bias_rows_are_lines_through_the_diagonal(heads, query):
    fig = fig_alibi(heads, query)
    for h, slope in enumerate(_slopes(heads), start=1):
        line = _by_gid(fig, Line2D, f"bias-head-{h}").get_xydata()  # (i + 1, 2)
        assert line[:, 0].tolist() == list(range(query + 1))  # keys 0..i, none after i
        want = [-slope * (query - j) for j in range(query + 1)]
        np.testing.assert_allclose(line[:, 1], want, rtol=1e-15, atol=0)
        assert line[-1, 1] == 0.0  # no penalty on the diagonal


@pytest.mark.parametrize("heads", [8, 12])
def test_weights_and_reach(heads):
    fig = fig_alibi(heads)
    for h, slope in enumerate(_slopes(heads), start=1):
        curve = _by_gid(fig, Line2D, f"weight-head-{h}").get_xydata()  # (512, 2)
        assert curve[:, 0].tolist() == list(range(1, 513))
        want = [math.exp(-slope * d) for d in range(1, 513)]
        np.testing.assert_allclose(curve[:, 1], want, rtol=1e-13)
        (dot,) = _by_gid(fig, Line2D, f"reach-head-{h}").get_xydata()
        assert dot[0] == pytest.approx(1.0 / slope, rel=1e-15)
        assert dot[1] == pytest.approx(math.exp(-1.0), rel=1e-15)
    level = _by_gid(fig, Line2D, "e-fold").get_xydata()
    assert np.allclose(level[:, 1], math.exp(-1.0))


def test_eight_heads_reach_two_to_two_hundred_fifty_six():
    fig = fig_alibi()
    reach = [_by_gid(fig, Line2D, f"reach-head-{h}").get_xydata()[0, 0] for h in range(1, 9)]
    assert reach == [2.0**h for h in range(1, 9)]  # 1/m_h = 2^h, exactly


def test_the_future_keys_are_hatched():
    fig = fig_alibi(query=16, future=4)
    box = _by_gid(fig, Rectangle, "masked")
    assert box.get_x() == 16.5 and box.get_width() == 4
    assert box.get_hatch() == "///"


def test_uses_posenc_alibi_bias(monkeypatch):
    calls = []
    real = module.alibi_bias

    def spy(length, num_heads, **kwargs):
        calls.append((length, num_heads))
        return real(length, num_heads, **kwargs)

    monkeypatch.setattr(module, "alibi_bias", spy)
    fig_alibi(8, 10)
    assert calls == [(11, 8), (513, 8)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"heads": 0}, "heads must be"),
        ({"heads": 8.0}, "heads must be"),
        ({"heads": True}, "heads must be"),
        ({"query": 0}, "query must be"),
        ({"future": -1}, "future must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_alibi(**kwargs)
