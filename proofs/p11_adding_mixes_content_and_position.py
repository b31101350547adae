"""Proposition 11 (adding mixes content and position).

Let x, y be content vectors, p, q position vectors of the same width, and A any
square matrix (in attention, A = Wq Wk^T / sqrt(d_k), so the score of a query
token x at position p against a key token y at position q is (x+p)^T A (y+q)).
Then

    (x+p)^T A (y+q) = x^T A y + x^T A q + p^T A y + p^T A q,

and the coefficient of x_j q_j' in the score is A_jj': the two cross terms vanish
for all inputs only when A = 0. If instead content and position are stacked,
[x; p] and [y; q], and A = diag(A_c, A_p) is block-diagonal, the score is
exactly x^T A_c y + p^T A_p q, with no cross terms. A general A with blocks
[[A_cc, A_cp], [A_pc, A_pp]] brings them back: x^T A_cp q + p^T A_pc y.

Uses: 1.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import mixing
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 11
TITLE = "Adding mixes content and position"
USES = (1,)

# The numbers this proposition chooses: the width of the figure's example and
# of the first misreading's witness (both use the sinusoidal code of width 4),
# the paper's base, and the largest sizes of the explicit checks: widths
# 1 .. max_width (steps 2 and 3), block sizes 1 .. max_block (steps 4 and 5)
# and 1 .. max_projection_block (step 6).
INPUTS = {
    "figure_width": 4,
    "witness_width": 4,
    "base": 10000,
    "max_width": 4,
    "max_block": 3,
    "max_projection_block": 2,
}
WIDTHS = range(1, INPUTS["max_width"] + 1)
BLOCKS = range(1, INPUTS["max_block"] + 1)
PROJECTION_BLOCKS = range(1, INPUTS["max_projection_block"] + 1)

# Symbols, declared once. The general identity is written with indexed
# entries summed over a symbolic width n, so it holds for every width.
n = sp.Symbol("n", integer=True, positive=True)
a, c = sp.symbols("a c", integer=True)
x_, y_, p_, q_ = (sp.IndexedBase(name, real=True) for name in "xypq")
A_ = sp.IndexedBase("A", real=True)

# Block sizes for the concatenated case: m content features, k position
# features, and r, s query/key columns reading each.
m, k, r, s = sp.symbols("m k r s", integer=True, positive=True)


def bilinear(u: sp.IndexedBase, v: sp.IndexedBase) -> sp.Expr:
    """u^T A v = sum_a sum_c u_a A_ac v_c, for a symbolic width n."""
    return sp.Sum(u[a] * A_[a, c] * v[c], (a, 1, n), (c, 1, n))


def vector(name: str, size: int) -> sp.Matrix:
    """A column of ``size`` real symbols name_0, name_1, ..."""
    return sp.Matrix(size, 1, lambda row, _: sp.Symbol(f"{name}_{row}", real=True))


def matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A rows x cols matrix of real symbols name_rc."""
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i}{j}", real=True))


def score(u: sp.Matrix, weights: sp.Matrix, v: sp.Matrix) -> sp.Expr:
    """The scalar u^T A v, by matrix multiplication."""
    return (u.T * weights * v)[0, 0]


def entrywise(u: sp.Matrix, weights: sp.Matrix, v: sp.Matrix) -> sp.Expr:
    """The same scalar as the double sum of u_a A_ac v_c over every index pair.

    Used for the stacked vectors: the sum runs over the stacked index, with no
    notion of blocks, so comparing it with the block terms (matrix products of
    the blocks) is block multiplication checked entry by entry.
    """
    return sp.Add(*(u[i] * weights[i, j] * v[j] for i in range(u.rows) for j in range(v.rows)))


def scalar(expr: sp.MatrixExpr) -> sp.Matrix:
    """A 1 x 1 matrix expression of symbolic sizes, expanded by matrix distributivity."""
    return sp.Matrix(sp.expand(expr))


def additive_cases():
    """(label, score - four terms) with fully symbolic x, y, p, q and A, every width of WIDTHS."""
    for width in WIDTHS:
        x, y, p, q = (vector(name, width) for name in "xypq")
        A = matrix("A", width, width)
        four = score(x, A, y) + score(x, A, q) + score(p, A, y) + score(p, A, q)
        yield f"d = {width}", score(x + p, A, y + q) - four


def cross_coefficient_cases():
    """(label, d^2 score / dx_j dq_j' - A) for WIDTHS, the derivative left to the kit."""
    for width in WIDTHS:
        x, y, p, q = (vector(name, width) for name in "xypq")
        A = matrix("A", width, width)
        total = score(x + p, A, y + q)
        mixed = sp.Matrix(  # unevaluated: the kit differentiates
            [[sp.Derivative(total, x[i], q[j]) for j in range(width)] for i in range(width)]
        )
        yield f"d = {width}", mixed - A


def _blocks(mc: int, kp: int):
    x, y = vector("x", mc), vector("y", mc)
    p, q = vector("p", kp), vector("q", kp)
    return x, y, p, q


def general_block_cases():
    """(label, stacked double sum - four block terms), general blocks, sizes BLOCKS."""
    for mc in BLOCKS:
        for kp in BLOCKS:
            x, y, p, q = _blocks(mc, kp)
            cc, cp = matrix("C", mc, mc), matrix("E", mc, kp)
            pc, pp = matrix("F", kp, mc), matrix("P", kp, kp)
            A = sp.Matrix(sp.BlockMatrix([[cc, cp], [pc, pp]]))
            four = score(x, cc, y) + score(x, cp, q) + score(p, pc, y) + score(p, pp, q)
            yield f"m = {mc}, k = {kp}", entrywise(x.col_join(p), A, y.col_join(q)) - four


def diagonal_block_cases():
    """(label, stacked double sum with diag(A_c, A_p) - the two diagonal terms), sizes BLOCKS."""
    for mc in BLOCKS:
        for kp in BLOCKS:
            x, y, p, q = _blocks(mc, kp)
            a_c, a_p = matrix("C", mc, mc), matrix("P", kp, kp)
            stacked = entrywise(x.col_join(p), sp.diag(a_c, a_p), y.col_join(q))
            yield f"m = {mc}, k = {kp}", stacked - (score(x, a_c, y) + score(p, a_p, q))


def projection_cases():
    """(label, stacked score with Wq = diag(Q_c, Q_p), Wk = diag(K_c, K_p) - the two terms)."""
    for mc in PROJECTION_BLOCKS:
        for kp in PROJECTION_BLOCKS:
            for rc in PROJECTION_BLOCKS:
                for sp_ in PROJECTION_BLOCKS:
                    x, y, p, q = _blocks(mc, kp)
                    q_c, k_c = matrix("Q", mc, rc), matrix("K", mc, rc)
                    q_p, k_p = matrix("S", kp, sp_), matrix("T", kp, sp_)
                    weights = sp.diag(q_c, q_p) * sp.diag(k_c, k_p).T  # (m + k, m + k)
                    stacked = entrywise(x.col_join(p), weights, y.col_join(q))
                    two = score(x, q_c * k_c.T, y) + score(p, q_p * k_p.T, q)
                    yield f"m = {mc}, k = {kp}, r = {rc}, s = {sp_}", stacked - two


def checks(rec: Recorder) -> None:
    # Step 1. The expansion, for every width: (x+p)^T A (y+q) is the double sum
    # of (x_a + p_a) A_ac (y_c + q_c); multiplying out each term and splitting
    # the sum gives the four bilinear forms. Nothing is assumed about A.
    lhs = sp.Sum((x_[a] + p_[a]) * A_[a, c] * (y_[c] + q_[c]), (a, 1, n), (c, 1, n))
    rec.identity(
        "(x+p)^T A (y+q) = x^T A y + x^T A q + p^T A y + p^T A q",
        lhs - (bilinear(x_, y_) + bilinear(x_, q_) + bilinear(p_, y_) + bilinear(p_, q_)),
        scope="every width n >= 1, real entries, any n x n matrix A (indexed double sums)",
    )

    # Step 2. The same with explicit matrices, every entry a free symbol.
    additive = rec.instances(
        "(x+p)^T A (y+q) = the four terms, as matrices",
        additive_cases(),
        scope=f"widths n = 1..{INPUTS['max_width']}, every entry of x, y, p, q and A a real "
        "symbol",
    )

    # Step 3. The cross terms are A itself: the coefficient of x_a q_b in the
    # score is A_jj'. So "x^T A q + p^T A y = 0 for all inputs" forces A = 0,
    # and then the whole score is 0. Adding never keeps the parts apart. The
    # derivative is built unevaluated, so the kit computes it.
    cross = rec.instances(
        "d^2 score / (dx_j dq_j') = A_jj'",
        cross_coefficient_cases(),
        scope=f"widths n = 1..{INPUTS['max_width']}, symbolic x, y, p, q and A "
        "(SymPy differentiates)",
    )
    rec.exact(
        f"steps 2 and 3 ran one case for each width 1..{INPUTS['max_width']} the page names",
        additive.samples + cross.samples,
        2 * INPUTS["max_width"],
        scope="the cases of steps 2 and 3, counted, against twice max_width",
    )

    # Step 4. Concatenation. For symbolic block sizes, SymPy's rule of block
    # multiplication (block_collapse) writes the stacked score as the block
    # terms directly: those rows are the rule restated, a definition. The
    # evidence is the entry-by-entry check after each: the double sum over the
    # stacked index, with no blocks in it, against the block terms.
    x, y = sp.MatrixSymbol("x", m, 1), sp.MatrixSymbol("y", m, 1)
    p, q = sp.MatrixSymbol("p", k, 1), sp.MatrixSymbol("q", k, 1)
    a_c, a_p = sp.MatrixSymbol("A_c", m, m), sp.MatrixSymbol("A_p", k, k)
    stacked_x, stacked_y = sp.BlockMatrix([[x], [p]]), sp.BlockMatrix([[y], [q]])
    separate = sp.block_collapse(stacked_x.T * sp.BlockDiagMatrix(a_c, a_p) * stacked_y)
    rec.identity(
        "by block multiplication: [x; p]^T diag(A_c, A_p) [y; q] = x^T A_c y + p^T A_p q",
        scalar(separate - (x.T * a_c * y + p.T * a_p * q)),
        scope="symbolic block sizes m, k >= 1 (SymPy's block_collapse)",
    )
    diagonal = rec.instances(
        "[x; p]^T diag(A_c, A_p) [y; q] = x^T A_c y + p^T A_p q, entry by entry",
        diagonal_block_cases(),
        scope=f"block sizes m, k = 1..{INPUTS['max_block']}, every entry a real symbol",
    )

    # Step 5. A general A = [[A_cc, A_cp], [A_pc, A_pp]] gives four block terms;
    # the cross terms x^T A_cp q and p^T A_pc y are there unless A_cp = 0 and
    # A_pc = 0 (their coefficients are the entries of those blocks, as in step 3).
    a_cp, a_pc = sp.MatrixSymbol("A_cp", m, k), sp.MatrixSymbol("A_pc", k, m)
    general = sp.block_collapse(
        stacked_x.T * sp.BlockMatrix([[a_c, a_cp], [a_pc, a_p]]) * stacked_y
    )
    rec.identity(
        "by block multiplication: [x; p]^T A [y; q]"
        " = x^T A_cc y + x^T A_cp q + p^T A_pc y + p^T A_pp q",
        scalar(general - (x.T * a_c * y + x.T * a_cp * q + p.T * a_pc * y + p.T * a_p * q)),
        scope="symbolic block sizes m, k >= 1 (SymPy's block_collapse)",
    )
    general_cases = rec.instances(
        "[x; p]^T A [y; q] = the four block terms, entry by entry",
        general_block_cases(),
        scope=f"block sizes m, k = 1..{INPUTS['max_block']}, every entry a real symbol",
    )
    rec.exact(
        f"steps 4 and 5 ran one case for each pair of block sizes 1..{INPUTS['max_block']}",
        diagonal.samples + general_cases.samples,
        2 * INPUTS["max_block"] ** 2,
        scope="the cases of steps 4 and 5, counted, against twice max_block^2",
    )

    # Step 6. Where a block-diagonal A comes from in attention: A = Wq Wk^T
    # (up to the scale 1/sqrt(d_k)). Projections that keep content and
    # position apart, Wq = diag(Q_c, Q_p) and Wk = diag(K_c, K_p), give the
    # score x^T Q_c K_c^T y + p^T Q_p K_p^T q, with no cross terms.
    q_c, k_c = sp.MatrixSymbol("Q_c", m, r), sp.MatrixSymbol("K_c", m, r)
    q_p, k_p = sp.MatrixSymbol("Q_p", k, s), sp.MatrixSymbol("K_p", k, s)
    projected = sp.block_collapse(
        stacked_x.T * sp.BlockDiagMatrix(q_c, q_p) * sp.BlockDiagMatrix(k_c, k_p).T * stacked_y
    )
    rec.identity(
        "by block multiplication: with Wq = diag(Q_c, Q_p), Wk = diag(K_c, K_p),"
        " score = x^T Q_c K_c^T y + p^T Q_p K_p^T q",
        scalar(projected - (x.T * q_c * k_c.T * y + p.T * q_p * k_p.T * q)),
        scope="symbolic sizes m, k (features) and r, s (query/key columns) >= 1",
    )
    rec.instances(
        "with Wq = diag(Q_c, Q_p), Wk = diag(K_c, K_p): the two terms, entry by entry",
        projection_cases(),
        scope=f"sizes m, k, r, s = 1..{INPUTS['max_projection_block']}, every entry a real symbol",
    )

    # Step 7. Numeric spot check of the identity with random numbers: one
    # error per draw, all kept.
    rng = np.random.default_rng(11)
    errors = []
    for _ in range(50):
        xv, yv, pv, qv = rng.normal(size=(4, 16))  # (16,) each
        am = rng.normal(size=(16, 16))  # (16, 16)
        four = xv @ am @ yv + xv @ am @ qv + pv @ am @ yv + pv @ am @ qv
        errors.append(float((xv + pv) @ am @ (yv + qv) - four))
    rec.numeric(
        "the four-term expansion at random points",
        errors,
        tol=1e-11,
        scope="50 random x, y, p, q (width 16) and A (16 x 16), standard normal, float64",
    )

    # Step 8. The library: posenc.attention on X + P (P = posenc.sinusoidal)
    # equals softmax of the four score matrices, summed; on [X | PE] with
    # block-diagonal projections it equals softmax of the two diagonal terms.
    add_errors, cat_errors = [], []
    tokens, width, dk = 6, 8, 4
    P = posenc.sinusoidal(tokens, width)  # (6, 8)
    for _ in range(20):
        X = rng.normal(size=(tokens, width))  # (6, 8)
        wq, wk, wv = rng.normal(size=(3, width, dk))  # (8, 4) each
        A = wq @ wk.T / np.sqrt(dk)  # (8, 8)
        parts = X @ A @ X.T + X @ A @ P.T + P @ A @ X.T + P @ A @ P.T  # (6, 6)
        want = _softmax_rows(parts) @ ((X + P) @ wv)  # (6, 4)
        add_errors.append((posenc.attention(X + P, wq, wk, wv) - want).ravel())

        qc, qp, kc, kp = rng.normal(size=(4, width, dk))  # (8, 4) each
        wq_cat = np.block([[qc, np.zeros((width, dk))], [np.zeros((width, dk)), qp]])  # (16, 8)
        wk_cat = np.block([[kc, np.zeros((width, dk))], [np.zeros((width, dk)), kp]])  # (16, 8)
        wv_cat = rng.normal(size=(2 * width, dk))  # (16, 4)
        both = np.hstack([X, P])  # (6, 16)
        two = (X @ qc @ kc.T @ X.T + P @ qp @ kp.T @ P.T) / np.sqrt(2 * dk)  # (6, 6)
        want = _softmax_rows(two) @ (both @ wv_cat)  # (6, 4)
        got = posenc.attention(both, wq_cat, wk_cat, wv_cat)  # (6, 4)
        cat_errors.append((got - want).ravel())
    rec.numeric(
        "posenc.attention(X + PE) uses the four-term score",
        np.concatenate(add_errors),
        tol=1e-12,
        scope="20 random X (6 x 8), Wq, Wk, Wv (8 x 4); P = posenc.sinusoidal(6, 8); "
        "float64, every output entry",
    )
    rec.numeric(
        "posenc.attention([X | PE]) with block-diagonal Wq, Wk uses content-content"
        " + position-position only",
        np.concatenate(cat_errors),
        tol=1e-12,
        scope="20 random X (6 x 8), blocks (8 x 4), Wv (16 x 4); P = posenc.sinusoidal(6, 8); "
        "every output entry",
    )

    # Step 9. The figure's example (posenc.figures.mixing): five tokens, width
    # 4, with "the" at positions 0 and 3 given the same content vector. Its
    # four panels are recomputed here with plain matrix products; what the
    # page says about them is then read off.
    terms = mixing.score_terms()  # cc, cp, pc, pp: (5, 5) each
    stacked = mixing.score_terms(concatenate=True)
    X = mixing._X  # (5, 4): the figure's content vectors
    rec.exact(
        f"the figure's example has width {INPUTS['figure_width']}",
        X.shape[1],
        INPUTS["figure_width"],
        scope="posenc.figures.mixing's content table (integer comparison)",
    )
    code = posenc.sinusoidal(*X.shape)  # (5, 4): the code at the figure's width
    A = mixing._WQ @ mixing._WK.T / np.sqrt(mixing._WK.shape[1])  # (4, 4)
    again = (X @ A @ X.T, X @ A @ code.T, code @ A @ X.T, code @ A @ code.T)
    rec.numeric(
        "the figure's four panels are X A X^T, X A PE^T, PE A X^T and PE A PE^T",
        np.concatenate([(t - u).ravel() for t, u in zip(terms, again, strict=True)]),
        tol=1e-14,
        scope=f"the figure's five tokens, width {INPUTS['figure_width']}, A = Wq Wk^T / 2; "
        "every entry of the "
        "four panels against NumPy products",
    )
    # The page gives the range of the panels' largest entries: each panel's
    # largest |entry| is compared with that of its NumPy recomputation.
    largest = [float(np.abs(t).max()) for t in terms]
    sizes = rec.close(
        "the largest |entry| of each of the figure's four panels, against the NumPy products'",
        largest,
        [float(np.abs(u).max()) for u in again],
        tol=1e-14,
        scope=f"the figure's five tokens, width {INPUTS['figure_width']}; one largest entry "
        "per panel",
    )
    rec.quantity("fig_largest_low", min(largest), show=Show(decimals=2), by=sizes)
    rec.quantity("fig_largest_high", max(largest), show=Show(decimals=2), by=sizes)
    the_rows = sum(int(np.count_nonzero(t[0] != t[3])) for t in terms[:2])
    rec.exact(
        'the two rows of "the" (positions 0 and 3) are equal in the two top panels',
        the_rows,
        0,
        scope="content-content and content-position panels (count of unequal entries)",
    )
    gaps = [np.abs(t[0] - t[3]) for t in terms[2:]]  # (5,) each: |row 0 - row 3|
    rec.close(
        'the gaps between the two rows of "the" in the bottom panels, against NumPy products\'',
        np.concatenate(gaps),
        np.concatenate([np.abs(u[0] - u[3]) for u in again[2:]]),
        tol=1e-14,
        scope="position-content and position-position panels, 5 keys each, float64",
    )
    apart = sum(int(np.count_nonzero(g > 1e-3)) for g in gaps)
    rec.exact(
        'the two rows of "the" differ in every key column of the two bottom panels',
        apart,
        2 * len(mixing._TOKENS),
        scope="position-content and position-position panels, 5 keys each "
        "(count of entries differing by more than 1e-3)",
    )
    rec.exact(
        "with diag(A, A): content-content and position-position equal the added case's",
        sum(int(np.count_nonzero(stacked[t] != terms[t])) for t in (0, 3)),
        0,
        scope="the figure's two diagonal panels in each group (count of unequal entries)",
    )
    rec.exact(
        "with diag(A, A): both cross panels are zero",
        sum(int(np.count_nonzero(stacked[t])) for t in (1, 2)),
        0,
        scope="the concatenated group's two cross panels (count of nonzero entries)",
    )

    # Step 10. The worked example of the first misreading: width 4, A = I,
    # x = e_0, y = e_1, p = PE(1), q = PE(3). The cross terms are x^T q + p^T y
    # = PE(3)_0 + PE(1)_1 = sin 3 + cos 1. posenc.sinusoidal's float64 score
    # is compared with that value at 30 digits.
    width = INPUTS["witness_width"]
    table = posenc.sinusoidal(4, width)  # (4, width): positions 0..3
    e = np.eye(width)  # (width, width)
    full = (e[0] + table[1]) @ (e[1] + table[3])
    separate_terms = e[0] @ e[1] + table[1] @ table[3]
    with mpmath.workdps(30):
        rec.close(
            "the witness: score - (content-content + position-position) = sin 3 + cos 1",
            float(full - separate_terms),
            mpmath.sin(3) + mpmath.cos(1),
            tol=1e-15,
            scope=f"width {width}, A = I, x = e_0, y = e_1, p = PE(1), q = PE(3); "
            "posenc.sinusoidal in float64 against mpmath at 30 digits",
            quantity="witness_cross_terms",
            show=Show(sig=3),
        )
    full_exact, separate_exact = _separable_witness()
    rec.identity(
        "the first misreading's witness: its difference is exactly sin 3 + cos 1",
        full_exact - separate_exact - (sp.sin(3) + sp.cos(1)),
        scope=f"width {width}, A = I, x = e_0, y = e_1, p = PE(1), q = PE(3) from the formula "
        "with base 10000; exact SymPy",
    )

    # Step 11. The page's "Check yourself": n = 2, A = I, x = y = (1, 0); with
    # p = q = (0, 1) the four terms are 1, 0, 0, 1 and the score 2; with
    # p = q = (1, 1) they are 1, 1, 1, 2 and the score 5; concatenation with
    # diag(I, I) gives 2 and 3. Exact integers, every one compared.
    one = sp.Matrix([1, 0])
    found, wanted = [], []
    for pos_vec, terms_wanted, total, concat in (
        (sp.Matrix([0, 1]), (1, 0, 0, 1), 2, 2),
        (sp.Matrix([1, 1]), (1, 1, 1, 2), 5, 3),
    ):
        eye = sp.eye(2)
        found += [score(one, eye, one), score(one, eye, pos_vec), score(pos_vec, eye, one)]
        found += [score(pos_vec, eye, pos_vec), score(one + pos_vec, eye, one + pos_vec)]
        found += [score(one.col_join(pos_vec), sp.eye(4), one.col_join(pos_vec))]
        wanted += [*terms_wanted, total, concat]
    rec.exact(
        "check yourself: the four terms, the score and the concatenated score",
        sum(int(f != w) for f, w in zip(found, wanted, strict=True)),
        0,
        scope="n = 2, A = I, x = y = (1, 0), p = q = (0, 1) and (1, 1) "
        "(count of wrong values among 12)",
    )
    # The second misreading's witness, the same worked numbers with one feature
    # each: A = [[1, 1], [1, 1]], x = y = p = q = 1 gives 1 + 1 + 1 + 1 = 4
    # stacked, and 1 + 1 = 2 from the two diagonal blocks.
    stacked_score, diagonal_terms = _concatenated_witness()
    rec.exact(
        "the second misreading's witness: the stacked score is 4",
        stacked_score,
        4,
        scope="m = k = 1, A = [[1, 1], [1, 1]], x = y = p = q = 1 (exact integers)",
    )
    rec.exact(
        "the second misreading's witness: content-content + position-position is 2",
        diagonal_terms,
        2,
        scope="m = k = 1, A = [[1, 1], [1, 1]], x = y = p = q = 1 (exact integers)",
    )
    rec.exact(
        "check yourself: all 12 values the page gives were compared",
        len(found),
        12,
        scope="2 cases x (4 terms, the score, the concatenated score): count of values found",
    )


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax, written out here so the check does not lean on posenc.softmax."""
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))  # (n, n)
    return shifted / shifted.sum(axis=1, keepdims=True)


# -- misreadings -------------------------------------------------------------------


def _separable_witness() -> tuple[sp.Expr, sp.Expr]:
    """The first misreading's two sides: (score, content-content + position-position).

    Width 4, A = I (a plain dot product), x = e_0, y = e_1, p = PE(1) and q = PE(3)
    from the formula. Step 10 proves their difference is exactly sin 3 + cos 1.
    """
    width = INPUTS["witness_width"]

    def pe(position: int) -> sp.Matrix:
        angles = [
            position * sp.Integer(INPUTS["base"]) ** sp.Rational(-2 * i, width)
            for i in range(width // 2)
        ]
        return sp.Matrix([f(t) for t in angles for f in (sp.sin, sp.cos)])

    x, y = sp.eye(width)[:, 0], sp.eye(width)[:, 1]
    p, q, A = pe(1), pe(3), sp.eye(width)
    return score(x + p, A, y + q), score(x, A, y) + score(p, A, q)


def _adding_is_separable(wit: Witness) -> None:
    # "Adding keeps content and position separable: the score is x^T A y + p^T A q."
    # The cross terms x^T q + p^T y = sin 3 + cos 1 (step 10). Were the claim
    # true, the two sides would agree to all 50 digits; a tenth is far above
    # that and far below the witness.
    full, separate = _separable_witness()
    wit.differs(
        full,
        separate,
        at=f"d = {INPUTS['witness_width']}, A = I, x = e_0, y = e_1, p = PE(1), q = PE(3)",
        margin=sp.Rational(1, 10),
        by="a tenth; the claim would leave a difference of 0",
    )


def _concatenated_witness() -> tuple[sp.Expr, sp.Expr]:
    """The second misreading's two sides: (stacked score, the two diagonal-block terms).

    One content and one position feature, and one query/key column that reads
    both: Wq = Wk = (1, 1)^T, so A = Wq Wk^T = [[1, 1], [1, 1]] is not
    block-diagonal; x = y = p = q = 1. Step 11 pins the sides at 4 and 2.
    """
    weights = sp.Matrix([[1], [1]])
    A = weights * weights.T
    one = sp.Matrix([1])
    return (
        score(one.col_join(one), A, one.col_join(one)),
        score(one, A[:1, :1], one) + score(one, A[1:, 1:], one),
    )


def _concatenation_always_separates(wit: Witness) -> None:
    # "Concatenating [x; p] keeps content and position apart, whatever A is."
    # The score is 4, content-content plus position-position is 2: the cross
    # terms add exactly 2, more than the size 1 of either separate term.
    stacked, separate = _concatenated_witness()
    wit.differs(
        stacked,
        separate,
        at="m = k = 1, A = [[1, 1], [1, 1]] (Wq = Wk = (1, 1)^T), x = y = p = q = 1",
        margin=1,
        by="1, the size of each separate term",
    )


MISREADINGS = [
    Misreading(
        "Adding position to the embedding keeps content and position separable:"
        " the score is x^T A y + p^T A q",
        _adding_is_separable,
        why="The cross terms x^T A q + p^T A y have A itself as coefficients: zero only if A = 0.",
    ),
    Misreading(
        "Concatenating [x; p] keeps content and position apart for every A",
        _concatenation_always_separates,
        why="Only a block-diagonal A does; off-diagonal blocks bring the cross terms back.",
    ),
]
