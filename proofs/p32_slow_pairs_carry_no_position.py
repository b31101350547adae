"""Proposition 32 (slow pairs carry no position: a bound on their score, counted in configs).

Pair i of a rotary head turns at speed omega >= 0; let q, k in R^2 be its parts of a
query at position m and a key at position n. Its term of the score is
s = q^T R((n - m) omega) k (Proposition 12), and for every m, n

    |s - q^T k| <= 2 |sin((n - m) omega / 2)| |q| |k| <= |n - m| omega |q| |k|,

the first bound attained for every angle by some q, k. So over a context C
(|n - m| <= C) a pair with omega C <= delta adds the position-free q^T k, up to at
most delta |q| |k|; the terms of a set S of such pairs add up to q_S^T k_S, up to at
most delta |q_S| |k_S|. These are the slow pairs that Barbero et al. (arXiv 2410.06205)
see used as semantic channels, and that p-RoPE removes.

With delta = 1/10, counted from the configs kept in data/configs (read by posenc), over
the span posenc reads for each kind of layer: its sliding_window when the config gives
one, else the model's max_position_embeddings (so Gemma 3 4B's sliding layers, whose
config has no sliding_window, are counted over the whole context): 8 of SmolLM3-3B's
64 pairs, 5 of Llama 3.1 8B's, none of Llama 2 7B's, 16 of the 32 of gpt-oss-120b's
sliding-window layers, and none of the turning pairs of Gemma 4 31B's global layers
(its 192 stopped pairs carry no position at all).

Uses: 12, 22, 31.
"""

from __future__ import annotations

import inspect
import itertools
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import layouts, model_config
from posenc.figures import slow as figure
from posenc.rotary import rotary_angles
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 32
TITLE = "Slow pairs carry no position: a bound on their score, counted in shipped configs"
USES = (12, 22, 31)

# The angle budget delta (radians over the whole context); the random query-key pairs
# of the library check; the largest family of the many-pair Cauchy-Schwarz step.
INPUTS = {
    "delta": Fraction(1, 10),
    "tokens": 256,
    "most_pairs": 6,
}
DELTA = INPUTS["delta"]

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"

#: The configs whose counts the page states: key -> (file stem, layer kind or None).
NAMED = {
    "llama2": ("llama-2-7b", None),
    "code_llama": ("code-llama-7b", None),
    "llama31": ("llama-3.1-8b", None),
    "smol": ("smollm3-3b", None),
    "qwen3vl": ("qwen3-vl-8b-instruct", None),
    "gptoss_sliding": ("gpt-oss-120b", "sliding_attention"),
    "gptoss_full": ("gpt-oss-120b", "full_attention"),
    "gemma4_global": ("gemma-4-31b", "full_attention"),
    "gemma4_sliding": ("gemma-4-31b", "sliding_attention"),
}
#: Every config kept in data/configs, by file stem, as the page names its model. Files
#: that hold one model twice (the -rope-parameters form) share its name; files that
#: add a scaling block by hand say so.
MODEL_NAMES = {
    "code-llama-7b": "Code Llama 7B",
    "command-r7b-12-2024": "Command R7B",
    "deepseek-v3.2-exp": "DeepSeek-V3.2-Exp",
    "deepseek-v3": "DeepSeek-V3",
    "gemma-3-27b-it": "Gemma 3 27B",
    "gemma-3-4b-rope-parameters": "Gemma 3 4B",
    "gemma-4-31b": "Gemma 4 31B",
    "glm-4.5-air": "GLM-4.5-Air",
    "gpt-neox-20b": "GPT-NeoX-20B",
    "gpt-oss-120b": "gpt-oss-120b",
    "kimi-k2.5": "Kimi K2.5",
    "llama-2-7b-dynamic-2": "Llama 2 7B with dynamic NTK added",
    "llama-2-7b-linear-4": "Llama 2 7B with linear scaling added",
    "llama-2-7b": "Llama 2 7B",
    "llama-3.1-8b-rope-parameters": "Llama 3.1 8B",
    "llama-3.1-8b": "Llama 3.1 8B",
    "llama-3.2-1b": "Llama 3.2 1B",
    "llama-4-scout-17b-16e": "Llama 4 Scout",
    "ministral-3-3b-reasoning-2512": "Ministral 3 3B",
    "phi-3-mini-128k-shape": "Phi-3-mini-128k (stand-in factors)",
    "phi-3.5-mini-instruct": "Phi-3.5-mini",
    "phi-4-mini-instruct": "Phi-4-mini",
    "qwen2.5-7b-yarn-4": "Qwen2.5-7B-Instruct with YaRN",
    "qwen3-8b-yarn-4": "Qwen3-8B with YaRN",
    "qwen3-vl-8b-instruct": "Qwen3-VL-8B",
    "qwen3.5-9b": "Qwen3.5-9B",
    "smollm3-3b": "SmolLM3-3B",
}
#: The models the page lists as having at least one slow pair (delta = 1/10).
SLOW_MODELS = {
    "Code Llama 7B",
    "Command R7B",
    "Gemma 3 4B",
    "gpt-oss-120b",
    "Llama 3.1 8B",
    "Llama 3.2 1B",
    "Llama 4 Scout",
    "Ministral 3 3B",
    "Qwen2.5-7B-Instruct with YaRN",
    "Qwen3-8B with YaRN",
    "Qwen3-VL-8B",
    "SmolLM3-3B",
}
#: The figure's ladders (posenc.figures.slow.LADDERS), by name: file stem, layer kind.
FIGURE_FILES = {
    "Llama 2 7B": ("llama-2-7b", None),
    "Code Llama 7B": ("code-llama-7b", None),
    "SmolLM3-3B": ("smollm3-3b", None),
    "Qwen3-VL-8B": ("qwen3-vl-8b-instruct", None),
    "Gemma 4 31B, global": ("gemma-4-31b", "full_attention"),
}


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def kind_of(stem: str, layer: str | None):
    """The rotating kind of layer of a config, and its reading."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    return reading.kind(layer), reading


def context(kind, reading) -> int | None:
    """The span a kind of layer is counted over: the sliding_window posenc reads from its
    config, else the model's max_position_embeddings (also for a sliding kind whose config
    names no window, like Gemma 3 4B's); None when the config gives neither."""
    return kind.sliding_window or reading.max_position_embeddings


def speeds_at(kind, length: int) -> np.ndarray:
    """posenc's speeds of a kind of layer at the length ``length`` (0 for stopped pairs)."""
    if kind.rope.scheme in ("dynamic", "longrope"):
        return kind.rope.inv_freq(seq_len=length)[0]
    return kind.inv_freq


def slow_mask(w: np.ndarray, length: int) -> np.ndarray:
    """Pairs that turn, by at most delta over ``length``: 0 < omega C < delta (float64)."""
    return (w > 0) & (w * length < float(DELTA))


def slow_exact(base: int, over: int, turning: int, length: int) -> int:
    """How many of the pairs i < ``turning`` of the ladder base^(-2i/over) are slow.

    omega_i C < delta  iff  (C / delta)^over < base^(2i): integers and rationals only.
    """
    bound = (Fraction(length) / DELTA) ** over
    return sum(int(bound < Fraction(base) ** (2 * i)) for i in range(turning))


def tight_change(phi):
    """The change of a unit pair's term with the tight k of step 4 at the angle phi."""
    return 2 * mpmath.sin(phi / 2)


def second_order(phi):
    """The third misreading's estimate of that change, phi^2 / 2."""
    return phi**2 / 2


def share_of(kind) -> Fraction:
    """The kind's partial_rotary_factor as an exact rational (1 when the config has none)."""
    return Fraction(str(kind.rope.params.get("partial_rotary_factor", 1)))


def exponent_width(kind) -> int:
    """The width w of an exact ladder b^(-2i/w): the head for proportional, else the rotated."""
    head, share = kind.rope.head_dim, share_of(kind)
    return head if kind.rope.scheme == "proportional" else int(head * share)


def exact_ladder(kind) -> bool:
    """Whether the speeds are b^(-2i/d) with a whole-number base: default or proportional."""
    whole = float(kind.rope.base).is_integer()
    plain = "factor" not in kind.rope.params
    return kind.rope.scheme in ("default", "proportional") and whole and plain


def hf_rotate(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray) -> np.ndarray:
    """Hugging Face's x cos + rotate_half(x) sin with posenc's caches: pair i = (i, i + d/2)."""
    cos, sin = layouts.cos_sin(positions, inv_freq, layout="half")  # (L, d)
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)  # (L, d)
    return x * cos + turned * sin


def checks(rec: Recorder) -> None:
    # Step 1. One pair: the change of its term is 2 sin(phi/2) times a rotated dot.
    # phi = 2t keeps the half angle out of SymPy's way.
    q = sp.Matrix(sp.symbols("q0:2", real=True))
    k = sp.Matrix(sp.symbols("k0:2", real=True))
    t = sp.Symbol("t", real=True)
    change = (q.T * (block(2 * t) - sp.eye(2)) * k)[0, 0]
    rec.identity(
        "q^T (R(phi) - I) k = 2 sin(phi/2) q^T R(phi/2 + pi/2) k",
        change - 2 * sp.sin(t) * (q.T * block(t + sp.pi / 2) * k)[0, 0],
        scope="every real q, k in R^2 and every real phi = 2t",
    )

    # Step 2. |q^T R k| <= |q| |k|: a rotation keeps lengths, and in the plane
    # (q . v)^2 + (q x v)^2 = |q|^2 |v|^2 (Lagrange's identity).
    theta = sp.Symbol("theta", real=True)
    turned = block(theta) * k
    rec.identity(
        "|R(theta) k|^2 = |k|^2",
        (turned.T * turned)[0, 0] - (k.T * k)[0, 0],
        scope="every real k in R^2 and theta",
    )
    v = sp.Matrix(sp.symbols("v0:2", real=True))
    rec.identity(
        "(q . v)^2 + (q0 v1 - q1 v0)^2 = |q|^2 |v|^2, so |q . v| <= |q| |v|",
        (q.T * v)[0, 0] ** 2
        + (q[0] * v[1] - q[1] * v[0]) ** 2
        - (q.T * q)[0, 0] * (v.T * v)[0, 0],
        scope="every real q, v in R^2",
    )

    # Step 3. 2 |sin(phi/2)| <= |phi|: t - sin t is 0 at 0 and has the derivative
    # 1 - cos t = 2 sin(t/2)^2 >= 0, so sin t <= t for t >= 0 (and |sin| is odd-even).
    rec.identity(
        "d/dt (t - sin t) = 2 sin(t/2)^2, a square",
        sp.Derivative(t - sp.sin(t), t) - 2 * sp.sin(t / 2) ** 2,
        scope="every real t",
    )
    grid = mpmath.linspace(mpmath.mpf("0.125"), 10, 80)  # 1/8, 2/8, .. 10 radians
    with mpmath.workdps(50):
        excess = [float(max(mpmath.sin(x) - x, 0)) for x in grid]
    rec.numeric(
        "spot check: sin t <= t at t = 1/8, 2/8, ..., 10 (excess of sin t over t)",
        excess,
        tol=0.0,
        scope="80 points in (0, 10], mpmath at 50 digits",
    )

    # Step 4. The bound is attained: k = R(-(phi/2 + pi/2)) q gives 2 sin(phi/2) |q|^2.
    tight = block(-(t + sp.pi / 2)) * q
    rec.identity(
        "with k = R(-(phi/2 + pi/2)) q the change is exactly 2 sin(phi/2) |q|^2",
        (q.T * (block(2 * t) - sp.eye(2)) * tight)[0, 0] - 2 * sp.sin(t) * (q.T * q)[0, 0],
        scope="every real q in R^2 and phi = 2t",
    )

    # Step 5. Many pairs: sum_i |q_i| |k_i| <= |q_S| |k_S| (Cauchy-Schwarz), from
    # Lagrange's identity for n terms, each n of a finite family.
    def lagrange(n: int) -> sp.Expr:
        a, b = sp.symbols(f"a0:{n}", real=True), sp.symbols(f"b0:{n}", real=True)
        squares = sum(
            (a[i] * b[j] - a[j] * b[i]) ** 2 for i, j in itertools.combinations(range(n), 2)
        )
        dots = sum(x * y for x, y in zip(a, b, strict=True))
        return sum(x**2 for x in a) * sum(y**2 for y in b) - dots**2 - squares

    cauchy = rec.instances(
        "(sum a_i^2)(sum b_i^2) - (sum a_i b_i)^2 = sum_(i<j) (a_i b_j - a_j b_i)^2 >= 0",
        ((f"n = {n}", lagrange(n)) for n in range(2, INPUTS["most_pairs"] + 1)),
        scope=f"n = 2 .. {INPUTS['most_pairs']} terms, every real a_i, b_i",
    )
    rec.exact(
        "Lagrange's identity: cases checked (n = 2, 3, 4, 5, 6)",
        cauchy.samples,
        5,
        scope="the family above",
    )

    # Step 6. The bound on the library: SmolLM3-3B's ladder and context read by posenc;
    # Hugging Face's rotation with posenc's caches; the slow pairs' terms of random
    # queries and keys at random positions within the context, against delta |q_S| |k_S|
    # and against the sharper sum of 2 |sin(offset omega_i / 2)| |q_i| |k_i|; and the
    # statement's chain: sharper sum <= sum |offset| omega_i |q_i| |k_i| <= delta |q_S| |k_S|.
    smol, smol_reading = kind_of("smollm3-3b", None)
    raw = json.loads((CONFIG_DIR / "smollm3-3b.json").read_text())
    length = context(smol, smol_reading)
    rec.exact(
        "SmolLM3-3B's context, as posenc reads it, is the file's max_position_embeddings",
        length,
        raw["max_position_embeddings"],
        scope="data/configs/smollm3-3b.json, posenc.model_config.read_model against plain JSON",
    )
    w = speeds_at(smol, length)  # (d/2,)
    width = 2 * w.size
    slow = np.flatnonzero(slow_mask(w, length))  # (|S|,)
    rng = np.random.default_rng(32)
    tokens = INPUTS["tokens"]
    pos_q = rng.integers(0, length + 1, size=tokens)  # (T,)
    pos_k = rng.integers(0, length + 1, size=tokens)  # (T,)
    pos_q[:2], pos_k[:2] = (0, length), (length, 0)  # the two largest offsets, +-C
    qs, ks = rng.standard_normal((2, tokens, width))  # (T, d) each
    rq, rk = hf_rotate(qs, pos_q, w), hf_rotate(ks, pos_k, w)  # (T, d) each
    members = np.concatenate([slow, slow + w.size])  # the slow pairs' coordinates
    terms = np.einsum("td,td->t", rq[:, members], rk[:, members])  # (T,)
    plain = np.einsum("td,td->t", qs[:, members], ks[:, members])  # (T,)
    norm_q = np.linalg.norm(qs[:, members], axis=1)  # (T,)
    norm_k = np.linalg.norm(ks[:, members], axis=1)  # (T,)
    offsets = (pos_k - pos_q).astype(np.float64)  # (T,)
    pair_q = np.hypot(qs[:, slow], qs[:, slow + w.size])  # (T, |S|)
    pair_k = np.hypot(ks[:, slow], ks[:, slow + w.size])  # (T, |S|)
    sharp = np.sum(2 * np.abs(np.sin(offsets[:, None] * w[slow] / 2)) * pair_q * pair_k, axis=1)
    linear = np.sum(np.abs(offsets)[:, None] * w[slow] * pair_q * pair_k, axis=1)  # (T,)
    deviation = np.abs(terms - plain)  # (T,)
    rec.numeric(
        "the slow pairs' terms stay within sum 2|sin(offset omega_i/2)| |q_i||k_i| of q_S . k_S "
        "(excess over the bound)",
        np.maximum(deviation - sharp, 0.0),
        tol=1e-12,
        scope=f"SmolLM3-3B, the {slow.size} slow pairs, {tokens} random queries and keys at "
        f"positions in [0, {length}] (offsets +-{length} included); float64",
    )
    rec.numeric(
        "and within delta |q_S| |k_S| (excess over the bound)",
        np.maximum(deviation - float(DELTA) * norm_q * norm_k, 0.0),
        tol=1e-12,
        scope="the same samples",
    )
    rec.numeric(
        "the sharper bound is below sum |offset| omega_i |q_i||k_i|, as 2|sin(phi/2)| <= |phi| "
        "(excess)",
        np.maximum(sharp - linear, 0.0),
        tol=1e-12,
        scope="the same samples",
    )
    rec.numeric(
        "which is below delta |q_S| |k_S|: |offset| omega_i <= omega_i C < delta, and "
        "Cauchy-Schwarz (excess)",
        np.maximum(linear - float(DELTA) * norm_q * norm_k, 0.0),
        tol=1e-12,
        scope="the same samples",
    )
    rec.exact(
        "the check is not empty: the slow pairs' terms do move (samples with a change, against "
        "all samples; no sample has offset 0)",
        int(np.count_nonzero(deviation)),
        tokens,
        scope="the same samples",
    )
    rec.exact(
        "the offsets n - m reach C and no further (largest |offset|)",
        int(np.max(np.abs(offsets))),
        length,
        scope="the same samples: positions in [0, C], the pairs (0, C) and (C, 0) included",
    )

    # Step 7. Attained on the library: SmolLM3's slowest pair, q = (1, 0) and the tight
    # k, at offset C; posenc's term against 2 sin(omega C / 2) at 50 digits.
    last = w.size - 1
    with mpmath.workdps(50):
        phi = mpmath.mpf(float(w[last])) * length  # the angle posenc's speed gives
        tight_50 = sp.Float(2 * mpmath.sin(phi / 2), 50)
        real_phi = mpmath.mpf(smol.rope.base) ** (-mpmath.mpf(2 * last) / width) * length
        shown_tight, shown_second = tight_change(phi), second_order(phi)
    unit = np.zeros((1, width))
    unit[0, last] = 1.0
    angle = -(float(phi) / 2 + np.pi / 2)
    key = np.zeros((1, width))
    key[0, last], key[0, last + w.size] = np.cos(angle), np.sin(angle)
    got = float(hf_rotate(unit, np.array([0]), w)[0] @ hf_rotate(key, np.array([length]), w)[0])
    plain_tight = float(unit[0] @ key[0])
    rec.close(
        "SmolLM3's slowest pair reaches the bound: with the tight q, k its term changes by "
        "2 sin(omega C / 2) at offset C",
        got - plain_tight,
        tight_50,
        tol=1e-12,
        scope="pair 63, |q| = |k| = 1, posenc's caches in HF's layout against mpmath",
    )
    rec.close(
        "that pair's largest angle over the context, omega C",
        float(w[last]) * length,
        sp.Float(real_phi, 50),
        tol=2e-17,
        scope="posenc's float64 speed times C against b^(-2i/d) C at 50 digits, i = 63, "
        "b = 5 x 10^6, d = 128; tolerance 2 x 10^-17, about 10^-15 of the angle",
        quantity="smol_slowest_angle",
        show=Show(sig=3),
    )
    rec.close(
        "the change the third misreading is shown, 2 sin(omega C / 2), is posenc's tight change",
        got - plain_tight,
        sp.Float(shown_tight, 50),
        tol=1e-12,
        scope="pair 63, the tight q, k above; tight_change at 50 digits",
    )
    along = float(hf_rotate(unit, np.array([0]), w)[0] @ hf_rotate(unit, np.array([length]), w)[0])
    rec.close(
        "with k = q instead, the change 1 - cos(omega C) is second order: the third misreading's "
        "(omega C)^2 / 2, up to (omega C)^4 / 24",
        1 - along,
        sp.Float(shown_second, 50),
        tol=1e-8,
        scope="pair 63, q = k = (1, 0), posenc's caches in HF's layout; (omega C)^4 / 24 is "
        "about 3 x 10^-9; second_order at 50 digits",
    )

    # Step 8. Counts in every config kept in data/configs: for each kind of layer that
    # rotates, the span it is counted over, its speeds (at that length for the length-dependent
    # schemes), its slow pairs (0 < omega C < delta) and its stopped ones (omega = 0).
    # Default and proportional ladders with a whole-number base are also counted in
    # exact arithmetic; for the others, no speed may sit within 10^-9 of the threshold.
    # The span is a kind's sliding_window as posenc reads it, else max_position_embeddings
    # (Gemma 3 4B's file has no sliding_window: its sliding layers get the whole context).
    table, skipped, rotating, exact_kinds, mismatches, margins = {}, 0, 0, 0, 0, []
    below, exact_below, drift = 0, 0, []
    for path in sorted(CONFIG_DIR.glob("*.json")):
        reading = model_config.read_model(path)
        for kind in reading.kinds:
            if not kind.rotates:
                continue
            rotating += 1
            span = context(kind, reading)
            if span is None:
                skipped += 1
                continue
            ws = speeds_at(kind, span)
            mask = slow_mask(ws, span)
            row = (int(mask.sum()), int(np.sum(ws == 0)), ws.size, span)
            table[(path.stem, kind.name)] = row
            if exact_ladder(kind):
                over = exponent_width(kind)
                turning = int(np.count_nonzero(ws))
                exact_kinds += 1
                ladder = float(kind.rope.base) ** (-2.0 * np.arange(turning) / over)  # (turning,)
                drift += list(np.abs(ws[:turning] / ladder - 1))
                mismatches += int(slow_exact(int(kind.rope.base), over, turning, span) != row[0])
            else:
                turning = ws[ws > 0]
                gaps = turning * span / float(DELTA) - 1  # signed relative gaps to delta / C
                margins += list(np.abs(gaps))
                below += int(np.sum(gaps < 0))
                exact_below += sum(int(Fraction(x) * span < DELTA) for x in turning.tolist())
    rec.exact(
        "float64 counts equal the exact counts (C/delta)^d < b^(2i) for default and "
        "proportional ladders (kinds that differ)",
        mismatches,
        0,
        scope=f"{exact_kinds} kinds of layer from data/configs with a whole-number base and "
        "no factor; integers and rationals",
    )
    rec.numeric(
        "and their float64 speeds are the ladder b^(-2i/w) the exact count takes (largest "
        "relative difference)",
        drift,
        tol=1e-14,
        scope="every turning pair of those kinds; w the head width for proportional rotary, "
        "else the rotated width",
    )
    rec.exact(
        "kinds counted exactly: the default and proportional ladders with a whole-number base "
        "and no factor",
        exact_kinds,
        11,
        scope="data/configs/*.json; the longrope kinds (Phi-3-mini-128k, Phi-3.5-mini, "
        "Phi-4-mini) have no factor key and a whole base, but are scaled",
    )
    rec.numeric(
        "for the other schemes no speed is within 10^-9 of delta / C (smallest relative gap)",
        [max(0.0, 1e-9 - m) for m in margins],
        tol=0.0,
        scope="every turning pair of the scaled kinds (linear, dynamic, yarn, longrope, llama3) "
        "in data/configs: so rounding cannot move a pair across the threshold",
    )
    rec.exact(
        "and the gaps' signs count the slow pairs of those kinds (pairs below, against the "
        "count 0 < omega C < delta with posenc's float64 speeds as exact rationals)",
        below,
        exact_below,
        scope="the same pairs",
    )
    files = sorted(CONFIG_DIR.glob("*.json"))
    rec.exact(
        "every config file is one the page names (files without a name)",
        len({p.stem for p in files} ^ set(MODEL_NAMES)),
        0,
        scope="data/configs/*.json",
    )
    rec.exact(
        "kinds of layer counted: one row for each kind that rotates and declares a context "
        "or a window (rows against kinds read)",
        len(table),
        rotating - skipped,
        scope="data/configs/*.json, posenc.model_config.read_model",
        quantity="kinds_counted",
        show=Show(),
    )
    rec.exact(
        "kinds left out: they rotate but their config leaves the context to a class default",
        skipped,
        2,
        scope="Gemma 3 27B's global layers and Qwen3.5-9B's attention layers",
        quantity="kinds_skipped",
        show=Show(),
    )
    with_slow = {MODEL_NAMES[stem] for (stem, _), row in table.items() if row[0] > 0}
    rec.exact(
        "the models with at least one slow pair are the ones the page lists (differences)",
        len(with_slow ^ SLOW_MODELS),
        0,
        scope=f"delta = {DELTA}; data/configs/*.json read by posenc",
    )
    rec.exact(
        "how many models the page lists",
        len(with_slow),
        len(SLOW_MODELS),
        scope="the list above",
        quantity="slow_models",
        show=Show(),
    )
    named = 0
    for key, (stem, layer) in NAMED.items():
        named += 1
        kind, reading = kind_of(stem, layer)
        span = context(kind, reading)
        file_raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
        part = file_raw.get("text_config", file_raw)
        declared = (
            part["sliding_window"] if kind.sliding_window else part["max_position_embeddings"]
        )
        rec.exact(
            f"{stem} ({kind.name}): the context posenc reads is the file's",
            span,
            declared,
            scope=f"data/configs/{stem}.json, read by posenc and as plain JSON",
            quantity=f"{key}_context",
            show=Show(),
        )
        slow_count, stopped, pairs, _ = table[(stem, kind.name)]
        ws = speeds_at(kind, span)
        if exact_ladder(kind):
            want = slow_exact(
                int(kind.rope.base), exponent_width(kind), int(np.count_nonzero(ws)), span
            )
            how = "the exact count (C/delta)^d < b^(2i) in integers"
        else:
            want = sum(int(0 < Fraction(x) * span < DELTA) for x in ws.tolist())
            how = "posenc's float64 speeds as exact rationals"
        rec.exact(
            f"{stem} ({kind.name}): slow pairs, 0 < omega C < delta, float64 count against {how}",
            slow_count,
            want,
            scope=f"C = {span}, delta = {DELTA}, {kind.rope.scheme} speeds from posenc",
            quantity=f"{key}_slow",
            show=Show(),
        )
        rec.exact(
            f"{stem} ({kind.name}): pairs of the head",
            pairs,
            kind.inv_freq.size,
            scope=f"data/configs/{stem}.json",
            quantity=f"{key}_pairs",
            show=Show(),
        )
        rec.exact(
            f"{stem} ({kind.name}): stopped pairs, omega = 0",
            stopped,
            int(np.sum(kind.inv_freq == 0)),
            scope=f"data/configs/{stem}.json",
            quantity=f"{key}_stopped",
            show=Show(),
        )
    rec.exact(
        "kinds of layer the page names, each checked above",
        named,
        len(NAMED),
        scope="the nine kinds whose counts the page states",
    )

    # Step 9. The figure draws the shipped ladders: each entry of its table is what
    # posenc reads from the config.
    differences, ladders = [], 0  # one entry per field compared: True where they differ
    for name, scheme, head, share, base, span in figure.LADDERS:
        ladders += 1
        stem, layer = FIGURE_FILES[name]
        kind, reading = kind_of(stem, layer)
        given = Fraction(kind.rope.params.get("partial_rotary_factor", 1))
        differences += [
            kind.rope.scheme != scheme,
            kind.rope.head_dim != head,
            given != Fraction(share),
            Fraction(kind.rope.base) != Fraction(base),
            context(kind, reading) != span,
        ]
    rec.exact(
        "the figure's ladders are the configs' (scheme, width, share, base, context: mismatches)",
        sum(differences),
        0,
        scope=f"posenc.figures.slow.LADDERS, {len(figure.LADDERS)} ladders, against data/configs",
    )
    rec.exact(
        "ladders compared: the figure draws the five the proof names",
        ladders,
        len(FIGURE_FILES),
        scope="posenc.figures.slow.LADDERS against FIGURE_FILES",
    )
    drawn = inspect.signature(figure.fig_slow_pairs).parameters["delta"].default
    rec.exact(
        "the figure's dashed line is this page's delta",
        Fraction(str(drawn)),
        DELTA,
        scope="posenc.figures.slow.fig_slow_pairs, as the site's build calls it (its default "
        "read as the decimal it is written as)",
    )


# -- misreadings -------------------------------------------------------------------


def _stopped_pairs_are_slow(wit: Witness) -> None:
    # "The pairs a config leaves unrotated are slow anyway, so turning them (the factor
    # ignored) changes little." Gemma 4 31B: its first stopped pair, turned at the default
    # speed b^(-2k/d), would turn 262144 x 10^(-3/2), about 8290 radians, over the context.
    kind, reading = kind_of("gemma-4-31b", "full_attention")
    turning = int(np.count_nonzero(kind.inv_freq))
    # posenc's angles of the default ladder b^(-2i/d) over the whole head, at position C
    angles = rotary_angles(
        [reading.max_position_embeddings], kind.rope.head_dim, base=kind.rope.base
    )  # (1, d/2)
    wit.differs(
        float(angles[0, turning]),
        sp.Rational(DELTA.numerator, DELTA.denominator),
        at=f"Gemma 4 31B's global head, pair {turning} (the first stopped one) at the default "
        f"speed, over C = {reading.max_position_embeddings}: omega C against delta",
        margin=1000,
        by="a thousand radians",
    )


def _no_full_turn(wit: Witness) -> None:
    # "A pair that does not finish a turn within the context (wavelength > C) carries no
    # position." SmolLM3-3B: the first pair with wavelength above C turns by omega C
    # between pi and 2 pi; at the offset nearest pi / omega a unit query and key score
    # cos(pi) = -1 instead of their q . k = 1.
    kind, reading = kind_of("smollm3-3b", None)
    span = context(kind, reading)
    w = kind.inv_freq
    pair = int(np.flatnonzero(2 * np.pi / w > span)[0])
    offset = min(round(np.pi / float(w[pair])), span)  # nearest pi / omega, within C
    with mpmath.workdps(50):
        term = sp.Float(mpmath.cos(offset * mpmath.mpf(float(w[pair]))), 50)
    wit.differs(
        term,
        1,
        at=f"SmolLM3-3B, pair {pair} (wavelength above C = {span}), q = k a unit vector, "
        f"offset {offset} <= C: the term against q . k",
        margin=1,
        by="half the range of a unit pair's term",
    )


def _second_order(wit: Witness) -> None:
    # "A slow pair moves the score only to second order, by about (omega C)^2 / 2 |q||k|."
    # With the tight q, k the change is 2 sin(omega C / 2), first order: at SmolLM3's
    # slowest pair about 0.0167 against (omega C)^2 / 2, about 1.4 x 10^-4.
    kind, reading = kind_of("smollm3-3b", None)
    span = context(kind, reading)
    w = kind.inv_freq
    with mpmath.workdps(50):
        phi = mpmath.mpf(float(w.min())) * span  # the slowest pair's angle over C
        first, second = tight_change(phi), second_order(phi)
    wit.differs(
        sp.Float(first, 50),
        sp.Float(second, 50),
        at=f"SmolLM3-3B, pair {int(np.argmin(w))}, |q| = |k| = 1, the tight k, offset C = {span}: "
        "the change against the second-order estimate",
        margin=sp.Rational(1, 100),
        by="a hundredth of |q||k|",
    )


MISREADINGS = [
    Misreading(
        "The pairs a config leaves unrotated are the slow ones anyway, so rotating them "
        "(partial_rotary_factor ignored) changes little",
        _stopped_pairs_are_slow,
        why="Stopped pairs would not be slow: at the default speed Gemma 4's first stopped "
        "pair turns thousands of radians over its context, and its term swings fully.",
    ),
    Misreading(
        "A pair whose wavelength exceeds the context, so that it never completes a turn, "
        "carries no position",
        _no_full_turn,
        why="Not completing a turn still allows half a turn: such a pair's term can go from "
        "q . k to its negative within the context. Slow means omega C small, not below 2 pi.",
    ),
    Misreading(
        "A slow pair changes the score only to second order, by about (omega C)^2 / 2 "
        "times |q||k|",
        _second_order,
        why="That holds when k is parallel to q; for a k at a right angle the change is "
        "first order, 2 sin(omega C / 2), and the bound is attained.",
    ),
]
