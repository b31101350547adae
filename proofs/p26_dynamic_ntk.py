"""Proposition 26 (Dynamic NTK at s L0 is not static NTK with factor s).

A rotary model of width d (d > 2 rotated coordinates) and base b, trained to the
length L0, is scaled by dynamic NTK with factor s > 1 (Hugging Face "dynamic",
L0 = max_position_embeddings): at the current length L it uses the base

    b'(L) = b c(L)^(d/(d-2)),   c(L) = s L / L0 - (s - 1)   for L > L0,

and b'(L) = b for L <= L0. Then:

1. c(L0) = 1, so b'(L0) = b: the base is continuous at L0, and it increases with L
   past L0 (its derivative is b (d/(d-2)) (s/L0) c(L)^(2/(d-2)) > 0).
2. c(s L0) = s^2 - s + 1: at L = s L0 the base factor is (s^2 - s + 1)^(d/(d-2)),
   not static NTK's s^(d/(d-2)). By Proposition 25 the slowest pair is slowed by
   exactly c(L), so at s L0 by s^2 - s + 1, more than the factor s by which the
   context grew: c(L) - L/L0 = (s - 1)(L/L0 - 1).
3. c(L) = s exactly at L = (2s - 1) L0 / s, which lies below s L0 by (s - 1)^2 L0 / s.
4. The score of a pair (m, n) at the current length L is <q, R'_(n-m) k> with the
   speeds of b'(L): within one call a function of n - m (Proposition 12), but across
   calls it depends on L too; and a key turned with the base of one length scored
   against a query turned with the base of another is not a function of n - m.

Uses: 12, 25.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from proofs.exact import cell, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 26
TITLE = "Dynamic NTK at s L0 is not static NTK with factor s"
USES = (12, 25)

# What the proposition chooses: the base, width and training length of the examples
# (Llama-2-like: b = 10000, d = 128; L0 = 4096), the lengths and positions of the
# score witnesses, and the lengths of "Check yourself".
INPUTS = {
    "base": 10000,
    "head_dim": 128,
    "train_length": 4096,
    "long_length": 8192,
    "witness_query": 4000,
    "stale_query_1": 4200,
    "stale_key_1": 200,
    "stale_query_2": 4300,
    "stale_key_2": 300,
    "check_short": 6144,
    "check_long": 8192,
}
FACTORS = (2, 4, 8)  # the scale factors s of the examples and of the figure
DIGITS = 60  # mpmath's working precision for every reference value

# Symbols, declared once. The rotated width is d = e + 2 with e > 0, so d > 2 and
# the exponent d/(d-2) is defined. Lengths, the base and the factor are positive.
e = sp.Symbol("e", positive=True)
d = e + 2
s, L, L0, b = sp.symbols("s L L0 b", positive=True)
c = sp.Symbol("c", positive=True)  # a stretch c(L) > 0
m, n, t = sp.symbols("m n t", real=True)  # positions and a shift
w1, w2 = sp.symbols("w1 w2", positive=True)  # one pair's speed under two bases


def stretch(length: sp.Expr) -> sp.Expr:
    """c(L) = s L / L0 - (s - 1), the factor dynamic NTK stretches by past L0."""
    return s * length / L0 - (s - 1)


def dynamic(length: sp.Expr) -> sp.Expr:
    """b'(L) = b c(L)^(d/(d-2)), the base past L0 (Hugging Face's "dynamic")."""
    return b * stretch(length) ** (d / (d - 2))


# -- reference values in mpmath ------------------------------------------------------


def mp_stretch(factor, length: int, train: int):
    """c at length L, with L = max(L, L0) as Hugging Face takes it."""
    return mpmath.mpf(factor) * max(length, train) / train - (mpmath.mpf(factor) - 1)


def mp_base(base, factor, length: int, train: int, dim: int):
    return mpmath.mpf(base) * mp_stretch(factor, length, train) ** (mpmath.mpf(dim) / (dim - 2))


def mp_ladder(base, dim: int) -> list:
    """The speeds base^(-2i/d), i = 0 .. d/2 - 1."""
    big = mpmath.mpf(base)
    return [big ** (-mpmath.mpf(2 * i) / dim) for i in range(dim // 2)]


def ulps(got: np.ndarray, want: list) -> np.ndarray:
    """|got - want| in ulps of the float64 nearest each reference value."""
    near = np.array([float(v) for v in want])
    error = np.array([abs(mpmath.mpf(float(g)) - v) for g, v in zip(got, want, strict=True)])
    return np.array([float(x) for x in error]) / np.spacing(np.abs(near))


def ones_score(query_speeds: list, key_speeds: list, query: int, key: int):
    """The score of q = k = (1, ..., 1), query turned at ``query_speeds``, key at ``key_speeds``.

    Pair i of q at position m turns by m u_i, pair i of k at position n by n v_i; for
    pairs (1, 1), <R(a) (1, 1), R(c) (1, 1)> = 2 cos(c - a). In mpmath.
    """
    return sum(
        2 * mpmath.cos(key * v - query * u) for u, v in zip(query_speeds, key_speeds, strict=True)
    )


def cache_score(query_speeds: np.ndarray, key_speeds: np.ndarray, query: int, key: int) -> float:
    """The same score from posenc.rope's cos/sin caches (float64)."""
    qc, qs = rope.cos_sin([query], query_speeds, layout="pairs")  # (1, d/2) each
    kc, ks = rope.cos_sin([key], key_speeds, layout="pairs")  # (1, d/2) each
    return float(2.0 * np.sum(kc * qc + ks * qs))  # 2 cos(n v - m u), summed over pairs


def power_enclosure(root: int, p: int, q: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < root^(p/q) < hi, 10^-40 around the 60-digit value.

    They enclose it exactly when lo^q < root^p < hi^q (x -> x^q increases for x > 0):
    :func:`enclosure_holds` decides that in integers.
    """
    with mpmath.workdps(DIGITS):
        value = mpmath.mpf(root) ** (mpmath.mpf(p) / q)
        middle = Fraction(mpmath.nstr(value, 55, strip_zeros=False))
    gap = Fraction(1, 10**40)
    return middle - gap, middle + gap


def enclosure_holds(root: int, p: int, q: int, lo: Fraction, hi: Fraction) -> bool:
    """lo < root^(p/q) < hi, decided in integers: lo^q < root^p < hi^q."""
    return lo**q < Fraction(root) ** p < hi**q


def first_reaching(base: float, factor: int, train: int, dim: int) -> int:
    """The least integer L in [L0, s L0] at which rope.dynamic_base(L) >= rope.ntk_base(s).

    Found by bisection, which relies on the dynamic base increasing with L (step 5
    checks it on a grid); at s L0 it is above static NTK's base, since s^2 - s + 1 > s.
    """
    target = rope.ntk_base(base, float(factor), dim)
    low, high = train, factor * train  # dynamic_base(low) < target <= dynamic_base(high)
    while high - low > 1:
        middle = (low + high) // 2
        if rope.dynamic_base(base, float(factor), middle, train, dim) >= target:
            high = middle
        else:
            low = middle
    return high


def misread_factors() -> tuple[sp.Expr, sp.Expr]:
    """The base factors the first misreading compares (s = 4, d = 128): 13^(64/63), 4^(64/63)."""
    power = sp.Rational(128, 126)
    return sp.Integer(13) ** power, sp.Integer(4) ** power


def single_cache_ratio() -> sp.Expr:
    """The slowest speed with the base b 13^(64/63) over that with b (b = 10000, d = 128)."""
    big, power = sp.Integer(10000), sp.Rational(128, 126)
    slowest = -sp.Rational(126, 128)  # the exponent -(d-2)/d of pair d/2 - 1
    return (big * sp.Integer(13) ** power) ** slowest / big**slowest


def stale_score(qpos: int, kpos: int):
    """mpmath: the key at ``kpos`` cached with the base b, the query at ``qpos`` turned with
    the base of its own length qpos + 1 (q = k = ones, b = 10000, d = 128, s = 4, L0 = 4096)."""
    train, width = INPUTS["train_length"], INPUTS["head_dim"]
    own = mp_ladder(mp_base(INPUTS["base"], 4, qpos + 1, train, width), width)
    return ones_score(own, mp_ladder(INPUTS["base"], width), qpos, kpos)


# -- the checks ------------------------------------------------------------------------


def checks(rec: Recorder) -> None:
    mpmath.mp.dps = DIGITS
    base, width, train = INPUTS["base"], INPUTS["head_dim"], INPUTS["train_length"]
    exponent = Fraction(width, width - 2)  # d/(d-2) = 64/63 at d = 128

    # Step 1. At the training length the stretch is 1 and the base is b. The
    # substitution is kept unevaluated, so the kit carries it out.
    rec.identity(
        "b'(L0) = b (s L0/L0 - (s - 1))^(d/(d-2)) = b: continuous at L0",
        sp.Subs(dynamic(L), L, L0) - b,
        scope="every b > 0, s > 0, L0 > 0 and width d > 2",
    )
    # Past L0 the stretch exceeds 1, and the base grows with L: its derivative is a
    # product of positive factors.
    rec.identity(
        "c(L) - 1 = s (L - L0) / L0: c(L) > 1 for L > L0",
        stretch(L) - 1 - s * (L - L0) / L0,
        scope="every s, L, L0 > 0",
    )
    rec.identity(
        "d b'(L)/dL = b (d/(d-2)) (s/L0) c(L)^(2/(d-2)) > 0",
        sp.Derivative(dynamic(L), L) - b * d / (d - 2) * s / L0 * stretch(L) ** (2 / (d - 2)),
        scope="every b, s, L0 > 0, d > 2 and L with c(L) > 0",
    )

    # Step 2. At L = s L0 the stretch is s^2 - s + 1, not s.
    rec.identity(
        "c(s L0) = s^2 - s + 1",
        sp.Subs(stretch(L), L, s * L0) - (s**2 - s + 1),
        scope="every s > 0, L0 > 0",
    )
    stretched = 0  # the checks below that hold, counted after the loop
    for factor in FACTORS:
        stretched += bool(
            rec.exact(
                f"s = {factor}: c(s L0) = {factor * factor - factor + 1}",
                sp.Subs(stretch(L), L, s * L0).doit().subs(s, factor),
                factor * factor - factor + 1,
                scope=f"s = {factor}, exact integers",
                quantity=f"stretch_{factor}",
            )
        )
    rec.exact(
        "c(s L0) = s^2 - s + 1 at s = 2, 4, 8 (count of the checks above that hold)",
        stretched,
        len(FACTORS),
        scope="s = 2, 4, 8, exact integers",
    )
    # The base factors c^(d/(d-2)) and s^(d/(d-2)) at d = 128, the ones the page shows,
    # enclosed in rationals whose 63rd powers bracket r^64 (integer arithmetic).
    p, q = exponent.numerator, exponent.denominator
    named = [
        (factor, name, root)
        for factor in FACTORS
        for name, root in (("dynamic", factor * factor - factor + 1), ("static", factor))
    ]
    roots = [root for _, _, root in named]
    rec.exact(
        "each rational enclosure holds: lo^63 < r^64 < hi^63 (count of those that hold)",
        sum(int(enclosure_holds(r, p, q, *power_enclosure(r, p, q))) for r in roots),
        2 * len(FACTORS),
        scope=f"r in {roots}, d = 128, exact integers and fractions",
    )
    # The integer test bites on each side: a single point, either end of an enclosure,
    # does not enclose r^(64/63) (it is irrational, so it is neither end).
    rec.exact(
        "the test accepts no point lo = hi at either end of an enclosure (count accepted)",
        sum(int(enclosure_holds(r, p, q, x, x)) for r in roots for x in power_enclosure(r, p, q)),
        0,
        scope=f"r in {roots}, d = 128: 12 points, exact integers and fractions",
    )
    # The first misreading compares the same two factors at s = 4 (SymPy's exact powers),
    # each the 60-digit mpmath value.
    rec.close(
        "the first misreading's factors are 13^(64/63) and 4^(64/63)",
        list(misread_factors()),
        [mpmath.mpf(13) ** (mpmath.mpf(p) / q), mpmath.mpf(4) ** (mpmath.mpf(p) / q)],
        tol=1e-40,
        scope="s = 4, d = 128: SymPy's powers at 50 digits against mpmath at 60",
    )
    # Each factor the page shows is the lower end of its exact enclosure: a rational
    # the check reads, and every number of the enclosure shows as the same digits.
    shows = {}
    for factor, name, root in named:
        show = Show(sig=4) if (factor, name) == (4, "dynamic") else Show(sig=3)
        low, high = power_enclosure(root, p, q)
        where = cell(low, show)
        shows[(factor, name)] = where.text
        rec.quantity(
            f"{name}_factor_{factor}",
            low,
            show=show,
            by=inside_cell(
                rec,
                f"s = {factor}: the {name} base factor {root}^({exponent}) shows as {where.text}",
                (low, high),
                where,
                scope=f"d = {width}, s = {factor}: an exact enclosure inside the rounding cell",
            ),
        )
    rec.exact(
        "the shown factors for s = 4 are FACTS' 13.54 and 4.09 (count of mismatches)",
        int(shows[(4, "dynamic")] != "13.54") + int(shows[(4, "static")] != "4.09"),
        0,
        scope="s = 4, d = 128: the rendered text against ../shared/FACTS-modern.md",
    )

    # Step 3. Proposition 25 in this setting: with the base b c^(d/(d-2)) the slowest
    # pair, i = d/2 - 1, turns at (b c^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / c.
    rec.identity(
        "(b c^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / c: the slowest pair is slowed by c",
        (b * c ** (d / (d - 2))) ** (-(d - 2) / d) - b ** (-(d - 2) / d) / c,
        scope="every b > 0, c > 0 and width d > 2",
    )
    # The last misreading's instance: a single cache built at s L0 = 4 L0 turns the
    # slowest pair, at L = L0, 1/c(4 L0) = 1/13 as fast as dynamic NTK does.
    rec.exact(
        "b = 10000, d = 128: the slowest speed with b 13^(64/63) over that with b is 1/13",
        single_cache_ratio(),
        Fraction(1, 13),
        scope="s = 4, d = 128: exact, SymPy's powers of 10000 and 13",
    )
    # The stretch outruns the length: c(L) - L/L0 = (s - 1)(L/L0 - 1) >= 0 for s >= 1,
    # L >= L0. So the slowest pair's angle at offset L, L w / c, is at most its
    # angle at offset L0 in training, and falls towards L0 w / s.
    rec.identity(
        "c(L) - L/L0 = (s - 1)(L/L0 - 1)",
        stretch(L) - L / L0 - (s - 1) * (L / L0 - 1),
        scope="every s, L, L0 > 0",
    )
    rec.identity(
        "L / c(L) - L0 = -(s - 1)(L - L0) / c(L)",
        L / stretch(L) - L0 + (s - 1) * (L - L0) / stretch(L),
        scope="every s, L, L0 > 0 with c(L) != 0",
    )
    rec.exact(
        "s = 4, L = 4 L0: the slowest pair's angle at offset L is 4/13 of its angle at L0",
        sp.Subs((L / L0) / stretch(L), (L, s), (4 * L0, 4)).doit(),
        Fraction(4, 13),
        scope="s = 4, every L0 > 0: (L/L0) / c(L) at L = s L0, exact",
        quantity="reach_share_4",
        show=Show(style="fraction"),
    )

    # Step 4. Dynamic NTK reaches static NTK's stretch s at L = (2s - 1) L0 / s, which
    # lies (s - 1)^2 L0 / s below s L0. Since c increases, that L is the only one.
    crossing = (2 * s - 1) * L0 / s
    rec.identity(
        "c((2s - 1) L0 / s) = s",
        sp.Subs(stretch(L), L, crossing) - s,
        scope="every s > 0, L0 > 0",
    )
    rec.identity(
        "s L0 - (2s - 1) L0 / s = (s - 1)^2 L0 / s",
        s * L0 - crossing - (s - 1) ** 2 * L0 / s,
        scope="every s > 0, L0 > 0",
    )
    solved = sp.solve(sp.Eq(stretch(L), s), L)
    rec.exact(
        "c(L) = s has one solution L (solved by SymPy; c is affine with slope s/L0 > 0)",
        len(solved),
        1,
        scope="every s > 0, L0 > 0",
    )
    rec.identity(
        "SymPy's solution of c(L) = s is (2s - 1) L0 / s",
        solved[0] - crossing,
        scope="every s > 0, L0 > 0",
    )
    crossed = 0  # the checks below that hold, counted after the loop
    for factor in FACTORS:
        at = Fraction(2 * factor - 1, factor) * train
        crossed += bool(
            rec.exact(
                f"s = {factor}, L0 = {train}: c({at}) = s, exactly",
                Fraction(factor) * at / train - (factor - 1),
                factor,
                scope=f"s = {factor}, L0 = {train}, L = (2s - 1) L0 / s, exact fractions",
            )
        )
        # The page names the crossing: the library's dynamic base, found by bisection
        # over the lengths L0 .. s L0, first reaches static NTK's base there.
        crossed += bool(
            rec.exact(
                f"s = {factor}: posenc's dynamic base first reaches ntk_base(s) at L = {at}",
                first_reaching(float(base), factor, train, width),
                at,
                scope=f"b = {base}, d = {width}, L0 = {train}, s = {factor}; bisection on the "
                "integer lengths L0 .. s L0, posenc.rope.dynamic_base against "
                "posenc.rope.ntk_base",
                quantity=f"crossing_{factor}",
            )
        )
    rec.exact(
        "s = 2, 4, 8: c = s at the crossing, and posenc first reaches ntk_base there "
        "(count of the checks above that hold)",
        crossed,
        2 * len(FACTORS),
        scope=f"b = {base}, d = {width}, L0 = {train}, s = 2, 4, 8",
    )

    # Step 5. The library computes the same bases and speeds. Each value of
    # posenc.rope is within half an ulp of the 60-digit value (so it is the float64
    # nearest it), over a family of bases, factors, widths and lengths.
    family = (
        (1e4, 2.0, 128, 4096),
        (1e4, 4.0, 128, 4096),
        (1e4, 8.0, 128, 4096),
        (5e5, 4.0, 128, 8192),
        (1e6, 2.5, 64, 2048),
        (1e4, 4.0, 96, 2048),
    )

    def lengths(factor: float, train_: int) -> list[int]:
        cross = Fraction(2 * factor - 1) / Fraction(factor) * train_
        chosen = [1, train_ // 2, train_, train_ + 1, 2 * train_, round(factor * train_)]
        chosen += [3 * round(factor * train_)]
        return chosen + ([int(cross)] if cross.denominator == 1 else [])

    base_errors, speed_errors = [], []
    for big, factor, dim, train_ in family:
        for length in lengths(factor, train_):
            want = mp_base(big, factor, length, train_, dim)
            got = rope.dynamic_base(big, factor, length, train_, dim)
            base_errors.append(ulps(np.array([got]), [want])[0])
            speeds, attention = rope.inv_freq(
                "dynamic",
                dim,
                base=big,
                factor=factor,
                max_position_embeddings=train_,
                seq_len=length,
            )
            speed_errors.extend(ulps(speeds, mp_ladder(want, dim)))
            speed_errors.append(abs(attention - 1.0))  # dynamic NTK scales no logit
    rec.exact(
        "ulps() counts one ulp as 1: the float64 just above 1, against 1",
        Fraction(float(ulps(np.array([np.nextafter(1.0, 2.0)]), [mpmath.mpf(1)])[0])),
        1,
        scope="float64: 1 + 2^-52 against 1, whose ulp is 2^-52",
    )
    rec.numeric(
        "posenc.rope.dynamic_base is the float64 nearest b c(L)^(d/(d-2)) (error in ulps)",
        base_errors,
        tol=0.5,
        scope="6 (b, s, d, L0) from Llama-like to 1e6 bases, 7 or 8 lengths each; mpmath",
    )
    rec.numeric(
        'posenc.rope.inv_freq("dynamic") is the nearest float64 ladder of b\'(L) (ulps)',
        speed_errors,
        tol=0.5,
        scope="the same family, every pair, and the attention factor 1; mpmath, 60 digits",
    )
    # Up to L0 (and with no seq_len) the speeds are the default ones, exactly; at the
    # crossing the dynamic base is static NTK's, exactly.
    plain, _ = rope.inv_freq("default", width, base=float(base))
    unchanged = 0  # the lengths at which the speeds are the default ones
    for length in (1, train // 2, train, None):
        speeds, _ = rope.inv_freq(
            "dynamic",
            width,
            base=float(base),
            factor=4.0,
            max_position_embeddings=train,
            seq_len=length,
        )
        unchanged += int(np.array_equal(speeds, plain))
    rec.exact(
        'inv_freq("dynamic") at L <= L0 or without seq_len is "default" (count equal, of 4)',
        unchanged,
        4,
        scope="b = 10000, d = 128, s = 4, L0 = 4096; L = 1, 2048, 4096 and None",
    )
    rec.exact(
        "dynamic_base at (2s - 1) L0 / s equals ntk_base(s), bit for bit (count unequal)",
        sum(
            int(
                rope.dynamic_base(float(base), f, (2 * f - 1) * train // f, train, width)
                != rope.ntk_base(float(base), f, width)
            )
            for f in FACTORS
        ),
        0,
        scope="b = 10000, d = 128, L0 = 4096, s = 2, 4, 8",
    )
    grid = [train * k // 64 for k in range(64, 8 * 64 + 1)]
    bases = [rope.dynamic_base(float(base), 4.0, length, train, width) for length in grid]
    rec.exact(
        "posenc's dynamic base increases strictly from L0 to 8 L0 (count of the 448 steps that "
        "do)",
        sum(int(later > earlier) for earlier, later in itertools.pairwise(bases)),
        448,
        scope="b = 10000, d = 128, s = 4, L0 = 4096, L = 4096 .. 32768 in steps of 64",
    )

    # Step 6. Offsets and lengths. Within one base, pair i of a query at m and a key at
    # n meet at the angle (n - m) w (Proposition 12). With the key turned at the speed
    # w1 of one base and the query at w2 of another, moving both by t moves the angle
    # by t (w1 - w2); w = B^(-2i/d) falls as B grows, so w1 != w2 for every pair i >= 1.
    rec.identity(
        "one base: n w - m w = (n - m) w, a function of the offset",
        (n * w1 - m * w1) - (n - m) * w1,
        scope="every real m, n and speed w > 0",
    )
    rec.identity(
        "two bases: ((n + t) w1 - (m + t) w2) - (n w1 - m w2) = t (w1 - w2)",
        ((n + t) * w1 - (m + t) * w2) - (n * w1 - m * w2) - t * (w1 - w2),
        scope="every real m, n, t and speeds w1, w2 > 0",
    )
    # The witnesses, with q = k = (1, ..., 1) at d = 128: the pair (4000, 0) scored with
    # the cache built at L0 and at 2 L0; and keys cached from a prompt of L0 tokens
    # (base b) scored against queries turned with the base of their own length m + 1.
    query, long = INPUTS["witness_query"], INPUTS["long_length"]
    at_train = mp_ladder(mp_base(base, 4, train, train, width), width)
    at_long = mp_ladder(mp_base(base, 4, long, train, width), width)
    cache_train, _ = rope.inv_freq(
        "dynamic", width, factor=4.0, max_position_embeddings=train, seq_len=train
    )
    cache_long, _ = rope.inv_freq(
        "dynamic", width, factor=4.0, max_position_embeddings=train, seq_len=long
    )
    scores = {
        "score_train": (
            ones_score(at_train, at_train, query, 0),
            (cache_train, cache_train, query, 0),
        ),
        "score_long": (ones_score(at_long, at_long, query, 0), (cache_long, cache_long, query, 0)),
    }
    stale = (
        ("1", INPUTS["stale_query_1"], INPUTS["stale_key_1"]),
        ("2", INPUTS["stale_query_2"], INPUTS["stale_key_2"]),
    )
    for label, qpos, kpos in stale:
        cache_own, _ = rope.inv_freq(
            "dynamic", width, factor=4.0, max_position_embeddings=train, seq_len=qpos + 1
        )
        scores[f"stale_{label}"] = (stale_score(qpos, kpos), (cache_own, cache_train, qpos, kpos))
    # The page shows each score: the one from posenc's caches, compared with mpmath.
    matched = 0  # the checks below that hold, counted after the loop
    for name, (want, args) in scores.items():
        matched += bool(
            rec.close(
                f"posenc.rope caches give the mpmath score of the witness {name}",
                cache_score(*args),
                want,
                tol=1e-9,
                scope="q = k = ones, d = 128, b = 10000, s = 4, L0 = 4096; mpmath at 60 digits",
                quantity=name,
                show=Show(sig=3),
            )
        )
    rec.exact(
        "the four witness scores: posenc's caches give mpmath's (count of the checks above)",
        matched,
        4,
        scope="score_train, score_long, stale_1, stale_2",
    )

    # Step 7. "Check yourself": s = 2, L0 = 4096. At 6144 tokens the stretch is 2, as in
    # static NTK; at 8192 it is 3. The slowest pair's angle at offset L is then 3/4
    # and 2/3 of its angle at L0.
    expected = {
        "check_short": (INPUTS["check_short"], 2, Fraction(3, 4)),
        "check_long": (INPUTS["check_long"], 3, Fraction(2, 3)),
    }
    answered = 0  # the checks below that hold, counted after the loop
    for key, (length, want_stretch, want_reach) in expected.items():
        value = sp.Subs(stretch(L), (L, L0, s), (length, train, 2)).doit()
        answered += bool(
            rec.exact(
                f"s = 2, L0 = 4096, L = {length}: c(L) = {want_stretch}",
                value,
                want_stretch,
                scope="exact rationals",
                quantity=f"{key}_stretch",
            )
        )
        answered += bool(
            rec.exact(
                f"s = 2, L = {length}: the slowest pair's angle at offset L over that at L0",
                sp.Rational(length, train) / value,
                want_reach,
                scope="exact rationals, (L/L0) / c(L)",
                quantity=f"{key}_reach",
                show=Show(style="fraction"),
            )
        )
    rec.exact(
        '"Check yourself": the stretch and the angle at 6144 and 8192 (count of the checks above)',
        answered,
        2 * len(expected),
        scope="s = 2, L0 = 4096, L = 6144 and 8192",
    )


# -- misreadings -------------------------------------------------------------------


def _dynamic_is_static(wit: Witness) -> None:
    # "At s L0 dynamic NTK is static NTK with factor s." s = 4, d = 128: the base
    # factors are 13^(64/63) and 4^(64/63).
    dynamic_factor, static_factor = misread_factors()  # checked against mpmath in step 2
    wit.differs(
        dynamic_factor,
        static_factor,
        at="s = 4, d = 128, L = 4 L0: (s^2 - s + 1)^(d/(d-2)) against s^(d/(d-2))",
        margin=1,
        by="one whole unit of the base factor",
    )


def _offset_alone(wit: Witness) -> None:
    # "With dynamic NTK a pair's score depends only on its offset, whatever length the
    # cos/sin cache was built for." The pair (4000, 0), q = k = ones, d = 128, s = 4.
    with mpmath.workdps(DIGITS):
        train, long = INPUTS["train_length"], INPUTS["long_length"]
        query, width = INPUTS["witness_query"], INPUTS["head_dim"]
        short = mp_ladder(mp_base(10000, 4, train, train, 128), width)
        grown = mp_ladder(mp_base(10000, 4, long, train, 128), width)
        one = ones_score(short, short, query, 0)
        two = ones_score(grown, grown, query, 0)
        wit.differs(
            sp.Float(mpmath.nstr(one, 50), 50),
            sp.Float(mpmath.nstr(two, 50), 50),
            at="(m, n) = (4000, 0), q = k = ones, d = 128, s = 4: caches of L = 4096 and 8192",
            margin=1,
            by="a whole unit of the score",
        )


def _stale_keys(wit: Witness) -> None:
    # "Keys cached while the base grows keep the score a function of the offset."
    # Keys from a 4096-token prompt (base b), queries turned with the base of their
    # own length m + 1: (4200, 200) and (4300, 300), both at offset -4000.
    # The two scores are stale_1 and stale_2 of step 6, checked there against posenc.
    with mpmath.workdps(DIGITS):
        values = []
        for qpos, kpos in (
            (INPUTS["stale_query_1"], INPUTS["stale_key_1"]),
            (INPUTS["stale_query_2"], INPUTS["stale_key_2"]),
        ):
            values.append(stale_score(qpos, kpos))
        wit.differs(
            sp.Float(mpmath.nstr(values[0], 50), 50),
            sp.Float(mpmath.nstr(values[1], 50), 50),
            at="q = k = ones, d = 128, s = 4, keys cached at L0 = 4096: (4200, 200) and "
            "(4300, 300), offset -4000 both",
            margin=1,
            by="a whole unit of the score",
        )


def _one_cache_for_all(wit: Witness) -> None:
    # "Building the dynamic base once, at the longest length s L0, and using it at
    # every length is the same model" (what vLLM#5093 found vLLM doing). At L = L0
    # dynamic NTK uses b; the single cache uses b 13^(64/63). Their slowest pairs turn
    # at speeds in the ratio 1/13, exactly.
    ratio = single_cache_ratio()  # checked to be 1/13 in step 3
    wit.differs(
        ratio,
        1,
        at="s = 4, d = 128, L = L0: the slowest speed with b 13^(64/63) over that with b",
        margin=0,
        by="exact rationals, against a claim of equal speeds",
    )


MISREADINGS = [
    Misreading(
        "Dynamic NTK at s L0 equals static NTK with factor s",
        _dynamic_is_static,
        why="At L = s L0 the stretch is s^2 - s + 1, not s; the two bases agree only at "
        "L = (2s - 1) L0 / s.",
    ),
    Misreading(
        "Under dynamic NTK a token pair's score depends only on its offset, whatever "
        "length its cos/sin cache was computed at",
        _offset_alone,
        why="Past L0 every pair but the first turns at a speed that depends on the current "
        "length (transformers#25306: a long input changed later short answers).",
    ),
    Misreading(
        "Keys cached during generation can be reused as the dynamic base grows: the score "
        "stays a function of the offset",
        _stale_keys,
        why="A cached key keeps the turn of the base it was computed with; shifting query "
        "and key together moves pair i's angle by t (w1 - w2) (transformers#25104).",
    ),
    Misreading(
        'Computing the "dynamic" base once, at s L0, and using it at every length is dynamic NTK',
        _one_cache_for_all,
        why="That is static NTK with stretch s^2 - s + 1, applied even to inputs shorter "
        "than L0, which dynamic NTK leaves alone (vLLM#3488, #5093).",
    ),
]
