"""Tests for the figures of Propositions 13 and 14: pure, deterministic, true to the maths.

Expected values are computed here from closed forms (:mod:`math`) and, for the
floating-point errors, from the PyTorch tutorial's formula written out in float32
and mpmath at 30 digits; never from the code under test.

Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

from posenc.figures.conventions import fig_floating_point, fig_library_conventions

FIGURES = (fig_library_conventions, fig_floating_point)


def _pe(pos: int, j: int, width: int) -> float:
    """The paper's entry: column j is sin (even) or cos (odd) of pos / 10000^(2(j//2)/d)."""
    angle = pos / 10000.0 ** (2 * (j // 2) / width)
    return math.sin(angle) if j % 2 == 0 else math.cos(angle)


# --- both figures ------------------------------------------------------------


@pytest.mark.parametrize("make", FIGURES)
def test_white_page_width_figure_with_alt_text(make):
    fig = make()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = make.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


# --- Proposition 13 ----------------------------------------------------------


def test_library_conventions_tables_are_the_two_layouts():
    length, width = 24, 8
    fig = fig_library_conventions(length, width)
    interleaved = np.asarray(_by_gid(fig, AxesImage, "interleaved-table").get_array()).T
    concatenated = np.asarray(_by_gid(fig, AxesImage, "concatenated-table").get_array()).T
    assert interleaved.shape == concatenated.shape == (length, width)
    half = width // 2
    for pos in range(length):
        for i in range(half):
            sine, cosine = _pe(pos, 2 * i, width), _pe(pos, 2 * i + 1, width)
            assert interleaved[pos, 2 * i] == pytest.approx(sine, abs=1e-12)
            assert interleaved[pos, 2 * i + 1] == pytest.approx(cosine, abs=1e-12)
            assert concatenated[pos, i] == pytest.approx(sine, abs=1e-12)  # sines first
            assert concatenated[pos, half + i] == pytest.approx(cosine, abs=1e-12)


def test_library_conventions_lines_show_where_each_column_goes():
    width = 8
    fig = fig_library_conventions(24, width)
    for j in range(width):
        line = _by_gid(fig, Line2D, f"move-{j}")
        landing = j // 2 if j % 2 == 0 else width // 2 + j // 2
        assert list(line.get_ydata()) == [j, landing]


@pytest.mark.parametrize("width", [8, 12])
def test_library_conventions_ladders(width):
    fig = fig_library_conventions(24, width)
    half = width // 2
    paper = _by_gid(fig, Line2D, "ladder-paper").get_ydata()
    stretched = _by_gid(fig, Line2D, "ladder-whisper").get_ydata()
    for i in range(half):
        assert paper[i] == pytest.approx(2 * math.pi * 10000 ** (2 * i / width), rel=1e-14)
        assert stretched[i] == pytest.approx(2 * math.pi * 10000 ** (i / (half - 1)), rel=1e-14)
    assert stretched[-1] == pytest.approx(2 * math.pi * 10000, rel=1e-15)
    assert paper[-1] < 2 * math.pi * 10000  # one rung short
    top = _by_gid(fig, Line2D, "two-pi-base").get_ydata()
    assert top[0] == pytest.approx(2 * math.pi * 10000, rel=1e-15)


def test_library_conventions_rejects_odd_or_tiny_widths():
    for width in (5, 2):
        with pytest.raises(ValueError, match="width"):
            fig_library_conventions(10, width)


# --- Proposition 14 ----------------------------------------------------------


def _tutorial_error(pos: int, width: int) -> float:
    """Largest |float32 tutorial entry - true entry| over the row, written out here."""
    f32 = np.float32
    factor = f32(-math.log(10000.0) / width)
    worst = mpmath.mpf(0)
    with mpmath.workdps(30):
        for i in range(width // 2):
            frequency = np.exp(np.array([f32(2 * i) * factor], dtype=f32))  # float32
            angle = np.array([f32(pos)], dtype=f32) * frequency  # float32
            true_angle = pos * mpmath.power(10000, mpmath.mpf(-2 * i) / width)
            worst = max(
                worst,
                abs(mpmath.mpf(float(np.sin(angle)[0])) - mpmath.sin(true_angle)),
                abs(mpmath.mpf(float(np.cos(angle)[0])) - mpmath.cos(true_angle)),
            )
    return float(worst)


def test_floating_point_limits_are_marked():
    fig = fig_floating_point()
    for name, limit in (("bfloat16", 256), ("float16", 2048), ("float32", 2**24)):
        line = _by_gid(fig, Line2D, f"limit-{name}")
        assert list(line.get_xdata()) == [limit, limit]
    assert _by_gid(fig, Line2D, "float32-ulp").get_ydata()[0] == 2.0**-23


def test_floating_point_curves():
    fig = fig_floating_point()
    tutorial = _by_gid(fig, Line2D, "error-tutorial-float32")
    float64 = _by_gid(fig, Line2D, "error-float64")
    posenc32 = _by_gid(fig, Line2D, "error-posenc-float32")
    positions = np.asarray(tutorial.get_xdata())
    expected = np.unique(np.round(np.logspace(0, 8, 25)).astype(np.int64))  # 3 per decade
    assert np.array_equal(positions, expected)
    for line in (float64, posenc32):
        assert np.array_equal(line.get_xdata(), positions)
    t, f, p = (np.asarray(line.get_ydata()) for line in (tutorial, float64, posenc32))
    assert np.all(p <= 2.0**-24)  # posenc: within one ulp of entries below 1
    assert np.all(f < 1e-7) and np.all(f < t)  # float64 is far better, but also grows
    assert f[-1] > 100 * f[0] and t[-1] > 1e5 * t[0]
    # Two points recomputed here, independently: position 1000 and position 10^6.
    for pos in (1000, 10**6):
        (index,) = np.flatnonzero(positions == pos)
        assert t[index] == pytest.approx(_tutorial_error(pos, 512), rel=1e-9)
    assert 0.02 < t[np.flatnonzero(positions == 10**6)[0]] < 0.2


def test_floating_point_rejects_bad_ranges():
    with pytest.raises(ValueError, match="power of ten"):
        fig_floating_point(top=3000)
    with pytest.raises(ValueError, match="per_decade"):
        fig_floating_point(per_decade=0)
