"""E3, order blindness: ``solve(X, Wq, Wk, Wv, order)`` returns two numbers.

They are the largest entries of |Attn(X[order]) - Attn(X)[order]| (zero: attention
follows any reordering of its input) and of the same with the sinusoidal code added
by place, |Attn(X[order] + PE) - Attn(X + PE)[order]| (not zero). The right answers
come from ``posenc.attention`` and ``posenc.sinusoidal``.
"""

from __future__ import annotations

import math

import numpy as np

from posenc.attention import attention
from posenc.encoding import sinusoidal
from posenc.exercises._base import Exercise, Mistake

#: "dog bites man": each word a hand-made list of 4 numbers.
WORDS = {
    "dog": (1.0, 0.0, 0.5, 0.0),
    "bites": (0.0, 1.0, 0.0, 0.5),
    "man": (0.5, 0.0, 0.0, 1.0),
}
DOG_BITES_MAN = np.array([WORDS["dog"], WORDS["bites"], WORDS["man"]])  # (3, 4)


def expected(X, Wq, Wk, Wv, order):
    X = np.asarray(X, dtype=np.float64)  # (n, d)
    pe = sinusoidal(*X.shape)  # (n, d): row r is the code of place r
    gaps = []
    for moved, original in ((X[order], X), (X[order] + pe, X + pe)):
        diff = attention(moved, Wq, Wk, Wv) - attention(original, Wq, Wk, Wv)[order]  # (n, d_v)
        gaps.append(np.max(np.abs(diff)))
    return np.array(gaps)  # (2,)


def gaps(
    X,
    Wq,
    Wk,
    Wv,
    order,
    *,
    axis=-1,
    scale="d_k",
    code="place",
    outputs="same",
    reduce="max abs",
    start=0,
):
    """The two numbers by the formula, with switches that make the classic mistakes.

    axis: the softmax axis. scale: divide the scores by sqrt of 'd_k', 'd_model', or
    None for no scaling. code: 'place' (row r gets PE(start + r)) or 'token' (the code
    moves with its word). outputs: compare with 'same' Attn(X)[order], 'none' Attn(X),
    or 'inverse' Attn(X)[argsort(order)]. reduce: 'max abs', 'mean abs' or 'max'.
    """
    X = np.asarray(X, dtype=np.float64)  # (n, d)
    n, d = X.shape
    order = np.asarray(order)  # (n,)
    pe = sinusoidal(n, d, start=start)  # (n, d)
    divisor = {"d_k": math.sqrt(np.shape(Wq)[1]), "d_model": math.sqrt(d), None: 1.0}[scale]
    back = {"same": order, "none": np.arange(n), "inverse": np.argsort(order)}[outputs]

    def attn(Z):  # (n, d) -> (n, d_v)
        s = (Z @ Wq) @ (Z @ Wk).T / divisor  # (n, n)
        e = np.exp(s - s.max(axis=axis, keepdims=True))  # (n, n)
        return (e / e.sum(axis=axis, keepdims=True)) @ (Z @ Wv)  # (n, d_v)

    def gap(moved, original):  # (n, d) inputs: the reordered one and the first one
        diff = attn(moved) - attn(original)[back]  # (n, d_v)
        if reduce == "max":
            return np.max(diff)
        return np.max(np.abs(diff)) if reduce == "max abs" else np.mean(np.abs(diff))

    coded = (X + pe)[order] if code == "token" else X[order] + pe  # (n, d)
    return np.array([gap(X[order], X), gap(coded, X + pe)])  # (2,)


MISTAKES = (
    Mistake(
        "code moves with the words",
        "Your second number is about 0, so the code did not break the symmetry. The code "
        "belongs to the place, not to the word: add PE to the reordered input, "
        "`X[order] + PE`, so that row r gets PE(r) whichever word sits there. Moving the "
        "code along with the words, `(X + PE)[order]`, only reorders a new input, and "
        "attention follows any reordering.",
        lambda *args: gaps(*args, code="token"),
    ),
    Mistake(
        "outputs not reordered",
        "Your first number is not 0. Attention is permutation-equivariant, not "
        "invariant: the outputs move with their words. Compare `Attn(X[order])` with "
        "`Attn(X)[order]`, not with `Attn(X)`.",
        lambda *args: gaps(*args, outputs="none"),
    ),
    Mistake(
        "inverse order",
        "You reordered the input and the output in opposite directions. Index both the "
        "same way: `X[order]` goes in, and `Attn(X)[order]` is what should come out.",
        lambda *args: gaps(*args, outputs="inverse"),
    ),
    Mistake(
        "softmax axis",
        "Your softmax runs down the columns. The weights of one query (one row of the "
        "score matrix) must sum to 1: take the softmax along `axis=-1`, over the keys.",
        lambda *args: gaps(*args, axis=0),
    ),
    Mistake(
        "unscaled scores",
        "Scale the scores: `softmax(Q K^T / sqrt(d_k))`, with d_k the number of columns of Wq.",
        lambda *args: gaps(*args, scale=None),
    ),
    Mistake(
        "scaled by the model width",
        "Divide the scores by `sqrt(d_k)`, where `d_k = Wq.shape[1]` is the width of the "
        "queries, not by the square root of the model width `X.shape[1]`.",
        lambda *args: gaps(*args, scale="d_model"),
    ),
    Mistake(
        "code from position one",
        "Positions count from 0: row r gets PE(r), so the first row gets "
        "`PE(0) = (0, 1, 0, 1, ...)`.",
        lambda *args: gaps(*args, start=1),
    ),
    Mistake(
        "mean",
        "Each number is the largest absolute difference, `np.abs(difference).max()`, "
        "not the mean.",
        lambda *args: gaps(*args, reduce="mean abs"),
    ),
    Mistake(
        "signed maximum",
        "Take the absolute value before the maximum: the largest difference may be negative.",
        lambda *args: gaps(*args, reduce="max"),
    ),
)


def draw(rng):
    """Unseen cases: random words and weights, d_k != d, orders that are not involutions."""
    cases = []
    for n, top in ((int(rng.integers(4, 7)), 12), (int(rng.integers(6, 9)), 12), (16, 32)):
        d = 2 * int(rng.integers(2, top // 2 + 1))  # even model width, 4 .. top
        d_k = int(rng.integers(2, d))  # never d, so that sqrt(d_k) != sqrt(d)
        d_v = int(rng.integers(2, 7))
        X = rng.normal(size=(n, d))  # (n, d)
        Wq, Wk = rng.normal(size=(2, d, d_k)) / math.sqrt(d)  # (d, d_k) each
        Wv = rng.normal(size=(d, d_v)) / math.sqrt(d)  # (d, d_v)
        order = rng.permutation(n)  # (n,)
        while np.array_equal(order[order], np.arange(n)):  # its own inverse: draw again
            order = rng.permutation(n)
        cases.append((X, Wq, Wk, Wv, [int(r) for r in order]))
    return cases


def describe(X, Wq, Wk, Wv, order):
    X = np.asarray(X)
    if X.shape == DOG_BITES_MAN.shape and np.array_equal(X, DOG_BITES_MAN):
        names = list(WORDS)
        moved = " ".join(names[r] for r in order)
        return f'solve(X, I, I, I, {order}), "dog bites man" against "{moved}"'
    return (
        f"solve(X, Wq, Wk, Wv, order) with n = {X.shape[0]}, d = {X.shape[1]}, "
        f"d_k = {np.shape(Wq)[1]}, d_v = {np.shape(Wv)[1]} and order = {order}"
    )


def where(args, index):
    return ("in the first number (without the code)", "in the second number (with the code)")[
        index[0]
    ]


TASK = """\
Show that attention cannot see order, and that adding the sinusoidal code lets it.

Write a file with a function

    def solve(X, Wq, Wk, Wv, order):

X       the token vectors, a NumPy array of shape (n, d), one row per word; d is even
Wq, Wk  the query and key projections, arrays of shape (d, d_k)
Wv      the value projection, an array of shape (d, d_v)
order   a reordering, a list of n ints: row r of the new sentence is row order[r]
        of X, that is X[order]

With Attn(Z) = softmax((Z Wq)(Z Wk)^T / sqrt(d_k)) (Z Wv), the softmax taken along
each row, and PE the sinusoidal code of n positions and width d (base 10000), it
returns two numbers:

    without   = the largest |entry| of Attn(X[order]) - Attn(X)[order]
    with_code = the largest |entry| of Attn(X[order] + PE) - Attn(X + PE)[order]

The first is 0, up to rounding; the second is not.

Worked examples, with dog = (1, 0, 0.5, 0), bites = (0, 1, 0, 0.5),
man = (0.5, 0, 0, 1), X = [dog, bites, man] and Wq = Wk = Wv = I, the 4 x 4
identity:

    solve(X, I, I, I, [2, 1, 0]) -> (0, 0.908160)    "man bites dog"
    solve(X, I, I, I, [1, 2, 0]) -> (0, 0.746569)    "bites man dog\""""


_I = np.eye(4)

E3 = Exercise(
    key="E3",
    title="Order blindness",
    page="exercises/e3-order-blindness.md",
    params=("X", "Wq", "Wk", "Wv", "order"),
    returns="two numbers, (without, with_code)",
    task=TASK,
    worked=((DOG_BITES_MAN, _I, _I, _I, [2, 1, 0]), (DOG_BITES_MAN, _I, _I, _I, [1, 2, 0])),
    draw=draw,
    expected=expected,
    shape=lambda X, Wq, Wk, Wv, order: (2,),
    describe=describe,
    where=where,
    mistakes=MISTAKES,
    fallback=lambda *args: (
        "Print Attn(X[order]) and Attn(X)[order] side by side for the first worked "
        "example: without the code they hold the same rows. Then do the same with the "
        "code added by place."
    ),
)
