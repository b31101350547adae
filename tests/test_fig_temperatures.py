"""Tests for the temperatures figure (Proposition 35): pure, and true to the rules.

The plotted factors must agree with closed forms computed here with mpmath at 50 digits:
YaRN's (1 + ln(s) / 10)^2, LongRoPE's 1 + ln s / ln 4096, Llama 4's
1 + 0.1 ln(floor((p + 1) / 8192) + 1) and Ministral 3's 1 + 0.1 ln(1 + floor(p / 16384)) at
the last query p of a context of s steps, and on the right each factor less 1 over ln s.
Determinism, untouched rcParams and the absence of pyplot are checked for every figure
at once, in test_figures.py.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures import temperatures as module
from posenc.figures.temperatures import fig_temperatures


def _yarn(s: float) -> float:
    with mpmath.workdps(50):
        return float((1 + mpmath.log(mpmath.mpf(s)) / 10) ** 2)


def _longrope(s: float) -> float:
    with mpmath.workdps(50):
        return float(1 + mpmath.log(mpmath.mpf(s)) / mpmath.log(4096))


def _steps(s: float, step: int, plus_one: bool) -> float:
    last = math.ceil(s * step) - 1
    count = (last + 1) // step if plus_one else last // step
    with mpmath.workdps(50):
        return float(1 + mpmath.log(1 + count) / 10)


REFERENCE = {
    "yarn": _yarn,
    "longrope": _longrope,
    "llama4": lambda s: _steps(s, 8192, True),
    "llama4_beta": lambda s: _steps(s, 16384, False),
}


def test_page_width_white_and_alt_text():
    fig = fig_temperatures()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_temperatures.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize("key", sorted(REFERENCE))
def test_left_panel_is_each_rule(key):
    data = _by_gid(fig_temperatures(points=60), Line2D, f"factor-{key}").get_xydata()
    assert len(data) == 60 and data[0, 0] == 1.0 and data[-1, 0] == 1024.0
    want = [REFERENCE[key](x) for x in data[:, 0]]
    np.testing.assert_allclose(data[:, 1], want, rtol=1e-14)


def test_values_at_the_page_stretches():
    # Exact values: LongRoPE's 7/6, 5/4, 17/12; Llama 4 at 32 steps: 1 + 0.1 ln 33.
    for s, want in ((4, 7 / 6), (8, 5 / 4), (32, 17 / 12)):
        assert module.FACTORS["longrope"](float(s)) == pytest.approx(want, rel=1e-15)
    assert module.FACTORS["llama4"](32.0) == pytest.approx(1 + 0.1 * math.log(33), rel=1e-15)
    assert module.FACTORS["llama4_beta"](32.0) == pytest.approx(1 + 0.1 * math.log(32), rel=1e-15)
    assert module.FACTORS["softmax"](40.0) == pytest.approx(_yarn(40.0), rel=1e-15)


def test_shipped_points_sit_on_their_curves():
    fig = fig_temperatures()
    for index, (_, key, s) in enumerate(module.SHIPPED):
        (x,), (y,) = _by_gid(fig, Line2D, f"shipped-{index}").get_data()
        assert x == s
        want = _yarn(s) if key == "softmax" else REFERENCE[key](s)
        assert y == pytest.approx(want, rel=1e-14)


def test_right_panel_ratios():
    fig = fig_temperatures(points=80)
    yarn = _by_gid(fig, Line2D, "ratio-yarn").get_xydata()
    np.testing.assert_allclose(yarn[:, 1], 0.2 + 0.01 * np.log(yarn[:, 0]), rtol=1e-12)
    longrope = _by_gid(fig, Line2D, "ratio-longrope").get_ydata()
    np.testing.assert_allclose(longrope, 1 / math.log(4096), rtol=1e-12)
    llama = _by_gid(fig, Line2D, "ratio-llama4").get_xydata()
    assert llama[-1, 0] == 1.0e12 and abs(llama[-1, 1] - 0.1) < 0.004


@pytest.mark.parametrize("value", [0, 9, 5001, True, 40.0, "40"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="points must be"):
        fig_temperatures(points=value)
