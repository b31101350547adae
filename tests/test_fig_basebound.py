"""Tests for the base-bound figure (Proposition 38): pure, and true to its table.

The plotted data must agree with values computed here independently, with mpmath at
50 digits: the sum B(m) = sum_i cos(m b^(-2i/128)) on the right, and, for the models
drawn as failing, an offset with a negative sum. The left panel draws the certificate
data/base-bound.json, whose grid bases are recomputed here as 2 * 1.001^k (exactly).
Determinism, untouched rcParams and the absence of pyplot are checked for every figure
at once, in test_figures.py.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc import similarity
from posenc.figures.basebound import BOUNDS, MODELS, fig_base_bound

CERTIFICATE = Path(__file__).resolve().parents[1] / "data/base-bound.json"


def _rows() -> list[tuple[int, int]]:
    data = json.loads(CERTIFICATE.read_text(encoding="utf-8"))
    return [(r["length"], r["index"]) for r in data["rows"]]


def _grid(k: int) -> float:
    """2 * 1.001^k, exactly, rounded to float64."""
    return float(2 * Fraction(1001, 1000) ** k)


def _sum(m: int, base: float) -> float:
    with mpmath.workdps(50):
        b = mpmath.mpf(base)
        return float(
            mpmath.fsum(mpmath.cos(m * b ** (-mpmath.mpf(2 * i) / 128)) for i in range(64))
        )


@pytest.fixture(scope="module")
def fig():
    return fig_base_bound()


def test_page_width_white_and_alt_text(fig):
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_base_bound.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_left_panel_draws_the_certificate_the_table_and_the_models(fig):
    data = _by_gid(fig, Line2D, "grid").get_xydata()
    assert data[:, 0].tolist() == [length for length, _ in _rows()]
    assert data[:, 1].tolist() == [_grid(k) for _, k in _rows()]
    data = _by_gid(fig, Line2D, "bound").get_xydata()
    assert data[:, 0].tolist() == [row[0] for row in BOUNDS]
    assert data[:, 1].tolist() == [row[1] for row in BOUNDS]
    grid = [_grid(k) for _, k in _rows()]
    assert all(b > g for b, g in zip(data[:, 1], grid, strict=True))
    failing = []
    for index, (name, base, length) in enumerate(MODELS):
        lines = [
            line
            for line in fig.axes[0].get_lines()
            if str(line.get_gid()).startswith(f"model-{index}-")
        ]
        assert len(lines) == 1
        assert lines[0].get_xydata().tolist() == [[length, base]]
        if lines[0].get_gid().endswith("fails"):
            failing.append(name)
            m = similarity.first_negative(length, 128, base=base)
            assert m is not None and 0 <= m <= length and _sum(m, base) < -0.1
    assert failing == ["Llama 2 7B", "Qwen2.5-7B-Instruct, Qwen3-8B", "Qwen3-VL-8B"]


def test_every_model_has_its_own_marker_and_colour(fig):
    # the legend must tell the models apart: no two share both marker and colour
    styles = [
        (line.get_marker(), tuple(line.get_markeredgecolor()))
        if not isinstance(line.get_markeredgecolor(), str)
        else (line.get_marker(), line.get_markeredgecolor())
        for line in fig.axes[0].get_lines()
        if str(line.get_gid()).startswith("model-")
    ]
    assert len(styles) == len(MODELS) == len(set(styles))


def test_right_panel_is_the_sum_at_and_one_step_below_the_grid_answer(fig):
    length, k = _rows()[0]
    for tag, value in (("at", _grid(k)), ("below", _grid(k - 1))):
        data = _by_gid(fig, Line2D, f"sum-{tag}").get_xydata()
        assert data[0, 0] == 3950 and data[-1, 0] == length
        for row in (0, 62, len(data) - 1):
            m = int(data[row, 0])
            assert abs(data[row, 1] - _sum(m, value)) < 1e-12
    below = _by_gid(fig, Line2D, "sum-below").get_ydata()
    at = _by_gid(fig, Line2D, "sum-at").get_ydata()
    assert below.min() < 0 <= at.min()
    m = 3950 + int(np.argmin(below))
    assert _sum(m, _grid(k - 1)) < -0.1
    assert _by_gid(fig, Line2D, "dip").get_xydata().tolist() == [[m, below.min()]]


def test_other_widths_are_refused():
    with pytest.raises(ValueError, match="width 128"):
        fig_base_bound(64)


def test_table_rows_bracket_the_bound():
    for length, base, at, below, witness in BOUNDS:
        assert below < base <= below * (1 + 1e-6)
        assert 0 <= at <= length and 0 <= witness <= length
        assert np.isfinite(base)
