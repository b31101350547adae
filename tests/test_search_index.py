"""The search index holds what readers search for, not the machine-check boilerplate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from hooks.search_index import Hidden, exclude_boilerplate


def _index(site_dir: Path) -> list[dict]:
    return json.loads((site_dir / "search" / "search_index.json").read_text())["docs"]


def test_proof_scripts_checks_and_bibtex_are_not_indexed_but_stay_on_the_page(site_dir: Path):
    text = " ".join(doc["text"] for doc in _index(site_dir))
    assert "from proofs.kit import" not in text  # a line of every proof script
    assert "@misc{posenc:p" not in text  # the BibTeX entries
    assert "<th>Evidence</th>" not in text  # the table of checks
    page = (site_dir / "propositions" / "p08-shift-is-rotation" / "index.html").read_text()
    assert "proofs.kit" in page and "@misc" in page and "posenc-checks" in page


def test_statements_and_arguments_are_indexed(site_dir: Path):
    docs = {doc["location"]: doc for doc in _index(site_dir)}
    statement = docs["propositions/p08-shift-is-rotation/"]["text"]
    assert "one matrix" in statement
    assert "propositions/p08-shift-is-rotation/#argument" in docs
    assert "propositions/p08-shift-is-rotation/#machine-check" in docs  # its heading and prose


def test_only_the_marked_blocks_are_excluded():
    page = (
        '<details class="example">\n<summary>The proof script, <code>x.py</code></summary>'
        '<details class="example">\n<summary>A worked example</summary>'
        '<div class="posenc-checks"><table></table></div>'
        '<div class="highlight"><span class="filename">BibTeX</span><pre></pre></div>'
        '<div class="highlight"><span class="filename">example.py</span><pre></pre></div>'
    )
    out = exclude_boilerplate(page)
    assert out.count("data-search-exclude") == 3
    assert '<details class="example">\n<summary>A worked example' in out
    assert '<div class="highlight"><span class="filename">example.py' in out


# -- what the search plugin is not given to read -----------------------------------------

MARKED = (
    '<h2 id="machine-check">Machine check</h2><p>Before.</p>'
    '<details class="example" data-search-exclude><summary>The proof script</summary>'
    '<div class="highlight"><pre><code>from proofs.kit import x\n</code></pre></div>'
    "<details><summary>inner</summary><p>nested</p></details></details>"
    '<div class="posenc-checks" data-search-exclude><div><table></table></div></div>'
    "<p>After.</p>"
)


def test_marked_blocks_are_taken_out_whole_and_put_back_as_they_were():
    hidden = Hidden()
    out = hidden.hide(MARKED)
    assert "proofs.kit" not in out and "<table>" not in out and "nested" not in out
    assert "<p>Before.</p>" in out and "<p>After.</p>" in out
    assert len(hidden.blocks) == 2
    assert hidden.blocks[0].startswith("<details") and hidden.blocks[0].endswith("</details>")
    assert hidden.blocks[1].endswith("</table></div></div>")
    assert hidden.restore(out) == MARKED


def test_an_unclosed_block_is_left_in_place():
    page = '<div data-search-exclude><p>never closed</p><p id="x">x</p>'
    hidden = Hidden()
    assert hidden.hide(page) == page and hidden.blocks == []


def test_pages_share_one_store_so_the_printable_page_restores_every_part():
    hidden = Hidden()
    first, second = hidden.hide(MARKED), hidden.hide(MARKED.replace("kit", "runner"))
    assert hidden.restore(first + second) == MARKED + MARKED.replace("kit", "runner")


def test_the_search_plugin_indexes_a_page_the_same_with_or_without_its_marked_blocks():
    """Material's own indexer, given a real proposition page's HTML both ways."""
    from material.plugins.search.plugin import SearchIndex
    from mkdocs.structure.toc import get_toc

    class Page:
        url = "propositions/p08/"
        title = "A shift is a rotation"
        meta: ClassVar[dict] = {}
        toc = get_toc(
            [
                {"level": 2, "id": "machine-check", "name": "Machine check", "children": []},
            ]
        )

    def index(content: str) -> list[dict]:
        page = Page()
        page.content = content
        found = SearchIndex()
        found.add_entry_from_context(page)
        return found.entries

    page_html = MARKED * 3 + "<h2 id='sources'>Sources</h2><p>Vaswani.</p>"
    hidden = Hidden()
    assert index(hidden.hide(page_html)) == index(page_html) != []
