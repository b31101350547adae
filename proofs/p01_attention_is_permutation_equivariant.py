"""Proposition 1 (self-attention cannot see order).

Let Attn(X) = softmax(X Wq (X Wk)^T / sqrt(d_k)) X Wv, with the softmax taken
along each row and no position signal anywhere. For every permutation matrix P,
Attn(P X) = P Attn(X): permuting the tokens permutes the outputs in the same
way, and nothing else changes. The same holds for multi-head attention.

Uses: none.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness, substitute

NUMBER = 1
TITLE = "Self-attention cannot see order"
USES = ()

D_MODEL = 2  # features per token in the symbolic check; the argument does not use its value
D_K = 2


def tokens(n: int) -> sp.Matrix:
    """A fully symbolic input: n tokens, each a row of D_MODEL real symbols."""
    return sp.Matrix(n, D_MODEL, lambda r, c: sp.Symbol(f"x_{r}{c}", real=True))


def weights(name: str, cols: int) -> sp.Matrix:
    return sp.Matrix(D_MODEL, cols, lambda r, c: sp.Symbol(f"{name}_{r}{c}", real=True))


WQ, WK, WV = weights("q", D_K), weights("k", D_K), weights("v", D_MODEL)


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
        total = sp.Add(*weight)
        rows.append(
            sum(
                (weight[t] * values.row(j) for t, j in enumerate(allowed)),
                sp.zeros(1, values.cols),
            )
            / total
        )
    return sp.Matrix.vstack(*rows)


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row r of P M is row perm[r] of M."""
    return sp.Matrix.vstack(*[m.row(p) for p in perm])


def attention_of_permuted(out: sp.Matrix, x: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """Attn(P X), obtained from the formula for Attn(X) by renaming token symbols."""
    rename = {x[r, c]: x[perm[r], c] for r in range(x.rows) for c in range(x.cols)}
    return out.xreplace(rename)


def equivariance_cases(causal: bool = False):
    """(label, Attn(PX) - P Attn(X)) for n = 2..5 and every permutation."""
    for n in range(2, 6):
        x = tokens(n)
        out = attention(x, causal)
        for perm in itertools.permutations(range(n)):
            moved = attention_of_permuted(out, x, perm)  # Attn(P X)
            yield f"n = {n}, perm = {perm}", moved - permute_rows(out, perm)


def checks(rec: Recorder) -> None:
    # Step 1. The formula for Attn is built from sums over all tokens. Renaming
    # the tokens (X -> P X) permutes the terms of each sum, which leaves the sum
    # unchanged, and moves the query of row r to row perm[r]. So every entry of
    # Attn(P X) - P Attn(X) must cancel. Checked exactly, with every entry of X
    # and of the weights a free symbol, for every permutation of 2..5 tokens.
    rec.instances(
        "Attn(P X) = P Attn(X)",
        equivariance_cases(),
        scope="n = 2..5 tokens, all 152 permutations, symbolic X (n x 2) and Wq, Wk, Wv (2 x 2)",
    )

    # Step 2. The softmax step on its own: permuting a row of scores permutes
    # its weights the same way (the normaliser is a sum over all entries).
    s = sp.symbols("s0:4", real=True)
    softmax = lambda v: [sp.exp(t) / sp.Add(*[sp.exp(u) for u in v]) for t in v]  # noqa: E731
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
    worst = 0.0
    for _ in range(20):
        xs, q, k, v = (rng.normal(size=shape) for shape in ((4, 2), (2, 2), (2, 2), (2, 2)))
        got = posenc.attention(xs, q, k, v)  # (4, 2)
        want = np.array(
            formula(list(xs.ravel()), list(q.ravel()), list(k.ravel()), list(v.ravel())),
            dtype=float,
        )
        worst = max(worst, float(np.abs(got - want).max()))
    rec.numeric(
        "posenc.attention equals the symbolic Attn",
        worst,
        tol=1e-12,
        scope="20 random (X, Wq, Wk, Wv), n = 4, d = 2, float64",
    )

    # Step 4. Multi-head attention (heads computed side by side, concatenated,
    # then mixed by Wo) inherits the property: numeric check with posenc.
    worst = 0.0
    for _ in range(20):
        n, width, heads = 7, 8, 2
        xs = rng.normal(size=(n, width))  # (n, d)
        wq, wk, wv, wo = (rng.normal(size=(width, width)) for _ in range(4))  # (d, d) each
        perm = rng.permutation(n)  # row r of P X is row perm[r] of X
        out = posenc.multi_head_attention(xs, wq, wk, wv, wo, heads=heads)  # (n, d)
        out_permuted = posenc.multi_head_attention(xs[perm], wq, wk, wv, wo, heads=heads)  # (n, d)
        worst = max(worst, float(np.abs(out_permuted - out[perm]).max()))
    rec.numeric(
        "multi-head: MHA(P X) = P MHA(X)",
        worst,
        tol=1e-12,
        scope="20 random inputs and permutations, n = 7, d = 8, 2 heads, float64",
    )


# -- misreadings -------------------------------------------------------------------

# One concrete point for the witnesses: two tokens, identity weights.
_POINT_X = sp.Matrix([[1, 0], [0, 1]])
_IDENTITY = {s: v for w in (WQ, WK, WV) for s, v in zip(w, sp.eye(2), strict=True)}
_SWAP = (1, 0)


def _at_point(expr: sp.Matrix, x: sp.Matrix) -> sp.Matrix:
    return substitute(expr, {**_IDENTITY, **dict(zip(x, _POINT_X, strict=True))})


def _invariant(wit: Witness) -> None:
    # "Attention is permutation-invariant": Attn(P X) = Attn(X). The outputs
    # do move with their tokens, so for distinct tokens they differ.
    x = tokens(2)
    out = attention(x)
    wit.differs(
        _at_point(attention_of_permuted(out, x, _SWAP), x),
        _at_point(out, x),
        at="n = 2, X = I, Wq = Wk = Wv = I, P swaps the tokens",
    )


def _causal_equivariant(wit: Witness) -> None:
    # "A causal block is equivariant too": the mask is fixed by index, so after
    # the swap the first token sees only itself and its output changes.
    x = tokens(2)
    out = attention(x, causal=True)
    wit.differs(
        _at_point(attention_of_permuted(out, x, _SWAP), x),
        _at_point(permute_rows(out, _SWAP), x),
        at="n = 2, causal mask, X = I, Wq = Wk = Wv = I, P swaps the tokens",
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
