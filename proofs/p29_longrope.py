"""Proposition 29 (LongRoPE: one searched factor per pair, two lists switched at L0).

LongRoPE (Ding et al. 2024; Hugging Face's "longrope", formerly "su") gives pair i the
speed theta_i / lambda_i, theta_i = b^(-2i/d), with lambda_i taken from one of two
searched lists: ``short_factor`` while the current length L is at most the training
length L0, ``long_factor`` once L > L0. Both cos and sin are multiplied by the
attention factor a = sqrt(1 + ln s / ln L0), s = max_position_embeddings / L0 (a = 1
when s <= 1).

(1) The score of a rotated pair depends on the positions only through m - n, whatever
the per-pair factors; with every lambda_i = s the speeds are those of position
interpolation (Proposition 24), the attention factor aside.

(2) The list is a step function of L: the same speeds for every L <= L0, other ones for
every L > L0; a cache built at L0 = 4096 is stale at 4097 (transformers PR #33129).

(3) For Phi-3-mini-128k, s = 131072/4096 = 32 and a = sqrt(17/12) exactly; a multiplies
cos and sin, so every logit is a^2 = 17/12 times the unscaled one (as in YaRN, 27).

Uses: 12, 24, 27.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from proofs import kit
from proofs.exact import cell, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 29
TITLE = "LongRoPE: one searched factor per pair, two lists switched at L0"
USES = (12, 24, 27)

# The numbers this proposition takes from Phi-3-mini-128k's rotary fields (its
# config.json): training length, stretched length and base; a position inside a long
# sequence for the second misreading; a uniform factor for the comparison with PI.
INPUTS = {
    "l0": 4096,
    "max_positions": 131072,
    "base": 10000,
    "position": 100,
    "uniform": 4,
}

#: Phi-3-mini-128k's rotary fields; its two 48-long factor lists are seeded stand-ins
#: of the published shape (see the file's _comment), not Microsoft's searched values.
CONFIG = Path(kit.__file__).resolve().parent.parent / "data/configs/phi-3-mini-128k-shape.json"

m, n, w = sp.symbols("m n omega", real=True)
q1, q2, k1, k2 = sp.symbols("q1 q2 k1 k2", real=True)
theta, lam, amp = sp.symbols("theta lambda a", positive=True)


def rotate(x1: sp.Expr, x2: sp.Expr, angle: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """A 2-vector turned by ``angle``."""
    return x1 * sp.cos(angle) - x2 * sp.sin(angle), x1 * sp.sin(angle) + x2 * sp.cos(angle)


def pair_score(speed: sp.Expr, scale: sp.Expr = 1) -> sp.Expr:
    """q at position m and k at position n, both turned at ``speed``, cos and sin scaled."""
    qa = rotate(q1, q2, m * speed)
    ka = rotate(k1, k2, n * speed)
    return sum(scale * x * scale * y for x, y in zip(qa, ka, strict=True))


def offset_form(speed: sp.Expr) -> sp.Expr:
    """The same score written through the offset n - m alone."""
    gap = (n - m) * speed
    return (q1 * k1 + q2 * k2) * sp.cos(gap) + (q2 * k1 - q1 * k2) * sp.sin(gap)


def logit_scale(factor: sp.Expr) -> sp.Expr:
    """How much the attention factor multiplies a logit: once on q's cos/sin, once on k's."""
    return factor**2


def attention_factor(s: sp.Expr, length: sp.Expr) -> sp.Expr:
    """sqrt(1 + ln s / ln L0), as LongRoPE (and Hugging Face) define it for s > 1."""
    return sp.sqrt(1 + sp.log(s) / sp.log(length))


def exact_speeds(spec: rope.RopeConfig, factors: list[float]) -> list[mpmath.mpf]:
    """theta_i / lambda_i at 50 digits, the factors taken as their exact float values."""
    with mpmath.workdps(50):
        return [
            mpmath.mpf(spec.base) ** (-mpmath.mpf(2 * i) / spec.head_dim) / mpmath.mpf(f)
            for i, f in enumerate(factors)
        ]


def checks(rec: Recorder) -> None:
    # Step 1. The offset property survives any per-pair factor: a pair turned at
    # omega = theta/lambda, q at m and k at n, scores through (n - m) omega alone.
    rec.identity(
        "a pair at speed theta/lambda: the score of q at m and k at n depends on n - m only",
        pair_score(theta / lam) - offset_form(theta / lam),
        scope="every q, k, real m, n, theta > 0 and per-pair factor lambda > 0",
    )

    # The configuration: each number the page quotes from it is compared with the file.
    spec = rope.read_config(CONFIG)
    params = spec.params
    l0 = INPUTS["l0"]
    where = "data/configs/phi-3-mini-128k-shape.json, read with posenc.rope.read_config"
    rec.exact(
        "Phi-3-mini-128k's config names the longrope scheme (1 if so)",
        int(spec.scheme == "longrope"),
        1,
        scope=where,
    )
    for field_name, in_file, used in (
        ("original_max_position_embeddings L0", params["original_max_position_embeddings"], l0),
        ("max_position_embeddings", params["max_position_embeddings"], INPUTS["max_positions"]),
        ("rope_theta b", spec.base, INPUTS["base"]),
    ):
        rec.exact(
            f"Phi-3-mini-128k's config: {field_name} is {used}",
            Fraction(in_file),
            used,
            scope=where,
        )
    short, long = list(params["short_factor"]), list(params["long_factor"])
    width = spec.head_dim  # hidden_size / num_attention_heads
    rec.exact(
        f"the short list has one factor per rotated pair: d/2 = {width // 2}",
        len(short),
        width // 2,
        scope=f"{where}; d = hidden_size / num_attention_heads",
        quantity="pairs",
        show=Show(),
    )
    rec.exact(
        f"the long list has one factor per rotated pair: d/2 = {width // 2}",
        len(long),
        width // 2,
        scope=f"{where}; d = hidden_size / num_attention_heads",
    )

    # Step 2. With every lambda_i = s, LongRoPE's speeds are PI's: posenc's longrope
    # speeds with uniform lists equal its linear ones, float for float.
    s_pi = INPUTS["uniform"]
    uniform, _ = rope.inv_freq(
        "longrope",
        width,
        base=float(spec.base),
        factor=float(s_pi),
        original_max_position_embeddings=l0,
        short_factor=[float(s_pi)] * (width // 2),
        long_factor=[float(s_pi)] * (width // 2),
    )
    linear, _ = rope.inv_freq("linear", width, base=float(spec.base), factor=float(s_pi))
    compared = list(zip(uniform.tolist(), linear.tolist(), strict=True))
    rec.exact(
        f"every lambda_i = {s_pi}: pairs compared, one per rotated pair (d/2)",
        len(compared),
        width // 2,
        scope=f"d = {width}; posenc's longrope and linear speeds",
    )
    rec.exact(
        f"every lambda_i = {s_pi}: posenc's longrope speeds equal its PI speeds (differing pairs)",
        sum(int(x != y) for x, y in compared),
        0,
        scope=f"d = {width}, b = 1e4, s = {s_pi}; float64 values compared exactly",
    )

    # Step 3. The lists differ pair by pair, and from each other.
    spread = rec.exact(
        "the short list is not one factor: its number of distinct values is > 1",
        len(set(short)),
        1,
        relation=">",
        scope="the config's 48 short factors (stand-ins of the published shape)",
    )
    rec.quantity("distinct_short", len(set(short)), show=Show(), by=spread)
    rec.exact(
        "the long list is not one factor: its number of distinct values is > 1",
        len(set(long)),
        1,
        relation=">",
        scope="the config's 48 long factors (stand-ins of the published shape)",
    )
    rec.exact(
        "short and long factors differ at every pair (pairs that differ, against all pairs)",
        sum(int(x != y) for x, y in zip(short, long, strict=True)),
        len(short),
        scope="the config's two 48-long lists",
        quantity="differing_pairs",
        show=Show(),
    )

    # Step 4. The switch: posenc's speeds at L = 1, 4096 are the short list's, at 4097
    # and 131072 the long list's; each agrees with theta_i / lambda_i at 50 digits.
    want_short, want_long = exact_speeds(spec, short), exact_speeds(spec, long)
    errors = []
    for length, want in (
        (1, want_short),
        (l0, want_short),
        (l0 + 1, want_long),
        (INPUTS["max_positions"], want_long),
    ):
        got, _ = spec.inv_freq(seq_len=length)
        errors += [
            float(abs(mpmath.mpf(float(g)) / v - 1))
            for g, v in zip(got.tolist(), want, strict=True)
        ]
    rec.numeric(
        "posenc's speeds at L = 1, 4096 use the short list, at 4097, 131072 the long list "
        "(relative error)",
        errors,
        tol=2.3e-16,
        scope="4 lengths x 48 pairs against mpmath at 50 digits; float64",
    )
    at_l0, _ = spec.inv_freq(seq_len=l0)
    past, _ = spec.inv_freq(seq_len=l0 + 1)
    rec.exact(
        "a cache of speeds built at L = 4096 is wrong at 4097 (count of pairs that differ)",
        sum(int(x != y) for x, y in zip(at_l0.tolist(), past.tolist(), strict=True)),
        len(short),
        scope="posenc.rope, the config's lists; float64 values compared exactly",
    )
    # The slowest pair: how many times slower posenc turns it past L0, against the ratio
    # of its two factors in the config (their float values as exact rationals).
    last = len(short) - 1
    slowest = rec.close(
        "the slowest pair turns long_factor/short_factor times slower past L0: posenc's speed "
        "at 4096 over its speed at 4097",
        float(at_l0[last]) / float(past[last]),
        Fraction(long[last]) / Fraction(short[last]),
        tol=1e-12,
        scope=f"pair {last}, posenc.rope's float64 speeds against the config's factors; "
        "absolute error, a ratio near 50",
    )
    rec.quantity(
        "stale_ratio_last",
        Fraction(long[last]) / Fraction(short[last]),
        show=Show(sig=3),
        by=slowest,
    )
    # The misreadings' witnesses, whose differences the page shows, pinned here: the
    # first one's factors against the lists, the second one's angles against mpmath.
    last_long, first_long = _long_last_first()
    rec.exact(
        "the first misreading's witness: last long factor minus first, against the list",
        last_long - first_long,
        Fraction(long[last]) - Fraction(long[0]),
        scope=f"{where}; pairs {last} and 0",
    )
    used_angle, short_angle = _angles_at_position()
    p = INPUTS["position"]
    with mpmath.workdps(50):
        angle_errors = [
            float(abs(mpmath.mpf(float(used_angle)) / (p * want_long[last]) - 1)),
            float(abs(mpmath.mpf(float(short_angle)) / (p * want_short[last]) - 1)),
        ]
    rec.numeric(
        "the second misreading's witness: posenc's angles at position 100, pair 47, at "
        "L = 8192 and 4096 are p theta_47 / long_47 and p theta_47 / short_47 (relative error)",
        angle_errors,
        tol=4.5e-16,
        scope="float64 angles against mpmath at 50 digits",
    )

    # Step 5. The attention factor. For s = 131072/4096 = 32: ln 32 / ln 4096 = 5/12,
    # so a = sqrt(17/12), and the logits scale by a^2 = 17/12.
    s_phi = Fraction(INPUTS["max_positions"], l0)
    rec.exact("s = 131072/4096 is 32", s_phi, 32, scope="exact rationals", quantity="s_phi")
    exact_a = attention_factor(sp.Rational(s_phi.numerator, s_phi.denominator), sp.Integer(l0))
    rec.identity(
        "sqrt(1 + ln 32 / ln 4096) = sqrt(17/12)",
        exact_a - sp.sqrt(sp.Rational(17, 12)),
        scope="one exact point: s = 32, L0 = 4096",
    )
    shown = cell(float(mpmath.sqrt(mpmath.mpf(17) / 12)), Show(decimals=4))
    # floor(10^6 sqrt(17/12)) = isqrt(floor(10^12 * 17/12)): the largest r with r^2 <= N;
    # sqrt(17/12) is irrational, so lo < sqrt(17/12) < lo + 10^-6.
    root = math.isqrt(17 * 10**12 // 12)
    rec.exact(
        "1.190238 < sqrt(17/12) < 1.190239: the integer square root of floor(10^12 * 17/12) "
        "is 1190238 (squares against 17/12)",
        root,
        1190238,
        scope="exact integers",
    )
    lo = Fraction(root, 10**6)
    hi = lo + Fraction(1, 10**6)
    check = inside_cell(
        rec,
        f"sqrt(17/12) shows as {shown.text}",
        (lo, hi),
        shown,
        scope="exact enclosure of sqrt(17/12)",
    )
    rec.quantity(
        "attention_phi3", float(mpmath.sqrt(mpmath.mpf(17) / 12)), show=Show(decimals=4), by=check
    )
    _, got_a = spec.inv_freq(seq_len=l0)
    rec.numeric(
        "posenc's attention factor for the config is sqrt(17/12) (relative error)",
        [abs(got_a / float(mpmath.sqrt(mpmath.mpf(17) / 12)) - 1)],
        tol=2.3e-16,
        scope="posenc.rope.read_config on the Phi-3 config; float64 against mpmath",
    )
    ones = [
        rope.inv_freq(
            "longrope",
            width,
            base=float(spec.base),
            factor=f,
            original_max_position_embeddings=l0,
            short_factor=short,
            long_factor=long,
        )[1]
        for f in (0.5, 1.0)
    ]
    rec.exact(
        "s = 1/2 and s = 1: posenc's attention factor is exactly 1 (count of others)",
        sum(int(x != 1.0) for x in ones),
        0,
        scope="d = 96, L0 = 4096; float64 values compared exactly",
    )
    rec.identity(
        "a multiplies cos and sin: the scaled score is a^2 times the unscaled one",
        pair_score(theta / lam, amp) - logit_scale(amp) * pair_score(theta / lam),
        scope="every q, k, m, n, theta, lambda > 0 and a > 0",
    )
    rec.exact(
        "for Phi-3-mini-128k the logits scale by a^2 = 17/12",
        sp.Rational(sp.nsimplify(logit_scale(exact_a))),
        sp.Rational(17, 12),
        scope="exact: the square of sqrt(17/12)",
    )
    # posenc's caches carry a on both: cos^2 + sin^2 of the cache is a^2, not a.
    cos, sin = rope.cos_sin(np.arange(8), at_l0, attention_factor=got_a)
    rec.numeric(
        "posenc's cos/sin cache: cos^2 + sin^2 = a^2 = 17/12 (relative error)",
        (cos**2 + sin**2) / (17 / 12) - 1,
        tol=1e-15,
        scope="positions 0-7, the 48 speeds at L = 4096; float64",
    )


# -- misreadings -------------------------------------------------------------------


def _long_last_first() -> tuple[sp.Rational, sp.Rational]:
    """The config's last and first long factors, exact (pinned in ``checks``)."""
    params = rope.read_config(CONFIG).params
    return (
        sp.Rational(Fraction(params["long_factor"][-1])),
        sp.Rational(Fraction(params["long_factor"][0])),
    )


def _angles_at_position() -> tuple[sp.Rational, sp.Rational]:
    """Position 100, pair 47: posenc's angle at L = 8192 and at L0 (pinned in ``checks``)."""
    spec = rope.read_config(CONFIG)
    used, _ = spec.inv_freq(seq_len=2 * INPUTS["l0"])
    claimed, _ = spec.inv_freq(seq_len=INPUTS["l0"])
    p = INPUTS["position"]
    return (
        sp.Rational(Fraction(float(p * used[-1]))),
        sp.Rational(Fraction(float(p * claimed[-1]))),
    )


def _one_factor(wit: Witness) -> None:
    last_long, first_long = _long_last_first()
    wit.differs(
        last_long,
        first_long,
        at="the config's long list, last pair against first pair",
        margin=0,
        by="exact, against a claim of exact equality",
    )


def _long_from_position_l0(wit: Witness) -> None:
    # In one sequence of length 8192, position 100 (< L0) turns with the long list, not
    # the short one: pair 47's angle differs.
    used_angle, short_angle = _angles_at_position()
    wit.differs(
        used_angle,
        short_angle,
        at="a sequence of 8192 tokens, position 100, pair 47: posenc's angle against the "
        "short list's",
        margin=sp.Rational(1, 10**6),
        by="far above float64 rounding of angles below 1",
    )


def _logits_once(wit: Witness) -> None:
    a = attention_factor(sp.Integer(32), sp.Integer(INPUTS["l0"]))
    wit.differs(
        sp.nsimplify(logit_scale(a)),
        a,
        at="s = 32, L0 = 4096: the logit scale a^2 = 17/12 against a = sqrt(17/12)",
        margin=sp.Rational(1, 10),
        by="a tenth",
    )


MISREADINGS = [
    Misreading(
        "LongRoPE uses one factor s for every pair",
        _one_factor,
        why="Each pair has its own searched factor; only with all of them equal to s is it "
        "position interpolation.",
    ),
    Misreading(
        "The long factors are used from position L0 on within one sequence",
        _long_from_position_l0,
        why="The list is chosen by the current length, and then used for every position of "
        "the sequence, the first ones included.",
    ),
    Misreading(
        "The attention factor multiplies the logits once",
        _logits_once,
        why="It multiplies cos and sin, so it enters both q and k: the logits scale by its "
        "square.",
    ),
]
