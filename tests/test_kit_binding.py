"""The kit binds a quantity only to a check that compared it (issue 34).

Each test below is one pattern a reviewer found by mutating the proofs one token at a
time: a number the page showed rode on a check that never looked at it. Each builds the
pattern with the kit directly and expects the refusal; on the kit before issue 34 each of
them bound without a word.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from hooks import mkdocs_hooks
from proofs import runner
from proofs.exact import Cell, inside_cell
from proofs.kit import Recorder
from proofs.numbers import Show

REFUSED = "is not a value that check"


def test_a_term_cannot_ride_on_a_check_of_the_total():
    # Proposition 19: "1 + sin 3 + cos 3" checked as a total; sin 3 bound to that check.
    rec = Recorder(proof="Proposition 19")
    total = 1 + mpmath.sin(3) + mpmath.cos(3)
    library = 1 + math.sin(3) + math.cos(3)
    check = rec.numeric("the score is 1 + sin 3 + cos 3", [library - float(total)], tol=1e-15,
                        scope="one pair")  # fmt: skip
    with pytest.raises(ValueError, match=f"Proposition 19: quantity 'sin_three'.*{REFUSED} 1"):
        rec.quantity("sin_three", float(mpmath.sin(3)), show=Show(decimals=3), by=check)
    # The term compared on its own binds.
    term = rec.close("term (b) is sin 3", math.sin(3), mpmath.sin(3), tol=1e-15, scope="s")
    rec.quantity("sin_three", math.sin(3), show=Show(decimals=3), by=term)


def test_a_value_computed_beside_the_check_is_refused():
    # Proposition 21: cos 6 computed with math.cos next to an exact check on other numbers.
    rec = Recorder()
    check = rec.exact("six is twice three", 6, 2 * 3, scope="integers")
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("cos_six", math.cos(6), show=Show(decimals=3), by=check)
    # A mutated value (sin 6 for cos 6) fails the comparison that now carries it.
    assert not rec.close("cos 6", math.sin(6), mpmath.cos(6), tol=1e-15, scope="s").passed


def test_an_answer_must_be_an_operand_not_a_parameter_of_the_check():
    # Proposition 15: "the next bucket starts at 24" bound to "library == formula" (0 == 0).
    rec = Recorder()
    agree = rec.exact("library equals formula (count of differences)", 0, 0, scope="offsets")
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("next_start", 24, show=Show(), by=agree)
    start = rec.exact("the next bucket starts at 24", 24, 24, scope="a scan", quantity="start")
    assert rec.quantities["start"].check == start.number


def test_a_pair_index_is_bound_only_where_it_was_compared():
    # Proposition 22: a value at one pair bound to a check made at another pair.
    rec = Recorder()
    check = rec.close("wavelength of pair 3", 2 * math.pi * 10000 ** (6 / 128),
                      2 * mpmath.pi * mpmath.mpf(10000) ** (mpmath.mpf(6) / 128), tol=1e-9,
                      scope="d = 128")  # fmt: skip
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("wavelength", 2 * math.pi * 10000 ** (8 / 128), show=Show(sig=3), by=check)


def test_a_tolerance_is_an_operand_of_its_check():
    # Proposition 17: a page's "within 2^-53" must be the tolerance compared.
    rec = Recorder()
    check = rec.numeric("rounding error", [1e-17], tol=2.0**-53, scope="s")
    rec.quantity("tolerance", 2.0**-53, show=Show(sig=3), by=check)
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("loose", 2.0**53, show=Show(sig=3), by=check)


def test_a_count_binds_to_the_family_it_counts():
    # Proposition 16: "from H = 1 to H = 128" is the number of cases of the check.
    rec = Recorder()
    h = sp.Symbol("h")
    cases = ((f"H = {n}", (h + n) ** 2 - (h**2 + 2 * n * h + n**2)) for n in range(1, 127))
    family = rec.instances("one case per head count", cases, scope="H = 1 .. 126")
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("heads", 128, show=Show(), by=family)
    rec.quantity("heads", 126, show=Show(), by=family)


def test_an_enclosure_binds_what_it_encloses_and_must_not_be_empty():
    rec = Recorder()
    cell = Cell(text="28.22", low=Fraction(28215, 1000), high=Fraction(28225, 1000))
    check = inside_cell(rec, "in the cell", (Fraction(2822, 100), Fraction(28223, 1000)), cell,
                        scope="s")  # fmt: skip
    rec.quantity("threshold", 28.2229, show=Show(decimals=2), by=check)
    with pytest.raises(ValueError, match=REFUSED):
        rec.quantity("outside", 28.2240, show=Show(decimals=2), by=check)
    with pytest.raises(ValueError, match="the enclosure is empty"):
        inside_cell(rec, "upside down", (Fraction(28223, 1000), Fraction(2822, 100)), cell,
                    scope="s")  # fmt: skip


def test_an_input_the_code_never_reads_is_refused():
    # Proposition 18: INPUTS says k = 2 while the checks use a constant K of their own.
    source = textwrap.dedent(
        """
        INPUTS = {"k": 2, "far": 9}
        K = 3
        FAR = INPUTS["far"]
        """
    )
    with pytest.raises(ValueError, match=r"Proposition 18: input\(s\) k declared"):
        runner._inputs_are_read(source, {"k": "2", "far": "9"}, 18)
    runner._inputs_are_read(source.replace("K = 3", 'K = INPUTS["k"]'), {"k": "2"}, 18)


def test_uses_of_the_proof_and_of_the_page_must_be_one_list():
    class Entry:
        page, uses, retired = "propositions/p19-x.md", (14,), None

    class Result:
        def __init__(self, uses):
            self.uses = uses

    (problem,) = mkdocs_hooks.uses_differ({19: Entry()}, {19: Result([14, 18])})
    assert "uses [14], but its proof's USES says [14, 18]" in problem
    assert mkdocs_hooks.uses_differ({19: Entry()}, {19: Result([14])}) == []


def test_close_computes_its_own_errors():
    rec = Recorder()
    assert rec.close("pi", 3.141592653589793, mpmath.pi, tol=1e-15, scope="s").passed
    assert not rec.close("pi", 3.14, mpmath.pi, tol=1e-3, scope="s").passed
    with pytest.raises(ValueError, match="2 values against 1 references"):
        rec.close("two", [1.0, 2.0], [1.0], tol=0, scope="s")
    empty = rec.close("none", [], [], tol=0, scope="s")
    assert not empty.passed and empty.samples == 0


def test_close_reads_a_reference_at_its_own_precision():
    # An mpmath number made at 50 digits and passed on after the block ends, and a
    # constant such as mpmath.pi: neither is cut to a float's 53 bits.
    with mpmath.workdps(50):
        pi, minus_pi = +mpmath.pi, -mpmath.pi
    rec = Recorder()
    for reference in (pi, mpmath.pi, minus_pi):
        value = math.pi if reference > 0 else -math.pi
        check = rec.close("pi in float64", value, reference, tol=1e-30, scope="s")
        assert not check.passed and "1.22e-16" in check.detail


def test_close_takes_sympy_numbers():
    rec = Recorder()
    assert rec.close("sqrt 2", math.sqrt(2), sp.sqrt(2), tol=1e-15, scope="s").passed
    assert rec.close("a SymPy Float", 0.5, sp.Float("0.5", 30), tol=0, scope="s").passed


def test_pick_gives_a_short_value_inside_the_enclosure():
    from proofs.exact import pick

    assert pick((Fraction(28221, 1000), Fraction(28224, 1000))) == Fraction(28222, 1000)
    assert pick((Fraction(1, 3), Fraction(1, 3))) == Fraction(1, 3)  # a point has no decimal
    low, high = Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10**40)
    assert low <= pick((low, high)) <= high
    with pytest.raises(ValueError, match="the enclosure is empty"):
        pick((Fraction(1), Fraction(0)))
