"""Tests for the pairings figure (Proposition 23): its arrows are the permutation.

The expected permutation is written out here from the two layouts' definitions
(adjacent pair i is 2i, 2i+1; split-half pair i is i, i + d/2), not taken from
the code under test. Determinism, untouched rcParams and the absence of pyplot
are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from posenc.figures import pairings as module
from posenc.figures.pairings import fig_rope_pairings


def _places(width: int) -> list[int]:
    """Adjacent coordinate j goes to split-half place p_j: 2i -> i, 2i+1 -> i + d/2."""
    half = width // 2
    return [j // 2 if j % 2 == 0 else j // 2 + half for j in range(width)]


def test_page_width_white_and_alt_text():
    fig = fig_rope_pairings()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_rope_pairings.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_width_eight_arrows_by_hand():
    fig = fig_rope_pairings(8)
    ends = [_by_gid(fig, Line2D, f"move-{j}").get_xydata() for j in range(8)]  # (2, 2) each
    # Rows are drawn top to bottom at y = -index: read the places back off the y values.
    assert [int(-e[0, 1]) for e in ends] == list(range(8))
    assert [int(-e[1, 1]) for e in ends] == [0, 4, 1, 5, 2, 6, 3, 7]
    assert all(e[0, 0] < 0.5 < e[1, 0] for e in ends)  # from the adjacent column to the other


@pytest.mark.parametrize("width", [2, 4, 6, 8, 10, 12])
def test_arrows_are_the_permutation(width):
    fig = fig_rope_pairings(width)
    got = [-_by_gid(fig, Line2D, f"move-{j}").get_xydata()[1, 1] for j in range(width)]
    assert got == [float(p) for p in _places(width)]
    assert sorted(got) == [float(r) for r in range(width)]  # a bijection: every place once
    assert len([a for a in fig.findobj(Line2D) if str(a.get_gid()).startswith("move-")]) == width


@pytest.mark.parametrize("width", [4, 8, 12])
def test_colours_follow_the_pairs(width):
    fig = fig_rope_pairings(width)
    half = width // 2

    def colour(name: str, j: int):
        return _by_gid(fig, Rectangle, f"{name}-slot-{j}").get_facecolor()

    for i in range(half):
        assert colour("adjacent", 2 * i) == colour("adjacent", 2 * i + 1)
        assert colour("half", i) == colour("half", i + half)
        assert colour("adjacent", 2 * i) == colour("half", i)
    assert len({colour("adjacent", 2 * i) for i in range(half)}) == half
    for j, place in enumerate(_places(width)):  # an arrow keeps a coordinate's pair
        line = _by_gid(fig, Line2D, f"move-{j}")
        assert line.get_color() == _by_gid(fig, Line2D, f"adjacent-pair-{j // 2}").get_color()
        assert colour("adjacent", j) == colour("half", place)


@pytest.mark.parametrize("width", [4, 8])
def test_brackets_join_the_members_of_each_pair(width):
    fig = fig_rope_pairings(width)
    half = width // 2
    for i in range(half):
        adjacent = _by_gid(fig, Line2D, f"adjacent-pair-{i}").get_xydata()[:, 1]
        assert sorted({-y for y in adjacent}) == [2 * i, 2 * i + 1]
        split = _by_gid(fig, Line2D, f"half-pair-{i}").get_xydata()[:, 1]
        assert sorted({-y for y in split}) == [i, i + half]


@pytest.mark.parametrize("width", [4, 8])
def test_matrix_panels_are_the_rotary_blocks(width):
    fig = fig_rope_pairings(width)
    half = width // 2
    for gid, pairs in (
        ("matrix-adjacent", [(2 * i, 2 * i + 1) for i in range(half)]),
        ("matrix-half", [(i, i + half) for i in range(half)]),
    ):
        shown = np.ma.filled(_by_gid(fig, AxesImage, gid).get_array().astype(float), np.nan)
        want = np.full((width, width), np.nan)
        for i, (a, b) in enumerate(pairs):
            for r in (a, b):
                for c in (a, b):
                    want[r, c] = i
        np.testing.assert_array_equal(shown, want)


def test_uses_the_library(monkeypatch):
    calls = []
    real_perm, real_matrix = module.pairing_permutation, module.rotary_matrix

    def spy_perm(width):
        calls.append(("perm", width))
        return real_perm(width)

    def spy_matrix(position, width, **kwargs):
        calls.append(("matrix", position, width, kwargs["pairing"]))
        return real_matrix(position, width, **kwargs)

    monkeypatch.setattr(module, "pairing_permutation", spy_perm)
    monkeypatch.setattr(module, "rotary_matrix", spy_matrix)
    fig_rope_pairings(6, 3)
    assert calls == [("perm", 6), ("matrix", 3, 6, "interleaved"), ("matrix", 3, 6, "half")]


def test_arrows_move_when_the_permutation_does(monkeypatch):
    # The arrows are drawn from pairing_permutation, not from a copy of its rule.
    monkeypatch.setattr(module, "pairing_permutation", lambda width: np.arange(width)[::-1])
    fig = fig_rope_pairings(4)
    got = [-_by_gid(fig, Line2D, f"move-{j}").get_xydata()[1, 1] for j in range(4)]
    assert got == [3.0, 2.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"width": 0}, "width must be"),
        ({"width": 7}, "width must be"),
        ({"width": 14}, "width must be"),
        ({"width": 8.0}, "width must be"),
        ({"width": True}, "width must be"),
        ({"position": 0}, "position must be"),
        ({"position": 1.5}, "position must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_rope_pairings(**kwargs)
