"""Each glossary term explained once per page (hooks/abbreviations.py)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from hooks.abbreviations import first_only


def _abbr(term: str, title: str = "explained") -> str:
    return f'<abbr title="{title}">{term}</abbr>'


def test_the_first_occurrence_keeps_its_explanation_and_the_others_become_text():
    page = f"<p>{_abbr('PE')} and {_abbr('RoPE')}</p><td>{_abbr('PE')}</td><td>{_abbr('PE')}</td>"
    assert first_only(page) == f"<p>{_abbr('PE')} and {_abbr('RoPE')}</p><td>PE</td><td>PE</td>"


def test_an_occurrence_the_page_shows_wins_over_one_in_a_closed_block():
    page = (
        f"<details><summary>Answer</summary><p>{_abbr('ulp')}</p></details>"
        f"<p>{_abbr('ulp')} and {_abbr('ulp')}</p>"
    )
    assert first_only(page) == (
        f"<details><summary>Answer</summary><p>ulp</p></details><p>{_abbr('ulp')} and ulp</p>"
    )


def test_a_summary_is_shown_and_a_term_only_in_closed_blocks_keeps_its_first():
    page = (
        f"<details><summary>{_abbr('NTK')}?</summary><p>{_abbr('NTK')}</p></details>"
        f"<details><summary>More</summary><p>{_abbr('YaRN')} {_abbr('YaRN')}</p></details>"
    )
    assert first_only(page) == (
        f"<details><summary>{_abbr('NTK')}?</summary><p>NTK</p></details>"
        f"<details><summary>More</summary><p>{_abbr('YaRN')} YaRN</p></details>"
    )


def test_an_open_block_is_shown():
    page = f"<details open><summary>s</summary>{_abbr('PE')}</details>{_abbr('PE')}"
    assert first_only(page) == f"<details open><summary>s</summary>{_abbr('PE')}</details>PE"


def test_no_built_page_explains_a_term_twice(site_dir: Path):
    checked = 0
    for path in sorted(site_dir.rglob("*.html")):
        if path.relative_to(site_dir).as_posix() == "propositions/all/index.html":
            continue  # the printable corpus: each proposition's part keeps its own
        terms = Counter(re.findall(r"<abbr [^>]*>([^<]*)</abbr>", path.read_text("utf-8")))
        twice = {term: n for term, n in terms.items() if n > 1}
        assert not twice, f"{path.relative_to(site_dir)}: {twice}"
        checked += bool(terms)
    assert checked >= 30
