"""What a build keeps between builds (hooks/cache.py): found by content, made again on change.

The unit tests drive the caches directly, with the drawing and the rendering
counted, and compare what a cache gives back with what the uncached code
makes (the fresh figure, the fresh KaTeX render).

The real builds with one cache (cold, warm, and after a change to what the
figures and notebooks read: what each drew, rendered and executed, and that
the warm build's pages are the cold build's bytes) are in
tests/test_reproducible.py, whose cold build with the cache on is compared
there with a cold build with the cache off, byte for byte.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from pathlib import Path

import pytest

from hooks import cache, katex, svg

ROOT = Path(__file__).resolve().parent.parent


# -- keys ----------------------------------------------------------------------------


def test_the_directory_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    assert cache.directory(tmp_path) == tmp_path / ".cache" / "build"
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "elsewhere"))
    assert cache.directory(tmp_path) == (tmp_path / "elsewhere").resolve()
    for off in ("off", "OFF", "0", "no", "false"):
        monkeypatch.setenv(cache.CACHE_ENV, off)
        assert cache.directory(tmp_path) is None


def _library(root: Path) -> Path:
    (root / "posenc" / "figures").mkdir(parents=True)
    (root / "posenc" / "__init__.py").write_text("X = 1\n")
    (root / "posenc" / "figures" / "toy.py").write_text("def fig_toy(): ...\n")
    (root / "data" / "configs").mkdir(parents=True)
    (root / "data" / "configs" / "model.json").write_text('{"rope_theta": 10000}\n')
    return root


def test_the_statement_ledger_is_not_part_of_the_library(tmp_path):
    root = _library(tmp_path)
    before = cache.library_digest(root)
    (root / "data" / "statements.json").write_text("{}\n")
    assert cache.library_digest(root) == before


def test_the_library_digest_follows_content_not_time(tmp_path):
    root = _library(tmp_path / "a")
    first = cache.library_digest(root)
    later = time.time() + 1000
    for path in root.rglob("*"):
        os.utime(path, (later, later))
    assert cache.library_digest(root) == first, "touching a file is not changing it"
    copy = tmp_path / "b"
    shutil.copytree(root, copy)
    assert cache.library_digest(copy) == first, "a copy elsewhere has the same key"
    (copy / "posenc" / "__pycache__").mkdir()
    (copy / "posenc" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert cache.library_digest(copy) == first, "compiled files are not sources"


@pytest.mark.parametrize(
    "change",
    [
        ("posenc/figures/toy.py", "def fig_toy(): return 1\n"),
        ("posenc/__init__.py", "X = 2\n"),
        ("data/configs/model.json", '{"rope_theta": 500000}\n'),
        ("posenc/new.py", ""),
        ("data/configs/other.json", "{}\n"),
    ],
)
def test_any_change_to_the_library_or_the_data_changes_the_digest(tmp_path, change):
    root = _library(tmp_path)
    before = cache.library_digest(root)
    name, text = change
    (root / name).write_text(text)
    assert cache.library_digest(root) != before


def test_a_renamed_file_changes_the_digest(tmp_path):
    root = _library(tmp_path)
    before = cache.library_digest(root)
    (root / "posenc/figures/toy.py").rename(root / "posenc/figures/toys.py")
    assert cache.library_digest(root) != before


def test_parts_are_hashed_apart():
    assert cache.digest(["ab", "c"]) != cache.digest(["a", "bc"])
    assert cache.digest(["a"]) != cache.digest(["a", ""])


def test_versions_name_python_and_each_distribution():
    said = cache.versions("numpy", "no-such-distribution-posenc")
    lines = said.splitlines()
    assert lines[0].startswith("python==")
    import numpy

    assert lines[1] == f"numpy=={numpy.__version__}"
    assert lines[2] == "no-such-distribution-posenc==-"


# -- figures -------------------------------------------------------------------------


@pytest.fixture
def counted(monkeypatch) -> list[str]:
    """svg.figure_svg, replaced by one that records what it is asked to draw."""
    drawn: list[str] = []

    def fake(name: str) -> str:
        drawn.append(name)
        return f"<svg><title>{name} #{len(drawn)}</title></svg>"

    monkeypatch.setattr(svg, "figure_svg", fake)
    return drawn


def test_a_figure_is_drawn_once_and_then_kept(tmp_path, counted):
    root = _library(tmp_path / "root")
    first = svg.FigureCache(tmp_path / "cache", root)
    made = first.svg("fig_toy")
    assert counted == ["fig_toy"] and first.drawn == ["fig_toy"]
    second = svg.FigureCache(tmp_path / "cache", root)
    assert second.svg("fig_toy") == made
    assert counted == ["fig_toy"], "kept, not drawn again"
    assert second.kept == ["fig_toy"] and second.drawn == []


@pytest.mark.parametrize("edit", ["posenc/figures/toy.py", "data/configs/model.json"])
def test_a_change_to_the_library_or_data_redraws(tmp_path, counted, edit):
    root = _library(tmp_path / "root")
    svg.FigureCache(tmp_path / "cache", root).svg("fig_toy")
    with (root / edit).open("a") as out:
        out.write("\n")
    again = svg.FigureCache(tmp_path / "cache", root)
    again.svg("fig_toy")
    assert counted == ["fig_toy", "fig_toy"] and again.drawn == ["fig_toy"]


def test_a_new_matplotlib_redraws(tmp_path, counted, monkeypatch):
    root = _library(tmp_path / "root")
    svg.FigureCache(tmp_path / "cache", root).svg("fig_toy")
    real = cache.versions
    monkeypatch.setattr(cache, "versions", lambda *names: real(*names) + "\nmatplotlib==99")
    svg.FigureCache(tmp_path / "cache", root).svg("fig_toy")
    assert counted == ["fig_toy", "fig_toy"]


def test_without_a_cache_every_figure_is_drawn(tmp_path, counted):
    figures = svg.FigureCache(None, _library(tmp_path))
    figures.svg("fig_toy")
    figures.svg("fig_toy")
    assert counted == ["fig_toy", "fig_toy"]


@pytest.mark.parametrize("name", ["../../etc/passwd", "fig_a/b", "toy", ""])
def test_a_name_that_is_not_a_figure_function_is_refused(tmp_path, counted, name):
    with pytest.raises(KeyError):
        svg.FigureCache(tmp_path / "cache", _library(tmp_path / "root")).svg(name)
    assert counted == []


def test_a_kept_figure_is_the_figure_itself(tmp_path):
    """Through the real drawing code: the kept bytes are what a fresh draw gives."""
    base = tmp_path / "cache"
    name = "fig_dog_bites_man"
    first = svg.FigureCache(base, ROOT).svg(name)
    assert first == svg.figure_svg(name)
    second = svg.FigureCache(base, ROOT)
    assert second.svg(name) == first and second.kept == [name]


# -- math ----------------------------------------------------------------------------

FORMULAS = [
    ("\\operatorname{PE}(p + k) = R_k \\, \\operatorname{PE}(p)", True),
    ("\\omega_i = 10000^{-2i/d}", False),
    ("\\sum_{j} \\alpha_{ij} v_j", True),
]


def test_kept_math_is_what_katex_renders_and_node_does_not_start(tmp_path):
    base = tmp_path / "cache"
    with katex.LastingRenderer(base) as first:
        made = [first.render(tex, display) for tex, display in FORMULAS]
        assert first.rendered == len(FORMULAS) and first.found == 0
    with katex.KatexRenderer() as fresh:
        assert made == [fresh.render(tex, display) for tex, display in FORMULAS]
    second = katex.LastingRenderer(base)
    assert [second.render(tex, display) for tex, display in FORMULAS] == made
    assert second.found == len(FORMULAS) and second.rendered == 0
    assert second._renderer is None, "every formula was kept: Node.js never started"
    second.close()


def test_inline_and_display_are_kept_apart(tmp_path):
    base = tmp_path / "cache"
    with katex.LastingRenderer(base) as first:
        inline, display = first.render("x^2", False), first.render("x^2", True)
    assert inline != display
    with katex.LastingRenderer(base) as second:
        assert (second.render("x^2", False), second.render("x^2", True)) == (inline, display)


def test_other_macros_are_another_cache(tmp_path):
    base = tmp_path / "cache"
    with katex.LastingRenderer(base, {"\\PE": "\\operatorname{PE}"}) as first:
        one = first.render("\\PE(p)")
    with katex.LastingRenderer(base, {"\\PE": "\\mathrm{P}"}) as second:
        other = second.render("\\PE(p)")
        assert second.rendered == 1
    assert one != other


def test_a_formula_that_warned_is_not_kept(tmp_path, caplog):
    base = tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.posenc.katex"):
        with katex.LastingRenderer(base, strict="warn") as first:
            first.render("é")
            first.render("x")
        assert len([r for r in caplog.records if "é" in r.getMessage()]) == 1
        with katex.LastingRenderer(base, strict="warn") as second:
            second.render("é")
            second.render("x")
            assert (second.rendered, second.found) == (1, 1)
        assert len([r for r in caplog.records if "é" in r.getMessage()]) == 2, "warned again"


def test_a_formula_that_fails_is_not_kept_and_fails_again(tmp_path):
    base = tmp_path / "cache"
    for _ in range(2):
        with katex.LastingRenderer(base) as renderer:
            with pytest.raises(katex.KatexError):
                renderer.render("\\frac{1}{")


def test_a_complete_build_drops_formulas_no_page_has_and_a_stopped_one_keeps_them(tmp_path):
    base = tmp_path / "cache"
    with katex.LastingRenderer(base) as first:
        first.render("a")
        first.render("b")
    stopped = katex.LastingRenderer(base)
    stopped.render("c")
    stopped.close(complete=False)
    assert set(json.loads(stopped.path.read_text())) == {"Ia", "Ib", "Ic"}
    whole = katex.LastingRenderer(base)
    whole.render("a")
    whole.close(complete=True)
    assert set(json.loads(whole.path.read_text())) == {"Ia"}


def test_a_damaged_cache_file_is_a_miss(tmp_path):
    base = tmp_path / "cache"
    with katex.LastingRenderer(base) as first:
        made = first.render("y")
    first.path.write_text("{ not json")
    with katex.LastingRenderer(base) as second:
        assert second.render("y") == made and second.rendered == 1
    assert json.loads(second.path.read_text()) == {"Iy": made}


# -- pruning -------------------------------------------------------------------------


def test_prune_keeps_the_newest_generations_and_spares_young_ones(tmp_path):
    old = time.time() - 10 * cache.GRACE
    for index in range(cache.KEEP + 3):
        folder = tmp_path / "figures" / f"g{index}"
        folder.mkdir(parents=True)
        os.utime(folder, (old + index, old + index))
    young = tmp_path / "figures" / "young"
    young.mkdir()
    gone = cache.prune(tmp_path, "figures")
    left = sorted(p.name for p in (tmp_path / "figures").iterdir())
    # The young one counts among the newest; of the old, the newest KEEP - 1 stay.
    expected = sorted(["young"] + [f"g{i}" for i in range(4, cache.KEEP + 3)])
    assert left == expected
    assert sorted(p.name for p in gone) == ["g0", "g1", "g2", "g3"]
    assert cache.prune(tmp_path, "no-such-kind") == []


def test_prune_never_removes_an_entry_written_within_the_grace(tmp_path):
    for index in range(cache.KEEP + 2):
        (tmp_path / "katex" / f"g{index}").mkdir(parents=True)
    assert cache.prune(tmp_path, "katex") == []
    assert len(list((tmp_path / "katex").iterdir())) == cache.KEEP + 2


def test_writes_are_whole(tmp_path):
    target = tmp_path / "deep" / "file.svg"
    cache.write_text(target, "<svg/>")
    assert target.read_text() == "<svg/>"
    assert [p.name for p in target.parent.iterdir()] == ["file.svg"], "no temporary left"
    assert cache.read_text(tmp_path / "missing") is None
