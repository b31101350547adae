"""Tests for posenc.figures: pure, deterministic, and drawn from the library's numbers.

Expected values come from closed forms computed here with :mod:`math`, not from
the code under test.
"""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys

import matplotlib as mpl
import numpy as np
import pytest
from figtools import by_gid as _by_gid
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D

import posenc
from posenc import figures

ALL = sorted(name for name in figures.__all__ if name.startswith("fig_"))


def _omega(i: int, width: int, base: float = 10000.0) -> float:
    """Angular speed of pair i, from the paper's formula: base^(-2i/d)."""
    return base ** (-2.0 * i / width)


# --- every figure ------------------------------------------------------------


def test_public_names_are_the_figures():
    # Every figure of every module is exported, and nothing else is.
    import importlib

    defined = set()
    for module in figures.MODULES:
        defined |= set(importlib.import_module(f"posenc.figures.{module}").__all__)
    assert set(ALL) == defined
    # ... besides the one helper that turns any figure into SVG text.
    assert set(figures.__all__) == defined | {"to_svg"}


# --- to_svg ------------------------------------------------------------------


def _small_figure() -> Figure:
    fig = Figure(figsize=(2, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


def test_to_svg_is_the_same_bytes_every_time():
    assert figures.to_svg(_small_figure()) == figures.to_svg(_small_figure())


def test_to_svg_needs_no_font_and_writes_no_date():
    fig = _small_figure()
    fig.suptitle("clock")
    svg = figures.to_svg(fig)
    assert "<text" not in svg  # glyphs are paths
    assert "<dc:date>" not in svg


def test_to_svg_title_is_escaped_and_first_in_the_svg():
    svg = figures.to_svg(_small_figure(), title='  PE(pos) & "M_k" <rotation>  ')
    start = svg.index(">", svg.index("<svg")) + 1
    assert svg[start:].lstrip().startswith('<title>PE(pos) &amp; "M_k" &lt;rotation&gt;</title>')
    assert svg.count("<title>") == 1


def test_to_svg_without_title_has_none():
    assert "<title>" not in figures.to_svg(_small_figure())


@pytest.mark.parametrize("blank", ["", "   "])
def test_to_svg_refuses_a_blank_title(blank):
    with pytest.raises(ValueError, match="accessible name"):
        figures.to_svg(_small_figure(), title=blank)


@pytest.mark.parametrize("name", ALL)
def test_returns_a_white_figure_of_page_width(name):
    fig = getattr(figures, name)()
    assert isinstance(fig, Figure)
    assert fig.get_facecolor() == (1.0, 1.0, 1.0, 1.0)  # opaque: legible on dark pages
    width, height = fig.get_size_inches()
    assert width == 7.0
    assert 3.5 <= height <= 5.5


@pytest.mark.parametrize("name", ALL)
def test_docstring_first_line_is_alt_text(name):
    first = getattr(figures, name).__doc__.strip().splitlines()[0]
    assert 30 <= len(first) <= 125
    assert first.endswith(".")


@pytest.mark.parametrize("name", ALL)
def test_svg_is_deterministic_and_leaves_global_state_alone(name, site_dir):
    """Drawn here, the figure is the site's, byte for byte: drawn by the build, in
    another process, after other figures in another order (tests/test_reproducible.py
    compares whole builds, cold and kept)."""
    make = getattr(figures, name)
    before = dict(mpl.rcParams)
    figure = make()
    assert dict(mpl.rcParams) == before, "drawing the figure left matplotlib's settings changed"
    here = figures.to_svg(figure)
    assert dict(mpl.rcParams) == before, "writing the SVG left matplotlib's settings changed"
    built = site_dir / "figures" / f"{name}.svg"
    assert built.is_file(), f"the site has no {built.name}: is it used on a page?"
    assert here == built.read_text(encoding="utf-8")
    assert here.startswith("<?xml")
    assert "<dc:date>" not in here


def test_does_not_use_pyplot():
    code = "import sys, posenc.figures; sys.exit('matplotlib.pyplot' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --- Proposition 1 -----------------------------------------------------------


def test_permutation_figure_shows_equivariance():
    fig = figures.fig_permutation_equivariance()
    axes = [ax for ax in fig.axes if ax.images]  # the four heatmaps
    panels = {ax.get_title(): ax for ax in axes}
    assert len(panels) == 4
    x_ax = next(ax for t, ax in panels.items() if t.startswith("input"))
    px_ax = next(ax for t, ax in panels.items() if t.startswith("reordered"))
    out_ax = next(ax for t, ax in panels.items() if t.startswith("output") and "PX" not in t)
    out_p_ax = next(ax for t, ax in panels.items() if t.startswith("output") and "PX" in t)

    def rows(ax):
        return [t.get_text() for t in ax.get_yticklabels()]

    tokens, tokens_p = rows(x_ax), rows(px_ax)
    assert rows(out_ax) == tokens and rows(out_p_ax) == tokens_p
    assert sorted(tokens) == sorted(tokens_p) and tokens != tokens_p  # a real reordering
    perm = [tokens.index(t) for t in tokens_p]  # (n,)

    def data(ax):
        return np.asarray(ax.images[0].get_array())

    x, px, out, out_p = data(x_ax), data(px_ax), data(out_ax), data(out_p_ax)
    np.testing.assert_array_equal(px, x[perm])
    np.testing.assert_allclose(out_p, out[perm], rtol=0, atol=1e-12)
    assert not np.allclose(out, out_p)  # the outputs did move

    assert len({tuple(np.round(r, 9)) for r in out}) == len(tokens)  # rows are distinct

    # The numbers written in the cells are the numbers drawn.
    for ax, values in ((x_ax, x), (out_p_ax, out_p)):
        written = sorted(float(t.get_text().replace("\u2212", "-")) for t in ax.texts)
        np.testing.assert_allclose(written, sorted(values.ravel()), atol=0.005)


def test_permutation_figure_uses_posenc_attention(monkeypatch):
    calls = []
    real = figures.order.attention

    def spy(*args, **kwargs):
        calls.append(np.shape(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(figures.order, "attention", spy)
    figures.fig_permutation_equivariance()
    assert calls == [(4, 3), (4, 3)]
    assert real is posenc.attention


def test_permutation_figure_output_is_scaled_dot_product_attention():
    fig = figures.fig_permutation_equivariance()
    out_ax = next(ax for ax in fig.axes if ax.get_title() == r"output $\mathrm{Attn}(X)$")
    drawn = np.asarray(out_ax.images[0].get_array())  # (4, 3)
    x, wq, wk, wv = figures.order._X, figures.order._WQ, figures.order._WK, figures.order._WV
    d_k = wk.shape[1]
    for r in range(x.shape[0]):  # softmax(q_r . k_j / sqrt(d_k)) over j, then mix values
        q = [sum(x[r, a] * wq[a, b] for a in range(3)) for b in range(3)]
        scores = []
        for j in range(x.shape[0]):
            key = [sum(x[j, a] * wk[a, b] for a in range(3)) for b in range(3)]
            scores.append(math.fsum(qi * ki for qi, ki in zip(q, key, strict=True)))
        weights = [math.exp(s / math.sqrt(d_k)) for s in scores]
        total = math.fsum(weights)
        for c in range(3):
            value = math.fsum(
                weights[j] / total * sum(x[j, a] * wv[a, c] for a in range(3)) for j in range(4)
            )
            assert drawn[r, c] == pytest.approx(value, abs=1e-12)


# --- Proposition 5 -----------------------------------------------------------


def test_clock_bank_heatmap_is_the_library_table():
    fig = figures.fig_clock_bank()
    image = _by_gid(fig, AxesImage, "sinusoidal-table")
    drawn = np.asarray(image.get_array()).T  # (L, d): the figure draws the transpose
    np.testing.assert_array_equal(drawn, posenc.sinusoidal(40, 32))
    # ... and that table is the paper's formula, evaluated here independently.
    for pos in range(40):
        for j in range(32):
            angle = pos * _omega(j // 2, 32)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert drawn[pos, j] == pytest.approx(expected, abs=1e-12)
    assert image.get_clim() == (-1.0, 1.0)


@pytest.mark.parametrize(("length", "width", "pairs"), [(40, 32, (0, 2, 6)), (25, 16, (1, 7))])
def test_clock_bank_waves_sample_the_table(length, width, pairs):
    fig = figures.fig_clock_bank(length, width, pairs=pairs)
    table = posenc.sinusoidal(length, width)
    for i in pairs:
        dots = _by_gid(fig, Line2D, f"samples-dim-{2 * i}")
        np.testing.assert_array_equal(dots.get_xdata(), np.arange(length))
        np.testing.assert_array_equal(dots.get_ydata(), table[:, 2 * i])
        label = dots.axes.get_ylabel()
        wavelength = 2 * math.pi / _omega(i, width)
        assert f"\u03bb = {wavelength:.4g}" in label, label
        # The continuous curve passes through every marked sample.
        curve = next(line for line in dots.axes.get_lines() if len(line.get_xdata()) > length)
        t, y = curve.get_xdata(), curve.get_ydata()
        np.testing.assert_allclose(np.interp(np.arange(length), t, y), table[:, 2 * i], atol=2e-3)


def test_clock_bank_rejects_a_missing_pair():
    with pytest.raises(ValueError, match="pairs"):
        figures.fig_clock_bank(10, 8, pairs=(4,))


# --- Proposition 8 -----------------------------------------------------------


def _angle(point) -> float:
    """The angle theta of a point (sin theta, cos theta), in [0, 2 pi)."""
    s, c = point
    return math.atan2(s, c) % (2 * math.pi)


@pytest.mark.parametrize(
    ("pair", "width", "pos", "k"), [(0, 8, 2, 3), (1, 8, 5, 7), (0, 4, 0, 2), (2, 6, 3, 1)]
)
def test_shift_rotation_turns_by_omega_k(pair, width, pos, k):
    fig = figures.fig_shift_rotation(pair, width, pos, k)
    omega = _omega(pair, width)

    dots = _by_gid(fig, Line2D, "positions")
    xs, ys = np.asarray(dots.get_xdata()), np.asarray(dots.get_ydata())
    np.testing.assert_allclose(np.hypot(xs, ys), 1.0, rtol=0, atol=1e-12)  # on the unit circle
    for p, (s, c) in enumerate(zip(xs, ys, strict=True)):  # (sin, cos) order, p from 0
        assert s == pytest.approx(math.sin(omega * p), abs=1e-12)
        assert c == pytest.approx(math.cos(omega * p), abs=1e-12)

    start = _by_gid(fig, Line2D, "pe-start").get_xydata()[0]
    end = _by_gid(fig, Line2D, "pe-end").get_xydata()[0]
    np.testing.assert_allclose(start, [math.sin(omega * pos), math.cos(omega * pos)], atol=1e-12)
    turned = (_angle(end) - _angle(start)) % (2 * math.pi)
    assert turned == pytest.approx((omega * k) % (2 * math.pi), abs=1e-9)

    # The drawn arc runs from PE(pos) to PE(pos + k), the same sense as the turn.
    arc = _by_gid(fig, Line2D, "turn").get_xydata()
    assert _angle(arc[0]) == pytest.approx(_angle(start), abs=1e-9)
    steps = np.diff([math.atan2(s, c) for s, c in arc])
    assert np.all(np.mod(steps, 2 * math.pi) < math.pi)  # clockwise in (sin, cos) axes


def test_shift_rotation_matrix_panel_shows_the_library_block():
    fig = figures.fig_shift_rotation()  # pair 0, width 8, pos 2, k 3
    numbers = [t.get_text().replace("\u2212", "-") for t in fig.texts]
    numbers += [t.get_text().replace("\u2212", "-") for ax in fig.axes for t in ax.texts]
    shown = {n for n in numbers if n.replace("-", "").replace(".", "").isdigit()}
    expected = {
        f"{math.cos(3.0):.3f}",
        f"{math.sin(3.0):.3f}",
        f"{-math.sin(3.0):.3f}",
        f"{math.sin(2.0):.3f}",  # PE(2), pair 0
        f"{math.cos(2.0):.3f}",
        f"{math.sin(5.0):.3f}",  # PE(5) = M_3 PE(2)
        f"{math.cos(5.0):.3f}",
    }
    assert expected <= shown, expected - shown


def test_shift_rotation_rejects_a_missing_pair():
    with pytest.raises(ValueError, match="pair"):
        figures.fig_shift_rotation(pair=4, width=8)


def test_to_svg_clip_names_do_not_depend_on_last_bits_of_the_layout():
    # Two drawings that differ only in a clip rectangle's 17th digit must give the
    # same file; matplotlib alone names the clip paths differently.
    def drawing(shift: float) -> Figure:
        fig = Figure(figsize=(2, 1))
        ax = fig.add_axes((0.1, 0.1 + shift, 0.8, 0.8))
        ax.plot([0, 1], [1, 0])
        return fig

    tiny = 2.0**-55  # below what the SVG writes for any coordinate
    plain = _svg_plain(drawing(0.0)), _svg_plain(drawing(tiny))
    assert plain[0] != plain[1]  # the salt-hashed names differ ...
    assert figures.to_svg(drawing(0.0)) == figures.to_svg(drawing(tiny))  # ... ours do not
    svg = figures.to_svg(drawing(0.0))
    ids = set(re.findall(r'<clipPath id="([^"]+)"', svg))
    assert ids and ids == set(re.findall(r"url\(#([^)]+)\)", svg))


def _svg_plain(fig: Figure) -> str:
    buffer = io.StringIO()
    with mpl.rc_context({"svg.hashsalt": "posenc-test", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()
