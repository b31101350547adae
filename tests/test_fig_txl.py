"""Tests for the Transformer-XL figure (Proposition 19): pure, and true to the formula.

Expected values are computed here from the paper's four terms with plain
loops over scalars and :mod:`math` for the sinusoidal code, not from the code
under test. Determinism, untouched rcParams and the absence of pyplot are
checked for every figure at once, in test_figures.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.image import AxesImage

from posenc.figures import txl as module
from posenc.figures.txl import fig_txl_terms


def _code(offset: int, width: int) -> list[float]:
    """R_offset from the paper's formula: (sin k w_t, cos k w_t), w_t = 10000^(-2t/d)."""
    out = []
    for t in range(width // 2):
        angle = offset * 10000.0 ** (-2.0 * t / width)
        out += [math.sin(angle), math.cos(angle)]
    return out


def _dot(x, y) -> float:
    return math.fsum(a * b for a, b in zip(x, y, strict=True))


def _matvec(m, x) -> list[float]:
    return [_dot(row, x) for row in m]


def _images(fig):
    return {im.get_gid(): im.get_array() for im in fig.findobj(AxesImage)}


def test_page_width_white_and_alt_text():
    fig = fig_txl_terms()
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)
    width, height = fig.get_size_inches()
    assert width == 7.0 and 3.5 <= height <= 5.5
    first = fig_txl_terms.__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125 and first.endswith(".")


def test_the_table_is_the_sinusoidal_code():
    parts = module.example(length=6, width=8)
    for k in range(6):
        np.testing.assert_allclose(parts["R"][k], _code(k, 8), rtol=0, atol=1e-15)


@pytest.mark.parametrize(("length", "width", "head", "seed"), [(8, 8, 4, 19), (5, 4, 2, 3)])
def test_panels_are_the_four_terms(length, width, head, seed):
    parts = module.example(length, width, head, seed)
    images = _images(fig_txl_terms(length, width, head, seed))
    E = parts["E"].tolist()
    w_q, w_ke, w_kr = (parts[n].tolist() for n in ("W_q", "W_kE", "W_kR"))
    u, v = parts["u"].tolist(), parts["v"].tolist()
    for i in range(length):
        q = _matvec(w_q, E[i])
        for j in range(length):
            cells = [images[f"term-{t}"][i, j] for t in "abcd"]
            if j > i:  # the key comes after the query: not scored, not drawn
                assert all(np.ma.is_masked(x) or np.isnan(x) for x in cells)
                continue
            key, pos = _matvec(w_ke, E[j]), _matvec(w_kr, _code(i - j, width))
            want = [_dot(q, key), _dot(q, pos), _dot(u, key), _dot(v, pos)]
            np.testing.assert_allclose(cells, want, rtol=1e-12, atol=1e-12)


def test_global_biases_are_constant_down_columns_and_diagonals():
    c_term, d_term = (module.txl_terms(module.example())[t] for t in (2, 3))
    for j in range(8):
        assert np.all(c_term[j:, j] == c_term[j, j])  # (c): the same for every query
        assert np.all(np.diagonal(d_term, -j) == d_term[j, 0])  # (d): one value per offset


def test_uses_posenc_sinusoidal(monkeypatch):
    calls = []
    real = module.sinusoidal

    def spy(length, width, **kwargs):
        calls.append((length, width))
        return real(length, width, **kwargs)

    monkeypatch.setattr(module, "sinusoidal", spy)
    fig_txl_terms(6, 4, 2)
    assert calls == [(6, 4)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"length": 1}, "length must be"),
        ({"length": 8.0}, "length must be"),
        ({"width": 7}, "width must be even"),
        ({"width": True}, "width must be"),
        ({"head": 0}, "head must be"),
        ({"seed": -1}, "seed must be"),
    ],
)
def test_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fig_txl_terms(**kwargs)
