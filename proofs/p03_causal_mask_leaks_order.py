"""Proposition 3 (the causal mask leaks order).

Let CAttn be self-attention in which row r may attend only to rows j <= r (the
decoder's causal mask), with no position signal. Row r of CAttn(X) is ordinary
attention over the prefix x_0, ..., x_r, read at its last token; so it depends
only on x_r and the multiset {x_0, ..., x_r}, and reordering the tokens before
r (or after r) leaves it unchanged. In particular row 0 is v(x_0), the first
token's own value. But CAttn is not permutation-equivariant: for two tokens,
CAttn(P X) - P CAttn(X) has rows a (v(x_1) - v(x_0)) and b (v(x_1) - v(x_0))
with weights a, b in (0, 1), which is nonzero whenever the two values differ.
Even the mean of the outputs depends on the order: with uniform scores it is
sum_j c_j v(x_j) with c_j = (H_n - H_j)/n strictly decreasing in j.

Uses: 1, 2.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
import sympy as sp

import posenc
from posenc.figures import layers as figure
from proofs.exact import in_order, mean_rows
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 3
TITLE = "The causal mask leaks order"
USES = (1, 2)

# What the proposition chooses rather than computes: the largest number of
# tokens of the prefix check (step 3) and of the pooling and start-token checks
# (steps 5 and 6), and how many random points each numeric check looks at.
INPUTS = {"prefix_largest_n": 5, "pool_largest_n": 6, "random_points": 20}

PREFIX_SIZES = range(2, INPUTS["prefix_largest_n"] + 1)  # step 3: n = 2 .. prefix_largest_n
POOL_SIZES = range(2, INPUTS["pool_largest_n"] + 1)  # steps 5 and 6: n = 2 .. pool_largest_n
SAMPLES = INPUTS["random_points"]  # random points in each numeric check

# -- the row calculus: rows x[j] are whole tokens, indices stay symbolic -----------
r, j, c = sp.symbols("r j c", integer=True, nonnegative=True)
n_ = sp.Symbol("n", integer=True, positive=True)
x = sp.IndexedBase("x")  # x[j] is token j, a whole row
score = sp.Function("s")  # any score s(query token, key token)
value = sp.Function("v")  # any value map: v(c, token) is component c of v(token)

Rows = Callable[[sp.Expr], sp.Expr]


def attention_row(rows: Rows, last: sp.Expr, i: sp.Expr) -> sp.Expr:
    """Component c of row i of attention over the rows 0..last (no mask)."""
    weight = sp.exp(score(rows(i), rows(j)))
    return sp.Sum(weight * value(c, rows(j)), (j, 0, last)) / sp.Sum(weight, (j, 0, last))


def causal_row(rows: Rows, i: sp.Expr) -> sp.Expr:
    """Component c of row i of CAttn: row i sees exactly the rows j <= i."""
    weight = sp.exp(score(rows(i), rows(j)))
    keys = (j, 0, i)  # the causal mask, a rule about indices only
    return sp.Sum(weight * value(c, rows(j)), keys) / sp.Sum(weight, keys)


def X(i: sp.Expr) -> sp.Expr:
    return x[i]


# -- explicit small matrices ----------------------------------------------------------

D = 2  # features per token; the argument does not use its value


def tokens(n: int) -> sp.Matrix:
    return sp.Matrix(n, D, lambda a, b: sp.Symbol(f"x_{a}{b}", real=True))


def generic_score(q: sp.Matrix, k: sp.Matrix) -> sp.Expr:
    return score(*q, *k)


def generic_value(t: sp.Matrix) -> sp.Matrix:
    return sp.Matrix([[value(col, *t) for col in range(D)]])


def causal(m: sp.Matrix, s=generic_score, v=generic_value) -> sp.Matrix:
    """CAttn(M): row a mixes v(row b) for b <= a with weights softmax_b s(row a, row b)."""
    rows = []
    for a in range(m.rows):
        weight = [sp.exp(s(m.row(a), m.row(b))) for b in range(a + 1)]
        values = [v(m.row(b)) for b in range(a + 1)]  # (1, width) each
        total = in_order(weight)  # the softmax denominator over the allowed keys
        mixed = [
            in_order([weight[b] * values[b][0, col] for b in range(a + 1)]) / total
            for col in range(values[0].cols)
        ]
        rows.append(sp.Matrix([mixed]))
    return sp.Matrix.vstack(*rows)


def uniform(q: sp.Matrix, k: sp.Matrix) -> sp.Expr:
    """Scores that ignore content (Wq = 0 or Wk = 0): every allowed key weighs the same."""
    return sp.Integer(0)


def identity_value(t: sp.Matrix) -> sp.Matrix:
    return t


def bilinear(q: sp.Matrix, k: sp.Matrix) -> sp.Expr:
    """The usual score with Wq = Wk = I: q . k / sqrt(width)."""
    return (q * k.T)[0, 0] / sp.sqrt(q.cols)


def permute_rows(m: sp.Matrix, perm: tuple[int, ...]) -> sp.Matrix:
    """P M, where row a of P M is row perm[a] of M."""
    return sp.Matrix.vstack(*[m.row(p) for p in perm])


def prefix_cases():
    """Row r of CAttn(P X) - row r of CAttn(X), for every P that keeps r and its prefix."""
    for n in PREFIX_SIZES:
        xs = tokens(n)
        out = causal(xs)
        for row in range(n):
            before = itertools.permutations(range(row))  # reorder tokens 0..r-1
            after = list(itertools.permutations(range(row + 1, n)))  # and r+1..n-1
            for head in before:
                for tail in after:
                    perm = (*head, row, *tail)
                    moved = causal(permute_rows(xs, perm))  # CAttn(P X), built from P X
                    yield f"n = {n}, r = {row}, perm = {perm}", moved.row(row) - out.row(row)


def pooled_weight(n: int | sp.Expr, index: int | sp.Expr) -> sp.Expr:
    """c_j = (H_n - H_j) / n: the share of token j in the mean of uniform causal outputs."""
    return (sp.harmonic(n) - sp.harmonic(index)) / n


def pooling_cases():
    """mean_r CAttn(X)_r - sum_j c_j v(x_j), uniform scores, any value map, n = 2..6."""
    for n in POOL_SIZES:
        xs = tokens(n)
        mean = mean_rows(causal(xs, s=uniform))
        formula = sum(
            (pooled_weight(n, b) * generic_value(xs.row(b)) for b in range(n)), sp.zeros(1, D)
        )
        yield f"n = {n}", mean - formula


def basis(n: int) -> sp.Matrix:
    """n tokens e_0, ..., e_(n-1) of width n: with v = identity, entry j of an output
    is the weight that output gives token j."""
    return sp.eye(n)


# -- the toy sentences of the figure ---------------------------------------------------
# The hand-made words of Proposition 4, which the figure of this page uses too.
half = sp.Rational(1, 2)
WORDS = {
    "dog": sp.Matrix([[1, half, 0, -half]]),
    "bites": sp.Matrix([[0, -1, half, 1]]),
    "man": sp.Matrix([[-half, 0, 1, half]]),
}
FIRST = ("dog", "bites", "man")  # "dog bites man"
SECOND = ("man", "bites", "dog")  # "man bites dog"


def toy_distances() -> dict[str, sp.Expr]:
    """Each word's |output in sentence 1 - output in sentence 2| under the causal mask,
    with Wq = Wk = Wv = I (scores q . k / sqrt(4)), exactly."""
    out1 = causal(sp.Matrix.vstack(*[WORDS[w] for w in FIRST]), s=bilinear, v=identity_value)
    out2 = causal(sp.Matrix.vstack(*[WORDS[w] for w in SECOND]), s=bilinear, v=identity_value)
    gaps = {w: (out1.row(FIRST.index(w)) - out2.row(SECOND.index(w))).doit() for w in FIRST}
    return {w: sp.sqrt(sum(t**2 for t in gap)) for w, gap in gaps.items()}


def checks(rec: Recorder) -> None:
    # Step 1. Row 0 sees only itself: one weight exp(s(x_0, x_0)), divided by
    # itself. Written for symbolic n, any score s and any value map v; the sums
    # over the allowed keys are left for the check to evaluate.
    rec.identity(
        "row 0 of CAttn(X) is v(x_0)",
        causal_row(X, 0) - value(c, x[0]),
        scope="every n and width, every score function s and value map v",
    )

    # Step 2. Row r is plain attention (Proposition 1's) over the prefix
    # x_0..x_r, read at its last row r: the mask only decides which rows
    # exist. Written out, the two formulas are one expression: the mask's
    # definition, not a fact to prove.
    rec.identity(
        "by definition of the mask, row r of CAttn(X) = row r of Attn(x_0, ..., x_r)",
        causal_row(X, r) - attention_row(X, r, r),
        scope="every n, every row r, every score function s and value map v",
    )

    # Step 3. Hence, by Proposition 1 applied to the prefix, row r does not
    # change when the tokens before r are reordered (or those after r).
    # CAttn(P X) is computed from P X, its sums kept in the order of P X.
    largest = INPUTS["prefix_largest_n"]
    prefix = rec.instances(
        "row r of CAttn(P X) = row r of CAttn(X) when P keeps r and reorders 0..r-1",
        prefix_cases(),
        scope=f"n = 2..{largest}, every row r, every permutation that fixes r and maps "
        "0..r-1 to itself; generic s and v, width 2",
    )
    # For n tokens and row r there are r! orders of the tokens before r and
    # (n - 1 - r)! of those after it: the family is all of them.
    rec.exact(
        "the prefix cases are every such permutation: sum over n and r of r! (n - 1 - r)!",
        prefix.samples,
        sum(
            math.factorial(row) * math.factorial(n - 1 - row)
            for n in range(2, largest + 1)
            for row in range(n)
        ),
        scope=f"exact integers: the cases checked against the count for n = 2..{largest}",
        quantity="prefix_cases",
        show=Show(),
    )

    # Step 4. The symbolic counterexample: two tokens, swapped. Row 0 of
    # CAttn(P X) is v(x_1), but row 0 of P CAttn(X) is row 1 of CAttn(X), a
    # mix of v(x_0) and v(x_1). The difference has a closed form.
    xs = tokens(2)
    out = causal(xs)
    leak = causal(permute_rows(xs, (1, 0))) - permute_rows(out, (1, 0))  # CAttn(PX) - P CAttn(X)
    gap = generic_value(xs.row(1)) - generic_value(xs.row(0))  # v(x_1) - v(x_0)
    e = {(p, q): sp.exp(generic_score(xs.row(p), xs.row(q))) for p in (0, 1) for q in (0, 1)}
    a = e[1, 0] / (e[1, 0] + e[1, 1])  # the weight query x_1 gives key x_0
    b = e[0, 1] / (e[0, 0] + e[0, 1])  # the weight query x_0 gives key x_1
    rec.identity(
        "n = 2: CAttn(P X) - P CAttn(X) = (a, b)^T (v(x_1) - v(x_0))",
        leak - sp.Matrix.vstack(a * gap, b * gap),
        scope="n = 2, P the swap, every score function s, value map v and tokens",
    )
    # a and b are quotients of positive exponentials, so 0 < a, b < 1: the leak
    # vanishes only if v(x_0) = v(x_1). One exact instance (uniform scores,
    # v = identity, x_0 = (1, 0), x_1 = (0, 1)): a = 1/2, first entry -1/2.
    point = {xs[0, 0]: 1, xs[0, 1]: 0, xs[1, 0]: 0, xs[1, 1]: 1}
    plain = causal(xs, s=uniform, v=identity_value)
    swapped = causal(permute_rows(xs, (1, 0)), s=uniform, v=identity_value)
    first = (swapped - permute_rows(plain, (1, 0)))[0, 0].xreplace(point).doit()
    rec.exact(
        "the leak is nonzero: first entry of CAttn(P X) - P CAttn(X) = -1/2",
        first,
        sp.Rational(-1, 2),
        scope="n = 2, swap, uniform scores, v = identity, x_0 = (1, 0), x_1 = (0, 1)",
    )

    # Step 5. Even pooling cannot hide the order. With uniform scores, row r is
    # the mean of v(x_0..x_r); averaging the rows gives token j the weight
    # c_j = (1/n) sum_{r >= j} 1/(r + 1) = (H_n - H_j)/n.
    pool_largest = INPUTS["pool_largest_n"]
    pooling = rec.instances(
        "uniform scores: mean_r CAttn(X)_r = sum_j (H_n - H_j)/n v(x_j)",
        pooling_cases(),
        scope=f"n = 2..{pool_largest}, any value map v, width 2",
    )
    rec.exact(
        "the pooling cases are one for each n = 2 .. pool_largest_n",
        pooling.samples,
        pool_largest - 1,
        scope="exact integers: the cases checked against the sizes the page names",
    )
    # c_j - c_(j+1) = 1/(n (j+1)) > 0: the first token weighs most, and no two
    # tokens weigh the same. (expand_func applies H_(j+1) = H_j + 1/(j+1).)
    jj = sp.Symbol("j", integer=True, nonnegative=True)
    rec.identity(
        "c_j - c_(j+1) = 1/(n (j + 1)), so the weights strictly decrease",
        sp.expand_func(pooled_weight(n_, jj) - pooled_weight(n_, jj + 1)) - 1 / (n_ * (jj + 1)),
        scope="every n >= 1 and j >= 0",
    )
    # The three weights for n = 3, read off the mean of the outputs at the
    # tokens e_0, e_1, e_2 (v = identity), against the closed form.
    shares = mean_rows(causal(basis(3), s=uniform, v=identity_value)).doit()  # (1, 3)
    for index in range(3):
        rec.exact(
            f"n = 3: the mean of the outputs weighs token {index} by "
            f"c_{index} = (H_3 - H_{index})/3",
            shares[0, index],
            pooled_weight(3, index),
            scope="uniform scores, v = identity, tokens e_0, e_1, e_2",
            quantity=f"c{index}",
            show=Show(style="fraction"),
        )
    rec.exact(
        "n = 3: c_0 - c_1 = 1/(3 (0 + 1))",
        shares[0, 0] - shares[0, 1],
        sp.Rational(1, 3),
        scope="the weights just computed",
        quantity="c0_minus_c1",
        show=Show(style="fraction"),
    )
    # Two causal layers (uniform scores, v = identity): row 2 of the second
    # layer averages the first layer's rows 0..2, which is the mean above, so
    # it weighs the tokens by c_0, c_1, c_2: the order inside the prefix counts.
    second = causal(causal(basis(3), s=uniform, v=identity_value), s=uniform, v=identity_value)
    rec.instances(
        "two causal layers, n = 3: row 2 of the second weighs token j by c_j",
        ((f"token {t}", second[2, t] - pooled_weight(3, t)) for t in range(3)),
        scope="uniform scores, v = identity in both layers, tokens e_0, e_1, e_2",
    )

    # Step 6. Counting predecessors: put a start token first, whose value is
    # (1, 0), and give every other token a value with first entry 0. With
    # uniform scores, row r averages r + 1 values, so its first entry is
    # 1/(r + 1): each row can read off its own position.
    def start_cases():
        for n in POOL_SIZES:
            ys = sp.Matrix([[1, 0]] + [[0, sp.Symbol(f"y_{a}", real=True)] for a in range(1, n)])
            out = causal(ys, s=uniform, v=identity_value)
            yield f"n = {n}", out[:, 0] - sp.Matrix([sp.Rational(1, a + 1) for a in range(n)])

    start = rec.instances(
        "with a start token, uniform causal attention writes 1/(r + 1) into row r",
        start_cases(),
        scope=f"n = 2..{pool_largest}, start token value (1, 0), other values (0, y_j) "
        "with symbolic y_j",
    )
    rec.exact(
        "the start-token cases are one for each n = 2 .. pool_largest_n",
        start.samples,
        pool_largest - 1,
        scope="exact integers: the cases checked against the sizes the page names",
    )

    # Step 7. The library computes what is proven. posenc.attention with
    # posenc.causal_mask equals the formula with s = q . k / sqrt(d_k) and
    # v(t) = t Wv, at random points.
    rng = np.random.default_rng(3)
    wq, wk, wv = (
        sp.Matrix(D, D, lambda a_, b_, t=t: sp.Symbol(f"{t}_{a_}{b_}", real=True)) for t in "qkv"
    )
    xs = tokens(4)
    formula = causal(
        xs, s=lambda q, k: bilinear(q * wq, k * wk), v=lambda t: t * wv
    )  # (4, 2), every weight symbolic
    fn = sp.lambdify([list(xs), list(wq), list(wk), list(wv)], formula, "numpy")
    errors = []
    for _ in range(SAMPLES):
        inputs, q, k, v = (rng.normal(size=(s, D)) for s in (4, D, D, D))
        got = posenc.attention(inputs, q, k, v, mask=posenc.causal_mask(4))  # (4, 2)
        want = np.array(fn(*(list(m.ravel()) for m in (inputs, q, k, v))), float)
        errors.extend(np.abs(got - want).ravel())
    rec.numeric(
        "posenc.attention with causal_mask equals the symbolic CAttn",
        errors,
        tol=1e-12,
        scope=f"{SAMPLES} random (X, Wq, Wk, Wv), every entry of the (4, 2) output; "
        "n = 4, d = 2, float64",
    )

    # Step 8. Numeric spot check of step 3 through a whole causal block
    # (posenc.encoder_layer with the mask): the position-wise parts keep the
    # property (Proposition 2), so row r ignores the order of the tokens before it.
    n, width = 6, 8
    block = posenc.EncoderLayerParams.random(width, 16, seed=3)
    mask = posenc.causal_mask(n)
    errors = []
    for _ in range(SAMPLES):
        inputs = rng.normal(size=(n, width))  # (n, d)
        row = int(rng.integers(1, n))
        perm = np.concatenate([rng.permutation(row), np.arange(row, n)])  # keeps r..n-1
        out = posenc.encoder_layer(inputs, block, heads=2, mask=mask)  # (n, d)
        out_p = posenc.encoder_layer(inputs[perm], block, heads=2, mask=mask)  # (n, d)
        errors.extend(np.abs(out_p[row] - out[row]))
    rec.numeric(
        "causal block: row r unchanged when the tokens before r are reordered",
        errors,
        tol=1e-12,
        scope=f"{SAMPLES} random inputs, rows r and permutations of 0..r-1, every entry "
        "of row r; n = 6, d = 8, 2 heads",
    )

    # Step 9. The figure's toy: the words of Proposition 4, Wq = Wk = Wv = I.
    # Under the causal mask each word's two outputs differ; the exact distances
    # at 30 digits, against the bars the figure draws (posenc.attention with
    # posenc.causal_mask), and without the mask the figure's distances vanish.
    # The page quotes the bars as drawn, the very values the check compares.
    # (each 30-digit value as the exact rational it is)
    exact = {w: sp.Rational(sp.N(d, 30)) for w, d in toy_distances().items()}
    drawn = [float(bar) for bar in figure._moved_distances(posenc.causal_mask(3))]  # the bars
    bars = rec.close(
        "figure: each word's causal distance equals the exact one",
        drawn,
        [exact[w] for w in FIRST],
        tol=1e-12,
        scope="the three words, float64 figure values vs the symbolic distances at 30 digits",
    )
    for w in FIRST:
        rec.quantity(f"causal_distance_{w}", drawn[FIRST.index(w)], show=Show(decimals=3), by=bars)
    rec.numeric(
        "figure: without the mask, each word's distance is 0 up to rounding (Proposition 1)",
        figure._moved_distances(None),
        tol=1e-12,
        scope="the three words, float64",
    )


# -- misreadings -------------------------------------------------------------------

# Three concrete tokens of width 2 and the usual scores with Wq = Wk = Wv = I.
# Every output is then a mix of these tokens, so its entries lie in [0, 1].
_POINT = sp.Matrix([[1, 0], [0, 1], [1, 1]])
_REVERSE = (2, 1, 0)
#: A tenth of the outputs' range [0, 1]: an exact equality evaluated at 50
#: digits could not come near it.
_MARGIN = sp.Rational(1, 10)


def _order_blind(wit: Witness) -> None:
    # "A causal decoder without a position code is order-blind": then token 0
    # would get the same output wherever it stands. First it sees only itself;
    # last, it sees all three tokens.
    out = causal(_POINT, s=bilinear, v=identity_value)
    out_p = causal(permute_rows(_POINT, _REVERSE), s=bilinear, v=identity_value)
    wit.differs(
        out_p.row(2).doit(),  # token (1, 0), now last
        out.row(0).doit(),  # token (1, 0), first
        at="tokens (1, 0), (0, 1), (1, 1) and their reversal; Wq = Wk = Wv = I; "
        "output of the token (1, 0)",
        margin=_MARGIN,
        by="a tenth of the outputs' range [0, 1]",
    )


def _prefix_order_matters(wit: Witness) -> None:
    # "In one causal layer, the output at r depends on the order of the tokens
    # before r." Swapping tokens 0 and 1 leaves row 2 exactly as it was, for
    # every score and value map.
    xs = tokens(3)
    moved = causal(permute_rows(xs, (1, 0, 2)))  # CAttn(P X)
    wit.exact(
        reduce_to_zero(moved.row(2) - causal(xs).row(2)) is not None,
        at="n = 3, tokens 0 and 1 swapped: row 2 of the difference reduces to 0 "
        "for every score function and value map",
    )


def _stack_keeps_prefix_blind(wit: Witness) -> None:
    # "Stacked causal layers still see each prefix as an unordered set." Two
    # layers with uniform scores and v = identity: layer 1 gives prefix means
    # m_r, layer 2 gives the means of those. Row 2 of layer 2 weighs x_0 by
    # c_0 = 11/18 and x_1 by c_1 = 5/18 (step 5), so swapping x_0 and x_1
    # changes it by exactly c_0 - c_1.
    xs = sp.Matrix([[1], [0], [0]])

    def two_layers(m: sp.Matrix) -> sp.Matrix:
        once = causal(m, s=uniform, v=identity_value)
        return causal(once, s=uniform, v=identity_value).doit()

    wit.differs(
        two_layers(permute_rows(xs, (1, 0, 2)))[2],
        two_layers(xs)[2],
        at="tokens (1), (0), (0), x_0 and x_1 swapped; two causal layers with uniform "
        "scores and v = identity; row 2",
        margin=0,
        by="exact rationals, against a claim of exact equality",
    )


MISREADINGS = [
    Misreading(
        "A causal decoder without a position code is order-blind",
        _order_blind,
        why="The mask decides by index who sees whom, so a token's output depends on its place.",
    ),
    Misreading(
        "In one causal layer, the output at position r depends on the order of the tokens "
        "before r",
        _prefix_order_matters,
        why="Row r is attention over its prefix, which sees the prefix only as a multiset.",
    ),
    Misreading(
        "Stacking causal layers keeps each output blind to the order within its prefix",
        _stack_keeps_prefix_blind,
        why="The second layer reads first-layer outputs, which already depend on position.",
    ),
]
