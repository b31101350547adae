"""Tests for the M-RoPE figure (Proposition 30): pure, and true to both layouts.

The plotted data must agree with values computed here independently: the ladders
2 pi b^(2j/d) with mpmath at 50 digits (Qwen2-VL b = 1e6, Qwen3-VL b = 5e6), the pairs of
each axis as the two layouts put them (Qwen2-VL: contiguous runs of 16, 24 and 24 pairs in
the order time, height, width; Qwen3-VL: height at 1, 4, ..., 58, width at 2, 5, ..., 59,
time the rest), and the score of q = k = (1, ..., 1) as the sum of 2 cos(offset theta_j)
over the moved axis's pairs plus 2 for each other pair. Determinism, untouched rcParams
and the absence of pyplot are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc.figures import mrope as module
from posenc.figures.mrope import fig_mrope_sections

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "": ({"temporal": range(0, 16), "height": range(16, 40), "width": range(40, 64)}, 6),
    "q3-": (
        {
            "temporal": [*range(0, 60, 3), 60, 61, 62, 63],
            "height": range(1, 60, 3),
            "width": range(2, 60, 3),
        },
        mpmath.log10(5 * 10**6),
    ),
}


def _mp_speed(j: int, log_base) -> mpmath.mpf:
    return mpmath.mpf(10) ** (-mpmath.mpf(log_base) * 2 * j / 128)


def test_page_width_white_and_alt_text():
    fig = fig_mrope_sections()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_mrope_sections.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_qwen3_vl_row_is_its_config():
    text = json.loads((ROOT / "data/configs/qwen3-vl-8b-instruct.json").read_text())
    text = text["text_config"]
    qwen3 = module.MODELS[1]
    assert qwen3["sections"] == tuple(text["rope_scaling"]["mrope_section"])
    assert qwen3["base"] == text["rope_theta"] and qwen3["head_dim"] == text["head_dim"]
    assert text["rope_scaling"]["mrope_interleaved"] is True


@pytest.mark.parametrize("tag", RUNS)
def test_left_panels_show_each_axis_pairs_on_the_ladder(tag):
    fig = fig_mrope_sections()
    runs, log_base = RUNS[tag]
    with mpmath.workdps(50):
        for name, run in runs.items():
            data = _by_gid(fig, Line2D, f"{tag}pairs-{name}").get_xydata()
            assert data[:, 0].tolist() == list(run)
            want = np.array([float(2 * mpmath.pi / _mp_speed(j, log_base)) for j in run])
            np.testing.assert_allclose(data[:, 1], want, rtol=1e-14)


def test_width_pairs_are_the_slowest_in_qwen2_vl_only():
    fig = fig_mrope_sections()
    for tag, slowest in (("", True), ("q3-", False)):
        other = max(
            _by_gid(fig, Line2D, f"{tag}pairs-{n}").get_xydata()[:, 1].max()
            for n in ("temporal", "height")
        )
        width = _by_gid(fig, Line2D, f"{tag}pairs-width").get_xydata()[:, 1].min()
        assert bool(width > other) is slowest


@pytest.mark.parametrize("max_offset", [10, 100])
def test_right_panels_scores_are_the_cosine_sums(max_offset):
    fig = fig_mrope_sections(max_offset=max_offset)
    with mpmath.workdps(50):
        for tag, (runs, log_base) in RUNS.items():
            for name, run in runs.items():
                data = _by_gid(fig, Line2D, f"{tag}score-{name}").get_xydata()
                assert data[:, 0].tolist() == list(range(max_offset + 1))
                # Pairs off the moved axis keep angle 0 and contribute 2 each.
                want = [
                    float(
                        2 * (64 - len(run))
                        + 2 * mpmath.fsum(mpmath.cos(x * _mp_speed(j, log_base)) for j in run)
                    )
                    for x in range(max_offset + 1)
                ]
                np.testing.assert_allclose(data[:, 1], want, rtol=0, atol=1e-11)
                assert data[0, 1] == 128.0


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = module.rope.mrope_angles

    def spy(thw, inv_freq, sections, layout):
        calls.append((tuple(sections), layout))
        return real(thw, inv_freq, sections, layout)

    monkeypatch.setattr(module.rope, "mrope_angles", spy)
    fig_mrope_sections(5)
    assert set(calls) == {((16, 24, 24), "chunked"), ((24, 20, 20), "interleaved_thw")}


@pytest.mark.parametrize("value", [0, -3, 2.5, True, "10"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="max_offset must be"):
        fig_mrope_sections(max_offset=value)
