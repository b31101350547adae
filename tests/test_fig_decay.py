"""Tests for the decay figure (Proposition 21): pure, and true to the closed forms.

Expected values come from RoFormer's formulas computed here with :mod:`cmath` and
:mod:`math`: the relative upper bound B(r) = (1/N) sum_j |S_j(r)| with
S_j(r) = sum_(t<j) e^(i r w_t), and the scores 2 sum_t cos(r w_t) (k = q) and
2 sum_t cos((s - r) w_t) (k = R_s q) of q = (1, ..., 1), over |q| |k| = d.
Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

import cmath
import itertools
import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures import decay as module
from posenc.figures.decay import fig_rope_decay


def _speeds(width: int, base: float = 10000.0) -> list[float]:
    return [base ** (-2.0 * t / width) for t in range(width // 2)]


def _bound(r: int, width: int, base: float = 10000.0) -> float:
    """B(r), summed by hand: the partial sums of the unit vectors e^(i r w_t)."""
    partial, total = 0j, 0.0
    for speed in _speeds(width, base):
        partial += cmath.exp(1j * r * speed)
        total += abs(partial)
    return total / (width // 2)


def _score(offset: int, width: int, base: float = 10000.0) -> float:
    """<q, R_offset q> / d for q = (1, ..., 1): each pair has length^2 2."""
    return math.fsum(2.0 * math.cos(offset * v) for v in _speeds(width, base)) / width


def test_page_width_white_and_alt_text():
    fig = fig_rope_decay()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_rope_decay.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("width", "length"), [(128, 512), (16, 200)])
def test_bound_is_roformers_relative_upper_bound(width, length):
    fig = fig_rope_decay(width=width, length=length, peak=length // 2)
    curve = _by_gid(fig, Line2D, "relative-bound").get_xydata()  # (L, 2)
    assert curve[:, 0].tolist() == list(range(length))
    want = [_bound(r, width) for r in range(length)]
    np.testing.assert_allclose(curve[:, 1], want, rtol=0, atol=1e-11)
    assert curve[0, 1] == pytest.approx((width // 2 + 1) / 2, abs=1e-13)  # S_j(0) = j


def test_window_means_fall():
    fig = fig_rope_decay()
    windows = [(0, 64), (64, 128), (128, 256), (256, 512)]
    means = []
    for a, b in windows:
        step = _by_gid(fig, Line2D, f"window-mean-{a}-{b}").get_xydata()
        assert step[:, 0].tolist() == [a, b]
        want = math.fsum(_bound(r, 128) for r in range(a, b)) / (b - a)
        assert step[0, 1] == step[1, 1] == pytest.approx(want, abs=1e-11)
        means.append(want)
    assert all(x > y + 1 for x, y in itertools.pairwise(means))
    assert not any(a.get_gid() == "window-mean-512-1024" for a in fig.findobj(Line2D))


def test_the_bound_stays_above_the_trivial_level():
    fig = fig_rope_decay()
    level = _by_gid(fig, Line2D, "trivial-level").get_xydata()
    assert np.allclose(level[:, 1], 1.0)
    curve = _by_gid(fig, Line2D, "relative-bound").get_xydata()
    assert curve[:, 1].min() > 3  # far above 1 on 0 .. 511


@pytest.mark.parametrize("peak", [400, 37])
def test_scores_and_the_peak(peak):
    fig = fig_rope_decay(peak=peak)
    ones = _by_gid(fig, Line2D, "score-ones").get_xydata()  # (512, 2)
    turned = _by_gid(fig, Line2D, "score-aligned").get_xydata()  # (512, 2)
    assert ones[:, 0].tolist() == turned[:, 0].tolist() == list(range(512))
    np.testing.assert_allclose(ones[:, 1], [_score(r, 128) for r in range(512)], atol=1e-13)
    want = [_score(peak - r, 128) for r in range(512)]
    np.testing.assert_allclose(turned[:, 1], want, atol=1e-13)
    (dot,) = _by_gid(fig, Line2D, "peak").get_xydata()
    assert dot[0] == peak and dot[1] == pytest.approx(1.0, abs=1e-14)
    assert int(np.argmax(turned[:, 1])) == peak  # the largest score sits at r = peak
    if peak == 400:
        assert turned[peak, 1] > 3 * turned[0, 1]  # far above the score at r = 0
    for gid in ("peak-line-top", "peak-line-bottom"):
        assert np.allclose(_by_gid(fig, Line2D, gid).get_xydata()[:, 0], peak)


def test_uses_posenc_rotary_and_rotary_angles(monkeypatch):
    calls = []
    real_rotary, real_angles = module.rotary, module.rotary_angles

    def spy_rotary(x, positions, **kwargs):
        calls.append(("rotary", np.shape(x)))
        return real_rotary(x, positions, **kwargs)

    def spy_angles(positions, width, **kwargs):
        calls.append(("rotary_angles", (len(positions), width)))
        return real_angles(positions, width, **kwargs)

    monkeypatch.setattr(module, "rotary", spy_rotary)
    monkeypatch.setattr(module, "rotary_angles", spy_angles)
    fig_rope_decay(width=16, length=200, peak=50)
    assert calls == [("rotary_angles", (200, 16)), ("rotary", (200, 16)), ("rotary", (1, 16))]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"width": 7}, "width must be even"),
        ({"width": 2}, "width must be"),
        ({"width": 128.0}, "width must be"),
        ({"length": 100}, "length must be"),
        ({"peak": 0}, "peak must be"),
        ({"peak": 512}, "peak must be"),
        ({"peak": True}, "peak must be"),
        ({"base": 1.0}, "base must be"),
        ({"base": "10000"}, "base must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_rope_decay(**kwargs)
