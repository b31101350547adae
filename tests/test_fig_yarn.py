"""Tests for the YaRN figure (Proposition 27): pure, and true to the two ramps.

The plotted code ramp must be posenc.rope's speeds exactly; both ramps are also compared
with the formulas written out here with :mod:`math`: the correction dimension
d ln(L0/(2 pi rho))/(2 ln b), floored and ceiled, a linear ramp in the pair index for
the code, and the paper's gamma(r) = clamp((r - 1)/31, 0, 1) of the rotation count
r = L0 b^(-2i/d)/(2 pi). Determinism, untouched rcParams and the absence of pyplot are
checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc import rope
from posenc.figures import yarn as module
from posenc.figures.yarn import fig_yarn_ramps

#: key, rotated width, base, L0, s: as the figure draws them.
HEADS = [("llama2", 128, 1e4, 4096, 16.0), ("qwen25", 128, 1e6, 32768, 4.0)]


def _dim(turns: float, dim: int, base: float, length: int) -> float:
    return dim * math.log(length / (2 * math.pi * turns)) / (2 * math.log(base))


@pytest.fixture(scope="module")
def fig():
    return fig_yarn_ramps()


def test_page_width_white_and_alt_text(fig):
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_yarn_ramps.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("key", "dim", "base", "length", "factor"), HEADS)
def test_code_ramp_is_posenc_rope(fig, key, dim, base, length, factor):
    data = _by_gid(fig, Line2D, f"code-{key}").get_xydata()  # (d/2, 2)
    assert data[:, 0].tolist() == list(range(dim // 2))
    new, _ = rope.inv_freq(
        "yarn", dim, base=base, factor=factor, original_max_position_embeddings=length
    )
    assert np.array_equal(data[:, 1], new / rope.default_inv_freq(dim, base))


@pytest.mark.parametrize(("key", "dim", "base", "length", "factor"), HEADS)
def test_code_ramp_is_linear_in_the_index_between_floor_and_ceil(
    fig, key, dim, base, length, factor
):
    low = max(math.floor(_dim(32, dim, base, length)), 0)
    high = min(math.ceil(_dim(1, dim, base, length)), dim - 1)
    want = [
        1 - min(max((j - low) / (high - low), 0.0), 1.0) * (1 - 1 / factor)
        for j in range(dim // 2)
    ]
    data = _by_gid(fig, Line2D, f"code-{key}").get_xydata()
    np.testing.assert_allclose(data[:, 1], want, rtol=1e-14, atol=0)
    assert np.all(data[: low + 1, 1] == 1.0)  # kept, exactly
    np.testing.assert_allclose(data[high:, 1], 1 / factor, rtol=1e-15)  # divided by s


@pytest.mark.parametrize(("key", "dim", "base", "length", "factor"), HEADS)
def test_paper_ramp_is_linear_in_the_rotation_count(fig, key, dim, base, length, factor):
    want = []
    for i in range(dim // 2):
        turns = length * base ** (-2 * i / dim) / (2 * math.pi)
        gamma = min(max((turns - 1) / 31, 0.0), 1.0)  # 1: keep the speed
        want.append(gamma + (1 - gamma) / factor)
    data = _by_gid(fig, Line2D, f"paper-{key}").get_xydata()
    assert data[:, 0].tolist() == list(range(dim // 2))
    np.testing.assert_allclose(data[:, 1], want, rtol=1e-13, atol=0)


@pytest.mark.parametrize(("key", "dim", "base", "length", "factor"), HEADS)
def test_range_shaded_ends_dotted_and_floor_dashed(fig, key, dim, base, length, factor):
    box = _by_gid(fig, Rectangle, f"range-{key}")
    low, high = rope.yarn_correction_range(32, 1, dim, base, length)
    assert (box.get_x(), box.get_x() + box.get_width()) == (low, high)
    for name, turns in (("fast", 32), ("slow", 1)):
        line = _by_gid(fig, Line2D, f"{name}-{key}")
        assert line.get_xdata()[0] == pytest.approx(_dim(turns, dim, base, length), rel=1e-14)
    assert _by_gid(fig, Line2D, f"floor-{key}").get_ydata()[0] == 1 / factor


def test_the_paper_lies_below_the_unrounded_code_inside_and_agrees_outside(fig):
    for key, dim, base, length, factor in HEADS:
        code = _by_gid(fig, Line2D, f"code-{key}").get_ydata()
        paper = _by_gid(fig, Line2D, f"paper-{key}").get_ydata()
        fast, slow = _dim(32, dim, base, length), _dim(1, dim, base, length)
        inside = np.arange(math.ceil(fast), math.floor(slow) + 1)
        unrounded = 1 - (inside - fast) / (slow - fast) * (1 - 1 / factor)
        assert np.all(paper[inside] < unrounded)
        low, high = rope.yarn_correction_range(32, 1, dim, base, length)
        np.testing.assert_allclose(paper[: low + 1], code[: low + 1], rtol=1e-15)
        np.testing.assert_allclose(paper[high:], code[high:], rtol=1e-15)
        # Against the truncated ramp drawn, only Llama 2's pair 21 lies higher.
        above = np.nonzero(paper > code)[0].tolist()
        assert above == ([21] if key == "llama2" else [])
        gap = _by_gid(fig, Line2D, f"gap-{key}").get_xydata()
        assert gap[:, 0].tolist() == [30, 30]
        assert gap[:, 1].tolist() == [paper[30], code[30]]


def test_uses_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.inv_freq

    def spy(scheme, head_dim, **kwargs):
        calls.append((scheme, head_dim, kwargs["factor"]))
        return real(scheme, head_dim, **kwargs)

    monkeypatch.setattr(module.rope, "inv_freq", spy)
    fig_yarn_ramps()
    assert calls == [("yarn", 128, 16.0), ("yarn", 128, 4.0)]
