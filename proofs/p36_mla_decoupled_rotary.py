"""Proposition 36 (MLA's decoupled rotary: absorption holds without rotary and fails with it).

(1) Absorption. With a cached latent c = W_DKV h and a head's key k = W_UK c, the score of
a query q = W_Q h_q is q^T k = h_q^T (W_Q^T W_UK) c: the product M = W_Q^T W_UK is fixed,
so W_UK folds into the query side and only c is cached (DeepSeek-V2, arXiv 2405.04434,
section 2.1.2; the values fold likewise, W_O W_UV).

(2) Rotary on those keys. Turning the query by R(m) and the key by R(n) (Proposition 12)
gives h_q^T W_Q^T R(n - m) W_UK c: the matrix to fold is A(j) = W_Q^T R(-j w) W_UK,
j = m - n. For a latent cached before any rotation and one matrix for every pair of
positions: for one pair turning at a speed w that is not a multiple of pi,
A(j) = X cos(j w) - Y sin(j w) with X = W_Q^T W_UK, Y = W_Q^T J W_UK, and if A is the same
at the offsets 0, 1 and 2 then X = Y = 0, so A(j) = 0 at every offset: a rotary part that
scores anything at all needs a different matrix at different offsets. One matrix per offset
can be folded, but then no single matrix serves the cache. Counterexample: W_Q = W_UK = I,
w = 1 (DeepSeek-V3's fastest pair): A(0) = I, A(1) = R(-1).

(3) The decoupled score. q = [q_C; q_R], k = [k_C; k_R] with q_C = W_UQ c_Q, k_C = W_UK c,
q_R = RoPE_m(W_QR c_Q) per head and k_R = RoPE_n(W_KR h) one per token, shared by every
head: the score is c_Q^T (W_UQ^T W_UK) c + q_R^T R(n - m) k_R. The content part keeps its
absorption; the score depends on the positions only through n - m.

(4) The cache per token per layer of an MLA layer is kv_lora_rank + qk_rope_head_dim
numbers: 512 + 64 = 576 for DeepSeek-V3, against 128 (192 + 128) = 40960 for multi-head
attention with the same heads (ratio 640/9), 61 layers. The same 576 for Kimi K2.5 (64 heads)
and for DeepSeek-V3.2-Exp's MLA part; V3.2-Exp's sparse-attention indexer caches one more key
of index_head_dim = 128 per token per layer (Transformers 5.24, DeepseekV32Indexer,
cache.update_indexer), so a V3.2-Exp layer caches 512 + 64 + 128 = 704.

The logits are the score times one scale, qk_head_dim^(-1/2) (times YaRN's mscale^2 when
mscale_all_dim is set): it multiplies both parts, so the split of (3) holds for the logits.

Transformers 5.24's rope_interleave takes coordinates (2i, 2i + 1) as pair i, turns it and
writes the result split-half (evens first): the same relabelling of q and k, so the score is
that of rotating the pairs in place (Proposition 23).

Uses: 12, 23.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from posenc import model_config, rope
from posenc.figures import mla as figure
from posenc.rotary import pairing_permutation, rotary
from proofs import kit
from proofs.kit import Misreading, Recorder, Show, Witness

NUMBER = 36
TITLE = "MLA's decoupled rotary: absorption holds without rotary and fails with it"
USES = (12, 23)

# The toy shapes of the symbolic steps: the width of a token, of the latent, of a head's
# content part; the offset at which the pairing misreading compares the scores.
INPUTS = {
    "token_width": 3,
    "latent_width": 2,
    "content_width": 2,
    "pairing_offset": 3,
}

ROOT = Path(kit.__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "data/configs"
V3 = "deepseek-v3"
V32 = "deepseek-v3.2-exp"
KIMI = "kimi-k2.5"
#: The configs kept in data/configs whose attention is MLA (a kv_lora_rank in the file),
#: by the model's name.
MLA_MODELS = {V3: "DeepSeek-V3", V32: "DeepSeek-V3.2-Exp", KIMI: "Kimi K2.5"}


def turn(angle: sp.Expr) -> sp.Matrix:
    return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])


def symbols_matrix(name: str, rows: int, cols: int) -> sp.Matrix:
    return sp.Matrix(rows, cols, lambda i, j: sp.Symbol(f"{name}_{i}{j}", real=True))


def raw_part(stem: str) -> dict:
    """The language model's part of a config file, as plain JSON."""
    raw = json.loads((CONFIG_DIR / f"{stem}.json").read_text())
    return raw.get("text_config", raw)


def reading(stem: str):
    """posenc's reading of a config: the only rotating kind of layer, and the model."""
    model = model_config.read_model(CONFIG_DIR / f"{stem}.json")
    return model.kind(), model


def mla_cache(part: dict) -> int:
    """Numbers an MLA layer caches per token: the latent and the one shared rotary key."""
    return part["kv_lora_rank"] + part["qk_rope_head_dim"]


def mha_cache(part: dict) -> int:
    """What multi-head attention with the same heads caches: each head's key and value."""
    key = part["qk_nope_head_dim"] + part["qk_rope_head_dim"]
    return part["num_attention_heads"] * (key + part["v_head_dim"])


def transformers_interleave(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """apply_rotary_pos_emb_interleave of Transformers 5.24, transcribed for one vector.

    ``cos``, ``sin`` hold one angle per pair; pair i is (x[2i], x[2i + 1]); the output
    puts the turned first members, then the turned second members.
    """
    x1, x2 = x[0::2], x[1::2]  # (P,) each
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin])  # (2P,)


def rotate_half_rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """apply_rotary_pos_emb (rotate_half) for one vector: pair i is (x[i], x[i + P])."""
    half = x.size // 2
    x1, x2 = x[:half], x[half:]  # (P,) each
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin])  # (2P,)


def checks(rec: Recorder) -> None:
    a, r, dc = INPUTS["token_width"], INPUTS["latent_width"], INPUTS["content_width"]
    h = symbols_matrix("h", a, 1)  # the query's token
    c = symbols_matrix("c", r, 1)  # the cached latent of the key's token
    w_q = symbols_matrix("Q", dc, a)
    w_uk = symbols_matrix("K", dc, r)

    # Step 1. Absorption without rotary: (W_Q h)^T (W_UK c) = h^T (W_Q^T W_UK) c.
    rec.identity(
        "(W_Q h)^T (W_UK c) = h^T (W_Q^T W_UK) c: W_UK folds into the query side",
        (w_q * h).T * (w_uk * c) - h.T * (w_q.T * w_uk) * c,
        scope=f"every real W_Q ({dc}x{a}), W_UK ({dc}x{r}), h, c",
    )
    weights = sp.Matrix(sp.symbols("alpha0:3", real=True))
    latents = [symbols_matrix(f"c{j}", r, 1) for j in range(3)]
    w_uv, w_o = symbols_matrix("V", dc, r), symbols_matrix("O", a, dc)
    rec.identity(
        "the values fold too: W_O sum_j alpha_j W_UV c_j = (W_O W_UV) sum_j alpha_j c_j",
        w_o * sum((weights[j] * w_uv * latents[j] for j in range(3)), sp.zeros(dc, 1))
        - (w_o * w_uv) * sum((weights[j] * latents[j] for j in range(3)), sp.zeros(r, 1)),
        scope=f"three keys, every real alpha_j, W_UV ({dc}x{r}), W_O ({a}x{dc}), c_j",
    )

    # Step 2. With rotary on the keys. The score is h^T W_Q^T R(n - m) W_UK c, and the
    # matrix to fold, A(j) = W_Q^T R(-j w) W_UK (j = m - n), is X cos(j w) - Y sin(j w).
    m, n = sp.symbols("m n", integer=True)
    w = sp.Symbol("omega", positive=True)
    # With u = W_Q h and v = W_UK c, (R(m w) u)^T (R(n w) v) = u^T R((n - m) w) v; the
    # factors W_Q^T and W_UK then stand on either side of R by associativity (step 1).
    u, v = symbols_matrix("u", 2, 1), symbols_matrix("v", 2, 1)
    rec.identity(
        "(R(m w) u)^T (R(n w) v) = u^T R((n - m) w) v, so the score is "
        "h^T W_Q^T R((n - m) w) W_UK c",
        (turn(m * w) * u).T * (turn(n * w) * v) - u.T * turn((n - m) * w) * v,
        scope="one rotary pair, every integer m, n, real w > 0 and real u = W_Q h, v = W_UK c",
    )
    q2, k2 = symbols_matrix("Q", 2, a), symbols_matrix("K", 2, r)
    rec.identity(
        "u^T R v with u = W_Q h, v = W_UK c is h^T (W_Q^T R W_UK) c for any matrix R",
        ((q2 * h).T * symbols_matrix("R", 2, 2) * (k2 * c))
        - h.T * (q2.T * symbols_matrix("R", 2, 2) * k2) * c,
        scope=f"every real W_Q (2x{a}), W_UK (2x{r}), R (2x2), h, c",
    )
    j = sp.Symbol("j", integer=True)
    quarter = sp.Matrix([[0, -1], [1, 0]])  # J = R(pi/2)
    x_part, y_part = q2.T * k2, q2.T * quarter * k2
    rec.identity(
        "A(j) = W_Q^T R(-j w) W_UK = X cos(j w) - Y sin(j w), X = W_Q^T W_UK, Y = W_Q^T J W_UK",
        q2.T * turn(-j * w) * k2 - (x_part * sp.cos(j * w) - y_part * sp.sin(j * w)),
        scope="every integer j, real w and real W_Q, W_UK",
    )
    # A(1) - A(0) = (cos w - 1) X - sin w Y, A(2) - A(0) = (cos 2w - 1) X - sin 2w Y; the
    # determinant of this system is -2 sin w (1 - cos w), zero only when w is a multiple of pi.
    det = sp.Matrix([[sp.cos(w) - 1, -sp.sin(w)], [sp.cos(2 * w) - 1, -sp.sin(2 * w)]]).det()
    rec.identity(
        "the system A(1) = A(2) = A(0) in (X, Y) has determinant -2 sin(w) (1 - cos w)",
        det + 2 * sp.sin(w) * (1 - sp.cos(w)),
        scope="every real w",
    )
    speeds = reading(V3)[0].inv_freq
    # A float speed is a rational and pi is irrational, so a speed is a multiple of pi only
    # if it is 0; the checks that can fail are that every speed lies in (0, pi), decided
    # exactly against SymPy's pi, and that no two are equal. Then the +-w_i differ modulo
    # 2 pi and none is a multiple of 2 pi: the several-pair argument of step 3 applies.
    exact_speeds = [sp.Rational(value) for value in speeds.tolist()]
    outside = [i for i, value in enumerate(exact_speeds) if not (0 < value < sp.pi)]
    rec.exact(
        "DeepSeek-V3's rotary speeds outside (0, pi) (so none is a multiple of pi)",
        len(outside),
        0,
        scope=f"the {speeds.size} speeds posenc reads from {V3}.json, as exact rationals "
        "against SymPy's pi",
    )
    rec.exact(
        "DeepSeek-V3's rotary speeds that are distinct",
        len(set(exact_speeds)),
        reading(V3)[0].rope.head_dim // 2,
        scope=f"{V3}.json: one speed per pair, qk_rope_head_dim / 2 pairs",
        quantity="v3_pairs",
        show=Show(),
    )
    rec.exact(
        "speeds checked",
        len(speeds),
        reading(V3)[0].rope.head_dim // 2,
        scope=f"{V3}.json: qk_rope_head_dim / 2 pairs",
    )
    one = sp.Rational(speeds[0])
    rec.exact(
        "the fastest pair turns at speed 1 (the counterexample's w)",
        one,
        1,
        scope=f"posenc's YaRN speeds of {V3}.json, pair 0",
    )
    eye = sp.eye(2)
    gap = eye.T * turn(-one) * eye - eye.T * turn(0) * eye
    e2, e1 = sp.Matrix([0, 1]), sp.Matrix([1, 0])
    with mpmath.workdps(50):
        sin1 = mpmath.sin(1)
    rec.close(
        "so e_1^T A(0) e_0 = 0 and e_1^T A(1) e_0 = -sin 1: no single M gives both scores",
        sp.Abs((e2.T * gap * e1)[0, 0]),
        sp.Float(sin1, 50),
        tol=1e-45,
        scope="the two offsets 0 and 1; SymPy's expression against mpmath's sin 1, 50 digits",
        quantity="counter_gap",
        show=Show(sig=3),
    )

    # Step 3. The decoupled score: a content part that absorbs, a rotary part that turns.
    # The rotary part (R(m) q_R)^T (R(n) k_R) is q_R^T R((n - m) w) k_R by step 2's first
    # identity (u = q_R, v = k_R); here the dot product of the two concatenations splits.
    cq = symbols_matrix("cq", r, 1)  # the query's latent
    w_uq = symbols_matrix("U", dc, r)
    q_r, k_r = symbols_matrix("qR", 2, 1), symbols_matrix("kR", 2, 1)
    rotary_part = (turn(m * w) * q_r).T * (turn(n * w) * k_r)
    full = (w_uq * cq).col_join(turn(m * w) * q_r).T * (w_uk * c).col_join(turn(n * w) * k_r)
    rec.identity(
        "[q_C; R(m) q_R]^T [k_C; R(n) k_R] = c_Q^T (W_UQ^T W_UK) c + (R(m) q_R)^T (R(n) k_R)",
        full - (cq.T * (w_uq.T * w_uk) * c + rotary_part),
        scope="one rotary pair; every integer m, n, real w and real weights, latents",
    )
    rec.exact(
        "the content part holds no position (m, n among its symbols)",
        len((cq.T * (w_uq.T * w_uk) * c)[0, 0].free_symbols & {m, n}),
        0,
        scope="the content part of the decoupled score, as built",
    )
    s = sp.Symbol("s", integer=True)
    rec.identity(
        "the rotary part, so the decoupled score, is unchanged when both positions move by s",
        rotary_part.subs({m: m + s, n: n + s}, simultaneous=True) - rotary_part,
        scope="every integer m, n, s",
    )
    heads = []
    for head in range(2):
        uq_i, uk_i = symbols_matrix(f"U{head}", dc, r), symbols_matrix(f"K{head}", dc, r)
        qr_i = symbols_matrix(f"qR{head}", 2, 1)
        full_q = (uq_i * cq).col_join(turn(m * w) * qr_i)
        full_k = (uk_i * c).col_join(turn(n * w) * k_r)  # the one k_R of every head
        heads.append(
            (full_q.T * full_k)[0, 0]
            - (cq.T * (uq_i.T * uk_i) * c)[0, 0]
            - ((turn(m * w) * qr_i).T * (turn(n * w) * k_r))[0, 0]
        )
    rec.exact("heads checked", len(heads), 2, scope="two heads with their own weights")
    rec.identity(
        "each head's score is computed from the cached (c, k_R) alone, k_R shared",
        sp.Matrix(heads),
        scope="two heads, each with its own W_UQ, W_UK, query rotary part; one k_R",
    )
    # The logits are the score times one scale (DeepseekV3Attention.scaling in Transformers
    # 5.24: qk_head_dim^(-1/2), times YaRN's mscale^2 when mscale_all_dim is set). The same
    # scale multiplies both parts, so the split holds for the logits.
    scale = sp.Symbol("sigma", positive=True)
    content_part = (cq.T * (w_uq.T * w_uk) * c)[0, 0]
    rec.identity(
        "one scale sigma multiplies both parts: sigma q^T k = sigma (content) + sigma (rotary)",
        scale * full[0, 0] - (scale * content_part + scale * rotary_part[0, 0]),
        scope="one rotary pair; every real sigma > 0, integer m, n, real weights, latents",
    )
    v3 = raw_part(V3)
    yarn = v3["rope_scaling"]
    rec.exact(
        "DeepSeek-V3's YaRN factor",
        yarn["factor"],
        40,
        scope=f"data/configs/{V3}.json, rope_scaling.factor, hand value",
        quantity="v3_factor",
        show=Show(),
    )
    rec.exact(
        "DeepSeek-V3 sets mscale_all_dim (so Transformers multiplies the scale by mscale^2)",
        int(bool(yarn.get("mscale_all_dim", 0))),
        1,
        scope=f"data/configs/{V3}.json, rope_scaling.mscale_all_dim",
    )
    key_width = v3["qk_nope_head_dim"] + v3["qk_rope_head_dim"]
    # The reference takes the key width by hand (128 + 64, the paper's d_h + d_h^R), so a
    # wrong sum of the config's two fields shows.
    with mpmath.workdps(50):
        by_hand = (mpmath.mpf(1) / 10 * mpmath.mpf(yarn["mscale_all_dim"])
                   * mpmath.log(yarn["factor"]) + 1) ** 2 / mpmath.sqrt(192)  # fmt: skip
    rec.close(
        "DeepSeek-V3's scale: qk_head_dim^(-1/2) mscale^2, posenc's yarn_mscale",
        rope.yarn_mscale(yarn["factor"], yarn["mscale_all_dim"]) ** 2 * key_width**-0.5,
        sp.Float(by_hand, 50),
        tol=1e-14,
        scope=f"data/configs/{V3}.json: (0.1 mscale_all_dim ln factor + 1)^2 / sqrt(192), "
        "mpmath at 50 digits",
        quantity="v3_scale",
        show=Show(sig=3),
    )

    # Step 4. Transformers' rope_interleave: pairs (2i, 2i + 1), output split-half. The
    # same permutation of q and k, so the score is that of turning the pairs in place.
    pairs = 2
    xs, ys = symbols_matrix("x", 2 * pairs, 1), symbols_matrix("y", 2 * pairs, 1)
    th = sp.symbols("t0:2", real=True)
    ph = sp.symbols("u0:2", real=True)

    def interleave_sym(v: sp.Matrix, angles) -> sp.Matrix:
        first = [v[2 * i] * sp.cos(angles[i]) - v[2 * i + 1] * sp.sin(angles[i]) for i in range(2)]
        second = [
            v[2 * i + 1] * sp.cos(angles[i]) + v[2 * i] * sp.sin(angles[i]) for i in range(2)
        ]
        return sp.Matrix(first + second)

    def complex_turn(v: sp.Matrix, angles) -> list[sp.Expr]:
        # DeepSeek's own code: pair i as the complex number v[2i] + i v[2i + 1], times
        # cos t_i + i sin t_i (view_as_complex and freqs_cis), the product left unexpanded.
        return [
            (v[2 * i] + sp.I * v[2 * i + 1]) * (sp.cos(angles[i]) + sp.I * sp.sin(angles[i]))
            for i in range(2)
        ]

    turned = complex_turn(xs, th)
    out = interleave_sym(xs, th)
    rec.exact("pairs in the complex turn", len(turned), pairs, scope="width 4")
    rec.identity(
        "rope_interleave's output is DeepSeek's complex turn of pairs (2i, 2i + 1): real "
        "parts first, imaginary parts after (out_i + i out_(i+P) = z_i)",
        sp.Matrix([out[i] + sp.I * out[i + 2] - z for i, z in enumerate(turned)]),
        scope="width 4 (two pairs), every real x and angles",
    )
    rec.identity(
        "so its score is DeepSeek's, sum_i Re(conj(z_i) z'_i): the relabelling is the same "
        "for q and k",
        (out.T * interleave_sym(ys, ph))[0, 0]
        - sum(
            sp.expand(sp.conjugate(zq) * zk).as_real_imag()[0]
            for zq, zk in zip(turned, complex_turn(ys, ph), strict=True)
        ),
        scope="width 4, every real q, k and angles of the query and of the key",
    )
    width = reading(V3)[0].rope.head_dim
    rng = np.random.default_rng(36)
    vectors = rng.standard_normal((3, width))  # (3, 64)
    errors = []
    for position in (0.0, 5.0, 1234.0):
        angle = position * 10000.0 ** (-np.arange(0, width, 2) / width)  # (32,)
        mine = transformers_interleave(vectors[0], np.cos(angle), np.sin(angle))
        theirs = rotary(vectors[:1], [position], pairing="interleaved")[0]
        deinterleave = np.argsort(pairing_permutation(width))
        errors.extend((mine - theirs[deinterleave]).tolist())
    half_errors = []
    for position in (0.0, 5.0, 1234.0):
        angle = position * 10000.0 ** (-np.arange(0, width, 2) / width)  # (32,)
        mine = rotate_half_rope(vectors[1], np.cos(angle), np.sin(angle))
        theirs = rotary(vectors[1:2], [position], pairing="half")[0]
        half_errors.extend((mine - theirs).tolist())
    rec.numeric(
        "the transcribed rotate_half is posenc's split-half rotary (the misreading's pairing)",
        half_errors,
        tol=1e-12,
        scope=f"width {width}, base 10^4, positions 0, 5, 1234",
    )
    rec.numeric(
        "posenc's interleaved rotary, de-interleaved, is the transcribed rope_interleave",
        errors,
        tol=1e-12,
        scope=f"width {width} (DeepSeek-V3's rotary part), base 10^4, positions 0, 5, 1234",
    )

    # Step 5. The cache per token per layer, read from the MLA configs kept in data/configs.
    found = set()
    for path in sorted(CONFIG_DIR.glob("*.json")):
        if "kv_lora_rank" in raw_part(path.stem):
            found.add(path.stem)
    rec.exact(
        "configs with a kv_lora_rank (MLA) are those the page names (differences)",
        len(found ^ set(MLA_MODELS)),
        0,
        scope="data/configs/*.json as plain JSON",
    )
    rec.exact(
        "how many",
        len(found),
        len(MLA_MODELS),
        scope="hand count: DeepSeek-V3, DeepSeek-V3.2-Exp, Kimi K2.5",
        quantity="mla_models",
        show=Show(),
    )
    done = []
    tags = {V3: "v3", V32: "v32", KIMI: "kimi"}
    for stem, tag in tags.items():
        part = raw_part(stem)
        kind, model = reading(stem)
        done.append(stem)
        rec.exact(
            f"{stem}: the rotated width posenc reads is the file's qk_rope_head_dim",
            kind.rope.head_dim,
            part["qk_rope_head_dim"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_rope",
            show=Show(),
        )
        rec.exact(
            f"{stem}: posenc pairs its rotary part interleaved (rope_interleave, default true)",
            int(kind.pairing == "interleaved"),
            int(True if stem == V32 else part.get("rope_interleave", True)),
            scope=f"data/configs/{stem}.json; DeepseekV3Config's default (true) when absent; "
            "DeepSeek-V3.2-Exp always interleaved in the pinned code (no rope_interleave; "
            "DeepseekV32Attention calls apply_rotary_pos_emb_interleave)",
        )
        rec.exact(
            f"{stem}: layers posenc reads",
            model.num_layers,
            part["num_hidden_layers"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_layers",
            show=Show(),
        )
        rec.exact(
            f"{stem}: the latent, kv_lora_rank",
            part["kv_lora_rank"],
            512,
            scope=f"data/configs/{stem}.json against DeepSeek-V2's d_c = 4 d_h, d_h = 128",
            quantity=f"{tag}_latent",
            show=Show(),
        )
        rec.exact(
            f"{stem}: heads",
            part["num_attention_heads"],
            {"v3": 128, "v32": 128, "kimi": 64}[tag],
            scope=f"data/configs/{stem}.json, hand count",
            quantity=f"{tag}_heads",
            show=Show(),
        )
        cache = mla_cache(part)
        rec.exact(
            f"{stem}: MLA caches kv_lora_rank + qk_rope_head_dim numbers per token per layer",
            cache,
            part["kv_lora_rank"] + kind.rope.head_dim,
            scope=f"data/configs/{stem}.json; the rotary width as posenc reads it",
            quantity=f"{tag}_cache",
            show=Show(),
        )
        mha = mha_cache(part)
        rec.exact(
            f"{stem}: multi-head attention with the same heads caches heads (key + value) numbers",
            mha,
            part["num_attention_heads"] * (part["qk_nope_head_dim"] + kind.rope.head_dim)
            + part["num_attention_heads"] * part["v_head_dim"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_mha",
            show=Show(),
        )
        rec.exact(
            f"{stem}: the ratio, exactly",
            Fraction(mha, cache),
            Fraction(part["num_attention_heads"] * 320, 576),
            scope=f"data/configs/{stem}.json: keys 192 and values 128 wide per head",
            quantity=f"{tag}_ratio",
            show=Show(sig=3),
        )
        rec.exact(
            f"{stem}: over all layers, MLA",
            cache * model.num_layers,
            576 * part["num_hidden_layers"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_cache_all",
            show=Show(),
        )
        # A sparse-attention indexer (DeepSeek-V3.2) caches one key of index_head_dim more
        # per token per layer (Transformers 5.24, DeepseekV32Indexer: cache.update_indexer).
        index_key = part.get("index_head_dim", 0)
        rec.exact(
            f"{stem}: the indexer's key cached per token per layer, index_head_dim",
            index_key,
            {"v3": 0, "v32": 128, "kimi": 0}[tag],
            scope=f"data/configs/{stem}.json (0: no indexer), hand value",
            quantity=f"{tag}_index_key",
            show=Show(),
        )
        rec.exact(
            f"{stem}: all a layer caches per token, MLA part and indexer key",
            cache + index_key,
            {"v3": 576, "v32": 512 + 64 + 128, "kimi": 576}[tag],
            scope=f"data/configs/{stem}.json, hand value",
            quantity=f"{tag}_layer_cache",
            show=Show(),
        )
        rec.exact(
            f"{stem}: all a token caches over all layers",
            (cache + index_key) * model.num_layers,
            {"v3": 576, "v32": 512 + 64 + 128, "kimi": 576}[tag] * part["num_hidden_layers"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_layer_cache_all",
            show=Show(),
        )
        rec.exact(
            f"{stem}: over all layers, multi-head attention",
            mha * model.num_layers,
            mha * part["num_hidden_layers"],
            scope=f"data/configs/{stem}.json",
            quantity=f"{tag}_mha_all",
            show=Show(),
        )
    rec.exact("MLA configs read", len(done), len(found), scope="data/configs/*.json")
    indexed = {stem for stem in found if "index_head_dim" in raw_part(stem)}
    rec.exact(
        "MLA configs with an indexer (index_head_dim) are DeepSeek-V3.2-Exp's alone (differences)",
        len(indexed ^ {V32}),
        0,
        scope="data/configs/*.json with a kv_lora_rank, as plain JSON",
    )
    part = raw_part(V3)
    rec.exact(
        "DeepSeek-V3: a head's key, content and rotary parts side by side",
        part["qk_nope_head_dim"] + reading(V3)[0].rope.head_dim,
        192,
        scope=f"data/configs/{V3}.json: qk_nope_head_dim + qk_rope_head_dim, hand value",
        quantity="v3_key_width",
        show=Show(),
    )
    rec.exact(
        "DeepSeek-V3: a head's content part of the key",
        part["qk_nope_head_dim"],
        128,
        scope=f"data/configs/{V3}.json, hand value",
        quantity="v3_nope",
        show=Show(),
    )
    rec.exact(
        "DeepSeek-V3: a head's value",
        part["v_head_dim"],
        128,
        scope=f"data/configs/{V3}.json, hand value",
        quantity="v3_value_width",
        show=Show(),
    )
    paper = 2 * part["num_attention_heads"] * part["v_head_dim"]
    rec.exact(
        "DeepSeek-V2's measure of MHA, 2 n_h d_h with d_h = 128, for DeepSeek-V3",
        paper,
        2 * 128 * part["qk_nope_head_dim"],
        scope=f"data/configs/{V3}.json: d_h = v_head_dim = qk_nope_head_dim",
        quantity="v3_paper_mha",
        show=Show(),
    )
    rec.exact(
        "and its ratio to MLA's cache",
        Fraction(paper, mla_cache(part)),
        Fraction(512, 9),
        scope="exact",
        quantity="v3_paper_ratio",
        show=Show(sig=3),
    )
    rec.exact(
        "DeepSeek-V2's (d_c + d_h^R) = 9/2 d_h with d_c = 4 d_h and d_h^R = d_h / 2",
        Fraction(mla_cache(part), part["qk_nope_head_dim"]),
        Fraction(9, 2),
        scope=f"data/configs/{V3}.json, d_h = 128",
    )

    # Step 6. The figure draws DeepSeek-V3 as its config gives it.
    drawn = {
        "heads": part["num_attention_heads"],
        "qk_nope_head_dim": part["qk_nope_head_dim"],
        "qk_rope_head_dim": reading(V3)[0].rope.head_dim,
        "v_head_dim": part["v_head_dim"],
        "kv_lora_rank": part["kv_lora_rank"],
    }
    rec.exact(
        "the figure's table is DeepSeek-V3's config (fields that differ)",
        sum(figure.DEEPSEEK_V3[key] != value for key, value in drawn.items()),
        0,
        scope="posenc.figures.mla.DEEPSEEK_V3 against the file and posenc's reading",
    )
    rec.close(
        "the figure's rotary speeds are posenc's reading of DeepSeek-V3",
        figure.speeds().tolist(),
        reading(V3)[0].inv_freq.tolist(),
        tol=0,
        scope=f"{V3}.json, all {speeds.size} pairs",
    )


# -- misreadings -------------------------------------------------------------------


def _per_head_cache(wit: Witness) -> None:
    # "An MLA layer caches a key and a value per head, like multi-head attention."
    # DeepSeek-V3: its cache is MLA's alone (no indexer key, unlike DeepSeek-V3.2-Exp).
    part = raw_part(V3)
    assert "index_head_dim" not in part
    wit.differs(
        mha_cache(part),
        mla_cache(part),
        at=f"DeepSeek-V3 ({V3}.json): heads (192 + 128) against kv_lora_rank + "
        "qk_rope_head_dim per token per layer",
        margin=10 * mla_cache(part),
        by="ten times what MLA caches",
    )


def _latent_only(wit: Witness) -> None:
    # "MLA caches only the latent c: kv_lora_rank numbers per token per layer."
    part = raw_part(V3)
    kind, _ = reading(V3)
    wit.differs(
        part["kv_lora_rank"] + kind.rope.head_dim,
        part["kv_lora_rank"],
        at=f"DeepSeek-V3 ({V3}.json): the latent and the rotary key against the latent alone",
        margin=kind.rope.head_dim - 1,
        by="one less than the rotary key's width",
    )


def _rotary_absorbs(wit: Witness) -> None:
    # "The rotary part absorbs like the content part: one M gives every offset's score."
    # W_Q = W_UK = I, DeepSeek-V3's fastest pair (speed 1), h = e_1, c = e_0: the scores at
    # offsets 0 and 1 differ by sin 1, so no single h^T M c equals both.
    w = sp.Rational(reading(V3)[0].inv_freq[0])
    e1, e0 = sp.Matrix([0, 1]), sp.Matrix([1, 0])
    at_0 = (e1.T * turn(0) * e0)[0, 0]
    at_1 = (e1.T * turn(-w) * e0)[0, 0]
    wit.differs(
        at_0,
        at_1,
        at="W_Q = W_UK = I, DeepSeek-V3's pair 0 (speed 1), h = e_1, c = e_0, offsets 0 and 1",
        margin=sp.Rational(3, 4),
        by="three quarters",
    )


def _pairing_free(wit: Witness) -> None:
    # "Which coordinates pair in the rotary part does not matter": rotate_half applied to
    # weights trained with pairs (2i, 2i + 1). Query and key e_32, the speeds posenc
    # reads for DeepSeek-V3: pair 16 turns slowly, rotate_half's pair 0 at speed 1.
    kind, _ = reading(V3)
    speeds = kind.inv_freq  # (32,)
    offset = INPUTS["pairing_offset"]
    v = np.zeros(2 * speeds.size)  # (64,)
    v[speeds.size] = 1.0  # coordinate 32: pair 16 when interleaved, pair 0's second half
    with mpmath.workdps(50):
        right = mpmath.cos(offset * mpmath.mpf(float(speeds[speeds.size // 2])))
    q_right = transformers_interleave(v, np.cos(0 * speeds), np.sin(0 * speeds))
    k_right = transformers_interleave(v, np.cos(offset * speeds), np.sin(offset * speeds))
    q_wrong = rotate_half_rope(v, np.cos(0 * speeds), np.sin(0 * speeds))
    k_wrong = rotate_half_rope(v, np.cos(offset * speeds), np.sin(offset * speeds))
    with mpmath.workdps(50):
        wrong = mpmath.cos(offset * mpmath.mpf(float(speeds[0])))  # rotate_half: pair 0
    assert abs(float(q_right @ k_right) - float(right)) < 1e-12
    assert abs(float(q_wrong @ k_wrong) - float(wrong)) < 1e-12
    wit.differs(
        sp.Float(right, 50),
        sp.Float(wrong, 50),
        at=f"DeepSeek-V3's rotary part, q = k = e_32, offset {offset}: pairs (2i, 2i + 1) "
        "(e_32 in pair 16) against rotate_half's (i, i + 32) (e_32 in pair 0)",
        margin=1,
        by="half the range [-1, 1] of a unit pair's term",
    )


def _rotary_per_head(wit: Witness) -> None:
    # "Each head has its own rotary key, so the cache grows with the number of heads."
    v3, kimi = raw_part(V3), raw_part(KIMI)
    per_head = v3["kv_lora_rank"] + v3["num_attention_heads"] * v3["qk_rope_head_dim"]
    wit.exact(
        mla_cache(v3) == mla_cache(kimi) != per_head
        and v3["num_attention_heads"] != kimi["num_attention_heads"],
        at=f"DeepSeek-V3 ({v3['num_attention_heads']} heads) and Kimi K2.5 "
        f"({kimi['num_attention_heads']} heads) both cache {mla_cache(v3)} numbers per token "
        f"per layer; a rotary key per head would make DeepSeek-V3's {per_head}",
    )


MISREADINGS = [
    Misreading(
        "An MLA layer caches a key and a value for each head, as multi-head attention does",
        _per_head_cache,
        why="It caches the latent and one rotary key per token; each head's key and value are "
        "rebuilt from the latent, or never built once the up-projections are absorbed.",
    ),
    Misreading(
        "MLA caches only the latent: kv_lora_rank numbers per token per layer",
        _latent_only,
        why="The rotary key k_R cannot come from the latent after the rotation; it is cached "
        "beside it, qk_rope_head_dim more numbers.",
    ),
    Misreading(
        "The rotary part can be absorbed like the content part: one matrix M, fixed once, "
        "gives the rotary score of every offset",
        _rotary_absorbs,
        why="The matrix to fold is W_Q^T R(n - m) W_UK; it changes with the offset unless the "
        "rotary part scores zero everywhere.",
    ),
    Misreading(
        "The pairing of the rotary part does not matter: rotate_half on DeepSeek's "
        "interleaved weights gives the same scores",
        _pairing_free,
        why="The weights were trained with pairs (2i, 2i + 1); rotate_half pairs i with "
        "i + 32 and gives other coordinates other speeds (Proposition 23).",
    ),
    Misreading(
        "Each head has its own rotary key, so MLA's cache grows with the number of heads",
        _rotary_per_head,
        why="k_R = RoPE(W_KR h) is one vector per token shared by every head.",
    ),
]
