"""Proposition 29 (LongRoPE: one searched factor per pair, two lists switched at L0).

LongRoPE (Ding et al. 2024; Hugging Face's "longrope", formerly "su") gives pair i the
speed theta_i / lambda_i, theta_i = b^(-2i/d), with lambda_i taken from one of two
searched lists: ``short_factor`` while the current length L is at most the training
length L0, ``long_factor`` once L > L0. Both cos and sin are multiplied by the
attention factor a = sqrt(1 + ln s / ln L0), s = max_position_embeddings / L0 (a = 1
when s <= 1): the rule of Transformers' _compute_longrope_parameters (5.24), used when
the config gives no attention_factor.

(1) The score of a rotated pair depends on the positions only through m - n, whatever
the per-pair factors; with every lambda_i = s the speeds are those of position
interpolation (Proposition 24), the attention factor aside.

(2) The list is a step function of L: the same speeds for every L <= L0, other ones for
every L > L0; speeds cached at L0 are wrong at L0 + 1 on every pair whose two factors
differ. Transformers (PR #33129) throws the key-value cache away when the input first
reaches L0 + 1 tokens.

(3) a multiplies cos and sin, so the rotated part of every logit is a^2 times the
unscaled one; for s = 32, L0 = 4096 that is 17/12 exactly.

(4) The shipped lists, read by posenc from Microsoft's Phi-3.5-mini-instruct config and
compared with the raw JSON: L0 = 4096, s = 32, 48 pairs; the short list rises from 1 to
about 2.84, the long list from about 1.08 to about 64.8, about 2.03 s; 28 long factors
exceed s; the two lists differ at all 48 pairs. Phi-4-mini-instruct (partial rotary,
48 of 64 pairs turn): short list all ones, long from 1 to 47.77, differing at 47 pairs.

Uses: 12, 24, 27.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import model_config, rope
from posenc.figures import longrope as figure
from proofs import kit
from proofs.exact import cell, inside_cell
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 29
TITLE = "LongRoPE: one searched factor per pair, two lists switched at L0"
USES = (12, 24, 27)

# The numbers this proposition takes from Phi-3.5-mini-instruct's rotary fields (its
# config.json, compared with the file in step 0): training length, stretched length and
# base. A position inside a long sequence for the second misreading; the length of a
# short prompt for the fourth; a uniform factor for the comparison with PI.
INPUTS = {
    "l0": 4096,
    "max_positions": 131072,
    "base": 10000,
    "position": 100,
    "prompt": 100,
    "uniform": 4,
}

CONFIG_DIR = Path(kit.__file__).resolve().parent.parent / "data/configs"
#: Microsoft's Phi-3.5-mini-instruct config, both 48-long factor lists whole
#: (data/configs/README.md gives where they were read).
CONFIG = CONFIG_DIR / "phi-3.5-mini-instruct.json"
#: Phi-4-mini-instruct: LongRoPE with partial rotary (three quarters of a 128-wide head).
PHI4 = CONFIG_DIR / "phi-4-mini-instruct.json"
#: Every config kept in data/configs whose scheme is LongRoPE, by the model's name. The
#: shape file has Phi-3-mini-128k's fields and seeded stand-in lists; this page uses
#: none of its factors.
LONGROPE_MODELS = {
    "phi-3-mini-128k-shape": "Phi-3-mini-128k (stand-in factors)",
    "phi-3.5-mini-instruct": "Phi-3.5-mini-instruct",
    "phi-4-mini-instruct": "Phi-4-mini-instruct",
}

m, n, w = sp.symbols("m n omega", real=True)
q1, q2, k1, k2 = sp.symbols("q1 q2 k1 k2", real=True)
p1, p2, r1, r2 = sp.symbols("p1 p2 r1 r2", real=True)
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
    """sqrt(1 + ln s / ln L0), as Transformers' _compute_longrope_parameters has it, s > 1."""
    return sp.sqrt(1 + sp.log(s) / sp.log(length))


def exact_speeds(base: int, width: int, factors: list[float]) -> list[mpmath.mpf]:
    """theta_i / lambda_i at 50 digits over a rotated width, factors as exact float values."""
    with mpmath.workdps(50):
        return [
            mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / width) / mpmath.mpf(f)
            for i, f in enumerate(factors)
        ]


def raw(path: Path) -> dict:
    """A config file as plain JSON."""
    return json.loads(path.read_text())


def descents(values: list) -> int:
    """How many times a list goes down from one entry to the next (exact rationals)."""
    return sum(int(Fraction(b) < Fraction(a)) for a, b in itertools.pairwise(values))


def checks(rec: Recorder) -> None:
    # Step 1. The offset property survives any per-pair factor: a pair turned at
    # omega = theta/lambda, q at m and k at n, scores through (n - m) omega alone.
    rec.identity(
        "a pair at speed theta/lambda: the score of q at m and k at n depends on n - m only",
        pair_score(theta / lam) - offset_form(theta / lam),
        scope="every q, k, real m, n, theta > 0 and per-pair factor lambda > 0",
    )

    # Step 0 of the page. Phi-3.5-mini-instruct's config, read by posenc two ways
    # (posenc.rope.read_config, posenc.model_config.read_model) and compared with the file
    # read as plain JSON: every number the page quotes from it.
    spec = rope.read_config(CONFIG)
    params = spec.params
    file = raw(CONFIG)
    scaling = file["rope_scaling"]
    l0 = INPUTS["l0"]
    where = "data/configs/phi-3.5-mini-instruct.json: posenc.rope.read_config against the JSON"
    rec.exact(
        "Phi-3.5-mini's config names the longrope scheme, in the file and as posenc reads it "
        "(1 if both)",
        int(spec.scheme == "longrope") * int(scaling["type"] == "longrope"),
        1,
        scope=where,
    )
    rec.exact(
        "the figure draws this config (1 if its module reads the same file)",
        int(figure._CONFIG.resolve() == CONFIG.resolve()),
        1,
        scope="posenc.figures.longrope",
    )
    fields = 0
    for field_name, read, in_file, used in (
        (
            "original_max_position_embeddings L0",
            params["original_max_position_embeddings"],
            file["original_max_position_embeddings"],
            l0,
        ),
        (
            "max_position_embeddings",
            params["max_position_embeddings"],
            file["max_position_embeddings"],
            INPUTS["max_positions"],
        ),
        ("rope_theta b", spec.base, file["rope_theta"], INPUTS["base"]),
    ):
        rec.exact(
            f"Phi-3.5-mini's config: {field_name}, as posenc reads it, against the file",
            Fraction(read),
            Fraction(in_file),
            scope=where,
        )
        rec.exact(
            f"Phi-3.5-mini's config: {field_name} is {used}",
            Fraction(read),
            used,
            scope=where,
        )
        fields += 1
    rec.exact("fields compared: L0, positions, base", fields, 3, scope="the loop above")
    short, long = list(params["short_factor"]), list(params["long_factor"])
    width = spec.head_dim  # hidden_size / num_attention_heads
    rec.exact(
        "head width d = hidden_size / num_attention_heads, posenc against the file",
        width,
        Fraction(file["hidden_size"], file["num_attention_heads"]),
        scope=where,
    )
    rec.exact(
        "posenc's lists are the file's, entry by entry (entries that differ, of both lists)",
        sum(
            int(Fraction(x) != Fraction(y))
            for x, y in zip(
                short + long, scaling["short_factor"] + scaling["long_factor"], strict=True
            )
        ),
        0,
        scope=where,
    )
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
    reading = model_config.read_model(CONFIG)
    kinds = reading.kinds
    rec.exact(
        "posenc.model_config.read_model: one kind of layer, rotating every one of the file's "
        "layers, with read_config's scheme, width, base and lists (mismatches)",
        sum(
            [
                int(len(kinds) != 1),
                int(kinds[0].layers != tuple(range(file["num_hidden_layers"]))),
                int(not kinds[0].rotates),
                int(kinds[0].rope.scheme != spec.scheme),
                int(kinds[0].rope.head_dim != width),
                int(kinds[0].rope.base != spec.base),
                int(list(kinds[0].rope.params["short_factor"]) != short),
                int(list(kinds[0].rope.params["long_factor"]) != long),
            ]
        ),
        0,
        scope="data/configs/phi-3.5-mini-instruct.json",
    )

    # Which kept configs are LongRoPE: every file of data/configs read by posenc.
    found = set()
    files = sorted(CONFIG_DIR.glob("*.json"))
    for path in files:
        for kind in model_config.read_model(path).kinds:
            if kind.rotates and kind.rope.scheme == "longrope":
                found.add(path.stem)
    rec.exact(
        "the configs whose layers rotate with longrope are the page's list (differences)",
        len(found ^ set(LONGROPE_MODELS)),
        0,
        scope="data/configs/*.json read by posenc.model_config.read_model",
    )
    rec.exact(
        "of them, the shipped ones (the shape file's lists are stand-ins)",
        len(found - {"phi-3-mini-128k-shape"}),
        2,
        scope="Phi-3.5-mini-instruct and Phi-4-mini-instruct",
        quantity="shipped_longrope",
        show=Show(),
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

    # Step 3. What the shipped lists look like. Each list never goes down from one pair
    # to the next; the short one runs from 1 to under 3, the long one from about 1 to
    # about twice s. Every value is the file's float as an exact rational.
    s_phi = Fraction(params["max_position_embeddings"], params["original_max_position_embeddings"])
    rec.exact("s = 131072/4096 is 32", s_phi, 32, scope="exact rationals", quantity="s_phi")
    fs, fl = [Fraction(x) for x in short], [Fraction(x) for x in long]
    rec.exact(
        "the short list never falls from one pair to the next: entries below the one before",
        descents(short),
        0,
        scope=where,
    )
    rec.exact(
        "the long list never falls from one pair to the next: entries below the one before",
        descents(long),
        0,
        scope=where,
    )
    rec.exact(
        "the short list starts at exactly 1",
        fs[0],
        1,
        scope=where,
    )
    rec.exact(
        "the largest short factor is the file's last one",
        max(fs),
        Fraction(scaling["short_factor"][-1]),
        scope=where,
        quantity="short_max",
        show=Show(decimals=2),
    )
    rec.exact("and it is below 3", max(fs), 3, relation="<", scope=where)
    rec.exact(
        "the smallest long factor is the file's first one",
        min(fl),
        Fraction(scaling["long_factor"][0]),
        scope=where,
        quantity="long_min",
        show=Show(decimals=2),
    )
    rec.exact(
        "the largest long factor is the file's last one",
        max(fl),
        Fraction(scaling["long_factor"][-1]),
        scope=where,
        quantity="long_max",
        show=Show(decimals=2),
    )
    rec.band(
        "the largest long factor over s is about 2: between 2 and 2.1",
        max(fl) / s_phi,
        low=2,
        high=Fraction(21, 10),
        scope=where,
        quantity="long_over_s",
        show=Show(decimals=2),
    )
    above = [x for x in fl if x > s_phi]
    rec.exact(
        "long factors above s: the count of the file's floats above 32, counted again as the "
        "length of the list's tail past its first entry above 32",
        len(above),
        len(fl) - next(i for i, x in enumerate(fl) if x > 32),
        scope=f"{where}; the list rises, so the factors above s are a tail",
        quantity="long_above_s",
        show=Show(),
    )
    spread = rec.exact(
        "the short list is not one factor: its number of distinct values is > 1",
        len(set(fs)),
        1,
        relation=">",
        scope=f"{where}; the 48 short factors",
    )
    rec.quantity("distinct_short", len(set(fs)), show=Show(), by=spread)
    rec.exact(
        "the long list is not one factor: its number of distinct values is > 1",
        len(set(fl)),
        1,
        relation=">",
        scope=f"{where}; the 48 long factors",
    )
    rec.exact(
        "short and long factors differ at every pair (pairs that differ, against all pairs)",
        sum(int(x != y) for x, y in zip(fs, fl, strict=True)),
        len(short),
        scope=f"{where}; the two 48-long lists",
        quantity="differing_pairs",
        show=Show(),
    )
    rec.exact(
        "the long factor is the larger at every pair (pairs where it is not)",
        sum(int(y <= x) for x, y in zip(fs, fl, strict=True)),
        0,
        scope=f"{where}; the two 48-long lists",
    )

    # Step 4. The switch: posenc's speeds at L = 1, 4096 are the short list's, at 4097
    # and 131072 the long list's; each agrees with theta_i / lambda_i at 50 digits.
    want_short = exact_speeds(INPUTS["base"], width, short)
    want_long = exact_speeds(INPUTS["base"], width, long)
    errors, lengths = [], 0
    for length, want in (
        (1, want_short),
        (l0, want_short),
        (l0 + 1, want_long),
        (INPUTS["max_positions"], want_long),
    ):
        got, _ = spec.inv_freq(seq_len=length)
        lengths += 1
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
        samples=2 * width,  # 4 lengths x d/2 pairs
    )
    rec.exact("lengths compared", lengths, 4, scope="the loop above")
    at_l0, _ = spec.inv_freq(seq_len=l0)
    past, _ = spec.inv_freq(seq_len=l0 + 1)
    rec.exact(
        "a cache of speeds built at L = 4096 is wrong at 4097 (count of pairs that differ)",
        sum(int(x != y) for x, y in zip(at_l0.tolist(), past.tolist(), strict=True)),
        len(short),
        scope="posenc.rope, Phi-3.5-mini's lists; float64 values compared exactly",
    )
    # The slowest pair: how many times slower posenc turns it past L0, against the ratio
    # of its two factors in the config (their float values as exact rationals).
    last = len(short) - 1
    slowest = rec.close(
        "the slowest pair turns long_factor/short_factor times slower past L0: posenc's speed "
        "at 4096 over its speed at 4097",
        float(at_l0[last]) / float(past[last]),
        Fraction(long[last]) / Fraction(short[last]),
        tol=1e-13,
        scope=f"pair {last}, posenc.rope's float64 speeds against the config's factors; "
        "absolute error, a ratio near 23",
    )
    rec.quantity(
        "stale_ratio_last",
        Fraction(long[last]) / Fraction(short[last]),
        show=Show(sig=3),
        by=slowest,
    )

    # Phi-4-mini: partial rotary. 48 of its 64 pairs turn, the exponent over the rotated
    # width 96; its short list is all ones, its long one starts at 1, so pair 0 keeps its
    # speed across the switch and the 47 others change.
    four = rope.read_config(PHI4)
    four_file = raw(PHI4)
    f_short = [Fraction(x) for x in four.params["short_factor"]]
    f_long = [Fraction(x) for x in four.params["long_factor"]]
    turned = rope.rotary_dim(four.head_dim, four.params["partial_rotary_factor"])
    where4 = "data/configs/phi-4-mini-instruct.json: posenc.rope.read_config against the JSON"
    rec.exact(
        "Phi-4-mini: posenc's scheme, width, share, L0, positions and lists against the file "
        "(mismatches)",
        sum(
            [
                int(four.scheme != four_file["rope_scaling"]["type"]),
                int(
                    Fraction(four.head_dim)
                    != Fraction(four_file["hidden_size"], four_file["num_attention_heads"])
                ),
                int(
                    Fraction(four.params["partial_rotary_factor"])
                    != Fraction(four_file["partial_rotary_factor"])
                ),
                int(
                    four.params["original_max_position_embeddings"]
                    != four_file["original_max_position_embeddings"]
                ),
                int(
                    four.params["max_position_embeddings"] != four_file["max_position_embeddings"]
                ),
                int(f_short != [Fraction(x) for x in four_file["rope_scaling"]["short_factor"]]),
                int(f_long != [Fraction(x) for x in four_file["rope_scaling"]["long_factor"]]),
            ]
        ),
        0,
        scope=where4,
    )
    rec.exact(
        "Phi-4-mini's head width, hidden_size / num_attention_heads",
        four.head_dim,
        128,
        scope=where4,
        quantity="p4_head",
        show=Show(),
    )
    rec.exact(
        "Phi-4-mini's rotated width: int(128 * 3/4)",
        turned,
        96,
        scope=f"{where4}; posenc.rope.rotary_dim",
        quantity="p4_rotated",
        show=Show(),
    )
    rec.exact(
        "Phi-4-mini's short list: one factor per rotated pair",
        len(f_short),
        turned // 2,
        scope=where4,
        quantity="p4_pairs",
        show=Show(),
    )
    rec.exact(
        "Phi-4-mini's long list: one factor per rotated pair",
        len(f_long),
        turned // 2,
        scope=where4,
    )
    rec.exact(
        "Phi-4-mini's short factors that are not 1",
        sum(int(x != 1) for x in f_short),
        0,
        scope=where4,
    )
    rec.exact("Phi-4-mini's long list starts at exactly 1", f_long[0], 1, scope=where4)
    rec.exact(
        "Phi-4-mini's long list never falls: entries below the one before them",
        descents(four.params["long_factor"]),
        0,
        scope=where4,
    )
    rec.exact(
        "Phi-4-mini's largest long factor is the file's last",
        max(f_long),
        Fraction(four_file["rope_scaling"]["long_factor"][-1]),
        scope=where4,
        quantity="p4_long_max",
        show=Show(decimals=2),
    )
    four_l0 = four.params["original_max_position_embeddings"]
    rec.exact(
        "Phi-4-mini stretches the same L0 = 4096 to the same 131072 positions as Phi-3.5-mini "
        "(fields that differ)",
        sum(
            [
                int(four_l0 != l0),
                int(four.params["max_position_embeddings"] != INPUTS["max_positions"]),
            ]
        ),
        0,
        scope=where4,
    )
    four_at, _ = four.inv_freq(seq_len=four_l0)
    four_past, _ = four.inv_freq(seq_len=four_l0 + 1)
    moved = [int(x != y) for x, y in zip(four_at.tolist(), four_past.tolist(), strict=True)]
    rec.exact(
        "Phi-4-mini: the speeds posenc changes from L0 to L0 + 1 are the pairs whose two "
        "factors differ (pairs where the two counts disagree)",
        sum(int(a != int(x != y)) for a, x, y in zip(moved, f_short, f_long, strict=True)),
        0,
        scope=f"{where4}; the 48 rotated pairs, float64 speeds compared exactly",
    )
    rec.exact(
        "Phi-4-mini: pairs whose speed changes at the switch, of its 48",
        sum(moved),
        len(moved) - 1,
        scope=f"{where4}; all but pair 0, whose two factors are both 1",
        quantity="p4_differing",
        show=Show(),
    )
    rec.exact(
        "Phi-4-mini: the pair that keeps its speed is pair 0 (its index)",
        moved.index(0),
        0,
        scope=where4,
    )
    want_four = exact_speeds(INPUTS["base"], turned, four.params["long_factor"])
    rec.numeric(
        "Phi-4-mini past L0: posenc's speeds are b^(-2i/96) / long_factor[i] (relative error)",
        [float(abs(mpmath.mpf(float(g)) / v - 1))
         for g, v in zip(four_past.tolist(), want_four, strict=True)],
        tol=2.3e-16,
        scope="48 pairs, the exponent over the rotated width, mpmath at 50 digits",
        samples=len(four_file["rope_scaling"]["long_factor"]),
    )  # fmt: skip

    # The misreadings' witnesses, whose differences the page shows, pinned here: the
    # first one's factors against the lists, the others' angles against mpmath.
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
    prompt_angle, allocated_angle = _short_prompt_angles()
    q = INPUTS["prompt"] - 1
    with mpmath.workdps(50):
        prompt_errors = [
            float(abs(mpmath.mpf(float(prompt_angle)) / (q * want_short[0]) - 1)),
            float(abs(mpmath.mpf(float(allocated_angle)) / (q * want_long[0]) - 1)),
        ]
    rec.numeric(
        "the fourth misreading's witness: pair 0's angle at the last position of a 100-token "
        "prompt is 99 theta_0 / short_0 (posenc) and 99 theta_0 / long_0 (the misreading)",
        prompt_errors,
        tol=2.3e-16,
        scope="float64 angles against mpmath at 50 digits",
    )

    # Step 5. The attention factor. For s = 131072/4096 = 32: ln 32 / ln 4096 = 5/12,
    # so a = sqrt(17/12), and the logits scale by a^2 = 17/12.
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
    _, got_a4 = four.inv_freq(seq_len=four_l0)
    rec.numeric(
        "posenc's attention factor for Phi-3.5-mini and Phi-4-mini is sqrt(17/12) "
        "(relative error)",
        [abs(got_a / float(mpmath.sqrt(mpmath.mpf(17) / 12)) - 1),
         abs(got_a4 / float(mpmath.sqrt(mpmath.mpf(17) / 12)) - 1)],
        tol=2.3e-16,
        scope="posenc.rope.read_config on both configs (s = 32, L0 = 4096 in each); float64 "
        "against mpmath",
    )  # fmt: skip
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
        sum(int(x != 1.0) for x in ones) + 2 - len(ones),
        0,
        scope="d = 96, L0 = 4096; float64 values compared exactly",
    )
    rec.identity(
        "a multiplies cos and sin: the scaled score is a^2 times the unscaled one",
        pair_score(theta / lam, amp) - logit_scale(amp) * pair_score(theta / lam),
        scope="every q, k, m, n, theta, lambda > 0 and a > 0",
    )
    # Partial rotary (Phi-4-mini): the pass-through coordinates p, r are not multiplied
    # (Transformers' apply_rotary_pos_emb concatenates q_pass unchanged), so only the
    # rotated part of the logit carries a^2.
    rec.identity(
        "partial rotary: a rotated pair and two pass-through coordinates score "
        "a^2 (rotated term) + (pass-through term)",
        pair_score(theta / lam, amp)
        + (p1 * r1 + p2 * r2)
        - (logit_scale(amp) * offset_form(theta / lam) + p1 * r1 + p2 * r2),
        scope="every q, k, pass-through p, r, m, n, theta, lambda > 0 and a > 0",
    )
    rec.exact(
        "for s = 32 and L0 = 4096 the logits scale by a^2 = 17/12",
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


def _short_prompt_angles() -> tuple[sp.Rational, sp.Rational]:
    """A 100-token prompt, its last position, pair 0: posenc's angle (the current length
    chooses the list) and the angle with the list an allocated 131072 would choose."""
    spec = rope.read_config(CONFIG)
    used, _ = spec.inv_freq(seq_len=INPUTS["prompt"])
    allocated, _ = spec.inv_freq(seq_len=INPUTS["max_positions"])
    q = INPUTS["prompt"] - 1
    return (
        sp.Rational(Fraction(float(q * used[0]))),
        sp.Rational(Fraction(float(q * allocated[0]))),
    )


def _one_factor(wit: Witness) -> None:
    last_long, first_long = _long_last_first()
    wit.differs(
        last_long,
        first_long,
        at="Phi-3.5-mini's long list, last pair against first pair",
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
        at="Phi-3.5-mini, a sequence of 8192 tokens, position 100, pair 47: posenc's angle "
        "against the short list's",
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


def _list_by_allocated_context(wit: Witness) -> None:
    # An engine that allocates 131072 positions and reads a prompt of 100 tokens: the
    # reference turns pair 0 at theta_0 / short_0 = 1, the misreading at 1 / long_0.
    prompt_angle, allocated_angle = _short_prompt_angles()
    wit.differs(
        prompt_angle,
        allocated_angle,
        at="Phi-3.5-mini, a prompt of 100 tokens in a context of 131072 allocated, position "
        "99, pair 0: posenc's angle against the long list's",
        margin=1,
        by="a radian",
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
    Misreading(
        "The list is chosen by the context the engine allocates, or the model's longest",
        _list_by_allocated_context,
        why="Transformers chooses by the current length: a short prompt turns with the short "
        "list however many positions are allocated (llama.cpp#8995, #24823; "
        "onnxruntime-genai#1787).",
    ),
]
