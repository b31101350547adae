"""How ``solve`` is called: its signature decides the call, and the cases it is judged on.

Readers write ``solve`` in more than one way. E1's task asks for ``solve(length, width,
base)``, but the classic version of the exercise is ``solve(length, width)``, with the
paper's base 10000 built in. So the worker reads the signature of the reader's ``solve``
(:func:`read`, with :func:`inspect.signature`) before it calls it on any case, and sends
it to the parent as plain data. From that data alone the parent makes a :class:`Plan`
(:func:`plan`): how ``solve`` is called, which cases it is judged on, and which are not
run for that signature. The parent then sends the worker the call (the names of its
arguments, how many go by position) and the inputs of each case of the plan in turn, so
the worker needs none of this module.

- A ``solve`` that takes every argument (by position, through ``*args``, or by name for
  a keyword-only argument of the task's name) is judged on every case.
- A ``solve`` that takes only the first arguments of an exercise with a ``smaller``
  call (E1 and E2: no ``base``) is judged on the cases that have the value the short
  call assumes (base 10000); the others are not run, and the report says how many.
- Any other ``solve`` (``solve(**kw)``, four arguments without defaults, a keyword-only
  argument the checker cannot fill) is called on no case: the report says why, instead
  of a TypeError at case 1.
- A ``solve`` whose signature cannot be read (some builtins) is called with every
  argument by position, as the task says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from posenc.exercises._base import Case, Exercise
from posenc.exercises._child import LONGEST_NAME, MOST_PARAMETERS, read

__all__ = ["Call", "Plan", "calls_text", "checked", "plan", "read", "text"]

KINDS = frozenset(
    ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "VAR_POSITIONAL", "KEYWORD_ONLY", "VAR_KEYWORD")
)
POSITIONAL = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")


@dataclass(frozen=True)
class Call:
    """A call of ``solve``: the arguments ``names``, the first ``positional`` by position."""

    names: tuple[str, ...]
    positional: int

    def split(self, args: tuple) -> tuple[tuple, dict]:
        """The positional and the keyword arguments of this call, from a case's arguments."""
        given = args[: len(self.names)]
        keywords = dict(zip(self.names[self.positional :], given[self.positional :], strict=True))
        return given[: self.positional], keywords

    @property
    def words(self) -> str:
        """The call as the reader would write it, e.g. ``solve(length, width, base=base)``."""
        named = [f"{name}={name}" for name in self.names[self.positional :]]
        return f"solve({', '.join([*self.names[: self.positional], *named])})"

    def describe(self, e: Exercise, args: tuple) -> str:
        """One case as this call makes it, e.g. ``solve(3, 4)``."""
        full = self.positional == len(e.params)
        if full or not all(isinstance(a, int | float) for a in args):
            return e.describe(*args)
        positional, keywords = self.split(args)
        shown = [repr(a) for a in positional] + [f"{k}={v!r}" for k, v in keywords.items()]
        return f"solve({', '.join(shown)})"


@dataclass(frozen=True)
class Plan:
    """What the checker does with one ``solve``: the call, the cases run and those not run.

    ``cases`` are the cases ``solve`` is called on, numbered from 1 in that order;
    ``skipped`` are the cases not run for this signature, with their numbers in the full
    list. ``call`` is None when no call fits the signature; ``refusal`` then says why.
    ``signature`` is the reader's, as text, or '' when it could not be read.
    """

    call: Call | None
    cases: tuple[Case, ...]
    skipped: tuple[Case, ...] = ()
    signature: str = ""
    refusal: str | None = None

    @property
    def smaller(self) -> bool:
        """Whether some cases are not run because ``solve`` takes fewer arguments."""
        return self.call is not None and bool(self.skipped)


def checked(raw: object) -> list[dict] | None:
    """Parameters received from the worker, or a ValueError if they are not such data."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) > MOST_PARAMETERS:
        raise ValueError("a signature that is not a list of parameters")
    for p in raw:
        if not (
            isinstance(p, dict)
            and set(p) == {"name", "kind", "default"}
            and isinstance(p["name"], str)
            and len(p["name"]) <= LONGEST_NAME
            and p["kind"] in KINDS
            and type(p["default"]) is bool
        ):
            raise ValueError("a signature with a parameter that is not name, kind, default")
    return raw


def text(params: Sequence[dict]) -> str:
    """A signature as Python writes it, with each default shown as ``=...``.

    Examples
    --------
    >>> def solve(length, width, /, base=10000.0, *, dtype=None, **options): ...
    >>> text(read(solve))
    'solve(length, width, /, base=..., *, dtype=..., **options)'
    """
    parts: list[str] = []
    starred = False  # a * or *args is written: keyword-only arguments may follow
    for k, p in enumerate(params):
        kind = p["kind"]
        if kind == "KEYWORD_ONLY" and not starred:
            parts.append("*")
        starred = starred or kind in ("VAR_POSITIONAL", "KEYWORD_ONLY")
        prefix = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(kind, "")
        parts.append(prefix + p["name"] + ("=..." if p["default"] else ""))
        following = params[k + 1]["kind"] if k + 1 < len(params) else None
        if kind == "POSITIONAL_ONLY" and following != "POSITIONAL_ONLY":
            parts.append("/")
    return f"solve({', '.join(parts)})"


def _fit(params: Sequence[dict], names: tuple[str, ...]) -> int | None:
    """How many of ``names`` a call of solve can give by position (the rest go by name).

    None when no call with exactly these arguments fits: a required parameter would be
    left empty, or an argument has nowhere to go.
    """
    positional = [p for p in params if p["kind"] in POSITIONAL]
    star = any(p["kind"] == "VAR_POSITIONAL" for p in params)
    keyword_only = {p["name"]: p for p in params if p["kind"] == "KEYWORD_ONLY"}
    n = len(names) if star else min(len(names), len(positional))
    by_name = names[n:]
    if any(name not in keyword_only for name in by_name):
        return None
    if any(not p["default"] for p in positional[n:]):
        return None
    if any(not p["default"] and name not in by_name for name, p in keyword_only.items()):
        return None
    return n


def _refusal(e: Exercise, params: Sequence[dict]) -> str:
    """Why no call of the checker fits these parameters, in a few words."""
    positional = [p for p in params if p["kind"] in POSITIONAL]
    required = [p for p in positional if not p["default"]]
    unknown = [
        p["name"]
        for p in params
        if p["kind"] == "KEYWORD_ONLY" and not p["default"] and p["name"] not in e.params
    ]
    if unknown:
        return (
            f"its argument {unknown[0]} must be given by name and has no default, and the "
            "checker has no value for it"
        )
    gives = str(len(e.params))
    if e.smaller is not None:
        gives = f"{e.smaller.arity} or {gives}"
    if len(required) > len(e.params):
        return f"it needs {len(required)} arguments, and the checker gives it {gives}"
    if not positional:
        return f"it takes no argument by position, and the checker gives it {gives}"
    taken = f"{len(positional)} argument" + ("s" if len(positional) != 1 else "")
    return f"it takes only {taken} by position, and the checker gives it {gives}"


def plan(e: Exercise, cases: Sequence[Case], params: Sequence[dict] | None) -> Plan:
    """The plan for a ``solve`` with these parameters (from :func:`read`) on ``cases``.

    Examples
    --------
    >>> from posenc.exercises import E1
    >>> def solve(length, width): ...
    >>> short = plan(E1, E1.cases(), read(solve))
    >>> short.call.words, len(short.cases), len(short.skipped)
    ('solve(length, width)', 7, 3)
    >>> def solve(length, width, *, base=10000.0): ...
    >>> plan(E1, E1.cases(), read(solve)).call.words
    'solve(length, width, base=base)'
    """
    every = tuple(cases)
    if params is None:
        return Plan(Call(e.params, len(e.params)), every)
    signature = text(params)
    n = _fit(params, e.params)
    if n is not None:
        return Plan(Call(e.params, n), every, signature=signature)
    if e.smaller is not None:
        names = e.params[: e.smaller.arity]
        n = _fit(params, names)
        kept = [case for case in every if e.smaller.keeps(*case.args)]
        if n is not None and kept:
            run = tuple(Case(k, case.args, case.worked) for k, case in enumerate(kept, start=1))
            skipped = tuple(case for case in every if not e.smaller.keeps(*case.args))
            return Plan(Call(names, n), run, skipped, signature)
    return Plan(None, (), every, signature, _refusal(e, params))


def calls_text(e: Exercise) -> str:
    """The calls the checker makes, in words: ``solve(k, width, base) or solve(k, width)``."""
    if e.smaller is None:
        return e.signature
    short = Call(e.params[: e.smaller.arity], e.smaller.arity).words
    return f"{e.signature}, or {short} for the cases {e.smaller.kept} only"
