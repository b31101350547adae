"""Proposition 35 (temperatures compared: YaRN, LongRoPE, Llama 4, DeepSeek V3).

Five rules shipped in 2024-2026 multiply attention logits by a factor that grows with a
stretch s > 1, each in its own place (Transformers 5.24):

- YaRN (no attention_factor, not both mscales) multiplies the cos and sin caches by
  a = 1 + 0.1 ln s, so the rotated part of every logit (the whole logit when the whole head
  rotates), at every position, by a^2 = 1 + 0.2 ln s + 0.01 ln^2 s (Proposition 27).
- LongRoPE multiplies the caches by a = sqrt(1 + ln s / ln L0), so the rotated part of a
  logit by 1 + ln s / ln L0 (Proposition 29); with L0 = 4096 that is 1 + log2(s) / 12.
- Llama 4 multiplies the queries of its layers without rotary, once, by
  tau(p) = 1 + 0.1 ln(floor((p + 1) / F) + 1), F = 8192, a step function of the query's
  position p; Ministral 3 multiplies every query by 1 + 0.1 ln(1 + floor(p / L0)).
- DeepSeek V3 (and Kimi K2.5, built as DeepSeek V3), with mscale = mscale_all_dim, keeps
  its caches at factor 1 and multiplies its softmax scale by m^2, m = 1 + 0.1 mscale_all_dim ln s.

At the last query of a context of s steps (p = s F - 1 for Llama 4, p = s L0 - 1 for
Ministral 3; a reading of s the page chooses, F being floor_scale, not a training length)
the factors on a logit at s = 4, 8, 32 are: YaRN 1.296, 1.459, 1.813; LongRoPE 7/6, 5/4,
17/12; Llama 4 1 + 0.1 ln(s + 1); Ministral 3 1 + 0.1 ln s. For every whole s >= 4,
YaRN's > LongRoPE's > Llama 4's. Minus 1, LongRoPE's is ln s / ln L0 and Llama 4's
0.1 ln(s + 1) ~ 0.1 ln s: Theta(ln s). YaRN's is 0.2 ln s + 0.01 ln^2 s: Theta(ln^2 s), its
square term the larger from s = e^20 on.

Which shipped configs use which is read from data/configs by posenc and compared with the
plain JSON.

Uses: 12, 27, 29.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import model_config, rope, temperature
from posenc.figures import temperatures as figure
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 35
TITLE = "Temperatures compared: where each factor goes, and how fast it grows"
USES = (12, 27, 29)

# The stretches at which the page compares the factors.
INPUTS = {
    "s_small": 4,
    "s_mid": 8,
    "s_large": 32,
    # The coefficients of the rules: 0.1 in YaRN's a, in Llama 4's and Ministral 3's
    # steps; 0.2 and 0.01 in YaRN's a^2.
    "tenth": Fraction(1, 10),
    "fifth": Fraction(1, 5),
    "hundredth": Fraction(1, 100),
    # LongRoPE's L0 in Phi-3.5 and Phi-4, Llama 4's step F (both checked against the
    # configs), the context of the third misreading, and the end of step 8's spot check.
    "longrope_length": 4096,
    "llama4_step": 8192,
    "misread_context": 32768,
    "spot_limit": 1024,
}

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
#: The configs kept in data/configs whose logits carry a temperature, by rule. "cache":
#: posenc reads a factor other than 1 on the cos and sin caches; "llama4", "llama4_beta":
#: on the queries; "softmax": the text model is Transformers' DeepSeek V3 (or V3.2) and
#: its rope_scaling has mscale_all_dim, so the softmax scale carries m^2.
USERS = {
    "qwen2.5-7b-yarn-4": ("cache", "Qwen2.5-7B-Instruct with YaRN 4"),
    "qwen3-8b-yarn-4": ("cache", "Qwen3-8B with YaRN 4"),
    "gpt-oss-120b": ("cache", "gpt-oss-120b"),
    "phi-3.5-mini-instruct": ("cache", "Phi-3.5-mini"),
    "phi-4-mini-instruct": ("cache", "Phi-4-mini"),
    "phi-3-mini-128k-shape": ("cache", "Phi-3-mini-128k (stand-in lists)"),
    "llama-4-scout-17b-16e": ("llama4", "Llama 4 Scout"),
    "ministral-3-3b-reasoning-2512": ("llama4_beta", "Ministral 3 3B"),
    "deepseek-v3": ("softmax", "DeepSeek-V3"),
    "deepseek-v3.2-exp": ("softmax", "DeepSeek-V3.2-Exp"),
    "kimi-k2.5": ("softmax", "Kimi K2.5"),
}
#: Text model types built by Transformers 5.24's DeepSeek V3 or V3.2 attention, whose
#: softmax scale is yarn_apply_mscale(...) (kimi_k2 becomes deepseek_v3 in
#: models/kimi_k25/configuration_kimi_k25.py).
DEEPSEEK_TYPES = ("deepseek_v3", "deepseek_v32", "kimi_k2")
#: Llama4TextConfig's class defaults (configuration_llama4.py), which Scout's file leaves
#: out: attn_temperature_tuning, floor_scale, attn_scale.
LLAMA4_CLASS = {"attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1}
#: The five rows of the page's table of rules (one per rule and place).
RULES = ("yarn", "longrope", "llama4", "llama4_beta", "softmax")


def raw_part(stem: str) -> dict:
    """The language model's part of a config file, as plain JSON."""
    raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
    return raw.get("text_config", raw)


def raw_scaling(part: dict) -> dict:
    """The rotary block of the plain JSON: rope_parameters if it has a type, else rope_scaling."""
    params = part.get("rope_parameters") or {}
    if params.get("rope_type") or params.get("type"):
        return params
    return part.get("rope_scaling") or {}


def raw_rule(part: dict) -> tuple[str | None, float | None]:
    """(rule, factor on a logit at the longest context) from the plain JSON alone.

    YaRN without DeepSeek's pair of mscales: (0.1 ln s + 1)^2 on the caches; LongRoPE:
    1 + ln s / ln L0 with s = max / original when no factor is given; DeepSeek's attention
    with mscale == mscale_all_dim: cache 1, softmax (0.1 mscale_all_dim ln s + 1)^2; Llama
    4: its class defaults on the layers without rotary; Ministral 3: llama_4_scaling_beta.
    """
    kind = part.get("model_type")
    scaling = raw_scaling(part)
    scheme = scaling.get("rope_type", scaling.get("type"))
    if kind == "llama4_text":
        tuning = part.get("attn_temperature_tuning", LLAMA4_CLASS["attn_temperature_tuning"])
        return ("llama4", None) if tuning else (None, None)
    if kind == "ministral3" and scaling.get("llama_4_scaling_beta") is not None:
        return "llama4_beta", None
    if scheme == "yarn":
        s = scaling["factor"]
        if kind in DEEPSEEK_TYPES and scaling.get("mscale_all_dim"):
            if scaling.get("mscale") != scaling.get("mscale_all_dim"):
                raise NotImplementedError("no kept config has mscale != mscale_all_dim")
            return "softmax", (0.1 * scaling["mscale_all_dim"] * math.log(s) + 1) ** 2
        if scaling.get("mscale") and scaling.get("mscale_all_dim"):
            return None, None  # the cache factor is m(s, mscale) / m(s, mscale_all_dim)
        return "cache", (0.1 * math.log(s) + 1) ** 2
    if scheme == "longrope":
        length = part.get("original_max_position_embeddings")
        length = scaling.get("original_max_position_embeddings", length)
        s = scaling.get("factor") or part["max_position_embeddings"] / length
        return "cache", 1 + math.log(s) / math.log(length)
    return None, None


def read_rules(stem: str) -> tuple[set[str], float | None]:
    """The rules posenc reads on some kind of layer of a config, and its cache factor squared."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    rules, cache = set(), None
    for kind in reading.kinds:
        for t in kind.temperatures:
            rules.add(t.rule)
            if t.rule == "cache":
                cache = float(t.on_logits([0])[0])
    return rules, cache


def posenc_softmax(stem: str) -> float | None:
    """The factor posenc reads on a config's softmax scale (rule "softmax"), or None.

    posenc gives it to the families whose attention calls yarn_apply_mscale
    (posenc.families, checked against each family's attention by make conformance).
    """
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    factors = {
        float(t.on_logits([0])[0])
        for kind in reading.kinds
        for t in kind.temperatures
        if t.rule == "softmax"
    }
    if not factors:
        return None
    if len(factors) > 1:
        raise ValueError(f"{stem}: kinds of layer with different softmax factors {factors}")
    return factors.pop()


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def yarn_logit(s) -> mpmath.mpf:
    return (1 + mpmath.log(s) / 10) ** 2


def llama4_at(s: int, step: int = 8192) -> float:
    """posenc's Llama 4 factor at the last query of a context of s * step positions."""
    return float(temperature.llama4([s * step - 1], 0.1, step)[0])


def ministral_at(s: int, length: int = 16384) -> float:
    """posenc's Ministral 3 factor at the last query of a context of s * length positions."""
    return float(temperature.llama4_beta([s * length - 1], 0.1, length)[0])


def rotate_with_caches(v: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """v cos + rotate_half(v) sin: the split-half rotation read from the caches."""
    half = v.shape[-1] // 2
    turned = np.concatenate([-v[..., half:], v[..., :half]], axis=-1)  # rotate_half(v)
    return v * cos + turned * sin  # (L, d)


def cache_logits(speeds: np.ndarray, factor: float, seed: int = 35) -> tuple:
    """Logits q_m . k_n through posenc.rope.cos_sin caches with and without the factor."""
    rng = np.random.default_rng(seed)
    queries, keys = rng.normal(size=(2, 16, 2 * speeds.size))  # (L, d) each
    where_q, where_k = rng.integers(0, 131072, (2, 16))  # (L,) each
    out = []
    for a in (1.0, factor):
        cos_q, sin_q = rope.cos_sin(where_q, speeds, attention_factor=a)  # (L, d) each
        cos_k, sin_k = rope.cos_sin(where_k, speeds, attention_factor=a)  # (L, d) each
        q = rotate_with_caches(queries, cos_q, sin_q)  # (L, d)
        k = rotate_with_caches(keys, cos_k, sin_k)  # (L, d)
        out.append(q @ k.T)  # (L, L)
    return out[0], out[1]


def partial_logits(head: int, turned: int, seed: int = 35) -> tuple:
    """Logits of a partially rotated head: (rotated part at a = 1, at LongRoPE's a, the rest).

    The first ``turned`` coordinates go through posenc.rope.cos_sin caches (LongRoPE,
    s = 32, L0 = 4096, as Phi-4-mini's ``rotary_dim``); the others pass unrotated, as
    ``q_pass`` in Transformers' Phi-3 attention.
    """
    rng = np.random.default_rng(seed)
    queries, keys = rng.normal(size=(2, 16, head))  # (L, head) each
    where_q, where_k = rng.integers(0, 131072, (2, 16))  # (L,) each
    speeds, factor = rope.inv_freq(
        "longrope",
        turned,
        factor=32.0,
        original_max_position_embeddings=4096,
        short_factor=[1.0] * (turned // 2),
    )
    out = []
    for a in (1.0, factor):
        cos_q, sin_q = rope.cos_sin(where_q, speeds, attention_factor=a)  # (L, turned) each
        cos_k, sin_k = rope.cos_sin(where_k, speeds, attention_factor=a)  # (L, turned) each
        q = rotate_with_caches(queries[:, :turned], cos_q, sin_q)  # (L, turned)
        k = rotate_with_caches(keys[:, :turned], cos_k, sin_k)  # (L, turned)
        out.append(q @ k.T)  # (L, L)
    rest = queries[:, turned:] @ keys[:, turned:].T  # (L, L), no rotary
    return out[0], out[1], rest


def partial_ratio_reference(head: int, turned: int, seed: int = 35) -> np.ndarray:
    """The ratio of whole logits of partial_logits' head, without the caches.

    The same random q, k and positions; the rotated part at a = 1 is <q, R_{n-m} k>
    (Proposition 12), pair by pair, with rotate_half's pairs (i, i + turned/2) and
    angle (n - m) b^(-2i/turned), b = 10^4; at LongRoPE's s = 32, L0 = 4096 the factor
    on it is a^2 = 1 + ln 32 / ln 4096 = 17/12, exactly.
    """
    rng = np.random.default_rng(seed)
    queries, keys = rng.normal(size=(2, 16, head))  # (L, head) each
    where_q, where_k = rng.integers(0, 131072, (2, 16))  # (L,) each
    half = turned // 2
    speeds = 10000.0 ** (-np.arange(half) * 2 / turned)  # (half,)
    angle = (where_k[None, :] - where_q[:, None])[..., None] * speeds  # (L, L, half)
    qi, qj = queries[:, None, :half], queries[:, None, half:turned]  # (L, 1, half) each
    ki, kj = keys[None, :, :half], keys[None, :, half:turned]  # (1, L, half) each
    turned_part = ((qi * ki + qj * kj) * np.cos(angle) + (qj * ki - qi * kj) * np.sin(angle)).sum(
        axis=-1
    )  # (L, L)
    rest = queries[:, turned:] @ keys[:, turned:].T  # (L, L)
    return (17 / 12 * turned_part + rest) / (turned_part + rest)


def checks(rec: Recorder) -> None:
    stretches = (INPUTS["s_small"], INPUTS["s_mid"], INPUTS["s_large"])
    done = []  # (rule, s) pairs whose factor was compared with a reference
    s = sp.Symbol("s", positive=True)
    a, tau = sp.symbols("a tau", positive=True)
    q = sp.Matrix(sp.symbols("q0:2", real=True))
    k = sp.Matrix(sp.symbols("k0:2", real=True))
    m, n, w = sp.symbols("m n omega", real=True)

    # Step 1. Where each factor goes. A factor a on both caches turns the query at m into
    # a R(m w) q and the key at n into a R(n w) k: the logit gains a^2, whatever m and n
    # (Proposition 12). A factor tau on the query alone multiplies the logit by tau once;
    # a factor c on the softmax scale multiplies it by c.
    # R((n - m) w) is written out by the angle-difference formulas (expand_trig).
    rec.identity(
        "(a R(m w) q)^T (a R(n w) k) = a^2 q^T R((n - m) w) k: a cache factor counts twice",
        ((a * block(m * w) * q).T * (a * block(n * w) * k))[0, 0]
        - a**2 * (q.T * block(n * w - m * w).applyfunc(sp.expand_trig) * k)[0, 0],
        scope="every real a, m, n, w and q, k in R^2",
    )
    rec.identity(
        "(tau q)^T k = tau q^T k: a factor on the query counts once",
        ((tau * q).T * k)[0, 0] - tau * (q[0] * k[0] + q[1] * k[1]),
        scope="every real tau and q, k in R^2",
    )
    speeds, a32 = rope.inv_freq("yarn", 64, factor=32.0, original_max_position_embeddings=4096)
    plain, scaled = cache_logits(speeds, a32)
    rec.numeric(
        "through posenc.rope.cos_sin caches with attention_factor = a, every logit is a^2 "
        "times the logit at a = 1",
        ((scaled - a32**2 * plain) / np.abs(plain).max()).ravel(),
        tol=1e-13,
        scope="YaRN s = 32, d = 64, b = 10^4, L0 = 4096; 16 x 16 logits, normal q, k (seed 35), "
        "positions below 131072; error relative to the largest logit",
    )
    # Under partial rotary only the rotated coordinates pass through the caches, so only
    # the rotated part of a logit gains a^2 (Proposition 29, item 3): Phi-4-mini rotates
    # int(128 * 0.75) = 96 of its 128 head coordinates; the other 32 pass unscaled.
    phi4 = model_config.read_model(CONFIG_DIR / "phi-4-mini-instruct.json").kinds[0].rope
    turned_dim = int(phi4.head_dim * phi4.params["partial_rotary_factor"])
    rec.exact(
        "Phi-4-mini's head: the coordinates rotated, as posenc reads them",
        turned_dim,
        96,
        scope="data/configs/phi-4-mini-instruct.json: int(head_dim * partial_rotary_factor)",
        quantity="phi4_rotated",
        show=Show(group=False),
    )
    rec.exact(
        "Phi-4-mini's head dimension, as posenc reads it",
        phi4.head_dim,
        128,
        scope="data/configs/phi-4-mini-instruct.json: hidden_size // num_attention_heads",
        quantity="phi4_head",
        show=Show(group=False),
    )
    rot_plain, rot_scaled, pass_part = partial_logits(phi4.head_dim, turned_dim)
    _, phi_a = rope.inv_freq(
        "longrope",
        turned_dim,
        factor=32.0,
        original_max_position_embeddings=4096,
        short_factor=[1.0] * (turned_dim // 2),
    )
    whole_plain, whole_scaled = rot_plain + pass_part, rot_scaled + pass_part
    rec.numeric(
        "partial rotary: through caches with attention_factor = a, a logit is "
        "a^2 (rotated part) + (part without rotary)",
        ((whole_scaled - (phi_a**2 * rot_plain + pass_part)) / np.abs(whole_plain).max()).ravel(),
        tol=1e-13,
        scope="Phi-4-mini's shape: 96 of 128 coordinates rotated, LongRoPE s = 32, L0 = 4096; "
        "16 x 16 logits, normal q, k (seed 35); error relative to the largest logit",
    )
    ratio = whole_scaled / whole_plain
    spread = float(ratio.max() - ratio.min())
    rec.band(
        "partial rotary: the whole logit is not a^2 times the unscaled one "
        "(spread of the ratio over 16 x 16 logits)",
        spread,
        low=1,
        high=10**6,
        samples=int(ratio.size),
        scope="same logits; a^2 = 17/12 on the whole logit would give a spread of 0",
    )
    reference = partial_ratio_reference(phi4.head_dim, turned_dim)
    rec.close(
        "the ratio's spread, against the same logits without the caches: "
        "(17/12 <q, R_(n-m) k> + rest) / (<q, R_(n-m) k> + rest)",
        spread,
        float(reference.max() - reference.min()),
        tol=1e-8,
        scope="same q, k and positions (seed 35); rotated part pair by pair by "
        "Proposition 12, a^2 = 1 + ln 32 / ln 4096 = 17/12 exactly; float64 angles "
        "up to 1.3e5 rad, so agreement to about 1e-10",
    )

    # Step 2. YaRN: a = 1 + 0.1 ln s, a^2 = 1 + 0.2 ln s + 0.01 ln^2 s (expanded exactly).
    tenth = sp.Rational(INPUTS["tenth"])
    fifth, hundredth = sp.Rational(INPUTS["fifth"]), sp.Rational(INPUTS["hundredth"])
    yarn_a = 1 + tenth * sp.log(s)
    rec.identity(
        "(1 + ln(s) / 10)^2 = 1 + ln(s) / 5 + ln(s)^2 / 100",
        yarn_a**2 - (1 + fifth * sp.log(s) + hundredth * sp.log(s) ** 2),
        scope="every s > 0",
    )
    with mpmath.workdps(50):
        want = [1 + mpmath.log(x) / 10 for x in stretches]
        want_sq = [yarn_logit(x) for x in stretches]
    got = [rope.yarn_mscale(float(x)) for x in stretches]
    got_inv = [
        rope.inv_freq("yarn", 128, factor=float(x), original_max_position_embeddings=4096)[1]
        for x in stretches
    ]
    rec.close(
        "posenc.rope.yarn_mscale(s) and inv_freq's YaRN attention factor are 1 + 0.1 ln s",
        got + got_inv,
        [sp.Float(v, 50) for v in want + want],
        tol=1e-15,
        scope=f"s = {', '.join(map(str, stretches))}; against mpmath at 50 digits",
    )
    for x, g, ref in zip(stretches, got, want_sq, strict=True):
        rec.close(
            f"YaRN's factor on a rotated logit at s = {x}: a^2",
            g * g,
            sp.Float(ref, 50),
            tol=1e-15,
            scope=f"s = {x}; posenc.rope.yarn_mscale squared against mpmath",
            quantity=f"yarn_{x}",
            show=Show(sig=4),
        )
        done.append(("yarn", x))

    # Step 3. LongRoPE: a^2 = 1 + ln s / ln L0; with L0 = 4096 = 2^12 it is 1 + log2(s)/12,
    # rational at every power of two. L0 is Phi-3.5's (and Phi-4's) original length.
    phi = raw_part("phi-3.5-mini-instruct")
    length = phi["original_max_position_embeddings"]
    rec.exact(
        "Phi-3.5-mini's L0 (original_max_position_embeddings) is 2^12",
        length,
        INPUTS["longrope_length"],
        scope="data/configs/phi-3.5-mini-instruct.json, plain JSON",
        quantity="phi_length",
        show=Show(group=False),
    )
    exact_longrope = {x: 1 + Fraction(int(math.log2(x)), 12) for x in stretches}
    rec.instances(
        "1 + ln s / ln 4096 = 1 + log2(s) / 12",
        [
            (f"s = {x}", 1 + sp.log(x) / sp.log(length) - sp.Rational(exact_longrope[x]))
            for x in stretches
        ],
        scope=f"s = {', '.join(map(str, stretches))}, L0 = {length}",
    )
    for x in stretches:
        done.append(("longrope", x))
        _, got_a = rope.inv_freq(
            "longrope",
            96,
            factor=float(x),
            original_max_position_embeddings=length,
            short_factor=[1.0] * 48,
        )
        rec.close(
            f"LongRoPE's factor on a rotated logit at s = {x}: posenc's attention factor squared",
            got_a * got_a,
            sp.Rational(exact_longrope[x]),
            tol=1e-15,
            scope=f"s = {x}, L0 = {length}; posenc.rope.inv_freq('longrope') against the "
            "exact rational",
        )
        rec.exact(
            f"LongRoPE's factor at s = {x}, exactly",
            exact_longrope[x],
            1 + Fraction(x.bit_length() - 1, 12),
            scope=f"1 + log2({x}) / 12, log2 by bit length",
            quantity=f"longrope_{x}",
            show=Show(style="fraction"),
        )
        rec.close(
            f"and as a decimal at s = {x}",
            float(exact_longrope[x]),
            sp.Rational(exact_longrope[x]),
            tol=1e-15,
            scope=f"s = {x}",
            quantity=f"longrope_{x}_dec",
            show=Show(sig=4),
        )

    # Step 4. Llama 4 and Ministral 3: a step function of the query's position. Llama 4's
    # rises at p + 1 = k F; Ministral 3's at p = k L0. At the last query of a context of s F
    # (p = s F - 1) Llama 4's is 1 + 0.1 ln(s + 1); at the last of s L0, Ministral 3's is
    # 1 + 0.1 ln s. Toy steps first (F = 8), every position up to 64.
    toy = np.arange(65)
    rises = np.flatnonzero(np.diff(temperature.llama4(toy, 0.1, 8))) + 1
    rec.exact(
        "Llama 4's factor changes exactly at the positions p with p + 1 a multiple of F "
        "(positions that differ)",
        len(set(rises.tolist()) ^ {8 * j - 1 for j in range(1, 9)}),
        0,
        scope="F = 8, p = 0 .. 64, posenc.temperature.llama4",
    )
    rises_b = np.flatnonzero(np.diff(temperature.llama4_beta(toy, 0.1, 8))) + 1
    rec.exact(
        "Ministral 3's changes exactly at the multiples of L0 (positions that differ)",
        len(set(rises_b.tolist()) ^ {8 * j for j in range(1, 9)}),
        0,
        scope="L0 = 8, p = 0 .. 64, posenc.temperature.llama4_beta",
    )
    with mpmath.workdps(50):
        want_l4 = {x: 1 + mpmath.log(x + 1) / 10 for x in stretches}
        want_mi = {x: 1 + mpmath.log(x) / 10 for x in stretches}
    for x in stretches:
        rec.close(
            f"Llama 4's factor at the last query of a context of {x} F: 1 + 0.1 ln({x} + 1)",
            llama4_at(x),
            sp.Float(want_l4[x], 50),
            tol=1e-15,
            scope=f"p = {x} * 8192 - 1; posenc.temperature.llama4 against mpmath",
            quantity=f"llama4_{x}",
            show=Show(sig=4),
        )
        done.append(("llama4", x))
        rec.close(
            f"Ministral 3's at the last query of a context of {x} L0: 1 + 0.1 ln {x}",
            ministral_at(x),
            sp.Float(want_mi[x], 50),
            tol=1e-15,
            scope=f"p = {x} * 16384 - 1; posenc.temperature.llama4_beta against mpmath",
            quantity=f"ministral_{x}",
            show=Show(sig=4),
        )
        done.append(("ministral", x))
    rec.exact(
        "factors checked at the page's stretches: four rules, three stretches each",
        len(set(done)),
        4 * len(stretches),
        scope="YaRN, LongRoPE, Llama 4, Ministral 3 at s = " + ", ".join(map(str, stretches)),
    )
    rec.close(
        "one position later, Ministral 3's factor is 1 + 0.1 ln(s + 1), Llama 4's at p = s F - 1",
        [float(temperature.llama4_beta([x * 16384], 0.1, 16384)[0]) for x in stretches],
        [sp.Float(want_l4[x], 50) for x in stretches],
        tol=1e-15,
        scope=f"p = s L0, s = {', '.join(map(str, stretches))}",
    )

    # Step 5. Growth. Less 1: LongRoPE's is ln s / ln L0 (ratio to ln s constant), Llama 4's
    # 0.1 ln(s + 1) with ratio to ln s tending to 0.1, YaRN's 0.2 ln s + 0.01 ln^2 s with
    # ratio to ln^2 s tending to 0.01: not O(ln s).
    lnL = sp.log(length)
    rec.identity(
        "LongRoPE: (a^2 - 1) / ln s = 1 / ln L0, with a = sqrt(1 + ln s / ln L0)",
        (sp.Pow(sp.sqrt(1 + sp.log(s) / lnL), 2, evaluate=False) - 1) / sp.log(s) - 1 / lnL,
        scope=f"every s > 1, L0 = {length}",
    )
    rec.identity(
        "Llama 4: 0.1 ln(s + 1) / ln s tends to 0.1",
        sp.Limit(sp.log(s + 1) / 10 / sp.log(s), s, sp.oo) - sp.Rational(1, 10),
        scope="s -> infinity (SymPy's limit)",
    )
    x_ = sp.Symbol("x", positive=True)
    gap = x_ - sp.log(1 + x_)
    rec.exact(
        "g(x) = x - ln(1 + x) is 0 at x = 0",
        sp.Rational(gap.subs(x_, 0)),
        0,
        scope="SymPy, exact",
    )
    rec.identity(
        "g'(x) = x / (1 + x), positive for x > 0: so ln(1 + x) < x, and with x = 1/s, "
        "0 < ln(s + 1) - ln s < 1/s: Llama 4's and 0.1 ln s differ by less than 0.1/s",
        sp.diff(gap, x_) - x_ / (1 + x_),
        scope="every x > 0; x / (1 + x) > 0 there, so g increases from g(0) = 0",
    )
    yarn_excess = sp.log(s) / 5 + sp.log(s) ** 2 / 100
    rec.identity(
        "YaRN: (a^2 - 1) / ln^2 s tends to 1/100",
        sp.Limit(yarn_excess / sp.log(s) ** 2, s, sp.oo) - sp.Rational(1, 100),
        scope="s -> infinity (SymPy's limit)",
    )
    rec.identity(
        "and (a^2 - 1) / ln s = 0.2 + 0.01 ln s, unbounded: it grows like 0.01 ln s",
        yarn_excess / sp.log(s) - hundredth * sp.log(s) - fifth,
        scope="every s > 1",
    )
    crossing = sp.solve(sp.Eq(sp.log(s) / 5, sp.log(s) ** 2 / 100), s)
    rec.exact(
        "the square term 0.01 ln^2 s equals the linear 0.2 ln s at s = 1 and s = e^20 only "
        "(solutions that differ)",
        len(set(crossing) ^ {sp.Integer(1), sp.exp(20)}),
        0,
        scope="s > 0, SymPy's solve",
    )
    with mpmath.workdps(50):
        threshold = mpmath.exp(20)
    rec.close(
        "e^20, from where the square term is the larger",
        float(sp.exp(20)),
        sp.Float(threshold, 50),
        tol=1e-6,
        scope="float64 of SymPy's e^20 against mpmath",
        quantity="square_wins",
        show=Show(sig=2, style="sci"),
    )

    # Step 6. The order at whole s. YaRN's over Llama 4's: 0.2 ln s - 0.1 ln(s + 1) =
    # 0.1 ln(s^2 / (s + 1)) > 0 once s^2 > s + 1, so for every whole s >= 2 (and the
    # 0.01 ln^2 s only adds). LongRoPE's over Llama 4's: f(s) = ln s / ln L0 - 0.1 ln(s + 1)
    # has f'(s) = 1 / (s ln L0) - 0.1 / (s + 1) > 0 when ln L0 < 10; f(3) < 0 < f(4).
    rec.identity(
        "0.2 ln s - 0.1 ln(s + 1) = 0.1 ln(s^2 / (s + 1))",
        sp.log(s) / 5 - sp.log(s + 1) / 10 - sp.log(s**2 / (s + 1)) / 10,
        scope="every s > 0",
    )
    rec.exact(
        "s^2 - s - 1 = 1 > 0 at s = 2, so s^2 > s + 1 at every whole s >= 2 "
        "(s^2 - s - 1 grows for s >= 1)",
        2**2 - 2 - 1,
        1,
        scope="s = 2; (s^2 - s - 1)' = 2s - 1 > 0",
    )
    bound = 3**5
    rec.exact("3^5, the bound used", bound, 243, scope="integer arithmetic")
    rec.exact(
        "YaRN's over LongRoPE's: 0.2 > 1 / ln L0 because L0 > 3^5 > e^5 (e < 3)",
        length,
        bound,
        scope=f"L0 = {length}: ln L0 > 5, so 0.2 ln s > ln s / ln L0 at every s > 1",
        relation=">",
    )

    f = sp.log(s) / lnL - sp.log(s + 1) / 10
    rec.identity(
        "f'(s) 10 s (s + 1) ln L0 = 10 (s + 1) - s ln L0",
        sp.diff(f, s) * 10 * s * (s + 1) * lnL - (10 * (s + 1) - s * lnL),
        scope=f"every s > 0, L0 = {length}",
    )
    two7, two14 = 2**7, 2**14
    rec.exact(
        "ln L0 < 10, first link: L0 < 2^14",
        length,
        two14,
        scope=f"L0 = {length}, integer arithmetic",
        relation="<",
    )
    rec.exact(
        "ln L0 < 10, second link: 2^14 < e^10, because 2^7 < (27/10)^5 < e^5",
        Fraction(27, 10) ** 5,
        two7,
        scope="(27/10)^5 = 143.49 > 128 exactly; e > 27/10, so e^10 > (27/10)^10 > 2^14; "
        "so f' > 0 and f increases",
        relation=">",
    )
    rec.exact(
        "the square of that link: (2^7)^2 = 2^14, so (27/10)^10 > 2^14",
        two7**2,
        two14,
        scope="integer arithmetic: the bound 2^7 squared is the bound on L0 of the first link",
    )
    with mpmath.workdps(50):
        e_tenth = mpmath.e**10
    rec.band(
        "e, the bound used: above 27/10",
        float(mpmath.e),
        low=Fraction(27, 10),
        high=Fraction(28, 10),
        samples=1,
        scope="mpmath",
    )
    rec.band(
        "e^10, the bound used: above 2^14 and below 2^15",
        float(e_tenth),
        low=two14,
        high=2**15,
        samples=1,
        scope="mpmath at 50 digits; e^10 = 22026.5, so L0 < 2^15 < e^10 would be false",
    )
    with mpmath.workdps(50):
        f3 = mpmath.log(3) / mpmath.log(length) - mpmath.log(4) / 10
        f4 = mpmath.log(4) / mpmath.log(length) - mpmath.log(5) / 10
    rec.exact(
        "the signs of f(3) and f(4): -1 and 1 (f(3) < 0 < f(4))",
        int(mpmath.sign(f3)) * 10 + int(mpmath.sign(f4)),
        -9,
        scope="mpmath at 50 digits: sign(f(3)) * 10 + sign(f(4)); f(3) = "
        f"{float(f3):.4g}, f(4) = {float(f4):.4g}",
    )
    rec.close(
        "f(3) and f(4) read at 50 digits are the f above, at s = 3 and 4",
        [f3, f4],
        [sp.N(f.subs(s, 3), 50), sp.N(f.subs(s, 4), 50)],
        tol=1e-40,
        scope=f"mpmath against SymPy's f = ln s / ln L0 - ln(s + 1) / 10, L0 = {length}",
    )
    limit = INPUTS["spot_limit"]
    order = [
        (x, yarn_logit(x), 1 + mpmath.log(x) / mpmath.log(length), 1 + mpmath.log(x + 1) / 10)
        for x in range(2, limit + 1)
    ]
    rec.exact(
        "whole s from 4 to 1024 where YaRN > LongRoPE > Llama 4 fails (a spot check of the "
        "argument)",
        sum(not (y > lo > l4) for x, y, lo, l4 in order if x >= 4),
        0,
        scope="s = 4 .. 1024, mpmath at 15 digits",
    )
    rec.close(
        "the spot check's Llama 4 factors are posenc's at p = s F - 1",
        [
            float(v)
            for v in temperature.llama4(
                [x * INPUTS["llama4_step"] - 1 for x, *_ in order], 0.1, INPUTS["llama4_step"]
            )
        ],
        [sp.Float(l4, 15) for *_, l4 in order],
        tol=1e-13,
        scope=f"s = 2 .. {limit}, posenc.temperature.llama4 against the mpmath values above",
    )
    rec.exact(
        "spot checks made",
        len(order),
        limit - 1,
        scope="s = 2 .. 1024",
    )

    # Step 7. DeepSeek V3: m(s, mu) / m(s, mu_all) = 1 on the caches when mu = mu_all; the
    # softmax scale carries m(s, mu_all)^2, at the config's s.
    mu = sp.Symbol("mu", positive=True)
    rec.identity(
        "m(s, mu) / m(s, mu) = 1: DeepSeek's cache factor with mscale = mscale_all_dim",
        sp.Mul(
            1 + mu * sp.log(s) / 10,
            sp.Pow(1 + mu * sp.log(s) / 10, -1, evaluate=False),
            evaluate=False,
        )
        - 1,
        scope="every s > 1, mu > 0",
    )
    for stem, tag in (("deepseek-v3", "deepseek"), ("kimi-k2.5", "kimi")):
        part = raw_part(stem)
        scaling = raw_scaling(part)
        reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
        (kind,) = reading.kinds
        rec.close(
            f"{stem}: posenc's cache factor is 1 (mscale {scaling['mscale']}, "
            f"mscale_all_dim {scaling['mscale_all_dim']})",
            kind.rope.inv_freq()[1],
            1,
            tol=0.0,
            scope=f"data/configs/{stem}.json read by posenc",
        )
        factor = kind.rope.params["factor"]
        rec.exact(
            f"{stem}: the stretch s posenc reads is the file's factor",
            Fraction(factor),
            Fraction(scaling["factor"]),
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_s",
            show=Show(),
        )
        with mpmath.workdps(50):
            ref = (1 + scaling["mscale_all_dim"] * mpmath.log(scaling["factor"]) / 10) ** 2
        soft = posenc_softmax(stem)
        rec.close(
            f"{stem}: the softmax scale's factor m(s, mscale_all_dim)^2",
            soft,
            sp.Float(ref, 50),
            tol=1e-15,
            scope="the softmax temperature posenc reads, against mpmath on the raw JSON",
            quantity=f"{tag}_softmax",
            show=Show(sig=4),
        )
        done.append(("softmax", stem))
    v32 = model_config.read_model(CONFIG_DIR / "deepseek-v3.2-exp.json")
    rec.close(
        "deepseek-v3.2-exp: posenc's cache factor is 1 on every kind of layer",
        max(abs(kind.rope.inv_freq()[1] - 1) for kind in v32.kinds),
        0,
        tol=0.0,
        scope="data/configs/deepseek-v3.2-exp.json read by posenc",
    )
    rec.exact(
        "softmax factors checked: DeepSeek-V3 and Kimi K2.5",
        sum(rule == "softmax" for rule, _ in done),
        2,
        scope="data/configs/deepseek-v3.json, kimi-k2.5.json",
    )

    # Step 8. Which configs use which, read by posenc and compared with the plain JSON.
    found, rows, caches, many, softmaxes = {}, 0, 0, 0, 0
    for path in sorted(CONFIG_DIR.glob("*.json")):
        rules, cache = read_rules(path.stem)
        many += len(rules) > 1
        part = raw_part(path.stem)
        soft = posenc_softmax(path.stem)
        if soft is not None:
            rules.add("softmax")
        if rules:
            rows += 1
            found[path.stem] = rules
        raw, raw_factor = raw_rule(part)
        posenc_rule = (
            (rules - {"softmax"} or {None}).pop() if "softmax" not in rules else "softmax"
        )
        rec.exact(
            f"{path.stem}: posenc's rule is the plain JSON's ({posenc_rule}; 1 if they differ)",
            int(posenc_rule != raw),
            0,
            scope=f"data/configs/{path.stem}.json",
        )
        if soft is not None:
            softmaxes += 1
            rec.close(
                f"{path.stem}: the softmax factor from posenc's reading is the JSON's",
                soft,
                raw_factor,
                tol=1e-14,
                scope=f"data/configs/{path.stem}.json: (0.1 mscale_all_dim ln s + 1)^2",
            )
        if cache is not None:
            caches += 1
            rec.close(
                f"{path.stem}: posenc's cache factor squared is the one computed from the JSON",
                cache,
                raw_factor,
                tol=1e-14,
                scope=f"data/configs/{path.stem}.json: (0.1 ln s + 1)^2 or 1 + ln s / ln L0",
            )
    rec.exact(
        "configs with more than one rule on their layers",
        many,
        0,
        scope="data/configs/*.json read by posenc",
    )
    rec.exact(
        "softmax factors compared with the JSON: one per config of the softmax rule",
        softmaxes,
        sum(rule == "softmax" for rule, _ in USERS.values()),
        scope="data/configs/*.json: the page's list",
    )
    rec.exact(
        "cache factors compared with the JSON: one per config of the cache rule",
        caches,
        sum(rule == "cache" for rule, _ in USERS.values()),
        scope="data/configs/*.json: the page's list",
    )
    named = ", ".join(USERS[stem][1] for stem in sorted(found) if stem in USERS)
    rec.exact(
        f"configs with a temperature are those the page names ({named}) (differences)",
        len(set(found) ^ set(USERS)),
        0,
        scope="data/configs/*.json read by posenc",
    )
    rec.exact(
        "and each with the page's rule (configs whose rule differs)",
        sum(found.get(stem) != {rule} for stem, (rule, _) in USERS.items()),
        0,
        scope="data/configs/*.json read by posenc",
    )
    rec.exact(
        "how many",
        rows,
        len(USERS),
        scope="data/configs/*.json",
        quantity="users",
        show=Show(),
    )
    yarn4 = raw_scaling(raw_part("qwen3-8b-yarn-4"))["factor"]
    rec.exact(
        "Qwen3-8B's YaRN factor (the file's)",
        Fraction(yarn4),
        Fraction(read_model_factor("qwen3-8b-yarn-4")),
        scope="data/configs/qwen3-8b-yarn-4.json: plain JSON against posenc",
        quantity="qwen_s",
        show=Show(),
    )
    oss = raw_scaling(raw_part("gpt-oss-120b"))["factor"]
    rec.exact(
        "gpt-oss-120b's YaRN factor (the file's)",
        Fraction(oss),
        Fraction(read_model_factor("gpt-oss-120b")),
        scope="data/configs/gpt-oss-120b.json: plain JSON against posenc",
        quantity="oss_s",
        show=Show(),
    )
    phi_s = Fraction(phi["max_position_embeddings"], length)
    rec.exact(
        "Phi-3.5-mini's s = max_position_embeddings / original_max_position_embeddings",
        phi_s,
        Fraction(read_model_factor("phi-3.5-mini-instruct")),
        scope="data/configs/phi-3.5-mini-instruct.json (its rope_scaling gives no factor)",
        quantity="phi_s",
        show=Show(),
    )
    scout = model_config.read_model(CONFIG_DIR / "llama-4-scout-17b-16e.json")
    scout_raw = raw_part("llama-4-scout-17b-16e")
    still = [kind for kind in scout.kinds if not kind.rotates]
    turning = [kind for kind in scout.kinds if kind.rotates]
    rec.exact(
        "Llama 4 Scout: kinds of layer posenc reads (one without rotary, one with)",
        len(still) * 10 + len(turning),
        11,
        scope="data/configs/llama-4-scout-17b-16e.json",
    )
    (nope,), (rotary,) = still, turning
    rec.exact(
        "Llama 4 Scout: the layers without rotary are every fourth, 3, 7, 11, ... "
        "(no_rope_layers empty, interval 4; layers that differ)",
        len(set(nope.layers) ^ set(range(3, scout_raw["num_hidden_layers"], 4))),
        0,
        scope="posenc against Llama4TextConfig's rule on the file's num_hidden_layers",
    )
    rec.exact(
        "Llama 4 Scout: layers without rotary, every fourth (no_rope_layers empty, interval 4)",
        len(nope.layers),
        sum((i + 1) % 4 == 0 for i in range(scout_raw["num_hidden_layers"])),
        scope="posenc against Llama4TextConfig's rule on the file's num_hidden_layers",
        quantity="scout_nope",
        show=Show(),
    )
    rec.exact(
        "Llama 4 Scout: only those carry the temperature (rotary layers with one)",
        len(rotary.temperatures),
        0,
        scope="posenc's reading",
    )
    (t,) = nope.temperatures
    rec.exact(
        "Llama 4 Scout: the file states none of attn_temperature_tuning, floor_scale, "
        "attn_scale (keys present)",
        sum(key in scout_raw for key in LLAMA4_CLASS),
        0,
        scope="data/configs/llama-4-scout-17b-16e.json, plain JSON",
    )
    rec.exact(
        "Llama 4 Scout: posenc fills floor_scale with the class default",
        t.params["floor_scale"],
        INPUTS["llama4_step"],
        scope="Llama4TextConfig in Transformers 5.24 (transcribed)",
        quantity="floor_scale",
        show=Show(group=False),
    )
    rec.exact(
        "and attn_scale",
        Fraction(t.params["attn_scale"]),
        Fraction(LLAMA4_CLASS["attn_scale"]),
        scope="Llama4TextConfig in Transformers 5.24 (transcribed)",
        quantity="attn_scale",
        show=Show(sig=1),
    )
    rec.exact(
        "Llama 4 Scout: floor_scale is the original length of its rotary layers' llama3 block",
        t.params["floor_scale"],
        scout_raw["rope_scaling"]["original_max_position_embeddings"],
        scope="data/configs/llama-4-scout-17b-16e.json: so p + 1 = s F is s times that length "
        "(a reading of s chosen by the page; F is not claimed to be a training length)",
    )
    rec.exact(
        "Llama 4 Scout: floor_scale is the chunk size of its rotary layers",
        t.params["floor_scale"],
        scout_raw["attention_chunk_size"],
        scope="data/configs/llama-4-scout-17b-16e.json, attention_chunk_size, plain JSON",
    )
    context = scout_raw["max_position_embeddings"]
    rec.exact(
        "Llama 4 Scout's context, in steps of F",
        Fraction(context, t.params["floor_scale"]),
        32,
        scope="max_position_embeddings / floor_scale",
        quantity="scout_steps",
        show=Show(),
    )
    with mpmath.workdps(50):
        scout_top = 1 + mpmath.log(33) / 10
    rec.close(
        "Llama 4 Scout: the factor at its last position, 1 + 0.1 ln 33",
        float(t.on_logits([context - 1])[0]),
        sp.Float(scout_top, 50),
        tol=1e-15,
        scope=f"p = {context - 1}; posenc's Temperature against mpmath",
        quantity="scout_top",
        show=Show(sig=4),
    )
    mini = model_config.read_model(CONFIG_DIR / "ministral-3-3b-reasoning-2512.json")
    (mkind,) = mini.kinds
    (mt,) = mkind.temperatures
    mraw = raw_scaling(raw_part("ministral-3-3b-reasoning-2512"))
    rec.exact(
        "Ministral 3: beta and L0 posenc reads are the file's llama_4_scaling_beta and "
        "original_max_position_embeddings (fields that differ)",
        int(Fraction(mt.params["beta"]) != Fraction(mraw["llama_4_scaling_beta"]))
        + int(mt.params["length"] != mraw["original_max_position_embeddings"]),
        0,
        scope="data/configs/ministral-3-3b-reasoning-2512.json",
    )
    rec.exact(
        "Ministral 3's L0",
        mt.params["length"],
        mraw["original_max_position_embeddings"],
        scope="data/configs/ministral-3-3b-reasoning-2512.json",
        quantity="ministral_length",
        show=Show(group=False),
    )
    rec.close(
        "Ministral 3: its YaRN block has mscale = mscale_all_dim, so no cache factor",
        mkind.rope.inv_freq()[1],
        1,
        tol=0.0,
        scope="posenc's reading; modeling_ministral3.py's softmax scale is head_dim^-0.5",
    )
    mcontext = mini.max_position_embeddings
    with mpmath.workdps(50):
        mini_top = 1 + mpmath.log(mcontext // mt.params["length"]) / 10
    rec.close(
        "Ministral 3: the factor at its last position, 1 + 0.1 ln(context / L0)",
        float(mt.on_logits([mcontext - 1])[0]),
        sp.Float(mini_top, 50),
        tol=1e-15,
        scope=f"p = {mcontext - 1}; posenc's Temperature against mpmath",
        quantity="ministral_top",
        show=Show(sig=4),
    )
    oss_reading = read_rules("gpt-oss-120b")[1]
    rec.close(
        "gpt-oss-120b: the factor on a rotated logit, (0.1 ln 32 + 1)^2",
        oss_reading,
        sp.Float(yarn_logit_at(oss), 50),
        tol=1e-14,
        scope="posenc's Temperature.on_logits against mpmath",
        quantity="oss_logit",
        show=Show(sig=4),
    )

    # Step 9. The figure draws the rules as posenc reads them.
    drawn = {
        "yarn": figure.FACTORS["yarn"](32.0),
        "longrope": figure.FACTORS["longrope"](32.0),
        "llama4": figure.FACTORS["llama4"](32.0),
        "llama4_beta": figure.FACTORS["llama4_beta"](32.0),
        "softmax": figure.FACTORS["softmax"](40.0),
    }
    truth = {
        "yarn": float(yarn_logit_at(32)),
        "longrope": float(exact_longrope[32]),
        "llama4": float(want_l4[32]),
        "llama4_beta": float(want_mi[32]),
        "softmax": float(yarn_logit_at(40)),
    }
    rec.close(
        "the figure's curves at s = 32 (40 for the softmax) are the factors checked above",
        [drawn[key] for key in RULES if key in drawn],
        [truth[key] for key in RULES if key in drawn],
        tol=1e-14,
        scope="posenc.figures.temperatures.FACTORS against mpmath",
    )
    scout_part = raw_part("llama-4-scout-17b-16e")
    mini_part = raw_part("ministral-3-3b-reasoning-2512")
    mini_block = raw_scaling(mini_part)
    config_s = {
        "Qwen3-8B YaRN": read_model_factor("qwen3-8b-yarn-4"),
        "gpt-oss": read_model_factor("gpt-oss-120b"),
        "Phi-3.5-mini": read_model_factor("phi-3.5-mini-instruct"),
        "Scout, last position": scout_part["max_position_embeddings"]
        / scout_part["rope_scaling"]["original_max_position_embeddings"],
        "Ministral 3, last position": mini_part["max_position_embeddings"]
        / mini_block["original_max_position_embeddings"],
        "DeepSeek-V3": raw_scaling(raw_part("deepseek-v3"))["factor"],
        "Kimi K2.5": raw_scaling(raw_part("kimi-k2.5"))["factor"],
    }
    rec.exact(
        "the figure's points sit at the configs' stretches (factor, or context over step)",
        sum(Fraction(x) != Fraction(config_s[label]) for label, _, x in figure.SHIPPED),
        0,
        scope="posenc.figures.temperatures.SHIPPED against data/configs; "
        f"{len(figure.SHIPPED)} points, {len(config_s)} configs",
    )
    rec.exact(
        "the figure's L0 and steps are the configs' (Phi-3.5-mini, Scout, Ministral 3)",
        sum(
            Fraction(drawn_value) != Fraction(config_value)
            for drawn_value, config_value in (
                (figure.LONGROPE_LENGTH, length),
                (
                    figure.LLAMA4_STEP,
                    scout_part["rope_scaling"]["original_max_position_embeddings"],
                ),
                (figure.MINISTRAL_LENGTH, mini_block["original_max_position_embeddings"]),
            )
        ),
        0,
        scope="posenc.figures.temperatures constants against the plain JSON",
    )


def read_model_factor(stem: str) -> float:
    """The stretch posenc reads for the one rotary kind of a config."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    (params,) = {json.dumps(k.rope.params, sort_keys=True) for k in reading.kinds if k.rotates}
    params = json.loads(params)
    if params.get("factor") is not None:
        return params["factor"]
    return params["max_position_embeddings"] / params["original_max_position_embeddings"]


def yarn_logit_at(x) -> mpmath.mpf:
    with mpmath.workdps(50):
        return yarn_logit(mpmath.mpf(x))


# -- misreadings -------------------------------------------------------------------


def _agrees(value, closed_form, what: str) -> None:
    """Stop a witness whose value is not its closed form (a crash refutes nothing)."""
    with mpmath.workdps(50):
        if not abs(mpmath.mpf(value) - closed_form) <= mpmath.mpf(10) ** -14 * abs(closed_form):
            raise ValueError(f"the witness's {what} is {value}, not {closed_form}")


def _once(wit: Witness) -> None:
    # "YaRN's factor multiplies the logits once." gpt-oss-120b's caches (s = 32): the logits
    # through posenc's caches grow by a^2, not a.
    speeds, a = rope.inv_freq("yarn", 64, factor=32.0, original_max_position_embeddings=4096)
    plain, scaled = cache_logits(speeds, a)
    top = np.unravel_index(np.argmax(np.abs(plain)), plain.shape)
    ratio = float(scaled[top] / plain[top])
    with mpmath.workdps(50):
        _agrees(ratio, (1 + mpmath.log(32) / 10) ** 2, "logit ratio")
    wit.differs(
        ratio,
        a,
        at=f"YaRN s = 32 (gpt-oss-120b's factor), the largest of 16 x 16 logits through "
        f"posenc.rope.cos_sin caches: ratio {ratio:.6f} against a = {a:.6f}",
        margin=Fraction(4, 10),
        by="more than 0.4, where a reading of a once would give 0",
    )


def _twice(wit: Witness) -> None:
    # "DeepSeek's m(s, mscale_all_dim) goes on the caches as well as the softmax scale."
    # Then a rotated logit gains m^4; the code gives it m^2 (cache factor 1).
    right = posenc_softmax("deepseek-v3")  # m^2 on the softmax scale, caches at 1
    (kind,) = model_config.read_model(CONFIG_DIR / "deepseek-v3.json").kinds
    s, mu = kind.rope.params["factor"], kind.rope.params["mscale_all_dim"]
    wrong = right * rope.yarn_mscale(s, mu) ** 2  # and m on both caches as well
    with mpmath.workdps(50):
        m = 1 + mu * mpmath.log(s) / 10
    _agrees(right, m**2, "m^2")
    _agrees(wrong, m**4, "m^4")
    wit.differs(
        wrong,
        right,
        at=f"DeepSeek-V3, s = {s}: m^4 (caches and softmax scale) against m^2 (softmax scale "
        "only, the caches at factor 1)",
        margin=1,
        by="more than the whole of the factor's rise above 1",
    )


def _only_long(wit: Witness) -> None:
    # "Llama 4's temperature tuning matters only beyond 32k tokens: off or on, a context of
    # 32,768 is the same." (vLLM enabled it by default only for long contexts, #16439.)
    # At the last query of a 32,768-token context it multiplies the logits by 1 + 0.1 ln 5.
    context, step = INPUTS["misread_context"], INPUTS["llama4_step"]
    on = float(temperature.llama4([context - 1], 0.1, step)[0])
    with mpmath.workdps(50):
        _agrees(on, 1 + mpmath.log(context // step + 1) / 10, "factor")
    wit.differs(
        on,
        1.0,
        at=f"Llama 4, the last query (p = {context - 1}) of a context of {context} = "
        f"{context // step} x {step} tokens: factor {on:.6f} with tuning on, 1 with it off",
        margin=Fraction(3, 20),
        by="0.15, nine tenths of 0.1 ln 5",
    )


def _no_temperature(wit: Witness) -> None:
    # "DeepSeek V3's caches carry factor 1, so its logits carry no temperature."
    reading = model_config.read_model(CONFIG_DIR / "deepseek-v3.json")
    (kind,) = reading.kinds
    soft = rope.yarn_mscale(kind.rope.params["factor"], kind.rope.params["mscale_all_dim"]) ** 2
    total = soft * kind.rope.inv_freq()[1] ** 2
    with mpmath.workdps(50):
        _agrees(total, (1 + mpmath.log(40) / 10) ** 2, "factor on a rotated logit")
    wit.differs(
        total,
        1.0,
        at="DeepSeek-V3 (s = 40): softmax factor m^2 times the cache factor squared, "
        "against no temperature",
        margin=Fraction(4, 5),
        by="0.8",
    )


def _same_growth(wit: Witness) -> None:
    # "YaRN's excess over 1 is at most c ln s, with c its ratio at s = 4." YaRN's
    # (a^2 - 1) / ln s is 0.2 + 0.01 ln s: at s = e^30 it is 0.5, above c = 0.2139 by 0.28.
    with mpmath.workdps(50):
        at4 = (yarn_logit(4) - 1) / mpmath.log(4)
        far = mpmath.e**30
        at_far = (yarn_logit(far) - 1) / mpmath.log(far)
        _agrees(at4, mpmath.mpf(1) / 5 + mpmath.log(4) / 100, "ratio at s = 4")
        _agrees(at_far, mpmath.mpf(1) / 2, "ratio at s = e^30")
    wit.differs(
        sp.Float(at_far, 50),
        sp.Float(at4, 50),
        at="YaRN's (a^2 - 1) / ln s at s = e^30 (0.5) against c, its value at s = 4 (0.2139)",
        margin=Fraction(1, 4),
        by="0.25; the ratio grows as 0.01 ln s, so any c is passed at s = e^(100 c - 20)",
    )


def _longrope_is_yarn(wit: Witness) -> None:
    # "Phi-3.5's LongRoPE uses YaRN's temperature 0.1 ln s + 1." At its s = 32 and L0 = 4096
    # the logits gain 17/12, not (0.1 ln 32 + 1)^2.
    _, cache = read_rules("phi-3.5-mini-instruct")
    with mpmath.workdps(50):
        yarn = yarn_logit(32)
    _agrees(cache, mpmath.mpf(17) / 12, "LongRoPE factor")
    wit.differs(
        sp.Float(yarn, 50),
        sp.Float(cache, 50),
        at=f"Phi-3.5-mini (s = 32, L0 = 4096): YaRN's (0.1 ln 32 + 1)^2 against posenc's "
        f"LongRoPE factor {cache:.6f} (17/12)",
        margin=Fraction(3, 10),
        by="0.3",
    )


MISREADINGS = [
    Misreading(
        "YaRN's attention factor a multiplies each logit once",
        _once,
        why="It multiplies the cos and the sin cache, so both the rotated query and the "
        "rotated key: the logit gains a^2.",
    ),
    Misreading(
        "DeepSeek's m(s, mscale_all_dim) belongs on the cos and sin caches as well as on the "
        "softmax scale",
        _twice,
        why="Transformers' DeepSeek V3 puts m^2 on the softmax scale only; its caches carry "
        "m(s, mscale) / m(s, mscale_all_dim), which is 1 in its config. Both would give m^4.",
    ),
    Misreading(
        "Llama 4's temperature tuning only matters beyond 32k tokens, so below that it makes "
        "no difference whether it is on or off",
        _only_long,
        why="Its first step is at p + 1 = 8192: from there on every query of a layer without "
        "rotary is scaled, by 1 + 0.1 ln 5 at the end of a 32,768-token context.",
    ),
    Misreading(
        "DeepSeek V3's cache factor is 1, so its logits carry no temperature",
        _no_temperature,
        why="Its softmax scale carries m(s, mscale_all_dim)^2 instead, on every logit.",
    ),
    Misreading(
        "YaRN's factor on the logits, minus 1, is at most c ln s for a constant c, as Llama "
        "4's and LongRoPE's are",
        _same_growth,
        why="It is the square of 1 + 0.1 ln s: 1 + 0.2 ln s + 0.01 ln^2 s, whose excess over "
        "1 divided by ln s grows without bound.",
    ),
    Misreading(
        "LongRoPE's temperature is YaRN's 0.1 ln s + 1",
        _longrope_is_yarn,
        why="LongRoPE's code (Transformers') puts sqrt(1 + ln s / ln L0) on the caches: "
        "1 + ln s / ln L0 on the logits, well below YaRN's square at Phi-3.5's stretch.",
    ),
]
