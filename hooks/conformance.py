"""Proposition 13's evidence: the last conformance record, as a table on its page.

``make conformance`` runs the libraries' own code against ``posenc.conventions``
and writes ``conformance/record.json`` (its fields: conformance/README.md and
the tests of this module). The build reads that file once. Proposition 13's
page gets one table row per kind of case, library, dtype and comparison, where the
page holds the line ``<!-- posenc-conformance -->``, and the site publishes
the same bytes as ``conformance.json``, beside ``propositions.json``.

A build without the record, or with a record of another shape, fails and says
which file and which command: the table is never made up, nor left out.

The functions take plain data and return plain data; the three MkDocs events at
the end only hand it over (``mkdocs.yml`` lists this file under ``hooks``).
"""

from __future__ import annotations

import json
import posixpath
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs loads this file by path, not as part of a package
    sys.path.insert(0, str(ROOT))

from hooks.escape import markdown_text  # noqa: E402
from proofs.numbers import Show, render  # noqa: E402

#: Where the record lives, relative to the project (the folder of mkdocs.yml).
RECORD = "conformance/record.json"
#: Where the site publishes it, relative to the site's root.
PUBLISHED = "conformance.json"
#: The page that shows the table, and the line in it that the table replaces.
PAGE = "propositions/p13-library-conventions.md"
PLACEHOLDER = "<!-- posenc-conformance -->"
#: The printable page repeats Proposition 13's page, table included.
PRINT_PAGE = "propositions/all.md"

SCHEMA = 1
#: The kinds of case the table shows, in this order; the record may hold others.
SHOWN = ("sinusoidal", "rotary", "relative")
KINDS = ("sinusoidal", "rotary", "relative", "refusal", "identify", "zoo", "config")
#: The verdicts, in the order a row lists them; the last two carry a reason.
VERDICTS = (
    "bit-identical",
    "within the float32 model",
    "within the float64 model",
    "agrees",
    "differs",
    "recorded only",
    "not run",
)
_WITH_REASON = ("recorded only", "not run")
_TOP = ("schema", "python", "numpy", "machine", "cases")
_CASE = {
    "library": str,
    "version": str,
    "kind": str,
    "case": str,
    "convention": str,
    "compared": str,
    "dtype": str,
    "verdict": str,
}
#: The largest difference, as the table shows it: two significant figures.
DIFFERENCE = Show(sig=2, style="sci")


class RecordError(ValueError):
    """The record is missing or is not a conformance record; the message says what to do."""


def _missing_message(path: str) -> str:
    return (
        f"{path}: no conformance record. Proposition 13's table is made from it: "
        "run `make conformance` to write it"
    )


def load(root: Path) -> tuple[bytes, dict[str, Any]]:
    """The record's bytes and its data; :class:`RecordError` if it is missing or malformed."""
    path = Path(root) / RECORD
    if not path.is_file():
        raise RecordError(_missing_message(RECORD))
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(
            f"{RECORD}: not JSON ({exc}); run `make conformance` to write it again"
        ) from None
    found = problems(data)
    if found:
        raise RecordError(
            f"{RECORD}: not a conformance record of schema {SCHEMA} "
            f"({len(found)} problem{'s' if len(found) != 1 else ''}; "
            "run `make conformance` to write it again):\n  " + "\n  ".join(found[:20])
        )
    return raw, data


def verdict_class(verdict: str) -> str | None:
    """The verdict without its reason ('not run: no package' is 'not run'); None if unknown."""
    head, colon, reason = verdict.partition(":")
    if head in _WITH_REASON:
        return head if colon and reason.strip() else None
    return verdict if verdict in VERDICTS and verdict not in _WITH_REASON else None


def problems(data: Any) -> list[str]:
    """What keeps ``data`` from being a record of schema 1, one line each (none: it is one)."""
    if not isinstance(data, dict):
        return ["the record is not a JSON object"]
    found = [f"no '{key}'" for key in _TOP if key not in data]
    if "schema" in data and data["schema"] != SCHEMA:
        found.append(f"schema is {data['schema']!r}, not {SCHEMA}")
    for key in ("python", "numpy", "machine"):
        if key in data and not isinstance(data[key], str):
            found.append(f"'{key}' is not a string")
    cases = data.get("cases", [])
    if not isinstance(cases, list):
        return [*found, "'cases' is not a list"]
    for index, case in enumerate(cases):
        where = f"case {index}"
        if not isinstance(case, dict):
            found.append(f"{where} is not an object")
            continue
        for key, kind in _CASE.items():
            if not isinstance(case.get(key), kind):
                found.append(f"{where}: '{key}' is missing or not a string")
        difference = case.get("largest_difference")
        if "largest_difference" not in case:
            found.append(f"{where}: no 'largest_difference' (a number, or null)")
        elif difference is not None and (
            isinstance(difference, bool) or not isinstance(difference, int | float)
        ):
            found.append(f"{where}: 'largest_difference' is {difference!r}, not a number or null")
        elif difference is not None and not (difference == difference and difference >= 0):
            found.append(f"{where}: 'largest_difference' is {difference!r}, not >= 0")
        if isinstance(case.get("kind"), str) and case["kind"] not in KINDS:
            found.append(f"{where}: kind {case['kind']!r} is not one of {', '.join(KINDS)}")
        if isinstance(case.get("verdict"), str) and verdict_class(case["verdict"]) is None:
            found.append(f"{where}: verdict {case['verdict']!r} is not one the record allows")
    keys = [_order(case) for case in cases if isinstance(case, dict) and not _bad(case)]
    if keys != sorted(keys):
        found.append("the cases are not sorted by (kind, library, case)")
    return found


def _bad(case: Mapping[str, Any]) -> bool:
    return not all(isinstance(case.get(key), str) for key in ("kind", "library", "case"))


def _order(case: Mapping[str, Any]) -> tuple[str, str, str]:
    return (case["kind"], case["library"], case["case"])


@dataclass(frozen=True)
class Row:
    """One line of the table: the cases of one kind, library, dtype and comparison."""

    kind: str
    library: str
    dtype: str
    compared: str
    versions: tuple[str, ...]
    cases: int
    largest_difference: float | None  # over the cases that measured one
    verdicts: tuple[tuple[str, int], ...]  # (verdict, number of cases), in VERDICTS order


def rows(data: Mapping[str, Any]) -> list[Row]:
    """The table's rows, sorted by kind (as in ``SHOWN``), library, dtype and comparison."""
    groups: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
    for case in data["cases"]:
        if case["kind"] in SHOWN:
            key = (case["kind"], case["library"], case["dtype"], case["compared"])
            groups.setdefault(key, []).append(case)
    out = []
    for (kind, library, dtype, compared), cases in groups.items():
        measured = [c["largest_difference"] for c in cases if c["largest_difference"] is not None]
        counts = Counter(c["verdict"] for c in cases)
        out.append(
            Row(
                kind=kind,
                library=library,
                dtype=dtype,
                compared=compared,
                versions=_distinct(c["version"] for c in cases),
                cases=len(cases),
                largest_difference=float(max(measured)) if measured else None,
                verdicts=tuple(sorted(counts.items(), key=lambda item: (_rank(item[0]), item[0]))),
            )
        )
    return sorted(out, key=lambda r: (SHOWN.index(r.kind), r.library, r.dtype, r.compared))


def _distinct(values: Any) -> tuple[str, ...]:
    """The values in order of first appearance, each once."""
    return tuple(dict.fromkeys(values))


def _rank(verdict: str) -> int:
    return VERDICTS.index(verdict_class(verdict) or "not run")


def difference_text(value: float | None) -> str:
    """The largest difference as the table shows it ('not measured' for none)."""
    return "not measured" if value is None else render(value, DIFFERENCE, "text")


def verdict_text(verdicts: Sequence[tuple[str, int]]) -> str:
    """'bit-identical (all 8)', or 'bit-identical (1), within the float32 model (5)'."""
    if len(verdicts) == 1:
        verdict, count = verdicts[0]
        return verdict if count == 1 else f"{verdict} (all {count})"
    return ", ".join(f"{verdict} ({count})" for verdict, count in verdicts)


def _summary(table: Sequence[Row]) -> str:
    """Which rows are bit-identical throughout, which agree within a model, which differ."""

    def name(row: Row) -> str:
        what = ", ".join(x for x in (row.dtype, row.compared) if x)
        return _cell(row.library) + (f" ({_cell(what)})" if what else "")

    def having(verdict: str) -> list[str]:
        return [name(r) for r in table if any(verdict_class(v) == verdict for v, _ in r.verdicts)]

    exact = [name(r) for r in table if {v for v, _ in r.verdicts} == {"bit-identical"}]
    parts = []
    for label, names in (
        ("Bit-identical in every case", exact),
        ("Within the float32 model in some case", having("within the float32 model")),
        ("Within the float64 model in some case", having("within the float64 model")),
        ("Agrees (no model needed) in some case", having("agrees")),
        ("**Differs** in some case", having("differs")),
        ("Recorded only in some case", having("recorded only")),
        ("Not run", having("not run")),
    ):
        if names:
            parts.append(f"{label}: {', '.join(names)}.")
    return " ".join(parts)


def _cell(text: str) -> str:
    return markdown_text(text, math=False)


def section(data: Mapping[str, Any], link: str) -> str:
    """The Markdown that replaces the page's placeholder: what the record is, and its table.

    ``link`` is the relative path from the page to the published record.
    """
    table = rows(data)
    cases = data["cases"]
    shown = sum(row.cases for row in table)
    others = Counter(c["kind"] for c in cases if c["kind"] not in SHOWN)
    other_text = ""
    if others:
        listed = ", ".join(f"{others[k]} {k}" for k in KINDS if others[k])
        other_text = f" The record's other cases ({listed}) are not in this table."
    lines = [
        f"The last record of `make conformance`, made with Python {_cell(data['python'])} "
        f"and NumPy {_cell(data['numpy'])} on machine {_cell(data['machine'])}. "
        f"It holds {len(cases)} cases; the {shown} that compare a table of sinusoidal "
        "or rotary codes, or relative biases, are counted here, one row per library, dtype "
        "and comparison."
        f"{other_text} "
        f"[The record itself]({link}) is published with this site, byte for byte as "
        "this page was built from it.",
        "",
        '<div class="posenc-conformance" markdown>',
        "",
        "| Kind | Library | Version | Compared | Dtype | Cases | Largest difference | Verdicts |",
        "|---|---|---|---|---|--:|--:|---|",
    ]
    for row in table:
        lines.append(
            "| "
            + " | ".join(
                (
                    row.kind,
                    _cell(row.library),
                    _cell(", ".join(row.versions)),
                    _cell(row.compared),
                    _cell(row.dtype),
                    str(row.cases),
                    difference_text(row.largest_difference),
                    _cell(verdict_text(row.verdicts)),
                )
            )
            + " |"
        )
    if not table:
        lines.append("| (none) | | | | | 0 | | |")
    lines += ["", "</div>", "", _summary(table), ""]
    return "\n".join(lines)


def fill(markdown: str, data: Mapping[str, Any], src: str) -> str:
    """``markdown`` with the placeholder line replaced by the section, linked from ``src``."""
    if PLACEHOLDER not in markdown:
        return markdown
    up = posixpath.relpath(".", posixpath.dirname(src) or ".")
    link = PUBLISHED if up == "." else f"{up}/{PUBLISHED}"
    return markdown.replace(PLACEHOLDER, section(data, link))


# -- the MkDocs events ------------------------------------------------------------------

STATE: dict[str, Any] = {}


@event_priority(100)  # before the proofs run: a missing record fails the build at once
def on_config(config, **_):
    root = Path(config.config_file_path).resolve().parent
    try:
        STATE["raw"], STATE["data"] = load(root)
    except RecordError as exc:
        raise PluginError(f"posenc: {exc}") from None
    return config


def on_serve(server, config, **_):
    # watched from here, not from mkdocs.yml: a watch entry that does not exist fails the config
    # before on_config can say what is missing
    server.watch(str(Path(config.config_file_path).resolve().parent / RECORD))
    return server


def on_files(files, config, **_):
    files.append(File.generated(config, PUBLISHED, content=STATE["raw"]))
    return files


@event_priority(-100)  # after hooks/mkdocs_hooks.py has put the pages into the printable one
def on_page_markdown(markdown, page, **_):
    src = page.file.src_uri
    if src == PAGE and PLACEHOLDER not in markdown:
        raise PluginError(
            f"posenc: {PAGE}: the line {PLACEHOLDER} is gone; the conformance table goes there"
        )
    return fill(markdown, STATE["data"], src)
