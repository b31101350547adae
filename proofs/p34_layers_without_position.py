"""Proposition 34 (layers without position: order reaches a NoPE layer through the mask).

A NoPE layer is causal attention with no position code: its scores and outputs are
functions of its input rows and of the causal mask, and of no position index. So adding
one constant c to every position changes nothing it computes. A rotary layer is
unchanged too when its speeds w are fixed, since its scores read only offsets
(Proposition 12): R((m + c) w)^T R((n + c) w) = R(m w)^T R(n w). In a stack of such
rotary layers and NoPE layers, whose masks depend only on order or on offsets, a common
shift of every position therefore leaves every output unchanged (Llama 4's chunked layers
and its temperature are the exceptions), and order reaches a NoPE layer
only through its mask (Propositions 3 and 17) and through the hidden states the layers
below hand it. Without the mask a NoPE stack is permutation-equivariant (Propositions 1
and 2); with it one layer's row i depends on x_i and the multiset x_0 .. x_i only, but two
layers already depend on the order of the earlier tokens.

In Transformers, Llama 4 scales the queries of its NoPE layers, and of them only, by
tau(p) = 1 + a ln(floor((p + 1) / F) + 1) at position p (Transformers 5.24,
models/llama4/modeling_llama4.py, with attn_temperature_tuning): the logits once. For
a > 0, F a positive integer and whole p >= 0 it is constant on kF - 1 <= p <= (k + 1)F - 2,
equal to 1 + a ln(k + 1) there, so its steps are exactly at p = kF - 1 (k >= 1) and it is
1 below p = F - 1. Llama 4 Scout's config holds neither a nor F: Transformers' class
defaults for a and F apply, and the temperature is on (vLLM decides by the generation
config or the served max_model_len). Such a layer reads its absolute position through tau.

NoPE attention layers in the configs kept in data/configs, read by posenc and compared
with the files: Llama 4 Scout, SmolLM3-3B and Command R7B, every fourth layer in each.

Uses: 1, 2, 3, 12, 17.
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

from posenc import model_config, temperature
from posenc.figures import nopelayers as figure
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 34
TITLE = "Layers without position: order reaches a NoPE layer through the mask"
USES = (1, 2, 3, 12, 17)

# The toy stacks: tokens, width, the shifts of the exact rotary check (1 .. exact_shifts),
# and the seed of the float64 weights.
INPUTS = {"tokens": 5, "width": 4, "exact_shifts": 12, "seed": 34}

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
SCOUT = "llama-4-scout-17b-16e"
#: Llama4TextConfig's class defaults (Transformers 5.24, models/llama4/
#: configuration_llama4.py) for what Scout's file leaves out.
LLAMA4_CLASS = {"attn_temperature_tuning": True, "attn_scale": 0.1, "floor_scale": 8192}
#: The configs kept in data/configs with attention layers that have no position code,
#: by file stem: (model, key on the page).
NOPE_MODELS = {
    "command-r7b-12-2024": ("Command R7B", "command"),
    "llama-4-scout-17b-16e": ("Llama 4 Scout", "scout"),
    "smollm3-3b": ("SmolLM3-3B", "smol"),
}
#: Layers that are not attention (Qwen3.5's linear attention): no position code, no mask.
NOT_ATTENTION = ("linear_attention",)
#: The shifts of the float64 stack check.
SHIFTS = (1, 37, 4096, 1_000_000)


# -- the toy stacks ------------------------------------------------------------------


def block(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def rotate(x: np.ndarray, positions: np.ndarray, speeds: np.ndarray) -> np.ndarray:
    """Rotate pairs (2i, 2i + 1) of each row by position * speed_i."""
    angle = positions[:, None] * speeds[None, :]  # (n, d/2)
    cos, sin = np.cos(angle), np.sin(angle)  # (n, d/2)
    even, odd = x[:, 0::2], x[:, 1::2]  # (n, d/2)
    out = np.empty_like(x)  # (n, d)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out


def attend(x, weights, *, causal: bool, positions=None, speeds=None) -> np.ndarray:
    """One head of attention; rotary when ``positions`` is given, else NoPE."""
    wq, wk, wv = weights
    q, k = x @ wq, x @ wk  # (n, d)
    if positions is not None:
        q, k = rotate(q, positions, speeds), rotate(k, positions, speeds)
    scores = q @ k.T / np.sqrt(q.shape[1])  # (n, n)
    if causal:
        scores = np.where(np.tril(np.ones_like(scores, dtype=bool)), scores, -np.inf)
    scores = scores - scores.max(axis=1, keepdims=True)
    p = np.exp(scores)  # (n, n)
    return (p / p.sum(axis=1, keepdims=True)) @ (x @ wv)  # (n, d)


def mixed_stack(x, layers, positions, speeds) -> np.ndarray:
    """A rotary layer, a position-wise map, then a NoPE layer: causal, with residuals."""
    first, mlp, second = layers
    h = x + attend(x, first, causal=True, positions=positions, speeds=speeds)  # (n, d)
    h = h + np.tanh(h @ mlp)  # (n, d)
    return h + attend(h, second, causal=True)  # (n, d)


def nope_stack(x, layers, *, causal: bool) -> np.ndarray:
    """Two NoPE layers with a position-wise map between them."""
    first, mlp, second = layers
    h = x + attend(x, first, causal=causal)  # (n, d)
    h = h + np.tanh(h @ mlp)  # (n, d)
    return h + attend(h, second, causal=causal)  # (n, d)


def toy_weights(seed: int, width: int):
    rng = np.random.default_rng(seed)

    def head():
        return tuple(rng.normal(size=(width, width)) for _ in range(3))

    return head(), rng.normal(size=(width, width)) / 2, head()


def uniform_rows(rows: list[list[Fraction]]) -> list[list[Fraction]]:
    """A causal layer whose queries are zero: row i is the mean of rows 0 .. i, exactly."""
    out = []
    for i in range(len(rows)):
        out.append([sum((rows[j][c] for j in range(i + 1)), Fraction(0)) / (i + 1)
                    for c in range(len(rows[0]))])  # fmt: skip
    return out


# -- the configs -------------------------------------------------------------------


def raw_part(stem: str) -> dict:
    """The language model's part of a config file, as plain JSON."""
    raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
    return raw.get("text_config", raw)


def raw_nope_layers(part: dict) -> tuple[int, ...]:
    """The attention layers without position code, by the rules of Transformers 5.24.

    Llama 4 (configuration_llama4.py): no_rope_layers[i] == 1 means layer i rotates; an
    empty or missing list means every no_rope_layer_interval-th layer (default 4) does
    not. SmolLM3 (configuration_smollm3.py): the same, but only a missing list is replaced.
    Cohere 2 (modeling_cohere2.py): only sliding-window layers rotate, and without
    layer_types every sliding_window_pattern-th layer (default 4) is global.
    """
    family, count = part.get("model_type"), part.get("num_hidden_layers", 0)
    if family in ("llama4_text", "smollm3"):
        flags = part.get("no_rope_layers")
        if (not flags) if family == "llama4_text" else flags is None:
            interval = part.get("no_rope_layer_interval", 4)
            flags = [int((i + 1) % interval != 0) for i in range(count)]
        return tuple(i for i, f in enumerate(flags) if f == 0)
    if family == "cohere2":
        types = part.get("layer_types") or [
            "sliding_attention" if (i + 1) % part.get("sliding_window_pattern", 4) else "full"
            for i in range(count)
        ]
        return tuple(i for i, t in enumerate(types) if t != "sliding_attention")
    return ()


def read_nope_layers(stem: str) -> tuple[int, ...]:
    """The attention layers posenc reads as not rotating."""
    reading = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    return tuple(sorted(i for k in reading.kinds if not k.rotates and k.name not in
                        NOT_ATTENTION for i in k.layers))  # fmt: skip


def scout_reading():
    reading = model_config.read_model(CONFIG_DIR / f"{SCOUT}.json")
    return reading, {k.rotates: k for k in reading.kinds}


def llama4_rules(kind) -> list:
    return [t for t in kind.temperatures if t.rule == "llama4"]


def checks(rec: Recorder) -> None:
    n, d = INPUTS["tokens"], INPUTS["width"]

    # Step 1. Steps 1 to 3 of the page's argument: a common shift. A rotary score reads
    # only the offset (Proposition 12), so shifting both positions by c changes nothing:
    # symbolic, every m, n, c. A pair turned by an angle is the complex number times
    # e^(i angle), and its term of the score is Re(conj(q e^(i m w)) k e^(i k w)): the
    # factor conj(e^(i m w)) e^(i k w) is all the positions reach.
    m, k, c = sp.symbols("m k c", integer=True)
    w = sp.Symbol("omega", positive=True)
    rec.identity(
        "conj(e^(i (m + c) w)) e^(i (k + c) w) = conj(e^(i m w)) e^(i k w), so "
        "R((m + c) w)^T R((k + c) w) = R(m w)^T R(k w)",
        sp.conjugate(sp.exp(sp.I * (m + c) * w)) * sp.exp(sp.I * (k + c) * w)
        - sp.conjugate(sp.exp(sp.I * m * w)) * sp.exp(sp.I * k * w),
        scope="every integer m, k, c and real w > 0",
    )
    # Exactly, with a rotation whose cosine and sine are rational (3/5, 4/5): the rotary
    # layer's whole score matrix at positions c .. c + n - 1 against 0 .. n - 1.
    turn = sp.Matrix(
        [[sp.Rational(3, 5), -sp.Rational(4, 5)], [sp.Rational(4, 5), sp.Rational(3, 5)]]
    )
    rng = np.random.default_rng(INPUTS["seed"])
    qs = [sp.Matrix(rng.integers(-9, 10, size=2).tolist()) for _ in range(n)]
    ks = [sp.Matrix(rng.integers(-9, 10, size=2).tolist()) for _ in range(n)]

    def scores(start: int) -> sp.Matrix:
        return sp.Matrix(n, n, lambda i, j: ((turn ** (start + i) * qs[i]).T
                                             * (turn ** (start + j) * ks[j]))[0, 0])  # fmt: skip

    def offset_form(sign: int) -> sp.Matrix:
        """q_i^T R^(sign (j - i)) k_j, a negative power being the transpose's (Prop. 12)."""
        return sp.Matrix(n, n, lambda i, j: (qs[i].T * power(sign * (j - i)) * ks[j])[0, 0])

    def power(e: int) -> sp.Matrix:
        return turn**e if e >= 0 else turn.T ** (-e)

    plain = scores(0)
    rec.exact(
        "the scores at positions 0 .. n - 1 are q_i^T R^(j - i) k_j (entries that differ)",
        sum(x != 0 for x in plain - offset_form(1)),
        0,
        scope=f"{n} tokens, exact; R^(-t) = (R^T)^t, the offset form of Proposition 12",
    )
    shifts = range(1, INPUTS["exact_shifts"] + 1)
    differing = [sum(x != 0 for x in scores(s) - plain) for s in shifts]
    rec.exact(
        "shifts checked exactly",
        len(differing),
        INPUTS["exact_shifts"],
        scope=f"c = 1 .. {INPUTS['exact_shifts']}",
    )
    rec.exact(
        "a rotary layer's scores at positions c .. c + n - 1 are those at 0 .. n - 1 "
        "(entries that differ, over every shift)",
        sum(differing),
        0,
        scope=f"{n} tokens, integer q and k, the rotation with cos 3/5 and sin 4/5, exact",
    )
    backwards_scores = sp.Matrix(
        n, n, lambda i, j: ((turn ** (n - 1 - i) * qs[i]).T * (turn ** (n - 1 - j) * ks[j]))[0, 0]
    )
    rec.exact(
        "positions read backwards give q_i^T R^(i - j) k_j (entries that differ)",
        sum(x != 0 for x in backwards_scores - offset_form(-1)),
        0,
        scope=f"{n} tokens, the same q and k at positions n - 1 .. 0, exact",
    )
    # R^t - R^(-t) = 2 sin(t theta) J with J the quarter turn, and sin(t theta) != 0 for
    # t != 0 (cos theta = 3/5 is rational and not 0 or +-1/2 or +-1, so theta / pi is
    # irrational, by Niven's theorem): the entries that change are those with q_i^T J k_j
    # != 0 and i != j.
    quarter = sp.Matrix([[0, -1], [1, 0]])
    rec.exact(
        "so the check can see a change: the entries that change are those with i != j and "
        "q_i^T J k_j != 0",
        sum(x != 0 for x in backwards_scores - plain),
        sum(
            int(i != j and (qs[i].T * quarter * ks[j])[0, 0] != 0)
            for i in range(n)
            for j in range(n)
        ),
        scope=f"{n} tokens, J the quarter turn",
    )
    # The whole toy stack (rotary layer, position-wise map, NoPE layer; causal) in float64.
    layers = toy_weights(INPUTS["seed"], d)
    x = np.random.default_rng(INPUTS["seed"] + 1).normal(size=(n, d))  # (n, d)
    speeds = np.array([1.0, 0.01])  # (d/2,)
    base_out = mixed_stack(x, layers, np.arange(n, dtype=float), speeds)
    errors = [
        np.abs(mixed_stack(x, layers, np.arange(n, dtype=float) + s, speeds) - base_out).max()
        for s in SHIFTS
    ]
    rec.numeric(
        "the stack rotary layer, position-wise map, NoPE layer gives the same outputs when "
        "every position is shifted by c",
        errors,
        tol=1e-8,
        scope=f"{n} tokens, width {d}, c = {', '.join(map(str, SHIFTS))}; float64",
    )
    backwards = mixed_stack(x, layers, np.arange(n, dtype=float)[::-1].copy(), speeds)
    change = np.abs(backwards - base_out).max(axis=1)  # (n,) each row's largest change
    rec.numeric(
        "positions that are not a common shift: row 0, which sees only itself, is unchanged",
        [change[0]],
        tol=1e-12,
        scope=f"{n} tokens, positions n - 1 .. 0 against 0 .. n - 1; float64",
    )
    rec.numeric(
        "and every other row changes (the check can fail): the smallest change falls short "
        "of 10^-3 by",
        [max(0.0, 1e-3 - change[1:].min())],
        tol=0.0,
        scope=f"rows 1 .. {n - 1}; float64",
    )

    # Step 4. Order. Without the mask a NoPE stack is permutation-equivariant
    # (Propositions 1 and 2): every permutation of the toy's tokens.
    perms = list(itertools.permutations(range(n)))
    free = nope_stack(x, layers, causal=False)
    rec.numeric(
        "without the mask, a two-layer NoPE stack is permutation-equivariant: f(PX) = P f(X)",
        [
            np.abs(nope_stack(x[list(p)], layers, causal=False) - free[list(p)]).max()
            for p in perms
        ],
        tol=1e-12,
        scope=f"all {len(perms)} permutations of {n} tokens, width {d}; float64",
    )
    # With the mask, one layer's row i is blind to the order of the tokens before it and to
    # the tokens after it (Proposition 3), but two layers' rows are not.
    head = layers[0]
    given = attend(x, head, causal=True)  # (n, d)
    fresh = np.random.default_rng(INPUTS["seed"] + 2).normal(size=(n, d))  # (n, d)
    row_errors = []
    for i in range(n):
        for p in itertools.permutations(range(i)):
            y = np.concatenate([x[list(p)], x[i : i + 1], fresh[i + 1 :]])  # (n, d)
            row_errors.append(np.abs(attend(y, head, causal=True)[i] - given[i]).max())
    rec.exact(
        "(row, order) cases of the one-layer check",
        len(row_errors),
        sum(math.factorial(i) for i in range(n)),
        scope=f"rows i = 0 .. {n - 1}, each with the i! orders of the tokens before it",
    )
    rec.numeric(
        "with the mask, row i of one NoPE layer is unchanged by any reordering of the tokens "
        "before it and by new tokens after it",
        row_errors,
        tol=1e-12,
        scope=f"{n} tokens, every row and every order of its prefix, fresh tokens after it; "
        "float64",
    )
    before = list(itertools.permutations(range(n - 1)))
    two = nope_stack(x, layers, causal=True)[-1]
    moved = [np.abs(nope_stack(x[[*p, n - 1]], layers, causal=True)[-1] - two).max()
             for p in before]  # fmt: skip
    rec.numeric(
        "the given order is the first of them, and leaves the last row as it is",
        [moved[0]],
        tol=1e-12,
        scope=f"the identity order of the first {n - 1} tokens; float64",
    )
    moved = moved[1:]
    rec.numeric(
        "with the mask, two NoPE layers' last row changes under every other order of the "
        "tokens before it: the smallest change falls short of 10^-6 by",
        [max(0.0, 1e-6 - min(moved))],
        tol=0.0,
        scope=f"the {len(moved)} orders of the first {n - 1} tokens other than the given one",
    )
    # Exactly, with zero queries (uniform weights): one-hot values, so the last row of the
    # second layer is the weight c_j of each token: (H_n - H_j) / n (Proposition 3).
    onehot = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    weights = uniform_rows(uniform_rows(onehot))[-1]
    harmonic = [sum((Fraction(1, t) for t in range(1, h + 1)), Fraction(0)) for h in range(n + 1)]
    rec.exact(
        "two causal NoPE layers with zero queries weigh token j by (H_n - H_j) / n at the "
        "last row (weights that differ)",
        sum(a != (harmonic[n] - harmonic[j]) / n for j, a in enumerate(weights)),
        0,
        scope=f"{n} tokens, exact rationals",
    )
    rec.exact(
        "those weights strictly decrease, so swapping two earlier tokens moves the last row "
        "(adjacent weights not in decreasing order)",
        sum(not a > b for a, b in itertools.pairwise(weights)),
        0,
        scope=f"{n} tokens",
    )
    one = uniform_rows(onehot)[-1]
    rec.exact(
        "one such layer weighs every token by 1/n: the last row is blind to their order "
        "(weights other than 1/n)",
        sum(a != Fraction(1, n) for a in one),
        0,
        scope=f"{n} tokens",
    )

    # Step 5. Steps 5 to 7 of the page's argument: Llama 4's temperature. A factor on the
    # query multiplies each logit once; one on both cos and sin (YaRN's) twice.
    tau, a_ = sp.symbols("tau a", positive=True)
    q = sp.Matrix(sp.symbols("q0:2", real=True))
    kk = sp.Matrix(sp.symbols("k0:2", real=True))
    rec.identity(
        "(tau q)^T k = tau (q^T k): a factor on the query scales the logit once",
        ((tau * q).T * kk)[0, 0] - tau * (q.T * kk)[0, 0],
        scope="every real q, k in R^2 and tau > 0",
    )
    rec.identity(
        "(a R q)^T (a R k) = a^2 (R q)^T (R k): a factor on cos and sin scales it twice",
        ((a_ * block(m * w) * q).T * (a_ * block(k * w) * kk))[0, 0]
        - a_**2 * ((block(m * w) * q).T * (block(k * w) * kk))[0, 0],
        scope="every real q, k, a > 0 and integer m, k",
    )
    part = raw_part(SCOUT)
    absent = [key for key in LLAMA4_CLASS if key in part]
    rec.exact(
        "Scout's file holds none of attn_temperature_tuning, attn_scale, floor_scale "
        "(keys present)",
        len(absent),
        0,
        scope=f"data/configs/{SCOUT}.json as plain JSON",
    )
    reading, scout = scout_reading()
    rules = llama4_rules(scout[False])
    rec.exact(
        "posenc reads one Llama 4 temperature on Scout's layers without rotary, as "
        "Llama4TextConfig's default attn_temperature_tuning (on) gives",
        len(rules),
        int(LLAMA4_CLASS["attn_temperature_tuning"]),
        scope=f"data/configs/{SCOUT}.json read by posenc, against the class default "
        "transcribed from Transformers 5.24",
    )
    rule = rules[0]
    rec.exact(
        "and none on its rotary layers",
        len(llama4_rules(scout[True])),
        0,
        scope=f"data/configs/{SCOUT}.json read by posenc",
    )
    scale, step = Fraction(rule.params["attn_scale"]), rule.params["floor_scale"]
    rec.exact(
        "its attn_scale is Llama4TextConfig's default",
        scale,
        Fraction(LLAMA4_CLASS["attn_scale"]),
        scope="posenc's reading against the class default transcribed from Transformers 5.24",
        quantity="attn_scale",
        show=Show(decimals=1),
    )
    rec.exact(
        "its floor_scale is Llama4TextConfig's default",
        step,
        LLAMA4_CLASS["floor_scale"],
        scope="posenc's reading against the class default transcribed from Transformers 5.24",
        quantity="floor_scale",
        show=Show(),
    )
    rec.exact(
        "the first step is at p = floor_scale - 1",
        step - 1,
        LLAMA4_CLASS["floor_scale"] - 1,
        scope="F = floor_scale",
        quantity="first_step",
        show=Show(),
    )
    length = reading.max_position_embeddings
    rec.exact(
        "Scout's context is the file's max_position_embeddings",
        length,
        part["max_position_embeddings"],
        scope=f"data/configs/{SCOUT}.json",
        quantity="scout_context",
        show=Show(),
    )
    p = np.arange(length, dtype=np.int64)  # (L,) every position of the context
    index = (p + 1) // step  # (L,) k = floor((p + 1) / F), exact integers
    # The blocks kF - 1 .. (k + 1)F - 2 laid end to end: F - 1 positions of step 0, then F
    # of each step k >= 1.
    blocks = np.concatenate(
        [np.zeros(step - 1, dtype=np.int64), np.repeat(np.arange(1, length // step + 1), step)]
    )[:length]  # (L,)
    rec.exact(
        "floor((p + 1) / F) = k exactly when kF - 1 <= p <= (k + 1)F - 2 (positions where not)",
        int(np.sum(index != blocks)) + abs(len(blocks) - length),
        0,
        scope=f"every whole p = 0 .. {length - 1}, F = {step}, against the blocks laid end "
        "to end; integer arithmetic",
    )
    # The same for other F: every F = 1 .. 64, every p < 6F, against the blocks laid end to
    # end, and the index changes exactly at p = kF - 1 (k >= 1; at F = 1 the first is p = 0,
    # with no position before it to differ from).
    off_blocks = off_rises = compared = 0
    for f in range(1, 65):
        q = np.arange(6 * f, dtype=np.int64)  # (6F,)
        ks = (q + 1) // f  # (6F,)
        laid = np.concatenate([np.zeros(f - 1, dtype=np.int64), np.repeat(np.arange(1, 7), f)])
        rises = np.flatnonzero(np.diff(ks) != 0) + 1  # (steps,)
        off_blocks += int(np.sum(ks != laid[: 6 * f]))
        off_rises += len(set(rises.tolist()) ^ {j * f - 1 for j in range(1, 7) if j * f - 1 > 0})
        compared += len(q)
    rec.exact(
        "for every F = 1 .. 64, floor((p + 1) / F) is the blocks laid end to end "
        "(positions that differ)",
        off_blocks,
        0,
        scope="F = 1 .. 64, every whole p = 0 .. 6F - 1; integer arithmetic",
    )
    rec.exact(
        "for every F = 1 .. 64, floor((p + 1) / F) changes exactly at p = kF - 1 "
        "(positions that differ)",
        off_rises,
        0,
        scope="F = 1 .. 64, every whole p = 0 .. 6F - 1; integer arithmetic",
    )
    rec.exact(
        "the two checks above compared every position they name: 6F of them for each "
        "F = 1 .. 64, 6 * 64 * 65 / 2 in all",
        compared,
        sp.Rational(6 * 64 * 65, 2),
        scope="the loop's count against the closed form of the sum of 6F",
    )
    values = temperature.llama4(p, float(scale), step)  # (L,)
    changes = np.flatnonzero(np.diff(values) != 0) + 1  # (steps,)
    want = [j * step - 1 for j in range(1, length // step + 1)]
    rec.exact(
        "posenc's tau changes value exactly at p = kF - 1, k >= 1 (positions that differ)",
        len(set(changes.tolist()) ^ set(want)),
        0,
        scope=f"every p = 0 .. {length - 1}: where tau(p) != tau(p - 1), against kF - 1",
    )
    rec.exact(
        "steps within Scout's context",
        len(changes),
        len(want),
        scope=f"p < {length}",
        quantity="scout_steps",
        show=Show(),
    )
    rec.exact(
        "tau is exactly 1 below p = F - 1 (positions where it is not)",
        int(np.sum(values[: step - 1] != 1.0)),
        0,
        scope=f"p = 0 .. {step - 2}, posenc in float64",
    )
    starts = [0, *want]  # (K + 1,) the first position of each step
    with mpmath.workdps(50):
        exact_values = [1 + mpmath.mpf(scale.numerator) / scale.denominator * mpmath.log(j + 1)
                        for j in range(len(starts))]  # fmt: skip
    ends = [s + step - 1 if s else step - 2 for s in starts]  # the last position of each step
    rec.close(
        "on step k, at its first and last position, tau = 1 + a ln(k + 1)",
        [float(values[s]) for s in starts] + [float(values[e]) for e in ends if e < length],
        [sp.Float(v, 50) for v in exact_values]
        + [sp.Float(v, 50) for v, e in zip(exact_values, ends, strict=True) if e < length],
        tol=1e-15,
        scope=f"k = 0 .. {len(starts) - 1}; posenc in float64 against mpmath at 50 digits",
    )
    rec.close(
        "tau at the first step, 1 + a ln 2",
        float(values[step - 1]),
        sp.Float(exact_values[1], 50),
        tol=1e-15,
        scope=f"p = {step - 1}",
        quantity="tau_first",
        show=Show(sig=5),
    )
    top = length - 1
    rec.close(
        "tau at Scout's last position, 1 + a ln(floor(L / F) + 1)",
        float(values[top]),
        sp.Float(exact_values[(top + 1) // step], 50),
        tol=1e-15,
        scope=f"p = {top}, k = {(top + 1) // step}",
        quantity="tau_last",
        show=Show(sig=5),
    )
    logits = rule.on_logits(np.array(starts))
    rec.exact(
        "posenc's factor on the logits is tau itself, once (steps where it differs)",
        sum(
            Fraction(float(x)) != Fraction(float(y))
            for x, y in zip(logits, values[starts], strict=True)
        ),
        0,
        scope=f"the {len(starts)} step starts, as exact rationals",
    )

    # The table: which configs have NoPE attention layers, read by posenc and from the files.
    found, done = set(), []
    for path in sorted(CONFIG_DIR.glob("*.json")):
        mine, theirs = read_nope_layers(path.stem), raw_nope_layers(raw_part(path.stem))
        done.append(path.stem)
        if mine != theirs:
            found.add(f"{path.stem} (differs)")
        elif mine:
            found.add(path.stem)
    rec.exact(
        "configs read (every file of data/configs)",
        len(done),
        len(list(CONFIG_DIR.glob("*.json"))),
        scope="data/configs/*.json",
    )
    rec.exact(
        "configs with NoPE attention layers, posenc and the plain JSON agreeing layer by "
        "layer, are those the page names (differences)",
        len(found ^ set(NOPE_MODELS)),
        0,
        scope="data/configs/*.json: posenc's non-rotating attention layers against the "
        "rules of Transformers 5.24 applied to the plain JSON",
    )
    rec.exact(
        "how many",
        len(found),
        len(NOPE_MODELS),
        scope="data/configs/*.json",
        quantity="nope_models",
        show=Show(),
    )
    per_model = []
    for stem, (_, key) in NOPE_MODELS.items():
        per_model.append(stem)
        reading_ = model_config.read_model(CONFIG_DIR / f"{stem}.json")
        nope = read_nope_layers(stem)
        rec.exact(
            f"{stem}: NoPE layers",
            len(nope),
            len(raw_nope_layers(raw_part(stem))),
            scope=f"data/configs/{stem}.json, posenc against the plain JSON",
            quantity=f"{key}_nope",
            show=Show(),
        )
        rec.exact(
            f"{stem}: layers",
            reading_.num_layers,
            raw_part(stem)["num_hidden_layers"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{key}_layers",
            show=Show(),
        )
        drawn = figure.nope_layers(figure.STACKS[key])
        rec.exact(
            f"{stem}: the figure's NoPE layers are posenc's (layers that differ)",
            len(set(drawn) ^ set(nope)),
            0,
            scope="posenc.figures.nopelayers.STACKS against posenc's reading",
        )
        rec.exact(
            f"{stem}: the figure's number of layers is posenc's",
            figure.STACKS[key]["layers"],
            reading_.num_layers,
            scope="posenc.figures.nopelayers.STACKS against posenc's reading",
        )
    rec.exact(
        "models whose NoPE layers were counted and drawn",
        len(per_model),
        len(found),
        scope="the configs found above with NoPE attention layers",
    )
    # A list that is not the interval rule: posenc must follow the list, as Transformers
    # does (SmolLM3Config replaces only a missing list).
    made_up = {
        "model_type": "smollm3",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_hidden_layers": 6,
        "rope_theta": 5e6,
        "no_rope_layers": [1, 0, 1, 1, 0, 1],
    }
    posenc_made_up = tuple(sorted(i for kind in model_config.read_model(made_up).kinds
                                  if not kind.rotates for i in kind.layers))  # fmt: skip
    rec.exact(
        "a SmolLM3 config whose list is not every fourth layer: the NoPE layers posenc "
        "reads are layers 1 and 4 (layers that differ)",
        len(set(posenc_made_up) ^ {1, 4}),
        0,
        scope="no_rope_layers [1, 0, 1, 1, 0, 1], typed here",
    )
    rec.exact(
        "and those the file's rule gives (layers that differ)",
        len(set(raw_nope_layers(made_up)) ^ {1, 4}),
        0,
        scope="no_rope_layers [1, 0, 1, 1, 0, 1], typed here",
    )
    smol = raw_part("smollm3-3b")["no_rope_layers"]
    rec.exact(
        "SmolLM3-3B's no_rope_layers holds 1 at the layers that rotate (entries of 1)",
        sum(smol),
        len(smol) - len(read_nope_layers("smollm3-3b")),
        scope="data/configs/smollm3-3b.json: ones in the list against posenc's rotary layers",
        quantity="smol_ones",
        show=Show(),
    )
    rec.exact(
        "the figure's temperature is Scout's (fields that differ)",
        sum(figure.LLAMA4[key] != value for key, value in
            {"attn_scale": float(scale), "floor_scale": step, "context": length}.items()),
        0,
        scope="posenc.figures.nopelayers.LLAMA4 against posenc's reading",
    )  # fmt: skip


# -- misreadings -------------------------------------------------------------------


def _ones_are_nope(wit: Witness) -> None:
    # "no_rope_layers[i] == 1 means layer i has no rotary" (transformers#43756). Read so,
    # SmolLM3-3B's list would leave its ones without rotary; Transformers' code
    # (self.use_rope = config.no_rope_layers[layer_idx]) leaves its zeros.
    flags = raw_part("smollm3-3b")["no_rope_layers"]
    misread = sum(flags)
    nope = len(read_nope_layers("smollm3-3b"))
    wit.differs(
        misread,
        nope,
        margin=nope,
        by="the true number of NoPE layers: the misreading finds more than twice as many",
        at=f"SmolLM3-3B: {misread} entries of 1 in no_rope_layers against the {nope} layers "
        "Transformers runs without rotary",
    )


def _tau_exact(p: int, rule) -> mpmath.mpf:
    """Llama 4's factor at position p, by mpmath at 50 digits from the rule's parameters."""
    scale = Fraction(rule.params["attn_scale"])
    with mpmath.workdps(50):
        a = mpmath.mpf(scale.numerator) / scale.denominator
        return 1 + a * mpmath.log((p + 1) // rule.params["floor_scale"] + 1)


def _agreeing(rule, p: int) -> mpmath.mpf:
    """The factor at p by mpmath, after checking that posenc's is the same (else raise)."""
    exact = _tau_exact(p, rule)
    if abs(float(rule.on_logits(np.array([p]))[0]) - exact) > 1e-12:
        raise ValueError(f"posenc's factor at p = {p} is not 1 + a ln(floor((p + 1)/F) + 1)")
    return exact


def _last_position(reading) -> int:
    """Scout's last position, checked against the file read as plain JSON (else raise)."""
    top = reading.max_position_embeddings - 1
    if top + 1 != raw_part(SCOUT)["max_position_embeddings"]:
        raise ValueError("the last position is not the file's max_position_embeddings - 1")
    return top


def _tuning_off(wit: Witness) -> None:
    # "Scout's config says nothing of attn_temperature_tuning, so the temperature is off."
    # In Transformers, Llama4TextConfig defaults it to True; at Scout's last position its
    # NoPE queries are scaled by 1 + a ln(L / F + 1). (vLLM sets the key itself, from the
    # generation config or max_model_len > 32768; the witness is for Transformers.)
    reading, scout = scout_reading()
    rule = llama4_rules(scout[False])[0]
    top = _last_position(reading)
    wit.differs(
        sp.Float(_agreeing(rule, top), 50),
        1,
        margin=Fraction(1, 4),
        by="a quarter of every logit of the row",
        at=f"Llama 4 Scout, a NoPE layer's query at p = {top}: the class default (on) against off",
    )


def _every_layer(wit: Witness) -> None:
    # "Llama 4 applies its temperature on every layer." Transformers: `if
    # self.attn_temperature_tuning and not self.use_rope`; a rotary layer's factor is 1.
    reading, scout = scout_reading()
    top = _last_position(reading)
    rotary = np.prod([t.on_logits(np.array([top]))[0] for t in llama4_rules(scout[True])])
    misread = _agreeing(llama4_rules(scout[False])[0], top)
    wit.differs(
        sp.Float(misread, 50),
        sp.Rational(Fraction(float(rotary))),
        margin=Fraction(1, 4),
        by="a quarter of every logit of the row",
        at=f"Llama 4 Scout, rotary layer {scout[True].layers[0]} at p = {top}: the "
        "temperature misapplied against the factor 1 its code applies",
    )


def _knows_no_order(wit: Witness) -> None:
    # "A NoPE layer knows nothing of order." Two causal NoPE layers with zero queries:
    # swapping the first two of three tokens moves the last row by 1/3 (Proposition 3's
    # weights (H_3 - H_j) / 3 = 11/18, 5/18, 2/18).
    onehot = [[Fraction(int(i == j)) for j in range(3)] for i in range(3)]
    given = uniform_rows(uniform_rows(onehot))[-1]
    if given != [Fraction(11, 18), Fraction(5, 18), Fraction(2, 18)]:
        raise ValueError("the last row is not Proposition 3's weights (H_3 - H_j) / 3")
    swapped = uniform_rows(uniform_rows([onehot[1], onehot[0], onehot[2]]))[-1]
    if swapped != [Fraction(5, 18), Fraction(11, 18), Fraction(2, 18)]:
        raise ValueError("the swapped last row is not the weights with the first two swapped")
    wit.differs(
        sp.Matrix([sp.Rational(v) for v in given]),
        sp.Matrix([sp.Rational(v) for v in swapped]),
        margin=Fraction(1, 6),
        by="half the weight an even split would give",
        at="two causal NoPE layers, zero queries, one-hot values of three tokens: the last "
        "row for tokens (a, b, c) against (b, a, c)",
    )


def _no_position_read(wit: Witness) -> None:
    # "Llama 4's NoPE layers read no position, so a common shift leaves them unchanged."
    # Their temperature reads the absolute position: one place further, at p = F - 1, the
    # query is scaled by 1 + a ln 2.
    _, scout = scout_reading()
    rule = llama4_rules(scout[False])[0]
    step = rule.params["floor_scale"]
    after = _agreeing(rule, step - 1)
    before = _agreeing(rule, step - 2)
    wit.differs(
        sp.Float(after, 50),
        sp.Float(before, 50),
        margin=Fraction(1, 20),
        by="a twentieth of every logit of the row",
        at=f"Llama 4 Scout, a NoPE layer's query at p = {step - 1} against p = {step - 2}",
    )


MISREADINGS = [
    Misreading(
        "no_rope_layers[i] == 1 means layer i has no rotary",
        _ones_are_nope,
        why="Transformers reads the entry as use_rope: 1 is a rotary layer, 0 a NoPE one. "
        "SmolLM3-3B's list has a 0 at every fourth layer: those are its NoPE layers.",
    ),
    Misreading(
        "Llama 4 Scout's config does not mention attention temperature tuning, so "
        "Transformers runs Scout without it",
        _tuning_off,
        why="Transformers' Llama4TextConfig defaults attn_temperature_tuning to True, and "
        "attn_scale and floor_scale to the values the page states: read by Transformers, the "
        "file turns it on. (vLLM does not follow that default; see the page.)",
    ),
    Misreading(
        "Llama 4 applies its attention temperature on every layer",
        _every_layer,
        why="The code scales the queries only where use_rope is 0: the NoPE layers. The "
        "rotary (chunked) layers get no temperature.",
    ),
    Misreading(
        "A NoPE layer knows nothing of order: its output depends on the tokens as a set",
        _knows_no_order,
        why="The causal mask lets order in (Propositions 3 and 17). Already one layer's "
        "row 0 is token 0's value alone, so its output is not a function of the set; and "
        "though its row i sees its prefix as a multiset, a second layer sees rows that "
        "already differ, so it depends on the order of the earlier tokens.",
    ),
    Misreading(
        "Llama 4's NoPE layers read no position: shifting every position leaves them unchanged",
        _no_position_read,
        why="Their temperature is a function of the absolute position: it steps up at "
        "p = F - 1, 2F - 1, ...",
    ),
]
