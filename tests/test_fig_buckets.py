"""Tests for the T5 buckets figure (Proposition 15): pure, deterministic, true to the scheme.

Expected buckets come from T5's definition decided here with exact fractions: for
a distance n >= e the bucket is e + the largest k with (n/e)^a >= (M/e)^k, capped
at the last one. The landmarks (exact below 8 and 16, last bucket from 91 and 113)
are the values FACTS-modern section 1 states.

Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import buckets as module
from posenc.figures.buckets import fig_t5_buckets


def _bucket(offset: int, *, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """T5's bucket from its definition, the logarithm's floor decided with fractions."""
    half = num_buckets // 2 if bidirectional else num_buckets
    if bidirectional:
        upper, distance = (half if offset > 0 else 0), abs(offset)
    else:
        upper, distance = 0, max(-offset, 0)
    exact = half // 2
    if distance < exact:
        return upper + distance
    steps, ratio = half - exact, Fraction(max_distance, exact)
    power = Fraction(distance, exact) ** steps
    k = 0
    while k + 1 < steps and power >= ratio ** (k + 1):
        k += 1
    return upper + exact + k


def _line_x(fig: Figure, gid: str) -> float:
    xs = _by_gid(fig, Line2D, gid).get_xdata()
    assert xs[0] == xs[1]
    return float(xs[0])


def test_page_width_white_and_alt_text():
    fig = fig_t5_buckets()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_t5_buckets.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(
    ("num_buckets", "max_distance", "reach"), [(32, 128, 160), (32, 256, 300), (64, 128, 200)]
)
def test_steps_are_t5_buckets(num_buckets, max_distance, reach):
    fig = fig_t5_buckets(num_buckets, max_distance, reach)
    for tag, bidirectional in (("bidirectional", True), ("causal", False)):
        line = _by_gid(fig, Line2D, f"buckets-{tag}")
        xs, ys = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        assert xs.tolist() == list(range(-reach, reach + 1))
        want = [
            _bucket(
                int(x),
                bidirectional=bidirectional,
                num_buckets=num_buckets,
                max_distance=max_distance,
            )
            for x in xs
        ]
        assert ys.tolist() == want


def test_t5_landmarks_are_marked():
    fig = fig_t5_buckets()
    # The last bucket's start: 91 on both sides of the encoder, 113 in the decoder's past.
    assert _line_x(fig, "last-start-bidirectional-past") == -91
    assert _line_x(fig, "last-start-bidirectional-future") == 91
    assert _line_x(fig, "last-start-causal-past") == -113
    assert _line_x(fig, "max-bidirectional-past") == -128
    assert _line_x(fig, "max-bidirectional-future") == 128
    assert _line_x(fig, "max-causal-past") == -128
    assert [a for a in fig.findobj(Line2D) if a.get_gid() == "last-start-causal-future"] == []
    # The exact range: distances 0..7 (encoder, both signs) and 0..15 (decoder's past).
    for tag, low, high in (("bidirectional", -7.5, 7.5), ("causal", -15.5, 0.5)):
        band = _by_gid(fig, Rectangle, f"exact-{tag}")
        x0, x1 = band.get_x(), band.get_x() + band.get_width()
        assert (x0, x1) == pytest.approx((low, high))
    titles = [ax.get_title() for ax in fig.axes]
    assert "exact below 8, last bucket from 91" in titles[0]
    assert "exact below 16, last bucket from 113" in titles[1]


def test_landmarks_follow_the_configuration():
    # 32 buckets reaching 256: the last bucket begins at 166 (166^8 >= 2^59 > 165^8).
    assert 166**8 >= 2**59 > 165**8
    fig = fig_t5_buckets(32, 256, 300)
    assert _line_x(fig, "last-start-bidirectional-future") == 166
    assert _line_x(fig, "max-bidirectional-future") == 256


def test_uses_posenc_t5_bucket(monkeypatch):
    calls = []
    real = module.t5_bucket

    def spy(offsets, **kwargs):
        calls.append((len(offsets), kwargs["bidirectional"]))
        return real(offsets, **kwargs)

    monkeypatch.setattr(module, "t5_bucket", spy)
    fig_t5_buckets(reach=140)
    assert calls == [(281, True), (281, False)]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"reach": 128}, ValueError, "reach must be > max_distance"),
        ({"num_buckets": 2}, ValueError, "num_buckets"),
        ({"max_distance": 1.5}, TypeError, "max_distance"),
    ],
)
def test_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        fig_t5_buckets(**kwargs)
