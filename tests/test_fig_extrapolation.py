"""Tests for the Proposition 10 figure: seen arcs per pair, and where 2L and 4L land.

Expected values come from the paper's formula evaluated here with :mod:`math`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures.extrapolation import fig_seen_arcs


def _omega(i: int, width: int) -> float:
    """w_i = 10000^(-2i/d)."""
    return 10000.0 ** (-2.0 * i / width)


def _wavelength(i: int, width: int) -> float:
    return 2.0 * math.pi * 10000.0 ** (2.0 * i / width)


def _angle(x: float, y: float) -> float:
    """The angle theta of the point (sin theta, cos theta), in [0, 2 pi)."""
    return math.atan2(x, y) % (2.0 * math.pi)


def test_white_page_width_figure():
    fig = fig_seen_arcs()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5


def test_docstring_first_line_is_alt_text():
    first = fig_seen_arcs.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("width", "length"), [(64, 128), (32, 50), (128, 512)])
def test_bars_are_the_seen_fractions(width, length):
    fig = fig_seen_arcs(width, length, pairs=(0, width // 4, width // 2 - 1))
    seen = [p for p in fig.findobj(Rectangle) if p.get_gid() == "seen-fraction"]
    bars = sorted(seen, key=lambda p: p.get_x())
    assert len(bars) == width // 2
    for i, bar in enumerate(bars):
        expected = min(1.0, (length - 1) / _wavelength(i, width))  # positions 0..L-1
        assert bar.get_height() == pytest.approx(expected, rel=1e-12)
    # The dashed line sits between the last full circle and the first pair with lambda > L.
    partly = sum(_wavelength(i, width) > length for i in range(width // 2))
    dashed = [ln for ln in fig.axes[0].get_lines() if ln.get_linestyle() == "--"]
    assert [ln.get_xdata()[0] for ln in dashed] == [width // 2 - partly - 0.5]


@pytest.mark.parametrize("pairs", [(6, 12, 16, 24), (0, 31)])
def test_arcs_start_at_zero_and_end_at_the_last_training_position(pairs):
    width, length = 64, 128
    fig = fig_seen_arcs(width, length, pairs)
    for i in pairs:
        arc = _by_gid(fig, Line2D, f"arc-{i}").get_xydata()
        np.testing.assert_allclose(np.hypot(arc[:, 0], arc[:, 1]), 1.0, atol=1e-12)
        assert arc[0] == pytest.approx([0.0, 1.0])  # position 0 at the top
        sweep = (length - 1) * _omega(i, width)
        if sweep >= 2 * math.pi:  # the whole circle was swept
            assert arc[-1] == pytest.approx([0.0, 1.0], abs=1e-12)
        else:
            assert _angle(*arc[-1]) == pytest.approx(sweep, abs=1e-9)
            steps = np.diff([math.atan2(x, y) for x, y in arc])
            assert np.all(np.mod(steps, 2 * math.pi) < math.pi)  # clockwise, one way round


@pytest.mark.parametrize("factor", [2, 4])
def test_markers_are_the_code_at_2L_and_4L(factor):
    width, length, pairs = 64, 128, (6, 12, 16, 24)
    fig = fig_seen_arcs(width, length, pairs)
    for i in pairs:
        x, y = _by_gid(fig, Line2D, f"pos-{factor}L-{i}").get_xydata()[0]
        angle = factor * length * _omega(i, width)
        assert x == pytest.approx(math.sin(angle), abs=1e-12)
        assert y == pytest.approx(math.cos(angle), abs=1e-12)


def test_verdicts_under_the_circles():
    # Pair 12 at d = 64: lambda = 198.7, so 2L = 256 and 4L = 512 wrap round into
    # the arc swept by 0..127; pair 16 (lambda = 628.3) sends both past it.
    fig = fig_seen_arcs(64, 128, (12, 16))
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "2L, 4L:\nangles seen before" in texts
    assert "2L, 4L:\nangles never seen" in texts
    for i in (12, 16):
        swept = 127 * _omega(i, 64)
        for factor in (2, 4):
            landed = (factor * 128 * _omega(i, 64)) % (2 * math.pi)
            assert (landed <= swept) == (i == 12)


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="pairs"):
        fig_seen_arcs(64, 128, pairs=(32,))
    with pytest.raises(ValueError, match="length"):
        fig_seen_arcs(64, 0)
