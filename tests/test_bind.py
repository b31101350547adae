"""Numbers on pages: rendering quantities, the lint, and the display rules.

The expected strings are written out by hand here, from the rounding rules
(half to even, away from zero, towards zero), not taken from an earlier run.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from hooks import bind
from proofs.numbers import Show, render

ROOT = Path(__file__).resolve().parent.parent


def value(name: str, number, show: Show, own: int = 14) -> bind.Value:
    return bind.Value(own, name, number, show, 1, "a claim", "numeric")


VALUES = {
    14: {
        "err": value("err", 0.0930302, Show(sig=2)),
        "limit": value("limit", Fraction(2**24), Show()),
        "tiny": value("tiny", 8.51975e-05, Show(sig=2)),
    },
    5: {"ratio": value("ratio", 1.0366329284376, Show(sig=7), own=5)},
}


# -- display rules -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("number", "show", "text", "tex"),
    [
        (0.0930302, Show(sig=2), "0.093", "0.093"),
        (0.0065, Show(sig=1), "0.006", "0.006"),  # 0.0065 in binary is just below: 0.006
        (Fraction(65, 10000), Show(sig=1), "0.006", "0.006"),  # exact tie: half to even
        (Fraction(75, 10000), Show(sig=1), "0.008", "0.008"),  # exact tie: half to even
        (8.51975e-05, Show(sig=2), "8.5 × 10⁻⁵", r"8.5 \times 10^{-5}"),
        (Fraction(2**24), Show(), "16,777,216", "16{,}777{,}216"),
        (2048, Show(), "2048", "2048"),
        (14.1547, Show(sig=2, rounding="up"), "15", "15"),
        (14.1547, Show(decimals=1), "14.2", "14.2"),
        (0.0366329, Show(sig=3, percent=True), "3.66%", r"3.66\%"),
        (Fraction(1, 16), Show(style="fraction"), "1/16", r"\tfrac{1}{16}"),
        (9.96e-11, Show(sig=1), "10⁻¹⁰", "10^{-10}"),
        (9.96e-11, Show(sig=2), "1.0 × 10⁻¹⁰", r"1.0 \times 10^{-10}"),
        (60611.52, Show(decimals=1), "60,611.5", "60{,}611.5"),
        (-0.416147, Show(sig=6), "-0.416147", "-0.416147"),
        (0.9999, Show(sig=2, rounding="down"), "0.99", "0.99"),
        (3.5, Show(sig=1, unit="ulp"), "4 ulp", r"4\ \text{ulp}"),
        (-1e6, Show(sig=1), "-10⁶", "-10^{6}"),
        (-2e6, Show(sig=1), "-2 × 10⁶", r"-2 \times 10^{6}"),
    ],
)
def test_render_follows_the_rule(number, show, text, tex):
    assert render(number, show, "text") == text
    assert render(number, show, "tex") == tex


def test_markdown_writes_powers_of_ten_as_formulas():
    assert render(8.5e-5, Show(sig=2), "markdown") == r"$8.5 \times 10^{-5}$"
    assert render(0.093, Show(sig=2), "markdown") == "0.093"


def test_render_refuses_what_it_cannot_show():
    with pytest.raises(ValueError, match="not an integer"):
        render(0.5, Show())
    with pytest.raises(TypeError, match="exact"):
        render(0.5, Show(style="fraction"))
    with pytest.raises(ValueError):
        Show(sig=2, decimals=1)
    with pytest.raises(ValueError):
        render(float("nan"), Show(sig=2))


# -- rendering references ------------------------------------------------------------


def test_references_render_as_tex_in_formulas_and_text_in_prose():
    text = "Off by {{ err }}; $2^{24} = {{ limit }}$; also {{ p5.ratio }} and {{ tiny }}."
    out = bind.render(text, VALUES, 14)
    assert out == (
        "Off by 0.093; $2^{24} = 16{,}777{,}216$; also 1.036633 and "
        r"$8.5 \times 10^{-5}$."
    )


def test_plain_text_has_no_markup():
    assert bind.render("{{ tiny }}", VALUES, 14, plain=True) == "8.5 × 10⁻⁵"


def test_references_in_code_are_left_alone():
    text = "Write `{{ err }}` to show {{ err }}.\n\n```\n{{ err }}\n```\n"
    assert (
        bind.render(text, VALUES, 14)
        == "Write `{{ err }}` to show 0.093.\n\n```\n{{ err }}\n```\n"
    )


def test_a_changed_quantity_changes_every_page_that_shows_it():
    page_a, page_b = "Error {{ p14.err }}.", "$e = {{ p14.err }}$"
    before = [bind.render(p, VALUES) for p in (page_a, page_b)]
    changed = {**VALUES, 14: {**VALUES[14], "err": value("err", 0.0712, Show(sig=2))}}
    after = [bind.render(p, changed) for p in (page_a, page_b)]
    assert before == ["Error 0.093.", "$e = 0.093$"]
    assert after == ["Error 0.071.", "$e = 0.071$"]


def test_an_unknown_name_is_an_error():
    with pytest.raises(bind.BindError, match="nope"):
        bind.render("{{ nope }}", VALUES, 14)
    with pytest.raises(bind.BindError):
        bind.render("{{ err }}", VALUES, None)  # no proposition of its own


# -- the lint ------------------------------------------------------------------------


def findings(text: str, **inputs) -> list[bind.Finding]:
    declared = {k: Fraction(v) for k, v in inputs.items()}
    return bind.lint(text, page="p.md", values=VALUES, own=14, inputs=declared)


def test_the_lint_catches_an_unbound_decimal_with_page_line_and_quantity():
    [found] = findings("First line.\nNear a million the error is 0.09.\n")
    assert (found.page, found.line, found.text) == ("p.md", 2, "0.09")
    assert "{{ err }}" in found.message and "0.093" in found.message
    assert str(found).startswith("p.md:2: ")


@pytest.mark.parametrize(
    "claim",
    [
        "about 3.66 per cent",
        "a drift of 5%",
        "an error near $10^{-2}$",
        "an error of 1e-2",
        "$6 \\times 10^{-8}$ apart",
        "exact up to 2048",
        "as many as 16,777,216 positions",
        "$2^{24} = 16{,}777{,}216$",
        "9646.616",
        "1000 positions",
    ],
)
def test_the_lint_flags_every_kind_of_result(claim):
    assert findings(claim), claim


@pytest.mark.parametrize(
    "fine",
    [
        "Proposition 13 and Propositions 12 and 14",
        "Vaswani et al. 2017 and Press et al. (2022)",
        "three pairs, 2 columns, 12 heads, 64 dims",
        "`posenc table --length 1000`",
        "```\nx = 0.093\n```",
        "float32, bfloat16 and p14 and E1",
        "$2^{24}$ and $b^{2i/d}$ and $\\lambda_{255}$ and $10000^{-2i/d}$",
        "[link](https://example.org/2306.15595)",
        "Python 3.11 and KaTeX 0.19.1",
        "<!-- posenc:statement -->",
    ],
)
def test_the_lint_passes_what_is_not_a_claim(fine):
    # 10000 appears above as a base: declared as an input.
    assert not findings(fine, base=10000), [str(f) for f in findings(fine, base=10000)]


def test_declared_inputs_may_be_typed_in_any_spelling():
    text = "At $d = 512$, base 10,000 and position $10^6$ (also 10000 and 1000000)."
    assert not findings(text, d=512, base=10000, position=10**6)
    assert findings(text, d=512, base=10000)  # 10^6 is not declared


def test_the_lint_reports_unknown_and_malformed_references():
    found = findings("Bad {{ nope }} and {{ p5.missing }} and {{ Not A Name }}.")
    assert len(found) == 3
    assert "unknown quantity {{ nope }}" in found[0].message
    assert "Proposition 5 states ratio" in found[1].message
    assert "not a quantity reference" in found[2].message


def test_every_page_of_the_site_is_lint_clean():
    """The lint of the strict build, run on the real pages and the last proof report."""
    from proofs import runner

    results = {r.number: r for r in runner.run()}
    problems = bind.lint_site(ROOT / "docs", ROOT, results)
    assert not problems, "\n".join(map(str, problems))


def test_every_reference_on_the_pages_names_a_quantity():
    from proofs import runner

    values = bind.table({r.number: r for r in runner.run()})
    pages = sorted((ROOT / "docs").rglob("*.md"))
    # As the build reads them: a reference inside code is shown as written, not bound
    # (How to cite shows the notation itself, in backticks).
    refs = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for seg in bind.segments(text):
            if seg.kind != "code":
                piece = text[seg.start : seg.end]
                refs += [(page, m) for m in bind.REF_RE.finditer(piece)]
    assert refs, "the pages name no quantity at all"
    for path, match in refs:
        number = match.group("number")
        if number is None:
            found = re.match(r"p(\d\d)-", path.name)
            assert found, f"{path}: an unqualified {match.group(0)} outside a proposition page"
            number = found.group(1)
        assert match.group("name") in values[int(number)], f"{path}: {match.group(0)}"
