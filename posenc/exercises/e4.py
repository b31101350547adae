"""E4, ALiBi slopes for any head count: ``solve(num_heads)`` returns the slopes, shape (H,).

ALiBi (Press et al. 2022) adds ``-m_h * distance`` to the scores of head h. The slopes
of its reference code: for H a power of two, ``m_h = 2**(-8h/H)`` for h = 1 .. H; for
other H, the slopes for ``c = 2**floor(log2 H)`` heads, then the first H - c of every
other slope of the series for 2c heads (its terms h = 1, 3, 5, ...). The right answer
is ``posenc.relative.alibi_slopes``; the classic mistakes are written out below.
"""

from __future__ import annotations

import numpy as np

from posenc.exercises._base import Exercise, Mistake
from posenc.relative import alibi_slopes


def _series(n, start=1):
    """The power-of-two series for n heads: 2**(-8h/n) for h = start .. start + n - 1."""
    h = np.arange(start, start + n, dtype=np.float64)  # (n,)
    return 2.0 ** (-8.0 * h / n)  # (n,)


def _closest(num_heads):
    return 1 << (int(num_heads).bit_length() - 1)  # 2**floor(log2 H)


def slopes(num_heads, *, start=1, extra="every other", plain=False):
    """The slopes by the formula, with switches that make the classic mistakes.

    start: the first head index, 1 (right) or 0. extra: which slopes of the series for
    2c heads fill heads c + 1 .. H: 'every other' (its terms 1, 3, 5, ..., right),
    'first' (its first terms) or 'even' (its terms 2, 4, 6, ..., which repeat slopes
    already used). plain: 2**(-8h/H) for every H, without the rule.

    Examples
    --------
    >>> slopes(6).tolist()
    [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]
    >>> slopes(6, extra="even").tolist()  # heads 5 and 6 repeat heads 1 and 2
    [0.25, 0.0625, 0.015625, 0.00390625, 0.25, 0.0625]
    >>> slopes(4, start=0).tolist()
    [1.0, 0.25, 0.0625, 0.015625]
    """
    if plain:
        return _series(num_heads, start)  # (H,)
    c = _closest(num_heads)
    doubled = _series(2 * c, start)  # (2c,)
    more = {"every other": doubled[0::2], "first": doubled, "even": doubled[1::2]}[extra]
    return np.concatenate([_series(c, start), more[: num_heads - c]])  # (H,)


def expected(num_heads):
    return alibi_slopes(num_heads)


def rounded_up(num_heads):
    # the series for the next power of two, cut to H heads
    return _series(1 << (int(num_heads) - 1).bit_length())[:num_heads]


def in_dtype(dtype):
    def formula(num_heads):  # the right slopes, rounded to the narrower type
        return alibi_slopes(num_heads).astype(dtype).astype(np.float64)

    return formula


FROM_ZERO = (
    "Your first head has slope 1, that is 2**0. The heads count from 1: head h = 1 .. H "
    "gets `2 ** (-8 * h / H)`, so the first slope is `2 ** (-8 / H)` and the last one "
    "`2 ** -8`. With `range(n)` write `2 ** (-8 * (h + 1) / n)`."
)

MISTAKES = (
    Mistake(
        "plain series",
        "For a head count that is not a power of two you used `2 ** (-8 * h / H)`. That "
        "series is the rule for powers of two only. For other H the reference code takes "
        "the slopes for `c = 2 ** floor(log2 H)` heads, then every other slope of the "
        "series for `2c` heads, the first `H - c` of them.",
        lambda num_heads: slopes(num_heads, plain=True),
    ),
    Mistake("heads from zero", FROM_ZERO, lambda num_heads: slopes(num_heads, start=0)),
    Mistake(
        "heads from zero, plain series",
        FROM_ZERO + " And for a head count that is not a power of two, `2 ** (-8 * h / H)` "
        "is not the rule: see the task.",
        lambda num_heads: slopes(num_heads, start=0, plain=True),
    ),
    Mistake(
        "first extra slopes",
        "Your first c slopes are right, but the extra ones are the first `H - c` slopes "
        "of the series for `2c` heads. The reference code takes every other one of them, "
        "`series(2 * c)[0::2][: H - c]`: the slopes that fall between those already used.",
        lambda num_heads: slopes(num_heads, extra="first"),
    ),
    Mistake(
        "wrong half",
        "Your extra slopes repeat slopes your first c heads already have: you took "
        "`series(2 * c)[1::2]`, the terms h = 2, 4, 6, ..., and `2 ** (-8 * 2j / (2c))` "
        "is `2 ** (-8 * j / c)`. Take the other half, `series(2 * c)[0::2]`, the terms "
        "h = 1, 3, 5, ..., which fall between them.",
        lambda num_heads: slopes(num_heads, extra="even"),
    ),
    Mistake(
        "rounded up",
        "You took the series for the next power of two and cut it to H heads. The "
        "reference code rounds down: the series for `c = 2 ** floor(log2 H)` heads, then "
        "every other slope of the series for `2c` heads, the first `H - c` of them. Your "
        "way, the last slope is not `2 ** -8`.",
        rounded_up,
    ),
    Mistake(
        "float32",
        "Your slopes agree with the right ones to the precision of float32 (a few times "
        "1e-8), but not to 1e-9. Some step runs in float32 (np.float32, or PyTorch's "
        "default dtype). Compute in float64.",
        in_dtype(np.float32),
        tolerance=1e-6,  # float32 steps round, and a power of a rounded ratio drifts
    ),
    Mistake(
        "float16",
        "Your slopes agree with the right ones to about three digits only: that is "
        "float16 (half precision), whose step between 0.5 and 1 is about 0.0005. Compute "
        "the slopes in float64 here; a model keeps them in float32 at least, even when "
        "the rest of it runs in float16.",
        in_dtype(np.float16),
        tolerance=2e-3,  # float16 steps round, a few units in the last place
    ),
)


def draw(rng):
    """Unseen cases: one or two heads, a larger power of two, three other head counts."""
    small = [h for h in range(3, 8) if h != 4]
    middle = [h for h in range(9, 32) if h != 16]
    large = [h for h in range(33, 201) if h not in (64, 128)]
    return [
        (int(rng.choice([1, 2])),),
        (int(rng.choice([16, 32, 64])),),
        (int(rng.choice(small)),),
        (int(rng.choice(middle)),),
        (int(rng.choice(large)),),
    ]


def where(args, index):
    (i,) = index
    return f"at index {i} (head {i + 1})"


def fallback(num_heads):
    c = _closest(num_heads)
    if c == num_heads:
        rule = f"{num_heads} is a power of two, so they should be `8 * h / {num_heads}`"
    else:
        rule = (
            f"for {num_heads} heads, c = {c}, so they should be `8 * h / {c}` for the "
            f"first {c} heads, then `8 * h / {2 * c}` for h = 1, 3, 5, ... for the other "
            f"{num_heads - c}"
        )
    return (
        f"Print `-np.log2(your_slopes)`, the exponents q_h of `m_h = 2 ** -q_h`: {rule}. "
        "The first wrong exponent shows where your rule departs."
    )


TASK = """\
Compute the head slopes of ALiBi, as its reference code chooses them, for any number
of heads.

Write a file with a function

    def solve(num_heads):

num_heads   the number of heads H, an int >= 1

It returns H floats (float64), slope m_h of head h = 1 .. H in that order: a NumPy
array, a list or a tuple.

For H a power of two, m_h = 2 ** (-8 * h / H), h = 1 .. H.
For other H, with c = 2 ** floor(log2 H), the largest power of two below H:
the c slopes for c heads, then every other slope of the series for 2c heads
(its terms h = 1, 3, 5, ...), the first H - c of them.

Worked examples (6 significant digits):

    solve(8)  -> [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    solve(6)  -> [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]
    solve(12) -> the 8 slopes of solve(8), then 0.707107, 0.353553, 0.176777, 0.0883883"""


E4 = Exercise(
    key="E4",
    title="The ALiBi slopes",
    page="exercises/e4-alibi-slopes.md",
    params=("num_heads",),
    returns="num_heads floats: a NumPy array, a list or a tuple",
    task=TASK,
    worked=((8,), (6,), (12,)),
    draw=draw,
    expected=expected,
    shape=lambda num_heads: (num_heads,),
    describe=lambda num_heads: f"solve({num_heads})",
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
)
