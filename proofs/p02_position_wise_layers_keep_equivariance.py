"""Proposition 2 (position-wise layers keep equivariance).

A map that acts on each row of X alone, with the same function for every row
(the feed-forward network, layer normalisation), commutes with every row
permutation: f(P X) = P f(X). Sums and compositions of permutation-equivariant
maps are permutation-equivariant. Hence a post-norm encoder layer,
E(X) = LN2(H + FFN(H)) with H = LN1(X + MHA(X)), and a stack of such layers,
with no position signal, satisfy E(P X) = P E(X). Any pooling over positions g
with g(P Y) = g(Y) (sum, mean, max) gives g(E(P X)) = g(E(X)): the pooled output
is a function of the multiset of input tokens.

Uses: 1.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

import numpy as np
import sympy as sp

import posenc
from proofs.kit import Misreading, Recorder, Witness, reduce_to_zero

NUMBER = 2
TITLE = "Position-wise layers keep equivariance"
USES = (1,)

# -- the row calculus: a matrix is a rule (row, column) -> entry --------------------
# Row and column indices, the width d, the hidden width d_ff and the permutation
# pi stay symbolic, so a check written in this calculus holds for every n, d,
# d_ff and every permutation at once.
r, c, j, k = sp.symbols("r c j k", integer=True, nonnegative=True)
d, d_ff = sp.symbols("d d_ff", integer=True, positive=True)
pi = sp.Function("pi")  # a permutation of the rows: row r of P X is row pi(r) of X
x = sp.IndexedBase("x")  # the input, x[row, column]
W1, W2 = sp.IndexedBase("W1"), sp.IndexedBase("W2")
b1, b2 = sp.IndexedBase("b1"), sp.IndexedBase("b2")
g, beta = sp.IndexedBase("g"), sp.IndexedBase("beta")  # layer-norm gain and bias
eps = sp.Symbol("epsilon", positive=True)
phi = sp.Function("phi")  # any activation: ReLU, GELU, ...
rowmap = sp.Function("f")  # any map of one whole row

Matrix = Callable[[sp.Expr, sp.Expr], sp.Expr]


def X(row: sp.Expr, col: sp.Expr) -> sp.Expr:
    return x[row, col]


def permuted(m: Matrix) -> Matrix:
    """P M: entry (r, c) is entry (pi(r), c) of M."""
    return lambda row, col: m(pi(row), col)


def feed_forward_rule(m: Matrix) -> Matrix:
    """FFN(M)[r, c] = sum_j phi(sum_k M[r, k] W1[k, j] + b1[j]) W2[j, c] + b2[c]."""

    def entry(row, col):
        hidden = phi(sp.Sum(m(row, k) * W1[k, j], (k, 0, d - 1)) + b1[j])
        return sp.Sum(hidden * W2[j, col], (j, 0, d_ff - 1)) + b2[col]

    return entry


def layer_norm_rule(m: Matrix) -> Matrix:
    """LN(M)[r, c] = (M[r, c] - mean_r) / sqrt(var_r + eps) g[c] + beta[c], per row r."""

    def entry(row, col):
        mean = sp.Sum(m(row, k), (k, 0, d - 1)) / d
        var = sp.Sum((m(row, k) - mean) ** 2, (k, 0, d - 1)) / d
        return (m(row, col) - mean) / sp.sqrt(var + eps) * g[col] + beta[col]

    return entry


def whole_row_rule(m: Matrix) -> Matrix:
    """A generic position-wise map: entry (r, c) is f_c(row r of M), f unknown."""
    return lambda row, col: rowmap(col, sp.Lambda(k, m(row, k)))


# -- explicit small matrices: the encoder layer written out ------------------------

D = 2  # features per token in the explicit checks; the argument does not use its value


def symbols(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda a, b: sp.Symbol(f"{name}_{a}{b}", real=True))


def vector(name: str, size: int) -> sp.Matrix:
    return sp.Matrix(1, size, lambda _, b: sp.Symbol(f"{name}_{b}", real=True))


def tokens(n: int) -> sp.Matrix:
    return symbols("x", n, D)


def layer_params(tag: str) -> dict[str, sp.Matrix]:
    """Symbolic weights of one layer (one head, d_ff = 2), every entry a free symbol."""
    square = {w: symbols(f"{w}{tag}", D, D) for w in ("q", "k", "v", "o")}
    return {
        **square,
        "W1": symbols(f"a{tag}", D, 2),
        "b1": vector(f"c{tag}", 2),
        "W2": symbols(f"b{tag}", 2, D),
        "b2": vector(f"e{tag}", D),
        "g1": vector(f"g{tag}", D),
        "h1": vector(f"h{tag}", D),
        "g2": vector(f"s{tag}", D),
        "h2": vector(f"t{tag}", D),
    }


def attention(m: sp.Matrix, p: dict[str, sp.Matrix]) -> sp.Matrix:
    """One head, softmax(M Wq (M Wk)^T / sqrt(D)) M Wv, then Wo (as posenc with heads=1)."""
    q, key, v = m * p["q"], m * p["k"], m * p["v"]
    scores = q * key.T / sp.sqrt(D)
    rows = []
    for a in range(m.rows):
        weight = [sp.exp(scores[a, b]) for b in range(m.rows)]
        mixed = sum((weight[b] * v.row(b) for b in range(m.rows)), sp.zeros(1, D))
        rows.append(mixed / sp.Add(*weight))
    return sp.Matrix.vstack(*rows) * p["o"]


def rowwise(m: sp.Matrix, rule: Callable[[sp.Matrix], sp.Matrix]) -> sp.Matrix:
    return sp.Matrix.vstack(*[rule(m.row(a)) for a in range(m.rows)])


def feed_forward(m: sp.Matrix, p: dict[str, sp.Matrix], act=phi) -> sp.Matrix:
    def one(row):
        return (row * p["W1"] + p["b1"]).applyfunc(act) * p["W2"] + p["b2"]

    return rowwise(m, one)


def layer_norm(m: sp.Matrix, gain: sp.Matrix, bias: sp.Matrix) -> sp.Matrix:
    def one(row):
        mean = sum(row) / D
        var = sum((t - mean) ** 2 for t in row) / D
        return (row - mean * sp.ones(1, D)).multiply_elementwise(gain) / sp.sqrt(var + eps) + bias

    return rowwise(m, one)


def explicit_norm(m: sp.Matrix, p: dict[str, sp.Matrix], which: int) -> sp.Matrix:
    """Layer norm number ``which`` (1 or 2) of the layer, with its own gain and bias."""
    return layer_norm(m, p[f"g{which}"], p[f"h{which}"])


def generic_norm(m: sp.Matrix, p: dict[str, sp.Matrix], which: int) -> sp.Matrix:
    """Any position-wise normalisation: entry c of a row is N_c(that row), N unknown.

    It covers layer norm (step 2 checks its formula), RMS norm and the like,
    and keeps the written-out layer small enough to check quickly.
    """
    norms = [sp.Function(f"N{which}_{col}") for col in range(D)]
    return rowwise(m, lambda row: sp.Matrix([[n(*row) for n in norms]]))


def encoder_layer(m: sp.Matrix, p: dict[str, sp.Matrix], norm=explicit_norm) -> sp.Matrix:
    """Post-norm: H = Norm1(M + Attn(M)), out = Norm2(H + FFN(H))."""
    h = norm(m + attention(m, p), p, 1)
    return norm(h + feed_forward(h, p), p, 2)


def mean_pool(m: sp.Matrix) -> sp.Matrix:
    return sum((m.row(a) for a in range(m.rows)), sp.zeros(1, m.cols)) / m.rows


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row a of P M is row perm[a] of M."""
    return sp.Matrix.vstack(*[m.row(p) for p in perm])


def replaced(expr, mapping: dict):
    """``expr.xreplace(mapping)``, rebuilding each shared subexpression only once.

    The layer formulas reuse the same subtrees many times; plain ``xreplace``
    would rebuild every copy.
    """
    memo: dict[sp.Basic, sp.Basic] = {}

    def walk(e: sp.Basic) -> sp.Basic:
        if e not in memo:
            if e in mapping:
                memo[e] = mapping[e]
            else:
                args = [walk(a) for a in e.args]
                same = all(a is b for a, b in zip(args, e.args, strict=True))
                memo[e] = e if same else e.func(*args)
        return memo[e]

    return expr.applyfunc(walk) if isinstance(expr, sp.MatrixBase) else walk(expr)


def renamed(expr, xs: sp.Matrix, perm: tuple[int, ...]):
    """The same formula with the tokens of X replaced by those of P X."""
    return replaced(expr, {xs[a, b]: xs[perm[a], b] for a in range(xs.rows) for b in range(D)})


def named_difference(lhs: sp.Matrix, rhs: sp.Matrix) -> sp.Matrix:
    """``lhs - rhs``; unless it cancels as written, with shared parts named (``sp.cse``).

    Naming the subexpressions the two sides share cannot make two different
    formulas equal (putting the definitions back restores both sides), but it
    keeps what SymPy must reduce small: a false claim fails in a fraction of a
    second instead of sending the simplifier into tens of thousands of operations.
    """
    difference = lhs - rhs
    if all(entry == 0 for entry in difference):  # cancelled as written: nothing to name
        return difference
    _, (left, right) = sp.cse([lhs, rhs], optimizations=None)
    return left - right


@functools.cache
def built_layer(n: int) -> tuple[sp.Matrix, sp.Matrix]:
    """(X, E(X)) for n symbolic tokens, symbolic weights and generic normalisations."""
    xs = tokens(n)
    return xs, encoder_layer(xs, layer_params("0"), generic_norm)


# -- generic equivariant maps --------------------------------------------------------
# Every permutation-equivariant F on n rows has the form F(X)_a = h(x_a; the other
# rows), with h symmetric in the other rows. Writing h as a symmetrised unknown
# function k gives the most general one, so checks with it cover every such map.


def generic_equivariant(name: str) -> Callable[[sp.Matrix], sp.Matrix]:
    def apply(m: sp.Matrix) -> sp.Matrix:
        n = m.rows
        rows = []
        for a in range(n):
            others = [b for b in range(n) if b != a]
            row = []
            for col in range(D):
                k_c = sp.Function(f"{name}_{col}")
                terms = [
                    k_c(*m.row(a), *[t for b in order for t in m.row(b)])
                    for order in itertools.permutations(others)
                ]  # one term per order of the other rows: symmetric in them
                row.append(sp.Add(*terms))
            rows.append(sp.Matrix([row]))
        return sp.Matrix.vstack(*rows)

    return apply


F, G = generic_equivariant("kF"), generic_equivariant("kG")


def composition_cases():
    """(label, difference) for F, G o F, X + F(X) and the mean of G(F(X)), n = 2..4."""
    for n in range(2, 5):
        xs = tokens(n)
        f_x, gf_x = F(xs), G(F(xs))
        residual = xs + f_x
        pooled = mean_pool(gf_x)
        for perm in itertools.permutations(range(n)):
            label = f"n = {n}, perm = {perm}"
            yield f"F, {label}", renamed(f_x, xs, perm) - permute_rows(f_x, perm)
            yield f"G o F, {label}", renamed(gf_x, xs, perm) - permute_rows(gf_x, perm)
            yield f"X + F(X), {label}", renamed(residual, xs, perm) - permute_rows(residual, perm)
            yield f"mean of G(F(X)), {label}", renamed(pooled, xs, perm) - pooled


def layer_cases(sizes: tuple[int, ...]):
    """(label, difference) for E(P X) - P E(X) and for the mean-pooled output."""
    for n in sizes:
        xs, out = built_layer(n)
        pooled = mean_pool(out)
        for perm in itertools.permutations(range(n)):
            moved = renamed(out, xs, perm)  # E(P X)
            yield f"n = {n}, perm = {perm}", named_difference(moved, permute_rows(out, perm))
            yield f"pooled, n = {n}, perm = {perm}", named_difference(mean_pool(moved), pooled)


def _relu(t):
    return np.maximum(t, 0.0)


def checks(rec: Recorder) -> None:
    # Step 1. A position-wise map sends row r to f(row r), with one f for all
    # rows. Applied to P X, row r is f(row pi(r) of X), which is row pi(r) of
    # f(X), i.e. row r of P f(X). Written with symbolic n, pi, r and an unknown f.
    lhs = whole_row_rule(permuted(X))(r, c)  # f(P X)[r, c]
    rhs = permuted(whole_row_rule(X))(r, c)  # (P f(X))[r, c]
    rec.identity(
        "a position-wise map f satisfies f(P X) = P f(X)",
        lhs - rhs,
        scope="every n, every permutation pi, every row r and column c, any map f of one row",
    )

    # Step 2. The feed-forward network and layer normalisation are position-wise:
    # their formulas read row r only, with weights shared by all rows. Symbolic
    # widths d and d_ff, an unknown activation phi, symbolic gain and bias.
    rec.identity(
        "FFN(P X) = P FFN(X)",
        feed_forward_rule(permuted(X))(r, c) - permuted(feed_forward_rule(X))(r, c),
        scope="every n, d, d_ff, permutation pi, weights W1, b1, W2, b2 and activation phi",
    )
    rec.identity(
        "LN(P X) = P LN(X)",
        layer_norm_rule(permuted(X))(r, c) - permuted(layer_norm_rule(X))(r, c),
        scope="every n, d, permutation pi, gain g, bias beta and eps > 0",
    )

    # Step 3. The laws that assemble a layer: a composition, a residual sum and
    # a symmetric pooling of equivariant maps. F and G are the most general
    # equivariant maps on n rows (symmetrised unknown functions).
    rec.instances(
        "G o F, X + F(X) equivariant and mean(G(F(X))) invariant, for equivariant F, G",
        composition_cases(),
        scope="n = 2, 3, 4 rows of width 2, all 32 permutations, F and G generic equivariant",
    )

    # Step 4. The encoder layer written out in full (attention as in Proposition
    # 1, residual, normalisation, FFN, residual, normalisation), every weight a
    # free symbol and each normalisation any position-wise map (step 2 showed
    # layer norm is one): E(P X) = P E(X), and its mean over positions stays.
    rec.instances(
        "encoder layer: E(P X) = P E(X), mean pool unchanged",
        layer_cases((2, 3, 4)),
        scope="n = 2, 3, 4, all 32 permutations; d = 2, d_ff = 2, symbolic X and weights, "
        "any activation phi, any position-wise normalisations N1, N2",
    )

    # Step 5. Numeric spot check with the library: a six-layer stack of
    # posenc.encoder_layer, mean-pooled, on random input and permutations.
    rng = np.random.default_rng(2)
    n, width, heads = 7, 8, 2
    stack = [posenc.EncoderLayerParams.random(width, 16, seed=s) for s in range(6)]

    def run(inputs: np.ndarray) -> np.ndarray:
        for p in stack:
            inputs = posenc.encoder_layer(inputs, p, heads=heads)  # (n, d)
        return inputs

    worst_rows = worst_pool = 0.0
    for _ in range(20):
        xs = rng.normal(size=(n, width))  # (n, d)
        perm = rng.permutation(n)
        out, out_p = run(xs), run(xs[perm])  # (n, d) each
        worst_rows = max(worst_rows, float(np.abs(out_p - out[perm]).max()))
        worst_pool = max(worst_pool, float(np.abs(out_p.mean(0) - out.mean(0)).max()))
    rec.numeric(
        "six posenc.encoder_layer layers: E(P X) = P E(X)",
        worst_rows,
        tol=1e-12,
        scope="20 random inputs and permutations, n = 7, d = 8, d_ff = 16, 2 heads, float64",
    )
    rec.numeric(
        "six layers, mean-pooled: pool(E(P X)) = pool(E(X))",
        worst_pool,
        tol=1e-12,
        scope="the same 20 inputs and permutations",
    )

    # Step 6. The library computes the formulas proven above: posenc's
    # feed_forward and layer_norm against the symbolic ones, and
    # posenc.encoder_layer against the symbolic pieces composed as in step 4
    # (activation ReLU), at random points.
    ys = tokens(3)
    p = layer_params("0")
    ffn_weights = [*p["W1"], *p["b1"], *p["W2"], *p["b2"]]
    attn_weights = [*p["q"], *p["k"], *p["v"], *p["o"]]
    relu = [{"phi": _relu}, "numpy"]
    ffn = sp.lambdify([list(ys), ffn_weights], feed_forward(ys, p), relu)
    norm = sp.lambdify([list(ys), [*p["g1"], *p["h1"]], eps], layer_norm(ys, p["g1"], p["h1"]))
    attn = sp.lambdify([list(ys), attn_weights], attention(ys, p))
    worst = {"feed_forward": 0.0, "layer_norm": 0.0, "encoder_layer": 0.0}
    e = 1e-5
    for _ in range(20):
        w = {name: rng.normal(size=m.shape) for name, m in p.items()}  # as shaped in p
        inputs = rng.normal(size=(3, D))  # (3, 2)
        flat_ffn = [*w["W1"].ravel(), *w["b1"].ravel(), *w["W2"].ravel(), *w["b2"].ravel()]
        flat_attn = [*w["q"].ravel(), *w["k"].ravel(), *w["v"].ravel(), *w["o"].ravel()]

        def sym_norm(y, gain, bias):
            return np.array(norm(list(y.ravel()), [*gain.ravel(), *bias.ravel()], e), float)

        def sym_ffn(y, flat_ffn=flat_ffn):
            return np.array(ffn(list(y.ravel()), flat_ffn), float)

        got = posenc.feed_forward(inputs, w["W1"], w["b1"][0], w["W2"], w["b2"][0])  # (3, 2)
        worst["feed_forward"] = max(worst["feed_forward"], np.abs(got - sym_ffn(inputs)).max())
        got = posenc.layer_norm(inputs, e, w["g1"][0], w["h1"][0])  # (3, 2)
        want = sym_norm(inputs, w["g1"], w["h1"])
        worst["layer_norm"] = max(worst["layer_norm"], np.abs(got - want).max())
        # E(X) = LN2(H + FFN(H)), H = LN1(X + Attn(X)), from the symbolic pieces
        attended = np.array(attn(list(inputs.ravel()), flat_attn), float)  # (3, 2)
        h = sym_norm(inputs + attended, w["g1"], w["h1"])  # (3, 2)
        want = sym_norm(h + sym_ffn(h), w["g2"], w["h2"])  # (3, 2)
        params = posenc.EncoderLayerParams(
            *(w[name] for name in ("q", "k", "v", "o", "W1")),
            b1=w["b1"][0],
            W2=w["W2"],
            b2=w["b2"][0],
            gain1=w["g1"][0],
            bias1=w["h1"][0],
            gain2=w["g2"][0],
            bias2=w["h2"][0],
            eps=e,
        )
        got = posenc.encoder_layer(inputs, params, heads=1)  # (3, 2)
        worst["encoder_layer"] = max(worst["encoder_layer"], np.abs(got - want).max())
    claims = {
        "feed_forward": "posenc.feed_forward equals the symbolic FFN",
        "layer_norm": "posenc.layer_norm equals the symbolic layer norm",
        "encoder_layer": "posenc.encoder_layer equals the symbolic pieces, composed",
    }
    for name, error in worst.items():
        rec.numeric(
            claims[name],
            float(error),
            tol=1e-12,
            scope="20 random points, n = 3, d = 2, d_ff = 2, ReLU, eps = 1e-5, float64",
        )


# -- misreadings -------------------------------------------------------------------

# Three concrete tokens of width 2, as exact rationals.
_POINT = sp.Matrix([[1, 0], [sp.Rational(1, 2), -1], [-1, 2]])
_REVERSE = (2, 1, 0)


def _ffn_sees_order(wit: Witness) -> None:
    # "With an FFN after attention a token's output depends on where it
    # stands." At three concrete tokens, reversed, with every weight and the
    # activation left symbolic: FFN(Attn(P X)) - P FFN(Attn(X)) is exactly 0.
    p = layer_params("w")
    out = feed_forward(attention(_POINT, p), p)  # FFN(Attn(X))
    moved = feed_forward(attention(permute_rows(_POINT, _REVERSE), p), p)  # FFN(Attn(P X))
    wit.exact(
        reduce_to_zero(named_difference(moved, permute_rows(out, _REVERSE))) is not None,
        at="X = (1, 0), (1/2, -1), (-1, 2) reversed; FFN(Attn(P X)) - P FFN(Attn(X)) "
        "reduces to 0 for every weight and activation",
    )


def _pool_keeps_order(wit: Witness) -> None:
    # "Mean pooling keeps order information": two orders of the same tokens
    # give exactly the same pooled vector after an encoder layer, whatever
    # its weights and normalisations, so no readout can tell the orders apart.
    p = layer_params("w")
    pooled = mean_pool(encoder_layer(_POINT, p, generic_norm))
    pooled_p = mean_pool(encoder_layer(permute_rows(_POINT, _REVERSE), p, generic_norm))
    wit.exact(
        reduce_to_zero(named_difference(pooled_p, pooled)) is not None,
        at="X = (1, 0), (1/2, -1), (-1, 2) and its reversal, an encoder layer with "
        "symbolic weights, activation and normalisations: the mean-pooled outputs are equal",
    )


def _convolution_equivariant(wit: Witness) -> None:
    # "A layer that treats every position alike is permutation-equivariant."
    # A convolution across positions, y_r = x_r + x_(r+1) (zero past the end),
    # uses the same weights everywhere but reads the neighbour by index.
    def conv(col: list[int]) -> sp.Matrix:
        padded = [*col, 0]
        return sp.Matrix([padded[a] + padded[a + 1] for a in range(len(col))])

    column = [1, 0, 0]  # three tokens of width 1
    perm = (1, 0, 2)  # swap the first two tokens
    moved = conv([column[p] for p in perm])  # conv(P X)
    wit.differs(
        moved,
        sp.Matrix([conv(column)[p] for p in perm]),  # P conv(X)
        at="X = (1, 0, 0), P swaps the first two tokens, y_r = x_r + x_(r+1)",
    )


MISREADINGS = [
    Misreading(
        "Adding a position-wise FFN after attention lets the model see order",
        _ffn_sees_order,
        why="The FFN reads one row at a time with shared weights, so it moves with its row.",
    ),
    Misreading(
        "Mean pooling over positions preserves order information",
        _pool_keeps_order,
        why="Reordered tokens give the same rows in another order, and a mean ignores order.",
    ),
    Misreading(
        "Any layer that treats all positions alike, such as a convolution, is "
        "permutation-equivariant",
        _convolution_equivariant,
        why="A convolution reads neighbours by index: the same weights, but not row by row.",
    ),
]
