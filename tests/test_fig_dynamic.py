"""Tests for the dynamic NTK figure (Proposition 26): pure, drawn from posenc.rope, true to mpmath.

The plotted bases must be posenc.rope's, value for value, and those must be the closed
forms b (s L/L0 - (s - 1))^(d/(d-2)) and b s^(d/(d-2)), computed here with mpmath.
Determinism, untouched rcParams and the absence of pyplot are checked for every figure
at once, in test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc import rope
from posenc.figures import dynamic as module
from posenc.figures.dynamic import fig_dynamic_ntk

mpmath.mp.dps = 40
L0, D, B = 4096, 128, 10000.0


def _stretch(s: float, length: int) -> mpmath.mpf:
    """c(L) = s L / L0 - (s - 1) for L > L0, and 1 up to L0."""
    return mpmath.mpf(s) * max(length, L0) / L0 - (mpmath.mpf(s) - 1)


def _factor(c) -> float:
    """c^(d/(d-2)) at d = 128."""
    return float(mpmath.mpf(c) ** (mpmath.mpf(D) / (D - 2)))


def test_page_width_white_and_alt_text():
    fig = fig_dynamic_ntk()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_dynamic_ntk.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize("s", [2, 4, 8])
def test_dynamic_curves_are_posenc_rope_and_the_closed_form(s):
    fig = fig_dynamic_ntk()
    curve = _by_gid(fig, Line2D, f"dynamic-s{s}").get_xydata()  # (K, 2)
    lengths = np.rint(curve[:, 0] * L0).astype(int)
    assert lengths[0] == L0 // 64 and lengths[-1] == L0 * 17 // 2  # L0/64 .. 8.5 L0
    assert np.array_equal(lengths / L0, curve[:, 0])  # whole lengths, exactly
    library = [rope.dynamic_base(B, float(s), int(n), L0, D) / B for n in lengths]
    assert np.array_equal(curve[:, 1], library)
    np.testing.assert_allclose(
        curve[:, 1], [_factor(_stretch(s, int(n))) for n in lengths], rtol=4e-16, atol=0
    )
    assert np.all(curve[lengths <= L0, 1] == 1.0)  # unchanged up to L0
    assert np.all(np.diff(curve[lengths >= L0, 1]) > 0)  # and growing after it


@pytest.mark.parametrize("s", [2, 4, 8])
def test_static_lines_targets_and_crossings(s):
    fig = fig_dynamic_ntk()
    static = _by_gid(fig, Line2D, f"static-s{s}").get_xydata()
    assert np.all(static[:, 1] == rope.ntk_base(B, float(s), D) / B)
    assert static[0, 1] == pytest.approx(_factor(s), rel=4e-16)
    (target,) = _by_gid(fig, Line2D, f"target-s{s}").get_xydata()
    assert target[0] == s
    assert target[1] == pytest.approx(_factor(s * s - s + 1), rel=4e-16)  # not s^(d/(d-2))
    (cross,) = _by_gid(fig, Line2D, f"crossing-s{s}").get_xydata()
    assert cross[0] == pytest.approx((2 * s - 1) / s, rel=1e-15)
    assert cross[1] == static[0, 1]
    # The dynamic curve meets the static line at the crossing: the stretch there is s.
    assert _stretch(s, round(cross[0] * L0)) == s


def test_reach_of_the_slowest_pair():
    fig = fig_dynamic_ntk()
    none = _by_gid(fig, Line2D, "reach-none").get_xydata()
    assert np.array_equal(none[:, 0], none[:, 1])  # L/L0 without scaling
    for s in (2, 4, 8):
        dynamic = _by_gid(fig, Line2D, f"reach-dynamic-s{s}").get_xydata()
        lengths = np.rint(dynamic[:, 0] * L0).astype(int)
        want = [float(mpmath.mpf(int(n)) / L0 / _stretch(s, int(n))) for n in lengths]
        np.testing.assert_allclose(dynamic[:, 1], want, rtol=1e-14, atol=0)
        assert np.all(dynamic[lengths >= L0, 1] <= 1.0 + 1e-15)  # never past training's angle
        static = _by_gid(fig, Line2D, f"reach-static-s{s}").get_xydata()
        np.testing.assert_allclose(static[:, 1], static[:, 0] / s, rtol=1e-14, atol=0)
    level = _by_gid(fig, Line2D, "trained-reach").get_xydata()
    assert np.all(level[:, 1] == 1.0)


def test_uses_posenc_rope(monkeypatch):
    calls = {"dynamic_base": 0, "ntk_base": 0}
    real_dynamic, real_ntk = module.rope.dynamic_base, module.rope.ntk_base

    class Spy:
        def __getattr__(self, name):
            return getattr(rope, name)

        @staticmethod
        def dynamic_base(*args):
            calls["dynamic_base"] += 1
            return real_dynamic(*args)

        @staticmethod
        def ntk_base(*args):
            calls["ntk_base"] += 1
            return real_ntk(*args)

    monkeypatch.setattr(module, "rope", Spy())
    fig_dynamic_ntk(factors=(2,))
    assert calls == {"dynamic_base": 160 + 1, "ntk_base": 1}  # L0/64 .. 2.5 L0, and s L0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"factors": ()}, "factors must be"),
        ({"factors": "248"}, "factors must be"),
        ({"factors": (1,)}, "each factor must be"),
        ({"factors": (2, True)}, "each factor must be"),
        ({"factors": (32,)}, "each factor must be"),
        ({"head_dim": 2}, "head_dim must be"),
        ({"head_dim": 127}, "head_dim must be even"),
        ({"head_dim": 128.0}, "head_dim must be"),
        ({"train_length": 10}, "train_length must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_dynamic_ntk(**kwargs)
