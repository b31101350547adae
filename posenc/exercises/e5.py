"""E5, T5 buckets: ``solve(relative_position, bidirectional, num_buckets, max_distance)``.

It returns T5's bucket of each offset ``key - query`` (Raffel et al. 2020), an int array
of the shape of ``relative_position``. In each half of ``h`` buckets (``h = num_buckets
// 2`` when bidirectional, the positive offsets in the upper half; ``h = num_buckets``
for the causal decoder, where offsets to the future count as 0), a distance ``n < e``,
``e = h // 2``, has bucket ``n``, and a larger one ``e + floor(ln(n/e) / ln(M/e) *
(h - e))``, at most ``h - 1``, with ``M = max_distance``. The floor is of the exact
number; the right answer is ``posenc.relative.t5_bucket``, which decides it in integers.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.exercises._base import Exercise, Mistake, Smaller
from posenc.relative import t5_bucket

#: T5's own configuration: 32 buckets, logarithmic up to 128.
T5 = (32, 128)


def expected(relative_position, bidirectional, num_buckets, max_distance):
    return t5_bucket(
        relative_position,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )


def buckets(
    relative_position,
    bidirectional,
    num_buckets,
    max_distance,
    *,
    sign=1,
    exact_below=None,
    clip=True,
    future="zero",
):
    """The buckets by the float formula, with switches that make the classic mistakes.

    sign: -1 takes the offset as query minus key. exact_below: the distance below which
    buckets are exact (None: e = h // 2, right). clip: cap at h - 1. future: for the
    causal case, 'zero' (right) or 'distance' (an offset to the future counts by its
    size, as if it were in the past). The floor is of a float64 logarithm, which is
    right except exactly on a bucket's first distance (``boundaries``).
    """
    offsets = sign * np.asarray(relative_position, dtype=np.int64)  # (n,)
    half = num_buckets // 2 if bidirectional else num_buckets
    exact = half // 2
    if bidirectional:
        upper = np.where(offsets > 0, half, 0)  # (n,)
        distance = np.abs(offsets)
    else:
        upper = np.zeros_like(offsets)
        distance = np.abs(offsets) if future == "distance" else np.maximum(-offsets, 0)
    small = exact if exact_below is None else exact_below
    with np.errstate(divide="ignore"):
        scaled = np.log(np.maximum(distance, 1) / exact) / math.log(max_distance / exact)
    large = exact + (scaled * (half - exact)).astype(np.int64)  # (n,)
    if clip:
        large = np.minimum(large, half - 1)
    return upper + np.where(distance < small, distance, large)  # (n,)


def boundaries(relative_position, bidirectional, num_buckets, max_distance):
    """Where each offset's distance is exactly the first of a logarithmic bucket, (n,) bool.

    There ``ln(n/e) / ln(M/e) * (h - e)`` is an integer q, ``n**(h-e) * e**q ==
    M**q * e**(h-e)`` in integers, and a float logarithm may land just below it.
    """
    half = num_buckets // 2 if bidirectional else num_buckets
    exact, a = half // 2, half - half // 2
    first = set()
    for q in range(1, a):
        n = round(exact * (max_distance / exact) ** (q / a))  # the candidate, then checked
        for m in (n - 1, n, n + 1):
            if m > 0 and m**a * exact**q == max_distance**q * exact**a:
                first.add(m)
    offsets = np.asarray(relative_position, dtype=np.int64)  # (n,)
    distance = np.abs(offsets) if bidirectional else np.maximum(-offsets, 0)
    return np.isin(distance, sorted(first))  # (n,)


def one_below_on_boundaries(*args):
    """The right buckets, one lower wherever the distance is the first of its bucket."""
    return expected(*args) - boundaries(*args).astype(np.int64)


#: How far a bucket may be from a mistake's formula and still count as that mistake: a
#: float logarithm puts some first distances of a bucket one bucket low, on top of any
#: other mistake. Each formula is at least 2 from the right answer somewhere (tested),
#: and the float floor comes last, so a right answer with a float floor is only that.
SLACK = 1.0

MISTAKES = (
    Mistake(
        "query minus key",
        "Your offsets have the wrong sign. `relative_position` is key minus query "
        "(T5's `memory_position - context_position`): a key after the query has a "
        "positive offset and, in the encoder, a bucket in the upper half. Do not negate "
        "it, and do not compute `query - key`.",
        lambda *args: expected(-np.asarray(args[0]), *args[1:]),
        tolerance=SLACK,
    ),
    Mistake(
        "exact up to max_distance",
        "Your buckets are exact up to max_distance. Only distances below `e = h // 2` "
        "have a bucket each (`e = 8` for T5's 32 buckets); from e on, distances share "
        "logarithmic buckets, and max_distance is where that scale ends, not where the "
        "exact ones do.",
        lambda *args: buckets(*args, exact_below=args[3]),
        tolerance=SLACK,
    ),
    Mistake(
        "causal as bidirectional",
        "In the causal case (bidirectional False) the buckets are not split by sign: all "
        "`num_buckets` serve the past, so `h = num_buckets` and `e = h // 2`, and every "
        "offset to the future (key after query) has bucket 0.",
        lambda offsets, bidirectional, num_buckets, max_distance: expected(
            offsets, True, num_buckets, max_distance
        ),
        tolerance=SLACK,
    ),
    Mistake(
        "future by its size",
        "In the causal case an offset to the future (key after query, a positive offset) "
        "has bucket 0: the distance is `max(-relative_position, 0)`, not "
        "`abs(relative_position)`.",
        lambda *args: buckets(*args, future="distance"),
        tolerance=SLACK,
    ),
    Mistake(
        "no cap",
        "Some of your buckets are past the last one of their half. Far distances all "
        "share the last bucket: cap the logarithmic bucket at `h - 1`, "
        "`min(bucket, h - 1)`, before adding the upper half's `h`.",
        lambda *args: buckets(*args, clip=False),
        tolerance=SLACK,
    ),
    Mistake(
        "float floor on a boundary",
        "Your bucket is one too small exactly where a distance is the first of its "
        "bucket: there `ln(n/e) / ln(M/e) * (h - e)` is a whole number q, and the "
        "floating-point logarithm lands just below it. Decide the floor in integers: the "
        "bucket is at least `e + q` exactly when `n ** (h - e) * e ** q >= M ** q * e ** (h "
        "- e)`.",
        one_below_on_boundaries,
        tolerance=SLACK,  # a float answer may be right on some boundaries, not on others
    ),
)


def _offsets(low, high):
    return np.arange(low, high + 1, dtype=np.int64)  # (high - low + 1,)


#: Configurations (num_buckets, max_distance, bidirectional) where T5's formula, in
#: float64 (NumPy, math) or in float32 (PyTorch's default), lands just below a whole
#: number at the first distance of some bucket, and so puts it one bucket too low.
FLOAT64_TRAPS = ((18, 128, True), (20, 160, True), (10, 160, False))
FLOAT32_TRAPS = ((96, 81, True), (48, 81, False), (72, 98, True))


def draw(rng):
    """Unseen cases: T5 both ways on every offset to +-300, other sizes, two float traps."""
    traps = [trap[int(rng.integers(len(trap)))] for trap in (FLOAT64_TRAPS, FLOAT32_TRAPS)]
    other = int(rng.choice([16, 64]))
    return [
        (_offsets(-300, 300), True, *T5),
        (_offsets(-300, 300), False, *T5),
        (_offsets(-400, 400), True, other, int(rng.choice([64, 256]))),
        (_offsets(-400, 50), False, int(rng.choice([16, 48])), int(rng.choice([64, 100]))),
        *[(_offsets(-3 * reach, 3 * reach), both, size, reach) for size, reach, both in traps],
    ]


def describe(relative_position, bidirectional, num_buckets, max_distance):
    offsets = [int(r) for r in relative_position]
    shown = str(offsets) if len(offsets) <= 12 else "relative_position"
    text = f"solve({shown}, {bidirectional}, {num_buckets}, {max_distance})"
    if len(offsets) > 12:
        text += f" with every offset from {offsets[0]} to {offsets[-1]}"
    return text


def where(args, index):
    (i,) = index
    return f"at offset {int(args[0][i])} (entry {i})"


def fallback(relative_position, bidirectional, num_buckets, max_distance):
    half = num_buckets // 2 if bidirectional else num_buckets
    exact = half // 2
    return (
        f"Work one distance n by hand. Here h = {half} and e = {exact}: n < {exact} is its "
        f"own bucket; from {exact} on the bucket is "
        f"`{exact} + floor(ln(n / {exact}) / ln({max_distance} / {exact}) * {half - exact})`, "
        f"at most {half - 1}"
        + (f", plus {half} for a positive offset." if bidirectional else ".")
        + " Compare with posenc.relative.t5_bucket for the first wrong offset."
    )


TASK = """\
Put each offset into its T5 bucket, as T5's attention does before it looks up the
bias of the bucket.

Write a file with a function

    def solve(relative_position, bidirectional, num_buckets, max_distance):

relative_position  offsets key - query, a 1-D NumPy array of ints
bidirectional      True for T5's encoder, False for its causal decoder
num_buckets        the number of buckets, an int (even when bidirectional); 32 in T5
max_distance       an int, where the logarithmic scale ends; 128 in T5

It returns the bucket of each offset, ints of the shape of relative_position.

Bidirectional: h = num_buckets // 2 buckets for each sign; an offset > 0 adds h.
Causal: h = num_buckets, all for the past; an offset > 0 counts as distance 0.
With n the distance (|offset|, or -offset in the past) and e = h // 2:

    n < e:   bucket n
    n >= e:  bucket e + floor(ln(n / e) / ln(max_distance / e) * (h - e)),
             at most h - 1

The floor is of the exact number: a float logarithm can land just below a whole
number, and the checker has cases where float64 and float32 do.

Worked examples:

    solve([0, 1, 7, 8, 12, 90, 91, 500], True, 32, 128)
        -> [0, 17, 23, 24, 25, 30, 31, 31]
    solve([0, -1, -7, -8, -91], True, 32, 128) -> [0, 1, 7, 8, 15]
    solve([3, 0, -15, -16, -113], False, 32, 128) -> [0, 0, 15, 16, 31]

A solve(relative_position, bidirectional), with T5's 32 and 128 built in, is checked
too: on the cases with T5's sizes only, and the report says how many others it did
not run."""


def _array(values):
    return np.array(values, dtype=np.int64)


E5 = Exercise(
    key="E5",
    title="The T5 buckets",
    page="exercises/e5-t5-buckets.md",
    params=("relative_position", "bidirectional", "num_buckets", "max_distance"),
    returns="ints of the shape of relative_position: a NumPy array, a list or a tuple",
    task=TASK,
    worked=(
        (_array([0, 1, 7, 8, 12, 90, 91, 500]), True, *T5),
        (_array([0, -1, -7, -8, -91]), True, *T5),
        (_array([3, 0, -15, -16, -113]), False, *T5),
    ),
    draw=draw,
    expected=expected,
    shape=lambda relative_position, *rest: (len(relative_position),),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=fallback,
    smaller=Smaller(
        arity=2,
        keeps=lambda _positions, _bidirectional, num_buckets, max_distance: (
            (num_buckets, max_distance) == T5
        ),
        kept="with T5's 32 buckets and max_distance 128",
        others="with other sizes",
        opt_in="Add the arguments num_buckets and max_distance to be judged on them too: "
        "`def solve(relative_position, bidirectional, num_buckets=32, max_distance=128):`.",
    ),
)
