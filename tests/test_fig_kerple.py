"""Tests for the KERPLE figure (Proposition 20): pure, and true to the kernel formulas.

Expected values are the paper's kernels computed here with :mod:`math`:
-r1 |d|^r2 and -r1 ln(1 + r2 |d|). Determinism, untouched rcParams and the
absence of pyplot are checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from posenc.figures.kerple import fig_kerple


def _by_gid(fig: Figure, gid: str) -> Line2D:
    found = [a for a in fig.findobj(Line2D) if a.get_gid() == gid]
    assert len(found) == 1, f"expected one line with gid {gid!r}, found {len(found)}"
    return found[0]


def test_page_width_white_and_alt_text():
    fig = fig_kerple()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_kerple.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize(("distance", "r1"), [(16, 1.0), (5, 0.25), (40, 3.0)])
@pytest.mark.parametrize("r2", ["0.5", "1", "1.5", "2"])
def test_power_kernels(distance, r1, r2):
    fig = fig_kerple(distance, r1)
    exponent = float(r2)
    dots = _by_gid(fig, f"power-points-{r2}").get_xydata()  # (D + 1, 2)
    assert dots[:, 0].tolist() == list(range(distance + 1))
    want = [-r1 * float(n) ** exponent for n in range(distance + 1)]
    np.testing.assert_allclose(dots[:, 1], want, rtol=1e-14, atol=0)
    curve = _by_gid(fig, f"power-{r2}").get_xydata()
    assert curve[0, 0] == 0.0 and curve[-1, 0] == distance
    want = [-r1 * abs(t) ** exponent for t in curve[:, 0]]
    np.testing.assert_allclose(curve[:, 1], want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("r2", ["0.5", "1", "2", "4"])
def test_log_kernels(r2):
    fig = fig_kerple(16, 2.0)
    rate = float(r2)
    dots = _by_gid(fig, f"log-points-{r2}").get_xydata()
    want = [-2.0 * math.log(1.0 + rate * n) for n in range(17)]
    np.testing.assert_allclose(dots[:, 1], want, rtol=1e-14, atol=0)
    curve = _by_gid(fig, f"log-{r2}").get_xydata()
    want = [-2.0 * math.log(1.0 + rate * t) for t in curve[:, 0]]
    np.testing.assert_allclose(curve[:, 1], want, rtol=1e-14, atol=1e-300)


def test_alibi_is_the_power_kernel_with_exponent_one():
    # r2 = 1 is ALiBi's line -r1 |m - n|: slope -r1, zero at distance 0.
    dots = _by_gid(fig_kerple(10, 0.5), "power-points-1").get_xydata()
    assert dots[:, 1].tolist() == [-0.5 * n for n in range(11)]
    reference = _by_gid(fig_kerple(10, 0.5), "log-reference").get_xydata()
    np.testing.assert_allclose(reference[:, 1], -0.5 * reference[:, 0], rtol=0, atol=0)


def test_every_kernel_is_zero_at_distance_zero_and_falls():
    fig = fig_kerple()
    for gid in ("power-0.5", "power-1", "power-1.5", "power-2", "log-0.5", "log-4"):
        values = _by_gid(fig, gid).get_xydata()[:, 1]
        assert values[0] == 0.0
        assert np.all(np.diff(values) < 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"distance": 0}, "distance must be"),
        ({"distance": 4.0}, "distance must be"),
        ({"distance": True}, "distance must be"),
        ({"r1": 0.0}, "r1 must be"),
        ({"r1": "1"}, "r1 must be"),
        ({"r1": False}, "r1 must be"),
        ({"r1": math.nan}, "r1 must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_kerple(**kwargs)
