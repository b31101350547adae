"""Proposition 17 (no position code: a causal layer can count).

Let the tokens x_0, ..., x_(n-1) carry no position code, and let coordinate 0
be a start marker: x_0[0] = 1 and x_j[0] = 0 for j >= 1. Take one causal
attention head with W_Q = 0 (any W_K) and a value projection whose column 0 is
e_0, so that the value copies the marker. Every score is 0, so row i gives the
weight 1/(i + 1) to each key j <= i, and the output's marker coordinate at
position i is exactly y_i = 1/(i + 1). The map i -> 1/(i + 1) is strictly
decreasing, hence injective, and i = 1/y_i - 1 recovers the position
(Kazemnejad et al. 2023, Theorem 1, in its simplest form).

The marker is needed: if all tokens are equal, every row of a causal layer is
the same, whatever the weights. The mask is needed: without it (bidirectional
attention) the same construction writes 1/n at every position, and for any
weights two equal tokens get equal outputs (Proposition 1).

Uses: 1, 2, 3.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import numpy as np
import sympy as sp

import posenc
from posenc.figures import nope as figure
from proofs.exact import in_order, product
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 17
TITLE = "No position code: a causal layer can count"
USES = (1, 2, 3)

# What the proposition chooses rather than computes: the figure's sequence
# length, the length of the float64 run of step 5 (positions 0..1023), and the
# position whose reading the page spells out.
INPUTS = {"figure_length": 8, "float_length": 1024, "read": 3}

LENGTHS = range(1, 8)  # step 4: n = 1..7, explicit matrices
EQUAL_LENGTHS = range(3, 6)  # step 7: n = 3..5
FIGURE_LENGTH = INPUTS["figure_length"]  # the figure's default sequence
FLOAT_LENGTH = INPUTS["float_length"]  # step 5: one float64 run
READ = INPUTS["read"]  # the position whose reading the page spells out
SAMPLES = 10  # random inputs in each numeric check
#: The bound the page states for the library's readings: a relative 2^-53. Step 5
#: pins it to float64's unit roundoff, derived from the float format itself.
UNIT_ROUNDOFF = Fraction(1, 2**53)

# -- symbols, declared once -------------------------------------------------------
i, k, j = sp.symbols("i k j", integer=True, nonnegative=True)
n_ = sp.Symbol("n", integer=True, positive=True)
y = sp.Symbol("y", positive=True)
score = sp.Function("s")  # any score s(query token, key token)
value = sp.Function("v")  # any value map v(token)
token = sp.Symbol("x")  # one token, the same at every position (step 6)

D, DK = 3, 2  # d_model (coordinate 0 is the marker) and d_k of the explicit checks


def marker(index: sp.Expr) -> sp.Expr:
    """x_j[0]: 1 for the start token j = 0, 0 for every later token."""
    return sp.KroneckerDelta(index, 0)


def uniform_causal_marker(row: sp.Expr) -> sp.Expr:
    """Marker coordinate of row ``row``: every score is 0, so each weight is e^0 / sum e^0."""
    weight = sp.exp(sp.Integer(0)) / sp.Sum(sp.exp(sp.Integer(0)), (j, 0, row))
    return sp.Sum(weight * marker(j), (j, 0, row))


def decode(reading: sp.Expr) -> sp.Expr:
    """The position read off the marker coordinate: i = 1/y - 1."""
    return 1 / reading - 1


# -- explicit small matrices -----------------------------------------------------------


def marked_tokens(n: int) -> sp.Matrix:
    """(n, D): coordinate 0 is the marker (1, 0, ..., 0); the rest symbolic content."""
    return sp.Matrix(
        n, D, lambda a, b: marker(sp.Integer(a)) if b == 0 else sp.Symbol(f"c_{a}{b}", real=True)
    )


def key_weights() -> sp.Matrix:
    return sp.Matrix(D, DK, lambda a, b: sp.Symbol(f"k_{a}{b}", real=True))


def value_weights() -> sp.Matrix:
    """W_V with column 0 equal to e_0 (the value copies the marker); the rest symbolic."""
    return sp.Matrix(
        D, D, lambda a, b: int(a == 0) if b == 0 else sp.Symbol(f"w_{a}{b}", real=True)
    )


def layer(m: sp.Matrix, wq: sp.Matrix, wk: sp.Matrix, wv: sp.Matrix, causal: bool) -> sp.Matrix:
    """One head, softmax((M W_Q)(M W_K)^T / sqrt(d_k)) (M W_V), each sum kept in order.

    The softmax sums stay unevaluated, in the tokens' order, so the kit has to
    evaluate them. (That a zero W_Q makes every score 0 is step 1's check.)
    """
    queries = m * wq  # (n, d_k)
    keys = m * wk  # (n, d_k)
    values = m * wv  # (n, d_v)
    rows = []
    for a in range(m.rows):
        seen = range(a + 1) if causal else range(m.rows)  # the mask, by index only
        weight = [sp.exp((queries.row(a) * keys.row(b).T)[0, 0] / sp.sqrt(DK)) for b in seen]
        total = in_order(weight)
        rows.append(
            [
                in_order([w * values[b, c] for w, b in zip(weight, seen, strict=True)]) / total
                for c in range(values.cols)
            ]
        )
    return sp.Matrix(rows)


def construction(n: int, causal: bool) -> sp.Matrix:
    """The proposition's layer on n marked tokens: W_Q = 0, symbolic W_K and W_V."""
    return layer(marked_tokens(n), sp.zeros(D, DK), key_weights(), value_weights(), causal)


def generic_layer(m: sp.Matrix, causal: bool) -> sp.Matrix:
    """Any score function and value map: row a mixes v(x_b) with weights softmax s(x_a, x_b)."""
    rows = []
    for a in range(m.rows):
        seen = range(a + 1) if causal else range(m.rows)
        weight = [sp.exp(score(*m.row(a), *m.row(b))) for b in seen]
        total = in_order(weight)
        rows.append(
            [
                in_order([w * value(c, *m.row(b)) for w, b in zip(weight, seen, strict=True)])
                / total
                for c in range(m.cols)
            ]
        )
    return sp.Matrix(rows)


def with_repeat(n: int) -> sp.Matrix:
    """(n, 2) symbolic tokens in which the token at position n - 1 repeats the one at 1."""
    return sp.Matrix(n, 2, lambda a, b: sp.Symbol(f"x_{1 if a == n - 1 else a}{b}", real=True))


def _random_case(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """Marked tokens with random content, W_Q = 0, random W_K, W_V with column 0 = e_0."""
    x = rng.normal(size=(n, D))  # (n, D)
    x[:, 0] = 0.0
    x[0, 0] = 1.0  # the start marker
    wk = rng.normal(size=(D, DK))  # (D, d_k)
    wv = rng.normal(size=(D, D))  # (D, D)
    wv[:, 0] = [1.0, 0.0, 0.0]  # the value copies the marker
    return x, np.zeros((D, DK)), wk, wv


def checks(rec: Recorder) -> None:
    # Step 1. Zero query weights make every score 0, whatever W_K and the
    # tokens: each query is the zero vector. The product is written out
    # unevaluated, so the kit carries out the multiplication by 0.
    rec.instances(
        "W_Q = 0: every score (x_i W_Q) . (x_j W_K) is 0",
        (
            (
                f"n = {n}",
                product(
                    product(marked_tokens(n), sp.zeros(D, DK)),
                    (marked_tokens(n) * key_weights()).T,
                ),
            )
            for n in LENGTHS
        ),
        scope="n = 1..7, d_model = 3, d_k = 2; symbolic content and W_K",
    )
    # With every score 0, row i of the causal softmax gives each of its i + 1
    # keys the weight e^0 / sum_(j <= i) e^0 = 1/(i + 1): uniform over the prefix.
    rec.identity(
        "every score 0: row i of the causal softmax gives each key j <= i the weight 1/(i + 1)",
        sp.exp(sp.Integer(0)) / sp.Sum(sp.exp(sp.Integer(0)), (j, 0, i)) - 1 / (i + 1),
        scope="every row i >= 0",
    )

    # Step 2. The marker coordinate. The value copies it (W_V's column 0 is
    # e_0), so row i's marker coordinate is the mean of x_0[0], ..., x_i[0]:
    # one 1 (the start token) and i zeros.
    rec.identity(
        "the output's marker coordinate at row i is y_i = 1/(i + 1)",
        uniform_causal_marker(i) - 1 / (i + 1),
        scope="every row i >= 0 (the sums over the prefix evaluated by the kit)",
    )

    # Step 3. Position can be read back. i -> 1/(i + 1) is strictly
    # decreasing: neighbours differ by 1/((i + 1)(i + 2)) > 0; two rows differ
    # by (k - i)/((i + 1)(k + 1)), zero only if k = i; and i = 1/y_i - 1.
    rec.identity(
        "y_i - y_(i+1) = 1/((i + 1)(i + 2)) > 0: the reading strictly decreases",
        uniform_causal_marker(i) - uniform_causal_marker(i + 1) - 1 / ((i + 1) * (i + 2)),
        scope="every row i >= 0",
    )
    rec.identity(
        "y_i - y_k = (k - i)/((i + 1)(k + 1)), so y_i = y_k only if i = k",
        uniform_causal_marker(i) - uniform_causal_marker(k) - (k - i) / ((i + 1) * (k + 1)),
        scope="every pair of rows i, k >= 0",
    )
    rec.identity(
        "decoding the reading gives the position back: 1/y_i - 1 = i",
        decode(uniform_causal_marker(i)) - i,
        scope="every row i >= 0",
    )

    # Step 4. The whole layer, written out for each n of a finite family: the
    # marked tokens with symbolic content, W_Q = 0, symbolic W_K, and a
    # symbolic W_V with column 0 = e_0. Column 0 of the output is 1/(i + 1).
    rec.instances(
        "column 0 of the causal layer's output is (1, 1/2, ..., 1/n)",
        (
            (
                f"n = {n}",
                construction(n, causal=True)[:, 0]
                - sp.Matrix([sp.Rational(1, a + 1) for a in range(n)]),
            )
            for n in LENGTHS
        ),
        scope="n = 1..7, d_model = 3, d_k = 2; symbolic content, W_K and W_V (column 0 = e_0)",
    )
    out = construction(FIGURE_LENGTH, causal=True)[:, 0].doit()  # (8, 1)
    rec.exact(
        f"n = {FIGURE_LENGTH}: row {READ} reads y = 1/{READ + 1}",
        sp.simplify(out[READ]),
        sp.Rational(1, READ + 1),
        scope=f"n = {FIGURE_LENGTH}, the explicit layer of this step, row {READ}",
        quantity="read_value",
        show=Show(style="fraction"),
    )
    rec.exact(
        f"n = {FIGURE_LENGTH}: decoding row {READ}'s reading gives {READ}",
        1 / sp.simplify(out[READ]) - 1,
        READ,
        scope=f"n = {FIGURE_LENGTH}, row {READ}, exact rationals",
    )

    # The page's "Check yourself": two start tokens (marker 1 at positions 0
    # and 1). Row 0 reads 1 and every row i >= 1 reads 2/(i + 1), so rows 0
    # and 1 agree and the later rows are read back as i = 2/y - 1.
    def two_starts(n: int) -> sp.Matrix:
        xs = marked_tokens(n)
        xs[1, 0] = 1  # a second start marker
        return layer(xs, sp.zeros(D, DK), key_weights(), value_weights(), causal=True)

    rec.instances(
        "two start tokens: row 0 reads 1 and row i >= 1 reads 2/(i + 1)",
        (
            (
                f"n = {n}",
                two_starts(n)[:, 0]
                - sp.Matrix([1] + [sp.Rational(2, a + 1) for a in range(1, n)]),
            )
            for n in range(2, 8)
        ),
        scope="n = 2..7, d_model = 3, d_k = 2; symbolic content, W_K and W_V (column 0 = e_0)",
    )

    # Step 5. The library computes what is proven. posenc.attention with
    # posenc.causal_mask, W_Q = 0, random content, W_K and W_V (column 0 =
    # e_0): each reading is 1/(i + 1) correctly rounded (relative error at
    # most 2^-53: the weights are 1 / (i + 1) in float64, and the marker
    # column adds one 1 and zeros), and rounding 1/y - 1 recovers every i.
    # The bound 2^-53 is float64's unit roundoff: half the gap from 1 to the
    # next float64, read off the format, not typed.
    rec.exact(
        "the page's bound 2^-53 is float64's unit roundoff, half the gap above 1",
        UNIT_ROUNDOFF,
        (Fraction(np.nextafter(1.0, 2.0)) - 1) / 2,
        scope="numpy.nextafter(1.0, 2.0), as an exact rational",
    )
    rng = np.random.default_rng(17)
    errors, misread, unrounded = [], 0, 0
    for _ in range(SAMPLES):
        args = _random_case(rng, FLOAT_LENGTH)
        got = posenc.attention(*args, mask=posenc.causal_mask(FLOAT_LENGTH))[:, 0]  # (L,)
        for row, reading in enumerate(got.tolist()):
            exact = Fraction(1, row + 1)
            errors.append(abs(Fraction(reading) - exact) / exact)
            unrounded += reading != float(exact)  # float(Fraction) rounds correctly
            misread += round(1 / reading - 1) != row
    rec.exact(
        "posenc.attention: the reading at row i is 1/(i + 1) correctly rounded (count of others)",
        unrounded,
        0,
        scope=f"{SAMPLES} random (content, W_K, W_V), n = {FLOAT_LENGTH}, every row; against "
        "the float64 nearest to the exact rational",
    )
    rec.exact(
        "posenc.attention: the reading at row i is 1/(i + 1) to within 2^-53 relative",
        max(errors),
        UNIT_ROUNDOFF,
        relation="<=",
        scope=f"{SAMPLES} random (content, W_K, W_V), n = {FLOAT_LENGTH}, every row; the "
        "largest relative error, exact, against the bound",
    )
    # That largest error is float64's own: rounding 1/(i + 1) correctly (Python's
    # float(Fraction)) has relative error |fl(1/(i + 1)) (i + 1) - 1|, without posenc.
    rounding = max(
        abs(Fraction(float(Fraction(1, r + 1))) * (r + 1) - 1) for r in range(FLOAT_LENGTH)
    )
    rec.exact(
        "posenc.attention: the largest relative error is that of rounding 1/(i + 1) to float64",
        max(errors),
        rounding,
        scope=f"the {SAMPLES} runs of n = {FLOAT_LENGTH} just made; against "
        f"max |fl(1/(i + 1)) (i + 1) - 1| over i < {FLOAT_LENGTH}, exact rationals",
    )
    rec.exact(
        "posenc.attention: round(1/y_i - 1) = i at every row",
        misread,
        0,
        scope=f"the {SAMPLES} runs of n = {FLOAT_LENGTH} just made; count of misread rows",
    )

    # Step 6. The marker is needed. If every token is the same x, every
    # weight is e^(s(x, x)) / ((i + 1) e^(s(x, x))) and row i is v(x): the
    # same at every position, for every score function and value map.
    same = sp.exp(score(token, token))
    rec.identity(
        "all tokens equal: row i of any causal layer is v(x), the same at every i",
        sp.Sum(same * value(token), (j, 0, i)) / sp.Sum(same, (j, 0, i)) - value(token),
        scope="every row i >= 0, every score function s and value map v",
    )
    errors = []
    for _ in range(SAMPLES):
        x = np.tile(rng.normal(size=(1, D)), (12, 1))  # (12, D): one token, repeated
        wq, wk, wv = rng.normal(size=(3, D, D))
        got = posenc.attention(x, wq, wk, wv, mask=posenc.causal_mask(12))  # (12, D)
        errors.extend(np.abs(got - got[0]).ravel())
    rec.numeric(
        "posenc.attention, causal, one token repeated: every row equals row 0",
        errors,
        tol=1e-14,
        scope=f"{SAMPLES} random tokens and (W_Q, W_K, W_V), n = 12, d = 3; every entry",
    )

    # Step 7. The mask is needed. Without it every row sees all n keys, so
    # the same construction writes 1/n at every row (symbolic n, then the
    # explicit layer). And for any weights two equal tokens at different
    # positions get equal outputs: Proposition 1 for the swap of the two,
    # which leaves X unchanged.
    rec.identity(
        "no mask, every score 0: the marker coordinate is 1/n at every row",
        sp.Sum(marker(j) / sp.Sum(1, (k, 0, n_ - 1)), (j, 0, n_ - 1)) - 1 / n_,
        scope="every length n >= 1",
    )
    rec.instances(
        "no mask: column 0 of the layer's output is 1/n in every row",
        (
            (
                f"n = {n}",
                construction(n, causal=False)[:, 0] - sp.Matrix([sp.Rational(1, n)] * n),
            )
            for n in LENGTHS
        ),
        scope="n = 1..7, d_model = 3, d_k = 2; symbolic content, W_K and W_V (column 0 = e_0)",
    )
    bidirectional = construction(FIGURE_LENGTH, causal=False)[:, 0].doit()
    rec.exact(
        f"n = {FIGURE_LENGTH}, no mask: row {READ} reads 1/{FIGURE_LENGTH}",
        sp.simplify(bidirectional[READ]),
        sp.Rational(1, FIGURE_LENGTH),
        scope=f"n = {FIGURE_LENGTH}, the explicit layer without the mask, row {READ}",
        quantity="bidirectional_value",
        show=Show(style="fraction"),
    )
    rec.instances(
        "no mask, by the formula: a token repeated at positions 1 and n - 1 gets one output",
        (
            (
                f"n = {n}",
                generic_layer(with_repeat(n), causal=False).row(1)
                - generic_layer(with_repeat(n), causal=False).row(n - 1),
            )
            for n in EQUAL_LENGTHS
        ),
        scope="n = 3..5, width 2, every score function s and value map v",
    )
    errors = []
    for _ in range(SAMPLES):
        args = _random_case(rng, 50)
        got = posenc.attention(*args)[:, 0]  # (50,): no mask
        errors.extend(got - 1 / 50)
    rec.numeric(
        "posenc.attention, no mask: the reading is 1/n at every row",
        errors,
        tol=1e-16,
        scope=f"{SAMPLES} random (content, W_K, W_V), n = 50, every row; float64",
    )

    # Step 8. The figure draws what is proven: its weights and readings
    # (posenc.attention) against the exact 1/(i + 1), 0 and 1/n, at the length
    # fig_nope_counts draws by default.
    rec.exact(
        "the figure draws 8 tokens: fig_nope_counts' default length",
        inspect.signature(figure.fig_nope_counts).parameters["length"].default,
        FIGURE_LENGTH,
        scope="posenc.figures.fig_nope_counts, its default argument",
    )
    drawn = figure._nope_layer(FIGURE_LENGTH)
    rows = np.arange(FIGURE_LENGTH)  # (L,)
    lower = rows[:, None] >= rows[None, :]  # (L, L): the keys each row may see
    exact_weights = np.where(lower, 1.0 / (rows[:, None] + 1.0), 0.0)  # (L, L)
    rec.numeric(
        "figure: the causal weights are 1/(i + 1) for j <= i and 0 above, the readings 1/(i + 1)",
        np.concatenate(
            [
                (drawn["causal_weights"] - exact_weights).ravel(),
                drawn["causal_marker"] - 1.0 / (rows + 1.0),
            ]
        ),
        tol=1e-16,
        scope=f"n = {FIGURE_LENGTH}, every weight and reading; float64",
    )
    rec.numeric(
        "figure: without the mask every weight and every reading is 1/n",
        np.concatenate(
            [
                (drawn["bidirectional_weights"] - 1.0 / FIGURE_LENGTH).ravel(),
                drawn["bidirectional_marker"] - 1.0 / FIGURE_LENGTH,
            ]
        ),
        tol=1e-16,
        scope=f"n = {FIGURE_LENGTH}, every weight and reading; float64",
    )


# -- misreadings -------------------------------------------------------------------


def _cannot_know(wit: Witness) -> None:
    # "Without a position code a causal model cannot know positions": then two
    # equal tokens at positions 2 and 3 would get the same output. In the
    # construction both carry the marker 0 and the same content, yet row 2
    # reads 1/3 and row 3 reads 1/4.
    xs = sp.Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]])  # tokens 2 and 3 equal
    out = layer(xs, sp.zeros(D, DK), key_weights(), sp.eye(D), causal=True).doit()
    wit.differs(
        sp.simplify(out[2, 0]),
        sp.simplify(out[3, 0]),
        at="tokens e_0 (start), e_1, e_2, e_2; W_Q = 0, symbolic W_K, W_V = I; "
        "marker coordinate of rows 2 and 3",
        margin=0,
        by="exact rationals, against a claim of exact equality",
    )


def _bidirectional_too(wit: Witness) -> None:
    # "NoPE works just as well for a bidirectional encoder": without the mask
    # the construction decodes the same position, n - 1, at every row.
    readings = construction(4, causal=False)[:, 0].doit()
    wit.differs(
        sp.Matrix([sp.simplify(decode(r)) for r in readings]),
        sp.Matrix([0, 1, 2, 3]),
        at="n = 4, the construction without the mask: decoded positions against 0, 1, 2, 3",
        margin=0,
        by="exact integers, against a claim of exact equality",
    )
    # (That for any weights two equal tokens get equal outputs without the mask
    # is step 7's row on with_repeat; a second witness here would refute on its
    # own and leave this one unchecked, since any one witness refutes.)


def _needs_learning(wit: Witness) -> None:
    # "Uniform attention over the prefix needs learned, tuned weights": W_Q = 0
    # already gives it. With the tokens e_0..e_4 and W_V = I, the outputs are
    # the weights, and they equal 1/(i + 1) on and below the diagonal.
    eye = sp.eye(5)
    weights = layer(eye, sp.zeros(5, DK), sp.Matrix(5, DK, lambda a, b: a - 2 * b), eye, True)
    uniform = sp.Matrix(5, 5, lambda a, b: sp.Rational(1, a + 1) if b <= a else 0)
    wit.exact(
        reduce_to_zero(weights - uniform) is not None,
        at="n = 5, W_Q = 0, a fixed nonzero W_K, W_V = I, tokens e_0..e_4: every weight is "
        "exactly 1/(i + 1) for j <= i and 0 above",
    )


def _counts_without_marker(wit: Witness) -> None:
    # "A causal layer can read off positions from any input": not when every
    # token is the same. Rows 0 and 5 then agree for every score and value map.
    xs = sp.Matrix([[sp.Symbol("x_0", real=True), sp.Symbol("x_1", real=True)]] * 6)
    out = generic_layer(xs, causal=True)
    wit.exact(
        reduce_to_zero(out.row(0) - out.row(5)) is not None,
        at="n = 6, one symbolic token of width 2 repeated, causal: rows 0 and 5 reduce to "
        "the same expression for every score function and value map",
    )


MISREADINGS = [
    Misreading(
        "Without a position code a causal model cannot know positions",
        _cannot_know,
        why="With a start token and uniform causal weights, row i reads 1/(i + 1).",
    ),
    Misreading(
        "Leaving out the position code works just as well for a bidirectional encoder",
        _bidirectional_too,
        why="Without the mask attention is permutation-equivariant: equal tokens, equal outputs.",
    ),
    Misreading(
        "Uniform attention over the prefix needs learned, finely tuned weights",
        _needs_learning,
        why="W_Q = 0 makes every score 0, and the causal softmax of zeros is uniform.",
    ),
    Misreading(
        "A causal layer can read off positions from any input, start token or not",
        _counts_without_marker,
        why="If all tokens are equal, every row of a causal layer is v(x).",
    ),
]
