"""Tests for the Shaw clipping figure (Proposition 18): pure, deterministic, true to the rule.

Expected values come from the definition clip(r, k) = max(-k, min(k, r)),
written here with Python integers, never from ``posenc.relative.shaw_index``.

Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import shaw as module
from posenc.figures.shaw import fig_shaw_clipping


def _clip(offset: int, k: int) -> int:
    return max(-k, min(k, offset))


def test_page_width_white_and_alt_text():
    fig = fig_shaw_clipping()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_shaw_clipping.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("length", "k"), [(8, 2), (5, 0), (10, 3), (12, 1)])
def test_matrix_is_the_clipped_offset(length, k):
    fig = fig_shaw_clipping(length, k)
    drawn = np.asarray(_by_gid(fig, AxesImage, "clip-matrix").get_array())  # (L, L)
    want = [[_clip(j - i, k) for j in range(length)] for i in range(length)]
    assert drawn.tolist() == want
    assert sorted(set(drawn.ravel().tolist())) == list(range(-k, k + 1))  # 2k + 1 values
    labels = [t.get_text().replace("\u2212", "-") for t in fig.axes[0].texts]
    assert labels == [str(v) for row in want for v in row]
    assert f"{2 * k + 1} distinct values" in fig.axes[0].get_title()


@pytest.mark.parametrize(("length", "k"), [(8, 2), (6, 1)])
def test_curve_window_and_merged_offsets(length, k):
    fig = fig_shaw_clipping(length, k)
    curve = _by_gid(fig, Line2D, "clip-curve")
    xs, ys = np.asarray(curve.get_xdata()), np.asarray(curve.get_ydata())
    assert xs.tolist() == list(range(-(length - 1), length))
    assert ys.tolist() == [_clip(int(x), k) for x in xs]
    merged = _by_gid(fig, Line2D, "merged")
    mx, my = np.asarray(merged.get_xdata()), np.asarray(merged.get_ydata())
    assert mx.tolist() == [x for x in xs.tolist() if abs(x) > k]
    assert set(my.tolist()) == {-k, k}  # beyond the window: only the edge vectors
    band = _by_gid(fig, Rectangle, "window")
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((-k - 0.5, k + 0.5))


def test_uses_posenc_shaw_index(monkeypatch):
    calls = []
    real = module.shaw_index

    def spy(offsets, k):
        calls.append((np.shape(offsets), k))
        return real(offsets, k)

    monkeypatch.setattr(module, "shaw_index", spy)
    fig_shaw_clipping(6, 1)
    assert calls == [((6, 6), 1), ((11,), 1)]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"length": 8, "k": 7}, ValueError, "k must be < length - 1"),
        ({"length": 1}, ValueError, "length"),
        ({"k": -1}, ValueError, "k must be an integer >= 0"),
        ({"k": 1.5}, TypeError, "k"),
    ],
)
def test_rejects_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        fig_shaw_clipping(**kwargs)
