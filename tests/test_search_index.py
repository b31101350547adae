"""The search index holds what readers search for, not the machine-check boilerplate."""

from __future__ import annotations

import json
from pathlib import Path

from hooks.search_index import exclude_boilerplate


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
