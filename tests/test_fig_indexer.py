"""Tests for the indexer-pairings figure (Proposition 37): pure, and true to DeepSeek-V3.2.

The plotted data must agree with values computed here independently: the speeds come from
posenc's reading of data/configs/deepseek-v3.2-exp.json (not from the module's own dict),
the scores are cos(j w) at 50 digits with mpmath, and each coordinate's speeds are read
off the two pairings' pair lists written out here. Determinism, untouched rcParams and the
absence of pyplot are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc import model_config
from posenc.figures import indexer as module
from posenc.figures.indexer import DEEPSEEK, fig_indexer_pairings

CONFIG = Path(__file__).resolve().parent.parent / "data/configs/deepseek-v3.2-exp.json"


def _speeds() -> np.ndarray:
    return model_config.read_model(CONFIG).kinds[0].inv_freq


def _cos(offset: int, speed: float) -> float:
    with mpmath.workdps(50):
        return float(mpmath.cos(offset * mpmath.mpf(speed)))


def test_page_width_white_and_alt_text():
    fig = fig_indexer_pairings()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_indexer_pairings.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_dict_is_the_config():
    raw = json.loads(CONFIG.read_text())
    scaling = raw["rope_scaling"]
    assert DEEPSEEK["rope_width"] == raw["qk_rope_head_dim"]
    assert DEEPSEEK["base"] == raw["rope_theta"]
    for key in ("factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"):
        assert DEEPSEEK[key] == scaling[key]
    assert (
        DEEPSEEK["original_max_position_embeddings"] == scaling["original_max_position_embeddings"]
    )
    np.testing.assert_array_equal(module.speeds(), _speeds())


def test_left_panel_scores():
    w = _speeds()
    fig = fig_indexer_pairings(offsets=40)
    trained = _by_gid(fig, Line2D, "score-trained").get_xydata()
    wrong = _by_gid(fig, Line2D, "score-wrong").get_xydata()
    assert len(trained) == len(wrong) == 41
    assert list(trained[:, 0]) == list(range(41))
    want_t = [_cos(j, float(w[16])) for j in range(41)]  # e_32 sits in adjacent pair 16
    want_w = [_cos(j, float(w[0])) for j in range(41)]  # and in split-half pair 0
    np.testing.assert_allclose(trained[:, 1], want_t, rtol=0, atol=1e-13)
    np.testing.assert_allclose(wrong[:, 1], want_w, rtol=0, atol=1e-13)
    assert trained[:, 1].min() > 0.9 and wrong[:, 1].min() < -0.99


def test_right_panel_speeds_per_coordinate():
    w = _speeds()
    fig = fig_indexer_pairings()
    trained = _by_gid(fig, Line2D, "speed-trained").get_ydata()
    wrong = _by_gid(fig, Line2D, "speed-wrong").get_ydata()
    adjacent = {c: i for i in range(32) for c in (2 * i, 2 * i + 1)}
    split = {c: i for i in range(32) for c in (i, i + 32)}
    assert list(trained) == [w[adjacent[c]] for c in range(64)]
    assert list(wrong) == [w[split[c]] for c in range(64)]
    same = [c for c in range(64) if trained[c] == wrong[c]]
    assert same == [0, 63]


@pytest.mark.parametrize("value", [3, 4097, 10.0, True, "48"])
def test_rejects_bad_arguments(value):
    with pytest.raises(ValueError, match="offsets must be"):
        fig_indexer_pairings(offsets=value)
