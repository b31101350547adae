"""Tests for the M-RoPE figure (Proposition 30): pure, and true to Qwen2-VL's layout.

The plotted data must agree with values computed here independently: the ladder
2 pi b^(2j/d) with mpmath at 50 digits, the sections as contiguous runs of 16, 24 and
24 pairs in the order time, height, width (Hugging Face's mrope_section), and the
score of q = k = (1, ..., 1) as 2 sum_j cos(offset theta_j) over the moved axis's
pairs. Determinism, untouched rcParams and the absence of pyplot are checked for
every figure at once, in test_figures.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures import mrope as module
from posenc.figures.mrope import fig_mrope_sections

RUNS = {"temporal": range(0, 16), "height": range(16, 40), "width": range(40, 64)}


def _mp_speed(j: int) -> mpmath.mpf:
    return mpmath.mpf(10) ** (-mpmath.mpf(6 * 2 * j) / 128)


def test_page_width_white_and_alt_text():
    fig = fig_mrope_sections()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_mrope_sections.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_left_panel_shows_three_contiguous_runs_of_the_ladder():
    fig = fig_mrope_sections()
    with mpmath.workdps(50):
        for name, run in RUNS.items():
            data = _by_gid(fig, Line2D, f"pairs-{name}").get_xydata()
            assert data[:, 0].tolist() == list(run)
            want = np.array([float(2 * mpmath.pi / _mp_speed(j)) for j in run])
            np.testing.assert_allclose(data[:, 1], want, rtol=1e-14)


def test_width_pairs_are_the_slowest():
    fig = fig_mrope_sections()
    slowest_other = max(
        _by_gid(fig, Line2D, f"pairs-{n}").get_xydata()[:, 1].max() for n in ("temporal", "height")
    )
    assert _by_gid(fig, Line2D, "pairs-width").get_xydata()[:, 1].min() > slowest_other


@pytest.mark.parametrize("max_offset", [10, 100])
def test_right_panel_scores_are_the_cosine_sums(max_offset):
    fig = fig_mrope_sections(max_offset=max_offset)
    with mpmath.workdps(50):
        for name, run in RUNS.items():
            data = _by_gid(fig, Line2D, f"score-{name}").get_xydata()
            assert data[:, 0].tolist() == list(range(max_offset + 1))
            # Pairs off the moved axis keep angle 0 and contribute 2 each.
            want = [
                float(
                    2 * (64 - len(run))
                    + 2 * mpmath.fsum(mpmath.cos(x * _mp_speed(j)) for j in run)
                )
                for x in range(max_offset + 1)
            ]
            np.testing.assert_allclose(data[:, 1], want, rtol=0, atol=1e-11)
            assert data[0, 1] == 128.0


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.mrope_angles

    def spy(thw, inv_freq, sections):
        calls.append(tuple(sections))
        return real(thw, inv_freq, sections)

    monkeypatch.setattr(module.rope, "mrope_angles", spy)
    fig_mrope_sections(5)
    assert calls and all(c == (16, 24, 24) for c in calls)


@pytest.mark.parametrize("value", [0, -3, 2.5, True, "10"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="max_offset must be"):
        fig_mrope_sections(max_offset=value)
