"""Proposition 18 (Shaw et al.: clipped relative positions).

Shaw, Uszkoreit and Vaswani (2018) give a self-attention layer learned vectors
a^K_r and a^V_r for the clipped offsets r = clip(j - i, k) = max(-k, min(k, j - i)).
Query i scores key j by e_ij = x_i W_Q (x_j W_K + a^K_ij)^T / sqrt(d) and
outputs z_i = sum_j alpha_ij (x_j W_V + a^V_ij), with alpha_i = softmax_j(e_ij)
and a_ij = a_(clip(j - i, k)). Over all integer offsets, clip takes exactly the
2k + 1 values -k, ..., k: offsets inside [-k, k] keep a vector of their own,
every offset above k shares a^K_k and a^V_k, every offset below -k shares the
vectors of -k. So the layer cannot tell offsets beyond k apart: moving a token
from offset k + 1 to offset k + 5 leaves the query's output unchanged. The
relative vectors enter the values as well as the score: with a^K = 0 the
output can still depend on the offsets within k, through a^V alone. The scores depend on
the positions only through j - i, so shifting every position by s changes no
score; the layer need not be permutation-equivariant.

Uses: 1.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import sympy as sp

import posenc
from posenc.figures import fig_shaw_clipping
from posenc.relative import shaw_index
from proofs.exact import in_order
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 18
TITLE = "Shaw et al.: clipped relative positions"
USES = (1,)

# The numbers this proposition chooses: the clipping distance k of the worked
# examples and the figure, the figure's length, the largest k of the counting
# check, the offsets k + 1 and k + 5 a token is moved between (3 and 7 at
# k = 2, the page's example) and the offset k + 3 of the misreading about
# offsets beyond k; and the k and length of the page's "Check yourself".
INPUTS = {
    "k": 2,
    "exercise_k": 3,
    "exercise_length": 10,
    "figure_length": 8,
    "largest_k": 12,
    "near": 3,
    "far": 7,
    "beyond": 5,
}
K = INPUTS["k"]  # every worked example below clips at this k
MOVING_KS = (1, 2, 3)  # step 3: the moved-token identity for k = 1, 2, 3

# Symbols, declared once. Offsets, positions and shifts are integers; the
# clipping distance is a non-negative integer; t > 0 is how far past k an
# offset lies.
r, p, q, s = sp.symbols("r p q s", integer=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
t = sp.Symbol("t", integer=True, positive=True)


def clip(offset: sp.Expr, limit: sp.Expr) -> sp.Expr:
    """clip(offset, limit) = max(-limit, min(limit, offset)), kept as written."""
    return sp.Max(-limit, sp.Min(limit, offset, evaluate=False), evaluate=False)


def clipped(offset: int, limit: int) -> int:
    """The same rule on Python integers, for building concrete layers."""
    return max(-limit, min(limit, offset))


# -- a small relative-attention layer, written from the formula ----------------------


def symbolic_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda a, b: sp.Symbol(f"{name}_{a}{b}", real=True))


def symbolic_row(name: str, width: int) -> sp.Matrix:
    return sp.Matrix([[sp.Symbol(f"{name}_{c}", real=True) for c in range(width)]])


def table(name: str, limit: int, width: int) -> dict[int, sp.Matrix]:
    """A learned vector a_r (1, width) of symbols for each clipped offset r = -k..k."""
    return {
        row: symbolic_row(f"{name}{'m' if row < 0 else ''}{abs(row)}", width)
        for row in range(-limit, limit + 1)
    }


def shaw_row(
    xs: sp.Matrix,
    i: int,
    wq: sp.Matrix,
    wk: sp.Matrix,
    wv: sp.Matrix,
    key_table: dict[int, sp.Matrix],
    value_table: dict[int, sp.Matrix],
    limit: int,
) -> sp.Matrix:
    """z_i = sum_j alpha_ij (x_j W_V + a^V_ij), the sums kept in token order.

    e_ij = x_i W_Q (x_j W_K + a^K_ij)^T / sqrt(d) with d = the width of W_Q's
    columns and a_ij = a_(clip(j - i, k)); alpha_i = softmax_j(e_ij).
    """
    query = xs.row(i) * wq  # (1, d)
    scale = sp.sqrt(wq.cols)
    weights, values = [], []
    for j in range(xs.rows):
        index = clipped(j - i, limit)
        key = xs.row(j) * wk + key_table[index]  # (1, d)
        weights.append(sp.exp((query * key.T)[0, 0] / scale))
        values.append(xs.row(j) * wv + value_table[index])  # (1, d_v)
    total = in_order(weights)
    return sp.Matrix(
        [
            [
                in_order([w * v[0, c] for w, v in zip(weights, values, strict=True)]) / total
                for c in range(wv.cols)
            ]
        ]
    )


def shaw_layer(xs, wq, wk, wv, key_table, value_table, limit) -> sp.Matrix:
    """Every row z_0, ..., z_(n-1) of the layer, (n, d_v)."""
    return sp.Matrix.vstack(
        *[shaw_row(xs, i, wq, wk, wv, key_table, value_table, limit) for i in range(xs.rows)]
    )


def zeros(limit: int, width: int) -> dict[int, sp.Matrix]:
    return {row: sp.zeros(1, width) for row in range(-limit, limit + 1)}


def moved_cases():
    """z_0 with a token t at offset k + 1, minus z_0 with t at offset k + 5.

    The sequence is x_0, ..., x_k, then t and four copies of a filler f; in the
    second input t and the last f change places. Everything is a symbol (d = 2).
    """
    width = 2
    wq, wk, wv = (symbolic_matrix(name, width, width) for name in ("q", "k", "v"))
    for limit in MOVING_KS:
        head = [symbolic_row(f"x{a}", width) for a in range(limit + 1)]
        moved, filler = symbolic_row("t", width), symbolic_row("f", width)
        first = sp.Matrix.vstack(*head, moved, filler, filler, filler, filler)  # t at k + 1
        second = sp.Matrix.vstack(*head, filler, filler, filler, filler, moved)  # t at k + 5
        keys, values = table("aK", limit, width), table("aV", limit, width)
        before = shaw_row(first, 0, wq, wk, wv, keys, values, limit)
        after = shaw_row(second, 0, wq, wk, wv, keys, values, limit)
        yield f"k = {limit}, length {limit + 6}", before - after


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row a of P M is row perm[a] of M."""
    return sp.Matrix.vstack(*[m.row(a) for a in perm])


def equivariance_cases():
    """With a^K = a^V = 0: layer(P X) - P layer(X), every permutation, n = 2, 3."""
    width = 2
    wq, wk, wv = (symbolic_matrix(name, width, width) for name in ("q", "k", "v"))
    for n in (2, 3):
        xs = sp.Matrix.vstack(*[symbolic_row(f"x{a}", width) for a in range(n)])
        none = zeros(K, width)
        out = shaw_layer(xs, wq, wk, wv, none, none, K)
        for perm in itertools.permutations(range(n)):
            moved = shaw_layer(permute_rows(xs, perm), wq, wk, wv, none, none, K)
            yield f"n = {n}, perm = {perm}", moved - permute_rows(out, perm)


def _score(query_pos: sp.Expr, key_pos: sp.Expr) -> sp.Expr:
    """e(query_pos, key_pos) for symbolic tokens and a symbolic table a^K (d = 2).

    The offset key_pos - query_pos is built as written, so a shifted pair of
    positions is a different expression until the kit evaluates it.
    """
    width = 2
    xi, xj = symbolic_row("x_i", width), symbolic_row("x_j", width)
    wq, wk = symbolic_matrix("q", width, width), symbolic_matrix("k", width, width)
    offset = sp.Add(key_pos, sp.Mul(-1, query_pos, evaluate=False), evaluate=False)
    index = clip(offset, k)
    table_entry = sp.Matrix([[sp.Function(f"a_K{c}")(index) for c in range(width)]])
    return ((xi * wq) * (xj * wk + table_entry).T)[0, 0] / sp.sqrt(width)


# -- concrete layers of width 4 (sqrt(d) = 2, so every score is rational) -----------

_I4 = sp.eye(4)
_ZERO4 = sp.zeros(4, 4)


def _ramp(limit: int) -> dict[int, sp.Matrix]:
    """a^V_r = (r, 0, 0, 0): the first coordinate of a value vector is its offset."""
    return {row: sp.Matrix([[row, 0, 0, 0]]) for row in range(-limit, limit + 1)}


def _constant_sequence() -> sp.Matrix:
    """Three copies of one token x = (1, 2, 0, 1)."""
    return sp.Matrix([[1, 2, 0, 1]] * 3)


def _edge_scores() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """Query 0's score for one key t at offsets k, k + 3 (a^K_k = (1, 0, 0, 0)), and with
    the relative term dropped. W_Q = W_K = I, d = 4, so e = x_0 (t + a^K)^T / 2."""
    x0, key = sp.Matrix([[1, 1, 0, 0]]), sp.Matrix([[0, 1, 1, 0]])
    keys = {row: sp.zeros(1, 4) for row in range(-K, K + 1)}
    keys[K] = sp.Matrix([[1, 0, 0, 0]])

    def score(offset: int, table_: dict[int, sp.Matrix] | None) -> sp.Expr:
        extra = table_[clipped(offset, K)] if table_ else sp.zeros(1, 4)
        return (x0 * (key + extra).T)[0, 0] / 2

    beyond = INPUTS["beyond"]
    return score(K, keys), score(beyond, keys), score(beyond, None)


def _value_row(rec: Recorder, i: int, got: sp.Expr) -> None:
    """Step 4's row i: the first entry of z_i - x W_V is the mean offset 1 - i."""
    rec.exact(
        f"a^K = 0, a^V_r = (r, 0, 0, 0), constant tokens: z_{i} - x W_V has first entry {1 - i}",
        got,
        1 - i,
        scope="n = 3, k = 2, d = 4, x = (1, 2, 0, 1), W_Q = W_K = W_V = I; exact",
        quantity=f"value_row_{i}",
        show=Show(),
    )


def checks(rec: Recorder) -> None:
    # Step 1. The two tails of clip. An offset t > 0 past k is clipped to k, and
    # one t below -k to -k, for every k >= 0: min(k, k + t) = k and
    # max(-k, k) = k, because k >= 0.
    tails = (
        rec.identity(
            "clip(k + t, k) = k: every offset above k gets the edge vector a_k",
            clip(k + t, k) - k,
            scope="every integer k >= 0 and t >= 1",
        ),
        rec.identity(
            "clip(-k - t, k) = -k: every offset below -k gets a_(-k)",
            clip(-k - t, k) + k,
            scope="every integer k >= 0 and t >= 1",
        ),
    )
    # clip is built unevaluated so that these are proofs: had SymPy evaluated
    # min or max on sight, a tail would cancel as written (a definition).
    rec.exact(
        "both tails are proved by evaluating min and max (count of tail identities)",
        sum(int(check.kind == "identity") for check in tails),
        2,
        scope="the two tail checks just made",
    )
    # Inside the window clip is the identity: for |r| <= k, min(k, r) = r and
    # max(-k, r) = r. Checked offset by offset for k = 0..12. The offsets
    # checked must be the whole window, edges included (r = -k, k - 1, k):
    # they are compared with the pairs |r| <= k picked out of a wider square.
    largest = INPUTS["largest_k"]
    window = [(lim, off) for lim in range(largest + 1) for off in range(-lim, lim + 1)]
    rec.instances(
        "clip(r, k) = r for -k <= r <= k: each offset inside the window keeps its own vector",
        (
            (f"k = {lim}, r = {off}", clip(sp.Integer(off), sp.Integer(lim)) - off)
            for lim, off in window
        ),
        scope=f"k = 0..{largest}, every r in -k..k",
    )
    square = range(-largest - 1, largest + 2)
    whole = {(lim, off) for lim in square for off in square if 0 <= lim <= largest}
    whole = {(lim, off) for lim, off in whole if abs(off) <= lim}
    rec.exact(
        "the window checked is all of -k..k, both edges included (count of pairs missed or extra)",
        len(whole ^ set(window)) + len(window) - len(set(window)),
        0,
        scope=f"k = 0..{largest}: the pairs (k, r) above against those with |r| <= k",
    )
    rec.exact(
        "the window checked contains both edges and the offsets next to them, for every k",
        sum(
            int((lim, off) not in set(window))
            for lim in range(1, largest + 1)
            for off in (-lim, -lim + 1, lim - 1, lim)
        ),
        0,
        scope=f"k = 1..{largest}, r = -k, -k + 1, k - 1, k (count of those missing)",
    )

    # Step 2. Hence the image of clip over all integers is exactly {-k, ..., k}:
    # step 1 puts every value in that set and hits each of its members. Counted
    # exactly for k = 0..12 over the offsets -3k - 5 .. 3k + 5 (which include both
    # tails), with the library's posenc.shaw_index = clip + k against the rule.
    wrong_image, wrong_index, compared = 0, 0, 0
    for lim in range(INPUTS["largest_k"] + 1):
        offsets = range(-3 * lim - 5, 3 * lim + 6)
        compared += len(offsets)
        image = {int(clip(sp.Integer(o), sp.Integer(lim)).doit()) for o in offsets}
        wrong_image += image != set(range(-lim, lim + 1))
        rows = shaw_index(np.array(list(offsets)), lim).tolist()
        wrong_index += sum(
            int(a != clipped(o, lim) + lim) for a, o in zip(rows, offsets, strict=True)
        )
    rec.exact(
        "the image of clip(., k) is exactly {-k, ..., k}",
        wrong_image,
        0,
        scope="k = 0..12, offsets -3k - 5 .. 3k + 5; count of k with a different image",
    )
    rec.exact(
        "posenc.shaw_index(r, k) = clip(r, k) + k",
        wrong_index,
        0,
        scope="k = 0..12, offsets -3k - 5 .. 3k + 5; count of wrong rows",
    )
    # The two counts above are over every k = 0..12 and every offset: the 6k + 11
    # offsets of each k add up to (12 + 1)(3 * 12 + 11) = 611.
    rec.exact(
        "the image and the rows were counted over every k = 0..12 and every offset "
        "(number of offsets compared)",
        compared,
        (largest + 1) * (3 * largest + 11),
        scope="k = 0..12, offsets -3k - 5 .. 3k + 5; sum of 6k + 11 in closed form",
    )
    image = {int(clip(sp.Integer(o), sp.Integer(K)).doit()) for o in range(-20, 21)}
    rec.exact(
        f"at k = {K} there are exactly 2k + 1 = {2 * K + 1} distinct relative vectors",
        len(image),
        2 * K + 1,
        scope=f"k = {K}, offsets -20..20",
        quantity="vectors_at_k",
        show=Show(),
    )
    length = INPUTS["figure_length"]
    rows = shaw_index(np.arange(-length + 1, length), K)
    rec.exact(
        f"the figure: posenc.shaw_index over the offsets of length {length} takes 2k + 1 values",
        len(set(rows.tolist())),
        2 * K + 1,
        scope=f"k = {K}, offsets {1 - length}..{length - 1}: every j - i of the figure's tokens",
    )
    drawn = inspect.signature(fig_shaw_clipping).parameters
    rec.exact(
        "the figure clips at the k of this page: fig_shaw_clipping's default k",
        drawn["k"].default,
        K,
        scope="posenc.figures.fig_shaw_clipping, its default argument",
    )
    rec.exact(
        "the figure draws the length of this page: fig_shaw_clipping's default length",
        drawn["length"].default,
        length,
        scope="posenc.figures.fig_shaw_clipping, its default argument",
    )

    # Step 3. Beyond k, offsets cannot be told apart. z_0 is a sum over keys of
    # terms that depend on the key only through (x_j, clip(j, k)); swapping two
    # keys with the same clipped offset permutes those terms. A token t moved
    # from offset k + 1 to k + 5 (a filler f taking its place) is such a swap.
    rec.instances(
        "z_0 is the same with a token at offset k + 1 or at k + 5",
        moved_cases(),
        scope="k = 1, 2, 3, sequence x_0..x_k, t, f, f, f, f against x_0..x_k, f, f, f, f, t; "
        "every token, W_Q, W_K, W_V, a^K and a^V symbolic, d = 2",
    )

    # The page's example of step 3 at k = 2: keys 3 and 7 places after the query
    # are the offsets k + 1 and k + 5 of the moved token, and posenc.shaw_index
    # gives both the edge row 2k.
    near, far, beyond = INPUTS["near"], INPUTS["far"], INPUTS["beyond"]
    rec.exact(
        f"the page's offsets {near}, {far} and {beyond} are k + 1, k + 5 and k + 3"
        " (count of those that are not)",
        int(near != K + 1) + int(far != K + 5) + int(beyond != K + 3),
        0,
        scope=f"k = {K}",
    )
    rec.exact(
        f"posenc.shaw_index gives the offsets {near} and {far} the edge row 2k (count of others)",
        sum(int(int(shaw_index(offset, K)) != 2 * K) for offset in (near, far)),
        0,
        scope=f"k = {K}, the two offsets",
    )

    # Step 4. The relative vectors reach the values too. Take a^K = 0 and a
    # constant sequence: every score of a row is the same, so alpha_ij = 1/n,
    # and z_i = x W_V + (1/n) sum_j a^V_(clip(j - i)). With a^V_r = (r, 0, 0, 0)
    # and n = 3, k = 2 the first coordinate of z_i - x W_V is the mean offset
    # (0 + 1 + 2)/3 = 1, (-1 + 0 + 1)/3 = 0, (-2 - 1 + 0)/3 = -1.
    xs = _constant_sequence()
    out = shaw_layer(xs, _I4, _I4, _I4, zeros(K, 4), _ramp(K), K)
    read = [sp.nsimplify(sp.simplify((out.row(i) - xs.row(i))[0, 0])) for i in range(3)]
    _value_row(rec, 0, read[0])
    _value_row(rec, 1, read[1])
    _value_row(rec, 2, read[2])
    rec.exact(
        "so z_0 and z_2 differ although the tokens are equal and a^K = 0",
        read[0] - read[2],
        2,
        scope="the outputs just computed",
        quantity="value_gap",
        show=Show(),
    )

    # Step 5. Translation: the score depends on the positions only through the
    # offset, so moving both positions by s changes nothing. The offset is
    # written as (q + s) - (p + s); the kit evaluates it.
    rec.identity(
        "e(p + s, q + s) = e(p, q): scores are unchanged when every position moves by s",
        _score(p + s, q + s) - _score(p, q),
        scope="every integer p, q, s and k >= 0; symbolic tokens, W_Q, W_K and table a^K, d = 2",
    )
    # The score at an offset beyond k equals the score at offset k: a^K_k is used.
    at_edge, past_edge, _ = _edge_scores()
    rec.exact(
        "a key at offset k + 3 gets the same score as at offset k",
        past_edge,
        at_edge,
        quantity="edge_score",
        show=Show(),
        scope="k = 2, d = 4, x_0 = (1, 1, 0, 0), t = (0, 1, 1, 0), a^K_k = (1, 0, 0, 0), "
        "W_Q = W_K = I",
    )
    rec.exact(
        "that score is x_0 (t + a^K_k)^T / sqrt(4) = (1 * 1 + 1 * 1) / 2 = 1, worked by hand",
        past_edge,
        1,
        scope="k = 2, d = 4, x_0 = (1, 1, 0, 0), t + a^K_2 = (1, 1, 1, 0), W_Q = W_K = I",
    )

    # Step 6. Relation to Proposition 1. With a^K = a^V = 0 the layer is plain
    # attention and so permutation-equivariant (Proposition 1, for n = 2, 3).
    rec.instances(
        "a^K = a^V = 0: layer(P X) = P layer(X)",
        equivariance_cases(),
        scope="n = 2, 3, every permutation, symbolic tokens and W_Q, W_K, W_V, d = 2",
    )
    # With the relative vectors it is not: W_Q = 0 (uniform weights), k = 1,
    # x_0 = e_0, x_1 = e_1, a^K = 0, a^V_1 = e_0, others 0. Then
    # z_0 = (x_0 + x_1)/2 + a^V_1/2, z_1 = (x_0 + x_1)/2; swapping the tokens
    # leaves both rows as they are, so layer(P X) - P layer(X) has first entry 1/2.
    two = sp.Matrix([[1, 0, 0, 0], [0, 1, 0, 0]])
    values = zeros(1, 4)
    values[1] = sp.Matrix([[1, 0, 0, 0]])
    plain = shaw_layer(two, _ZERO4, _I4, _I4, zeros(1, 4), values, 1)
    swapped = shaw_layer(permute_rows(two, (1, 0)), _ZERO4, _I4, _I4, zeros(1, 4), values, 1)
    gap = (swapped - permute_rows(plain, (1, 0)))[0, 0].doit()
    rec.exact(
        "with a^V != 0 the layer is not permutation-equivariant: first entry of "
        "layer(P X) - P layer(X) = 1/2",
        gap,
        sp.Rational(1, 2),
        scope="n = 2, P the swap, k = 1, d = 4, W_Q = 0, W_K = W_V = I, a^K = 0, "
        "a^V_1 = e_0, a^V_0 = a^V_(-1) = 0",
        quantity="equivariance_gap",
        show=Show(style="fraction"),
    )

    # Step 7. The library: with a^K = a^V = 0 the layer written here is
    # posenc.attention, at random points.
    rng = np.random.default_rng(18)
    n, width = 4, 2
    xs = sp.Matrix.vstack(*[symbolic_row(f"x{a}", width) for a in range(n)])
    wq, wk, wv = (symbolic_matrix(name, width, width) for name in ("q", "k", "v"))
    formula = shaw_layer(xs, wq, wk, wv, zeros(K, width), zeros(K, width), K).doit()
    fn = sp.lambdify([list(xs), list(wq), list(wk), list(wv)], formula, "numpy")
    errors = []
    for _ in range(20):
        inputs, a, b, c = (rng.normal(size=(m, width)) for m in (n, width, width, width))
        got = posenc.attention(inputs, a, b, c)  # (n, d)
        want = np.array(fn(*(list(m.ravel()) for m in (inputs, a, b, c))), float)
        errors.extend(np.abs(got - want).ravel())
    rec.numeric(
        "a^K = a^V = 0: the layer equals posenc.attention",
        errors,
        tol=1e-12,
        scope="20 random (X, W_Q, W_K, W_V), n = 4, d = 2, every entry; float64",
    )

    # Step 8. The page's "Check yourself": k = 3, ten tokens, the query at
    # position 0. Its offsets are 0..9; clip leaves 0, 1, 2, 3, so it uses four
    # key vectors, and the keys 3..9 (seven of them) all use a^K_3. Counted with
    # posenc.shaw_index against the rule: min(9, k) + 1 vectors, 10 - k keys.
    limit, size = INPUTS["exercise_k"], INPUTS["exercise_length"]
    rows = shaw_index(np.arange(size), limit)  # (10,): the rows query 0 uses
    rec.exact(
        "k = 3, query 0 of ten tokens: it uses min(9, k) + 1 = 4 distinct key vectors",
        len(set(rows.tolist())),
        min(size - 1, limit) + 1,
        scope="k = 3, offsets 0..9, posenc.shaw_index",
        quantity="query_zero_vectors",
        show=Show(),
    )
    rec.exact(
        "k = 3, query 0 of ten tokens: 10 - k = 7 keys share the edge vector a^K_3",
        int(np.count_nonzero(rows == 2 * limit)),
        size - limit,
        scope="k = 3, offsets 0..9, posenc.shaw_index",
        quantity="query_zero_edge_keys",
        show=Show(),
    )
    middle = shaw_index(np.arange(size) - size // 2, limit)  # (10,): query 5's rows
    rec.exact(
        "k = 3, query 5 of ten tokens: offsets of both signs, all 2k + 1 = 7 vectors",
        len(set(middle.tolist())),
        2 * limit + 1,
        scope="k = 3, offsets -5..4, posenc.shaw_index",
        quantity="query_middle_vectors",
        show=Show(),
    )


# -- misreadings -------------------------------------------------------------------


def _only_the_score(wit: Witness) -> None:
    # If relative position entered only the score, a^K = 0 would leave plain
    # attention: on a constant sequence z_0 would be x W_V. It is not.
    xs = _constant_sequence()
    with_values = shaw_row(xs, 0, _I4, _I4, _I4, zeros(K, 4), _ramp(K), K).doit()
    plain = shaw_row(xs, 0, _I4, _I4, _I4, zeros(K, 4), zeros(K, 4), K).doit()
    wit.differs(
        with_values.applyfunc(sp.simplify),
        plain.applyfunc(sp.simplify),
        at="n = 3, k = 2, d = 4, three copies of x = (1, 2, 0, 1), W_Q = W_K = W_V = I, "
        "a^K = 0, a^V_r = (r, 0, 0, 0); z_0",
        margin=0,
        by="exact rationals, against a claim of exact equality",
    )


def _k_offsets(wit: Witness) -> None:
    # "Clipping at k, the model tells k offsets apart": it tells 2k + 1, and r
    # and -r get different vectors (shaw_index 3 and 1 at k = 2).
    rows = set(shaw_index(np.arange(-20, 21), K).tolist())
    wit.differs(
        len(rows),
        K,
        at="k = 2, offsets -20..20: distinct rows of posenc.shaw_index",
        margin=K,
        by="exact integers: 2k + 1 rows against the k claimed, a gap of k + 1 > k",
    )


def _beyond_ignored(wit: Witness) -> None:
    # "Offsets beyond k are ignored": the relative term would vanish past k.
    # A key at offset k + 3 keeps the term x_0 W_Q a^K_k / sqrt(d).
    _, past_edge, dropped = _edge_scores()
    wit.differs(
        past_edge,
        dropped,
        at="k = 2, d = 4, query 0, key t = (0, 1, 1, 0) at offset 5, x_0 = (1, 1, 0, 0), "
        "a^K_2 = (1, 0, 0, 0), W_Q = W_K = I",
        margin=0,
        by="exact rationals, against a claim of exact equality",
    )


def _symmetric(wit: Witness) -> None:
    # "The offsets r and -r share a vector (only the distance counts)".
    wit.differs(
        int(shaw_index(1, K)),
        int(shaw_index(-1, K)),
        at="k = 2: posenc.shaw_index of the offsets 1 and -1",
        margin=0,
        by="exact integers",
    )


MISREADINGS = [
    Misreading(
        "Relative position only changes the score",
        _only_the_score,
        why="z_i = sum_j alpha_ij (x_j W_V + a^V_ij): the value vectors carry a^V, so with "
        "a^K = 0 the output still depends on the offsets.",
    ),
    Misreading(
        "Clipping at k lets the model tell k offsets apart",
        _k_offsets,
        why="The clipped offsets are -k, ..., k: 2k + 1 of them, the signs counted apart.",
    ),
    Misreading(
        "Offsets beyond k are ignored",
        _beyond_ignored,
        why="They are merged into the edge: every offset above k uses a^K_k and a^V_k, so the "
        "key still gets the relative term of offset k.",
    ),
    Misreading(
        "The offsets r and -r share one relative vector",
        _symmetric,
        why="clip keeps the sign: r and -r are different rows for 0 < r <= k.",
    ),
]
