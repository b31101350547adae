"""Tests for posenc.figures.ladder (Propositions 6, 7 and 9).

The drawn numbers are compared with closed forms evaluated here with :mod:`math`
(2 pi b^(2i/d), 2 pi b^(i/(h-1)), sum_i cos(w_i k), sum_i 4 sin^2(w_i k / 2)),
not with the library that drew them.
"""

from __future__ import annotations

import math

import matplotlib as mpl
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from posenc.figures import ladder

NAMES = ["fig_ladder_rung_short", "fig_position_signature", "fig_similarity_offset"]


def _rung_heights(fig: Figure, gid: str) -> list[float]:
    """The y of each horizontal rung of a ladder, bottom to top."""
    segments = _by_gid(fig, LineCollection, gid).get_segments()
    assert all(s[0][1] == s[1][1] for s in segments)  # horizontal
    return sorted(float(s[0][1]) for s in segments)


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(mpl.text.Text)]


def _omega(i: int, width: int, base: float = 10000.0) -> float:
    return base ** (-2.0 * i / width)


def _dot(k: int, width: int) -> float:
    return math.fsum(math.cos(k * _omega(i, width)) for i in range(width // 2))


def _distance(k: int, width: int, pairs) -> float:
    return math.sqrt(math.fsum(4 * math.sin(k * _omega(i, width) / 2) ** 2 for i in pairs))


# --- every figure ------------------------------------------------------------


@pytest.fixture(scope="module", params=NAMES)
def made(request):
    return request.param, getattr(ladder, request.param)()


def test_public_names():
    assert sorted(ladder.__all__) == NAMES


def test_white_figure_of_page_width(made):
    _, fig = made
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0
    assert 3.5 <= height <= 5.5


def test_docstring_first_line_is_alt_text(made):
    name, _ = made
    first = getattr(ladder, name).__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125
    assert first.endswith(".")


# --- Proposition 6 -----------------------------------------------------------


@pytest.mark.parametrize(("width", "top_width"), [(16, 512), (8, 64)])
def test_ladders_are_the_two_closed_forms(width, top_width):
    fig = ladder.fig_ladder_rung_short(width, top_width=top_width)
    half = width // 2
    paper = [2 * math.pi * 10000 ** (2 * i / width) for i in range(half)]
    variant = [2 * math.pi * 10000 ** (i / (half - 1)) for i in range(half)]
    np.testing.assert_allclose(_rung_heights(fig, "paper-rungs"), paper, rtol=1e-14)
    np.testing.assert_allclose(_rung_heights(fig, "variant-rungs"), variant, rtol=1e-14)

    # The paper's ladder stops one step b^(2/d) below 2 pi b; the variant reaches it.
    target = 2 * math.pi * 10000
    assert variant[-1] == pytest.approx(target, rel=1e-14)
    assert paper[-1] * 10000 ** (2 / width) == pytest.approx(target, rel=1e-14)
    dashed = [
        float(c.get_segments()[0][0][1])
        for c in fig.findobj(LineCollection)
        if c.get_gid() == "missing-rung"
    ]
    assert dashed == pytest.approx([target, target], rel=1e-14)  # on both panels

    top_half = top_width // 2
    top_paper = [2 * math.pi * 10000 ** (2 * i / top_width) for i in range(top_half)][-6:]
    top_variant = [2 * math.pi * 10000 ** (i / (top_half - 1)) for i in range(top_half)][-6:]
    np.testing.assert_allclose(_rung_heights(fig, "paper-top-rungs"), top_paper, rtol=1e-14)
    np.testing.assert_allclose(_rung_heights(fig, "variant-top-rungs"), top_variant, rtol=1e-14)
    gap = target - top_paper[-1]
    shown = f"{gap:,.1f}" if gap >= 10_000 else f"{gap:.1f}"  # grouped from five digits on
    assert any(shown in t for t in _texts(fig))


def test_ladder_figure_states_the_facts_at_512():
    texts = "\n".join(_texts(ladder.fig_ladder_rung_short()))
    for fact in ("60,611.5", "62,831.9", "2220.4", "60,602.9", "would be pair i = 8"):
        assert fact in texts, fact


def test_ladder_rejects_tiny_widths():
    with pytest.raises(ValueError, match="widths"):
        ladder.fig_ladder_rung_short(width=2)


# --- Proposition 7 -----------------------------------------------------------


def test_signature_curves_are_the_closed_form():
    fig = ladder.fig_position_signature()
    thirds = [range(0, 86), range(86, 171), range(171, 256)]
    for gid, pairs in zip(("share-fast", "share-middle", "share-slow"), thirds, strict=True):
        line = _by_gid(fig, Line2D, gid)
        k, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
        assert k[0] == 1 and k[-1] == 100_000
        assert np.all(np.diff(k) > 0) and np.all(k == np.round(k))  # distinct integers
        for n in range(0, len(k), 37):
            assert y[n] == pytest.approx(_distance(int(k[n]), 512, pairs), rel=1e-9), (gid, k[n])
    whole = _by_gid(fig, Line2D, "share-all")
    k, y = np.asarray(whole.get_xdata()), np.asarray(whole.get_ydata())
    for n in range(0, len(k), 53):
        assert y[n] == pytest.approx(_distance(int(k[n]), 512, range(256)), rel=1e-9)


def test_signature_shows_fast_and_slow_roles():
    fig = ladder.fig_position_signature()
    fast = _by_gid(fig, Line2D, "share-fast").get_ydata()
    slow = _by_gid(fig, Line2D, "share-slow").get_ydata()
    assert fast[0] > 400 * slow[0]  # at k = 1 nearly all the distance is in the fast pairs
    assert f"{fast[0]:.4f}" == "3.7103" and f"{slow[0]:.4f}" == "0.0081"


def test_signature_rejects_narrow_widths():
    with pytest.raises(ValueError, match="width"):
        ladder.fig_position_signature(width=4)


# --- Proposition 9 -----------------------------------------------------------


def test_dot_profile_points_are_the_closed_form():
    fig = ladder.fig_similarity_offset()
    points = _by_gid(fig, Line2D, "dot-profile")
    k, y = np.asarray(points.get_xdata()), np.asarray(points.get_ydata())
    np.testing.assert_array_equal(k, np.arange(-40, 41))
    np.testing.assert_allclose(y, [_dot(int(n), 128) for n in k], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(y, y[::-1])  # S(-k) = S(k), drawn exactly symmetric
    assert y.max() == y[40] == 64.0


def test_first_rise_is_marked_at_11_and_12():
    fig = ladder.fig_similarity_offset()
    ring = _by_gid(fig, Line2D, "first-rise")
    assert list(ring.get_xdata()) == [11, 12]
    before, after = ring.get_ydata()
    assert before == pytest.approx(_dot(11, 128), abs=1e-12)
    assert after == pytest.approx(_dot(12, 128), abs=1e-12)
    assert after > before
    # ... and every step before it goes down.
    assert all(_dot(n, 128) < _dot(n - 1, 128) for n in range(1, 12))
    texts = _texts(fig)
    for fact in ("42.344", "42.381", "+0.037", "S(0) = d/2 = 64"):
        assert any(fact in t for t in texts), fact


def test_similarity_rejects_a_span_that_hides_the_rise():
    with pytest.raises(ValueError, match="span"):
        ladder.fig_similarity_offset(span=5)
