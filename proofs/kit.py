"""The checking kit every proof script uses.

A proof module defines ``NUMBER``, ``TITLE``, ``USES``, a function
``checks(rec)`` whose numbered steps each end in one call on the recorder, and
a list ``MISREADINGS`` of nearby false claims, each with a function that must
exhibit a counterexample. The recorder keeps an honest account of what kind of
evidence every check is:

``identity``
    the difference of the two sides reduces to zero symbolically, for every
    value the symbols' assumptions allow;
``instances``
    the same, separately for each member of a stated finite family;
``exact``
    exact integer or rational arithmetic on stated inputs;
``numeric``
    floating-point sampling, with the tolerance stated and the samples
    counted (a check that looked at no sample fails).

Two more kinds of row are not evidence:

``definition``
    the two sides are the same expression as written (SymPy's automatic
    evaluation already makes the difference 0): the check restates a
    definition and is never counted as proof;
``crash``
    the proof raised before the next check; the row names the exception
    and the line, and fails the proof.

A refutation is never "the simplifier gave up": it is a concrete witness at
which the false claim's two sides differ by more than a stated margin,
evaluated exactly or at 50 digits.

A proof also states the quantities its page shows (:meth:`Recorder.quantity`):
a name, the value this run computed, how it is shown (:class:`Show`) and the
check that establishes it. Pages name quantities; they never type them.
"""

from __future__ import annotations

import math
import re
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from proofs.numbers import Show, render

#: The kinds of evidence a check can be.
KINDS = ("identity", "instances", "exact", "numeric")
#: Rows that are recorded but are not evidence.
NOT_EVIDENCE = ("definition", "crash")
#: A quantity's name: lower case, digits and underscores, starting with a letter.
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

#: Digits used to evaluate a witness that is not an exact rational.
WITNESS_DIGITS = 50
#: A witness counts as nonzero only if it is larger than this at 50 digits.
WITNESS_FLOOR = sp.Rational(1, 10**30)


@dataclass
class Check:
    """One recorded claim: what was checked, how, over what, and the outcome."""

    claim: str
    kind: str
    scope: str
    passed: bool
    detail: str
    seconds: float
    samples: int | None = None  # numeric checks: how many values were looked at
    number: int = 0  # 1-based position in the proof's table
    #: The numbers the check compared (both sides, the bounds, the largest error): the
    #: only values a quantity may take from it. Not part of the published row.
    operands: tuple[Fraction | float, ...] = field(default=(), repr=False, compare=False)
    #: An exact enclosure [low, high] the check established for a value (inside_cell):
    #: a quantity inside it is a value the check read.
    within: tuple[Fraction, Fraction] | None = field(default=None, repr=False, compare=False)

    def __bool__(self) -> bool:
        return self.passed

    def as_dict(self) -> dict[str, Any]:
        row = asdict(self)
        del row["operands"], row["within"]
        return row


@dataclass
class Quantity:
    """A number a page states: its name, this run's value, how it is shown, and its check."""

    name: str
    value: Fraction | float
    show: Show
    check: int  # the number of the check that establishes it

    def as_dict(self) -> dict[str, Any]:
        exact = isinstance(self.value, Fraction)
        return {
            "name": self.name,
            "value": str(self.value) if exact else repr(float(self.value)),
            "exact": exact,
            "show": self.show.as_dict(),
            "text": render(self.value, self.show, "text"),
            "tex": render(self.value, self.show, "tex"),
            "check": self.check,
        }


@dataclass
class Refutation:
    """The outcome of refuting one misreading."""

    claim: str
    refuted: bool
    kind: str
    counterexample: str
    why: str
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Misreading:
    """A nearby false claim, and the function that must find it a counterexample.

    ``refute(w)`` receives a :class:`Witness` and calls ``w.differs(...)`` (or
    ``w.exact(...)``) with a concrete point where the claim fails.
    """

    claim: str
    refute: Callable[[Witness], None]
    why: str = ""


# -- reducing a difference to zero -------------------------------------------------

#: The first entry is not a reduction: a difference that is already 0 as built
#: means the two sides were the same expression, and the check is a definition.
AS_WRITTEN = "cancels as written"
_REDUCERS: tuple[tuple[str, Callable[[sp.Expr], sp.Expr]], ...] = (
    (AS_WRITTEN, lambda e: e),
    ("evaluate (doit)", lambda e: e.doit()),
    ("expand", lambda e: sp.expand(e.doit())),
    ("simplify", lambda e: sp.simplify(e.doit())),
    ("expand_trig + simplify", lambda e: sp.simplify(sp.expand_trig(e.doit()))),
    ("rewrite(exp) + simplify", lambda e: sp.simplify(sp.expand(e.doit().rewrite(sp.exp)))),
)


#: The reductions from here on call the simplifier: seconds on a large expression,
#: and on a false claim all of them run before the check can fail.
_FIRST_SLOW = 3
#: Where :func:`_nonzero_somewhere` looks: each symbol takes the first of these, from
#: its own place on, that has every property its assumptions state.
_PROBE_VALUES = tuple(
    sp.Integer(v) if isinstance(v, int) else sp.Rational(*v)
    for v in (3, -2, (7, 5), 5, (-5, 3), 2, (11, 7), -3, (-13, 9), 4, (17, 11), 7)
)
#: A value this far from zero, at 30 digits, is not a rounding of zero.
_PROBE_MARGIN = sp.Float("1e-15")


def _value_for(symbol: sp.Symbol, start: int) -> sp.Expr | None:
    """A value with every property ``symbol``'s assumptions state, or None."""
    facts = symbol.assumptions0
    for step in range(len(_PROBE_VALUES)):
        value = _PROBE_VALUES[(start + step) % len(_PROBE_VALUES)]
        if all(getattr(value, f"is_{name}", None) is held for name, held in facts.items()):
            return value
    return None


def _nonzero_somewhere(entry: sp.Expr) -> bool:
    """True only if ``entry`` is shown nonzero at a point its symbols' assumptions allow.

    Then no reduction can make it zero, and the slow ones need not run: the
    answer is the one the simplifier would reach, only sooner. False whenever
    the point tells nothing (an unknown function, a sum or integral left
    unevaluated, a symbol no value here fits, a value that is not a finite
    number or is within :data:`_PROBE_MARGIN` of zero): then every reduction
    is tried, as before.
    """
    if entry.atoms(AppliedUndef, sp.Sum, sp.Product, sp.Integral, sp.Derivative, sp.Limit):
        return False
    point = {}
    for index, symbol in enumerate(sorted(entry.free_symbols, key=str)):
        value = _value_for(symbol, 2 * index) if isinstance(symbol, sp.Symbol) else None
        if value is None:
            return False
        point[symbol] = value
    try:
        value = sp.N(entry.xreplace(point), 30)
    except Exception:  # any failure to evaluate tells nothing
        return False
    return bool(value.is_number and value.is_finite and abs(value) > _PROBE_MARGIN)


def reduce_to_zero(difference: Any) -> str | None:
    """Return the name of the first reduction that makes ``difference`` zero.

    ``difference`` may be a SymPy expression or matrix (every entry must vanish)
    or a number. Returns ``None`` when no reduction reaches zero: that is a
    failed check, never a refutation. An entry that the cheap reductions leave
    nonzero, and that is nonzero at a point its assumptions allow, is not given
    to the simplifier (:func:`_nonzero_somewhere`).
    """
    entries = list(difference) if isinstance(difference, sp.MatrixBase) else [difference]
    hardest = 0  # the strongest reduction any entry needed
    for entry in entries:
        entry = sp.sympify(entry)
        rank = None
        for r, (_, reduce) in enumerate(_REDUCERS):
            if r == _FIRST_SLOW and _nonzero_somewhere(entry):
                break
            if reduce(entry) == 0:
                rank = r
                break
        if rank is None:
            return None
        hardest = max(hardest, rank)
    return _REDUCERS[hardest][0]


def _entries(value: Any) -> list[Any]:
    if isinstance(value, sp.MatrixBase):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.ravel().tolist()
    return [value]


def _witness_value(value: Any) -> tuple[str, sp.Rational | sp.Float, str]:
    """A concrete difference: (kind, largest |entry|, shown value).

    Rational entries are exact; a float is its exact binary value, but it came
    from floating point, so the witness is ``numeric``; anything else (pi,
    sqrt(2), sin(1)) is evaluated at 50 digits.
    """
    shown, largest, kind = [], sp.Integer(0), "exact"
    for entry in _entries(value):
        if isinstance(entry, float | np.floating):
            if not math.isfinite(float(entry)):
                raise ValueError(f"a witness must be finite, got {entry!r}")
            kind = "numeric"
            entry = sp.Rational(float(entry))
        entry = sp.sympify(entry)
        if entry.free_symbols:
            raise ValueError(f"a witness must be concrete, got free symbols {entry.free_symbols}")
        if entry.is_Rational:
            size = abs(entry)
            shown.append(str(entry) if kind == "exact" else str(sp.N(entry, 6)))
        else:
            kind = "numeric"
            size = abs(sp.N(entry, WITNESS_DIGITS))
            shown.append(str(sp.N(entry, 6)))
        largest = max(largest, size)
    return kind, largest, ", ".join(shown)


def _location(exc: BaseException) -> str:
    """'file.py:123 in name' for the innermost frame inside a proof file."""
    every = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in every if re.match(r"p\d\d_\w+\.py$", Path(f.filename).name)]
    frames = frames or [f for f in every if "site-packages" not in f.filename] or every
    if not frames:
        return ""
    frame = frames[-1]
    return f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"


def _as_number(value: Any) -> Fraction | float:
    """A quantity's value: exact (int, Fraction, SymPy rational) or a float."""
    if isinstance(value, bool):
        raise TypeError("a quantity is a number, not a bool")
    if isinstance(value, int | np.integer):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    if isinstance(value, sp.Rational):
        return Fraction(int(value.p), int(value.q))
    if isinstance(value, float | np.floating | sp.Float):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"a quantity must be finite, got {number!r}")
        return number
    raise TypeError(
        f"a quantity must be an integer, a rational or a float, got {type(value).__name__}; "
        "evaluate a SymPy expression with sp.N first"
    )


def _operand(value: Any) -> Fraction | float:
    """A compared number as the kit keeps it: exact when it is, else a float."""
    if isinstance(value, Fraction | float):
        return value
    try:
        return _as_number(value)
    except TypeError:
        return float(sp.N(sp.sympify(value), 17))


def _same(number: Fraction | float, operand: Fraction | float) -> bool:
    """True when ``number`` is the compared value itself (a float equal to the bit)."""
    if isinstance(number, Fraction) and isinstance(operand, Fraction):
        return number == operand
    if isinstance(number, float) and isinstance(operand, float):
        return number == operand
    return Fraction(number) == Fraction(operand)


def _numbers(value: Any) -> list[Any]:
    """The numbers of a value or sequence, each a float, an int, or a SymPy number."""
    items = list(np.ravel(np.asarray(value, dtype=object))) if np.ndim(value) else [value]
    out = []
    for item in items:
        if isinstance(item, float | np.floating):
            out.append(float(item))
        elif isinstance(item, int | np.integer) and not isinstance(item, bool):
            out.append(int(item))
        elif isinstance(item, Fraction):
            out.append(sp.Rational(item.numerator, item.denominator))
        elif isinstance(item, sp.Basic):  # SymPy numbers: 50 digits, never a float's 17
            out.append(sp.N(item, WITNESS_DIGITS))
        elif hasattr(item, "_mpf_") and not isinstance(item, mpmath.mpf):  # mpmath.pi
            with mpmath.workdps(2 * WITNESS_DIGITS):
                out += _numbers(+item)
        elif isinstance(item, mpmath.mpf):  # exactly, whatever the working precision now
            sign, mantissa, exponent, _ = item._mpf_
            if not item or not mpmath.isfinite(item):
                out.append(sp.sympify(float(item)))
            else:
                size = sp.Integer(int(mantissa)) * sp.Rational(2) ** int(exponent)
                out.append(-size if sign else size)
        else:
            out.append(sp.N(sp.sympify(item), WITNESS_DIGITS))
    return out


def _exactly(number: Any) -> sp.Expr:
    """A number of :func:`_numbers` for arithmetic: a float as its exact binary value."""
    return sp.Rational(number) if isinstance(number, float) else sp.sympify(number)


def _show(value: Fraction | float) -> str:
    if isinstance(value, Fraction):
        return _short(sp.Rational(value.numerator, value.denominator))
    return f"{value:.6g}"


# -- the recorder ------------------------------------------------------------------


class StopAtFailure(Exception):
    """Raised by a Recorder made with ``stop_at_failure=True`` once a check has failed."""

    def __init__(self, check: Check) -> None:
        super().__init__(f"check {check.number} failed: {check.claim}")
        self.check = check


@dataclass
class Recorder:
    """Collects the checks and quantities of one proof, in order, with timings.

    ``stop_at_failure=True`` (``python -m proofs --first-failure``) ends the
    proof at its first failed check by raising :class:`StopAtFailure` from it.
    """

    checks: list[Check] = field(default_factory=list)
    quantities: dict[str, Quantity] = field(default_factory=dict)
    stop_at_failure: bool = False
    proof: str = ""  # "Proposition N", named in the kit's refusals
    _last: float = field(default_factory=time.perf_counter)

    def _record(
        self,
        claim: str,
        kind: str,
        scope: str,
        passed: bool,
        detail: str,
        *,
        samples: int | None = None,
        operands: Iterable[Any] = (),
    ) -> Check:
        if kind not in KINDS + NOT_EVIDENCE:
            raise ValueError(f"evidence kind must be one of {KINDS}, got {kind!r}")
        if not scope:
            raise ValueError("every check must state its scope")
        now = time.perf_counter()
        check = Check(
            claim,
            kind,
            scope,
            bool(passed),
            detail,
            now - self._last,
            samples=samples,
            number=len(self.checks) + 1,
            operands=tuple(_operand(v) for v in operands),
        )
        self.checks.append(check)
        self._last = now
        if self.stop_at_failure and not check.passed and kind != "crash":
            raise StopAtFailure(check)
        return check

    def _bind(self, check: Check, quantity: str | None, value: Any, show: Show | None) -> Check:
        if quantity is not None:
            self.quantity(quantity, value, show=show or Show(), by=check)
        elif show is not None:
            raise ValueError("show= only goes with quantity=")
        return check

    # -- symbolic --------------------------------------------------------------

    def identity(self, claim: str, difference: Any, *, scope: str) -> Check:
        """Record that ``difference`` (lhs - rhs) reduces to zero for all allowed values.

        A difference that is zero as built (the two sides were the same
        expression before any simplification) is recorded as a ``definition``.
        To prove something SymPy would evaluate on sight, build it unevaluated
        (``sp.Derivative``, ``sp.Subs``, ``evaluate=False``): the kit then
        evaluates it with ``doit`` and says so.
        """
        how = reduce_to_zero(difference)
        if how == AS_WRITTEN:
            detail = "the two sides are the same expression as written: a definition, not a proof"
            return self._record(claim, "definition", scope, True, detail)
        detail = f"difference reduces to 0 ({how})" if how else "difference did not reduce to 0"
        return self._record(claim, "identity", scope, how is not None, detail)

    def instances(self, claim: str, cases: Iterable[tuple[str, Any]], *, scope: str) -> Check:
        """Record that each ``(label, difference)`` of a finite family reduces to zero."""
        count, written = 0, 0
        for label, difference in cases:
            count += 1
            how = reduce_to_zero(difference)
            if how is None:
                return self._record(
                    claim,
                    "instances",
                    scope,
                    False,
                    f"case {label}: difference did not reduce to 0",
                    samples=count,
                )
            written += how == AS_WRITTEN
        if count == 0:
            return self._record(
                claim, "instances", scope, False, "the family was empty", samples=0
            )
        if written == count:
            detail = (
                f"{count} cases, each the same expression on both sides as written: "
                "a definition, not a proof"
            )
            return self._record(claim, "definition", scope, True, detail, samples=count)
        return self._record(
            claim,
            "instances",
            scope,
            True,
            f"{count} cases, each reduces to 0",
            samples=count,
            operands=(count,),
        )

    # -- exact -----------------------------------------------------------------

    def exact(
        self,
        claim: str,
        lhs: Any,
        rhs: Any,
        *,
        scope: str,
        relation: str = "==",
        quantity: str | None = None,
        show: Show | None = None,
        within: tuple[Any, Any] | None = None,
    ) -> Check:
        """Record an exact comparison of integers or rationals (``==``, ``<``, ``>``, ...).

        With ``quantity=``, ``lhs`` (the computed side) becomes that quantity.
        ``within=(low, high)`` names the exact enclosure the comparison is about (see
        :func:`proofs.exact.inside_cell`): a quantity inside it may be bound to the check.
        """
        for side in (lhs, rhs):
            if isinstance(side, float | np.floating):
                raise TypeError("exact checks take integers or rationals, not floats")
        lhs_, rhs_ = sp.Rational(lhs), sp.Rational(rhs)
        relations = {
            "==": lhs_ == rhs_,
            "<": lhs_ < rhs_,
            "<=": lhs_ <= rhs_,
            ">": lhs_ > rhs_,
            ">=": lhs_ >= rhs_,
        }
        if relation not in relations:
            raise ValueError(f"relation must be one of {tuple(relations)}, got {relation!r}")
        holds = bool(relations[relation])
        shown = f"{_short(lhs_)} {relation} {_short(rhs_)}"
        detail = shown if holds else f"false: {shown}"
        check = self._record(claim, "exact", scope, holds, detail, operands=(lhs_, rhs_))
        if within is not None:
            low, high = (Fraction(_as_number(v)) for v in within)
            if low > high:
                raise ValueError(f"within: the enclosure is empty ({_show(low)} > {_show(high)})")
            check.within = (low, high)
        return self._bind(check, quantity, lhs_, show)

    # -- numeric ---------------------------------------------------------------

    def numeric(
        self,
        claim: str,
        errors: Any,
        *,
        tol: float,
        scope: str,
        samples: int | None = None,
        quantity: str | None = None,
        show: Show | None = None,
    ) -> Check:
        """Record a sampled floating-point check: the largest of ``errors`` against ``tol``.

        ``errors`` is every error looked at (a sequence or array), so the
        kit counts them; a single number needs ``samples=`` (how many values it
        is the largest of). No sample, or a NaN, fails the check. With
        ``quantity=``, the largest error becomes that quantity.
        """
        if np.ndim(errors) == 0:
            if samples is None:
                raise ValueError(
                    "a single error needs samples=: how many values it is the largest of"
                )
            values = np.array([float(errors)]) if samples else np.array([])
        else:
            values = np.abs(np.asarray(errors, dtype=np.float64).ravel())
            if samples is not None and samples != values.size:
                raise ValueError(f"samples={samples}, but {values.size} errors were given")
            samples = int(values.size)
        if samples == 0 or values.size == 0:
            check = self._record(
                claim, "numeric", scope, False, "no samples: nothing was checked", samples=0
            )
            return check
        if not np.all(np.isfinite(values)):
            bad = int(np.sum(~np.isfinite(values)))
            return self._record(
                claim,
                "numeric",
                scope,
                False,
                f"{bad} of {samples} errors are not finite",
                samples=samples,
            )
        largest = float(values.max())
        detail = f"largest error {largest:.3g} over {samples} samples (tolerance {tol:.0e})"
        check = self._record(
            claim,
            "numeric",
            scope,
            largest <= tol,
            detail,
            samples=samples,
            operands=(largest, samples, tol),
        )
        return self._bind(check, quantity, largest, show)

    def close(
        self,
        claim: str,
        value: Any,
        reference: Any,
        *,
        tol: float,
        scope: str,
        quantity: str | None = None,
        show: Show | None = None,
    ) -> Check:
        """Record that ``value`` is within ``tol`` of an independent ``reference``.

        Both are numbers, or sequences of numbers of one length (a float, a SymPy or
        mpmath number, evaluated at 50 digits); the kit computes each error itself, so
        the two sides are what the check compared. With ``quantity=``, ``value`` (a
        single number) becomes that quantity; a page may also bind ``reference`` by
        :meth:`quantity`.
        """
        values, references = _numbers(value), _numbers(reference)
        if len(values) != len(references):
            raise ValueError(f"close: {len(values)} values against {len(references)} references")
        errors = [abs(sp.N(_exactly(a) - _exactly(b), WITNESS_DIGITS)) for a, b in
                  zip(values, references, strict=True)]  # fmt: skip
        if not values:
            return self._record(
                claim, "numeric", scope, False, "no samples: nothing was checked", samples=0
            )
        if not all(e.is_finite for e in errors):
            return self._record(
                claim, "numeric", scope, False, "an error is not finite", samples=len(values)
            )
        largest = float(max(errors))
        detail = (
            f"largest |value - reference| {largest:.3g} over {len(values)} samples"
            f" (tolerance {tol:.0e})"
        )
        check = self._record(
            claim,
            "numeric",
            scope,
            largest <= tol,
            detail,
            samples=len(values),
            operands=(*values, *references, largest),
        )
        if quantity is not None and len(values) != 1:
            raise ValueError("close: quantity= binds a single value; bind others by quantity()")
        return self._bind(check, quantity, values[0] if values else None, show)

    def band(
        self,
        claim: str,
        value: Any,
        *,
        low: Any,
        high: Any,
        scope: str,
        samples: int | None = None,
        quantity: str | None = None,
        show: Show | None = None,
    ) -> Check:
        """Record that ``value`` lies in ``[low, high]``: an "about" checked from both sides.

        An exact value (int, rational) is compared exactly; a float is
        ``numeric`` and needs ``samples=``, the number of values it summarises
        (1 for a single computed number).
        """
        number = _as_number(value)
        if not low <= high:
            raise ValueError(f"the band is empty: low {low!r} > high {high!r}")
        inside = Fraction(low) <= Fraction(number) <= Fraction(high)
        if isinstance(number, Fraction):
            kind, samples = "exact", None
        else:
            kind = "numeric"
            if samples is None:
                raise ValueError("a measured value needs samples=: how many values it summarises")
            if samples < 1:
                return self._record(
                    claim, kind, scope, False, "no samples: nothing was measured", samples=0
                )
        shown = f"{_show(number)} in [{_show(_as_number(low))}, {_show(_as_number(high))}]"
        if samples:
            shown += f" ({samples} samples)"
        detail = shown if inside else f"outside the band: {shown}"
        check = self._record(
            claim, kind, scope, inside, detail, samples=samples, operands=(number, low, high)
        )
        return self._bind(check, quantity, number, show)

    def rounds_to(
        self,
        claim: str,
        value: Any,
        shown: str,
        *,
        show: Show,
        scope: str,
        samples: int | None = None,
        quantity: str | None = None,
    ) -> Check:
        """Record that ``value`` shown under ``show`` reads exactly ``shown``.

        This is how a figure quoted by a source (FACTS' "1.036633") is
        checked against the run: both sides of the rounding at once.
        """
        number = _as_number(value)
        got = render(number, show, "text")
        kind = "exact" if isinstance(number, Fraction) else "numeric"
        if kind == "numeric" and samples is None:
            samples = 1
        holds = got == shown
        detail = f"{_show(number)} shows as {got}" + ("" if holds else f", not {shown}")
        check = self._record(
            claim, kind, scope, holds, detail, samples=samples, operands=(number,)
        )
        return self._bind(check, quantity, number, show if quantity else None)

    # -- quantities and crashes --------------------------------------------------

    def quantity(self, name: str, value: Any, *, show: Show, by: Check) -> Quantity:
        """State a quantity of the page: ``value`` as this run computed it, shown by ``show``.

        ``by`` is the check that establishes it; it must be a check of this proof.
        """
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ValueError(f"a quantity name is lower_case_with_digits, got {name!r}")
        if name in self.quantities:
            raise ValueError(f"quantity {name!r} is stated twice")
        if not isinstance(by, Check) or not any(c is by for c in self.checks):
            raise ValueError(f"quantity {name!r}: by= must be a check recorded by this proof")
        if by.kind in NOT_EVIDENCE:
            raise ValueError(f"quantity {name!r}: a {by.kind} establishes nothing")
        if not isinstance(show, Show):
            raise TypeError(f"quantity {name!r}: show= must be a Show")
        number = _as_number(value)
        inside = by.within is not None and by.within[0] <= Fraction(number) <= by.within[1]
        if not inside and not any(_same(number, operand) for operand in by.operands):
            compared = ", ".join(_show(o) for o in by.operands[:6]) or "no number"
            raise ValueError(
                f"{self.proof or 'proof'}: quantity {name!r} = {_show(number)} is not a value"
                f" that check {by.number} ({by.claim!r}) compared (it compared {compared}):"
                " bind a quantity only to a check that read it"
            )
        render(number, show)  # fails now, in the proof, if the rule cannot show it
        quantity = Quantity(name, number, show, by.number)
        self.quantities[name] = quantity
        return quantity

    def crash(self, exc: BaseException) -> Check:
        """Record that the proof raised: the row names the exception and where."""
        after = f" after check {self.checks[-1].number}" if self.checks else " before any check"
        where = _location(exc)
        detail = "".join(traceback.format_exception_only(exc)).strip()
        detail += f" at {where}" if where else ""
        return self._record(f"the proof crashed{after}", "crash", "the proof", False, detail)


@dataclass
class Witness:
    """Given to a misreading's ``refute``: records the counterexample it exhibits."""

    found: list[tuple[bool, str, str]] = field(default_factory=list)

    def differs(self, lhs: Any, rhs: Any, *, at: str, margin: Any, by: str = "") -> None:
        """The misreading says ``lhs == rhs``; show they differ by more than ``margin``.

        ``lhs`` and ``rhs`` must already be evaluated at the point ``at``
        (concrete numbers or matrices). The largest entry of the difference
        must exceed ``margin``: a stated size that a correct value could not
        reach (``by`` says what it is, e.g. "100 float32 ulp"). ``margin=0``
        is allowed only for an exact difference, against a claim of exact
        equality.
        """
        diff = (sp.Matrix(lhs) - sp.Matrix(rhs)) if _is_matrix(lhs) else sp.sympify(lhs) - rhs
        kind, largest, shown = _witness_value(diff)
        limit = sp.Rational(margin)
        if limit < 0:
            raise ValueError(f"a margin is a size, got {margin!r}")
        if kind == "numeric" and limit <= WITNESS_FLOOR:
            raise ValueError(
                "a numeric witness needs a margin above 1e-30: a value that is merely "
                "nonzero in floating point contradicts nothing"
            )
        label = f" ({by})" if by else ""
        held = largest > limit if limit else largest != 0
        if limit:
            verdict = f"|difference| = {sp.N(largest, 3)} > {sp.N(limit, 3)}{label}"
            if not held:
                verdict = f"|difference| = {sp.N(largest, 3)}, within the margin {sp.N(limit, 3)}"
        else:
            verdict = "an exact nonzero difference" if held else "the difference is exactly 0"
        self.found.append((held, kind, f"at {at}: difference = {shown}; {verdict}"))

    def exact(self, holds: bool, *, at: str) -> None:
        """An exact (integer or rational) comparison that shows the claim false."""
        self.found.append((bool(holds), "exact", at))


def refute(misreading: Misreading) -> Refutation:
    """Run a misreading's refutation; it counts only with a witness beyond its margin."""
    start = time.perf_counter()
    witness = Witness()
    try:
        misreading.refute(witness)
    except Exception as exc:  # a crashing refutation refutes nothing
        where = _location(exc)
        return Refutation(
            misreading.claim,
            False,
            "crash",
            f"crashed: {exc!r}" + (f" at {where}" if where else ""),
            misreading.why,
            time.perf_counter() - start,
        )
    good = [w for w in witness.found if w[0]]
    if not good:
        shown = "; ".join(w[2] for w in witness.found) or "no witness given"
        return Refutation(
            misreading.claim,
            False,
            "none",
            f"not refuted: {shown}",
            misreading.why,
            time.perf_counter() - start,
        )
    _, kind, shown = good[0]
    return Refutation(
        misreading.claim, True, kind, shown, misreading.why, time.perf_counter() - start
    )


def _is_matrix(value: Any) -> bool:
    return isinstance(value, sp.MatrixBase | list | tuple) or hasattr(value, "shape")


def _short(value: sp.Rational) -> str:
    bits = int(value.p).bit_length() + int(value.q).bit_length()
    if bits > 130:  # too long to show, and str() refuses past 4300 digits
        digits = round(bits * math.log10(2))
        return f"{sp.N(value, 12)} (exact rational, about {digits} digits)"
    text = str(value)
    return text if len(text) <= 40 else f"{sp.N(value, 12)} (exact rational, {len(text)} chars)"


def substitute(expr: Any, values: Mapping[sp.Symbol, Any]) -> Any:
    """Substitute concrete values into an expression or matrix."""
    return expr.xreplace({k: sp.sympify(v) for k, v in values.items()})
