"""Tests for the slow-pairs figure (Proposition 32): pure, and true to the shipped ladders.

The plotted data must agree with values computed here independently, with mpmath at
50 digits: the largest angle b^(-2i/d) C of each turning pair of each ladder (the
proportional one keeps only its first floor(p d / 2) pairs), and, on the right, the term
sin(offset * omega) of a pair with q at a right angle to k. Determinism, untouched
rcParams and the absence of pyplot are checked for every figure at once, in
test_figures.py.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures import slow as module
from posenc.figures.slow import LADDERS, fig_slow_pairs


def _angle(base: float, i: int, over: int, context: int) -> float:
    with mpmath.workdps(50):
        return float(mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / over) * context)


def test_page_width_white_and_alt_text():
    fig = fig_slow_pairs()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_slow_pairs.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_left_panel_is_each_ladder_times_its_context():
    fig = fig_slow_pairs()
    for index, (_, scheme, width, share, base, context) in enumerate(LADDERS):
        data = _by_gid(fig, Line2D, f"angles-{index}").get_xydata()
        pairs = width // 2
        turning = math.floor(share * width / 2) if scheme == "proportional" else pairs
        assert np.allclose(data[:, 0], np.arange(turning) / pairs, rtol=0, atol=0)
        want = [_angle(base, i, width, context) for i in range(turning)]
        np.testing.assert_allclose(data[:, 1], want, rtol=1e-14)
    line = _by_gid(fig, Line2D, "delta").get_ydata()
    assert list(line) == [0.1, 0.1]


def test_right_panel_terms_for_smollm3():
    fig = fig_slow_pairs()
    for tag, pair in (("slowest", 63), ("faster", 40)):
        data = _by_gid(fig, Line2D, f"term-{tag}").get_xydata()
        assert data[0, 0] == 0 and data[-1, 0] == 65536 and len(data) == 801
        speed = _angle(5.0e6, pair, 128, 1)
        np.testing.assert_allclose(data[:, 1], np.sin(data[:, 0] * speed), rtol=0, atol=1e-12)
    slowest = _by_gid(fig, Line2D, "term-slowest").get_ydata()
    assert np.max(np.abs(slowest)) < 0.1  # inside the band
    faster = _by_gid(fig, Line2D, "term-faster").get_ydata()
    assert faster.max() > 0.99 and faster.min() < -0.5


def test_ladders_are_the_shipped_ones():
    # Spot values typed from the configs (data/configs), independently of the module.
    assert ("SmolLM3-3B", "default", 128, 1.0, 5.0e6, 65536) in LADDERS
    assert ("Gemma 4 31B, global", "proportional", 512, 0.25, 1.0e6, 262144) in LADDERS


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.inv_freq

    def spy(scheme, head_dim, **kwargs):
        calls.append((scheme, head_dim))
        return real(scheme, head_dim, **kwargs)

    monkeypatch.setattr(module.rope, "inv_freq", spy)
    fig_slow_pairs()
    assert ("proportional", 512) in calls and ("default", 128) in calls


@pytest.mark.parametrize("value", [0, -0.1, 4.0, True, "0.1"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="delta must be"):
        fig_slow_pairs(delta=value)
