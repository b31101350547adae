"""The strict site build: generated content, and what makes it fail.

The generated content is checked on the site the suite looks at (``make site``,
or ``POSENC_SITE_DIR``: see conftest.py). That two builds give the same bytes is
tests/test_reproducible.py's: two checkouts, cache on and off, and three builds
of one checkout with one cache.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hooks import registry
from tools.project import copy_project

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "--strict"]
EPOCH = "1767225600"  # 2026-01-01, any fixed value will do


def build(source: Path, site: Path, epoch: str = EPOCH) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": epoch}
    return subprocess.run(
        [*MKDOCS, "--site-dir", str(site)],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def site(site_dir: Path) -> Path:
    """The built site (conftest.py's ``site_dir``: ``make site``, or ``POSENC_SITE_DIR``)."""
    return site_dir


@pytest.fixture(scope="module")
def entries():
    return registry.load(ROOT / "docs", ROOT)


@pytest.fixture(scope="module")
def site_url() -> str:
    with open(ROOT / "mkdocs.yml") as f:
        return yaml.load(f, Loader=yaml.BaseLoader)["site_url"]


def text_of(html: str) -> str:
    """The visible text of a page (tags dropped, entities decoded)."""
    import html as entities

    return entities.unescape(re.sub(r"<[^>]+>", "", html))


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_permanent_links_redirect_to_the_page(site, entries):
    for n, entry in entries.items():
        redirect = (site / "p" / str(n) / "index.html").read_text()
        target = f"../../{entry.url}"
        assert f'url={target}"' in redirect and f'href="{target}"' in redirect
        assert (site / entry.url / "index.html").is_file()


def test_proposition_pages_carry_every_generated_block(site, entries, site_url):
    for n, entry in entries.items():
        html = (site / entry.url / "index.html").read_text()
        text = text_of(html)
        assert f'id="proposition-{n}"' in html
        assert f"Proposition {n} ({entry.title})" in text
        assert "Verified with all dependencies" in text
        assert "<th>Evidence</th>" in html and "SHA-256" in text
        assert f"@misc{{posenc:p{n}," in text
        assert f"url          = {{{site_url}p/{n}/}}" in text
        assert "Depends on:" in text and "Used by:" in text
        for figure in entry.figures:
            assert f'src="../../figures/{figure.name}.svg"' in html
            svg = (site / "figures" / f"{figure.name}.svg").read_text()
            assert svg.lstrip().startswith("<?xml") and "<svg" in svg


def test_math_is_rendered_at_build_time(site):
    assert (site / "assets" / "katex" / "katex.min.css").is_file()
    for page in pages(site):
        html = page.read_text()
        body = re.sub(r"<(code|pre)\b.*?</\1>", "", html, flags=re.S)
        assert "\\(" not in body and "\\[" not in body, page
    assert (
        'class="katex"'
        in (site / "propositions" / "p05-bank-of-clocks" / "index.html").read_text()
    )
    # Every page with a formula carries KaTeX's stylesheet (inline: hooks/loading.py), and
    # none links it: the stylesheet is not a request the first paint waits for.
    with_math = 0
    for page in pages(site):
        html = page.read_text()
        body = re.sub(r"<(code|pre)\b.*?</\1>", "", html.partition("</head>")[2], flags=re.S)
        has_math = 'class="katex"' in body
        styled = '<style data-posenc-from="assets/katex/katex.min.css">' in html
        assert styled == has_math, f"{page.relative_to(site)}: math {has_math}, KaTeX CSS {styled}"
        assert 'href="assets/katex/katex.min.css"' not in html.replace("../", "")
        with_math += has_math
    assert with_math >= 30, "the propositions have math"


def test_no_page_loads_anything_from_elsewhere(site):
    external = re.compile(
        r"<(?:script|img|iframe|source|audio|video)\b[^>]*\bsrc=\"(?:https?:)?//"
        r"|<link\b[^>]*\bhref=\"(?:https?:)?//[^\"]*\"[^>]*rel=\"(?:stylesheet|preload|preconnect|icon)"
        r"|<link\b[^>]*rel=\"(?:stylesheet|preload|preconnect|icon)\"[^>]*href=\"(?:https?:)?//"
        r"|url\((?:'|\")?(?:https?:)?//"
    )
    for path in [*pages(site), *site.rglob("*.css")]:
        match = external.search(path.read_text(errors="replace"))
        assert match is None, f"{path.relative_to(site)} loads {match.group(0)!r}"


def test_home_lists_every_proposition_with_status(site, entries):
    home = (site / "index.html").read_text()
    for entry in entries.values():
        assert f'href="{entry.url}"' in home
    assert home.count("verified with all dependencies") >= len(entries)


HEADING_RE = re.compile(r"<h([1-6])\b[^>]*>")


def test_no_page_skips_a_heading_level(site):
    """A heading is at most one level below the one before it (axe: heading-order), on
    every page: generated blocks (the tables per part, the atlas) bring headings of their
    own, and a page that places one under its title alone would skip a level."""
    skipped = []
    for path in sorted(site.rglob("index.html")):
        html = path.read_text(encoding="utf-8")
        start, end = html.find("<article"), html.find("</article>")
        if start < 0:
            continue
        levels = [int(m.group(1)) for m in HEADING_RE.finditer(html, start, end)]
        for before, after in itertools.pairwise(levels):
            if after > before + 1:
                skipped.append(f"{path.relative_to(site).parent}/: h{before} then h{after}")
                break
    assert not skipped, "\n".join(skipped)


def test_a_false_claim_fails_the_strict_build(tmp_path):
    # With the other proofs' results: only the edited proof runs (its key changed).
    project = copy_project(tmp_path / "project")
    proof = project / "proofs" / "p08_shift_is_rotation.py"
    true = "block(w * j) * block(w * k) - block(w * (j + k))"
    assert true in proof.read_text()
    proof.write_text(
        proof.read_text().replace(true, "block(w * j) * block(w * k) - block(w * (j - k))")
    )
    done = build(project, tmp_path / "site")
    assert done.returncode != 0
    failed = "Proposition 8 (A shift is a rotation): check failed: M_k M_k' = M_(k+k')"
    assert failed in done.stderr
    assert not (tmp_path / "site" / "index.html").exists()


def test_a_typed_number_fails_the_strict_build_naming_page_line_and_quantity(tmp_path):
    project = copy_project(tmp_path / "project")
    page = project / "docs" / "propositions" / "p14-floating-point.md"
    text = page.read_text()
    name = "{{ tutorial_error_1e6 }}"
    lines = text.splitlines()
    line = next(i for i, s in enumerate(lines, 1) if name in s and "$" in s)
    lines[line - 1] = lines[line - 1].replace(name, "0.09", 1)  # the number typed by hand
    page.write_text("\n".join(lines) + "\n")
    done = build(project, tmp_path / "site")
    assert done.returncode != 0
    assert f"propositions/p14-floating-point.md:{line}: '0.09' is a typed number" in done.stderr
    assert name in done.stderr  # the quantity it should have been
    assert not (tmp_path / "site" / "index.html").exists()


def test_an_unknown_quantity_fails_the_strict_build(tmp_path):
    project = copy_project(tmp_path / "project")
    page = project / "docs" / "propositions" / "p14-floating-point.md"
    page.write_text(page.read_text().replace("{{ float16_limit }}", "{{ float16_limt }}", 1))
    done = build(project, tmp_path / "site")
    assert done.returncode != 0
    assert "unknown quantity {{ float16_limt }}" in done.stderr
    assert "p14-floating-point.md:" in done.stderr


def test_pages_show_the_values_the_proofs_computed(site):
    import json

    report = json.loads((ROOT / "build" / "proofs-report.json").read_text())
    exported = json.loads((site / "propositions.json").read_text())
    by_number = {p["number"]: p for p in exported["propositions"]}
    shown = 0
    for proposition in report["propositions"]:
        record = by_number[proposition["number"]]
        assert record["quantities"] == proposition["quantities"]
        page = site / record["url"].split("/", 3)[-1] / "index.html"
        body = text_of(page.read_text())
        for quantity in proposition["quantities"]:
            shown += quantity["text"] in body or quantity["tex"] in body
        assert "{{" not in record["statement"]
    assert shown, "no page shows any of its quantities"
    for path in pages(site):
        visible = re.sub(r"<code[^>]*>.*?</code>", "", path.read_text(), flags=re.S)
        assert not re.search(r"\{\{\s*(p\d+\.)?[a-z][a-z0-9_]*\s*\}\}", visible), path
