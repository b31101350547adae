"""The API reference's renders, kept between builds (hooks/apidoc.py).

A stand-in handler counts its renders and registers headings the way
mkdocstrings' ``do_heading`` does; the cache must hand back the same HTML and
the same headings without rendering, and must render again when anything in
its key changes or the render warned. The real handler is checked once:
what a kept render gives is what mkdocstrings renders.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest

from hooks import apidoc, cache, mkdocs_hooks, registry, svg

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Options:
    heading_level: int = 3
    show_source: bool = False


@dataclass(frozen=True)
class Item:
    path: str


class Handler:
    """Renders ``<div>path</div>`` and registers one heading per render, as mkdocstrings does."""

    def __init__(self, warn: bool = False) -> None:
        self._headings: list[Element] = []
        self.calls: list[str] = []
        self.warn = warn

    def render(self, data: Item, options: Options, locale: str | None = None) -> str:
        self.calls.append(data.path)
        if self.warn:
            logging.getLogger("griffe").warning("no type for parameter x")
        heading = Element(f"h{options.heading_level}", {"id": data.path, "data-role": "function"})
        heading.text = data.path.rsplit(".", 1)[-1]
        self._headings.append(heading)
        return f'<div class="doc">{data.path} {options.heading_level} {locale}</div>'


def _library(root: Path) -> Path:
    (root / "posenc").mkdir(parents=True)
    (root / "posenc" / "__init__.py").write_text('"""Docs."""\n')
    (root / "docs" / "includes").mkdir(parents=True)
    (root / "docs" / "includes" / "abbreviations.md").write_text("*[PE]: positional encoding\n")
    (root / "mkdocs.yml").write_text("site_name: x\n")
    return root


def _render(rc: apidoc.RenderCache, handler: Handler, path: str, **options):
    rc.wrap(handler)
    return handler.render(Item(path), Options(**options), locale="en")


def _form(elements):
    return [(e.tag, dict(e.attrib), e.text) for e in elements]


def test_a_kept_render_gives_the_same_html_and_headings_without_rendering(tmp_path):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    first = Handler()
    made = _render(apidoc.RenderCache(base, root), first, "posenc.sinusoidal")
    second = Handler()
    rc = apidoc.RenderCache(base, root)
    assert _render(rc, second, "posenc.sinusoidal") == made
    assert second.calls == [] and rc.kept == ["posenc.sinusoidal"] and rc.rendered == []
    assert _form(second._headings) == _form(first._headings) != []


def test_wrapping_twice_renders_through_one_cache(tmp_path):
    handler = Handler()
    rc = apidoc.RenderCache(tmp_path / "cache", _library(tmp_path / "root"))
    rc.wrap(handler)
    rc.wrap(handler)
    handler.render(Item("posenc.x"), Options())
    assert handler.calls == ["posenc.x"] and rc.rendered == ["posenc.x"]


@pytest.mark.parametrize(
    "change",
    [
        ("posenc/__init__.py", '"""Other docs."""\n'),
        ("posenc/new.py", ""),
        ("mkdocs.yml", "site_name: y\n"),
        ("docs/includes/abbreviations.md", "*[PE]: position code\n"),
    ],
)
def test_a_change_to_what_rendering_reads_renders_again(tmp_path, change):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    _render(apidoc.RenderCache(base, root), Handler(), "posenc.x")
    name, text = change
    (root / name).write_text(text)
    again = Handler()
    _render(apidoc.RenderCache(base, root), again, "posenc.x")
    assert again.calls == ["posenc.x"]


def test_other_options_or_another_object_render_again(tmp_path):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    _render(apidoc.RenderCache(base, root), Handler(), "posenc.x")
    again = Handler()
    _render(apidoc.RenderCache(base, root), again, "posenc.x", heading_level=2)
    _render(apidoc.RenderCache(base, root), again, "posenc.y")
    assert again.calls == ["posenc.x", "posenc.y"]


def test_a_new_renderer_version_renders_again(tmp_path, monkeypatch):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    _render(apidoc.RenderCache(base, root), Handler(), "posenc.x")
    real = cache.versions
    monkeypatch.setattr(cache, "versions", lambda *names: real(*names) + "\njinja2==99")
    again = Handler()
    _render(apidoc.RenderCache(base, root), again, "posenc.x")
    assert again.calls == ["posenc.x"]


def test_a_render_that_warned_is_not_kept_and_warns_again(tmp_path, caplog):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    with caplog.at_level(logging.WARNING, logger="griffe"):
        for _ in range(2):
            handler = Handler(warn=True)
            _render(apidoc.RenderCache(base, root), handler, "posenc.x")
            assert handler.calls == ["posenc.x"]
    assert len([r for r in caplog.records if "no type" in r.getMessage()]) == 2


def test_a_damaged_entry_is_a_miss_and_is_written_again(tmp_path):
    root, base = _library(tmp_path / "root"), tmp_path / "cache"
    rc = apidoc.RenderCache(base, root)
    _render(rc, Handler(), "posenc.x")
    [entry] = list(rc.folder.iterdir())
    for damage in ("{ not json", json.dumps({"html": "<p>", "headings": [{"tag": 3}]})):
        entry.write_text(damage)
        again = Handler()
        _render(apidoc.RenderCache(base, root), again, "posenc.x")
        assert again.calls == ["posenc.x"]
    assert "posenc.x" in json.loads(entry.read_text())["html"]


def test_without_a_cache_every_object_is_rendered(tmp_path):
    handler = Handler()
    rc = apidoc.RenderCache(None, _library(tmp_path / "root"))
    _render(rc, handler, "posenc.x")
    _render(rc, handler, "posenc.x")
    assert handler.calls == ["posenc.x", "posenc.x"]


def test_the_real_handler_kept_is_the_real_handler_rendered(tmp_path):
    """mkdocstrings' Python handler on posenc.frequencies: the kept HTML is its fresh HTML."""
    mkdocs_config = pytest.importorskip("mkdocs.config")
    config = mkdocs_config.load_config(str(ROOT / "mkdocs.yml"))
    # Only what the handler needs: no on_config of ours (no proofs run for this test).
    plugin = config.plugins["mkdocstrings"]
    plugin.on_config(config)
    import markdown

    md = markdown.Markdown(
        extensions=config.markdown_extensions, extension_configs=config.mdx_configs
    )
    handler = plugin.handlers.get_handler("python")
    handler._update_env(md, config=plugin.handlers._tool_config)
    options = handler.get_options({})
    data = handler.collect("posenc.frequencies", options)
    fresh = handler.render(data, options)
    fresh_headings = _form(handler.get_headings())
    rc = apidoc.RenderCache(tmp_path / "cache", ROOT)
    rc.wrap(handler)
    assert handler.render(data, options) == fresh and rc.rendered == ["posenc.frequencies"]
    assert _form(handler.get_headings()) == fresh_headings
    assert handler.render(data, options) == fresh and rc.kept == ["posenc.frequencies"]
    assert _form(handler.get_headings()) == fresh_headings != []


# -- the figure check does not import matplotlib for kept figures ---------------------------


def test_a_kept_figure_is_not_looked_up_and_an_unknown_one_still_fails(tmp_path):
    from mkdocs.exceptions import PluginError

    figures = svg.FigureCache(tmp_path / "cache", ROOT)
    cache.write_text(figures.folder / "fig_kept_here.svg", "<svg/>")
    kept = registry.Figure("fig_kept_here", "Alt.")
    entry = next(iter(registry.load(ROOT / "docs", ROOT).values()))
    with_kept = dataclasses.replace(entry, figures=(kept,))
    mkdocs_hooks._check_figures({1: with_kept}, figures)  # kept: no lookup, no error
    with pytest.raises(PluginError, match="fig_kept_here is not a function"):
        mkdocs_hooks._check_figures({1: with_kept}, svg.FigureCache(None, ROOT))
    unknown = dataclasses.replace(entry, figures=(registry.Figure("fig_nowhere", "Alt."),))
    with pytest.raises(PluginError, match="fig_nowhere is not a function"):
        mkdocs_hooks._check_figures({1: unknown}, figures)
