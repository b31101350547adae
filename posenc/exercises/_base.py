"""What an exercise is: its task, its cases, the expected answers, the known mistakes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: How close an answer must be to the expected value, entry by entry.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Mistake:
    """A classic wrong formula: it takes the arguments of ``solve``; ``hint`` names it.

    Answers count as this mistake when every one is within ``tolerance`` of the formula
    and at least one is further than ``apart`` from the right answer, so that right
    answers never count as a mistake, even one whose formula is close to the right one.
    """

    name: str
    hint: str
    formula: Callable[..., object]
    tolerance: float = TOLERANCE  # how close an answer must be to count as this mistake
    apart: float = TOLERANCE  # how far from the right answer one entry at least must be


@dataclass(frozen=True)
class Smaller:
    """A shorter ``solve`` that an exercise also takes: its first ``arity`` arguments only.

    A ``solve`` with that signature is judged on the cases that ``keeps`` accepts (their
    left-out arguments have the value the short call assumes) and the others are not
    run. ``kept`` and ``others`` name the two kinds of case, ``opt_in`` says how to be
    judged on every case.
    """

    arity: int
    keeps: Callable[..., bool]
    kept: str
    others: str
    opt_in: str


def without_base(first: str) -> Smaller:
    """The classic short call ``solve(first, width)``, with the paper's base 10000 built in.

    E1 and E2 both take it: their third argument is the base, so a two-argument solve
    is judged on the cases whose base is 10000. ``first`` names solve's first argument
    in the opt-in line.
    """
    return Smaller(
        arity=2,
        keeps=lambda _first, _width, base: base == 10000.0,
        kept="with base 10000",
        others="with a base other than 10000",
        opt_in="Add a third argument, base, to be judged on them too: "
        f"`def solve({first}, width, base=10000):`.",
    )


@dataclass(frozen=True)
class Case:
    """One call of ``solve``: its number (from 1), its arguments, and where it comes from."""

    number: int
    args: tuple
    worked: bool


@dataclass(frozen=True)
class Exercise:
    """An exercise of the pages, with everything the checker needs to mark it.

    ``params`` names the arguments of ``solve``, in order; ``smaller``, when there is
    one, is a shorter ``solve`` that is judged on some cases only. ``draw`` makes the
    unseen cases from a random generator; ``expected`` computes the right answer with
    the library; ``describe`` says a case in words and ``where`` names an entry of the
    answer; ``extra`` may add a sentence to a wrong answer's report; ``fallback(*args)``
    is the hint when no known mistake matches.
    """

    key: str
    title: str
    page: str
    params: tuple[str, ...]
    returns: str
    task: str
    worked: tuple[tuple, ...]
    draw: Callable[[np.random.Generator], list[tuple]]
    expected: Callable[..., np.ndarray]
    shape: Callable[..., tuple[int, ...]]
    describe: Callable[..., str]
    where: Callable[[tuple, tuple[int, ...]], str]
    mistakes: tuple[Mistake, ...]
    fallback: Callable[..., str]
    extra: Callable[[tuple, np.ndarray], str] | None = None
    smaller: Smaller | None = None

    @property
    def signature(self) -> str:
        """The full call, such as ``solve(length, width, base)``."""
        return f"solve({', '.join(self.params)})"

    def cases(self, seed: int = 0) -> list[Case]:
        """The worked examples of the page, then the unseen cases drawn with ``seed``."""
        unseen = self.draw(np.random.default_rng([seed, int(self.key[1:])]))
        every = [(args, True) for args in self.worked] + [(args, False) for args in unseen]
        return [Case(n, args, worked) for n, (args, worked) in enumerate(every, start=1)]


def even(rng: np.random.Generator, low: int, high: int) -> int:
    """A random even integer from ``low`` to ``high`` (both even), for model widths."""
    return 2 * int(rng.integers(low // 2, high // 2 + 1))


def pairs(width: int) -> np.ndarray:
    """The pair indices ``i = 0 .. width/2 - 1`` as floats."""
    return np.arange(width // 2, dtype=np.float64)  # (d/2,)


PAIR_HINT = (
    "The two columns of a pair use different angles in your answer. Columns `2i` and "
    "`2i + 1` both belong to pair `i = j // 2`: use the pair index in the exponent "
    "`2 * i / d`, not the column index `j`."
)

FIXED_BASE_HINT = (
    "You used 10000 where this case asks for another base. Take the base from the "
    "third argument of solve."
)
