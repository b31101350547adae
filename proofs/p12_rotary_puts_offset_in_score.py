"""Proposition 12 (rotary embeddings put the offset into the score).

Rotary embeddings turn pair i of a query at position m by the angle m w_i and
pair i of a key at position n by n w_i, with R(t) = [[cos t, -sin t], [sin t,
cos t]] and w_i = base^(-2i/d). Then <R(m w) q, R(n w) k> = <q, R((n - m) w) k>
on every pair, and so for the whole vector: the score depends on the positions
only through the offset n - m. The rotation is orthogonal, so |R q| = |q|:
nothing is added to the token. The interleaved pairing (2i, 2i+1) and the
split-half pairing (i, i + d/2) differ by a fixed permutation Pi, with
(Pi x)_(2i) = x_i and (Pi x)_(2i+1) = x_(i+d/2): R_half = Pi^T R_interleaved Pi.
The same q and k give different scores under the two pairings; with q and k
permuted by Pi^T they give the same scores.

Uses: 8.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc.encoding import frequencies
from posenc.figures import rotary as rotary_figure
from posenc.rotary import pairing_permutation, rotary, rotary_matrix
from proofs.exact import minus, product
from proofs.kit import Misreading, Recorder, Show, Witness, substitute

NUMBER = 12
TITLE = "Rotary embeddings put the offset into the score"
USES = (8,)

# The numbers this proposition chooses: the paper's base, the width of the
# figure's query and key (posenc.figures.rotary draws pair 1 of width 8), and
# the widest code of the symbolic checks (widths 2, 4, .., max_width).
INPUTS = {"base": 10000, "figure_width": 8, "max_width": 8}
#: What the page says the figure draws: pair 1, the query and key at (m, n) =
#: (2, 7) and moved on by 10 to (12, 17), the scores for positions 0 .. 23.
FIGURE = {"pair": 1, "m": 2, "n": 7, "shift": 10, "length": 24}

# Symbols, declared once. Positions and angles are real numbers (integers are
# the case that matters, but nothing below needs integrality); a pair turns at
# speed w > 0; the base is positive.
m, n, s, a, t = sp.symbols("m n s a t", real=True)
w = sp.Symbol("w", positive=True)
base = sp.Symbol("base", positive=True)
WIDTHS = tuple(range(2, INPUTS["max_width"] + 1, 2))


def turn(angle: sp.Expr) -> sp.Matrix:
    """The anticlockwise rotation of one pair (a, b) by ``angle``."""
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def vector(name: str, width: int) -> sp.Matrix:
    """A column of ``width`` real symbols, name_0 .. name_(width-1)."""
    return sp.Matrix(sp.symbols(f"{name}_0:{width}", real=True))


def speeds(width: int) -> list[sp.Expr]:
    """w_i = base^(-2i/d), the speeds of the sinusoidal code (Proposition 5)."""
    return [base ** (-2 * sp.Integer(i) / width) for i in range(width // 2)]


def rotation(p: sp.Expr, width: int, pairing: str = "interleaved") -> sp.Matrix:
    """The rotary matrix at position p: pair i turned by p w_i.

    Interleaved: pair i is coordinates (2i, 2i+1). Split halves: (i, i + d/2).
    """
    half = width // 2
    matrix = sp.zeros(width, width)
    for i, speed in enumerate(speeds(width)):
        one, two = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + half)
        block = turn(p * speed)
        for r, row in enumerate((one, two)):
            for c, col in enumerate((one, two)):
                matrix[row, col] = block[r, c]
    return matrix


def shuffle(width: int) -> sp.Matrix:
    """Pi: (Pi x)_(2i) = x_i and (Pi x)_(2i+1) = x_(i + d/2), split halves to interleaved."""
    half = width // 2
    matrix = sp.zeros(width, width)
    for i in range(half):
        matrix[2 * i, i] = 1
        matrix[2 * i + 1, i + half] = 1
    return matrix


def score(q: sp.Matrix, k: sp.Matrix, width: int, pairing: str = "interleaved") -> sp.Expr:
    """<R(m) q, R(n) k>: the query at position m, the key at position n."""
    return ((rotation(m, width, pairing) * q).T * (rotation(n, width, pairing) * k))[0, 0]


def relative(q: sp.Matrix, k: sp.Matrix, width: int, pairing: str = "interleaved") -> sp.Expr:
    """<q, R(n - m) k>: the claimed form, with the positions only through n - m."""
    return (q.T * rotation(n - m, width, pairing) * k)[0, 0]


def offset_form(q: sp.Matrix, k: sp.Matrix, width: int, pairing: str) -> sp.Expr:
    """score - relative, written with exponentials: cos t = (e^(it) + e^(-it)) / 2.

    Angle addition is then the rule e^(i(a + b)) = e^(ia) e^(ib), which ``expand``
    applies at once; the same difference in sines and cosines needs ``simplify`` on
    2d free symbols, which also reaches 0 but takes some twenty seconds at d = 8.
    The rewriting is exact: it changes how the difference is written, not its value.
    """
    return (score(q, k, width, pairing) - relative(q, k, width, pairing)).rewrite(sp.exp)


def checks(rec: Recorder) -> None:
    q, k = vector("q", 2), vector("k", 2)

    # Step 1. One pair. The transpose of a turn by a is the turn back by a, so
    # a query turned by a and a key turned by t meet at the relative angle t - a:
    # R(a)^T R(t) = R(t - a). With a = m w and t = n w this is the score of one pair.
    rec.identity(
        "R(a)^T R(t) = R(t - a)",
        turn(a).T * turn(t) - turn(t - a),
        scope="all real angles a, t",
    )
    rec.identity(
        "<R(m w) q, R(n w) k> = <q, R((n - m) w) k> for one pair",
        ((turn(m * w) * q).T * (turn(n * w) * k))[0, 0] - (q.T * turn((n - m) * w) * k)[0, 0],
        scope="all real m, n, q = (q_0, q_1), k = (k_0, k_1) and every speed w > 0",
    )

    # Step 2. Nothing is added: a turn is orthogonal, so it keeps lengths. The
    # rotated query has the same norm as the query, whatever the position.
    rec.identity(
        "R(t)^T R(t) = I, so |R(m w) q| = |q|",
        turn(t).T * turn(t) - sp.eye(2),
        scope="all real angles t",
    )
    rec.identity(
        "|R(m w) q|^2 = |q|^2 for one pair",
        ((turn(m * w) * q).T * (turn(m * w) * q))[0, 0] - (q.T * q)[0, 0],
        scope="all real m, q and every speed w > 0",
    )

    # The widths of steps 3 to 5 and 7 are the even d = 2, 4, .., max_width, whose
    # sum is max_width (max_width + 2) / 4 (20 for max_width = 8).
    rec.exact(
        "the symbolic checks take every even width 2 .. max_width",
        sum(WIDTHS),
        INPUTS["max_width"] * (INPUTS["max_width"] + 2) // 4,
        scope="the sum of the widths of steps 3 to 5 and 7 against the closed form N (N + 2) / 4",
    )

    # Step 3. The whole vector. The rotary matrix is block-diagonal with one turn
    # per pair, at the speeds w_i = base^(-2i/d) of the sinusoidal code; the score
    # is the sum of the pairs' scores. The right-hand side contains m and n only
    # through n - m, so the score depends on the offset alone.
    rec.instances(
        "<R(m) q, R(n) k> = <q, R(n - m) k>, interleaved pairing",
        (
            (f"d = {d}", offset_form(vector("q", d), vector("k", d), d, "interleaved"))
            for d in WIDTHS
        ),
        scope=f"d = {', '.join(map(str, WIDTHS))}; symbolic q, k (d entries each), m, n and base",
    )
    rec.instances(
        "|R(m) q| = |q| for the whole vector",
        ((f"d = {d}", rotation(m, d).T * rotation(m, d) - sp.eye(d)) for d in WIDTHS),
        scope=f"d = {', '.join(map(str, WIDTHS))}; symbolic m and base (R^T R = I entry by entry)",
    )

    # Step 4. The two pairings. Relabelling the coordinates by Pi (split halves to
    # interleaved) carries one rotary matrix to the other: R_half = Pi^T R_int Pi,
    # hence rotary_half(x) = Pi^T rotary_interleaved(Pi x). The split-half scores
    # therefore depend on the offset alone as well. The products with Pi are
    # written out unevaluated (``product``), so the kit carries them out.
    rec.instances(
        "R_half(m) = Pi^T R_interleaved(m) Pi",
        (
            (
                f"d = {d}",
                minus(
                    rotation(m, d, "half"),
                    product(product(shuffle(d).T, rotation(m, d)), shuffle(d)),
                ),
            )
            for d in WIDTHS
        ),
        scope=f"d = {', '.join(map(str, WIDTHS))}; symbolic m and base; the products with Pi "
        "evaluated by the kit",
    )
    rec.instances(
        "<R_half(m) q, R_half(n) k> = <q, R_half(n - m) k>",
        ((f"d = {d}", offset_form(vector("q", d), vector("k", d), d, "half")) for d in WIDTHS),
        scope=f"d = {', '.join(map(str, WIDTHS))}; symbolic q, k, m, n and base",
    )

    # Step 5. Moving weights between the pairings. A model trained with the
    # interleaved pairing produces q and k; permuted by Pi^T they give, under the
    # split-half pairing, exactly the interleaved scores (Pi is orthogonal).
    # Every product on the left is written out unevaluated, as in step 4.
    rec.instances(
        "score_half(Pi^T q, Pi^T k) = score_interleaved(q, k)",
        ((f"d = {d}", _moved_score(d)) for d in WIDTHS),
        scope=f"d = {', '.join(map(str, WIDTHS))}; symbolic q, k, m, n and base; the products "
        "evaluated by the kit",
    )

    # Step 6. Numeric spot check of step 3 at width 8: the symbolic score, and
    # the same score with both positions moved by s, at sampled points.
    width = 8
    qs, ks = vector("q", width), vector("k", width)
    both = sp.lambdify(
        (m, n, s, base, *qs, *ks),
        (
            score(qs, ks, width) - relative(qs, ks, width),
            score(qs, ks, width).subs({m: m + s, n: n + s}, simultaneous=True)
            - score(qs, ks, width),
        ),
        "numpy",
    )
    rng = np.random.default_rng(12)
    errors = []
    for _ in range(50):
        where = rng.uniform([-500, -500, -500, 2], [500, 500, 500, 20000])
        entries = rng.normal(size=2 * width)
        errors += [float(v) for v in both(*where, *entries)]
    rec.numeric(
        "step 3 and its shift form <R(m+s) q, R(n+s) k> = <R(m) q, R(n) k> at sampled points",
        errors,
        tol=1e-9,
        scope="50 random (m, n, s) in [-500, 500]^3, base in [2, 20000], normal q, k; d = 8; "
        "both differences at each point",
    )

    # Step 7. The library computes what is proven. posenc.rotary_matrix against
    # the symbolic R at 30 digits; posenc.pairing_permutation against Pi.
    errors = []
    for d, p, pairing in (
        (2, 1, "interleaved"),
        (8, 3, "half"),
        (8, -7, "interleaved"),
        (16, 1000, "half"),
    ):
        exact = rotation(p, d, pairing).subs(base, INPUTS["base"]).evalf(30)
        got = rotary_matrix(p, d, pairing=pairing)  # (d, d)
        errors.append((got - np.array(exact, dtype=float)).ravel())
    rec.numeric(
        "posenc.rotary_matrix equals the symbolic R(m), both pairings",
        np.concatenate(errors),
        tol=2e-16,
        scope="(d, m, pairing) in {(2, 1, interleaved), (8, 3, half), (8, -7, interleaved), "
        "(16, 1000, half)}, base 10000, every entry",
    )
    mismatched, compared = 0, 0
    for d in (*WIDTHS, 64, 4096):
        perm = pairing_permutation(d)
        wanted = [j // 2 if j % 2 == 0 else j // 2 + d // 2 for j in range(d)]  # Pi's map
        mismatched += sum(int(x != y) for x, y in zip(perm.tolist(), wanted, strict=True))
        compared += len(wanted)
    rec.exact(
        "posenc.pairing_permutation(d)[2i] = i and [2i+1] = i + d/2 (the map of Pi)",
        mismatched,
        0,
        scope=f"d = {', '.join(map(str, (*WIDTHS, 64, 4096)))}; count of wrong indices",
    )
    # Every index of every width was compared: 2 + 4 + .. + max_width + 64 + 4096.
    rec.exact(
        "pairing_permutation was compared with Pi at every index of every width",
        compared,
        INPUTS["max_width"] * (INPUTS["max_width"] + 2) // 4 + 64 + 4096,
        scope="count of indices compared against the closed form N (N + 2) / 4 + 64 + 4096",
    )

    # Step 8. posenc.rotary against mpmath at 50 digits, including positions far
    # beyond any context length, and the Toeplitz structure of its scores
    # against the closed form of <q, R(n - m) k>:
    # sum_i (q_a k_a + q_b k_b) cos((n - m) w_i) + (q_b k_a - q_a k_b) sin((n - m) w_i).
    d = 16
    x = rng.normal(size=(6, d))  # (6, d)
    where = [0, 1, 37, 4095, 1_000_000_007, 4_503_599_627_370_497]  # ..., 10^9 + 7, 2^52 + 1
    errors = []
    with mpmath.workdps(50):
        for pairing in ("interleaved", "half"):
            got = rotary(x, where, pairing=pairing)  # (6, d)
            for row, p in enumerate(where):
                for i in range(d // 2):
                    one, two = (2 * i, 2 * i + 1) if pairing == "interleaved" else (i, i + d // 2)
                    angle = p * mpmath.power(10000, mpmath.mpf(-2 * i) / d)
                    xa, xb = mpmath.mpf(x[row, one]), mpmath.mpf(x[row, two])
                    ya = xa * mpmath.cos(angle) - xb * mpmath.sin(angle)
                    yb = xa * mpmath.sin(angle) + xb * mpmath.cos(angle)
                    size = mpmath.sqrt(xa**2 + xb**2)
                    errors += [float((got[row, one] - ya) / size)]
                    errors += [float((got[row, two] - yb) / size)]
    rec.numeric(
        "posenc.rotary equals the exact rotation, relative to each pair's length",
        errors,
        tol=4e-16,
        scope="d = 16, positions {0, 1, 37, 4095, 1e9 + 7, 2^52 + 1}, both pairings; "
        "mpmath at 50 digits",
    )

    d, length = 32, 48
    qv, kv = rng.normal(size=(2, d))  # (d,) each
    queries = rotary(np.tile(qv, (length, 1)), np.arange(length))  # (L, d)
    keys = rotary(np.tile(kv, (length, 1)), np.arange(length))  # (L, d)
    scores = queries @ keys.T  # (L, L): row m, column n
    errors = []
    with mpmath.workdps(50):
        qm, km = [mpmath.mpf(float(v)) for v in qv], [mpmath.mpf(float(v)) for v in kv]
        speeds_mp = [mpmath.power(10000, mpmath.mpf(-2 * i) / d) for i in range(d // 2)]
        for offset in range(-length + 1, length):
            closed = mpmath.fsum(
                (qm[2 * i] * km[2 * i] + qm[2 * i + 1] * km[2 * i + 1]) * mpmath.cos(offset * w_i)
                + (qm[2 * i + 1] * km[2 * i] - qm[2 * i] * km[2 * i + 1])
                * mpmath.sin(offset * w_i)
                for i, w_i in enumerate(speeds_mp)
            )
            diagonal = np.diagonal(scores, offset)  # (L - |offset|,): entries with n - m = offset
            errors.append(diagonal - float(closed))
    rec.numeric(
        "posenc.rotary scores are constant along each diagonal n - m, equal to <q, R(n - m) k>",
        np.concatenate(errors),
        tol=1e-13,
        scope="d = 32, m, n = 0..47, one random q and k, interleaved; closed form in mpmath",
    )

    # Step 9. The pairings in the library: half = Pi^T interleaved(Pi x), bit for
    # bit (the same cosines, sines and operations, only relabelled).
    x = rng.normal(size=(3, 40, 64))  # (3, L, d)
    perm = pairing_permutation(64)  # (d,): Pi x = x[..., perm]
    inverse = np.argsort(perm)  # Pi^T y = y[..., inverse]
    half = rotary(x, np.arange(40) * 97, pairing="half")  # (3, L, d)
    relabelled = rotary(x[..., perm], np.arange(40) * 97)[..., inverse]  # (3, L, d)
    rec.exact(
        "posenc: rotary(x, pairing='half') = Pi^T rotary(Pi x, pairing='interleaved')",
        int(np.count_nonzero(half != relabelled)),
        0,
        scope="d = 64, 3 x 40 random rows, positions 0, 97, ..., 3783; "
        "count of unequal float64 entries",
    )

    # Step 10. The numbers of the page. The figure turns pair 1 of a width-8
    # query and key (posenc.figures.rotary) at w_1 = base^(-2/8), exactly 1/10
    # at base 10000, and draws the query and key at positions (2, 7) and
    # (12, 17): both times the angle between them is 5 w_1 = 1/2 radian.
    # The library's speed is compared with the exact 1/10.
    width = INPUTS["figure_width"]
    drawn = inspect.signature(rotary_figure.fig_rotary_score).parameters
    rec.exact(
        f"the figure draws pair {FIGURE['pair']} of a width-{width} query and key at "
        f"({FIGURE['m']}, {FIGURE['n']}) and ({FIGURE['m'] + FIGURE['shift']}, "
        f"{FIGURE['n'] + FIGURE['shift']}), scores for positions 0 .. {FIGURE['length'] - 1}",
        int(rotary_figure._Q.size != width)
        + int(rotary_figure._K.size != width)
        + int(rotary_figure._PAIR != FIGURE["pair"])
        + sum(int(drawn[key].default != FIGURE[key]) for key in ("m", "n", "shift", "length")),
        0,
        scope="posenc.figures.rotary: the query's and key's widths, the pair drawn and "
        "fig_rotary_score's defaults (count of mismatches)",
    )
    speed = speeds(width)[FIGURE["pair"]].subs(base, INPUTS["base"])  # exact: 10000^(-1/4)
    rec.exact(
        "at width 8 and base 10000, pair 1 turns at w_1 = 1/10 radian per position",
        speed,
        sp.Rational(1, 10),
        scope="d = 8, i = 1, base 10000, exact",
        quantity="omega_1",
        show=Show(decimals=1),
    )
    rec.numeric(
        "posenc.frequencies(8)[1], the figure's speed, is 1/10 to within one float64 ulp",
        [float(Fraction(float(frequencies(width)[1])) - Fraction(1, 10))],
        tol=float(np.spacing(0.1)),
        scope="d = 8, base 10000; exact difference from 1/10",
    )
    rec.exact(
        "the figure's query and key, at (2, 7) and at (12, 17), meet at 5 w_1 = 1/2 radian",
        (FIGURE["n"] - FIGURE["m"]) * speed,
        sp.Rational(1, 2),
        scope="d = 8, pair 1, base 10000, exact",
        quantity="figure_offset_angle",
        show=Show(decimals=1),
    )

    # The page's "Check yourself": d = 2 (w_0 = 1), q = (1, 0), k = (0, 1). The
    # score is <q, R(n - m) k> = -sin(n - m). posenc.rotary's scores at
    # (m, n) = (3, 5), (10, 12) and (5, 3) are compared with -sin 2, -sin 2 and
    # sin 2 at 30 digits.
    one, other = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])  # (1, 2) each
    worked = [
        float((rotary(one, [p_q]) @ rotary(other, [p_k]).T)[0, 0])
        for p_q, p_k in ((3, 5), (10, 12), (5, 3))
    ]
    with mpmath.workdps(30):
        sin_two = mpmath.sin(2)
        example = rec.close(
            "d = 2, q = (1, 0), k = (0, 1): posenc.rotary's score is -sin 2 at (3, 5) and "
            "(10, 12), and sin 2 at (5, 3)",
            worked,
            [-sin_two, -sin_two, sin_two],
            tol=1e-15,
            scope="d = 2, base 10000 (w_0 = 1); posenc.rotary against mpmath at 30 digits",
        )
    rec.quantity("sin_two", worked[2], show=Show(sig=4), by=example)


def _moved_score(width: int) -> sp.Expr:
    """score_half(Pi^T q, Pi^T k) - score_interleaved(q, k), every product unevaluated."""
    q, k, back = vector("q", width), vector("k", width), shuffle(width).T
    turned_q = product(rotation(m, width, "half"), product(back, q))
    turned_k = product(rotation(n, width, "half"), product(back, k))
    moved = product(turned_q.T, turned_k)[0, 0]
    return sp.Add(moved, sp.Mul(-1, score(q, k, width), evaluate=False), evaluate=False)


# -- misreadings -------------------------------------------------------------------

_E = sp.eye(4)

# A correct claim leaves a difference of exactly 0 at every witness below, and
# the witnesses are evaluated at 50 digits. Every q, k and x there has length
# 1, so no score or coordinate exceeds 1 in size: half of that is far above any
# rounding and below each difference found.
MARGIN = sp.Rational(1, 2)
BY = "half the length 1 of the unit vectors involved"


def _pairings_interchangeable(wit: Witness) -> None:
    # Same q, k and positions, two pairings. At d = 4, q = e_0 and k = e_1 share
    # pair 0 in the interleaved layout but sit in different pairs in the
    # split-half layout.
    q, k = _E[:, 0], _E[:, 1]
    point = {m: 0, n: 1, base: INPUTS["base"]}
    wit.differs(
        substitute(score(q, k, 4, "interleaved"), point),
        substitute(score(q, k, 4, "half"), point),
        at=f"d = 4, base = {INPUTS['base']}, q = e_0, k = e_1, m = 0, n = 1",
        margin=MARGIN,
        by=BY,
    )


def _adds_a_vector(wit: Witness) -> None:
    # If rotary added a position vector p_m, then R(m w) q - q = p_m would be the
    # same for every q. It is not: it is (R(m w) - I) q, which follows q.
    # The two sides are pinned to their closed forms (R(1) - I) e_0 and (R(1) - I) e_1
    # from the rotation's entries; a side that is not that breaks the refutation.
    q1, q2 = sp.Matrix([1, 0]), sp.Matrix([0, 1])
    lhs = substitute(turn(m * w) * q1 - q1, {m: 1, w: 1})
    rhs = substitute(turn(m * w) * q2 - q2, {m: 1, w: 1})
    closed = (sp.Matrix([sp.cos(1) - 1, sp.sin(1)]), sp.Matrix([-sp.sin(1), sp.cos(1) - 1]))
    if (lhs, rhs) != closed:
        raise ValueError(f"R(1) e_j - e_j is not (R(1) - I) e_j: got {lhs.T}, {rhs.T}")
    wit.differs(
        lhs,
        rhs,
        at="one pair, w = 1, m = 1, q1 = (1, 0), q2 = (0, 1)",
        margin=MARGIN,
        by=BY,
    )


def _offset_the_other_way(wit: Witness) -> None:
    # The sign slip: <R(m w) q, R(n w) k> = <q, R((m - n) w) k>. Unlike the dot
    # product of two sinusoidal codes, the rotary score is not even in the offset.
    q, k = sp.Matrix([1, 0]), sp.Matrix([0, 1])
    point = {m: 0, n: 1, w: 1}
    wit.differs(
        substitute(((turn(m * w) * q).T * (turn(n * w) * k))[0, 0], point),
        substitute((q.T * turn((m - n) * w) * k)[0, 0], point),
        at="one pair, w = 1, q = (1, 0), k = (0, 1), m = 0, n = 1",
        margin=MARGIN,
        by=BY,
    )


def _permutation_backwards(wit: Witness) -> None:
    # The permutation applied the wrong way round: R_half = Pi R_int Pi^T. At
    # d = 2 and d = 4 Pi is its own inverse, so both directions agree there;
    # at d = 6 they do not.
    x = sp.eye(6)[:, 0]  # e_0: in the split-half layout, paired with coordinate 3
    wrong = shuffle(6) * rotation(m, 6) * shuffle(6).T
    point = {m: 1, base: INPUTS["base"]}
    wit.differs(
        substitute(rotation(m, 6, "half") * x, point),
        substitute(wrong * x, point),
        at=f"d = 6, base = {INPUTS['base']}, m = 1, x = e_0",
        margin=MARGIN,
        by=BY,
    )


MISREADINGS = [
    Misreading(
        "The interleaved and split-half pairings are interchangeable without touching the weights",
        _pairings_interchangeable,
        why="They pair different coordinates, so the same q and k get different scores; "
        "the weights must be permuted by Pi to carry one model to the other.",
    ),
    Misreading(
        "Rotary embeddings add a position vector to the token",
        _adds_a_vector,
        why="R(m w) q - q = (R(m w) - I) q changes with q: "
        "a rotation is not a shift by a fixed vector.",
    ),
    Misreading(
        "<R(m w) q, R(n w) k> = <q, R((m - n) w) k>",
        _offset_the_other_way,
        why="R(m w)^T = R(-m w), so the key's turn n w minus the query's turn m w remains: "
        "the relative turn is (n - m) w.",
    ),
    Misreading(
        "R_half = Pi R_interleaved Pi^T (the permutation the other way round)",
        _permutation_backwards,
        why="Pi maps split-half coordinates to interleaved ones, so it acts first: "
        "R_half = Pi^T R_interleaved Pi. The two orders agree only where Pi is its own "
        "inverse (d <= 4).",
    ),
]
