"""E8, the proportional ladder: ``solve(head_dim, base, partial_rotary_factor)`` returns the
speed of every pair of a head under Gemma 4's proportional rotary, shape (d/2,).

Proportional rotary (Transformers' ``_compute_proportional_rope_parameters``; Proposition
31): with ``d = head_dim`` and ``k = int(partial_rotary_factor * d // 2)``, pair ``i < k``
turns at ``b**(-2i/d)``, the exponent over the whole head, as default rotary does, and the
other ``d/2 - k`` pairs, the slowest, are stopped (speed 0). The answer has ``d/2``
entries, zeros last. It is not NeoX partial rotary, whose ``int(d * p) / 2`` speeds have
the exponent over the rotated width. The right answer is
``posenc.rope.inv_freq("proportional", ...)``; the classic mistakes are written out below.
"""

from __future__ import annotations

import numpy as np

from posenc.exercises._base import Exercise, Mistake
from posenc.rope import inv_freq


def expected(head_dim, base, partial_rotary_factor):
    speeds, _ = inv_freq(
        "proportional", head_dim, base=base, partial_rotary_factor=partial_rotary_factor
    )
    return speeds  # (d/2,)


def turning(head_dim, partial_rotary_factor) -> int:
    """The pairs that turn, ``int(p * d // 2)``, as Transformers counts them."""
    return int(partial_rotary_factor * head_dim // 2)


def ladder(head_dim, base, partial_rotary_factor, *, over="head", zeros="last", keep="fast"):
    """Proportional rotary in float64, with switches that make the classic mistakes.

    over: 'head' (the exponent over d, right) or 'rotated' (over the rotated width
    ``int(d * p)``, NeoX partial rotary's ladder). zeros: 'last' (right), 'first' (the
    zeros before the turning pairs) or 'dropped' (the turning pairs only, k entries).
    keep: 'fast' (the first k pairs of the ladder turn, right) or 'slow' (its last k
    pairs turn and the fast ones are stopped).
    """
    d, k = head_dim, turning(head_dim, partial_rotary_factor)
    width = d if over == "head" else int(d * partial_rotary_factor)
    full = float(base) ** (-np.arange(0, d, 2, dtype=np.float64) / width)  # (d/2,)
    if keep == "slow":
        return np.where(np.arange(d // 2) >= d // 2 - k, full, 0.0)  # (d/2,)
    speeds = full[:k]  # (k,)
    if zeros == "dropped":
        return speeds
    stopped = np.zeros(d // 2 - k)  # (d/2 - k,)
    return np.concatenate([stopped, speeds] if zeros == "first" else [speeds, stopped])


def neox(head_dim, base, partial_rotary_factor):
    """NeoX partial rotary: ``int(d p) / 2`` speeds, the exponent over ``int(d p)``."""
    r = int(head_dim * partial_rotary_factor)
    return float(base) ** (-np.arange(0, r, 2, dtype=np.float64) / r)  # (r/2,)


def ignored(head_dim, base, partial_rotary_factor):
    """Default rotary over the whole head: the partial factor not read."""
    return float(base) ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)  # (d/2,)


def in_float32(*args):
    """The right answer, as Transformers computes it in float32 (``torch.float``)."""
    return expected(*args).astype(np.float32).astype(np.float64)


MISTAKES = (
    Mistake(
        "exponent over the rotated width",
        "Your turning pairs have the speeds of NeoX partial rotary: the exponent is over the "
        "rotated width `int(d * p)`. Proportional rotary keeps the exponent over the whole "
        "head, `b ** (-2 * i / d)`, so its turning pairs are exactly the fastest pairs of "
        "default rotary (pegainfer#820 states the difference; pie#603 and zml#660 show how "
        "easily the two are swapped).",
        lambda *args: ladder(*args, over="rotated"),
    ),
    Mistake(
        "NeoX partial rotary",
        "You returned NeoX partial rotary's speeds: `int(d * p) / 2` of them, with the "
        "exponent over that rotated width. Proportional rotary returns one speed for every "
        "pair of the head, `d / 2` of them: the first `int(p * d // 2)` are "
        "`b ** (-2 * i / d)`, the exponent over the whole head, and the rest are 0 "
        "(pegainfer#820).",
        neox,
    ),
    Mistake(
        "zeros dropped",
        "Your speeds are right, but only the turning pairs are there: the stopped pairs' "
        "zeros are missing. Proportional rotary returns `d / 2` speeds, so that "
        "`rotate_half` pairs coordinate `i` with `i + d / 2` across the whole head; a "
        "shorter list pairs the wrong coordinates. Megatron-Bridge#4195 reports this "
        "bug in Gemma 4's global layers. Append `d / 2 - k` zeros.",
        lambda *args: ladder(*args, zeros="dropped"),
    ),
    Mistake(
        "zeros first",
        "Your zeros come first and the turning speeds last. The pairs that turn are the "
        "first `k = int(p * d // 2)`, the fastest, from `b ** 0 = 1` down; the zeros stop "
        "the last `d / 2 - k`, the slowest. Put the speeds first, then the zeros.",
        lambda *args: ladder(*args, zeros="first"),
    ),
    Mistake(
        "fast pairs stopped",
        "You stopped the fast pairs and kept the slow ones turning. p-RoPE, which "
        "proportional rotary follows, removes the slowest frequencies, those that turn "
        "too little over a context to carry position (Proposition 32): pairs "
        "`0 .. k - 1` turn at `b ** (-2 * i / d)` and pairs from `k` on are 0.",
        lambda *args: ladder(*args, keep="slow"),
    ),
    Mistake(
        "partial factor ignored",
        "Every pair of your head turns: you left out partial_rotary_factor. Only the "
        "first `k = int(p * d // 2)` pairs turn; the others get speed 0. Code that "
        "ignored the factor is a reported bug (nexusquant#12 for Gemma 4; "
        "transformers#48652 for partial rotary).",
        ignored,
    ),
    Mistake(
        "float32",
        "Your speeds agree with the right ones to the precision of float32 (a few times "
        "1e-8), but not to 1e-9. Some step runs in float32 (np.float32, or PyTorch's "
        "`torch.float`, in which Transformers computes these speeds). Compute in float64.",
        in_float32,
        tolerance=1e-6,  # a float32 power rounds a few times over
    ),
)


def draw(rng):
    """Unseen cases: Gemma 4's heads, other heads, bases and shares, one of them whole."""

    def one(shares):
        return (
            int(rng.choice([64, 96, 128, 256, 512])),
            float(rng.choice([10000.0, 500000.0, 1000000.0])),
            float(rng.choice(shares)),
        )

    return [
        (256, 1000000.0, 0.25),  # Gemma 4's smaller global head (FACTS-zoo section 2)
        one([0.25, 0.5]),
        one([0.25, 0.5, 0.75]),
        one([0.125, 0.375, 0.625]),
        one([1.0]),
    ]


def describe(head_dim, base, partial_rotary_factor):
    return f"solve({head_dim}, {base!r}, {partial_rotary_factor!r})"


def where(args, index):
    (i,) = index
    k = turning(args[0], args[2])
    state = "turns" if i < k else "is stopped"
    return f"at index {i} (pair {i}, which {state}: {k} of the {args[0] // 2} pairs turn)"


def fallback(head_dim, base, partial_rotary_factor):
    k = turning(head_dim, partial_rotary_factor)
    return (
        f"Here {k} of the {head_dim // 2} pairs turn (`int({partial_rotary_factor!r} * "
        f"{head_dim} // 2)`). Pair i < {k} turns at `{base!r} ** (-2 * i / {head_dim})`, "
        f"the exponent over the whole head; pairs {k} to {head_dim // 2 - 1} have speed 0."
    )


TASK = """\
Compute the speeds of a head under proportional rotary, the scheme of Gemma 4's
global layers, as Transformers computes them.

Write a file with a function

    def solve(head_dim, base, partial_rotary_factor):

head_dim               the width d of a head, an even int; d / 2 pairs
base                   rope_theta b, a float; 1000000.0 in Gemma 4's global
                       layers
partial_rotary_factor  the share p of the pairs that turn, a float in (0, 1];
                       0.25 in Gemma 4's global layers

It returns d/2 floats (float64), the speed of pair i = 0 .. d/2 - 1: a NumPy
array, a list or a tuple.

    k = int(p * d // 2)              # the pairs that turn
    i < k:   b ** (-2i / d)           # the exponent over the whole head
    i >= k:  0                        # the slowest pairs are stopped

Worked examples (6 significant digits):

    solve(16, 10000.0, 0.5)
        -> [1, 0.316228, 0.1, 0.0316228, 0, 0, 0, 0]
    solve(512, 1000000.0, 0.25): Gemma 4 31B's global head; pairs 0 to 63
        turn, pair 63 at 0.0333762, and pairs 64 to 255 are 0
    solve(128, 10000.0, 1.0): every pair turns, as in default rotary"""


E8 = Exercise(
    key="E8",
    title="The proportional ladder",
    page="exercises/e8-proportional-ladder.md",
    params=("head_dim", "base", "partial_rotary_factor"),
    returns="head_dim / 2 floats: a NumPy array, a list or a tuple",
    task=TASK,
    worked=((16, 10000.0, 0.5), (512, 1000000.0, 0.25), (128, 10000.0, 1.0)),
    draw=draw,
    expected=expected,
    shape=lambda head_dim, *rest: (head_dim // 2,),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
)
