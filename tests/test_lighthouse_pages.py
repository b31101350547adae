"""Which pages `make lighthouse` judges (tools/lighthouse.py): every kind, every page of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hooks import registry
from tools import lighthouse

ROOT = Path(__file__).resolve().parent.parent


def test_every_proposition_exercise_notebook_reference_page_and_the_graph_is_judged(site_dir):
    judged = lighthouse.pages(site_dir)
    paths = set(judged.values())
    for entry in registry.load(ROOT / "docs", ROOT).values():
        assert entry.url in paths, f"Proposition {entry.number} is not judged"
    for folder in ("exercises", "notebooks", "reference"):
        built = {
            p.parent.relative_to(site_dir).as_posix() + "/"
            for p in (site_dir / folder).rglob("index.html")
        }
        assert built and built <= paths, folder
    assert {"", "graph/"} <= paths
    kinds = {lighthouse.kind(p) for p in paths}
    assert kinds == {"home", "proposition", "exercise", "notebook", "reference", "graph", "page"}
    assert not [p for p in paths if p.startswith(("p/", "propositions/all/"))]


def test_a_selection_keeps_kinds_and_path_prefixes_and_refuses_one_that_names_nothing(site_dir):
    some = lighthouse.pages(site_dir, "graph, propositions/p01")
    assert list(some.values()) == [
        "propositions/p01-attention-is-permutation-equivariant/",
        "graph/",
    ]
    with pytest.raises(SystemExit, match="names no page"):
        lighthouse.pages(site_dir, "nothing-like-this")
