"""Proposition 16 (ALiBi: a linear penalty on distance).

ALiBi adds no position code to the tokens. Head h of H adds -m_h (i - j) to the
score of query i and key j <= i. The reference code picks the slopes so: for H
a power of two, m_h = 2^(-8h/H), h = 1..H; otherwise, with c = 2^floor(log2 H),
the c slopes 2^(-8h/c) come first, then every other slope of the series for 2c
heads, the first H - c of them: m_(c+t) = 2^(-4(2t - 1)/c), t = 1..H - c.

Softmax does not change when a constant is added to every score of a row. The
form -m_h (i - j) and the form m_h j differ on row i by the constant -m_h i, so
they give the same attention on every causal row.

With equal content scores, a key at distance d from the query gets e^(-m_h d)
times the weight of the diagonal. The keys at distance D or more of row i hold
(e^(-m D) - e^(-m (i+1))) / (1 - e^(-m (i+1))) <= e^(-m D) of the weight. The
weight relative to the diagonal falls to e^(-1) at distance 1/m_h: 2^h for the
heads of H = 8, so head h puts at least 1 - e^(-1) of its weight on its 2^h
nearest keys.

Uses: 1, 3.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc.attention import softmax
from posenc.figures import alibi as figure
from posenc.relative import alibi_bias, alibi_slopes
from proofs.exact import cell, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness, reduce_to_zero

NUMBER = 16
TITLE = "ALiBi: a linear penalty on distance"
USES = (1, 3)

# The numbers this proposition chooses: the paper's exponent scale 8, the head
# count of the figure, and the distance at which the float16 slope is judged
# (2048, the largest integer up to which float16 counts exactly, Proposition 14),
# the row of the reach check and of the figure's right panel, and the largest head
# count of the slope checks.
INPUTS = {
    "max_bias": 8,
    "figure_heads": 8,
    "fp16_distance": 2048,
    "reach_row": 512,
    "max_heads": 128,
}

#: Head counts for the slope checks: every H from 1 to 128.
HEAD_COUNTS = tuple(range(1, INPUTS["max_heads"] + 1))

# Symbols, declared once. Positions and distances are non-negative integers; a
# slope is positive; a row constant and the content scores are real.
i, k, d, D = sp.symbols("i k d D", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, positive=True)
e = sp.Symbol("e", integer=True)  # log2 of a power-of-two head count
m = sp.Symbol("m", positive=True)
c, a = sp.symbols("c a", real=True)
s = sp.IndexedBase("s", real=True)  # content scores: s[i, k] for query i, key k


# -- the slopes ----------------------------------------------------------------------


def closest_power(heads: int) -> int:
    """c = 2^floor(log2 H), in integers."""
    return 1 << (heads.bit_length() - 1)


def exponents(heads: int) -> list[sp.Rational]:
    """q_h with m_h = 2^(-q_h), h = 1..H: the closed form of the statement."""
    top = closest_power(heads)
    first = [sp.Rational(8 * h, top) for h in range(1, top + 1)]
    extra = [sp.Rational(4 * (2 * t - 1), top) for t in range(1, heads - top + 1)]
    return first + extra


def closed_slopes(heads: int) -> list[sp.Expr]:
    """m_h = 2^(-q_h), exactly (SymPy powers of 2)."""
    return [sp.Integer(2) ** -q for q in exponents(heads)]


def series(count: int) -> list[sp.Expr]:
    """The reference code's series for a power-of-two head count ``count``.

    Its first slope, and the ratio between neighbours, is 2^(-2^(-(log2 n - 3))).
    The h-th slope is that number to the power h; the power is kept unevaluated,
    so the check has to carry it out.
    """
    start = sp.Integer(2) ** (-(sp.Integer(2) ** (-(sp.log(count, 2) - 3))))
    return [sp.Pow(start, h, evaluate=False) for h in range(1, count + 1)]


def reference_slopes(heads: int) -> list[sp.Expr]:
    """The rule of the reference code: c slopes, then every other one of 2c's, cut."""
    top = closest_power(heads)
    if top == heads:
        return series(heads)
    return series(top) + series(2 * top)[0::2][: heads - top]


def rounded_correctly(value: float, q: Fraction) -> bool:
    """Is the float64 ``value`` the nearest float64 to 2^(-q)? Decided in integers.

    With q = p/r, 2^(-q) lies in the rounding interval (lo, hi) of ``value``, the
    midpoints to its neighbours, exactly when lo^r < 2^(-p) < hi^r (x -> x^r is
    increasing for x > 0). A tie on an end would need 2^(-q) rational with a
    denominator beyond 2^1075, which it is not.
    """
    here = Fraction(value)
    low = (here + Fraction(math.nextafter(value, 0.0))) / 2
    high = (here + Fraction(math.nextafter(value, math.inf))) / 2
    target = Fraction(1, 2**q.numerator) if q >= 0 else Fraction(2 ** (-q.numerator))
    return low**q.denominator < target < high**q.denominator


# -- the bias in the softmax ---------------------------------------------------------


def row_weight(bias) -> sp.Expr:
    """Weight of key j = k_ on causal row i, scores s[i, k] + bias(k), keys 0..i."""
    j = sp.Symbol("j", integer=True, nonnegative=True)
    return sp.exp(s[i, j] + bias(j)) / sp.Sum(sp.exp(s[i, k] + bias(k)), (k, 0, i))


def alibi(slope: sp.Expr):
    """The bias of the paper: -m (i - j) on row i."""
    return lambda key: -slope * (i - key)


def key_only(slope: sp.Expr):
    """The bias as many implementations add it: m j, a function of the key alone."""
    return lambda key: slope * key


# -- exact enclosures for the page's numbers -----------------------------------------


def exp_minus_one() -> tuple[Fraction, Fraction]:
    """Rationals lo < e^(-1) < hi: consecutive partial sums of sum (-1)^t / t!.

    The terms alternate and shrink from t = 1 on, so each partial sum from then on
    lies on the other side of the limit from the one before.
    """
    total, term, sums = Fraction(0), Fraction(1), []
    for t in range(30):
        total += term if t % 2 == 0 else -term
        sums.append(total)
        term /= t + 1
    return min(sums[-1], sums[-2]), max(sums[-1], sums[-2])


def sqrt_two() -> tuple[Fraction, Fraction]:
    """Rationals lo < sqrt(2) < hi, 10^-40 apart, from the integer square root."""
    scale = 10**40
    root = math.isqrt(2 * scale * scale)  # root^2 <= 2 scale^2 < (root + 1)^2
    return Fraction(root, scale), Fraction(root + 1, scale)


def checks(rec: Recorder) -> None:
    # Step 1. The reference series. Its first slope is written 2^(-2^(-(log2 n - 3)))
    # in the code; for n = 2^e the inner power is 2^(3 - e) = 8/n, so the series
    # for n heads is 2^(-8/n), 2^(-16/n), ..., 2^(-8n/n) = 2^(-8).
    rec.identity(
        "for n = 2^e, 2^(-(log2 n - 3)) = 8/n: the first slope is 2^(-8/n)",
        sp.Integer(2) ** (-(e - 3)) - 8 / sp.Integer(2) ** e,
        scope="every integer e (n = 2^e heads)",
    )

    # Step 2. The rule for every head count, from the code's construction: powers of
    # the first slope for c heads, then the odd-numbered slopes of the series for
    # 2c heads, the first H - c of them. They are the closed form of the statement.
    family = rec.instances(
        "the reference construction gives m_h = 2^(-8h/c), then 2^(-4(2t-1)/c)",
        (
            (f"H = {h}", sp.Matrix(reference_slopes(h)) - sp.Matrix(closed_slopes(h)))
            for h in HEAD_COUNTS
        ),
        scope=f"every H = 1..{HEAD_COUNTS[-1]}; each slope an exact power of 2, the powers "
        "evaluated by the kit",
    )
    # The page says "H = 1 to H = 128": the cases must be exactly those head counts.
    rec.exact(
        "the slope cases are H = 1..max_heads, each once (count of missing or extra H)",
        len(set(HEAD_COUNTS) ^ set(range(1, INPUTS["max_heads"] + 1)))
        + len(HEAD_COUNTS)
        - len(set(HEAD_COUNTS)),
        0,
        scope="the head counts of the instances above against 1..max_heads",
    )
    rec.exact(
        "the instances above compared one case per head count H = 1..max_heads",
        family.samples,
        INPUTS["max_heads"],
        scope="the number of cases of the instances check",
        quantity="head_counts",
        show=Show(),
    )

    # Step 3. Exact values. Eight heads: 1/2, 1/4, ..., 1/256. Twelve heads: the
    # eight slopes of 8 heads, then exponents 1/2, 3/2, 5/2, 7/2, the odd slopes of
    # the series for 16 heads. No two heads of any H share a slope: the first c
    # exponents are even multiples of 4/c, the others odd multiples.
    eight = closed_slopes(8)
    rec.exact(
        "H = 8: the first head's slope is 1/2",
        eight[0],
        sp.Rational(1, 2),
        scope="H = 8, h = 1",
        quantity="slope_first",
        show=Show(style="fraction"),
    )
    rec.exact(
        "H = 8: the last head's slope is 1/256",
        eight[-1],
        sp.Rational(1, 256),
        scope="H = 8, h = 8",
        quantity="slope_last",
        show=Show(style="fraction"),
    )
    powers = [h for h in HEAD_COUNTS if h == closest_power(h)]
    rec.exact(
        "for every power-of-two H the last slope is 2^(-8), whatever H is (count of H where not)",
        sum(int(closed_slopes(h)[-1] != sp.Rational(1, 2 ** INPUTS["max_bias"])) for h in powers),
        0,
        scope=f"H = {', '.join(map(str, powers))}; exact powers of 2 against 2^(-max_bias)",
    )
    rec.exact(
        "H = 8: m_h = 1/2^h for every head (count of heads where it fails)",
        sum(int(slope != sp.Rational(1, 2**h)) for h, slope in enumerate(eight, start=1)),
        0,
        scope="H = 8, h = 1..8, exact rationals",
    )
    twelve = exponents(12)
    wanted = [*range(1, 9), sp.Rational(1, 2), sp.Rational(3, 2), sp.Rational(5, 2)]
    wanted.append(sp.Rational(7, 2))
    rec.exact(
        "H = 12: exponents 1..8, then 1/2, 3/2, 5/2, 7/2 (count of mismatches)",
        sum(int(got != want) for got, want in zip(twelve, wanted, strict=True)),
        0,
        scope="H = 12, all twelve heads, exact rationals",
    )
    rec.exact(
        "no two heads share a slope (count of H with a repeated exponent)",
        sum(int(len(set(exponents(h))) != h) for h in HEAD_COUNTS),
        0,
        scope="every H = 1..128, exact rationals",
    )

    # Step 4. The library computes what is proven. Each float64 slope of
    # posenc.alibi_slopes is the float64 nearest to 2^(-q_h), decided in integer
    # arithmetic; for H = 8 they are 1/2^h exactly; and posenc.alibi_bias is
    # -m_h (i - j), exactly for H = 8 (powers of two times integers), and as one
    # correctly rounded product of the slope and j - i for H = 12.
    wrong = compared = 0
    for heads in HEAD_COUNTS:
        got = alibi_slopes(heads).tolist()
        compared += len(got)
        wrong += len(got) != heads
        wrong += sum(
            int(not rounded_correctly(v, Fraction(int(q.p), int(q.q))))
            for v, q in zip(got, exponents(heads), strict=False)
        )
    rec.exact(
        "posenc.alibi_slopes(H)[h] is the float64 nearest to 2^(-q_h) (count of failures)",
        wrong,
        0,
        scope="every H = 1..128, every head; exact integer comparison of powers",
    )
    rec.exact(
        "the check above compared 8256 slopes: H heads for every H = 1..128",
        compared,
        8256,  # 1 + 2 + ... + 128 = 128 * 129 / 2
        scope="the number of slopes that the count of failures above ran over",
    )
    # The integer test is sharp: it rejects both float64 neighbours of each slope of
    # 12 heads (integer exponents, r = 1, and half-integer ones, r = 2).
    rec.exact(
        "the nearest-float64 test rejects both neighbours of each slope of 12 heads (count "
        "accepted)",
        sum(
            int(rounded_correctly(math.nextafter(v, toward), Fraction(int(q.p), int(q.q))))
            for v, q in zip(alibi_slopes(12).tolist(), exponents(12), strict=True)
            for toward in (0.0, math.inf)
        ),
        0,
        scope="H = 12, the 24 float64 neighbours of the library's slopes",
    )
    length = 64
    where = np.arange(length)
    offset = where[None, :] - where[:, None]  # (L, L): j - i
    bias8 = alibi_bias(length, 8)  # (8, L, L)
    rec.exact(
        "posenc.alibi_bias(64, 8)[h, i, j] = -(i - j)/2^h exactly (count of unequal entries)",
        sum(
            int(Fraction(float(bias8[h - 1, r, col])) != Fraction(int(offset[r, col]), 2**h))
            for h in range(1, 9)
            for r in range(length)
            for col in range(length)
        ),
        0,
        scope="H = 8, i, j = 0..63, every entry as an exact rational",
    )
    bias12 = alibi_bias(length, 12)  # (12, L, L)
    slopes12 = alibi_slopes(12)  # (12,)
    rec.exact(
        "posenc.alibi_bias(64, 12) is the correctly rounded m_h (j - i) (count of unequal)",
        sum(
            int(
                Fraction(float(bias12[h, r, col]))
                != Fraction(float(Fraction(float(slopes12[h])) * int(offset[r, col])))
            )
            for h in range(12)
            for r in range(length)
            for col in range(length)
        ),
        0,
        scope="H = 12, i, j = 0..63; each entry against the exact product rounded once",
    )

    # Step 5. Softmax ignores a constant added to a row. e^(s_j + c) = e^c e^(s_j),
    # and the factor e^c comes out of the sum below the fraction bar.
    rec.identity(
        "e^(s_j + c) / sum_k e^(s_k + c) = e^(s_j) / sum_k e^(s_k)",
        sp.exp(s[0, i] + c) / sp.Sum(sp.exp(s[0, k] + c), (k, 0, n))
        - sp.exp(s[0, i]) / sp.Sum(sp.exp(s[0, k]), (k, 0, n)),
        scope="every length n + 1 >= 2, every key i, all real scores s and constants c",
    )
    # Hence the two forms of the bias: -m (i - j) = m j - m i, and -m i is the same
    # for every key of row i.
    rec.identity(
        "causal row i: the weights with -m (i - j) equal the weights with m j",
        row_weight(alibi(m)) - row_weight(key_only(m)),
        scope="every row i >= 0, key j, slope m > 0 and all real content scores s[i, k]",
    )

    # Step 6. Numeric spot check through the library: posenc.softmax over each
    # causal row of random scores plus posenc.alibi_bias, against the same with
    # m_h j, for 12 heads.
    rng = np.random.default_rng(16)
    length = 48
    scores = rng.normal(scale=3.0, size=(12, length, length))  # (H, L, L)
    plain = alibi_bias(length, 12)  # (H, L, L)
    shifted = alibi_slopes(12)[:, None] * np.arange(length)[None, :]  # (H, L): m_h j
    errors = []
    for row in range(length):
        one = softmax(scores[:, row, : row + 1] + plain[:, row, : row + 1])  # (H, row + 1)
        two = softmax(scores[:, row, : row + 1] + shifted[:, : row + 1])  # (H, row + 1)
        errors.append((one - two).ravel())
    rec.numeric(
        "posenc.softmax of scores + alibi_bias equals that of scores + m_h j, row by row",
        np.concatenate(errors),
        tol=1e-13,
        scope="H = 12, L = 48, normal scores (sd 3), every weight of every causal row",
    )

    # Step 7. How far a head looks. With equal content scores a, the weight of the
    # key at distance d is e^(-m d) times the diagonal's.
    def weight(distance):
        return sp.exp(a - m * distance) / sp.Sum(sp.exp(a - m * (i - k)), (k, 0, i))

    # The ratio is r^d with r = e^(-m): the weights form a geometric row.
    r = sp.exp(-m)
    rec.identity(
        "equal content scores: weight(distance d) / weight(distance 0) = e^(-m d) = r^d",
        weight(d) / weight(0) - r**d,
        scope="every row i, distance d, slope m > 0 and content score a",
    )
    # (1 - r) sum_{t=D}^{i} r^t telescopes to r^D - r^(i+1). Divided by the whole row
    # (D = 0), the keys at distance D or more hold (r^D - r^(i+1)) / (1 - r^(i+1)).
    t = sp.Symbol("t", integer=True, nonnegative=True)
    rec.identity(
        "(1 - r)(r^D + r^(D+1) + ... + r^i) = r^D - r^(i+1), r = e^(-m)",
        sp.Sum((1 - r) * r**t, (t, D, i)) - (r**D - r ** (i + 1)),
        scope="every row i, every D <= i, slope m > 0",
    )
    # That share is at most r^D: r^D (1 - r^(i+1)) - (r^D - r^(i+1)) = r^(i+1) (1 - r^D),
    # which is >= 0 because 0 < r < 1.
    rec.identity(
        "r^D (1 - r^(i+1)) - (r^D - r^(i+1)) = r^(i+1) (1 - r^D)",
        r**D * (1 - r ** (i + 1)) - (r**D - r ** (i + 1)) - r ** (i + 1) * (1 - r**D),
        scope="every i, D and slope m > 0",
    )
    # The weight relative to the diagonal is e^(-1) at d = 1/m_h: 2^h for H = 8.
    reaches = 0
    for h, slope in enumerate(eight, start=1):
        reaches += 1
        rec.exact(
            f"H = 8, head {h}: e^(-1) of the diagonal's weight at distance 1/m_h = 2^{h}",
            1 / slope,
            2**h,
            scope=f"H = 8, h = {h}, exact",
            quantity=f"reach_{h}",
        )
    rec.exact(
        "the reaches above are checked for all 8 heads of H = 8",
        reaches,
        8,
        scope="the number of heads of the reach checks",
    )
    low, high = exp_minus_one()
    beyond = Show(sig=2, percent=True)
    # The quantities bound are the midpoints of the enclosures: exact rationals
    # that the checks place, with e^(-1), inside the rounding cell.
    rec.quantity(
        "beyond_reach",
        (low + high) / 2,
        show=beyond,
        by=inside_cell(
            rec,
            "e^(-1) shows as 37%: an exact enclosure lies inside its rounding cell",
            (low, high),
            cell(math.exp(-1), beyond),
            scope="e^(-1) between two partial sums of its alternating series (exact)",
        ),
    )
    rec.quantity(
        "within_reach",
        1 - (low + high) / 2,
        show=beyond,
        by=inside_cell(
            rec,
            "1 - e^(-1) shows as 63%: an exact enclosure lies inside its rounding cell",
            (1 - high, 1 - low),
            cell(1 - math.exp(-1), beyond),
            scope="1 - e^(-1) from the enclosure of e^(-1) (exact)",
        ),
    )
    # Numeric spot check with the library: row 512 of posenc.alibi_bias(513, 8),
    # zero content scores, posenc.softmax; the share of the keys at distance 2^h or
    # more, against the closed form at 50 digits. For head 8 the row ends at twice
    # its reach, so that share is below e^(-1): compared exactly with the lower
    # end of the enclosure of e^(-1).
    length = INPUTS["reach_row"] + 1
    rows = alibi_bias(length, 8)[:, -1, :]  # (8, L): query 512, keys 0..512
    rec.exact(
        "the row read is query 512 over keys 0..512: key 0 has bias -512/2^h (count of heads "
        "where not)",
        sum(int(Fraction(float(rows[h - 1, 0])) != Fraction(-512, 2**h)) for h in range(1, 9)),
        0,
        scope="H = 8, alibi_bias(513, 8), key 0 of the row read, exact rationals",
    )
    weights = softmax(rows)  # (8, L)
    shares, closed = [], []
    with mpmath.workdps(50):
        for h in range(1, 9):
            far = 2**h
            shares.append(float(weights[h - 1, : length - far].sum()))  # distance >= 2^h
            q = mpmath.exp(-mpmath.mpf(1) / far)
            closed.append((q**far - q**length) / (1 - q**length))
    slowest = shares[-1]  # head 8, whose reach 256 is half the row
    spot = rec.close(
        "posenc: the share of keys at distance >= 2^h in row 512 is the closed form",
        shares,
        closed,
        tol=1e-13,
        scope="H = 8, h = 1..8, row 512 of alibi_bias(513, 8), zero content scores; "
        "closed form in mpmath, 50 digits",
    )
    rec.quantity("slowest_share_512", slowest, show=beyond, by=spot)
    rec.exact(
        "head 8: the share beyond its reach in row 512 is less than e^(-1)",
        Fraction(slowest),
        low,
        relation="<",
        scope="the library's share just compared, against the lower end of the exact "
        "enclosure of e^(-1)",
    )

    # Step 8. Float16 and the slopes. Powers of two are exact in float16 (its
    # normal range reaches 2^-14), so the slopes of 8 heads survive; 2^(-1/2), head
    # 9 of 12, does not. In [1/2, 1) float16 numbers are multiples of 2^-11; the
    # nearest to 2^(-1/2) is 1448/2048 = 181/256, because 1447.5^2 < 2^21 < 1448.5^2.
    rec.exact(
        "float16 keeps every slope of 8 heads (count of slopes it changes)",
        sum(int(float(np.float16(v)) != v) for v in alibi_slopes(8).tolist()),
        0,
        scope="H = 8, NumPy float16 rounding, exact comparison",
    )
    rec.exact(
        "float16 changes 4 of the 12 slopes of 12 heads",
        sum(int(float(np.float16(v)) != v) for v in alibi_slopes(12).tolist()),
        4,
        scope="H = 12, NumPy float16 rounding, exact comparison",
        quantity="fp16_changed_12",
    )
    rec.exact(
        "the nearest multiple of 2^-11 to 2^(-1/2) is 1448/2048: 1447.5^2 < 2^21 < 1448.5^2, "
        "2^21 - 1447.5^2 = 7583/4",
        2**21 - Fraction(2895, 2) ** 2,
        Fraction(7583, 4),
        scope="exact rationals",
    )
    rec.exact(
        "... and 1448.5^2 - 2^21 = 4001/4 > 0",
        Fraction(2897, 2) ** 2 - 2**21,
        Fraction(4001, 4),
        scope="exact rationals",
    )
    stored = Fraction(float(np.float16(alibi_slopes(12)[8])))
    rec.exact(
        "NumPy's float16 of slope 9 of 12 is 181/256",
        stored,
        Fraction(1448, 2048),
        scope="H = 12, h = 9, exact value of the float16",
        quantity="fp16_slope",
        show=Show(style="fraction"),
    )
    lo2, hi2 = sqrt_two()
    relative, small = Show(sig=2, style="sci"), Show(sig=2)
    rel_true = float(1 - mpmath.mpf(181) / 256 * mpmath.sqrt(2))
    rec.quantity(
        "fp16_relative_error",
        1 - stored * (lo2 + hi2) / 2,  # the midpoint of the enclosure checked below
        show=relative,
        by=inside_cell(
            rec,
            "float16 moves 2^(-1/2) by a relative 1 - (181/256) sqrt 2: shows as 1.1e-4",
            (1 - stored * hi2, 1 - stored * lo2),
            cell(rel_true, relative),
            scope="sqrt 2 enclosed by rationals 1e-40 apart (integer square root)",
        ),
    )
    far = INPUTS["fp16_distance"]
    bias_true = float(far * mpmath.sqrt(2) / 2 - far * mpmath.mpf(181) / 256)
    rec.quantity(
        "fp16_bias_error",
        far * (lo2 + hi2) / 4 - far * stored,  # the midpoint of the enclosure checked below
        show=small,
        by=inside_cell(
            rec,
            "at distance 2048 the float16 slope's bias is off by 1024 sqrt 2 - 1448: 0.15",
            (far * lo2 / 2 - far * stored, far * hi2 / 2 - far * stored),
            cell(bias_true, small),
            scope="sqrt 2 enclosed by rationals 1e-40 apart; exact arithmetic",
        ),
    )

    # Step 9. The page's "Check yourself": six heads. c = 4, so 1/4, 1/16, 1/64,
    # 1/256, then the odd slopes of the series for 8 heads: 1/2 and 1/8. The
    # library agrees exactly (they are powers of two).
    six = closed_slopes(6)
    stated = [sp.Rational(1, v) for v in (4, 16, 64, 256, 2, 8)]
    rec.exact(
        "H = 6: slopes 1/4, 1/16, 1/64, 1/256, 1/2, 1/8 (count of mismatches)",
        sum(int(got != want) for got, want in zip(six, stated, strict=True)),
        0,
        scope="H = 6, exact rationals",
    )
    sixes = 0
    for h, (got, want) in enumerate(zip(alibi_slopes(6).tolist(), stated, strict=True), 1):
        sixes += 1
        rec.exact(
            f"H = 6, head {h}: posenc.alibi_slopes(6) gives {want} exactly",
            Fraction(got),
            Fraction(int(want.p), int(want.q)),
            scope=f"H = 6, h = {h}, the float64 slope as an exact rational",
            quantity=f"six_{h}",
            show=Show(style="fraction"),
        )
    rec.exact(
        "the six-head answer checks all 6 heads",
        sixes,
        6,
        scope="the number of heads of the six-head checks",
    )

    # Step 10. The figure draws what the page describes: fig_alibi's default head
    # count, and the row of its right panel, are the inputs the checks above use.
    rec.exact(
        "the figure draws 8 heads: fig_alibi's default head count",
        inspect.signature(figure.fig_alibi).parameters["heads"].default,
        INPUTS["figure_heads"],
        scope="posenc.figures.fig_alibi, its default argument",
    )
    rec.exact(
        "the figure's right panel reads row 512, the row of the reach check",
        figure._REACH_LENGTH,
        INPUTS["reach_row"],
        scope="posenc.figures.alibi, the row of the right panel",
    )


# -- misreadings -------------------------------------------------------------------


def _twelve_as_a_power_of_two(wit: Witness) -> None:
    # "For 12 heads the slopes are 2^(-8h/12)." Head 3: that series gives
    # 2^(-24/12) = 1/4; the reference code gives 2^(-3) = 1/8.
    naive = sp.Integer(2) ** sp.Rational(-8 * 3, 12)
    wit.exact(
        (naive, closed_slopes(12)[2]) == (sp.Rational(1, 4), sp.Rational(1, 8)),
        at="H = 12, head 3: 2^(-8*3/12) = 1/4, but the reference code's slope is 1/8 "
        "(exact rationals)",
    )


def _key_only_bias_differs(wit: Witness) -> None:
    # "A bias m j, which depends on the key alone, gives other attention than the
    # absolute form -m (i - j)." On every causal row the weights are the same.
    wit.exact(
        reduce_to_zero(row_weight(alibi(m)) - row_weight(key_only(m))) is not None,
        at="row i, key j, slope m > 0, every content score: the difference of the two "
        "weights reduces to 0",
    )


def _float16_slopes(wit: Witness) -> None:
    # "The slopes can be stored in float16 without changing the bias." Head 9 of 12
    # has slope 2^(-1/2); float16 stores 181/256, and at distance 2048 the bias
    # moves by about 0.15, a factor e^0.15 in that key's weight.
    far = INPUTS["fp16_distance"]
    stored = sp.Rational(Fraction(float(np.float16(alibi_slopes(12)[8]))))
    wit.exact(
        sp.floor(100 * ((-far * stored) - (-far * closed_slopes(12)[8]))) == 15,
        at="H = 12, head 9, distance 2048: the bias with the float16 slope, -2048 * 181/256, "
        "exceeds -2048 m_9 = -1024 sqrt 2 by 1024 sqrt 2 - 1448 = 0.15..., over a tenth of "
        "a logit (exact: floor(100 * difference) = 15)",
    )


MISREADINGS = [
    Misreading(
        "ALiBi's slopes for 12 heads are 2^(-8h/12), h = 1..12",
        _twelve_as_a_power_of_two,
        why="The reference code uses that series only when H is a power of two; for 12 it "
        "takes the 8 slopes of 8 heads and 4 odd slopes of the series for 16.",
    ),
    Misreading(
        "The bias must be the absolute -m (i - j); a bias m j that depends on the key alone "
        "gives different attention",
        _key_only_bias_differs,
        why="On row i the two differ by -m i, the same for every key, and softmax ignores "
        "a constant added to a row.",
    ),
    Misreading(
        "ALiBi's slopes can be stored in float16 without changing the bias",
        _float16_slopes,
        why="Only the slopes that are powers of two are exact in float16; the error of the "
        "others grows with the distance it multiplies (flash-attention#845).",
    ),
]
