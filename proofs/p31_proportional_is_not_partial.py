"""Proposition 31 (proportional is not partial: Gemma 4's stopped pairs, NeoX's narrow head).

A rotary head of width d (even) with base b > 1 reads a share p in (0, 1] of its head,
partial_rotary_factor, in one of two ways.

Proportional rotary (Transformers' "proportional", Gemma 4's global layers): k =
floor(p d / 2) pairs turn, pair i at omega_i = b^(-2i/d), the exponent over the whole
head; the other d/2 - k pairs have speed 0. Pair i is coordinates (i, i + d/2) of the
whole head. So it is default rotary over the whole head with the pairs k .. d/2 - 1
stopped: a stopped pair's rotation is the identity at every position, its coordinates
pass through, and its term of the score, q_i . k_i, ignores position.

NeoX partial rotary: r = floor(p d) coordinates turn, r/2 pairs at nu_i = b^(-2i/r),
the exponent over the rotated width; pair i is coordinates (i, i + r/2).

When r is even both turn k = r/2 pairs, and omega_i = (b^(r/d))^(-2i/r): proportional
rotary is NeoX partial rotary with base b^(r/d), once the turning coordinates are
gathered in front. The slowest turning pair has wavelength 2 pi b^(2(k-1)/d) under
proportional and 2 pi b^(2(k-1)/r) under NeoX partial, b^((k-1)(d-2k)/(k d)) times
longer. For d = 256, p = 1/4, b = 10^6: 32 pairs each, about 178 against about
4.08 x 10^6 positions. Gemma 4 31B (data/configs/gemma-4-31b.json, read by posenc):
global heads of width 512, 64 of 256 pairs turning, the slowest about 188.

Uses: 12, 22, 23.
"""

from __future__ import annotations

import inspect
import json
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import layouts, model_config, rope
from posenc.figures.proportional import fig_proportional_ladders
from posenc.rotary import rotary
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 31
TITLE = "Proportional is not partial: Gemma 4's stopped pairs against NeoX's narrow head"
USES = (12, 22, 23)

# The example of the statement: a head of width 256 rotating a quarter of itself with
# base 10^6 (Gemma 4's global factor and base on a 256-wide head); the largest position
# the score checks reach (Gemma 4's max_position_embeddings is read from its config
# in step 5, not taken from here), and how many evenly spread positions below it the
# pass-through check looks at; the tokens of the score check; the offset of the second
# misreading's witness; the widths of the pair-count family of step 1.
INPUTS = {
    "head_dim": 256,
    "factor": Fraction(1, 4),
    "base": 1000000,
    "positions": 262144,
    "spread": 4096,
    "tokens": 512,
    "misread_offset": 100,
    "family_width": 1024,
}
#: The shares of the family of step 1: every p that a config in data/configs uses,
#: and others whose p d is often odd.
SHARES = tuple(
    Fraction(n, m)
    for n, m in ((1, 8), (1, 5), (1, 4), (3, 10), (1, 3), (2, 5), (1, 2), (3, 4), (1, 1))
)

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
GEMMA = CONFIG_DIR / "gemma-4-31b.json"
QWEN = CONFIG_DIR / "qwen3.5-9b.json"
#: The configs kept in data/configs whose layers use proportional rotary, and those with
#: NeoX partial rotary (a share below 1, exponent over the rotated width): file stem ->
#: the model's name as the page writes it. Step 6 compares both with what posenc reads.
PROPORTIONAL_MODELS = {"gemma-4-31b": "Gemma 4 31B"}
PARTIAL_MODELS = {
    "glm-4.5-air": "GLM-4.5-Air",
    "gpt-neox-20b": "GPT-NeoX-20B",
    "phi-4-mini-instruct": "Phi-4-mini-instruct",
    "qwen3.5-9b": "Qwen3.5-9B",
}

WIDTH = INPUTS["head_dim"]
SHARE = INPUTS["factor"]
BASE = INPUTS["base"]


def turning(share: Fraction, width: int) -> int:
    """k = floor(p d / 2): the pairs proportional rotary turns (exact)."""
    return math.floor(share * width / 2)


def rotated(share: Fraction, width: int) -> int:
    """r = floor(p d): the coordinates NeoX partial rotary turns (exact)."""
    return math.floor(share * width)


def speed_50(base: int | float, i: int, over: int) -> mpmath.mpf:
    """base^(-2i/over) at 50 digits."""
    with mpmath.workdps(50):
        return mpmath.mpf(base) ** (-mpmath.mpf(2 * i) / over)


def wave_50(base: int | float, i: int, over: int) -> sp.Float:
    """The wavelength 2 pi base^(2i/over) at 50 digits, as a SymPy number."""
    with mpmath.workdps(50):
        return sp.Float(2 * mpmath.pi / speed_50(base, i, over), 50)


def slowest_50(base: int | float, share: Fraction, width: int) -> tuple[sp.Float, sp.Float]:
    """The slowest turning pair k - 1's wavelengths at 50 digits: 2 pi b^(2(k-1)/d),
    proportional's (exponent over d), and 2 pi b^(2(k-1)/r), NeoX partial's (over r)."""
    pair = turning(share, width) - 1
    return wave_50(base, pair, width), wave_50(base, pair, rotated(share, width))


def proportional_50(base: int | float, share: Fraction, width: int) -> list[mpmath.mpf]:
    """The proportional ladder at 50 digits: b^(-2i/d) for i < k, the exponent over d."""
    over = width  # the whole head, not the k turning pairs' 2k coordinates
    return [speed_50(base, i, over) for i in range(turning(share, width))]


def hf_rotate(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Hugging Face's apply_rotary_pos_emb, written out: x cos + rotate_half(x) sin.

    The caches are cat(c, c) over the whole head (posenc.layouts.cos_sin, "half"), so
    pair i is coordinates (i, i + d/2); rotate_half(x) = cat(-x2, x1).
    """
    cos, sin = layouts.cos_sin(positions, inv_freq, layout="half")  # (L, d)
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)  # (L, d)
    return x * cos + turned * sin  # (L, d)


def gather(width: int, pairs: int) -> np.ndarray:
    """The permutation that puts the k turning pairs' coordinates in front, NeoX's way.

    Proportional pair i is (i, i + d/2); after the permutation it is (i, i + k), the
    pair i of a NeoX head whose first r = 2k coordinates turn.
    """
    half = width // 2
    front = [*range(pairs), *range(half, half + pairs)]
    back = [*range(pairs, half), *range(half + pairs, width)]
    return np.array(front + back)  # (d,)


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def checks(rec: Recorder) -> None:
    k = turning(SHARE, WIDTH)
    r = rotated(SHARE, WIDTH)

    # Step 1. The two ladders in symbols. With r = 2k the proportional speed of pair i
    # is the NeoX partial speed with base b^(r/d) (the power rule for b > 0; built
    # unevaluated, since SymPy applies the rule on sight), and the slowest turning
    # wavelengths differ by the factor b^((k-1)(d-2k)/(k d)).
    b = sp.Symbol("b", positive=True)
    d, kk = sp.symbols("d k", positive=True, integer=True)
    i = sp.Symbol("i", integer=True, nonnegative=True)
    rr = 2 * kk
    rec.identity(
        "omega_i = b^(-2i/d) is NeoX's speed (b^(r/d))^(-2i/r) with the base b^(r/d), r = 2k",
        b ** (-2 * i / d) - sp.Pow(sp.Pow(b, rr / d, evaluate=False), -2 * i / rr, evaluate=False),
        scope="every b > 0, integers d, k > 0 and i >= 0 (the power rule (b^x)^y = b^(xy))",
    )
    slow_prop = 2 * sp.pi * b ** (2 * (kk - 1) / d)  # lambda_(k-1), exponent over d
    slow_neox = 2 * sp.pi * b ** (2 * (kk - 1) / rr)  # lambda_(k-1), exponent over r
    exponent = (kk - 1) * (d - 2 * kk) / (kk * d)
    rec.identity(
        "slowest turning wavelengths: NeoX's / proportional's = b^((k-1)(d-2k)/(k d))",
        slow_neox / slow_prop - b**exponent,
        scope="every b > 0, integers d, k > 0, r = 2k",
    )
    # Both schemes turn the same number of pairs whenever NeoX's r is even (posenc
    # refuses an odd r; Transformers 5.24 rounds an odd partial width up, see the page):
    # floor(p d) = 2m gives p d / 2 in [m, m + 1/2).
    family = [(w, p) for w in range(2, INPUTS["family_width"] + 1, 2) for p in SHARES]
    even = [(w, p) for w, p in family if rotated(p, w) % 2 == 0 and rotated(p, w) >= 2]
    # How many (d, p) of the family have r even and >= 2, counted by hand: with t = d/2,
    # r = 2j exactly for j/p <= t < (2j + 1)/(2p). Per share, in the order of SHARES:
    # 253, 306, 255, 255, 340, 306, 256, 256, 512 (p = 1: every t; p = 1/2: t even;
    # p = 1/4: t = 4, 5, 8, 9, ..., 508, 509, 512).
    rec.exact(
        "the family's pairs (d, p) with floor(p d) even and >= 2, against the count by hand",
        len(even),
        2739,
        scope=f"d = 2, 4, ..., {INPUTS['family_width']}, the {len(SHARES)} shares of step 1",
    )
    rec.exact(
        "floor(p d / 2) = floor(p d) / 2 whenever floor(p d) is even and >= 2 (failures)",
        sum(int(turning(p, w) != Fraction(rotated(p, w), 2)) for w, p in even),
        0,
        scope=f"d = 2, 4, ..., {INPUTS['family_width']} and p in "
        f"{{{', '.join(str(p) for p in SHARES)}}}: {len(even)} pairs (d, p) with r even; "
        "exact rationals",
    )

    # Step 2. The library against the symbols, on the example d = 256, p = 1/4, b = 10^6.
    prop, _ = rope.inv_freq(
        "proportional", WIDTH, base=float(BASE), partial_rotary_factor=float(SHARE)
    )  # (d/2,)
    neox, _ = rope.inv_freq(
        "default", WIDTH, base=float(BASE), partial_rotary_factor=float(SHARE)
    )  # (r/2,)
    rec.exact(
        "posenc's proportional ladder has a speed for every pair of the head: d/2",
        prop.size,
        WIDTH // 2,
        scope="posenc.rope.inv_freq('proportional'), d = 256, p = 1/4, b = 10^6",
        quantity="pairs",
        show=Show(),
    )
    rec.exact(
        "of them floor(p d / 2) are nonzero (pairs that turn)",
        int(np.count_nonzero(prop)),
        k,
        scope="the same ladder; k computed in exact rationals",
        quantity="turning",
        show=Show(),
    )
    rec.exact(
        "the turning pairs are the first k: nonzero speeds past pair k - 1",
        int(np.count_nonzero(prop[k:])),
        0,
        scope="the same ladder, pairs k .. d/2 - 1",
    )
    rec.exact(
        "proportional = default rotary over the whole head with the slow pairs stopped: its "
        "first k speeds are posenc's default ladder of width d (differing entries)",
        int(np.sum(prop[:k] != rope.default_inv_freq(WIDTH, float(BASE))[:k])),
        0,
        scope="posenc.rope.inv_freq('proportional') against posenc.rope.default_inv_freq(256); "
        "float64 values compared exactly",
    )
    rec.exact(
        "posenc's proportional speeds are b^(-2i/d), each the float64 nearest the 50-digit "
        "value (differing entries)",
        sum(
            int(float(w) != float(v))
            for w, v in zip(prop[:k].tolist(), proportional_50(BASE, SHARE, WIDTH), strict=True)
        ),
        0,
        scope="pairs 0 .. k - 1 against mpmath at 50 digits, rounded once to float64",
    )
    rec.exact(
        "NeoX partial turns r/2 pairs, as many as proportional (posenc's ladder length - k)",
        neox.size - k,
        0,
        scope="posenc.rope.inv_freq('default', partial_rotary_factor=1/4), d = 256",
    )
    rec.exact(
        "NeoX partial rotates r = floor(p d) coordinates",
        2 * neox.size,
        r,
        scope="the same ladder; r computed in exact rationals",
        quantity="rotated_width",
        show=Show(),
    )
    rec.exact(
        "posenc's NeoX partial speeds are b^(-2i/r), each the float64 nearest the 50-digit "
        "value (differing entries)",
        sum(int(float(w) != float(speed_50(BASE, j, r))) for j, w in enumerate(neox.tolist())),
        0,
        scope="pairs 0 .. r/2 - 1 against mpmath at 50 digits, rounded once to float64",
    )
    # The base NeoX would need: b^(r/d), here 10^(6/4).
    with mpmath.workdps(50):
        effective = mpmath.mpf(BASE) ** (mpmath.mpf(r) / WIDTH)
    exact_effective = sp.Integer(BASE) ** sp.Rational(r, WIDTH)
    rec.close(
        "the base b^(r/d) that NeoX partial needs to turn proportional's speeds",
        float(effective),
        exact_effective,
        tol=float(effective) * 2.3e-16,
        scope="mpmath at 50 digits rounded to float64, against the exact 10^(3/2)",
        quantity="effective_base",
        show=Show(sig=3),
    )
    same, _ = rope.inv_freq(
        "default", WIDTH, base=float(effective), partial_rotary_factor=float(SHARE)
    )
    rec.numeric(
        "posenc's proportional speeds are its NeoX partial speeds with base b^(r/d) "
        "(relative error)",
        [abs(x / y - 1) for x, y in zip(prop[:k].tolist(), same.tolist(), strict=True)],
        tol=1e-14,
        scope="d = 256, p = 1/4: posenc.rope.inv_freq both ways, the base rounded to float64",
    )

    # Step 3. Stopped pairs pass through, and the score. In symbols: one turning pair of
    # speed omega and one pair of speed 0; the score of a query at m and a key at n is
    # the turning pair's rotated dot plus the stopped pair's plain dot.
    q = sp.Matrix(sp.symbols("q0:4", real=True))
    kv = sp.Matrix(sp.symbols("k0:4", real=True))
    omega, sigma = sp.symbols("omega sigma", positive=True)
    m, n = sp.symbols("m n", integer=True)

    def score(speeds):
        total = sp.Integer(0)
        for j, w in enumerate(speeds):
            qj, kj = q[2 * j : 2 * j + 2, 0], kv[2 * j : 2 * j + 2, 0]
            total += ((block(m * w) * qj).T * (block(n * w) * kj))[0, 0]
        return total

    stopped = score([omega, sigma]).subs(sigma, 0)
    relative = (q[0:2, 0].T * block((n - m) * omega) * kv[0:2, 0])[0, 0] + (
        q[2:4, 0].T * kv[2:4, 0]
    )[0, 0]
    rec.identity(
        "a pair of speed 0 adds q_j . k_j, whatever the positions; the turning pair adds "
        "q_i^T R((n - m) omega) k_i",
        sp.expand_trig(sp.expand(stopped - relative)),
        scope="every real q, k in R^4, omega > 0, integer positions m, n",
    )
    # On the library: Hugging Face's x cos + rotate_half(x) sin with posenc's caches
    # leaves every coordinate of a stopped pair exactly as it was.
    rng = np.random.default_rng(31)
    reach = INPUTS["positions"]
    spread = np.arange(0, reach, reach // INPUTS["spread"], dtype=np.int64)  # (S,)
    x = rng.standard_normal((spread.size, WIDTH))  # (S, d)
    out = hf_rotate(x, spread, prop)  # (S, d)
    still = np.r_[k : WIDTH // 2, WIDTH // 2 + k : WIDTH]  # the stopped pairs' coordinates
    rec.exact(
        "every coordinate of a stopped pair comes out unchanged (differing entries)",
        int(np.sum(out[:, still] != x[:, still])),
        0,
        scope=f"posenc's caches in HF's layout, {spread.size} positions 0, {spread[1]}, ..., "
        f"{spread[-1]}, random vectors; float64 compared exactly",
    )
    moved = np.r_[0:k, WIDTH // 2 : WIDTH // 2 + k]
    rec.exact(
        "and the turning coordinates do move (unchanged rows at positions > 0)",
        int(np.sum(np.all(out[1:, moved] == x[1:, moved], axis=1))),
        0,
        scope=f"the same {spread.size - 1} positions above 0",
    )
    # The score: proportional in HF's layout equals NeoX partial with base b^(r/d) on the
    # gathered coordinates (posenc.rotary, split halves over the first r), plus the plain
    # dot of the coordinates that pass through.
    tokens = INPUTS["tokens"]
    pos_q = rng.integers(0, reach, size=tokens)  # (T,)
    pos_k = rng.integers(0, reach, size=tokens)  # (T,)
    qs, ks = rng.standard_normal((2, tokens, WIDTH))  # (T, d) each
    hf = np.einsum("td,td->t", hf_rotate(qs, pos_q, prop), hf_rotate(ks, pos_k, prop))  # (T,)
    order = gather(WIDTH, k)
    qg, kg = qs[:, order], ks[:, order]  # (T, d) each
    front_q = rotary(qg[:, :r], pos_q, base=float(effective), pairing="half")  # (T, r)
    front_k = rotary(kg[:, :r], pos_k, base=float(effective), pairing="half")  # (T, r)
    neox_score = np.einsum("td,td->t", front_q, front_k) + np.einsum(
        "td,td->t", qg[:, r:], kg[:, r:]
    )  # (T,)
    rec.numeric(
        "HF's proportional score = NeoX partial's with base b^(r/d) on the gathered "
        "coordinates + the plain dot of the rest (absolute error)",
        hf - neox_score,
        tol=1e-8,
        scope=f"{tokens} random query-key pairs, positions in [0, {reach}), d = 256, p = 1/4; "
        "scores of size about 16, angles up to 2.6 x 10^5 rad",
    )

    # Step 4. The slowest turning pair of each ladder: posenc's wavelengths against
    # mpmath at 50 digits; their ratio against b^((k-1)(d-2k)/(k d)).
    waves_prop = rope.wavelengths(prop[:k])  # (k,)
    waves_neox = rope.wavelengths(neox)  # (r/2,)
    three = Show(sig=3)
    exact_prop, exact_neox = slowest_50(BASE, SHARE, WIDTH)
    rec.close(
        "posenc's slowest turning wavelength under proportional is 2 pi b^(2(k-1)/d)",
        float(waves_prop[-1]),
        exact_prop,
        tol=float(exact_prop) * 1e-14,
        scope="pair k - 1 = 31, mpmath at 50 digits; tolerance 10^-14 of the wavelength",
        quantity="slowest_proportional",
        show=three,
    )
    rec.close(
        "posenc's slowest turning wavelength under NeoX partial is 2 pi b^(2(k-1)/r)",
        float(waves_neox[-1]),
        exact_neox,
        tol=float(exact_neox) * 1e-14,
        scope="pair r/2 - 1 = 31, mpmath at 50 digits; tolerance 10^-14 of the wavelength",
        quantity="slowest_partial",
        show=three,
    )
    rec.rounds_to(
        "the proportional one is about 178 positions, the value this page was asked to confirm",
        float(exact_prop),
        "178",
        show=three,
        scope="mpmath's value shown to 3 significant digits",
    )
    rec.rounds_to(
        "the NeoX one is about 4.08 x 10^6 positions, the value this page was asked to confirm",
        float(exact_neox),
        "4.08 × 10⁶",
        show=three,
        scope="mpmath's value shown to 3 significant digits",
    )
    rec.exact(
        "the exponent (k-1)(d-2k)/(k d) at k = 32, d = 256",
        Fraction((k - 1) * (WIDTH - 2 * k), k * WIDTH),
        Fraction(93, 128),
        scope="exact rationals",
        quantity="ratio_exponent",
        show=Show(style="fraction"),
    )
    ratio_50 = sp.Float(
        mpmath.power(mpmath.mpf(BASE), mpmath.mpf(93) / 128), 50
    )  # b^(93/128) at 50 digits
    rec.close(
        "posenc's two slowest wavelengths differ by the factor b^((k-1)(d-2k)/(k d))",
        float(waves_neox[-1]) / float(waves_prop[-1]),
        ratio_50,
        tol=float(ratio_50) * 1e-13,
        scope="posenc's float64 wavelengths against mpmath's 10^(6 x 93/128)",
        quantity="slowest_ratio",
        show=three,
    )
    drawn = inspect.signature(fig_proportional_ladders).parameters
    rec.exact(
        "the figure draws this example: its default head_dim, p and base are the inputs "
        "(mismatches)",
        int(drawn["head_dim"].default != WIDTH)
        + int(Fraction(drawn["partial_rotary_factor"].default) != SHARE)
        + int(drawn["base"].default != BASE),
        0,
        scope="posenc.figures.proportional.fig_proportional_ladders, as the site's build calls it",
    )

    # Step 5. Gemma 4 31B, from its config.json read by posenc: the global layers'
    # heads, scheme and speeds; each read value against the file read as plain JSON.
    raw = json.loads(GEMMA.read_text())["text_config"]
    raw_global = raw["rope_parameters"]["full_attention"]
    reading = model_config.read_model(GEMMA)
    glob = reading.kind("full_attention")
    local = reading.kind("sliding_attention")
    where = "data/configs/gemma-4-31b.json, read with posenc.model_config.read_model"
    rec.exact(
        "posenc reads as many layers as the config lists",
        reading.num_layers,
        len(raw["layer_types"]),
        scope=where,
        quantity="gemma_layers",
        show=Show(),
    )
    rec.exact(
        "the layers posenc reads as proportional are the file's full_attention layers "
        "(layers posenc reads, against the file's count)",
        len(glob.layers),
        raw["layer_types"].count("full_attention"),
        scope=where,
        quantity="gemma_global_layers",
        show=Show(),
    )
    rec.exact(
        "their scheme, base and share are the file's: proportional, rope_theta, "
        "partial_rotary_factor (mismatches)",
        int(glob.rope.scheme != raw_global["rope_type"])
        + int(raw_global["rope_type"] != "proportional")
        + int(Fraction(glob.rope.base) != Fraction(raw_global["rope_theta"]))
        + int(Fraction(glob.rope.params["partial_rotary_factor"]) != SHARE)
        + int(Fraction(raw_global["partial_rotary_factor"]) != SHARE),
        0,
        scope=where + "; the share compared with this page's p = 1/4",
    )
    rec.exact(
        "their head width is global_head_dim, not head_dim",
        glob.rope.head_dim,
        raw["global_head_dim"],
        scope=where,
        quantity="gemma_head_dim",
        show=Show(),
    )
    g_width = glob.rope.head_dim
    g_base = raw_global["rope_theta"]
    g_speeds = glob.inv_freq  # (g_width/2,)
    g_k = turning(SHARE, g_width)
    rec.exact(
        "a global head has a speed for each of its d/2 pairs",
        g_speeds.size,
        g_width // 2,
        scope=where,
        quantity="gemma_pairs",
        show=Show(),
    )
    rec.exact(
        "of which floor(p d / 2) turn (nonzero speeds)",
        int(np.count_nonzero(g_speeds)),
        g_k,
        scope=where + "; k in exact rationals from the file's width and share",
        quantity="gemma_turning",
        show=Show(),
    )
    rec.exact(
        "they are the first k of the default ladder of width d, each the float64 nearest "
        "b^(-2i/d); the rest are 0 (differing entries)",
        int(np.sum(g_speeds[:g_k] != rope.default_inv_freq(g_width, float(g_base))[:g_k]))
        + sum(
            int(float(w) != float(v))
            for w, v in zip(
                g_speeds[:g_k].tolist(), proportional_50(g_base, SHARE, g_width), strict=True
            )
        )
        + int(np.count_nonzero(g_speeds[g_k:])),
        0,
        scope=where + "; mpmath at 50 digits",
    )
    g_slowest = wave_50(g_base, g_k - 1, g_width)
    rec.close(
        "the slowest turning pair of a Gemma 4 31B global head: 2 pi b^(2(k-1)/d)",
        float(rope.wavelengths(g_speeds[:g_k])[-1]),
        g_slowest,
        tol=float(g_slowest) * 1e-14,
        scope=where + "; pair 63 of 256, mpmath at 50 digits",
        quantity="gemma_slowest",
        show=three,
    )
    g_neox, _ = rope.inv_freq(
        "default", g_width, base=float(g_base), partial_rotary_factor=float(SHARE)
    )
    rec.exact(
        "read as NeoX partial, it would rotate r = floor(p d) = 2k coordinates",
        2 * g_neox.size,
        2 * g_k,
        scope="posenc.rope.inv_freq('default', 512, partial_rotary_factor=1/4)",
        quantity="gemma_rotated",
        show=Show(),
    )
    g_misread = wave_50(g_base, g_k - 1, rotated(SHARE, g_width))
    rec.close(
        "read as NeoX partial, the same config's slowest pair would be 2 pi b^(2(k-1)/r)",
        float(rope.wavelengths(g_neox)[-1]),
        g_misread,
        tol=float(g_misread) * 1e-14,
        scope="posenc.rope.inv_freq('default', 512, partial_rotary_factor=1/4); mpmath",
        quantity="gemma_misread",
        show=three,
    )
    rec.exact(
        "posenc reads the config's context length",
        reading.max_position_embeddings,
        raw["max_position_embeddings"],
        scope=where,
        quantity="gemma_context",
        show=Show(),
    )
    with mpmath.workdps(50):
        turns_50 = sp.Float(
            mpmath.mpf(raw["max_position_embeddings"]) / mpmath.mpf(str(g_slowest)), 50
        )
    rec.close(
        "over that context the slowest turning pair turns L / lambda_(k-1) times",
        raw["max_position_embeddings"] / float(rope.wavelengths(g_speeds[:g_k])[-1]),
        turns_50,
        tol=1e-9,
        scope=where + "; posenc's float64 wavelength against mpmath's",
        quantity="gemma_turns",
        show=three,
    )
    raw_local = raw["rope_parameters"]["sliding_attention"]
    l_width = local.rope.head_dim
    l_slowest = wave_50(raw_local["rope_theta"], l_width // 2 - 1, l_width)
    rec.exact(
        "the sliding layers read as the file's default rotary over head_dim, 256 like the "
        "example's (mismatches)",
        int(local.rope.scheme != raw_local["rope_type"])
        + int(l_width != raw["head_dim"])
        + int(l_width != WIDTH)
        + int(local.inv_freq.size != l_width // 2),
        0,
        scope=where,
    )
    rec.exact(
        "with the file's sliding base",
        Fraction(local.rope.base),
        Fraction(raw_local["rope_theta"]),
        scope=where,
        quantity="sliding_base",
        show=Show(),
    )
    rec.close(
        "the sliding layers' slowest pair, for comparison: 2 pi b^((d-2)/d), b = 10^4",
        float(rope.wavelengths(local.inv_freq)[-1]),
        l_slowest,
        tol=float(l_slowest) * 1e-14,
        scope=where + "; head_dim 256, base 10^4; mpmath at 50 digits",
        quantity="sliding_slowest",
        show=three,
    )

    # Step 6. Which configs kept in data/configs use which scheme, read by posenc:
    # the files with a proportional kind of layer, and those with NeoX partial rotary
    # (a share below 1 under any other scheme), against the names the page gives.
    files = sorted(CONFIG_DIR.glob("*.json"))
    found_prop, found_partial, read = set(), set(), 0
    for path in files:
        for kind in model_config.read_model(path).kinds:
            if kind.rope is None:
                continue
            share = Fraction(kind.rope.params.get("partial_rotary_factor", 1))
            if kind.rope.scheme == "proportional":
                found_prop.add(path.stem)
            elif share < 1:
                found_partial.add(path.stem)
        read += 1
    rec.exact(
        "posenc reads every config kept in data/configs",
        read,
        len(files),
        scope="data/configs/*.json, posenc.model_config.read_model",
        quantity="configs_read",
        show=Show(),
    )
    rec.exact(
        "the configs with proportional layers are the ones the page names (differences)",
        len(found_prop ^ set(PROPORTIONAL_MODELS)),
        0,
        scope=f"data/configs/*.json; named: {', '.join(PROPORTIONAL_MODELS.values())}",
    )
    rec.exact(
        "the configs with NeoX partial rotary are the ones the page names (differences)",
        len(found_partial ^ set(PARTIAL_MODELS)),
        0,
        scope=f"data/configs/*.json; named: {', '.join(PARTIAL_MODELS.values())}",
    )
    rec.exact(
        "the page names this many NeoX partial configs",
        len(found_partial),
        len(PARTIAL_MODELS),
        scope="data/configs/*.json",
        quantity="partial_configs",
        show=Show(),
    )
    # Qwen3.5-9B: a real head of the example's width and share, under NeoX partial.
    qwen = model_config.read_model(QWEN).kind("full_attention")
    q_width, q_base = qwen.rope.head_dim, qwen.rope.base
    q_share = Fraction(qwen.rope.params["partial_rotary_factor"])
    rec.exact(
        "Qwen3.5-9B's attention heads have the example's width and share (mismatches)",
        int(q_width != WIDTH) + int(q_share != SHARE) + int(qwen.rope.scheme != "default"),
        0,
        scope="data/configs/qwen3.5-9b.json, read with posenc.model_config.read_model",
    )
    rec.exact(
        "and its base is the file's rope_theta",
        Fraction(q_base),
        Fraction(json.loads(QWEN.read_text())["text_config"]["rope_parameters"]["rope_theta"]),
        scope="data/configs/qwen3.5-9b.json, read as plain JSON",
        quantity="qwen_base",
        show=Show(),
    )
    q_slowest = wave_50(q_base, rotated(q_share, q_width) // 2 - 1, rotated(q_share, q_width))
    rec.close(
        "its slowest turning pair, NeoX partial with its base: 2 pi b^((r-2)/r)",
        float(rope.wavelengths(qwen.inv_freq)[-1]),
        q_slowest,
        tol=float(q_slowest) * 1e-14,
        scope="data/configs/qwen3.5-9b.json (base 10^7), posenc against mpmath at 50 digits",
        quantity="qwen_slowest",
        show=three,
    )


# -- misreadings -------------------------------------------------------------------


def _exponent_over_rotated_width(wit: Witness) -> None:
    # "Proportional is NeoX partial with the same factor: b^(-2i/r)." The slowest turning
    # pair at d = 256, p = 1/4, b = 10^6 is 4.08 x 10^6 positions long under that
    # reading and 178 under Transformers' proportional rotary.
    # The two wavelengths are step 4's, which it pins to 178 and 4.08 x 10^6.
    proportional, partial = slowest_50(BASE, SHARE, WIDTH)
    wit.differs(
        partial,
        proportional,
        at="d = 256, p = 1/4, b = 10^6, pair 31: wavelength with the exponent over r = 64 "
        "against over d = 256 (mpmath, 50 digits)",
        margin=10**6,
        by="a million positions",
    )


def _factor_ignored(wit: Witness) -> None:
    # "partial_rotary_factor can be left out: every pair turns at b^(-2i/d)." In Gemma 4
    # 31B's global heads pair 64 is stopped; read with the factor ignored it turns at
    # 10^(-3/2) per position. Query and key e_64 at offset 100: the score is 1 with the
    # pair stopped, cos(100 x 10^(-3/2)), about -1, with it turning. (e_64 is the first
    # coordinate of pair 64 in the split-half layout.)
    glob = model_config.read_model(GEMMA).kind("full_attention")
    width, base = glob.rope.head_dim, glob.rope.base
    k = int(np.count_nonzero(glob.inv_freq))
    every = rope.default_inv_freq(width, base)  # the misreading's speeds
    unit = np.zeros((1, width))
    unit[0, k] = 1.0
    at = np.array([INPUTS["misread_offset"]])

    def score(speeds):
        return float(hf_rotate(unit, np.array([0]), speeds)[0] @ hf_rotate(unit, at, speeds)[0])

    wit.differs(
        score(every),
        score(glob.inv_freq),
        at=f"Gemma 4 31B's global head (d = {width}), q = k = e_{k} at offset {at[0]}, "
        "posenc's caches in HF's layout: the factor ignored against proportional",
        margin=1,
        by="half the range of a unit vector's score",
    )


def _contiguous_layout(wit: Witness) -> None:
    # "The turning pairs' speeds are all that matters: rotate the first 2k coordinates,
    # pairs (i, i + k), as NeoX does." Transformers pairs (i, i + d/2): coordinate 32 of a
    # 256-wide head is in stopped pair 32, not paired with coordinate 0 at speed 1. Query
    # and key e_32 at offset 1: score 1 against cos 1.
    prop, _ = rope.inv_freq(
        "proportional", WIDTH, base=float(BASE), partial_rotary_factor=float(SHARE)
    )
    k = int(np.count_nonzero(prop))
    unit = np.zeros((1, WIDTH))
    unit[0, k] = 1.0

    def contiguous(x, position):  # split halves inside the first 2k coordinates
        out = x.copy()
        out[:, : 2 * k] = hf_rotate(x[:, : 2 * k], position, prop[:k])
        return out

    def score(rotate):
        return float(rotate(unit, np.array([0]))[0] @ rotate(unit, np.array([1]))[0])

    wit.differs(
        score(lambda x, p: hf_rotate(x, p, prop)),
        score(contiguous),
        at="d = 256, p = 1/4, b = 10^6, q = k = e_32 at offset 1, posenc's caches: HF's "
        "pairs (i, i + 128) against contiguous pairs (i, i + 32)",
        margin=sp.Rational(1, 10),
        by="a tenth of a unit vector's score",
    )


MISREADINGS = [
    Misreading(
        "Proportional rotary is NeoX partial rotary with the same factor: pair i turns at "
        "b^(-2i/r), the exponent over the rotated width",
        _exponent_over_rotated_width,
        why="Proportional keeps the exponent over the whole head; its turning pairs are the "
        "fastest rungs of the full ladder, so the slowest is thousands of times faster than "
        "NeoX's.",
    ),
    Misreading(
        "partial_rotary_factor can be ignored: every pair of the head turns at b^(-2i/d)",
        _factor_ignored,
        why="Proportional stops the pairs from k on: their coordinates pass through and their "
        "score term ignores position; turning them changes the score.",
    ),
    Misreading(
        "With the right speeds, the turning coordinates may be the first 2k of the head, "
        "paired (i, i + k) as in NeoX",
        _contiguous_layout,
        why="Transformers pairs coordinate i with i + d/2 across the whole head; the "
        "contiguous layout pairs other coordinates and gives other scores.",
    ),
]
