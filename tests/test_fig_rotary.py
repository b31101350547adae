"""Tests for the rotary figure (Proposition 12): pure, deterministic, and true to the maths.

Expected values come from closed forms computed here with :mod:`math`: the
rotation of one pair, and the score <q, R(n - m) k> written as a sum over pairs.

Determinism, untouched rcParams and the absence of pyplot are checked for every
figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import rotary as module
from posenc.figures.rotary import fig_rotary_score

OMEGA_1 = 10000.0 ** (-2.0 / 8)  # pair 1 of width 8: w_1 = base^(-2/d) = 0.1


def _turned(pair, angle: float) -> tuple[float, float]:
    """(a, b) turned anticlockwise by ``angle``."""
    a, b = pair
    return a * math.cos(angle) - b * math.sin(angle), a * math.sin(angle) + b * math.cos(angle)


def _score(q, k, offset: int) -> float:
    """<q, R(offset) k> for the interleaved pairing, base 10000, summed pair by pair."""
    width = len(q)
    total = []
    for i in range(width // 2):
        t = offset * 10000.0 ** (-2.0 * i / width)
        qa, qb, ka, kb = q[2 * i], q[2 * i + 1], k[2 * i], k[2 * i + 1]
        total += [(qa * ka + qb * kb) * math.cos(t), (qb * ka - qa * kb) * math.sin(t)]
    return math.fsum(total)


def test_page_width_white_and_alt_text():
    fig = fig_rotary_score()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_rotary_score.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(
    ("m", "n", "shift", "length"), [(2, 7, 10, 24), (0, 3, 5, 12), (6, 1, 8, 20)]
)
def test_score_matrix_is_the_closed_form_and_toeplitz(m, n, shift, length):
    fig = fig_rotary_score(m, n, shift, length)
    image = _by_gid(fig, AxesImage, "score-matrix")
    drawn = np.asarray(image.get_array())  # (L, L): row m, column n
    assert drawn.shape == (length, length)
    q, k = module._Q.tolist(), module._K.tolist()
    for row in range(length):
        for col in range(length):
            assert drawn[row, col] == pytest.approx(_score(q, k, col - row), abs=1e-13)
    for offset in range(-length + 1, length):
        diagonal = np.diagonal(drawn, offset)
        assert np.ptp(diagonal) < 1e-13  # one value per diagonal n - m
    low, high = image.get_clim()
    assert low == -high and high == pytest.approx(np.abs(drawn).max())  # centred colour scale


def test_the_drawn_pair_starts_aligned():
    # The figure's claim "the angle between them is (n - m) w_1" needs pair 1 of
    # q and k to point the same way at position 0.
    qa, qb, ka, kb = module._Q[2], module._Q[3], module._K[2], module._K[3]
    assert qa * kb - qb * ka == 0 and qa * ka + qb * kb > 0


@pytest.mark.parametrize(("m", "n", "shift"), [(2, 7, 10), (0, 3, 5), (6, 1, 8)])
def test_arrows_are_the_rotated_pair_at_the_offset_angle(m, n, shift):
    fig = fig_rotary_score(m, n, shift, 24)
    q_pair, k_pair = module._Q[2:4].tolist(), module._K[2:4].tolist()
    for tag, (p_q, p_k) in (("", (m, n)), ("-moved", (m + shift, n + shift))):
        tip_q = _by_gid(fig, Line2D, f"query{tag}").get_xydata()[-1]
        tip_k = _by_gid(fig, Line2D, f"key{tag}").get_xydata()[-1]
        np.testing.assert_allclose(tip_q, _turned(q_pair, p_q * OMEGA_1), atol=1e-14)
        np.testing.assert_allclose(tip_k, _turned(k_pair, p_k * OMEGA_1), atol=1e-14)
        between = math.atan2(tip_k[1], tip_k[0]) - math.atan2(tip_q[1], tip_q[0])
        assert between == pytest.approx((n - m) * OMEGA_1, abs=1e-12)  # the same both times
        arc = _by_gid(fig, Line2D, f"offset-angle{tag}").get_xydata()
        angles = np.arctan2(arc[:, 1], arc[:, 0])
        assert angles[0] == pytest.approx(p_q * OMEGA_1) and angles[-1] == pytest.approx(
            p_k * OMEGA_1
        )


def test_outlined_cells_and_diagonal():
    m, n, shift = 2, 7, 10
    fig = fig_rotary_score(m, n, shift, 24)
    for tag, (row, col) in (("", (m, n)), ("-moved", (m + shift, n + shift))):
        cell = _by_gid(fig, Rectangle, f"cell{tag}")
        assert cell.get_xy() == (col - 0.5, row - 0.5)
    line = _by_gid(fig, Line2D, "offset-diagonal").get_xydata()
    # Every point of the line has column - row = n - m (cell centres sit at integers).
    np.testing.assert_allclose(line[:, 0] - line[:, 1], n - m)


def test_uses_posenc_rotary(monkeypatch):
    calls = []
    real = module.rotary

    def spy(x, positions, **kwargs):
        calls.append(np.shape(x))
        return real(x, positions, **kwargs)

    monkeypatch.setattr(module, "rotary", spy)
    fig_rotary_score(length=12, shift=4)
    assert calls == [(12, 8), (12, 8)]


def test_rejects_positions_outside_the_matrix():
    with pytest.raises(ValueError, match="m and n"):
        fig_rotary_score(m=20, n=3, shift=10, length=24)
