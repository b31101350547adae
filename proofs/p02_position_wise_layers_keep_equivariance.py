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

import itertools
import math
from collections.abc import Callable

import numpy as np
import sympy as sp

import posenc
from proofs.exact import for_the_kit, in_order, mean_rows, minus
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 2
TITLE = "Position-wise layers keep equivariance"
USES = (1,)

# What the proposition chooses rather than computes: the written-out checks
# cover n = 2 .. largest_n rows, the numeric stack has as many layers as the
# 2017 paper's encoder, and each numeric check looks at random_points points.
INPUTS = {"largest_n": 4, "layers": 6, "random_points": 20}

SIZES = range(2, INPUTS["largest_n"] + 1)  # n = 2 .. largest_n rows
LAYERS = INPUTS["layers"]  # layers in the numeric stack
SAMPLES = INPUTS["random_points"]  # random points in each numeric check

# -- the row calculus: a matrix is a rule (row, column) -> entry --------------------
# Row and column indices, the width d, the hidden width d_ff and the permutation
# pi stay symbolic, so a check written in this calculus holds for every n, d,
# d_ff and every permutation at once.
r, c, j, k = sp.symbols("r c j k", integer=True, nonnegative=True)
rho = sp.Symbol("rho", integer=True, nonnegative=True)  # a row index, to substitute into
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


def at_row(rule: Matrix, row: sp.Expr, col: sp.Expr) -> sp.Expr:
    """Entry (row, col) of ``rule``, as its formula for a generic row rho evaluated at row.

    The substitution is left unevaluated (``sp.Subs``): the check then has to
    carry it out, through every sum of the formula.
    """
    return sp.Subs(rule(rho, col), rho, row)


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


def rule_at(rule: Callable[[Matrix], Matrix], arrays: dict[str, np.ndarray], sizes: dict):
    """The rule applied to X, at numbers: an exact SymPy matrix of shape arrays["x"].shape.

    ``sizes`` sets d, d_ff (and eps); every IndexedBase (x, W1, b1, W2, b2, g,
    beta) reads its entries from the array of its name, as exact rationals, and
    phi is ReLU. An index past an array's end is an error, not a zero.
    """
    formula = rule(X)(r, c).subs(sizes).doit()  # every sum written out

    def number(entry: sp.Indexed) -> sp.Rational:
        return sp.Rational(arrays[entry.base.name][tuple(int(i) for i in entry.indices)])

    def value(row: int, col: int) -> sp.Expr:
        at = formula.subs({r: row, c: col}).replace(lambda e: isinstance(e, sp.Indexed), number)
        return at.replace(phi, lambda t: sp.Max(t, 0))

    return sp.Matrix(*arrays["x"].shape, value)


# -- explicit small matrices: the encoder layer written out ------------------------

D = 2  # features per token in the explicit checks; the argument does not use its value


def plus(a: sp.Matrix, b: sp.Matrix) -> sp.Matrix:
    """a + b entry by entry, each sum kept as written (a residual connection)."""
    return sp.Matrix(a.rows, a.cols, lambda i, t: sp.Add(a[i, t], b[i, t], evaluate=False))


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
        total = in_order(weight)  # the softmax denominator, a sum over the keys
        mixed = [in_order([weight[b] * v[b, col] for b in range(m.rows)]) for col in range(D)]
        rows.append(sp.Matrix([mixed]) / total)
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
    return norm(plus(h, feed_forward(h, p)), p, 2)


def norm_at_numbers(e: sp.Rational):
    """explicit_norm, with phi = ReLU in its input and eps = e, evaluated to 40 digits.

    Given to encoder_layer as its normalisation, it evaluates the layer at numbers
    as the layer is written (residuals, order of the sublayers) without the
    expression growing.
    """

    def norm(m: sp.Matrix, p: dict[str, sp.Matrix], which: int) -> sp.Matrix:
        m = m.replace(phi, lambda t: sp.Max(t, 0))
        return explicit_norm(m, p, which).xreplace({eps: e}).evalf(40)

    return norm


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row a of P M is row perm[a] of M."""
    return sp.Matrix.vstack(*[m.row(p) for p in perm])


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
                row.append(in_order(terms))
            rows.append(sp.Matrix([row]))
        return sp.Matrix.vstack(*rows)

    return apply


F, G = generic_equivariant("kF"), generic_equivariant("kG")


def composition_cases():
    """(label, difference) for F, G o F, X + F(X) and the mean of G(F(X)), n = 2 .. largest_n.

    Each map is applied to P X itself, not obtained by renaming symbols.
    """
    for n in SIZES:
        xs = tokens(n)
        f_x, gf_x = F(xs), G(F(xs))
        residual = plus(xs, f_x)
        pooled = mean_rows(gf_x)
        for perm in itertools.permutations(range(n)):
            px = permute_rows(xs, perm)  # P X
            f_px, gf_px = F(px), G(F(px))
            label = f"n = {n}, perm = {perm}"
            yield f"F, {label}", for_the_kit(f_px, permute_rows(f_x, perm))
            yield f"G o F, {label}", for_the_kit(gf_px, permute_rows(gf_x, perm))
            yield f"X + F(X), {label}", for_the_kit(plus(px, f_px), permute_rows(residual, perm))
            yield f"mean of G(F(X)), {label}", for_the_kit(mean_rows(gf_px), pooled)


def layer_cases(pooled: bool):
    """(label, difference) for E(P X) - P E(X), or for the mean-pooled outputs.

    E is the layer with symbolic weights and generic normalisations, applied
    to P X itself.
    """
    p = layer_params("0")
    for n in SIZES:
        xs = tokens(n)
        out = encoder_layer(xs, p, generic_norm)  # E(X)
        for perm in itertools.permutations(range(n)):
            moved = encoder_layer(permute_rows(xs, perm), p, generic_norm)  # E(P X)
            label = f"n = {n}, perm = {perm}"
            if pooled:
                yield label, for_the_kit(mean_rows(moved), mean_rows(out))
            else:
                yield label, for_the_kit(moved, permute_rows(out, perm))


def _relu(t):
    return np.maximum(t, 0.0)


def checks(rec: Recorder) -> None:
    # Step 1. A position-wise map sends row r to f(row r), with one f for all
    # rows. Applied to P X, row r is f(row pi(r) of X), which is row pi(r) of
    # f(X), i.e. row r of P f(X). With f unknown, the two sides are one
    # expression: this is the definition of a position-wise map, unfolded.
    lhs = whole_row_rule(permuted(X))(r, c)  # f(P X)[r, c]
    rhs = permuted(whole_row_rule(X))(r, c)  # (P f(X))[r, c]
    rec.identity(
        "by definition, a position-wise map f satisfies f(P X) = P f(X)",
        lhs - rhs,
        scope="every n, every permutation pi, every row r and column c, any map f of one row",
    )

    # Step 2. The feed-forward network and layer normalisation are position-wise:
    # their formulas read row r only, with weights shared by all rows. The
    # check: the formula applied to P X, at row r, equals the formula's entry
    # for a generic row rho with pi(r) substituted for rho (an unevaluated
    # substitution that SymPy carries out through every sum). A bias per
    # position, or a read of a neighbouring row, would make the sides differ.
    # Symbolic widths d and d_ff, an unknown activation phi, symbolic gain and bias.
    rec.identity(
        "FFN(P X) = P FFN(X): row r of FFN(P X) is the FFN formula at row pi(r)",
        feed_forward_rule(permuted(X))(r, c) - at_row(feed_forward_rule(X), pi(r), c),
        scope="every n, d, d_ff, permutation pi, weights W1, b1, W2, b2 and activation phi",
    )
    rec.identity(
        "LN(P X) = P LN(X): row r of LN(P X) is the layer-norm formula at row pi(r)",
        layer_norm_rule(permuted(X))(r, c) - at_row(layer_norm_rule(X), pi(r), c),
        scope="every n, d, permutation pi, gain g, bias beta and eps > 0",
    )
    # The two rules are the network's formulas, not just any row-wise ones: at
    # a random point every entry of each rule (exact) equals posenc's (float64).
    draw = np.random.default_rng(3)
    ffn_at = {
        "x": draw.normal(size=(2, 3)),
        "W1": draw.normal(size=(3, 4)),
        "b1": draw.normal(size=4),
        "W2": draw.normal(size=(4, 3)),
        "b2": draw.normal(size=3),
    }
    rec.close(
        "the FFN rule is posenc.feed_forward's formula",
        list(rule_at(feed_forward_rule, ffn_at, {d: 3, d_ff: 4})),
        posenc.feed_forward(ffn_at["x"], ffn_at["W1"], ffn_at["b1"], ffn_at["W2"], ffn_at["b2"]),
        tol=1e-12,
        scope="every entry at n = 2, d = 3, d_ff = 4, ReLU, random float64 X and weights; "
        "the rule exact at 50 digits",
    )
    norm_at = {
        "x": draw.normal(size=(2, 3)),
        "g": draw.normal(size=3),
        "beta": draw.normal(size=3),
    }
    rec.close(
        "the layer-norm rule is posenc.layer_norm's formula",
        list(rule_at(layer_norm_rule, norm_at, {d: 3, eps: sp.Rational(1, 4)})),
        posenc.layer_norm(norm_at["x"], 0.25, norm_at["g"], norm_at["beta"]),
        tol=1e-12,
        scope="every entry at n = 2, d = 3, eps = 1/4, random float64 X, gain and bias; "
        "the rule exact at 50 digits",
    )

    # Step 3. The laws that assemble a layer: a composition, a residual sum and
    # a symmetric pooling of equivariant maps. F and G are the most general
    # equivariant maps on n rows (symmetrised unknown functions), applied to
    # P X itself; every sum over rows is kept in row order until the check
    # evaluates it. Four laws for each permutation of each size the page names
    # (n! permutations of n rows), so 4 (2! + 3! + ... + largest_n!) cases.
    # F is the general equivariant map the text describes: row a is k(row a,
    # the other rows), summed over every order of the others. Its first column
    # at n = 3, against that formula written out by hand.
    three = tokens(3)
    x0, x1, x2 = (list(three.row(a)) for a in range(3))
    k0 = sp.Function("kF_0")
    by_hand = sp.Matrix(
        [
            k0(*x0, *x1, *x2) + k0(*x0, *x2, *x1),
            k0(*x1, *x0, *x2) + k0(*x1, *x2, *x0),
            k0(*x2, *x0, *x1) + k0(*x2, *x1, *x0),
        ]
    )
    rec.identity(
        "the generic F: row a is k(x_a; the other rows), summed over their orders",
        minus(F(three).col(0), by_hand),
        scope="n = 3 rows of width 2, column 0, k an unknown function",
    )
    largest = INPUTS["largest_n"]
    permutations = sum(math.factorial(n) for n in range(2, largest + 1))
    laws = rec.instances(
        "G o F, X + F(X) equivariant and mean(G(F(X))) invariant, for equivariant F, G",
        composition_cases(),
        scope=f"n = 2..{largest} rows of width 2, every permutation, F and G generic equivariant",
    )
    rec.exact(
        "the laws' cases are 4 laws for every permutation of n = 2 .. largest_n rows",
        laws.samples,
        4 * permutations,
        scope=f"exact integers: the cases checked against 4 (2! + ... + {largest}!)",
    )

    # Step 4. The encoder layer written out in full (attention as in Proposition
    # 1, residual, normalisation, FFN, residual, normalisation), every weight a
    # free symbol and each normalisation any position-wise map (step 2 showed
    # layer norm is one), applied to P X: E(P X) = P E(X), and its mean over
    # positions stays.
    row_cases = list(layer_cases(pooled=False))
    layer = rec.instances(
        "encoder layer: E(P X) = P E(X)",
        row_cases,
        scope=f"n = 2..{largest}, every permutation; d = 2, d_ff = 2, symbolic X and weights, "
        "any activation phi, any position-wise normalisations N1, N2",
    )
    # The family is every permutation of every size the page names: n! for n
    # rows, so 2! + 3! + ... + largest_n! cases.
    rec.exact(
        "the layer's cases are all permutations of n = 2 .. largest_n rows: sum of n!",
        layer.samples,
        permutations,
        scope=f"exact integers: the cases checked against 2! + ... + {largest}!",
        quantity="layer_permutations",
        show=Show(),
    )
    rec.exact(
        "each of the layer's cases compares all n x 2 entries of E(P X) and P E(X)",
        sum(len(difference) for _, difference in row_cases),
        D * sum(n * math.factorial(n) for n in range(2, largest + 1)),
        scope=f"exact integers: entries against 2 (2 * 2! + ... + {largest} * {largest}!)",
    )
    pooled = rec.instances(
        "encoder layer, mean-pooled: mean(E(P X)) = mean(E(X))",
        layer_cases(pooled=True),
        scope="the same layer, sizes and permutations",
    )
    rec.exact(
        "the mean-pooled cases are all permutations of n = 2 .. largest_n rows: sum of n!",
        pooled.samples,
        permutations,
        scope=f"exact integers: the cases checked against 2! + ... + {largest}!",
    )

    # Step 5. Numeric spot check with the library: a stack of LAYERS (six, as
    # in the 2017 paper) posenc.encoder_layer layers, mean-pooled, on random
    # input and permutations.
    rng = np.random.default_rng(2)
    n, width, heads = 7, 8, 2
    stack = [posenc.EncoderLayerParams.random(width, 16, seed=s) for s in range(LAYERS)]

    applied: list[int] = []  # one entry per layer application, to count them

    def run(inputs: np.ndarray) -> np.ndarray:
        for p in stack:
            inputs = posenc.encoder_layer(inputs, p, heads=heads)  # (n, d)
            applied.append(1)
        return inputs

    row_errors, pool_errors = [], []
    for _ in range(SAMPLES):
        xs = rng.normal(size=(n, width))  # (n, d)
        perm = rng.permutation(n)
        out, out_p = run(xs), run(xs[perm])  # (n, d) each
        row_errors.extend(np.abs(out_p - out[perm]).ravel())
        pool_errors.extend(np.abs(out_p.mean(0) - out.mean(0)))
    rec.exact(
        "every run went through all the stack's layers: 2 runs per sample, each LAYERS layers",
        len(applied),
        2 * SAMPLES * LAYERS,
        scope=f"exact integers: layer applications against 2 * {SAMPLES} * {LAYERS}",
    )
    rec.numeric(
        f"{len(stack)} posenc.encoder_layer layers: E(P X) = P E(X)",
        row_errors,
        tol=1e-12,
        scope=f"{SAMPLES} random inputs and permutations, every entry of the (7, 8) output; "
        "n = 7, d = 8, d_ff = 16, 2 heads, float64",
    )
    rec.numeric(
        f"{len(stack)} layers, mean-pooled: pool(E(P X)) = pool(E(X))",
        pool_errors,
        tol=1e-12,
        scope="the same inputs and permutations, every entry of the pooled vector",
    )

    # Step 6. The library computes the formulas proven above: posenc's
    # feed_forward and layer_norm against the symbolic ones, and
    # posenc.encoder_layer against the symbolic encoder_layer of step 4 with
    # its layer norms written out (activation ReLU), at random points.
    ys = tokens(3)
    p = layer_params("0")
    ffn_weights = [*p["W1"], *p["b1"], *p["W2"], *p["b2"]]
    relu = [{"phi": _relu}, "numpy"]
    ffn = sp.lambdify([list(ys), ffn_weights], feed_forward(ys, p), relu)
    norm = sp.lambdify([list(ys), [*p["g1"], *p["h1"]], eps], layer_norm(ys, p["g1"], p["h1"]))
    errors: dict[str, list[float]] = {"feed_forward": [], "layer_norm": [], "encoder_layer": []}
    e = 1e-5
    for _ in range(SAMPLES):
        w = {name: rng.normal(size=m.shape) for name, m in p.items()}  # as shaped in p
        inputs = rng.normal(size=(3, D))  # (3, 2)
        flat_ffn = [*w["W1"].ravel(), *w["b1"].ravel(), *w["W2"].ravel(), *w["b2"].ravel()]

        def sym_norm(y, gain, bias):
            return np.array(norm(list(y.ravel()), [*gain.ravel(), *bias.ravel()], e), float)

        def sym_ffn(y, flat_ffn=flat_ffn):
            return np.array(ffn(list(y.ravel()), flat_ffn), float)

        got = posenc.feed_forward(inputs, w["W1"], w["b1"][0], w["W2"], w["b2"][0])  # (3, 2)
        errors["feed_forward"].extend(np.abs(got - sym_ffn(inputs)).ravel())
        got = posenc.layer_norm(inputs, e, w["g1"][0], w["h1"][0])  # (3, 2)
        want = sym_norm(inputs, w["g1"], w["h1"])
        errors["layer_norm"].extend(np.abs(got - want).ravel())
        # E(X) as encoder_layer writes it, at these numbers read exactly, to 40 digits
        exact = {name: sp.Matrix(v).applyfunc(sp.Rational) for name, v in w.items()}
        layer_at = encoder_layer(
            sp.Matrix(inputs).applyfunc(sp.Rational), exact, norm_at_numbers(sp.Rational(e))
        )
        want = np.array(layer_at, float)  # (3, 2)
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
        errors["encoder_layer"].extend(np.abs(got - want).ravel())
    where = (
        f"{SAMPLES} random points, every entry of the (3, 2) output; "
        "n = 3, d = 2, d_ff = 2, ReLU, eps = 1e-5, float64"
    )
    # Written out, not looped, so that none of the three can be skipped.
    rec.numeric(
        "posenc.feed_forward equals the symbolic FFN",
        errors["feed_forward"],
        tol=1e-12,
        scope=where,
    )
    rec.numeric(
        "posenc.layer_norm equals the symbolic layer norm",
        errors["layer_norm"],
        tol=1e-12,
        scope=where,
    )
    rec.numeric(
        "posenc.encoder_layer equals the symbolic encoder layer",
        errors["encoder_layer"],
        tol=1e-12,
        scope=where,
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
        reduce_to_zero(for_the_kit(moved, permute_rows(out, _REVERSE))) is not None,
        at="X = (1, 0), (1/2, -1), (-1, 2) reversed; FFN(Attn(P X)) - P FFN(Attn(X)) "
        "reduces to 0 for every weight and activation",
    )


def _pool_keeps_order(wit: Witness) -> None:
    # "Mean pooling keeps order information": two orders of the same tokens
    # give exactly the same pooled vector after an encoder layer, whatever
    # its weights and normalisations, so no readout can tell the orders apart.
    p = layer_params("w")
    pooled = mean_rows(encoder_layer(_POINT, p, generic_norm))
    pooled_p = mean_rows(encoder_layer(permute_rows(_POINT, _REVERSE), p, generic_norm))
    wit.exact(
        reduce_to_zero(for_the_kit(pooled_p, pooled)) is not None,
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
        margin=0,
        by="exact integers, against a claim of exact equality",
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
