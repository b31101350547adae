"""hooks/atlas.py: the model atlas, generated from the zoo's cases in the record.

The record here is made by hand, small and deliberately varied (a family that agrees,
one that differs, one with NoPE layers, an M-RoPE family, a scaled variant, a published
config): what each page must then hold follows from it, not from an earlier build.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hooks import atlas

ROOT = Path(__file__).resolve().parents[1]
PAGES = {n: f"propositions/p{n:02d}-x.md" for n in range(1, 35)}


def kind(name, layers, scheme="default", rotates=True, **extra):
    return {
        "name": name,
        "layers": list(layers),
        "rotates": rotates,
        "scheme": scheme if rotates else None,
        "base": 10000.0,
        "head_dim": 128,
        "rotary_dim": 128,
        "pairing": "half",
        "mrope": None,
        "attention_factor": 1.0,
        "params": {},
        **extra,
    }


def case(name, kinds, verdict="agrees", kind_="zoo", model_type=None, **extra):
    return {
        "kind": kind_,
        "case": name,
        "model_type": model_type or name,
        "version": "5.24.0",
        "verdict": verdict,
        "posenc": {"kinds": kinds},
        **extra,
    }


def record():
    return {
        "cases": [
            case("llama", [kind("all", range(32))]),
            case(
                "llama4_text",
                [kind("all", [0, 1, 2]), kind("all", [3], rotates=False)],
            ),
            case(
                "gemma4_text",
                [kind("full_attention", [5], "proportional", params={"factor": 8.0})],
                verdict="differs",
                differences={"speeds": "posenc 32 pairs, the module 64"},
                known="speeds: a reason",
            ),
            case("qwen3_vl_text", [kind("all", range(4), mrope=["interleaved_thw", [24, 20]])]),
            case(
                "llama [yarn, rope_parameters]",
                [kind("all", range(2), "yarn", attention_factor=1.2079)],
                model_type="llama",
            ),
            case("qwen3-8b.json", [kind("all", range(36))], kind_="config", model_type="qwen3"),
            {"kind": "rope", "case": "not an atlas case", "verdict": "agrees"},
        ]
    }


def test_every_family_is_on_exactly_one_page_and_linked_from_the_index():
    data = record()
    names = [c["case"] for c in atlas.families(data)]
    assert names == ["gemma4_text", "llama", "llama4_text", "qwen3_vl_text"]
    pages = {
        group: atlas.fill(atlas.PLACEHOLDER, f"atlas/{group}.md", data, PAGES)
        for group, _, _ in atlas.GROUPS
    }
    for name in names:
        holding = [g for g, text in pages.items() if f'<span id="{name}"></span>' in text]
        assert holding == [atlas.group_of(name)], name
    index = atlas.fill(atlas.INDEX_PLACEHOLDER, atlas.INDEX, data, PAGES)
    for name in names:
        assert f"]({atlas.group_of(name)}.md#{name})" in index
    assert "4 model types" in index and "3 agrees, 1 differs" in index
    # Variants and published configs: on the index, in their own tables, not as families.
    assert "`llama [yarn, rope_parameters]`" in index and "`qwen3-8b.json`" in index
    assert not any("llama [yarn" in text for text in pages.values())


def test_a_changed_record_changes_the_page():
    data = record()
    before = atlas.fill(atlas.PLACEHOLDER, "atlas/h-l.md", data, PAGES)
    data["cases"][0]["verdict"] = "differs"
    data["cases"][0]["differences"] = {"pairing": "posenc half, the module interleaved"}
    after = atlas.fill(atlas.PLACEHOLDER, "atlas/h-l.md", data, PAGES)
    assert before != after
    (line,) = [x for x in after.splitlines() if 'id="llama"' in x]
    assert "| [differs](#why-llama) |" in line
    (why,) = [x for x in after.splitlines() if 'id="why-llama"' in x]
    assert why.endswith("`llama`, differs: Found: pairing: posenc half, the module interleaved")


def test_cells_link_to_the_proposition_that_explains_them():
    data = record()
    text = atlas.fill(atlas.PLACEHOLDER, "atlas/g.md", data, PAGES)
    (line,) = [x for x in text.splitlines() if 'id="gemma4_text"' in x]
    assert "[proportional (s 8)](../propositions/p31-x.md)" in line
    assert "| [differs](#why-gemma4_text) |" in line
    assert (
        "differs: known: speeds: a reason. Found: speeds: posenc 32 pairs, the module 64" in text
    )
    text = atlas.fill(atlas.PLACEHOLDER, "atlas/h-l.md", data, PAGES)
    (line,) = [x for x in text.splitlines() if 'id="llama4_text"' in x]
    assert "all (3)<br>all (1)" in line
    assert "[none (NoPE)](../propositions/p34-x.md)" in line
    text = atlas.fill(atlas.PLACEHOLDER, "atlas/p-q.md", data, PAGES)
    assert "[interleaved_thw [24, 20]](../propositions/p30-x.md)" in text
    index = atlas.fill(atlas.INDEX_PLACEHOLDER, atlas.INDEX, data, PAGES)
    assert "[1.208](../propositions/p27-x.md)" in index


def test_a_sliding_layer_type_links_to_the_proposition_on_windows():
    data = record()
    data["cases"][2]["posenc"]["kinds"].append(kind("sliding_attention", [0, 1, 2, 3, 4]))
    text = atlas.fill(atlas.PLACEHOLDER, "atlas/g.md", data, PAGES)
    (line,) = [x for x in text.splitlines() if 'id="gemma4_text"' in x]
    assert "full_attention (1)<br>[sliding_attention (5)](../propositions/p33-x.md)" in line


def test_a_pipe_in_a_reason_does_not_break_the_table():
    data = record()
    data["cases"][0]["verdict"] = "not run: a | b"
    text = atlas.fill(atlas.PLACEHOLDER, "atlas/h-l.md", data, PAGES)
    (line,) = [x for x in text.splitlines() if 'id="llama"' in x]
    assert line.count(" | ") == len(atlas.HEADS) - 1
    (why,) = [x for x in text.splitlines() if 'id="why-llama"' in x]
    assert why.endswith(r"not run: a \| b")


def test_a_variants_name_makes_a_valid_anchor():
    assert atlas.slug("llama [yarn, rope_scaling]") == "llama-yarn-rope_scaling"
    data = record()
    data["cases"][4]["verdict"] = "could not build: KeyError 'x'"
    index = atlas.fill(atlas.INDEX_PLACEHOLDER, atlas.INDEX, data, PAGES)
    assert "[could not build](#why-llama-yarn-rope_parameters)" in index
    assert '<span id="why-llama-yarn-rope_parameters"></span>' in index


def test_missing_placeholders_and_an_empty_zoo_are_refused():
    data = record()
    with pytest.raises(atlas.AtlasError, match="posenc-atlas -->"):
        atlas.fill("# A to D\n", "atlas/a-d.md", data, PAGES)
    with pytest.raises(atlas.AtlasError, match="posenc-atlas-index"):
        atlas.fill("# Atlas\n", atlas.INDEX, data, PAGES)
    with pytest.raises(atlas.AtlasError, match=r"no case of kind 'zoo'.*make conformance"):
        atlas.families({"cases": [c for c in data["cases"] if c["kind"] != "zoo"]})


def test_pages_groups_and_navigation_match():
    files = {p.stem for p in (ROOT / "docs" / "atlas").glob("*.md")}
    groups = {g for g, _, _ in atlas.GROUPS}
    assert files == groups | {"index"}
    for group in groups:
        assert atlas.PLACEHOLDER in (ROOT / "docs" / "atlas" / f"{group}.md").read_text()
    assert atlas.INDEX_PLACEHOLDER in (ROOT / "docs" / "atlas" / "index.md").read_text()
    nav = re.findall(r"atlas/[a-z-]+\.md", (ROOT / "mkdocs.yml").read_text())
    assert sorted(set(nav)) == sorted(f"atlas/{f}.md" for f in files)
    # The groups cover the alphabet once, in order.
    letters = "".join(chr(c) for c in range(ord("a"), ord("z") + 1))
    covered = "".join(letters[letters.index(a) : letters.index(b) + 1] for _, a, b in atlas.GROUPS)
    assert covered == letters


def test_the_committed_record_has_every_family_of_the_zoo_once():
    data = json.loads((ROOT / "conformance" / "record.json").read_text())
    names = [c["case"] for c in atlas.families(data)]
    assert names and len(names) == len(set(names))


def test_each_proposition_the_rows_link_to_links_back_with_their_count(site_dir):
    """Counted on the built pages, independently of hooks.atlas.citations: every
    proposition that some family's row links to says how many, and links the atlas."""
    from hooks import registry

    entries = registry.load(ROOT / "docs", ROOT)
    rows: dict[int, int] = {}
    for name, _, _ in atlas.GROUPS:
        page = (site_dir / "atlas" / name / "index.html").read_text(encoding="utf-8")
        table = page[page.index("<tbody>") : page.index("</tbody>")]
        for row_html in re.findall(r"<tr>.*?</tr>", table, re.S):
            linked = set(re.findall(r'href="\.\./\.\./propositions/p(\d\d)-', row_html))
            for number in linked:
                rows[int(number)] = rows.get(int(number), 0) + 1
    assert rows, "no atlas row links to a proposition"
    for number, entry in entries.items():
        text = (site_dir / entry.url / "index.html").read_text(encoding="utf-8")
        said = re.search(r"In the models:</strong> (\d+) model famil", text)
        if number in rows:
            assert said and int(said.group(1)) == rows[number], (number, rows[number])
            assert 'href="../../atlas/">model atlas</a>' in text
        else:
            assert said is None, number
