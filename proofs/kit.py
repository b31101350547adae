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
    floating-point sampling, with the tolerance stated.

A refutation is never "the simplifier gave up": it is a concrete witness at
which the false claim's two sides differ, evaluated exactly or at 50 digits.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import sympy as sp

KINDS = ("identity", "instances", "exact", "numeric")

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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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

_REDUCERS: tuple[tuple[str, Callable[[sp.Expr], sp.Expr]], ...] = (
    ("cancels as written", lambda e: e),
    ("expand", sp.expand),
    ("simplify", sp.simplify),
    ("expand_trig + simplify", lambda e: sp.simplify(sp.expand_trig(e))),
    ("rewrite(exp) + simplify", lambda e: sp.simplify(sp.expand(e.rewrite(sp.exp)))),
)


def reduce_to_zero(difference: Any) -> str | None:
    """Return the name of the first reduction that makes ``difference`` zero.

    ``difference`` may be a SymPy expression or matrix (every entry must vanish)
    or a number. Returns ``None`` when no reduction reaches zero: that is a
    failed check, never a refutation.
    """
    entries = list(difference) if isinstance(difference, sp.MatrixBase) else [difference]
    hardest = 0  # the strongest reduction any entry needed
    for entry in entries:
        entry = sp.sympify(entry)
        rank = next((r for r, (_, f) in enumerate(_REDUCERS) if f(entry) == 0), None)
        if rank is None:
            return None
        hardest = max(hardest, rank)
    return _REDUCERS[hardest][0]


def _witness_value(value: Any) -> tuple[bool, str, str]:
    """Decide whether a concrete value is nonzero: (nonzero, kind, shown value)."""
    entries = list(value) if isinstance(value, sp.MatrixBase) else [value]
    shown = []
    nonzero = False
    kind = "exact"
    for entry in entries:
        entry = sp.nsimplify(entry) if isinstance(entry, float) else sp.sympify(entry)
        if entry.free_symbols:
            raise ValueError(f"a witness must be concrete, got free symbols {entry.free_symbols}")
        if entry.is_Rational:
            shown.append(str(entry))
            nonzero = nonzero or entry != 0
            continue
        kind = "numeric"
        approx = sp.N(entry, WITNESS_DIGITS)
        shown.append(sp.N(entry, 6).__str__())
        nonzero = nonzero or abs(approx) > WITNESS_FLOOR
    return nonzero, kind, ", ".join(shown)


# -- the recorder ------------------------------------------------------------------


@dataclass
class Recorder:
    """Collects the checks of one proof, in order, with the time each step took."""

    checks: list[Check] = field(default_factory=list)
    _last: float = field(default_factory=time.perf_counter)

    def _record(self, claim: str, kind: str, scope: str, passed: bool, detail: str) -> bool:
        if kind not in KINDS:
            raise ValueError(f"evidence kind must be one of {KINDS}, got {kind!r}")
        if not scope:
            raise ValueError("every check must state its scope")
        now = time.perf_counter()
        self.checks.append(Check(claim, kind, scope, bool(passed), detail, now - self._last))
        self._last = now
        return bool(passed)

    def identity(self, claim: str, difference: Any, *, scope: str) -> bool:
        """Record that ``difference`` reduces to zero for all allowed values."""
        how = reduce_to_zero(difference)
        detail = f"difference reduces to 0 ({how})" if how else "difference did not reduce to 0"
        return self._record(claim, "identity", scope, how is not None, detail)

    def instances(self, claim: str, cases: Iterable[tuple[str, Any]], *, scope: str) -> bool:
        """Record that each ``(label, difference)`` of a finite family reduces to zero."""
        count = 0
        for label, difference in cases:
            count += 1
            if reduce_to_zero(difference) is None:
                return self._record(
                    claim,
                    "instances",
                    scope,
                    False,
                    f"case {label}: difference did not reduce to 0",
                )
        if count == 0:
            return self._record(claim, "instances", scope, False, "the family was empty")
        return self._record(claim, "instances", scope, True, f"{count} cases, each reduces to 0")

    def exact(self, claim: str, lhs: Any, rhs: Any, *, scope: str, relation: str = "==") -> bool:
        """Record an exact comparison of integers or rationals (``==``, ``<`` or ``<=``)."""
        for side in (lhs, rhs):
            if isinstance(side, float):
                raise TypeError("exact checks take integers or rationals, not floats")
        lhs_, rhs_ = sp.Rational(lhs), sp.Rational(rhs)
        holds = {"==": lhs_ == rhs_, "<": lhs_ < rhs_, "<=": lhs_ <= rhs_}[relation]
        detail = (
            f"{_short(lhs_)} {relation} {_short(rhs_)}"
            if holds
            else (f"false: {_short(lhs_)} {relation} {_short(rhs_)}")
        )
        return self._record(claim, "exact", scope, bool(holds), detail)

    def numeric(self, claim: str, error: float, *, tol: float, scope: str) -> bool:
        """Record a sampled floating-point check: the largest ``error`` found vs ``tol``."""
        error = float(error)
        passed = error <= tol
        return self._record(
            claim, "numeric", scope, passed, f"largest error {error:.3g} (tolerance {tol:.0e})"
        )


@dataclass
class Witness:
    """Given to a misreading's ``refute``: records the counterexample it exhibits."""

    found: list[tuple[bool, str, str]] = field(default_factory=list)

    def differs(self, lhs: Any, rhs: Any, *, at: str) -> None:
        """The misreading says ``lhs == rhs``; show they differ at the point ``at``.

        ``lhs`` and ``rhs`` must already be evaluated at that point (concrete
        numbers or matrices). The difference is evaluated exactly when rational,
        otherwise at 50 digits.
        """
        diff = (sp.Matrix(lhs) - sp.Matrix(rhs)) if _is_matrix(lhs) else sp.sympify(lhs) - rhs
        nonzero, kind, shown = _witness_value(diff)
        self.found.append((nonzero, kind, f"at {at}: difference = {shown}"))

    def exact(self, holds: bool, *, at: str) -> None:
        """An exact (integer or rational) comparison that shows the claim false."""
        self.found.append((bool(holds), "exact", at))


def refute(misreading: Misreading) -> Refutation:
    """Run a misreading's refutation; it counts only with a nonzero witness."""
    start = time.perf_counter()
    witness = Witness()
    try:
        misreading.refute(witness)
    except Exception as exc:  # a crashing refutation refutes nothing
        return Refutation(
            misreading.claim,
            False,
            "none",
            f"error: {exc!r}",
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
    text = str(value)
    return text if len(text) <= 40 else f"{sp.N(value, 12)} (exact rational, {len(text)} chars)"


def substitute(expr: Any, values: Mapping[sp.Symbol, Any]) -> Any:
    """Substitute concrete values into an expression or matrix."""
    return expr.xreplace({k: sp.sympify(v) for k, v in values.items()})
