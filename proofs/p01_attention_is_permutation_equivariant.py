"""Proposition 1 (self-attention cannot see order).

Let Attn(X) = softmax(X Wq (X Wk)^T / sqrt(d_k)) X Wv, with the softmax taken
along each row and no position signal anywhere. For every permutation matrix P,
Attn(P X) = P Attn(X): permuting the tokens permutes the outputs in the same
way, and nothing else changes. The same holds for multi-head attention.

Uses: none.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Show, Witness, substitute

NUMBER = 1
TITLE = "Self-attention cannot see order"
USES = ()

# What the proposition chooses rather than computes: the symbolic check covers
# n = 2 .. largest_n tokens, and each numeric check looks at random_points points.
INPUTS = {"largest_n": 5, "random_points": 20}

D_MODEL = 2  # features per token in the symbolic check; the argument does not use its value
D_K = 2
SIZES = range(2, INPUTS["largest_n"] + 1)  # n = 2 .. largest_n tokens
SAMPLES = INPUTS["random_points"]  # random points in each numeric check


def tokens(n: int) -> sp.Matrix:
    """A fully symbolic input: n tokens, each a row of D_MODEL real symbols."""
    return sp.Matrix(n, D_MODEL, lambda r, c: sp.Symbol(f"x_{r}{c}", real=True))


def weights(name: str, cols: int) -> sp.Matrix:
    return sp.Matrix(D_MODEL, cols, lambda r, c: sp.Symbol(f"{name}_{r}{c}", real=True))


WQ, WK, WV = weights("q", D_K), weights("k", D_K), weights("v", D_MODEL)


def in_order(terms: list[sp.Expr]) -> sp.Expr:
    """A sum over tokens, kept unevaluated with its terms in token order.

    SymPy would otherwise sort the terms of every sum at once, so Attn(P X)
    and P Attn(X) would be the same expression as written. Kept in order,
    the two sides differ as written, and the check is that evaluating them
    (which reorders each sum) makes them equal.
    """
    return terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False)


def attention(x: sp.Matrix, causal: bool = False) -> sp.Matrix:
    """Attn(X), written out: row r mixes the value rows with softmax weights.

    With ``causal=True`` token r may only attend to tokens 0..r (the decoder's
    mask), which is a rule about indices, not about content.
    """
    queries, keys, values = x * WQ, x * WK, x * WV
    scores = queries * keys.T / sp.sqrt(D_K)
    rows = []
    for r in range(x.rows):
        allowed = range(r + 1) if causal else range(x.rows)
        weight = [sp.exp(scores[r, j]) for j in allowed]
        total = in_order(weight)  # the softmax denominator, a sum over the keys
        mixed = [
            in_order([weight[t] * values[j, col] for t, j in enumerate(allowed)]) / total
            for col in range(values.cols)
        ]
        rows.append(sp.Matrix([mixed]))
    return sp.Matrix.vstack(*rows)


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row r of P M is row perm[r] of M."""
    return sp.Matrix.vstack(*[m.row(p) for p in perm])


def equivariance_cases(causal: bool = False):
    """(label, Attn(PX) - P Attn(X)) for n = 2 .. largest_n and every permutation."""
    for n in SIZES:
        x = tokens(n)
        out = attention(x, causal)
        for perm in itertools.permutations(range(n)):
            moved = attention(permute_rows(x, perm), causal)  # Attn(P X), built from P X
            yield f"n = {n}, perm = {perm}", moved - permute_rows(out, perm)


def softmax(v: list[sp.Expr]) -> list[sp.Expr]:
    """softmax of a row of scores, its normaliser summed in the order of the row."""
    total = in_order([sp.exp(t) for t in v])
    return [sp.exp(t) / total for t in v]


def checks(rec: Recorder) -> None:
    # Step 1. The formula for Attn is built from sums over all tokens. Feeding
    # it P X instead of X permutes the terms of each sum and moves the query of
    # row r to row perm[r]. Each sum is kept in the order of its input, so the
    # two sides differ as written; evaluating them must make every entry of
    # Attn(P X) - P Attn(X) vanish. Every entry of X and of the weights is a
    # free symbol; every permutation of 2 .. largest_n tokens.
    largest = INPUTS["largest_n"]
    equivariance = rec.instances(
        "Attn(P X) = P Attn(X)",
        equivariance_cases(),
        scope=f"n = 2..{largest} tokens, every permutation, symbolic X (n x 2) and "
        "Wq, Wk, Wv (2 x 2)",
    )
    # The family is every permutation of every size the page names: there are
    # n! permutations of n tokens, so 2! + 3! + ... + largest_n! cases.
    rec.exact(
        "the cases are all permutations of n = 2 .. largest_n tokens: sum of n!",
        equivariance.samples,
        sum(math.factorial(n) for n in range(2, largest + 1)),
        scope=f"exact integers: the cases checked against 2! + ... + {largest}!",
        quantity="permutations",
        show=Show(),
    )

    # Step 2. The softmax step on its own: permuting a row of scores permutes
    # its weights the same way (the normaliser is a sum over all entries).
    s = sp.symbols("s0:4", real=True)
    rec.instances(
        "softmax(P s) = P softmax(s)",
        (
            (
                str(perm),
                sp.Matrix(softmax([s[p] for p in perm]))
                - sp.Matrix([softmax(s)[p] for p in perm]),
            )
            for perm in itertools.permutations(range(4))
        ),
        scope="score rows of length 4, all 24 permutations, symbolic scores",
    )

    # Step 3. Numeric spot check of the symbolic result, and the library draws
    # what is proven: posenc.attention equals the formula above at random points.
    rng = np.random.default_rng(1)
    x = tokens(4)
    formula = sp.lambdify([list(x), list(WQ), list(WK), list(WV)], attention(x), "numpy")
    errors = []
    for _ in range(SAMPLES):
        xs, q, k, v = (rng.normal(size=shape) for shape in ((4, 2), (2, 2), (2, 2), (2, 2)))
        got = posenc.attention(xs, q, k, v)  # (4, 2)
        want = np.array(
            formula(list(xs.ravel()), list(q.ravel()), list(k.ravel()), list(v.ravel())),
            dtype=float,
        )
        errors.extend(np.abs(got - want).ravel())
    rec.numeric(
        "posenc.attention equals the symbolic Attn",
        errors,
        tol=1e-12,
        scope=f"{SAMPLES} random (X, Wq, Wk, Wv), every entry of the (4, 2) output; "
        "n = 4, d = 2, float64",
    )

    # Step 4. Multi-head attention (heads computed side by side, concatenated,
    # then mixed by Wo) inherits the property: numeric check with posenc.
    errors = []
    for _ in range(SAMPLES):
        n, width, heads = 7, 8, 2
        xs = rng.normal(size=(n, width))  # (n, d)
        wq, wk, wv, wo = (rng.normal(size=(width, width)) for _ in range(4))  # (d, d) each
        perm = rng.permutation(n)  # row r of P X is row perm[r] of X
        out = posenc.multi_head_attention(xs, wq, wk, wv, wo, heads=heads)  # (n, d)
        out_permuted = posenc.multi_head_attention(xs[perm], wq, wk, wv, wo, heads=heads)  # (n, d)
        errors.extend(np.abs(out_permuted - out[perm]).ravel())
    rec.numeric(
        "multi-head: MHA(P X) = P MHA(X)",
        errors,
        tol=1e-12,
        scope=f"{SAMPLES} random inputs and permutations, every entry of the (7, 8) output; "
        "n = 7, d = 8, 2 heads, float64",
    )


# -- misreadings -------------------------------------------------------------------

# One concrete point for the witnesses: two tokens, identity weights. Every
# output row is then a mix of the value rows (1, 0) and (0, 1), so its entries
# lie in [0, 1]; the witnesses are evaluated at 50 digits.
_POINT_X = sp.Matrix([[1, 0], [0, 1]])
_IDENTITY = {s: v for w in (WQ, WK, WV) for s, v in zip(w, sp.eye(2), strict=True)}
_SWAP = (1, 0)
#: A tenth of the outputs' range [0, 1]: an exact equality evaluated at 50
#: digits could not come near it.
_MARGIN = sp.Rational(1, 10)


def _at_point(expr: sp.Matrix, x: sp.Matrix) -> sp.Matrix:
    return substitute(expr, {**_IDENTITY, **dict(zip(x, _POINT_X, strict=True))})


def _invariant(wit: Witness) -> None:
    # "Attention is permutation-invariant": Attn(P X) = Attn(X). The outputs
    # do move with their tokens, so for distinct tokens they differ.
    x = tokens(2)
    wit.differs(
        _at_point(attention(permute_rows(x, _SWAP)), x),
        _at_point(attention(x), x),
        at="n = 2, X = I, Wq = Wk = Wv = I, P swaps the tokens",
        margin=_MARGIN,
        by="a tenth of the outputs' range [0, 1]",
    )


def _causal_equivariant(wit: Witness) -> None:
    # "A causal block is equivariant too": the mask is fixed by index, so after
    # the swap the first token sees only itself and its output changes.
    x = tokens(2)
    wit.differs(
        _at_point(attention(permute_rows(x, _SWAP), causal=True), x),
        _at_point(permute_rows(attention(x, causal=True), _SWAP), x),
        at="n = 2, causal mask, X = I, Wq = Wk = Wv = I, P swaps the tokens",
        margin=_MARGIN,
        by="a tenth of the outputs' range [0, 1]",
    )


MISREADINGS = [
    Misreading(
        "Self-attention is permutation-invariant: Attn(P X) = Attn(X)",
        _invariant,
        why="Each output stays with its own token, so the outputs move when the tokens do.",
    ),
    Misreading(
        "With a causal mask, Attn(P X) = P Attn(X) still holds",
        _causal_equivariant,
        why="The mask is a rule about indices; permuting the tokens changes who sees whom.",
    ),
]
