"""The registry: permanent numbers, uses, proofs, and the generated blocks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _bib import parse_bibtex

from hooks import blocks, cite, registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: Every number ever given out. A number may be added here, never removed.
ISSUED = set(range(1, 15))


@pytest.fixture(scope="module")
def entries():
    return registry.load(DOCS, ROOT)


def test_no_issued_number_disappears(entries):
    assert ISSUED <= set(entries), f"numbers gone from the registry: {ISSUED - set(entries)}"


def test_pages_and_proofs_agree(entries):
    for n, entry in entries.items():
        assert entry.page == f"propositions/p{n:02d}-{entry.slug}.md"
        if entry.retired is None:
            assert entry.proof.startswith(f"proofs/p{n:02d}_")


def test_every_live_page_has_the_full_skeleton(entries):
    for entry in entries.values():
        if entry.retired is not None:
            continue
        text = (DOCS / entry.page).read_text()
        found = blocks.MARKER_RE.findall(text)
        assert tuple(m for m in found if m in blocks.MARKERS) == blocks.MARKERS, entry.page
        for heading in (
            "## Intuition",
            "## Argument",
            "## Machine check",
            "## Misreadings, refuted",
            "## Check yourself",
            "## Sources",
            "## Cite",
        ):
            assert heading in text, f"{entry.page} lacks {heading}"
        assert f'--8<-- "{entry.proof}"' in text, f"{entry.page} does not include its proof"
        assert "??? question" in text
        for figure in entry.figures:
            assert f"../figures/{figure.name}.svg" in text, (
                f"{entry.page} does not show {figure.name}"
            )


def test_uses_and_used_by_are_mirror_images(entries):
    for n, entry in entries.items():
        for used in entry.uses:
            assert n in entries[used].used_by
        for user in entry.used_by:
            assert n in entries[user].uses


def _copy_docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / "propositions", docs / "propositions")
    shutil.copytree(ROOT / "proofs", tmp_path / "proofs")
    return docs


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_a_reused_number_is_rejected(tmp_path):
    docs = _copy_docs(tmp_path)
    source = docs / "propositions" / "p05-bank-of-clocks.md"
    shutil.copy(source, docs / "propositions" / "p05-another-name.md")
    with pytest.raises(registry.RegistryError, match="defined twice"):
        registry.load(docs, tmp_path)


def test_uses_must_name_smaller_known_numbers(tmp_path):
    docs = _copy_docs(tmp_path)
    page = docs / "propositions" / "p05-bank-of-clocks.md"
    _edit(page, "uses: []", "uses: [8]")
    with pytest.raises(registry.RegistryError, match="only use smaller"):
        registry.load(docs, tmp_path)
    (docs / "propositions" / "p03-causal-mask-leaks-order.md").unlink()  # 3 is now unknown
    _edit(page, "uses: [8]", "uses: [3]")
    with pytest.raises(registry.RegistryError, match="unknown proposition 3"):
        registry.load(docs, tmp_path)


def test_page_and_proof_must_agree_on_the_number(tmp_path):
    docs = _copy_docs(tmp_path)
    _edit(tmp_path / "proofs" / "p08_shift_is_rotation.py", "NUMBER = 8", "NUMBER = 9")
    with pytest.raises(registry.RegistryError, match="declares NUMBER = 9"):
        registry.load(docs, tmp_path)


def test_file_name_and_front_matter_must_agree(tmp_path):
    docs = _copy_docs(tmp_path)
    _edit(docs / "propositions" / "p08-shift-is-rotation.md", "number: 8", "number: 7")
    with pytest.raises(registry.RegistryError, match="says number 7"):
        registry.load(docs, tmp_path)


def test_a_live_proposition_needs_its_proof(tmp_path):
    docs = _copy_docs(tmp_path)
    (tmp_path / "proofs" / "p08_shift_is_rotation.py").unlink()
    with pytest.raises(registry.RegistryError, match="does not exist"):
        registry.load(docs, tmp_path)


# -- citations ---------------------------------------------------------------------


def test_bibtex_names_permalink_version_and_record(entries):
    entry = entries[8]
    text = cite.bibtex(
        entry,
        site_url="https://example.org/x/",
        version="1.2.3",
        year="2026",
        note="Machine check verified: 9/9 checks; proof p08 sha256 0123",
    )
    kind, key, fields = parse_bibtex(text)
    assert (kind, key) == ("misc", "posenc:p8")
    assert fields["title"] == "Proposition 8: A shift is a rotation"
    assert fields["url"] == "https://example.org/x/p/8/"
    assert fields["version"] == "1.2.3" and fields["year"] == "2026"
    assert "1.2.3" in fields["note"] and "sha256 0123" in fields["note"]


def test_bibtex_escapes_special_characters(entries):
    text = cite.bibtex(
        entries[1],
        site_url="https://e.org/",
        version="1",
        year="2026",
        note="50% of {braces} & under_scores",
    )
    _, _, fields = parse_bibtex(text)
    assert r"50\% of \{braces\} \& under\_scores" in fields["note"]


def test_every_cited_source_is_in_the_bibliography(entries):
    import yaml

    sources = yaml.safe_load((DOCS / "sources.yml").read_text())
    for entry in entries.values():
        missing = [key for key in entry.sources if key not in sources]
        assert not missing, f"{entry.page} cites {missing}, absent from docs/sources.yml"
    for key, source in sources.items():
        assert {"authors", "title", "venue", "year", "url"} <= set(source), key
