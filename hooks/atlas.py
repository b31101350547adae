"""The model atlas: every model family of the pinned Transformers, as posenc reads it.

``make conformance`` (``conformance/test_zoo.py``) builds each family's default config,
reads it with :func:`posenc.model_config.read_model` and compares the reading with the
family's own rotary code, recording one case of kind "zoo" per family in
``conformance/record.json``. This module turns those cases into the atlas: one page per
range of initial letters (``docs/atlas/a-d.md``, ...), each holding the line
``<!-- posenc-atlas -->`` that the table replaces, and an index page
(``docs/atlas/index.md``, the line ``<!-- posenc-atlas-index -->``) with the counts and
a link to every family's row. Nothing on these pages is typed by hand: a changed record
changes the pages. Each cell links to the proposition that explains it.

The functions take plain data and return plain data; the MkDocs events at the end only
hand it over (``mkdocs.yml`` lists this file under ``hooks``).
"""

from __future__ import annotations

import html
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # MkDocs loads this file by path, not as part of a package
    sys.path.insert(0, str(ROOT))

from hooks.conformance import RecordError, load  # noqa: E402

#: The pages of the atlas: (file under docs/atlas/, first initial, last initial).
GROUPS = (
    ("a-d", "a", "d"),
    ("e-f", "e", "f"),
    ("g", "g", "g"),
    ("h-l", "h", "l"),
    ("m-o", "m", "o"),
    ("p-q", "p", "q"),
    ("r-z", "r", "z"),
)
FOLDER = "atlas/"
INDEX = FOLDER + "index.md"
PLACEHOLDER = "<!-- posenc-atlas -->"
INDEX_PLACEHOLDER = "<!-- posenc-atlas-index -->"

#: The proposition that explains each scheme, and each other column.
SCHEME_PROPOSITION = {
    "default": 22,
    "proportional": 31,
    "linear": 24,
    "dynamic": 26,
    "yarn": 27,
    "llama3": 28,
    "longrope": 29,
    "axial": 30,
}
PAIRING_PROPOSITION = 23
MROPE_PROPOSITION = 30
#: The proposition on attention layers without position code inside a rotary stack.
NOPE_PROPOSITION = 34
#: The proposition on what a sliding-window layer sees, linked from its layer type.
SLIDING_PROPOSITION = 33
FACTOR_PROPOSITION = {"yarn": 27, "longrope": 29}


class AtlasError(ValueError):
    """The record or an atlas page is not as the atlas needs it."""


def _zoo(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    cases = [c for c in data["cases"] if c.get("kind") == "zoo"]
    if not cases:
        raise AtlasError(
            "conformance/record.json holds no case of kind 'zoo': run `make conformance`"
        )
    return cases


def families(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The zoo's families (one case per model type, from its default config), by name."""
    cases = [c for c in _zoo(data) if c["case"] == c.get("model_type")]
    return sorted(cases, key=lambda c: str(c["case"]).lower())


def variants(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The zoo's other cases: a family's default config with a scaled rotary, by name."""
    cases = [c for c in _zoo(data) if c["case"] != c.get("model_type")]
    return sorted(cases, key=lambda c: str(c["case"]).lower())


def published(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The published configs of data/configs, each built by its family (kind "config")."""
    cases = [c for c in data["cases"] if c.get("kind") == "config"]
    return sorted(cases, key=lambda c: str(c["case"]).lower())


def group_of(model_type: str) -> str:
    """The atlas page a model type's row is on."""
    initial = model_type[:1].lower()
    for name, first, last in GROUPS:
        if first <= initial <= last:
            return name
    return GROUPS[-1][0]


def _link(text: str, number: int, pages: Mapping[int, str]) -> str:
    """``text`` linked to Proposition ``number``'s page, from a page of the atlas."""
    return f"[{text}](../{pages[number]})"


class _Cited(dict):
    """A stand-in for the map of pages that notes every proposition a row links to."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[int] = set()

    def __missing__(self, number: int) -> str:
        self.found.add(number)
        return ""


def citations(data: Mapping[str, Any]) -> dict[int, int]:
    """How many families' rows of the atlas link to each proposition, by its number."""
    counts: Counter = Counter()
    for case in families(data):
        cited = _Cited()
        row(case, cited)
        counts.update(cited.found)
    return dict(sorted(counts.items()))


def _verdict(case: Mapping[str, Any]) -> tuple[str, str | None]:
    """The verdict's head ("agrees", "differs", "not modelled", ...) and why, if not agreed."""
    verdict = str(case["verdict"])
    if verdict == "agrees":
        return "agrees", None
    head, _, reason = verdict.partition(":")
    if head == "differs":
        shown = "; ".join(f"{k}: {v}" for k, v in sorted((case.get("differences") or {}).items()))
        known = case.get("known")
        why = (f"known: {known}. " if known else "") + (f"Found: {shown}" if shown else "")
        return head, why or None
    return head, reason.strip() or None


def slug(name: str) -> str:
    """An HTML id for a case's name ("llama [yarn, rope_scaling]" has spaces)."""
    return re.sub(r"[^a-z0-9_]+", "-", name.lower()).strip("-")


def _cell(text: str) -> str:
    return html.escape(str(text)).replace("|", "\\|").replace("\n", " ")


def row(case: Mapping[str, Any], pages: Mapping[int, str], anchor: bool = True) -> list[str]:
    """One family's cells: family, kinds of layer, scheme, base, width, pairing, axes,
    attention factor, and whether the conformance run agreed."""
    reading = case.get("posenc") or {}
    kinds = reading.get("kinds") or []
    parts: dict[str, list[str]] = {
        k: [] for k in ("layers", "scheme", "base", "width", "pairing", "axes", "factor")
    }
    for kind in kinds:
        name = _cell(kind.get("name", "all"))
        count = len(kind.get("layers") or ())
        layers = f"{name} ({count})" if count else name
        if "sliding" in name:
            layers = _link(layers, SLIDING_PROPOSITION, pages)
        if not kind.get("rotates"):
            parts["layers"].append(layers)
            parts["scheme"].append(_link("none (NoPE)", NOPE_PROPOSITION, pages))
            for key in ("base", "width", "pairing", "axes", "factor"):
                parts[key].append("-")
            continue
        scheme = str(kind.get("scheme"))
        factor = (kind.get("params") or {}).get("factor")
        text = scheme + (f" (s {float(factor):g})" if factor is not None else "")
        parts["layers"].append(layers)
        parts["scheme"].append(_link(_cell(text), SCHEME_PROPOSITION.get(scheme, 22), pages))
        parts["base"].append(f"{float(kind['base']):g}")
        parts["width"].append(f"{kind.get('rotary_dim')} / {kind.get('head_dim')}")
        pairing = kind.get("pairing") or "-"
        parts["pairing"].append(
            _link(pairing, PAIRING_PROPOSITION, pages) if pairing != "-" else "-"
        )
        mrope = kind.get("mrope")
        if mrope:
            layout, sections = mrope
            parts["axes"].append(_link(f"{layout} {list(sections)}", MROPE_PROPOSITION, pages))
        else:
            parts["axes"].append("1")
        attention = kind.get("attention_factor") or 1.0
        if attention != 1.0:
            proposition = FACTOR_PROPOSITION.get(scheme, 27)
            parts["factor"].append(_link(f"{float(attention):.4g}", proposition, pages))
        else:
            parts["factor"].append("1")
    if not kinds:
        parts = {k: ["-"] for k in parts}
    name = _cell(case["case"])
    head, why = _verdict(case)
    return [
        f'<span id="{name}"></span>`{name}`' if anchor else f"`{name}`",
        f"[{_cell(head)}](#why-{slug(str(case['case']))})" if why else _cell(head),
        *("<br>".join(values) for values in parts.values()),
    ]


HEADS = (
    "Family", "make conformance", "Layers", "Scheme", "Base", "Rotated / head", "Pairing",
    "Position axes", "Attention factor",
)  # fmt: skip


def table(
    cases: Sequence[Mapping[str, Any]],
    pages: Mapping[int, str],
    first: str = HEADS[0],
    anchor: bool = True,
) -> str:
    """The Markdown table of the given cases; ``first`` heads their first column."""
    heads = (first, *HEADS[1:])
    lines = ['<div class="posenc-atlas" markdown>', ""]
    lines += ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for case in cases:
        lines.append("| " + " | ".join(row(case, pages, anchor)) + " |")
    lines += ["", "</div>"]
    reasons = [(c, _verdict(c)) for c in cases]
    reasons = [(c, head, why) for c, (head, why) in reasons if why]
    if reasons:
        lines += ["", "Where `make conformance` did not agree, and why:", ""]
        for case, head, why in reasons:
            name = str(case["case"])
            lines.append(
                f'- <span id="why-{slug(name)}"></span>`{_cell(name)}`, {head}: {_cell(why)}'
            )
    return "\n".join(lines) + "\n"


def counts(cases: Sequence[Mapping[str, Any]]) -> Counter:
    """How many families have each verdict (without its reason)."""
    return Counter(str(c["verdict"]).partition(":")[0] for c in cases)


def index(data: Mapping[str, Any], pages: Mapping[int, str]) -> str:
    """The index page's part: the counts, every family linked to its row, then the
    scaled variants and the published configs, each in a table."""
    cases = families(data)
    version = ", ".join(sorted({str(c["version"]) for c in cases}))
    total = counts(cases)
    said = ", ".join(f"{n} {verdict}" for verdict, n in sorted(total.items(), key=lambda x: -x[1]))
    lines = [
        f"Transformers {version}: {len(cases)} model types with a rotary class in their"
        f" modeling code; {said}.",
        "",
    ]
    for name, first, last in GROUPS:
        members = [c for c in cases if group_of(str(c["case"])) == name]
        title = first.upper() if first == last else f"{first.upper()} to {last.upper()}"
        links = ", ".join(f"[`{_cell(c['case'])}`]({name}.md#{_cell(c['case'])})" for c in members)
        lines += [f"**[{title}]({name}.md)** ({len(members)}): {links}", ""]
    scaled = variants(data)
    if scaled:
        lines += [
            "## Scaled variants",
            "",
            "A family's default config with one scaled rotary written into it, in the form"
            " named in brackets, built by the family's code and read by posenc.",
            "",
            table(scaled, pages, "Variant", anchor=False),
        ]
    configs = published(data)
    if configs:
        lines += [
            "## Published configs",
            "",
            "The configs of released models in `data/configs` (their sources are in its"
            " README), each built by its family's code and read by posenc.",
            "",
            table(configs, pages, "Config", anchor=False),
        ]
    return "\n".join(lines)


def fill(markdown: str, src: str, data: Mapping[str, Any], pages: Mapping[int, str]) -> str:
    """``markdown`` of the atlas page ``src`` with its placeholder filled."""
    cases = families(data)
    if src == INDEX:
        if INDEX_PLACEHOLDER not in markdown:
            raise AtlasError(f"{src}: the line {INDEX_PLACEHOLDER} is gone")
        return markdown.replace(INDEX_PLACEHOLDER, index(data, pages))
    name = src.removeprefix(FOLDER).removesuffix(".md")
    if name not in {g for g, _, _ in GROUPS}:
        return markdown
    if PLACEHOLDER not in markdown:
        raise AtlasError(f"{src}: the line {PLACEHOLDER} is gone; the table goes there")
    members = [c for c in cases if group_of(str(c["case"])) == name]
    return markdown.replace(PLACEHOLDER, table(members, pages))


# -- the MkDocs events ------------------------------------------------------------------

STATE: dict[str, Any] = {}


def on_config(config, **_):
    from hooks import registry

    root = Path(config.config_file_path).resolve().parent
    try:
        STATE["data"] = load(root)[1]
        families(STATE["data"])
    except (RecordError, AtlasError) as exc:
        raise PluginError(f"posenc: {exc}") from None
    propositions = registry.load(root / "docs", root)
    STATE["pages"] = {number: p.page for number, p in propositions.items()}
    return config


def on_page_markdown(markdown, page, **_):
    src = page.file.src_uri
    if not src.startswith(FOLDER):
        return markdown
    try:
        return fill(markdown, src, STATE["data"], STATE["pages"])
    except AtlasError as exc:
        raise PluginError(f"posenc: {exc}") from None
