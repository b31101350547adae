"""Pinned statements: the hash a citation carries, the ledger per version, the history page."""

from __future__ import annotations

import hashlib
import html as entities
import json
import re
import subprocess
import sys
import tomllib
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from hooks import cite, registry, statements

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE = "https://example.org/"
DATE = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.fixture(scope="module")
def entries():
    return registry.load(DOCS, ROOT)


@pytest.fixture(scope="module")
def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def spec_normalise(text: str) -> str:
    """The normalisation as docs/cite.md words it, written again from that text."""
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = re.sub(r"\{\{\s*(p\d+\.)?([a-z][a-z0-9_]*)\s*\}\}", r"{{ \1\2 }}", text)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", text)]
    return "\n\n".join(p for p in paragraphs if p)


def source_statements() -> dict[int, str]:
    """Each page's statement: the YAML front matter read with PyYAML, nothing of ours."""
    found = {}
    for path in sorted((DOCS / "propositions").glob("p[0-9][0-9]-*.md")):
        head = path.read_text(encoding="utf-8").split("\n---", 1)[0].removeprefix("---\n")
        data = yaml.safe_load(head)
        found[data["number"]] = data["statement"]
    return found


# -- what is hashed ------------------------------------------------------------------


def test_the_hash_is_sha256_of_the_normal_form_written_out():
    statement = (
        "Let $x$ be\n  a  position,\r\nand {{x_max}} its bound.\n\n\n$$y = {{ p14.eps }}$$\n"
    )
    assert statements.normalise(statement) == (
        "Let $x$ be a position, and {{ x_max }} its bound.\n\n$$y = {{ p14.eps }}$$"
    )
    assert statements.digest(statement) == sha(
        "Let $x$ be a position, and {{ x_max }} its bound.\n\n$$y = {{ p14.eps }}$$"
    )
    assert statements.short(statements.digest(statement)) == statements.digest(statement)[:12]


def test_rewrapping_and_spelling_of_references_do_not_change_the_hash():
    one = "For every offset $k$ the code is\na rotation of {{ width }} clocks."
    same = [
        "For every offset $k$ the code is a rotation of {{width}} clocks.",
        one.replace("\n", "\r\n"),
        "For every offset $k$\tthe code is  a rotation of {{ width }}\nclocks.",
        "For every offset $k$ the code is\n    a rotation of {{  width }} clocks.\n",
        unicodedata.normalize("NFD", one),
    ]
    for text in same:
        assert statements.digest(text) == statements.digest(one), repr(text)


def test_a_word_a_formula_a_reference_or_a_paragraph_break_changes_the_hash():
    one = "For every offset $k$ the code is a rotation of {{ width }} clocks."
    different = [
        "For every offset $k$ the code is a reflection of {{ width }} clocks.",
        "For every offset $k+1$ the code is a rotation of {{ width }} clocks.",
        "For every offset $k$ the code is a rotation of {{ p5.width }} clocks.",
        "For every offset $k$ the code is\n\na rotation of {{ width }} clocks.",
    ]
    digests = {statements.digest(t) for t in different}
    assert len(digests) == len(different) and statements.digest(one) not in digests


def test_every_statement_hashes_as_the_documented_normalisation_says(entries):
    texts = source_statements()
    assert sorted(texts) == sorted(entries)
    hashes = statements.current(DOCS)
    for n, text in texts.items():
        assert hashes[n] == sha(spec_normalise(text)), f"Proposition {n}"


def test_the_hash_is_of_the_source_not_of_the_rendered_statement(entries):
    # Proposition 14's statement names quantities: the rendered one writes their values.
    texts = source_statements()
    named = [n for n, t in texts.items() if "{{" in t]
    assert named, "no statement names a quantity any more; pick another test"
    for n in named:
        assert statements.current(DOCS)[n] == statements.digest(texts[n])
        assert "{{" in statements.normalise(texts[n])


# -- the ledger ----------------------------------------------------------------------


def test_the_ledger_holds_the_statements_of_the_current_version(version):
    """No statement changes without the ledger saying so."""
    versions = statements.load()
    found = statements.problems(versions, version, statements.current(DOCS))
    assert not found, (
        "data/statements.json disagrees with the statements of the pages:\n  "
        + "\n  ".join(found)
        + "\nIf the change is meant: run `.venv/bin/python -m hooks.statements record` and "
        "commit data/statements.json with it. If the version in the ledger was released, "
        "first raise project.version in pyproject.toml, so that the pages say the statement "
        "changed since that version."
    )


def test_the_ledger_guard_fails_on_a_changed_new_or_missing_statement(version):
    versions = statements.load()
    hashes = statements.current(DOCS)
    changed = {**hashes, 1: sha("a statement nobody recorded")}
    [problem] = statements.problems(versions, version, changed)
    assert "Proposition 1 has changed" in problem.replace("statement of ", "")
    assert statements.problems(versions, version, {**hashes, 999: sha("new")}) == [
        "Proposition 999 is new: its statement is not in the ledger"
    ]
    fewer = {n: h for n, h in hashes.items() if n != 2}
    assert statements.problems(versions, version, fewer) == [
        "Proposition 2 is in the ledger but has no page"
    ]
    assert statements.problems(versions, "99.0.0", hashes)[0].startswith("the ledger has no entry")


def test_the_ledger_is_well_formed_and_its_versions_are_in_order(version):
    data = json.loads((ROOT / "data" / "statements.json").read_text(encoding="utf-8"))
    assert set(data) == {"about", "versions"}
    names = [v["version"] for v in data["versions"]]
    assert names[-1] == version and len(set(names)) == len(names)
    keys = [tuple(int(x) for x in v.split(".")) for v in names]
    assert keys == sorted(keys), f"ledger versions out of order: {names}"
    for entry in data["versions"]:
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in entry["statements"].values())
    # Written as `record` writes it, so recording again changes nothing.
    text = (ROOT / "data" / "statements.json").read_text(encoding="utf-8")
    assert statements.dumps(statements.load()) == text


def test_a_broken_ledger_is_refused(tmp_path):
    path = tmp_path / "statements.json"
    for text in (
        "{",
        '{"versions": {}}',
        '{"versions": [{"version": "1", "statements": {"1": "x"}}]}',
    ):
        path.write_text(text)
        with pytest.raises(statements.LedgerError):
            statements.load(path)
    twice = [statements.Version("1.0.0", {1: sha("a")})] * 2
    path.write_text(statements.dumps(twice))
    with pytest.raises(statements.LedgerError, match="twice"):
        statements.load(path)


def test_recording_replaces_the_current_entry_and_keeps_the_earlier_ones():
    old = statements.Version("0.1.0", {1: sha("a")})
    now = statements.Version("0.2.0", {1: sha("b")})
    assert statements.recorded([old, now], "0.2.0", {1: sha("c")}) == [
        old,
        statements.Version("0.2.0", {1: sha("c")}),
    ]
    assert statements.recorded([old], "0.2.0", {1: sha("c")})[0] == old


def test_the_record_command_refuses_other_arguments():
    done = subprocess.run(
        [sys.executable, "-m", "hooks.statements", "frobnicate"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "usage: python -m hooks.statements record" in done.stderr


# -- the notice on a page, with a synthetic ledger -----------------------------------


def synthetic_ledger(tmp_path: Path, version: str, earlier: dict[int, str]) -> Path:
    """A ledger with an earlier version ``0.0.1`` holding ``earlier``, then the current one."""
    path = tmp_path / "statements.json"
    versions = [
        statements.Version("0.0.1", earlier),
        statements.Version(version, statements.current(DOCS)),
    ]
    path.write_text(statements.dumps(versions), encoding="utf-8")
    return path


def block(entry, pin) -> str:
    return cite.cite_block(
        entry, site_url=SITE, version="0.1.0", date=DATE, note="record", pin=pin, base="../../"
    )


def test_the_changed_notice_appears_when_and_only_when_a_statement_changed(
    tmp_path, entries, version
):
    hashes = statements.current(DOCS)
    earlier = {**hashes, 1: sha("what Proposition 1 said before")}
    del earlier[3]  # Proposition 3 is new since 0.0.1: new is not changed
    ledger = synthetic_ledger(tmp_path, version, earlier)
    pin = cite.pinned(entries[1], DOCS, version, ledger)
    assert pin.statement == hashes[1] and [c.kind for c in pin.changes] == ["changed"]
    text = block(entries[1], pin)
    assert '!!! warning "Statement changed since corpus version 0.0.1"' in text
    assert f"`{earlier[1][:12]}` became `{hashes[1][:12]}`" in text
    assert "(../../history.md)" in text
    for n, kinds in ((2, []), (3, ["added"])):
        quiet = cite.pinned(entries[n], DOCS, version, ledger)
        assert [c.kind for c in quiet.changes] == kinds
        assert "Statement changed" not in block(entries[n], quiet)


def test_no_notice_with_the_real_ledger_when_nothing_changed(site_dir, entries, version):
    versions = statements.timeline(statements.load(), version, statements.current(DOCS))
    changed = {c.number for c in statements.changes(versions) if c.kind == "changed"}
    for n, entry in entries.items():
        page = (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
        assert ("Statement changed since corpus version" in page) == (n in changed), n


def test_a_statement_edited_on_its_page_shows_as_changed(tmp_path, entries, version):
    """The pin reads the page itself: edit the statement and the pin moves."""
    docs = tmp_path / "docs"
    page = docs / entries[8].page
    page.parent.mkdir(parents=True)
    source = (DOCS / entries[8].page).read_text(encoding="utf-8")
    page.write_text(source.replace("statement: |-\n", "statement: |-\n  Indeed,\n", 1))
    ledger = synthetic_ledger(tmp_path, "0.2.0", statements.current(DOCS))
    pin = cite.pinned(entries[8], docs, "0.2.0", ledger)
    assert pin.statement != statements.current(DOCS)[8]
    assert [(c.before, c.after) for c in pin.changes] == [("0.0.1", "0.2.0")]


# -- the Cite block and the exports carry the hash ---------------------------------


def test_every_cite_block_and_export_pins_the_ledger_hash(site_dir, entries, version):
    with open(ROOT / "mkdocs.yml") as f:
        site_url = yaml.load(f, Loader=yaml.BaseLoader)["site_url"]
    ledger = {v.version: v.statements for v in statements.load()}[version]
    exported = json.loads((site_dir / "propositions.json").read_text(encoding="utf-8"))
    assert {p["number"]: p["statement_sha256"] for p in exported["propositions"]} == ledger
    bib = (site_dir / "corpus.bib").read_text(encoding="utf-8")
    for n, entry in entries.items():
        page = (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
        text = entities.unescape(re.sub(r"<[^>]+>", "", page))
        assert f"Statement SHA-256: {ledger[n][:12]} (the first 12 hex digits" in text, n
        assert f"statement {ledger[n][:12]}. {cite.permalink(site_url, entry)}" in text, n
        assert f"statement SHA-256 {ledger[n][:12]}." in bib.split(f"@misc{{posenc:p{n},")[1]


# -- the history page --------------------------------------------------------------


def test_the_history_lists_a_synthetic_change_an_addition_and_a_removal(tmp_path, version):
    hashes = statements.current(DOCS)
    earlier = {**hashes, 1: sha("before")}
    del earlier[3]
    earlier[99] = sha("a proposition that went")
    ledger = synthetic_ledger(tmp_path, version, earlier)
    text = cite.history_block(DOCS, version, "", ledger)
    assert f"### Version {version}, since 0.0.1" in text
    page = statements.pages(DOCS)
    assert (
        f"[Proposition 1]({page[1]}): changed, `{earlier[1][:12]}` became `{hashes[1][:12]}`"
        in text
    )
    assert f"[Proposition 3]({page[3]}): new, `{hashes[3][:12]}`" in text
    assert f"Proposition 99: no longer in the corpus (was `{earlier[99][:12]}`)" in text
    assert "Proposition 2]" not in text and "No statement has changed" not in text
    assert f"| 0.0.1 | {len(earlier)} |" in text
    assert f"| {version} (this build) | {len(hashes)} |" in text


def test_the_history_says_so_when_nothing_changed(tmp_path, version):
    ledger = synthetic_ledger(tmp_path, version, statements.current(DOCS))
    text = cite.history_block(DOCS, version, "", ledger)
    assert (
        f"No statement has changed between the corpus versions of the ledger (0.0.1, {version})."
        in text
    )
    assert "###" not in text


def test_the_built_history_page_matches_the_ledger(site_dir, version):
    page = (site_dir / "history" / "index.html").read_text(encoding="utf-8")
    text = entities.unescape(re.sub(r"<[^>]+>", " ", page))
    text = " ".join(text.split())
    versions = statements.timeline(statements.load(), version, statements.current(DOCS))
    for v in versions:
        assert (
            f"{v.version}{' (this build)' if v is versions[-1] else ''} {len(v.statements)}"
            in text
        )
    found = statements.changes(versions)
    assert ("No statement has changed" in text) == (not found)
    for change in found:
        assert f"Proposition {change.number}" in text


def test_the_history_page_is_in_the_nav_after_how_to_cite():
    with open(ROOT / "mkdocs.yml") as f:
        nav = yaml.load(f, Loader=yaml.BaseLoader)["nav"]
    pages = [next(iter(item.values())) for item in nav if isinstance(item, dict)]
    where = pages.index("cite.md")
    assert pages[where + 1] == "history.md"


def test_the_notice_renders_as_a_warning_with_its_list(tmp_path, entries, version):
    import markdown

    earlier = {**statements.current(DOCS), 1: sha("before")}
    pin = cite.pinned(entries[1], DOCS, version, synthetic_ledger(tmp_path, version, earlier))
    out = markdown.markdown(
        cite.changed_notice(entries[1], pin.changes, ""), extensions=["admonition"]
    )
    assert out.startswith('<div class="admonition warning">')
    assert "<li>from version 0.0.1 to" in out and '<a href="history.md">' in out


def test_how_to_cite_says_how_many_hex_digits_are_shown():
    text = " ".join((DOCS / "cite.md").read_text(encoding="utf-8").split())
    assert f"show the first {statements.SHORT} hex digits" in text
