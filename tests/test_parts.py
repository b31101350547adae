"""The parts: every proposition is read in one, and each part lists exactly its own."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest

from hooks import parts, registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def entries():
    return registry.load(DOCS, ROOT)


@pytest.fixture(scope="module")
def groups():
    return parts.load(DOCS)


def _copy_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / "propositions", docs / "propositions")
    shutil.copytree(DOCS / "parts", docs / "parts")
    shutil.copytree(ROOT / "proofs", tmp_path / "proofs")
    return docs


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_every_live_proposition_is_in_exactly_one_part(entries, groups):
    assert parts.check(groups, entries) == []
    order = parts.reading_order(groups)
    live = sorted(n for n, e in entries.items() if e.retired is None)
    assert sorted(order) == live and len(order) == len(set(order))
    for n in live:
        assert entries[n].question and entries[n].question.endswith("?"), n


def test_parts_are_numbered_one_to_n_and_their_pages_say_their_heading(groups):
    assert [p.number for p in groups.values()] == list(range(1, len(groups) + 1))
    for part in groups.values():
        text = (DOCS / part.page).read_text(encoding="utf-8")
        assert f"\n# {part.heading}\n" in text, part.page
        assert "<!-- posenc:part -->" in text, part.page


def test_the_navigation_has_a_section_per_part_its_page_first(entries, groups):
    made = parts.nav(groups, entries)
    titles = [html.unescape(next(iter(s))) for s in made]  # Material prints them as HTML
    assert titles == [f"{p.roman}. {p.title}" for p in groups.values()]
    for section, part in zip(made, groups.values(), strict=True):
        [items] = section.values()
        assert items[0] == part.page
        assert [next(iter(i.values())) for i in items[1:]] == [entries[n].page for n in part.order]


def test_the_questions_page_lists_every_question_under_its_part(entries, groups):
    text = parts.questions(groups, entries, "")
    headings = re.findall(r"^## \[(.*?)\]", text, re.M)
    assert headings == [p.heading for p in groups.values()]
    for n in parts.reading_order(groups):
        assert f"({entries[n].page}) (Proposition {n})" in text


@pytest.mark.parametrize(
    ("page", "old", "new", "says"),
    [
        (
            "p05-bank-of-clocks.md",
            "part: sinusoidal\n",
            "",
            "p05-bank-of-clocks.md: part: missing",
        ),
        ("p05-bank-of-clocks.md", "part: sinusoidal", "part: clocks", "'clocks' is not a part"),
        (
            "p05-bank-of-clocks.md",
            "part: sinusoidal",
            "part: rotary",
            "parts/rotary.md: order: does not list Proposition 5",
        ),
        ("p05-bank-of-clocks.md", "question:", "questio_:", "question: missing"),
    ],
)
def test_a_proposition_without_its_part_is_named(tmp_path, page, old, new, says):
    docs = _copy_docs(tmp_path)
    path = docs / "propositions" / page
    if new == "questio_:":  # drop the line
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        path.write_text("".join(x for x in lines if not x.startswith("question:")))
    else:
        _edit(path, old, new)
    entries = registry.load(docs, tmp_path)
    problems = parts.check(parts.load(docs), entries)
    assert any(says in p for p in problems), problems


def test_a_part_that_lists_a_proposition_of_another_part_is_named(tmp_path):
    docs = _copy_docs(tmp_path)
    _edit(docs / "parts" / "order.md", "order: [1, 2, 3, 4, 17]", "order: [1, 2, 3, 4, 17, 5]")
    problems = parts.check(parts.load(docs), registry.load(docs, tmp_path))
    assert problems == ["parts/order.md: order: lists 5, whose page says part: sinusoidal"]


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("number: 1", "number: 2", "number: 2 is also the number of"),
        ("order: [1, 2, 3, 4, 17]", "order: [1, 2, 2, 4, 17]", "lists 2 more than once"),
        ("order: [1, 2, 3, 4, 17]", "order: 1", "order: must be"),
        ("number: 1", "number: 1\ncolour: red", "unknown field(s) colour"),
    ],
)
def test_a_broken_part_page_is_named(tmp_path, old, new, says):
    docs = _copy_docs(tmp_path)
    _edit(docs / "parts" / "order.md", old, new)
    with pytest.raises(parts.PartError, match=re.escape(says)):
        parts.load(docs)


def test_a_statement_with_a_table_is_refused(tmp_path):
    docs = _copy_docs(tmp_path)
    page = docs / "propositions" / "p05-bank-of-clocks.md"
    _edit(page, "statement: |-\n", "statement: |-\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n\n")
    with pytest.raises(registry.RegistryError, match="statement: holds a table"):
        registry.load(docs, tmp_path)


def test_roman_numerals():
    assert [parts.roman(n) for n in (1, 4, 6, 9, 14, 40, 1999)] == [
        "I",
        "IV",
        "VI",
        "IX",
        "XIV",
        "XL",
        "MCMXCIX",
    ]
