"""The library reference, one page per part, and its index of names (hooks/apiindex.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hooks import apiindex

HERE = Path(__file__).resolve().parent
#: The anchors of the reference when it was one page (tests/data, with where they came from).
OLD_ANCHORS = [
    line
    for line in (HERE / "data" / "api_anchors_one_page.txt").read_text().splitlines()
    if line and not line.startswith("#")
]
_ID = re.compile(r'\sid="([^"]+)"')
_ENTRY = re.compile(r'<li id="([^"]+)"><a href="([^"#]*)#([^"]+)">')


def _heading(name: str, level: int = 2) -> str:
    return f'<h{level} id="{name}" class="doc doc-heading">{name}</h{level}>'


def test_names_are_the_documented_objects_in_page_order():
    page = (
        _heading("posenc.rope")
        + '<h2 id="posenc-rope-usage">Usage</h2>'  # a heading of the prose, not an object
        + _heading("posenc.rope.inv_freq", 3)
        + _heading("posenc.rope.RopeConfig.base", 4)
    )
    assert apiindex.names(page) == [
        "posenc.rope",
        "posenc.rope.inv_freq",
        "posenc.rope.RopeConfig.base",
    ]


def test_each_entry_carries_its_name_as_id_and_links_to_it_on_its_page():
    made = apiindex.block([("Rotary & more", "rope/", ["posenc.rope", "posenc.rope.inv_freq"])])
    assert '<a href="rope/">Rotary &amp; more</a>' in made
    assert _ENTRY.findall(made) == [
        ("posenc.rope", "rope/", "posenc.rope"),
        ("posenc.rope.inv_freq", "rope/", "posenc.rope.inv_freq"),
    ]


def test_a_name_on_two_pages_is_refused():
    with pytest.raises(apiindex.ApiIndexError, match=r"posenc\.x is documented on two pages"):
        apiindex.block([("A", "a/", ["posenc.x"]), ("B", "b/", ["posenc.x"])])


@pytest.mark.parametrize("times", [0, 2])
def test_the_marker_must_be_there_once(times):
    with pytest.raises(apiindex.ApiIndexError, match=f"there {times} times"):
        apiindex.fill("<p>index</p>" + apiindex.PLACEHOLDER * times, [("A", "a/", ["posenc.x"])])


def test_an_index_of_no_names_is_refused():
    with pytest.raises(apiindex.ApiIndexError, match="documents a name"):
        apiindex.fill(apiindex.PLACEHOLDER, [("A", "a/", [])])


@pytest.mark.parametrize(
    "src, expected",
    [
        ("reference/api/rope.md", True),
        ("reference/api/index.md", False),
        ("reference/cli.md", False),
        ("reference/api/notes.txt", False),
    ],
)
def test_reference_pages_are_the_folder_less_its_index(src, expected):
    assert apiindex.is_reference_page(src) is expected


def test_links_go_from_the_index_page():
    assert apiindex.relative_url("reference/api/", "reference/api/rope/") == "rope/"
    assert apiindex.relative_url("reference/api/", "reference/cli/") == "../cli/"


# -- the built site ----------------------------------------------------------------------


def _reference_pages(site: Path) -> dict[str, str]:
    folder = site / "reference" / "api"
    return {
        path.parent.name + "/": path.read_text(encoding="utf-8")
        for path in sorted(folder.glob("*/index.html"))
    }


def test_every_anchor_of_the_one_page_reference_still_lands_on_its_name(site_dir: Path):
    index = (site_dir / "reference/api/index.html").read_text(encoding="utf-8")
    ids = set(_ID.findall(index))
    assert len(OLD_ANCHORS) == 78
    missing = [name for name in OLD_ANCHORS if name not in ids]
    assert not missing, f"old links to reference/api/#NAME that land nowhere: {missing}"


def test_the_index_lists_every_documented_name_once_and_each_link_resolves(site_dir: Path):
    index = (site_dir / "reference/api/index.html").read_text(encoding="utf-8")
    pages = _reference_pages(site_dir)
    assert len(pages) >= 8
    documented = {name: url for url, text in pages.items() for name in apiindex.names(text)}
    entries = _ENTRY.findall(index)
    listed = [name for name, _, _ in entries]
    assert len(listed) == len(set(listed))
    # TooLargeError is documented on the index page itself, not listed.
    assert set(listed) == set(documented), set(listed) ^ set(documented)
    for name, url, fragment in entries:
        assert fragment == name
        assert url == documented[name], (name, url)
        assert f'id="{name}"' in pages[url]
