"""Numbers on pages, bound to the checks that computed them.

A page never types a claimed number. It names a quantity that its proof
stated (``{{ name }}`` for the page's own proposition, ``{{ p14.name }}`` for
another's), and the build renders the value of the current run:

* :func:`render` replaces every reference, as TeX inside a formula and as
  text in prose;
* :func:`lint` finds what a page states without a name: decimals, numbers of
  three or more significant digits, powers of ten and percentages that are
  neither a quantity nor a declared input, and references to quantities that
  do not exist. Each finding names the page, the line and, where one is
  close, the quantity the number should have been.

Counting words, small integers, years, proposition and section numbers,
exponents and subscripts of formulas, code and link targets are not claims.

Plain Python, no MkDocs: the build and the tests call these functions, and
``python -m hooks.bind`` lints the pages from the command line.
"""

from __future__ import annotations

import bisect
import math
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from proofs.numbers import Show, parse_value
from proofs.numbers import render as render_value

#: ``{{ name }}`` or ``{{ p14.name }}``.
REF_RE = re.compile(r"\{\{\s*(?:p(?P<number>\d+)\.)?(?P<name>[a-z][a-z0-9_]*)\s*\}\}")
_ANY_BRACES = re.compile(r"\{\{(.*?)\}\}")


class BindError(ValueError):
    """A page names an unknown quantity, or states a number nothing backs."""


@dataclass(frozen=True)
class Value:
    """A quantity as the build knows it (from a proof result)."""

    number: int  # the proposition
    name: str
    value: Fraction | float
    show: Show
    check: int
    claim: str  # the claim of the check that establishes it
    kind: str

    def shown(self, target: str) -> str:
        return render_value(self.value, self.show, target)


Table = Mapping[int, Mapping[str, Value]]


def table(results: Mapping[int, Any]) -> dict[int, dict[str, Value]]:
    """Every quantity of every proof result, by proposition number and name."""
    out: dict[int, dict[str, Value]] = {}
    for number, result in results.items():
        checks = {c.get("number", i + 1): c for i, c in enumerate(result.checks)}
        out[number] = {
            q["name"]: Value(
                number=number,
                name=q["name"],
                value=parse_value(q["value"]) if q["exact"] else float(q["value"]),
                show=Show.from_dict(q["show"]),
                check=q["check"],
                claim=checks[q["check"]]["claim"],
                kind=checks[q["check"]]["kind"],
            )
            for q in result.quantities
        }
        # A declared input is named the same way: the page then follows the proof's
        # choice (a width, a base) instead of typing it twice.
        for name, text in getattr(result, "inputs", {}).items():
            out[number].setdefault(
                name,
                Value(
                    number=number,
                    name=name,
                    value=Fraction(text),
                    show=Show() if Fraction(text).denominator == 1 else Show(style="fraction"),
                    check=0,
                    claim="an input the proof declares",
                    kind="input",
                ),
            )
    return out


def inputs_of(results: Mapping[int, Any]) -> dict[int, dict[str, Fraction]]:
    """The declared inputs of every proof, as exact values."""
    return {n: {k: Fraction(v) for k, v in r.inputs.items()} for n, r in results.items()}


# -- reading Markdown: what is prose, what is a formula, what is neither --------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_SEGMENT = re.compile(
    r"(?P<comment><!--.*?-->)"
    r"|(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<display>\$\$.+?\$\$)"
    r"|(?P<inline>(?<![\\$])\$(?=\S)(?:\\\$|[^$\n])*?(?<=[^\s\\])\$(?!\$))"
    r"|(?P<target>\]\([^)\s]*\))"
    r"|(?P<attr>\{[:#][^}]*\})"
    r"|(?P<tag></?[a-zA-Z][^>\n]*>)"
    r"|(?P<url><https?://[^>]+>|https?://\S+)",
    re.S,
)


@dataclass(frozen=True)
class Segment:
    kind: str  # "text", "math", "code" (never touched) or "skip" (markup: no claims)
    start: int
    end: int


def segments(text: str) -> list[Segment]:
    """Split Markdown into prose, formulas, and parts that carry no claim."""
    out: list[Segment] = []
    position = 0
    fenced = False
    offsets, cursor = [], 0
    for line in text.splitlines(keepends=True):
        offsets.append((cursor, line))
        cursor += len(line)
    # Fenced code and snippet includes are skipped line by line first.
    skip_lines: list[tuple[int, int]] = []
    for start, line in offsets:
        if _FENCE.match(line):
            fenced = not fenced
            skip_lines.append((start, start + len(line)))
        elif fenced or "--8<--" in line:
            skip_lines.append((start, start + len(line)))
    pieces: list[tuple[int, int]] = []  # the parts outside fences
    for start, end in skip_lines:
        if position < start:
            pieces.append((position, start))
        out.append(Segment("code", start, end))
        position = end
    if position < len(text):
        pieces.append((position, len(text)))
    for low, high in pieces:
        here = low
        for match in _SEGMENT.finditer(text, low, high):
            if here < match.start():
                out.append(Segment("text", here, match.start()))
            kind = {"display": "math", "inline": "math", "code": "code"}.get(
                match.lastgroup, "skip"
            )
            out.append(Segment(kind, match.start(), match.end()))
            here = match.end()
        if here < high:
            out.append(Segment("text", here, high))
    return sorted(out, key=lambda s: s.start)


# -- rendering -----------------------------------------------------------------------


def _lookup(match: re.Match[str], values: Table, own: int | None) -> Value | None:
    number = int(match.group("number")) if match.group("number") else own
    if number is None:
        return None
    return values.get(number, {}).get(match.group("name"))


def render(text: str, values: Table, own: int | None = None, *, plain: bool = False) -> str:
    """Replace every quantity reference in ``text`` by its value from this run.

    ``own`` is the proposition whose quantities unqualified names refer to.
    ``plain=True`` is for text that is never Markdown (alt text, a page
    description): values are Unicode text. A reference in code is left alone.
    An unknown name raises :class:`BindError`; :func:`lint` reports it first,
    with its line.
    """

    def one(match: re.Match[str], target: str) -> str:
        value = _lookup(match, values, own)
        if value is None:
            raise BindError(f"unknown quantity {match.group(0)!r}")
        return value.shown(target)

    if plain:
        return REF_RE.sub(lambda m: one(m, "text"), text)
    parts = []
    for seg in segments(text):
        piece = text[seg.start : seg.end]
        if "{{" in piece and seg.kind != "code":
            target = {"math": "tex", "text": "markdown"}.get(seg.kind, "text")
            piece = REF_RE.sub(lambda m, t=target: one(m, t), piece)
        parts.append(piece)
    return "".join(parts)


def render_entry(entry: Any, values: Table) -> Any:
    """A registry entry with its statement and figure alt texts rendered."""
    from dataclasses import replace

    from hooks.registry import Figure

    figures = tuple(
        Figure(f.name, render(f.alt, values, entry.number, plain=True)) for f in entry.figures
    )
    return replace(entry, statement=render(entry.statement, values, entry.number), figures=figures)


# -- the lint ------------------------------------------------------------------------

_SUP = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"
_NUMERAL = re.compile(
    r"(?P<sci>\d+(?:\.\d+)?\s*(?:\\times|×|\\cdot|·)\s*10\s*(?:\^\s*\{?\s*[-−+]?\d+\s*\}?|["
    + _SUP
    + r"]+))"
    r"|(?P<enot>\d+(?:\.\d+)?[eE][-+]?\d+)"
    r"|(?P<pow>10\s*(?:\^\s*\{?\s*[-−+]?\d+\s*\}?|\*\*\s*-?\d+|[" + _SUP + r"]+))"
    r"|(?P<percent>\d+(?:\.\d+)?\s*(?:\\%|%|\s?per\s+cent\b|\s?percent\b))"
    r"|(?P<number>\d{1,3}(?:(?:,|\{,\}|\\,)\d{3})+(?:\.\d+)?|\d+\.\d+|\d+)"
)
#: A numeral right after one of these is a label, not a claim.
_LABEL_BEFORE = re.compile(
    r"(?:Propositions?|Theorem|Section|section|Sections|§|Step|Table|Figure|Exercise|"
    r"Python|SymPy|NumPy|mpmath|KaTeX|Node(?:\.js)?|version|arXiv:?|PR|issue|Issue|"
    r"Chromium|torch|PyTorch|transformers|Material|MkDocs|ES|HTTP|ISO|IEEE|Llama|GPT-?|"
    r"Qwen|Phi-|T)\s*#?$"
)
_VERSION = re.compile(r"\d+\.\d+\.\d+")


@dataclass(frozen=True)
class Finding:
    page: str
    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.message}"


def _value_of(match: re.Match[str]) -> Fraction | None:
    """The exact value a numeral states (for comparing it with inputs and quantities)."""
    raw = match.group(0).replace("−", "-")
    kind = match.lastgroup
    try:
        if kind in ("sci", "pow"):
            if kind == "sci":
                mantissa_text = re.match(r"\d+(?:\.\d+)?", raw).group(0)
                mantissa = Fraction(mantissa_text)
                tail = raw[len(mantissa_text) :]
            else:
                mantissa, tail = Fraction(1), raw[2:]
            sup = "".join(c for c in tail if c in _SUP)
            if sup:
                exponent = int(sup.translate(str.maketrans(_SUP, "0123456789-")))
            else:
                exponent = int(re.findall(r"[-+]?\d+", tail.split("10", 1)[-1])[-1])
            return mantissa * Fraction(10) ** exponent
        if kind == "enot":
            return Fraction(raw.lower())
        if kind == "percent":
            return Fraction(re.match(r"\d+(?:\.\d+)?", raw).group(0)) / 100
        digits = raw.replace("{,}", "").replace("\\,", "").replace(",", "")
        return Fraction(digits)
    except (ValueError, AttributeError, IndexError, ZeroDivisionError):
        return None


def _is_claim(match: re.Match[str], value: Fraction | None) -> bool:
    """Decimals, 3+ significant digits, powers of ten, percentages: claims."""
    kind = match.lastgroup
    if kind in ("sci", "enot", "pow", "percent"):
        return True
    raw = match.group(0)
    if "." in raw:
        return True
    digits = raw.replace("{,}", "").replace("\\,", "").replace(",", "")
    if len(digits) == 4 and "," not in raw and 1500 <= int(digits) <= 2039:
        return False  # a year
    significant = digits.lstrip("0").rstrip("0")
    if len(significant) >= 3:
        return True
    return value is not None and value >= 100 and _is_power_of_ten(value)


def _is_power_of_ten(value: Fraction) -> bool:
    if value <= 0:
        return False
    exponent = round(math.log10(value))
    return Fraction(10) ** exponent == value


def _in_script(text: str, start: int) -> bool:
    """Is position ``start`` inside the exponent or subscript of a formula?"""
    before = text[max(0, start - 40) : start]
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        char = before[i]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                return i > 0 and before[i - 1] in "^_"
            depth -= 1
    return before.endswith(("^", "_"))


def _numerals(text: str, math_mode: bool) -> Iterator[re.Match[str]]:
    for match in _NUMERAL.finditer(text):
        start, end = match.span()
        before = text[:start]
        if (
            start
            and (text[start - 1].isalpha() or text[start - 1] in "_.\\/-#")
            and not (text[start - 1] == "-" and (start < 2 or not text[start - 2].isalnum()))
        ):
            continue  # part of a name (float32, p14, E1), a path, or a range 3-4
        if end < len(text) and (text[end].isalpha() or text[end] == "_"):
            if match.lastgroup == "number":
                continue  # 2i, 3rd, 512d: an index or an ordinal
        if _LABEL_BEFORE.search(before[-24:]):
            continue
        if match.lastgroup == "number" and _VERSION.match(text, start):
            continue
        if math_mode and _in_script(text, start):
            continue
        yield match


def _suggest(value: Fraction | None, candidates: Mapping[str, Value]) -> str:
    if value is None or value == 0 or not candidates:
        return ""
    target = abs(float(value))

    def distance(item: Value) -> float:
        size = abs(float(item.value))
        return abs(math.log(size / target)) if size else math.inf

    best = min(candidates.values(), key=distance)
    if distance(best) > math.log(10):
        return ""
    return f"; the closest quantity is {{{{ {best.name} }}}} = {best.shown('text')}"


def lint(
    text: str,
    *,
    page: str,
    values: Table,
    own: int | None = None,
    inputs: Mapping[str, Fraction] | None = None,
    first_line: int = 1,
    skip_line: re.Pattern[str] | None = None,
) -> list[Finding]:
    """Every unbound number and every unknown or malformed reference in ``text``."""
    findings: list[Finding] = []
    allowed = set((inputs or {}).values())
    mine = values.get(own, {}) if own is not None else {}
    starts = [0]
    for match in re.finditer("\n", text):
        starts.append(match.end())

    def line_of(offset: int) -> int:
        return first_line + bisect.bisect_right(starts, offset) - 1

    def skipped(offset: int) -> bool:
        if skip_line is None:
            return False
        index = line_of(offset) - first_line
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        return bool(skip_line.match(text[starts[index] : end]))

    for seg in segments(text):
        piece = text[seg.start : seg.end]
        if seg.kind == "code":
            continue
        for match in _ANY_BRACES.finditer(piece):
            where = seg.start + match.start()
            if skipped(where):
                continue
            ref = REF_RE.fullmatch(match.group(0))
            if ref is None:
                findings.append(
                    Finding(
                        page,
                        line_of(where),
                        match.group(0),
                        f"{match.group(0)!r} is not a quantity reference: write {{{{ name }}}} "
                        "or {{ pN.name }}",
                    )
                )
            elif _lookup(ref, values, own) is None:
                scope = f"Proposition {ref.group('number') or own}"
                known = sorted(values.get(int(ref.group("number") or own or 0), {}))
                findings.append(
                    Finding(
                        page,
                        line_of(where),
                        match.group(0),
                        f"unknown quantity {match.group(0)} ({scope} states "
                        + (", ".join(known) if known else "no quantities")
                        + ")",
                    )
                )
        if seg.kind == "skip":
            continue
        bare = REF_RE.sub(lambda m: " " * len(m.group(0)), piece)
        for match in _numerals(bare, seg.kind == "math"):
            where = seg.start + match.start()
            if skipped(where):
                continue
            value = _value_of(match)
            if not _is_claim(match, value) or (value is not None and value in allowed):
                continue
            shown = match.group(0).strip()
            findings.append(
                Finding(
                    page,
                    line_of(where),
                    shown,
                    f"{shown!r} is a typed number: name the quantity that states it, or "
                    "declare it an input of the proposition" + _suggest(value, mine),
                )
            )
    return findings


# -- whole pages ---------------------------------------------------------------------

#: Front-matter lines that are data, not prose.
DATA_LINE = re.compile(r"^\s*(?:-\s*)?(?:number|uses|proof|sources|name|inputs|search)\s*:")


def lint_page(
    path: Path,
    docs: Path,
    *,
    values: Table,
    own: int | None,
    inputs: Mapping[str, Fraction],
) -> list[Finding]:
    """Lint one Markdown page, front matter included, with its real line numbers."""
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(docs).as_posix() if path.is_relative_to(docs) else str(path)
    return lint(text, page=page, values=values, own=own, inputs=inputs, skip_line=DATA_LINE)


def lint_why(result: Any, root: Path, values: Table) -> list[Finding]:
    """Lint the 'why' of each misreading, which the page shows as prose."""
    findings = []
    proof = root / "proofs" / result.file
    source = proof.read_text(encoding="utf-8").splitlines() if proof.is_file() else []
    inputs = {k: Fraction(v) for k, v in result.inputs.items()}
    for misreading in result.misreadings:
        why = misreading.get("why") or ""
        head = why[:30]
        line = next((i + 1 for i, text in enumerate(source) if head and head in text), 1)
        for finding in lint(
            why,
            page=f"proofs/{result.file}",
            values=values,
            own=result.number,
            inputs=inputs,
            first_line=line,
        ):
            findings.append(
                Finding(
                    finding.page,
                    line,
                    finding.text,
                    f"misreading {misreading['claim'][:40]!r}: {finding.message}",
                )
            )
    return findings


def main(argv: list[str] | None = None) -> int:
    """``python -m hooks.bind [PAGE ...]``: lint pages against the last proof report."""
    import argparse

    from proofs import runner

    parser = argparse.ArgumentParser(prog="python -m hooks.bind", description=main.__doc__)
    parser.add_argument("pages", nargs="*", type=Path, help="pages to lint (default: all)")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parent.parent
    docs = root / "docs"
    results = {r.number: r for r in runner.run(progress=None)}
    findings = lint_site(docs, root, results, only=args.pages or None)
    for finding in findings:
        print(finding)
    print(f"{len(findings)} finding(s)", file=sys.stderr)
    return 1 if findings else 0


#: Pages that are generated or hold no claims of their own.
#: Exercise pages state tasks: their data are inputs, and their worked answers
#: are checked against independent computations by tests/test_exercise_pages.py.
NOT_LINTED = ("reference/", "propositions/all.md", "bibliography.md", "exercises/")


def lint_site(
    docs: Path,
    root: Path,
    results: Mapping[int, Any],
    only: list[Path] | None = None,
    entries: Mapping[int, Any] | None = None,
) -> list[Finding]:
    """Lint every page of the site (or ``only`` these) and every misreading's 'why'.

    ``entries`` is the registry when the caller has already loaded it.
    """
    from hooks import registry

    values = table(results)
    inputs = inputs_of(results)
    entries = registry.load(docs, root) if entries is None else entries
    by_page = {e.page: e for e in entries.values()}
    findings: list[Finding] = []
    paths = sorted(docs.rglob("*.md"))
    if only:
        wanted = {p.resolve() for p in only}
        paths = [p for p in paths if p.resolve() in wanted]
    for path in paths:
        page = path.relative_to(docs).as_posix()
        if page.startswith(NOT_LINTED) or page.startswith("includes/"):
            continue
        entry = by_page.get(page)
        own = entry.number if entry else None
        declared = inputs.get(own, {}) if own else _page_inputs(path)
        findings += lint_page(path, docs, values=values, own=own, inputs=declared)
    linted = [by_page.get(path.relative_to(docs).as_posix()) for path in paths]
    numbers = {entry.number for entry in linted if entry is not None}
    for number, result in sorted(results.items()):
        if number in numbers:
            findings += lint_why(result, root, values)
    return sorted(findings, key=lambda f: (f.page, f.line))


def _page_inputs(path: Path) -> dict[str, Fraction]:
    """A page that is not a proposition declares its inputs in its front matter."""
    from hooks import registry

    data, _ = registry.front_matter(path.read_text(encoding="utf-8"))
    declared = data.get("inputs") or {}
    if not isinstance(declared, dict):
        raise BindError(f"{path.name}: inputs must map names to numbers")
    return {str(k): Fraction(str(v)) for k, v in declared.items()}


if __name__ == "__main__":
    sys.exit(main())
