"""The build under hostile input: bad front matter, KaTeX errors, raw-HTML links, escaping.

Each class of input has one end-to-end strict build of a copy of the project
(the proof results come from the copied cache, so no proof runs again); the
many variants of a class are checked by calling the function that decides
(the registry, the link checker, the blocks) directly. What a build prints
must name the page and the field, and never hold a Python traceback.

Modules that are new with these checks (hooks.escape, hooks.links) are
imported inside the tests that use them, so that each test fails on its own
where they are missing.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from hooks import blocks, graph, registry, svg
from hooks import cache as build_cache
from tools.project import PROOF_CACHE, copy_project

ROOT = Path(__file__).resolve().parent.parent
PAGE = "propositions/p08-shift-is-rotation.md"
EPOCH = "1767225600"
HOSTILE = 'Order <script>alert(1)</script> & "quotes"'


# -- helpers ------------------------------------------------------------------------


def _copy_project(dest: Path, cache: Path | None = None) -> Path:
    """What a build reads, copied, with a proof cache (``cache``, else the repository's).

    The copy gets the repository's build cache too: these builds test what a
    broken or hostile source does, not the drawing of the figures (a cold build
    is tests/test_reproducible.py's).
    """
    return copy_project(dest, cache or PROOF_CACHE, build_cache=build_cache.directory(ROOT))


@pytest.fixture(scope="module")
def proof_cache(tmp_path_factory) -> Path:
    """Proof results for the sources as they are now: the builds below only read them.

    The repository's cache is reused where it is current; otherwise the proofs
    run here once, instead of once in every build.
    """
    template = _copy_project(tmp_path_factory.mktemp("template") / "project")
    done = subprocess.run(
        [sys.executable, "-m", "proofs"],
        cwd=template,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return template / ".cache" / "proofs"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer holds {old!r}: update this test"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _build(project: Path, site: Path) -> tuple[int, str]:
    """Run a strict build; (exit status, everything it printed)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        # Not --quiet: it silences warnings, and then --strict does not count them.
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    return done.returncode, done.stdout + done.stderr


def _line(path: Path, text: str) -> int:
    """The first line of ``path`` holding ``text`` (1-based)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


class _Element:
    """A tag, its attributes, and all the text inside it (joined when first read)."""

    __slots__ = ("_chunks", "_end", "_start", "_text", "attrs", "tag")

    def __init__(self, tag: str, attrs: dict[str, str], chunks: list[str] | None = None):
        self.tag, self.attrs = tag, attrs
        self._chunks, self._text = chunks, "" if chunks is None else None
        self._start = self._end = len(chunks) if chunks is not None else 0

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self._chunks[self._start : self._end])
        return self._text


class _Collect(HTMLParser):
    """Every element of a page with its attributes and all the text inside it.

    The text of an element is every piece of data met while it was open. The
    pieces are kept once, in one list, and each element notes where its own run
    of them starts and ends: adding each piece to every open element's string
    made the printable page (a few MB, some 200 000 elements) take minutes.
    """

    VOID = frozenset(
        {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[_Element] = []
        self.open: list[_Element] = []
        self.chunks: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = {k: v or "" for k, v in attrs}
        if tag in self.VOID:
            self.elements.append(_Element(tag, attrs))
            return
        element = _Element(tag, attrs, self.chunks)
        self.elements.append(element)
        self.open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.elements.append(_Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i].tag == tag:
                for element in self.open[i:]:
                    element._end = len(self.chunks)
                del self.open[i:]
                break

    def handle_data(self, data):
        if self.open:  # text outside every element belongs to none
            self.chunks.append(data)

    def close(self) -> None:
        super().close()
        for element in self.open:  # never closed: everything to the end is inside it
            element._end = len(self.chunks)
        self.open.clear()


@functools.lru_cache(maxsize=16)
def elements(page_html: str) -> list[_Element]:
    parser = _Collect()
    parser.feed(page_html)
    parser.close()
    return parser.elements


def texts(page_html: str, tag: str, **attrs: str) -> list[str]:
    """The text of each ``tag`` whose attributes include ``attrs`` (class: one of them)."""
    found = []
    for e in elements(page_html):
        if e.tag != tag:
            continue
        if all(
            v in e.attrs.get("class", "").split() if k == "class_" else e.attrs.get(k) == v
            for k, v in attrs.items()
        ):
            found.append(" ".join(e.text.split()))
    return found


def no_live_markup(page_html: str, where: str) -> None:
    """No script element that a hostile text wrote, and no event-handler attribute."""
    for e in elements(page_html):
        assert not (e.tag == "script" and "alert(" in e.text), f"{where}: live <script>"
        handlers = [a for a in e.attrs if a.startswith("on")]
        assert not handlers, f"{where}: <{e.tag}> has event handler(s) {handlers}"
        assert e.tag not in ("b", "x-hostile"), f"{where}: <{e.tag}> from a plain text"


@pytest.fixture(scope="module")
def to_html():
    """Markdown to HTML with the site's own extensions and settings (mkdocs.yml)."""
    import markdown
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    configs = {**config["mdx_configs"]}
    configs["pymdownx.snippets"] = {**configs["pymdownx.snippets"], "base_path": [str(ROOT)]}

    def convert(source: str) -> str:
        return markdown.Markdown(
            extensions=config["markdown_extensions"], extension_configs=configs
        ).convert(source)

    return convert


def _entry(**changes) -> registry.Proposition:
    fields = {
        "number": 5,
        "title": HOSTILE,
        "slug": "bank-of-clocks",
        "page": "propositions/p05-bank-of-clocks.md",
        "statement": "Some $x$.",
        "uses": (),
        "proof": "proofs/p05_bank_of_clocks.py",
        "figures": (),
        "sources": (),
    }
    return registry.Proposition(**{**fields, **changes})


# -- front matter: the registry, case by case -------------------------------------------


def _top(key: str) -> str:
    """A top-level field of the front matter with its indented continuation lines."""
    return rf"(?m)^{key}:.*\n(?:(?:[ \t].*)?\n)*?(?=\S)"


ALT_BLOCK = r"(?m)^    alt: >-\n(?:      .*\n)+"
FRONT_MATTER_CASES = {
    # name: (what to replace, by what, the field named, what the message says)
    "uses a number": (_top("uses"), "uses: 5\n", "uses", "got the number 5"),
    "uses a text": (_top("uses"), 'uses: "P3"\n', "uses", "got the text 'P3'"),
    "uses a boolean": (_top("uses"), "uses: [true]\n", "uses", "list of smaller"),
    "uses itself": (_top("uses"), "uses: [5, 8]\n", "uses", "its own number"),
    "number a text": (_top("number"), 'number: "x"\n', "number", "got the text 'x'"),
    "number yes": (_top("number"), "number: yes\n", "number", "the boolean true"),
    "title a list": (_top("title"), "title: [1]\n", "title", "got a list [1]"),
    "title two lines": (_top("title"), "title: |\n  A shift\n  twice\n", "title", "one line"),
    "statement a number": (_top("statement"), "statement: 5\n", "statement", "got the number"),
    "figures a text": (_top("figures"), "figures: fig_x\n", "figures", "got the text"),
    "alt a number": (ALT_BLOCK, "    alt: 3\n", "figures", "alt must be plain text"),
    "figure without alt": (ALT_BLOCK, "", "figures", "has no alt text"),
    "retired yes": (_top("uses"), "uses: [5]\nretired: yes\n", "retired", "the boolean true"),
    "retired a date": (_top("uses"), "uses: [5]\nretired: 2026-01-01\n", "retired", "the date"),
    "retired empty": (_top("uses"), "uses: [5]\nretired:\n", "retired", "got nothing"),
    "retired unknown key": (
        _top("uses"),
        "uses: [5]\nretired: {replaced_by: 9, because: merged}\n",
        "retired",
        "unknown key(s) because",
    ),
    "a misspelt field": (_top("uses"), "usess: [5]\n", "usess", "did you mean 'uses'"),
    "sources a text": (_top("sources"), "sources: vaswani2017\n", "sources", "got the text"),
}


def _replace(path: Path, pattern: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    changed, found = re.subn(pattern, lambda _: new, text, count=1)
    assert found, f"{path.name} no longer matches {pattern!r}: update this test"
    path.write_text(changed, encoding="utf-8")


@pytest.fixture
def propositions(tmp_path: Path) -> Path:
    """A copy of the proposition pages and the proofs; returns its docs directory."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs" / "propositions", docs / "propositions")
    shutil.copytree(ROOT / "proofs", tmp_path / "proofs")
    return docs


@pytest.mark.parametrize("case", sorted(FRONT_MATTER_CASES))
def test_bad_front_matter_names_page_line_and_field(propositions: Path, case: str):
    pattern, new, field, says = FRONT_MATTER_CASES[case]
    page = propositions / PAGE
    _replace(page, pattern, new)
    with pytest.raises(registry.RegistryError) as caught:
        registry.load(propositions, propositions.parent)
    message = str(caught.value)
    # The first problem names the page, the line of its field, and the field.
    first = message.splitlines()[0]
    assert re.match(rf"{re.escape(PAGE)}:\d+: \w+: ", first), message
    if field:
        line = _line(page, f"{field}:")
        assert f"{PAGE}:{line}: {field}: " in message, message
    assert says in message, message


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("title: A shift is a rotation", 'title: "A shift is a rotation', "not valid YAML"),
        ("  - name: fig_shift_rotation", "\t- name: fig_shift_rotation", "never tabs"),
        ("uses: [5]", "uses: [5]\nuses: []", "'uses' is given twice"),
        ("  - name: fig_shift_rotation", "  - name: fig_a\n    name: fig_b", "'name' is given"),
    ],
    ids=["unclosed quote", "tab indentation", "a key twice", "a nested key twice"],
)
def test_broken_yaml_names_page_and_line(propositions: Path, old: str, new: str, says: str):
    page = propositions / PAGE
    _edit(page, old, new)
    with pytest.raises(registry.RegistryError) as caught:
        registry.load(propositions, propositions.parent)
    assert re.search(rf"{re.escape(PAGE)}:\d+: .*{re.escape(says)}", str(caught.value))


def test_front_matter_that_is_not_a_mapping_is_named(propositions: Path):
    page = propositions / PAGE
    page.write_text("---\n- 8\n- A shift is a rotation\n---\n\n# A shift is a rotation\n")
    with pytest.raises(registry.RegistryError, match=rf"{re.escape(PAGE)}:2: .*must be a mapping"):
        registry.load(propositions, propositions.parent)


def test_the_line_of_a_yaml_error_is_the_line_of_the_file(propositions: Path):
    page = propositions / PAGE
    _edit(page, "  - name: fig_shift_rotation", "\t- name: fig_shift_rotation")
    with pytest.raises(registry.RegistryError) as caught:
        registry.load(propositions, propositions.parent)
    assert f"{PAGE}:{_line(page, chr(9) + '- name')}:" in str(caught.value)


def test_every_problem_is_reported_at_once(propositions: Path):
    _edit(propositions / PAGE, "uses: [5]", "uses: 5")
    _edit(propositions / "propositions" / "p05-bank-of-clocks.md", "uses: []", "usess: []")
    _edit(
        propositions / "propositions" / "p03-causal-mask-leaks-order.md", "number: 3", "number: x"
    )
    with pytest.raises(registry.RegistryError) as caught:
        registry.load(propositions, propositions.parent)
    message = str(caught.value)
    assert all(s in message for s in ("p08-shift", "p05-bank", "p03-causal")), message


def test_a_retired_number_must_be_replaced_by_a_known_one(propositions: Path):
    page = propositions / "propositions" / "p14-floating-point.md"
    _edit(page, "uses: [", "retired: {replaced_by: 99, why: Merged.}\nuses: [")
    with pytest.raises(registry.RegistryError, match="replaced_by names unknown proposition 99"):
        registry.load(propositions, propositions.parent)


def test_a_page_that_is_not_utf8_is_named(propositions: Path):
    page = propositions / PAGE
    page.write_bytes(page.read_bytes().replace(b"A shift is a rotation", b"A shift \xff", 1))
    with pytest.raises(registry.RegistryError, match=rf"{re.escape(PAGE)}: is not UTF-8"):
        registry.load(propositions, propositions.parent)


def test_front_matter_of_any_page_is_checked_with_its_line():
    text = '---\ndescription: "unclosed\nsearch: {exclude: true}\n---\n\n# Page\n'
    with pytest.raises(registry.RegistryError, match=r"^graph\.md:\d: front matter is not valid"):
        registry.front_matter(text, "graph.md")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("  year: 2017\n", "", "lacks year"),
        ("  year: 2017\n", "  year: soon\n", "year must be a year"),
        ("url: https://arxiv.org/abs/1706.03762", "url: javascript:alert(1)", "url must be"),
        ("url: https://arxiv.org/abs/1706.03762", "url: https://a.org/x>y", "url must be"),
        ("title: Attention Is All You Need", "title: [1]", "title must be text"),
    ],
    ids=["no year", "year a text", "a script url", "an url that closes its <>", "title a list"],
)
def test_sources_are_checked_with_key_and_line(tmp_path: Path, old: str, new: str, says: str):
    path = tmp_path / "sources.yml"
    shutil.copy(ROOT / "docs" / "sources.yml", path)
    _edit(path, old, new)
    with pytest.raises(registry.RegistryError) as caught:
        registry.load_sources(path)
    assert re.search(rf"sources\.yml:\d+: vaswani2017: .*{re.escape(says)}", str(caught.value))


def test_an_unknown_figure_function_stops_the_build():
    from mkdocs.exceptions import PluginError

    from hooks import mkdocs_hooks

    entry = _entry(figures=(registry.Figure("fig_no_such_figure", "Alt."),))
    with pytest.raises(PluginError, match=r"p05-bank-of-clocks\.md: figures: fig_no_such_figure"):
        mkdocs_hooks._check_figures({5: entry})


def test_a_title_heading_that_differs_from_the_title_is_an_error():
    with pytest.raises(blocks.BlockError, match=r"p05-bank-of-clocks\.md: .*'# The bank"):
        blocks.numbered_title("# Bank of clocks\n", _entry(title="The bank of clocks"))


def test_an_unknown_marker_is_an_error_naming_it():
    with pytest.raises(blocks.BlockError, match="posenc:chekcs"):
        blocks.fill("<!-- posenc:chekcs -->\n", {"checks": ""})


# -- front matter: whole builds ---------------------------------------------------------


@pytest.mark.build
def test_bad_front_matter_stops_the_build_naming_every_page_and_field(tmp_path: Path):
    project = _copy_project(tmp_path / "project")
    props = project / "docs" / "propositions"
    _edit(props / "p08-shift-is-rotation.md", "uses: [5]", "uses: 5")
    _edit(props / "p05-bank-of-clocks.md", "uses: []", "uses: []\nretired: yes")
    _edit(props / "p04-dog-bites-man.md", "    alt: >-", "    caption: >-")
    _edit(props / "p06-ladder-ends-one-rung-short.md", "title: ", "titel: ")
    code, out = _build(project, tmp_path / "site")
    assert code != 0
    assert "Traceback" not in out, out
    for page, field in (
        ("p08-shift-is-rotation.md", "uses"),
        ("p05-bank-of-clocks.md", "retired"),
        ("p04-dog-bites-man.md", "figures"),
        ("p06-ladder-ends-one-rung-short.md", "titel"),
    ):
        assert re.search(rf"propositions/{re.escape(page)}:\d+: {field}: ", out), out
    assert not (tmp_path / "site" / "index.html").exists()


@pytest.mark.build
def test_broken_yaml_on_any_page_stops_the_build(tmp_path: Path):
    """MkDocs alone would show the broken front matter as the page's text."""
    project = _copy_project(tmp_path / "project")
    page = project / "docs" / "graph.md"
    _edit(page, "description: >-\n", 'description: "unclosed\n')
    code, out = _build(project, tmp_path / "site")
    assert code != 0
    assert "Traceback" not in out, out
    assert re.search(r"graph\.md:\d+: front matter is not valid YAML", out), out


# -- KaTeX errors name the page the formula was written on ----------------------------------


def test_a_katex_error_on_the_printable_page_names_its_source_page():
    from hooks import katex, mkdocs_hooks

    page_html = (
        "<h1>All</h1><!-- posenc-source: propositions/p04-dog-bites-man.md -->\n<p>fine</p>"
        "<!-- posenc-source: propositions/p08-shift-is-rotation.md -->\n"
        '<p>x <span class="arithmatex">\\(\\notamacro k\\)</span></p>'
    )
    error = katex.KatexError("\\notamacro k", "Undefined control sequence")
    error.position = page_html.index('<span class="arithmatex">')
    build = SimpleNamespace(docs=str(ROOT / "docs"))
    message = mkdocs_hooks._katex_message(error, page_html, "propositions/all.md", build)
    assert message.startswith("propositions/p08-shift-is-rotation.md")
    assert "Undefined control sequence" in message and "printable page" in message


def test_render_math_in_html_says_where_the_formula_is():
    from hooks import katex

    page_html = '<p>one</p><p><span class="arithmatex">\\(\\notamacro\\)</span></p>'
    with katex.KatexRenderer(root=ROOT) as renderer:
        with pytest.raises(katex.KatexError) as caught:
            katex.render_math_in_html(page_html, renderer)
    assert caught.value.position == page_html.index("<span")


@pytest.mark.build
def test_a_tex_error_stops_the_build_naming_page_and_line(tmp_path: Path, proof_cache: Path):
    project = _copy_project(tmp_path / "project", proof_cache)
    page = project / "docs" / PAGE
    _edit(page, "## Intuition\n", "## Intuition\n\nA broken formula: $\\notamacro k$.\n")
    code, out = _build(project, tmp_path / "site")
    assert code != 0
    assert "Traceback" not in out, out
    line = _line(page, "notamacro")
    assert f"{PAGE}:{line}: KaTeX cannot render" in out, out
    assert "propositions/all.md: KaTeX" not in out, out


# -- links written as raw HTML --------------------------------------------------------------


def _site(tmp_path: Path, pages: dict[str, str], files: tuple[str, ...] = ()) -> Path:
    site = tmp_path / "site"
    for name, body in pages.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(f"<!doctype html><html><body>{body}</body></html>")
    for name in files:
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("x")
    return site


def test_raw_html_links_are_checked(tmp_path: Path):
    from hooks import links

    site = _site(
        tmp_path,
        {
            "index.html": '<h2 id="top">Top</h2><a href="a/">a</a><a href="a/#sec">sec</a>',
            "a/index.html": (
                '<p id="sec">A</p>'
                '<a href="missing.md">1</a>'
                '<a href="../nope/">2</a>'
                '<img src="../figures/nope.svg" alt="3">'
                '<a href="#nope">4</a>'
                '<a href="../#nope">5</a>'
                "<a href='../../outside/'>6</a>"
                '<a href="../index.html#top">fine</a><a href="#sec">fine</a>'
                '<img src="../figures/x.svg" alt="fine"><a href="../figures/x.svg#any">fine</a>'
                '<a href="https://example.org/none">external</a><a href="mailto:a@b.c">mail</a>'
                '<a href="?q=1&amp;r=2#sec">fine</a><a href="../a">fine</a>'
                "<!-- <a href='commented.html'>not a link</a> -->"
                '<script>var s = "<a href=\\"in-a-script.html\\">";</script>'
            ),
        },
        files=("figures/x.svg",),
    )
    broken = links.check_site(site, "https://example.org/")
    found = {(b.page, b.link) for b in broken}
    assert found == {
        ("a/index.html", "missing.md"),
        ("a/index.html", "../nope/"),
        ("a/index.html", "../figures/nope.svg"),
        ("a/index.html", "#nope"),
        ("a/index.html", "../#nope"),
        ("a/index.html", "../../outside/"),
    }
    said = {b.link: str(b) for b in broken}
    assert "does not rewrite raw HTML links" in said["missing.md"]
    assert said["#nope"].startswith("a/index.html: link '#nope'") and "anchor" in said["#nope"]


def test_root_relative_links_follow_the_site_url(tmp_path: Path):
    from hooks import links

    site = _site(tmp_path, {"index.html": '<a href="/docs/a/">a</a><a href="/a/">b</a>'})
    (site / "a").mkdir()
    (site / "a" / "index.html").write_text("<p>a</p>")
    broken = links.check_site(site, "https://example.org/docs/")
    assert [(b.link, "outside the site's root" in b.why) for b in broken] == [("/a/", True)]


# -- escaping, block by block ----------------------------------------------------------


def test_generated_blocks_show_a_hostile_title_as_text(to_html):
    entry = _entry()
    other = _entry(number=8, slug="shift-is-rotation", page=PAGE, title="A shift", uses=(5,))
    entries = {5: entry, 8: other}
    retired = _entry(number=3, title="Old", retired={"replaced_by": 5, "why": 'Merged <b>"x"</b>'})
    pieces = {
        "heading": blocks.numbered_title(f"# {HOSTILE}\n", entry),
        "statement box": blocks.statement_box(entry),
        "relations": blocks.relations(entries[8], entries, "../"),
        "corpus table": blocks.corpus_table(entries, {}, ""),
        "retired notice": blocks.retired_notice(retired, entries, "../"),
    }
    for name, markdown in pieces.items():
        out = to_html(markdown)
        no_live_markup(out, name)
        assert HOSTILE in html.unescape(re.sub(r"<[^>]+>", "", out)), (name, out)
    notice = html.unescape(re.sub(r"<[^>]+>", "", to_html(pieces["retired notice"])))
    assert 'Merged <b>"x"</b>' in notice


def test_markup_characters_in_a_title_stay_text_but_math_renders(to_html):
    title = "a *b* _c_ `d` [e](f) | {: onclick=x} $x_i < y$"
    out = to_html(blocks.statement_box(_entry(title=title)))
    no_live_markup(out, "statement box")
    head = texts(out, "p", class_="admonition-title")[0]
    assert head.startswith("Proposition 5 (a *b* _c_ `d` [e](f) | {: onclick=x} ")
    assert '<span class="arithmatex">\\(x_i &lt; y\\)</span>' in out
    assert not [e.tag for e in elements(out) if e.tag in ("em", "strong", "code", "a")]


def test_a_table_cell_title_cannot_split_the_row(to_html):
    out = to_html(blocks.corpus_table({5: _entry(title="a | b $|x|$")}, {}, ""))
    cells = texts(out, "td")
    assert len(cells) == 5 and cells[1].startswith("a | b")


def test_the_reason_of_a_misreading_is_text_with_its_math_and_quantities(to_html):
    result = SimpleNamespace(
        misreadings=[
            {
                "claim": "c",
                "refuted": True,
                "kind": "exact",
                "counterexample": "w",
                "why": "the rung 2*pi*b, near $10^6$ it is {{ q_value }} <b>x</b>",
            }
        ]
    )
    markdown = blocks.misreadings_list(result)
    assert "$10^6$" in markdown and "{{ q_value }}" in markdown  # math, and a quantity to bind
    out = to_html(markdown)
    no_live_markup(out, "misreadings")
    assert "the rung 2*pi*b, near" in html.unescape(re.sub(r"<[^>]+>", "", out))
    assert '<span class="arithmatex">\\(10^6\\)</span>' in out


def test_sources_are_text(to_html):
    source = {
        "authors": "A. <b>Bold</b>",
        "title": "Attention *is* all",
        "venue": "V_x_",
        "year": 2017,
        "url": "https://e.org/",
    }
    out = to_html(blocks.sources_list(_entry(sources=("k",)), {"k": source}))
    no_live_markup(out, "sources")
    shown = html.unescape(re.sub(r"<[^>]+>", "", out))
    assert "A. <b>Bold</b> (2017). Attention *is* all. V_x_." in shown


def test_figure_alt_text_is_text(to_html):
    figure = registry.Figure("fig_x", 'A [clock] `bank` $x$ <script>alert(1)</script> "q"')
    markdown = blocks.figure_alts("![old](../figures/fig_x.svg)\n", _entry(figures=(figure,)))
    out = to_html(markdown)
    no_live_markup(out, "alt")
    (image,) = [e for e in elements(out) if e.tag == "img"]
    assert image.attrs["alt"] == figure.alt


def test_the_graph_is_not_read_as_markdown(to_html):
    entries = {5: _entry(title="The causal mask *and* PE"), 8: _entry(number=8, uses=(5,))}
    out = to_html(graph.block(entries, {5: "verified", 8: "verified"}, "../"))
    svg_part = out[out.index("<svg") : out.index("</svg>")]
    assert "<abbr" not in svg_part and "<em>" not in svg_part
    assert "*and*" in html.unescape(svg_part)


def test_the_redirect_page_keeps_its_tags_whatever_the_title():
    page = svg.redirect_page("../../propositions/p05-bank-of-clocks/", f"Proposition 5: {HOSTILE}")
    no_live_markup(page, "redirect")
    assert texts(page, "title") == [f"Proposition 5: {HOSTILE}"]
    assert texts(page, "a") == [f"Proposition 5: {HOSTILE}"]
    meta = {e.attrs.get("http-equiv") or e.attrs.get("name"): e.attrs for e in elements(page)}
    assert meta["refresh"]["content"] == "0; url=../../propositions/p05-bank-of-clocks/"
    assert meta["description"]["content"] == f"Permanent link to Proposition 5: {HOSTILE}."


# -- escaping and raw links: one whole hostile build ---------------------------------------

DESCRIPTION = 'Clocks " onmouseover="alert(2)" <x-hostile>'
ALT = 'Clocks <script>alert(3)</script> "in a [bank]"'
SOURCE_TITLE = "Attention <b>Is</b> *All* You Need"
RAW_LINKS = """
<p class="hostile-links">
<a href="missing.md">a</a>
<a href="../propositions/nope/">b</a>
<img src="../figures/nope.svg" alt="c">
<a href="#nope">d</a>
<a href="../propositions/p05-bank-of-clocks/#proposition-5">fine</a>
<a href="https://example.org/">external</a>
</p>
"""
BROKEN = ("missing.md", "../propositions/nope/", "../figures/nope.svg", "#nope")
#: Raw TeX and a list that fell apart, planted after the links (hooks/rawtex.py): a stray
#: dollar; a display written inside a list item with no blank lines around it, whose
#: dollar signs show; and item 4 of a list taken into item 3's text after a table.
RAW_TEX = """
The planted price is $5 and no formula.

1. *One.* The speed is
   $$\\theta' = \\theta / s,$$
   and so on.
2. *Two.* Second.
3. *Three.* The ranges:

     | head | range |
     |---|---|
     | a | 1 |

     For head a, the rest.
  4. *Four.* A part that fell out.
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, proof_cache: Path) -> tuple[int, str, Path]:
    """One strict build with a hostile title, description, alt text, source and raw links."""
    tmp = tmp_path_factory.mktemp("hostile")
    project = _copy_project(tmp / "project", proof_cache)
    docs = project / "docs"
    page = docs / "propositions" / "p05-bank-of-clocks.md"
    _replace(page, _top("title"), f"title: {_yaml_quoted(HOSTILE)}\n")
    _edit(page, "\n# The bank of clocks\n", f"\n# {HOSTILE}\n")
    _replace(page, _top("description"), f"description: {_yaml_quoted(DESCRIPTION)}\n")
    _replace(page, ALT_BLOCK, f"    alt: {_yaml_quoted(ALT)}\n")
    _edit(docs / "sources.yml", "title: Attention Is All You Need", f"title: {SOURCE_TITLE}")
    _edit(
        docs / "verify.md",
        "\n# Verify it yourself\n",
        "\n# Verify it yourself\n" + RAW_LINKS + RAW_TEX,
    )
    site = tmp / "site"
    code, out = _build(project, site)
    return code, out, site


def _yaml_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _read(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


@pytest.mark.build
def test_raw_html_links_fail_the_strict_build_naming_page_and_link(hostile):
    code, out, _ = hostile
    assert code != 0
    assert "Traceback" not in out, out
    named = re.findall(r"posenc: (\S+): link '([^']*)'", out)
    assert sorted(named) == sorted(("verify/index.html", link) for link in BROKEN), out
    assert f"Aborted with {4 + len(RAW_TEX_FOUND)} warnings in strict mode" in out, out


#: What the build must say of RAW_TEX: (line of verify.md, what), in the page's order.
RAW_TEX_FOUND = [
    ("The planted price is $5", "raw TeX shows as text: 'The planted price is $5"),
    ("$$\\theta' = \\theta / s,$$", "raw TeX shows as text: '"),
    ("$$\\theta' = \\theta / s,$$", "raw TeX shows as text: '"),
    ("  4. *Four.* A part that fell out.", "a list item fell out of its list into the text: '4."),
]


@pytest.mark.build
def test_raw_tex_and_a_broken_list_fail_the_strict_build_naming_page_and_line(hostile):
    code, out, _ = hostile
    assert code != 0
    said = re.findall(r"posenc: (verify\.md(?::\d+)?): ((?:raw TeX|a list item)[^\n]*)", out)
    source = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    heading = source.index("\n# Verify it yourself\n") + len("\n# Verify it yourself\n")
    planted = source[:heading] + RAW_LINKS + RAW_TEX
    lines = planted.splitlines()
    line = {
        text: next(i for i, x in enumerate(lines, 1) if x.strip().startswith(text.strip()))
        for text, _ in RAW_TEX_FOUND
    }
    expected = [(f"verify.md:{line[text]}", start) for text, start in RAW_TEX_FOUND]
    assert len(said) == len(expected), out
    found = [
        (where, m[: len(start)]) for (where, m), (_, start) in zip(said, expected, strict=True)
    ]
    assert found == expected, out


@pytest.mark.build
def test_a_hostile_title_is_text_in_every_place_it_is_shown(hostile):
    _, _, site = hostile
    pages = {
        "page": _read(site, "propositions/p05-bank-of-clocks/index.html"),
        "home": _read(site, "index.html"),
        "graph": _read(site, "graph/index.html"),
        "user": _read(site, "propositions/p08-shift-is-rotation/index.html"),
        "print": _read(site, "propositions/all/index.html"),
        "redirect": _read(site, "p/5/index.html"),
    }
    for name, page_html in pages.items():
        no_live_markup(page_html, name)
    page = pages["page"]
    assert texts(page, "h1") == [f"Proposition 5: {HOSTILE}¶"]  # the permalink sign follows
    assert texts(page, "title") == [f"{HOSTILE} - posenc"]
    assert HOSTILE in texts(page, "div", class_="md-header__topic")
    assert texts(page, "p", class_="admonition-title")[0] == f"Proposition 5 ({HOSTILE})"
    assert HOSTILE in texts(pages["home"], "a", href="propositions/p05-bank-of-clocks/")
    assert HOSTILE in texts(pages["graph"], "a", href="../propositions/p05-bank-of-clocks/")
    assert f"Proposition 5 ({HOSTILE})" in texts(pages["user"], "a", href="../p05-bank-of-clocks/")
    labels = [e.attrs.get("aria-label", "") for e in elements(pages["graph"])]
    part = "Part II: The sinusoidal code"  # each node names its part, too
    assert f"Proposition 5: {HOSTILE} (verified with all dependencies, {part})" in labels
    assert f"Proposition 5: {HOSTILE}¶" in texts(pages["print"], "h2")
    redirect = pages["redirect"]
    assert texts(redirect, "title") == [f"Proposition 5: {HOSTILE}"]
    refresh = [e for e in elements(redirect) if e.attrs.get("http-equiv") == "refresh"]
    assert refresh[0].attrs["content"] == "0; url=../../propositions/p05-bank-of-clocks/"


@pytest.mark.build
def test_the_search_index_and_the_bibtex_hold_the_title_as_text(hostile):
    _, _, site = hostile
    index = json.loads(_read(site, "search/search_index.json"))
    (doc,) = [d for d in index["docs"] if d["location"] == "propositions/p05-bank-of-clocks/"]
    assert html.unescape(doc["title"]) == f"Proposition 5: {HOSTILE}"
    assert "<script" not in doc["title"]
    page = _read(site, "propositions/p05-bank-of-clocks/index.html")
    bib = next(t for t in texts(page, "code") if t.startswith("@misc{posenc:p5,"))
    assert '{Proposition 5: Order <script>alert(1)</script> \\& "quotes"}' in bib


@pytest.mark.build
def test_description_alt_text_and_sources_are_text(hostile):
    _, _, site = hostile
    page = _read(site, "propositions/p05-bank-of-clocks/index.html")
    found = {e.attrs.get("name"): e.attrs for e in elements(page) if e.tag == "meta"}
    assert found["description"]["content"] == DESCRIPTION
    images = [e.attrs for e in elements(page) if e.tag == "img"]
    assert [i["alt"] for i in images if "fig_clock_bank" in i["src"]] == [ALT]
    for path in ("propositions/p05-bank-of-clocks/index.html", "bibliography/index.html"):
        source = _read(site, path)
        no_live_markup(source, path)
        assert any(SOURCE_TITLE in t for t in texts(source, "li")), path
