"""Proposition 15 (T5's relative buckets).

T5 adds to the score of query i and key j one learned scalar per head, read
from a table indexed by the bucket of the offset r = j - i (key minus query).
A half of h buckets has e = h/2 exact buckets: a distance n < e has bucket n,
a larger one bucket min(h - 1, e + floor((h - e) ln(n/e) / ln(M/e))), with
M = max_distance. Bidirectional: h = num_buckets/2, offsets r > 0 in the upper
half (bucket h + n, n = r), the others in the lower (n = -r). Causal: h =
num_buckets, n = max(-r, 0), so every key after the query shares bucket 0.

When e = 2^s and M = 2^t (every configuration below), the floor is the
integer (bitlength(n^a) - 1 - a s) // (t - s), a = h - e. Hence, exactly: for
num_buckets 32 and max_distance 128, the bidirectional scheme is exact for
|r| < 8, its bucket 8 + q begins at distance ceil(2^(3 + q/2)), and its last
bucket begins at 91; bucket 16 is never used. The causal scheme is exact for
distances below 16 and its last bucket begins at 113; it is the bidirectional
scheme with 64 buckets restricted to the past, not the one with 32 buckets.
posenc.relative.t5_bucket agrees with the integer formula at every offset
checked. Because the bias depends on j - i and r, -r fall in different
buckets, it is not invariant under reordering the positions: this is where
order enters a layer that Proposition 1 shows cannot see it otherwise.

Uses: 1.
"""

from __future__ import annotations

import inspect
import math
from bisect import bisect_right
from fractions import Fraction
from typing import NamedTuple

import mpmath
import numpy as np
import sympy as sp

from posenc.figures import fig_t5_buckets
from posenc.relative import t5_bucket
from proofs.exact import minus, product
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 15
TITLE = "T5's relative buckets"
USES = (1,)

# The configurations this proposition chooses: T5's own (32 buckets, max_distance
# 128, in the encoder and in the decoder) and two more for contrast.
INPUTS = {
    "num_buckets": 32,
    "max_distance": 128,
    "num_buckets_64": 64,
    "max_distance_256": 256,
    "reach": 2048,
    "figure_reach": 160,  # the figure's offsets, -160..160 (posenc.figures.buckets)
}
REACH = INPUTS["reach"]  # every offset -REACH .. REACH is checked, 16 times max_distance
BUCKETS, TOP = INPUTS["num_buckets"], INPUTS["max_distance"]  # T5's own configuration
HUGE = (10**6, 2**40, 2**62)  # and a few far beyond any context


class Config(NamedTuple):
    """One bucket scheme: encoder (bidirectional) or decoder, size and reach."""

    name: str
    bidirectional: bool
    num_buckets: int
    max_distance: int

    @property
    def half(self) -> int:
        """h: the buckets for one sign (bidirectional) or for the past (causal)."""
        return self.num_buckets // 2 if self.bidirectional else self.num_buckets

    @property
    def exact(self) -> int:
        """e = h / 2: the distances below e have a bucket of their own."""
        return self.half // 2


WIDE_BUCKETS, FAR_TOP = INPUTS["num_buckets_64"], INPUTS["max_distance_256"]  # for contrast
T5 = Config(f"bidirectional {BUCKETS}/{TOP}", True, BUCKETS, TOP)
T5_CAUSAL = Config(f"causal {BUCKETS}/{TOP}", False, BUCKETS, TOP)
WIDE = Config(f"bidirectional {WIDE_BUCKETS}/{TOP}", True, WIDE_BUCKETS, TOP)
FAR = Config(f"bidirectional {BUCKETS}/{FAR_TOP}", True, BUCKETS, FAR_TOP)
CONFIGS = (T5, T5_CAUSAL, WIDE, FAR)
# Where each scheme's last bucket begins, ceil(2^(t - c/a)) (page, step 3): the
# exponent from the page's (a, s, t) = (8, 3, 7), (16, 4, 7), (16, 4, 7), (8, 3, 8).
LAST_EDGE = {
    "bi": Fraction(13, 2),
    "causal": Fraction(109, 16),
    "wide": Fraction(109, 16),
    "far": Fraction(59, 8),
}

# Symbols, declared once: a distance n > 0; the powers of two e = 2^s, M = 2^t
# (t > s >= 1 integers) and the a = h - e logarithmic buckets.
n = sp.Symbol("n", positive=True)
s, t, a = sp.symbols("s t a", integer=True, positive=True)


def exponents(cfg: Config) -> tuple[int, int, int, int]:
    """(a, s, t, c) with e = 2^s, max_distance = 2^t, c = t - s; refuses other sizes."""
    e, top = cfg.exact, cfg.max_distance
    s_, t_ = e.bit_length() - 1, top.bit_length() - 1
    if e != 1 << s_ or top != 1 << t_ or t_ <= s_:
        raise ValueError(f"{cfg.name}: the integer formula needs powers of two, e < max_distance")
    return cfg.half - e, s_, t_, t_ - s_


def log_steps(distance: int, cfg: Config) -> int:
    """floor(a ln(n/e) / ln(M/e)) for n >= e, as (bitlength(n^a) - 1 - a s) // c."""
    a_, s_, _, c = exponents(cfg)
    big = distance**a_  # an exact integer: floor(log2 big) = bitlength - 1
    return (big.bit_length() - 1 - a_ * s_) // c


def bucket(offset: int, cfg: Config) -> int:
    """T5's bucket of the offset key - query, from the integer formula."""
    h, e = cfg.half, cfg.exact
    if cfg.bidirectional:
        upper, distance = (h if offset > 0 else 0), abs(offset)
    else:
        upper, distance = 0, max(-offset, 0)
    if distance < e:
        return upper + distance
    return upper + min(h - 1, e + log_steps(distance, cfg))


def starts(cfg: Config) -> list[int]:
    """First distance of buckets e, e + 1, ..., h - 1, by integer roots.

    Bucket e + q begins at the least n with a log2 n - a s >= q c, that is
    n^a >= 2^(a s + q c): the ceiling of the a-th root of a power of two.
    """
    a_, s_, _, c = exponents(cfg)
    found = []
    for q in range(a_):
        power = 2 ** (a_ * s_ + q * c)
        root, whole = sp.integer_nthroot(power, a_)
        found.append(int(root) if whole else int(root) + 1)
    return found


def from_edges(distance: int, cfg: Config, upper: int) -> int:
    """The bucket of a distance read off the integer roots of ``starts`` alone.

    ``upper`` is the half the page puts the offset in (h for a key after the query
    in the encoder, 0 otherwise). Below e the bucket is the distance; from e on it
    is e + q for the last root roots[q] <= distance. Neither the formula's
    bit lengths nor the library are used.
    """
    if distance < cfg.exact:
        return upper + distance
    return upper + cfg.exact + bisect_right(starts(cfg), distance) - 1


def library(offsets: list[int], cfg: Config) -> list[int]:
    """posenc.relative.t5_bucket on a list of offsets."""
    got = t5_bucket(
        np.array(offsets, dtype=np.int64),
        bidirectional=cfg.bidirectional,
        num_buckets=cfg.num_buckets,
        max_distance=cfg.max_distance,
    )
    return [int(v) for v in got]


def first_distance_of(cfg: Config, values: list[int]) -> dict[int, int]:
    """Bucket -> least distance 0..REACH with that bucket, from per-distance buckets."""
    first: dict[int, int] = {}
    for distance, value in enumerate(values):
        first.setdefault(value, distance)
    return first


def past(cfg: Config) -> list[int]:
    """Buckets of the distances 0..REACH on the past side (offsets 0, -1, ..., -REACH)."""
    return [bucket(-d, cfg) for d in range(REACH + 1)]


def _real_part(cfg: Config) -> sp.Expr:
    """T5's real number a ln(n/e) / ln(M/e), for symbolic n."""
    a_ = cfg.half - cfg.exact
    return a_ * sp.log(n / cfg.exact) / sp.log(sp.Rational(cfg.max_distance, cfg.exact))


def _binary_part(cfg: Config) -> sp.Expr:
    """(a log2 n - a s) / c, the same number with e = 2^s and M = 2^t."""
    a_, s_, _, c = exponents(cfg)
    return (a_ * sp.log(n) / sp.log(2) - a_ * s_) / c


def checks(rec: Recorder) -> None:
    # Step 1. The real number inside T5's floor. With e = 2^s and M = 2^t it is
    # a (log2 n - s) / (t - s): the logarithms of powers of two are integers.
    rec.identity(
        "a ln(n / 2^s) / ln(2^t / 2^s) = (a log2 n - a s) / (t - s)",
        a * sp.log(n / 2**s) / sp.log(2**t / 2**s) - (a * sp.log(n) / sp.log(2) - a * s) / (t - s),
        scope="every real n > 0 and all integers t > s >= 1, a >= 1",
    )
    rec.instances(
        "the same, for the four configurations' (a, e, M)",
        ((cfg.name, _real_part(cfg) - _binary_part(cfg)) for cfg in CONFIGS),
        scope="symbolic n > 0; (a, e, M) = (8, 8, 128), (16, 16, 128), (16, 16, 128), (8, 8, 256)",
    )

    # Step 2. Two floors. For an integer c >= 1 and any real y,
    # floor(y / c) = floor(floor(y) / c); and for an integer N >= 1,
    # floor(log2 N) = bitlength(N) - 1, since 2^(b-1) <= N < 2^b. With y =
    # a log2 n - a s (a s an integer) the floor of step 1 is therefore
    # (bitlength(n^a) - 1 - a s) // c. The first fact is the argument's; here it
    # is checked on a grid of rationals, the second on every n^a used below.
    agree = sum(
        int(math.floor(Fraction(p, q) / c) == math.floor(Fraction(math.floor(Fraction(p, q)), c)))
        for p in range(-90, 91)
        for q in range(1, 8)
        for c in range(1, 7)
    )
    rec.exact(
        "floor(y / c) = floor(floor(y) / c)",
        agree,
        181 * 7 * 6,
        scope="y = p/q with p = -90..90, q = 1..7, and c = 1..6 (count of agreements, "
        "all 7602 pairs)",
    )
    held = 0
    for cfg in CONFIGS:
        a_ = exponents(cfg)[0]
        for d in range(cfg.exact, REACH + 1):
            big = d**a_
            held += int(2 ** (big.bit_length() - 1) <= big < 2 ** big.bit_length())
    rec.exact(
        "2^(bitlength(N) - 1) <= N < 2^bitlength(N) for N = n^a",
        held,
        4 * 2049 - (8 + 16 + 16 + 8),  # n = e..2048 for e = 8, 16, 16, 8
        scope="each configuration's a, every n = e..2048 (count of the n where it holds, 8148)",
    )

    # Step 3. Numeric spot check of steps 1 and 2: the real value of T5's
    # expression, at 50 digits, lies in [q, q + 1] for the integer q of the
    # formula. (At n a power of two it is an integer, where a float may fall
    # just below it; the integer formula has no such edge.)
    errors = []
    with mpmath.workdps(50):
        for cfg in CONFIGS:
            e, a_ = cfg.exact, cfg.half - cfg.exact
            margin = mpmath.mpf(10) ** -30
            scale = mpmath.log(mpmath.mpf(cfg.max_distance) / e)
            for d in range(e, 4 * cfg.max_distance + 1):
                real = a_ * mpmath.log(mpmath.mpf(d) / e) / scale
                q = log_steps(d, cfg)
                # Half-open: q <= real < q + 1. Where real is a whole number (n = 16,
                # 32, 64 in the encoder), a formula one too low would give real = q + 1;
                # the margin makes that an error of 1e-30, far above the tolerance.
                errors.append(float(max(0, q - real, real - (q + 1) + margin)))
    rec.numeric(
        "a ln(n/e) / ln(M/e) lies in [q, q + 1) for q = (bitlength(n^a) - 1 - a s) // c",
        errors,
        tol=1e-40,
        scope="each configuration, every n = e..4 max_distance; mpmath at 50 digits",
        samples=505 + 497 + 497 + 1017,  # n = e..4M: (8, 128), (16, 128), (16, 128), (8, 256)
    )

    # Step 4. The library computes what is proven: posenc.relative.t5_bucket
    # equals the integer formula at every offset from -2048 to 2048 (16 times
    # max_distance for T5) and at offsets far beyond.
    far = [x * sign for x in HUGE for sign in (1, -1)]
    offsets = list(range(-REACH, REACH + 1)) + far
    agree = sum(
        int(got == bucket(x, cfg))
        for cfg in CONFIGS
        for x, got in zip(offsets, library(offsets, cfg), strict=True)
    )
    rec.exact(
        "posenc.relative.t5_bucket(r) = the integer formula",
        agree,
        4 * (4097 + 6),  # four configurations, offsets -2048..2048 and six far ones
        scope="the four configurations; every offset -2048..2048 and +-10^6, +-2^40, +-2^62 "
        "(count of agreements: all 16412)",
    )
    # Beyond max_distance every distance shares the last bucket of its side, h - 1 on
    # the past side: the formula's cap, here at the far offsets -10^6, -2^40, -2^62.
    capped = sum(
        int(got == cfg.half - 1)
        for cfg in CONFIGS
        for got in library([x for x in far if x < 0], cfg)
    )
    rec.exact(
        "the far offsets before the query are in the last bucket, h - 1, of every configuration",
        capped,
        4 * 3,
        scope="offsets -10^6, -2^40, -2^62 through posenc.relative.t5_bucket, the four "
        "configurations (count of those in bucket h - 1)",
    )

    # Step 5. Which distances share a bucket. The first distance of each
    # logarithmic bucket, from the integer formula over 0..2048, equals the
    # integer root of ``starts``; so does the library's. The page's tables are
    # then checked edge by edge: the first and the last distance of each bucket,
    # scanned from posenc.relative.t5_bucket, against the integer roots.
    for cfg, tag in ((T5, "bi"), (T5_CAUSAL, "causal"), (WIDE, "wide"), (FAR, "far")):
        e, h = cfg.exact, cfg.half
        roots = starts(cfg)
        mine = first_distance_of(cfg, past(cfg))
        scanned = library([-d for d in range(REACH + 1)], cfg)  # by distance 0..REACH
        theirs = first_distance_of(cfg, scanned)
        good = sum(
            int(mine.get(e + q) == r) + int(theirs.get(e + q) == r) for q, r in enumerate(roots)
        )
        rec.exact(
            f"{cfg.name}: bucket e + q begins at ceil(2^((a s + q c) / a)), formula and library",
            good,
            2 * (h - e),
            scope=f"buckets {e}..{h - 1}; first distance among 0..2048 (count of matches, "
            "formula and library, two per bucket)",
        )
        if cfg in (T5, T5_CAUSAL):
            last = {value: distance for distance, value in enumerate(scanned)}
            for q, r in enumerate(roots):
                rec.exact(
                    f"{cfg.name}: bucket {e + q} begins at distance {r}",
                    theirs.get(e + q, -1),
                    r,
                    scope="least distance 0..2048 in that bucket (posenc.relative.t5_bucket) "
                    "against the integer root of step 3",
                    quantity=f"{tag}_start_{e + q}",
                    show=Show(),
                )
                if q + 1 < len(roots):
                    rec.exact(
                        f"{cfg.name}: bucket {e + q} ends at distance {roots[q + 1] - 1}",
                        last.get(e + q, -1),
                        roots[q + 1] - 1,
                        scope="greatest distance 0..2048 in that bucket (posenc.relative."
                        "t5_bucket) against the next integer root minus 1",
                        quantity=f"{tag}_end_{e + q}",
                        show=Show(),
                    )
        last_start = roots[-1]
        with mpmath.workdps(50):
            power = mpmath.mpf(LAST_EDGE[tag].numerator) / LAST_EDGE[tag].denominator
            edge = int(mpmath.ceil(mpmath.mpf(2) ** power))
        rec.exact(
            f"{cfg.name}: the last bucket begins at distance ceil(2^({LAST_EDGE[tag]}))",
            last_start,
            edge,
            scope="the integer root of the last bucket against 2^(t - c/a) with the page's "
            "(a, s, t) for this scheme, mpmath at 50 digits",
            quantity=f"{tag}_last_start",
            show=Show(),
        )
        rec.exact(
            f"{cfg.name}: the last bucket begins at distance {last_start}, below max_distance",
            last_start,
            cfg.max_distance,
            relation="<",
            scope="the integer root of the last bucket",
        )
        beyond = sum(int(v == h - 1) for v in past(cfg)[last_start:])
        rec.exact(
            f"{cfg.name}: every distance from {last_start} to 2048 is in the last bucket, {h - 1}",
            beyond,
            REACH + 1 - last_start,
            scope="distances last start..2048 (count of those in the last bucket: all of them)",
        )
    half_steps = sum(int(r == math.isqrt(2 ** (6 + q) - 1) + 1) for q, r in enumerate(starts(T5)))
    rec.exact(
        "bidirectional 32/128: bucket 8 + q begins at ceil(2^(3 + q/2)) = isqrt(2^(6+q) - 1) + 1",
        half_steps,
        8,
        scope="q = 0..7 (count of the roots of step 3 equal to the integer square root's ceiling)",
    )

    # Step 6. The exact range: distances below e each have a bucket no other
    # distance shares; e shares its bucket with e + 1. Computed, not assumed.
    for cfg, tag in ((T5, "bi"), (T5_CAUSAL, "causal")):
        values = past(cfg)
        counts: dict[int, int] = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        shared = min(d for d, v in enumerate(values) if counts[v] > 1)
        rec.exact(
            f"{cfg.name}: the least distance that shares its bucket is e = {cfg.exact}",
            shared,
            cfg.exact,
            scope="distances 0..2048 on the past side; bucket counts from the formula",
            quantity=f"{tag}_exact_below",
            show=Show(),
        )
    rec.exact(
        "bidirectional 32/128: the future side is exact below 8 as well (r and -r mirror)",
        sum(int(bucket(d, T5) - T5.half == bucket(-d, T5)) for d in range(1, REACH + 1)),
        2048,
        scope="distances 1..2048: bucket(r) = 16 + bucket(-r) (count of the r where it holds)",
    )

    # Step 7. The buckets in use. A future offset has distance >= 1, so the
    # upper half's bucket h (distance 0) is never used by the bidirectional scheme.
    used = set(library(list(range(-REACH, REACH + 1)), T5))
    unused = sorted(set(range(T5.num_buckets)) - used)
    count = rec.exact(
        "bidirectional 32/128: the offsets use all buckets but one",
        len(used),
        T5.num_buckets - 1,
        scope="offsets -2048..2048 through posenc.relative.t5_bucket (count of distinct buckets)",
        quantity="used_buckets",
        show=Show(),
    )
    rec.exact(
        "bidirectional 32/128: the bucket never used is h = 16, the upper half's distance 0",
        unused[0] if count else -1,
        T5.half,
        scope="the one bucket missing from the offsets above",
        quantity="unused_bucket",
        show=Show(),
    )
    rec.exact(
        "causal 32/128: every key after the query is in bucket 0, with offset 0",
        sum(int(bucket(r, T5_CAUSAL) == 0) for r in range(0, REACH + 1)),
        2049,
        scope="offsets 0..2048 (count of those in bucket 0: all 2049)",
    )

    # Step 8. Causal against bidirectional. The decoder's past is the encoder's
    # scheme with twice the buckets (64/128), restricted to the past; with the
    # same 32 buckets the two differ from distance 9 on.
    rec.exact(
        "causal 32/128 = bidirectional 64/128 on every offset <= 0",
        sum(int(bucket(-d, T5_CAUSAL) == bucket(-d, WIDE)) for d in range(REACH + 1)),
        2049,
        scope="offsets 0, -1, ..., -2048 (count of agreements: all 2049)",
    )
    first = min(d for d in range(REACH + 1) if bucket(-d, T5_CAUSAL) != bucket(-d, T5))
    rec.exact(
        "causal 32/128 and bidirectional 32/128 first differ on the past side at distance 9",
        first,
        T5.exact + 1,
        scope="offsets 0, -1, ..., -2048",
        quantity="first_difference",
        show=Show(),
    )

    # Step 9. Order enters through the bias (Proposition 1). With symbolic
    # scalars b_0..b_31, B[i, j] = b_(bucket(j - i)). Swapping two positions
    # moves the entry of r = 1 to r = -1: P B P^T - B = (b_1 - b_17) J, so the
    # bias, and with it the layer, is not permutation-invariant unless the two
    # learned scalars agree, and T5's sign convention is what tells them apart.
    table = sp.symbols("b_0:32", real=True)
    bias = sp.Matrix(2, 2, lambda i, j: table[bucket(int(j - i), T5)])  # (2, 2)
    swap = sp.Matrix([[0, 1], [1, 0]])
    turn = sp.Matrix([[0, 1], [-1, 0]])
    rec.identity(
        "P B P^T - B = (b_1 - b_17) [[0, 1], [-1, 0]] for the swap of two positions",
        minus(minus(product(product(swap, bias), swap.T), bias), (table[1] - table[17]) * turn),
        scope="every value of the 32 learned scalars; the products evaluated by the kit",
    )

    # Step 10. The answers of "Check yourself": offsets 40, 45 and -40 in the
    # encoder, -40 and -46 in the decoder. Each is the library's bucket, compared
    # with the bucket read off the integer roots of step 3 on the side the answer
    # names (40 and 45 after the query, the others before it), so an offset on
    # the wrong side or in another bucket fails. Then the answer's own claims:
    # 40 and 45 share a bucket, 40 and -40 do not, and -46 is the first distance
    # of the decoder's next bucket after that of -40.
    answers, asked = {}, {}
    for cfg, offset, upper, name in (
        (T5, 40, T5.half, "answer_40"),
        (T5, 45, T5.half, "answer_45"),
        (T5, -40, 0, "answer_minus_40"),
        (T5_CAUSAL, -40, 0, "answer_causal_minus_40"),
        (T5_CAUSAL, -46, 0, "answer_causal_minus_46"),
    ):
        side = "after" if upper else "before"
        answers[name], asked[name] = library([offset], cfg)[0], offset
        rec.exact(
            f"{cfg.name}: posenc.relative.t5_bucket({offset}) = the bucket of distance "
            f"{abs(offset)} {side} the query, from the integer roots",
            answers[name],
            from_edges(abs(offset), cfg, upper),
            scope=f"offset {offset}; the roots of step 3 and the side named by the answer",
            quantity=name,
            show=Show(),
        )
    rec.exact(
        "check yourself: the encoder puts 40 and 45 in one bucket",
        answers["answer_45"],
        answers["answer_40"],
        scope="the library's buckets of offsets 40 and 45 just read",
    )
    rec.exact(
        "check yourself: the encoder puts 40 and -40 in different buckets, h apart",
        answers["answer_40"] - answers["answer_minus_40"],
        T5.half,
        scope="the library's buckets of offsets 40 and -40 just read",
    )
    rec.exact(
        "check yourself: in the decoder -46 is in the bucket after that of -40",
        answers["answer_causal_minus_46"],
        answers["answer_causal_minus_40"] + 1,
        scope="the library's buckets of offsets -40 and -46 just read",
    )
    rec.exact(
        "check yourself: distance 46 is where that next decoder bucket begins",
        -asked["answer_causal_minus_46"],
        starts(T5_CAUSAL)[answers["answer_causal_minus_46"] - T5_CAUSAL.exact],
        scope="the integer root of step 3 for the bucket of offset -46",
    )

    # Step 11. The figure draws the offsets -160..160 that the page describes:
    # fig_t5_buckets' default reach, which also passes max_distance, so the
    # dotted lines at +-max_distance lie inside it.
    drawn = inspect.signature(fig_t5_buckets).parameters["reach"].default
    rec.exact(
        "the figure's offsets reach 160 on each side: fig_t5_buckets' default reach",
        drawn,
        INPUTS["figure_reach"],
        scope="posenc.figures.fig_t5_buckets, its default argument",
    )
    rec.exact(
        "the figure's reach passes max_distance, so +-max_distance is drawn",
        drawn,
        TOP,
        relation=">",
        scope="posenc.figures.fig_t5_buckets, T5's max_distance",
    )


# -- misreadings -------------------------------------------------------------------


def _exact_to_max_distance(wit: Witness) -> None:
    # "T5's buckets are exact up to max_distance": then distances 8 and 9, both
    # below 128, would have buckets of their own.
    wit.exact(
        bucket(-8, T5) == bucket(-9, T5) and 9 < T5.max_distance,
        at="bidirectional 32/128: offsets -8 and -9 are both in bucket "
        f"{bucket(-8, T5)}, and 9 < max_distance = {T5.max_distance}",
    )


def _query_minus_key(wit: Witness) -> None:
    # "It makes no difference whether the offset is key - query or query - key."
    # Query at 0, key at 5: the two conventions read different scalars.
    wit.differs(
        bucket(5 - 0, T5),
        bucket(0 - 5, T5),
        at="bidirectional 32/128, query 0, key 5: bucket(key - query) vs bucket(query - key)",
        margin=0,
        by="bucket indices, against a claim of equal buckets",
    )


def _causal_is_restricted(wit: Witness) -> None:
    # "The causal variant is the bidirectional one restricted to the past."
    # Each bucket is also read off the integer roots on the past side (from_edges),
    # so the witness holds only for the offset -12 of both schemes.
    causal, encoder = bucket(-12, T5_CAUSAL), bucket(-12, T5)
    wit.exact(
        from_edges(12, T5_CAUSAL, 0) == causal != encoder == from_edges(12, T5, 0),
        at="offset -12 (a key 12 before the query), 32 buckets, max_distance 128: "
        f"causal bucket {causal}, bidirectional bucket {encoder}",
    )


def _last_at_max_distance(wit: Witness) -> None:
    # "The last bucket begins at max_distance."
    # The scan's least distance must be the integer root of step 3 for the last bucket.
    first = min(d for d in range(REACH + 1) if bucket(-d, T5) == T5.half - 1)
    wit.exact(
        starts(T5)[-1] == first != T5.max_distance,
        at=f"bidirectional 32/128: the least distance in the last bucket is {first}, "
        f"not max_distance = {T5.max_distance}",
    )


MISREADINGS = [
    Misreading(
        "T5's buckets are exact up to max_distance",
        _exact_to_max_distance,
        why="Only distances below num_buckets/4 (8 for T5's encoder) have a bucket of their own.",
    ),
    Misreading(
        "It makes no difference whether the offset is key minus query or query minus key",
        _query_minus_key,
        why="Positive and negative offsets use different halves of the table.",
    ),
    Misreading(
        "The causal variant is the bidirectional one restricted to the past",
        _causal_is_restricted,
        why="The decoder spends all its buckets on the past: twice as many as the encoder's half.",
    ),
    Misreading(
        "The last bucket begins at max_distance",
        _last_at_max_distance,
        why="The floor reaches its top value where n^a >= 2^(a t - (t - s)), "
        "at max_distance / 2^((t - s)/a), well below max_distance.",
    ),
]
