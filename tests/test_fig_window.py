"""Tests for the layer-type figure (Proposition 33): pure, and true to Gemma 3 27B's config.

The plotted data must agree with values computed here independently, with mpmath at
50 digits: the slowest wavelength 2 pi b^((d - 2)/d) (times the factor where it is
applied) of each layer, the layer pattern (every sixth layer global), and on the right
the term cos(k w) of a unit pair at every offset of the window. Determinism, untouched
rcParams and the absence of pyplot are checked for every figure at once, in
test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import window as module
from posenc.figures.window import GEMMA3, fig_window_layers


def _slowest_wave(base: float, head: int, factor: float = 1.0) -> float:
    with mpmath.workdps(50):
        return float(2 * mpmath.pi * mpmath.mpf(base) ** (mpmath.mpf(head - 2) / head) * factor)


def _bars(fig, gid):
    """The bars drawn with ``gid`` (each Rectangle carries it): (centre, height)."""
    found = [p for p in fig.findobj(Rectangle) if p.get_gid() == gid]
    return sorted((p.get_x() + p.get_width() / 2, p.get_height()) for p in found)


def test_page_width_white_and_alt_text():
    fig = fig_window_layers()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_window_layers.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_layers_follow_the_pattern_and_their_slowest_wavelength():
    fig = fig_window_layers()
    sliding, full = _bars(fig, "layers-sliding"), _bars(fig, "layers-global")
    assert [round(x) for x, _ in full] == [5, 11, 17, 23, 29, 35, 41, 47, 53, 59]
    assert len(sliding) == 52 and len(sliding) + len(full) == 62
    want_sliding = _slowest_wave(1.0e4, 128)
    want_global = _slowest_wave(1.0e6, 128, 8.0)
    np.testing.assert_allclose([h for _, h in sliding], want_sliding, rtol=1e-13)
    np.testing.assert_allclose([h for _, h in full], want_global, rtol=1e-13)
    misread = _by_gid(fig, Line2D, "layers-misread").get_ydata()
    np.testing.assert_allclose(misread, _slowest_wave(1.0e4, 128, 8.0), rtol=1e-13)
    assert list(_by_gid(fig, Line2D, "window").get_ydata()) == [1024, 1024]


def test_right_panel_is_the_first_pair_longer_than_the_window():
    fig = fig_window_layers()
    pair = module.first_long_pair()
    with mpmath.workdps(50):
        waves = [2 * mpmath.pi * mpmath.mpf(10) ** (mpmath.mpf(8 * i) / 128) for i in range(64)]
    assert pair == next(i for i, w in enumerate(waves) if w > 1024) == 36
    speed = float(1 / (mpmath.mpf(10) ** (mpmath.mpf(8 * pair) / 128)))
    for tag, factor in (("trained", 1.0), ("misread", 8.0)):
        data = _by_gid(fig, Line2D, f"term-{tag}").get_xydata()
        assert data[0, 0] == 0 and data[-1, 0] == 1023 and len(data) == 1024
        np.testing.assert_allclose(data[:, 1], np.cos(data[:, 0] * speed / factor), atol=1e-12)
    trained = _by_gid(fig, Line2D, "term-trained").get_ydata()
    misread = _by_gid(fig, Line2D, "term-misread").get_ydata()
    assert trained.min() < -0.999 and misread.min() > 0.7


def test_table_is_gemma3():
    # Typed from data/configs/gemma-3-27b-it.json and Gemma3TextConfig's defaults,
    # independently of the module.
    assert GEMMA3["layers"] == 62 and GEMMA3["window"] == 1024 and GEMMA3["pattern"] == 6
    assert (GEMMA3["sliding_base"], GEMMA3["global_base"], GEMMA3["factor"]) == (1e4, 1e6, 8.0)


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.inv_freq

    def spy(scheme, head_dim, **kwargs):
        calls.append((scheme, head_dim, kwargs.get("factor")))
        return real(scheme, head_dim, **kwargs)

    monkeypatch.setattr(module.rope, "inv_freq", spy)
    fig_window_layers()
    assert ("linear", 128, 8.0) in calls and ("default", 128, None) in calls
