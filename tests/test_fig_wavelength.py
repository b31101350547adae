"""Tests for the wavelength-ladder figure (Proposition 22): pure, and true to the closed form.

Expected values come from lambda_i = 2 pi b^(2i/d) computed here with :mod:`math`,
with d = 128 for the three full-rotary models and d = rotary_dim = 24 for GPT-NeoX-20B
(the misreading: d = head_dim = 96). The plotted points are also compared with
``posenc.rope.wavelengths`` and ``posenc.encoding.wavelengths``. Determinism,
untouched rcParams and the absence of pyplot are checked for every figure at once, in
test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.lines import Line2D

from posenc import rope
from posenc.encoding import wavelengths
from posenc.figures import wavelength as module
from posenc.figures.wavelength import fig_wavelength_ladder

#: key -> (base, L0, pairs that turn within L0), from the sources the page cites.
FULL = {
    "llama2": (10000.0, 4096, 46),
    "llama3": (500000.0, 8192, 35),
    "code_llama": (1000000.0, 16384, 37),
}


def _closed(base: float, width: int, pairs: int) -> list[float]:
    """2 pi base^(2i/width), i = 0 .. pairs - 1."""
    return [2 * math.pi * base ** (2 * i / width) for i in range(pairs)]


def _points(fig, gid: str) -> np.ndarray:
    return _by_gid(fig, Line2D, gid).get_xydata()  # (n, 2)


@pytest.fixture(scope="module")
def fig():
    return fig_wavelength_ladder()


def test_page_width_white_and_alt_text(fig):
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_wavelength_ladder.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


@pytest.mark.parametrize("key", sorted(FULL))
def test_each_ladder_is_the_closed_form(fig, key):
    base, _, _ = FULL[key]
    ladder = _points(fig, f"ladder-{key}")
    assert ladder[:, 0].tolist() == list(range(64))
    np.testing.assert_allclose(ladder[:, 1], _closed(base, 128, 64), rtol=1e-13, atol=0)
    assert ladder[0, 1] == pytest.approx(2 * math.pi, rel=1e-15)  # pair 0: 2 pi, any base


@pytest.mark.parametrize("key", sorted(FULL))
def test_the_plotted_points_are_posenc_wavelengths(fig, key):
    base, _, _ = FULL[key]
    ladder = _points(fig, f"ladder-{key}")[:, 1]
    inv, _ = rope.inv_freq("default", 128, base=base)
    assert ladder.tolist() == rope.wavelengths(inv).tolist()  # the very numbers
    # encoding.wavelengths rounds 2 pi b^(2i/d) once; rope's 2 pi / w rounds thrice.
    np.testing.assert_allclose(ladder, wavelengths(128, base=base), rtol=4 * 2.0**-53, atol=0)


@pytest.mark.parametrize("key", sorted(FULL))
def test_filled_dots_are_the_pairs_that_turn_within_l0(fig, key):
    base, length, count = FULL[key]
    turns, never = _points(fig, f"turns-{key}"), _points(fig, f"never-{key}")
    want = [i for i, lam in enumerate(_closed(base, 128, 64)) if lam < length]
    assert want == list(range(count))  # the count the proposition proves
    assert turns[:, 0].tolist() == want
    assert never[:, 0].tolist() == list(range(count, 64))
    assert np.all(turns[:, 1] < length) and np.all(never[:, 1] > length)
    level = _points(fig, f"l0-{key}")
    assert np.all(level[:, 1] == length)


def test_partial_rotary_uses_the_exponent_over_rotary_dim(fig):
    rotated = _points(fig, "ladder-neox")
    assert rotated[:, 0].tolist() == list(range(12))  # rotary_dim 24 of head_dim 96
    np.testing.assert_allclose(rotated[:, 1], _closed(10000.0, 24, 12), rtol=1e-13, atol=0)
    np.testing.assert_allclose(rotated[:, 1], wavelengths(24), rtol=4 * 2.0**-53, atol=0)
    misread = _points(fig, "misread-neox")
    np.testing.assert_allclose(misread[:, 1], _closed(10000.0, 96, 12), rtol=1e-13, atol=0)
    assert _points(fig, "turns-neox")[:, 0].tolist() == list(range(8))
    assert _points(fig, "never-neox")[:, 0].tolist() == list(range(8, 12))
    assert np.all(_points(fig, "l0-neox")[:, 1] == 2048)
    # The witness of the page: the slowest rotated pair, about 29,000 against 52.
    assert rotated[-1, 1] == pytest.approx(29163.96, rel=1e-6)
    assert misread[-1, 1] == pytest.approx(51.8617, rel=1e-5)


def test_draws_from_posenc_rope(monkeypatch):
    calls = []
    real = rope.wavelengths

    def spy(inv):
        calls.append(len(inv))
        return real(inv)

    monkeypatch.setattr(module.rope, "wavelengths", spy)
    fig_wavelength_ladder()
    assert calls == [64, 64, 64, 12, 12]
