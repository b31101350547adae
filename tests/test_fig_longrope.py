"""Tests for the LongRoPE figure (Proposition 29): pure, and true to the config's lists.

The plotted factors must be the two lists of Phi-3.5-mini-instruct's config, read here with
the json module, not with posenc; the wavelengths must be 2 pi lambda_i / theta_i with
theta_i = b^(-2i/d) evaluated with mpmath at 50 digits, the short list at lengths up to
L0 and the long list beyond. Determinism, untouched rcParams and the absence of pyplot
are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures.longrope import fig_longrope_switch

CONFIG = Path(__file__).resolve().parents[1] / "data/configs/phi-3.5-mini-instruct.json"
RAW = json.loads(CONFIG.read_text())
SHORT, LONG = RAW["rope_scaling"]["short_factor"], RAW["rope_scaling"]["long_factor"]
D = RAW["hidden_size"] // RAW["num_attention_heads"]  # 96


def _mp_waves(factors) -> np.ndarray:
    """2 pi lambda_i b^(2i/d) at 50 digits, rounded to float64."""
    with mpmath.workdps(50):
        return np.array(
            [
                float(2 * mpmath.pi * mpmath.mpf(f) * mpmath.mpf(10000) ** (mpmath.mpf(2 * i) / D))
                for i, f in enumerate(factors)
            ]
        )


def test_page_width_white_and_docstring():
    fig = fig_longrope_switch()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_longrope_switch.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_left_panel_is_the_two_lists_of_the_config():
    fig = fig_longrope_switch()
    assert D == 96 and len(SHORT) == len(LONG) == D // 2
    short = _by_gid(fig, Line2D, "short").get_xydata()
    long = _by_gid(fig, Line2D, "long").get_xydata()
    assert short[:, 0].tolist() == long[:, 0].tolist() == list(range(48))
    assert short[:, 1].tolist() == SHORT and long[:, 1].tolist() == LONG
    # PI's single factor: 131072 / 4096 = 32.
    assert np.all(np.asarray(_by_gid(fig, Line2D, "uniform").get_ydata()) == 32.0)


@pytest.mark.parametrize(("before", "after"), [(4096, 4097), (1, 131072)])
def test_right_panel_switches_lists_above_l0(before, after):
    fig = fig_longrope_switch(before=before, after=after)
    got_before = _by_gid(fig, Line2D, f"length-{before}").get_ydata()
    got_after = _by_gid(fig, Line2D, f"length-{after}").get_ydata()
    np.testing.assert_allclose(got_before, _mp_waves(SHORT), rtol=1e-15)
    np.testing.assert_allclose(got_after, _mp_waves(LONG), rtol=1e-15)
    np.testing.assert_allclose(
        _by_gid(fig, Line2D, "unscaled").get_ydata(), _mp_waves([1.0] * 48), rtol=1e-15
    )


def test_two_lengths_on_the_same_side_of_l0_draw_the_same_speeds():
    fig = fig_longrope_switch(before=2, after=4096)
    np.testing.assert_array_equal(
        _by_gid(fig, Line2D, "length-2").get_ydata(),
        _by_gid(fig, Line2D, "length-4096").get_ydata(),
    )


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "4096", 2**21])
def test_bad_lengths_are_refused(bad):
    with pytest.raises(ValueError):
        fig_longrope_switch(before=bad)
