"""Tests for the Proposition 11 figure: the four score terms, added and concatenated.

Expected values are computed here with plain Python sums and :mod:`math`, from
the figure's hand-made inputs and the paper's formula for the position code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from posenc.figures import mixing
from posenc.figures.mixing import fig_score_terms, score_terms

NAMES = ("content-content", "content-position", "position-content", "position-position")

# The figure draws each value rounded to 10 decimals (so its SVG is the same bytes on
# every build), so drawn values agree with the closed forms to 5e-11 each, 2e-10 summed.
DRAWN = 3e-10


def _drawn(fig: Figure, gid: str) -> np.ndarray:
    found = [a for a in fig.findobj(AxesImage) if a.get_gid() == gid]
    assert len(found) == 1, gid
    return np.asarray(found[0].get_array())


def _pe(pos: int, width: int) -> list[float]:
    """The paper's formula: (sin, cos) of pos * 10000^(-2i/d), pair by pair."""
    out = []
    for i in range(width // 2):
        angle = pos * 10000.0 ** (-2.0 * i / width)
        out += [math.sin(angle), math.cos(angle)]
    return out


def _bilinear(u: list[float], a: list[list[float]], v: list[float]) -> float:
    return math.fsum(u[r] * a[r][c] * v[c] for r in range(len(u)) for c in range(len(v)))


def _example():
    """Content rows, position rows and A = Wq Wk^T / sqrt(d_k), as Python lists."""
    x = mixing._X.tolist()
    wq, wk = mixing._WQ.tolist(), mixing._WK.tolist()
    d, dk = len(wq), len(wk[0])
    a = [
        [math.fsum(wq[r][t] * wk[c][t] for t in range(dk)) / math.sqrt(dk) for c in range(d)]
        for r in range(d)
    ]
    p = [_pe(pos, d) for pos in range(len(x))]
    return x, p, a


def test_white_page_width_figure():
    fig = fig_score_terms()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5


def test_docstring_first_line_is_alt_text():
    first = fig_score_terms.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_added_panels_are_the_four_bilinear_terms():
    x, p, a = _example()
    fig = fig_score_terms()
    parts = {"content": x, "position": p}
    for name in NAMES:
        rows, cols = (parts[side] for side in name.split("-"))
        drawn = _drawn(fig, f"add-{name}")  # (n, n)
        for r, row in enumerate(rows):
            for j, col in enumerate(cols):
                assert drawn[r, j] == pytest.approx(_bilinear(row, a, col), abs=DRAWN)


def test_added_panels_sum_to_the_score_of_x_plus_p():
    x, p, a = _example()
    fig = fig_score_terms()
    total = sum(_drawn(fig, f"add-{name}") for name in NAMES)  # (n, n)
    for r in range(len(x)):
        for j in range(len(x)):
            query = [u + v for u, v in zip(x[r], p[r], strict=True)]
            key = [u + v for u, v in zip(x[j], p[j], strict=True)]
            assert total[r, j] == pytest.approx(_bilinear(query, a, key), abs=DRAWN)
    # The cross terms really are there: the example is a witness against "separable".
    cross = _drawn(fig, "add-content-position") + _drawn(fig, "add-position-content")
    assert np.abs(cross).max() > 0.5


def test_concatenated_panels_keep_the_diagonal_and_drop_the_cross_terms():
    x, p, a = _example()
    fig = fig_score_terms()
    np.testing.assert_array_equal(
        _drawn(fig, "concat-content-content"), _drawn(fig, "add-content-content")
    )
    np.testing.assert_array_equal(
        _drawn(fig, "concat-position-position"), _drawn(fig, "add-position-position")
    )
    assert not _drawn(fig, "concat-content-position").any()
    assert not _drawn(fig, "concat-position-content").any()
    # Their sum is the score of [x; p] against [y; q] with diag(A, A).
    d = len(a)
    on_diagonal = [[(r < d) == (c < d) for c in range(2 * d)] for r in range(2 * d)]
    block = [
        [a[r % d][c % d] if on_diagonal[r][c] else 0.0 for c in range(2 * d)] for r in range(2 * d)
    ]  # diag(A, A)
    total = sum(_drawn(fig, f"concat-{name}") for name in NAMES)  # (n, n)
    for r in range(len(x)):
        for j in range(len(x)):
            assert total[r, j] == pytest.approx(
                _bilinear(x[r] + p[r], block, x[j] + p[j]), abs=DRAWN
            )


def test_shared_colour_scale_is_symmetric():
    fig = fig_score_terms()
    limits = {a.get_clim() for a in fig.findobj(AxesImage)}
    assert len(limits) == 1
    low, high = limits.pop()
    assert low == -high
    assert high == pytest.approx(max(float(np.abs(t).max()) for t in score_terms()))


def test_repeated_token_differs_only_by_position():
    # "the" at positions 0 and 3 has one content vector: equal content-content
    # rows, different position-position rows.
    x, _, _ = _example()
    assert x[0] == x[3]
    cc, _, _, pp = score_terms()
    np.testing.assert_array_equal(cc[0], cc[3])
    assert not np.allclose(pp[0], pp[3])
