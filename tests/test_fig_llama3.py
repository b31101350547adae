"""Tests for the Llama 3 scaling figure (Proposition 28): pure, and true to posenc.rope.

The plotted data must be exactly what posenc.rope computes, and that must agree with
Meta's formula evaluated here with mpmath at 50 digits: the ladder 2 pi b^(2i/d), the
bands from comparing each wavelength with L0/4 and L0, and the new speeds theta,
theta ((1 - g)/s + g) and theta/s. Determinism, untouched rcParams and the absence of
pyplot are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc import rope
from posenc.figures import llama3 as module
from posenc.figures.llama3 import fig_llama3_scaling

BASE, L0 = 500000, 8192
LLAMA31 = {
    "base": 5e5,
    "original_max_position_embeddings": L0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
}


def _mp_scaled(width: int, factor: float) -> tuple[list, list, list[str]]:
    """Old speeds, new speeds and bands of Meta's apply_scaling, at 50 digits."""
    old, new, bands = [], [], []
    with mpmath.workdps(50):
        for i in range(width // 2):
            speed = mpmath.mpf(BASE) ** (-mpmath.mpf(2 * i) / width)
            wave = 2 * mpmath.pi / speed
            if wave < L0 / 4:
                bands.append("high")
                new.append(speed)
            elif wave > L0:
                bands.append("low")
                new.append(speed / factor)
            else:
                bands.append("blend")
                g = (L0 / wave - 1) / 3
                new.append(speed * ((1 - g) / factor + g))
            old.append(speed)
    return old, new, bands


def _floats(values) -> np.ndarray:
    return np.array([float(v) for v in values])


def test_page_width_white_and_alt_text():
    fig = fig_llama3_scaling()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_llama3_scaling.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize("factor", [8.0, 32.0])
def test_left_panel_is_posenc_ladder_before_and_after(factor):
    fig = fig_llama3_scaling(factor=factor)
    before = _by_gid(fig, Line2D, "before").get_xydata()  # (64, 2)
    after = _by_gid(fig, Line2D, "after").get_xydata()  # (64, 2)
    assert before[:, 0].tolist() == after[:, 0].tolist() == list(range(64))
    plain = rope.default_inv_freq(128, 5e5)
    scaled, _ = rope.inv_freq("llama3", 128, factor=factor, **LLAMA31)
    np.testing.assert_array_equal(before[:, 1], rope.wavelengths(plain))
    np.testing.assert_array_equal(after[:, 1], rope.wavelengths(scaled))
    # ... and posenc's numbers are Meta's formula.
    old, new, _ = _mp_scaled(128, factor)
    with mpmath.workdps(50):
        np.testing.assert_allclose(
            before[:, 1], _floats(2 * mpmath.pi / v for v in old), rtol=1e-15
        )
        np.testing.assert_allclose(
            after[:, 1], _floats(2 * mpmath.pi / v for v in new), rtol=1e-15
        )


@pytest.mark.parametrize("factor", [8.0, 16.0, 32.0])
def test_bands_are_shaded_where_meta_puts_them_whatever_the_factor(factor):
    fig = fig_llama3_scaling(factor=factor)
    _, _, bands = _mp_scaled(128, factor)
    assert bands == ["high"] * 29 + ["blend"] * 6 + ["low"] * 29  # FACTS-modern, recomputed
    for kind in ("high", "blend", "low"):
        members = [i for i, b in enumerate(bands) if b == kind]
        box = _by_gid(fig, Rectangle, f"band-{kind}")
        assert box.get_x() == members[0] - 0.5
        assert box.get_x() + box.get_width() == members[-1] + 0.5


def test_edges_are_l0_over_four_and_l0():
    fig = fig_llama3_scaling()
    for gid, value in (("edge-high", 2048.0), ("edge-low", 8192.0)):
        assert np.all(np.asarray(_by_gid(fig, Line2D, gid).get_ydata()) == value)
    for gid, value in (("window-high", 2048.0), ("window-low", 8192.0)):
        assert np.all(np.asarray(_by_gid(fig, Line2D, gid).get_xdata()) == value)
    window = _by_gid(fig, Rectangle, "blend-window")
    assert (window.get_x(), window.get_x() + window.get_width()) == (2048.0, 8192.0)


@pytest.mark.parametrize(("factor", "other"), [(8.0, 32.0), (4.0, 16.0)])
def test_right_panel_is_the_factor_from_a_dense_posenc_ladder(factor, other):
    fig = fig_llama3_scaling(factor=factor, other_factor=other)
    dense = rope.default_inv_freq(4096, 5e5)
    for s in (factor, other):
        curve = _by_gid(fig, Line2D, f"factor-{s:g}").get_xydata()  # (2048, 2)
        scaled, _ = rope.inv_freq("llama3", 4096, factor=s, **LLAMA31)
        np.testing.assert_array_equal(curve[:, 0], rope.wavelengths(dense))
        np.testing.assert_array_equal(curve[:, 1], scaled / dense)
        # Meta's formula: 1 below L0/4, 1/s above L0, (1 - g)/s + g between.
        old, new, bands = _mp_scaled(4096, s)
        want = _floats(n / o for n, o in zip(new, old, strict=True))
        np.testing.assert_allclose(curve[:, 1], want, rtol=1e-14)
        high = np.array([b == "high" for b in bands])
        low = np.array([b == "low" for b in bands])
        assert np.all(curve[high, 1] == 1.0) and np.all(curve[low, 1] == 1.0 / s)
        assert np.abs(np.diff(curve[:, 1])).max() < 0.01  # no jump at either edge
    dots = _by_gid(fig, Line2D, "pairs").get_xydata()  # (64, 2)
    plain = rope.default_inv_freq(128, 5e5)
    scaled, _ = rope.inv_freq("llama3", 128, factor=factor, **LLAMA31)
    np.testing.assert_array_equal(dots[:, 0], rope.wavelengths(plain))
    np.testing.assert_array_equal(dots[:, 1], scaled / plain)


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.inv_freq

    def spy(scheme, head_dim, **kwargs):
        calls.append((scheme, head_dim, kwargs["factor"]))
        return real(scheme, head_dim, **kwargs)

    monkeypatch.setattr(module.rope, "inv_freq", spy)
    fig_llama3_scaling(8.0, 32.0)
    assert calls == [("llama3", 128, 8.0), ("llama3", 4096, 8.0), ("llama3", 4096, 32.0)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"factor": 1.0}, "factor must be"),
        ({"factor": 0.5}, "factor must be"),
        ({"factor": True}, "factor must be"),
        ({"factor": "8"}, "factor must be"),
        ({"other_factor": 65.0}, "other_factor must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_llama3_scaling(**kwargs)
