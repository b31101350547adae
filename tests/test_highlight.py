"""Highlighted code blocks kept between builds (hooks/highlight.py), through the real extension."""

from __future__ import annotations

import json
import re

import markdown
import pytest

from hooks import cache, highlight

SOURCE = (
    "Some `#!python x = 1` inline code.\n\n"
    "```python\nfrom proofs.kit import Recorder\n\nrec = Recorder()\n```\n\n"
    '```python title="two.py"\nprint("two")\n```\n'
)


def _html(text: str = SOURCE, **config) -> str:
    settings = {"pymdownx.highlight": {"anchor_linenums": False, **config}}
    extensions = ["pymdownx.superfences", "pymdownx.highlight", "pymdownx.inlinehilite"]
    return markdown.Markdown(extensions=extensions, extension_configs=settings).convert(text)


@pytest.fixture
def fresh() -> str:
    assert highlight._OPEN is None
    return _html()


def test_kept_blocks_are_the_extensions_own_html_and_are_not_highlighted_again(tmp_path, fresh):
    first = highlight.LastingHighlights(tmp_path).open()
    try:
        assert _html() == fresh
    finally:
        first.close()
    assert (first.found, first.highlighted) == (0, 2), "two blocks; inline code is not kept"
    second = highlight.LastingHighlights(tmp_path).open()
    try:
        assert _html() == fresh
    finally:
        second.close()
    assert (second.found, second.highlighted) == (2, 0)


def test_other_settings_or_another_source_highlight_again(tmp_path, fresh):
    with_numbers = _html(linenums=True)
    assert with_numbers != fresh
    lasting = highlight.LastingHighlights(tmp_path).open()
    try:
        _html()
        assert _html(linenums=True) == with_numbers
        _html(SOURCE.replace('"two"', '"three"'))
    finally:
        lasting.close()
    assert (lasting.found, lasting.highlighted) == (0, 5)


def test_a_new_pygments_is_a_new_generation(tmp_path, fresh, monkeypatch):
    lasting = highlight.LastingHighlights(tmp_path).open()
    _html()
    lasting.close()
    real = cache.versions
    monkeypatch.setattr(cache, "versions", lambda *names: real(*names) + "\npygments==99")
    again = highlight.LastingHighlights(tmp_path).open()
    try:
        assert _html() == fresh
    finally:
        again.close()
    assert again.highlighted == 2 and again.path != lasting.path


def test_closing_stops_routing_and_a_whole_build_keeps_only_what_it_used(tmp_path, fresh):
    lasting = highlight.LastingHighlights(tmp_path).open()
    _html()
    lasting.close()
    assert highlight._OPEN is None
    _html(SOURCE.replace("rec", "other"))  # not through the cache: nothing recorded
    assert lasting.highlighted == 2
    only_one = highlight.LastingHighlights(tmp_path).open()
    _html('```python\nprint("two")\n```\n')
    only_one.close(complete=True)
    assert len(json.loads(only_one.path.read_text())) == 1


def test_a_damaged_file_is_a_miss(tmp_path, fresh):
    lasting = highlight.LastingHighlights(tmp_path).open()
    _html()
    lasting.close()
    lasting.path.write_text("{ not json")
    again = highlight.LastingHighlights(tmp_path).open()
    try:
        assert _html() == fresh
    finally:
        again.close()
    assert again.highlighted == 2


def test_without_a_cache_every_block_is_highlighted(tmp_path, fresh):
    lasting = highlight.LastingHighlights(None).open()
    try:
        assert _html() == fresh and _html() == fresh
    finally:
        lasting.close()
    assert lasting.path is None and lasting.highlighted == 2  # the second page: used this build


# -- lighten: the spans that show nothing ---------------------------------------------


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_names_and_whitespace_lose_their_spans_and_twins_merge():
    code = (
        '<pre><span></span><code><span class="n">x</span><span class="w"> </span>'
        '<span class="o">=</span><span class="w"> </span><span class="n">f</span>'
        '<span class="p">(</span><span class="p">)</span><span class="p">)</span>'
        '<span class="c1"># a</span></code></pre>'
    )
    assert highlight.lighten(code) == (
        '<pre><span></span><code>x <span class="o">=</span> f<span class="p">())</span>'
        '<span class="c1"># a</span></code></pre>'
    )
    assert _text(highlight.lighten(code)) == _text(code)


def test_only_code_is_touched_and_other_classes_keep_their_spans():
    outside = '<p><span class="n">kept outside code</span></p>'
    inside = (
        '<code><span class="nf">f</span><span class="n">x</span><span class="nn">y</span></code>'
    )
    assert highlight.lighten(outside + inside) == (
        outside + '<code><span class="nf">f</span>x<span class="nn">y</span></code>'
    )


def test_a_real_highlighted_block_keeps_its_text_with_fewer_elements():
    source = "def f(x, y):\n    return g(x) + h(y)  # sum\n"
    html = markdown.markdown(
        f"```python\n{source}```", extensions=["pymdownx.highlight", "pymdownx.superfences"]
    )
    lighter = highlight.lighten(html)
    assert _text(lighter) == _text(html)
    assert lighter.count("<span") < html.count("<span") * 0.7
    assert 'class="n"' not in lighter and 'class="w"' not in lighter
