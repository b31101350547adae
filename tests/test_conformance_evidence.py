"""Proposition 13's evidence table, made from the conformance record, and the record published.

The rows a section should have are worked out here from the record's cases,
by grouping them again (kind, library, dtype), not by asking hooks.conformance;
the built page is read back from its HTML.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from hooks import conformance

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "conformance" / "record.json"
PAGE_HTML = Path("propositions") / "p13-library-conventions" / "index.html"
SHOWN = ("sinusoidal", "rotary", "relative")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def case(library, name, *, kind="sinusoidal", dtype="float32", difference=0.0, **extra):
    return {
        "library": library,
        "version": extra.pop("version", "1.0"),
        "kind": kind,
        "case": name,
        "convention": extra.pop("convention", "paper"),
        "compared": extra.pop("compared", "the whole table"),
        "dtype": dtype,
        "largest_difference": difference,
        "verdict": extra.pop("verdict", "bit-identical"),
        **extra,
    }


def synthetic() -> dict:
    cases = [
        case("alpha", "1x4"),
        case("alpha", "2x8", difference=3.0e-7, verdict="within the float32 model"),
        case("alpha", "3x8", difference=2.96e-5, verdict="within the float32 model"),
        case(
            "alpha", "9x9", dtype="float64", difference=1.5e-11, verdict="within the float64 model"
        ),
        case(
            "beta", "all", dtype="", difference=None, version="none", verdict="not run: no package"
        ),
        case("gamma", "4x4", version="2.0", difference=0.25, verdict="differs"),
        case("gamma", "5x4", version="2.1", compared="one row", difference=0.0),
        case("gamma", "6x4", version="2.1", difference=0.0),
        case("alpha", "width 1", kind="refusal", difference=None, verdict="agrees"),
        case("delta", "pairs", kind="rotary", difference=6.0e-8, verdict="agrees"),
    ]
    cases.sort(key=lambda c: (c["kind"], c["library"], c["case"]))
    return {"schema": 1, "python": "3.11.7", "numpy": "2.4.6", "machine": "x86_64", "cases": cases}


# -- what a section should say, worked out from the cases --------------------------------


def expected_rows(record: dict) -> list[dict]:
    groups: dict[tuple, list] = defaultdict(list)
    for c in record["cases"]:
        if c["kind"] in SHOWN:
            groups[(c["kind"], c["library"], c["dtype"], c["compared"])].append(c)
    rows = []
    for (kind, library, dtype, compared), cases in groups.items():
        measured = [c["largest_difference"] for c in cases if c["largest_difference"] is not None]
        rows.append(
            {
                "kind": kind,
                "library": library,
                "dtype": dtype,
                "versions": sorted({c["version"] for c in cases}),
                "compared": compared,
                "cases": len(cases),
                "largest": max(measured) if measured else None,
                "verdicts": Counter(c["verdict"] for c in cases),
            }
        )
    order = ("kind", "library", "dtype", "compared")
    return sorted(rows, key=lambda r: (SHOWN.index(r["kind"]), *(r[k] for k in order[1:])))


def read_difference(text: str) -> float | None:
    """'7.8 × 10⁻³', '0' or 'not measured', as a number."""
    if text == "not measured":
        return None
    mantissa, _, power = text.partition(" × 10")
    return float(mantissa) * 10.0 ** int(power.translate(_SUPERSCRIPT) or 0)


def read_verdicts(text: str, known: Counter) -> Counter:
    """'bit-identical (1), differs (7)', 'differs (all 7)' or 'differs', as counts.

    The verdicts are looked for by name (a reason may hold commas and brackets).
    """
    found: Counter = Counter()
    for verdict in sorted(known, key=len, reverse=True):
        match = re.search(re.escape(verdict) + r"(?: \((?:all )?(\d+)\))?", text)
        if match:
            found[verdict] = int(match.group(1) or 1)
            text = text[: match.start()] + text[match.end() :]
    assert not text.strip(" ,"), f"verdicts left unread: {text!r}"
    return found


def assert_row(cells: list[str], want: dict) -> None:
    kind, library, version, compared, dtype, count, difference, verdicts = cells
    assert (kind, library, dtype) == (want["kind"], want["library"], want["dtype"])
    assert compared == want["compared"]
    # Joined with ", " (a version may hold a comma itself): the same pieces.
    assert sorted(version.split(", ")) == sorted(", ".join(want["versions"]).split(", "))
    assert int(count) == want["cases"] == sum(want["verdicts"].values())
    shown = read_difference(difference)
    if want["largest"] is None or want["largest"] == 0:
        assert shown == want["largest"]
    else:  # two significant figures: within half a unit of the second
        half_unit = 0.5 * 10.0 ** (math.floor(math.log10(want["largest"])) - 1)
        assert abs(shown - want["largest"]) <= half_unit * (1 + 1e-9), (difference, want)
    assert read_verdicts(verdicts, want["verdicts"]) == want["verdicts"]


def markdown_rows(section: str) -> list[list[str]]:
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    rows = [
        [html.unescape(cell.strip()) for cell in line.strip("|").split(" | ")] for line in lines
    ]
    return rows[1:]  # below the header (the rule line starts with "|-")


# -- the section, from a small record ----------------------------------------------------


def test_section_has_one_row_per_kind_library_dtype_and_comparison():
    record = synthetic()
    assert conformance.problems(record) == []
    section = conformance.section(record, "../conformance.json")
    rows, want = markdown_rows(section), expected_rows(record)
    whole = "the whole table"
    assert [[*r[:2], r[4], r[3]] for r in rows] == [
        ["sinusoidal", "alpha", "float32", whole],
        ["sinusoidal", "alpha", "float64", whole],
        ["sinusoidal", "beta", "", whole],
        ["sinusoidal", "gamma", "float32", "one row"],
        ["sinusoidal", "gamma", "float32", whole],
        ["rotary", "delta", "float32", whole],
    ]
    for cells, expected in zip(rows, want, strict=True):
        assert_row(cells, expected)
    alpha = rows[0]
    assert alpha[5:] == ["3", "3.0 × 10⁻⁵", "bit-identical (1), within the float32 model (2)"]
    assert rows[2][6:] == ["not measured", "not run: no package"]
    assert rows[3][2] == "2.1" and rows[3][7] == "bit-identical"
    assert rows[4][2] == "2.0, 2.1" and rows[4][5:] == [
        "2",
        "2.5 × 10⁻¹",
        "bit-identical (1), differs (1)",
    ]


def test_section_names_the_machine_the_link_and_which_rows_are_which():
    section = conformance.section(synthetic(), "../conformance.json")
    text = html.unescape(section)
    assert "Python 3.11.7 and NumPy 2.4.6 on machine x86_64" in text
    assert "`make conformance`" in text
    assert "[The record itself](../conformance.json)" in text
    assert "It holds 10 cases; the 9 that compare" in text
    assert "other cases (1 refusal)" in text
    assert "Bit-identical in every case: none" not in text
    assert "Within the float32 model in some case: alpha (float32, the whole table)." in text
    assert "Within the float64 model in some case: alpha (float64, the whole table)." in text
    assert "**Differs** in some case: gamma (float32, the whole table)." in text
    assert "Not run: beta (the whole table)." in text
    assert "Bit-identical in every case: gamma (float32, one row)." in text


def test_a_row_bit_identical_throughout_is_named_so():
    record = synthetic()
    record["cases"] = [c for c in record["cases"] if c["library"] == "alpha"]
    for c in record["cases"]:
        c.update(largest_difference=0.0, verdict="bit-identical")
    text = html.unescape(conformance.section(record, "x"))
    whole = "the whole table"
    assert (
        f"Bit-identical in every case: alpha (float32, {whole}), alpha (float64, {whole})." in text
    )
    assert "| bit-identical (all 3) |" in text


def test_record_text_cannot_become_markup():
    record = synthetic()
    shown = next(c for c in record["cases"] if c["kind"] == "sinusoidal")
    shown["library"] = "a|b <script>alert(1)</script> *c*"
    record["cases"].sort(key=lambda c: (c["kind"], c["library"], c["case"]))
    section = conformance.section(record, "x")
    assert "<script>" not in section
    row = next(line for line in section.splitlines() if "alert" in line)
    assert row.count(" | ") == 7  # the | in the name does not split the cell


def test_fill_links_to_the_published_record_from_the_page():
    record = synthetic()
    page = f"before\n\n{conformance.PLACEHOLDER}\n\nafter\n"
    filled = conformance.fill(page, record, "propositions/p13-library-conventions.md")
    assert conformance.PLACEHOLDER not in filled
    assert "(../conformance.json)" in filled and filled.endswith("after\n")
    assert "(conformance.json)" in conformance.fill(page, record, "index.md")
    assert conformance.fill("no table here\n", record, "index.md") == "no table here\n"


# -- records that are not records --------------------------------------------------------


def test_the_old_record_format_is_refused_naming_what_is_missing():
    old = synthetic()
    del old["schema"]
    for c in old["cases"]:
        del c["kind"], c["compared"]
    found = conformance.problems(old)
    assert "no 'schema'" in found
    assert "case 0: 'kind' is missing or not a string" in found
    assert "case 0: 'compared' is missing or not a string" in found


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: r.update(schema=2), "schema is 2, not 1"),
        (lambda r: r["cases"].reverse(), "not sorted by (kind, library, case)"),
        (lambda r: r["cases"][0].update(verdict="fine"), "verdict 'fine' is not one"),
        (lambda r: r["cases"][0].update(verdict="not run:"), "verdict 'not run:' is not one"),
        (lambda r: r["cases"][0].update(kind="speed"), "kind 'speed' is not one of"),
        (lambda r: r["cases"][0].update(largest_difference="0"), "not a number or null"),
        (lambda r: r["cases"][0].update(largest_difference=-1.0), "not >= 0"),
        (lambda r: r["cases"][0].update(largest_difference=-1), "not >= 0"),
        (lambda r: r["cases"][0].update(largest_difference=float("nan")), "not >= 0"),
        (lambda r: r["cases"][0].pop("largest_difference"), "no 'largest_difference'"),
        (lambda r: r.pop("machine"), "no 'machine'"),
    ],
)
def test_a_malformed_record_is_refused(change, problem):
    record = synthetic()
    change(record)
    assert any(problem in line for line in conformance.problems(record)), problem


def write(root: Path, content: bytes) -> None:
    (root / "conformance").mkdir(parents=True, exist_ok=True)
    (root / "conformance" / "record.json").write_bytes(content)


def test_load_returns_the_bytes_it_read(tmp_path):
    raw = json.dumps(synthetic(), indent=1).encode() + b"\n"
    write(tmp_path, raw)
    got, data = conformance.load(tmp_path)
    assert got == raw and data == synthetic()


@pytest.mark.parametrize("content", [None, b"{not json", b'{"schema": 1}'])
def test_the_build_stops_naming_the_record_and_the_command(tmp_path, content):
    if content is not None:
        write(tmp_path, content)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    config = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"))
    with pytest.raises(PluginError) as raised:
        conformance.on_config(config)
    message = str(raised.value)
    assert "conformance/record.json" in message and "`make conformance`" in message


@pytest.mark.build
def test_a_strict_build_without_the_record_fails_saying_so(tmp_path):
    project = tmp_path / "project"
    for name in ("docs", "proofs", "hooks", "posenc", "overrides", "exercises"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, project / name)
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode != 0
    assert "conformance/record.json: no conformance record" in done.stderr
    assert "run `make conformance`" in done.stderr
    assert not (tmp_path / "s" / "index.html").exists()


# -- the built site ----------------------------------------------------------------------


class _Table(HTMLParser):
    """The text of every cell of the table inside ``div.posenc-conformance``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.tables = 0
        self._depth = 0  # <div> depth inside the conformance div (0: outside)
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "div":
            if self._depth:
                self._depth += 1
            elif "posenc-conformance" in (dict(attrs).get("class") or "").split():
                self._depth, self.tables = 1, self.tables + 1
        elif self._depth and tag == "tr":
            self.rows.append([])
        elif self._depth and tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "div" and self._depth:
            self._depth -= 1
        elif tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def built_rows(page: Path) -> list[list[str]]:
    parser = _Table()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.tables == 1, f"{page}: {parser.tables} conformance tables"
    return [row for row in parser.rows if row]  # the header row has no <td>


@pytest.fixture(scope="module")
def record() -> dict:
    if not RECORD.is_file():
        pytest.fail(f"no {RECORD}: run `make conformance`", pytrace=False)
    return json.loads(RECORD.read_text(encoding="utf-8"))


def test_the_built_table_is_the_committed_record(site_dir, record):
    rows, want = built_rows(site_dir / PAGE_HTML), expected_rows(record)
    assert [[*r[:2], r[4]] for r in rows] == [[w["kind"], w["library"], w["dtype"]] for w in want]
    for cells, expected in zip(rows, want, strict=True):
        assert_row(cells, expected)
    page = html.unescape(re.sub(r"<[^>]+>", "", (site_dir / PAGE_HTML).read_text()))
    machine = f"Python {record['python']} and NumPy {record['numpy']} on machine "
    assert machine + record["machine"] in page
    assert f"It holds {len(record['cases'])} cases" in page


def test_the_printable_page_holds_the_same_table(site_dir):
    printable = built_rows(site_dir / "propositions" / "all" / "index.html")
    assert printable == built_rows(site_dir / PAGE_HTML)


def test_the_published_record_is_the_committed_one_byte_for_byte(site_dir):
    assert (site_dir / "conformance.json").read_bytes() == RECORD.read_bytes()
    page = (site_dir / PAGE_HTML).read_text(encoding="utf-8")
    assert 'href="../../conformance.json"' in page
