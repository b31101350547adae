"""Proposition 19 (Transformer-XL: the score in four terms).

Let E_i, E_j be the contents of query i and key j, W_q, W_kE, W_kR projections
(h x d), u, v in R^h two learned vectors, and R_k the sinusoidal code of the
offset k (not learned). Transformer-XL scores query i against key j <= i by

    A_ij = E_i^T W_q^T W_kE E_j + E_i^T W_q^T W_kR R_(i-j)
           + u^T W_kE E_j + v^T W_kR R_(i-j),

(a) content-content, (b) content-position, (c) a global content bias and (d) a
global position bias. It is the absolute score of Proposition 11,
(E_i + U_i)^T W_q^T W_k (E_j + U_j), expanded into four terms, with U_j replaced
by R_(i-j), the query's position term W_q U_i replaced by u (against content)
and v (against position), and W_k split into W_kE and W_kR. Hence
A_(i+s, j+s) = A_ij for every shift s: the positions enter only through i - j.
Terms (c) and (d) do not depend on the query's content; (c) does not depend on
the positions at all.

Uses: 9, 11.
"""

from __future__ import annotations

import inspect

import mpmath
import numpy as np
import sympy as sp

import posenc
from posenc.figures import txl
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 19
TITLE = "Transformer-XL: the score in four terms"
USES = (9, 11)

# The numbers this proposition chooses: the paper's base, and the figure's
# example (8 positions, width 8, head width 4; posenc.figures.txl). Step 8
# checks that the figure is drawn at these sizes.
INPUTS = {"base": 10000, "figure_length": 8, "figure_width": 8, "figure_head": 4}
#: The figure's sizes, in the order of posenc.figures.txl.example's arguments.
FIGURE = {
    "length": INPUTS["figure_length"],
    "width": INPUTS["figure_width"],
    "head": INPUTS["figure_head"],
}
#: The seed of the figure's random example (not shown on the page).
SEED = 19

# Symbols, declared once. Widths d (content) and h (head) are symbolic for the
# general identities; a, b run over the d features, c over the h head columns.
d, h = sp.symbols("d h", integer=True, positive=True)
a, b, c = sp.symbols("a b c", integer=True)
E, F, U, V = (
    sp.IndexedBase(name, real=True) for name in ("E", "F", "U", "V")
)  # E_i, E_j, U_i, U_j
Q, K, KE, KR = (sp.IndexedBase(name, real=True) for name in ("Q", "K", "KE", "KR"))
u_, v_, R_ = (sp.IndexedBase(name, real=True) for name in ("u", "v", "R"))
# The projected query content W_q E_i and query position W_q U_i, in R^h.
P_, PU = sp.IndexedBase("q", real=True), sp.IndexedBase("p", real=True)
# Positions, a shift and a speed for the offset identities.
i, j, s = sp.symbols("i j s", real=True)
w = sp.Symbol("w", positive=True)


def query(col: sp.Expr) -> sp.Expr:
    """(W_q E_i)_c = sum_a Q[c, a] E[a]."""
    return sp.Sum(Q[col, a] * E[a], (a, 1, d))


def projected(x: sp.IndexedBase, keys: sp.IndexedBase, y: sp.IndexedBase) -> sp.Expr:
    """x^T W_q^T M y = sum_c sum_a sum_b x_a Q[c, a] M[c, b] y_b."""
    return sp.Sum(x[a] * Q[c, a] * keys[c, b] * y[b], (a, 1, d), (b, 1, d), (c, 1, h))


def biased(bias: sp.IndexedBase, keys: sp.IndexedBase, y: sp.IndexedBase) -> sp.Expr:
    """bias^T M y = sum_c sum_b bias_c M[c, b] y_b."""
    return sp.Sum(bias[c] * keys[c, b] * y[b], (b, 1, d), (c, 1, h))


def grouped(to_content, to_position, content_keys, position_keys, key_code) -> sp.Expr:
    """One formula for both scores: (q + p)^T K_E E_j + (q + p')^T K_R r.

    q = W_q E_i is the projected query content (by step 1 the query enters only
    through W_q E_i and W_q U_i); p and p' are the query's position vectors that
    meet the key's content and the key's position; r is the key's position code.
    """
    return sp.Sum(
        (P_[c] + to_content[c]) * content_keys[c, b] * F[b]
        + (P_[c] + to_position[c]) * position_keys[c, b] * key_code[b],
        (b, 1, d),
        (c, 1, h),
    )


def headed(x: sp.IndexedBase, keys: sp.IndexedBase, y: sp.IndexedBase) -> sp.Expr:
    """x^T M y for a projected query x in R^h: sum_c sum_b x_c M[c, b] y_b."""
    return sp.Sum(x[c] * keys[c, b] * y[b], (b, 1, d), (c, 1, h))


def absolute_terms() -> list[sp.Expr]:
    """Proposition 11's four terms with A = W_q^T W_k: E^T A E, E^T A U, U^T A E, U^T A U."""
    return [projected(E, K, F), projected(E, K, V), projected(U, K, F), projected(U, K, V)]


# -- one pair of the code, written through the two positions -----------------------


def offset_code(p: sp.Expr, q: sp.Expr, speed: sp.Expr = w) -> sp.Matrix:
    """R_(p-q) for one pair, computed from the two positions' angles p w and q w.

    (sin pw cos qw - cos pw sin qw, cos pw cos qw + sin pw sin qw): the angle
    subtraction formulas, so that a shift of both positions is not cancelled by
    SymPy on sight but has to be proven.
    """
    x, y = p * speed, q * speed
    return sp.Matrix(
        [
            sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y),
            sp.cos(x) * sp.cos(y) + sp.sin(x) * sp.sin(y),
        ]
    )


def matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    """A rows x cols matrix of real symbols name_rc."""
    return sp.Matrix(rows, cols, lambda r, k: sp.Symbol(f"{name}_{r}{k}", real=True))


def txl_score(width: int, head: int, p: sp.Expr, q: sp.Expr) -> sp.Expr:
    """The full score with explicit symbolic entries; R of width ``width`` from positions p, q.

    Pair t of R turns at its own symbolic speed w_t (the sinusoidal speeds are
    one choice of them).
    """
    e_i, e_j = matrix("e", width, 1), matrix("f", width, 1)
    w_q, w_ke, w_kr = (
        matrix("Q", head, width),
        matrix("KE", head, width),
        matrix("KR", head, width),
    )
    u, v = matrix("u", head, 1), matrix("v", head, 1)
    speeds = sp.symbols(f"w_0:{width // 2}", positive=True)
    code = sp.Matrix.vstack(*(offset_code(p, q, speeds[t]) for t in range(width // 2)))
    return (
        (e_i.T * w_q.T * w_ke * e_j)[0, 0]
        + (e_i.T * w_q.T * w_kr * code)[0, 0]
        + (u.T * w_ke * e_j)[0, 0]
        + (v.T * w_kr * code)[0, 0]
    )


def checks(rec: Recorder) -> None:
    # Step 1. Proposition 11 with A = W_q^T W_k: the absolute score of query
    # i and key j splits into four terms, for every width d and head width h.
    absolute = sp.Sum(
        (E[a] + U[a]) * Q[c, a] * K[c, b] * (F[b] + V[b]), (a, 1, d), (b, 1, d), (c, 1, h)
    )
    rec.identity(
        "(E_i + U_i)^T W_q^T W_k (E_j + U_j) = the four terms of Proposition 11",
        absolute - sp.Add(*absolute_terms()),
        scope="every width d >= 1 and head width h >= 1, real entries (indexed triple sums)",
    )

    # Step 2. The reparametrisation. Both scores are the one grouped formula
    # (W_q E_i + p)^T K_E E_j + (W_q E_i + p')^T K_R r, at two argument lists:
    # absolute: p = p' = W_q U_i, K_E = K_R = W_k, r = U_j;
    # Transformer-XL: p = u, p' = v, K_E = W_kE, K_R = W_kR, r = R_(i-j).
    rec.identity(
        "absolute score = grouped formula at p = p' = W_q U_i, K_E = K_R = W_k, r = U_j",
        sp.Add(headed(P_, K, F), headed(P_, K, V), headed(PU, K, F), headed(PU, K, V))
        - grouped(PU, PU, K, K, V),
        scope="every d, h >= 1, real entries (indexed sums)",
    )
    rec.identity(
        "Transformer-XL's (a) + (b) + (c) + (d) = grouped formula at p = u, p' = v, "
        "K_E = W_kE, K_R = W_kR, r = R_(i-j)",
        sp.Add(headed(P_, KE, F), headed(P_, KR, R_), biased(u_, KE, F), biased(v_, KR, R_))
        - grouped(u_, v_, KE, KR, R_),
        scope="every d, h >= 1, real entries (indexed sums)",
    )

    # Step 3. R_(i-j) computed from the two positions is the code of the
    # offset: the angle subtraction formulas, for one pair at any speed w.
    rec.identity(
        "R_(i-j) from the angles i w and j w = (sin w(i - j), cos w(i - j))",
        offset_code(i, j) - sp.Matrix([sp.sin(w * (i - j)), sp.cos(w * (i - j))]),
        scope="all real i, j and every speed w > 0",
    )

    # Step 4. Shift invariance. By step 2 the score is alpha + beta^T R_(i-j),
    # where alpha = (a) + (c) and beta = W_kR^T (W_q E_i + v) do not involve
    # the positions. For one pair, with alpha, beta_0, beta_1 free symbols
    # (hence every content and every weight), moving both positions by s
    # leaves the score unchanged; and (d/di + d/dj) A = 0.
    alpha, beta0, beta1 = sp.symbols("alpha beta_0 beta_1", real=True)

    def one_pair(p: sp.Expr, q: sp.Expr) -> sp.Expr:
        code = offset_code(p, q)
        return alpha + beta0 * code[0] + beta1 * code[1]

    rec.identity(
        "A(i + s, j + s) = A(i, j), one pair of R",
        one_pair(i + s, j + s) - one_pair(i, j),
        scope="all real i, j, s, every speed w > 0 and all alpha, beta (any content, weights)",
    )
    rec.identity(
        "(d/di + d/dj) A(i, j) = 0, one pair of R",
        sp.Derivative(one_pair(i, j), i) + sp.Derivative(one_pair(i, j), j),
        scope="all real i, j, every speed w > 0 and all alpha, beta (SymPy differentiates)",
    )
    rec.instances(
        "A(i + s, j + s) = A(i, j) with every entry of E, W_q, W_kE, W_kR, u, v a symbol",
        (
            (
                f"d = {width}, h = {head}",
                (txl_score(width, head, i + s, j + s) - txl_score(width, head, i, j)).rewrite(
                    sp.exp
                ),
            )
            for width, head in ((2, 1), (2, 2), (4, 1), (4, 2))
        ),
        scope="d = 2, 4 (one speed symbol per pair), h = 1, 2; symbolic i, j, s; "
        "written with exponentials (exact)",
    )

    # Step 5. (c) and (d) do not depend on the query's content: their
    # derivative with respect to every entry of E_i is 0. (c) does not depend
    # on the positions at all: its derivatives in i and j are 0.
    rec.instances(
        "d((c) + (d)) / d(E_i)_a = 0 for every a",
        (_bias_derivatives(width, head) for width in (2, 4) for head in (1, 2)),
        scope="d = 2, 4, h = 1, 2; every entry a symbol (SymPy differentiates)",
    )
    rec.identity(
        "d(c)/di = d(c)/dj = 0 and d(c)/dE[a] = 0: (c) = u^T W_kE E_j is the same for every query",
        sp.Matrix(
            [
                sp.Derivative(biased(u_, KE, F), i),
                sp.Derivative(biased(u_, KE, F), j),
                sp.Derivative(biased(u_, KE, F), E[a]),
            ]
        ),
        scope="every d, h >= 1 (indexed sums; SymPy differentiates)",
    )

    # Step 6. Numeric spot check of steps 1 and 2 with random numbers, and
    # of the grouping (b) + (d) = (W_q E_i + v)^T W_kR R at random points.
    rng = np.random.default_rng(19)
    errors = []
    for _ in range(50):
        e_i, e_j, u_i, u_j = rng.normal(size=(4, 16))  # (16,) each
        w_q, w_k, w_ke, w_kr = rng.normal(size=(4, 8, 16))  # (8, 16) each
        u, v, r = rng.normal(size=8), rng.normal(size=8), rng.normal(size=16)
        four = sum(x @ w_q.T @ w_k @ y for x in (e_i, u_i) for y in (e_j, u_j))
        errors.append(float((e_i + u_i) @ w_q.T @ w_k @ (e_j + u_j) - four))
        paper = e_i @ w_q.T @ w_ke @ e_j + e_i @ w_q.T @ w_kr @ r + u @ w_ke @ e_j + v @ w_kr @ r
        group = (w_q @ e_i + u) @ (w_ke @ e_j) + (w_q @ e_i + v) @ (w_kr @ r)
        errors.append(float(paper - group))
    rec.numeric(
        "the four-term expansion and the grouped Transformer-XL score at random points",
        errors,
        tol=1e-10,
        scope="50 random draws, d = 16, h = 8, standard normal, float64; two errors per draw",
    )

    # Step 7. R is the fixed sinusoidal table: posenc.sinusoidal's row k is
    # (sin k w_t, cos k w_t), against mpmath at 30 digits, offsets 0 .. 511.
    table = posenc.sinusoidal(512, 16)  # (512, 16): row k is R_k
    errors = []
    with mpmath.workdps(30):
        for k in range(512):
            for t in range(8):
                angle = k * mpmath.power(INPUTS["base"], mpmath.mpf(-2 * t) / 16)
                errors += [float(table[k, 2 * t] - mpmath.sin(angle))]
                errors += [float(table[k, 2 * t + 1] - mpmath.cos(angle))]
    rec.numeric(
        "posenc.sinusoidal(512, 16)[k] = (sin k w_t, cos k w_t): R is a formula of the offset",
        errors,
        tol=1e-12,
        scope="offsets k = 0..511, width 16, base 10000, every entry; mpmath at 30 digits",
    )

    # Step 8. The figure (posenc.figures.txl): drawn at the sizes the page
    # names; its four panels recomputed with einsum; then what the page says
    # about them, counted exactly.
    drawn = inspect.signature(txl.fig_txl_terms).parameters
    rec.exact(
        "the figure is drawn at the page's sizes: "
        + ", ".join(f"{name} {size}" for name, size in FIGURE.items()),
        sum(int(drawn[name].default != size) for name, size in FIGURE.items())
        + int(drawn["seed"].default != SEED),
        0,
        scope="posenc.figures.txl.fig_txl_terms's defaults against the inputs "
        "(count of mismatches)",
    )
    parts = txl.example(**FIGURE, seed=SEED)
    terms = txl.txl_terms(parts)  # 4 x (L, L)
    length = parts["E"].shape[0]
    offsets = np.subtract.outer(np.arange(length), np.arange(length))  # (L, L): i - j
    causal = offsets >= 0  # (L, L)
    code = parts["R"][np.where(causal, offsets, 0)]  # (L, L, d): R_(i-j)
    q = np.einsum("hd,id->ih", parts["W_q"], parts["E"])  # (L, h)
    again = (
        np.einsum("ih,hd,jd->ij", q, parts["W_kE"], parts["E"]),
        np.einsum("ih,hd,ijd->ij", q, parts["W_kR"], code),
        np.broadcast_to(
            np.einsum("h,hd,jd->j", parts["u"], parts["W_kE"], parts["E"]), causal.shape
        ),
        np.einsum("h,hd,ijd->ij", parts["v"], parts["W_kR"], code),
    )
    rec.numeric(
        "the figure's four panels are (a), (b), (c), (d) of the formula",
        np.concatenate(
            [(t[causal] - g[causal]).ravel() for t, g in zip(terms, again, strict=True)]
        ),
        tol=1e-13,
        scope=f"the figure's example: L = {FIGURE['length']}, d = {FIGURE['width']}, "
        f"h = {FIGURE['head']}, seed {SEED}; every causal cell",
    )
    rec.exact(
        "the figure leaves every key after its query blank",
        sum(int(np.count_nonzero(~np.isnan(t[~causal]))) for t in terms),
        0,
        scope="the four panels, cells j > i (count of drawn cells)",
    )
    column = sum(int(np.count_nonzero(terms[2][j:, j] != terms[2][j, j])) for j in range(length))
    diagonal = sum(
        int(np.count_nonzero(np.diagonal(terms[3], -k) != terms[3][k, 0])) for k in range(length)
    )
    rec.exact(
        "panel (c) is the same down every column and panel (d) along every diagonal i - j",
        column + diagonal,
        0,
        scope="the figure's example (count of cells unequal to their column's or diagonal's "
        "first cell)",
    )
    varies = sum(
        int(np.count_nonzero(np.abs(np.diagonal(terms[t], -k) - terms[t][k, 0]) > 1e-3))
        for t in (0, 1)
        for k in range(length)
    )
    rec.exact(
        "panels (a) and (b) follow the query's content: they are not constant along diagonals",
        varies,
        1,
        relation=">=",
        scope="the figure's example (count of cells differing from their diagonal's first by "
        "more than 1e-3)",
    )
    # The same count again, from the formula's panels (again) and not the
    # library's, with each cell's diagonal found by its offset i - j rather
    # than by np.diagonal: the page's number is this count.
    start = np.where(causal, offsets, 0)  # (L, L): row of the first cell of each diagonal
    recount = sum(
        int(np.count_nonzero(causal & (np.abs(again[t] - again[t][start, 0]) > 1e-3)))
        for t in (0, 1)
    )
    same = rec.exact(
        "panels (a) and (b): the cells differing from their diagonal's first, counted again "
        "from the formula's panels by offset i - j",
        varies,
        recount,
        scope="the figure's example; the library's panels along np.diagonal against the einsum "
        "panels, causal cell (i, j) against cell (i - j, 0) (count of differences over 1e-3)",
    )
    rec.quantity("fig_varying_cells", varies, show=Show(), by=same)

    # Step 9. The witness of the page: d = 2 (one pair, w = 1), W_q = W_k =
    # W_kE = W_kR = I, u = v = 0, E_i = E_j = e_0, U = PE. The absolute score
    # is 1 + sin i + sin j + cos(i - j); Transformer-XL's is 1 + sin(i - j).
    # Moving (1, 0) to (2, 1) changes the first by sin 2 and not the second.
    # Each number the page shows is the library's, compared with mpmath.
    code = posenc.sinusoidal(3, 2)  # (3, 2): rows PE(0), PE(1), PE(2) = R_0, R_1, R_2
    e0 = np.array([1.0, 0.0])  # (2,)

    def absolute_score(p: int, q: int) -> float:
        return float((e0 + code[p]) @ (e0 + code[q]))

    moved = absolute_score(2, 1) - absolute_score(1, 0)
    a_, b_, c_, d_ = _witness_terms(3, v=np.zeros(2))  # 4 x (3, 3)
    position = [float(b_[p, q] + d_[p, q]) for p, q in ((1, 0), (2, 1))]
    scores = [float(a_[p, q] + b_[p, q] + c_[p, q] + d_[p, q]) for p, q in ((1, 0), (2, 1))]
    scope = (
        "d = h = 2, identity projections, u = v = 0, E_i = E_j = e_0, posenc.sinusoidal "
        "in float64 against mpmath at 30 digits"
    )
    with mpmath.workdps(30):
        rec.close(
            "witness: the absolute score moves by sin 2 from (1, 0) to (2, 1)",
            moved,
            mpmath.sin(2),
            tol=1e-15,
            scope=scope,
            quantity="shift_change",
            show=Show(sig=3),
        )
        terms_bd = rec.close(
            "witness: Transformer-XL's position terms (b) + (d) are sin 1 at (1, 0) and at (2, 1)",
            position,
            [mpmath.sin(1)] * 2,
            tol=1e-15,
            scope=scope + " (posenc.figures.txl.txl_terms)",
        )
        rec.quantity("position_terms", position[0], show=Show(sig=3), by=terms_bd)
        rec.close(
            "witness: Transformer-XL's score stays 1 + sin 1 from (1, 0) to (2, 1)",
            scores,
            [1 + mpmath.sin(1)] * 2,
            tol=1e-15,
            scope=scope + " (posenc.figures.txl.txl_terms)",
        )
    # The misreadings below use this example written in SymPy (_absolute,
    # _txl). Their absolute score is the closed form above for every i, j,
    # and their Transformer-XL score is 1 + sin 1 at (1, 0) and at (2, 1).
    rec.identity(
        "the misreadings' absolute score (e_0 + PE(i))^T (e_0 + PE(j)) = "
        "1 + sin i + sin j + cos(i - j)",
        _absolute(i, j) - (1 + sp.sin(i) + sp.sin(j) + sp.cos(i - j)),
        scope="all real i, j; d = 2, W_q = W_k = I, E_i = E_j = e_0, U = PE (w = 1)",
    )
    with mpmath.workdps(30):
        rec.close(
            "the misreadings' Transformer-XL score (a) + (b) + (c) + (d) is 1 + sin 1 "
            "at (1, 0) and at (2, 1)",
            [_txl(1, 0), _txl(2, 1)],
            [1 + mpmath.sin(1)] * 2,
            tol=1e-25,
            scope="d = h = 2, identity projections, u = v = 0, E_i = E_j = e_0, R_k = "
            "(sin k, cos k); SymPy at 50 digits against mpmath at 30 digits",
        )

    # Step 10. "Check yourself": d = h = 2, identity projections, u = 0,
    # v = e_1, E_i = E_j = e_0. Then (a) = 1, (b) = sin(i - j), (c) = 0 and
    # (d) = cos(i - j): at (5, 2) and at (9, 6) the score is 1 + sin 3 + cos 3.
    # The library's four terms (posenc.figures.txl.txl_terms) are compared
    # term by term with mpmath, and so is their sum: each number the answer
    # shows is the one its check compared.
    a_, b_, c_, d_ = _witness_terms(10, v=np.array([0.0, 1.0]))  # 4 x (10, 10)
    pairs = ((5, 2), (9, 6))
    scope = (
        "d = h = 2, identity projections, u = 0, v = e_1, E_i = E_j = e_0, (i, j) = (5, 2) "
        "and (9, 6); posenc.figures.txl.txl_terms against mpmath at 30 digits"
    )
    rec.close(
        "check yourself: term (a) is 1 and term (c) is 0 at both pairs",
        [float(t[p, q]) for t in (a_, c_) for p, q in pairs],
        [1, 1, 0, 0],
        tol=1e-15,
        scope=scope,
    )
    with mpmath.workdps(30):
        sine = rec.close(
            "check yourself: term (b) is sin 3 at both pairs",
            [float(b_[p, q]) for p, q in pairs],
            [mpmath.sin(3)] * 2,
            tol=1e-15,
            scope=scope,
        )
        cosine = rec.close(
            "check yourself: term (d) is cos 3 at both pairs",
            [float(d_[p, q]) for p, q in pairs],
            [mpmath.cos(3)] * 2,
            tol=1e-15,
            scope=scope,
        )
        total = [float(a_[p, q] + b_[p, q] + c_[p, q] + d_[p, q]) for p, q in pairs]
        answer = rec.close(
            "check yourself: the score at (5, 2) and (9, 6) is 1 + sin 3 + cos 3",
            total,
            [1 + mpmath.sin(3) + mpmath.cos(3)] * 2,
            tol=1e-15,
            scope=scope,
        )
    rec.quantity("sin_three", float(b_[5, 2]), show=Show(decimals=3), by=sine)
    rec.quantity("cos_three", float(d_[5, 2]), show=Show(decimals=3), by=cosine)
    rec.quantity("check_score", total[0], show=Show(decimals=3), by=answer)


def _witness_terms(length: int, *, v: np.ndarray) -> tuple[np.ndarray, ...]:
    """The library's four terms at d = h = 2: identity projections, u = 0, E_i = E_j = e_0.

    posenc.figures.txl.txl_terms on ``length`` tokens of content e_0 with R the
    table posenc.sinusoidal(length, 2) (one pair, speed 1): 4 x (L, L).
    """
    eye = np.eye(2)  # (2, 2)
    parts = {
        "E": np.tile([1.0, 0.0], (length, 1)),  # (L, 2): every token's content is e_0
        "W_q": eye,
        "W_kE": eye,
        "W_kR": eye,
        "u": np.zeros(2),  # (2,)
        "v": v,  # (2,)
        "R": posenc.sinusoidal(length, 2),  # (L, 2): row k is R_k = (sin k, cos k)
    }
    return txl.txl_terms(parts)


def _bias_derivatives(width: int, head: int) -> tuple[str, sp.Matrix]:
    """(label, [d((c) + (d)) / d(E_i)_a for every a]), the derivatives left to the kit."""
    e_i, e_j = matrix("e", width, 1), matrix("f", width, 1)
    w_ke, w_kr = matrix("KE", head, width), matrix("KR", head, width)
    u, v = matrix("u", head, 1), matrix("v", head, 1)
    code = offset_code(i, j).col_join(offset_code(i, j, sp.Symbol("w_1", positive=True)))
    code = code[:width, :]
    biases = (u.T * w_ke * e_j)[0, 0] + (v.T * w_kr * code)[0, 0]
    return f"d = {width}, h = {head}", sp.Matrix([sp.Derivative(biases, x) for x in e_i])


# -- misreadings -------------------------------------------------------------------

# The witnesses use d = h = 2, identity projections, u = v = 0 (unless said)
# and the code of one pair at speed 1: R_k = (sin k, cos k).
_E0 = sp.Matrix([1, 0])


def _pe(p: int) -> sp.Matrix:
    return sp.Matrix([sp.sin(p), sp.cos(p)])


def _absolute(p: int, q: int) -> sp.Expr:
    return ((_E0 + _pe(p)).T * (_E0 + _pe(q)))[0, 0]


def _txl(p: int, q: int, u: sp.Matrix | None = None, v: sp.Matrix | None = None) -> sp.Expr:
    u = sp.zeros(2, 1) if u is None else u
    v = sp.zeros(2, 1) if v is None else v
    r = _pe(p - q)
    return (_E0.T * _E0 + _E0.T * r + u.T * _E0 + v.T * r)[0, 0]


def _r_is_learned(wit: Witness) -> None:
    # A learned R would be a free table, one vector per offset. The table the
    # score uses is computed from the offset alone: posenc.sinusoidal's row k
    # equals (sin k w_t, cos k w_t) to float64 rounding, for every offset of a
    # 1024-row table, before any training.
    table = posenc.sinusoidal(1024, 4)  # (1024, 4)
    with mpmath.workdps(30):
        largest = max(
            abs(float(table[k, 2 * t + f] - fn(k * mpmath.power(10000, mpmath.mpf(-2 * t) / 4))))
            for k in range(1024)
            for t in range(2)
            for f, fn in ((0, mpmath.sin), (1, mpmath.cos))
        )
    wit.exact(
        largest <= 2e-13,
        at=f"posenc.sinusoidal(1024, 4): every row k is (sin k w_t, cos k w_t) "
        f"(largest deviation {largest:.1e} against mpmath), fixed before training; "
        "R_3 = (sin 3, cos 3, ...)",
    )


def _positions_dropped(wit: Witness) -> None:
    # If the position terms were dropped, the score would be (a) alone,
    # E_i^T W_q^T W_kE E_j = 1 here. Transformer-XL's is 1 + sin 1 at (1, 0).
    wit.differs(
        _txl(1, 0),
        (_E0.T * _E0)[0, 0],
        at="d = h = 2, identity projections, u = v = 0, E_i = E_j = e_0, (i, j) = (1, 0)",
        margin=sp.Rational(1, 2),
        by="a half; dropping the terms would leave a difference of 0",
    )


def _same_as_absolute(wit: Witness) -> None:
    # Proposition 11's score with U = PE moves under a shift; by step 4
    # Transformer-XL's does not, so the two are different functions.
    wit.differs(
        _absolute(2, 1),
        _absolute(1, 0),
        at="d = 2, W_q = W_k = I, E_i = E_j = e_0, U = PE (w = 1), (i, j) = (2, 1) against "
        "(1, 0); Transformer-XL's score is 1 + sin 1 at both",
        margin=sp.Rational(1, 2),
        by="a half; a score of i - j alone would leave a difference of 0",
    )


def _per_position_biases(wit: Witness) -> None:
    # Per-position biases u_i, v_i would make (c) change from query to query.
    # In the figure's example the eight queries differ in content and position,
    # and (c) is bit for bit the same down every column, (d) along every
    # diagonal; the query position term W_q U_i of Proposition 11, with
    # W_q = I and U = PE, differs between queries 3 and 8 (PE(3) != PE(8)).
    terms = txl.txl_terms(txl.example(**FIGURE, seed=SEED))  # 4 x (L, L)
    length = terms[2].shape[0]
    unequal = sum(
        int(np.count_nonzero(terms[2][k:, k] != terms[2][k, k]))
        + int(np.count_nonzero(np.diagonal(terms[3], -k) != terms[3][k, 0]))
        for k in range(length)
    )
    # The largest entry of PE(3) - PE(8) is the first, sin 3 - sin 8 (the
    # second is cos 3 - cos 8 = -0.844).
    moved = max(abs(x) for x in (_pe(3) - _pe(8)).evalf(30))
    first = abs(sp.sin(3) - sp.sin(8))
    wit.exact(
        unequal == 0 and abs(moved - first) < sp.Float("1e-25") and moved > sp.Rational(1, 2),
        at=f"the figure's example (L = {FIGURE['length']}, d = {FIGURE['width']}, "
        f"h = {FIGURE['head']}, seed {SEED}): {unequal} cells of (c) or (d) "
        f"differ from their column's or diagonal's first; W_q U_i = PE(3) and PE(8) differ "
        f"by {sp.N(moved, 3)} = |sin 3 - sin 8| in one entry",
    )


MISREADINGS = [
    Misreading(
        "R is learned: a free vector for each offset",
        _r_is_learned,
        why="R_(i-j) is the sinusoidal code of the offset, computed by formula; the learned "
        "position parameters are W_kR and v.",
    ),
    Misreading(
        "Transformer-XL's score is the absolute score with the position terms dropped",
        _positions_dropped,
        why="Terms (b) and (d) carry position, through R_(i-j): only the absolute U_i and U_j "
        "are gone.",
    ),
    Misreading(
        "Transformer-XL's four terms are Proposition 11's four terms, renamed",
        _same_as_absolute,
        why="Proposition 11's score with sinusoidal U moves under a shift of both positions; "
        "Transformer-XL's depends on i - j alone.",
    ),
    Misreading(
        "u and v are per-position, one pair for each query position",
        _per_position_biases,
        why="u and v are global: the same for every query, so (c) is the same down every "
        "column and (d) along every diagonal.",
    ),
]
