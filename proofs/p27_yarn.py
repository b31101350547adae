"""Proposition 27 (YaRN: a ramp between keeping and interpolating; a temperature applied twice).

A rotary head of rotated width d and base b > 1 turns pair i at theta_i = b^(-2i/d). Trained
on L0 > 2 pi positions and stretched by s > 1, pair i turns r_i = L0 theta_i / (2 pi) times
in L0 positions.

1. The correction dimension. r_i = rho exactly when i = c(rho) = d ln(L0 / (2 pi rho)) /
   (2 ln b), and c decreases as rho grows.
2. Two ramps, both continuous at their edges. The paper (Peng et al. 2024): gamma(r) = 0 for
   r < alpha, (r - alpha)/(beta - alpha) between, 1 for r > beta (alpha = 1, beta = 32),
   theta'_i = (1 - gamma(r_i)) theta_i / s + gamma(r_i) theta_i. The reference code and
   Hugging Face: low = floor(c(beta_fast)), high = ceil(c(beta_slow)) (beta_fast = 32,
   beta_slow = 1; unrounded when truncate is false; clipped to [0, d - 1]), rho_j =
   clamp((j - low)/(high - low), 0, 1), theta'_j = (1 - rho_j) theta_j + rho_j theta_j / s.
3. Same ends, different middle. If 0 < c(32) < c(1) < d/2 - 1 and neither is a whole number,
   both forms (either truncate) keep exactly the pairs up to floor(c(32)) and divide by s
   exactly the pairs from ceil(c(1)) on. Strictly inside, the paper's share of
   interpolation is concave in the index and meets the unrounded code ramp at both ends, so
   the paper slows every inside pair more than the unrounded code. Llama 2 (d = 128,
   b = 10^4, L0 = 4096) stretched 16 times: pair 30 keeps 133/208 of its speed under the
   code and about 0.295 under the paper. Truncation changes speeds too (pair 45).
4. The temperature. Both cos and sin caches are multiplied by a = sqrt(1/t) = 0.1 ln s + 1,
   so a logit <a R_m q, a R_n k> = a^2 <q, R_(n-m) k> gains a^2 = 1/t: 1.4591 at s = 8.
   With DeepSeek's mscale and mscale_all_dim the cache factor is m(s, mscale) /
   m(s, mscale_all_dim), m(s, mu) = 0.1 mu ln s + 1: 1 for DeepSeek-V3 (both 1).

The heads' widths, bases, training lengths and factors (and DeepSeek-V3's beta_fast,
beta_slow, mscale and mscale_all_dim) are compared with their config.json files under
data/configs; a^2 at s = 8 with the sources' 1.4591.

posenc.rope follows the code's form; its floor and ceil are taken of the float64 value of
c, as the reference code does. Every number of the page is enclosed here in exact rational
arithmetic (pi between two rationals, logarithms by the atanh series with a tail bound,
powers of the base by integer roots).

Uses: 12, 24, 25.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import mpmath
import numpy as np
import sympy as sp

from posenc import rope
from posenc.rotary import rotary
from proofs import kit
from proofs.exact import (
    PI_HIGH,
    PI_LOW,
    cell,
    enclose_pi,
    inside_cell,
    minus,
    pick,
    product,
)
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 27
TITLE = "YaRN: a ramp between keeping and interpolating, and a temperature applied twice"
USES = (12, 24, 25)


class Config(NamedTuple):
    """A stretched rotary head: rotated width, base, training length, scale."""

    key: str
    name: str
    dim: int
    base: int
    length: int
    factor: int


# The numbers this proposition chooses or quotes. The heads' widths, bases and training
# lengths, Qwen2.5's and DeepSeek-V3's factors are those of their config.json files under
# data/configs (step 1 compares each with its file); Llama 2's s = 16 is the YaRN paper's
# own run; the 0.1 of the temperature and the s = 8 at which the page shows it (FACTS'
# 1.4591); a mismatched DeepSeek mscale for the library check of step 7.
INPUTS = {
    "width": 128,
    "llama2_base": 10**4,
    "llama2_length": 4096,
    "llama2_factor": 16,
    "qwen_base": 10**6,
    "qwen_length": 32768,
    "qwen_factor": 4,
    "deepseek_width": 64,
    "deepseek_base": 10**4,
    "deepseek_length": 4096,
    "deepseek_factor": 40,
    "tenth": Fraction(1, 10),
    "temperature_scale": 8,
    "mismatched_mscale": Fraction(707, 1000),
}

#: The YaRN paper's own Llama 2 run (s = 16), Qwen2.5's recommended YaRN entry (s = 4 over
#: 32768) and DeepSeek-V3's config.json (rotated width 64, s = 40 over 4096).
LLAMA2 = Config(
    "llama2",
    "Llama 2",
    INPUTS["width"],
    INPUTS["llama2_base"],
    INPUTS["llama2_length"],
    INPUTS["llama2_factor"],
)
QWEN = Config(
    "qwen",
    "Qwen2.5",
    INPUTS["width"],
    INPUTS["qwen_base"],
    INPUTS["qwen_length"],
    INPUTS["qwen_factor"],
)
DEEPSEEK = Config(
    "deepseek",
    "DeepSeek-V3",
    INPUTS["deepseek_width"],
    INPUTS["deepseek_base"],
    INPUTS["deepseek_length"],
    INPUTS["deepseek_factor"],
)
CONFIGS = (LLAMA2, QWEN, DEEPSEEK)
#: The published config.json files (their rotary fields) of the Llama 2 and Qwen2.5 heads
#: and of DeepSeek-V3.
ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_FILES = {
    "llama2": ROOT / "data/configs/llama-2-7b.json",
    "qwen": ROOT / "data/configs/qwen2.5-7b-yarn-4.json",
    "deepseek": ROOT / "data/configs/deepseek-v3.json",
}

BETA_FAST, BETA_SLOW = 32, 1  # the code's names; the paper calls them beta and alpha
ALPHA, BETA = BETA_SLOW, BETA_FAST
TENTH = INPUTS["tenth"]  # the 0.1 of the temperature
TEMPERATURE_SCALE = INPUTS["temperature_scale"]  # the s at which the page shows a and a^2
#: FACTS-modern.md's figure for the logit factor a^2 at s = 8 (shared/FACTS-modern.md).
FACTS_LOGIT_FACTOR = "1.4591"
RAMP_PAIR, TRUNCATE_PAIR = 30, 45  # Llama 2's pairs where the forms differ most

# Symbols, declared once. Widths, lengths, rotation counts, scales and the base are positive
# (the base's logarithm stands for ln b > 0); the ramp's ends: alpha > 0 and beta = alpha +
# delta with delta > 0; the pair index x is real (the ramp is read at real indices).
d, L0, rho, s, a, mu = sp.symbols("d L_0 rho s a mu", positive=True)
b, lnb, delta, alpha = sp.symbols("b ln_b delta alpha", positive=True)
x, lo, hi, m, n, w, t = sp.symbols("x low high m n w t", real=True)
theta = sp.Symbol("theta", positive=True)
beta = alpha + delta


# -- the two ramps, symbolically -------------------------------------------------------


def rotations(index: sp.Expr) -> sp.Expr:
    """r = L0 b^(-2 i / d) / (2 pi), the power left unevaluated (SymPy would cancel it)."""
    power = sp.Pow(b, sp.Mul(-2, index, 1 / d, evaluate=False), evaluate=False)
    return sp.Mul(L0, power, 1 / (2 * sp.pi), evaluate=False)


def correction_dim(turns: sp.Expr) -> sp.Expr:
    """c(rho): the real pair index that turns rho times in L0 positions."""
    return d * sp.log(L0 / (2 * sp.pi * turns)) / (2 * sp.log(b))


def gamma(r: sp.Expr) -> sp.Piecewise:
    """The paper's ramp in the rotation count: 0 below alpha, 1 above beta."""
    return sp.Piecewise((0, r < alpha), ((r - alpha) / (beta - alpha), r <= beta), (1, True))


def ramp(j: sp.Expr) -> sp.Piecewise:
    """The code's ramp in the pair index: clamp((j - low)/(high - low), 0, 1)."""
    return sp.Piecewise((0, j < lo), ((j - lo) / (hi - lo), j <= hi), (1, True))


def edge(piece: sp.Expr, at: sp.Expr, side: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """piece(at) - side, with the substitution left for the kit to carry out."""
    return sp.Add(sp.Subs(piece, var, at), -side, evaluate=False)


# -- exact enclosures ------------------------------------------------------------------

Interval = tuple[Fraction, Fraction]
_GRID = Fraction(1, 10**70)  # enclosures are rounded outwards to this grid


def _outward(low: Fraction, high: Fraction) -> Interval:
    """[low, high], each end with a long denominator widened to a multiple of 10^-70.

    Short rationals (133/208) stay exact; long ones would otherwise grow with every step.
    """
    if low.denominator > _GRID.denominator:
        low = Fraction(math.floor(low / _GRID)) * _GRID
    if high.denominator > _GRID.denominator:
        high = Fraction(math.ceil(high / _GRID)) * _GRID
    return low, high


def _series_atanh2(z: Fraction) -> Interval:
    """2 atanh(z) = ln((1 + z)/(1 - z)) for |z| <= 1/3, enclosed.

    2 sum_k z^(2k+1)/(2k+1), stopped at K terms; the rest is at most
    |z|^(2K+1) / ((2K+1)(1 - z^2)) in size (a geometric series bounds it).
    """
    total, power, k = Fraction(0), z, 0
    while True:
        tail = abs(power) / ((2 * k + 1) * (1 - z * z))
        if tail < Fraction(1, 10**75):
            return _outward(2 * (total - tail), 2 * (total + tail))
        total += power / (2 * k + 1)
        power *= z * z
        k += 1


LN2 = _series_atanh2(Fraction(1, 3))  # (1 + 1/3)/(1 - 1/3) = 2


def ln_bounds(value: Fraction | int) -> Interval:
    """Rationals enclosing ln(value), value > 0: value = 2^e y with 2/3 <= y <= 4/3."""
    y = Fraction(value)
    if y <= 0:
        raise ValueError("ln needs a positive number")
    e = y.numerator.bit_length() - y.denominator.bit_length()
    y /= Fraction(2) ** e
    while y > Fraction(4, 3):
        y, e = y / 2, e + 1
    while y < Fraction(2, 3):
        y, e = y * 2, e - 1
    low, high = _series_atanh2((y - 1) / (y + 1))  # |z| <= 1/5
    two = LN2 if e >= 0 else (LN2[1], LN2[0])
    return low + e * two[0], high + e * two[1]


def _add(p: Interval, q: Interval) -> Interval:
    return p[0] + q[0], p[1] + q[1]


def _sub(p: Interval, q: Interval) -> Interval:
    return p[0] - q[1], p[1] - q[0]


def _mul(p: Interval, q: Interval) -> Interval:
    products = [u * v for u in p for v in q]
    return _outward(min(products), max(products))


def _div(p: Interval, q: Interval) -> Interval:
    if q[0] <= 0 <= q[1]:
        raise ZeroDivisionError("the divisor's enclosure contains 0")
    return _mul(p, (1 / q[1], 1 / q[0]))


def _point(v: Fraction | int) -> Interval:
    return Fraction(v), Fraction(v)


def _clamp(p: Interval) -> Interval:
    return min(max(p[0], Fraction(0)), Fraction(1)), min(max(p[1], Fraction(0)), Fraction(1))


def iroot(value: int, k: int) -> int:
    """floor(value^(1/k)) for integers value >= 0, k >= 1, by Newton's method from above."""
    if value < 2:
        return value
    guess = 1 << -(-value.bit_length() // k)  # 2^ceil(bits/k) > the root
    while True:
        better = ((k - 1) * guess + value // guess ** (k - 1)) // k
        if better >= guess:
            return guess
        guess = better


_SCALE = 10**40


def power_bounds(base: int, p: int, q: int) -> Interval:
    """base^(p/q) for p >= 0 between N/10^40 and (N + 1)/10^40, N = floor(root): exact."""
    target = base**p * _SCALE**q
    root = iroot(target, q)
    assert root**q <= target < (root + 1) ** q
    return Fraction(root, _SCALE), Fraction(root + 1, _SCALE)


def speed_bounds(cfg: Config, j: int) -> Interval:
    """theta_j = b^(-2j/d), from the enclosure of b^(2j/d)."""
    exponent = Fraction(2 * j, cfg.dim)
    up = power_bounds(cfg.base, exponent.numerator, exponent.denominator)
    return 1 / up[1], 1 / up[0]


def turns_bounds(cfg: Config, j: int) -> Interval:
    """r_j = L0 theta_j / (2 pi), with pi between PI_LOW and PI_HIGH."""
    return _div(_mul(_point(cfg.length), speed_bounds(cfg, j)), (2 * PI_LOW, 2 * PI_HIGH))


def dim_bounds(cfg: Config, turns: int) -> Interval:
    """c(turns) = d (ln L0 - ln(2 pi turns)) / (2 ln b)."""
    ln_turn = ln_bounds(2 * PI_LOW * turns)[0], ln_bounds(2 * PI_HIGH * turns)[1]
    top = _mul(_point(cfg.dim), _sub(ln_bounds(cfg.length), ln_turn))
    return _div(top, _mul(_point(2), ln_bounds(cfg.base)))


def paper_ratio(cfg: Config, j: int) -> Interval:
    """theta'_j / theta_j under the paper's ramp: gamma + (1 - gamma)/s, gamma = gamma(r_j)."""
    g = _clamp(_div(_sub(turns_bounds(cfg, j), _point(ALPHA)), _point(BETA - ALPHA)))
    keep = 1 - Fraction(1, cfg.factor)
    return _outward(Fraction(1, cfg.factor) + g[0] * keep, Fraction(1, cfg.factor) + g[1] * keep)


def code_ratio(cfg: Config, j: int, low: Interval, high: Interval) -> Interval:
    """theta'_j / theta_j under the code's ramp: 1 - rho_j (1 - 1/s), rho_j = clamp(...)."""
    r = _clamp(_div(_sub(_point(j), low), _sub(high, low)))
    keep = 1 - Fraction(1, cfg.factor)
    return 1 - r[1] * keep, 1 - r[0] * keep


def truncated_range(cfg: Config) -> tuple[int, int]:
    """(max(floor c(32), 0), min(ceil c(1), d - 1)), decided from the exact enclosures."""
    fast, slow = dim_bounds(cfg, BETA_FAST), dim_bounds(cfg, BETA_SLOW)
    assert math.floor(fast[0]) == math.floor(fast[1]) and math.ceil(slow[0]) == math.ceil(slow[1])
    return max(math.floor(fast[0]), 0), min(math.ceil(slow[1]), cfg.dim - 1)


def quoted_fields(cfg: Config) -> list[tuple[str, Fraction, Fraction]]:
    """(field, value in the head's config.json, value this proof uses) for each quoted field.

    The rotated width is head_dim = hidden_size / num_attention_heads, or DeepSeek's
    qk_rope_head_dim; Llama 2 has no scaling entry, so its training length is
    max_position_embeddings and its s is the paper's, not the file's.
    """
    raw = json.loads(CONFIG_FILES[cfg.key].read_text(encoding="utf-8"))
    scaling = raw.get("rope_scaling") or {}
    if "qk_rope_head_dim" in raw:
        width = Fraction(raw["qk_rope_head_dim"])
    else:
        width = Fraction(raw["hidden_size"], raw["num_attention_heads"])
    fields = [
        ("rotated width d", width, Fraction(cfg.dim)),
        ("rope_theta b", Fraction(raw["rope_theta"]), Fraction(cfg.base)),
    ]
    if scaling:
        fields += [
            (
                "L0 (original_max_position_embeddings)",
                Fraction(scaling["original_max_position_embeddings"]),
                Fraction(cfg.length),
            ),
            ("factor s", Fraction(scaling["factor"]), Fraction(cfg.factor)),
        ]
    else:
        fields.append(
            (
                "L0 (max_position_embeddings)",
                Fraction(raw["max_position_embeddings"]),
                Fraction(cfg.length),
            )
        )
    if cfg.key == DEEPSEEK.key:
        fields += [
            ("beta_fast", Fraction(scaling["beta_fast"]), Fraction(BETA_FAST)),
            ("beta_slow", Fraction(scaling["beta_slow"]), Fraction(BETA_SLOW)),
            ("mscale", Fraction(scaling["mscale"]), Fraction(1)),
            ("mscale_all_dim", Fraction(scaling["mscale_all_dim"]), Fraction(1)),
        ]
    return fields


def reference_dim(turns: float, cfg: Config) -> float:
    """c(turns) in float64, written as the reference code writes it (math.log)."""
    return (cfg.dim * math.log(cfg.length / (turns * 2 * math.pi))) / (2 * math.log(cfg.base))


def mscale_bounds(factor: int, scale: Fraction) -> Interval:
    """m(s, mu) = 0.1 mu ln s + 1, enclosed."""
    return _add(_mul(_point(TENTH * scale), ln_bounds(factor)), _point(1))


def _fraction(value: mpmath.mpf) -> Fraction:
    """An mpmath number as the exact rational it is (mantissa times a power of two)."""
    mantissa, exponent = value.man_exp
    return Fraction(mantissa) * Fraction(2) ** exponent


def _nearest(want: mpmath.mpf) -> float:
    """The float64 nearest ``want``: mpmath rounds to 53 bits, to nearest."""
    with mpmath.workprec(53):
        return float(+want)


# -- the temperature, as caches ----------------------------------------------------------


def rotate_half(v: np.ndarray) -> np.ndarray:
    """Hugging Face's rotate_half: (x1, x2) -> (-x2, x1) on the two halves of the last axis."""
    half = v.shape[-1] // 2
    return np.concatenate([-v[..., half:], v[..., :half]], axis=-1)


def rotate_with_caches(v: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """v cos + rotate_half(v) sin: the split-half rotation read from the caches."""
    return v * cos + rotate_half(v) * sin  # (L, d)


def checks(rec: Recorder) -> None:
    pi_check = enclose_pi(rec)
    assert pi_check  # every enclosure below stands on it

    # Step 1. The correction dimension. In L0 positions pair i turns r_i = L0 b^(-2i/d)/(2 pi)
    # times. Taking logarithms, r_i = rho reads ln(L0/(2 pi)) - (2i/d) ln b = ln rho, which
    # is linear in i; its one solution is c(rho). SymPy solves it, with ln b a positive
    # symbol, and the solution is compared with c(rho) written with ln b.
    i = sp.Symbol("i", real=True)
    solved = sp.solve(sp.Eq(sp.log(L0 / (2 * sp.pi)) - 2 * i * lnb / d, sp.log(rho)), i)
    c_lnb = d * sp.log(L0 / (2 * sp.pi * rho)) / (2 * lnb)
    rec.identity(
        "ln(L0/(2 pi)) - (2i/d) ln b = ln rho has one solution, i = d ln(L0/(2 pi rho))/(2 ln b)",
        sp.Add(solved[0], -c_lnb, evaluate=False) if len(solved) == 1 else sp.Integer(1),
        scope="every d, L0, rho > 0 and ln b > 0 (b > 1); SymPy's solve, then the difference",
    )
    rec.identity(
        "r(c(rho)) = rho: the pair at index c(rho) turns rho times in L0 positions",
        sp.Add(rotations(correction_dim(rho)), -rho, evaluate=False),
        scope="every d, L0, rho, b > 0; b^(-2c/d) left unevaluated for the kit",
    )
    rec.identity(
        "c(r_i) = i: the correction dimension of a pair's own rotation count is its index",
        correction_dim(rotations(i)) - i,
        scope="every real i and d, L0, b > 0",
    )
    rec.identity(
        "dc/drho = -d/(2 rho ln b) < 0: more rotations, smaller index",
        sp.Derivative(c_lnb, rho) + d / (2 * rho * lnb),
        scope="every d, L0, rho > 0 and ln b > 0",
    )

    # The three heads, as their config.json files give them: every width, base, training
    # length and factor the page's table quotes is compared with its file (Llama 2's s = 16
    # is the paper's run, in no file); DeepSeek-V3's file also sets the ramp's ends and both
    # mscales, which steps 1 and 7 use.
    compared = 0
    for cfg in CONFIGS:
        for field_name, in_file, used in quoted_fields(cfg):
            compared += 1
            rec.exact(
                f"{cfg.name}'s config.json: {field_name} is {used}",
                in_file,
                used,
                scope=f"data/configs/{CONFIG_FILES[cfg.key].name}, read as JSON",
            )
    rec.exact(
        "every quoted field was compared with its file: 3 of Llama 2 (d, b, L0), 4 of Qwen2.5 "
        "(d, b, L0, s), 8 of DeepSeek-V3 (also beta_fast, beta_slow and both mscales)",
        compared,
        15,
        scope="the three config.json files under data/configs",
    )

    # The library's c against mpmath (50 digits), and its correction range against the
    # exact enclosures. The range is floored and ceiled from the float64 value, as the
    # reference code does; the check is that, for these configurations, the float64 value
    # lies in the same whole-number cell as the true one (so the floors agree).
    errors = []
    with mpmath.workdps(50):
        for cfg in CONFIGS:
            for turns in (BETA_FAST, BETA_SLOW, 2, 7.5, 100):
                want = cfg.dim * mpmath.log(cfg.length / (turns * 2 * mpmath.pi))
                want /= 2 * mpmath.log(cfg.base)
                got = rope.yarn_correction_dim(turns, cfg.dim, float(cfg.base), cfg.length)
                errors.append(float(mpmath.mpf(got) - want))
    rec.numeric(
        "posenc.rope.yarn_correction_dim(rho, d, b, L0) = d ln(L0/(2 pi rho))/(2 ln b)",
        errors,
        tol=1e-13,
        scope="Llama 2, Qwen2.5, DeepSeek-V3 configurations; rho = 32, 1, 2, 7.5, 100; "
        "absolute error against mpmath at 50 digits (the values lie between -20 and 50)",
    )
    ranges = {}
    right = 0
    for cfg in CONFIGS:
        fast, slow = dim_bounds(cfg, BETA_FAST), dim_bounds(cfg, BETA_SLOW)
        low, high = truncated_range(cfg)
        ranges[cfg.key] = (low, high, fast, slow)
        for bounds, turns in ((fast, BETA_FAST), (slow, BETA_SLOW)):
            value = Fraction(reference_dim(turns, cfg))
            right += math.floor(bounds[0]) < value < math.floor(bounds[0]) + 1
            right += math.floor(bounds[0]) == math.floor(bounds[1])
        right += rope.yarn_correction_range(
            BETA_FAST, BETA_SLOW, cfg.dim, float(cfg.base), cfg.length
        ) == (low, high)
        right += rope.yarn_correction_range(
            BETA_FAST, BETA_SLOW, cfg.dim, float(cfg.base), cfg.length, truncate=False
        ) == (reference_dim(BETA_FAST, cfg), reference_dim(BETA_SLOW, cfg))
    rec.exact(
        "posenc.rope.yarn_correction_range: floor c(32) and ceil c(1) as the exact values give "
        "them; unrounded, the reference code's float64 c (count of the 18 comparisons that hold)",
        right,
        18,
        scope="the three configurations, 6 comparisons each; c enclosed exactly, never a whole "
        "number; the float64 c in the same cell between whole numbers",
    )
    # The hypothesis of step 3 for the three heads, 0 < c(32) < c(1) < d/2 - 1, from the
    # exact enclosures; then each end of the range against the enclosure it rounds: the
    # floor l of c(32) is the whole number in [c(32) - 1, c(32)], the ceiling h of c(1) the
    # one in [c(1), c(1) + 1] (c is never whole here, so each is the only one).
    hypotheses = enclosed = 0  # the comparisons and bands below that hold, counted after
    for cfg in CONFIGS:
        _, _, fast, slow = ranges[cfg.key]
        last = range(cfg.dim // 2)[-1]  # d/2 - 1, the last pair's index
        for claim, lhs, rhs, relation in (
            ("0 < c(32)", fast[0], 0, ">"),
            ("c(32) < c(1)", fast[1], slow[0], "<"),
            (f"c(1) < d/2 - 1 = {last}", slow[1], last, "<"),
        ):
            hypotheses += bool(
                rec.exact(
                    f"{cfg.name} meets the hypothesis of step 3: {claim}",
                    lhs,
                    rhs,
                    relation=relation,
                    scope=f"{cfg.name}: exact enclosures of c(32) and c(1)",
                )
            )
        # posenc's range itself, each end against the exact enclosure it must round
        low, high = rope.yarn_correction_range(
            BETA_FAST, BETA_SLOW, cfg.dim, float(cfg.base), cfg.length
        )
        rec.band(
            f"{cfg.name}: the range starts at floor c(32) = {low}: c(32) - 1 <= {low} <= c(32)",
            low,
            low=fast[1] - 1,
            high=fast[0],
            scope=f"{cfg.name}: posenc's truncated range against the exact enclosure of c(32)",
            quantity=f"{cfg.key}_low",
            show=Show(),
        )
        rec.band(
            f"{cfg.name}: the range ends at ceil c(1) = {high}: c(1) <= {high} <= c(1) + 1",
            high,
            low=slow[1],
            high=slow[0] + 1,
            scope=f"{cfg.name}: posenc's truncated range against the exact enclosure of c(1)",
            quantity=f"{cfg.key}_high",
            show=Show(),
        )
        for name, bounds, turns in (("fast", fast, BETA_FAST), ("slow", slow, BETA_SLOW)):
            with mpmath.workdps(90):
                want = cfg.dim * mpmath.log(cfg.length / (2 * mpmath.pi * turns))
                want /= 2 * mpmath.log(cfg.base)
            enclosed += bool(
                rec.band(
                    f"{cfg.name}: the exact enclosure of c({turns}) holds mpmath's value",
                    _fraction(want),
                    low=bounds[0],
                    high=bounds[1],
                    scope=f"{cfg.name}: mpmath at 90 digits against the enclosure (atanh series "
                    "for ln, pi between two rationals)",
                )
            )
            shown = Show(decimals=2)
            rec.quantity(
                f"{cfg.key}_{name}_dim",
                pick(bounds),
                show=shown,
                by=inside_cell(
                    rec,
                    f"{cfg.name}: c({BETA_FAST if name == 'fast' else BETA_SLOW}) shows as "
                    f"{cell(pick(bounds), shown).text}",
                    bounds,
                    cell(pick(bounds), shown),
                    scope=f"{cfg.name}: d = {cfg.dim}, b = {cfg.base}, L0 = {cfg.length}; "
                    "exact enclosure",
                ),
            )

    # Neither loop above may be cut short: every head meets the hypothesis, and every
    # enclosure was held against mpmath.
    rec.exact(
        "the three heads meet the hypothesis of step 3, 0 < c(32) < c(1) < d/2 - 1 (count of "
        "the 3 x 3 comparisons above that hold)",
        hypotheses,
        9,
        scope="Llama 2, Qwen2.5, DeepSeek-V3: exact enclosures of c(32) and c(1)",
    )
    rec.exact(
        "the exact enclosures of c(32) and c(1) hold mpmath's values (count of the 3 x 2 bands "
        "above that hold)",
        enclosed,
        6,
        scope="Llama 2, Qwen2.5, DeepSeek-V3: mpmath at 90 digits against the enclosures",
    )

    # Step 2. Both ramps are continuous at their edges. Each is made of three pieces, each
    # piece continuous; at an edge the two neighbouring pieces agree. The paper's gamma at
    # r = alpha and r = beta; the code's ramp at j = low and j = high.
    r_ = sp.Symbol("r", positive=True)
    middle = (r_ - alpha) / (beta - alpha)
    rec.identity(
        "paper: the middle piece (r - alpha)/(beta - alpha) is 0 at r = alpha",
        edge(middle, alpha, 0, r_),
        scope="every alpha > 0 and beta = alpha + delta, delta > 0",
    )
    rec.identity(
        "paper: the middle piece is 1 at r = beta",
        edge(middle, beta, 1, r_),
        scope="every alpha > 0 and beta = alpha + delta, delta > 0",
    )
    line = (x - lo) / (hi - lo)
    rec.identity(
        "code: the middle piece (j - low)/(high - low) is 0 at j = low",
        edge(line, lo, 0, x),
        scope="every real low < high",
    )
    rec.identity(
        "code: the middle piece is 1 at j = high",
        edge(line, hi, 1, x),
        scope="every real low < high",
    )
    # The new speed is the blend (1 - u) theta + u theta/s of the interpolated share u
    # (u = 1 - gamma for the paper, u = rho for the code): theta at u = 0, theta/s at u = 1.
    u = sp.Symbol("u", real=True)
    blend = (1 - u) * theta + u * theta / s
    rec.identity(
        "the blend (1 - u) theta + u theta/s is theta at u = 0",
        edge(blend, 0, theta, u),
        scope="every speed theta > 0 and scale s > 0",
    )
    rec.identity(
        "the blend is theta/s at u = 1",
        edge(blend, 1, theta / s, u),
        scope="every speed theta > 0 and scale s > 0",
    )
    # The pieces as SymPy evaluates the Piecewise itself, at both sides of each edge.
    rec.instances(
        "the Piecewise forms take the edge values: gamma(alpha) = 0, gamma(beta) = 1, "
        "ramp(low) = 0, ramp(high) = 1; and 0 below, 1 above their ranges",
        (
            ("gamma(alpha)", sp.Subs(gamma(r_), r_, alpha)),
            ("gamma(beta) - 1", sp.Add(sp.Subs(gamma(r_), r_, beta), -1, evaluate=False)),
            ("ramp(low)", sp.Subs(ramp(x), x, lo).subs(hi, lo + delta)),
            (
                "ramp(high) - 1",
                sp.Add(sp.Subs(ramp(x), x, hi), -1, evaluate=False).subs(hi, lo + delta),
            ),
            ("gamma(alpha/2)", sp.Subs(gamma(r_), r_, alpha / 2)),
            ("gamma(beta + delta) - 1", sp.Add(sp.Subs(gamma(r_), r_, beta + delta), -1)),
            ("ramp(low - delta)", sp.Subs(ramp(x), x, lo - delta).subs(hi, lo + delta)),
            (
                "ramp(high + delta) - 1",
                sp.Add(sp.Subs(ramp(x), x, hi + delta), -1).subs(hi, lo + delta),
            ),
        ),
        scope="symbolic alpha, delta > 0, real low, high = low + delta; at both edges and "
        "beyond them (0 below, 1 above)",
    )

    # Step 3. Same ends. The paper's ramp in the (real) pair index: u(x) = 1 - gamma(r(x)) =
    # (beta - r(x))/(beta - alpha) inside. At x = c(beta) it is 0 and at x = c(alpha) it is
    # 1, where the unrounded code ramp is 0 and 1 too. Its second derivative is
    # -k^2 r(x)/(beta - alpha) < 0, k = 2 ln b / d: the paper's share is concave, so above
    # its chord, which is the unrounded code ramp.
    share = (beta - L0 * sp.exp(-2 * x * lnb / d) / (2 * sp.pi)) / (beta - alpha)
    c_beta = d * sp.log(L0 / (2 * sp.pi * beta)) / (2 * lnb)
    c_alpha = d * sp.log(L0 / (2 * sp.pi * alpha)) / (2 * lnb)
    rec.identity(
        "paper's share of interpolation is 0 at x = c(beta)",
        edge(share, c_beta, 0, x),
        scope="every d, L0, ln b > 0, alpha > 0, beta = alpha + delta",
    )
    rec.identity(
        "paper's share of interpolation is 1 at x = c(alpha)",
        edge(share, c_alpha, 1, x),
        scope="every d, L0, ln b > 0, alpha > 0, beta = alpha + delta",
    )
    k = 2 * lnb / d
    second = sp.Derivative(share, (x, 2)) + k**2 * (L0 * sp.exp(-k * x) / (2 * sp.pi)) / delta
    rec.identity(
        "u''(x) = -k^2 r(x)/(beta - alpha), k = 2 ln b/d: negative, so u is concave",
        second,
        scope="every real x and d, L0, ln b, alpha, delta > 0",
    )

    # The ends, pair by pair, for the three configurations: which pairs each form keeps
    # (ratio 1) and which it divides by s (ratio 1/s), in exact arithmetic. The paper's gamma
    # is 1 exactly when r_j > beta and 0 when r_j < alpha.
    matched = 0
    counts = {}
    for cfg in CONFIGS:
        low, high, fast, slow = ranges[cfg.key]
        floors = (_point(low), _point(high))
        forms = (
            lambda j, cfg=cfg: paper_ratio(cfg, j),
            lambda j, cfg=cfg, floors=floors: code_ratio(cfg, j, *floors),
            lambda j, cfg=cfg, fast=fast, slow=slow: code_ratio(cfg, j, fast, slow),
        )
        for form in forms:
            for j in range(cfg.dim // 2):
                ratio = form(j)
                matched += (ratio == _point(1)) == (j <= low)
                matched += (ratio[1] == Fraction(1, cfg.factor)) == (j >= high)
        # How many pairs the paper keeps, blends and divides, counted from its gamma alone
        # (r_j against alpha and beta, no correction dimension): the page's counts.
        ratios = [paper_ratio(cfg, j) for j in range(cfg.dim // 2)]
        kept = sum(int(r == _point(1)) for r in ratios)
        divided = sum(int(r == _point(Fraction(1, cfg.factor))) for r in ratios)
        counts[cfg.key] = (kept, cfg.dim // 2 - kept - divided, divided)
    rec.exact(
        "paper, code and unrounded code keep pairs 0..floor c(32) and divide pairs "
        "ceil c(1).. by s, and no others (count of the 2 x 3 x 160 pair tests that hold)",
        matched,
        960,
        scope="Llama 2 (s = 16), Qwen2.5 (s = 4), DeepSeek-V3 (s = 40); every pair, three "
        "forms; exact enclosures of r_j and c",
    )
    # The counts against the range: the paper keeps l + 1 pairs (0..l), blends h - l - 1
    # and divides d/2 - h (h..d/2 - 1), l and h the ends of the range shown above.
    for cfg in CONFIGS:
        low, high = ranges[cfg.key][:2]
        for name, value, want, how in zip(
            ("kept", "blended", "divided"),
            counts[cfg.key],
            (low + 1, high - low - 1, cfg.dim // 2 - high),
            ("keeps l + 1", "blends h - l - 1", "divides d/2 - h"),
            strict=True,
        ):
            rec.exact(
                f"{cfg.name}: the paper {how} = {want} pairs (l, h the range; counted from gamma)",
                value,
                want,
                scope=f"{cfg.name}, s = {cfg.factor}: all {cfg.dim // 2} pairs, exact enclosures "
                "of r_j against alpha and beta",
                quantity=f"{cfg.key}_{name}",
                show=Show(),
            )

    # Different middle: at every pair strictly inside, the paper's speed is below the
    # unrounded code's (concavity), in exact arithmetic.
    slower, inside = 0, sum(counts[cfg.key][1] for cfg in CONFIGS)
    for cfg in CONFIGS:
        low, high, fast, slow = ranges[cfg.key]
        for j in range(low + 1, high):
            slower += paper_ratio(cfg, j)[1] < code_ratio(cfg, j, fast, slow)[0]
    rec.exact(
        "strictly inside the range the paper slows every pair more than the unrounded code "
        "(count of inside pairs where it does, against the pairs the paper blends)",
        slower,
        inside,
        scope=f"all {inside} inside pairs of the three configurations (25 + 16 + 12, counted "
        "from gamma above); exact enclosures",
    )

    # Against the truncated ramp, whose wider range starts blending one pair earlier, there
    # is no such order: next to the lower edge the code can slow a pair more than the paper.
    above = []
    for cfg in CONFIGS:
        low, high = ranges[cfg.key][:2]
        for j in range(low + 1, high):
            cut_j = code_ratio(cfg, j, _point(low), _point(high))
            paper_j = paper_ratio(cfg, j)
            if paper_j[0] > cut_j[1]:
                above.append((cfg.key, j))
            elif not paper_j[1] < cut_j[0]:
                above.append((cfg.key, j, "undecided"))
    rec.exact(
        "against the truncated ramp the paper keeps more speed at one inside pair only, "
        "Llama 2's pair 21 (1 if the inside pairs where it does, or is not decided, are "
        "exactly that one)",
        int(above == [(LLAMA2.key, 21)]),
        1,
        scope=f"all {inside} inside pairs of the three configurations; exact enclosures",
    )

    # Step 4. The witness: Llama 2, s = 16, pair 30. The code keeps 1 - (10/26)(15/16) =
    # 133/208 of the speed; the paper keeps gamma + (1 - gamma)/16 with r_30 about 8.69.
    low, high, fast, slow = ranges[LLAMA2.key]
    code30 = code_ratio(LLAMA2, RAMP_PAIR, _point(low), _point(high))
    paper30 = paper_ratio(LLAMA2, RAMP_PAIR)
    rec.exact(
        "Llama 2, s = 16: the code keeps 133/208 of pair 30's speed",
        code30[0],
        Fraction(133, 208),
        scope="d = 128, b = 10^4, L0 = 4096, s = 16, truncate; exact",
        quantity="code_ratio_30",
        show=Show(decimals=3),
    )
    three = Show(decimals=3)
    rec.quantity(
        "paper_ratio_30",
        pick(paper30),
        show=three,
        by=inside_cell(
            rec,
            f"Llama 2, s = 16: the paper keeps {cell(pick(paper30), three).text} of pair 30's "
            "speed",
            paper30,
            cell(pick(paper30), three),
            scope="d = 128, b = 10^4, L0 = 4096, s = 16; exact enclosure of r_30",
        ),
    )
    turns30 = turns_bounds(LLAMA2, RAMP_PAIR)
    with mpmath.workdps(90):
        want30 = LLAMA2.length * mpmath.power(LLAMA2.base, mpmath.mpf(-2 * RAMP_PAIR) / LLAMA2.dim)
        want30 /= 2 * mpmath.pi
    rec.band(
        "Llama 2: the exact enclosure of r_30 = 4096 b^(-60/128)/(2 pi) holds mpmath's value",
        _fraction(want30),
        low=turns30[0],
        high=turns30[1],
        scope="d = 128, b = 10^4, L0 = 4096; mpmath at 90 digits against the enclosure (integer "
        "roots for the power, pi between two rationals)",
    )
    two = Show(decimals=2)
    rec.quantity(
        "turns_30",
        pick(turns30),
        show=two,
        by=inside_cell(
            rec,
            f"Llama 2: pair 30 turns {cell(pick(turns30), two).text} times in 4096 positions",
            turns30,
            cell(pick(turns30), two),
            scope="d = 128, b = 10^4, L0 = 4096; exact enclosure",
        ),
    )
    gap = _sub(code30, paper30)
    rec.quantity(
        "gap_30",
        pick(gap),
        show=three,
        by=inside_cell(
            rec,
            f"the two forms differ by {cell(pick(gap), three).text} of pair 30's old speed",
            gap,
            cell(pick(gap), three),
            scope="Llama 2, s = 16, pair 30; exact",
        ),
    )
    # Pair 30 is where the two differ most, for Llama 2 and for Qwen2.5.
    smaller = 0
    for cfg in (LLAMA2, QWEN):
        low_c, high_c = ranges[cfg.key][:2]
        gaps = [
            _sub(code_ratio(cfg, j, _point(low_c), _point(high_c)), paper_ratio(cfg, j))
            for j in range(cfg.dim // 2)
        ]
        smaller += sum(
            int(g[1] < gaps[RAMP_PAIR][0]) for j, g in enumerate(gaps) if j != RAMP_PAIR
        )
    rec.exact(
        "pair 30 is where code and paper differ most, for Llama 2 (s = 16) and Qwen2.5 (s = 4) "
        "(count of the 2 x 63 other pairs whose gap is surely smaller)",
        smaller,
        126,
        scope="every pair; exact enclosures separate the largest gap from all others",
    )
    qwen_low, qwen_high = ranges[QWEN.key][:2]
    for name, bounds in (
        ("qwen_code_30", code_ratio(QWEN, RAMP_PAIR, _point(qwen_low), _point(qwen_high))),
        ("qwen_paper_30", paper_ratio(QWEN, RAMP_PAIR)),
    ):
        rec.quantity(
            name,
            pick(bounds),
            show=three,
            by=inside_cell(
                rec,
                f"Qwen2.5, s = 4: pair 30 keeps {cell(pick(bounds), three).text} of its speed "
                f"({'code' if 'code' in name else 'paper'})",
                bounds,
                cell(pick(bounds), three),
                scope="d = 128, b = 10^6, L0 = 32768, s = 4; exact",
            ),
        )

    # Truncation: Llama 2 pair 45, just below ceil c(1) = 46 and just below c(1) = 45.03.
    cut = code_ratio(LLAMA2, TRUNCATE_PAIR, _point(low), _point(high))
    smooth = code_ratio(LLAMA2, TRUNCATE_PAIR, fast, slow)
    rec.exact(
        "Llama 2, s = 16, truncate: pair 45 keeps 1 - (25/26)(15/16) = 41/416 of its speed",
        cut[0],
        Fraction(41, 416),
        scope="d = 128, b = 10^4, L0 = 4096, s = 16; exact",
        quantity="cut_ratio_45",
        show=three,
    )
    rec.quantity(
        "smooth_ratio_45",
        pick(smooth),
        show=three,
        by=inside_cell(
            rec,
            f"unrounded, pair 45 keeps {cell(pick(smooth), three).text} of its speed",
            smooth,
            cell(pick(smooth), three),
            scope="d = 128, b = 10^4, L0 = 4096, s = 16, truncate false; exact enclosure of c",
        ),
    )

    # Step 5. posenc.rope.inv_freq("yarn") is the code's form: each speed the float64 nearest
    # theta_j ((1 - rho_j) + rho_j / s), here computed in mpmath from the range the reference
    # code computes (floor/ceil of the float64 c, or the float64 c itself).
    speeds_got, speeds_nearest = [], []
    with mpmath.workdps(50):
        for cfg in CONFIGS:
            for truncate, (low_r, high_r) in (
                (True, ranges[cfg.key][:2]),
                (False, (reference_dim(BETA_FAST, cfg), reference_dim(BETA_SLOW, cfg))),
            ):
                got, _ = rope.inv_freq(
                    "yarn",
                    cfg.dim,
                    base=float(cfg.base),
                    factor=float(cfg.factor),
                    original_max_position_embeddings=cfg.length,
                    truncate=truncate,
                )
                for j, speed in enumerate(got.tolist()):
                    th = mpmath.power(cfg.base, mpmath.mpf(-2 * j) / cfg.dim)
                    r = (j - mpmath.mpf(low_r)) / (mpmath.mpf(high_r) - mpmath.mpf(low_r))
                    r = min(max(r, 0), 1)
                    speeds_got.append(speed)
                    speeds_nearest.append(_nearest(th * (1 - r) + th / cfg.factor * r))
    rec.close(
        "posenc.rope.inv_freq('yarn') is the code's ramp: each speed is the float64 nearest "
        "the real value (correctly rounded)",
        speeds_got,
        speeds_nearest,
        tol=0.0,
        scope="the three configurations, truncate true and false, every pair; mpmath at 50 "
        "digits, rounded to the nearest float64",
    )
    w_llama, _ = rope.inv_freq(
        "yarn",
        LLAMA2.dim,
        base=float(LLAMA2.base),
        factor=float(LLAMA2.factor),
        original_max_position_embeddings=LLAMA2.length,
    )
    library30 = Fraction(float(w_llama[RAMP_PAIR])) / speed_bounds(LLAMA2, RAMP_PAIR)[1]
    rec.close(
        "posenc's speed of Llama 2's pair 30 is the code's 133/208 of the old speed, not the "
        "paper's 0.295 (the library follows the code)",
        library30,
        Fraction(133, 208),
        tol=1e-15,
        scope="d = 128, b = 10^4, L0 = 4096, s = 16; posenc's float64 speed over the exact "
        "enclosure of the old one; the paper's share lies 0.344 lower (gap_30)",
    )

    # Step 6. The temperature applied twice. A cache entry a cos t and a sin t turns a pair x
    # into (a cos t) x + (a sin t) J x = a R(t) x, J (x0, x1) = (-x1, x0). So the query at m
    # and the key at n become a R(m w) q and a R(n w) k, and the logit gains a^2.
    q = sp.Matrix(sp.symbols("q_0 q_1", real=True))
    key = sp.Matrix(sp.symbols("k_0 k_1", real=True))

    def turn(angle):
        return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])

    def cached(v, angle):
        return (a * sp.cos(angle)) * v + (a * sp.sin(angle)) * sp.Matrix([-v[1], v[0]])

    # As Hugging Face applies it: x cos + rotate_half(x) sin, both caches scaled by a.
    rec.instances(
        "x cat(a cos, a cos) + rotate_half(x) cat(a sin, a sin) = a R_half x: a scaled cache "
        "turns the split-half pairs and scales them by a",
        ((f"d = {width}", _cached_half(width)) for width in (2, 4, 6)),
        scope="d = 2, 4, 6; symbolic x, one symbolic angle per pair and a > 0; the product "
        "a R_half x written out unevaluated for the kit",
    )
    score = (cached(q, m * w).T * cached(key, n * w))[0, 0]
    rec.identity(
        "<a R(m w) q, a R(n w) k> = a^2 <q, R((n - m) w) k>: the logit gains a^2",
        (score - temperature_gain(a) * (q.T * turn((n - m) * w) * key)[0, 0]).rewrite(sp.exp),
        scope="one pair, every real m, n, w, q, k and every a > 0 (Proposition 12 sums the pairs)",
    )

    # The numbers at s = 8: a = 0.1 ln 8 + 1 = 0.3 ln 2 + 1, and a^2, enclosed exactly. The
    # enclosure of a^2 is checked inside the rounding cell of FACTS' figure 1.4591, not of
    # its own digits: a page that says "at s = 8" must show the value at s = 8.
    four = Show(decimals=4)
    temp = TEMPERATURE_SCALE
    a8 = mscale_bounds(temp, Fraction(1))
    a8_squared = _mul(a8, a8)
    with mpmath.workdps(90):
        want8 = (mpmath.log(temp) / 10 + 1) ** 2
    rec.band(
        f"s = {temp}: the exact enclosure of a^2 = (0.1 ln {temp} + 1)^2 holds mpmath's value",
        _fraction(want8),
        low=a8_squared[0],
        high=a8_squared[1],
        scope="mpmath at 90 digits against the enclosure (atanh series for ln)",
    )
    rec.quantity(
        "mscale_8",
        pick(a8),
        show=four,
        by=inside_cell(
            rec,
            f"s = {temp}: a = 0.1 ln {temp} + 1 shows as {cell(pick(a8), four).text}",
            a8,
            cell(pick(a8), four),
            scope=f"ln {temp} by the atanh series, exact",
        ),
    )
    rec.quantity(
        "logit_factor_8",
        pick(a8_squared),
        show=four,
        by=inside_cell(
            rec,
            f"s = {temp}: 1/t = a^2 lies in the rounding cell of {FACTS_LOGIT_FACTOR}, the "
            "figure of the sources (FACTS-modern.md)",
            a8_squared,
            cell(Fraction(FACTS_LOGIT_FACTOR), four),
            scope=f"exact enclosure of (0.1 ln {temp} + 1)^2 against FACTS' four decimals",
        ),
    )
    ratio8, _ = largest_logit_ratio()
    rec.close(
        "the largest of 8 x 8 logits through posenc.rope.cos_sin caches grows by a^2 at s = 8 "
        "(the witness against reading the factor once)",
        ratio8,
        pick(a8_squared),
        tol=1e-14,
        scope="d = 128, b = 10^4, L0 = 4096; normal q, k (seed 270), positions below 32768; "
        "against the exact enclosure of (0.1 ln 8 + 1)^2",
    )
    got_factors, nearest = [], []
    for factor in (2, 4, 8, 16, 40):
        want = float(pick(mscale_bounds(factor, Fraction(1))))  # correctly rounded
        for got in (
            rope.yarn_mscale(float(factor)),
            rope.inv_freq(
                "yarn", 128, factor=float(factor), original_max_position_embeddings=4096
            )[1],
        ):
            got_factors.append(got)
            nearest.append(want)
    rec.close(
        "posenc.rope.yarn_mscale(s) and inv_freq's attention factor are 0.1 ln s + 1, "
        "correctly rounded (the float64 nearest the exact enclosure)",
        got_factors,
        nearest,
        tol=0.0,
        scope="s = 2, 4, 8, 16, 40; the nearest float64 of the exact enclosure's midpoint "
        "(the enclosure is narrower than 10^-60)",
    )

    # Through the library: caches of posenc.rope.cos_sin with attention_factor = a, the
    # split-half rotation read from them, and the logits q . k of 24 queries and keys.
    speeds, factor8 = rope.inv_freq(
        "yarn", 128, factor=float(temp), original_max_position_embeddings=4096
    )
    rng = np.random.default_rng(27)
    queries, keys = rng.normal(size=(2, 24, 128))  # (L, d) each
    where_q = rng.integers(0, 32768, 24)
    where_k = rng.integers(0, 32768, 24)
    plain = _logits(queries, keys, where_q, where_k, speeds, 1.0)  # (L, L)
    scaled = _logits(queries, keys, where_q, where_k, speeds, factor8)  # (L, L)
    size = np.linalg.norm(queries, axis=1)[:, None] * np.linalg.norm(keys, axis=1)[None, :]
    rec.numeric(
        "posenc.rope.cos_sin(attention_factor=a) caches give logits a^2 times those of a = 1",
        ((scaled - factor8**2 * plain) / size).ravel(),
        tol=1e-14,
        scope=f"YaRN s = {temp}, d = 128, b = 10^4, L0 = 4096; 24 x 24 logits, normal q, k, "
        "positions below 32768; error relative to |q| |k|",
    )
    cos1, sin1 = rope.cos_sin(where_q, rope.default_inv_freq(128))
    ours = rotate_with_caches(queries, cos1, sin1)  # (L, d)
    theirs = rotary(queries, where_q, pairing="half")  # (L, d)
    # posenc.rotary turns by the real speed b^(-2i/d), the cache by its float64 value: the
    # phases may differ by the position times half an ulp of a speed below 1.
    rec.numeric(
        "the rotation read from posenc.rope.cos_sin caches is posenc.rotary's split-half one",
        ((ours - theirs) / np.linalg.norm(queries, axis=1)[:, None]).ravel(),
        tol=3.7e-12,  # 32768 * 2^-53 + 1e-15 = 3.639e-12: positions are below 32768
        scope="d = 128, b = 10^4, 24 random rows at positions below 32768; error relative to "
        "|q|, tolerance 3.7e-12 > 32768 times 2^-53 plus 1e-15",
    )

    # Step 7. DeepSeek's form: the cache factor m(s, mscale)/m(s, mscale_all_dim). With both 1
    # (DeepSeek-V3, step 1) it is 1 whatever s is; posenc, reading DeepSeek-V3's config.json,
    # returns exactly 1.
    deepseek_file = rope.read_config(CONFIG_FILES[DEEPSEEK.key])
    _, deepseek = deepseek_file.inv_freq()
    rec.exact(
        "DeepSeek-V3 (mscale = mscale_all_dim = 1): posenc's cache factor is exactly 1",
        Fraction(deepseek),
        1,
        scope="posenc.rope.read_config on data/configs/deepseek-v3.json (d = 64, b = 10^4, "
        "L0 = 4096, s = 40); float64 value as an exact rational",
        quantity="deepseek_cache_factor",
        show=Show(),
    )
    ratio = _div(
        mscale_bounds(DEEPSEEK.factor, INPUTS["mismatched_mscale"]),
        mscale_bounds(DEEPSEEK.factor, Fraction(1)),
    )
    _, mixed = rope.inv_freq(
        "yarn",
        DEEPSEEK.dim,
        factor=float(DEEPSEEK.factor),
        original_max_position_embeddings=DEEPSEEK.length,
        mscale=float(INPUTS["mismatched_mscale"]),
        mscale_all_dim=1.0,
    )
    rec.close(
        "posenc's cache factor with mscale = 0.707, mscale_all_dim = 1 is m(40, 0.707)/m(40, 1)",
        mixed,
        pick(ratio),
        tol=2.220446049250313e-16,  # 2^-52: two ulps of a value in [1/2, 1), about 0.92 here
        scope="s = 40; within two float64 ulps (two roundings) of the exact enclosure",
    )
    # Hugging Face's softmax scale gains m(s, mscale_all_dim)^2, both read from the file.
    all_dim = Fraction(deepseek_file.params["mscale_all_dim"])
    factor_file = Fraction(deepseek_file.params["factor"])
    m_all = mscale_bounds(factor_file, all_dim)
    softmax = _mul(m_all, m_all)
    rec.quantity(
        "deepseek_softmax_factor",
        pick(softmax),
        show=three,
        by=inside_cell(
            rec,
            f"m({factor_file}, {all_dim})^2 = (0.1 ln {factor_file} + 1)^2 shows as "
            f"{cell(pick(softmax), three).text}",
            softmax,
            cell(pick(softmax), three),
            scope="s and mscale_all_dim from DeepSeek-V3's config.json; ln s enclosed by the "
            "atanh series, exact",
        ),
    )


def _cached_half(width: int) -> sp.Matrix:
    """Hugging Face's cache rotation minus a R_half x, for symbolic x, angles and a."""
    half = width // 2
    v = sp.Matrix(sp.symbols(f"x_0:{width}", real=True))
    angles = sp.symbols(f"t_0:{half}", real=True)
    cos = [a * sp.cos(angles[i % half]) for i in range(width)]  # cat(a cos, a cos)
    sin = [a * sp.sin(angles[i % half]) for i in range(width)]  # cat(a sin, a sin)
    turned = sp.Matrix([v[i] * cos[i] + rotate_half_symbols(v)[i] * sin[i] for i in range(width)])
    matrix = sp.zeros(width, width)  # R_half: pair i is coordinates (i, i + d/2)
    for i, angle in enumerate(angles):
        matrix[i, i], matrix[i, i + half] = sp.cos(angle), -sp.sin(angle)
        matrix[i + half, i], matrix[i + half, i + half] = sp.sin(angle), sp.cos(angle)
    return minus(turned, product(a * sp.eye(width), product(matrix, v)))


def rotate_half_symbols(v: sp.Matrix) -> list[sp.Expr]:
    """rotate_half on a symbolic column: (x1, x2) -> (-x2, x1)."""
    half = v.rows // 2
    return [-v[i + half] for i in range(half)] + [v[i] for i in range(half)]


def temperature_gain(factor: sp.Expr) -> sp.Expr:
    """What a logit is multiplied by when both caches carry ``factor``: its square."""
    return factor**2


def _logits(queries, keys, where_q, where_k, speeds, factor) -> np.ndarray:
    """q_m . k_n after rotating both with the caches of posenc.rope.cos_sin(factor)."""
    cos_q, sin_q = rope.cos_sin(where_q, speeds, attention_factor=factor)  # (L, d) each
    cos_k, sin_k = rope.cos_sin(where_k, speeds, attention_factor=factor)  # (L, d) each
    turned_q = rotate_with_caches(queries, cos_q, sin_q)  # (L, d)
    turned_k = rotate_with_caches(keys, cos_k, sin_k)  # (L, d)
    return turned_q @ turned_k.T  # (L, L): row m, column n


def largest_logit_ratio() -> tuple[float, float]:
    """(scaled over unscaled largest of 8 x 8 logits, posenc's a) at s = 8 (seed 270).

    The misreading's witness; step 6 checks the same ratio against a^2.
    """
    speeds, factor = rope.inv_freq("yarn", 128, factor=8.0, original_max_position_embeddings=4096)
    rng = np.random.default_rng(270)
    queries, keys = rng.normal(size=(2, 8, 128))  # (L, d) each
    where = rng.integers(0, 32768, 8)
    plain = _logits(queries, keys, where, where, speeds, 1.0)  # (L, L)
    scaled = _logits(queries, keys, where, where, speeds, factor)  # (L, L)
    row, col = np.unravel_index(np.argmax(np.abs(plain)), plain.shape)
    return float(scaled[row, col] / plain[row, col]), factor


# -- misreadings -------------------------------------------------------------------


def _temperature_once(wit: Witness) -> None:
    # "The logits are multiplied by 0.1 ln s + 1." Through posenc's caches at s = 8 the
    # logits gain about 1.4591, not 1.2079: a^2, not a.
    ratio, factor = largest_logit_ratio()
    wit.differs(
        ratio,
        factor,
        at="s = 8, d = 128, b = 10^4: the largest of 8 x 8 logits through posenc.rope.cos_sin "
        "caches, scaled over unscaled, against the claimed 0.1 ln 8 + 1",
        margin=Fraction(1, 10),
        by="a tenth, far above float64 rounding of a logit ratio near 1.5",
    )
    # And symbolically: a^2 - a = a (a - 1) > 0 for a > 1, with the exact enclosure at s = 8.
    low, high = mscale_bounds(8, Fraction(1))
    wit.exact(
        low * low - high > Fraction(1, 10),
        at="s = 8: a^2 - a > 1/10 from the exact enclosure of a = 0.1 ln 8 + 1",
    )


def _code_is_the_paper(wit: Witness) -> None:
    # "The reference code (and Hugging Face) ramps gamma(r) as the paper writes it."
    low, high = truncated_range(LLAMA2)
    code = code_ratio(LLAMA2, RAMP_PAIR, _point(low), _point(high))
    paper = paper_ratio(LLAMA2, RAMP_PAIR)
    wit.differs(
        code[0],
        paper[1],
        at="Llama 2, s = 16, pair 30: the code keeps 133/208 of the speed, the upper end of the "
        "paper's enclosure (about 0.295) lies more than 0.3 from it (exact)",
        margin=Fraction(3, 10),
        by="the enclosure of the paper's share is narrower than 10^-60",
    )


def _truncate_is_cosmetic(wit: Witness) -> None:
    # "truncate only rounds the correction range; the speeds come out the same."
    low, high = truncated_range(LLAMA2)
    cut = code_ratio(LLAMA2, TRUNCATE_PAIR, _point(low), _point(high))
    smooth = code_ratio(
        LLAMA2, TRUNCATE_PAIR, dim_bounds(LLAMA2, BETA_FAST), dim_bounds(LLAMA2, BETA_SLOW)
    )
    wit.differs(
        cut[0],
        smooth[1],
        at="Llama 2, s = 16, pair 45: 41/416 of the speed with truncate, the upper end of the "
        "enclosure without (about 0.064) more than 0.03 from it (exact enclosure of c)",
        margin=Fraction(3, 100),
        by="the enclosure of the unrounded share is narrower than 10^-60",
    )


MISREADINGS = [
    Misreading(
        "The YaRN temperature multiplies the logits by 0.1 ln s + 1",
        _temperature_once,
        why="The factor sqrt(1/t) = 0.1 ln s + 1 multiplies both the cosine and the sine cache, "
        "so it reaches the query and the key: the logit gains its square, 1/t.",
    ),
    Misreading(
        "The reference code and Hugging Face ramp linearly in the rotation count r, as the "
        "paper's gamma(r) does",
        _code_is_the_paper,
        why="The code ramps linearly in the pair index between the correction dimensions; r is "
        "exponential in the index, so the two agree only at the ends of the range.",
    ),
    Misreading(
        "truncate only rounds the correction range for display; the speeds are the same",
        _truncate_is_cosmetic,
        why="The range's ends set the ramp's slope: floor and ceil widen it, and every pair "
        "inside gets another blend.",
    ),
]
