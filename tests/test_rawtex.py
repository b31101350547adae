"""No raw TeX where a reader looks, and no list that Markdown ended early (hooks/rawtex.py).

Each case goes the way a page goes in the build: Markdown with the site's
extensions (read from mkdocs.yml), then KaTeX through hooks/katex.py, then the
check. The strict build runs the same check on every page; a planted case in
one build is tests/test_build_hostile.py's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import markdown
import pytest
import yaml

from hooks import rawtex
from hooks.katex import KatexRenderer, render_math_in_html

ROOT = Path(__file__).resolve().parent.parent


def _extensions() -> tuple[list[str], dict]:
    """mkdocs.yml's Markdown extensions (snippets left out: it reads files)."""
    with open(ROOT / "mkdocs.yml", encoding="utf-8") as f:
        listed = yaml.load(f, Loader=yaml.BaseLoader)["markdown_extensions"]
    names, configs = [], {}
    for item in listed:
        name, config = next(iter(item.items())) if isinstance(item, dict) else (item, {})
        if name == "pymdownx.snippets":
            continue
        names.append(name)
        if config:
            configs[name] = {
                k: v == "true" if v in ("true", "false") else v for k, v in config.items()
            }
    return names, configs


@pytest.fixture(scope="module")
def page() -> Iterator:
    names, configs = _extensions()
    with KatexRenderer() as renderer:

        def render(source: str) -> str:
            body = markdown.markdown(source, extensions=names, extension_configs=configs)
            html = f'<body><article class="md-content__inner md-typeset">{body}</article></body>'
            return render_math_in_html(html, renderer)

        yield render


def kinds(findings) -> list[tuple[str, str]]:
    return [(f.kind, f.text) for f in findings]


GOOD = r"""
Let $d$ be even and $b > 1$. Pair $i$ turns at

$$\theta_i = b^{-2i/d}.$$

1. *First.* The speed is

    $$\theta'_i = \theta_i / s,$$

    and so on.

2. *Second.* The code `x_{i} = $y$` and a block:

    ```python
    cost = "$5"  # \frac{a}{b} is code here
    ```

3. *Third.* Done.

A sentence that wraps before a number: the head keeps its weight for head
8. Closer than that lies the rest.
"""


def test_a_page_written_right_has_nothing_to_report(page):
    assert rawtex.find(page(GOOD)) == []


def test_without_the_blank_line_the_next_item_falls_into_the_one_before(page):
    """Python-Markdown takes "2." after an item's indented paragraph as that paragraph's
    next line (a lazy continuation): the reader sees "2. Second." run into "and so on"."""
    found = rawtex.find(page(GOOD.replace("and so on.\n\n2.", "and so on.\n2.")))
    assert [(f.kind, f.text[:10]) for f in found] == [("list", "2. Second.")], kinds(found)


def test_a_stray_dollar_is_found(page):
    found = rawtex.find(page("It costs $5 to print, and the rest is text."))
    assert [f.kind for f in found] == ["tex"] and "costs $5 to" in found[0].text, kinds(found)


def test_a_display_inside_a_list_item_without_blank_lines_shows_its_dollars(page):
    source = (
        "1. *The ramp.* With $r$ the count,\n"
        "   $$\\gamma(r) = \\min(r, 1),$$\n"
        "   and the rest.\n"
        "2. *The end.* Done.\n"
    )
    found = rawtex.find(page(source))
    assert [f.kind for f in found] == ["tex", "tex"], kinds(found)
    assert all("$" in f.text for f in found)


BROKEN_LIST = """
1. *One.* First.
2. *Two.* Second.
3. *Three.* The ranges:

     | head | range |
     |---|---|
     | a | 1 |

     For head a, the rest.
  4. *Four.* A temperature applied twice.
"""


def test_a_numbered_part_that_fell_out_of_its_list_is_found(page):
    found = rawtex.find(page(BROKEN_LIST))
    assert kinds(found) == [("list", "4. Four. A temperature applied twice.")], kinds(found)
    assert rawtex.source_line(BROKEN_LIST, found[0]) == 11


def test_a_list_without_a_blank_line_before_it_is_found(page):
    source = "The functions:\n- `cos_sin`: the caches;\n- `angles`: the angles.\n"
    found = rawtex.find(page(source))
    assert [f.kind for f in found] == ["list", "list"], kinds(found)


def test_tex_in_alt_text_and_titles_is_found_and_code_is_not(page):
    html = page('![the speed $\\theta_i$](x.svg)\n\n<abbr title="x_{i}">x</abbr>\n\n`$5`')
    found = rawtex.find(html)
    assert [f.text[:4] for f in found] == ["alt=", "titl"], kinds(found)


def test_the_navigation_is_not_read_as_a_broken_list():
    html = (
        '<body><nav class="md-nav"><ul><li><a>\n   1. Self-attention\n</a></li>'
        "<li><a>\n   2. Position-wise\n</a></li></ul></nav>"
        '<article class="md-typeset"><p>Text.</p></article></body>'
    )
    assert rawtex.find(html) == []


def test_the_line_named_is_the_line_of_the_source():
    source = "Intro.\n\nThe price is\nnow $5 for all.\n"
    html = (
        '<body><article class="md-typeset"><p>The price is\nnow $5 for all.</p></article></body>'
    )
    [finding] = rawtex.find(html)
    assert rawtex.source_line(source, finding) == 4
