"""Tests for the proportional-rotary figure (Proposition 31): pure, and true to both schemes.

The plotted data must agree with values computed here independently, with mpmath at
50 digits: proportional rotary keeps the first floor(p d / 2) rungs 2 pi b^(2i/d) of the
whole head's ladder and stops the rest; NeoX partial rotary climbs 2 pi b^(2i/r) with
r = floor(p d). The right panel's strips must turn exactly the coordinates each layout
pairs: (i, i + d/2) for i < k under proportional rotary, the first r under NeoX partial.
Determinism, untouched rcParams and the absence of pyplot are checked for every figure
at once, in test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

from posenc.figures import proportional as module
from posenc.figures.proportional import fig_proportional_ladders


def _wave(base: float, i: int, over: int) -> float:
    with mpmath.workdps(50):
        return float(2 * mpmath.pi * mpmath.mpf(base) ** (mpmath.mpf(2 * i) / over))


def test_page_width_white_and_alt_text():
    fig = fig_proportional_ladders()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_proportional_ladders.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(
    ("head_dim", "share", "base", "turning"),
    [(256, 0.25, 1e6, 32), (512, 0.25, 1e6, 64), (128, 0.5, 1e4, 32)],
)
def test_left_panel_ladders(head_dim, share, base, turning):
    fig = fig_proportional_ladders(head_dim, share, base)
    whole = _by_gid(fig, Line2D, "default-whole-head").get_xydata()
    assert whole[:, 0].tolist() == list(range(head_dim // 2))
    want_whole = [_wave(base, i, head_dim) for i in range(head_dim // 2)]
    np.testing.assert_allclose(whole[:, 1], want_whole, rtol=1e-14)
    # Proportional: the first k rungs of the whole head's ladder, the rest stopped.
    kept = _by_gid(fig, Line2D, "proportional-turning").get_xydata()
    assert kept[:, 0].tolist() == list(range(turning))
    np.testing.assert_allclose(kept[:, 1], want_whole[:turning], rtol=1e-14)
    stopped = _by_gid(fig, Line2D, "proportional-stopped").get_xdata()
    assert list(stopped) == list(range(turning, head_dim // 2))
    # NeoX partial: the ladder of a head of width r = 2k.
    neox = _by_gid(fig, Line2D, "partial-turning").get_xydata()
    assert neox[:, 0].tolist() == list(range(turning))
    want_neox = [_wave(base, i, 2 * turning) for i in range(turning)]
    np.testing.assert_allclose(neox[:, 1], want_neox, rtol=1e-14)
    assert neox[-1, 1] > kept[-1, 1]


def test_right_panel_turns_the_coordinates_of_each_layout():
    fig = fig_proportional_ladders()
    strips = np.ma.filled(_by_gid(fig, AxesImage, "coordinates").get_array(), np.nan)
    assert strips.shape == (2, 256)
    proportional, neox = strips
    # Proportional: coordinates 0..31 and 128..159 turn, pair i on both i and i + 128.
    turning = np.r_[0:32, 128:160]
    assert np.flatnonzero(np.isfinite(proportional)).tolist() == turning.tolist()
    want = [_wave(1e6, i, 256) for i in range(32)]
    np.testing.assert_allclose(proportional[0:32], want, rtol=1e-14)
    np.testing.assert_allclose(proportional[128:160], want, rtol=1e-14)
    # NeoX partial: the first 64 coordinates, pair i on i and i + 32.
    assert np.flatnonzero(np.isfinite(neox)).tolist() == list(range(64))
    want = [_wave(1e6, i, 64) for i in range(32)]
    np.testing.assert_allclose(neox[0:32], want, rtol=1e-14)
    np.testing.assert_allclose(neox[32:64], want, rtol=1e-14)


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.inv_freq

    def spy(scheme, head_dim, **kwargs):
        calls.append((scheme, head_dim, kwargs.get("partial_rotary_factor")))
        return real(scheme, head_dim, **kwargs)

    monkeypatch.setattr(module.rope, "inv_freq", spy)
    fig_proportional_ladders(64, 0.5, 100.0)
    assert ("proportional", 64, 0.5) in calls and ("default", 64, 0.5) in calls


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((256, 0.0, 1e6), "partial_rotary_factor"),
        ((256, 1.5, 1e6), "partial_rotary_factor"),
        ((255, 0.25, 1e6), "head_dim|rotary_dim|width"),
        ((256, 0.25, 1.0), "base"),
    ],
)
def test_rejects_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        fig_proportional_ladders(*args)
