"""Proposition 23 (adjacent and split-half rotary are one model after a per-head permutation).

Rotary embeddings pair the d coordinates of a head either as (2i, 2i+1), the
adjacent layout of RoFormer, Meta's Llama code and GPT-J, or as (i, i + d/2),
the split-half layout of Hugging Face's rotate_half and GPT-NeoX. Let
p = posenc.rotary.pairing_permutation(d), p_(2i) = i and p_(2i+1) = i + d/2,
and let P be its permutation matrix, P e_j = e_(p_j): P moves adjacent
coordinate j to split-half place p_j, so (P y)_r = y_(q_r) with q = p^(-1)
(the even coordinates, then the odd ones). Then R_half(m) = P R_adj(m) P^T
for every position m. A head whose query and key projections have their
output rows permuted, W_q' = P W_q and W_k' = P W_k (per head: the
block-diagonal I_H (x) P over the H query heads, I_(H_kv) (x) P over the key
heads), computes under the split-half pairing the same rotated queries and
keys, relabelled by P, and exactly the same scores as the original head under
the adjacent pairing; W_v and W_o are not touched, so the layer's outputs are
the same too. P^T = P^(-1) converts back. Without the permutation the same
weights give different scores (they agree only when query and key share a
position); permuting only W_q, or W_v as well, or the keys of grouped-query
attention in blocks of the query head count, breaks the equality.

Uses: 12.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from posenc.attention import attention, softmax
from posenc.rotary import pairing_permutation, rotary, rotary_matrix
from proofs.exact import minus, product
from proofs.kit import Misreading, Recorder, Witness, substitute

NUMBER = 23
TITLE = "Adjacent and split-half rotary are one model after a per-head permutation of W_q and W_k"
USES = (12,)

# The numbers this proposition chooses: the paper's base, the width of the page's
# permutation and figure, the head width of Llama models (where the order of the
# permutation is stated), the largest width of the exact permutation checks, and the
# number of random models of the float64 check and their largest head width.
INPUTS = {
    "base": 10000,
    "figure_width": 8,
    "llama_head_dim": 128,
    "max_width": 512,
    "models": 100,
    "float_width": 256,
}

# Symbols, declared once: positions are real numbers, the base is positive.
m, n = sp.symbols("m n", real=True)
base = sp.Symbol("base", positive=True)
WIDTHS = (2, 4, 6, 8)
SANDWICH_WIDTHS = (2, 4, 6, 8, 10, 12)
MODEL_WIDTH = 3  # d_model of the symbolic projections


def turn(angle: sp.Expr) -> sp.Matrix:
    """The anticlockwise rotation of one pair (a, b) by ``angle``."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def pair_places(width: int, pairing: str) -> list[tuple[int, int]]:
    """The two coordinates of each pair: (2i, 2i+1) adjacent, (i, i + d/2) split halves."""
    half = width // 2
    if pairing == "adjacent":
        return [(2 * i, 2 * i + 1) for i in range(half)]
    return [(i, i + half) for i in range(half)]


def rotation(p: sp.Expr, width: int, pairing: str) -> sp.Matrix:
    """R(p): pair i turned by p w_i, w_i = base^(-2i/d), in the given layout."""
    matrix = sp.zeros(width, width)
    for i, (one, two) in enumerate(pair_places(width, pairing)):
        block = turn(p * base ** (-2 * sp.Integer(i) / width))
        for r, row in enumerate((one, two)):
            for c, col in enumerate((one, two)):
                matrix[row, col] = block[r, c]
    return matrix


def places(width: int) -> list[int]:
    """p_j, the split-half place of adjacent coordinate j: p_(2i) = i, p_(2i+1) = i + d/2.

    Built from the two layouts: the first member of adjacent pair i goes to the
    first member of split-half pair i, the second to the second.
    """
    target = [0] * width
    for (a1, a2), (h1, h2) in zip(
        pair_places(width, "adjacent"), pair_places(width, "half"), strict=True
    ):
        target[a1], target[a2] = h1, h2
    return target


def move(width: int) -> sp.Matrix:
    """P with P e_j = e_(p_j): an adjacent-layout vector in, its split-half layout out."""
    matrix = sp.zeros(width, width)
    for j, place in enumerate(places(width)):
        matrix[place, j] = 1
    return matrix


def heads(block: sp.Matrix, count: int) -> sp.Matrix:
    """I_count (x) block: the same permutation in every head."""
    return sp.diag(*([block] * count))


def symbols(name: str, rows: int, cols: int) -> sp.Matrix:
    """A rows x cols matrix of real symbols name_r_c."""
    return sp.Matrix(rows, cols, lambda r, c: sp.Symbol(f"{name}_{r}_{c}", real=True))


def vector(name: str, size: int) -> sp.Matrix:
    """A column of real symbols name_0 .. name_(size-1)."""
    return sp.Matrix(sp.symbols(f"{name}_0:{size}", real=True))


def score(q: sp.Matrix, k: sp.Matrix, width: int, pairing: str) -> sp.Expr:
    """<R(m) q, R(n) k>: a query at position m against a key at position n."""
    return ((rotation(m, width, pairing) * q).T * (rotation(n, width, pairing) * k))[0, 0]


def moved_score(q: sp.Matrix, k: sp.Matrix, width: int) -> sp.Expr:
    """The split-half score of the rotated q and k, every product unevaluated."""
    turned_q = product(rotation(m, width, "half"), q)
    turned_k = product(rotation(n, width, "half"), k)
    return product(turned_q.T, turned_k)[0, 0]


def difference(lhs: sp.Expr, rhs: sp.Expr) -> sp.Expr:
    """lhs - rhs, kept unevaluated, so that equal sides do not cancel as written."""
    return sp.Add(lhs, sp.Mul(-1, rhs, evaluate=False), evaluate=False)


def checks(rec: Recorder) -> None:
    # Step 1. The permutation. P puts 1 at (p_j, j): column j is e_(p_j), so P
    # moves coordinate j of an adjacent-layout vector to place p_j. It is a
    # permutation matrix, hence orthogonal: P P^T = P^T P = I, and P^T undoes P.
    # The products are written out unevaluated (proofs.exact.product): SymPy would
    # otherwise multiply out the 0s and 1s while building them.
    rec.instances(
        "P P^T = I and P^T P = I",
        (
            (f"d = {d}, {name}", minus(product(a, b), sp.eye(d)))
            for d in range(2, 17, 2)
            for name, a, b in (("P P^T", move(d), move(d).T), ("P^T P", move(d).T, move(d)))
        ),
        scope="every even d from 2 to 16; the products evaluated by the kit",
    )

    # Step 2. The two rotary matrices. Conjugating by P puts the block of
    # adjacent pair i (rows and columns 2i, 2i+1) at rows and columns
    # (p_(2i), p_(2i+1)) = (i, i + d/2), which is where the split-half layout
    # keeps pair i, turned by the same angle m w_i.
    rec.instances(
        "R_half(m) = P R_adj(m) P^T",
        (
            (
                f"d = {d}",
                minus(
                    rotation(m, d, "half"),
                    product(product(move(d), rotation(m, d, "adjacent")), move(d).T),
                ),
            )
            for d in SANDWICH_WIDTHS
        ),
        scope="d = 2, 4, ..., 12; symbolic position m and base; products evaluated by the kit",
    )
    # The R(m) of these identities is RoPE's: at base 10000 it is posenc's
    # rotary_matrix (correctly rounded entries), in both layouts, entry by entry.
    rec.numeric(
        "the symbolic R_adj(m) and R_half(m) are posenc.rotary_matrix(m, d) at base 10000",
        np.concatenate(
            [
                (
                    np.array(
                        rotation(sp.Integer(p), d, pairing).subs(base, INPUTS["base"]).evalf(30),
                        dtype=np.float64,
                    )
                    - rotary_matrix(p, d, base=INPUTS["base"], pairing=library)
                ).ravel()
                for d in (2, 8, 16)
                for p in (1, 4095)
                for pairing, library in (("adjacent", "interleaved"), ("half", "half"))
            ]
        ),
        tol=1e-15,
        scope="d = 2, 8, 16; m = 1, 4095; both pairings; 30-digit SymPy against float64 entries",
    )

    # Step 3. The rotated vectors. By steps 1 and 2, R_half(m) P q = P R_adj(m) q:
    # the split-half model turns the relabelled query into the relabelled turned
    # query (and the same for keys, so a key cache is relabelled, not changed).
    rec.instances(
        "R_half(m) (P q) = P (R_adj(m) q)",
        (
            (
                f"d = {d}",
                minus(
                    product(rotation(m, d, "half"), product(move(d), vector("q", d))),
                    product(move(d), product(rotation(m, d, "adjacent"), vector("q", d))),
                ),
            )
            for d in WIDTHS
        ),
        scope="d = 2, 4, 6, 8; symbolic q, m and base; products evaluated by the kit",
    )

    # Step 4. One head. Queries and keys come from tokens by W_q and W_k (d x
    # d_model) and biases b_q, b_k; the converted head has W_q' = P W_q,
    # W_k' = P W_k, b_q' = P b_q, b_k' = P b_k and the split-half pairing. Its
    # score of token x at position m against token y at position n is the
    # original head's score under the adjacent pairing.
    rec.instances(
        "<R_half(m) P (W_q x + b_q), R_half(n) P (W_k y + b_k)> = the adjacent score",
        ((f"d = {d}", _one_head(d)) for d in WIDTHS),
        scope="d = 2, 4, 6, 8, d_model = 3; symbolic W_q, W_k, b_q, b_k, x, y, m, n and base",
    )

    # Step 5. Several heads, and grouped-query attention. The rows of W_q are H
    # heads of d rows; those of W_k are H_kv heads, and query head h reads key
    # head h // (H / H_kv). The conversion is I_H (x) P on the query rows and
    # I_(H_kv) (x) P on the key rows: P inside every head, the heads in place.
    rec.instances(
        "every query head's scores are unchanged by (I_H (x) P) W_q, (I_Hkv (x) P) W_k",
        (
            (f"H = {h}, H_kv = {g}, d = {d}, head {t}", _grouped(h, g, d, t))
            for h, g, d in ((2, 2, 4), (2, 1, 4), (4, 2, 2), (2, 1, 6))
            for t in range(h)
        ),
        scope="(H, H_kv, d) in {(2, 2, 4), (2, 1, 4), (4, 2, 2), (2, 1, 6)}, d_model = 3, "
        "each query head; symbolic weights, tokens, m, n and base",
    )

    # Step 6. Why the wrong pairing goes unnoticed on the diagonal: with query
    # and key at the same position, both pairings give <q, k>, because each R(m)
    # is orthogonal. The two layouts differ only when m != n.
    rec.instances(
        "<R(m) q, R(m) k> = <q, k> under both pairings",
        (
            (
                f"d = {d}, {pairing}",
                difference(
                    score(vector("q", d), vector("k", d), d, pairing).subs(n, m),
                    (vector("q", d).T * vector("k", d))[0, 0],
                ).rewrite(sp.exp),
            )
            for d in WIDTHS
            for pairing in ("adjacent", "half")
        ),
        scope="d = 2, 4, 6, 8, both pairings; symbolic q, k, m and base",
    )

    # Step 7. The library's permutation. posenc.rotary.pairing_permutation(d) is
    # p, for every even width up to 512 and for 4096; np.argsort of it is
    # q = p^(-1), read off the rows of P: the even coordinates, then the odd ones.
    wrong, compared = 0, 0
    widths = (*range(2, INPUTS["max_width"] + 1, 2), 4096)
    for d in widths:
        got = pairing_permutation(d).tolist()
        pairs = list(zip(got, places(d), strict=True))
        inverse = np.argsort(pairing_permutation(d)).tolist()
        evens_odds = [*range(0, d, 2), *range(1, d, 2)]
        pairs += list(zip(inverse, evens_odds, strict=True))
        wrong += sum(int(a != b) for a, b in pairs)
        compared += len(pairs)
    # Every index of both lists at every width was compared: 2 d for each d, that is
    # 2 (2 + 4 + ... + 512 + 4096) = 2 (256 x 257 + 4096), from the sum 2 + ... + 2k = k (k + 1).
    top = INPUTS["max_width"] // 2
    rec.exact(
        "pairing_permutation and its argsort compared at every index of every width",
        compared,
        2 * (top * (top + 1) + 4096),
        scope="every even d from 2 to 512, and d = 4096; indices compared against 2 (k (k + 1) "
        "+ 4096), k = 256",
    )
    rec.exact(
        "pairing_permutation(d) = p and argsort(p) = (0, 2, ..., d-2, 1, 3, ..., d-1)",
        wrong,
        0,
        scope="every even d from 2 to 512, and d = 4096; count of wrong indices",
    )
    # The page shows p and q at d = 8, entry by entry: each entry read off P is
    # compared with the library's, and becomes the quantity the page names.
    width = INPUTS["figure_width"]
    shown = move(width)
    forward = [int(next(r for r in range(width) if shown[r, j])) for j in range(width)]
    backward = [int(next(j for j in range(width) if shown[r, j])) for r in range(width)]
    library_p = pairing_permutation(width).tolist()
    library_q = np.argsort(pairing_permutation(width)).tolist()
    for j in range(width):
        rec.exact(
            f"d = {width}: p_{j}, the row of the 1 in column {j} of P, is "
            f"pairing_permutation({width})[{j}]",
            forward[j],
            library_p[j],
            scope=f"d = {width}, column {j} of P against posenc's p; integers",
            quantity=f"p_{j}",
        )
    for r in range(width):
        rec.exact(
            f"d = {width}: q_{r}, the column of the 1 in row {r} of P, is "
            f"argsort(pairing_permutation({width}))[{r}]",
            backward[r],
            library_q[r],
            scope=f"d = {width}, row {r} of P against posenc's argsort(p); integers",
            quantity=f"q_{r}",
        )

    # Step 8. The library's rotation, relabelled, bit for bit: rotary with the
    # split-half pairing on P x is P applied to the adjacent rotation of x (the same
    # cosines, sines and operations on relabelled coordinates), and
    # rotary_matrix(m, d, "half") is P R_adj P^T, entry by entry.
    rng = np.random.default_rng(23)
    unequal, entries, farthest, largest = 0, 0, 0, 0
    for d in (2, 8, 64, 128, 256):
        perm = pairing_permutation(d)  # (d,): x_adj = x_half[perm]
        q_idx = np.argsort(perm)  # (d,): (P y) = y[q_idx]
        x = rng.normal(size=(3, 17, d))  # (3, L, d)
        where = rng.integers(0, 2**40, size=17)  # (L,)
        half = rotary(x[..., q_idx], where, pairing="half")  # (3, L, d)
        adjacent = rotary(x, where, pairing="interleaved")[..., q_idx]  # (3, L, d)
        unequal += int(np.count_nonzero(half != adjacent))
        farthest = max(farthest, int(where.max()))
        for p in (1, 4095, 2**31 + 5):
            largest = max(largest, p)
            matrix = rotary_matrix(p, d, pairing="interleaved")[np.ix_(q_idx, q_idx)]  # (d, d)
            unequal += int(np.count_nonzero(rotary_matrix(p, d, pairing="half") != matrix))
            entries += matrix.size
        entries += half.size
    rec.exact(
        "posenc: rotary(P x, 'half') = P rotary(x, 'interleaved') and "
        "rotary_matrix(m, 'half') = P R P^T, bit for bit",
        unequal,
        0,
        scope=f"d in {{2, 8, 64, 128, 256}}, 3 x 17 random rows, positions below 2^40, "
        f"matrices at m = 1, 4095, 2^31 + 5; count of unequal float64 entries out of {entries}",
    )
    # The entries compared: 3 x 17 rows of d and three d x d matrices at each width,
    # 51 (2 + 8 + 64 + 128 + 256) + 3 (4 + 64 + 4096 + 16384 + 65536) = 23358 + 258252.
    rec.exact(
        "posenc: every entry of the rows and matrices above was compared",
        entries,
        281610,
        scope="d in {2, 8, 64, 128, 256}: 51 d entries of rows and 3 d^2 of matrices per width",
    )
    # The positions reach the ranges named: rows beyond 2^39 = 549755813888, and a
    # matrix beyond 2^31 = 2147483648, where a 32-bit integer position would overflow.
    rec.exact(
        "posenc: the rows compared include positions above 2^39",
        farthest,
        549755813888,
        relation=">",
        scope="the largest of the 5 x 17 random positions below 2^40",
    )
    rec.exact(
        "posenc: a matrix compared is at a position above 2^31",
        largest,
        2147483648,
        relation=">",
        scope="the largest of the matrix positions 1, 4095, 2^31 + 5",
    )

    # Step 9. The converted model in float64, through posenc. Random models: head
    # width d, H query heads and H_kv key heads, W_q, W_k, W_v, W_o, tokens and
    # positions. Original: adjacent pairing. Converted: the rows of W_q, W_k
    # permuted per head, split-half pairing, W_v and W_o as they were. Scores,
    # then softmax and the layer output, compared.
    score_errors, output_errors, size_errors, layer_errors, widest, farthest = _float64_models(
        INPUTS["models"]
    )
    rec.numeric(
        "posenc in float64: the converted model's scores equal the original's",
        score_errors,
        tol=1e-13,
        scope=f"{INPUTS['models']} random models: even d from 2 to 256, H_kv in {{1, 2, 4}}, "
        "H = H_kv, 2 H_kv or 4 H_kv, d_model 4..64, 2..16 tokens at positions below 2^20; "
        "each |difference| / (|q| |k|); tolerance above two sums of d products in float64",
    )
    rec.numeric(
        "posenc in float64: the converted layer's outputs equal the original's",
        output_errors,
        tol=1e-12,
        scope=f"the same {INPUTS['models']} models: softmax(scores / sqrt d) V W_o^T, "
        "each model's largest |difference| over its largest |output|",
    )
    # The two references of the comparison above, each against another route: the
    # scale |q| |k| of each score is |W_q x| |W_k y| (rotary turns pairs, keeping norms),
    # and the layer's output is posenc.attention's softmax(q k^T / sqrt d) v per head.
    rec.numeric(
        "the scale |q| |k| of each relative score error is |W_q x| |W_k y| of the unrotated rows",
        size_errors,
        tol=1e-13,
        scope=f"the same {INPUTS['models']} models, original layer; each relative difference",
    )
    rec.numeric(
        "the float64 layer is posenc.attention head by head, then W_o",
        layer_errors,
        tol=1e-12,
        scope=f"the same {INPUTS['models']} models, original layer; each model's largest "
        "|difference| over its largest |output|",
    )
    # The sample covers what the page names: head widths up to 256, positions up to
    # 2^20 (the largest drawn above 2^19 = 524288).
    rec.exact(
        "the random models include the head width 256",
        widest,
        INPUTS["float_width"],
        scope=f"the largest head width of the {INPUTS['models']} models",
    )
    rec.exact(
        "the random models include positions above 2^19",
        farthest,
        524288,
        relation=">",
        scope=f"the largest position of the {INPUTS['models']} models, drawn below 2^20",
    )

    # Step 10. Where float64 agrees bit for bit. The projection of each row and
    # each score is a sum; summed in another order, float64 can round differently.
    # With correctly rounded sums (math.fsum), which do not depend on the order,
    # the converted model's scores are the original's, to the last bit.
    unequal, count, float_errors = 0, 0, []
    for d, h, g in ((2, 1, 1), (8, 2, 1), (16, 4, 2), (64, 2, 2)):
        original, converted, plain, sizes = _fsum_scores(rng, d, h, g)
        unequal += int(np.count_nonzero(original != converted))
        count += original.size
        float_errors.append(((original - plain) / sizes).ravel())
    rec.exact(
        "with correctly rounded sums the converted scores are bit-identical",
        unequal,
        0,
        scope=f"(d, H, H_kv) in {{(2, 1, 1), (8, 2, 1), (16, 4, 2), (64, 2, 2)}}, d_model 6, "
        f"5 tokens; projections and scores by math.fsum; unequal out of {count} scores",
    )
    # (1 + 2 + 4 + 2) query heads, each 5 x 5 scores.
    rec.exact(
        "with correctly rounded sums: every score of the four layers was compared",
        count,
        225,
        scope="(1 + 2 + 4 + 2) query heads x 5 x 5 scores",
    )
    rec.numeric(
        "the correctly rounded scores are the float64 layer's scores (step 9's), to rounding",
        np.concatenate(float_errors),
        tol=1e-13,
        scope="the four layers above, original pairing; each |difference| / (|q| |k|)",
    )

    # Step 11. Converting back. P^T = P^(-1) (step 1) takes split-half weights to
    # the adjacent layout. Applying P again does not: as a map on places, p^(-1)
    # doubles modulo d - 1 (q_r = 2r for r < d/2, 2r - (d - 1) above, the last
    # place fixed), so P^k = I exactly when 2^k = 1 modulo d - 1. The order of P is
    # the multiplicative order of 2 modulo d - 1, and P is its own inverse only for
    # d = 2 and d = 4.
    orders = {d: _order(places(d)) for d in range(2, INPUTS["max_width"] + 1, 2)}
    rec.exact(
        "the orders below are counted at every even width up to 512",
        len(orders),
        INPUTS["max_width"] // 2,
        scope="even d from 2 to 512: 256 widths",
    )
    mismatched = sum(int(k != _multiplicative_order(2, d - 1)) for d, k in orders.items())
    rec.exact(
        "the order of p is the multiplicative order of 2 modulo d - 1",
        mismatched,
        0,
        scope="every even d from 2 to 512; cycles of p counted in integers; widths that differ",
    )
    involutions = [d for d, k in orders.items() if k <= 2]
    rec.exact(
        "p is its own inverse only for d = 2 and d = 4",
        int(involutions == [2, 4]),
        1,
        scope=f"every even d from 2 to 512; the widths found: {involutions}",
    )
    rec.exact(
        "at d = 8, P^3 = I and no smaller power is",
        _order(places(width)),
        3,
        scope="d = 8, cycles of p",
        quantity="order_8",
    )
    llama = INPUTS["llama_head_dim"]
    rec.exact(
        "at d = 128, P^7 = I and no smaller power is (2^7 = 128 = 1 + 127)",
        _order(places(llama)),
        7,
        scope="d = 128, cycles of p",
        quantity="order_128",
    )


# -- the symbolic heads ---------------------------------------------------------------


def _one_head(width: int) -> sp.Expr:
    """score_half(P W_q x + P b_q, P W_k y + P b_k) - score_adj(W_q x + b_q, W_k y + b_k).

    The projections carry biases (Qwen2's query and key projections have them):
    the converted head permutes them with the rows. Products are unevaluated.
    """
    w_q, w_k = symbols("wq", width, MODEL_WIDTH), symbols("wk", width, MODEL_WIDTH)
    b_q, b_k = vector("bq", width), vector("bk", width)
    x, y = vector("x", MODEL_WIDTH), vector("y", MODEL_WIDTH)
    q = product(product(move(width), w_q), x) + product(move(width), b_q)
    k = product(product(move(width), w_k), y) + product(move(width), b_k)
    original = score(w_q * x + b_q, w_k * y + b_k, width, "adjacent")
    return difference(moved_score(q, k, width), original)


def _grouped(heads_q: int, heads_k: int, width: int, head: int) -> sp.Expr:
    """Query head ``head`` against its key head: converted minus original score."""
    w_q = symbols("wq", heads_q * width, MODEL_WIDTH)
    w_k = symbols("wk", heads_k * width, MODEL_WIDTH)
    x, y = vector("x", MODEL_WIDTH), vector("y", MODEL_WIDTH)
    moved_q = product(product(heads(move(width), heads_q), w_q), x)  # (H d, 1)
    moved_k = product(product(heads(move(width), heads_k), w_k), y)  # (H_kv d, 1)
    reads = head // (heads_q // heads_k)  # the key head of this query head
    rows_q = slice(head * width, (head + 1) * width)
    rows_k = slice(reads * width, (reads + 1) * width)
    converted = moved_score(moved_q[rows_q, :], moved_k[rows_k, :], width)
    original = score((w_q * x)[rows_q, :], (w_k * y)[rows_k, :], width, "adjacent")
    return difference(converted, original)


# -- float64 models -------------------------------------------------------------------


def _head_rows(width: int, count: int) -> np.ndarray:
    """Row indices of (I_count (x) P) W: P's rows q = argsort(p) inside every head."""
    inside = np.argsort(pairing_permutation(width))  # (d,)
    return np.concatenate([h * width + inside for h in range(count)])  # (count d,)


def _layer(tokens, positions, w_q, w_k, w_v, w_o, width, h, g, pairing):
    """Scores (H, L, L), |q| |k| (H, L, L) and output (L, d_model) of one rotary layer."""
    length = tokens.shape[0]
    q = (tokens @ w_q.T).reshape(length, h, width).transpose(1, 0, 2)  # (H, L, d)
    k = (tokens @ w_k.T).reshape(length, g, width).transpose(1, 0, 2)  # (H_kv, L, d)
    v = (tokens @ w_v.T).reshape(length, g, width).transpose(1, 0, 2)  # (H_kv, L, d)
    q, k = rotary(q, positions, pairing=pairing), rotary(k, positions, pairing=pairing)
    reads = [t // (h // g) for t in range(h)]  # the key head of each query head
    scores = np.stack([q[t] @ k[reads[t]].T for t in range(h)])  # (H, L, L)
    sizes = np.linalg.norm(q, axis=-1)[:, :, None] * np.linalg.norm(k, axis=-1)[reads][:, None]
    weights = softmax(scores / math.sqrt(width))  # (H, L, L)
    mixed = np.stack([weights[t] @ v[reads[t]] for t in range(h)])  # (H, L, d)
    return scores, sizes, mixed.transpose(1, 0, 2).reshape(length, h * width) @ w_o.T


def _float64_models(count: int) -> tuple:
    """Relative score errors (every score) and output errors (one per model); the errors
    of |q| |k| and of the output against their references; the largest width and position."""
    score_errors, output_errors, size_errors, layer_errors = [], [], [], []
    widest, farthest = 0, 0
    for seed in range(count):
        rng = np.random.default_rng([NUMBER, seed])
        width = 2 * int(rng.integers(1, INPUTS["float_width"] // 2 + 1))
        g = int(rng.choice([1, 2, 4]))
        h = g * int(rng.choice([1, 2, 4]))
        model, length = int(rng.integers(4, 65)), int(rng.integers(2, 17))
        positions = np.sort(rng.integers(0, 2**20, size=length))  # (L,)
        widest, farthest = max(widest, width), max(farthest, int(positions[-1]))
        tokens = rng.normal(size=(length, model))  # (L, d_model)
        w_q = rng.normal(size=(h * width, model)) / math.sqrt(model)  # (H d, d_model)
        w_k = rng.normal(size=(g * width, model)) / math.sqrt(model)  # (H_kv d, d_model)
        w_v = rng.normal(size=(g * width, model))  # (H_kv d, d_model)
        w_o = rng.normal(size=(model, h * width))  # (d_model, H d)
        before, sizes, out = _layer(
            tokens, positions, w_q, w_k, w_v, w_o, width, h, g, "interleaved"
        )
        after, _, out_after = _layer(
            tokens,
            positions,
            w_q[_head_rows(width, h)],
            w_k[_head_rows(width, g)],
            w_v,
            w_o,
            width,
            h,
            g,
            "half",
        )
        score_errors.append(((after - before) / sizes).ravel())
        output_errors.append(np.max(np.abs(out_after - out)) / np.max(np.abs(out)))
        norm_q = np.linalg.norm((tokens @ w_q.T).reshape(length, h, width), axis=-1).T  # (H, L)
        norm_k = np.linalg.norm((tokens @ w_k.T).reshape(length, g, width), axis=-1).T  # (H_kv, L)
        unrotated = norm_q[:, :, None] * norm_k[[t // (h // g) for t in range(h)]][:, None]
        size_errors.append(((sizes - unrotated) / unrotated).ravel())
        reference = _attention_layer(tokens, positions, w_q, w_k, w_v, w_o, width, h, g)
        layer_errors.append(np.max(np.abs(reference - out)) / np.max(np.abs(out)))
    return (
        np.concatenate(score_errors),
        np.array(output_errors),
        np.concatenate(size_errors),
        np.array(layer_errors),
        widest,
        farthest,
    )


def _attention_layer(tokens, positions, w_q, w_k, w_v, w_o, width, h, g):
    """The adjacent layer's output (L, d_model) through posenc.attention, one head at a time.

    Each head is attention(X, Wq, Wk, Wv) with X = [q | k | v] (its rotated queries,
    the rotated keys and values of its key head) and Wq, Wk, Wv the 0/1 matrices that
    pick the three blocks: softmax(q k^T / sqrt d) v, scaled and weighted by posenc.
    """
    length = tokens.shape[0]
    q = (tokens @ w_q.T).reshape(length, h, width).transpose(1, 0, 2)  # (H, L, d)
    k = (tokens @ w_k.T).reshape(length, g, width).transpose(1, 0, 2)  # (H_kv, L, d)
    q = rotary(q, positions, pairing="interleaved")  # (H, L, d)
    k = rotary(k, positions, pairing="interleaved")  # (H_kv, L, d)
    v = (tokens @ w_v.T).reshape(length, g, width).transpose(1, 0, 2)  # (H_kv, L, d)
    pick = np.eye(3 * width)  # (3 d, 3 d)
    outs = []
    for t in range(h):
        block = np.hstack([q[t], k[t // (h // g)], v[t // (h // g)]])  # (L, 3 d)
        outs.append(
            attention(block, pick[:, :width], pick[:, width : 2 * width], pick[:, 2 * width :])
        )
    return np.hstack(outs) @ w_o.T  # (L, d_model)


def _fsum_project(tokens: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """tokens @ weights.T with every entry a correctly rounded sum (math.fsum)."""
    return np.array(
        [
            [math.fsum(t * w for t, w in zip(row, col, strict=True)) for col in weights]
            for row in tokens
        ]
    )  # (L, rows of weights)


def _fsum_scores(rng, width: int, h: int, g: int) -> tuple[np.ndarray, ...]:
    """Scores (H, L, L) of a random layer, original and converted, by math.fsum; then the
    original's scores and |q| |k| (H, L, L) by _layer in plain float64."""
    model, length = 6, 5
    tokens = rng.normal(size=(length, model))  # (L, d_model)
    w_q, w_k = rng.normal(size=(h * width, model)), rng.normal(size=(g * width, model))
    positions = rng.integers(0, 2**20, size=length)  # (L,)

    def scores(wq, wk, pairing):
        q = _fsum_project(tokens, wq).reshape(length, h, width).transpose(1, 0, 2)
        k = _fsum_project(tokens, wk).reshape(length, g, width).transpose(1, 0, 2)
        q, k = rotary(q, positions, pairing=pairing), rotary(k, positions, pairing=pairing)
        return np.array(
            [
                [
                    [math.fsum(q[t, a] * k[t // (h // g), b]) for b in range(length)]
                    for a in range(length)
                ]
                for t in range(h)
            ]
        )  # (H, L, L)

    original = scores(w_q, w_k, "interleaved")
    converted = scores(w_q[_head_rows(width, h)], w_k[_head_rows(width, g)], "half")
    # The same layer in plain float64 (step 9's _layer, W_v = W_k and a zero W_o, unused).
    plain, sizes, _ = _layer(
        tokens, positions, w_q, w_k, w_k, np.zeros((1, h * width)), width, h, g, "interleaved"
    )
    return original, converted, plain, sizes


# -- the order of the permutation -------------------------------------------------------


def _order(perm: list[int]) -> int:
    """The least k >= 1 with perm^k = identity: the lcm of its cycle lengths."""
    seen, order = [False] * len(perm), 1
    for start in range(len(perm)):
        length, j = 0, start
        while not seen[j]:
            seen[j], j, length = True, perm[j], length + 1
        if length:
            order = order * length // math.gcd(order, length)
    return order


def _multiplicative_order(a: int, modulus: int) -> int:
    """The least k >= 1 with a^k = 1 modulo ``modulus`` (1 for modulus 1)."""
    if modulus == 1:
        return 1
    k, power = 1, a % modulus
    while power != 1:
        k, power = k + 1, power * a % modulus
    return k


# -- misreadings -------------------------------------------------------------------

E8 = sp.eye(8)

# Every vector below is a unit vector, so a correct claim leaves a difference of
# exactly 0 and each score is at most 1 in size. Half of that is far above any
# rounding at 50 digits and below each difference found.
MARGIN = sp.Rational(1, 2)
BY = "half the length 1 of the unit vectors involved"
AT_ZERO = {m: 0, n: 0, base: INPUTS["base"]}


def _same_model(wit: Witness) -> None:
    # The same q and k (the same weights, unpermuted), one position apart, under
    # the two pairings. e_0 and e_1 form pair 0 in the adjacent layout; in the
    # split-half layout e_1 belongs to pair 1, with coordinate 5.
    point = {m: 0, n: 1, base: INPUTS["base"]}
    wit.differs(
        substitute(score(E8[:, 0], E8[:, 1], 8, "adjacent"), point),
        substitute(score(E8[:, 0], E8[:, 1], 8, "half"), point),
        at="d = 8, base 10000, q = e_0 at m = 0, k = e_1 at n = 1",
        margin=MARGIN,
        by=BY,
    )


def _only_queries(wit: Witness) -> None:
    # W_q' = P W_q, W_k' = W_k: the query moves to the split-half places, the key
    # stays in the adjacent ones. Take W_q = W_k = I and the token e_1 at m = n = 0.
    wit.differs(
        substitute(score(move(8) * E8[:, 1], E8[:, 1], 8, "half"), AT_ZERO),
        substitute(score(E8[:, 1], E8[:, 1], 8, "adjacent"), AT_ZERO),
        at="d = 8, W_q = W_k = I, token e_1, m = n = 0",
        margin=MARGIN,
        by=BY,
    )


def _values_too(wit: Witness) -> None:
    # One token: its attention weight is 1 and the output is W_o W_v x. With W_v
    # permuted as well (W_o as it was) the output is W_o P W_v x.
    x = E8[:, 1]
    wit.differs(
        sp.eye(8) * move(8) * sp.eye(8) * x,
        sp.eye(8) * sp.eye(8) * x,
        at="d = 8, one token x = e_1, W_v = W_o = I, W_v' = P W_v",
        margin=MARGIN,
        by=BY,
    )


def _keys_by_query_heads(wit: Witness) -> None:
    # H = 2 query heads, H_kv = 1 key head of width 8. The keys permuted in H = 2
    # blocks of 4 rows, I_2 (x) P_4, instead of one block P_8.
    wrong = heads(move(4), 2) * E8[:, 1]
    wit.differs(
        substitute(score(move(8) * E8[:, 1], wrong, 8, "half"), AT_ZERO),
        substitute(score(E8[:, 1], E8[:, 1], 8, "adjacent"), AT_ZERO),
        at="H = 2, H_kv = 1, d = 8, W_q = W_k = I on the head, token e_1, m = n = 0",
        margin=MARGIN,
        by=BY,
    )


def _same_way_back(wit: Witness) -> None:
    # Converting back with P again: P P e_1 against e_1.
    wit.differs(
        move(8) * move(8) * E8[:, 1],
        E8[:, 1],
        at="d = 8, the adjacent row e_1 sent through P twice",
        margin=MARGIN,
        by=BY,
    )


MISREADINGS = [
    Misreading(
        "Adjacent and split-half rotary are the same model: the same weights run under either",
        _same_model,
        why="The two layouts pair different coordinates, so the same q and k get different "
        "scores once m != n; they agree only on the diagonal m = n (step 6).",
    ),
    Misreading(
        "Permuting the rows of W_q alone is enough",
        _only_queries,
        why="The score is <P q, k> = <q, P^T k>: unless the key is moved by the same P, "
        "the query meets the key in other coordinates, even at m = n.",
    ),
    Misreading(
        "W_v must be permuted like W_q and W_k",
        _values_too,
        why="Position never touches the values, so W_v and W_o stay as they are; permuting "
        "W_v (and not the columns of W_o) changes the layer's output.",
    ),
    Misreading(
        "With grouped-query attention, W_k is permuted in blocks of the query head count",
        _keys_by_query_heads,
        why="W_k has H_kv heads of d rows: its permutation is I_Hkv (x) P. Blocks of "
        "H_kv d / H rows permute within pieces of a head and scramble its pairs.",
    ),
    Misreading(
        "The conversion's permutation, applied again, converts back",
        _same_way_back,
        why="The way back is P^T = P^(-1). P is its own inverse only for d = 2 and d = 4; "
        "at d = 8 it takes three applications to return, at d = 128 seven.",
    ),
]
