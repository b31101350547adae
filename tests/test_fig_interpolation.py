"""Tests for the context-stretching figures (Propositions 24 and 25).

Each plotted array is compared twice: with the arrays posenc.rope returns for the
same arguments (bit for bit: the figure draws the library's numbers), and with the
closed forms computed here with :mod:`math` (m / s, cos and sin of m w, the factors
s and s^(2i/(d-2)), the wavelengths 2 pi b^(2i/d) times the factor). Determinism,
untouched rcParams and the absence of pyplot are checked for every figure at once,
in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc import rope
from posenc.figures import interpolation as module
from posenc.figures.interpolation import fig_ntk_factors, fig_position_interpolation


def _ys(fig, gid: str) -> np.ndarray:
    return _by_gid(fig, Line2D, gid).get_xydata()[:, 1]


@pytest.mark.parametrize("figure", [fig_position_interpolation, fig_ntk_factors])
def test_page_width_white_and_alt_text(figure):
    fig = figure()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = figure.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


# -- Proposition 24 ------------------------------------------------------------------


@pytest.mark.parametrize(("train", "scale"), [(16, 4), (8, 2), (5, 3)])
def test_fed_positions_are_m_over_s_and_stay_below_the_training_length(train, scale):
    fig = fig_position_interpolation(train, scale)
    plain = _by_gid(fig, Line2D, "fed-plain").get_xydata()  # (L', 2)
    pi = _by_gid(fig, Line2D, "fed-pi").get_xydata()  # (L', 2)
    tokens = list(range(scale * train))
    assert plain[:, 0].tolist() == tokens and pi[:, 0].tolist() == tokens
    assert plain[:, 1].tolist() == tokens
    assert pi[:, 1].tolist() == [m / scale for m in tokens]  # exact: m / s in float64
    assert pi[-1, 1] == train - 1 / scale < train
    last = _by_gid(fig, Line2D, "last-trained").get_xydata()
    assert np.all(last[:, 1] == train - 1)


def test_the_circle_points_are_the_library_cache_and_turn_one_over_s_apart():
    scale = 4
    fig = fig_position_interpolation(16, scale)
    where = np.arange(6)
    for gid, speed in (("circle-plain", 1.0), ("circle-pi", 1.0 / scale)):
        points = _by_gid(fig, Line2D, gid).get_xydata()  # (6, 2)
        scheme = "default" if speed == 1.0 else "linear"
        kwargs = {} if speed == 1.0 else {"factor": float(scale)}
        inv, _ = rope.inv_freq(scheme, 2, **kwargs)
        cos, sin = rope.cos_sin(where, inv, layout="pairs")
        assert np.array_equal(points[:, 0], cos[:, 0]) and np.array_equal(points[:, 1], sin[:, 0])
        want = [(math.cos(p * speed), math.sin(p * speed)) for p in range(6)]
        np.testing.assert_allclose(points, want, rtol=0, atol=1e-15)
        steps = np.diff(np.unwrap(np.arctan2(points[:, 1], points[:, 0])))
        np.testing.assert_allclose(steps, speed, rtol=1e-13)


# -- Proposition 25 ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dim", "scale", "base"), [(128, 4.0, 1e4), (64, 8.0, 5e5), (96, 2.5, 1e4)]
)
def test_factors_are_the_librarys_and_the_closed_forms(dim, scale, base):
    fig = fig_ntk_factors(dim, scale, base)
    plain, _ = rope.inv_freq("default", dim, base=base)
    linear, _ = rope.inv_freq("linear", dim, base=base, factor=scale)
    ntk = rope.default_inv_freq(dim, rope.ntk_base(base, scale, dim))
    pi_line = _by_gid(fig, Line2D, "factor-pi").get_xydata()
    ntk_line = _by_gid(fig, Line2D, "factor-ntk").get_xydata()
    assert pi_line[:, 0].tolist() == list(range(dim // 2))
    assert np.array_equal(pi_line[:, 1], plain / linear)
    assert np.array_equal(ntk_line[:, 1], plain / ntk)
    np.testing.assert_allclose(pi_line[:, 1], scale, rtol=1e-15)
    closed = [scale ** (2 * i / (dim - 2)) for i in range(dim // 2)]
    np.testing.assert_allclose(ntk_line[:, 1], closed, rtol=1e-14)
    assert ntk_line[0, 1] == 1.0  # pair 0 keeps its speed
    assert ntk_line[-1, 1] == pytest.approx(scale, rel=1e-15)  # the slowest: exactly s
    assert np.all(np.diff(ntk_line[:, 1]) > 0)


def test_wavelengths_are_the_librarys_and_the_closed_forms():
    dim, scale, base = 128, 4.0, 1e4
    fig = fig_ntk_factors(dim, scale, base)
    plain, _ = rope.inv_freq("default", dim, base=base)
    linear, _ = rope.inv_freq("linear", dim, base=base, factor=scale)
    ntk = rope.default_inv_freq(dim, rope.ntk_base(base, scale, dim))
    for gid, speeds in (
        ("wavelength-default", plain),
        ("wavelength-pi", linear),
        ("wavelength-ntk", ntk),
    ):
        assert np.array_equal(_ys(fig, gid), rope.wavelengths(speeds))
    old = [2 * math.pi * base ** (2 * i / dim) for i in range(dim // 2)]
    np.testing.assert_allclose(_ys(fig, "wavelength-default"), old, rtol=1e-13)
    np.testing.assert_allclose(_ys(fig, "wavelength-pi"), [scale * v for v in old], rtol=1e-13)
    factors = [scale ** (2 * i / (dim - 2)) for i in range(dim // 2)]
    np.testing.assert_allclose(
        _ys(fig, "wavelength-ntk"), [f * v for f, v in zip(factors, old, strict=True)], rtol=1e-13
    )
    assert _ys(fig, "wavelength-ntk")[0] == pytest.approx(2 * math.pi, rel=1e-15)


def test_uses_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.ntk_base

    def spy(base, factor, dim):
        calls.append((base, factor, dim))
        return real(base, factor, dim)

    monkeypatch.setattr(module.rope, "ntk_base", spy)
    fig_ntk_factors(64, 2.0, 1e4)
    assert calls == [(1e4, 2.0, 64)]


@pytest.mark.parametrize(
    ("figure", "kwargs", "message"),
    [
        (fig_position_interpolation, {"train_length": 1}, "train_length must be"),
        (fig_position_interpolation, {"train_length": 8.0}, "train_length must be"),
        (fig_position_interpolation, {"scale": True}, "scale must be"),
        (fig_position_interpolation, {"scale": 9}, "scale must be"),
        (fig_ntk_factors, {"head_dim": 2}, "head_dim must be"),
        (fig_ntk_factors, {"head_dim": 65}, "head_dim must be even"),
        (fig_ntk_factors, {"scale": 1.0}, "scale must be"),
        (fig_ntk_factors, {"scale": "4"}, "scale must be"),
        (fig_ntk_factors, {"base": 1.0}, "base must be"),
    ],
)
def test_rejects_bad_arguments(figure, kwargs, message):
    with pytest.raises(ValueError, match=message):
        figure(**kwargs)
