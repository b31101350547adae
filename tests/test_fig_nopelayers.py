"""Tests for the NoPE-layers figure (Proposition 34): pure, and true to the configs.

The stacks must mark every fourth layer (indices 3, 7, 11, ...) of Llama 4 Scout (48
layers), SmolLM3-3B (36) and Command R7B (32) as without rotary, and the right panel
must be 1 + 0.1 ln(floor((p + 1) / 8192) + 1) computed here with mpmath at 50 digits,
with its steps at p = 8192 k - 1 for k = 1 .. 32. Determinism, untouched rcParams and
the absence of pyplot are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import nopelayers as module
from posenc.figures.nopelayers import LLAMA4, STACKS, fig_nope_layers


def _tau(p: int) -> float:
    with mpmath.workdps(50):
        return float(1 + mpmath.mpf(1) / 10 * mpmath.log((p + 1) // 8192 + 1))


def _bars(fig, gid):
    found = [r for r in fig.findobj(Rectangle) if r.get_gid() == gid]
    return sorted(round(r.get_x() + r.get_width() / 2) for r in found)


def test_page_width_white_and_alt_text():
    fig = fig_nope_layers()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_nope_layers.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_tables_are_the_configs():
    # Typed from data/configs and Llama4TextConfig's defaults, independently of the module.
    assert {k: (v["layers"], v["interval"]) for k, v in STACKS.items()} == {
        "scout": (48, 4),
        "smol": (36, 4),
        "command": (32, 4),
    }
    assert LLAMA4 == {"attn_scale": 0.1, "floor_scale": 8192, "context": 262144}


def test_every_fourth_layer_has_no_rotary():
    fig = fig_nope_layers()
    for key, count in (("scout", 48), ("smol", 36), ("command", 32)):
        nope, rotary = _bars(fig, f"{key}-nope"), _bars(fig, f"{key}-rotary")
        assert nope == list(range(3, count, 4))
        assert sorted(nope + rotary) == list(range(count))


def test_temperature_steps():
    fig = fig_nope_layers()
    steps = _by_gid(fig, Line2D, "steps").get_xydata()
    assert [int(x) for x in steps[:, 0]] == [8192 * k - 1 for k in range(1, 33)]
    np.testing.assert_allclose(steps[:, 1], [_tau(8192 * k - 1) for k in range(1, 33)], rtol=1e-15)
    curve = _by_gid(fig, Line2D, "tau").get_xydata()
    np.testing.assert_allclose(curve[:, 1], [_tau(int(p)) for p in curve[:, 0]], rtol=1e-15)
    below = curve[curve[:, 0] < 8191]
    assert len(below) >= 2 and np.all(below[:, 1] == 1.0)
    assert curve[0, 0] == 1 and curve[-1, 0] == 262143
    assert list(_by_gid(fig, Line2D, "first-step").get_xdata()) == [8191, 8191]


def test_draws_from_posenc_temperature(monkeypatch):
    calls = []
    real = module.temperature.llama4

    def spy(positions, attn_scale=0.1, floor_scale=8192):
        calls.append((attn_scale, floor_scale))
        return real(positions, attn_scale, floor_scale)

    monkeypatch.setattr(module.temperature, "llama4", spy)
    fig_nope_layers()
    assert calls and set(calls) == {(0.1, 8192)}
