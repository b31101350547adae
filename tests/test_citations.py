"""Citing one proposition: permanent links, BibTeX, the JSON export, the graph, CITATION.cff."""

from __future__ import annotations

import html as entities
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml
from _bib import parse_bibtex, unescape

from hooks import blocks, graph, registry

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def entries():
    return registry.load(ROOT / "docs", ROOT)


@pytest.fixture(scope="module")
def site_url() -> str:
    with open(ROOT / "mkdocs.yml") as f:
        return yaml.load(f, Loader=yaml.BaseLoader)["site_url"]


@pytest.fixture(scope="module")
def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def code_blocks(page_html: str, title: str) -> list[str]:
    """The text of every code block whose title is ``title`` (tags dropped)."""
    found = re.findall(
        rf'<span class="filename">{re.escape(title)}</span>.*?<code>(.*?)</code>', page_html, re.S
    )
    return [entities.unescape(re.sub(r"<[^>]+>", "", block)) for block in found]


def test_every_permanent_link_resolves(site_dir, entries):
    for n, entry in entries.items():
        stub = (site_dir / "p" / str(n) / "index.html").read_text()
        target = re.search(r'url=([^"]+)"', stub).group(1)
        landing = (site_dir / "p" / str(n) / target).resolve()
        assert landing == (site_dir / entry.url).resolve()
        assert (landing / "index.html").is_file()


def test_cite_block_bibtex_parses_and_names_link_version_and_record(
    site_dir, entries, site_url, version
):
    report = json.loads((site_dir / "propositions.json").read_text())
    by_number = {p["number"]: p for p in report["propositions"]}
    for n, entry in entries.items():
        page = (site_dir / entry.url / "index.html").read_text()
        [bib] = code_blocks(page, "BibTeX")
        kind, key, fields = parse_bibtex(bib)
        assert (kind, key) == ("misc", f"posenc:p{n}")
        assert fields["url"] == f"{site_url}p/{n}/"
        assert fields["version"] == version
        assert unescape(fields["title"]) == f"Proposition {n}: {entry.title}"
        record = by_number[n]["proof"]
        assert record["sha256"][:16] in fields["note"]
        assert f"SymPy {record['versions']['sympy']}" in fields["note"]
        [plain] = code_blocks(page, "Plain text")
        assert f"Proposition {n}: {entry.title}" in plain and f"{site_url}p/{n}/" in plain
        [link] = code_blocks(page, "Permanent link")
        assert link.strip() == f"{site_url}p/{n}/"


def test_corpus_bib_holds_every_proposition_and_the_corpus(site_dir, entries):
    text = (site_dir / "corpus.bib").read_text()
    first, *rest = text.split("\n\n@")
    chunks = [first, *("@" + c for c in rest)]
    keys = [parse_bibtex(c)[1] for c in chunks]
    assert keys == ["posenc:corpus", *(f"posenc:p{n}" for n in entries)]


def test_propositions_json_validates_against_its_schema(site_dir, entries):
    data = json.loads((site_dir / "propositions.json").read_text())
    schema = json.loads((site_dir / "propositions.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(
        data, schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    assert [p["number"] for p in data["propositions"]] == list(entries)
    for record in data["propositions"]:
        entry = entries[record["number"]]
        assert record["uses"] == list(entry.uses) and record["used_by"] == list(entry.used_by)
        if entry.retired is None:
            assert record["status"] == "verified with all dependencies"
            assert record["checks"] and all(c["passed"] for c in record["checks"])
            assert record["misreadings"] and all(m["refuted"] for m in record["misreadings"])


def test_the_schema_rejects_a_broken_record(site_dir):
    data = json.loads((site_dir / "propositions.json").read_text())
    schema = json.loads((site_dir / "propositions.schema.json").read_text())
    data["propositions"][0]["checks"][0]["kind"] = "vibes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_depends_on_and_used_by_match_the_registry(site_dir, entries):
    for entry in entries.values():
        page = (site_dir / entry.url / "index.html").read_text()
        for label, numbers in (("Depends on:", entry.uses), ("Used by:", entry.used_by)):
            para = re.search(rf"<strong>{label}</strong>(.*?)</p>", page, re.S).group(1)
            linked = [int(n) for n in re.findall(r">Proposition (\d+) \(", para)]
            assert linked == list(numbers), (entry.number, label)


def test_the_graph_links_every_proposition(site_dir, entries):
    page = (site_dir / "graph" / "index.html").read_text()
    hrefs = re.findall(r'<a href="([^"]+)" class="posenc-graph-node', page)
    assert len(hrefs) == len(entries)
    for href, entry in zip(hrefs, entries.values(), strict=True):
        assert (site_dir / "graph" / href / "index.html").resolve() == (
            site_dir / entry.url / "index.html"
        ).resolve()


def test_graph_layout_puts_each_proposition_right_of_what_it_uses(entries):
    places = graph.layout(entries)
    for entry in entries.values():
        for used in entry.uses:
            assert places[used][0] < places[entry.number][0]


def test_a_retired_number_keeps_a_page_saying_what_replaced_it(tmp_path, entries):
    docs = tmp_path / "docs" / "propositions"
    docs.mkdir(parents=True)
    (tmp_path / "proofs").mkdir()
    (docs / "p01-old.md").write_text(
        "---\nnumber: 1\ntitle: An old claim\nstatement: Something.\n"
        "retired: {replaced_by: 2, why: It was merged into Proposition 2.}\n---\n# x\n"
    )
    (docs / "p02-new.md").write_text(
        "---\nnumber: 2\ntitle: The new claim\nstatement: Better.\nproof: proofs/p02_new.py\n---\n"
    )
    (tmp_path / "proofs" / "p02_new.py").write_text("NUMBER = 2\n")
    found = registry.load(tmp_path / "docs", tmp_path)
    assert found[1].retired and found[1].proof is None
    notice = blocks.retired_notice(found[1], found, "../")
    assert "Proposition 1 is retired" in notice and "never reused" in notice
    assert "[Proposition 2 (The new claim)](../propositions/p02-new.md)" in notice
    assert blocks.status(found[1], {}, found) == "retired"


def test_citation_cff_is_valid_and_agrees_with_the_project(site_url, version):
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert cff[key], key
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert cff["version"] == version
    assert cff["url"] == site_url
    allowed = {
        "cff-version",
        "message",
        "type",
        "title",
        "abstract",
        "authors",
        "version",
        "license",
        "url",
        "keywords",
        "doi",
        "date-released",
        "repository-code",
        "preferred-citation",
    }
    assert set(cff) <= allowed, set(cff) - allowed


def test_print_page_holds_the_whole_corpus(site_dir, entries):
    page = (site_dir / "propositions" / "all" / "index.html").read_text()
    for n, entry in entries.items():
        assert f'id="proposition-{n}"' in page
        text = entities.unescape(re.sub(r"<[^>]+>", "", page))  # glossary tooltips are tags
        assert f"Proposition {n} ({entry.title})" in text
    details = re.findall(r"<details\b[^>]*>", page)
    assert details and all("open" in tag for tag in details), "every block is open for print"


# A minute of printing: kept out of make test's five minutes, run by make slow (CI).
@pytest.mark.slow
@pytest.mark.browser
def test_make_pdf_writes_the_corpus(site_dir, tmp_path):
    # As `make pdf` runs it: its own process (and its own Playwright).
    out = tmp_path / "corpus.pdf"
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "print_pdf.py"), str(site_dir), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and len(data) > 100_000
    assert data.count(b"/Type /Page") + data.count(b"/Type/Page") >= 10


_META = re.compile(r'<meta name="(citation_[a-z_]+)" content="([^"]*)">')


def test_every_proposition_page_has_the_four_scholar_tags(site_dir, entries, site_url):
    """Highwire tags, as Google Scholar and Zotero read them, parsed from the built HTML."""
    for n, entry in entries.items():
        page = (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
        head = page.split("</head>", 1)[0]
        tags = [(name, entities.unescape(value)) for name, value in _META.findall(head)]
        names = [name for name, _ in tags]
        assert names == [
            "citation_title",
            "citation_author",
            "citation_publication_date",
            "citation_public_url",
        ], f"Proposition {n}: {names}"
        found = dict(tags)
        assert found["citation_title"] == f"Proposition {n}: {entry.title}"
        assert found["citation_author"] == "The posenc authors"
        assert re.fullmatch(r"\d{4}/\d{2}/\d{2}", found["citation_publication_date"])
        # The date is the sources' date: its year is the year the BibTeX cites.
        [bib] = code_blocks(page, "BibTeX")
        year = parse_bibtex(bib)[2]["year"]
        assert found["citation_publication_date"][:4] == year, f"Proposition {n}"
        url = found["citation_public_url"]
        assert url == site_url.rstrip("/") + "/" + entry.permalink
        stub = site_dir / url.removeprefix(site_url.rstrip("/") + "/") / "index.html"
        assert stub.is_file(), f"Proposition {n}: {url} is not a page of the site"


def test_other_pages_carry_no_scholar_tags(site_dir, entries):
    own = {(site_dir / e.url / "index.html").resolve() for e in entries.values()}
    tagged = [
        path.relative_to(site_dir).as_posix()
        for path in site_dir.rglob("*.html")
        if path.resolve() not in own and _META.search(path.read_text(encoding="utf-8"))
    ]
    assert not tagged, f"citation tags on pages that are not a proposition: {tagged[:5]}"


# -- CSL-JSON --------------------------------------------------------------------

#: The fields of a proposition's CSL item, and of the corpus's (no container, no note).
CSL_FIELDS = {
    "id",
    "type",
    "title",
    "author",
    "container-title",
    "issued",
    "URL",
    "version",
    "note",
}
CORPUS_FIELDS = CSL_FIELDS - {"container-title", "note"}


NAME_PARTS = {"literal", "family", "given", "suffix", "dropping-particle", "non-dropping-particle"}


def csl_problems(item: dict) -> list[str]:
    """What in a CSL item is not CSL: its variables, names and dates, by citeproc-py's lists.

    No installable package ships the current csl-data.json schema, so the
    vocabulary is the one of a CSL processor (citeproc-py), and the structure of
    names and dates is the one the CSL-JSON schema gives them.
    """
    import citeproc
    from citeproc import types as csl_types

    found = []
    kinds = {v for k, v in vars(csl_types).items() if k.isupper()}
    if item.get("type") not in kinds:
        found.append(f"type {item.get('type')!r} is not a CSL item type")
    if not isinstance(item.get("id"), str | int):
        found.append("no id")
    for key, value in item.items():
        name = key.replace("-", "_")
        if key in ("id", "type"):
            continue
        if name not in citeproc.VARIABLES:
            found.append(f"{key!r} is not a CSL variable")
        elif name in citeproc.NAMES:
            if not (
                isinstance(value, list)
                and value
                and all(
                    isinstance(n, dict) and set(n) <= {"literal", "family", "given"} for n in value
                )
            ):
                found.append(f"{key}: not a list of names")
        elif name in citeproc.DATES:
            parts = value.get("date-parts") if isinstance(value, dict) else None
            if not (
                isinstance(parts, list)
                and 1 <= len(parts) <= 2
                and all(
                    isinstance(p, list) and 1 <= len(p) <= 3 and all(type(x) is int for x in p)
                    for p in parts
                )
            ):
                found.append(f"{key}: not a date with date-parts")
        elif not isinstance(value, str):
            found.append(f"{key}: a CSL string variable must be a string, got {value!r}")
    return found


def test_the_csl_check_finds_what_is_not_csl():
    good = {"id": "x", "type": "webpage", "title": "T", "issued": {"date-parts": [[2026, 1, 2]]}}
    assert csl_problems(good) == []
    assert csl_problems({**good, "type": "proposition"})
    assert csl_problems({**good, "url": "https://example.org/"})  # the variable is URL
    assert csl_problems({**good, "issued": {"date-parts": [["2026"]]}})
    assert csl_problems({**good, "author": ["The posenc authors"]})
    assert csl_problems({**good, "version": 1})


def test_csl_json_of_every_proposition_agrees_with_registry_bibtex_and_file(
    site_dir, entries, site_url, version
):
    exported = json.loads((site_dir / "propositions.json").read_text())
    report = {p["number"]: p for p in exported["propositions"]}
    corpus = (site_dir / "corpus.bib").read_text().split("\n\n@")[0]
    corpus_title = unescape(parse_bibtex(corpus)[2]["title"])
    for n, entry in entries.items():
        page = (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
        [bib] = code_blocks(page, "BibTeX")
        _, key, fields = parse_bibtex(bib)
        [block] = code_blocks(page, "CSL-JSON")
        items = json.loads(block)
        published = json.loads((site_dir / "cite" / f"p{n}.csl.json").read_text(encoding="utf-8"))
        assert items == published, f"Proposition {n}: the page and cite/p{n}.csl.json differ"
        [item] = items
        assert set(item) == CSL_FIELDS and csl_problems(item) == [], f"Proposition {n}"
        assert item["type"] == "webpage" and item["id"] == key == f"posenc:p{n}"
        assert item["title"] == unescape(fields["title"]) == f"Proposition {n}: {entry.title}"
        assert item["author"] == [{"literal": fields["author"].strip("{}")}]
        assert item["container-title"] == corpus_title
        [[year, month, day]] = item["issued"]["date-parts"]
        assert str(year) == fields["year"]
        date = dict(_META.findall(page.split("</head>", 1)[0]))["citation_publication_date"]
        assert (year, month, day) == tuple(int(x) for x in date.split("/"))
        assert item["URL"] == fields["url"] == f"{site_url}p/{n}/"
        assert item["version"] == fields["version"] == version
        pinned = report[n]["statement_sha256"][:12]
        assert f"Statement SHA-256 {pinned}." in item["note"]
        assert f"statement SHA-256 {pinned}." in fields["note"]
        assert report[n]["proof"]["sha256"][:16] in item["note"]


def test_corpus_csl_json_holds_the_corpus_then_every_proposition(site_dir, entries):
    items = json.loads((site_dir / "corpus.csl.json").read_text(encoding="utf-8"))
    assert [i["id"] for i in items] == ["posenc:corpus", *(f"posenc:p{n}" for n in entries)]
    corpus, *rest = items
    assert set(corpus) == CORPUS_FIELDS and csl_problems(corpus) == []
    _, _, fields = parse_bibtex((site_dir / "corpus.bib").read_text().split("\n\n@")[0])
    assert corpus["title"] == unescape(fields["title"]) and corpus["URL"] == fields["url"]
    assert str(corpus["issued"]["date-parts"][0][0]) == fields["year"]
    assert corpus["version"] == fields["version"]
    for n, item in zip(entries, rest, strict=True):
        [single] = json.loads((site_dir / "cite" / f"p{n}.csl.json").read_text(encoding="utf-8"))
        assert item == single


def test_a_csl_processor_formats_every_item(site_dir, entries):
    """citeproc-py reads corpus.csl.json and formats it in the style it ships."""
    from pathlib import Path as P

    import citeproc
    from citeproc import Citation, CitationItem, formatter
    from citeproc.source.json import CiteProcJSON

    items = json.loads((site_dir / "corpus.csl.json").read_text(encoding="utf-8"))
    style = citeproc.CitationStylesStyle(
        str(P(citeproc.STYLES_PATH) / "harvard-cite-them-right.csl"), validate=False
    )
    bibliography = citeproc.CitationStylesBibliography(style, CiteProcJSON(items), formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    shown = [str(line) for line in bibliography.bibliography()]
    assert len(shown) == len(items)
    for item in items:
        [line] = [s for s in shown if s.endswith(f"Available at: {item['URL']}.")]
        year = str(item["issued"]["date-parts"][0][0])
        assert item["title"] in line and f"({year})" in line, line
        assert line.startswith("The posenc authors"), line
